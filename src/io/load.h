/* load.h — Stanford PLY and Wavefront OBJ loaders into a ds_mesh.
 *
 * Every loader returns a finished mesh (ds_mesh_finish) or a status after
 * logging one line "<name>: line N: ..." or "<name>: byte N: ..." naming
 * what is wrong. Never reads outside the given bytes, never asserts on input.
 * NaN/Inf coordinates are rejected (DS_ERR_PARSE) with the vertex named, and
 * so are finite values beyond float's range, with the value named.
 *
 * A loaded mesh says what it came from: `format` is "ply-ascii",
 * "ply-binary-le", "ply-binary-be" or "obj", the encoding the loader
 * parsed; `has_colors` is 1 when the file gave vertex colours (PLY red
 * green blue [alpha] of any type, OBJ `v x y z r g b`). File normals come
 * out unit length, zero ones recomputed from the faces (ds_mesh_finish).
 */
#ifndef DS_LOAD_H
#define DS_LOAD_H

#include <stddef.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads a file by content: PLY if it starts with "ply", else OBJ when the
 * name ends in .obj (any case); otherwise DS_ERR_PARSE. Memory-maps the
 * file. Errors: DS_ERR_IO, DS_ERR_PARSE, DS_ERR_TOO_LARGE,
 * DS_ERR_OUT_OF_MEMORY. */
ds_status ds_load_mesh(const char *path, ds_mesh *dest);

/* Parses a PLY or OBJ held in memory; `name` is used in error messages. */
ds_status ds_load_ply_memory(const void *data, size_t size, const char *name,
                             ds_mesh *dest);
ds_status ds_load_obj_memory(const void *data, size_t size, const char *name,
                             ds_mesh *dest);

#ifdef __cplusplus
}
#endif
#endif
