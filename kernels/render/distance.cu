/* SPDX-License-Identifier: MIT */
/* distance.cu — the renderer's per-frame key kernels: the sort key of each
 * point (its camera distance) or triangle (from its three vertex distances,
 * with the small-triangle cull of distance_math.h folded in), read straight
 * from the GL vertex buffer through interop; the scatter that writes the
 * sorted triangles' indices into the GL element buffer for the indexed
 * draw; and the indirect draw command of the culled draw. The triangle
 * keys follow the per-vertex distance sort of the paper with the vertex
 * distances computed where they are needed, in the keys pass, so no
 * per-vertex pass or buffer runs first. For a binned frame the keys pass
 * also writes each primitive's screen tiles (tiles.h) from the vertices it
 * has loaded, in mesh order, so that the binning after the sort gathers a
 * word per primitive rather than its vertices in sorted order. Memory
 * bound, one element per thread (the culling keys pass: a grid-stride
 * loop); none allocates. */
#include "distance.h"

#include <float.h>

#include "cuda_check.h"
#include "distance_math.h"
#include "launch_bounds.cuh"
#include "warp_reduce.cuh"

/* ---- tuning --------------------------------------------------------------- */
/* 256 threads: full occupancy on sm_75..sm_90 for these register-light,
 * bandwidth-bound kernels. */
#define BLOCK_THREADS 256

/* The culling keys pass's grid: at most this many blocks per SM, enough to
 * fill the machine a few times over; more blocks only add atomics (32 was
 * the fastest of 2 to 128 in a sweep). */
#define KEYS_BLOCKS_PER_SM 32
/* The keys pass's registers: 6 blocks an SM (40 registers) keep more
 * gathers in flight than the 55 it takes unbounded (docs/performance.md);
 * sm_75, which holds 4, gets no minimum (DS_MIN_BLOCKS). */
#define KEYS_MIN_BLOCKS 6

static unsigned grid_for(size_t count)
{
    return (unsigned)((count + BLOCK_THREADS - 1) / BLOCK_THREADS);
}

/* ---- kernels -------------------------------------------------------------- */

/* One thread owns vertex v: reads its position, writes its key (narrowed
 * by `narrow`; the full one into full_keys when not NULL) and its own
 * index as the sort value; with TILED, its splat's tiles as well, and the
 * value carries its tile code (tiles.h). */
template <bool TILED>
__global__ void k_distance_point_keys(const float *__restrict__ positions,
                                      size_t vertex_count, float ex, float ey,
                                      float ez, ds_key_range range,
                                      ds_key_narrow narrow,
                                      ds_keys_tiles tiles,
                                      float *__restrict__ keys,
                                      float *__restrict__ full_keys,
                                      uint32_t *__restrict__ values)
{
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertex_count)
        return;
    const float *p = positions + 3 * v;
    float k = ds_point_sort_key(ds_point_distance(p, ex, ey, ez), range);
    keys[v] = ds_narrow_key(k, narrow);
    if (full_keys)
        full_keys[v] = k;
    if (TILED) {
        uint32_t rect = ds_point_tiles(&tiles.view, &tiles.grid, p, tiles.point_scale);
        tiles.rects[v] = rect;
        values[v] = ds_tiles_code_value((uint32_t)v, rect, tiles.grid.columns, tiles.value_shift);
    } else {
        values[v] = (uint32_t)v;
    }
}

/* Triangle t: gathers its three vertex positions, computes their distances
 * and writes key t and value t (with TILED, t and its tile code). With CULL, a triangle that covers no sample
 * gets key 0 and the others are counted into *visible: a grid-stride loop
 * over a grid sized to the machine, so that one atomic per block (about a
 * thousand, not one per warp, which would serialise hundreds of thousands
 * on one address) adds the count. Without it, one triangle per thread and
 * no loop, which is faster. With TILED, also the triangle's tiles (none
 * when culled: it sorts after the visible ones, which alone are binned). */
template <bool CULL, bool TILED>
__global__ void __launch_bounds__(BLOCK_THREADS, DS_MIN_BLOCKS(BLOCK_THREADS, KEYS_MIN_BLOCKS))
    k_distance_triangle_keys(const uint32_t *__restrict__ indices,
                                         size_t triangle_count,
                                         const float *__restrict__ positions,
                                         float ex, float ey, float ez,
                                         ds_triangle_key key,
                                         ds_key_range range,
                                         ds_key_narrow narrow,
                                         ds_cull_view cull,
                                         ds_keys_tiles tiles,
                                         uint32_t *__restrict__ visible,
                                         float *__restrict__ keys,
                                         float *__restrict__ full_keys,
                                         uint32_t *__restrict__ values)
{
    __shared__ uint32_t block_drawn;
    if (threadIdx.x == 0)
        block_drawn = 0;
    uint32_t drawn_here = 0;
    size_t stride = CULL ? (size_t)gridDim.x * blockDim.x : triangle_count;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < triangle_count;
         t += stride) {
        uint32_t v[3] = {indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]};
        /* The nine coordinates loaded before any arithmetic, all in flight
         * together. */
        float p[9];
#pragma unroll
        for (int j = 0; j < 9; j++)
            p[j] = positions[3 * (size_t)v[j / 3] + (size_t)(j % 3)];
        const float *pa = p, *pb = p + 3, *pc = p + 6;
        float da, db, dc;
        ds_triangle_distances(key, pa, pb, pc, ex, ey, ez, &da, &db, &dc);
        /* One projection for the cull and the tiles (the same view). */
        float sx[3], sy[3];
        int where = DS_PROJECT_ON;
        if (CULL || TILED)
            where = ds_triangle_project(CULL ? &cull : &tiles.view, pa, pb, pc, sx, sy);
        int drawn;
        float k = ds_triangle_sort_key(key, da, db, dc, pa, pb, pc, ex, ey, ez, range, NULL,
                                       &drawn);
        if (CULL) {
            drawn = !ds_triangle_misses_projected(&cull, where, sx, sy);
            k = ds_culled_key(k, drawn);
        }
        keys[t] = ds_narrow_key(k, narrow);
        if (full_keys)
            full_keys[t] = k;
        if (TILED) {
            uint32_t rect = drawn ? ds_triangle_tiles_projected(&tiles.view, &tiles.grid, where,
                                                                sx, sy)
                                  : DS_TILES_EMPTY;
            tiles.rects[t] = rect;
            values[t] = ds_tiles_code_value((uint32_t)t, rect, tiles.grid.columns,
                                            tiles.value_shift);
        } else {
            values[t] = (uint32_t)t;
        }
        if (CULL)
            drawn_here += (uint32_t)drawn;
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
    ds_cull_draw_command(*visible, indexed, command);
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

extern "C" ds_status ds_point_keys(const float *positions, size_t vertex_count,
                                   const float eye[3], ds_key_range range,
                                   ds_key_narrow narrow, const ds_keys_tiles *tiles,
                                   float *keys, float *full_keys, uint32_t *values,
                                   ds_stream stream)
{
    if (vertex_count == 0)
        return DS_OK;
    ds_keys_tiles tiling = {};
    if (tiles)
        tiling = *tiles;
    cudaStream_t s = (cudaStream_t)stream;
    if (tiles)
        k_distance_point_keys<true><<<grid_for(vertex_count), BLOCK_THREADS, 0, s>>>(
            positions, vertex_count, eye[0], eye[1], eye[2], range, narrow, tiling, keys,
            full_keys, values);
    else
        k_distance_point_keys<false><<<grid_for(vertex_count), BLOCK_THREADS, 0, s>>>(
            positions, vertex_count, eye[0], eye[1], eye[2], range, narrow, tiling, keys,
            full_keys, values);
    DS_CUDA_TRY_LAUNCH("render", "k_distance_point_keys");
    return DS_OK;
}

extern "C" ds_status ds_triangle_keys(const uint32_t *indices, size_t triangle_count,
                                      const float *positions, const float eye[3],
                                      ds_triangle_key key, ds_key_range range,
                                      ds_key_narrow narrow, const ds_cull_view *cull,
                                      const ds_keys_tiles *tiles, int sm_count,
                                      uint32_t *visible, float *keys, float *full_keys,
                                      uint32_t *values, ds_stream stream)
{
    if (triangle_count == 0)
        return DS_OK;
    ds_cull_view view = {};
    if (cull)
        view = *cull;
    ds_keys_tiles tiling = {};
    if (tiles)
        tiling = *tiles;
    unsigned grid = grid_for(triangle_count);
    if (cull && sm_count > 0 && grid > (unsigned)(sm_count * KEYS_BLOCKS_PER_SM))
        grid = (unsigned)(sm_count * KEYS_BLOCKS_PER_SM);
    cudaStream_t s = (cudaStream_t)stream;
#define LAUNCH(CULL, TILED)                                                              \
    k_distance_triangle_keys<CULL, TILED><<<grid, BLOCK_THREADS, 0, s>>>(                \
        indices, triangle_count, positions, eye[0], eye[1], eye[2], key, range, narrow,  \
        view, tiling, visible, keys, full_keys, values)
    if (cull && tiles)
        LAUNCH(true, true);
    else if (cull)
        LAUNCH(true, false);
    else if (tiles)
        LAUNCH(false, true);
    else
        LAUNCH(false, false);
#undef LAUNCH
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
