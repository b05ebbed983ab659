/* SPDX-License-Identifier: MIT */
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
 *
 * A leading UTF-8 byte order mark is skipped in an OBJ; a PLY must start
 * with its magic, and the error names a mark found there instead.
 */
#ifndef DS_LOAD_H
#define DS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a load may cost, checked before the mesh's arrays are allocated:
 * from the PLY header's counts (and again when face lists make more
 * triangles than the header's face count), or from the OBJ counting pass.
 * A zero-initialised budget checks the loader's own host bytes against
 * ds_host_memory_available().
 *
 * `check`, when set, is called with the counts and the loader's host-byte
 * estimate for the finished mesh, so that the caller can add its own costs
 * (copies for a grid, a renderer's buffers); it returns DS_OK or a status
 * after logging one line. */
typedef struct ds_load_budget {
    uint64_t host_bytes; /* the limit; 0: ds_host_memory_available() */
    ds_status (*check)(void *context, const char *name, uint64_t vertices,
                       uint64_t triangles, uint64_t mesh_bytes);
    void *context;
} ds_load_budget;

/* Loads a file by content: PLY if it starts with "ply", else OBJ when the
 * name ends in .obj (any case); otherwise DS_ERR_PARSE.
 *
 * The path is checked before it is opened: a FIFO, a device, a socket, a
 * directory or a procfs/sysfs file is refused with a line saying which,
 * never waited on. The file is read into memory the loader owns (no
 * mapping), so a file that shrinks or changes while it is read gives one
 * error line, never a signal; the buffer is freed before the mesh is
 * finished, so the peak is the file plus the parsed arrays. An OBJ is
 * refused at the first bytes that cannot be text, as they are read.
 * Errors: DS_ERR_IO, DS_ERR_PARSE, DS_ERR_TOO_LARGE (counts, or the
 * memory estimate over the budget), DS_ERR_OUT_OF_MEMORY, or what
 * budget->check returned. */
ds_status ds_load_mesh(const char *path, ds_mesh *dest);
ds_status ds_load_mesh_budget(const char *path, const ds_load_budget *budget,
                              ds_mesh *dest);

/* "procfs" or "sysfs" when the open file `fd` lives on one (its size and
 * contents are made as they are read: never a model or a camera file),
 * else NULL. */
const char *ds_pseudo_file_system(int fd);

/* Parses a PLY or OBJ held in memory; `name` is used in error messages.
 * The default budget applies (the counts' host bytes against available
 * memory). */
ds_status ds_load_ply_memory(const void *data, size_t size, const char *name,
                             ds_mesh *dest);
ds_status ds_load_obj_memory(const void *data, size_t size, const char *name,
                             ds_mesh *dest);

#ifdef __cplusplus
}
#endif
#endif
