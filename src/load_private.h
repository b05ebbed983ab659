/* load_private.h — loader entry points that stop before ds_mesh_finish(),
 * so that the load benchmark can time parsing alone. Not part of the API:
 * only src/ply.c, src/obj.c, src/load.c and bench/bench_load.c include it.
 *
 * Same contract as ds_load_ply_memory / ds_load_obj_memory, except that
 * normals and colours stay NULL when the file has none and bounds are not
 * computed. *dest is zeroed first and left empty on failure.
 */
#ifndef DS_LOAD_PRIVATE_H
#define DS_LOAD_PRIVATE_H

#include <stddef.h>

#include "mesh.h"

ds_status ds_parse_ply(const void *data, size_t size, const char *name, ds_mesh *dest);
ds_status ds_parse_obj(const void *data, size_t size, const char *name, ds_mesh *dest);

#endif
