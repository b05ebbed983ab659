/* SPDX-License-Identifier: MIT */
/* stages_cuda.c — one frame's stages on the renderer's CUDA stream:
 *
 *   interop begin -> keys (+ cull count) -> [shuffle] -> sort (far first)
 *   -> binning by screen tile, or [scatter] + [culled draw command]
 *   -> interop end
 *
 * Positions are read from, and the results written into, the GL buffers
 * themselves (interop.h); nothing waits on the host or allocates. A CUDA
 * event between stages times each (timing.c). The path's stream, interop
 * and device buffers (render_cuda) are made and freed here too. */
#include "renderer_internal.h"

#include <stdio.h>
#include <string.h>

#include "cuda_check.h"

#define RECORD(e)                                                              \
    DS_CUDA_TRY("render", cudaEventRecord(record->events[(e)], renderer->cuda.stream))

ds_status ds_render_cuda_stages(ds_renderer *renderer, const frame_plan *plan,
                                frame_record *record)
{
    ds_status status;
    const float *positions = NULL;
    uint32_t *elements = NULL;
    double interop_ms = 0.0;
    ds_stream stream = (ds_stream)renderer->cuda.stream;
    const ds_cull_view *cull = plan_cull(plan);
    size_t n = plan->count;
    ds_timeline *timeline = renderer->timing.timeline;

    if (timeline &&
        (status = ds_timeline_cuda_now(timeline, "interop_begin", renderer->cuda.stream)))
        return status;
    /* GL -> CUDA: the positions and element buffer `slot` become CUDA's
     * on `stream` (the interop waits until GL's draw two frames ago no
     * longer reads this element buffer). */
    if ((status = ds_interop_begin(renderer->cuda.interop, plan->slot, stream, &positions,
                                   &elements, &interop_ms)))
        return status;
    DS_TIMELINE_HOST(timeline, "launch_begin");
    uint32_t *values = plan->in_place ? elements : renderer->cuda.values;
    /* The keys pass adds to the visible count: zero it first, in stream
     * order. */
    if (cull)
        DS_CUDA_TRY("render", cudaMemsetAsync(renderer->cuda.visible, 0, sizeof(uint32_t),
                                              renderer->cuda.stream));
    /* A binned frame: the keys pass also writes each primitive's tiles,
     * and a one-tile primitive's tile into its sort value; the binning
     * gathers the other primitives' tiles after the sort. */
    ds_keys_tiles tiles = {plan->view, plan->grid, plan->point_scale,
                           renderer->cuda.primitive_rects, plan->value_shift};
    const ds_keys_tiles *keys_tiles = plan->tiled ? &tiles : NULL;
    /* Verification checks the sort's order against the full keys, which
     * the keys pass then writes beside the (narrowed) ones it sorts. */
    float *full_keys = plan->keep_keys ? renderer->cuda.verify_keys : NULL;
    RECORD(EV_START);
    if (plan->points &&
        (status = ds_point_keys(positions, renderer->mesh.vertex_count, plan->eye, plan->range,
                                plan->narrow, keys_tiles, renderer->cuda.keys, full_keys, values,
                                stream)))
        return status;
    RECORD(EV_DISTANCES);
    if (!plan->points && (status = ds_triangle_keys(
                              renderer->cuda.indices, renderer->mesh.triangle_count, positions,
                              plan->eye, renderer->settings.triangle_key, plan->range, plan->narrow,
                              cull, keys_tiles, renderer->cuda.sm_count, renderer->cuda.visible,
                              renderer->cuda.keys, full_keys, values, stream)))
        return status;
    RECORD(EV_KEYS);
    if (plan->shuffle &&
        (status = ds_shuffle_pairs(renderer->cuda.keys, values,
                                   renderer->cuda.shuffle_keys, renderer->cuda.shuffle_values, n,
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
        (status = ds_sorter_sort_pingpong(renderer->sorter, renderer->cuda.keys, values,
                                          renderer->cuda.alt_keys, renderer->cuda.alt_values, n,
                                          DS_SORT_DESCENDING, stream, &in_alt)))
        return status;
    if (in_alt && plan->in_place)
        DS_CUDA_TRY("render", cudaMemcpyAsync(values, renderer->cuda.alt_values,
                                              n * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                              renderer->cuda.stream));
    else if (in_alt)
        values = renderer->cuda.alt_values;
    renderer->cuda.sorted_values = values;
    RECORD(EV_SORT);
    if (plan->tiled) {
        ds_tiles_source source = {plan->points ? NULL : renderer->cuda.indices,
                                  renderer->cuda.primitive_rects, plan->pull, plan->value_shift};
        /* Each sorted position's tiles only for verification. */
        uint32_t *rects = plan->keep_keys ? renderer->cuda.tile_rects : NULL;
        if ((status = ds_tiles_bin(values, cull ? renderer->cuda.visible : NULL, n, &source,
                                   &plan->grid, rects, renderer->cuda.tile_scratch,
                                   elements, renderer->mesh.command_word,
                                   elements + renderer->mesh.command_word, stream)))
            return status;
    } else {
        if (!plan->in_place &&
            (status = ds_scatter_indices(values, n, renderer->cuda.indices, 3, elements, stream)))
            return status;
        if (cull && (status = ds_draw_command(renderer->cuda.visible, !plan->pull,
                                              elements + renderer->mesh.command_word, stream)))
            return status;
    }
    /* The visible count for the timings, into this record's pinned word;
     * timing.c reads it once the EV_SCATTER event below has completed. */
    if (cull) {
        DS_CUDA_TRY("render", cudaMemcpyAsync(renderer->cuda.host_visible +
                                                  (record - renderer->timing.records),
                                              renderer->cuda.visible, sizeof(uint32_t),
                                              cudaMemcpyDeviceToHost, renderer->cuda.stream));
    }
    RECORD(EV_SCATTER);
    DS_TIMELINE_HOST(timeline, "launch_end");
    /* CUDA -> GL: GL may read the element buffer once the work enqueued
     * above completes (interop.h says how each mode orders it). */
    if ((status = ds_interop_end(renderer->cuda.interop, plan->slot, stream, &interop_ms)))
        return status;
    /* Mapped: when the unmap's GPU work lets GL go on. (The external path
     * has waited on the host already: an event now would mark only when it
     * was issued.) */
    if (timeline && ds_interop_mode_in_use(renderer->cuda.interop) == DS_INTEROP_MAP &&
        (status = ds_timeline_cuda_now(timeline, "unmapped", renderer->cuda.stream)))
        return status;
    record->host_interop_ms = (float)interop_ms;
    return DS_OK;
}

/* ---- the path's objects (renderer_internal.h, render_cuda) ---------------- */

ds_status ds_render_cuda_create(ds_renderer *renderer, const ds_mesh *mesh,
                                ds_interop_mode mode, int device)
{
    ds_status status = DS_OK;
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    struct cudaDeviceProp prop;
    DS_CUDA_TRY("render", cudaSetDevice(device));
    DS_CUDA_TRY("render", cudaGetDeviceProperties(&prop, device));
    snprintf(renderer->gpu_name, sizeof renderer->gpu_name, "%s", prop.name);
    renderer->cuda.sm_count = prop.multiProcessorCount; /* sizes the culling keys grid */
    DS_CUDA_TRY("render", cudaStreamCreateWithFlags(&renderer->cuda.stream, cudaStreamNonBlocking));

    ds_interop_desc interop_desc = {0};
    interop_desc.mode = mode;
    interop_desc.positions = mesh->positions;
    interop_desc.vertex_count = v;
    interop_desc.element_count = renderer->mesh.element_capacity;
    if ((status = ds_interop_create(&interop_desc, &renderer->cuda.interop)))
        return status;

    /* Keys and values are sized for either primitive, so that switching
     * between triangles and points never allocates. */
    size_t most = v > t ? v : t;
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.keys, (most ? most : 1) * sizeof(float)));
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.values, (most ? most : 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.alt_keys, (most ? most : 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->cuda.alt_values,
                                     (most ? most : 1) * sizeof(uint32_t)));
    renderer->cuda.sorted_values = renderer->cuda.values;
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.shuffle_keys, (most + 1) * sizeof(float)));
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.shuffle_values, (most + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("render",
                cudaMalloc((void **)&renderer->cuda.indices, (t ? 3 * t : 1) * sizeof(uint32_t)));
    if (t)
        DS_CUDA_TRY("render", cudaMemcpy(renderer->cuda.indices, mesh->indices,
                                         3 * t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (renderer->settings.verify)
        DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->cuda.verify_keys,
                                         (most ? most : 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->cuda.visible, sizeof(uint32_t)));
    if (renderer->settings.tiles && renderer->settings.verify)
        DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->cuda.tile_rects,
                                         (most ? most : 1) * sizeof(uint32_t)));
    if (renderer->settings.tiles) {
        DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->cuda.primitive_rects,
                                         (most ? most : 1) * sizeof(uint32_t)));
        DS_CUDA_TRY("render", cudaMalloc(&renderer->cuda.tile_scratch, ds_tiles_scratch_bytes()));
    }
    DS_CUDA_TRY("render", cudaMallocHost((void **)&renderer->cuda.host_visible,
                                         TIMING_RING * sizeof(uint32_t)));
    return DS_OK;
}

void ds_render_cuda_free(ds_renderer *renderer)
{
    render_cuda *cuda = &renderer->cuda;
    ds_interop_destroy(cuda->interop);
    cudaFree(cuda->keys);
    cudaFree(cuda->values);
    cudaFree(cuda->alt_keys);
    cudaFree(cuda->alt_values);
    cudaFree(cuda->indices);
    cudaFree(cuda->shuffle_keys);
    cudaFree(cuda->shuffle_values);
    cudaFree(cuda->verify_keys);
    cudaFree(cuda->visible);
    cudaFree(cuda->tile_rects);
    cudaFree(cuda->primitive_rects);
    cudaFree(cuda->tile_scratch);
    cudaFreeHost(cuda->host_visible);
    if (cuda->stream)
        cudaStreamDestroy(cuda->stream);
    memset(cuda, 0, sizeof *cuda);
}
