/* distance.h — the renderer's per-frame CUDA kernels (kernels/distance.cu):
 * per-vertex camera distances, per-triangle keys, and the scatter of the
 * sorted order into the GL element buffer. Device pointers throughout; every
 * launcher enqueues on `stream`, checks its launch and returns a status.
 * The same arithmetic for the CPU path is in distance_math.h. */
#ifndef DS_DISTANCE_H
#define DS_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Depth range for 16-bit keys (ds_quantise_key); scale 0: full float keys. */
typedef struct ds_key_range {
    float lo, scale;
} ds_key_range;

/* distances[v] = |positions[v] - eye|. With `values` non-NULL (points mode,
 * where the vertex distance is the sort key) also values[v] = v, and the
 * distance is quantised by `range` when its scale is nonzero. */
ds_status ds_vertex_distances(const float *positions, size_t vertex_count,
                              const float eye[3], float *distances,
                              uint32_t *values, ds_key_range range,
                              ds_stream stream);

/* keys[t] = the triangle key of triangle t (farthest / mean vertex distance,
 * or centroid distance; quantised by `range` when its scale is nonzero) and
 * values[t] = t, for the sort to permute. `distances` NULL: the vertex
 * distances are computed here from `positions` (no ds_vertex_distances()
 * pass needed; the same arithmetic, so the same keys). */
ds_status ds_triangle_keys(const uint32_t *indices, size_t triangle_count,
                           const float *distances, const float *positions,
                           const float eye[3], ds_triangle_key key,
                           ds_key_range range, float *keys, uint32_t *values,
                           ds_stream stream);

/* elements[i * per + k] = indices[order[i] * per + k] for k < per (3 for
 * triangles; 1 for points, where `indices` may be NULL: elements[i] =
 * order[i]). */
ds_status ds_scatter_indices(const uint32_t *order, size_t count,
                             const uint32_t *indices, int per,
                             uint32_t *elements, ds_stream stream);

#ifdef __cplusplus
}
#endif
#endif
