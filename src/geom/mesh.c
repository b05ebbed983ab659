/* SPDX-License-Identifier: MIT */
/* mesh.c — completing a host mesh (bounds, normals, default colours) and
 * replicating it on a grid (see mesh.h).
 *
 * Normals are area-weighted: each triangle adds its unnormalised cross
 * product (twice its area times its unit normal) to its three vertices, so
 * large faces dominate and degenerate (zero-area) faces add nothing. A vertex
 * that ends with no usable direction (isolated, or only in degenerate faces)
 * gets +Y, so every normal is unit length. Normals that a mesh comes with are
 * normalised, and zero ones are computed in the same way.
 */
#include "mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this squared length a summed normal is treated as "no direction". */
#define MIN_NORMAL_LENGTH_SQ 1e-30

/* Grid cells are spaced by the model's extent plus this fraction of its
 * largest horizontal extent, so copies never touch. */
#define GRID_MARGIN_FRACTION 0.1f

void ds_mesh_free(ds_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->colors);
    free(mesh->indices);
    memset(mesh, 0, sizeof *mesh);
}

void ds_mesh_compute_bounds(ds_mesh *mesh)
{
    float lo[3] = {0.0f, 0.0f, 0.0f};
    float hi[3] = {0.0f, 0.0f, 0.0f};
    if (mesh->vertex_count > 0) {
        for (int k = 0; k < 3; k++)
            lo[k] = hi[k] = mesh->positions[k];
        const float *p = mesh->positions;
        for (size_t v = 1; v < mesh->vertex_count; v++) {
            const float *q = p + 3 * v;
            for (int k = 0; k < 3; k++) {
                if (q[k] < lo[k])
                    lo[k] = q[k];
                if (q[k] > hi[k])
                    hi[k] = q[k];
            }
        }
    }
    double diagonal_sq = 0.0;
    for (int k = 0; k < 3; k++) {
        mesh->bounds_min[k] = lo[k];
        mesh->bounds_max[k] = hi[k];
        /* Halve each end before adding so huge coordinates cannot overflow. */
        mesh->center[k] = 0.5f * lo[k] + 0.5f * hi[k];
        double extent = (double)hi[k] - (double)lo[k];
        diagonal_sq += extent * extent;
    }
    mesh->radius = (float)(0.5 * sqrt(diagonal_sq));
}

int ds_mesh_fit_range(ds_mesh *mesh, double offset[3], double *scale)
{
    offset[0] = offset[1] = offset[2] = 0.0;
    *scale = 1.0;
    if (!mesh || mesh->vertex_count == 0)
        return 0;
    /* In double: the float bounds of a model spanning -3e38..3e38 have an
     * extent that float cannot hold. */
    double center[3], diagonal_sq = 0.0, farthest = 0.0;
    ds_mesh_compute_bounds(mesh);
    for (int k = 0; k < 3; k++) {
        double lo = mesh->bounds_min[k], hi = mesh->bounds_max[k];
        center[k] = 0.5 * lo + 0.5 * hi;
        diagonal_sq += (hi - lo) * (hi - lo);
        farthest = fmax(farthest, fabs(center[k]));
    }
    double radius = 0.5 * sqrt(diagonal_sq);
    /* A single point: the camera frames it at radius 1. */
    double framed = radius > 0.0 ? radius : 1.0;
    int rescale = radius > DS_MESH_MAX_RADIUS || (radius > 0.0 && radius < DS_MESH_MIN_RADIUS);
    int recentre = farthest > DS_MESH_MAX_RADIUS || farthest > DS_MESH_MAX_CENTER_RADII * framed;
    if (!rescale && !recentre)
        return 0;
    if (recentre)
        memcpy(offset, center, sizeof center);
    if (rescale)
        *scale = 1.0 / radius;
    float *p = mesh->positions;
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        p[i] = (float)(((double)p[i] - offset[i % 3]) * *scale);
    ds_mesh_compute_bounds(mesh);
    return 1;
}

static ds_status compute_normals(ds_mesh *mesh)
{
    size_t n = mesh->vertex_count;
    /* Sums in double: a vertex shared by thousands of faces of a large scan
     * must not lose the small ones to rounding. A point cloud has nothing
     * to sum (every normal is +Y): it skips the 24 bytes per vertex. */
    double *sums = calloc(n && mesh->triangle_count ? 3 * n : 1, sizeof *sums);
    float *normals = malloc((n ? 3 * n : 1) * sizeof *normals);
    if (!sums || !normals) {
        free(sums);
        free(normals);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "mesh: out of memory for the normals of %zu vertices", n);
    }
    const float *p = mesh->positions;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * t;
        /* Loaders validate indices; staying in bounds here costs nothing. */
        if (tri[0] >= n || tri[1] >= n || tri[2] >= n)
            continue;
        const float *a = p + 3 * (size_t)tri[0];
        const float *b = p + 3 * (size_t)tri[1];
        const float *c = p + 3 * (size_t)tri[2];
        double e1[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
        double e2[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
        double cross[3] = {e1[1] * e2[2] - e1[2] * e2[1],
                           e1[2] * e2[0] - e1[0] * e2[2],
                           e1[0] * e2[1] - e1[1] * e2[0]};
        for (int corner = 0; corner < 3; corner++) {
            double *s = sums + 3 * (size_t)tri[corner];
            s[0] += cross[0];
            s[1] += cross[1];
            s[2] += cross[2];
        }
    }
    for (size_t v = 0; v < n; v++) {
        static const double none[3] = {0.0, 0.0, 0.0};
        const double *s = mesh->triangle_count ? sums + 3 * v : none;
        double length_sq = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
        float *out = normals + 3 * v;
        if (length_sq > MIN_NORMAL_LENGTH_SQ && isfinite(length_sq)) {
            double inv = 1.0 / sqrt(length_sq);
            out[0] = (float)(s[0] * inv);
            out[1] = (float)(s[1] * inv);
            out[2] = (float)(s[2] * inv);
        } else {
            out[0] = 0.0f;
            out[1] = 1.0f;
            out[2] = 0.0f;
        }
    }
    free(sums);
    mesh->normals = normals;
    return DS_OK;
}

/* Given normals (a file's, a scene's, a grid's copy) within this distance of
 * unit squared length are kept bit for bit; float rounding of a normalised
 * vector stays far inside it. */
#define UNIT_LENGTH_SQ_TOLERANCE 1e-5

/* Makes given normals unit length, as mesh.h promises: others are scaled;
 * zero and non-finite ones (every 3D Gaussian-splat PLY writes
 * nx = ny = nz = 0) are replaced by the area-weighted normal of the faces
 * around the vertex, or +Y without faces, as compute_normals() gives. */
static ds_status repair_normals(ds_mesh *mesh)
{
    size_t unusable = 0;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        float *n = mesh->normals + 3 * v;
        /* In double: float components near FLT_MAX must not overflow. */
        double length_sq = (double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2];
        if (fabs(length_sq - 1.0) <= UNIT_LENGTH_SQ_TOLERANCE)
            continue;
        if (length_sq > MIN_NORMAL_LENGTH_SQ && isfinite(length_sq)) {
            double inv = 1.0 / sqrt(length_sq);
            for (int k = 0; k < 3; k++)
                n[k] = (float)(n[k] * inv);
        } else if (mesh->triangle_count == 0) {
            n[0] = 0.0f; /* a point cloud: no faces to ask */
            n[1] = 1.0f;
            n[2] = 0.0f;
        } else {
            n[0] = n[1] = n[2] = NAN; /* replaced below */
            unusable++;
        }
    }
    if (unusable == 0)
        return DS_OK;
    ds_mesh faces = *mesh; /* the same positions and triangles, no normals */
    faces.normals = NULL;
    ds_status status = compute_normals(&faces);
    if (status != DS_OK)
        return status;
    for (size_t v = 0; v < mesh->vertex_count; v++)
        if (isnan(mesh->normals[3 * v]))
            memcpy(mesh->normals + 3 * v, faces.normals + 3 * v, 3 * sizeof(float));
    free(faces.normals);
    return DS_OK;
}

static uint8_t unit_to_byte(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x >= 1.0f)
        return 255;
    return (uint8_t)(x * 255.0f + 0.5f);
}

/* A blue → cyan → green → yellow → red ramp over t in [0, 1]. */
static void height_ramp(float t, uint8_t rgb[3])
{
    static const float stops[5][3] = {
        {0.15f, 0.25f, 0.90f}, {0.10f, 0.80f, 0.90f}, {0.20f, 0.85f, 0.30f},
        {0.95f, 0.85f, 0.20f}, {0.90f, 0.20f, 0.15f},
    };
    if (!(t > 0.0f))
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    float x = t * 4.0f;
    int i = (int)x;
    if (i > 3)
        i = 3;
    float f = x - (float)i;
    for (int k = 0; k < 3; k++)
        rgb[k] = unit_to_byte(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
}

/* Triangle meshes: the normal mapped to RGB (reads well under any view).
 * Point clouds: height along Y, since scan normals are often noisy. */
static ds_status compute_colors(ds_mesh *mesh)
{
    size_t n = mesh->vertex_count;
    uint8_t *colors = malloc(n ? 4 * n : 1);
    if (!colors)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "mesh: out of memory for the colours of %zu vertices", n);
    if (mesh->triangle_count > 0) {
        for (size_t v = 0; v < n; v++) {
            const float *nrm = mesh->normals + 3 * v;
            uint8_t *c = colors + 4 * v;
            for (int k = 0; k < 3; k++)
                c[k] = unit_to_byte(0.5f + 0.5f * nrm[k]);
            c[3] = 255;
        }
    } else {
        float lo = mesh->bounds_min[1];
        float span = mesh->bounds_max[1] - lo;
        float inv = span > 0.0f ? 1.0f / span : 0.0f;
        for (size_t v = 0; v < n; v++) {
            uint8_t *c = colors + 4 * v;
            height_ramp((mesh->positions[3 * v + 1] - lo) * inv, c);
            c[3] = 255;
        }
    }
    mesh->colors = colors;
    return DS_OK;
}

ds_status ds_mesh_finish(ds_mesh *mesh)
{
    ds_mesh_compute_bounds(mesh);
    ds_status status = mesh->normals ? repair_normals(mesh) : compute_normals(mesh);
    if (status != DS_OK)
        return status;
    if (!mesh->colors)
        return compute_colors(mesh);
    return DS_OK;
}

static void *alloc_array(size_t count, size_t element_size)
{
    return malloc(count ? count * element_size : 1);
}

ds_status ds_mesh_grid(const ds_mesh *src, int nx, int ny, ds_mesh *dest)
{
    memset(dest, 0, sizeof *dest);
    if (nx < 1 || ny < 1)
        return ds_fail(DS_ERR_INVALID_ARG, "grid: %dx%d has an empty side", nx, ny);
    size_t cells = (size_t)nx * (size_t)ny;
    size_t nv = src->vertex_count, nt = src->triangle_count;
    if ((nv && cells > DS_MESH_MAX_ELEMENTS / nv) || (nt && cells > DS_MESH_MAX_ELEMENTS / nt))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "grid: %dx%d copies of %zu vertices and %zu triangles exceed %u elements",
                       nx, ny, nv, nt, DS_MESH_MAX_ELEMENTS);

    /* Bounds from the positions, not the fields, so an unfinished src works. */
    ds_mesh measured = *src;
    ds_mesh_compute_bounds(&measured);
    float extent_x = measured.bounds_max[0] - measured.bounds_min[0];
    float extent_z = measured.bounds_max[2] - measured.bounds_min[2];
    float margin = GRID_MARGIN_FRACTION * fmaxf(extent_x, extent_z);
    if (!(margin > 0.0f))
        margin = 1.0f; /* a single point or a vertical segment */
    float step_x = extent_x + margin, step_z = extent_z + margin;

    dest->has_colors = src->has_colors;
    dest->format = src->format;
    dest->vertex_count = cells * nv;
    dest->triangle_count = cells * nt;
    dest->positions = alloc_array(3 * dest->vertex_count, sizeof(float));
    dest->indices = alloc_array(3 * dest->triangle_count, sizeof(uint32_t));
    if (src->normals)
        dest->normals = alloc_array(3 * dest->vertex_count, sizeof(float));
    if (src->colors)
        dest->colors = alloc_array(4 * dest->vertex_count, 1);
    if (!dest->positions || !dest->indices || (src->normals && !dest->normals) ||
        (src->colors && !dest->colors)) {
        ds_fail(DS_ERR_OUT_OF_MEMORY, "grid: out of memory for %zu vertices and %zu triangles",
                dest->vertex_count, dest->triangle_count);
        ds_mesh_free(dest);
        return DS_ERR_OUT_OF_MEMORY;
    }

    /* The grid is centred on the source's centre, so framing stays sensible. */
    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            size_t cell = (size_t)j * (size_t)nx + (size_t)i;
            float dx = ((float)i - 0.5f * (float)(nx - 1)) * step_x;
            float dz = ((float)j - 0.5f * (float)(ny - 1)) * step_z;
            float *pos = dest->positions + 3 * nv * cell;
            for (size_t v = 0; v < nv; v++) {
                pos[3 * v + 0] = src->positions[3 * v + 0] + dx;
                pos[3 * v + 1] = src->positions[3 * v + 1];
                pos[3 * v + 2] = src->positions[3 * v + 2] + dz;
            }
            if (src->normals)
                memcpy(dest->normals + 3 * nv * cell, src->normals, 3 * nv * sizeof(float));
            if (src->colors)
                memcpy(dest->colors + 4 * nv * cell, src->colors, 4 * nv);
            uint32_t base = (uint32_t)(nv * cell); /* < DS_MESH_MAX_ELEMENTS, checked above */
            uint32_t *idx = dest->indices + 3 * nt * cell;
            for (size_t k = 0; k < 3 * nt; k++)
                idx[k] = src->indices[k] + base;
        }
    }
    ds_status status = ds_mesh_finish(dest);
    if (status != DS_OK)
        ds_mesh_free(dest);
    return status;
}

static const char *const up_names[DS_UP_COUNT] = {
    [DS_UP_POS_Y] = "+y", [DS_UP_NEG_Y] = "-y", [DS_UP_POS_Z] = "+z",
    [DS_UP_NEG_Z] = "-z", [DS_UP_POS_X] = "+x", [DS_UP_NEG_X] = "-x",
};

const char *ds_up_axis_name(ds_up_axis up)
{
    return (unsigned)up < DS_UP_COUNT ? up_names[up] : "unknown";
}

ds_up_axis ds_up_axis_from_name(const char *name)
{
    if (!name)
        return DS_UP_COUNT;
    for (int u = 0; u < DS_UP_COUNT; u++)
        if (!strcmp(name, up_names[u]) || !strcmp(name, up_names[u] + (up_names[u][0] == '+')))
            return (ds_up_axis)u;
    return DS_UP_COUNT;
}

/* The rotation as a signed permutation: new[k] = sign[k] * old[from[k]].
 * Each takes the named axis to +Y and keeps the determinant +1. */
static void turn(float *v, const int from[3], const float sign[3])
{
    float old[3] = {v[0], v[1], v[2]};
    for (int k = 0; k < 3; k++)
        v[k] = sign[k] * old[from[k]];
}

void ds_mesh_set_up(ds_mesh *mesh, ds_up_axis up)
{
    /* (x, y, z) -> new coordinates, up axis -> +Y:
     *   +z: (x, z, -y)   -z: (x, -z, y)   -y: (x, -y, -z)
     *   +x: (-y, x, z)   -x: (y, -x, z) */
    static const int from[DS_UP_COUNT][3] = {
        [DS_UP_POS_Y] = {0, 1, 2}, [DS_UP_NEG_Y] = {0, 1, 2}, [DS_UP_POS_Z] = {0, 2, 1},
        [DS_UP_NEG_Z] = {0, 2, 1}, [DS_UP_POS_X] = {1, 0, 2}, [DS_UP_NEG_X] = {1, 0, 2},
    };
    static const float sign[DS_UP_COUNT][3] = {
        [DS_UP_POS_Y] = {1, 1, 1},  [DS_UP_NEG_Y] = {1, -1, -1}, [DS_UP_POS_Z] = {1, 1, -1},
        [DS_UP_NEG_Z] = {1, -1, 1}, [DS_UP_POS_X] = {-1, 1, 1},  [DS_UP_NEG_X] = {1, -1, 1},
    };
    if ((unsigned)up >= DS_UP_COUNT || up == DS_UP_POS_Y || !mesh)
        return;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        turn(mesh->positions + 3 * v, from[up], sign[up]);
        if (mesh->normals)
            turn(mesh->normals + 3 * v, from[up], sign[up]);
    }
    ds_mesh_compute_bounds(mesh);
}
