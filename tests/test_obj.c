/* SPDX-License-Identifier: MIT */
/* test_obj.c — the OBJ loader on text this test writes itself: the four
 * face-corner forms, negative indices, n-gons, ignored statements, CRLF,
 * vertex colours (and has_colors), the reported format, per-corner normals
 * (used when consistent and made unit length, recomputed otherwise or when
 * zero), and malformed input with its status and message. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "load.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static ds_mesh load_ok(const char *text)
{
    ds_mesh mesh;
    ds_status status = ds_load_obj_memory(text, strlen(text), "test.obj", &mesh);
    if (status != DS_OK)
        fail_msg("load failed: %s", ds_last_error());
    return mesh;
}

static const char square_vertices[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n";

static void test_corner_forms_agree(void **state)
{
    (void)state;
    const char *faces[] = {"f 1 2 3\nf 1 3 4\n", "f 1/1 2/2 3/3\nf 1/1 3/3 4/1\n",
                           "f 1//1 2//1 3//1\nf 1//1 3//1 4//1\n", "f 1/1/1 2/2/1 3/3/1\nf 1/1/1 3/3/1 4/1/1\n",
                           "f -4 -3 -2\nf -4/-3/-1 -2//-1 -1/-1\n"};
    const uint32_t expected[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (size_t i = 0; i < COUNT_OF(faces); i++) {
        char text[256];
        snprintf(text, sizeof text, "%s%s", square_vertices, faces[i]);
        ds_mesh mesh = load_ok(text);
        assert_int_equal(mesh.vertex_count, 4);
        assert_int_equal(mesh.triangle_count, 2);
        assert_memory_equal(mesh.indices, expected, sizeof expected);
        assert_float_equal(mesh.positions[6], 1.0f, 0.0f);
        assert_string_equal(mesh.format, "obj");
        assert_int_equal(mesh.has_colors, 0);
        ds_mesh_free(&mesh);
    }
}

/* Negative indices count back from the vertices defined so far, which
 * grows as the file goes on. */
static void test_negative_indices_are_relative(void **state)
{
    (void)state;
    ds_mesh mesh = load_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf -4 -1 -2\n");
    const uint32_t expected[2][3] = {{0, 1, 2}, {0, 3, 2}};
    assert_int_equal(mesh.triangle_count, 2);
    assert_memory_equal(mesh.indices, expected, sizeof expected);
    ds_mesh_free(&mesh);
}

static void test_ngon_fan_and_ignored_statements(void **state)
{
    (void)state;
    ds_mesh mesh = load_ok("# a hexagon\nmtllib scene.mtl\no hexagon\ng group1\ns off\nusemtl red\n"
                           "v 1 0 0\nv 2 0 0\nv 3 1 0\nv 2 2 0\nv 1 2 0\nv 0 1 0\nvt 0.5 0.5\nvp 1 2\n"
                           "  \t\n\nf 1 2 3 4 5 6 # trailing comment\nl 1 2\np 3\n");
    const uint32_t expected[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
    assert_int_equal(mesh.vertex_count, 6);
    assert_int_equal(mesh.triangle_count, 4);
    assert_memory_equal(mesh.indices, expected, sizeof expected);
    ds_mesh_free(&mesh);
}

static void test_crlf_and_no_final_newline(void **state)
{
    (void)state;
    ds_mesh lf = load_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    ds_mesh crlf = load_ok("v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3");
    assert_int_equal(crlf.triangle_count, 1);
    assert_memory_equal(lf.positions, crlf.positions, 9 * sizeof(float));
    assert_memory_equal(lf.indices, crlf.indices, 3 * sizeof(uint32_t));
    ds_mesh_free(&lf);
    ds_mesh_free(&crlf);
}

static void test_vertex_colors_and_w(void **state)
{
    (void)state;
    ds_mesh mesh = load_ok("v 0 0 0 1\nv 1 0 0 1 0.5 0\nv 0 1 0 2 -1 0.2\nf 1 2 3\n");
    /* The first vertex has none: white; values are 0..1, clamped. */
    const uint8_t expected[3][4] = {{255, 255, 255, 255}, {255, 128, 0, 255}, {255, 0, 51, 255}};
    assert_memory_equal(mesh.colors, expected, sizeof expected);
    assert_float_equal(mesh.positions[3], 1.0f, 0.0f);
    assert_int_equal(mesh.has_colors, 1);
    ds_mesh_free(&mesh);

    /* Every vertex coloured, as exporters write `v x y z r g b`. */
    mesh = load_ok("v 0 0 0 0.2 0.4 0.6\nv 1 0 0 1 1 1\nv 0 1 0 0 0 0\nv 1 1 0 0.5 0.5 0.5\nf 1 2 3\nf 2 4 3\n");
    const uint8_t all[4][4] = {{51, 102, 153, 255}, {255, 255, 255, 255}, {0, 0, 0, 255}, {128, 128, 128, 255}};
    assert_memory_equal(mesh.colors, all, sizeof all);
    assert_int_equal(mesh.has_colors, 1);
    assert_int_equal(mesh.triangle_count, 2);
    ds_mesh_free(&mesh);
}

static void test_consistent_normals_are_used(void **state)
{
    (void)state;
    /* A flat triangle in XY whose file normals are tilted (not the face
     * normal), so we can tell them from recomputed ones. */
    ds_mesh mesh = load_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 3 4\nvn 1 0 0\nf 1//1 2//2 3//1\n");
    const float expected[3][3] = {{0, 0.6f, 0.8f}, {1, 0, 0}, {0, 0.6f, 0.8f}};
    for (int i = 0; i < 9; i++)
        assert_float_equal(mesh.normals[i], (&expected[0][0])[i], 1e-6f);
    ds_mesh_free(&mesh);

    /* A zero file normal is recomputed from the faces (+Z here); the
     * others are made unit length; vertex 4, in no face, gets +Y. */
    mesh = load_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 5 5 5\nvn 0 0 0\nvn 0 -100 0\n"
                   "f 1//1 2//2 3//1\n");
    const float recomputed[4][3] = {{0, 0, 1}, {0, -1, 0}, {0, 0, 1}, {0, 1, 0}};
    for (int i = 0; i < 12; i++)
        assert_float_equal(mesh.normals[i], (&recomputed[0][0])[i], 1e-6f);
    ds_mesh_free(&mesh);
}

static void test_inconsistent_normals_are_recomputed(void **state)
{
    (void)state;
    /* Vertex 1 gets two different normals, and another file has a corner
     * without one: both fall back to area-weighted normals (+Z here). */
    const char *texts[] = {"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvn 1 0 0\nvn 0 1 0\n"
                           "f 1//1 2//1 3//1\nf 2//2 4//2 3//2\n",
                           "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 1 0 0\nf 1//1 2 3//1\n"};
    for (size_t t = 0; t < COUNT_OF(texts); t++) {
        ds_mesh mesh = load_ok(texts[t]);
        for (size_t v = 0; v < mesh.vertex_count; v++) {
            assert_float_equal(mesh.normals[3 * v + 0], 0.0f, 1e-6f);
            assert_float_equal(mesh.normals[3 * v + 2], 1.0f, 1e-6f);
        }
        ds_mesh_free(&mesh);
    }
}

static void test_point_cloud_and_file_dispatch(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_obj_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/cloud.OBJ", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("v 1 2 3\nv 4 5 6\nvn 0 0 1\n", f);
    fclose(f);
    ds_mesh mesh;
    ds_status status = ds_load_mesh(path, &mesh);
    unlink(path);
    rmdir(dir);
    assert_int_equal(status, DS_OK);
    assert_int_equal(mesh.vertex_count, 2);
    assert_int_equal(mesh.triangle_count, 0);
    assert_null(mesh.indices);
    assert_non_null(mesh.normals);
    assert_non_null(mesh.colors);
    ds_mesh_free(&mesh);
}

typedef struct bad_case {
    const char *text;
    ds_status status;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"", DS_ERR_PARSE, "bad.obj: empty file"},
    {"# nothing\ng x\n", DS_ERR_PARSE, "bad.obj: no 'v' lines"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 5\n", DS_ERR_PARSE,
     "bad.obj: line 4: face refers to vertex 5 but only 3 are defined so far"},
    {"v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n", DS_ERR_PARSE,
     "line 2: face refers to vertex 2 but only 1 are defined so far"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", DS_ERR_PARSE, "line 4: face refers to vertex -4 but only 3"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", DS_ERR_PARSE, "line 4: face uses vertex index 0"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", DS_ERR_PARSE,
     "line 4: face refers to normal 1 but only 0 are defined so far"},
    {"v 0 0 0\nv 1 0 0\nf 1 2\n", DS_ERR_PARSE, "line 3: face has 2 vertices (at least 3 needed)"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", DS_ERR_PARSE, "line 4: 'x' is not a valid face corner"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/4/5/6\n", DS_ERR_PARSE, "line 4: '3/4/5/6' is not a valid face corner"},
    {"v 0 0 0\nv 1 nan 0\n", DS_ERR_PARSE, "line 2: vertex 2 has a NaN or infinite coordinate"},
    {"v 0 0 0\nv 1 0 inf\n", DS_ERR_PARSE, "line 2: vertex 2 has a NaN or infinite coordinate"},
    {"v 0 0 0\nv 1 0 1e40\n", DS_ERR_PARSE, "line 2: vertex 2 coordinate z = 1e+40 is out of float range"},
    {"v 1e39 0 0\n", DS_ERR_PARSE, "line 1: vertex 1 coordinate x = 1e+39 is out of float range"},
    {"v 0 0 0\nvn 0 -1e300 0\n", DS_ERR_PARSE, "line 2: normal 1 component y = -1e+300 is out of float range"},
    {"v 0 0\n", DS_ERR_PARSE, "line 1: 'v' needs x y z, x y z w or x y z r g b (got 2 numbers)"},
    {"v 0 0 0 1 1\n", DS_ERR_PARSE, "(got 5 numbers)"},
    {"v 0 0 0 1 1 1 1\n", DS_ERR_PARSE, "line 1: unexpected '1' (too many numbers)"},
    {"v 0 0 zero\n", DS_ERR_PARSE, "line 1: 'zero' is not a valid number"},
    {"v 0 0 0\nvn 0 0\n", DS_ERR_PARSE, "line 2: 'vn' needs 3 numbers (got 2)"},
    {"v 0 0 0\nvn 0 inf 0\n", DS_ERR_PARSE, "line 2: normal 1 has a NaN or infinite component"},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(bad_cases); i++) {
        const bad_case *c = &bad_cases[i];
        size_t size = strlen(c->text);
        char *copy = malloc(size ? size : 1); /* exact size: ASan sees overreads */
        memcpy(copy, c->text, size);
        ds_mesh mesh;
        memset(&mesh, 0x5a, sizeof mesh);
        ds_status status = ds_load_obj_memory(copy, size, "bad.obj", &mesh);
        free(copy);
        if (status != c->status || !strstr(ds_last_error(), c->message))
            fail_msg("case %zu: status %s, message \"%s\"; expected %s with \"%s\"", i, ds_status_str(status),
                     ds_last_error(), ds_status_str(c->status), c->message);
        assert_null(mesh.positions);
        assert_null(mesh.indices);
    }
}

/* Every prefix of a valid file either loads or fails cleanly. */
static void test_every_prefix_is_safe(void **state)
{
    (void)state;
    static const char text[] = "v 0 0 0 1 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\n"
                               "f 1//1 2//1 3//1 4//1\nf -4/1/-1 -3/2/-1 -2/3/-1\n";
    ds_log_set_quiet(1);
    for (size_t cut = 0; cut <= sizeof text - 1; cut++) {
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, text, cut);
        ds_mesh mesh;
        ds_status status = ds_load_obj_memory(copy, cut, "cut.obj", &mesh);
        free(copy);
        assert_true(status == DS_OK || status == DS_ERR_PARSE);
        if (status == DS_OK)
            assert_true(mesh.vertex_count >= 1);
        ds_mesh_free(&mesh);
    }
    ds_log_set_quiet(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corner_forms_agree),
        cmocka_unit_test(test_negative_indices_are_relative),
        cmocka_unit_test(test_ngon_fan_and_ignored_statements),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_vertex_colors_and_w),
        cmocka_unit_test(test_consistent_normals_are_used),
        cmocka_unit_test(test_inconsistent_normals_are_recomputed),
        cmocka_unit_test(test_point_cloud_and_file_dispatch),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_every_prefix_is_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
