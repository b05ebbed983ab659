/* SPDX-License-Identifier: MIT */
/* obj.c — Wavefront OBJ loader (geometry subset) into a ds_mesh.
 *
 * Used statements: `v x y z [w | r g b]` (w ignored, colours 0..1), `vn`,
 * and `f` with corners `v`, `v/vt`, `v//vn` or `v/vt/vn`; indices are
 * 1-based, negative ones count back from the last vertex (or normal) defined
 * so far, and a face may only refer to vertices defined before it. Polygons
 * are fan-triangulated from their first corner. Every other statement (vt,
 * o, g, s, usemtl, mtllib, l, p, ...) and `#` comments are ignored; CRLF
 * line ends are accepted, and so is a leading UTF-8 byte order mark. A
 * control character other than white space is binary, not text: the file
 * is refused at its first one.
 *
 * Normals: OBJ attaches normals to face corners, the mesh to vertices. The
 * file's normals are used only when every face corner names one and every
 * vertex is always paired with the same normal vector (the common case of
 * smooth exports); otherwise they are dropped and ds_mesh_finish()
 * recomputes area-weighted normals. ds_mesh_finish() also makes used file
 * normals unit length and recomputes zero ones; vertices no face uses get +Y.
 *
 * Numbers are read as doubles: a finite value beyond float's range (1e39)
 * is reported as such, apart from NaN and infinity. The mesh's `format` is
 * "obj"; `has_colors` says whether any `v` line had r g b.
 *
 * Two passes: the first counts v, vn and triangles (a cheap scan of line
 * starts and face tokens), so that the mesh arrays are allocated once at
 * their final size; the second parses. Nothing is allocated per line.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "load_private.h"
#include "parse_util.h"

typedef enum obj_keyword { KEYWORD_OTHER, KEYWORD_V, KEYWORD_VN, KEYWORD_F } obj_keyword;

/* Both passes classify lines with this, so their counts always agree. */
static obj_keyword classify(const char *s, const char *end)
{
    size_t left = (size_t)(end - s);
    if (left >= 1 && s[0] == 'v' && (left == 1 || is_blank(s[1]) || s[1] == '\n'))
        return KEYWORD_V;
    if (left >= 2 && s[0] == 'v' && s[1] == 'n' && (left == 2 || is_blank(s[2]) || s[2] == '\n'))
        return KEYWORD_VN;
    if (left >= 1 && s[0] == 'f' && (left == 1 || is_blank(s[1]) || s[1] == '\n'))
        return KEYWORD_F;
    return KEYWORD_OTHER;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

static const char *line_end_of(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* A face corner token ends at a blank, the end of the line or a comment. */
static bool ends_token(const char *p, const char *end)
{
    return p == end || is_blank(*p) || *p == '\n' || *p == '#';
}

typedef struct obj_counts {
    uint64_t vertices, normals, triangles;
} obj_counts;

static void count_statements(const char *p, const char *end, obj_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    while (p < end) {
        p = skip_blanks(p, end);
        obj_keyword keyword = classify(p, end);
        if (keyword == KEYWORD_V) {
            counts->vertices++;
        } else if (keyword == KEYWORD_VN) {
            counts->normals++;
        } else if (keyword == KEYWORD_F) {
            uint64_t corners = 0;
            p++;
            for (;;) {
                p = skip_blanks(p, end);
                if (p == end || *p == '\n' || *p == '#')
                    break;
                corners++;
                while (!ends_token(p, end))
                    p++;
            }
            if (corners >= 3)
                counts->triangles += corners - 2;
        }
        p = line_end_of(p, end);
        if (p < end)
            p++;
    }
}

typedef struct obj_parser {
    const char *name;
    const char *p;
    const char *end;
    size_t line;
    ds_mesh *mesh;
    size_t vertices_defined;
    float *file_normals; /* 3 per vn statement; freed when parsing ends */
    size_t normals_defined;
    size_t normal_capacity;
    size_t vertex_capacity;
    size_t triangle_capacity;
    bool use_normals;      /* still consistent: every corner so far had a vn */
    bool any_face;
} obj_parser;

static ds_status bad_number(const obj_parser *ps, const char *at, const char *what)
{
    char preview[24];
    return ds_fail(DS_ERR_PARSE, "%s: line %zu: '%s' is not a valid %s", ps->name, ps->line,
                   token_preview(at, ps->end, preview, sizeof preview), what);
}

/* Reads up to `max` numbers from the rest of the line; *read says how many.
 * They stay doubles until checked against float's range. */
static ds_status read_numbers(obj_parser *ps, double *dest, int max, int *read)
{
    *read = 0;
    for (;;) {
        ps->p = skip_blanks(ps->p, ps->end);
        if (ps->p == ps->end || *ps->p == '\n' || *ps->p == '#')
            return DS_OK;
        if (*read == max) {
            char preview[24];
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: unexpected '%s' (too many numbers)",
                           ps->name, ps->line, token_preview(ps->p, ps->end, preview, sizeof preview));
        }
        const char *after = parse_double(ps->p, ps->end, &dest[*read]);
        if (!after || !ends_token(after, ps->end))
            return bad_number(ps, ps->p, "number");
        ps->p = after;
        (*read)++;
    }
}

static uint8_t unit_color(double value)
{
    if (!(value > 0.0))
        return 0;
    if (value >= 1.0)
        return 255;
    return (uint8_t)(value * 255.0 + 0.5);
}

/* Checks the three numbers of `what` ("vertex" or "normal") number `number`
 * (1-based, as OBJ counts), whose values are each a `part` ("coordinate",
 * "component"), and narrows them into dest: NaN, infinite and finite but
 * beyond float's range are three different errors. */
static ds_status narrow_triple(const obj_parser *ps, const double values[3], const char *what,
                               const char *part, size_t number, float dest[3])
{
    static const char *const axes[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++) {
        if (is_beyond_float(values[k]))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: %s %zu %s %s = %.9g is out of float range",
                           ps->name, ps->line, what, number, part, axes[k], values[k]);
        if (!isfinite(values[k]))
            return ds_fail(DS_ERR_PARSE, "%s: line %zu: %s %zu has a NaN or infinite %s", ps->name,
                           ps->line, what, number, part);
        dest[k] = (float)values[k];
    }
    return DS_OK;
}

static ds_status parse_vertex(obj_parser *ps)
{
    ds_mesh *mesh = ps->mesh;
    double values[6];
    int read = 0;
    ds_status status = read_numbers(ps, values, 6, &read);
    if (status != DS_OK)
        return status;
    if (read != 3 && read != 4 && read != 6)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: 'v' needs x y z, x y z w or x y z r g b (got %d numbers)",
                       ps->name, ps->line, read);
    size_t v = ps->vertices_defined;
    if (v >= ps->vertex_capacity) /* cannot happen: both passes classify alike */
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: more vertices than counted", ps->name, ps->line);
    status = narrow_triple(ps, values, "vertex", "coordinate", v + 1, mesh->positions + 3 * v);
    if (status != DS_OK)
        return status;
    if (read == 6) {
        if (!mesh->colors) {
            /* First coloured vertex: earlier ones become white. */
            mesh->colors = malloc(ps->vertex_capacity * 4);
            if (!mesh->colors)
                return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for vertex colours", ps->name);
            memset(mesh->colors, 255, ps->vertex_capacity * 4);
        }
        uint8_t *c = mesh->colors + 4 * v;
        c[0] = unit_color(values[3]);
        c[1] = unit_color(values[4]);
        c[2] = unit_color(values[5]);
    }
    ps->vertices_defined++;
    return DS_OK;
}

static ds_status parse_normal(obj_parser *ps)
{
    double values[3];
    int read = 0;
    ds_status status = read_numbers(ps, values, 3, &read);
    if (status != DS_OK)
        return status;
    if (read != 3)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: 'vn' needs 3 numbers (got %d)", ps->name,
                       ps->line, read);
    float normal[3];
    status = narrow_triple(ps, values, "normal", "component", ps->normals_defined + 1, normal);
    if (status != DS_OK)
        return status;
    if (ps->normals_defined >= ps->normal_capacity)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: more normals than counted", ps->name, ps->line);
    if (ps->file_normals)
        memcpy(ps->file_normals + 3 * ps->normals_defined, normal, sizeof normal);
    ps->normals_defined++;
    return DS_OK;
}

/* The item that a 1-based or negative OBJ index names among `defined`
 * items, or SIZE_MAX when it names none (bad_index says why). */
static size_t resolve_index(int64_t index, size_t defined)
{
    if (index > 0 && (uint64_t)index <= defined)
        return (size_t)(index - 1);
    if (index < 0 && (uint64_t)(-index) <= defined)
        return defined - (size_t)(-index);
    return SIZE_MAX;
}

/* `text` is where the index starts in the file: the message quotes its
 * digits as written, since parse_int saturates a 23-digit index. */
static ds_status bad_index(const obj_parser *ps, int64_t index, const char *text, size_t defined,
                           const char *what)
{
    if (index == 0)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: face uses %s index 0 (OBJ indices start at 1)",
                       ps->name, ps->line, what);
    char digits[32];
    size_t n = 0;
    if (text < ps->end && (*text == '-' || *text == '+'))
        digits[n++] = *text++;
    while (text < ps->end && is_digit(*text) && n + 4 < sizeof digits)
        digits[n++] = *text++;
    if (text < ps->end && is_digit(*text)) {
        memcpy(digits + n, "...", 3);
        n += 3;
    }
    digits[n] = '\0';
    return ds_fail(DS_ERR_PARSE, "%s: line %zu: face refers to %s %s but only %zu are defined so far",
                   ps->name, ps->line, what, digits, defined);
}

/* Records that vertex v is used with file normal n (or none when n is
 * SIZE_MAX); drops the file normals at the first inconsistency. */
static void pair_normal(obj_parser *ps, size_t v, size_t n)
{
    float *normals = ps->mesh->normals;
    if (!ps->use_normals)
        return;
    if (n == SIZE_MAX) {
        ps->use_normals = false;
        return;
    }
    const float *given = ps->file_normals + 3 * n;
    float *slot = normals + 3 * v;
    if (isnan(slot[0])) {
        memcpy(slot, given, 3 * sizeof(float));
    } else if (slot[0] != given[0] || slot[1] != given[1] || slot[2] != given[2]) {
        ps->use_normals = false;
    }
}

static ds_status parse_face(obj_parser *ps)
{
    ds_mesh *mesh = ps->mesh;
    size_t corners = 0;
    uint32_t first = 0, previous = 0;
    for (;;) {
        ps->p = skip_blanks(ps->p, ps->end);
        if (ps->p == ps->end || *ps->p == '\n' || *ps->p == '#')
            break;
        const char *token = ps->p;
        int64_t v = 0, vn = 0;
        const char *vn_text = NULL;
        bool has_vn = false;
        const char *q = parse_int(token, ps->end, &v);
        if (!q)
            return bad_number(ps, token, "face corner");
        if (q < ps->end && *q == '/') {
            q++;
            if (q < ps->end && *q != '/' && !ends_token(q, ps->end)) {
                int64_t vt = 0;
                q = parse_int(q, ps->end, &vt); /* texture index: checked, not used */
                if (!q)
                    return bad_number(ps, token, "face corner");
            }
            if (q < ps->end && *q == '/') {
                vn_text = q + 1;
                q = parse_int(vn_text, ps->end, &vn);
                if (!q)
                    return bad_number(ps, token, "face corner");
                has_vn = true;
            }
        }
        if (!ends_token(q, ps->end))
            return bad_number(ps, token, "face corner");
        ps->p = q;

        size_t vertex = resolve_index(v, ps->vertices_defined);
        if (vertex == SIZE_MAX)
            return bad_index(ps, v, token, ps->vertices_defined, "vertex");
        size_t normal = SIZE_MAX; /* the corner names no normal */
        if (has_vn) {
            normal = resolve_index(vn, ps->normals_defined);
            if (normal == SIZE_MAX)
                return bad_index(ps, vn, vn_text, ps->normals_defined, "normal");
        }
        pair_normal(ps, vertex, normal);

        if (corners == 0) {
            first = (uint32_t)vertex;
        } else if (corners >= 2) {
            if (mesh->triangle_count >= ps->triangle_capacity)
                return ds_fail(DS_ERR_PARSE, "%s: line %zu: more triangles than counted", ps->name, ps->line);
            uint32_t *tri = mesh->indices + 3 * mesh->triangle_count++;
            tri[0] = first;
            tri[1] = previous;
            tri[2] = (uint32_t)vertex;
        }
        previous = (uint32_t)vertex;
        corners++;
    }
    if (corners < 3)
        return ds_fail(DS_ERR_PARSE, "%s: line %zu: face has %zu vertices (at least 3 needed)",
                       ps->name, ps->line, corners);
    ps->any_face = true;
    return DS_OK;
}

static ds_status parse_statements(obj_parser *ps)
{
    while (ps->p < ps->end) {
        ps->p = skip_blanks(ps->p, ps->end);
        obj_keyword keyword = classify(ps->p, ps->end);
        ds_status status = DS_OK;
        if (keyword == KEYWORD_V) {
            ps->p += 1;
            status = parse_vertex(ps);
        } else if (keyword == KEYWORD_VN) {
            ps->p += 2;
            status = parse_normal(ps);
        } else if (keyword == KEYWORD_F) {
            ps->p += 1;
            status = parse_face(ps);
        }
        if (status != DS_OK)
            return status;
        /* After a statement only a comment may remain; other lines are
         * skipped whole. */
        ps->p = line_end_of(ps->p, ps->end);
        if (ps->p < ps->end) {
            ps->p++;
            ps->line++;
        }
    }
    return DS_OK;
}

/* Vertices that no face used (still NaN) get a zero normal, which
 * ds_mesh_finish() replaces like any zero file normal: with the faces'
 * area-weighted normal, +Y for a vertex without faces. It also makes the
 * paired file normals unit length. */
static void finish_normals(float *normals, size_t count)
{
    for (size_t v = 0; v < count; v++) {
        float *n = normals + 3 * v;
        if (isnan(n[0]))
            n[0] = n[1] = n[2] = 0.0f;
    }
}

ds_status ds_parse_obj(const void *data, size_t size, const char *name, const ds_load_budget *budget,
                       ds_mesh *dest)
{
    ds_status status = begin_parse("ds_parse_obj", data, size, &name, dest);
    if (status != DS_OK)
        return status;

    const char *text = data;
    /* Exporters on Windows may start the text with a UTF-8 byte order
     * mark; left in place it would hide the first statement. */
    if (starts_with_bom(text, size)) {
        text += 3;
        size -= 3;
    }
    /* Binary data is refused at its first byte, before it is counted. */
    size_t bad = first_non_text_byte(text, size);
    if (bad < size)
        return ds_fail(DS_ERR_PARSE, "%s: byte %zu: 0x%02x cannot be text (a binary file, not an OBJ)",
                       name, bad + (size_t)(text - (const char *)data), (unsigned char)text[bad]);
    obj_counts counts;
    count_statements(text, text + size, &counts);
    if (counts.vertices == 0)
        return ds_fail(DS_ERR_PARSE, "%s: no 'v' lines: the file has no vertices (not an OBJ file?)", name);
    if (counts.vertices > DS_MESH_MAX_ELEMENTS || counts.triangles > DS_MESH_MAX_ELEMENTS)
        return ds_fail(DS_ERR_TOO_LARGE, "%s: %llu vertices and %llu triangles exceed the limit of %u",
                       name, (unsigned long long)counts.vertices,
                       (unsigned long long)counts.triangles, DS_MESH_MAX_ELEMENTS);
    /* The file's normals are held beside the mesh until faces pair them. */
    if ((status = ds_load_check_budget(budget, name, counts.vertices, counts.triangles,
                                       counts.normals * 3 * sizeof(float))))
        return status;

    obj_parser ps = {
        .name = name,
        .p = text,
        .end = text + size,
        .line = 1,
        .mesh = dest,
        .vertex_capacity = (size_t)counts.vertices,
        .normal_capacity = (size_t)counts.normals,
        .triangle_capacity = (size_t)counts.triangles,
        .use_normals = counts.normals > 0 && counts.triangles > 0,
    };
    dest->positions = malloc(ps.vertex_capacity * 3 * sizeof(float));
    if (ps.triangle_capacity)
        dest->indices = malloc(ps.triangle_capacity * 3 * sizeof(uint32_t));
    if (ps.use_normals) {
        ps.file_normals = malloc(ps.normal_capacity * 3 * sizeof(float));
        dest->normals = malloc(ps.vertex_capacity * 3 * sizeof(float));
    }
    if (!dest->positions || (ps.triangle_capacity && !dest->indices) ||
        (ps.use_normals && (!ps.file_normals || !dest->normals))) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu vertices", name, ps.vertex_capacity);
        goto done;
    }
    if (ps.use_normals)
        for (size_t i = 0; i < 3 * ps.vertex_capacity; i++)
            dest->normals[i] = NAN; /* "not paired yet" */

    status = parse_statements(&ps);
    if (status != DS_OK)
        goto done;
    dest->vertex_count = ps.vertices_defined;
    if (ps.use_normals && ps.any_face) {
        finish_normals(dest->normals, dest->vertex_count);
    } else {
        free(dest->normals);
        dest->normals = NULL;
    }
    if (dest->triangle_count == 0) {
        free(dest->indices);
        dest->indices = NULL;
    }
    dest->format = "obj";
    dest->has_colors = dest->colors != NULL;

done:
    free(ps.file_normals);
    if (status != DS_OK)
        ds_mesh_free(dest);
    return status;
}
