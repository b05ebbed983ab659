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

/* Replicates `src` on an nx × ny grid in the XZ plane, spaced by its bounds
 * plus a margin, into a new finished mesh in *dest. Errors:
 * DS_ERR_TOO_LARGE when the result exceeds DS_MESH_MAX_ELEMENTS,
 * DS_ERR_OUT_OF_MEMORY, DS_ERR_INVALID_ARG (nx or ny < 1). */
ds_status ds_mesh_grid(const ds_mesh *src, int nx, int ny, ds_mesh *dest);

#ifdef __cplusplus
}
#endif
#endif
