/* SPDX-License-Identifier: MIT */
/* oit_fixture.h — what the exact-transparency tests (test_oit.c,
 * test_raster_compute.c) share: one EGL context for the group, the
 * background they clear to, a seeded generator, meshes of separate
 * coloured triangles (the intersecting tilted ones among them), the
 * camera that looks at them, and the largest difference of two images.
 * Include after <cmocka.h>; header-only (each test is one translation
 * unit). */
#ifndef DS_OIT_FIXTURE_H
#define DS_OIT_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "egl_context.h"
#include "mesh.h"

static ds_egl_context *context;

/* cmocka group setup and teardown: the context every test draws in. */
static inline int egl_setup(void **state)
{
    (void)state;
    return ds_egl_context_create(1, &context) == DS_OK ? 0 : -1;
}

static inline int egl_teardown(void **state)
{
    (void)state;
    ds_egl_context_destroy(context);
    return 0;
}

static const float BACKGROUND[4] = {0.1f, 0.2f, 0.3f, 1.0f};

/* Largest difference of any RGBA channel, and how many pixels differ by
 * more than `level` in some channel. */
static inline int max_difference(const uint8_t *a, const uint8_t *b, size_t pixels, int level,
                                 size_t *over)
{
    int most = 0;
    size_t count = 0;
    for (size_t p = 0; p < pixels; p++) {
        int worst = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)a[4 * p + c] - (int)b[4 * p + c]);
            worst = d > worst ? d : worst;
        }
        most = worst > most ? worst : most;
        count += worst > level;
    }
    if (over)
        *over = count;
    return most;
}

/* A linear congruential generator: 24 bits a call. */
static inline uint32_t next_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static inline float uniform(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)next_random(state) / 16777216.0f;
}

/* A mesh of `n` separate triangles (three vertices each), filled by the
 * caller, one RGBA colour a triangle. */
static inline void alloc_triangles(ds_mesh *mesh, size_t n)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = 3 * n;
    mesh->triangle_count = n;
    mesh->positions = calloc(9 * n + 1, sizeof(float));
    mesh->colors = calloc(12 * n + 1, 1);
    mesh->indices = calloc(3 * n + 1, sizeof(uint32_t));
    assert_non_null(mesh->positions);
    assert_non_null(mesh->colors);
    assert_non_null(mesh->indices);
    for (size_t i = 0; i < 3 * n; i++)
        mesh->indices[i] = (uint32_t)i;
    mesh->has_colors = 1;
}

static inline void set_triangle(ds_mesh *mesh, size_t t, const float corners[9],
                                const uint8_t rgba[4])
{
    memcpy(mesh->positions + 9 * t, corners, 9 * sizeof(float));
    for (int k = 0; k < 3; k++)
        memcpy(mesh->colors + 4 * (3 * t + (size_t)k), rgba, 4);
}

static inline void random_color(uint32_t *seed, uint8_t rgba[4])
{
    rgba[0] = (uint8_t)(next_random(seed) & 255);
    rgba[1] = (uint8_t)(next_random(seed) & 255);
    rgba[2] = (uint8_t)(next_random(seed) & 255);
    rgba[3] = (uint8_t)(100 + next_random(seed) % 150);
}

/* `n` triangles from `seed` around the origin, crossing each other. Each
 * has its own three vertices (so its vertex normals are its face normal)
 * and one colour; its plane is tilted 50 to 65 degrees from the view
 * axis, so the headlight's highlight (c^64) stays negligible and the
 * cosine's rounding does not matter. */
static inline void make_tilted_triangles(ds_mesh *mesh, size_t n, uint32_t seed)
{
    alloc_triangles(mesh, n);
    for (size_t t = 0; t < n; t++) {
        float tilt = uniform(&seed, 0.87f, 1.13f), azimuth = uniform(&seed, 0.0f, 6.2832f);
        float normal[3] = {sinf(tilt) * cosf(azimuth), sinf(tilt) * sinf(azimuth), cosf(tilt)};
        /* Two unit vectors spanning the plane. */
        float u[3] = {-sinf(azimuth), cosf(azimuth), 0.0f};
        float v[3] = {normal[1] * u[2] - normal[2] * u[1], normal[2] * u[0] - normal[0] * u[2],
                      normal[0] * u[1] - normal[1] * u[0]};
        float center[3] = {uniform(&seed, -0.5f, 0.5f), uniform(&seed, -0.4f, 0.4f),
                           uniform(&seed, -0.3f, 0.3f)};
        uint8_t rgba[4];
        random_color(&seed, rgba);
        float corners[9];
        for (int k = 0; k < 3; k++) {
            float angle = 2.0944f * (float)k + uniform(&seed, -0.3f, 0.3f);
            float r = uniform(&seed, 0.6f, 0.9f);
            for (int a = 0; a < 3; a++)
                corners[3 * k + a] = center[a] + r * (cosf(angle) * u[a] + sinf(angle) * v[a]);
        }
        set_triangle(mesh, t, corners, rgba);
    }
    assert_int_equal(ds_mesh_finish(mesh), DS_OK);
}

/* 3 units from the origin at yaw and pitch 0 (camera.h), near 1 and far
 * 6: the tilted triangles in view. */
static inline void front_camera(ds_camera *camera, int width, int height)
{
    memset(camera, 0, sizeof *camera);
    camera->distance = 3.0f;
    camera->fov_y = 0.8f;
    camera->aspect = (float)width / (float)height;
    camera->near_plane = 1.0f;
    camera->far_plane = 6.0f;
}

#endif
