/* SPDX-License-Identifier: MIT */
/* tiles.h — screen tiles: the sorted triangles (or point splats) binned by
 * the tiles of the viewport they may touch, each tile's list keeping the
 * sorted order, so that the draw can go tile by tile (one scissored
 * indirect draw each).
 *
 * Why: the GPU draws triangles in sorted (far-first) order markedly slower
 * than the same triangles in the mesh's order, with no vertex reuse either
 * way, because the sorted order scatters consecutive triangles over the
 * whole screen; binned by tile, the draw gets back to about the speed of
 * mesh order (docs/performance.md). Per tile the order is a subsequence of
 * the sorted one, so every pixel still blends the same fragments in the
 * same order: the image is the same to the bit (the scissor clips
 * exactly, and a triangle covering several tiles is drawn in each).
 *
 * Layout of a binned element buffer (words): tile 0's entries, tile 1's,
 * ..., then DS_TILES_COMMAND_WORDS per tile of indirect draw commands
 * (DrawElementsIndirectCommand; DrawArraysIndirectCommand in its first four
 * words), and one more, the overflow command. An entry is a triangle's
 * three indices (indexed draw), its number (vertex pulling), or a point's
 * vertex number. When the entries would not fit, the buffer instead holds
 * the plain sorted list, every tile's command draws nothing and the
 * overflow command (drawn without a scissor) draws the list: the same
 * image, untiled.
 *
 * The tile rectangles (ds_triangle_tiles, ds_point_tiles) are shared by
 * the kernels and the CPU path: on the GPU the keys pass computes them per
 * primitive, in mesh order (distance.h), and puts the one tile of a
 * primitive that has one into its sort value (below); the binning gathers
 * the other primitives' rectangles in sorted order. The binning itself exists twice, tiles.cu
 * on the GPU and ds_tiles_rects_host() + ds_tiles_bin_host() here (the CPU
 * path's, and ds_renderer_verify()'s reference), and both give the same
 * words. */
#ifndef DS_TILES_H
#define DS_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "distance_math.h"
#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tiles are about DS_TILE_PIXELS square (16 x 9 at 1080p: finer grids
 * gain little, and mean more draws and more triangles drawn twice), at
 * most 255 along an axis and DS_TILES_MAX in all. */
#define DS_TILE_PIXELS 128
#define DS_TILES_MAX 1024
#define DS_TILES_COMMAND_WORDS 5
/* Packed tile rectangle: first and last column, first and last row, a byte
 * each; first > last is empty. */
#define DS_TILES_EMPTY 0x000000FFu

typedef struct ds_tile_grid {
    int columns, rows;
    float tile_width, tile_height; /* pixels */
} ds_tile_grid;

/* The grid for a width x height viewport with tiles of about tile_pixels
 * (0: DS_TILE_PIXELS). */
static inline ds_tile_grid ds_tile_grid_for(int width, int height, int tile_pixels)
{
    ds_tile_grid grid;
    int size = tile_pixels > 0 ? tile_pixels : DS_TILE_PIXELS;
    for (;;) {
        grid.columns = (width + size - 1) / size;
        grid.rows = (height + size - 1) / size;
        if (grid.columns < 1)
            grid.columns = 1;
        if (grid.rows < 1)
            grid.rows = 1;
        if (grid.columns <= 255 && grid.rows <= 255 && grid.columns * grid.rows <= DS_TILES_MAX)
            break;
        size *= 2;
    }
    grid.tile_width = (float)width / (float)grid.columns;
    grid.tile_height = (float)height / (float)grid.rows;
    return grid;
}

/* The scissor rectangle of tile (column, row) in pixels: x, y, width,
 * height. Tiles share their edges exactly (integer bounds from the same
 * rounding), so they cover the viewport once. */
static inline void ds_tile_scissor(const ds_tile_grid *grid, int width, int height,
                                   int column, int row, int dest[4])
{
    int x0 = (int)((long long)width * column / grid->columns);
    int x1 = (int)((long long)width * (column + 1) / grid->columns);
    int y0 = (int)((long long)height * row / grid->rows);
    int y1 = (int)((long long)height * (row + 1) / grid->rows);
    dest[0] = x0;
    dest[1] = y0;
    dest[2] = x1 - x0;
    dest[3] = y1 - y0;
}

DS_HOST_DEVICE uint32_t ds_tiles_pack(int c0, int c1, int r0, int r1)
{
    return (uint32_t)c0 | (uint32_t)c1 << 8 | (uint32_t)r0 << 16 | (uint32_t)r1 << 24;
}

/* The tiles triangle (pa, pb, pc) may touch: its window bounding box grown
 * by DS_TILES_MARGIN pixels, in tiles; every tile when a vertex is at or
 * behind the eye or very far off screen (clipping may then put the
 * triangle anywhere); none when the box misses the viewport or the
 * triangle lies wholly beyond the near or the far plane. Conservative: the
 * rasteriser's snapping (1/256 pixel) and rounding move it by far less than
 * the margin. The tile bounds must match ds_tile_scissor(): a pixel x in
 * [0, width) lies in column floor(x * columns / width); the margin also
 * covers the float rounding of that. */
#define DS_TILES_MARGIN 1.0f

DS_HOST_DEVICE int ds_tiles_clamp(float v, int last)
{
    if (!(v > 0.0f))
        return 0;
    return v >= (float)last ? last : (int)v;
}

/* The tiles of the window box [x0, x1] x [y0, y1] (pixels, margin
 * included): none when it misses the viewport. */
DS_HOST_DEVICE uint32_t ds_tiles_of_box(const ds_cull_view *view, const ds_tile_grid *grid,
                                        float x0, float x1, float y0, float y1)
{
    if (x1 < 0.0f || y1 < 0.0f || x0 > view->width || y0 > view->height)
        return DS_TILES_EMPTY;
    float to_column = (float)grid->columns / view->width;
    float to_row = (float)grid->rows / view->height;
    return ds_tiles_pack(ds_tiles_clamp(x0 * to_column, grid->columns - 1),
                         ds_tiles_clamp(x1 * to_column, grid->columns - 1),
                         ds_tiles_clamp(y0 * to_row, grid->rows - 1),
                         ds_tiles_clamp(y1 * to_row, grid->rows - 1));
}

/* ds_triangle_tiles() of a triangle ds_triangle_project() put `where`,
 * at (sx, sy). */
DS_HOST_DEVICE uint32_t ds_triangle_tiles_projected(const ds_cull_view *view,
                                                    const ds_tile_grid *grid, int where,
                                                    const float sx[3], const float sy[3])
{
    if (where == DS_PROJECT_ANYWHERE)
        return ds_tiles_pack(0, grid->columns - 1, 0, grid->rows - 1);
    if (where == DS_PROJECT_BEYOND)
        return DS_TILES_EMPTY;
    float x0 = fminf(sx[0], fminf(sx[1], sx[2])), x1 = fmaxf(sx[0], fmaxf(sx[1], sx[2]));
    float y0 = fminf(sy[0], fminf(sy[1], sy[2])), y1 = fmaxf(sy[0], fmaxf(sy[1], sy[2]));
    return ds_tiles_of_box(view, grid, x0 - DS_TILES_MARGIN, x1 + DS_TILES_MARGIN,
                           y0 - DS_TILES_MARGIN, y1 + DS_TILES_MARGIN);
}

DS_HOST_DEVICE uint32_t ds_triangle_tiles(const ds_cull_view *view, const ds_tile_grid *grid,
                                          const float *pa, const float *pb, const float *pc)
{
    float sx[3], sy[3];
    int where = ds_triangle_project(view, pa, pb, pc, sx, sy);
    return ds_triangle_tiles_projected(view, grid, where, sx, sy);
}

/* The tiles a round point splat at p may touch: gl_PointSize is
 * max(point_scale / w, 1) pixels across (points.vert.glsl); none when the
 * centre is clipped (behind the eye, beyond the near or far plane), every
 * tile when it is very far off screen. */
DS_HOST_DEVICE uint32_t ds_point_tiles(const ds_cull_view *view, const ds_tile_grid *grid,
                                       const float *p, float point_scale)
{
    float clip[4];
    ds_cull_view_apply(view, p, clip);
    float w = clip[3];
    if (!(w > 0.0f) || clip[2] < -w * 1.0001f || clip[2] > w * 1.0001f)
        return DS_TILES_EMPTY;
    float sx = clip[0] / w, sy = clip[1] / w;
    float half = 0.5f * fmaxf(point_scale / w, 1.0f) + DS_TILES_MARGIN;
    if (!(fabsf(sx) < DS_CULL_FAR_PIXELS && fabsf(sy) < DS_CULL_FAR_PIXELS && half < DS_CULL_FAR_PIXELS))
        return ds_tiles_pack(0, grid->columns - 1, 0, grid->rows - 1);
    return ds_tiles_of_box(view, grid, sx - half, sx + half, sy - half, sy + half);
}

/* The host form of the tiles ds_tiles_bin() stores in `rects`: rects[i]
 * for sorted positions i < count, order[i] being a point (indices NULL,
 * splats point_scale / w pixels across) or a triangle of `indices`. */
static inline void ds_tiles_rects_host(const uint32_t *order, size_t count,
                                       const uint32_t *indices, const float *positions,
                                       const ds_cull_view *view, const ds_tile_grid *grid,
                                       float point_scale, uint32_t *rects)
{
    for (size_t i = 0; i < count; i++) {
        size_t e = order[i];
        if (!indices) {
            rects[i] = ds_point_tiles(view, grid, positions + 3 * e, point_scale);
            continue;
        }
        const uint32_t *v = indices + 3 * e;
        rects[i] = ds_triangle_tiles(view, grid, positions + 3 * (size_t)v[0],
                                     positions + 3 * (size_t)v[1], positions + 3 * (size_t)v[2]);
    }
}

/* Sort values that carry their tile. A binned frame's keys pass may give
 * primitive p the sort value p | code << shift, where code is p's tile
 * when its rectangle is one tile, else DS_TILES_SEVERAL >> shift (several
 * tiles or none): the binning then learns a one-tile primitive's tile
 * from the sorted value itself and gathers only the other primitives'
 * rectangles, a random read each, from the keys pass's. The sort carries
 * values untouched, so nothing else changes. */
#define DS_TILES_SEVERAL 0xFFFFFFFFu

/* The shift of the tile codes in the sort values of `count` primitives on
 * a grid of `tiles`: the bits of the largest primitive number, when the
 * bits left name every tile and the several code; 0 when they do not (the
 * values are then the primitives' numbers). */
DS_HOST_DEVICE int ds_tiles_code_shift(size_t count, int tiles)
{
    int bits = 1;
    while (bits < 32 && ((size_t)1 << bits) < count)
        bits++;
    if (bits >= 32 || tiles < 1)
        return 0;
    return (uint32_t)tiles <= (DS_TILES_SEVERAL >> bits) ? bits : 0;
}

/* Primitive p's sort value, its tiles being `rect` on a grid of `columns`
 * columns (shift 0: p). */
DS_HOST_DEVICE uint32_t ds_tiles_code_value(uint32_t p, uint32_t rect, int columns, int shift)
{
    if (!shift)
        return p;
    uint32_t c0 = rect & 0xFF, c1 = rect >> 8 & 0xFF, r0 = rect >> 16 & 0xFF, r1 = rect >> 24;
    uint32_t code = c0 == c1 && r0 == r1 ? r0 * (uint32_t)columns + c0 : DS_TILES_SEVERAL >> shift;
    return p | code << shift;
}

/* The primitive of a sort value with tile codes at `shift` (0: none). */
DS_HOST_DEVICE uint32_t ds_tiles_value_primitive(uint32_t value, int shift)
{
    return shift ? value & ((1u << shift) - 1u) : value;
}

/* Words of entries an element buffer of `count` primitives gets for
 * binning (`per` words an entry): a quarter more than one entry each, for
 * primitives drawn in several tiles, plus room for small meshes. */
static inline size_t ds_tiles_capacity(size_t count, int per)
{
    return (size_t)per * (count + count / 4 + 4096);
}

/* The command of tile t (the overflow command is t = tiles) for `count`
 * entries from entry `first`, an entry drawing `vertices` vertices (3 a
 * triangle, indexed or pulled; 1 a point): DrawElementsIndirectCommand
 * {count, 1, firstIndex, 0, 0}, or DrawArraysIndirectCommand {count, 1,
 * first, 0}. */
DS_HOST_DEVICE void ds_tiles_command(uint32_t *commands, int t, uint32_t first, uint32_t count,
                                     int vertices)
{
    uint32_t *c = commands + (size_t)t * DS_TILES_COMMAND_WORDS;
    c[0] = (uint32_t)vertices * count;
    c[1] = 1u;
    c[2] = (uint32_t)vertices * first;
    c[3] = 0u;
    c[4] = 0u;
}

/* The host binning, the reference of tiles.cu: entries for sorted
 * positions 0 .. count-1 (order[i] is the primitive, rects[i] its tiles)
 * into `elements` (capacity words), commands after them (see the top),
 * each entry drawing `vertices` vertices. `indices` NULL: an entry is the
 * primitive's number (per 1); else the triangle's three indices (per 3).
 * `scratch`: DS_TILES_MAX + 1 words. *used: the words of entries written.
 * Returns 1 when the entries did not fit and the plain list was written
 * instead. */
static inline int ds_tiles_bin_host(const uint32_t *order, const uint32_t *rects, size_t count,
                                    const uint32_t *indices, int vertices,
                                    const ds_tile_grid *grid, uint32_t *elements,
                                    size_t capacity, uint32_t *commands, uint32_t *scratch,
                                    size_t *used)
{
    int per = indices ? 3 : 1;
    int tiles = grid->columns * grid->rows;
    uint32_t *next = scratch;
    memset(next, 0, (size_t)(tiles + 1) * sizeof *next);
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t r = rects[i];
        int c0 = r & 0xFF, c1 = r >> 8 & 0xFF, r0 = r >> 16 & 0xFF, r1 = r >> 24;
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++)
                next[row * grid->columns + column]++;
        total += (size_t)(c1 >= c0 ? c1 - c0 + 1 : 0) * (size_t)(r1 >= r0 ? r1 - r0 + 1 : 0);
    }
    int overflow = total * (size_t)per > capacity;
    *used = (overflow ? count : total) * (size_t)per;
    uint32_t first = 0;
    for (int t = 0; t < tiles; t++) {
        uint32_t n = next[t];
        ds_tiles_command(commands, t, first, overflow ? 0u : n, vertices);
        next[t] = first;
        first += n;
    }
    ds_tiles_command(commands, tiles, 0, overflow ? (uint32_t)count : 0u, vertices);
    for (size_t i = 0; i < count; i++) {
        uint32_t triangle = order[i];
        uint32_t r = overflow ? 0u : rects[i];
        int c0 = r & 0xFF, c1 = r >> 8 & 0xFF, r0 = r >> 16 & 0xFF, r1 = r >> 24;
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++) {
                size_t at = overflow ? i : next[row * grid->columns + column]++;
                for (int k = 0; k < per; k++)
                    elements[at * (size_t)per + (size_t)k] =
                        indices ? indices[3 * (size_t)triangle + (size_t)k] : triangle;
            }
    }
    return overflow;
}

/* What ds_tiles_bin() bins (device memory): sorted triangles of the mesh
 * (indices non-NULL), whose entries are their three indices or, with
 * entry_is_number, their numbers (vertex pulling); or sorted points
 * (indices NULL), whose entries are their vertex numbers.
 * primitive_rects[p]: primitive p's tiles, ds_triangle_tiles() or
 * ds_point_tiles(), as the keys pass writes them (distance.h); it need
 * only hold the primitives that are binned. value_shift: the sorted
 * values carry tile codes at this shift (ds_tiles_code_shift()), or 0:
 * they are the primitives' numbers. */
typedef struct ds_tiles_source {
    const uint32_t *indices;
    const uint32_t *primitive_rects;
    int entry_is_number;
    int value_shift;
} ds_tiles_source;

/* Device scratch of ds_tiles_bin(), whatever the count. */
size_t ds_tiles_scratch_bytes(void);

/* The GPU binning of the first *visible (visible NULL: `count`) sorted
 * primitives order[] into `elements` (capacity words) and the commands
 * (after the entries, at `commands`; tiles + 1 of them), as
 * ds_tiles_bin_host() does, order[i] being sorted value i (with the tile
 * codes of source->value_shift, if any); `rects` (count words, device;
 * NULL: not written) receives each sorted position's tiles as the keys
 * pass stored them, rects[i] = source->primitive_rects[primitive i], for
 * ds_renderer_verify(). No allocation: `scratch` is
 * ds_tiles_scratch_bytes() bytes. */
ds_status ds_tiles_bin(const uint32_t *order, const uint32_t *visible, size_t count,
                       const ds_tiles_source *source, const ds_tile_grid *grid,
                       uint32_t *rects, void *scratch, uint32_t *elements, size_t capacity,
                       uint32_t *commands, ds_stream stream);

#ifdef __cplusplus
}
#endif

#endif
