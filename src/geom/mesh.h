/* SPDX-License-Identifier: MIT */
/* mesh.h — the host-memory triangle mesh (or point cloud) that loaders and
 * scene generators produce and the renderer uploads. Knows nothing of GL or
 * CUDA.
 *
 * Ownership: a ds_mesh owns its arrays (malloc); ds_mesh_free() releases
 * them and zeroes the struct. A zero-initialised ds_mesh is empty and valid
 * to free.
 */
#ifndef DS_MESH_H
#define DS_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest vertex or triangle count we accept (indices are uint32). */
#define DS_MESH_MAX_ELEMENTS 0xFFFFFFF0u

typedef struct ds_mesh {
    size_t vertex_count;
    size_t triangle_count; /* 0: a point cloud */
    float *positions;      /* 3 * vertex_count, xyz */
    float *normals;        /* 3 * vertex_count, unit length; never NULL after
                              ds_mesh_finish() */
    uint8_t *colors;       /* 4 * vertex_count, rgba8; never NULL after
                              ds_mesh_finish() */
    uint32_t *indices;     /* 3 * triangle_count, counter-clockwise */
    float bounds_min[3];
    float bounds_max[3];
    float center[3];       /* centre of the bounds */
    float radius;          /* half the bounds' diagonal */
    int has_colors;        /* nonzero: colors came from the file or the
                              scene generator, not from ds_mesh_finish() */
    const char *format;    /* what the data came from, a static string:
                              "ply-ascii", "ply-binary-le", "ply-binary-be",
                              "obj", "scene"; NULL if unknown */
} ds_mesh;

/* Which model axis points up. Loaders keep the file's coordinates; the
 * camera and the height colour ramp take +Y as up, so a Z-up scan is
 * turned with ds_mesh_set_up(). */
typedef enum ds_up_axis {
    DS_UP_POS_Y = 0,
    DS_UP_NEG_Y,
    DS_UP_POS_Z,
    DS_UP_NEG_Z,
    DS_UP_POS_X,
    DS_UP_NEG_X,
    DS_UP_COUNT
} ds_up_axis;

/* "+y", "-y", "+z", "-z", "+x", "-x"; "unknown" for others. */
const char *ds_up_axis_name(ds_up_axis up);
/* Reads those names, also without the "+"; DS_UP_COUNT if unknown. */
ds_up_axis ds_up_axis_from_name(const char *name);

/* Turns the mesh by a proper rotation (no mirror) that takes the `up`
 * axis to +Y, positions and normals alike, and recomputes the bounds.
 * Each rotation is an axis permutation with sign flips: exact, no
 * rounding. DS_UP_POS_Y (and anything unknown) leaves the mesh as it is. */
void ds_mesh_set_up(ds_mesh *mesh, ds_up_axis up);

void ds_mesh_free(ds_mesh *mesh);

/* Completes a mesh after loading or generation: bounds, centre, radius;
 * area-weighted vertex normals when normals is NULL; a default colour from
 * the normal when colors is NULL. Errors: DS_ERR_OUT_OF_MEMORY. */
ds_status ds_mesh_finish(ds_mesh *mesh);

/* Recomputes bounds, centre and radius only. */
void ds_mesh_compute_bounds(ds_mesh *mesh);

/* The coordinates the orbit camera's float arithmetic holds. It frames a
 * model from about 2.7 radii away and sets near and far around it; the
 * projection multiplies near by far (about 6 r^2) and the keys square
 * distances of up to about 4 r, so r^2 must stay far inside float's range
 * (1e-38 to 3e38) on both sides; and the eye, a few radii from the centre,
 * must differ from it in float, so the centre may be at most about 2^20
 * radii from the origin (float holds 24 bits). */
#define DS_MESH_MAX_RADIUS 1e16
#define DS_MESH_MIN_RADIUS 1e-15
#define DS_MESH_MAX_CENTER_RADII 1048576.0

/* Brings a mesh whose radius or centre lies outside those bounds into
 * them: positions become (p - offset) * scale, computed in double, where
 * offset is the old centre when it was out of bounds (else zero) and scale
 * is 1 / radius when the radius was (else 1); bounds are recomputed and
 * normals kept (the scale is uniform). Returns 1 when it moved or scaled
 * the mesh, with offset and *scale set for the caller's message; 0 and no
 * change otherwise. */
int ds_mesh_fit_range(ds_mesh *mesh, double offset[3], double *scale);

/* Replicates `src` on an nx × ny grid in the XZ plane, spaced by its bounds
 * plus a margin, into a new finished mesh in *dest. Errors:
 * DS_ERR_TOO_LARGE when the result exceeds DS_MESH_MAX_ELEMENTS,
 * DS_ERR_OUT_OF_MEMORY, DS_ERR_INVALID_ARG (nx or ny < 1). */
ds_status ds_mesh_grid(const ds_mesh *src, int nx, int ny, ds_mesh *dest);

#ifdef __cplusplus
}
#endif
#endif
