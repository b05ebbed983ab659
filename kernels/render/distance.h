/* distance.h — the renderer's per-frame CUDA kernels (kernels/distance.cu):
 * per-vertex camera distances, per-triangle keys, and the scatter of the
 * sorted order into the GL element buffer. Device pointers throughout; every
 * launcher enqueues on `stream`, checks its launch and returns a status.
 * The same arithmetic for the CPU path is in distance_math.h. */
#ifndef DS_DISTANCE_H
#define DS_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "render_types.h"
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
 * pass needed; the same arithmetic, so the same keys).
 * `cull` non-NULL (needs `positions`): a triangle that ds_triangle_misses_
 * samples() rules out gets key 0, below every other key, which become at
 * least FLT_MIN, so that a far-first sort puts the culled ones last; the
 * number of the others is added to *visible (set it to 0 first). */
struct ds_cull_view;
ds_status ds_triangle_keys(const uint32_t *indices, size_t triangle_count,
                           const float *distances, const float *positions,
                           const float eye[3], ds_triangle_key key,
                           ds_key_range range, const struct ds_cull_view *cull,
                           uint32_t *visible, float *keys, uint32_t *values,
                           ds_stream stream);

/* The draw of the first *visible sorted triangles as an indirect command at
 * `command` (device memory GL reads as GL_DRAW_INDIRECT_BUFFER): indexed,
 * DrawElementsIndirectCommand {3 * visible, 1, 0, 0, 0}; else
 * DrawArraysIndirectCommand {3 * visible, 1, 0, 0}. */
ds_status ds_draw_command(const uint32_t *visible, int indexed,
                          uint32_t *command, ds_stream stream);

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
