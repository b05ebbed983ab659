/* SPDX-License-Identifier: MIT */
/* technique_sorted.c — the sorted draw, and with the sort off the
 * unsorted one (technique.h; the lines "sorted" and "unsorted" of
 * technique_registry.h): the stages (keys, sort, binning or scatter) as
 * GL compute (gl_stages.c), in CUDA (stages_cuda.c) or on the host
 * (stages_cpu.c), then the raster path's draw (raster.h) of the order
 * they wrote, straight alpha "over", back to front. Its objects are the
 * renderer's own and the raster path's: it keeps no state. */
#include "raster.h"
#include "technique.h"

static ds_status sorted_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                              frame_record *record)
{
    ds_status status;
    ds_timeline *timeline = renderer->timing.timeline;
    (void)state;
    DS_TIMELINE_HOST(timeline, "stages_begin");
    status = plan->gl ? ds_render_gl_stages(renderer, plan, record)
             : renderer->settings.cpu_path ? ds_render_cpu_stages(renderer, plan, record)
                                  : ds_render_cuda_stages(renderer, plan, record);
    if (status)
        return status;
    DS_TIMELINE_HOST(timeline, "stages_end");
    renderer->verification.last_plan = *plan;

    DS_TIMELINE_HOST(timeline, "draw_submit_begin");
    /* When the GPU gets to the draw: with the frame's entry, the
     * hand-over (timing.c). */
    glQueryCounter(record->begin_query, GL_TIMESTAMP);
    status = ds_render_raster_draw(renderer, plan, record);
    DS_TIMELINE_HOST(timeline, "draw_submit_end");
    if (status)
        return status;
    if (!renderer->settings.cpu_path) {
        /* GL -> CUDA: the commands reading element buffer `slot` are
         * issued; the interop notes when GL is done with it, and CUDA
         * waits for that before writing it again two frames on. */
        double interop_ms = 0.0;
        if ((status = ds_interop_gl_used(renderer->cuda.interop, plan->slot, &interop_ms)))
            return status;
        record->host_interop_ms += (float)interop_ms;
    }
    return DS_OK;
}

const ds_technique_backend ds_technique_sorted = {
    .sorts = 1,
    .frame = sorted_frame,
};
