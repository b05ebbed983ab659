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
#include <string.h>

#include "mesh.h"

ds_status ds_parse_ply(const void *data, size_t size, const char *name, ds_mesh *dest);
ds_status ds_parse_obj(const void *data, size_t size, const char *name, ds_mesh *dest);

/* The start of that contract, shared by both parsers: refuses a NULL dest
 * (the message names `parser`), zeroes *dest, names unnamed data
 * "(memory)" in *name, and refuses missing data and an empty file. */
static inline ds_status begin_parse(const char *parser, const void *data, size_t size, const char **name,
                                    ds_mesh *dest)
{
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "%s: dest is NULL", parser);
    memset(dest, 0, sizeof *dest);
    if (!*name)
        *name = "(memory)";
    if (!data && size > 0)
        return ds_fail(DS_ERR_INVALID_ARG, "%s: no data", *name);
    if (size == 0)
        return ds_fail(DS_ERR_PARSE, "%s: empty file", *name);
    return DS_OK;
}

#endif
