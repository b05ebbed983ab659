/* SPDX-License-Identifier: MIT */
/* test_ply.c — the PLY loader on files this test writes itself: one mesh in
 * ascii, little- and big-endian binary must load identically and report its
 * format; every property type and list count/index type; CRLF headers;
 * skipped properties and elements; tristrips; point clouds; uchar and float
 * colours with alpha; normals made unit length or recomputed; headers the
 * old --info guesser misnamed; non-PLY and endless headers failing on the
 * first bytes of a 1 GiB file; and every malformed case with its status and
 * message. Also checks parse_float against strtof. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "load.h"
#include "parse_util.h"

/* ---- a tiny PLY writer ---------------------------------------------------- */

typedef enum file_format { ASCII, LITTLE, BIG } file_format;
static const char *const format_names[] = {"ascii", "binary_little_endian", "binary_big_endian"};

static const char *const all_types[] = {"char",  "int8",   "uchar", "uint8",  "short",   "int16",
                                        "ushort", "uint16", "int",   "int32",  "uint",    "uint32",
                                        "float", "float32", "double", "float64"};
static const char *const integer_types[] = {"char", "int8",  "uchar", "uint8", "short", "int16",
                                            "ushort", "uint16", "int", "int32", "uint", "uint32"};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static size_t size_of_type(const char *type)
{
    if (strstr(type, "char") || strstr(type, "int8"))
        return 1;
    if (strstr(type, "short") || strstr(type, "int16"))
        return 2;
    if (strcmp(type, "double") == 0 || strcmp(type, "float64") == 0)
        return 8;
    return 4;
}

static int is_float_name(const char *type) { return strncmp(type, "float", 5) == 0 || strcmp(type, "double") == 0; }

static void put_bytes(FILE *f, file_format format, const void *value, size_t size)
{
    unsigned char bytes[8];
    memcpy(bytes, value, size);
    const uint16_t probe = 1;
    int host_big = *(const unsigned char *)&probe == 0;
    if ((format == BIG) != host_big)
        for (size_t i = 0; i < size / 2; i++) {
            unsigned char t = bytes[i];
            bytes[i] = bytes[size - 1 - i];
            bytes[size - 1 - i] = t;
        }
    fwrite(bytes, 1, size, f);
}

/* Writes one value; ascii values are followed by a space. */
static void put_value(FILE *f, file_format format, const char *type, double value)
{
    if (format == ASCII) {
        if (is_float_name(type))
            fprintf(f, "%.9g ", value);
        else
            fprintf(f, "%lld ", (long long)value);
        return;
    }
    size_t size = size_of_type(type);
    if (is_float_name(type)) {
        if (size == 4) {
            float v = (float)value;
            put_bytes(f, format, &v, 4);
        } else {
            put_bytes(f, format, &value, 8);
        }
        return;
    }
    int signed_type = type[0] != 'u';
    int64_t v = (int64_t)value;
    if (size == 1) {
        int8_t s = (int8_t)v;
        uint8_t u = (uint8_t)v;
        put_bytes(f, format, signed_type ? (void *)&s : (void *)&u, 1);
    } else if (size == 2) {
        int16_t s = (int16_t)v;
        uint16_t u = (uint16_t)v;
        put_bytes(f, format, signed_type ? (void *)&s : (void *)&u, 2);
    } else {
        int32_t s = (int32_t)v;
        uint32_t u = (uint32_t)v;
        put_bytes(f, format, signed_type ? (void *)&s : (void *)&u, 4);
    }
}

static void end_item(FILE *f, file_format format)
{
    if (format == ASCII)
        fputc('\n', f);
}

/* ---- the reference mesh --------------------------------------------------- */

#define REF_VERTICES 5
static const float ref_positions[REF_VERTICES][3] = {{0, 0, 0}, {4, 0, 0}, {4, 3, 0}, {0, 3, 1}, {2, 5, 2}};
static const float ref_normals[REF_VERTICES][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, -1}, {0.6f, 0.8f, 0}};
static const uint8_t ref_colors[REF_VERTICES][4] = {
    {255, 0, 0, 255}, {0, 255, 0, 128}, {0, 0, 255, 0}, {10, 20, 30, 40}, {1, 2, 3, 4}};
/* A triangle, a quad and a pentagon; fan-triangulated from corner 0. */
static const int ref_faces[3][6] = {{3, 0, 1, 2}, {4, 0, 1, 2, 3}, {5, 0, 1, 2, 3, 4}};
#define REF_TRIANGLES 6
static const uint32_t ref_triangles[REF_TRIANGLES][3] = {{0, 1, 2}, {0, 1, 2}, {0, 2, 3},
                                                         {0, 1, 2}, {0, 2, 3}, {0, 3, 4}};

static char temp_dir[32];

static const char *temp_path(const char *name)
{
    static char path[320];
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    return path;
}

static int make_temp_dir(void **state)
{
    (void)state;
    strcpy(temp_dir, "/tmp/test_ply_XXXXXX");
    return mkdtemp(temp_dir) ? 0 : -1;
}

static int remove_temp_dir(void **state)
{
    (void)state;
    DIR *dir = opendir(temp_dir);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir)))
            if (entry->d_name[0] != '.')
                unlink(temp_path(entry->d_name));
        closedir(dir);
    }
    rmdir(temp_dir);
    return 0;
}

/* The reference mesh with properties in a shuffled order, extra vertex
 * properties (a scalar and a list), an extra range_grid element before the
 * faces, extra face properties, and an edge element after them. */
static void write_full_ply(FILE *f, file_format format, const char *eol)
{
    fprintf(f, "ply%sformat %s 1.0%scomment written by test_ply%sobj_info nothing%s", eol,
            format_names[format], eol, eol, eol);
    fprintf(f, "element vertex %d%s", REF_VERTICES, eol);
    const char *vertex_props[] = {"float confidence", "float z",   "float nx",    "double x",
                                  "uchar red",        "float ny",  "float y",     "uchar green",
                                  "float nz",         "uchar blue", "uchar alpha"};
    for (size_t i = 0; i < COUNT_OF(vertex_props); i++)
        fprintf(f, "property %s%s", vertex_props[i], eol);
    fprintf(f, "property list uchar float texcoord%s", eol);
    fprintf(f, "element range_grid 2%sproperty list uchar int vertex_indices%s", eol, eol);
    fprintf(f, "element face 3%sproperty uchar flags%sproperty list uchar int vertex_indices%s"
               "property list int float texcoord%s",
            eol, eol, eol, eol);
    fprintf(f, "element edge 2%sproperty int vertex1%sproperty int vertex2%s", eol, eol, eol);
    fprintf(f, "end_header%s", eol);
    for (int v = 0; v < REF_VERTICES; v++) {
        put_value(f, format, "float", 0.25 * v);
        put_value(f, format, "float", ref_positions[v][2]);
        put_value(f, format, "float", ref_normals[v][0]);
        put_value(f, format, "double", ref_positions[v][0]);
        put_value(f, format, "uchar", ref_colors[v][0]);
        put_value(f, format, "float", ref_normals[v][1]);
        put_value(f, format, "float", ref_positions[v][1]);
        put_value(f, format, "uchar", ref_colors[v][1]);
        put_value(f, format, "float", ref_normals[v][2]);
        put_value(f, format, "uchar", ref_colors[v][2]);
        put_value(f, format, "uchar", ref_colors[v][3]);
        put_value(f, format, "uchar", v % 3);
        for (int k = 0; k < v % 3; k++)
            put_value(f, format, "float", 0.5 * k);
        end_item(f, format);
    }
    for (int g = 0; g < 2; g++) {
        put_value(f, format, "uchar", 2 * g);
        for (int k = 0; k < 2 * g; k++)
            put_value(f, format, "int", 7);
        end_item(f, format);
    }
    for (int face = 0; face < 3; face++) {
        put_value(f, format, "uchar", 9);
        for (int k = 0; k <= ref_faces[face][0]; k++)
            put_value(f, format, k == 0 ? "uchar" : "int", ref_faces[face][k]);
        put_value(f, format, "int", face);
        for (int k = 0; k < face; k++)
            put_value(f, format, "float", 1.5);
        end_item(f, format);
    }
    for (int e = 0; e < 2; e++) {
        put_value(f, format, "int", e);
        put_value(f, format, "int", e + 1);
        end_item(f, format);
    }
}

static void assert_reference_geometry(const ds_mesh *mesh)
{
    assert_int_equal(mesh->vertex_count, REF_VERTICES);
    assert_int_equal(mesh->triangle_count, REF_TRIANGLES);
    assert_memory_equal(mesh->positions, ref_positions, sizeof ref_positions);
    assert_memory_equal(mesh->indices, ref_triangles, sizeof ref_triangles);
}

static void assert_same_mesh(const ds_mesh *a, const ds_mesh *b)
{
    assert_int_equal(a->vertex_count, b->vertex_count);
    assert_int_equal(a->triangle_count, b->triangle_count);
    assert_memory_equal(a->positions, b->positions, a->vertex_count * 3 * sizeof(float));
    assert_memory_equal(a->normals, b->normals, a->vertex_count * 3 * sizeof(float));
    assert_memory_equal(a->colors, b->colors, a->vertex_count * 4);
    if (a->triangle_count)
        assert_memory_equal(a->indices, b->indices, a->triangle_count * 3 * sizeof(uint32_t));
}

/* Writes `write` to a memory buffer and loads it with ds_load_ply_memory. */
static ds_status load_written(void (*write)(FILE *, const void *), const void *arg, ds_mesh *mesh)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buffer, &size);
    assert_non_null(f);
    write(f, arg);
    fclose(f);
    ds_status status = ds_load_ply_memory(buffer, size, "memory.ply", mesh);
    free(buffer);
    return status;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_three_formats_load_identically(void **state)
{
    (void)state;
    ds_mesh meshes[3];
    for (int format = ASCII; format <= BIG; format++) {
        char name[32];
        snprintf(name, sizeof name, "full_%s.ply", format_names[format]);
        FILE *f = fopen(temp_path(name), "wb");
        assert_non_null(f);
        write_full_ply(f, (file_format)format, "\n");
        fclose(f);
        assert_int_equal(ds_load_mesh(temp_path(name), &meshes[format]), DS_OK);
        assert_reference_geometry(&meshes[format]);
        assert_memory_equal(meshes[format].normals, ref_normals, sizeof ref_normals);
        assert_memory_equal(meshes[format].colors, ref_colors, sizeof ref_colors);
        assert_int_equal(meshes[format].has_colors, 1);
        static const char *const expected_format[] = {"ply-ascii", "ply-binary-le", "ply-binary-be"};
        assert_string_equal(meshes[format].format, expected_format[format]);
    }
    assert_same_mesh(&meshes[ASCII], &meshes[LITTLE]);
    assert_same_mesh(&meshes[ASCII], &meshes[BIG]);
    for (int format = ASCII; format <= BIG; format++)
        ds_mesh_free(&meshes[format]);
}

static void test_crlf_header(void **state)
{
    (void)state;
    for (int format = ASCII; format <= BIG; format++) {
        char name[32];
        snprintf(name, sizeof name, "crlf_%s.ply", format_names[format]);
        FILE *f = fopen(temp_path(name), "wb");
        assert_non_null(f);
        write_full_ply(f, (file_format)format, "\r\n");
        fclose(f);
        ds_mesh mesh;
        assert_int_equal(ds_load_mesh(temp_path(name), &mesh), DS_OK);
        assert_reference_geometry(&mesh);
        assert_memory_equal(mesh.colors, ref_colors, sizeof ref_colors);
        ds_mesh_free(&mesh);
    }
}

/* A binary body whose first byte is '\r' (x = float with low byte 0x0d)
 * after a CRLF header: the body must start right after the '\n'. */
static void test_crlf_header_body_starts_after_newline(void **state)
{
    (void)state;
    static const char header[] = "ply\r\nformat binary_little_endian 1.0\r\nelement vertex 1\r\n"
                                 "property uint x\r\nproperty uint y\r\nproperty uint z\r\nend_header\r\n";
    unsigned char file[sizeof header - 1 + 12];
    memcpy(file, header, sizeof header - 1);
    const unsigned char body[12] = {0x0d, 0x0a, 0, 0, 0x0a, 0, 0, 0, 0x0d, 0, 0, 0};
    memcpy(file + sizeof header - 1, body, sizeof body);
    ds_mesh mesh;
    assert_int_equal(ds_load_ply_memory(file, sizeof file, "crlf.ply", &mesh), DS_OK);
    assert_int_equal(mesh.vertex_count, 1);
    assert_int_equal(mesh.triangle_count, 0);
    assert_float_equal(mesh.positions[0], 0x0a0d, 0);
    assert_float_equal(mesh.positions[1], 10, 0);
    assert_float_equal(mesh.positions[2], 13, 0);
    ds_mesh_free(&mesh);
}

typedef struct type_case {
    file_format format;
    const char *xyz_types[3];
    const char *count_type;
    const char *index_type;
} type_case;

static void write_typed(FILE *f, const void *arg)
{
    const type_case *c = arg;
    fprintf(f, "ply\nformat %s 1.0\nelement vertex %d\n", format_names[c->format], REF_VERTICES);
    fprintf(f, "property %s x\nproperty %s y\nproperty %s z\n", c->xyz_types[0], c->xyz_types[1], c->xyz_types[2]);
    fprintf(f, "element face 3\nproperty list %s %s vertex_indices\nend_header\n", c->count_type, c->index_type);
    for (int v = 0; v < REF_VERTICES; v++) {
        for (int k = 0; k < 3; k++)
            put_value(f, c->format, c->xyz_types[k], ref_positions[v][k]);
        end_item(f, c->format);
    }
    for (int face = 0; face < 3; face++) {
        for (int k = 0; k <= ref_faces[face][0]; k++)
            put_value(f, c->format, k == 0 ? c->count_type : c->index_type, ref_faces[face][k]);
        end_item(f, c->format);
    }
}

static void test_every_vertex_type(void **state)
{
    (void)state;
    size_t n = COUNT_OF(all_types);
    for (int format = ASCII; format <= BIG; format++)
        for (size_t t = 0; t < n; t++) {
            type_case c = {(file_format)format,
                           {all_types[t], all_types[(t + 5) % n], all_types[(t + 11) % n]},
                           "uchar", "int"};
            ds_mesh mesh;
            ds_status status = load_written(write_typed, &c, &mesh);
            if (status != DS_OK)
                fail_msg("%s %s/%s/%s: %s", format_names[format], c.xyz_types[0], c.xyz_types[1],
                         c.xyz_types[2], ds_last_error());
            assert_reference_geometry(&mesh);
            assert_int_equal(mesh.has_colors, 0); /* default colours from ds_mesh_finish */
            assert_non_null(mesh.colors);
            ds_mesh_free(&mesh);
        }
}

static void test_every_list_type(void **state)
{
    (void)state;
    for (int format = ASCII; format <= BIG; format++)
        for (size_t ct = 0; ct < COUNT_OF(integer_types); ct++)
            for (size_t it = 0; it < COUNT_OF(integer_types); it++) {
                type_case c = {(file_format)format, {"float", "float", "float"}, integer_types[ct],
                               integer_types[it]};
                ds_mesh mesh;
                ds_status status = load_written(write_typed, &c, &mesh);
                if (status != DS_OK)
                    fail_msg("%s list %s %s: %s", format_names[format], c.count_type, c.index_type,
                             ds_last_error());
                assert_reference_geometry(&mesh);
                ds_mesh_free(&mesh);
            }
}

static void write_float_colors(FILE *f, const void *arg)
{
    file_format format = *(const file_format *)arg;
    fprintf(f, "ply\nformat %s 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
               "property float z\nproperty float red\nproperty double green\nproperty float blue\n"
               "end_header\n",
            format_names[format]);
    const double rows[2][6] = {{0, 0, 0, 1.0, 0.5, 0.0}, {1, 2, 3, 2.0, -1.0, 0.2}};
    for (int v = 0; v < 2; v++) {
        for (int k = 0; k < 6; k++)
            put_value(f, format, k == 4 ? "double" : "float", rows[v][k]);
        end_item(f, format);
    }
}

static void test_float_colors_without_alpha(void **state)
{
    (void)state;
    for (int format = ASCII; format <= BIG; format++) {
        ds_mesh mesh;
        file_format fmt = (file_format)format;
        assert_int_equal(load_written(write_float_colors, &fmt, &mesh), DS_OK);
        /* 0..1 scaled, clamped, alpha opaque; a point cloud. */
        const uint8_t expected[2][4] = {{255, 128, 0, 255}, {255, 0, 51, 255}};
        assert_memory_equal(mesh.colors, expected, sizeof expected);
        assert_int_equal(mesh.triangle_count, 0);
        assert_null(mesh.indices);
        ds_mesh_free(&mesh);
    }
}

static void write_tristrips(FILE *f, const void *arg)
{
    file_format format = *(const file_format *)arg;
    fprintf(f, "ply\nformat %s 1.0\nelement tristrips 1\nproperty list int int vertex_indices\n"
               "element vertex 5\nproperty float x\nproperty float y\nproperty float z\nend_header\n",
            format_names[format]);
    /* 0 1 2 3 | restart | 2 3 4 4 0: the repeated 4 makes two degenerate
     * triangles that are dropped, but the winding keeps alternating. */
    const int strip[] = {10, 0, 1, 2, 3, -1, 2, 3, 4, 4, 0};
    for (size_t i = 0; i < COUNT_OF(strip); i++)
        put_value(f, format, "int", strip[i]);
    end_item(f, format);
    for (int v = 0; v < REF_VERTICES; v++) {
        for (int k = 0; k < 3; k++)
            put_value(f, format, "float", ref_positions[v][k]);
        end_item(f, format);
    }
}

static void test_tristrips(void **state)
{
    (void)state;
    for (int format = ASCII; format <= BIG; format++) {
        ds_mesh mesh;
        file_format fmt = (file_format)format;
        assert_int_equal(load_written(write_tristrips, &fmt, &mesh), DS_OK);
        const uint32_t expected[3][3] = {{0, 1, 2}, {2, 1, 3}, {2, 3, 4}};
        assert_int_equal(mesh.triangle_count, 3);
        assert_memory_equal(mesh.indices, expected, sizeof expected);
        ds_mesh_free(&mesh);
    }
}

static void test_vertex_index_spelling_and_point_cloud(void **state)
{
    (void)state;
    static const char with_faces[] = "ply\nformat ascii 1.0\nelement face 1\n"
                                     "property list uchar uint vertex_index\nelement vertex 3\n"
                                     "property float x\nproperty float y\nproperty float z\nend_header\n"
                                     "3 2 1 0\n0 0 0\n1 0 0\n0 1 0"; /* no final newline */
    ds_mesh mesh;
    assert_int_equal(ds_load_ply_memory(with_faces, sizeof with_faces - 1, "a.ply", &mesh), DS_OK);
    assert_int_equal(mesh.triangle_count, 1);
    assert_int_equal(mesh.indices[0], 2);
    assert_int_equal(mesh.indices[2], 0);
    ds_mesh_free(&mesh);

    static const char points[] = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                                 "property float y\nproperty float z\nelement face 0\n"
                                 "property list uchar int vertex_indices\nend_header\n\n1 2 3\n\n4 5 6\n";
    assert_int_equal(ds_load_ply_memory(points, sizeof points - 1, "b.ply", &mesh), DS_OK);
    assert_int_equal(mesh.vertex_count, 2);
    assert_int_equal(mesh.triangle_count, 0);
    assert_null(mesh.indices);
    assert_non_null(mesh.normals);
    assert_float_equal(mesh.positions[5], 6.0f, 0.0f);
    ds_mesh_free(&mesh);
}

/* Partial groups (nx without ny/nz, red without green) are skipped. */
static void test_partial_normal_and_color_groups_ignored(void **state)
{
    (void)state;
    static const char text[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                               "property float y\nproperty float z\nproperty float nx\nproperty uchar red\n"
                               "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                               "0 0 0 5 1\n1 0 0 5 1\n0 1 0 5 1\n3 0 1 2\n";
    ds_mesh mesh;
    assert_int_equal(ds_load_ply_memory(text, sizeof text - 1, "p.ply", &mesh), DS_OK);
    /* Recomputed normal of the CCW triangle in the XY plane: +Z. */
    assert_float_equal(mesh.normals[2], 1.0f, 1e-6f);
    assert_int_not_equal(mesh.colors[0], 1);
    ds_mesh_free(&mesh);
}


/* Float colours with a float alpha: the first triangle's vertices opaque,
 * the second's alpha 0 (the renderer must draw nothing there). */
static void write_float_rgba(FILE *f, const void *arg)
{
    file_format format = *(const file_format *)arg;
    fprintf(f, "ply\nformat %s 1.0\nelement vertex 6\nproperty float x\nproperty float y\n"
               "property float z\nproperty float red\nproperty float green\nproperty float blue\n"
               "property float alpha\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n",
            format_names[format]);
    for (int v = 0; v < 6; v++) {
        const double row[7] = {v % 3 == 1, v % 3 == 2, v / 3, 0.25 * (v % 3), 0.5, 1.0, v < 3 ? 1.0 : 0.0};
        for (int k = 0; k < 7; k++)
            put_value(f, format, "float", row[k]);
        end_item(f, format);
    }
    for (int t = 0; t < 2; t++) {
        put_value(f, format, "uchar", 3);
        for (int k = 0; k < 3; k++)
            put_value(f, format, "int", 3 * t + k);
        end_item(f, format);
    }
}

static void test_float_colors_with_alpha(void **state)
{
    (void)state;
    const uint8_t expected[6][4] = {{0, 128, 255, 255},  {64, 128, 255, 255},  {128, 128, 255, 255},
                                    {0, 128, 255, 0},    {64, 128, 255, 0},    {128, 128, 255, 0}};
    for (int format = ASCII; format <= BIG; format++) {
        ds_mesh mesh;
        file_format fmt = (file_format)format;
        assert_int_equal(load_written(write_float_rgba, &fmt, &mesh), DS_OK);
        assert_int_equal(mesh.triangle_count, 2);
        assert_int_equal(mesh.has_colors, 1);
        assert_memory_equal(mesh.colors, expected, sizeof expected);
        ds_mesh_free(&mesh);
    }
}

/* Normals as a file stores them: length 100 ones come out unit; zero ones
 * (3D Gaussian-splat files) come out as the faces' normal, or +Y in a point
 * cloud. */
static void test_normals_made_unit_or_recomputed(void **state)
{
    (void)state;
    /* Two triangles in the XY plane (face normal +Z): vertex 0..2 have
     * length-100 normals along X, vertex 3..5 zero normals. */
    static const char mesh_text[] = "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\n"
                                    "property float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                                    "property float nz\nelement face 2\nproperty list uchar int vertex_indices\n"
                                    "end_header\n"
                                    "0 0 0 100 0 0\n1 0 0 60 80 0\n0 1 0 0 0 -100\n"
                                    "0 0 1 0 0 0\n1 0 1 0 0 0\n0 1 1 0 0 0\n"
                                    "3 0 1 2\n3 3 4 5\n";
    const float expected[6][3] = {{1, 0, 0}, {0.6f, 0.8f, 0}, {0, 0, -1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    ds_mesh mesh;
    assert_int_equal(ds_load_ply_memory(mesh_text, sizeof mesh_text - 1, "n.ply", &mesh), DS_OK);
    for (int i = 0; i < 18; i++)
        assert_float_equal(mesh.normals[i], (&expected[0][0])[i], 1e-6f);
    ds_mesh_free(&mesh);

    static const char cloud_text[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                     "property float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                                     "property float nz\nend_header\n"
                                     "0 0 0 0 0 0\n1 2 3 0 0 0\n4 5 6 0 0 0.5\n";
    const float cloud_expected[3][3] = {{0, 1, 0}, {0, 1, 0}, {0, 0, 1}};
    assert_int_equal(ds_load_ply_memory(cloud_text, sizeof cloud_text - 1, "splat.ply", &mesh), DS_OK);
    assert_int_equal(mesh.triangle_count, 0);
    for (int i = 0; i < 9; i++)
        assert_float_equal(mesh.normals[i], (&cloud_expected[0][0])[i], 0.0f);
    ds_mesh_free(&mesh);
}

/* Headers that the old --info guesser (which re-read the file's first 4 KB)
 * called "ply": the loader reports the format it parsed. */
static void test_format_reported_for_unusual_headers(void **state)
{
    (void)state;
    static const char body[] = "\0\0\0\0\0\0\0\0\0\0\0\0"; /* one vertex at the origin */
    static const char vertex[] = "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n";
    char comments[6000];
    size_t comment_bytes = 0;
    while (comment_bytes + 64 < sizeof comments)
        comment_bytes += (size_t)snprintf(comments + comment_bytes, sizeof comments - comment_bytes,
                                          "comment %s\n", "forty characters of text to fill a line.");
    const struct {
        const char *what;
        const char *before; /* header text before the format line */
        size_t before_size;
        const char *format_line;
        const char *expected;
    } cases[] = {
        {"blank before format", "", 0, " \tformat binary_little_endian 1.0\n", "ply-binary-le"},
        {"NUL in a comment", "comment a\0b\n", 12, "format binary_big_endian 1.0\n", "ply-binary-be"},
        {"4 KB of comments", comments, comment_bytes, "format binary_little_endian 1.0\n", "ply-binary-le"},
    };
    assert_true(comment_bytes > 4096);
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        char *buffer = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buffer, &size);
        fputs("ply\n", f);
        fwrite(cases[i].before, 1, cases[i].before_size, f);
        fprintf(f, "%s%send_header\n", cases[i].format_line, vertex);
        fwrite(body, 1, 12, f);
        fclose(f);
        ds_mesh mesh;
        ds_status status = ds_load_ply_memory(buffer, size, "odd.ply", &mesh);
        free(buffer);
        if (status != DS_OK)
            fail_msg("%s: %s", cases[i].what, ds_last_error());
        if (!mesh.format || strcmp(mesh.format, cases[i].expected))
            fail_msg("%s: format %s, expected %s", cases[i].what, mesh.format ? mesh.format : "NULL",
                     cases[i].expected);
        ds_mesh_free(&mesh);
    }
}

/* The header may take up to 64 KiB; one byte more and it fails, naming the
 * limit, without reading on. */
static void test_header_length_limit(void **state)
{
    (void)state;
    static const char start[] = "ply\nformat ascii 1.0\n";
    static const char rest[] = "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                               "end_header\n";
    const size_t limit = 64 * 1024;
    for (int over = 0; over <= 1; over++) {
        /* Comment lines fill the header to exactly limit + over bytes. */
        size_t fill = limit + (size_t)over - (sizeof start - 1) - (sizeof rest - 1);
        size_t size = limit + (size_t)over + 6;
        char *text = malloc(size);
        memcpy(text, start, sizeof start - 1);
        char *p = text + sizeof start - 1;
        for (size_t left = fill; left > 0;) {
            size_t line = left > 80 ? 80 : left;
            if (left - line > 0 && left - line < 10)
                line = left - 10; /* keep every line at least "comment x\n" long */
            memcpy(p, "comment ", 8);
            memset(p + 8, 'x', line - 9);
            p[line - 1] = '\n';
            p += line;
            left -= line;
        }
        memcpy(p, rest, sizeof rest - 1);
        memcpy(p + sizeof rest - 1, "1 2 3\n", 6);
        assert_int_equal((size_t)(p + sizeof rest - 1 + 6 - text), size);
        ds_mesh mesh;
        ds_status status = ds_load_ply_memory(text, size, "long.ply", &mesh);
        free(text);
        if (!over) {
            if (status != DS_OK)
                fail_msg("a header of exactly 64 KiB: %s", ds_last_error());
            assert_float_equal(mesh.positions[2], 3.0f, 0.0f);
            ds_mesh_free(&mesh);
        } else {
            assert_int_equal(status, DS_ERR_PARSE);
            if (!strstr(ds_last_error(), "long.ply: line ") ||
                !strstr(ds_last_error(), "no end_header within the first 65536 bytes (the PLY header is limited to 64 KiB)"))
                fail_msg("a header of 64 KiB + 1: %s", ds_last_error());
        }
    }
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long page_faults(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt + usage.ru_majflt;
}

/* A 1 GiB file (sparse: nothing is written) that is not a PLY, or whose
 * header never ends, must fail on its first bytes: in well under a second
 * and with a few page faults, where reading the mapping to its end takes
 * seconds and faults the whole file in. */
static void test_large_non_ply_fails_on_first_bytes(void **state)
{
    (void)state;
    const off_t size = (off_t)1 << 30;
    const struct {
        const char *name;
        const char *head;
        const char *message;
    } cases[] = {
        {"zeros.ply", "", "zeros.ply: line 1: not a PLY file"},
        {"endless.ply", "ply\nformat ascii 1.0\n", "endless.ply: line 3: no end_header within the first 65536 bytes"},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        const char *path = temp_path(cases[i].name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        size_t head = strlen(cases[i].head);
        assert_int_equal(write(fd, cases[i].head, head), (ssize_t)head);
        if (ftruncate(fd, size) != 0)
            fail_msg("%s: cannot make a sparse 1 GiB file", path);
        close(fd);
        ds_mesh mesh;
        long faults = page_faults();
        double start = now_seconds();
        ds_status status = ds_load_mesh(path, &mesh);
        double seconds = now_seconds() - start;
        faults = page_faults() - faults;
        unlink(path);
        assert_int_equal(status, DS_ERR_PARSE);
        if (!strstr(ds_last_error(), cases[i].message))
            fail_msg("%s: \"%s\"", cases[i].name, ds_last_error());
        printf("%s: failed in %.4f s with %ld page faults\n", cases[i].name, seconds, faults);
        if (seconds > 1.0 || faults > 256)
            fail_msg("%s: %.3f s and %ld page faults to fail", cases[i].name, seconds, faults);
    }
}

/* --grid keeps what the loader said about the file. */
static void test_grid_keeps_format_and_colors(void **state)
{
    (void)state;
    ds_mesh mesh, grid;
    file_format fmt = BIG;
    assert_int_equal(load_written(write_float_rgba, &fmt, &mesh), DS_OK);
    assert_int_equal(ds_mesh_grid(&mesh, 2, 3, &grid), DS_OK);
    assert_non_null(grid.format);
    assert_string_equal(grid.format, "ply-binary-be");
    assert_int_equal(grid.has_colors, 1);
    assert_memory_equal(grid.colors + 4 * 6 * 5, mesh.colors, 4 * 6);
    ds_mesh_free(&grid);
    ds_mesh_free(&mesh);
}

/* ---- malformed input ------------------------------------------------------ */

typedef struct bad_case {
    const char *what;
    const char *text; /* NULL: use bytes/size */
    const unsigned char *bytes;
    size_t size;
    ds_status status;
    const char *message; /* must appear in ds_last_error() */
} bad_case;

#define HEADER_XYZ "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
#define ASCII_XYZ "ply\nformat ascii 1.0\n" HEADER_XYZ
#define FACES "element face 1\nproperty list uchar int vertex_indices\n"
#define THREE_VERTICES "0 0 0\n1 0 0\n0 1 0\n"

static const unsigned char binary_nan[] = "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                                          "property float x\nproperty float y\nproperty float z\nend_header\n"
                                          "\0\0\0\0\0\0\x80\x7f\0\0\0\0";
/* Two vertices of doubles; the second has z = 1e300 (0x7e37e43c8800759c). */
static const unsigned char binary_double_1e300[] = "ply\nformat binary_little_endian 1.0\nelement vertex 2\n"
                                                   "property double x\nproperty double y\nproperty double z\n"
                                                   "end_header\n"
                                                   "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
                                                   "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
                                                   "\x9c\x75\x00\x88\x3c\xe4\x37\x7e";
static const unsigned char binary_long_list[] = "ply\nformat binary_big_endian 1.0\n" HEADER_XYZ FACES
                                                "end_header\n"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\xff\0\0\0\0\0\0\0\1\0\0\0\2";
static const unsigned char binary_bad_index[] = "ply\nformat binary_little_endian 1.0\n" HEADER_XYZ FACES
                                                "end_header\n"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\0\0\0\0\0\0\0\0\0\0\0\0"
                                                "\3\0\0\0\0\1\0\0\0\xff\xff\xff\xff";
static const unsigned char binary_truncated_list[] = "ply\nformat binary_little_endian 1.0\n"
                                                     "element vertex 2\nproperty float x\nproperty float y\n"
                                                     "property float z\nproperty list uchar float extra\n"
                                                     "end_header\n"
                                                     "\0\0\0\0\0\0\0\0\0\0\0\0\0"
                                                     "\0\0\0\0\0\0\0\0\0\0\0\0\2\0\0";

static const bad_case bad_cases[] = {
    {"empty", "", NULL, 0, DS_ERR_PARSE, "bad.ply: empty file"},
    {"not a PLY", "1 2 3\n4 5 6\n", NULL, 0, DS_ERR_PARSE, "bad.ply: line 1: not a PLY file"},
    {"ply then more", "plyx\nformat ascii 1.0\n", NULL, 0, DS_ERR_PARSE, "bad.ply: line 1: not a PLY file"},
    {"ply then blank", "ply \nformat ascii 1.0\n", NULL, 0, DS_ERR_PARSE, "bad.ply: line 1: not a PLY file"},
    {"ply then cr", "ply\r", NULL, 0, DS_ERR_PARSE, "line 1: the file ends inside the header"},
    {"ply cr cr", "ply\r\rformat ascii 1.0\n", NULL, 0, DS_ERR_PARSE, "bad.ply: line 1: not a PLY file"},
    {"no end_header", ASCII_XYZ "0 0 0\n", NULL, 0, DS_ERR_PARSE,
     "line 7: unknown header keyword '0' (is end_header missing?)"},
    {"header ends at eof", ASCII_XYZ, NULL, 0, DS_ERR_PARSE, "line 7: the file ends inside the header (no end_header line)"},
    {"header only ply", "ply", NULL, 0, DS_ERR_PARSE, "line 1: the file ends inside the header"},
    {"unknown format", "ply\nformat binary_middle_endian 1.0\nend_header\n", NULL, 0, DS_ERR_PARSE,
     "line 2: unknown format 'binary_middle_endian'"},
    {"bad version", "ply\nformat ascii 2.0\nend_header\n", NULL, 0, DS_ERR_PARSE, "line 2: unsupported PLY version"},
    {"no format", "ply\n" HEADER_XYZ "end_header\n" THREE_VERTICES, NULL, 0, DS_ERR_PARSE, "end_header before any format"},
    {"unknown type", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float3 x\nend_header\n", NULL, 0,
     DS_ERR_PARSE, "line 4: unknown type 'float3'"},
    {"unknown keyword", "ply\nformat ascii 1.0\nelemnt vertex 1\nend_header\n", NULL, 0, DS_ERR_PARSE,
     "line 3: unknown header keyword 'elemnt'"},
    {"float list count", ASCII_XYZ "element face 1\nproperty list float int vertex_indices\nend_header\n", NULL, 0,
     DS_ERR_PARSE, "list count type must be an integer type, not float"},
    {"float indices", ASCII_XYZ "element face 1\nproperty list uchar float vertex_indices\nend_header\n" THREE_VERTICES "3 0 1 2\n", NULL, 0,
     DS_ERR_PARSE, "vertex indices must have an integer type"},
    {"property first", "ply\nformat ascii 1.0\nproperty float x\nend_header\n", NULL, 0, DS_ERR_PARSE,
     "line 3: property before any element"},
    {"missing y", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float z\nend_header\n0 0\n",
     NULL, 0, DS_ERR_PARSE, "line 3: the vertex element has no 'y' property"},
    {"no vertex element", "ply\nformat ascii 1.0\nelement point 1\nproperty float x\nend_header\n1\n", NULL, 0,
     DS_ERR_PARSE, "the header has no vertex element"},
    {"no vertices", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n",
     NULL, 0, DS_ERR_PARSE, "line 3: the file has no vertices"},
    {"negative count", "ply\nformat ascii 1.0\nelement vertex -3\nend_header\n", NULL, 0, DS_ERR_PARSE,
     "line 3: element count '-3' is not a non-negative integer"},
    {"huge count", "ply\nformat ascii 1.0\nelement vertex 4294967295\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n",
     NULL, 0, DS_ERR_PARSE, "line 3: element 'vertex' declares 4294967295 items, more than the 6 bytes"},
    {"huge face count", ASCII_XYZ "element face 4294967295\nproperty list uint uint vertex_indices\nend_header\n" THREE_VERTICES,
     NULL, 0, DS_ERR_PARSE, "element 'face' declares 4294967295 items"},
    {"huge skipped count", ASCII_XYZ "element junk 18446744073709551615\nproperty list uchar int a\nend_header\n" THREE_VERTICES,
     NULL, 0, DS_ERR_PARSE, "element 'junk' declares"},
    {"counts beyond data", ASCII_XYZ FACES "end_header\n" THREE_VERTICES, NULL, 0, DS_ERR_PARSE,
     "element 'face' declares 1 items, more than the 18 bytes"},
    {"truncated ascii", ASCII_XYZ "end_header\n0.0000 0.0000 0.0000\n1.0000 0.0000 0.0000\n", NULL, 0, DS_ERR_PARSE,
     "line 10: the file ends after 2 of 3 vertex items (truncated)"},
    {"too few values", ASCII_XYZ "end_header\n0 0 0\n1 0\n0 1 0 0\n", NULL, 0, DS_ERR_PARSE,
     "line 9: vertex 1 has fewer values than the header declares"},
    {"too many values", ASCII_XYZ "end_header\n0 0 0 7\n1 0 0\n0 1 0\n", NULL, 0, DS_ERR_PARSE,
     "line 8: unexpected '7' after the values of vertex 0"},
    {"bad number", ASCII_XYZ "end_header\n0 0 0\n1 abc 0\n0 1 0\n", NULL, 0, DS_ERR_PARSE,
     "line 9: 'abc' is not a valid float value"},
    {"index out of range", ASCII_XYZ FACES "end_header\n" THREE_VERTICES "3 0 1 7\n", NULL, 0, DS_ERR_PARSE,
     "line 13: face 0 uses vertex 7 but the file has 3 vertices"},
    {"negative index", ASCII_XYZ FACES "end_header\n" THREE_VERTICES "3 0 -1 2\n", NULL, 0, DS_ERR_PARSE,
     "line 13: face 0 has a negative vertex index -1"},
    {"two-vertex face", ASCII_XYZ FACES "end_header\n" THREE_VERTICES "2 0 1   \n", NULL, 0, DS_ERR_PARSE,
     "line 13: face 0 has 2 vertices (at least 3 needed)"},
    {"count type overflow", ASCII_XYZ FACES "end_header\n" THREE_VERTICES "300 0 1 2\n", NULL, 0, DS_ERR_PARSE,
     "line 13: 300 is out of range for type uchar"},
    {"index type overflow", ASCII_XYZ "element face 1\nproperty list uchar uchar vertex_indices\nend_header\n" THREE_VERTICES
     "3 0 1 256\n", NULL, 0, DS_ERR_PARSE, "line 13: 256 is out of range for type uchar"},
    {"list longer than file", ASCII_XYZ FACES "end_header\n" THREE_VERTICES "200 0 1 2\n", NULL, 0, DS_ERR_PARSE,
     "face 0 declares 200 vertex indices, more than the rest of the file holds"},
    {"nan ascii", ASCII_XYZ "end_header\n0 0 0\nnan 0 0\n0 1 0\n", NULL, 0, DS_ERR_PARSE,
     "line 9: vertex 1 has a NaN or infinite coordinate"},
    {"inf ascii", ASCII_XYZ "end_header\n0 0 0\n0 0 0\n0 -inf 0\n", NULL, 0, DS_ERR_PARSE,
     "line 10: vertex 2 has a NaN or infinite coordinate"},
    {"float ascii beyond float", ASCII_XYZ "end_header\n0 0 0\n0 0 0\n0 1e39 0\n", NULL, 0, DS_ERR_PARSE,
     "line 10: vertex 2 coordinate y = 1e+39 is out of float range"},
    {"double ascii beyond float", "ply\nformat ascii 1.0\nelement vertex 2\nproperty double x\nproperty double y\n"
     "property double z\nend_header\n0 0 0\n-1e300 0 0\n", NULL, 0, DS_ERR_PARSE,
     "line 9: vertex 1 coordinate x = -1e+300 is out of float range"},
    {"double normal beyond float", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
     "property float z\nproperty double nx\nproperty double ny\nproperty double nz\nend_header\n0 0 0 0 0 4e38\n",
     NULL, 0, DS_ERR_PARSE, "line 11: vertex 0 normal nz = 4e+38 is out of float range"},
    {"binary double beyond float", NULL, binary_double_1e300, sizeof binary_double_1e300 - 1, DS_ERR_PARSE,
     "byte 142: vertex 1 coordinate z = 1e+300 is out of float range"},
    {"nan binary", NULL, binary_nan, sizeof binary_nan - 1, DS_ERR_PARSE,
     "byte 115: vertex 0 has a NaN or infinite coordinate"},
    {"binary list too long", NULL, binary_long_list, sizeof binary_long_list - 1, DS_ERR_PARSE,
     "face 0 declares 255 vertex indices, more than the rest of the file holds"},
    {"binary index out of range", NULL, binary_bad_index, sizeof binary_bad_index - 1, DS_ERR_PARSE,
     "face 0 has a negative vertex index -1"},
    {"binary truncated list", NULL, binary_truncated_list, sizeof binary_truncated_list - 1, DS_ERR_PARSE,
     "the file ends inside vertex 1 of 2 (truncated)"},
    {"binary truncated", "ply\nformat binary_little_endian 1.0\n" HEADER_XYZ "end_header\n0123456789", NULL, 0,
     DS_ERR_PARSE, "element 'vertex' declares 3 items, more than the 10 bytes"},
    {"duplicate vertex element", ASCII_XYZ HEADER_XYZ "end_header\n", NULL, 0, DS_ERR_PARSE,
     "line 7: a second 'vertex' element"},
    {"duplicate x", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\nend_header\n", NULL, 0,
     DS_ERR_PARSE, "element 'vertex' has a second 'x' property"},
    {"list x", "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\nend_header\n", NULL, 0,
     DS_ERR_PARSE, "vertex property 'x' must be a scalar"},
    {"face without indices", ASCII_XYZ "element face 1\nproperty int flags\nend_header\n" THREE_VERTICES "1\n", NULL, 0,
     DS_ERR_PARSE, "element 'face' has no vertex_indices list"},
    {"element without properties", ASCII_XYZ "element nothing 5\nend_header\n" THREE_VERTICES, NULL, 0, DS_ERR_PARSE,
     "element 'nothing' has 5 items but no properties"},
};

static void test_malformed_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(bad_cases); i++) {
        const bad_case *c = &bad_cases[i];
        const void *data = c->text ? (const void *)c->text : (const void *)c->bytes;
        size_t size = c->text ? strlen(c->text) : c->size;
        ds_mesh mesh;
        memset(&mesh, 0x5a, sizeof mesh); /* poisoned: must come back empty */
        clock_t start = clock();
        ds_status status = ds_load_ply_memory(data, size, "bad.ply", &mesh);
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        if (status != c->status || !strstr(ds_last_error(), c->message) || !strstr(ds_last_error(), "bad.ply: "))
            fail_msg("case '%s': status %s, message \"%s\"; expected %s with \"%s\"", c->what,
                     ds_status_str(status), ds_last_error(), ds_status_str(c->status), c->message);
        assert_null(mesh.positions);
        assert_null(mesh.indices);
        assert_int_equal(mesh.vertex_count, 0);
        assert_true(seconds < 0.5); /* huge counts fail without allocating or looping */
    }
}

/* Every prefix of a valid binary file is a truncation: all must fail cleanly
 * (under ASan: without reading past the end). */
static void test_every_truncation_fails(void **state)
{
    (void)state;
    ds_log_set_quiet(1); /* hundreds of expected failures */
    for (int format = ASCII; format <= BIG; format++) {
        char *buffer = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buffer, &size);
        write_full_ply(f, (file_format)format, "\n");
        fclose(f);
        size_t header_end = (size_t)(strstr(buffer, "end_header\n") - buffer) + 11;
        for (size_t cut = 0; cut < size; cut++) {
            char *copy = malloc(cut ? cut : 1); /* exact size, so ASan sees overreads */
            memcpy(copy, buffer, cut);
            ds_mesh mesh;
            ds_status status = ds_load_ply_memory(copy, cut, "cut.ply", &mesh);
            free(copy);
            /* An ascii cut that only drops trailing blanks is still whole. */
            if (format == ASCII && strspn(buffer + cut, " \n") == size - cut) {
                assert_int_equal(status, DS_OK);
                ds_mesh_free(&mesh);
                continue;
            }
            if (status == DS_OK)
                fail_msg("%s cut at %zu of %zu loaded", format_names[format], cut, size);
            assert_int_equal(status, DS_ERR_PARSE);
            /* A cut body fails on the header's counts or at a byte offset. */
            if (cut >= header_end && format != ASCII && !strstr(ds_last_error(), "byte ") &&
                !strstr(ds_last_error(), "bytes after the header"))
                fail_msg("%s cut at %zu: %s", format_names[format], cut, ds_last_error());
        }
        free(buffer);
    }
    ds_log_set_quiet(0);
}

static void test_load_mesh_file_errors(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_load_mesh(temp_path("missing.ply"), &mesh), DS_ERR_IO);
    assert_non_null(strstr(ds_last_error(), "missing.ply: cannot open: No such file"));
    assert_int_equal(ds_load_mesh(temp_dir, &mesh), DS_ERR_IO);
    assert_non_null(strstr(ds_last_error(), "is a directory"));

    FILE *f = fopen(temp_path("empty.ply"), "wb");
    fclose(f);
    assert_int_equal(ds_load_mesh(temp_path("empty.ply"), &mesh), DS_ERR_PARSE);
    assert_non_null(strstr(ds_last_error(), "empty.ply: empty file"));

    f = fopen(temp_path("points.ply"), "wb");
    fputs("1 2 3\n4 5 6\n", f);
    fclose(f);
    assert_int_equal(ds_load_mesh(temp_path("points.ply"), &mesh), DS_ERR_PARSE);
    assert_non_null(strstr(ds_last_error(), "points.ply: line 1: not a PLY file"));

    f = fopen(temp_path("model.stl"), "wb");
    fputs("solid x\n", f);
    fclose(f);
    assert_int_equal(ds_load_mesh(temp_path("model.stl"), &mesh), DS_ERR_PARSE);
    assert_non_null(strstr(ds_last_error(), "model.stl: unknown format"));

    /* Dispatch is by content: a PLY named .obj still loads as PLY. */
    f = fopen(temp_path("really_ply.OBJ"), "wb");
    write_full_ply(f, LITTLE, "\n");
    fclose(f);
    assert_int_equal(ds_load_mesh(temp_path("really_ply.OBJ"), &mesh), DS_OK);
    assert_reference_geometry(&mesh);
    ds_mesh_free(&mesh);
}

/* ---- number parsing ------------------------------------------------------- */

static int64_t float_ulp_distance(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    return llabs((int64_t)ia - (int64_t)ib);
}

static void check_float_text(const char *text)
{
    float parsed = -12345.0f;
    const char *end = parse_float(text, text + strlen(text), &parsed);
    char *stop;
    float expected = strtof(text, &stop);
    if (!end || end != stop)
        fail_msg("parse_float(\"%s\") consumed %td chars, strtof %td", text, end ? end - text : -1, stop - text);
    if (isnan(expected)) {
        assert_true(isnan(parsed));
        return;
    }
    if (float_ulp_distance(parsed, expected) > 1)
        fail_msg("parse_float(\"%s\") = %.9g, strtof = %.9g", text, parsed, expected);
}

static void test_parse_float_within_one_ulp_of_strtof(void **state)
{
    (void)state;
    const char *fixed[] = {"0", "-0", "1", "+1.5", ".5", "5.", "0.032027", "-0.0503644", "1e10",
                           "1E-10", "3.4028235e38", "3.4028236e38", "1e39", "-1e39", "1.17549435e-38",
                           "1.4e-45", "7e-46", "1e-50", "123456789012345678901234567890",
                           "0.000000000000000000000000000001234567890123456789", "9007199254740993",
                           "1e", "2e+", "inf", "-Infinity", "nan", "4.2e22", "4.2e23",
                           "0.30000000000000004", "00000000000000000000000001.5"};
    for (size_t i = 0; i < COUNT_OF(fixed); i++)
        check_float_text(fixed[i]);
    unsigned seed = 20240601u;
    printf("parse_float vs strtof: seed %u\n", seed);
    srand(seed);
    for (int i = 0; i < 200000; i++) {
        char text[64];
        double magnitude = pow(10.0, rand() % 80 - 40);
        double value = ((double)rand() / RAND_MAX - 0.5) * magnitude;
        int digits = rand() % 12;
        switch (i % 3) {
        case 0:
            snprintf(text, sizeof text, "%.*e", digits, value);
            break;
        case 1:
            snprintf(text, sizeof text, "%.*f", digits, value);
            break;
        default:
            snprintf(text, sizeof text, "%.*g", digits + 6, value);
            break;
        }
        check_float_text(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_formats_load_identically),
        cmocka_unit_test(test_crlf_header),
        cmocka_unit_test(test_crlf_header_body_starts_after_newline),
        cmocka_unit_test(test_every_vertex_type),
        cmocka_unit_test(test_every_list_type),
        cmocka_unit_test(test_float_colors_without_alpha),
        cmocka_unit_test(test_float_colors_with_alpha),
        cmocka_unit_test(test_normals_made_unit_or_recomputed),
        cmocka_unit_test(test_format_reported_for_unusual_headers),
        cmocka_unit_test(test_header_length_limit),
        cmocka_unit_test(test_large_non_ply_fails_on_first_bytes),
        cmocka_unit_test(test_grid_keeps_format_and_colors),
        cmocka_unit_test(test_tristrips),
        cmocka_unit_test(test_vertex_index_spelling_and_point_cloud),
        cmocka_unit_test(test_partial_normal_and_color_groups_ignored),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_every_truncation_fails),
        cmocka_unit_test(test_load_mesh_file_errors),
        cmocka_unit_test(test_parse_float_within_one_ulp_of_strtof),
    };
    return cmocka_run_group_tests(tests, make_temp_dir, remove_temp_dir);
}
