/* SPDX-License-Identifier: MIT */
/* technique_compute.c — the compute raster in triangle order (technique.h;
 * "compute" in technique_registry.h): the sorted draw's stages, then the
 * compute raster path (raster_compute.c) whatever the renderer's path, so
 * that --compare and the viewer can set it beside the others. Its image
 * is the sorted draw's, composited in float instead of blended in RGBA8.
 * Frames the raster cannot take are the sorted draw's. */
#include "raster_compute.h"
#include "technique.h"

static ds_status compute_prepare(ds_renderer *renderer, void *state)
{
    (void)state;
    return ds_render_compute_prepare(renderer);
}

static ds_status compute_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                               frame_record *record)
{
    return ds_technique_sorted.frame(renderer, state, plan, record);
}

const ds_technique_backend ds_technique_compute = {
    .sorts = 1,
    .prepare = compute_prepare,
    .frame = compute_frame,
};
