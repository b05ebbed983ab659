/* SPDX-License-Identifier: MIT */
/* test_scene.c — invariants of every built-in scene at several sizes
 * (counts near the request, indices in range, finite bounds, unit normals,
 * no degenerate triangles, consistent orientation, closed surfaces where
 * the scene promises one), and the --scene NAME[:SIZE] parser. The scenes
 * are deterministic; no random input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene.h"

static void triangle_cross(const ds_mesh *mesh, size_t t, double cross[3])
{
    const uint32_t *tri = mesh->indices + 3 * t;
    const float *a = mesh->positions + 3 * (size_t)tri[0];
    const float *b = mesh->positions + 3 * (size_t)tri[1];
    const float *c = mesh->positions + 3 * (size_t)tri[2];
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b[k] - a[k];
        e2[k] = (double)c[k] - a[k];
    }
    cross[0] = e1[1] * e2[2] - e1[2] * e2[1];
    cross[1] = e1[2] * e2[0] - e1[0] * e2[2];
    cross[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

/* Checks that hold for every scene and size. */
static void check_common(const char *name, size_t requested, const ds_mesh *mesh)
{
    double ratio = (double)mesh->triangle_count / (double)requested;
    double tolerance = requested <= 2000 ? 0.15 : 0.05;
    if (fabs(ratio - 1.0) > tolerance)
        fail_msg("%s:%zu made %zu triangles (ratio %.3f)", name, requested, mesh->triangle_count, ratio);
    assert_true(mesh->vertex_count > 0);
    assert_non_null(mesh->normals);
    assert_non_null(mesh->colors);
    for (int k = 0; k < 3; k++) {
        assert_true(isfinite(mesh->bounds_min[k]) && isfinite(mesh->bounds_max[k]));
        assert_true(mesh->bounds_min[k] < mesh->bounds_max[k]);
    }
    assert_true(mesh->radius > 0.0f && isfinite(mesh->radius));
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        if (mesh->indices[i] >= mesh->vertex_count)
            fail_msg("%s: index %zu is %u, vertex count %zu", name, i, mesh->indices[i], mesh->vertex_count);
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v, *n = mesh->normals + 3 * v;
        for (int k = 0; k < 3; k++)
            assert_true(p[k] >= mesh->bounds_min[k] && p[k] <= mesh->bounds_max[k]);
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (fabsf(length - 1.0f) > 1e-4f)
            fail_msg("%s: normal %zu has length %f", name, v, (double)length);
        assert_int_equal(mesh->colors[4 * v + 3], 255);
    }
    /* Each face turns the same way as its vertex normals (ccw = front). */
    size_t disagree = 0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double cross[3], dot = 0.0;
        triangle_cross(mesh, t, cross);
        for (int c = 0; c < 3; c++) {
            const float *n = mesh->normals + 3 * (size_t)mesh->indices[3 * t + c];
            dot += cross[0] * n[0] + cross[1] * n[1] + cross[2] * n[2];
        }
        disagree += !(dot > 0.0);
    }
    if (disagree * 1000 > mesh->triangle_count)
        fail_msg("%s:%zu: %zu of %zu faces oppose their vertex normals", name, requested, disagree,
                 mesh->triangle_count);
}

/* No repeated corner and no (near) zero area, relative to the scene's size
 * and resolution. */
static void check_no_degenerate(const char *name, const ds_mesh *mesh)
{
    double min_area = INFINITY;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * t;
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
            fail_msg("%s: triangle %zu repeats a vertex", name, t);
        double cross[3];
        triangle_cross(mesh, t, cross);
        double area = 0.5 * sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
        if (area < min_area)
            min_area = area;
    }
    /* The mean triangle covers about radius^2 / count; allow 1e-4 of it. */
    double mean = (double)mesh->radius * mesh->radius / (double)mesh->triangle_count;
    if (!(min_area > 1e-4 * mean))
        fail_msg("%s: smallest triangle area %g (mean scale %g)", name, min_area, mean);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int on_box_side(const float *p, int axis, float side)
{
    return fabsf(p[axis] - side) < 1e-5f;
}

/* Every directed edge is used once (an oriented manifold), and every edge
 * has a partner running the other way unless both ends lie on one side of
 * the box [-1,1]^3 (`open_at_box`) — i.e. the surface is closed inside. */
static void check_closed(const char *name, const ds_mesh *mesh, int open_at_box)
{
    size_t count = 3 * mesh->triangle_count;
    uint64_t *edges = malloc(count * sizeof *edges);
    assert_non_null(edges);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        for (int c = 0; c < 3; c++) {
            uint64_t a = mesh->indices[3 * t + c], b = mesh->indices[3 * t + (c + 1) % 3];
            edges[3 * t + c] = a << 32 | b;
        }
    qsort(edges, count, sizeof *edges, compare_u64);
    size_t open = 0;
    for (size_t i = 0; i < count; i++) {
        if (i + 1 < count && edges[i] == edges[i + 1])
            fail_msg("%s: directed edge %llu->%llu used twice", name, (unsigned long long)(edges[i] >> 32),
                     (unsigned long long)(edges[i] & 0xffffffffu));
        uint64_t reverse = (edges[i] & 0xffffffffu) << 32 | edges[i] >> 32;
        if (bsearch(&reverse, edges, count, sizeof *edges, compare_u64))
            continue;
        const float *a = mesh->positions + 3 * (edges[i] >> 32);
        const float *b = mesh->positions + 3 * (edges[i] & 0xffffffffu);
        int allowed = 0;
        for (int axis = 0; axis < 3 && open_at_box; axis++)
            for (int side = -1; side <= 1; side += 2)
                allowed |= on_box_side(a, axis, (float)side) && on_box_side(b, axis, (float)side);
        if (!allowed)
            fail_msg("%s: edge %llu->%llu has no partner (a hole)", name,
                     (unsigned long long)(edges[i] >> 32), (unsigned long long)(edges[i] & 0xffffffffu));
        open++;
    }
    if (!open_at_box)
        assert_int_equal(open, 0);
    free(edges);
}

/* The surfaces the scenes promise: the gyroid is closed inside the box
 * (open only where the box cuts it), the shells are closed everywhere. */
static void check_promised_surface(const char *name, const ds_mesh *mesh)
{
    if (!strcmp(name, "gyroid"))
        check_closed(name, mesh, 1);
    if (!strcmp(name, "shells"))
        check_closed(name, mesh, 0);
}

static void test_registry(void **state)
{
    (void)state;
    int count = ds_scene_count();
    assert_true(count >= 2);
    int has_default = 0;
    for (int i = 0; i < count; i++) {
        assert_non_null(ds_scene_name(i));
        assert_true(strlen(ds_scene_name(i)) > 0);
        assert_true(strlen(ds_scene_description(i)) > 0);
        has_default |= !strcmp(ds_scene_name(i), DS_SCENE_DEFAULT);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(ds_scene_name(i), ds_scene_name(j));
    }
    assert_true(has_default);
    assert_null(ds_scene_name(count));
    assert_null(ds_scene_name(-1));
}

static void test_every_scene_every_size(void **state)
{
    (void)state;
    static const size_t sizes[] = {1000, 7000, 20000, 300000};
    for (int s = 0; s < ds_scene_count(); s++) {
        const char *name = ds_scene_name(s);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            ds_mesh mesh;
            assert_int_equal(ds_scene_build(name, sizes[i], &mesh), DS_OK);
            check_common(name, sizes[i], &mesh);
            if (sizes[i] <= 20000)
                check_no_degenerate(name, &mesh);
            check_promised_surface(name, &mesh);
            ds_mesh_free(&mesh);
        }
    }
}

/* Requests below a scene's smallest form still give a valid, non-empty
 * mesh (of that smallest form). */
static void test_tiny_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 30, 100};
    for (int s = 0; s < ds_scene_count(); s++) {
        const char *name = ds_scene_name(s);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            ds_mesh mesh;
            assert_int_equal(ds_scene_build(name, sizes[i], &mesh), DS_OK);
            assert_true(mesh.triangle_count > 0);
            assert_true(mesh.triangle_count <= 1000);
            for (size_t k = 0; k < 3 * mesh.triangle_count; k++)
                assert_true(mesh.indices[k] < mesh.vertex_count);
            check_no_degenerate(name, &mesh);
            check_promised_surface(name, &mesh);
            ds_mesh_free(&mesh);
        }
    }
}

static void test_gyroid_fills_box_and_is_deterministic(void **state)
{
    (void)state;
    ds_mesh a, b;
    assert_int_equal(ds_scene_build("gyroid", 50000, &a), DS_OK);
    assert_int_equal(ds_scene_build("gyroid", 50000, &b), DS_OK);
    /* The gyroid crosses every face of the box [-1,1]^3. */
    for (int k = 0; k < 3; k++) {
        assert_float_equal(a.bounds_min[k], -1.0f, 0.05f);
        assert_float_equal(a.bounds_max[k], 1.0f, 0.05f);
    }
    /* Parallel slabs must not change the output. */
    assert_int_equal(a.vertex_count, b.vertex_count);
    assert_int_equal(a.triangle_count, b.triangle_count);
    assert_memory_equal(a.positions, b.positions, 3 * a.vertex_count * sizeof(float));
    assert_memory_equal(a.indices, b.indices, 3 * a.triangle_count * sizeof(uint32_t));
    /* Shared vertices, not triangle soup: a closed-ish surface has about
     * half as many vertices as triangles. */
    assert_true(a.vertex_count < a.triangle_count * 6 / 10);
    ds_mesh_free(&a);
    ds_mesh_free(&b);
}

static void test_planes_layers(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("planes", 2400, &mesh), DS_OK);
    /* Vertices facing +Z sit at 6 distinct depths, one colour per depth. */
    float depths[16];
    uint8_t colors[16][3];
    int layers = 0;
    for (size_t v = 0; v < mesh.vertex_count; v++) {
        if (mesh.normals[3 * v + 2] != 1.0f)
            continue;
        float z = mesh.positions[3 * v + 2];
        int found = -1;
        for (int i = 0; i < layers; i++)
            if (depths[i] == z)
                found = i;
        if (found < 0) {
            assert_true(layers < 16);
            depths[layers] = z;
            memcpy(colors[layers], mesh.colors + 4 * v, 3);
            found = layers++;
        }
        assert_memory_equal(colors[found], mesh.colors + 4 * v, 3);
    }
    assert_int_equal(layers, 6);
    for (int i = 1; i < layers; i++)
        assert_memory_not_equal(colors[i], colors[i - 1], 3);
    ds_mesh_free(&mesh);
}

/* Pearson correlation between a triangle's place in the index array and
 * its centroid's coordinate along `direction`. */
static double order_correlation(const ds_mesh *mesh, const double direction[3])
{
    double n = (double)mesh->triangle_count, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double along = 0.0;
        for (int c = 0; c < 3; c++) {
            const float *p = mesh->positions + 3 * (size_t)mesh->indices[3 * t + c];
            along += (p[0] * direction[0] + p[1] * direction[1] + p[2] * direction[2]) / 3.0;
        }
        double x = (double)t;
        sx += x, sy += along, sxx += x * x, syy += along * along, sxy += x * along;
    }
    double cov = sxy / n - (sx / n) * (sy / n);
    double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
    return vx > 0.0 && vy > 0.0 ? cov / sqrt(vx * vy) : 0.0;
}

/* No scene comes depth-sorted for any axis view or for the first camera
 * (eye on +Z, 20 degrees above the horizon): unsorted blending must look
 * different from the start. A sweep-ordered gyroid correlates at about 1
 * with Z; a shuffled one at about 0. */
static void test_triangle_order_follows_no_view(void **state)
{
    (void)state;
    const double pitch = 20.0 * M_PI / 180.0;
    const double directions[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, sin(pitch), cos(pitch)}};
    for (int s = 0; s < ds_scene_count(); s++) {
        const char *name = ds_scene_name(s);
        ds_mesh mesh;
        assert_int_equal(ds_scene_build(name, 60000, &mesh), DS_OK);
        for (int d = 0; d < 4; d++) {
            double r = order_correlation(&mesh, directions[d]);
            fprintf(stderr, "%s: order vs direction %d: correlation %.3f\n", name, d, r);
            if (fabs(r) > 0.1)
                fail_msg("%s: triangle order correlates %.3f with direction %d", name, r, d);
        }
        ds_mesh_free(&mesh);
    }
}

static void test_default_size(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build(DS_SCENE_DEFAULT, 0, &mesh), DS_OK);
    double ratio = (double)mesh.triangle_count / DS_SCENE_DEFAULT_SIZE;
    assert_true(ratio > 0.95 && ratio < 1.05);
    ds_mesh_free(&mesh);
}

static void test_build_errors(void **state)
{
    (void)state;
    ds_log_set_quiet(1);
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("nosuch", 1000, &mesh), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "nosuch"));
    assert_non_null(strstr(ds_last_error(), "gyroid"));
    assert_non_null(strstr(ds_last_error(), "shells"));
    assert_null(mesh.positions);
    assert_int_equal(ds_scene_build(NULL, 1000, &mesh), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_scene_build("gyroid", (size_t)DS_MESH_MAX_ELEMENTS + 1, &mesh), DS_ERR_TOO_LARGE);
    assert_null(mesh.positions);
    ds_log_set_quiet(0);
}

static void test_parse(void **state)
{
    (void)state;
    char name[32];
    size_t triangles = 99;
    assert_int_equal(ds_scene_parse("gyroid", name, sizeof name, &triangles), DS_OK);
    assert_string_equal(name, "gyroid");
    assert_int_equal(triangles, 0);
    assert_int_equal(ds_scene_parse("shells:500k", name, sizeof name, &triangles), DS_OK);
    assert_string_equal(name, "shells");
    assert_int_equal(triangles, 500000);
    assert_int_equal(ds_scene_parse("planes:2M", name, sizeof name, &triangles), DS_OK);
    assert_int_equal(triangles, 2000000);
    assert_int_equal(ds_scene_parse("gyroid:1.5M", name, sizeof name, &triangles), DS_OK);
    assert_int_equal(triangles, 1500000);
    assert_int_equal(ds_scene_parse("gyroid:12345", name, sizeof name, &triangles), DS_OK);
    assert_int_equal(triangles, 12345);
    assert_int_equal(ds_scene_parse("gyroid:4G", name, sizeof name, &triangles), DS_OK);
    assert_int_equal(triangles, 4000000000u);
}

static void test_parse_errors(void **state)
{
    (void)state;
    ds_log_set_quiet(1);
    char name[32];
    size_t triangles;
    static const char *const invalid[] = {"", "nosuch", "nosuch:5k", ":5k", "gyroid:", "gyroid:abc",
                                          "gyroid:12x", "gyroid:0", "gyroid:k", "gyroid:5kk", "gyroid:-5",
                                          "Gyroid", "gyroid:5k:3"};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        ds_status status = ds_scene_parse(invalid[i], name, sizeof name, &triangles);
        if (status != DS_ERR_INVALID_ARG)
            fail_msg("'%s' gave %s", invalid[i], ds_status_str(status));
        assert_true(strlen(ds_last_error()) > 0);
    }
    assert_int_equal(ds_scene_parse("nosuch:1k", name, sizeof name, &triangles), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "known scenes: gyroid"));
    assert_int_equal(ds_scene_parse("gyroid:5G", name, sizeof name, &triangles), DS_ERR_TOO_LARGE);
    assert_int_equal(ds_scene_parse("gyroid:99999999999999999999", name, sizeof name, &triangles),
                     DS_ERR_TOO_LARGE);
    assert_int_equal(ds_scene_parse("gyroid:1k", name, 4, &triangles), DS_ERR_INVALID_ARG);
    ds_log_set_quiet(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_every_scene_every_size),
        cmocka_unit_test(test_tiny_sizes),
        cmocka_unit_test(test_gyroid_fills_box_and_is_deterministic),
        cmocka_unit_test(test_planes_layers),
        cmocka_unit_test(test_triangle_order_follows_no_view),
        cmocka_unit_test(test_default_size),
        cmocka_unit_test(test_build_errors),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
