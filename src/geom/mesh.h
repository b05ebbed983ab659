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
} ds_mesh;

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
