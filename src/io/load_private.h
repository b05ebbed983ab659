/* SPDX-License-Identifier: MIT */
/* load_private.h — loader entry points that stop before ds_mesh_finish(),
 * so that the load benchmark can time parsing alone, and the checks both
 * parsers share. Not part of the API: only src/io/ply.c, src/io/obj.c,
 * src/io/load.c and bench/bench_load.c include it.
 *
 * Same contract as ds_load_ply_memory / ds_load_obj_memory, except that
 * normals and colours stay NULL when the file has none and bounds are not
 * computed. *dest is zeroed first and left empty on failure.
 */
#ifndef DS_LOAD_PRIVATE_H
#define DS_LOAD_PRIVATE_H

#include <stddef.h>
#include <string.h>

#include "load.h"
#include "mesh.h"

ds_status ds_parse_ply(const void *data, size_t size, const char *name, const ds_load_budget *budget,
                       ds_mesh *dest);
ds_status ds_parse_obj(const void *data, size_t size, const char *name, const ds_load_budget *budget,
                       ds_mesh *dest);

/* A PLY header must end within this many bytes from the file's start
 * (real ones take a few hundred), so that a large file which is not a PLY
 * fails on its first bytes; ds_load_mesh reads this much before the rest. */
#define LOAD_HEADER_BYTES (64 * 1024)

/* The PLY header of a file of `file_size` bytes whose first
 * min(file_size, LOAD_HEADER_BYTES) bytes are at `data`: parsed and its
 * counts checked against the body's size and the budget, before the body
 * is read. The same errors as ds_parse_ply gives for the header. */
ds_status ds_check_ply_header(const void *data, size_t file_size, const char *name,
                              const ds_load_budget *budget);

/* Host bytes of a finished mesh per vertex (position, normal, colour) and
 * per triangle (three uint32 indices), and what ds_mesh_finish() holds
 * besides while it computes normals (double sums). */
#define LOAD_MESH_BYTES_PER_VERTEX 28u
#define LOAD_MESH_BYTES_PER_TRIANGLE 12u
#define LOAD_FINISH_BYTES_PER_VERTEX 24u

/* Checks what a mesh of these counts will cost against `budget` (NULL: the
 * default) before a parser allocates it; `held_bytes` is what the load
 * holds beside the mesh while parsing and frees before ds_mesh_finish():
 * the file's buffer when the check comes before the file is read, an OBJ's
 * normal list. Logs one line naming the estimate and the limit
 * (DS_ERR_TOO_LARGE) or returns what budget->check returned. */
ds_status ds_load_check_budget(const ds_load_budget *budget, const char *name, uint64_t vertices,
                               uint64_t triangles, uint64_t held_bytes);

/* A UTF-8 byte order mark: OBJ skips it, PLY names it in its error. */
static inline int starts_with_bom(const void *data, size_t size)
{
    return size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0;
}

/* Offset of the first byte that no text file holds (a control character
 * other than tab, line feed, vertical tab, form feed and carriage return),
 * or `size` when there is none. Blocks of 64 bytes are tested without
 * branches so that the compiler can vectorise the scan. */
static inline size_t first_non_text_byte(const void *data, size_t size)
{
    const unsigned char *bytes = data;
    size_t at = 0;
    for (; at + 64 <= size; at += 64) {
        unsigned bad = 0;
        for (int i = 0; i < 64; i++) {
            unsigned char c = bytes[at + i];
            bad |= (unsigned)(c < 0x20) & (unsigned)(c < 0x09 || c > 0x0D);
        }
        if (bad)
            break;
    }
    for (; at < size; at++) {
        unsigned char c = bytes[at];
        if (c < 0x20 && (c < 0x09 || c > 0x0D))
            return at;
    }
    return size;
}

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
