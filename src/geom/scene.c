/* SPDX-License-Identifier: MIT */
/* scene.c — built-in procedural scenes that stress transparency ordering
 * (see scene.h). Every scene scales with a requested triangle count and is
 * built in parallel with pthreads, writing straight into the final arrays.
 *
 * gyroid  The gyroid  sin x cos y + sin y cos z + sin z cos x = 0  meshed by
 *         marching cubes (Lorensen & Cline, "Marching Cubes: A High
 *         Resolution 3D Surface Construction Algorithm", 1987). The case
 *         table is derived at start-up from the algorithm itself rather
 *         than typed in: on each cube face the iso-line segments are
 *         oriented so that the negative corners lie on their left seen from
 *         outside, and an ambiguous face (two diagonal negative corners)
 *         always separates the negative corners. Both rules depend only on
 *         the face, so neighbouring cubes agree and the surface is
 *         watertight and consistently oriented (no holes, unlike the
 *         original 15-case table). Vertices live on grid edges and are
 *         shared through per-plane edge-index arrays. The number of
 *         periods grows with the size, so big scenes have many nested sheets
 *         behind every pixel.
 * shells  Many interpenetrating ellipsoidal shells (UV spheres, scaled and
 *         rotated), one colour each.
 * planes  Two interleaved stacks of subdivided quads: layers facing +Z at
 *         known depths, and layers facing +X that an axis-aligned view along
 *         Z sees edge-on — a scene with known translucent layers.
 *
 * Every scene's triangles are then put in a fixed pseudo-random block order
 * (see "draw order" below), so that no view starts out depth-sorted.
 */
#include "scene.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI_F 3.14159265358979f

/* ---- tuning --------------------------------------------------------------- */

/* Upper bound on worker threads (the H100 host has 16 cores). */
#define MAX_THREADS 64
/* Gyroid: grid cells per period once the scene is large enough; 32 keeps
 * the sheets smooth while the cell count stays linear in the size. */
#define GYROID_CELLS_PER_PERIOD 32.0
/* Gyroid: never fewer periods than this, so small scenes still nest. */
#define GYROID_MIN_PERIODS 2.0
/* Gyroid: the coarsest grid that still resolves the sheets (about 800
 * triangles); smaller requests get this. */
#define GYROID_MIN_CELLS 6.0
/* Gyroid: measured triangles per (period × cells²): T ≈ K · P · N². */
#define GYROID_TRIANGLES_PER_PERIOD_CELL2 9.62
/* Gyroid: phase offset so that grid points rarely hit the surface exactly. */
#define GYROID_PHASE 0.1234f
/* Gyroid: keep edge vertices off the corners so no triangle collapses. */
#define GYROID_EDGE_T_MIN 1e-3f
/* Gyroid: bound on per-thread scratch planes, to cap memory on big grids. */
#define GYROID_SCRATCH_BUDGET ((size_t)2 << 30)
/* Shells: aim for this many triangles per shell; shell count grows with
 * the size between the two limits. */
#define SHELL_TARGET_TRIANGLES 20000.0
#define SHELL_MIN_COUNT 4
#define SHELL_MAX_COUNT 1000
#define SHELL_MIN_RINGS 3
/* Planes: layers per stack (two stacks). */
#define PLANE_LAYERS 6

/* ---- parallel for --------------------------------------------------------- */

typedef void (*range_fn)(void *context, size_t begin, size_t end);

typedef struct worker {
    range_fn fn;
    void *context;
    size_t begin, end;
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    w->fn(w->context, w->begin, w->end);
    return NULL;
}

static int thread_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Calls fn over [0, count) split into at most `threads` contiguous ranges.
 * A thread that cannot be created runs its range on the caller instead. */
static void parallel_for(size_t count, int threads, range_fn fn, void *context)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > count)
        threads = count ? (int)count : 1;
    if (threads == 1) {
        fn(context, 0, count);
        return;
    }
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS];
    worker workers[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        workers[t] = (worker){fn, context, count * (size_t)t / (size_t)threads,
                              count * (size_t)(t + 1) / (size_t)threads};
        started[t] = pthread_create(&ids[t], NULL, run_worker, &workers[t]) == 0;
        if (!started[t])
            run_worker(&workers[t]);
    }
    for (int t = 0; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
}

/* ---- small helpers -------------------------------------------------------- */

static uint8_t to_byte(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x >= 1.0f)
        return 255;
    return (uint8_t)(x * 255.0f + 0.5f);
}

static void hsv_to_rgb(float h, float s, float v, float rgb[3])
{
    h = (h - floorf(h)) * 6.0f;
    int sector = (int)h % 6;
    float f = h - floorf(h);
    float p = v * (1.0f - s), q = v * (1.0f - s * f), t = v * (1.0f - s * (1.0f - f));
    const float table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    memcpy(rgb, table[sector], sizeof table[sector]);
}

static void normalize_or_up(float n[3])
{
    float length_sq = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (length_sq > 1e-30f && isfinite(length_sq)) {
        float inv = 1.0f / sqrtf(length_sq);
        n[0] *= inv;
        n[1] *= inv;
        n[2] *= inv;
    } else {
        n[0] = 0.0f;
        n[1] = 1.0f;
        n[2] = 0.0f;
    }
}

/* splitmix64: a fixed-seed generator so every build of a scene is identical. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float random_range(uint64_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0));
}

/* Allocates the four arrays of dest for the given counts. */
static ds_status allocate_mesh(ds_mesh *dest, size_t vertex_count, size_t triangle_count,
                               const char *scene)
{
    memset(dest, 0, sizeof *dest);
    if (vertex_count > DS_MESH_MAX_ELEMENTS || triangle_count > DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "scene %s: %zu vertices and %zu triangles exceed %u",
                       scene, vertex_count, triangle_count, DS_MESH_MAX_ELEMENTS);
    dest->vertex_count = vertex_count;
    dest->triangle_count = triangle_count;
    dest->positions = malloc(3 * vertex_count * sizeof(float) + 1);
    dest->normals = malloc(3 * vertex_count * sizeof(float) + 1);
    dest->colors = malloc(4 * vertex_count + 1);
    dest->indices = malloc(3 * triangle_count * sizeof(uint32_t) + 1);
    if (!dest->positions || !dest->normals || !dest->colors || !dest->indices) {
        ds_mesh_free(dest);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "scene %s: out of memory for %zu vertices and %zu triangles",
                       scene, vertex_count, triangle_count);
    }
    return DS_OK;
}

/* ---- marching cubes table, derived from the algorithm -------------------- */

/* Corner c of a cube sits at (c & 1, c >> 1 & 1, c >> 2 & 1). Edges 0-3 run
 * along X, 4-7 along Y, 8-11 along Z; each joins a lower corner to the
 * corner one step along its axis. */
static const uint8_t edge_corners[12][2] = {
    {0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7},
};

/* At most 12 crossed edges; each loop of L edges gives L - 2 triangles and
 * has L >= 3, so never more than 10 triangles per cube. */
#define MC_MAX_TRIANGLES 10

static uint8_t mc_triangle_count[256];
static int8_t mc_triangle_edges[256][3 * MC_MAX_TRIANGLES];
static pthread_once_t mc_table_once = PTHREAD_ONCE_INIT;

static int edge_between(int a, int b)
{
    for (int e = 0; e < 12; e++)
        if ((edge_corners[e][0] == a && edge_corners[e][1] == b) ||
            (edge_corners[e][0] == b && edge_corners[e][1] == a))
            return e;
    return -1;
}

/* For cube configuration `config` (bit c set: corner c is negative), links
 * each crossed edge to the next one along the oriented iso-line. */
static void link_face_segments(int config, int next[12])
{
    for (int e = 0; e < 12; e++)
        next[e] = -1;
    for (int axis = 0; axis < 3; axis++) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; side++) {
            /* Corners counter-clockwise about +axis; reversed on the low
             * side so that they run counter-clockwise seen from outside. */
            static const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
            int q[4];
            for (int i = 0; i < 4; i++) {
                int k = side ? i : 3 - i;
                q[i] = side << axis | du[k] << u | dv[k] << v;
            }
            for (int i = 0; i < 4; i++) {
                int here = q[i], there = q[(i + 1) % 4];
                if (!(config >> here & 1) || (config >> there & 1))
                    continue;
                /* Leaving the negative run at `here`: walk back to where it
                 * began; the segment joins the two ends of this run only,
                 * which separates diagonal negative corners. */
                int j = i;
                while (config >> q[(j + 3) % 4] & 1)
                    j = (j + 3) % 4;
                next[edge_between(here, there)] = edge_between(q[(j + 3) % 4], q[j]);
            }
        }
    }
}

static void build_mc_table(void)
{
    float midpoint[12][3];
    for (int e = 0; e < 12; e++)
        for (int k = 0; k < 3; k++)
            midpoint[e][k] = 0.5f * (float)((edge_corners[e][0] >> k & 1) + (edge_corners[e][1] >> k & 1));

    /* Which way do the loops turn? Check the one-corner case: triangles must
     * face away from the negative corner 0, towards +(1,1,1). */
    int next[12], flip = 0;
    link_face_segments(1, next);
    {
        int a = 0, b = next[a], c = next[b];
        float e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = midpoint[b][k] - midpoint[a][k];
            e2[k] = midpoint[c][k] - midpoint[a][k];
        }
        float cross[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                          e1[0] * e2[1] - e1[1] * e2[0]};
        flip = cross[0] + cross[1] + cross[2] < 0.0f;
    }

    for (int config = 0; config < 256; config++) {
        link_face_segments(config, next);
        int visited[12] = {0}, count = 0;
        for (int start = 0; start < 12; start++) {
            if (next[start] < 0 || visited[start])
                continue;
            int loop[12], length = 0;
            for (int e = start; !visited[e]; e = next[e]) {
                visited[e] = 1;
                loop[length++] = e;
            }
            for (int i = 1; i + 1 < length; i++) {
                int8_t *tri = mc_triangle_edges[config] + 3 * count++;
                tri[0] = (int8_t)loop[0];
                tri[1] = (int8_t)loop[flip ? i + 1 : i];
                tri[2] = (int8_t)loop[flip ? i : i + 1];
            }
        }
        mc_triangle_count[config] = (uint8_t)count;
    }
}

/* ---- gyroid ------------------------------------------------------------- */

typedef struct gyroid {
    int n;              /* cells per side; grid points 0..n */
    float *sin_table;   /* sin and cos of the angle at grid index i */
    float *cos_table;
    float angle_step;   /* radians per cell */
    float cell_size;    /* world units per cell; the box is [-1, 1]^3 */
    int slab_count;     /* z ranges, one per task */
    size_t *slab_vertices;  /* pass 1 results, then bases */
    size_t *slab_triangles;
    size_t *vertex_base;
    size_t *triangle_base;
    ds_mesh *mesh;
    int failed;         /* a worker could not allocate its scratch */
    pthread_mutex_t lock;
} gyroid;

/* Field values of plane k into dest[(n+1)^2]. Kept out of line so that both
 * passes compute bit-identical values and agree on every sign. */
__attribute__((noinline)) static void gyroid_plane(const gyroid *g, int k, float *dest)
{
    int row = g->n + 1;
    float sk = g->sin_table[k], ck = g->cos_table[k];
    for (int j = 0; j < row; j++) {
        float sj = g->sin_table[j], cj = g->cos_table[j];
        float *out = dest + (size_t)j * row;
        for (int i = 0; i < row; i++)
            out[i] = g->sin_table[i] * cj + sj * ck + sk * g->cos_table[i];
    }
}

static int negative(float f) { return f < 0.0f; }

static size_t slab_begin(const gyroid *g, int slab)
{
    return (size_t)g->n * (size_t)slab / (size_t)g->slab_count;
}

static unsigned cube_config(const float *lo, const float *hi, size_t row, size_t at)
{
    return (unsigned)negative(lo[at]) | (unsigned)negative(lo[at + 1]) << 1 |
           (unsigned)negative(lo[at + row]) << 2 | (unsigned)negative(lo[at + row + 1]) << 3 |
           (unsigned)negative(hi[at]) << 4 | (unsigned)negative(hi[at + 1]) << 5 |
           (unsigned)negative(hi[at + row]) << 6 | (unsigned)negative(hi[at + row + 1]) << 7;
}

static size_t count_plane_crossings(const gyroid *g, const float *f)
{
    size_t row = (size_t)g->n + 1, count = 0;
    for (size_t j = 0; j < row; j++)
        for (size_t i = 0; i + 1 < row; i++)
            count += negative(f[j * row + i]) != negative(f[j * row + i + 1]);
    for (size_t j = 0; j + 1 < row; j++)
        for (size_t i = 0; i < row; i++)
            count += negative(f[j * row + i]) != negative(f[(j + 1) * row + i]);
    return count;
}

/* Pass 1: vertices owned and triangles made by each slab. A slab owns the
 * X/Y edges of its planes k0..k1-1 (the last slab also plane n) and the Z
 * edges leaving them upwards. */
static void gyroid_count(void *context, size_t begin, size_t end)
{
    gyroid *g = context;
    size_t row = (size_t)g->n + 1;
    float *lo = malloc(2 * row * row * sizeof(float));
    if (!lo) {
        pthread_mutex_lock(&g->lock);
        g->failed = 1;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    float *hi = lo + row * row;
    for (size_t slab = begin; slab < end; slab++) {
        size_t k0 = slab_begin(g, (int)slab), k1 = slab_begin(g, (int)slab + 1);
        size_t vertices = 0, triangles = 0;
        gyroid_plane(g, (int)k0, lo);
        for (size_t k = k0; k < k1; k++) {
            vertices += count_plane_crossings(g, lo);
            gyroid_plane(g, (int)k + 1, hi);
            for (size_t at = 0; at < row * row; at++)
                vertices += negative(lo[at]) != negative(hi[at]);
            for (size_t j = 0; j + 1 < row; j++)
                for (size_t i = 0; i + 1 < row; i++)
                    triangles += mc_triangle_count[cube_config(lo, hi, row, j * row + i)];
            float *swap = lo;
            lo = hi;
            hi = swap;
        }
        if (k1 == (size_t)g->n)
            vertices += count_plane_crossings(g, lo);
        g->slab_vertices[slab] = vertices;
        g->slab_triangles[slab] = triangles;
    }
    free(lo < hi ? lo : hi);
}

/* Writes the vertex on the edge from grid point (i,j,k) one step along
 * `axis`, where the field goes from f0 to f1 (opposite signs). */
static void gyroid_vertex(const gyroid *g, size_t id, int axis, size_t i, size_t j, size_t k, float f0,
                          float f1)
{
    float t = f0 / (f0 - f1);
    if (t < GYROID_EDGE_T_MIN)
        t = GYROID_EDGE_T_MIN;
    if (t > 1.0f - GYROID_EDGE_T_MIN)
        t = 1.0f - GYROID_EDGE_T_MIN;
    float grid[3] = {(float)i, (float)j, (float)k};
    grid[axis] += t;
    float s[3], c[3];
    size_t at[3] = {i, j, k};
    for (int a = 0; a < 3; a++) {
        if (a == axis) {
            float angle = GYROID_PHASE + grid[a] * g->angle_step;
            s[a] = sinf(angle);
            c[a] = cosf(angle);
        } else {
            s[a] = g->sin_table[at[a]];
            c[a] = g->cos_table[at[a]];
        }
    }
    float *p = g->mesh->positions + 3 * id;
    float *nrm = g->mesh->normals + 3 * id;
    uint8_t *rgba = g->mesh->colors + 4 * id;
    for (int a = 0; a < 3; a++)
        p[a] = -1.0f + grid[a] * g->cell_size;
    /* The gradient points to positive values, the side the triangles face. */
    nrm[0] = c[0] * c[1] - s[2] * s[0];
    nrm[1] = c[1] * c[2] - s[0] * s[1];
    nrm[2] = c[2] * c[0] - s[1] * s[2];
    normalize_or_up(nrm);
    /* Colour by position so that sheets at different depths differ, lit a
     * little by the normal so their shape reads. */
    float shade = 0.8f + 0.2f * nrm[1];
    rgba[0] = to_byte(shade * (0.30f + 0.35f * (p[0] + 1.0f)));
    rgba[1] = to_byte(shade * (0.25f + 0.30f * (p[1] + 1.0f)));
    rgba[2] = to_byte(shade * (0.95f - 0.30f * (p[2] + 1.0f)));
    rgba[3] = 255;
}

/* Gives IDs to the crossed X and Y edges of plane k, writing the vertices
 * when `emit` (the plane is this slab's) or only numbering them the way the
 * owning slab will (the plane above, owned by the next slab). */
static void gyroid_number_plane(const gyroid *g, const float *f, size_t k, uint32_t *x_ids,
                                uint32_t *y_ids, size_t *next_id, int emit)
{
    size_t n = (size_t)g->n, row = n + 1, id = *next_id;
    for (size_t j = 0; j < row; j++)
        for (size_t i = 0; i < n; i++) {
            float f0 = f[j * row + i], f1 = f[j * row + i + 1];
            if (negative(f0) == negative(f1))
                continue;
            if (emit)
                gyroid_vertex(g, id, 0, i, j, k, f0, f1);
            x_ids[j * n + i] = (uint32_t)id++;
        }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < row; i++) {
            float f0 = f[j * row + i], f1 = f[(j + 1) * row + i];
            if (negative(f0) == negative(f1))
                continue;
            if (emit)
                gyroid_vertex(g, id, 1, i, j, k, f0, f1);
            y_ids[j * row + i] = (uint32_t)id++;
        }
    *next_id = id;
}

/* Pass 2: writes each slab's vertices and triangles at its bases. */
static void gyroid_emit(void *context, size_t begin, size_t end)
{
    gyroid *g = context;
    size_t n = (size_t)g->n, row = n + 1, plane = row * row;
    float *planes = malloc(2 * plane * sizeof(float));
    uint32_t *ids = malloc(5 * plane * sizeof(uint32_t));
    if (!planes || !ids) {
        free(planes);
        free(ids);
        pthread_mutex_lock(&g->lock);
        g->failed = 1;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    for (size_t slab = begin; slab < end; slab++) {
        float *lo = planes, *hi = planes + plane;
        uint32_t *x_lo = ids, *y_lo = ids + plane, *x_hi = ids + 2 * plane, *y_hi = ids + 3 * plane;
        uint32_t *z_ids = ids + 4 * plane;
        size_t k0 = slab_begin(g, (int)slab), k1 = slab_begin(g, (int)slab + 1);
        size_t next_id = g->vertex_base[slab];
        uint32_t *tri = g->mesh->indices + 3 * g->triangle_base[slab];

        gyroid_plane(g, (int)k0, lo);
        gyroid_number_plane(g, lo, k0, x_lo, y_lo, &next_id, 1);
        for (size_t k = k0; k < k1; k++) {
            gyroid_plane(g, (int)k + 1, hi);
            for (size_t j = 0; j < row; j++)
                for (size_t i = 0; i < row; i++) {
                    size_t at = j * row + i;
                    if (negative(lo[at]) == negative(hi[at]))
                        continue;
                    gyroid_vertex(g, next_id, 2, i, j, k, lo[at], hi[at]);
                    z_ids[at] = (uint32_t)next_id++;
                }
            if (k + 1 < k1 || k1 == n) {
                gyroid_number_plane(g, hi, k + 1, x_hi, y_hi, &next_id, 1);
            } else {
                size_t above = g->vertex_base[slab + 1];
                gyroid_number_plane(g, hi, k + 1, x_hi, y_hi, &above, 0);
            }
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < n; i++) {
                    unsigned config = cube_config(lo, hi, row, j * row + i);
                    const int8_t *edges = mc_triangle_edges[config];
                    for (int c = 0; c < 3 * mc_triangle_count[config]; c++) {
                        int e = edges[c];
                        int a = edge_corners[e][0];
                        size_t dx = (size_t)(a & 1), dy = (size_t)(a >> 1 & 1), dz = (size_t)(a >> 2 & 1);
                        if (e < 4)
                            *tri++ = (dz ? x_hi : x_lo)[(j + dy) * n + i];
                        else if (e < 8)
                            *tri++ = (dz ? y_hi : y_lo)[j * row + i + dx];
                        else
                            *tri++ = z_ids[(j + dy) * row + i + dx];
                    }
                }
            float *swap_f = lo;
            lo = hi;
            hi = swap_f;
            uint32_t *swap_x = x_lo, *swap_y = y_lo;
            x_lo = x_hi;
            y_lo = y_hi;
            x_hi = swap_x;
            y_hi = swap_y;
        }
    }
    free(planes);
    free(ids);
}

/* Grid resolution for about `triangles` triangles: T ≈ K · P · N² with
 * P = N / cells-per-period (at least GYROID_MIN_PERIODS). */
static void gyroid_resolution(size_t triangles, int *cells, double *periods)
{
    double t = (double)triangles;
    double n = cbrt(t * GYROID_CELLS_PER_PERIOD / GYROID_TRIANGLES_PER_PERIOD_CELL2);
    double p = n / GYROID_CELLS_PER_PERIOD;
    if (p < GYROID_MIN_PERIODS) {
        p = GYROID_MIN_PERIODS;
        n = sqrt(t / (GYROID_TRIANGLES_PER_PERIOD_CELL2 * p));
    }
    if (n < GYROID_MIN_CELLS)
        n = GYROID_MIN_CELLS;
    *cells = (int)lround(n);
    *periods = p;
}

static ds_status build_gyroid(size_t triangles, ds_mesh *dest)
{
    pthread_once(&mc_table_once, build_mc_table);
    gyroid g = {0};
    double periods;
    gyroid_resolution(triangles, &g.n, &periods);
    size_t row = (size_t)g.n + 1;

    int threads = thread_count();
    size_t scratch = 7 * row * row * sizeof(float);
    if ((size_t)threads * scratch > GYROID_SCRATCH_BUDGET)
        threads = (int)(GYROID_SCRATCH_BUDGET / scratch) + 1;
    /* More slabs than threads balances the sheets' uneven density. */
    g.slab_count = threads == 1 ? 1 : 4 * threads;
    if (g.slab_count > g.n)
        g.slab_count = g.n;

    ds_status status = DS_OK;
    g.sin_table = malloc(2 * row * sizeof(float));
    g.slab_vertices = calloc(4 * (size_t)g.slab_count + 1, sizeof(size_t));
    pthread_mutex_init(&g.lock, NULL);
    if (!g.sin_table || !g.slab_vertices) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "scene gyroid: out of memory for a %d^3 grid", g.n);
        goto done;
    }
    g.cos_table = g.sin_table + row;
    g.slab_triangles = g.slab_vertices + g.slab_count;
    g.vertex_base = g.slab_triangles + g.slab_count;
    g.triangle_base = g.vertex_base + g.slab_count + 1;
    g.angle_step = (float)(2.0 * M_PI * periods / g.n);
    g.cell_size = 2.0f / (float)g.n;
    for (size_t i = 0; i < row; i++) {
        float angle = GYROID_PHASE + (float)i * g.angle_step;
        g.sin_table[i] = sinf(angle);
        g.cos_table[i] = cosf(angle);
    }

    parallel_for((size_t)g.slab_count, threads, gyroid_count, &g);
    if (g.failed) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "scene gyroid: out of memory for scratch planes");
        goto done;
    }
    size_t vertices = 0, total_triangles = 0;
    for (int s = 0; s < g.slab_count; s++) {
        g.vertex_base[s] = vertices;
        g.triangle_base[s] = total_triangles;
        vertices += g.slab_vertices[s];
        total_triangles += g.slab_triangles[s];
    }
    g.vertex_base[g.slab_count] = vertices;
    status = allocate_mesh(dest, vertices, total_triangles, "gyroid");
    if (status != DS_OK)
        goto done;
    g.mesh = dest;
    parallel_for((size_t)g.slab_count, threads, gyroid_emit, &g);
    if (g.failed) {
        ds_mesh_free(dest);
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "scene gyroid: out of memory for scratch planes");
    }
done:
    pthread_mutex_destroy(&g.lock);
    free(g.sin_table);
    free(g.slab_vertices);
    return status;
}

/* ---- shells --------------------------------------------------------------- */

typedef struct shell {
    float center[3];
    float axes[3];
    float rotation[9]; /* row-major: world = R · local */
    float rgb[3];
} shell;

typedef struct shells {
    const shell *list;
    int rings;          /* latitude bands; rings - 1 vertex rings plus poles */
    int segments;       /* vertices per ring */
    size_t vertices_per_shell, triangles_per_shell;
    ds_mesh *mesh;
} shells;

static void random_rotation(uint64_t *state, float r[9])
{
    float q[4], length_sq;
    do {
        for (int k = 0; k < 4; k++)
            q[k] = random_range(state, -1.0f, 1.0f);
        length_sq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    } while (length_sq < 0.01f || length_sq > 1.0f);
    float s = 1.0f / sqrtf(length_sq);
    float w = q[0] * s, x = q[1] * s, y = q[2] * s, z = q[3] * s;
    const float m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                        2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(r, m, sizeof m);
}

/* One unit-sphere point (polar axis Y) placed on shell `s` as vertex `id`. */
static void shell_vertex(const shells *ctx, const shell *s, size_t id, float theta, float phi)
{
    float local[3] = {sinf(theta) * cosf(phi), cosf(theta), sinf(theta) * sinf(phi)};
    float scaled[3], gradient[3];
    for (int k = 0; k < 3; k++) {
        scaled[k] = local[k] * s->axes[k];
        gradient[k] = local[k] / s->axes[k];
    }
    float *p = ctx->mesh->positions + 3 * id;
    float *nrm = ctx->mesh->normals + 3 * id;
    for (int r = 0; r < 3; r++) {
        const float *m = s->rotation + 3 * r;
        p[r] = s->center[r] + m[0] * scaled[0] + m[1] * scaled[1] + m[2] * scaled[2];
        nrm[r] = m[0] * gradient[0] + m[1] * gradient[1] + m[2] * gradient[2];
    }
    normalize_or_up(nrm);
    float shade = 0.8f + 0.2f * nrm[1];
    uint8_t *rgba = ctx->mesh->colors + 4 * id;
    for (int k = 0; k < 3; k++)
        rgba[k] = to_byte(shade * s->rgb[k]);
    rgba[3] = 255;
}

static void shells_emit(void *context, size_t begin, size_t end)
{
    const shells *ctx = context;
    uint32_t rings = (uint32_t)ctx->rings, segments = (uint32_t)ctx->segments;
    for (size_t index = begin; index < end; index++) {
        const shell *s = ctx->list + index;
        size_t base = index * ctx->vertices_per_shell;
        uint32_t *tri = ctx->mesh->indices + 3 * index * ctx->triangles_per_shell;
        /* Vertex 0 is the north pole, then rings 1..rings-1 of `segments`
         * vertices, then the south pole. */
        shell_vertex(ctx, s, base, 0.0f, 0.0f);
        for (uint32_t m = 1; m < rings; m++)
            for (uint32_t q = 0; q < segments; q++)
                shell_vertex(ctx, s, base + 1 + (m - 1) * segments + q, PI_F * (float)m / (float)rings,
                             2.0f * PI_F * (float)q / (float)segments);
        uint32_t south = (uint32_t)(base + ctx->vertices_per_shell - 1);
        shell_vertex(ctx, s, south, PI_F, 0.0f);

        /* Counter-clockwise seen from outside. */
        for (uint32_t q = 0; q < segments; q++) {
            uint32_t q1 = (q + 1) % segments;
            uint32_t top = (uint32_t)base + 1, bottom = (uint32_t)base + 1 + (rings - 2) * segments;
            *tri++ = (uint32_t)base;
            *tri++ = top + q1;
            *tri++ = top + q;
            for (uint32_t m = 1; m + 1 < rings; m++) {
                uint32_t a = (uint32_t)base + 1 + (m - 1) * segments + q, b = a - q + q1;
                uint32_t c = a + segments, d = b + segments;
                *tri++ = a;
                *tri++ = b;
                *tri++ = d;
                *tri++ = a;
                *tri++ = d;
                *tri++ = c;
            }
            *tri++ = bottom + q;
            *tri++ = bottom + q1;
            *tri++ = south;
        }
    }
}

static ds_status build_shells(size_t triangles, ds_mesh *dest)
{
    double t = (double)triangles;
    double count = t / SHELL_TARGET_TRIANGLES;
    if (count < SHELL_MIN_COUNT)
        count = SHELL_MIN_COUNT;
    if (count > SHELL_MAX_COUNT)
        count = SHELL_MAX_COUNT;
    /* 2 · segments · (rings - 1) triangles per shell with segments = 2 · rings. */
    int rings = (int)lround(0.5 + sqrt(0.25 + t / count / 4.0));
    if (rings < SHELL_MIN_RINGS)
        rings = SHELL_MIN_RINGS;
    shells ctx = {0};
    ctx.rings = rings;
    ctx.segments = 2 * rings;
    ctx.vertices_per_shell = (size_t)(rings - 1) * (size_t)ctx.segments + 2;
    ctx.triangles_per_shell = 2 * (size_t)ctx.segments * (size_t)(rings - 1);
    size_t shell_count = (size_t)llround(t / (double)ctx.triangles_per_shell);
    if (shell_count < 1)
        shell_count = 1;
    if (shell_count > DS_MESH_MAX_ELEMENTS / ctx.triangles_per_shell)
        return ds_fail(DS_ERR_TOO_LARGE, "scene shells: %zu triangles exceed %u", triangles,
                       DS_MESH_MAX_ELEMENTS);

    shell *list = malloc(shell_count * sizeof *list);
    if (!list)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "scene shells: out of memory for %zu shells", shell_count);
    uint64_t state = 0x5EEDC0DEull;
    /* Mean radius so that neighbouring shells overlap a good deal. */
    float mean_radius = 0.65f * cbrtf(8.0f / (float)shell_count);
    if (mean_radius > 0.9f)
        mean_radius = 0.9f;
    for (size_t i = 0; i < shell_count; i++) {
        shell *s = list + i;
        float radius = mean_radius * random_range(&state, 0.7f, 1.3f);
        for (int k = 0; k < 3; k++) {
            s->center[k] = random_range(&state, -1.0f, 1.0f);
            s->axes[k] = radius * random_range(&state, 0.6f, 1.4f);
        }
        random_rotation(&state, s->rotation);
        hsv_to_rgb(0.618034f * (float)i, 0.65f, 0.95f, s->rgb);
    }
    ctx.list = list;
    ds_status status = allocate_mesh(dest, shell_count * ctx.vertices_per_shell,
                                     shell_count * ctx.triangles_per_shell, "shells");
    if (status == DS_OK) {
        ctx.mesh = dest;
        parallel_for(shell_count, thread_count(), shells_emit, &ctx);
    }
    free(list);
    return status;
}

/* ---- planes --------------------------------------------------------------- */

typedef struct planes {
    int cells;          /* quads per layer side */
    ds_mesh *mesh;
} planes;

/* Layer depth: spread over [-0.75, 0.75], leaving the sides to the
 * other stack's quads. */
static float plane_depth(int layer) { return -0.75f + 1.5f * (float)layer / (float)(PLANE_LAYERS - 1); }

static void planes_emit(void *context, size_t begin, size_t end)
{
    const planes *ctx = context;
    uint32_t cells = (uint32_t)ctx->cells, side = cells + 1;
    size_t vertices_per_layer = (size_t)side * side, triangles_per_layer = 2 * (size_t)cells * cells;
    for (size_t layer = begin; layer < end; layer++) {
        /* Layers 0..L-1 face +Z at z = depth; layers L..2L-1 face +X. */
        int facing_x = layer >= PLANE_LAYERS;
        int index = (int)layer % PLANE_LAYERS;
        float depth = plane_depth(index);
        float rgb[3];
        hsv_to_rgb((float)layer / (2.0f * PLANE_LAYERS), 0.7f, 0.95f, rgb);
        size_t base = layer * vertices_per_layer;
        for (uint32_t j = 0; j < side; j++)
            for (uint32_t i = 0; i < side; i++) {
                size_t id = base + (size_t)j * side + i;
                float u = -1.0f + 2.0f * (float)i / (float)cells, v = -1.0f + 2.0f * (float)j / (float)cells;
                float *p = ctx->mesh->positions + 3 * id, *n = ctx->mesh->normals + 3 * id;
                if (facing_x) {
                    /* (u, v) map to (y, z) so that the winding faces +X. */
                    p[0] = depth, p[1] = u, p[2] = v;
                    n[0] = 1.0f, n[1] = 0.0f, n[2] = 0.0f;
                } else {
                    p[0] = u, p[1] = v, p[2] = depth;
                    n[0] = 0.0f, n[1] = 0.0f, n[2] = 1.0f;
                }
                uint8_t *rgba = ctx->mesh->colors + 4 * id;
                for (int k = 0; k < 3; k++)
                    rgba[k] = to_byte(rgb[k]);
                rgba[3] = 255;
            }
        uint32_t *tri = ctx->mesh->indices + 3 * layer * triangles_per_layer;
        for (uint32_t j = 0; j < cells; j++)
            for (uint32_t i = 0; i < cells; i++) {
                uint32_t a = (uint32_t)(base + (size_t)j * side + i), b = a + 1, c = a + side, d = c + 1;
                *tri++ = a;
                *tri++ = b;
                *tri++ = d;
                *tri++ = a;
                *tri++ = d;
                *tri++ = c;
            }
    }
}

static ds_status build_planes(size_t triangles, ds_mesh *dest)
{
    double per_layer = (double)triangles / (2.0 * PLANE_LAYERS);
    long cells = lround(sqrt(per_layer / 2.0));
    if (cells < 1)
        cells = 1;
    size_t side = (size_t)cells + 1;
    size_t vertex_count = 2 * PLANE_LAYERS * side * side;
    size_t triangle_count = 2 * PLANE_LAYERS * 2 * (size_t)cells * (size_t)cells;
    ds_status status = allocate_mesh(dest, vertex_count, triangle_count, "planes");
    if (status != DS_OK)
        return status;
    planes ctx = {(int)cells, dest};
    parallel_for(2 * PLANE_LAYERS, thread_count(), planes_emit, &ctx);
    return DS_OK;
}

/* ---- draw order ----------------------------------------------------------- */

/* The generators emit triangles in sweep order (the gyroid slab by slab
 * along Z, the planes layer by layer from -Z), which is back to front for
 * the first camera: unsorted blending would then look sorted. Every scene
 * is therefore handed out with its triangles in a fixed pseudo-random
 * order of blocks: neighbours within a block stay together (the key pass
 * still reads vertices coherently, as with a scanned mesh), while the
 * order across blocks follows no view. Vertices are not moved. */
#define ORDER_SEED 0xD15EA5E5ull
/* At most this many triangles per block, and blocks small enough that even
 * a small scene has this many (a scene of fewer triangles is shuffled
 * triangle by triangle). */
#define ORDER_BLOCK_MAX 256
#define ORDER_MIN_BLOCKS 1024

/* Permutes the full blocks of `block` triangles in place (a Fisher-Yates
 * permutation applied cycle by cycle with one block of scratch); a partial
 * last block stays at the end. */
static ds_status shuffle_triangle_blocks(ds_mesh *mesh, const char *name)
{
    size_t block = mesh->triangle_count / ORDER_MIN_BLOCKS;
    if (block > ORDER_BLOCK_MAX)
        block = ORDER_BLOCK_MAX;
    if (block < 1)
        block = 1;
    size_t blocks = mesh->triangle_count / block;
    if (blocks < 2)
        return DS_OK;
    size_t bytes = 3 * block * sizeof(uint32_t);
    size_t *source = malloc(blocks * sizeof *source);
    uint32_t *scratch = malloc(bytes);
    if (!source || !scratch) {
        free(source);
        free(scratch);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "scene %s: out of memory for the triangle order", name);
    }
    /* source[i]: the block that moves to position i. */
    uint64_t state = ORDER_SEED;
    for (size_t i = 0; i < blocks; i++)
        source[i] = i;
    for (size_t i = blocks - 1; i > 0; i--) {
        size_t j = (size_t)(next_random(&state) % (i + 1));
        size_t t = source[i];
        source[i] = source[j];
        source[j] = t;
    }
    /* Follow each cycle once; SIZE_MAX marks a placed position. */
    uint32_t *indices = mesh->indices;
    for (size_t start = 0; start < blocks; start++) {
        if (source[start] == SIZE_MAX || source[start] == start)
            continue;
        memcpy(scratch, indices + 3 * block * start, bytes);
        size_t at = start;
        for (;;) {
            size_t from = source[at];
            source[at] = SIZE_MAX;
            if (from == start) {
                memcpy(indices + 3 * block * at, scratch, bytes);
                break;
            }
            memcpy(indices + 3 * block * at, indices + 3 * block * from, bytes);
            at = from;
        }
    }
    free(source);
    free(scratch);
    return DS_OK;
}

/* ---- registry ------------------------------------------------------------- */

typedef struct scene_entry {
    const char *name;
    const char *description;
    ds_status (*build)(size_t triangles, ds_mesh *dest);
} scene_entry;

static const scene_entry scenes[] = {
    {"gyroid", "gyroid surface by marching cubes: many nested sheets behind every pixel", build_gyroid},
    {"shells", "hundreds of interpenetrating ellipsoidal shells, one colour each", build_shells},
    {"planes", "two interleaved stacks of quads (6 facing +Z at known depths, 6 facing +X)",
     build_planes},
};
#define SCENE_COUNT ((int)(sizeof scenes / sizeof scenes[0]))

int ds_scene_count(void) { return SCENE_COUNT; }

const char *ds_scene_name(int index) { return index >= 0 && index < SCENE_COUNT ? scenes[index].name : NULL; }

const char *ds_scene_description(int index)
{
    return index >= 0 && index < SCENE_COUNT ? scenes[index].description : NULL;
}

static const scene_entry *find_scene(const char *name, size_t length)
{
    for (int i = 0; i < SCENE_COUNT; i++)
        if (strlen(scenes[i].name) == length && !strncmp(scenes[i].name, name, length))
            return &scenes[i];
    return NULL;
}

static ds_status unknown_scene(const char *name, size_t length)
{
    char known[256] = "";
    for (int i = 0; i < SCENE_COUNT; i++) {
        if (i)
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, scenes[i].name, sizeof known - strlen(known) - 1);
    }
    return ds_fail(DS_ERR_INVALID_ARG, "unknown scene '%.*s'; known scenes: %s", (int)(length > 64 ? 64 : length),
                   name, known);
}

ds_status ds_scene_build(const char *name, size_t triangles, ds_mesh *dest)
{
    memset(dest, 0, sizeof *dest);
    const scene_entry *scene = name ? find_scene(name, strlen(name)) : NULL;
    if (!scene)
        return unknown_scene(name ? name : "(null)", name ? strlen(name) : 6);
    if (triangles == 0)
        triangles = DS_SCENE_DEFAULT_SIZE;
    if (triangles > DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "scene %s: %zu triangles exceed the limit of %u", name, triangles,
                       DS_MESH_MAX_ELEMENTS);
    ds_status status = scene->build(triangles, dest);
    if (status != DS_OK)
        return status;
    dest->has_colors = 1; /* every scene colours its vertices */
    dest->format = "scene";
    status = shuffle_triangle_blocks(dest, name);
    if (status == DS_OK)
        status = ds_mesh_finish(dest); /* bounds; normals and colours are set */
    if (status != DS_OK)
        ds_mesh_free(dest);
    return status;
}

ds_status ds_scene_parse(const char *spec, char *name, size_t name_capacity, size_t *triangles)
{
    if (!spec || !*spec)
        return ds_fail(DS_ERR_INVALID_ARG, "--scene: empty scene name");
    const char *colon = strchr(spec, ':');
    size_t length = colon ? (size_t)(colon - spec) : strlen(spec);
    if (!find_scene(spec, length))
        return unknown_scene(spec, length);
    if (length + 1 > name_capacity)
        return ds_fail(DS_ERR_INVALID_ARG, "--scene: name '%.*s' too long", (int)length, spec);
    memcpy(name, spec, length);
    name[length] = '\0';
    *triangles = 0;
    if (!colon)
        return DS_OK;

    /* SIZE: digits, an optional fraction, an optional k, M or G. */
    const char *s = colon + 1;
    double value = 0.0, scale = 1.0;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++, digits++)
        value = value * 10.0 + (*s - '0');
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, digits++)
            value += (*s - '0') * (scale /= 10.0);
    if (*s == 'k' || *s == 'K')
        value *= 1e3, s++;
    else if (*s == 'M' || *s == 'm')
        value *= 1e6, s++;
    else if (*s == 'G' || *s == 'g')
        value *= 1e9, s++;
    if (!digits || *s)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "--scene %s: size '%s' is not a triangle count (e.g. 500k, 2M, 50000000)", spec,
                       colon + 1);
    value = floor(value + 0.5);
    if (value < 1.0)
        return ds_fail(DS_ERR_INVALID_ARG, "--scene %s: size must be at least 1 triangle", spec);
    if (value > (double)DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "--scene %s: %.0f triangles exceed the limit of %u", spec, value,
                       DS_MESH_MAX_ELEMENTS);
    *triangles = (size_t)value;
    return DS_OK;
}
