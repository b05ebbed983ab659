/* SPDX-License-Identifier: MIT */
/* distance.h — the renderer's per-frame CUDA kernels (distance.cu): the
 * sort keys (per point, or per triangle with the small-triangle cull, and
 * for a binned frame each primitive's screen tiles), the culled draw's
 * indirect command, and the scatter of the sorted order into the GL
 * element buffer. Device pointers throughout; every launcher
 * enqueues on `stream`, checks its launch and returns a status. The same
 * arithmetic for the CPU path is in distance_math.h. */
#ifndef DS_DISTANCE_H
#define DS_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "distance_math.h"
#include "render_types.h"
#include "sort.h"
#include "status.h"
#include "tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A binned frame's tile rectangles (tiles.h), written by the keys pass
 * where each primitive's vertices are loaded anyway, so that
 * ds_tiles_bin() gathers one word per sorted position instead of the
 * vertices in sorted (scattered) order: rects[p] (device, a word per
 * primitive) = ds_triangle_tiles() of triangle p, or ds_point_tiles() of
 * point p with splats point_scale / w pixels across. value_shift
 * nonzero: the sort values carry tile codes at that bit
 * (ds_tiles_code_value()), so that the binning gathers rectangles only
 * for primitives of several tiles. */
typedef struct ds_keys_tiles {
    ds_cull_view view;
    ds_tile_grid grid;
    float point_scale;
    uint32_t *rects;
    int value_shift;
} ds_keys_tiles;

/* Points mode, vertex v: keys[v] = ds_point_sort_key() of its camera
 * distance, narrowed by `narrow` (ds_narrow_key()), values[v] = v (with
 * `tiles` non-NULL, a binned frame: v and its tile code), for the sort to
 * permute; full_keys non-NULL: also full_keys[v], the key before
 * narrowing (for verification); with `tiles`, also tiles->rects[v]. */
ds_status ds_point_keys(const float *positions, size_t vertex_count, const float eye[3],
                        ds_key_range range, ds_key_narrow narrow, const ds_keys_tiles *tiles,
                        float *keys, float *full_keys, uint32_t *values, ds_stream stream);

/* Triangles mode, triangle t: keys[t] = ds_triangle_sort_key() of its
 * three vertex distances, computed from `positions` (farthest / mean
 * vertex distance, or centroid distance; quantised by `range` when its
 * scale is nonzero), then culled and narrowed (ds_narrow_key()),
 * values[t] = t, for the sort to permute; full_keys non-NULL: also
 * full_keys[t], the key before narrowing.
 * `cull` non-NULL: culled triangles get key 0 (they sort last) and the
 * number of the others is added to *visible (set it to 0 first); the grid
 * is then capped by `sm_count`, the device's multiprocessors (0: uncapped).
 * `tiles` non-NULL (a binned frame): also tiles->rects[t], DS_TILES_EMPTY
 * for a culled triangle (culled ones sort after the *visible others, which
 * alone are binned), and values[t] carries t's tile code. With both,
 * tiles->view must be *cull: one projection of each triangle serves both. */
ds_status ds_triangle_keys(const uint32_t *indices, size_t triangle_count,
                           const float *positions, const float eye[3], ds_triangle_key key,
                           ds_key_range range, ds_key_narrow narrow, const ds_cull_view *cull,
                           const ds_keys_tiles *tiles, int sm_count, uint32_t *visible,
                           float *keys, float *full_keys, uint32_t *values, ds_stream stream);

/* ds_cull_draw_command() of *visible at `command` (device memory GL reads
 * as GL_DRAW_INDIRECT_BUFFER). */
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
