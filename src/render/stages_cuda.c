/* stages_cuda.c — one frame's stages on the renderer's CUDA stream:
 *
 *   interop begin -> keys (+ cull count) -> [shuffle] -> sort (far first)
 *   -> binning by screen tile, or [scatter] + [culled draw command]
 *   -> interop end
 *
 * Positions are read from, and the results written into, the GL buffers
 * themselves (interop.h); nothing waits on the host or allocates. A CUDA
 * event between stages times each (timing.c). */
#include "renderer_internal.h"

#include "cuda_check.h"

#define RECORD(e)                                                              \
    DS_CUDA_TRY("render", cudaEventRecord(record->events[(e)], renderer->stream))

ds_status ds_render_cuda_stages(ds_renderer *renderer, const frame_plan *plan,
                                frame_record *record)
{
    ds_status status;
    const float *positions = NULL;
    uint32_t *elements = NULL;
    double interop_ms = 0.0;
    ds_stream stream = (ds_stream)renderer->stream;
    const ds_cull_view *cull = plan_cull(plan);
    size_t n = plan->count;
    ds_timeline *timeline = renderer->timeline;

    if (timeline && (status = ds_timeline_cuda_now(timeline, "interop_begin", renderer->stream)))
        return status;
    /* GL -> CUDA: the positions and element buffer `slot` become CUDA's
     * on `stream` (the interop waits until GL's draw two frames ago no
     * longer reads this element buffer). */
    if ((status = ds_interop_begin(renderer->interop, plan->slot, stream, &positions,
                                   &elements, &interop_ms)))
        return status;
    DS_TIMELINE_HOST(timeline, "launch_begin");
    uint32_t *values = plan->in_place ? elements : renderer->values;
    /* The keys pass adds to the visible count: zero it first, in stream
     * order. */
    if (cull)
        DS_CUDA_TRY("render", cudaMemsetAsync(renderer->visible, 0, sizeof(uint32_t),
                                              renderer->stream));
    /* A binned frame: the keys pass also writes each primitive's tiles,
     * and a one-tile primitive's tile into its sort value; the binning
     * gathers the other primitives' tiles after the sort. */
    ds_keys_tiles tiles = {plan->view, plan->grid, plan->point_scale, renderer->primitive_rects,
                           plan->value_shift};
    const ds_keys_tiles *keys_tiles = plan->tiled ? &tiles : NULL;
    /* Verification checks the sort's order against the full keys, which
     * the keys pass then writes beside the (narrowed) ones it sorts. */
    float *full_keys = plan->keep_keys ? renderer->verify_keys : NULL;
    RECORD(EV_START);
    if (plan->points &&
        (status = ds_point_keys(positions, renderer->vertex_count, plan->eye, plan->range,
                                plan->narrow, keys_tiles, renderer->keys, full_keys, values,
                                stream)))
        return status;
    RECORD(EV_DISTANCES);
    if (!plan->points &&
        (status = ds_triangle_keys(renderer->indices, renderer->triangle_count, positions,
                                   plan->eye, renderer->triangle_key, plan->range, plan->narrow,
                                   cull, keys_tiles, renderer->sm_count, renderer->visible,
                                   renderer->keys, full_keys, values, stream)))
        return status;
    RECORD(EV_KEYS);
    if (plan->shuffle &&
        (status = ds_shuffle_pairs(renderer->keys, values,
                                   renderer->shuffle_keys, renderer->shuffle_values, n,
                                   0x5EED0000ull + plan->frame, stream)))
        return status;
    RECORD(EV_SHUFFLE);
    /* Narrowed keys vary in their low bits alone (sort.h). */
    ds_sorter_set_low_key_bits(renderer->sorter, ds_key_narrow_bits(plan->narrow));
    /* The order may end in the second pair (an odd pass count): what
     * follows reads it there; in place, the element buffer must hold it,
     * so the values alone are copied back (the sorted keys are not used). */
    int in_alt = 0;
    if (plan->sorting &&
        (status = ds_sorter_sort_pingpong(renderer->sorter, renderer->keys, values,
                                          renderer->alt_keys, renderer->alt_values, n,
                                          DS_SORT_DESCENDING, stream, &in_alt)))
        return status;
    if (in_alt && plan->in_place)
        DS_CUDA_TRY("render", cudaMemcpyAsync(values, renderer->alt_values,
                                              n * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                              renderer->stream));
    else if (in_alt)
        values = renderer->alt_values;
    renderer->sorted_values = values;
    RECORD(EV_SORT);
    if (plan->tiled) {
        ds_tiles_source source = {plan->points ? NULL : renderer->indices,
                                  renderer->primitive_rects, plan->pull, plan->value_shift};
        /* Each sorted position's tiles only for verification. */
        uint32_t *rects = plan->keep_keys ? renderer->tile_rects : NULL;
        if ((status = ds_tiles_bin(values, cull ? renderer->visible : NULL, n, &source,
                                   &plan->grid, rects, renderer->tile_scratch,
                                   elements, renderer->command_word,
                                   elements + renderer->command_word, stream)))
            return status;
    } else {
        if (!plan->in_place &&
            (status = ds_scatter_indices(values, n, renderer->indices, 3, elements, stream)))
            return status;
        if (cull && (status = ds_draw_command(renderer->visible, !plan->pull,
                                              elements + renderer->command_word, stream)))
            return status;
    }
    /* The visible count for the timings, into this record's pinned word;
     * timing.c reads it once the EV_SCATTER event below has completed. */
    if (cull) {
        DS_CUDA_TRY("render", cudaMemcpyAsync(renderer->host_visible + (record - renderer->records),
                                              renderer->visible, sizeof(uint32_t),
                                              cudaMemcpyDeviceToHost, renderer->stream));
    }
    RECORD(EV_SCATTER);
    DS_TIMELINE_HOST(timeline, "launch_end");
    /* CUDA -> GL: GL may read the element buffer once the work enqueued
     * above completes (interop.h says how each mode orders it). */
    if ((status = ds_interop_end(renderer->interop, plan->slot, stream, &interop_ms)))
        return status;
    /* Mapped: when the unmap's GPU work lets GL go on. (The external path
     * has waited on the host already: an event now would mark only when it
     * was issued.) */
    if (timeline && ds_interop_mode_in_use(renderer->interop) == DS_INTEROP_MAP &&
        (status = ds_timeline_cuda_now(timeline, "unmapped", renderer->stream)))
        return status;
    record->host_interop_ms = (float)interop_ms;
    return DS_OK;
}
