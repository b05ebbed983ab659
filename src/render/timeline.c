/* SPDX-License-Identifier: MIT */
/* timeline.c — a few frames' events on one clock (renderer.h,
 * ds_renderer_timeline_start): where a frame's time goes between the host,
 * GL and CUDA, including the waits that no stage timer counts.
 *
 * Recording adds no wait: host events are ds_now_ms() readings; GL events
 * are glQueryCounter(GL_TIMESTAMP) into queries made at start; CUDA events
 * are the timing ring's stage events (read, relative to an anchor event,
 * when timing.c collects their frame) and a few events of our own made at
 * start. Each cudaEventRecord or glQueryCounter costs the host about a
 * microsecond; the frames recorded are that much slower on the host.
 *
 * Putting the GPU clocks on the host clock, once, after the frames have
 * completed (so that no synchronisation disturbs them):
 *   GL:   glGetInteger64v(GL_TIMESTAMP) is GL's time "now" (ns) without
 *         waiting for queued commands; read between two host readings h0,
 *         h1, it happened at (h0 + h1) / 2 +- (h1 - h0) / 2; a query's
 *         result maps through that pair.
 *   CUDA: on an idle stream (after the finish), an event recorded between
 *         h0 and a cudaEventSynchronize that returns at h1 completed in
 *         [h0, h1]; cudaEventElapsedTime from the anchor to it (and to every
 *         other event) puts them on the host clock.
 * Each is tried a few times and the tightest [h0, h1] kept; the error is
 * its half-width, a few microseconds on an idle machine. The clocks drift
 * apart by far less than that over a few frames. */
#include "renderer_internal.h"

#include <math.h>
#include <stdlib.h>

#include "clock.h"
#include "cuda_check.h"
#include "timeline.h"

/* Host readings per frame at most (ds_renderer_frame and interop.c
 * record fewer than 20). */
#define HOST_EVENTS_PER_FRAME 32
#define GL_EVENTS_PER_FRAME 2
/* interop_begin; unmapped (map path) */
#define CUDA_EVENTS_PER_FRAME 2
/* Readings of each GPU clock; the tightest host interval wins. */
#define ALIGNMENT_TRIES 5

/* The timing ring's events, named for the boundary each marks. */
static const char *const STAGE_EVENT_NAMES[EV_COUNT] = {
    "stages_start", "distances_end", "keys_end", "shuffle_end", "sort_end", "scatter_end"};

enum { KIND_HOST, KIND_GL_QUERY, KIND_CUDA_EVENT, KIND_CUDA_OFFSET };

/* An event on the host clock and its place in recording order (ties). */
typedef struct timed {
    ds_timeline_event event;
    size_t order;
} timed;

typedef struct recorded {
    uint64_t frame;
    const char *name;
    ds_timeline_source source;
    int kind;
    int index;       /* the query or own event */
    double ms;       /* host: the reading; CUDA_OFFSET: after the anchor */
} recorded;

struct ds_timeline {
    uint64_t first_frame, end_frame; /* the window [first, end) */
    uint64_t frame;                  /* the frame being recorded */
    int active;                      /* `frame` is in the window */
    cudaStream_t stream;             /* NULL on the CPU path */
    cudaEvent_t anchor;
    recorded *recorded;
    size_t recorded_count, recorded_capacity;
    GLuint *queries;
    int query_count, query_capacity;
    cudaEvent_t *cuda_events;
    int event_count, event_capacity;
    timed *sorted;                   /* read()'s, sorted */
    ds_timeline_event *events;       /* read()'s result */
};

static void add(ds_timeline *timeline, const char *name, int kind, int index, double ms)
{
    if (timeline->recorded_count == timeline->recorded_capacity)
        return; /* cannot happen within the per-frame bounds above */
    ds_timeline_source source = kind == KIND_HOST       ? DS_TIMELINE_HOST
                                : kind == KIND_GL_QUERY ? DS_TIMELINE_GL
                                                        : DS_TIMELINE_CUDA;
    timeline->recorded[timeline->recorded_count++] =
        (recorded){timeline->frame, name, source, kind, index, ms};
}

void ds_timeline_host_now(ds_timeline *timeline, const char *name)
{
    if (timeline->active)
        add(timeline, name, KIND_HOST, -1, ds_now_ms());
}

void ds_timeline_frame_begin(ds_timeline *timeline, uint64_t frame)
{
    timeline->frame = frame;
    timeline->active = frame >= timeline->first_frame && frame < timeline->end_frame;
    ds_timeline_host_now(timeline, "frame_begin");
}

void ds_timeline_gl_now(ds_timeline *timeline, const char *name)
{
    if (!timeline->active || timeline->query_count == timeline->query_capacity)
        return;
    int index = timeline->query_count++;
    glQueryCounter(timeline->queries[index], GL_TIMESTAMP);
    add(timeline, name, KIND_GL_QUERY, index, 0.0);
}

ds_status ds_timeline_cuda_now(ds_timeline *timeline, const char *name, cudaStream_t stream)
{
    if (!timeline->active || timeline->event_count == timeline->event_capacity)
        return DS_OK;
    int index = timeline->event_count++;
    DS_CUDA_TRY("timeline", cudaEventRecord(timeline->cuda_events[index], stream));
    add(timeline, name, KIND_CUDA_EVENT, index, 0.0);
    return DS_OK;
}

void ds_timeline_collect(ds_timeline *timeline, const frame_record *record)
{
    if (!timeline->stream || record->frame < timeline->first_frame ||
        record->frame >= timeline->end_frame)
        return;
    uint64_t frame = timeline->frame;
    timeline->frame = record->frame;
    for (int e = 0; e < EV_COUNT; e++) {
        float ms = 0.0f;
        /* The anchor precedes every event of the window on the stream, and
         * timing.c collects a frame only once its last event is done. */
        if (cudaEventElapsedTime(&ms, timeline->anchor, record->events[e]) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        add(timeline, STAGE_EVENT_NAMES[e], KIND_CUDA_OFFSET, -1, (double)ms);
    }
    timeline->frame = frame;
}

void ds_timeline_free(ds_timeline *timeline)
{
    if (!timeline)
        return;
    if (timeline->queries) {
        glDeleteQueries(timeline->query_capacity, timeline->queries);
        free(timeline->queries);
    }
    for (int i = 0; timeline->cuda_events && i < timeline->event_capacity; i++)
        if (timeline->cuda_events[i])
            cudaEventDestroy(timeline->cuda_events[i]);
    free(timeline->cuda_events);
    if (timeline->anchor)
        cudaEventDestroy(timeline->anchor);
    free(timeline->recorded);
    free(timeline->sorted);
    free(timeline->events);
    free(timeline);
}

ds_status ds_timeline_create(uint64_t first_frame, int frames, cudaStream_t stream,
                             ds_timeline **dest)
{
    ds_status status = DS_OK;
    *dest = NULL;
    ds_timeline *timeline = calloc(1, sizeof *timeline);
    if (!timeline)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "timeline: out of host memory");
    size_t n = (size_t)frames;
    timeline->first_frame = first_frame;
    timeline->end_frame = first_frame + n;
    timeline->recorded_capacity = n * (HOST_EVENTS_PER_FRAME + GL_EVENTS_PER_FRAME +
                                       CUDA_EVENTS_PER_FRAME + EV_COUNT);
    timeline->recorded = malloc(timeline->recorded_capacity * sizeof *timeline->recorded);
    timeline->sorted = malloc(timeline->recorded_capacity * sizeof *timeline->sorted);
    timeline->events = malloc(timeline->recorded_capacity * sizeof *timeline->events);
    timeline->query_capacity = frames * GL_EVENTS_PER_FRAME;
    timeline->queries = calloc((size_t)timeline->query_capacity, sizeof *timeline->queries);
    if (!timeline->recorded || !timeline->sorted || !timeline->events || !timeline->queries) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "timeline: out of host memory");
        goto fail;
    }
    glGenQueries(timeline->query_capacity, timeline->queries);
    if (stream) {
        timeline->stream = stream;
        timeline->event_capacity = frames * CUDA_EVENTS_PER_FRAME;
        timeline->cuda_events =
            calloc((size_t)timeline->event_capacity, sizeof *timeline->cuda_events);
        if (!timeline->cuda_events) {
            status = ds_fail(DS_ERR_OUT_OF_MEMORY, "timeline: out of host memory");
            goto fail;
        }
        for (int i = 0; i < timeline->event_capacity; i++)
            DS_CUDA_GOTO(status, fail, "timeline", cudaEventCreate(&timeline->cuda_events[i]));
        DS_CUDA_GOTO(status, fail, "timeline", cudaEventCreate(&timeline->anchor));
        /* Before every event of the window in stream order; not waited for. */
        DS_CUDA_GOTO(status, fail, "timeline", cudaEventRecord(timeline->anchor, stream));
    }
    *dest = timeline;
    return DS_OK;
fail:
    ds_timeline_free(timeline);
    return status;
}

/* GL's clock (ns) read at host time *host_ms, +- *error_ms. */
static void align_gl(GLint64 *gl_ns, double *host_ms, double *error_ms)
{
    *error_ms = INFINITY;
    for (int i = 0; i < ALIGNMENT_TRIES; i++) {
        GLint64 now = 0;
        double h0 = ds_now_ms();
        glGetInteger64v(GL_TIMESTAMP, &now);
        double h1 = ds_now_ms();
        if ((h1 - h0) * 0.5 < *error_ms) {
            *gl_ns = now;
            *host_ms = (h0 + h1) * 0.5;
            *error_ms = (h1 - h0) * 0.5;
        }
    }
}

/* The anchor event's host time, +- *error_ms. The stream is idle. */
static ds_status align_cuda(ds_timeline *timeline, double *anchor_ms, double *error_ms)
{
    cudaEvent_t reference = NULL;
    ds_status status = DS_OK;
    *error_ms = INFINITY;
    DS_CUDA_TRY("timeline", cudaEventCreate(&reference));
    for (int i = 0; i < ALIGNMENT_TRIES; i++) {
        double h0 = ds_now_ms();
        DS_CUDA_GOTO(status, done, "timeline", cudaEventRecord(reference, timeline->stream));
        /* Waits for the reference alone: it completes between h0 and h1. */
        DS_CUDA_GOTO(status, done, "timeline", cudaEventSynchronize(reference));
        double h1 = ds_now_ms();
        float since_anchor = 0.0f;
        DS_CUDA_GOTO(status, done, "timeline",
                     cudaEventElapsedTime(&since_anchor, timeline->anchor, reference));
        if ((h1 - h0) * 0.5 < *error_ms) {
            *anchor_ms = (h0 + h1) * 0.5 - (double)since_anchor;
            *error_ms = (h1 - h0) * 0.5;
        }
    }
done:
    cudaEventDestroy(reference);
    return status;
}

static int by_time(const void *a, const void *b)
{
    const timed *x = a, *y = b;
    if (x->event.t_ms != y->event.t_ms)
        return x->event.t_ms < y->event.t_ms ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

ds_status ds_timeline_read(ds_timeline *timeline, const ds_timeline_event **events,
                           size_t *count, ds_timeline_alignment *alignment)
{
    ds_status status;
    timeline->active = 0;
    GLint64 gl_ns = 0;
    double gl_host_ms = 0.0, anchor_ms = 0.0;
    alignment->cuda_error_ms = NAN;
    align_gl(&gl_ns, &gl_host_ms, &alignment->gl_error_ms);
    if (timeline->stream && (status = align_cuda(timeline, &anchor_ms, &alignment->cuda_error_ms)))
        return status;

    /* Every event as host milliseconds. */
    for (size_t i = 0; i < timeline->recorded_count; i++) {
        const recorded *r = &timeline->recorded[i];
        double ms = r->ms;
        if (r->kind == KIND_GL_QUERY) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(timeline->queries[r->index], GL_QUERY_RESULT, &ns);
            /* The difference in integers: GL's clock may count from far. */
            ms = gl_host_ms + (double)(int64_t)(ns - (GLuint64)gl_ns) * 1e-6;
        } else if (r->kind == KIND_CUDA_EVENT) {
            float since_anchor = 0.0f;
            DS_CUDA_TRY("timeline", cudaEventElapsedTime(&since_anchor, timeline->anchor,
                                                         timeline->cuda_events[r->index]));
            ms = anchor_ms + (double)since_anchor;
        } else if (r->kind == KIND_CUDA_OFFSET) {
            ms += anchor_ms;
        }
        timeline->sorted[i] = (timed){{r->frame, r->source, r->name, ms}, i};
    }
    qsort(timeline->sorted, timeline->recorded_count, sizeof *timeline->sorted, by_time);
    for (size_t i = 0; i < timeline->recorded_count; i++)
        timeline->events[i] = timeline->sorted[i].event;
    *events = timeline->events;
    *count = timeline->recorded_count;
    return DS_OK;
}
