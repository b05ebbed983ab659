/* SPDX-License-Identifier: MIT */
/* test_mesh.c — bounds, area-weighted normals, default colours and grid
 * replication of ds_mesh (no randomness). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mesh.h"

/* Builds a mesh owning copies of the given arrays (normals/colours NULL). */
static ds_mesh make_mesh(const float *positions, size_t vertex_count, const uint32_t *indices,
                         size_t triangle_count)
{
    ds_mesh mesh = {0};
    mesh.vertex_count = vertex_count;
    mesh.triangle_count = triangle_count;
    mesh.positions = malloc(3 * vertex_count * sizeof(float) + 1);
    mesh.indices = malloc(3 * triangle_count * sizeof(uint32_t) + 1);
    assert_non_null(mesh.positions);
    assert_non_null(mesh.indices);
    memcpy(mesh.positions, positions, 3 * vertex_count * sizeof(float));
    if (triangle_count)
        memcpy(mesh.indices, indices, 3 * triangle_count * sizeof(uint32_t));
    return mesh;
}

static void assert_unit_normals(const ds_mesh *mesh)
{
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        const float *n = mesh->normals + 3 * v;
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        assert_float_equal(length, 1.0f, 1e-5f);
    }
}

static void test_empty_mesh(void **state)
{
    (void)state;
    ds_mesh mesh = {0};
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    assert_non_null(mesh.normals);
    assert_non_null(mesh.colors);
    assert_float_equal(mesh.radius, 0.0f, 0.0f);
    ds_mesh_free(&mesh);
    assert_null(mesh.positions);
    ds_mesh_free(&mesh); /* freeing twice (a zeroed mesh) is allowed */
    ds_mesh_free(NULL);
}

static void test_bounds(void **state)
{
    (void)state;
    const float positions[] = {1, -2, 3, -1, 4, 0, 0, 0, 7};
    ds_mesh mesh = make_mesh(positions, 3, NULL, 0);
    ds_mesh_compute_bounds(&mesh);
    const float lo[3] = {-1, -2, 0}, hi[3] = {1, 4, 7};
    for (int k = 0; k < 3; k++) {
        assert_float_equal(mesh.bounds_min[k], lo[k], 0.0f);
        assert_float_equal(mesh.bounds_max[k], hi[k], 0.0f);
        assert_float_equal(mesh.center[k], 0.5f * (lo[k] + hi[k]), 1e-6f);
    }
    /* Diagonal (2, 6, 7): length 9.434 */
    assert_float_equal(mesh.radius, 0.5f * sqrtf(4 + 36 + 49), 1e-5f);
    ds_mesh_free(&mesh);
}

static void test_flat_quad_normals_and_colors(void **state)
{
    (void)state;
    /* A unit square in the XY plane, counter-clockwise seen from +Z. */
    const float positions[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    ds_mesh mesh = make_mesh(positions, 4, indices, 2);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    for (size_t v = 0; v < 4; v++) {
        assert_float_equal(mesh.normals[3 * v + 0], 0.0f, 1e-6f);
        assert_float_equal(mesh.normals[3 * v + 1], 0.0f, 1e-6f);
        assert_float_equal(mesh.normals[3 * v + 2], 1.0f, 1e-6f);
        /* Colour from the normal: (0, 0, 1) -> mid grey red/green, full blue. */
        assert_int_equal(mesh.colors[4 * v + 0], 128);
        assert_int_equal(mesh.colors[4 * v + 1], 128);
        assert_int_equal(mesh.colors[4 * v + 2], 255);
        assert_int_equal(mesh.colors[4 * v + 3], 255);
    }
    ds_mesh_free(&mesh);
}

static void test_area_weighting(void **state)
{
    (void)state;
    /* Vertex 0 is shared by a large triangle facing +Z (cross product
     * (0,0,4)) and a small one facing -X (cross product (-1,0,0)); the
     * area-weighted normal is (-1,0,4)/sqrt(17), not the plain average. */
    const float positions[] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0};
    const uint32_t indices[] = {0, 1, 2, 0, 3, 4};
    ds_mesh mesh = make_mesh(positions, 5, indices, 2);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    float s = 1.0f / sqrtf(17.0f);
    assert_float_equal(mesh.normals[0], -1.0f * s, 1e-6f);
    assert_float_equal(mesh.normals[1], 0.0f, 1e-6f);
    assert_float_equal(mesh.normals[2], 4.0f * s, 1e-6f);
    assert_float_equal(mesh.normals[3 * 3 + 0], -1.0f, 1e-6f); /* only the small face */
    assert_unit_normals(&mesh);
    ds_mesh_free(&mesh);
}

static void test_degenerate_and_isolated(void **state)
{
    (void)state;
    /* Triangle 0 is collinear, triangle 1 repeats a vertex, vertex 5 is in
     * no triangle: all fall back to +Y. */
    const float positions[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 5, 5, 5, 6, 5, 5, 9, 9, 9};
    const uint32_t indices[] = {0, 1, 2, 3, 3, 4};
    ds_mesh mesh = make_mesh(positions, 6, indices, 2);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    for (size_t v = 0; v < 6; v++) {
        assert_float_equal(mesh.normals[3 * v + 0], 0.0f, 0.0f);
        assert_float_equal(mesh.normals[3 * v + 1], 1.0f, 0.0f);
        assert_float_equal(mesh.normals[3 * v + 2], 0.0f, 0.0f);
    }
    ds_mesh_free(&mesh);
}

static void test_given_attributes_kept(void **state)
{
    (void)state;
    const float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t indices[] = {0, 1, 2};
    ds_mesh mesh = make_mesh(positions, 3, indices, 1);
    mesh.normals = malloc(9 * sizeof(float));
    mesh.colors = malloc(12);
    assert_non_null(mesh.normals);
    assert_non_null(mesh.colors);
    for (int i = 0; i < 9; i++)
        mesh.normals[i] = (i % 3 == 0) ? 1.0f : 0.0f; /* +X, not the face's +Z */
    memset(mesh.colors, 7, 12);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    assert_float_equal(mesh.normals[0], 1.0f, 0.0f);
    assert_int_equal(mesh.colors[5], 7);
    ds_mesh_free(&mesh);
}

static void test_point_cloud_colors_by_height(void **state)
{
    (void)state;
    const float positions[] = {0, 0, 0, 0, 5, 0, 0, 10, 0};
    ds_mesh mesh = make_mesh(positions, 3, NULL, 0);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    assert_unit_normals(&mesh);
    assert_float_equal(mesh.normals[1], 1.0f, 0.0f);
    /* Bottom is blue-ish, top red-ish, middle differs from both. */
    const uint8_t *bottom = mesh.colors, *middle = mesh.colors + 4, *top = mesh.colors + 8;
    assert_true(bottom[2] > bottom[0]);
    assert_true(top[0] > top[2]);
    assert_memory_not_equal(middle, bottom, 3);
    assert_memory_not_equal(middle, top, 3);
    for (int v = 0; v < 3; v++)
        assert_int_equal(mesh.colors[4 * v + 3], 255);
    ds_mesh_free(&mesh);
}

static ds_mesh make_tetrahedron(void)
{
    const float positions[] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1};
    const uint32_t indices[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    ds_mesh mesh = make_mesh(positions, 4, indices, 4);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    return mesh;
}

static void test_grid(void **state)
{
    (void)state;
    ds_mesh src = make_tetrahedron();
    ds_mesh grid;
    const int nx = 3, ny = 2;
    assert_int_equal(ds_mesh_grid(&src, nx, ny, &grid), DS_OK);
    assert_int_equal(grid.vertex_count, 6 * src.vertex_count);
    assert_int_equal(grid.triangle_count, 6 * src.triangle_count);
    assert_non_null(grid.normals);
    assert_non_null(grid.colors);
    /* Each copy's triangles use only that copy's vertices, in the same
     * pattern as the source. */
    for (size_t t = 0; t < grid.triangle_count; t++) {
        size_t cell = t / src.triangle_count;
        for (int c = 0; c < 3; c++) {
            uint32_t i = grid.indices[3 * t + c];
            assert_true(i < grid.vertex_count);
            assert_int_equal(i, src.indices[3 * (t % src.triangle_count) + c] + cell * src.vertex_count);
        }
    }
    /* Extent: X grows to 3 copies of 2 plus 2 margins of 0.2 (10% of the
     * larger horizontal extent, 2); Z to 2 copies of 1 plus one margin; Y
     * unchanged; centre kept. */
    assert_float_equal(grid.bounds_max[0] - grid.bounds_min[0], 3 * 2.0f + 2 * 0.2f, 1e-5f);
    assert_float_equal(grid.bounds_max[2] - grid.bounds_min[2], 2 * 1.0f + 1 * 0.2f, 1e-5f);
    assert_float_equal(grid.bounds_min[1], src.bounds_min[1], 0.0f);
    assert_float_equal(grid.bounds_max[1], src.bounds_max[1], 0.0f);
    for (int k = 0; k < 3; k++)
        assert_float_equal(grid.center[k], src.center[k], 1e-5f);
    /* Attributes copied per cell. */
    assert_memory_equal(grid.normals + 3 * src.vertex_count * 5, src.normals,
                        3 * src.vertex_count * sizeof(float));
    assert_memory_equal(grid.colors + 4 * src.vertex_count * 4, src.colors, 4 * src.vertex_count);
    ds_mesh_free(&grid);

    /* 1x1 is a copy. */
    assert_int_equal(ds_mesh_grid(&src, 1, 1, &grid), DS_OK);
    assert_memory_equal(grid.positions, src.positions, 3 * src.vertex_count * sizeof(float));
    assert_memory_equal(grid.indices, src.indices, 3 * src.triangle_count * sizeof(uint32_t));
    ds_mesh_free(&grid);
    ds_mesh_free(&src);
}

static void test_grid_errors(void **state)
{
    (void)state;
    ds_log_set_quiet(1);
    ds_mesh src = make_tetrahedron();
    ds_mesh grid;
    assert_int_equal(ds_mesh_grid(&src, 0, 3, &grid), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_mesh_grid(&src, 3, -1, &grid), DS_ERR_INVALID_ARG);
    assert_null(grid.positions);

    /* Counts are checked before anything is read or allocated: a mesh that
     * claims 2^20 vertices (with no arrays) on a 65x65 grid would need
     * 4225 * 2^20 > 2^32 vertices. */
    ds_mesh huge = {0};
    huge.vertex_count = (size_t)1 << 20;
    assert_int_equal(ds_mesh_grid(&huge, 65, 65, &grid), DS_ERR_TOO_LARGE);
    assert_null(grid.positions);
    assert_non_null(strstr(ds_last_error(), "65x65"));
    /* Triangles overflow alone. */
    huge.vertex_count = 0;
    huge.triangle_count = 0x80000000u;
    assert_int_equal(ds_mesh_grid(&huge, 2, 1, &grid), DS_ERR_TOO_LARGE);
    /* The largest int sides multiply without overflow too. */
    assert_int_equal(ds_mesh_grid(&src, 0x7fffffff, 0x7fffffff, &grid), DS_ERR_TOO_LARGE);
    ds_mesh_free(&src);
    ds_log_set_quiet(0);
}

/* Coordinates the camera's float arithmetic cannot hold are moved and
 * scaled into range, in double, keeping the shape; others are untouched. */
static void test_fit_range(void **state)
{
    (void)state;
    static const struct {
        float scale, shift; /* positions: unit tetrahedron * scale + shift */
        int changed;
    } cases[] = {
        {1.0f, 0.0f, 0},        {1e15f, 0.0f, 0},   {1e-14f, 0.0f, 0},   {1e30f, 0.0f, 1},
        {1e30f, 1e30f, 1},      {1e-30f, 0.0f, 1},  {1e-30f, 1e-28f, 1},   {1.0f, 1e20f, 1},
        {1e38f, -1e38f, 1},     {1e-3f, 1e4f, 1},   {1.0f, 1000.0f, 0},
    };
    static const float unit[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t tris[] = {0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float positions[12];
        for (int k = 0; k < 12; k++)
            positions[k] = unit[k] * cases[i].scale + cases[i].shift;
        ds_mesh mesh = make_mesh(positions, 4, tris, 4);
        double offset[3], scale;
        int changed = ds_mesh_fit_range(&mesh, offset, &scale);
        if (changed != cases[i].changed)
            fail_msg("scale %g shift %g: changed %d", (double)cases[i].scale,
                     (double)cases[i].shift, changed);
        /* A shape lost in float's rounding (1 unit at 1e20) is a point: the
         * camera frames it at radius 1. */
        int point = mesh.radius == 0.0f;
        double framed = point ? 1.0 : (double)mesh.radius;
        if (!point && !((double)mesh.radius <= DS_MESH_MAX_RADIUS &&
                        (double)mesh.radius >= DS_MESH_MIN_RADIUS))
            fail_msg("scale %g shift %g: radius %g", (double)cases[i].scale,
                     (double)cases[i].shift, (double)mesh.radius);
        for (int k = 0; k < 3; k++)
            assert_true(fabs((double)mesh.center[k]) <= DS_MESH_MAX_CENTER_RADII * framed);
        if (changed) {
            /* The same tetrahedron: edge 0-1 along x, as long as 0-2. */
            float e01 = mesh.positions[3] - mesh.positions[0];
            float e02 = mesh.positions[7] - mesh.positions[1];
            assert_true(point || e01 > 0.0f);
            assert_float_equal(e01, e02, 1e-5f * e01);
            for (int k = 0; k < 12; k++)
                assert_true(isfinite(mesh.positions[k]));
        } else {
            assert_memory_equal(mesh.positions, positions, sizeof positions);
            assert_true(scale == 1.0);
        }
        ds_mesh_free(&mesh);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_mesh),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_flat_quad_normals_and_colors),
        cmocka_unit_test(test_area_weighting),
        cmocka_unit_test(test_degenerate_and_isolated),
        cmocka_unit_test(test_given_attributes_kept),
        cmocka_unit_test(test_point_cloud_colors_by_height),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_grid_errors),
        cmocka_unit_test(test_fit_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
