/* SPDX-License-Identifier: MIT */
/* test_oit.c — the transparency techniques on whatever EGL offers (Mesa
 * llvmpipe in CI):
 *   - the A-buffer against a compositor written here: intersecting,
 *     tilted, coloured triangles rasterised at pixel centres on the host,
 *     shaded with shade.glsl's formula, sorted per pixel by (depth,
 *     primitive) and composited "over" the background, within 1/255;
 *   - the A-buffer and depth peeling agree within 1/255 on the built-in
 *     scenes (planes, shells, gyroid), triangles and points, and a frame
 *     with a pixel deeper than the resolve sorts falls back to peeling;
 *   - the reference does not depend on the mesh's triangle order
 *     (reversed, depth-sorted, shuffled);
 *   - per-triangle sorting is wrong somewhere on the intersecting planes,
 *     and on a closed mesh listed front to back unsorted is worse than
 *     sorted;
 *   - a pool far too small grows and still gives the same image;
 *   - WBOIT is exact for one layer; MSAA does not change the references;
 *     the colour texture holds the image; bad techniques are refused. */
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

static ds_renderer *make_renderer(const ds_mesh *mesh, int width, int height,
                                  ds_technique technique, size_t initial_nodes)
{
    ds_renderer_desc desc = {0};
    desc.mesh = mesh;
    desc.width = width;
    desc.height = height;
    desc.sort_algo = DS_SORT_CUB; /* the CPU path takes cpu */
    desc.alpha = 0.4f;
    memcpy(desc.background, BACKGROUND, sizeof desc.background);
    desc.abuffer_initial_nodes = initial_nodes;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_set_technique(renderer, technique), DS_OK);
    assert_int_equal(ds_renderer_technique(renderer), technique);
    return renderer;
}

static void render(ds_renderer *renderer, const ds_camera *camera, uint8_t *pixels)
{
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
}

/* The image of `mesh` with one technique. */
static uint8_t *image_of(const ds_mesh *mesh, const ds_camera *camera, int width, int height,
                         ds_technique technique)
{
    uint8_t *pixels = malloc((size_t)width * height * 4);
    assert_non_null(pixels);
    ds_renderer *renderer = make_renderer(mesh, width, height, technique, 0);
    render(renderer, camera, pixels);
    ds_renderer_destroy(renderer);
    return pixels;
}

static double squared_error(const uint8_t *a, const uint8_t *b, size_t pixels)
{
    double sum = 0.0;
    for (size_t i = 0; i < 4 * pixels; i++) {
        double d = (double)a[i] - (double)b[i];
        sum += d * d;
    }
    return sum;
}

/* ---- the compositor written here ---------------------------------------- */

#define CPU_W 64
#define CPU_H 48
#define CPU_TRIANGLES 8

/* The renderer's normal after its GL_INT_2_10_10_10_REV round trip. */
static float quantised_normal(float c)
{
    float q = (float)lrintf((c < -1.0f ? -1.0f : c > 1.0f ? 1.0f : c) * 511.0f) / 511.0f;
    return q < -1.0f ? -1.0f : q;
}

static float unorm8(float c)
{
    c = c < 0.0f ? 0.0f : c > 1.0f ? 1.0f : c;
    return roundf(c * 255.0f) / 255.0f;
}

typedef struct fragment {
    float depth;
    uint32_t primitive;
    float rgba[4];
} fragment;

/* Far first: depth, then primitive, both descending. */
static int far_first(const void *a, const void *b)
{
    const fragment *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? 1 : -1;
    return x->primitive < y->primitive ? 1 : x->primitive > y->primitive ? -1 : 0;
}

static void test_abuffer_matches_cpu_compositor(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    float m[16], eye[3];
    make_tilted_triangles(&mesh, CPU_TRIANGLES, 7);
    front_camera(&camera, CPU_W, CPU_H);
    ds_camera_view_projection(&camera, m);
    ds_camera_eye(&camera, eye);
    uint8_t *gpu = image_of(&mesh, &camera, CPU_W, CPU_H, DS_TECHNIQUE_ABUFFER);

    /* Window coordinates of every vertex. */
    float window[3 * CPU_TRIANGLES][4];
    for (size_t v = 0; v < mesh.vertex_count; v++) {
        const float *p = mesh.positions + 3 * v;
        float clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
        window[v][0] = (clip[0] / clip[3] * 0.5f + 0.5f) * CPU_W;
        window[v][1] = (clip[1] / clip[3] * 0.5f + 0.5f) * CPU_H;
        window[v][2] = clip[2] / clip[3] * 0.5f + 0.5f;
        window[v][3] = clip[3];
    }
    int compared = 0, layered = 0, worst = 0;
    for (int y = 0; y < CPU_H; y++)
        for (int x = 0; x < CPU_W; x++) {
            float px = (float)x + 0.5f, py = (float)y + 0.5f;
            fragment list[CPU_TRIANGLES];
            int count = 0, ambiguous = 0;
            for (uint32_t t = 0; t < CPU_TRIANGLES; t++) {
                const float *a = window[3 * t], *b = window[3 * t + 1], *c = window[3 * t + 2];
                float area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
                float w0 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / area;
                float w1 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / area;
                float w2 = 1.0f - w0 - w1;
                float margin = 1e-3f; /* the rasteriser's edge rule decides here */
                if (fabsf(w0) < margin || fabsf(w1) < margin || fabsf(w2) < margin)
                    ambiguous = 1;
                if (w0 < 0.0f || w1 < 0.0f || w2 < 0.0f)
                    continue;
                /* Window depth is affine in screen space; attributes are
                 * perspective-correct. */
                fragment *f = &list[count++];
                f->depth = w0 * a[2] + w1 * b[2] + w2 * c[2];
                f->primitive = t;
                float p0 = w0 / a[3], p1 = w1 / b[3], p2 = w2 / c[3], sum = p0 + p1 + p2;
                float world[3], to_eye[3], normal[3];
                for (int k = 0; k < 3; k++) {
                    world[k] = (p0 * mesh.positions[9 * t + k] + p1 * mesh.positions[9 * t + 3 + k] +
                                p2 * mesh.positions[9 * t + 6 + k]) / sum;
                    to_eye[k] = eye[k] - world[k];
                    normal[k] = quantised_normal(mesh.normals[9 * t + k]);
                }
                float dot = normal[0] * to_eye[0] + normal[1] * to_eye[1] + normal[2] * to_eye[2];
                float cosine = fabsf(dot) / sqrtf((normal[0] * normal[0] + normal[1] * normal[1] +
                                                   normal[2] * normal[2]) *
                                                  (to_eye[0] * to_eye[0] + to_eye[1] * to_eye[1] +
                                                   to_eye[2] * to_eye[2]));
                cosine = cosine < 1.0f ? cosine : 1.0f;
                const uint8_t *rgba = mesh.colors + 12 * t;
                float alpha = (float)rgba[3] / 255.0f * 0.4f;
                /* shade.glsl's ds_shade, constant opacity */
                for (int k = 0; k < 3; k++) {
                    float lit = (float)rgba[k] / 255.0f * (0.3f + 0.7f * cosine) +
                                0.25f * powf(cosine, 64.0f) / fmaxf(alpha, 1.0f / 255.0f);
                    f->rgba[k] = unorm8(lit);
                }
                f->rgba[3] = unorm8(alpha);
            }
            qsort(list, (size_t)count, sizeof *list, far_first);
            for (int i = 1; i < count; i++)
                if (list[i - 1].depth - list[i].depth < 1e-5f)
                    ambiguous = 1; /* the triangles cross at this pixel */
            if (ambiguous)
                continue;
            float dst[4];
            memcpy(dst, BACKGROUND, sizeof dst);
            for (int i = 0; i < count; i++) {
                float a = list[i].rgba[3];
                for (int k = 0; k < 3; k++)
                    dst[k] = a * list[i].rgba[k] + (1.0f - a) * dst[k];
                dst[3] = a + (1.0f - a) * dst[3];
            }
            const uint8_t *pixel = gpu + 4 * ((size_t)(CPU_H - 1 - y) * CPU_W + (size_t)x);
            for (int k = 0; k < 4; k++) {
                int d = abs((int)pixel[k] - (int)lroundf(dst[k] * 255.0f));
                worst = d > worst ? d : worst;
            }
            compared++;
            layered += count >= 3;
        }
    printf("cpu compositor: %d pixels compared (%d with 3+ layers), largest difference %d\n",
           compared, layered, worst);
    assert_true(compared > CPU_W * CPU_H / 2);
    assert_true(layered > 50);
    assert_true(worst <= 1);
    free(gpu);
    ds_mesh_free(&mesh);
}

/* ---- the two exact methods, and the order ------------------------------- */

#define SCENE_W 160
#define SCENE_H 120

static void scene_camera(const ds_mesh *mesh, float yaw, ds_camera *camera)
{
    memset(camera, 0, sizeof *camera);
    camera->fov_y = 0.8f;
    camera->yaw = yaw;
    camera->pitch = 0.3f;
    ds_camera_frame(camera, mesh->center, mesh->radius, (float)SCENE_W / SCENE_H);
}

/* point_scale: the splat size as a fraction of the mesh's radius (points
 * only; 0 the default). peeled: whether the A-buffer is expected to
 * fall back to peeling (a pixel deeper than it sorts). */
static void check_exact_methods_agree(const char *scene, size_t triangles, ds_primitive primitive,
                                      float point_scale, unsigned peeled)
{
    ds_mesh mesh;
    ds_camera camera;
    assert_int_equal(ds_scene_build(scene, triangles, &mesh), DS_OK);
    scene_camera(&mesh, 0.6f, &camera);
    uint8_t *images[2];
    ds_technique techniques[2] = {DS_TECHNIQUE_ABUFFER, DS_TECHNIQUE_PEEL};
    ds_abuffer_info info;
    for (int i = 0; i < 2; i++) {
        images[i] = malloc(SCENE_W * SCENE_H * 4);
        assert_non_null(images[i]);
        ds_renderer *renderer = make_renderer(&mesh, SCENE_W, SCENE_H, techniques[i], 0);
        assert_int_equal(ds_renderer_set_primitive(renderer, primitive), DS_OK);
        if (point_scale > 0.0f)
            ds_renderer_set_point_size(renderer, point_scale * mesh.radius);
        render(renderer, &camera, images[i]);
        if (i == 0)
            assert_int_equal(ds_renderer_abuffer_info(renderer, &info), DS_OK);
        ds_renderer_destroy(renderer);
    }
    size_t over = 0, changed = 0;
    int most = max_difference(images[0], images[1], SCENE_W * SCENE_H, 1, &over);
    uint8_t background[4];
    for (int k = 0; k < 4; k++)
        background[k] = (uint8_t)lroundf(BACKGROUND[k] * 255.0f);
    for (size_t p = 0; p < SCENE_W * SCENE_H; p++)
        changed += memcmp(images[0] + 4 * p, background, 4) != 0;
    printf("%s %s (%zu triangles): abuffer vs peel: largest difference %d; %zu nodes, "
           "%u deepest, %.1f bytes/pixel, %u peeled\n", scene, primitive ? "points" : "triangles",
           mesh.triangle_count, most, info.nodes_used, info.max_fragments, info.bytes_per_pixel,
           info.peeled_frames);
    assert_true(most <= 1);
    assert_true(changed > SCENE_W * SCENE_H / 8); /* the scene is in view */
    assert_true(info.max_fragments >= 3);
    assert_int_equal(info.peeled_frames, peeled);
    assert_int_equal(info.max_fragments > DS_ABUFFER_SORTED_FRAGMENTS, peeled);
    free(images[0]);
    free(images[1]);
    ds_mesh_free(&mesh);
}

static void test_abuffer_and_peel_agree(void **state)
{
    (void)state;
    check_exact_methods_agree("planes", 2000, DS_PRIMITIVE_TRIANGLES, 0.0f, 0);
    check_exact_methods_agree("shells", 5000, DS_PRIMITIVE_TRIANGLES, 0.0f, 0);
    check_exact_methods_agree("gyroid", 20000, DS_PRIMITIVE_TRIANGLES, 0.0f, 0);
    check_exact_methods_agree("shells", 5000, DS_PRIMITIVE_POINTS, 0.03f, 0);
    /* Splats so large that some pixel holds more fragments than the
     * resolve sorts: the A-buffer frame falls back to peeling. */
    check_exact_methods_agree("shells", 5000, DS_PRIMITIVE_POINTS, 0.0f, 1);
}

/* `mesh` with its triangles listed in the order `order` (a copy). */
static void reorder(const ds_mesh *mesh, const uint32_t *order, ds_mesh *dest)
{
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    *dest = *mesh;
    dest->positions = malloc(3 * v * sizeof(float));
    dest->normals = malloc(3 * v * sizeof(float));
    dest->colors = malloc(4 * v);
    dest->indices = malloc(3 * t * sizeof(uint32_t));
    assert_non_null(dest->positions);
    assert_non_null(dest->normals);
    assert_non_null(dest->colors);
    assert_non_null(dest->indices);
    memcpy(dest->positions, mesh->positions, 3 * v * sizeof(float));
    memcpy(dest->normals, mesh->normals, 3 * v * sizeof(float));
    memcpy(dest->colors, mesh->colors, 4 * v);
    for (size_t i = 0; i < t; i++)
        memcpy(dest->indices + 3 * i, mesh->indices + 3 * (size_t)order[i], 3 * sizeof(uint32_t));
}

static const float *sort_eye;
static const ds_mesh *sort_mesh;

static float centroid_distance(uint32_t t)
{
    float d = 0.0f;
    for (int a = 0; a < 3; a++) {
        float c = 0.0f;
        for (int k = 0; k < 3; k++)
            c += sort_mesh->positions[3 * (size_t)sort_mesh->indices[3 * (size_t)t + k] + a];
        c = c / 3.0f - sort_eye[a];
        d += c * c;
    }
    return d;
}

/* Near first. */
static int near_first(const void *a, const void *b)
{
    float x = centroid_distance(*(const uint32_t *)a), y = centroid_distance(*(const uint32_t *)b);
    return x < y ? -1 : x > y ? 1 : 0;
}

static uint32_t *permutation(const ds_mesh *mesh, const float eye[3], int kind)
{
    size_t t = mesh->triangle_count;
    uint32_t *order = malloc(t * sizeof *order);
    assert_non_null(order);
    for (size_t i = 0; i < t; i++)
        order[i] = (uint32_t)(kind == 1 ? t - 1 - i : i);
    if (kind == 2) {
        uint32_t seed = 12345;
        for (size_t i = t; i > 1; i--) {
            size_t j = next_random(&seed) % i;
            uint32_t s = order[i - 1];
            order[i - 1] = order[j];
            order[j] = s;
        }
    } else if (kind == 3) {
        sort_eye = eye;
        sort_mesh = mesh;
        qsort(order, t, sizeof *order, near_first);
    }
    return order;
}

static void test_reference_ignores_order(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    float eye[3];
    assert_int_equal(ds_scene_build("planes", 2000, &mesh), DS_OK);
    scene_camera(&mesh, 0.6f, &camera);
    ds_camera_eye(&camera, eye);
    uint8_t *first = image_of(&mesh, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER);
    /* 1 reversed, 2 shuffled, 3 sorted near first by centroid. */
    for (int kind = 1; kind <= 3; kind++) {
        uint32_t *order = permutation(&mesh, eye, kind);
        ds_mesh reordered;
        reorder(&mesh, order, &reordered);
        uint8_t *image = image_of(&reordered, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER);
        int most = max_difference(first, image, SCENE_W * SCENE_H, 0, NULL);
        printf("planes, triangle order %d: largest difference to the file order %d\n", kind,
               most);
        assert_true(most <= 1);
        free(image);
        free(order);
        ds_mesh_free(&reordered);
    }
    free(first);
    ds_mesh_free(&mesh);
}

/* A UV sphere of radius 1: a closed surface, two layers wherever it is
 * seen. */
static void make_sphere(ds_mesh *mesh)
{
    enum { RINGS = 24, SEGMENTS = 48 };
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = (RINGS + 1) * (SEGMENTS + 1);
    mesh->triangle_count = 2 * RINGS * SEGMENTS;
    mesh->positions = malloc(3 * mesh->vertex_count * sizeof(float));
    mesh->indices = malloc(3 * mesh->triangle_count * sizeof(uint32_t));
    assert_non_null(mesh->positions);
    assert_non_null(mesh->indices);
    for (int r = 0; r <= RINGS; r++)
        for (int s = 0; s <= SEGMENTS; s++) {
            float theta = 3.14159265f * (float)r / RINGS, phi = 6.2831853f * (float)s / SEGMENTS;
            float *p = mesh->positions + 3 * (size_t)(r * (SEGMENTS + 1) + s);
            p[0] = sinf(theta) * cosf(phi);
            p[1] = cosf(theta);
            p[2] = sinf(theta) * sinf(phi);
        }
    uint32_t *index = mesh->indices;
    for (int r = 0; r < RINGS; r++)
        for (int s = 0; s < SEGMENTS; s++) {
            uint32_t a = (uint32_t)(r * (SEGMENTS + 1) + s), b = a + SEGMENTS + 1;
            uint32_t quad[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(index, quad, sizeof quad);
            index += 6;
        }
    assert_int_equal(ds_mesh_finish(mesh), DS_OK);
}

static void test_sorting_errors(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    size_t pixels = SCENE_W * SCENE_H, over = 0;
    /* The planes interpenetrate: whole triangles cannot be ordered. */
    assert_int_equal(ds_scene_build("planes", 2000, &mesh), DS_OK);
    scene_camera(&mesh, 0.6f, &camera);
    uint8_t *exact = image_of(&mesh, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER);
    uint8_t *sorted = image_of(&mesh, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_SORTED);
    int most = max_difference(exact, sorted, pixels, 2, &over);
    printf("planes: sorted vs abuffer: largest difference %d, %zu pixels over 2\n", most, over);
    assert_true(most > 2 && over > 0);
    free(exact);
    free(sorted);
    ds_mesh_free(&mesh);

    /* A closed mesh (a sphere) listed front to back from the camera. */
    make_sphere(&mesh);
    scene_camera(&mesh, 0.6f, &camera);
    float eye[3];
    ds_camera_eye(&camera, eye);
    uint32_t *order = permutation(&mesh, eye, 3);
    ds_mesh front_to_back;
    reorder(&mesh, order, &front_to_back);
    exact = image_of(&front_to_back, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER);
    sorted = image_of(&front_to_back, &camera, SCENE_W, SCENE_H, DS_TECHNIQUE_SORTED);
    uint8_t *unsorted = image_of(&front_to_back, &camera, SCENE_W, SCENE_H,
                                 DS_TECHNIQUE_UNSORTED);
    double sorted_error = squared_error(exact, sorted, pixels);
    double unsorted_error = squared_error(exact, unsorted, pixels);
    printf("closed shells listed front to back: rmse sorted %.3f, unsorted %.3f\n",
           sqrt(sorted_error / (4.0 * (double)pixels)), sqrt(unsorted_error / (4.0 * (double)pixels)));
    assert_true(unsorted_error > 4.0 * sorted_error);
    free(exact);
    free(sorted);
    free(unsorted);
    free(order);
    ds_mesh_free(&front_to_back);
    ds_mesh_free(&mesh);
}

static void test_pool_grows(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    assert_int_equal(ds_scene_build("gyroid", 20000, &mesh), DS_OK);
    scene_camera(&mesh, 0.3f, &camera);
    uint8_t *roomy = malloc(SCENE_W * SCENE_H * 4), *grown = malloc(SCENE_W * SCENE_H * 4);
    assert_non_null(roomy);
    assert_non_null(grown);
    ds_abuffer_info info;
    ds_renderer *renderer = make_renderer(&mesh, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER, 0);
    render(renderer, &camera, roomy);
    assert_int_equal(ds_renderer_abuffer_info(renderer, &info), DS_OK);
    assert_int_equal(info.grow_count, 0);
    assert_int_equal(info.node_capacity, DS_ABUFFER_NODES_PER_PIXEL * SCENE_W * SCENE_H);
    ds_renderer_destroy(renderer);
    size_t needed = info.nodes_used;

    renderer = make_renderer(&mesh, SCENE_W, SCENE_H, DS_TECHNIQUE_ABUFFER, 16);
    render(renderer, &camera, grown);
    assert_int_equal(ds_renderer_abuffer_info(renderer, &info), DS_OK);
    printf("pool of 16 nodes: grew %u time(s) to %zu for %zu fragments, %.1f bytes/pixel\n",
           info.grow_count, info.node_capacity, info.nodes_used, info.bytes_per_pixel);
    assert_int_equal(info.grow_count, 1);
    assert_int_equal(info.nodes_used, needed);
    assert_true(info.node_capacity >= needed);
    assert_int_equal(info.bytes, info.node_capacity * DS_ABUFFER_NODE_BYTES +
                                     4u * SCENE_W * SCENE_H + 8u);
    assert_memory_equal(roomy, grown, SCENE_W * SCENE_H * 4);
    /* The next frame fits: no second grow. */
    render(renderer, &camera, grown);
    assert_int_equal(ds_renderer_abuffer_info(renderer, &info), DS_OK);
    assert_int_equal(info.grow_count, 1);
    ds_renderer_destroy(renderer);
    free(roomy);
    free(grown);
    ds_mesh_free(&mesh);
}

/* One translucent layer: WBOIT's weighted average is the layer itself. */
static void test_wboit_single_layer(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    make_tilted_triangles(&mesh, CPU_TRIANGLES, 7);
    mesh.triangle_count = 1;
    front_camera(&camera, CPU_W, CPU_H);
    uint8_t *exact = image_of(&mesh, &camera, CPU_W, CPU_H, DS_TECHNIQUE_ABUFFER);
    uint8_t *blended = image_of(&mesh, &camera, CPU_W, CPU_H, DS_TECHNIQUE_WBOIT);
    size_t over = 0;
    int most = max_difference(exact, blended, CPU_W * CPU_H, 1, &over);
    printf("one layer: wboit vs abuffer largest difference %d\n", most);
    assert_true(most <= 2);
    free(exact);
    free(blended);
    /* Several layers: an approximation, not the reference. */
    mesh.triangle_count = CPU_TRIANGLES;
    exact = image_of(&mesh, &camera, CPU_W, CPU_H, DS_TECHNIQUE_ABUFFER);
    blended = image_of(&mesh, &camera, CPU_W, CPU_H, DS_TECHNIQUE_WBOIT);
    most = max_difference(exact, blended, CPU_W * CPU_H, 2, &over);
    printf("%d layers: wboit vs abuffer largest difference %d, %zu pixels over 2\n",
           CPU_TRIANGLES, most, over);
    assert_true(over > 0);
    free(exact);
    free(blended);
    ds_mesh_free(&mesh);
}

/* The references sample pixel centres whatever the MSAA; the colour
 * texture holds what read-back reads; resize re-makes the images. */
static void test_msaa_texture_and_resize(void **state)
{
    (void)state;
    ds_mesh mesh;
    ds_camera camera;
    size_t bytes = SCENE_W * SCENE_H * 4;
    assert_int_equal(ds_scene_build("shells", 3000, &mesh), DS_OK);
    scene_camera(&mesh, 1.0f, &camera);
    uint8_t *plain = malloc(bytes), *other = malloc(bytes), *texture = malloc(bytes);
    assert_non_null(plain);
    assert_non_null(other);
    assert_non_null(texture);
    for (int t = DS_TECHNIQUE_WBOIT; t <= DS_TECHNIQUE_ABUFFER; t++) {
        ds_renderer *renderer = make_renderer(&mesh, SCENE_W, SCENE_H, (ds_technique)t, 0);
        render(renderer, &camera, plain);
        unsigned name = ds_renderer_color_texture(renderer);
        assert_true(name != 0);
        glGetTextureImage(name, 0, GL_RGBA, GL_UNSIGNED_BYTE, (GLsizei)bytes, texture);
        for (int y = 0; y < SCENE_H; y++) /* GL's rows bottom first */
            assert_memory_equal(texture + (size_t)y * SCENE_W * 4,
                                plain + (size_t)(SCENE_H - 1 - y) * SCENE_W * 4, SCENE_W * 4);
        assert_int_equal(ds_renderer_set_msaa(renderer, 4), DS_OK);
        render(renderer, &camera, other);
        assert_memory_equal(plain, other, bytes);
        assert_true(ds_renderer_color_texture(renderer) != 0);
        assert_int_equal(ds_renderer_set_msaa(renderer, 1), DS_OK);
        assert_int_equal(ds_renderer_resize(renderer, 40, 30), DS_OK);
        assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
        assert_int_equal(ds_renderer_resize(renderer, SCENE_W, SCENE_H), DS_OK);
        render(renderer, &camera, other);
        assert_memory_equal(plain, other, bytes);
        ds_renderer_destroy(renderer);
    }
    free(plain);
    free(other);
    free(texture);
    ds_mesh_free(&mesh);
}

static void test_technique_names_and_bad_input(void **state)
{
    (void)state;
    /* The registry's order (technique_registry.h). */
    static const char *const names[DS_TECHNIQUE_COUNT] = {"unsorted", "sorted",  "wboit",
                                                          "peel",     "abuffer", "compute",
                                                          "compute-exact"};
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        assert_string_equal(ds_technique_name((ds_technique)t), names[t]);
        assert_int_equal(ds_technique_from_name(names[t]), t);
    }
    assert_int_equal(ds_technique_from_name("exact"), DS_TECHNIQUE_COUNT);
    assert_int_equal(ds_technique_from_name(NULL), DS_TECHNIQUE_COUNT);
    assert_string_equal(ds_technique_name(DS_TECHNIQUE_COUNT), "unknown");

    ds_mesh mesh;
    assert_int_equal(ds_scene_build("planes", 500, &mesh), DS_OK);
    ds_renderer *renderer = make_renderer(&mesh, 32, 24, DS_TECHNIQUE_SORTED, 0);
    ds_abuffer_info info;
    assert_int_equal(ds_renderer_abuffer_info(renderer, &info), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_renderer_set_technique(renderer, DS_TECHNIQUE_COUNT), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_renderer_set_technique(renderer, (ds_technique)-1), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_renderer_technique(renderer), DS_TECHNIQUE_SORTED);
    ds_renderer_set_sorting(renderer, 0);
    assert_int_equal(ds_renderer_technique(renderer), DS_TECHNIQUE_UNSORTED);
    assert_int_equal(ds_renderer_set_technique(renderer, DS_TECHNIQUE_ABUFFER), DS_OK);
    assert_int_equal(ds_renderer_culling(renderer), 0);
    assert_int_equal(ds_renderer_set_technique(renderer, DS_TECHNIQUE_SORTED), DS_OK);
    assert_int_equal(ds_renderer_technique(renderer), DS_TECHNIQUE_SORTED);
    assert_int_equal(ds_renderer_color_texture(renderer), 0); /* no frame yet */
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_technique_names_and_bad_input),
        cmocka_unit_test(test_abuffer_matches_cpu_compositor),
        cmocka_unit_test(test_abuffer_and_peel_agree),
        cmocka_unit_test(test_reference_ignores_order),
        cmocka_unit_test(test_sorting_errors),
        cmocka_unit_test(test_pool_grows),
        cmocka_unit_test(test_wboit_single_layer),
        cmocka_unit_test(test_msaa_texture_and_resize),
    };
    /* Skip (77) without any GL 4.5 display, as test_metrics does. */
    ds_egl_context *probe = NULL;
    if (ds_egl_context_create(1, &probe) != DS_OK)
        return 77;
    ds_egl_context_destroy(probe);
    return cmocka_run_group_tests(tests, egl_setup, egl_teardown);
}
