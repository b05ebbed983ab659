/* SPDX-License-Identifier: MIT */
/* ply.c — Stanford PLY loader (ascii, binary_little_endian,
 * binary_big_endian) into a ds_mesh.
 *
 * The format (Greg Turk, "The PLY Polygon File Format", 1994): a text header
 * of `element NAME COUNT` lines, each followed by its `property TYPE NAME` or
 * `property list COUNT_TYPE ITEM_TYPE NAME` lines, ended by `end_header`;
 * then the elements' items in header order, one item per line (ascii) or
 * packed without padding (binary).
 *
 * What is used: `vertex` x y z (required), nx ny nz and red green blue
 * [alpha] when all of a group is present; `face` vertex_indices (or
 * vertex_index) lists, fan-triangulated; `tristrips` vertex_indices lists,
 * converted to triangles with -1 restarting a strip and degenerate joints
 * dropped. Every other property and element is skipped. Integer colours are
 * taken as 0..255 (clamped), floating-point colours as 0..1. Normals are
 * stored as the file has them; ds_mesh_finish() makes them unit length and
 * recomputes zero ones (3D Gaussian-splat files write nx = ny = nz = 0).
 * The mesh's `format` names the encoding ("ply-ascii", "ply-binary-le",
 * "ply-binary-be") and `has_colors` whether the vertices had a colour group.
 *
 * Safety: the first line must be "ply" (checked on the first bytes) and the
 * header must end within MAX_HEADER_BYTES, so a large file of anything else
 * fails at once. Element counts are checked against the bytes that follow the
 * header before anything is allocated (each ascii value needs at least two
 * bytes, each binary item its fixed part), so a count of 4294967295 in a
 * tiny file fails at once. Every read is bounds-checked; errors name the
 * header line, body line (ascii) or byte offset (binary).
 *
 * The ascii body is read strictly one item per line: a line with too few or
 * too many values is an error rather than silently shifting every later
 * value. Blank lines between items are tolerated; trailing data after the
 * last element is ignored.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "load_private.h"
#include "parse_util.h"

/* Header limits: generous for real files, small enough that a fuzzed header
 * cannot make the parser allocate much, and (MAX_HEADER_BYTES) that a large
 * file which is not a PLY fails on its first bytes instead of being read to
 * its end in search of a newline. Real headers take a few hundred bytes. */
#define MAX_ELEMENTS 64
#define MAX_PROPERTIES 512
#define MAX_HEADER_BYTES LOAD_HEADER_BYTES

/* Minimum bytes an ascii value takes: one character and a separator. */
#define ASCII_MIN_VALUE_BYTES 2

typedef enum scalar_type {
    TYPE_INT8,
    TYPE_UINT8,
    TYPE_INT16,
    TYPE_UINT16,
    TYPE_INT32,
    TYPE_UINT32,
    TYPE_FLOAT32,
    TYPE_FLOAT64,
} scalar_type;

static const struct {
    const char *name;
    scalar_type type;
} type_names[] = {
    {"char", TYPE_INT8},      {"int8", TYPE_INT8},       {"uchar", TYPE_UINT8},
    {"uint8", TYPE_UINT8},    {"short", TYPE_INT16},     {"int16", TYPE_INT16},
    {"ushort", TYPE_UINT16},  {"uint16", TYPE_UINT16},   {"int", TYPE_INT32},
    {"int32", TYPE_INT32},    {"uint", TYPE_UINT32},     {"uint32", TYPE_UINT32},
    {"float", TYPE_FLOAT32},  {"float32", TYPE_FLOAT32}, {"double", TYPE_FLOAT64},
    {"float64", TYPE_FLOAT64},
};

static const size_t type_size[] = {1, 1, 2, 2, 4, 4, 4, 8};
static const char *const type_label[] = {"char", "uchar", "short", "ushort",
                                         "int",  "uint",  "float", "double"};
static const int64_t type_min[] = {INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0, 0, 0};
static const int64_t type_max[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX,
                                   INT32_MAX, UINT32_MAX, 0, 0};

static bool is_float_type(scalar_type type) { return type == TYPE_FLOAT32 || type == TYPE_FLOAT64; }

/* What a property feeds in the mesh. */
typedef enum property_role {
    ROLE_SKIP,
    ROLE_X,
    ROLE_Y,
    ROLE_Z,
    ROLE_NX,
    ROLE_NY,
    ROLE_NZ,
    ROLE_RED,
    ROLE_GREEN,
    ROLE_BLUE,
    ROLE_ALPHA,
    ROLE_INDICES,
    ROLE_COUNT
} property_role;

static const char *const vertex_role_names[ROLE_INDICES] = {
    [ROLE_X] = "x",     [ROLE_Y] = "y",         [ROLE_Z] = "z",       [ROLE_NX] = "nx",
    [ROLE_NY] = "ny",   [ROLE_NZ] = "nz",       [ROLE_RED] = "red",   [ROLE_GREEN] = "green",
    [ROLE_BLUE] = "blue", [ROLE_ALPHA] = "alpha",
};

typedef struct ply_property {
    const char *name;
    size_t name_length;
    bool is_list;
    scalar_type count_type; /* lists only */
    scalar_type type;       /* the value, or each list item */
    property_role role;
} ply_property;

typedef enum element_kind { ELEMENT_OTHER, ELEMENT_VERTEX, ELEMENT_FACE, ELEMENT_TRISTRIPS } element_kind;

typedef struct ply_element {
    const char *name;
    size_t name_length;
    uint64_t count;
    size_t line; /* header line, for messages */
    element_kind kind;
    size_t first_property;
    size_t property_count;
} ply_element;

typedef enum ply_format { FORMAT_ASCII, FORMAT_BINARY_LE, FORMAT_BINARY_BE } ply_format;

typedef struct ply_header {
    ply_format format;
    size_t element_count;
    size_t property_count;
    ply_element elements[MAX_ELEMENTS];
    ply_property properties[MAX_PROPERTIES];
} ply_header;

typedef struct ply_parser {
    const char *name;
    const char *data; /* the whole file */
    const char *p;    /* cursor in the body */
    const char *end;
    size_t line; /* ascii: line number of p */
    bool swap;   /* binary: file byte order differs from the host's */
    ply_header *header;
    ds_mesh *mesh;
    const ds_load_budget *budget;
    uint64_t header_triangles; /* the face count, checked against the budget */
    size_t element_first_triangle; /* the mesh's triangles before the current element */
    size_t triangle_capacity;
    /* The last position or normal value that was finite but beyond float's
     * range; it narrows to infinity, so it is only read when the vertex that
     * holds it fails its finiteness check. */
    bool beyond_float;
    property_role beyond_role;
    double beyond_value;
} ply_parser;

/* ---- header --------------------------------------------------------------- */

/* Next blank-separated word of [*p, end); false when none is left. */
static bool next_word(const char **p, const char *end, const char **word, size_t *length)
{
    const char *s = *p;
    while (s < end && is_blank(*s))
        s++;
    if (s == end) {
        *p = s;
        return false;
    }
    const char *w = s;
    while (s < end && !is_blank(*s))
        s++;
    *word = w;
    *length = (size_t)(s - w);
    *p = s;
    return true;
}

static bool word_is(const char *word, size_t length, const char *literal)
{
    return strlen(literal) == length && memcmp(word, literal, length) == 0;
}

static bool lookup_type(const char *word, size_t length, scalar_type *dest)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (word_is(word, length, type_names[i].name)) {
            *dest = type_names[i].type;
            return true;
        }
    }
    return false;
}

/* Prints at most this many characters of a header word in messages. */
#define WORD_PREVIEW 40
#define PREVIEW(length) ((int)((length) < WORD_PREVIEW ? (length) : WORD_PREVIEW))

static ds_status parse_property_line(ply_parser *ps, const char *s, const char *line_end,
                                     size_t line)
{
    ply_header *h = ps->header;
    if (h->element_count == 0)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: property before any element", ps->name, line);
    if (h->property_count == MAX_PROPERTIES)
        return ds_fail(DS_ERR_TOO_LARGE, "%s: line %zu: more than %d properties", ps->name, line,
                       MAX_PROPERTIES);
    ply_property *prop = &h->properties[h->property_count];
    memset(prop, 0, sizeof *prop);
    const char *word;
    size_t length;
    if (!next_word(&s, line_end, &word, &length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: property without a type", ps->name, line);
    if (word_is(word, length, "list")) {
        prop->is_list = true;
        if (!next_word(&s, line_end, &word, &length))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: list property without a count type",
                           ps->name, line);
        if (!lookup_type(word, length, &prop->count_type))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: unknown type '%.*s'", ps->name, line,
                           PREVIEW(length), word);
        if (is_float_type(prop->count_type))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: list count type must be an integer type, not %s",
                           ps->name, line, type_label[prop->count_type]);
        if (!next_word(&s, line_end, &word, &length))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: list property without an item type",
                           ps->name, line);
    }
    if (!lookup_type(word, length, &prop->type))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: unknown type '%.*s'", ps->name, line,
                       PREVIEW(length), word);
    if (!next_word(&s, line_end, &prop->name, &prop->name_length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: property without a name", ps->name, line);
    if (next_word(&s, line_end, &word, &length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: unexpected '%.*s' after the property name",
                       ps->name, line, PREVIEW(length), word);
    h->property_count++;
    h->elements[h->element_count - 1].property_count++;
    return DS_OK;
}

static ds_status parse_element_line(ply_parser *ps, const char *s, const char *line_end,
                                    size_t line)
{
    ply_header *h = ps->header;
    if (h->element_count == MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "%s: line %zu: more than %d elements", ps->name, line,
                       MAX_ELEMENTS);
    ply_element *element = &h->elements[h->element_count];
    memset(element, 0, sizeof *element);
    const char *word;
    size_t length;
    if (!next_word(&s, line_end, &element->name, &element->name_length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: element without a name", ps->name, line);
    if (!next_word(&s, line_end, &word, &length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: element '%.*s' without a count", ps->name,
                       line, PREVIEW(element->name_length), element->name);
    int64_t count = 0;
    const char *after = parse_int(word, word + length, &count);
    if (!after || after != word + length || word[0] == '-' || word[0] == '+')
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: element count '%.*s' is not a non-negative integer",
                       ps->name, line, PREVIEW(length), word);
    if (next_word(&s, line_end, &word, &length))
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: unexpected '%.*s' after the element count",
                       ps->name, line, PREVIEW(length), word);
    element->count = (uint64_t)count;
    element->line = line;
    element->first_property = h->property_count;
    for (size_t e = 0; e < h->element_count; e++) {
        const ply_element *other = &h->elements[e];
        if (other->name_length == element->name_length &&
            memcmp(other->name, element->name, element->name_length) == 0 &&
            (word_is(element->name, element->name_length, "vertex") ||
             word_is(element->name, element->name_length, "face")))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: a second '%.*s' element", ps->name, line,
                           PREVIEW(element->name_length), element->name);
    }
    h->element_count++;
    return DS_OK;
}

/* The end of the header line that starts at s: its '\n', or NULL when the
 * file ends first. Never looks past MAX_HEADER_BYTES from the file's start;
 * *too_long says that the header went on beyond them. */
static const char *header_line_end(const ply_parser *ps, const char *s, bool *too_long)
{
    size_t limit = (size_t)(ps->end - ps->data);
    if (limit > MAX_HEADER_BYTES)
        limit = MAX_HEADER_BYTES;
    const char *stop = ps->data + limit;
    const char *line_end = s < stop ? memchr(s, '\n', (size_t)(stop - s)) : NULL;
    *too_long = !line_end && stop < ps->end;
    return line_end;
}

/* Reads the header; on success ps->p is the first body byte and ps->line
 * the first body line. The magic ("ply" then LF or CRLF) is checked on the
 * first five bytes before anything else, and no header line is looked for
 * past MAX_HEADER_BYTES, so any input fails or passes the header in time
 * independent of the file's size. */
static ds_status parse_header(ply_parser *ps)
{
    const char *s = ps->data;
    const char *end = ps->end;
    size_t size = (size_t)(end - s);
    size_t line = 1;
    bool have_format = false, too_long = false;
    if (starts_with_bom(s, size))
        return ds_fail(DS_ERR_PARSE, "%s: line 1: not a PLY file: it starts with a UTF-8 byte order "
                                     "mark (EF BB BF) before \"ply\"; the magic must be the first bytes "
                                     "(save the file without the mark)",
                       ps->name);
    if (size < 3 || memcmp(s, "ply", 3) != 0 ||
        (size > 3 && s[3] != '\n' && (s[3] != '\r' || (size > 4 && s[4] != '\n'))))
        return ds_fail(DS_ERR_PARSE, "%s: line 1: not a PLY file (the first line is not \"ply\")",
                       ps->name);
    const char *line_end = size > 3 && s[3] == '\n' ? s + 3 : size > 4 ? s + 4 : NULL;
    const char *content_end;
    for (;;) {
        if (!line_end)
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: the file ends inside the header (no end_header line)",
                           ps->name, line);
        s = line_end + 1;
        line++;
        line_end = header_line_end(ps, s, &too_long);
        if (too_long)
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: no end_header within the first %d bytes "
                                         "(the PLY header is limited to %d KiB)",
                           ps->name, line, MAX_HEADER_BYTES, MAX_HEADER_BYTES / 1024);
        content_end = line_end ? line_end : end;
        const char *cursor = s;
        const char *word;
        size_t length;
        if (!next_word(&cursor, content_end, &word, &length))
            continue; /* blank line */
        if (word_is(word, length, "comment") || word_is(word, length, "obj_info"))
            continue;
        ds_status status = DS_OK;
        if (word_is(word, length, "format")) {
            if (have_format)
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: a second format line", ps->name, line);
            if (!next_word(&cursor, content_end, &word, &length))
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: format line without a format", ps->name, line);
            if (word_is(word, length, "ascii"))
                ps->header->format = FORMAT_ASCII;
            else if (word_is(word, length, "binary_little_endian"))
                ps->header->format = FORMAT_BINARY_LE;
            else if (word_is(word, length, "binary_big_endian"))
                ps->header->format = FORMAT_BINARY_BE;
            else
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: unknown format '%.*s'", ps->name, line,
                               PREVIEW(length), word);
            if (!next_word(&cursor, content_end, &word, &length) || !word_is(word, length, "1.0"))
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: unsupported PLY version (expected 1.0)",
                               ps->name, line);
            have_format = true;
        } else if (word_is(word, length, "element")) {
            status = parse_element_line(ps, cursor, content_end, line);
        } else if (word_is(word, length, "property")) {
            status = parse_property_line(ps, cursor, content_end, line);
        } else if (word_is(word, length, "end_header")) {
            if (!have_format)
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: end_header before any format line",
                               ps->name, line);
            /* The body starts right after this line's '\n' (also after
             * "\r\n"); a header ending at EOF has an empty body. */
            ps->p = line_end ? line_end + 1 : end;
            ps->line = line + 1;
            return DS_OK;
        } else {
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: unknown header keyword '%.*s'%s", ps->name,
                           line, PREVIEW(length), word,
                           ps->header->element_count > 0 ? " (is end_header missing?)" : "");
        }
        if (status != DS_OK)
            return status;
    }
}

static property_role vertex_role(const ply_property *prop)
{
    static const struct {
        const char *name;
        property_role role;
    } names[] = {
        {"x", ROLE_X},          {"y", ROLE_Y},
        {"z", ROLE_Z},          {"nx", ROLE_NX},
        {"ny", ROLE_NY},        {"nz", ROLE_NZ},
        {"red", ROLE_RED},      {"green", ROLE_GREEN},
        {"blue", ROLE_BLUE},    {"alpha", ROLE_ALPHA},
        {"diffuse_red", ROLE_RED}, {"diffuse_green", ROLE_GREEN},
        {"diffuse_blue", ROLE_BLUE},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (word_is(prop->name, prop->name_length, names[i].name))
            return names[i].role;
    return ROLE_SKIP;
}

/* Assigns element kinds and property roles, checks the required ones and
 * checks every count against the bytes after the header. */
static ds_status resolve_header(ply_parser *ps, size_t *vertex_count, size_t *face_count,
                                bool *has_normals, bool *has_colors, bool *has_alpha)
{
    ply_header *h = ps->header;
    const ply_element *vertex = NULL;
    size_t body_bytes = (size_t)(ps->end - ps->p);
    uint64_t needed = 0; /* minimum body bytes for all elements so far */
    bool ascii = h->format == FORMAT_ASCII;
    *face_count = 0;
    for (size_t e = 0; e < h->element_count; e++) {
        ply_element *element = &h->elements[e];
        ply_property *props = &h->properties[element->first_property];
        int name_len = PREVIEW(element->name_length);
        if (word_is(element->name, element->name_length, "vertex"))
            element->kind = ELEMENT_VERTEX;
        else if (word_is(element->name, element->name_length, "face"))
            element->kind = ELEMENT_FACE;
        else if (word_is(element->name, element->name_length, "tristrips"))
            element->kind = ELEMENT_TRISTRIPS;
        else
            element->kind = ELEMENT_OTHER;

        bool seen[ROLE_COUNT] = {false};
        uint64_t item_bytes = 0;
        for (size_t i = 0; i < element->property_count; i++) {
            ply_property *prop = &props[i];
            prop->role = ROLE_SKIP;
            if (element->kind == ELEMENT_VERTEX) {
                prop->role = vertex_role(prop);
            } else if (element->kind != ELEMENT_OTHER &&
                       (word_is(prop->name, prop->name_length, "vertex_indices") ||
                        word_is(prop->name, prop->name_length, "vertex_index"))) {
                prop->role = ROLE_INDICES;
                if (!prop->is_list)
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: '%.*s' of element '%.*s' must be a list",
                                   ps->name, element->line, PREVIEW(prop->name_length), prop->name,
                                   name_len, element->name);
                if (is_float_type(prop->type))
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: vertex indices must have an integer type, not %s",
                                   ps->name, element->line, type_label[prop->type]);
            }
            if (prop->role != ROLE_SKIP) {
                if (seen[prop->role])
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: element '%.*s' has a second '%.*s' property",
                                   ps->name, element->line, name_len, element->name,
                                   PREVIEW(prop->name_length), prop->name);
                seen[prop->role] = true;
                if (prop->role != ROLE_INDICES && prop->is_list)
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: vertex property '%.*s' must be a scalar, not a list",
                                   ps->name, element->line, PREVIEW(prop->name_length), prop->name);
            }
            /* The smallest encoding of one item: faces need 3 indices. */
            uint64_t min_items = prop->role == ROLE_INDICES && element->kind == ELEMENT_FACE ? 3 : 0;
            if (ascii)
                item_bytes += ASCII_MIN_VALUE_BYTES * (1 + min_items);
            else if (prop->is_list)
                item_bytes += type_size[prop->count_type] + min_items * type_size[prop->type];
            else
                item_bytes += type_size[prop->type];
        }
        if (element->kind == ELEMENT_VERTEX) {
            vertex = element;
            for (int role = ROLE_X; role <= ROLE_Z; role++)
                if (!seen[role])
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: the vertex element has no '%s' property",
                                   ps->name, element->line, vertex_role_names[role]);
            *has_normals = seen[ROLE_NX] && seen[ROLE_NY] && seen[ROLE_NZ];
            *has_colors = seen[ROLE_RED] && seen[ROLE_GREEN] && seen[ROLE_BLUE];
            *has_alpha = *has_colors && seen[ROLE_ALPHA];
            /* A partial group is skipped as a whole. */
            for (size_t i = 0; i < element->property_count; i++) {
                property_role role = props[i].role;
                if ((!*has_normals && role >= ROLE_NX && role <= ROLE_NZ) ||
                    (!*has_colors && role >= ROLE_RED && role <= ROLE_ALPHA))
                    props[i].role = ROLE_SKIP;
            }
        } else if (element->kind != ELEMENT_OTHER && !seen[ROLE_INDICES] && element->count > 0) {
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: element '%.*s' has no vertex_indices list",
                           ps->name, element->line, name_len, element->name);
        }
        if (element->kind == ELEMENT_FACE)
            *face_count = element->count;

        if (element->count == 0)
            continue;
        if (item_bytes == 0)
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: element '%.*s' has %llu items but no properties",
                           ps->name, element->line, name_len, element->name,
                           (unsigned long long)element->count);
        /* An ascii file may omit the final newline: allow one byte less. */
        uint64_t available = body_bytes + (ascii ? 1 : 0);
        uint64_t left = available > needed ? available - needed : 0;
        if (element->count > left / item_bytes)
            return ds_fail(DS_ERR_PARSE,
                           "%s: line %zu: element '%.*s' declares %llu items, more than the %zu bytes after the header can hold",
                           ps->name, element->line, name_len, element->name,
                           (unsigned long long)element->count, body_bytes);
        needed += element->count * item_bytes;
    }
    if (!vertex)
        return ds_fail(DS_ERR_PARSE, "%s: the header has no vertex element", ps->name);
    if (vertex->count == 0)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: the file has no vertices", ps->name, vertex->line);
    if (vertex->count > DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "%s: line %zu: %llu vertices exceed the limit of %u",
                       ps->name, vertex->line, (unsigned long long)vertex->count, DS_MESH_MAX_ELEMENTS);
    *vertex_count = (size_t)vertex->count;
    if (*face_count > DS_MESH_MAX_ELEMENTS)
        *face_count = DS_MESH_MAX_ELEMENTS; /* only a capacity hint */
    return DS_OK;
}

/* ---- building the mesh ---------------------------------------------------- */

/* Makes room for `extra` more triangles, those of item `item` of an element
 * of `item_count` items, where the rest of the file, this item included,
 * can hold at most `most_left` (its corners); the first reservation comes
 * from the face count, so all-triangle files never grow. */
static ds_status reserve_triangles(ply_parser *ps, uint64_t extra, uint64_t item,
                                   uint64_t item_count, uint64_t most_left, const char *where,
                                   size_t at)
{
    ds_mesh *mesh = ps->mesh;
    uint64_t needed = (uint64_t)mesh->triangle_count + extra;
    if (needed <= ps->triangle_capacity)
        return DS_OK;
    if (needed > DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "%s: %s %zu: more than %u triangles", ps->name, where, at,
                       DS_MESH_MAX_ELEMENTS);
    /* What the element will hold if its remaining lists are as long as
     * those read so far (exact for the usual file whose lists all have one
     * length, which then grows once, to its size), within what the rest of
     * the file can hold. */
    double element_triangles = (double)(needed - ps->element_first_triangle);
    double expected = (double)needed + element_triangles / (double)(item + 1) *
                                           (double)(item_count > item ? item_count - item - 1 : 0);
    double most = (double)mesh->triangle_count + (double)most_left;
    if (expected > most)
        expected = most;
    if (expected > DS_MESH_MAX_ELEMENTS)
        expected = DS_MESH_MAX_ELEMENTS;
    uint64_t estimate = (uint64_t)expected > needed ? (uint64_t)expected : needed;
    uint64_t capacity = ps->triangle_capacity + ps->triangle_capacity / 2 + 64;
    if (capacity < estimate)
        capacity = estimate;
    if (capacity > DS_MESH_MAX_ELEMENTS)
        capacity = DS_MESH_MAX_ELEMENTS;
    /* Face lists longer than triangles (a uchar list of 255 corners is 253
     * triangles in 256 bytes) cost more than the header's face count said:
     * the budget is asked again before every growth, about the triangles
     * the file is expected to hold, not the capacity's headroom (its
     * untouched pages cost nothing, and the parse gives them back). */
    if (needed > ps->header_triangles) {
        ds_status status = ds_load_check_budget(ps->budget, ps->name, mesh->vertex_count, estimate, 0);
        if (status != DS_OK)
            return status;
    }
    uint32_t *indices = realloc(mesh->indices, (size_t)capacity * 3 * sizeof *indices);
    if (!indices)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for %llu triangles", ps->name,
                       (unsigned long long)capacity);
    mesh->indices = indices;
    ps->triangle_capacity = (size_t)capacity;
    return DS_OK;
}

static inline void emit_triangle(ds_mesh *mesh, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t *tri = mesh->indices + 3 * mesh->triangle_count++;
    tri[0] = a;
    tri[1] = b;
    tri[2] = c;
}

/* Colour channel from a file value: integers are 0..255, floats 0..1. */
static uint8_t color_byte(double value, scalar_type type)
{
    if (is_float_type(type))
        value *= 255.0;
    if (!(value > 0.0))
        return 0;
    if (value >= 255.0)
        return 255;
    return (uint8_t)(value + (is_float_type(type) ? 0.5 : 0.0));
}

/* Remembers a finite value that float cannot hold, for bad_vertex(). */
static inline float narrow_vertex_value(ply_parser *ps, property_role role, double value)
{
    if (is_beyond_float(value)) {
        ps->beyond_float = true;
        ps->beyond_role = role;
        ps->beyond_value = value;
    }
    return narrow_to_float(value);
}

static inline void store_vertex_value(ply_parser *ps, size_t v, property_role role, double value,
                                      scalar_type type)
{
    ds_mesh *mesh = ps->mesh;
    switch (role) {
    case ROLE_X:
    case ROLE_Y:
    case ROLE_Z:
        mesh->positions[3 * v + (size_t)(role - ROLE_X)] = narrow_vertex_value(ps, role, value);
        break;
    case ROLE_NX:
    case ROLE_NY:
    case ROLE_NZ:
        mesh->normals[3 * v + (size_t)(role - ROLE_NX)] = narrow_vertex_value(ps, role, value);
        break;
    case ROLE_RED:
    case ROLE_GREEN:
    case ROLE_BLUE:
    case ROLE_ALPHA:
        mesh->colors[4 * v + (size_t)(role - ROLE_RED)] = color_byte(value, type);
        break;
    default:
        break;
    }
}

/* NaN/Inf positions or normals are rejected with the vertex named; so are
 * finite doubles beyond float's range, which narrow to infinities. */
static inline bool vertex_is_finite(const ds_mesh *mesh, size_t v)
{
    const float *p = mesh->positions + 3 * v;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return false;
    if (mesh->normals) {
        const float *n = mesh->normals + 3 * v;
        return isfinite(n[0]) && isfinite(n[1]) && isfinite(n[2]);
    }
    return true;
}

/* The error for vertex v that failed vertex_is_finite(), at `where` `at`
 * ("line", 12 or "byte", 4096): out of float range when a value was finite
 * in the file, else NaN or infinite. */
static ds_status bad_vertex(const ply_parser *ps, uint64_t v, const char *where, size_t at)
{
    if (ps->beyond_float)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: vertex %llu %s %s = %.9g is out of float range",
                       ps->name, where, at, (unsigned long long)v,
                       ps->beyond_role <= ROLE_Z ? "coordinate" : "normal",
                       vertex_role_names[ps->beyond_role], ps->beyond_value);
    return ds_fail(DS_ERR_PARSE, "%s: %s %zu: vertex %llu has a NaN or infinite coordinate", ps->name,
                   where, at, (unsigned long long)v);
}

/* Turns a validated index list into triangles. Faces fan from the first
 * corner; strips alternate winding, restart at -1 and drop degenerate
 * joints. `state` keeps the strip/fan context between calls. */
typedef struct index_sink {
    element_kind kind;
    size_t seen;     /* indices of the current face or strip run */
    uint32_t first;  /* face: corner 0; strip: the older of the last two */
    uint32_t second; /* face: previous corner; strip: the newer one */
    bool odd;        /* strip: the next triangle has flipped winding */
} index_sink;

static inline void sink_begin(index_sink *sink)
{
    sink->seen = 0;
    sink->odd = false;
}

static inline void sink_add(index_sink *sink, ds_mesh *mesh, uint32_t index)
{
    if (sink->seen == 0) {
        sink->first = index;
    } else if (sink->seen == 1) {
        sink->second = index;
    } else if (sink->kind == ELEMENT_FACE) {
        emit_triangle(mesh, sink->first, sink->second, index);
        sink->second = index;
    } else {
        uint32_t a = sink->first, b = sink->second;
        if (a != b && b != index && a != index) {
            if (sink->odd)
                emit_triangle(mesh, b, a, index);
            else
                emit_triangle(mesh, a, b, index);
        }
        sink->odd = !sink->odd;
        sink->first = b;
        sink->second = index;
    }
    sink->seen++;
}

/* Checks one index value of item `item` of `element`; `where`/`at` locate
 * it ("line", 12 or "byte", 4096). */
static ds_status check_index(const ply_parser *ps, const ply_element *element, uint64_t item,
                             int64_t index, const char *where, size_t at)
{
    int name_len = PREVIEW(element->name_length);
    if (index < 0)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: %.*s %llu has a negative vertex index %lld",
                       ps->name, where, at, name_len, element->name, (unsigned long long)item,
                       (long long)index);
    if ((uint64_t)index >= ps->mesh->vertex_count)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: %.*s %llu uses vertex %lld but the file has %zu vertices",
                       ps->name, where, at, name_len, element->name, (unsigned long long)item,
                       (long long)index, ps->mesh->vertex_count);
    return DS_OK;
}

/* Validates a list length of an index list and reserves its triangles. */
static ds_status check_index_count(ply_parser *ps, const ply_element *element, uint64_t item,
                                   int64_t count, uint64_t max_count, const char *where, size_t at)
{
    int name_len = PREVIEW(element->name_length);
    if (element->kind == ELEMENT_FACE && count < 3)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: face %llu has %lld vertices (at least 3 needed)",
                       ps->name, where, at, (unsigned long long)item, (long long)count);
    if (count < 0)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: %.*s %llu has a negative length %lld", ps->name,
                       where, at, name_len, element->name, (unsigned long long)item, (long long)count);
    if ((uint64_t)count > max_count)
        return ds_fail(DS_ERR_PARSE, "%s: %s %zu: %.*s %llu declares %lld vertex indices, more than the rest of the file holds",
                       ps->name, where, at, name_len, element->name, (unsigned long long)item,
                       (long long)count);
    return count >= 3 ? reserve_triangles(ps, (uint64_t)count - 2, item, element->count, max_count,
                                         where, at)
                      : DS_OK;
}

/* ---- ascii body ----------------------------------------------------------- */

/* Moves to the first value of the next item, skipping blank lines. */
static bool ascii_begin_item(ply_parser *ps)
{
    for (;;) {
        while (ps->p < ps->end && is_blank(*ps->p))
            ps->p++;
        if (ps->p == ps->end)
            return false;
        if (*ps->p != '\n')
            return true;
        ps->p++;
        ps->line++;
    }
}

static ds_status ascii_end_item(ply_parser *ps, const ply_element *element, uint64_t item)
{
    while (ps->p < ps->end && is_blank(*ps->p))
        ps->p++;
    if (ps->p < ps->end) {
        if (*ps->p != '\n') {
            char preview[24];
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: unexpected '%s' after the values of %.*s %llu",
                           ps->name, ps->line, token_preview(ps->p, ps->end, preview, sizeof preview),
                           PREVIEW(element->name_length), element->name, (unsigned long long)item);
        }
        ps->p++;
        ps->line++;
    }
    return DS_OK;
}

/* Positions ps->p on the next value of the current line. */
static ds_status ascii_expect_value(ply_parser *ps, const ply_element *element, uint64_t item)
{
    while (ps->p < ps->end && is_blank(*ps->p))
        ps->p++;
    if (ps->p < ps->end && *ps->p != '\n')
        return DS_OK;
    if (ps->p == ps->end)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: the file ends inside %.*s %llu (truncated)",
                       ps->name, ps->line, PREVIEW(element->name_length), element->name,
                       (unsigned long long)item);
    return ds_fail(DS_ERR_PARSE, "%s: line %zu: %.*s %llu has fewer values than the header declares",
                   ps->name, ps->line, PREVIEW(element->name_length), element->name,
                   (unsigned long long)item);
}

static ds_status ascii_bad_number(ply_parser *ps, const char *start, scalar_type type)
{
    char preview[24];
    return ds_fail(DS_ERR_PARSE, "%s: line %zu: '%s' is not a valid %s value", ps->name, ps->line,
                   token_preview(start, ps->end, preview, sizeof preview), type_label[type]);
}

/* Reads one value of `type` as a double. A float32 value is narrowed here
 * (when in range), so that it is exactly what a float32 binary file would
 * hold; a float64 value is kept whole until it is stored. */
static ds_status ascii_read_value(ply_parser *ps, const ply_element *element, uint64_t item,
                                  scalar_type type, double *dest)
{
    ds_status status = ascii_expect_value(ps, element, item);
    if (status != DS_OK)
        return status;
    const char *start = ps->p;
    const char *after;
    if (is_float_type(type)) {
        double value = 0.0;
        after = parse_double(start, ps->end, &value);
        *dest = type == TYPE_FLOAT32 && !is_beyond_float(value) ? (double)narrow_to_float(value) : value;
    } else {
        int64_t value = 0;
        after = parse_int(start, ps->end, &value);
        if (after && (value < type_min[type] || value > type_max[type])) {
            char preview[24];
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: %s is out of range for type %s", ps->name,
                           ps->line, token_preview(start, ps->end, preview, sizeof preview),
                           type_label[type]);
        }
        *dest = (double)value;
    }
    if (!after || (after < ps->end && !is_blank(*after) && *after != '\n'))
        return ascii_bad_number(ps, start, type);
    ps->p = after;
    return DS_OK;
}

static ds_status ascii_skip_value(ply_parser *ps, const ply_element *element, uint64_t item)
{
    ds_status status = ascii_expect_value(ps, element, item);
    while (status == DS_OK && ps->p < ps->end && !is_blank(*ps->p) && *ps->p != '\n')
        ps->p++;
    return status;
}

/* Longest list an ascii line can still hold: each value needs 2 bytes. */
static uint64_t ascii_max_list(const ply_parser *ps)
{
    return ((uint64_t)(ps->end - ps->p) + 1) / ASCII_MIN_VALUE_BYTES;
}

static ds_status ascii_element(ply_parser *ps, const ply_element *element)
{
    const ply_property *props = &ps->header->properties[element->first_property];
    ds_mesh *mesh = ps->mesh;
    index_sink sink = {.kind = element->kind};
    ds_status status = DS_OK;
    for (uint64_t item = 0; item < element->count; item++) {
        if (!ascii_begin_item(ps))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: the file ends after %llu of %llu %.*s items (truncated)",
                           ps->name, ps->line, (unsigned long long)item,
                           (unsigned long long)element->count, PREVIEW(element->name_length),
                           element->name);
        for (size_t i = 0; i < element->property_count && status == DS_OK; i++) {
            const ply_property *prop = &props[i];
            double value = 0.0;
            if (!prop->is_list) {
                if (prop->role == ROLE_SKIP) {
                    status = ascii_skip_value(ps, element, item);
                } else {
                    status = ascii_read_value(ps, element, item, prop->type, &value);
                    if (status == DS_OK)
                        store_vertex_value(ps, (size_t)item, prop->role, value, prop->type);
                }
                continue;
            }
            status = ascii_read_value(ps, element, item, prop->count_type, &value);
            if (status != DS_OK)
                break;
            int64_t count = (int64_t)value;
            if (prop->role != ROLE_INDICES) {
                if (count < 0)
                    return ds_fail(DS_ERR_PARSE, "%s: line %zu: negative list length %lld", ps->name,
                                   ps->line, (long long)count);
                for (int64_t k = 0; k < count && status == DS_OK; k++)
                    status = ascii_skip_value(ps, element, item);
                continue;
            }
            status = check_index_count(ps, element, item, count, ascii_max_list(ps), "line", ps->line);
            sink_begin(&sink);
            for (int64_t k = 0; k < count && status == DS_OK; k++) {
                status = ascii_read_value(ps, element, item, prop->type, &value);
                if (status != DS_OK)
                    break;
                int64_t index = (int64_t)value;
                if (index == -1 && element->kind == ELEMENT_TRISTRIPS) {
                    sink_begin(&sink);
                    continue;
                }
                status = check_index(ps, element, item, index, "line", ps->line);
                if (status == DS_OK)
                    sink_add(&sink, mesh, (uint32_t)index);
            }
        }
        if (status != DS_OK)
            return status;
        if (element->kind == ELEMENT_VERTEX && !vertex_is_finite(mesh, (size_t)item))
            return bad_vertex(ps, item, "line", ps->line);
        status = ascii_end_item(ps, element, item);
        if (status != DS_OK)
            return status;
    }
    return DS_OK;
}

/* ---- binary body ---------------------------------------------------------- */

static inline uint16_t load_u16(const char *p, bool swap)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t load_u32(const char *p, bool swap)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t load_u64(const char *p, bool swap)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap64(v) : v;
}

/* Integer types only (list counts and indices); 0 for the float types. */
static inline int64_t binary_integer(const char *p, scalar_type type, bool swap)
{
    switch (type) {
    case TYPE_INT8:
        return (int8_t)p[0];
    case TYPE_UINT8:
        return (uint8_t)p[0];
    case TYPE_INT16:
        return (int16_t)load_u16(p, swap);
    case TYPE_UINT16:
        return load_u16(p, swap);
    case TYPE_INT32:
        return (int32_t)load_u32(p, swap);
    case TYPE_UINT32:
        return load_u32(p, swap);
    default:
        return 0;
    }
}

/* Any type; every integer type converts to double exactly. */
static inline double binary_value(const char *p, scalar_type type, bool swap)
{
    if (type == TYPE_FLOAT32) {
        uint32_t bits = load_u32(p, swap);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    if (type == TYPE_FLOAT64) {
        uint64_t bits = load_u64(p, swap);
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    return (double)binary_integer(p, type, swap);
}

static size_t byte_offset(const ply_parser *ps) { return (size_t)(ps->p - ps->data); }

static ds_status binary_truncated(const ply_parser *ps, const ply_element *element, uint64_t item)
{
    return ds_fail(DS_ERR_PARSE, "%s: byte %zu: the file ends inside %.*s %llu of %llu (truncated)",
                   ps->name, byte_offset(ps), PREVIEW(element->name_length), element->name,
                   (unsigned long long)item, (unsigned long long)element->count);
}

/* Vertices of fixed size (no lists, the usual case): one bounds check for
 * the whole element, then only the used properties are decoded. */
static ds_status binary_fixed_vertices(ply_parser *ps, const ply_element *element, size_t stride)
{
    const ply_property *props = &ps->header->properties[element->first_property];
    struct {
        size_t offset;
        scalar_type type;
        property_role role;
    } used[ROLE_COUNT];
    size_t used_count = 0, offset = 0;
    for (size_t i = 0; i < element->property_count; i++) {
        if (props[i].role != ROLE_SKIP && used_count < ROLE_COUNT) {
            used[used_count].offset = offset;
            used[used_count].type = props[i].type;
            used[used_count].role = props[i].role;
            used_count++;
        }
        offset += type_size[props[i].type];
    }
    size_t count = (size_t)element->count;
    if ((uint64_t)(ps->end - ps->p) / stride < count)
        return binary_truncated(ps, element, (uint64_t)(ps->end - ps->p) / stride);
    ds_mesh *mesh = ps->mesh;
    const char *base = ps->p;
    bool swap = ps->swap;
    bool all_float32_geometry = true;
    for (size_t u = 0; u < used_count; u++)
        all_float32_geometry = all_float32_geometry && used[u].type == TYPE_FLOAT32 &&
                               used[u].role >= ROLE_X && used[u].role <= ROLE_NZ;
    if (all_float32_geometry) {
        /* The common scan layout: copy the float bits, test finiteness on
         * the exponent field, no conversions. */
        float *targets[ROLE_COUNT];
        for (size_t u = 0; u < used_count; u++)
            targets[u] = used[u].role <= ROLE_Z ? mesh->positions + (used[u].role - ROLE_X)
                                                : mesh->normals + (used[u].role - ROLE_NX);
        for (size_t v = 0; v < count; v++) {
            const char *item = base + v * stride;
            uint32_t non_finite = 0;
            for (size_t u = 0; u < used_count; u++) {
                uint32_t bits = load_u32(item + used[u].offset, swap);
                non_finite |= (bits & 0x7f800000u) == 0x7f800000u;
                memcpy(targets[u] + 3 * v, &bits, sizeof bits);
            }
            if (non_finite) {
                ps->p = item;
                return bad_vertex(ps, v, "byte", byte_offset(ps));
            }
        }
        ps->p = base + count * stride;
        return DS_OK;
    }
    for (size_t v = 0; v < count; v++) {
        const char *item = base + v * stride;
        for (size_t u = 0; u < used_count; u++)
            store_vertex_value(ps, v, used[u].role,
                               binary_value(item + used[u].offset, used[u].type, swap), used[u].type);
        if (!vertex_is_finite(mesh, v)) {
            ps->p = item;
            return bad_vertex(ps, v, "byte", byte_offset(ps));
        }
    }
    ps->p = base + count * stride;
    return DS_OK;
}

/* One item of an element with list properties, every read bounds-checked. */
static ds_status binary_item(ply_parser *ps, const ply_element *element, uint64_t item, index_sink *sink)
{
    const ply_property *props = &ps->header->properties[element->first_property];
    ds_mesh *mesh = ps->mesh;
    bool swap = ps->swap;
    for (size_t i = 0; i < element->property_count; i++) {
        const ply_property *prop = &props[i];
        if (!prop->is_list) {
            size_t size = type_size[prop->type];
            if ((size_t)(ps->end - ps->p) < size)
                return binary_truncated(ps, element, item);
            if (prop->role != ROLE_SKIP)
                store_vertex_value(ps, (size_t)item, prop->role, binary_value(ps->p, prop->type, swap),
                                   prop->type);
            ps->p += size;
            continue;
        }
        size_t count_size = type_size[prop->count_type];
        if ((size_t)(ps->end - ps->p) < count_size)
            return binary_truncated(ps, element, item);
        size_t at = byte_offset(ps);
        int64_t count = binary_integer(ps->p, prop->count_type, swap);
        ps->p += count_size;
        size_t item_size = type_size[prop->type];
        uint64_t max_count = (uint64_t)(ps->end - ps->p) / item_size;
        if (prop->role != ROLE_INDICES) {
            if (count < 0)
                return ds_fail(DS_ERR_PARSE, "%s: byte %zu: negative list length %lld", ps->name, at,
                               (long long)count);
            if ((uint64_t)count > max_count)
                return binary_truncated(ps, element, item);
            ps->p += (size_t)count * item_size;
            continue;
        }
        ds_status status = check_index_count(ps, element, item, count, max_count, "byte", at);
        if (status != DS_OK)
            return status;
        sink_begin(sink);
        for (int64_t k = 0; k < count; k++) {
            int64_t index = binary_integer(ps->p, prop->type, swap);
            if (index == -1 && element->kind == ELEMENT_TRISTRIPS) {
                sink_begin(sink);
            } else {
                status = check_index(ps, element, item, index, "byte", byte_offset(ps));
                if (status != DS_OK)
                    return status;
                sink_add(sink, mesh, (uint32_t)index);
            }
            ps->p += item_size;
        }
    }
    if (element->kind == ELEMENT_VERTEX && !vertex_is_finite(mesh, (size_t)item))
        return bad_vertex(ps, item, "byte", byte_offset(ps));
    return DS_OK;
}

static ds_status binary_element(ply_parser *ps, const ply_element *element)
{
    const ply_property *props = &ps->header->properties[element->first_property];
    size_t stride = 0;
    bool fixed = true;
    for (size_t i = 0; i < element->property_count; i++) {
        fixed = fixed && !props[i].is_list;
        stride += type_size[props[i].type];
    }
    if (fixed && element->kind == ELEMENT_VERTEX)
        return binary_fixed_vertices(ps, element, stride);
    if (fixed) {
        /* Skipped fixed-size element: one jump. */
        if ((uint64_t)(ps->end - ps->p) / stride < element->count)
            return binary_truncated(ps, element, (uint64_t)(ps->end - ps->p) / stride);
        ps->p += (size_t)element->count * stride;
        return DS_OK;
    }
    index_sink sink = {.kind = element->kind};
    /* Faces that hold only their index list and are triangles (nearly every
     * scan) take a short path; any other item goes through binary_item. */
    bool plain_faces = element->kind == ELEMENT_FACE && element->property_count == 1;
    scalar_type count_type = props[0].count_type, index_type = props[0].type;
    size_t count_size = type_size[count_type], index_size = type_size[index_type];
    ds_mesh *mesh = ps->mesh;
    uint64_t vertex_count = mesh->vertex_count;
    bool swap = ps->swap;
    for (uint64_t item = 0; item < element->count; item++) {
        if (plain_faces && (size_t)(ps->end - ps->p) >= count_size + 3 * index_size &&
            binary_integer(ps->p, count_type, swap) == 3 &&
            mesh->triangle_count < ps->triangle_capacity) {
            const char *q = ps->p + count_size;
            int64_t a = binary_integer(q, index_type, swap);
            int64_t b = binary_integer(q + index_size, index_type, swap);
            int64_t c = binary_integer(q + 2 * index_size, index_type, swap);
            /* Negative indices wrap to huge unsigned values here. */
            if ((uint64_t)a < vertex_count && (uint64_t)b < vertex_count && (uint64_t)c < vertex_count) {
                emit_triangle(mesh, (uint32_t)a, (uint32_t)b, (uint32_t)c);
                ps->p = q + 3 * index_size;
                continue;
            }
        }
        ds_status status = binary_item(ps, element, item, &sink);
        if (status != DS_OK)
            return status;
    }
    return DS_OK;
}

/* ---- entry points --------------------------------------------------------- */

/* What the header says the body holds (resolve_header). */
typedef struct header_summary {
    size_t vertex_count, face_count;
    bool has_normals, has_colors, has_alpha;
} header_summary;

/* The start both entry points share: allocates ps->header (the caller
 * frees it, on failure too), parses and resolves the header into *dest
 * and checks its counts against `budget`, with `held_bytes` held beside the
 * mesh while it is parsed (ds_load_check_budget). */
static ds_status read_header(ply_parser *ps, const ds_load_budget *budget, uint64_t held_bytes,
                             header_summary *dest)
{
    memset(dest, 0, sizeof *dest);
    ps->header = malloc(sizeof *ps->header);
    if (!ps->header)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for the PLY header", ps->name);
    memset(ps->header, 0, offsetof(ply_header, elements));
    ds_status status = parse_header(ps);
    if (status == DS_OK)
        status = resolve_header(ps, &dest->vertex_count, &dest->face_count, &dest->has_normals,
                                &dest->has_colors, &dest->has_alpha);
    if (status == DS_OK)
        status = ds_load_check_budget(budget, ps->name, dest->vertex_count, dest->face_count,
                                      held_bytes);
    return status;
}

static bool host_is_big_endian(void)
{
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    return first == 0;
}

ds_status ds_parse_ply(const void *data, size_t size, const char *name, const ds_load_budget *budget,
                       ds_mesh *dest)
{
    ds_status status = begin_parse("ds_parse_ply", data, size, &name, dest);
    if (status != DS_OK)
        return status;

    ply_parser ps = {
        .name = name,
        .data = data,
        .p = data,
        .end = (const char *)data + size,
        .mesh = dest,
        .budget = budget,
    };
    header_summary summary;
    status = read_header(&ps, budget, 0, &summary); /* the file's bytes are read already */
    ply_header *header = ps.header;
    size_t vertex_count = summary.vertex_count, face_count = summary.face_count;
    bool has_normals = summary.has_normals, has_colors = summary.has_colors;
    if (status != DS_OK)
        goto fail;
    ps.swap = header->format != FORMAT_ASCII &&
              (header->format == FORMAT_BINARY_BE) != host_is_big_endian();

    dest->vertex_count = vertex_count;
    dest->positions = malloc(vertex_count * 3 * sizeof(float));
    if (has_normals)
        dest->normals = malloc(vertex_count * 3 * sizeof(float));
    if (has_colors)
        dest->colors = malloc(vertex_count * 4);
    if (!dest->positions || (has_normals && !dest->normals) || (has_colors && !dest->colors)) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu vertices", name, vertex_count);
        goto fail;
    }
    if (has_colors && !summary.has_alpha)
        memset(dest->colors, 255, vertex_count * 4);
    ps.header_triangles = face_count;
    if (face_count > 0) {
        status = reserve_triangles(&ps, face_count, 0, 1, face_count, "line", 1);
        if (status != DS_OK)
            goto fail;
    }

    for (size_t e = 0; e < header->element_count && status == DS_OK; e++) {
        const ply_element *element = &header->elements[e];
        if (element->count == 0)
            continue;
        ps.element_first_triangle = dest->triangle_count;
        status = header->format == FORMAT_ASCII ? ascii_element(&ps, element) : binary_element(&ps, element);
    }
    if (status != DS_OK)
        goto fail;

    if (dest->triangle_count == 0) {
        free(dest->indices); /* a point cloud */
        dest->indices = NULL;
    } else if (dest->triangle_count < ps.triangle_capacity) {
        uint32_t *shrunk = realloc(dest->indices, dest->triangle_count * 3 * sizeof(uint32_t));
        if (shrunk)
            dest->indices = shrunk;
    }
    static const char *const format_names[] = {
        [FORMAT_ASCII] = "ply-ascii",
        [FORMAT_BINARY_LE] = "ply-binary-le",
        [FORMAT_BINARY_BE] = "ply-binary-be",
    };
    dest->format = format_names[header->format];
    dest->has_colors = has_colors;
    free(header);
    return DS_OK;

fail:
    free(header);
    ds_mesh_free(dest);
    return status;
}

ds_status ds_check_ply_header(const void *data, size_t file_size, const char *name,
                              const ds_load_budget *budget)
{
    /* `end` is where the file ends, not where the bytes read so far do:
     * parse_header reads no further than MAX_HEADER_BYTES, which the
     * caller has read, and resolve_header only measures the body. */
    ply_parser ps = {
        .name = name,
        .data = data,
        .p = data,
        .end = (const char *)data + file_size,
    };
    /* Before the body is read: the buffer that will hold the file is part
     * of what the parse holds beside the mesh. */
    header_summary summary;
    ds_status status = read_header(&ps, budget, file_size, &summary);
    free(ps.header);
    return status;
}
