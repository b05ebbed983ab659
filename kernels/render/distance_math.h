/* SPDX-License-Identifier: MIT */
/* distance_math.h — the distance, sort-key and culling arithmetic shared by
 * the CUDA kernels (distance.cu, tiles.cu) and the renderer's CPU path
 * (src/render/stages_cpu.c), so that both compute the same keys, cull the
 * same triangles and write the same draw commands. */
#ifndef DS_DISTANCE_MATH_H
#define DS_DISTANCE_MATH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "render_types.h"

#ifdef __CUDACC__
#define DS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define DS_HOST_DEVICE static inline
#endif

DS_HOST_DEVICE float ds_point_distance_squared(const float *p, float ex, float ey, float ez)
{
    float dx = p[0] - ex, dy = p[1] - ey, dz = p[2] - ez;
    return dx * dx + dy * dy + dz * dz;
}

DS_HOST_DEVICE float ds_point_distance(const float *p, float ex, float ey,
                                       float ez)
{
    return sqrtf(ds_point_distance_squared(p, ex, ey, ez));
}

/* The key of the triangle (a, b, c) whose vertex distances are da, db, dc. */
DS_HOST_DEVICE float ds_triangle_key_of(ds_triangle_key key, float da,
                                        float db, float dc, const float *pa,
                                        const float *pb, const float *pc,
                                        float ex, float ey, float ez)
{
    if (key == DS_TRIANGLE_KEY_MEAN)
        return (da + db + dc) * (1.0f / 3.0f);
    if (key == DS_TRIANGLE_KEY_CENTROID) {
        float centroid[3];
        for (int k = 0; k < 3; k++)
            centroid[k] = (pa[k] + pb[k] + pc[k]) * (1.0f / 3.0f);
        return ds_point_distance(centroid, ex, ey, ez);
    }
    float farthest = da > db ? da : db;
    return farthest > dc ? farthest : dc;
}

/* The vertex distances ds_triangle_key_of() reads for `key`, with as few
 * square roots as give the same key: all three for the mean; for the
 * farthest, the root of the largest square in all three (a correctly
 * rounded square root is monotonic, so it is the largest root); none for
 * the centroid (0). */
DS_HOST_DEVICE void ds_triangle_distances(ds_triangle_key key, const float *pa,
                                          const float *pb, const float *pc, float ex,
                                          float ey, float ez, float *da, float *db, float *dc)
{
    if (key == DS_TRIANGLE_KEY_MEAN) {
        *da = ds_point_distance(pa, ex, ey, ez);
        *db = ds_point_distance(pb, ex, ey, ez);
        *dc = ds_point_distance(pc, ex, ey, ez);
    } else if (key == DS_TRIANGLE_KEY_CENTROID) {
        *da = *db = *dc = 0.0f;
    } else {
        float a = ds_point_distance_squared(pa, ex, ey, ez);
        float b = ds_point_distance_squared(pb, ex, ey, ez);
        float c = ds_point_distance_squared(pc, ex, ey, ez);
        float largest = a > b ? a : b;
        *da = *db = *dc = sqrtf(largest > c ? largest : c);
    }
}

/* Depth range for 16-bit keys (ds_quantise_key); scale 0: full float keys. */
typedef struct ds_key_range {
    float lo, scale;
} ds_key_range;

/* 16-bit sort keys (renderer key_bits 16): the key's place in the depth
 * range [lo, lo + 1/scale] as one of QUANTISED_LEVELS steps, stored as the
 * positive float whose top 16 bits (of the sorts' order-preserving
 * transform) are that step. The step is offset by QUANTISED_FIRST so the
 * float is normal (never a denormal that flush-to-zero could merge), and
 * stays below 0x7F80 so it is never Inf or NaN. Monotonic in key. */
#define DS_QUANTISED_FIRST 0x0080u
#define DS_QUANTISED_LEVELS (0x7F80u - DS_QUANTISED_FIRST)

DS_HOST_DEVICE float ds_quantise_key(float key, float lo, float scale)
{
    float place = (key - lo) * scale * (float)(DS_QUANTISED_LEVELS - 1);
    uint32_t step = place > 0.0f ? (uint32_t)place : 0u; /* NaN -> 0 */
    if (step > DS_QUANTISED_LEVELS - 1)
        step = DS_QUANTISED_LEVELS - 1;
    uint32_t bits = (step + DS_QUANTISED_FIRST) << 16;
    float result;
    memcpy(&result, &bits, sizeof result);
    return result;
}

/* ---- small-triangle culling --------------------------------------------- */

/* What the cull test needs of the draw, from ds_cull_view_set(): the rows
 * of the view-projection matrix that give window x and y times clip w (the
 * viewport transform folded in), clip z and clip w; and the viewport size
 * in pixels (origin 0,0; single-sampled target). */
typedef struct ds_cull_view {
    float x[4], y[4], z[4], w[4];
    float width, height;
} ds_cull_view;

/* m: the column-major view-projection matrix the vertex shaders use. */
static inline void ds_cull_view_set(ds_cull_view *view, const float m[16],
                                    float width, float height)
{
    for (int c = 0; c < 4; c++) {
        /* window x = (clip x / clip w + 1) * width / 2 */
        view->x[c] = 0.5f * width * (m[4 * c] + m[4 * c + 3]);
        view->y[c] = 0.5f * height * (m[4 * c + 1] + m[4 * c + 3]);
        view->z[c] = m[4 * c + 2];
        view->w[c] = m[4 * c + 3];
    }
    view->width = width;
    view->height = height;
}

/* A sample counts as possibly covered within this distance (pixels) of the
 * triangle: the rasteriser sees the vertices snapped to its sub-pixel grid
 * (1/256 pixel on NVIDIA and llvmpipe) and transformed by the vertex shader
 * in its own rounding, which moves every point of the triangle by far less
 * than 1/16 pixel. */
#define DS_CULL_MARGIN (1.0f / 16.0f)
/* Triangles whose bounding box holds more sample points than this are kept
 * untested: they are not the small ones this is for, and a bound of 2 x 2
 * keeps the test cheap enough for the per-triangle keys pass. */
#define DS_CULL_MAX_SAMPLES 4
/* Screen coordinates beyond this many pixels: kept untested (keeps the
 * integer conversions below defined). */
#define DS_CULL_FAR_PIXELS 1.0e6f

/* Point p through the view: window x and y times w, clip z, clip w. */
DS_HOST_DEVICE void ds_cull_view_apply(const ds_cull_view *view, const float *p, float dest[4])
{
#define DS_CULL_ROW(r) (r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + r[3])
    dest[0] = DS_CULL_ROW(view->x);
    dest[1] = DS_CULL_ROW(view->y);
    dest[2] = DS_CULL_ROW(view->z);
    dest[3] = DS_CULL_ROW(view->w);
#undef DS_CULL_ROW
}

/* Where triangle (a, b, c) lands in the window, for the cull and the
 * tiles alike (one projection serves both): DS_PROJECT_ANYWHERE when a
 * vertex is at or behind the eye or very far off screen (clipping may then
 * put the triangle anywhere), DS_PROJECT_BEYOND when all three vertices
 * lie beyond the near plane or all beyond the far one, else
 * DS_PROJECT_ON, with vertex k's window position in sx[k], sy[k] (x and
 * y times one correctly rounded reciprocal of w). */
enum { DS_PROJECT_ON, DS_PROJECT_ANYWHERE, DS_PROJECT_BEYOND };

DS_HOST_DEVICE int ds_triangle_project(const ds_cull_view *view, const float *pa,
                                       const float *pb, const float *pc, float sx[3],
                                       float sy[3])
{
    const float *p[3] = {pa, pb, pc};
    int beyond_near = 0, beyond_far = 0;
    for (int k = 0; k < 3; k++) {
        float clip[4];
        ds_cull_view_apply(view, p[k], clip);
        float x = clip[0], y = clip[1], z = clip[2], w = clip[3];
        if (!(w > 0.0f))
            return DS_PROJECT_ANYWHERE;
        /* Clipping keeps -w <= z <= w; the factor absorbs rounding. */
        beyond_near += z < -w * 1.0001f;
        beyond_far += z > w * 1.0001f;
#ifdef __CUDA_ARCH__
        float rw = __frcp_rn(w); /* one reciprocal, not two divisions */
#else
        float rw = 1.0f / w;
#endif
        sx[k] = x * rw;
        sy[k] = y * rw;
        if (!(fabsf(sx[k]) < DS_CULL_FAR_PIXELS && fabsf(sy[k]) < DS_CULL_FAR_PIXELS))
            return DS_PROJECT_ANYWHERE;
    }
    return beyond_near == 3 || beyond_far == 3 ? DS_PROJECT_BEYOND : DS_PROJECT_ON;
}

/* ds_triangle_misses_samples() of a triangle ds_triangle_project() put
 * `where`, at (sx, sy). */
DS_HOST_DEVICE int ds_triangle_misses_projected(const ds_cull_view *view, int where,
                                                const float sx[3], const float sy[3])
{
    if (where != DS_PROJECT_ON)
        return where == DS_PROJECT_BEYOND;
    const float e = DS_CULL_MARGIN;
    float x0 = fminf(sx[0], fminf(sx[1], sx[2])) - e, x1 = fmaxf(sx[0], fmaxf(sx[1], sx[2])) + e;
    float y0 = fminf(sy[0], fminf(sy[1], sy[2])) - e, y1 = fmaxf(sy[0], fmaxf(sy[1], sy[2])) + e;
    /* Sample i sits at i + 0.5: the candidates in the box, in the viewport. */
    int ax = (int)ceilf(x0 - 0.5f), bx = (int)floorf(x1 - 0.5f);
    int ay = (int)ceilf(y0 - 0.5f), by = (int)floorf(y1 - 0.5f);
    ax = ax < 0 ? 0 : ax;
    ay = ay < 0 ? 0 : ay;
    bx = bx > (int)view->width - 1 ? (int)view->width - 1 : bx;
    by = by > (int)view->height - 1 ? (int)view->height - 1 : by;
    if (ax > bx || ay > by)
        return 1;
    if ((bx - ax + 1) * (by - ay + 1) > DS_CULL_MAX_SAMPLES)
        return 0;
    /* Edge k runs from vertex k to k + 1; with the winding's sign s, a
     * point's s * edge function f is its distance inside that edge times
     * the edge length L. Within the margin of all three edges (f >= -e L,
     * tested as f >= 0 or f^2 <= e^2 L^2): possibly covered, a superset of
     * the points within the margin of the triangle. */
    float area2 = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    float s = area2 >= 0.0f ? 1.0f : -1.0f;
    float ex[3], ey[3], slack2[3];
    for (int k = 0; k < 3; k++) {
        int next = k == 2 ? 0 : k + 1;
        ex[k] = s * (sx[next] - sx[k]);
        ey[k] = s * (sy[next] - sy[k]);
        slack2[k] = e * e * (ex[k] * ex[k] + ey[k] * ey[k]);
    }
    for (int y = ay; y <= by; y++)
        for (int x = ax; x <= bx; x++) {
            float cx = (float)x + 0.5f, cy = (float)y + 0.5f;
            int inside = 1;
            for (int k = 0; k < 3; k++) {
                float f = ex[k] * (cy - sy[k]) - ey[k] * (cx - sx[k]);
                inside &= f >= 0.0f || f * f <= slack2[k];
            }
            if (inside)
                return 0;
        }
    return 1;
}

/* 1 if the triangle (a, b, c) certainly produces no fragment in a
 * single-sampled viewport: it is wholly beyond the near or the far plane,
 * or no pixel centre (the sample point, x + 0.5, y + 0.5) inside the
 * viewport lies within DS_CULL_MARGIN of it. Conservative: a sample the
 * rasteriser could cover (edges and the top-left rule included) is
 * never ruled out, so drawing only the other triangles gives the same
 * image. Triangles reaching behind the eye (w <= 0) are kept. */
DS_HOST_DEVICE int ds_triangle_misses_samples(const ds_cull_view *view, const float *pa,
                                              const float *pb, const float *pc)
{
    float sx[3], sy[3];
    int where = ds_triangle_project(view, pa, pb, pc, sx, sy);
    return ds_triangle_misses_projected(view, where, sx, sy);
}

/* ---- the sort keys and the culled draw's command ----------------------- */

/* A point's sort key: its camera distance, quantised by `range` when its
 * scale is nonzero. */
DS_HOST_DEVICE float ds_point_sort_key(float distance, ds_key_range range)
{
    return range.scale != 0.0f ? ds_quantise_key(distance, range.lo, range.scale) : distance;
}

/* A kept triangle's key is at least FLT_MIN, a culled one's 0, so that a
 * far-first sort puts the culled ones last. */
DS_HOST_DEVICE float ds_culled_key(float key, int drawn)
{
    return drawn ? fmaxf(key, FLT_MIN) : 0.0f;
}

/* The sort key of triangle (pa, pb, pc), whose vertex distances are da,
 * db, dc: ds_triangle_key_of(), quantised by `range` when its scale is
 * nonzero. With `cull` non-NULL, a triangle that ds_triangle_misses_
 * samples() rules out gets key 0 and *drawn 0, the others a key of at
 * least FLT_MIN and *drawn 1, so that a far-first sort puts the culled
 * ones last; without, *drawn is 1. */
DS_HOST_DEVICE float ds_triangle_sort_key(ds_triangle_key key, float da, float db, float dc,
                                          const float *pa, const float *pb, const float *pc,
                                          float ex, float ey, float ez, ds_key_range range,
                                          const ds_cull_view *cull, int *drawn)
{
    float k = ds_triangle_key_of(key, da, db, dc, pa, pb, pc, ex, ey, ez);
    if (range.scale != 0.0f)
        k = ds_quantise_key(k, range.lo, range.scale);
    *drawn = 1;
    if (cull) {
        *drawn = !ds_triangle_misses_samples(cull, pa, pb, pc);
        k = ds_culled_key(k, *drawn);
    }
    return k;
}

/* ---- exact narrow keys --------------------------------------------------- */

/* A frame's full-width keys in fewer bits, exactly. When every key the
 * frame can have lies in [lo, hi] (lo > 0), a kept key k is written as the
 * float whose bits are n = bits(k) - base, base = bits(lo) - 1: n runs
 * from 1 to top = bits(hi) - base. Positive floats order as their bits,
 * so n orders and ties exactly as k does, and the sorts give the same
 * permutation; a culled key (0) stays 0, below every kept one. With top
 * below 2^16 or 2^24, only that many low bits vary, and a sort may look
 * at those alone: 2 or 3 radix passes of 8 bits instead of 4. The keys
 * are tiny floats (denormal below 2^23), never NaN or Inf. */
typedef struct ds_key_narrow {
    uint32_t base; /* bits(lo) - 1 */
    uint32_t top;  /* the largest narrowed key's bits; 0: keys not narrowed */
} ds_key_narrow;

/* The narrowing for keys in [lo, hi]: none (top 0) unless 0 < lo <= hi <
 * Inf and the narrowed keys fit in 24 bits. */
static inline ds_key_narrow ds_key_narrow_for(float lo, float hi)
{
    ds_key_narrow narrow = {0u, 0u};
    if (!(lo > 0.0f && lo <= hi && hi <= FLT_MAX))
        return narrow;
    uint32_t lo_bits, hi_bits;
    memcpy(&lo_bits, &lo, sizeof lo_bits);
    memcpy(&hi_bits, &hi, sizeof hi_bits);
    if (hi_bits - lo_bits + 1u > 0xFFFFFFu)
        return narrow;
    narrow.base = lo_bits - 1u;
    narrow.top = hi_bits - narrow.base;
    return narrow;
}

/* How many low bits of the narrowed keys vary: 16 or 24; 32 without. */
static inline int ds_key_narrow_bits(ds_key_narrow narrow)
{
    return narrow.top == 0u ? 32 : narrow.top <= 0xFFFFu ? 16 : 24;
}

/* Key `key` (0 for a culled triangle, else in [lo, hi]) narrowed. A key
 * outside [lo, hi], which a sound bound never gives, is clamped to 1 or
 * top rather than wrapping into another key's place. */
DS_HOST_DEVICE float ds_narrow_key(float key, ds_key_narrow narrow)
{
    if (narrow.top == 0u)
        return key;
    uint32_t bits;
    memcpy(&bits, &key, sizeof bits);
    if (bits == 0u)
        return key;
    uint32_t n = bits > narrow.base ? bits - narrow.base : 1u;
    if (n > narrow.top)
        n = narrow.top;
    float result;
    memcpy(&result, &n, sizeof result);
    return result;
}

/* The indirect draw of the first `visible` sorted triangles (the ones
 * culling kept): indexed, DrawElementsIndirectCommand {3 visible, 1, 0, 0,
 * 0}; else DrawArraysIndirectCommand {3 visible, 1, 0, 0}. */
DS_HOST_DEVICE void ds_cull_draw_command(uint32_t visible, int indexed, uint32_t *command)
{
    command[0] = 3u * visible; /* count */
    command[1] = 1u;           /* instanceCount */
    command[2] = 0u;           /* firstIndex / first */
    command[3] = 0u;           /* baseVertex / baseInstance */
    if (indexed)
        command[4] = 0u;       /* baseInstance */
}

#endif
