/* SPDX-License-Identifier: MIT */
/* timing.c — the renderer's stage times without stalling the frame path:
 * each frame's CUDA events (or, when its stages ran as GL compute, GL
 * timestamps) and GL timer queries live in one of TIMING_RING records,
 * read once their results are available (usually a frame or two later),
 * and a record is reused only after it has been read. Completed frames go
 * to ds_renderer_timings() (the latest) and a backlog for
 * ds_renderer_next_timings() (each frame once).
 *
 * The hand-over: the GPU time from this frame's start to its begin (a GL
 * timestamp just before the clear), less the GPU time of this frame's
 * stages. Where the GPU had finished the frame before when this one
 * started (an idle GPU: the viewer's window copy, a light frame), the
 * start is the frame's entry (a GL timestamp as ds_renderer_frame starts),
 * so that what a caller draws or waits for between frames stays out of it
 * (it is in frame_ms only). In a busy pipeline it is the frame before's
 * end: the entry stamp waits in GL's queue behind that frame's draw, and
 * the GPU may run this frame's CUDA stages before it, both switches
 * between the contexts included (an entry start would read 0 there). A
 * frame whose stages run in GL starts instead at the caller's mark after
 * its own GL work between the frames, where that is later
 * (ds_renderer_between_frames: the viewer's panels and window read-back);
 * a CUDA frame cannot use the mark, which the GPU, like the entry stamp,
 * may reach only after the CUDA stages. What is left is time in which the
 * GPU ran none of this frame's work: on the CUDA path its two switches
 * between the GL and the CUDA context, on the GL path the gaps between
 * the compute passes (and, outside a busy pipeline, any wait for the
 * host).
 *
 * The ring's queries and events (render_timing) are made and freed here,
 * and the timeline (timeline.c) is started and read from here. */
#include "raster_compute.h"
#include "renderer_internal.h"

#include <string.h>

#include "cuda_check.h"

static float event_ms(const frame_record *record, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, record->events[from], record->events[to]) != cudaSuccess) {
        cudaGetLastError();
        return 0.0f;
    }
    return ms;
}

static GLuint64 query_ns(GLuint query)
{
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
    return ns;
}

static int query_available(GLuint query)
{
    GLint available = 0;
    glGetQueryObjectiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
    return available != 0;
}

/* Milliseconds from GL timestamp `from` to `to`. A later boundary never
 * reads earlier on one GPU clock; the guard keeps a misbehaving driver
 * from showing wrapped-around times. */
static float span_ms(GLuint64 from, GLuint64 to)
{
    return to > from ? (float)((to - from) * 1e-6) : 0.0f;
}

/* The GL path's stage times: the GL timestamps at the stage boundaries,
 * in the events' layout. Returns the stages' GPU time, first to last. */
static float gl_stage_times(const frame_record *record, ds_frame_timings *t)
{
    GLuint64 at[EV_COUNT];
    for (int e = EV_START; e <= EV_SCATTER; e++)
        at[e] = query_ns(record->stage_queries[e]);
    t->distances_ms = span_ms(at[EV_START], at[EV_DISTANCES]);
    t->keys_ms = span_ms(at[EV_DISTANCES], at[EV_KEYS]);
    t->shuffle_ms = span_ms(at[EV_KEYS], at[EV_SHUFFLE]);
    t->sort_ms = span_ms(at[EV_SHUFFLE], at[EV_SORT]);
    t->scatter_ms = span_ms(at[EV_SORT], at[EV_SCATTER]);
    return span_ms(at[EV_START], at[EV_SCATTER]);
}

/* Reads the results of the oldest outstanding frame if they are available
 * (or, with wait set, once they are). Returns 1 if a frame was collected.
 * A GL-stage frame recorded no CUDA events, so nothing here waits on CUDA
 * for it. */
int ds_render_collect_timings(ds_renderer *renderer, int wait)
{
    frame_record *record = &renderer->timing.records[renderer->timing.next_collect % TIMING_RING];
    if (!record->pending || record->frame != renderer->timing.next_collect)
        return 0;
    /* The stages ran in CUDA (an order-independent frame ran none). */
    int cuda = !record->gl && !record->oit && !renderer->settings.cpu_path;
    if (!wait) {
        if (!query_available(record->end_query))
            return 0;
        if (record->gl && !query_available(record->stage_queries[EV_SCATTER]))
            return 0;
        if (cuda) {
            cudaError_t done = cudaEventQuery(record->events[EV_SCATTER]);
            if (done == cudaErrorNotReady)
                return 0;
        }
    }
    ds_frame_timings t = {0};
    t.frame = record->frame;
    t.stages = record->gl || record->sort_gl ? DS_STAGES_GL : DS_STAGES_SORTER;
    t.sorted_bits = record->sorted_bits;
    float stages_ms = 0.0f; /* GPU time of the stages, for the hand-over */
    if (record->gl) {
        stages_ms = gl_stage_times(record, &t);
    } else if (renderer->settings.cpu_path) {
        t.distances_ms = record->host_stage_ms[EV_DISTANCES];
        t.keys_ms = record->host_stage_ms[EV_KEYS];
        t.sort_ms = record->host_stage_ms[EV_SORT];
        t.scatter_ms = record->host_stage_ms[EV_SCATTER];
    } else if (cuda) {
        /* The frame's last event: its stages are done, and the pinned
         * visible count copied before it has landed. */
        cudaEventSynchronize(record->events[EV_SCATTER]);
        t.distances_ms = event_ms(record, EV_START, EV_DISTANCES);
        t.keys_ms = event_ms(record, EV_DISTANCES, EV_KEYS);
        t.shuffle_ms = event_ms(record, EV_KEYS, EV_SHUFFLE);
        t.sort_ms = event_ms(record, EV_SHUFFLE, EV_SORT);
        t.scatter_ms = event_ms(record, EV_SORT, EV_SCATTER);
        stages_ms = event_ms(record, EV_START, EV_SCATTER);
    }
    /* On the GPU a stage that did not run still spans its two marks (a
     * microsecond or two); it reads 0, as renderer.h says. The CPU path
     * runs distances and keys in both modes, its shuffle inside the sort.
     * An unsorted frame (sorted_bits 0) sorts nothing on any path. */
    if (!record->sorted_bits)
        t.sort_ms = 0.0f;
    if (record->gl || cuda) {
        if (record->points)
            t.keys_ms = 0.0f;
        else
            t.distances_ms = 0.0f;
        if (!record->shuffled)
            t.shuffle_ms = 0.0f;
    }
    t.interop_ms = record->host_interop_ms;
    if (record->gl)
        t.drawn = ds_render_gl_stages_drawn(renderer, record);
    else
        t.drawn = record->culled && cuda
                      ? renderer->cuda.host_visible[record - renderer->timing.records]
                      : record->drawn;
    GLuint64 draw_ns = query_ns(record->draw_query);
    GLuint64 end_ns = query_ns(record->end_query);
    t.draw_ms = (float)(draw_ns * 1e-6);
    if (renderer->timing.have_last_end)
        t.frame_ms = span_ms(renderer->timing.last_end_timestamp, end_ns);
    /* The hand-over (see the top of the file): only where the GPU ran
     * the stages; the CPU path's ran on the host. */
    if (renderer->timing.have_last_end &&
        (cuda || record->gl || (record->oit && !renderer->settings.cpu_path))) {
        GLuint64 start_ns = renderer->timing.last_end_timestamp;
        if (record->after_idle) {
            start_ns = query_ns(record->entry_query);
        } else if (record->caller_marked && record->gl) {
            GLuint64 caller_ns = query_ns(record->caller_query);
            start_ns = caller_ns > start_ns ? caller_ns : start_ns;
        }
        float between_ms = span_ms(start_ns, query_ns(record->begin_query));
        t.handover_ms = between_ms > stages_ms ? between_ms - stages_ms : 0.0f;
    }
    renderer->timing.last_end_timestamp = end_ns;
    renderer->timing.have_last_end = 1;
    if (renderer->timing.timeline && cuda)
        ds_timeline_collect(renderer->timing.timeline, record);

    record->pending = 0;
    renderer->timing.next_collect++;
    renderer->timing.latest = t;
    renderer->timing.have_latest = 1;
    size_t tail =
        (renderer->timing.backlog_head + renderer->timing.backlog_count) % TIMINGS_BACKLOG;
    renderer->timing.backlog[tail] = t;
    if (renderer->timing.backlog_count < TIMINGS_BACKLOG)
        renderer->timing.backlog_count++;
    else
        renderer->timing.backlog_head = (renderer->timing.backlog_head + 1) % TIMINGS_BACKLOG;
    return 1;
}

int ds_renderer_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (ds_render_collect_timings(renderer, 0))
        ;
    if (!renderer->timing.have_latest)
        return 0;
    *dest = renderer->timing.latest;
    return 1;
}

int ds_renderer_next_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (ds_render_collect_timings(renderer, 0))
        ;
    if (!renderer->timing.backlog_count)
        return 0;
    *dest = renderer->timing.backlog[renderer->timing.backlog_head];
    renderer->timing.backlog_head = (renderer->timing.backlog_head + 1) % TIMINGS_BACKLOG;
    renderer->timing.backlog_count--;
    return 1;
}

ds_status ds_renderer_finish(ds_renderer *renderer)
{
    /* A compute frame that overflowed is drawn again before the run
     * counts as finished. */
    ds_status settled = ds_render_compute_settle(renderer);
    if (settled)
        return settled;
    glFinish();
    if (!renderer->settings.cpu_path)
        DS_CUDA_TRY("render", cudaStreamSynchronize(renderer->cuda.stream));
    while (ds_render_collect_timings(renderer, 1))
        ;
    return DS_OK;
}

frame_record *ds_render_next_record(ds_renderer *renderer)
{
    frame_record *record = &renderer->timing.records[renderer->timing.frame_count % TIMING_RING];
    /* Read whatever finished; the slot about to be reused must be read
     * first (it is TIMING_RING frames old, so this rarely waits): its
     * events, queries and pinned visible count are about to be rewritten. */
    while (ds_render_collect_timings(renderer, 0))
        ;
    while (record->pending && ds_render_collect_timings(renderer, 1))
        ;
    record->pending = 0;
    const frame_record *before =
        &renderer->timing.records[(renderer->timing.frame_count + TIMING_RING - 1) % TIMING_RING];
    record->after_idle = !before->pending;
    record->caller_marked = renderer->timing.caller_marked;
    renderer->timing.caller_marked = 0;
    record->frame = renderer->timing.frame_count;
    return record;
}

void ds_renderer_between_frames(ds_renderer *renderer)
{
    if (!renderer)
        return;
    /* The record the next frame takes: read first if still in use, as
     * ds_render_next_record would. */
    frame_record *next = &renderer->timing.records[renderer->timing.frame_count % TIMING_RING];
    while (next->pending && ds_render_collect_timings(renderer, 1))
        ;
    glQueryCounter(next->caller_query, GL_TIMESTAMP);
    /* Submitted now, so that the GPU takes it before the next frame's
     * CUDA stages, which it may otherwise run first. */
    glFlush();
    renderer->timing.caller_marked = 1;
}

/* ---- the timeline (timeline.c records; these drive it) ------------------ */

static void drop_timeline(ds_renderer *renderer)
{
    if (renderer->cuda.interop)
        ds_interop_set_timeline(renderer->cuda.interop, NULL);
    ds_timeline_free(renderer->timing.timeline);
    renderer->timing.timeline = NULL;
}

ds_status ds_renderer_timeline_start(ds_renderer *renderer, int frames)
{
    ds_status status;
    if (!renderer || frames < 1 || frames > DS_TIMELINE_MAX_FRAMES)
        return ds_fail(DS_ERR_INVALID_ARG, "timeline: need 1 to %d frames, not %d",
                       DS_TIMELINE_MAX_FRAMES, frames);
    drop_timeline(renderer);
    ds_timeline *timeline = NULL;
    if ((status = ds_timeline_create(renderer->timing.frame_count, frames,
                                     renderer->settings.cpu_path ? NULL : renderer->cuda.stream,
                                     &timeline)))
        return status;
    if (!renderer->settings.cpu_path)
        ds_interop_set_timeline(renderer->cuda.interop, timeline);
    renderer->timing.timeline = timeline;
    return DS_OK;
}

ds_status ds_renderer_timeline_read(ds_renderer *renderer, const ds_timeline_event **events,
                                    size_t *count, ds_timeline_alignment *alignment)
{
    ds_status status;
    if (!renderer || !renderer->timing.timeline)
        return ds_fail(DS_ERR_INVALID_ARG, "timeline: none started");
    /* Every recorded frame complete, its ring events collected. */
    if ((status = ds_renderer_finish(renderer)))
        return status;
    return ds_timeline_read(renderer->timing.timeline, events, count, alignment);
}

/* ---- timing.c's objects (renderer_internal.h, render_timing) ------------- */

ds_status ds_render_timing_create(ds_renderer *renderer)
{
    for (int r = 0; r < TIMING_RING; r++) {
        frame_record *record = &renderer->timing.records[r];
        /* On the CUDA path, the stages' events. */
        for (int e = 0; !renderer->settings.cpu_path && e < EV_COUNT; e++)
            DS_CUDA_TRY("render", cudaEventCreate(&record->events[e]));
        glCreateQueries(GL_TIME_ELAPSED, 1, &record->draw_query);
        glCreateQueries(GL_TIMESTAMP, 1, &record->entry_query);
        glCreateQueries(GL_TIMESTAMP, 1, &record->caller_query);
        glCreateQueries(GL_TIMESTAMP, 1, &record->begin_query);
        glCreateQueries(GL_TIMESTAMP, 1, &record->end_query);
        glCreateQueries(GL_TIMESTAMP, EV_COUNT, record->stage_queries);
    }
    return DS_OK;
}

void ds_render_timing_free(ds_renderer *renderer)
{
    for (int r = 0; r < TIMING_RING; r++) {
        frame_record *record = &renderer->timing.records[r];
        for (int e = 0; e < EV_COUNT; e++)
            if (record->events[e])
                cudaEventDestroy(record->events[e]);
        if (record->draw_query)
            glDeleteQueries(1, &record->draw_query);
        if (record->end_query)
            glDeleteQueries(1, &record->end_query);
        if (record->begin_query)
            glDeleteQueries(1, &record->begin_query);
        if (record->entry_query)
            glDeleteQueries(1, &record->entry_query);
        if (record->caller_query)
            glDeleteQueries(1, &record->caller_query);
        if (record->stage_queries[0])
            glDeleteQueries(EV_COUNT, record->stage_queries);
        memset(record->events, 0, sizeof record->events);
    }
}
