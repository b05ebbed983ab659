/* distance.cu — the renderer's per-frame kernels: per-vertex camera distance
 * (the paper's per-vertex distance sort reads positions straight from the GL
 * vertex buffer through interop), per-triangle sort keys from those
 * distances (with the small-triangle cull of distance_math.h folded in),
 * the scatter that writes the sorted triangles' (or points') indices into
 * the GL element buffer, and the indirect draw command of the culled draw.
 * Memory bound, one element per thread (the culling keys pass: a
 * grid-stride loop); none allocates. The cull costs the keys pass compute:
 * on an H100 the 10M-triangle gyroid's keys take 0.20 ms with it, 0.11
 * without, and the draw 14.5 ms instead of 19.8. */
#include "distance.h"

#include <float.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "distance_math.h"
#include "warp_reduce.cuh"

/* ---- tuning --------------------------------------------------------------- */
/* 256 threads: full occupancy on sm_75..sm_90 for these register-light,
 * bandwidth-bound kernels. */
#define BLOCK_THREADS 256

/* The culling keys pass's grid: this many blocks per SM at most. Measured
 * on an H100, 10M-triangle gyroid, keys ms: 2 blocks 0.36, 8 0.226, 16
 * 0.201, 32 0.197, 64 0.198, 128 0.208, one block per 256 triangles (no
 * loop, 39k atomics) 0.225. */
#define KEYS_BLOCKS_PER_SM 32

static unsigned grid_for(size_t count)
{
    return (unsigned)((count + BLOCK_THREADS - 1) / BLOCK_THREADS);
}

/* ---- kernels -------------------------------------------------------------- */

/* One thread owns vertex v: reads its position, writes its distance (and,
 * in points mode, its own index as the sort value). */
__global__ void k_distance_vertices(const float *__restrict__ positions,
                                    size_t vertex_count, float ex, float ey,
                                    float ez, float *__restrict__ distances,
                                    uint32_t *__restrict__ values,
                                    ds_key_range range)
{
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertex_count)
        return;
    float distance = ds_point_distance(positions + 3 * v, ex, ey, ez);
    if (values) {
        if (range.scale != 0.0f)
            distance = ds_quantise_key(distance, range.lo, range.scale);
        values[v] = (uint32_t)v;
    }
    distances[v] = distance;
}

/* Triangle t: gathers its three vertex distances (and, for the centroid
 * key, positions) and writes key t and value t. Without `distances` it
 * computes the three vertex distances from the positions itself (the fused
 * form: no per-vertex pass, positions gathered instead). With CULL, a
 * triangle that covers no sample gets key 0 and the others are counted
 * into *visible: a grid-stride loop over a grid sized to the machine, so
 * that one atomic per block (about a thousand, not one per warp: 300k on a
 * 10M-triangle mesh, serialised on one address, cost 0.18 ms) adds the
 * count. Without it, one triangle per thread and no loop (the loop's form
 * measured 0.151 ms against 0.128 at 10M triangles on an H100). */
template <bool CULL>
__global__ void k_distance_triangle_keys(const uint32_t *__restrict__ indices,
                                         size_t triangle_count,
                                         const float *__restrict__ distances,
                                         const float *__restrict__ positions,
                                         float ex, float ey, float ez,
                                         ds_triangle_key key,
                                         ds_key_range range,
                                         ds_cull_view cull,
                                         uint32_t *__restrict__ visible,
                                         float *__restrict__ keys,
                                         uint32_t *__restrict__ values)
{
    __shared__ uint32_t block_drawn;
    if (threadIdx.x == 0)
        block_drawn = 0;
    uint32_t drawn_here = 0;
    size_t stride = CULL ? (size_t)gridDim.x * blockDim.x : triangle_count;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < triangle_count;
         t += stride) {
        uint32_t a = indices[3 * t], b = indices[3 * t + 1], c = indices[3 * t + 2];
        const float *pa = positions + 3 * (size_t)a, *pb = positions + 3 * (size_t)b,
                    *pc = positions + 3 * (size_t)c;
        float da, db, dc;
        if (distances) {
            da = distances[a];
            db = distances[b];
            dc = distances[c];
        } else {
            da = ds_point_distance(pa, ex, ey, ez);
            db = ds_point_distance(pb, ex, ey, ez);
            dc = ds_point_distance(pc, ex, ey, ez);
        }
        float k = ds_triangle_key_of(key, da, db, dc, pa, pb, pc, ex, ey, ez);
        if (range.scale != 0.0f)
            k = ds_quantise_key(k, range.lo, range.scale);
        if (CULL) {
            int drawn = !ds_triangle_misses_samples(&cull, pa, pb, pc);
            k = drawn ? fmaxf(k, FLT_MIN) : 0.0f;
            drawn_here += (uint32_t)drawn;
        }
        keys[t] = k;
        values[t] = (uint32_t)t;
    }
    if (!CULL)
        return;
    __syncthreads();
    uint32_t warp_drawn = warp_sum_u32(drawn_here);
    if ((threadIdx.x & 31) == 0 && warp_drawn)
        atomicAdd(&block_drawn, warp_drawn);
    __syncthreads();
    if (threadIdx.x == 0 && block_drawn)
        atomicAdd(visible, block_drawn);
}

/* One thread: the indirect draw command of the visible triangles. */
__global__ void k_distance_draw_command(const uint32_t *__restrict__ visible,
                                        int indexed, uint32_t *__restrict__ command)
{
    command[0] = 3u * *visible; /* count */
    command[1] = 1u;            /* instanceCount */
    command[2] = 0u;            /* firstIndex / first */
    command[3] = 0u;            /* baseVertex / baseInstance */
    if (indexed)
        command[4] = 0u;        /* baseInstance */
}

/* One thread owns sorted position i: copies the `per` indices of element
 * order[i] to elements[i * per ...]. */
__global__ void k_distance_scatter(const uint32_t *__restrict__ order,
                                   size_t count,
                                   const uint32_t *__restrict__ indices,
                                   int per, uint32_t *__restrict__ elements)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    uint32_t source = order[i];
    if (!indices) {
        elements[i] = source;
        return;
    }
    for (int k = 0; k < per; k++)
        elements[i * per + k] = indices[(size_t)source * per + k];
}

/* ---- launchers ------------------------------------------------------------ */

extern "C" ds_status ds_vertex_distances(const float *positions,
                                         size_t vertex_count,
                                         const float eye[3], float *distances,
                                         uint32_t *values, ds_key_range range,
                                         ds_stream stream)
{
    if (vertex_count == 0)
        return DS_OK;
    k_distance_vertices<<<grid_for(vertex_count), BLOCK_THREADS, 0,
                          (cudaStream_t)stream>>>(
        positions, vertex_count, eye[0], eye[1], eye[2], distances, values,
        range);
    DS_CUDA_TRY_LAUNCH("render", "k_distance_vertices");
    return DS_OK;
}

extern "C" ds_status ds_triangle_keys(const uint32_t *indices,
                                      size_t triangle_count,
                                      const float *distances,
                                      const float *positions,
                                      const float eye[3], ds_triangle_key key,
                                      ds_key_range range,
                                      const struct ds_cull_view *cull,
                                      uint32_t *visible, float *keys,
                                      uint32_t *values, ds_stream stream)
{
    if (triangle_count == 0)
        return DS_OK;
    ds_cull_view view = {};
    if (cull)
        view = *cull;
    /* Enough blocks to fill the machine a few times over; more only add
     * atomics (see the kernel). */
    static int sm_count, blocks_per_sm;
    if (!sm_count) {
        int device = 0;
        DS_CUDA_TRY("render", cudaGetDevice(&device));
        DS_CUDA_TRY("render", cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount,
                                                     device));
        /* Tuning only: DS_KEYS_BLOCKS_PER_SM replaces KEYS_BLOCKS_PER_SM. */
        const char *set = getenv("DS_KEYS_BLOCKS_PER_SM");
        blocks_per_sm = set && atoi(set) > 0 ? atoi(set) : KEYS_BLOCKS_PER_SM;
    }
    unsigned grid = grid_for(triangle_count);
    if (cull && grid > (unsigned)(sm_count * blocks_per_sm))
        grid = (unsigned)(sm_count * blocks_per_sm);
    if (cull)
        k_distance_triangle_keys<true><<<grid, BLOCK_THREADS, 0, (cudaStream_t)stream>>>(
            indices, triangle_count, distances, positions, eye[0], eye[1], eye[2], key,
            range, view, visible, keys, values);
    else
        k_distance_triangle_keys<false><<<grid, BLOCK_THREADS, 0, (cudaStream_t)stream>>>(
            indices, triangle_count, distances, positions, eye[0], eye[1], eye[2], key,
            range, view, visible, keys, values);
    DS_CUDA_TRY_LAUNCH("render", "k_distance_triangle_keys");
    return DS_OK;
}

extern "C" ds_status ds_draw_command(const uint32_t *visible, int indexed,
                                     uint32_t *command, ds_stream stream)
{
    k_distance_draw_command<<<1, 1, 0, (cudaStream_t)stream>>>(visible, indexed, command);
    DS_CUDA_TRY_LAUNCH("render", "k_distance_draw_command");
    return DS_OK;
}

extern "C" ds_status ds_scatter_indices(const uint32_t *order, size_t count,
                                        const uint32_t *indices, int per,
                                        uint32_t *elements, ds_stream stream)
{
    if (count == 0)
        return DS_OK;
    k_distance_scatter<<<grid_for(count), BLOCK_THREADS, 0,
                         (cudaStream_t)stream>>>(order, count, indices, per,
                                                 elements);
    DS_CUDA_TRY_LAUNCH("render", "k_distance_scatter");
    return DS_OK;
}
