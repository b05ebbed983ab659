/* technique_compute_exact.c — the compute raster in fragment order
 * (technique.h; "compute-exact" in technique_registry.h;
 * docs/algorithms/compute-raster.md): every fragment of the frame, in the
 * mesh's order, sorted by its own depth with the frame's sort (the GL
 * radix sort, or a CUDA sort through interop), equal depths by triangle
 * number, then composited pixel by pixel: the A-buffer's image, exact.
 * No stage runs (the frame sorts fragments, not primitives). Frames the
 * raster cannot take (points, more than one sample a pixel) are the
 * A-buffer's, which is exact too. */
#include "oit_common.h"
#include "raster_compute.h"
#include "technique.h"

static ds_status exact_prepare(ds_renderer *renderer, void *state)
{
    (void)state;
    ds_status status = ds_render_compute_prepare(renderer);
    if (status)
        return status;
    /* The A-buffer, for the frames the raster cannot take. */
    return ds_render_technique_prepare(renderer, DS_TECHNIQUE_ABUFFER);
}

static ds_status exact_composite(ds_renderer *renderer, void *state, const frame_plan *plan,
                                 GLuint output)
{
    (void)state;
    return ds_render_compute_draw(renderer, plan, DS_RASTER_FRAGMENT_ORDER, output);
}

static ds_status exact_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                             frame_record *record)
{
    if (!plan->compute)
        return ds_technique_abuffer.frame(renderer, renderer->technique_state[DS_TECHNIQUE_ABUFFER],
                                          plan, record);
    return ds_oit_frame(renderer, state, plan, record, exact_composite);
}

const ds_technique_backend ds_technique_compute_exact = {
    .prepare = exact_prepare,
    .frame = exact_frame,
};
