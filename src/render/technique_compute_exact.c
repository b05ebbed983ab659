/* SPDX-License-Identifier: MIT */
/* technique_compute_exact.c — the compute raster in fragment order
 * (technique.h; "compute-exact" in technique_registry.h;
 * docs/algorithms/compute-raster.md): every fragment of the frame, in the
 * mesh's order, sorted by its own depth with the frame's sort (the GL
 * radix sort, or a CUDA sort through interop), equal depths by triangle
 * (or point) number, then composited pixel by pixel: the A-buffer's
 * image, exact.
 * No stage runs (the frame sorts fragments, not primitives). Frames the
 * raster cannot take (more than one sample a pixel) are drawn by
 * an A-buffer of the technique's own (technique_abuffer.c's backend),
 * which is exact too. */
#include <stdlib.h>

#include "oit_common.h"
#include "raster_compute.h"
#include "technique.h"

typedef struct exact_state {
    void *abuffer; /* the A-buffer's state, for the frames above */
} exact_state;

static ds_status exact_prepare(ds_renderer *renderer, void *state)
{
    exact_state *s = state;
    ds_status status = ds_render_compute_prepare(renderer);
    if (status)
        return status;
    if (!s->abuffer) {
        size_t bytes = ds_technique_abuffer.state_size;
        if (!(s->abuffer = calloc(1, bytes ? bytes : 1)))
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    }
    return ds_technique_abuffer.prepare(renderer, s->abuffer);
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
    exact_state *s = state;
    if (!plan->compute)
        return ds_technique_abuffer.frame(renderer, s->abuffer, plan, record);
    /* The fragments' sort: GL's where the stages would run in GL (and on
     * the CPU path), for the tables' sort name (raster_compute.c). */
    record->sort_gl = plan->gl || renderer->settings.cpu_path;
    return ds_oit_frame(renderer, state, plan, record, exact_composite);
}

static void exact_free_images(ds_renderer *renderer, void *state)
{
    exact_state *s = state;
    if (s->abuffer && ds_technique_abuffer.free_images)
        ds_technique_abuffer.free_images(renderer, s->abuffer);
}

static void exact_free(ds_renderer *renderer, void *state)
{
    exact_state *s = state;
    if (s->abuffer) {
        ds_technique_abuffer.free(renderer, s->abuffer);
        free(s->abuffer);
        s->abuffer = NULL;
    }
}

const ds_technique_backend ds_technique_compute_exact = {
    .state_size = sizeof(exact_state),
    .prepare = exact_prepare,
    .frame = exact_frame,
    .free_images = exact_free_images,
    .free = exact_free,
};
