/* SPDX-License-Identifier: MIT */
/* test_raster_compute.c — the compute raster's techniques (renderer.h,
 * compute and compute-exact; raster_compute.h) on whatever EGL offers
 * (Mesa llvmpipe in CI):
 *   - compute-exact matches the A-buffer within 1 level on intersecting
 *     coloured triangles and on the `planes` scene, and compute (triangle
 *     order) matches the sorted hardware draw there, while the two orders
 *     differ where triangles intersect;
 *   - the fill rule: a fan and a grid at alpha 0.5 over a clear background
 *     have no double-blended and no empty pixel along their shared edges;
 *   - sub-pixel triangles, a triangle larger than the screen, one crossing
 *     the near plane, degenerate ones and equal-depth coplanar duplicates
 *     give the A-buffer's image;
 *   - the mesh's triangle order (as given, reversed, shuffled) does not
 *     change the compute-exact image, and neither do the frames a renderer
 *     drew before (what each frame zeroes for the next);
 *   - buffers made too small grow and the image stays the same;
 *   - the workgroup scans without subgroup operations (where the context
 *     has GL_KHR_shader_subgroup, as a context without it runs them) give
 *     the same image, small and large triangles and points;
 *   - points as round splats: compute-exact matches the A-buffer and
 *     compute (point order) the sorted hardware point draw on a cloud of
 *     overlapping splats of several sizes and colours, and on a triangle
 *     mesh drawn as points, away from the splats' rims (where the
 *     rasteriser's rounding decides); the points' order does not change the
 *     compute-exact image; points behind the near plane, beside the
 *     screen, at its edge, below a pixel, larger than the screen and
 *     coincident give the A-buffer's image;
 *   - the size gl_PointCoord is computed from: forced to the size floored
 *     to 1/32 pixel (NVIDIA's sprites' rule) the splats are a CPU
 *     rendering's of that rule, forced exact the exact rule's, the two
 *     differing inside the rims; the driver's own rule, which the raster
 *     asks of it, explains its sprites;
 *   - MSAA and buffers beyond GL's limits are refused at create (--raster
 *     auto takes the hardware path instead); points are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "camera.h"
#include "egl_context.h"
#include "oit_fixture.h"
#include "renderer.h"
#include "scene.h"

typedef struct options {
    float alpha;
    const float *background;
    size_t initial_fragments;
    ds_color_mode color_mode;
    float point_size; /* nonzero: the vertices as splats of this world diameter */
    int view_opacity; /* DS_OPACITY_VIEW */
    float point_coord_quantum; /* desc.raster_point_coord_quantum */
    int no_subgroups;          /* desc.raster_no_subgroups */
} options;

static ds_renderer *make_renderer(const ds_mesh *mesh, int width, int height,
                                  ds_technique technique, const options *o)
{
    ds_renderer_desc desc = {0};
    desc.mesh = mesh;
    desc.width = width;
    desc.height = height;
    desc.sort_algo = DS_SORT_CUB; /* the CPU path takes cpu */
    desc.alpha = o && o->alpha > 0.0f ? o->alpha : 0.4f;
    memcpy(desc.background, o && o->background ? o->background : BACKGROUND,
           sizeof desc.background);
    desc.raster_initial_fragments = o ? o->initial_fragments : 0;
    desc.color_mode = o ? o->color_mode : DS_COLOR_AUTO;
    desc.tiles = DS_TILES_OFF;
    if (o && o->view_opacity)
        desc.opacity = DS_OPACITY_VIEW;
    desc.raster_point_coord_quantum = o ? o->point_coord_quantum : 0.0f;
    desc.raster_no_subgroups = o ? o->no_subgroups : 0;
    if (o && o->point_size > 0.0f) {
        desc.primitive = DS_PRIMITIVE_POINTS;
        desc.point_size = o->point_size;
    }
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_set_technique(renderer, technique), DS_OK);
    assert_int_equal(ds_renderer_technique(renderer), technique);
    return renderer;
}

/* A frame of `technique` read back; with `stats` (a compute technique)
 * the compute raster's facts too. */
static uint8_t *image_with_stats(const ds_mesh *mesh, const ds_camera *camera, int width,
                                 int height, ds_technique technique, const options *o,
                                 ds_raster_stats *stats)
{
    uint8_t *pixels = malloc((size_t)width * height * 4);
    assert_non_null(pixels);
    ds_renderer *renderer = make_renderer(mesh, width, height, technique, o);
    if (technique == DS_TECHNIQUE_COMPUTE || technique == DS_TECHNIQUE_COMPUTE_EXACT)
        assert_true(ds_renderer_compute_raster(renderer));
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
    if (stats)
        assert_int_equal(ds_renderer_raster_info(renderer, stats), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    return pixels;
}

static uint8_t *image_of(const ds_mesh *mesh, const ds_camera *camera, int width, int height,
                         ds_technique technique, const options *o)
{
    return image_with_stats(mesh, camera, width, height, technique, o, NULL);
}

/* As image_of, compute-exact from `camera`, but the frame read is a
 * renderer's second, after one from `before`: what a frame leaves for the
 * next (sums and counts zeroed for its atomics) must not change it. */
static uint8_t *second_frame_of(const ds_mesh *mesh, const ds_camera *before,
                                const ds_camera *camera, int width, int height)
{
    uint8_t *pixels = malloc((size_t)width * height * 4);
    assert_non_null(pixels);
    ds_renderer *renderer = make_renderer(mesh, width, height, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
    assert_true(ds_renderer_compute_raster(renderer));
    assert_int_equal(ds_renderer_frame(renderer, before, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    return pixels;
}

/* compute-exact against the A-buffer (within 1 level: both round each
 * fragment's colour to RGBA8 and composite in float; a pixel centre on
 * an intersection line may order two nearly equal depths differently,
 * allowed in at most `ties` pixels), compute against the sorted draw. */
static void check_against_references(const ds_mesh *mesh, const ds_camera *camera, int w,
                                     int h, size_t ties, const options *o)
{
    size_t pixels = (size_t)w * h, over = 0;
    uint8_t *abuffer = image_of(mesh, camera, w, h, DS_TECHNIQUE_ABUFFER, o);
    uint8_t *exact = image_of(mesh, camera, w, h, DS_TECHNIQUE_COMPUTE_EXACT, o);
    uint8_t *sorted = image_of(mesh, camera, w, h, DS_TECHNIQUE_SORTED, o);
    uint8_t *compute = image_of(mesh, camera, w, h, DS_TECHNIQUE_COMPUTE, o);
    int most = max_difference(exact, abuffer, pixels, 1, &over);
    printf("compute-exact vs abuffer: max %d, %zu pixels over 1 level\n", most, over);
    assert_true(over <= ties);
    /* The sorted draw blends in RGBA8, rounding after each layer: a
     * level or two apart where several layers meet. */
    most = max_difference(compute, sorted, pixels, 2, &over);
    printf("compute vs sorted draw: max %d, %zu pixels over 2 levels\n", most, over);
    assert_true(over <= ties + pixels / 1000);
    free(abuffer);
    free(exact);
    free(sorted);
    free(compute);
}

static void test_intersecting_triangles(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    make_tilted_triangles(&mesh, 8, 7);
    front_camera(&camera, 96, 72);
    check_against_references(&mesh, &camera, 96, 72, 4, NULL);
    /* Triangle order is wrong where they intersect: the two orders
     * differ by many levels somewhere. */
    uint8_t *exact = image_of(&mesh, &camera, 96, 72, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
    uint8_t *compute = image_of(&mesh, &camera, 96, 72, DS_TECHNIQUE_COMPUTE, NULL);
    size_t over = 0;
    int most = max_difference(exact, compute, 96 * 72, 8, &over);
    printf("compute vs compute-exact: max %d, %zu pixels over 8 levels\n", most, over);
    assert_true(over > 20);
    free(exact);
    free(compute);
    ds_mesh_free(&mesh);
}

static void test_planes_scene(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    assert_int_equal(ds_scene_build("planes", 2000, &mesh), DS_OK);
    memset(&camera, 0, sizeof camera);
    camera.fov_y = 0.8f;
    camera.yaw = 0.6f;
    camera.pitch = 0.3f;
    ds_camera_frame(&camera, mesh.center, mesh.radius, 160.0f / 120.0f);
    check_against_references(&mesh, &camera, 160, 120, 40, NULL);
    ds_mesh_free(&mesh);
}

/* The scans of the emits and the plan (radix_workgroup_scan.glsl) with
 * GL_KHR_shader_subgroup's arithmetic where the context offers it, and
 * without: the same fragments in the same slots, so the same image in
 * both orders, on the planes scene (large triangles), a finely tessellated
 * one (small) and its vertices as points. llvmpipe offers no KHR
 * subgroups, so there both runs take the scan of shared memory. */
static void test_scans_without_subgroups(void **state)
{
    (void)state;
    static const char *const scenes[2] = {"planes", "shells"};
    static const size_t sizes[2] = {2000, 20000};
    /* splats of several pixels on the planes (large ones), of a few on the shells */
    static const float splats[2] = {0.3f, 0.05f};
    for (int s = 0; s < 2; s++) {
        ds_mesh mesh;
        ds_camera camera;
        assert_int_equal(ds_scene_build(scenes[s], sizes[s], &mesh), DS_OK);
        memset(&camera, 0, sizeof camera);
        camera.fov_y = 0.8f;
        camera.yaw = 0.6f;
        camera.pitch = 0.3f;
        ds_camera_frame(&camera, mesh.center, mesh.radius, 160.0f / 120.0f);
        for (int points = 0; points < 2; points++)
            for (int t = 0; t < 2; t++) {
                ds_technique technique = t ? DS_TECHNIQUE_COMPUTE : DS_TECHNIQUE_COMPUTE_EXACT;
                options with = {0}, without = {0};
                with.point_size = without.point_size = points ? mesh.radius * splats[s] : 0.0f;
                without.no_subgroups = 1;
                uint8_t *a = image_of(&mesh, &camera, 160, 120, technique, &with);
                uint8_t *b = image_of(&mesh, &camera, 160, 120, technique, &without);
                size_t over = 0;
                int most = max_difference(a, b, 160 * 120, 0, &over);
                printf("%s%s, %s: scans with and without subgroups differ by %d in %zu pixels\n",
                       scenes[s], points ? " as points" : "",
                       t ? "compute" : "compute-exact", most, over);
                assert_int_equal(over, 0);
                free(a);
                free(b);
            }
        ds_mesh_free(&mesh);
    }
}

/* ---- the fill rule ------------------------------------------------------- */

/* Every pixel's alpha over a clear (alpha 0) background is 0 (outside),
 * one layer's (inside) or more (a pixel blended twice). Inside the
 * outline, away from it by more than a pixel, none may be 0. */
static void check_single_layer(const ds_mesh *mesh, const ds_camera *camera, int w, int h,
                               int (*inside)(float x, float y, const ds_camera *camera, int w,
                                             int h))
{
    static const float clear[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    options o = {0.5f, clear, 0, DS_COLOR_TINT, 0.0f, 0, 0.0f, 0};
    uint8_t *image = image_of(mesh, camera, w, h, DS_TECHNIQUE_COMPUTE_EXACT, &o);
    size_t doubled = 0, empty = 0, covered = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            /* read_pixels gives the top row first */
            int a = image[4 * ((size_t)(h - 1 - y) * w + x) + 3];
            doubled += a > 129;
            covered += a >= 127 && a <= 129;
            if (a == 0 && inside((float)x + 0.5f, (float)y + 0.5f, camera, w, h))
                empty++;
        }
    printf("fill rule: %zu covered, %zu doubled, %zu empty inside\n", covered, doubled, empty);
    assert_true(covered > (size_t)(w * h) / 8);
    assert_int_equal(doubled, 0);
    assert_int_equal(empty, 0);
    free(image);
}

/* The window position of world point p. */
static void to_window(const ds_camera *camera, int w, int h, const float p[3], float *x, float *y)
{
    float m[16];
    ds_camera_view_projection(camera, m);
    float cx = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
    float cy = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
    float cw = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
    *x = (cx / cw * 0.5f + 0.5f) * (float)w;
    *y = (cy / cw * 0.5f + 0.5f) * (float)h;
}

#define FAN_SIDES 37
#define FAN_RADIUS 0.9f

/* A centre more than 1.5 pixels inside the fan's polygon. */
static int inside_fan(float x, float y, const ds_camera *camera, int w, int h)
{
    float cx, cy;
    float centre[3] = {0.0f, 0.0f, 0.0f};
    to_window(camera, w, h, centre, &cx, &cy);
    for (int k = 0; k < FAN_SIDES; k++) {
        float a0 = 6.2831853f * (float)k / FAN_SIDES, a1 = 6.2831853f * (float)(k + 1) / FAN_SIDES;
        float p0[3] = {FAN_RADIUS * cosf(a0), FAN_RADIUS * sinf(a0), 0.0f};
        float p1[3] = {FAN_RADIUS * cosf(a1), FAN_RADIUS * sinf(a1), 0.0f};
        float x0, y0, x1, y1;
        to_window(camera, w, h, p0, &x0, &y0);
        to_window(camera, w, h, p1, &x1, &y1);
        /* distance of (x, y) to the edge's line, positive towards the centre */
        float nx = y0 - y1, ny = x1 - x0, len = sqrtf(nx * nx + ny * ny);
        float side = ((x - x0) * nx + (y - y0) * ny) / len;
        float centre_side = ((cx - x0) * nx + (cy - y0) * ny) / len;
        if (centre_side < 0.0f)
            side = -side;
        if (side < 1.5f)
            return 0;
    }
    return 1;
}

static void test_fill_rule_fan(void **state)
{
    (void)state;
    ds_mesh mesh;
    alloc_triangles(&mesh, FAN_SIDES);
    /* Shared corners: the fan's vertices indexed, not copied, so both
     * triangles of an edge snap its ends to the same subpixels. */
    mesh.vertex_count = FAN_SIDES + 1;
    memset(mesh.positions, 0, 3 * sizeof(float));
    for (int k = 0; k < FAN_SIDES; k++) {
        float a = 6.2831853f * (float)k / FAN_SIDES;
        float *p = mesh.positions + 3 * (k + 1);
        p[0] = FAN_RADIUS * cosf(a);
        p[1] = FAN_RADIUS * sinf(a);
        p[2] = 0.0f;
        mesh.indices[3 * k] = 0;
        mesh.indices[3 * k + 1] = (uint32_t)(k + 1);
        mesh.indices[3 * k + 2] = (uint32_t)((k + 1) % FAN_SIDES + 1);
    }
    mesh.has_colors = 0;
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    ds_camera camera;
    front_camera(&camera, 90, 70);
    check_single_layer(&mesh, &camera, 90, 70, inside_fan);
    ds_mesh_free(&mesh);
}

#define GRID 9
#define GRID_HALF 0.95f

static int inside_grid(float x, float y, const ds_camera *camera, int w, int h)
{
    /* the square's corners, counter-clockwise in the window */
    static const float corners[4][3] = {{-GRID_HALF, -GRID_HALF, 0.0f},
                                        {GRID_HALF, -GRID_HALF, 0.0f},
                                        {GRID_HALF, GRID_HALF, 0.0f},
                                        {-GRID_HALF, GRID_HALF, 0.0f}};
    float wx[4], wy[4];
    for (int k = 0; k < 4; k++)
        to_window(camera, w, h, corners[k], &wx[k], &wy[k]);
    for (int k = 0; k < 4; k++) {
        float ex = wx[(k + 1) % 4] - wx[k], ey = wy[(k + 1) % 4] - wy[k];
        float side = (ex * (y - wy[k]) - ey * (x - wx[k])) / sqrtf(ex * ex + ey * ey);
        if (side < 1.5f)
            return 0;
    }
    return 1;
}

static void test_fill_rule_grid(void **state)
{
    (void)state;
    ds_mesh mesh;
    alloc_triangles(&mesh, 2 * GRID * GRID);
    mesh.vertex_count = (GRID + 1) * (GRID + 1);
    for (int j = 0; j <= GRID; j++)
        for (int i = 0; i <= GRID; i++) {
            float *p = mesh.positions + 3 * (j * (GRID + 1) + i);
            /* uneven spacing: edges at all sorts of subpixel positions */
            float u = (float)i / GRID, v = (float)j / GRID;
            p[0] = -GRID_HALF + 2.0f * GRID_HALF * (u + 0.03f * sinf(7.0f * u) * (i % GRID != 0));
            p[1] = -GRID_HALF + 2.0f * GRID_HALF * (v + 0.03f * sinf(5.0f * v) * (j % GRID != 0));
            p[2] = 0.0f;
        }
    size_t t = 0;
    for (int j = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++) {
            uint32_t a = (uint32_t)(j * (GRID + 1) + i), b = a + 1, c = a + GRID + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            if ((i + j) % 2) { /* the other diagonal, and the other winding */
                uint32_t other[6] = {a, c, b, b, c, d};
                memcpy(quad, other, sizeof quad);
            }
            memcpy(mesh.indices + 3 * t, quad, sizeof quad);
            t += 2;
        }
    mesh.has_colors = 0;
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    ds_camera camera;
    front_camera(&camera, 101, 83);
    camera.yaw = 0.2f;
    camera.pitch = 0.15f;
    check_single_layer(&mesh, &camera, 101, 83, inside_grid);
    ds_mesh_free(&mesh);
}

/* ---- awkward triangles ---------------------------------------------------- */

static void test_awkward_triangles(void **state)
{
    (void)state;
    uint32_t seed = 11;
    /* Enough sub-pixel triangles that the large ones after them lie in
     * the third block of 2,048 triangles, some chunks of 128 into it and
     * some triangles into their chunk (where the emit finds their first
     * slots from the sums of the blocks, chunks and triangles before). */
    const int tiny = 4400;
    size_t n = tiny + 1 + 1 + 4 + 4;
    ds_mesh mesh;
    alloc_triangles(&mesh, n);
    size_t t = 0;
    uint8_t rgba[4];
    /* sub-pixel triangles (a pixel is about 0.04 units here) */
    for (int k = 0; k < tiny; k++, t++) {
        float c[3] = {uniform(&seed, -1.0f, 1.0f), uniform(&seed, -0.8f, 0.8f),
                      uniform(&seed, -0.5f, 0.5f)};
        float corners[9];
        for (int a = 0; a < 9; a++)
            corners[a] = c[a % 3] + uniform(&seed, -0.03f, 0.03f);
        random_color(&seed, rgba);
        set_triangle(&mesh, t, corners, rgba);
    }
    /* larger than the screen */
    float huge[9] = {-40.0f, -30.0f, 0.2f, 40.0f, -30.0f, -0.3f, 0.0f, 40.0f, 0.1f};
    random_color(&seed, rgba);
    set_triangle(&mesh, t++, huge, rgba);
    /* crossing the near plane (the camera at z = 3, near 1): from behind
     * the eye to the middle of the view, in front of the others, so
     * that no two depths come near a tie */
    float crossing[9] = {-0.8f, -0.6f, 0.6f, 0.9f, -0.5f, 0.9f, 0.1f, 0.2f, 5.0f};
    random_color(&seed, rgba);
    set_triangle(&mesh, t++, crossing, rgba);
    /* degenerate in the window (GL draws nothing of them; a line
     * collinear only before the projection's rounding may become a
     * sliver, in GL as here, so these stay collinear after it): a point,
     * two lines, two corners equal */
    float degenerate[4][9] = {
        {0.1f, 0.1f, 0.0f, 0.1f, 0.1f, 0.0f, 0.1f, 0.1f, 0.0f},
        {-0.5f, 0.0f, 0.0f, 0.5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f},
        {0.2f, -0.5f, 0.1f, 0.2f, 0.0f, 0.1f, 0.2f, 0.5f, 0.1f},
        {0.3f, -0.2f, 0.2f, 0.3f, -0.2f, 0.2f, 0.6f, 0.4f, -0.1f}};
    for (int k = 0; k < 4; k++, t++) {
        random_color(&seed, rgba);
        set_triangle(&mesh, t, degenerate[k], rgba);
    }
    /* equal-depth coplanar duplicates, each drawn twice in two colours:
     * the higher triangle number is the farther (the pairs apart: two
     * different triangles in one plane tie only up to rounding) */
    for (int k = 0; k < 2; k++) {
        float flat[9] = {-0.7f + 1.0f * k, -0.3f, 0.25f, 0.2f + 1.0f * k, -0.4f, 0.25f,
                         -0.2f + 1.0f * k, 0.5f, 0.25f};
        for (int copy = 0; copy < 2; copy++, t++) {
            random_color(&seed, rgba);
            set_triangle(&mesh, t, flat, rgba);
        }
    }
    assert_int_equal(t, n);
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    ds_camera camera;
    front_camera(&camera, 80, 60);
    size_t pixels = 80 * 60, over = 0;
    uint8_t *abuffer = image_of(&mesh, &camera, 80, 60, DS_TECHNIQUE_ABUFFER, NULL);
    uint8_t *exact = image_of(&mesh, &camera, 80, 60, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
    int most = max_difference(exact, abuffer, pixels, 1, &over);
    printf("awkward triangles, compute-exact vs abuffer: max %d, %zu pixels over 1 level\n",
           most, over);
    assert_int_equal(over, 0);
    /* The same image as a renderer's second frame, after one from
     * elsewhere. */
    ds_camera before = camera;
    before.yaw += 0.7f;
    before.pitch -= 0.3f;
    uint8_t *second = second_frame_of(&mesh, &before, &camera, 80, 60);
    most = max_difference(second, exact, pixels, 0, &over);
    printf("awkward triangles, second frame vs first: max %d, %zu pixels differ\n", most, over);
    assert_int_equal(over, 0);
    free(second);
    free(abuffer);
    free(exact);
    ds_mesh_free(&mesh);
}

/* ---- order invariance and overflow ---------------------------------------- */

/* The mesh with its triangles in the order `order`. */
static void reorder(const ds_mesh *mesh, const size_t *order, ds_mesh *dest)
{
    alloc_triangles(dest, mesh->triangle_count);
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        uint8_t rgba[4];
        memcpy(rgba, mesh->colors + 4 * 3 * order[t], 4);
        set_triangle(dest, t, mesh->positions + 9 * order[t], rgba);
    }
    assert_int_equal(ds_mesh_finish(dest), DS_OK);
}

static void test_order_invariance(void **state)
{
    (void)state;
    size_t n = 60;
    ds_mesh mesh;
    make_tilted_triangles(&mesh, n, 23);
    ds_camera camera;
    front_camera(&camera, 96, 72);
    uint8_t *given = image_of(&mesh, &camera, 96, 72, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
    size_t order[60];
    uint32_t seed = 5;
    for (int form = 0; form < 2; form++) {
        for (size_t t = 0; t < n; t++)
            order[t] = form == 0 ? n - 1 - t : t;
        if (form == 1)
            for (size_t t = n - 1; t > 0; t--) {
                size_t j = next_random(&seed) % (t + 1), swap = order[t];
                order[t] = order[j];
                order[j] = swap;
            }
        ds_mesh other;
        reorder(&mesh, order, &other);
        uint8_t *image = image_of(&other, &camera, 96, 72, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
        size_t over = 0;
        int most = max_difference(image, given, 96 * 72, 0, &over);
        printf("%s order: max %d, %zu pixels differ\n", form ? "shuffled" : "reversed", most,
               over);
        assert_int_equal(over, 0);
        free(image);
        ds_mesh_free(&other);
    }
    free(given);
    ds_mesh_free(&mesh);
}

/* compute-exact from `camera`, its fragments sorted by the GL radix sort
 * (the GL stages): the image into `pixels`, and the bits of the fragment
 * keys the sort ordered. */
static unsigned exact_key_bits(const ds_mesh *mesh, const ds_camera *camera, int w, int h,
                               int full_width_keys, uint8_t *pixels)
{
    ds_renderer_desc desc = {0};
    desc.mesh = mesh;
    desc.width = w;
    desc.height = h;
    desc.sort_algo = DS_SORT_CUB;
    desc.stages = DS_STAGES_GL;
    desc.alpha = 0.4f;
    memcpy(desc.background, BACKGROUND, sizeof desc.background);
    desc.tiles = DS_TILES_OFF;
    desc.full_width_keys = full_width_keys;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_set_technique(renderer, DS_TECHNIQUE_COMPUTE_EXACT), DS_OK);
    assert_true(ds_renderer_compute_raster(renderer));
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
    ds_raster_stats stats;
    assert_int_equal(ds_renderer_raster_info(renderer, &stats), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    return stats.key_bits;
}

/* Fragment keys narrowed to the float steps of the frame's 1 / w range
 * (24 bits: an odd number of radix passes) give the full keys' order:
 * the same image, pixel for pixel: with the near plane well before the
 * model; as ds_camera_frame sets it, close to the model's box, where
 * the window depths' floats would span too many steps; and cutting
 * through the model (clipped triangles' fragments on the near plane, the
 * bound's near end). A view from inside the model's box (a near plane
 * far closer than the box's far side) keeps the full keys. */
static void test_narrowed_keys(void **state)
{
    (void)state;
    ds_mesh tilted, planes;
    make_tilted_triangles(&tilted, 60, 23);
    assert_int_equal(ds_scene_build("planes", 2000, &planes), DS_OK);
    const int w = 160, h = 120;
    uint8_t *narrowed = malloc((size_t)w * h * 4), *full = malloc((size_t)w * h * 4);
    assert_non_null(narrowed);
    assert_non_null(full);
    for (int view = 0; view < 5; view++) {
        const ds_mesh *mesh = view == 0 ? &tilted : &planes;
        ds_camera camera;
        if (view == 0) {
            front_camera(&camera, w, h);
        } else {
            memset(&camera, 0, sizeof camera);
            camera.fov_y = 0.8f;
            camera.yaw = 0.6f;
            camera.pitch = 0.3f;
            ds_camera_frame(&camera, planes.center, planes.radius, (float)w / (float)h);
            if (view == 1) { /* the near plane well before the model */
                camera.near_plane = 0.3f * planes.radius;
                camera.far_plane = camera.distance + 2.0f * planes.radius;
            } else if (view == 3) { /* the near plane through the model */
                camera.near_plane = camera.distance - 0.5f * planes.radius;
                camera.far_plane = camera.distance + 2.0f * planes.radius;
            } else if (view == 4) { /* the eye inside the box */
                ds_camera_zoom(&camera, 0.05f);
            }
        }
        unsigned bits = exact_key_bits(mesh, &camera, w, h, 0, narrowed);
        unsigned full_bits = exact_key_bits(mesh, &camera, w, h, 1, full);
        size_t over = 0, drawn = 0;
        int most = max_difference(narrowed, full, (size_t)w * h, 0, &over);
        for (size_t p = 0; p < (size_t)w * h; p++)
            drawn += memcmp(full + 4 * p, full, 4) != 0;
        printf("narrowed keys, view %d: %u bits (full %u), %zu pixels drawn, max %d, %zu pixels "
               "differ\n",
               view, bits, full_bits, drawn, most, over);
        assert_int_equal(full_bits, 32);
        assert_true(drawn > 1000);
        assert_int_equal(over, 0);
        assert_int_equal(bits, view < 4 ? 24u : 32u);
    }
    free(narrowed);
    free(full);
    ds_mesh_free(&tilted);
    ds_mesh_free(&planes);
}

static void test_overflow_grows(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("planes", 2000, &mesh), DS_OK);
    ds_camera camera;
    memset(&camera, 0, sizeof camera);
    camera.fov_y = 0.8f;
    camera.yaw = 0.6f;
    camera.pitch = 0.3f;
    ds_camera_frame(&camera, mesh.center, mesh.radius, 1.0f);
    uint8_t *full = image_of(&mesh, &camera, 64, 64, DS_TECHNIQUE_COMPUTE_EXACT, NULL);
    options o = {0.0f, NULL, 16, DS_COLOR_AUTO, 0.0f, 0, 0.0f, 0};
    ds_renderer *renderer = make_renderer(&mesh, 64, 64, DS_TECHNIQUE_COMPUTE_EXACT, &o);
    uint8_t *small = malloc(64 * 64 * 4);
    assert_non_null(small);
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, small), DS_OK);
    ds_raster_stats stats;
    assert_int_equal(ds_renderer_raster_info(renderer, &stats), DS_OK);
    printf("overflow: %zu fragments, capacity %zu, %u grows\n", stats.fragments,
           stats.capacity, stats.grow_count);
    assert_true(stats.fragments > 16);
    assert_int_equal(stats.grow_count, 1);
    assert_true(stats.capacity >= stats.fragments);
    assert_int_equal(max_difference(small, full, 64 * 64, 0, NULL), 0);
    /* A second frame fits: no grow. */
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_raster_info(renderer, &stats), DS_OK);
    assert_int_equal(stats.grow_count, 1);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    free(small);
    free(full);
    ds_mesh_free(&mesh);
}

/* ---- points as splats ---------------------------------------------------- */

/* A point cloud: n points in a box in front of the camera (window depths
 * from about 1.4 to 5, so one world size gives splats of several pixel
 * sizes), random opaque colours (the global alpha makes them
 * translucent). */
static void make_point_cloud(ds_mesh *mesh, size_t n, uint32_t seed)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = n;
    mesh->positions = calloc(3 * n + 1, sizeof(float));
    mesh->colors = calloc(4 * n + 1, 1);
    assert_non_null(mesh->positions);
    assert_non_null(mesh->colors);
    for (size_t i = 0; i < n; i++) {
        float *p = mesh->positions + 3 * i;
        p[0] = uniform(&seed, -1.1f, 1.1f);
        p[1] = uniform(&seed, -0.8f, 0.8f);
        p[2] = uniform(&seed, -2.0f, 1.6f);
        random_color(&seed, mesh->colors + 4 * i);
        mesh->colors[4 * i + 3] = 255;
    }
    mesh->has_colors = 1;
    assert_int_equal(ds_mesh_finish(mesh), DS_OK);
}

/* The cloud's points in the order `order`. */
static void reorder_points(const ds_mesh *mesh, const size_t *order, ds_mesh *dest)
{
    memset(dest, 0, sizeof *dest);
    size_t n = mesh->vertex_count;
    dest->vertex_count = n;
    dest->positions = calloc(3 * n + 1, sizeof(float));
    dest->colors = calloc(4 * n + 1, 1);
    assert_non_null(dest->positions);
    assert_non_null(dest->colors);
    for (size_t i = 0; i < n; i++) {
        memcpy(dest->positions + 3 * i, mesh->positions + 3 * order[i], 3 * sizeof(float));
        memcpy(dest->colors + 4 * i, mesh->colors + 4 * order[i], 4);
    }
    dest->has_colors = 1;
    assert_int_equal(ds_mesh_finish(dest), DS_OK);
}

/* `size` floored to a multiple of `quantum` (0: size): the size a
 * driver's gl_PointCoord is computed from (raster_points.comp.glsl). */
static double coord_size(double size, double quantum)
{
    return quantum > 0.0 ? floor(size / quantum) * quantum : size;
}

/* Pixels (1 in mask, read_pixels' rows: the top first) whose centre lies
 * within 1/64 pixel of some splat's rim, where a rasteriser's own
 * rounding may keep or discard it: llvmpipe interpolates gl_PointCoord
 * over two triangles, and a GPU may take it from the centre snapped to
 * 1/256 pixel. Splats of the points of `mesh` at world size `world_size`
 * (points.vert.glsl's size, clamped to GL_POINT_SIZE_RANGE), in double,
 * whose rim is the disc of diameter the size floored to `quantum` (the
 * compute raster's ds_raster_stats.point_coord_quantum). */
static void mark_rims(const ds_mesh *mesh, const ds_camera *camera, int w, int h,
                      float world_size, double quantum, uint8_t *mask)
{
    float m[16], projection[16], range[2] = {1.0f, 1.0e9f};
    ds_camera_view_projection(camera, m);
    ds_camera_projection(camera, projection);
    glGetFloatv(GL_POINT_SIZE_RANGE, range);
    double scale = (double)world_size * projection[5] * 0.5 * h;
    memset(mask, 0, (size_t)w * h);
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        const float *p = mesh->positions + 3 * i;
        double clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
        if (!(fabs(clip[2]) <= clip[3]))
            continue;
        double size = fmin(fmax(fmax(scale / fmax(clip[3], 1e-6), 1.0), range[0]), range[1]);
        double x = (clip[0] / clip[3] * 0.5 + 0.5) * w, y = (clip[1] / clip[3] * 0.5 + 0.5) * h;
        double radius = 0.5 * coord_size(size, quantum);
        int x0 = (int)fmax(floor(x - radius - 1.0), 0.0), x1 = (int)fmin(ceil(x + radius), w - 1);
        int y0 = (int)fmax(floor(y - radius - 1.0), 0.0), y1 = (int)fmin(ceil(y + radius), h - 1);
        for (int py = y0; py <= y1; py++)
            for (int px = x0; px <= x1; px++)
                if (fabs(hypot(px + 0.5 - x, py + 0.5 - y) - radius) < 1.0 / 64.0)
                    mask[(size_t)(h - 1 - py) * w + px] = 1;
    }
}

/* Pixels of a and b more than `level` apart: how many (*over), how many
 * of those are not on a rim (returned), and the largest difference off
 * the rims (*most). */
static size_t off_rim(const uint8_t *a, const uint8_t *b, const uint8_t *mask, size_t pixels,
                      int level, size_t *over, int *most)
{
    size_t count = 0, outside = 0;
    *most = 0;
    for (size_t p = 0; p < pixels; p++) {
        int worst = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)a[4 * p + c] - (int)b[4 * p + c]);
            worst = d > worst ? d : worst;
        }
        count += worst > level;
        outside += worst > level && !mask[p];
        if (!mask[p] && worst > *most)
            *most = worst;
    }
    *over = count;
    return outside;
}

/* Splats against the references: compute-exact against the A-buffer and
 * compute (point order) against the sorted hardware point draw. Off the
 * splats' rims (mark_rims) every pixel is within 2 levels, and at most 1
 * in 500 more than 1 (2 for compute) level apart: each fragment's colour
 * comes from gl_PointCoord, which the rasteriser rounds its own way, so
 * its RGBA8 may differ by a level, and a few layers add up to two. */
static void check_points(const ds_mesh *mesh, const ds_camera *camera, int w, int h,
                         const options *o)
{
    size_t pixels = (size_t)w * h, over = 0, outside = 0, drawn = 0, rims = 0;
    int most = 0;
    uint8_t *abuffer = image_of(mesh, camera, w, h, DS_TECHNIQUE_ABUFFER, o);
    ds_raster_stats stats;
    uint8_t *exact =
        image_with_stats(mesh, camera, w, h, DS_TECHNIQUE_COMPUTE_EXACT, o, &stats);
    uint8_t *sorted = image_of(mesh, camera, w, h, DS_TECHNIQUE_SORTED, o);
    uint8_t *compute = image_of(mesh, camera, w, h, DS_TECHNIQUE_COMPUTE, o);
    uint8_t *mask = malloc(pixels);
    assert_non_null(mask);
    mark_rims(mesh, camera, w, h, o->point_size, stats.point_coord_quantum, mask);
    const float *background = o->background ? o->background : BACKGROUND;
    for (size_t p = 0; p < pixels; p++) {
        rims += mask[p];
        drawn += abs((int)abuffer[4 * p] - (int)lroundf(background[0] * 255.0f)) > 2 ||
                 abs((int)abuffer[4 * p + 1] - (int)lroundf(background[1] * 255.0f)) > 2 ||
                 abs((int)abuffer[4 * p + 2] - (int)lroundf(background[2] * 255.0f)) > 2;
    }
    outside = off_rim(exact, abuffer, mask, pixels, 1, &over, &most);
    printf("points: %zu of %zu pixels drawn, %zu on a rim; compute-exact vs abuffer: %zu pixels "
           "over 1 level, %zu of them off the rims, where at most %d apart\n", drawn, pixels,
           rims, over, outside, most);
    assert_true(drawn > pixels / 20);
    assert_true(most <= 2);
    assert_true(outside <= pixels / 500);
    outside = off_rim(compute, sorted, mask, pixels, 2, &over, &most);
    printf("points: compute vs sorted draw: %zu pixels over 2 levels, %zu of them off the "
           "rims, where at most %d apart\n", over, outside, most);
    assert_true(most <= 3);
    assert_true(outside <= pixels / 500);
    free(mask);
    free(abuffer);
    free(exact);
    free(sorted);
    free(compute);
}

static void test_point_cloud(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_point_cloud(&mesh, 300, 31);
    ds_camera camera;
    front_camera(&camera, 96, 72);
    /* splats of about 3 to 12 pixels, about two deep on average */
    options o = {0.5f, NULL, 0, DS_COLOR_FILE, 0.2f, 0, 0.0f, 0};
    check_points(&mesh, &camera, 96, 72, &o);
    /* with the view-dependent opacity: the spheres' rims more opaque */
    o.view_opacity = 1;
    check_points(&mesh, &camera, 96, 72, &o);
    ds_mesh_free(&mesh);
}

/* A triangle mesh without colours drawn as points: the attributes hold
 * the normals alone (normals_only), and the colour mode is the normal's. */
static void test_mesh_as_points(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_tilted_triangles(&mesh, 120, 41);
    mesh.has_colors = 0;
    ds_camera camera;
    front_camera(&camera, 80, 60);
    options o = {0.5f, NULL, 0, DS_COLOR_AUTO, 0.12f, 0, 0.0f, 0};
    check_points(&mesh, &camera, 80, 60, &o);
    ds_mesh_free(&mesh);
}

static void test_point_order_invariance(void **state)
{
    (void)state;
    size_t n = 200;
    ds_mesh mesh;
    make_point_cloud(&mesh, n, 53);
    ds_camera camera;
    front_camera(&camera, 96, 72);
    options o = {0.5f, NULL, 0, DS_COLOR_FILE, 0.2f, 0, 0.0f, 0};
    uint8_t *given = image_of(&mesh, &camera, 96, 72, DS_TECHNIQUE_COMPUTE_EXACT, &o);
    size_t order[200];
    uint32_t seed = 9;
    for (int form = 0; form < 3; form++) {
        for (size_t i = 0; i < n; i++)
            order[i] = form == 0 ? n - 1 - i : i;
        if (form == 1) /* sorted far to near, as the sorted draw orders them */
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && mesh.positions[3 * order[j] + 2] <
                                                mesh.positions[3 * order[j - 1] + 2];
                     j--) {
                    size_t swap = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = swap;
                }
        if (form == 2)
            for (size_t i = n - 1; i > 0; i--) {
                size_t j = next_random(&seed) % (i + 1), swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
        ds_mesh other;
        reorder_points(&mesh, order, &other);
        uint8_t *image = image_of(&other, &camera, 96, 72, DS_TECHNIQUE_COMPUTE_EXACT, &o);
        size_t over = 0;
        int most = max_difference(image, given, 96 * 72, 0, &over);
        static const char *const forms[3] = {"reversed", "sorted", "shuffled"};
        printf("points %s: max %d, %zu pixels differ\n", forms[form], most, over);
        assert_int_equal(over, 0);
        free(image);
        ds_mesh_free(&other);
    }
    free(given);
    ds_mesh_free(&mesh);
}

/* The world point whose window position is (x, y) at view depth w (the
 * front camera looks down -z from z = 3). */
static void world_at(const ds_camera *camera, int width, int height, float x, float y, float w,
                     float dest[3])
{
    float m[16];
    ds_camera_view_projection(camera, m);
    /* clip x = m[0] X + m[12], clip w = 3 - Z for the front camera */
    float ndc_x = 2.0f * x / (float)width - 1.0f, ndc_y = 2.0f * y / (float)height - 1.0f;
    dest[0] = (ndc_x * w - m[12]) / m[0];
    dest[1] = (ndc_y * w - m[13]) / m[5];
    dest[2] = 3.0f - w;
}

static void test_awkward_points(void **state)
{
    (void)state;
    int w = 80, h = 60;
    ds_camera camera;
    front_camera(&camera, w, h);
    uint32_t seed = 71;
    /* (a) below a pixel: sizes clamped to 1, each covering the centre
     * within half a pixel of it, or none */
    ds_mesh tiny;
    make_point_cloud(&tiny, 2000, 73);
    options small = {0.6f, NULL, 0, DS_COLOR_FILE, 0.01f, 0, 0.0f, 0};
    check_points(&tiny, &camera, w, h, &small);
    ds_mesh_free(&tiny);

    /* (b) large ones: world size 2 is about 85 / w pixels */
    ds_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    size_t n = 0;
    float p[16][3];
    world_at(&camera, w, h, 40.3f, 30.2f, 1.02f, p[n++]);   /* larger than the screen */
    world_at(&camera, w, h, 20.0f, 20.0f, 0.9f, p[n++]);    /* behind the near plane */
    world_at(&camera, w, h, 60.0f, 35.0f, 6.2f, p[n++]);    /* beyond the far plane */
    world_at(&camera, w, h, 0.7f, 40.4f, 4.0f, p[n++]);     /* at the left edge, inside */
    world_at(&camera, w, h, -0.7f, 15.6f, 4.0f, p[n++]);    /* just beside it: dropped */
    world_at(&camera, w, h, 79.6f, 10.3f, 5.0f, p[n++]);    /* at the right edge */
    world_at(&camera, w, h, 30.2f, 59.8f, 3.0f, p[n++]);    /* at the top edge */
    world_at(&camera, w, h, 50.6f, 60.4f, 3.0f, p[n++]);    /* just above it: dropped */
    for (int k = 0; k < 6; k++)                             /* scattered, mid-sized */
        world_at(&camera, w, h, uniform(&seed, 5.0f, 75.0f), uniform(&seed, 5.0f, 55.0f),
                 uniform(&seed, 3.0f, 5.5f), p[n++]);
    world_at(&camera, w, h, 33.3f, 27.7f, 4.5f, p[n]);     /* coincident: two colours */
    memcpy(p[n + 1], p[n], sizeof p[n]);
    n += 2;
    mesh.vertex_count = n;
    mesh.positions = calloc(3 * n, sizeof(float));
    mesh.colors = calloc(4 * n, 1);
    assert_non_null(mesh.positions);
    assert_non_null(mesh.colors);
    for (size_t i = 0; i < n; i++) {
        memcpy(mesh.positions + 3 * i, p[i], sizeof p[i]);
        random_color(&seed, mesh.colors + 4 * i);
    }
    mesh.has_colors = 1;
    assert_int_equal(ds_mesh_finish(&mesh), DS_OK);
    options large = {0.7f, NULL, 0, DS_COLOR_FILE, 2.0f, 0, 0.0f, 0};
    check_points(&mesh, &camera, w, h, &large);
    ds_mesh_free(&mesh);
}

/* ---- the size gl_PointCoord is computed from ----------------------------- */

#define COORD_W 96
#define COORD_H 72
#define COORD_COLUMNS 6
#define COORD_ROWS 4
#define COORD_WORLD_SIZE 0.3f
#define COORD_ALPHA 0.8f

/* Splats that do not overlap, one a 16 x 18 cell, of sizes from 6 to 14
 * pixels each just below a multiple of 1/32 pixel (by 0.003), so that
 * the size floored to 1/32 is nearly 1/32 smaller and the rims' 1/64
 * pixel inward. */
static void make_coord_splats(const ds_camera *camera, ds_mesh *mesh)
{
    float projection[16];
    ds_camera_projection(camera, projection);
    float scale = COORD_WORLD_SIZE * projection[5] * 0.5f * COORD_H; /* shade.glsl's */
    size_t n = COORD_COLUMNS * COORD_ROWS;
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = n;
    mesh->positions = calloc(3 * n, sizeof(float));
    mesh->colors = calloc(4 * n, 1);
    assert_non_null(mesh->positions);
    assert_non_null(mesh->colors);
    uint32_t seed = 83;
    for (size_t i = 0; i < n; i++) {
        double size = 6.0 + 8.0 * (double)i / (double)(n - 1);
        size = (floor(size * 32.0) + 1.0) / 32.0 - 0.003;
        float x = 8.0f + 16.0f * (float)(i % COORD_COLUMNS) + uniform(&seed, -0.5f, 0.5f);
        float y = 9.0f + 18.0f * (float)(i / COORD_COLUMNS) + uniform(&seed, -0.5f, 0.5f);
        world_at(camera, COORD_W, COORD_H, x, y, (float)(scale / size), mesh->positions + 3 * i);
        random_color(&seed, mesh->colors + 4 * i);
        mesh->colors[4 * i + 3] = 255;
    }
    mesh->has_colors = 1;
    assert_int_equal(ds_mesh_finish(mesh), DS_OK);
}

/* The splats' compute-exact image on the CPU, in double, with
 * gl_PointCoord from the size floored to `quantum` (0: exact): each
 * covered pixel points.frag.glsl's colour (shade.glsl's headlight, file
 * colours, constant alpha) rounded to RGBA8, over the background, rounded
 * again; read_pixels' rows (the top first). `rims` (1 a pixel) gets the
 * centres within 1/64 pixel of a rim of that rule, where float rounding
 * may decide. */
static void coord_reference(const ds_mesh *mesh, const ds_camera *camera, double quantum,
                            uint8_t *dest, uint8_t *rims)
{
    float m[16], projection[16];
    ds_camera_view_projection(camera, m);
    ds_camera_projection(camera, projection);
    double scale = (double)COORD_WORLD_SIZE * projection[5] * 0.5 * COORD_H;
    for (size_t p = 0; p < (size_t)COORD_W * COORD_H; p++) {
        for (int c = 0; c < 4; c++)
            dest[4 * p + c] = (uint8_t)lround(BACKGROUND[c] * 255.0);
        rims[p] = 0;
    }
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        const float *v = mesh->positions + 3 * i;
        double clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r];
        double size = fmax(scale / clip[3], 1.0), s_size = coord_size(size, quantum);
        double xw = (clip[0] / clip[3] * 0.5 + 0.5) * COORD_W;
        double yw = (clip[1] / clip[3] * 0.5 + 0.5) * COORD_H;
        for (int y = 0; y < COORD_H; y++)
            for (int x = 0; x < COORD_W; x++) {
                double dx = x + 0.5 - xw, dy = y + 0.5 - yw;
                size_t p = (size_t)(COORD_H - 1 - y) * COORD_W + (size_t)x;
                if (fabs(hypot(dx, dy) - 0.5 * s_size) < 1.0 / 64.0)
                    rims[p] = 1;
                double px = 2.0 * dx / s_size, py = -2.0 * dy / s_size, r2 = px * px + py * py;
                if (r2 > 1.0)
                    continue;
                double cosine = sqrt(1.0 - r2), a = COORD_ALPHA;
                double specular = 0.25 * pow(cosine, 64.0) / fmax(a, 1.0 / 255.0);
                double src[4], dst[4];
                for (int c = 0; c < 3; c++) {
                    double base = mesh->colors[4 * i + c] / 255.0;
                    src[c] = lround(fmin(base * (0.3 + 0.7 * cosine) + specular, 1.0) * 255.0) /
                             255.0;
                }
                src[3] = lround(a * 255.0) / 255.0;
                for (int c = 0; c < 3; c++)
                    dst[c] = src[3] * src[c] + (1.0 - src[3]) * BACKGROUND[c];
                dst[3] = src[3] + (1.0 - src[3]) * BACKGROUND[3];
                for (int c = 0; c < 4; c++)
                    dest[4 * p + c] = (uint8_t)lround(dst[c] * 255.0);
            }
    }
}

/* Pixels of a and b more than 1 level apart where neither mask is set,
 * and the largest difference there. */
static size_t over_off_rims(const uint8_t *a, const uint8_t *b, const uint8_t *rims_a,
                            const uint8_t *rims_b, int *most)
{
    size_t over = 0;
    *most = 0;
    for (size_t p = 0; p < (size_t)COORD_W * COORD_H; p++) {
        if (rims_a[p] || rims_b[p])
            continue;
        int worst = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)a[4 * p + c] - (int)b[4 * p + c]);
            worst = d > worst ? d : worst;
        }
        over += worst > 1;
        *most = worst > *most ? worst : *most;
    }
    return over;
}

/* desc.raster_point_coord_quantum: with the size floored to 1/32 pixel
 * for gl_PointCoord (NVIDIA's sprites' rule) the compute raster's splats
 * are the CPU's of that rule, and with the exact size the exact rule's,
 * which differ from the first by more than a level in a band inside the
 * rims; the driver's own rule is found by the probe (exact on llvmpipe)
 * and explains its sprites. */
static void test_point_coord_quantum(void **state)
{
    (void)state;
    size_t pixels = (size_t)COORD_W * COORD_H;
    ds_camera camera;
    front_camera(&camera, COORD_W, COORD_H);
    ds_mesh mesh;
    make_coord_splats(&camera, &mesh);
    uint8_t *exact_ref = malloc(4 * pixels), *step_ref = malloc(4 * pixels);
    uint8_t *exact_rims = malloc(pixels), *step_rims = malloc(pixels);
    assert_true(exact_ref && step_ref && exact_rims && step_rims);
    coord_reference(&mesh, &camera, 0.0, exact_ref, exact_rims);
    coord_reference(&mesh, &camera, 1.0 / 32.0, step_ref, step_rims);

    options o = {COORD_ALPHA, NULL, 0, DS_COLOR_FILE, COORD_WORLD_SIZE, 0, 1.0f / 32.0f, 0};
    ds_raster_stats stats;
    uint8_t *stepped = image_with_stats(&mesh, &camera, COORD_W, COORD_H,
                                        DS_TECHNIQUE_COMPUTE_EXACT, &o, &stats);
    assert_true(stats.point_coord_quantum == 1.0f / 32.0f);
    assert_int_equal(stats.point_coord_probed, 0);
    o.point_coord_quantum = -1.0f;
    uint8_t *exact = image_with_stats(&mesh, &camera, COORD_W, COORD_H,
                                      DS_TECHNIQUE_COMPUTE_EXACT, &o, &stats);
    assert_true(stats.point_coord_quantum == 0.0f);
    int most;
    size_t over = over_off_rims(stepped, step_ref, step_rims, step_rims, &most);
    printf("points, step 1/32: compute-exact vs the CPU's rule: %zu pixels over 1 level off "
           "its rims, at most %d apart\n", over, most);
    assert_int_equal(over, 0);
    over = over_off_rims(exact, exact_ref, exact_rims, exact_rims, &most);
    printf("points, exact size: compute-exact vs the CPU's rule: %zu pixels over 1 level off "
           "its rims, at most %d apart\n", over, most);
    assert_int_equal(over, 0);
    /* The rules differ, so the step is taken: the band inside the rims */
    over = over_off_rims(stepped, exact_ref, step_rims, exact_rims, &most);
    printf("points, step 1/32 vs the exact rule: %zu pixels over 1 level, at most %d apart\n",
           over, most);
    assert_true(over >= 20);

    /* The driver's own rule, asked at the first frame of points. */
    o.point_coord_quantum = 0.0f;
    uint8_t *probed = image_with_stats(&mesh, &camera, COORD_W, COORD_H,
                                       DS_TECHNIQUE_COMPUTE_EXACT, &o, &stats);
    printf("points: this driver's gl_PointCoord: step %g pixel (0: exact), %.5f pixels from "
           "it, %s\n", (double)stats.point_coord_quantum, (double)stats.point_coord_residual,
           stats.point_coord_explained ? "explained" : "not explained");
    assert_int_equal(stats.point_coord_probed, 1);
    assert_int_equal(stats.point_coord_explained, 1);
    assert_true(stats.point_coord_residual <= 1.0f / 128.0f);
    free(probed);
    free(exact);
    free(stepped);
    free(exact_ref);
    free(step_ref);
    free(exact_rims);
    free(step_rims);
    ds_mesh_free(&mesh);
}

/* desc.raster: what cannot be rasterised in compute is refused before any
 * frame (or, with raster_auto, drawn by the hardware path), and so are
 * buffers GL cannot bind. */
static void test_bad_raster_requests(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("planes", 500, &mesh), DS_OK);
    ds_renderer_desc desc = {0};
    desc.mesh = &mesh;
    desc.width = 32;
    desc.height = 24;
    desc.sort_algo = DS_SORT_CUB;
    desc.raster = DS_RASTER_COMPUTE;
    ds_renderer *renderer = NULL;
    desc.msaa = 4;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_UNSUPPORTED);
    assert_null(renderer);
    desc.raster_auto = 1; /* the hardware path instead */
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_raster(renderer), DS_RASTER_HW);
    assert_int_equal(ds_renderer_compute_raster(renderer), 0);
    ds_renderer_destroy(renderer);
    renderer = NULL;
    desc.msaa = 1;
    desc.raster_auto = 0;
    /* Points are splats of the compute raster. */
    desc.primitive = DS_PRIMITIVE_POINTS;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_raster(renderer), DS_RASTER_COMPUTE);
    assert_int_equal(ds_renderer_compute_raster(renderer), 1);
    ds_renderer_destroy(renderer);
    renderer = NULL;
    desc.raster_auto = 1; /* auto keeps them on the hardware */
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_raster(renderer), DS_RASTER_HW);
    ds_renderer_destroy(renderer);
    renderer = NULL;
    desc.raster_auto = 0;
    desc.primitive = DS_PRIMITIVE_TRIANGLES;
    desc.raster_initial_fragments = (size_t)1 << 40; /* beyond any storage block */
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_TOO_LARGE);
    assert_null(renderer);
    desc.raster_initial_fragments = 0;
    /* a step of gl_PointCoord's size that is no power of two, or above
     * 1/2 pixel */
    static const float bad_steps[3] = {0.3f, 1.0f, 1.0f / 512.0f};
    for (int k = 0; k < 3; k++) {
        desc.raster_point_coord_quantum = bad_steps[k];
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
        assert_null(renderer);
    }
    desc.raster_point_coord_quantum = 0.0f;
    desc.raster_order = DS_RASTER_ORDER_COUNT;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
    desc.raster_order = DS_RASTER_FRAGMENT_ORDER;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_technique(renderer), DS_TECHNIQUE_COMPUTE_EXACT);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intersecting_triangles),
        cmocka_unit_test(test_planes_scene),
        cmocka_unit_test(test_scans_without_subgroups),
        cmocka_unit_test(test_fill_rule_fan),
        cmocka_unit_test(test_fill_rule_grid),
        cmocka_unit_test(test_awkward_triangles),
        cmocka_unit_test(test_order_invariance),
        cmocka_unit_test(test_narrowed_keys),
        cmocka_unit_test(test_overflow_grows),
        cmocka_unit_test(test_point_cloud),
        cmocka_unit_test(test_mesh_as_points),
        cmocka_unit_test(test_point_order_invariance),
        cmocka_unit_test(test_awkward_points),
        cmocka_unit_test(test_point_coord_quantum),
        cmocka_unit_test(test_bad_raster_requests),
    };
    return cmocka_run_group_tests(tests, egl_setup, egl_teardown);
}
