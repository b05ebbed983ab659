/* timing.c — the renderer's stage times without stalling the frame path:
 * each frame's CUDA events and GL timer queries live in one of TIMING_RING
 * records, read once their results are available (usually a frame or two
 * later), and a record is reused only after it has been read. Completed
 * frames go to ds_renderer_timings() (the latest) and a backlog for
 * ds_renderer_next_timings() (each frame once). */
#include "renderer_internal.h"

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

/* Reads the results of the oldest outstanding frame if they are available
 * (or, with wait set, once they are). Returns 1 if a frame was collected. */
int ds_render_collect_timings(ds_renderer *renderer, int wait)
{
    frame_record *record = &renderer->records[renderer->next_collect % TIMING_RING];
    if (!record->pending || record->frame != renderer->next_collect)
        return 0;
    if (!wait) {
        GLint available = 0;
        glGetQueryObjectiv(record->end_query, GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available)
            return 0;
        if (!renderer->cpu_path) {
            cudaError_t done = cudaEventQuery(record->events[EV_SCATTER]);
            if (done == cudaErrorNotReady)
                return 0;
        }
    }
    ds_frame_timings t = {0};
    t.frame = record->frame;
    if (renderer->cpu_path) {
        t.distances_ms = record->host_stage_ms[EV_DISTANCES];
        t.keys_ms = record->host_stage_ms[EV_KEYS];
        t.sort_ms = record->host_stage_ms[EV_SORT];
        t.scatter_ms = record->host_stage_ms[EV_SCATTER];
    } else {
        /* The frame's last event: its stages are done, and the pinned
         * visible count copied before it has landed. */
        cudaEventSynchronize(record->events[EV_SCATTER]);
        t.distances_ms = event_ms(record, EV_START, EV_DISTANCES);
        t.keys_ms = event_ms(record, EV_DISTANCES, EV_KEYS);
        t.shuffle_ms = event_ms(record, EV_KEYS, EV_SHUFFLE);
        t.sort_ms = event_ms(record, EV_SHUFFLE, EV_SORT);
        t.scatter_ms = event_ms(record, EV_SORT, EV_SCATTER);
    }
    t.interop_ms = record->host_interop_ms;
    t.drawn = record->culled && !renderer->cpu_path
                  ? renderer->host_visible[record - renderer->records]
                  : record->drawn;
    GLuint64 draw_ns = 0, end_ns = 0;
    glGetQueryObjectui64v(record->draw_query, GL_QUERY_RESULT, &draw_ns);
    glGetQueryObjectui64v(record->end_query, GL_QUERY_RESULT, &end_ns);
    t.draw_ms = (float)(draw_ns * 1e-6);
    if (renderer->have_last_end && end_ns > renderer->last_end_timestamp)
        t.frame_ms = (float)((end_ns - renderer->last_end_timestamp) * 1e-6);
    renderer->last_end_timestamp = end_ns;
    renderer->have_last_end = 1;
    if (renderer->timeline && !renderer->cpu_path)
        ds_timeline_collect(renderer->timeline, record);

    record->pending = 0;
    renderer->next_collect++;
    renderer->latest = t;
    renderer->have_latest = 1;
    size_t tail = (renderer->backlog_head + renderer->backlog_count) % TIMINGS_BACKLOG;
    renderer->backlog[tail] = t;
    if (renderer->backlog_count < TIMINGS_BACKLOG)
        renderer->backlog_count++;
    else
        renderer->backlog_head = (renderer->backlog_head + 1) % TIMINGS_BACKLOG;
    return 1;
}

int ds_renderer_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (ds_render_collect_timings(renderer, 0))
        ;
    if (!renderer->have_latest)
        return 0;
    *dest = renderer->latest;
    return 1;
}

int ds_renderer_next_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (ds_render_collect_timings(renderer, 0))
        ;
    if (!renderer->backlog_count)
        return 0;
    *dest = renderer->backlog[renderer->backlog_head];
    renderer->backlog_head = (renderer->backlog_head + 1) % TIMINGS_BACKLOG;
    renderer->backlog_count--;
    return 1;
}

ds_status ds_renderer_finish(ds_renderer *renderer)
{
    glFinish();
    if (!renderer->cpu_path)
        DS_CUDA_TRY("render", cudaStreamSynchronize(renderer->stream));
    while (ds_render_collect_timings(renderer, 1))
        ;
    return DS_OK;
}

frame_record *ds_render_next_record(ds_renderer *renderer)
{
    frame_record *record = &renderer->records[renderer->frame_count % TIMING_RING];
    /* Read whatever finished; the slot about to be reused must be read
     * first (it is TIMING_RING frames old, so this rarely waits): its
     * events, queries and pinned visible count are about to be rewritten. */
    while (ds_render_collect_timings(renderer, 0))
        ;
    while (record->pending && ds_render_collect_timings(renderer, 1))
        ;
    record->pending = 0;
    record->frame = renderer->frame_count;
    return record;
}
