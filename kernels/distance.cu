/* distance.cu — the renderer's per-frame kernels: per-vertex camera distance
 * (the paper's per-vertex distance sort reads positions straight from the GL
 * vertex buffer through interop), per-triangle sort keys from those
 * distances, and the scatter that writes the sorted triangles' (or points')
 * indices into the GL element buffer. All are memory bound, one element per
 * thread; none allocates. */
#include "distance.h"

#include <float.h>

#include "cuda_check.h"
#include "distance_math.h"

/* ---- tuning --------------------------------------------------------------- */
/* 256 threads: full occupancy on sm_75..sm_90 for these register-light,
 * bandwidth-bound kernels. */
#define BLOCK_THREADS 256

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

/* One thread owns triangle t: gathers its three vertex distances (and, for
 * the centroid key, positions) and writes key t and value t. Without
 * `distances` it computes the three vertex distances from the positions
 * itself (the fused form: no per-vertex pass, positions gathered instead). */
__global__ void k_distance_triangle_keys(const uint32_t *__restrict__ indices,
                                         size_t triangle_count,
                                         const float *__restrict__ distances,
                                         const float *__restrict__ positions,
                                         float ex, float ey, float ez,
                                         ds_triangle_key key,
                                         ds_key_range range,
                                         int culling, ds_cull_view cull,
                                         uint32_t *__restrict__ visible,
                                         float *__restrict__ keys,
                                         uint32_t *__restrict__ values)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= triangle_count)
        return;
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
    if (culling) {
        int drawn = !ds_triangle_misses_samples(&cull, pa, pb, pc);
        k = drawn ? fmaxf(k, FLT_MIN) : 0.0f;
        /* One atomic per warp for the count of drawn triangles. */
        unsigned lanes = __activemask();
        unsigned drawn_lanes = __ballot_sync(lanes, drawn);
        if ((threadIdx.x & 31) == (unsigned)(__ffs(lanes) - 1) && drawn_lanes)
            atomicAdd(visible, (unsigned)__popc(drawn_lanes));
    }
    keys[t] = k;
    values[t] = (uint32_t)t;
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
    k_distance_triangle_keys<<<grid_for(triangle_count), BLOCK_THREADS, 0,
                               (cudaStream_t)stream>>>(
        indices, triangle_count, distances, positions, eye[0], eye[1], eye[2],
        key, range, cull != NULL, view, visible, keys, values);
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
