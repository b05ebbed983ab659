/* SPDX-License-Identifier: MIT */
/* test_render.c — the render pipeline on whatever EGL offers (Mesa llvmpipe
 * in CI: the CPU path; an NVIDIA GPU: the CUDA path):
 *   - three translucent layers at known depths, seen head on: the sorted
 *     draw must give the analytic back-to-front colour at chosen pixels, the
 *     unsorted (mesh order, front to back) draw must not;
 *   - the same with round point splats;
 *   - every frame's order checks out against the CPU reference (verify);
 *   - the draw forms (vertex pulling or scatter + indexed draw) give the
 *     same image;
 *   - small-triangle culling never leaves out a triangle the rasteriser
 *     (llvmpipe in CI) gives a fragment, and culling on or off gives the
 *     same image;
 *   - screen tiles: drawn tile by tile under their scissors, random
 *     triangles give every pixel the same fragments as drawn at once (the
 *     rasteriser against ds_triangle_tiles()); the host binning keeps the
 *     sorted order per tile; tiles on or off give the same image;
 *   - colour and opacity modes: a PLY's alpha-0 half draws nothing in any
 *     of them, each mode gives its own colour, AUTO resolves;
 *   - the default stages: the choice for GPUs' and software GLs' renderer
 *     strings, and in a renderer (DS_TEST_GL_RENDERER for a GPU's GL);
 *   - MSAA resolves where read and into a caller's framebuffer, and turns
 *     culling off; culling AUTO is off on the CPU path;
 *   - the size check refuses counts beyond the index format in one line;
 *   - a headless smoke run of a built-in scene writes CSV, JSON and a PNG;
 *   - no GL error is reported through KHR_debug anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include <glad/gl.h>

#include "camera.h"
#include "distance_math.h"
#include "egl_context.h"
#include "headless.h"
#include "image_write.h"
#include "load.h"
#include "host_memory.h"
#include "renderer.h"
#include "renderer_internal.h" /* the last frame's plan: which form drew */
#include "scene.h"
#include "tiles.h"

#define WIDTH 96
#define HEIGHT 64
#define ALPHA 0.5f
/* 8-bit rounding in blending, three layers deep, plus llvmpipe's blend
 * precision: a few steps of 1/255. */
#define TOLERANCE 3

static ds_egl_context *context;

/* Layer k (0 nearest) sits at z = -2k with half-size layer_half[k], colour
 * k; the far layer sticks out beyond the middle one on screen. */
static const float layer_half[3] = {1.0f, 2.0f, 3.5f};
static const uint8_t layer_colors[3][4] = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}};

static int setup(void **state)
{
    (void)state;
    if (ds_egl_context_create(1, &context) != DS_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ds_egl_context_destroy(context);
    return 0;
}

/* Three axis-aligned quads facing +Z, listed near to far (the wrong order
 * for drawing), two triangles each. */
static void make_layers(ds_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = 12;
    mesh->triangle_count = 6;
    mesh->positions = calloc(36, sizeof(float));
    mesh->colors = calloc(48, 1);
    mesh->indices = calloc(18, sizeof(uint32_t));
    assert_non_null(mesh->positions);
    assert_non_null(mesh->colors);
    assert_non_null(mesh->indices);
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 3; k++) {
        float half = layer_half[k];
        for (int c = 0; c < 4; c++) {
            float *p = mesh->positions + 3 * (4 * k + c);
            p[0] = corners[c][0] * half;
            p[1] = corners[c][1] * half;
            p[2] = -2.0f * (float)k;
            memcpy(mesh->colors + 4 * (4 * k + c), layer_colors[k], 4);
        }
        uint32_t base = 4 * (uint32_t)k, quad[6] = {0, 1, 2, 0, 2, 3};
        for (int i = 0; i < 6; i++)
            mesh->indices[6 * k + i] = base + quad[i];
    }
    mesh->has_colors = 1; /* drawn in the file colour mode */
    assert_int_equal(ds_mesh_finish(mesh), DS_OK);
}

/* The camera on the +Z axis looking down -Z at the layers. */
static void layer_camera(ds_camera *camera)
{
    memset(camera, 0, sizeof *camera);
    camera->target[2] = -2.0f;
    camera->distance = 5.0f;
    camera->fov_y = 0.9f;
    camera->aspect = (float)WIDTH / HEIGHT;
    camera->near_plane = 0.5f;
    camera->far_plane = 20.0f;
}

/* shade.glsl's headlight, written again: the fragment colour of a
 * surface of colour rgb and alpha a whose normal makes cosine c with the
 * view (constant opacity). */
#define SHADE_AMBIENT 0.3f
#define SHADE_SPECULAR 0.25f
#define SHADE_SHININESS 64.0f
static float shade(float rgb, float a, float c)
{
    float lit = rgb * (SHADE_AMBIENT + (1.0f - SHADE_AMBIENT) * c) +
                SHADE_SPECULAR * powf(c, SHADE_SHININESS) / a;
    return lit < 1.0f ? lit : 1.0f;
}

/* "Over" on an opaque black background, back to front, straight alpha,
 * of layers lit at cosine c[k] (layer k) with the view. */
static void composite_lit(const int *layers, int count, const float *c, float dest[3])
{
    dest[0] = dest[1] = dest[2] = 0.0f;
    for (int i = 0; i < count; i++)
        for (int ch = 0; ch < 3; ch++)
            dest[ch] = ALPHA * shade((float)layer_colors[layers[i]][ch] / 255.0f, ALPHA,
                                     c[layers[i]]) +
                       (1.0f - ALPHA) * dest[ch];
}

/* The cosine a layer's vertices make with the view (shade.glsl's
 * ds_view_cosine): the layers face +Z and layer_camera()'s eye is on the
 * axis at z = 3, so all four corners of layer k, at (+-h, +-h, -2k), see
 * it at the same angle. The headlight is evaluated per vertex and
 * interpolated, so the whole layer is lit at this one cosine. */
static float layer_cosine(int k)
{
    float h = layer_half[k], depth = 3.0f + 2.0f * (float)k;
    return depth / sqrtf(2.0f * h * h + depth * depth);
}

/* The layers (quads) over black at pixel (x, y), which all of them cover. */
static void composite_at(const int *layers, int count, int x, int y, float dest[3])
{
    (void)x;
    (void)y;
    composite_lit(layers, count, (const float[]){layer_cosine(0), layer_cosine(1), layer_cosine(2)},
                  dest);
}

static int pixel_matches(const uint8_t *pixels, int x, int y, const float expected[3])
{
    const uint8_t *p = pixels + 4 * ((size_t)y * WIDTH + (size_t)x);
    for (int c = 0; c < 3; c++)
        if (abs((int)p[c] - (int)lroundf(expected[c] * 255.0f)) > TOLERANCE)
            return 0;
    return 1;
}

/* Screen column where world point (x, 0, z) lands. */
static float screen_x(const ds_camera *camera, float x, float z)
{
    float m[16];
    ds_camera_view_projection(camera, m);
    float clip_x = m[0] * x + m[8] * z + m[12];
    float clip_w = m[3] * x + m[11] * z + m[15];
    return (clip_x / clip_w * 0.5f + 0.5f) * WIDTH;
}

static ds_renderer *make_renderer_bits(const ds_mesh *mesh, ds_primitive primitive, int verify,
                                       int key_bits)
{
    ds_renderer_desc desc = {0};
    desc.key_bits = key_bits;
    desc.mesh = mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.sort_algo = DS_SORT_CUB; /* the CPU path takes cpu */
    desc.primitive = primitive;
    desc.alpha = ALPHA;
    desc.background[3] = 1.0f;
    desc.point_size = 1.0f;
    desc.verify = verify;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    return renderer;
}

static ds_renderer *make_renderer(const ds_mesh *mesh, ds_primitive primitive, int verify)
{
    return make_renderer_bits(mesh, primitive, verify, 0);
}

static void render(ds_renderer *renderer, uint8_t *pixels)
{
    ds_camera camera;
    layer_camera(&camera);
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
}

/* --verify must not pass a frame whose keys are NaN: a camera that
 * overflowed float (here a NaN target) makes every distance NaN, and the
 * sorts may put NaN keys anywhere. */
static void test_verify_refuses_nan_keys(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_layers(&mesh);
    ds_renderer *renderer = make_renderer(&mesh, DS_PRIMITIVE_TRIANGLES, 1);
    ds_camera camera;
    layer_camera(&camera);
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    camera.target[0] = NAN;
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER);
    if (status == DS_OK)
        status = ds_renderer_verify(renderer);
    ds_log_set_quiet(0);
    printf("%s\n", ds_last_error());
    assert_int_equal(status, DS_ERR_MISMATCH);
    assert_non_null(strstr(ds_last_error(), "is NaN"));
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

static void test_layers_sorted_and_unsorted(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_layers(&mesh);
    ds_renderer *renderer = make_renderer(&mesh, DS_PRIMITIVE_TRIANGLES, 1);
    static uint8_t pixels[WIDTH * HEIGHT * 4];
    ds_camera camera;
    layer_camera(&camera);

    /* Centre: all three layers; between the middle layer's right edge and
     * the far one's: only the far layer; a corner: background. */
    int cx = WIDTH / 2, cy = HEIGHT / 2;
    float middle_edge = screen_x(&camera, layer_half[1], -2.0f),
          far_edge = screen_x(&camera, layer_half[2], -4.0f);
    assert_true(far_edge - middle_edge > 4.0f); /* the layout leaves room */
    int fx = (int)(0.5f * (middle_edge + far_edge));
    float all_sorted[3], all_unsorted[3], far_only[3], background[3] = {0, 0, 0};
    composite_at((const int[]){2, 1, 0}, 3, cx, cy, all_sorted);
    composite_at((const int[]){0, 1, 2}, 3, cx, cy, all_unsorted);
    composite_at((const int[]){2}, 1, fx, cy, far_only);
    printf("sorted centre expected %.3f %.3f %.3f, unsorted %.3f %.3f %.3f\n",
           all_sorted[0], all_sorted[1], all_sorted[2], all_unsorted[0], all_unsorted[1],
           all_unsorted[2]);

    render(renderer, pixels);
    const uint8_t *c = pixels + 4 * ((size_t)cy * WIDTH + cx);
    printf("sorted centre got %u %u %u (%s path)\n", c[0], c[1], c[2],
           ds_interop_mode_name(ds_renderer_interop(renderer)));
    assert_true(pixel_matches(pixels, cx, cy, all_sorted));
    assert_true(pixel_matches(pixels, fx, cy, far_only));
    assert_true(pixel_matches(pixels, 1, 1, background));
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);

    /* Mesh order is front to back: visibly wrong. */
    ds_renderer_set_sorting(renderer, 0);
    render(renderer, pixels);
    assert_false(pixel_matches(pixels, cx, cy, all_sorted));
    assert_true(pixel_matches(pixels, cx, cy, all_unsorted));

    /* Every triangle key gives the same order here. */
    ds_renderer_set_sorting(renderer, 1);
    for (int key = 0; key < DS_TRIANGLE_KEY_COUNT; key++) {
        ds_renderer_set_triangle_key(renderer, (ds_triangle_key)key);
        render(renderer, pixels);
        assert_true(pixel_matches(pixels, cx, cy, all_sorted));
        assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    }

    ds_frame_timings t;
    assert_int_equal(ds_renderer_finish(renderer), DS_OK);
    assert_int_equal(ds_renderer_timings(renderer, &t), 1);
    assert_int_equal(t.frame, 4); /* five frames: sorted, unsorted, 3 keys */
    assert_true(t.draw_ms >= 0.0f);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

/* A WIDTH x HEIGHT renderer of `mesh` at alpha 0.35 on opaque black that
 * keeps each frame's keys for ds_renderer_verify(). */
static ds_renderer_desc verified_desc(const ds_mesh *mesh)
{
    ds_renderer_desc desc = {0};
    desc.mesh = mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.alpha = 0.35f;
    desc.background[3] = 1.0f;
    desc.verify = 1;
    return desc;
}

/* The renderer's alternative forms (renderer.h: draw_form, cull,
 * tiles, tile_pixels) against the default: pixel for pixel
 * the same image of a built-in scene from three orbit angles, each frame
 * verified; and the layers come out right drawn by pulling too. */
static void test_draw_forms_agree(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("gyroid", 3000, &mesh), DS_OK);
    static uint8_t reference[3][WIDTH * HEIGHT * 4], pixels[WIDTH * HEIGHT * 4];
    /* 0 default (at this size one tile), 1 pull, 2 no culling, 3 no
     * tiles, 4 16-pixel tiles, 5 pull and 8-pixel tiles, 6 no culling and
     * 16-pixel tiles. */
    for (int form = 0; form < 7; form++) {
        ds_renderer_desc desc = verified_desc(&mesh);
        desc.draw_form = form == 1 || form == 5 ? DS_DRAW_PULL : DS_DRAW_AUTO;
        desc.cull = (form == 2 || form == 6) ? DS_CULL_OFF : DS_CULL_ON;
        desc.tiles = form == 3 ? DS_TILES_OFF : DS_TILES_ON;
        desc.tile_pixels = form == 5 ? 8 : form == 4 || form == 6 ? 16 : 0;
        ds_renderer *renderer = NULL;
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
        /* A small mesh: indexed unless asked (pull is there on llvmpipe
         * and on NVIDIA). */
        assert_int_equal(ds_renderer_draw_form(renderer),
                         form == 1 || form == 5 ? DS_DRAW_PULL : DS_DRAW_INDEXED);
        for (int view = 0; view < 3; view++) {
            ds_camera camera = {0};
            camera.pitch = 0.35f;
            ds_camera_frame(&camera, mesh.center, mesh.radius, (float)WIDTH / HEIGHT);
            camera.yaw += 0.9f * (float)view;
            assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER),
                             DS_OK);
            assert_int_equal(ds_renderer_verify(renderer), DS_OK);
            assert_int_equal(ds_renderer_read_pixels(renderer, form ? pixels : reference[view]),
                             DS_OK);
            if (form) {
                /* Exact on the CPU path; on a GPU the two vertex shaders
                 * may round a clip coordinate differently (FMA), flipping
                 * an edge pixel or two, never a wrong order's hundreds. */
                size_t differ = 0, allowed =
                    ds_renderer_interop(renderer) == DS_INTEROP_NONE ? 0 : WIDTH * HEIGHT / 1000;
                for (size_t i = 0; i < sizeof pixels; i += 4)
                    differ += memcmp(pixels + i, reference[view] + i, 4) != 0;
                if (differ)
                    printf("form %d, view %d: %zu pixels differ from the default\n", form, view,
                           differ);
                assert_true(differ <= allowed);
            }
        }
        assert_int_equal(ds_renderer_gl_errors(renderer), 0);
        ds_renderer_destroy(renderer);
    }
    ds_mesh_free(&mesh);

    make_layers(&mesh);
    ds_renderer_desc desc = verified_desc(&mesh);
    desc.alpha = ALPHA;
    desc.draw_form = DS_DRAW_PULL;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    float sorted[3], unsorted[3];
    composite_at((const int[]){2, 1, 0}, 3, WIDTH / 2, HEIGHT / 2, sorted);
    composite_at((const int[]){0, 1, 2}, 3, WIDTH / 2, HEIGHT / 2, unsorted);
    render(renderer, pixels);
    assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, sorted));
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    /* Unsorted frames of a pulling renderer draw indexed (frame.c), and
     * the next sorted frame pulls again. */
    assert_true(renderer->verification.last_plan.pull);
    ds_renderer_set_sorting(renderer, 0);
    render(renderer, pixels);
    assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, unsorted));
    assert_false(renderer->verification.last_plan.pull ||
                 renderer->verification.last_plan.in_place);
    ds_renderer_set_sorting(renderer, 1);
    render(renderer, pixels);
    assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, sorted));
    assert_true(renderer->verification.last_plan.pull);
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

/* DS_DRAW_AUTO's choice (renderer.h): indexed below the tiled floor,
 * pulled from it exactly when the renderer starts tiled (tiles AUTO: as
 * the renderer decided), indexed from it untiled (below the untiled
 * floor); the form asked for whatever the size. Creates only: no frame. */
/* DS_STAGES_AUTO's choice (ds_renderer_choose_stages()) for the GLs it
 * meets, from their GL_RENDERER strings: with a CUDA device the GL stages
 * up to the size limit and the CUDA sorts above; without one the GL
 * stages on a GPU's GL that can run them, the host sort on a software
 * rasteriser, without the extensions, or with --interop none; each with
 * its reason. */
static void test_stages_choice(void **state)
{
    (void)state;
    static const char *const radeon = "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6)";
    static const char *const intel = "Mesa Intel(R) Arc(tm) A770 Graphics (DG2)";
    static const char *const nvidia = "NVIDIA H200/PCIe/SSE2";
    static const char *const llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
    const size_t big = DS_RENDERER_GL_STAGES_AUTO_MAX + 1;
    const struct {
        ds_stages_facts facts;
        ds_stages_mode expected;
        const char *why;
    } cases[] = {
        {{1, 1, 0, nvidia, 1, 1000}, DS_STAGES_GL, "up to 4.5M primitives on a CUDA GPU"},
        {{1, 1, 0, nvidia, 1, DS_RENDERER_GL_STAGES_AUTO_MAX}, DS_STAGES_GL, "on a CUDA GPU"},
        {{1, 1, 0, nvidia, 1, big}, DS_STAGES_SORTER, "the CUDA sorts are faster"},
        {{1, 1, 0, nvidia, 0, 1000}, DS_STAGES_SORTER, "lacks GL 4.3 compute shaders"},
        {{0, 0, 0, radeon, 1, 1000}, DS_STAGES_GL, "no CUDA in this build"},
        {{0, 0, 0, radeon, 1, big}, DS_STAGES_GL, "no CUDA in this build"},
        {{1, 0, 0, intel, 1, 1000}, DS_STAGES_GL, "no CUDA device"},
        {{1, 0, 0, radeon, 0, 1000}, DS_STAGES_SORTER, "no CUDA device, and this GL lacks"},
        {{0, 0, 0, llvmpipe, 1, 1000}, DS_STAGES_SORTER,
         "no CUDA in this build, and llvmpipe is a software rasteriser"},
        {{1, 0, 0, llvmpipe, 1, 1000}, DS_STAGES_SORTER, "no CUDA device, and llvmpipe is"},
        {{1, 0, 0, "softpipe", 1, 1000}, DS_STAGES_SORTER, "softpipe is a software rasteriser"},
        {{1, 0, 0, "Software Rasterizer", 1, 1000}, DS_STAGES_SORTER, "swrast is a software"},
        {{1, 0, 0, "zink (lavapipe)", 1, 1000}, DS_STAGES_SORTER, "lavapipe is a software"},
        {{1, 0, 0, "Google SwiftShader", 1, 1000}, DS_STAGES_SORTER, "SwiftShader is a software"},
        {{1, 0, 0, "", 1, 1000}, DS_STAGES_SORTER, "the GL names no renderer"},
        {{1, 0, 0, NULL, 1, 1000}, DS_STAGES_SORTER, "the GL names no renderer"},
        {{1, 1, 1, nvidia, 1, 1000}, DS_STAGES_SORTER, "--interop none"},
        {{1, 0, 1, radeon, 1, 1000}, DS_STAGES_SORTER, "--interop none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[160] = "poison";
        ds_stages_mode mode = ds_renderer_choose_stages(&cases[i].facts, why, sizeof why);
        if (mode != cases[i].expected || !strstr(why, cases[i].why))
            fail_msg("case %zu (%s): %s \"%s\", expected %s \"%s\"", i,
                     cases[i].facts.gl_renderer ? cases[i].facts.gl_renderer : "NULL",
                     ds_stages_mode_name(mode), why, ds_stages_mode_name(cases[i].expected),
                     cases[i].why);
    }
    const char *name = "poison";
    assert_false(ds_gl_renderer_is_software(radeon, &name));
    assert_null(name);
    assert_false(ds_gl_renderer_is_software(nvidia, NULL));
    assert_true(ds_gl_renderer_is_software("LLVMPIPE (LLVM 15)", &name));
    assert_string_equal(name, "llvmpipe");
    char tiny[8];
    ds_stages_facts facts = {0, 0, 0, llvmpipe, 1, 1000};
    ds_renderer_choose_stages(&facts, tiny, sizeof tiny); /* truncated, terminated */
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* The choice in a renderer: on the GL it runs on (llvmpipe without a GPU:
 * the host sort, with tiles and culling off), and with DS_TEST_GL_RENDERER
 * naming a GPU's GL and no CUDA device, the GL stages with tiles and
 * culling on, drawing the host sort's image pixel for pixel. */
static void test_stages_auto(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("gyroid", 3000, &mesh), DS_OK);
    static uint8_t host[WIDTH * HEIGHT * 4], pixels[WIDTH * HEIGHT * 4];
    ds_camera camera = {0};
    camera.pitch = 0.35f;
    ds_camera_frame(&camera, mesh.center, mesh.radius, (float)WIDTH / HEIGHT);
    for (int gpu = 0; gpu < 2; gpu++) {
        if (gpu)
            setenv("DS_TEST_GL_RENDERER", "AMD Radeon RX 7900 XTX (radeonsi, navi31)", 1);
        ds_renderer_desc desc = verified_desc(&mesh);
        ds_renderer *renderer = NULL;
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
        unsetenv("DS_TEST_GL_RENDERER");
        const char *why = ds_renderer_stages_why(renderer);
        printf("%s: stages %s (%s), tiles %d, cull %d\n",
               gpu ? "DS_TEST_GL_RENDERER=AMD Radeon" : ds_renderer_gpu_name(renderer),
               ds_stages_mode_name(ds_renderer_stages(renderer)), why,
               ds_renderer_tiles(renderer), ds_renderer_culling(renderer));
        int cuda = ds_renderer_interop(renderer) != DS_INTEROP_NONE;
        if (cuda) {
            assert_int_equal(ds_renderer_stages(renderer), DS_STAGES_GL);
            assert_non_null(strstr(why, "on a CUDA GPU"));
        } else if (gpu) {
            assert_int_equal(ds_renderer_stages(renderer), DS_STAGES_GL);
            assert_true(strcmp(why, "no CUDA device") == 0 ||
                        strcmp(why, "no CUDA in this build") == 0);
            assert_true(ds_renderer_tiles(renderer) && ds_renderer_culling(renderer));
        } else if (strstr(ds_renderer_gpu_name(renderer), "llvmpipe")) {
            assert_int_equal(ds_renderer_stages(renderer), DS_STAGES_SORTER);
            assert_int_equal(ds_renderer_sort(renderer), DS_SORT_CPU);
            assert_non_null(strstr(why, "llvmpipe is a software rasteriser"));
            assert_false(ds_renderer_tiles(renderer) || ds_renderer_culling(renderer));
        }
        assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
        assert_int_equal(ds_renderer_verify(renderer), DS_OK);
        assert_int_equal(ds_renderer_read_pixels(renderer, gpu ? pixels : host), DS_OK);
        if (gpu && !cuda)
            assert_memory_equal(pixels, host, sizeof pixels);
        /* Asked by name, no reason. */
        assert_int_equal(ds_renderer_set_stages(renderer, DS_STAGES_SORTER), DS_OK);
        assert_string_equal(ds_renderer_stages_why(renderer), "");
        assert_int_equal(ds_renderer_gl_errors(renderer), 0);
        ds_renderer_destroy(renderer);
    }
    ds_mesh_free(&mesh);
}

static void test_draw_form_auto(void **state)
{
    (void)state;
    ds_mesh small, large;
    assert_int_equal(ds_scene_build("gyroid", 3000, &small), DS_OK);
    assert_int_equal(ds_scene_build("gyroid", 260000, &large), DS_OK);
    assert_true(small.triangle_count < DS_RENDERER_PULL_TILED_MIN_TRIANGLES);
    assert_true(large.triangle_count > DS_RENDERER_PULL_TILED_MIN_TRIANGLES &&
                large.triangle_count < DS_RENDERER_PULL_MIN_TRIANGLES);
    /* The large mesh cut to the floor and to one triangle less (shared
     * arrays, not freed on their own). */
    ds_mesh at = large, below = large;
    at.triangle_count = DS_RENDERER_PULL_TILED_MIN_TRIANGLES;
    below.triangle_count = DS_RENDERER_PULL_TILED_MIN_TRIANGLES - 1;
    enum { TILED_PULL = -1 }; /* expected: pull exactly if the renderer tiles */
    const struct {
        const ds_mesh *mesh;
        ds_tiles_mode tiles;
        ds_draw_form asked;
        int expected;
    } cases[] = {
        {&small, DS_TILES_ON, DS_DRAW_AUTO, DS_DRAW_INDEXED},
        {&below, DS_TILES_ON, DS_DRAW_AUTO, DS_DRAW_INDEXED},
        {&at, DS_TILES_ON, DS_DRAW_AUTO, DS_DRAW_PULL},
        {&large, DS_TILES_ON, DS_DRAW_AUTO, DS_DRAW_PULL},
        {&large, DS_TILES_OFF, DS_DRAW_AUTO, DS_DRAW_INDEXED},
        {&large, DS_TILES_AUTO, DS_DRAW_AUTO, TILED_PULL},
        {&large, DS_TILES_ON, DS_DRAW_INDEXED, DS_DRAW_INDEXED},
        {&small, DS_TILES_OFF, DS_DRAW_PULL, DS_DRAW_PULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_renderer_desc desc = verified_desc(cases[i].mesh);
        desc.tiles = cases[i].tiles;
        desc.draw_form = cases[i].asked;
        ds_renderer *renderer = NULL;
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
        int expected = cases[i].expected;
        if (expected == TILED_PULL) /* on llvmpipe tiles AUTO is off */
            expected = ds_renderer_tiles(renderer) ? DS_DRAW_PULL : DS_DRAW_INDEXED;
        assert_int_equal(ds_renderer_draw_form(renderer), expected);
        ds_renderer_destroy(renderer);
    }
    ds_mesh_free(&small);
    ds_mesh_free(&large);
}

static void test_points_sorted(void **state)
{
    (void)state;
    ds_mesh cloud = {0};
    cloud.vertex_count = 3;
    cloud.positions = calloc(9, sizeof(float));
    cloud.colors = calloc(12, 1);
    assert_non_null(cloud.positions);
    assert_non_null(cloud.colors);
    for (int k = 0; k < 3; k++) {
        cloud.positions[3 * k + 2] = -2.0f * (float)k;
        memcpy(cloud.colors + 4 * k, layer_colors[k], 4);
    }
    cloud.has_colors = 1;
    assert_int_equal(ds_mesh_finish(&cloud), DS_OK);
    ds_renderer *renderer = make_renderer(&cloud, DS_PRIMITIVE_TRIANGLES, 1);
    assert_int_equal(ds_renderer_primitive(renderer), DS_PRIMITIVE_POINTS);
    assert_int_equal(ds_renderer_sorted_count(renderer), 3);
    static uint8_t pixels[WIDTH * HEIGHT * 4];
    /* Each point a sphere impostor (points.frag.glsl): the centre pixel's
     * centre lies half a pixel right of and below the splat's centre, at
     * sprite radius r = |(0.5, 0.5)| / (diameter / 2), so the sphere's
     * normal makes cosine sqrt(1 - r^2) with the view. */
    ds_camera camera;
    float projection[16], c[3];
    layer_camera(&camera);
    ds_camera_projection(&camera, projection);
    for (int k = 0; k < 3; k++) {
        float w = camera.target[2] + camera.distance + 2.0f * (float)k; /* eye z - layer z */
        float diameter = 1.0f * projection[5] * 0.5f * HEIGHT / w; /* point_size 1 */
        float r2 = 2.0f * (0.5f / (0.5f * diameter)) * (0.5f / (0.5f * diameter));
        c[k] = sqrtf(1.0f - r2);
    }
    float sorted[3], unsorted[3], background[3] = {0, 0, 0};
    composite_lit((const int[]){2, 1, 0}, 3, c, sorted);
    composite_lit((const int[]){0, 1, 2}, 3, c, unsorted);

    render(renderer, pixels);
    assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, sorted));
    assert_true(pixel_matches(pixels, 1, 1, background)); /* round, bounded */
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    ds_renderer_set_sorting(renderer, 0);
    render(renderer, pixels);
    assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, unsorted));
    assert_false(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, sorted));
    assert_int_equal(ds_renderer_set_primitive(renderer, DS_PRIMITIVE_TRIANGLES),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&cloud);
}

/* 24-bit keys and 16-bit keys quantised over the depth range sort the
 * layers the same way, and verify at their precision. */
static void test_short_keys(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_layers(&mesh);
    static uint8_t pixels[WIDTH * HEIGHT * 4];
    float sorted[3];
    composite_at((const int[]){2, 1, 0}, 3, WIDTH / 2, HEIGHT / 2, sorted);
    const int bits[2] = {24, 16};
    for (int b = 0; b < 2; b++) {
        for (int primitive = 0; primitive < 2; primitive++) {
            ds_renderer *renderer = make_renderer_bits(&mesh, (ds_primitive)primitive, 1, bits[b]);
            for (int frame = 0; frame < 3; frame++) {
                render(renderer, pixels);
                assert_int_equal(ds_renderer_verify(renderer), DS_OK);
            }
            if (primitive == DS_PRIMITIVE_TRIANGLES)
                assert_true(pixel_matches(pixels, WIDTH / 2, HEIGHT / 2, sorted));
            assert_int_equal(ds_renderer_gl_errors(renderer), 0);
            ds_renderer_destroy(renderer);
        }
    }
    ds_renderer_desc desc = {0};
    desc.mesh = &mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.key_bits = 20;
    ds_renderer *renderer = NULL;
    ds_log_set_quiet(1);
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
    ds_log_set_quiet(0);
    ds_mesh_free(&mesh);
}

/* A PLY with per-vertex alpha: two quads side by side facing the camera,
 * the left one's vertices alpha 0, the right one's 255. */
static const char half_transparent_ply[] =
    "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
    "property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
    "property uchar alpha\nelement face 4\nproperty list uchar int vertex_indices\n"
    "end_header\n"
    "-2 -1 -2 200 40 40 0\n-0.2 -1 -2 200 40 40 0\n-0.2 1 -2 200 40 40 0\n-2 1 -2 200 40 40 0\n"
    "0.2 -1 -2 40 200 40 255\n2 -1 -2 40 200 40 255\n2 1 -2 40 200 40 255\n"
    "0.2 1 -2 40 200 40 255\n"
    "3 0 1 2\n3 0 2 3\n3 4 5 6\n3 4 6 7\n";

/* Colour modes: a file's alpha 0 draws nothing in every colour and
 * opacity mode (the background stays, to the bit), the opaque half draws
 * in each; AUTO resolves to the file's colours; the modes and the tint
 * change the picture without re-creating the renderer. */
static void test_color_modes(void **state)
{
    (void)state;
    ds_mesh mesh = {0};
    assert_int_equal(ds_load_ply_memory(half_transparent_ply, sizeof half_transparent_ply - 1,
                                        "half.ply", &mesh),
                     DS_OK);
    mesh.has_colors = 1; /* as the loader reports a file's colours */
    ds_renderer_desc desc = {0};
    desc.mesh = &mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.alpha = ALPHA;
    desc.background[0] = 0.2f; desc.background[1] = 0.3f; desc.background[2] = 0.4f;
    desc.background[3] = 1.0f;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_color_mode(renderer), DS_COLOR_FILE);
    assert_int_equal(ds_renderer_opacity_mode(renderer), DS_OPACITY_CONSTANT);
    static uint8_t pixels[WIDTH * HEIGHT * 4];
    uint8_t background[3];
    ds_camera camera;
    layer_camera(&camera);
    render(renderer, pixels);
    memcpy(background, pixels, 3); /* a corner: the clear colour as stored */
    /* Pixel columns well inside each quad at the middle row. */
    int left = (int)screen_x(&camera, -1.1f, -2.0f), right = (int)screen_x(&camera, 1.1f, -2.0f);
    int y = HEIGHT / 2;
    uint8_t seen[DS_COLOR_MODE_COUNT][3];
    for (int opacity = 0; opacity < DS_OPACITY_MODE_COUNT; opacity++)
        for (int mode = DS_COLOR_NORMAL; mode < DS_COLOR_MODE_COUNT; mode++) {
            ds_renderer_set_color_mode(renderer, (ds_color_mode)mode);
            ds_renderer_set_opacity_mode(renderer, (ds_opacity_mode)opacity);
            assert_int_equal(ds_renderer_color_mode(renderer), mode);
            render(renderer, pixels);
            size_t touched = 0;
            for (int x = left - 8; x <= left + 8; x++)
                for (int yy = y - 8; yy <= y + 8; yy++)
                    touched += memcmp(pixels + 4 * ((size_t)yy * WIDTH + x), background, 3) != 0;
            const uint8_t *drawn = pixels + 4 * ((size_t)y * WIDTH + right);
            printf("colour %s, opacity %s: opaque half %u %u %u, %zu pixels of the "
                   "alpha-0 half touched\n",
                   ds_color_mode_name((ds_color_mode)mode),
                   ds_opacity_mode_name((ds_opacity_mode)opacity), drawn[0], drawn[1], drawn[2],
                   touched);
            assert_int_equal(touched, 0);
            assert_true(memcmp(drawn, background, 3) != 0);
            if (opacity == DS_OPACITY_CONSTANT)
                memcpy(seen[mode], drawn, 3);
        }
    /* Each mode its own colour; the file's green shows in FILE mode. */
    for (int a = DS_COLOR_NORMAL; a < DS_COLOR_MODE_COUNT; a++)
        for (int b = a + 1; b < DS_COLOR_MODE_COUNT; b++)
            assert_true(memcmp(seen[a], seen[b], 3) != 0);
    assert_true(seen[DS_COLOR_FILE][1] > seen[DS_COLOR_FILE][0] + 40);
    /* A red tint shows red; all zero is the default tint again. */
    ds_renderer_set_color_mode(renderer, DS_COLOR_TINT);
    ds_renderer_set_opacity_mode(renderer, DS_OPACITY_CONSTANT);
    ds_renderer_set_tint(renderer, (const float[]){1.0f, 0.0f, 0.0f});
    render(renderer, pixels);
    const uint8_t *red = pixels + 4 * ((size_t)y * WIDTH + right);
    assert_true(red[0] > red[1] + 40 && red[0] > red[2] + 40);
    ds_renderer_set_tint(renderer, (const float[]){0.0f, 0.0f, 0.0f});
    render(renderer, pixels);
    assert_memory_equal(pixels + 4 * ((size_t)y * WIDTH + right), seen[DS_COLOR_TINT], 3);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);

    /* Without file colours AUTO is the normal colour. */
    mesh.has_colors = 0;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_color_mode(renderer), DS_COLOR_NORMAL);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

/* MSAA: 4 samples, resolved where read and into a framebuffer passed to
 * ds_renderer_frame(); culling off with it; counts other than 1, 2, 4, 8
 * refused; the interior of the image as single-sampled, edges blended. */
static void test_msaa(void **state)
{
    (void)state;
    ds_mesh mesh;
    make_layers(&mesh);
    static uint8_t single[WIDTH * HEIGHT * 4], multi[WIDTH * HEIGHT * 4],
        target[WIDTH * HEIGHT * 4];
    ds_renderer_desc desc = verified_desc(&mesh);
    desc.cull = DS_CULL_ON;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_culling(renderer), 1);
    assert_int_equal(ds_renderer_msaa(renderer), 1);
    ds_camera camera;
    layer_camera(&camera);
    camera.yaw = 0.3f; /* slanted edges */
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, single), DS_OK);

    assert_int_equal(ds_renderer_set_msaa(renderer, 3), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_renderer_set_msaa(renderer, 16), DS_ERR_INVALID_ARG);
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    if (max_samples < 4) {
        printf("GL_MAX_SAMPLES %d: msaa 4 not tested\n", max_samples);
        ds_renderer_destroy(renderer);
        ds_mesh_free(&mesh);
        return;
    }
    assert_int_equal(ds_renderer_set_msaa(renderer, 4), DS_OK);
    assert_int_equal(ds_renderer_msaa(renderer), 4);
    assert_int_equal(ds_renderer_culling(renderer), 0);
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_verify(renderer), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, multi), DS_OK);
    size_t differ = 0, covered = 0;
    for (size_t i = 0; i < sizeof single; i += 4) {
        differ += memcmp(single + i, multi + i, 3) != 0;
        covered += single[i] | single[i + 1] | single[i + 2] ? 1 : 0;
    }
    printf("msaa 4: %zu of %zu covered pixels differ from one sample\n", differ, covered);
    assert_true(differ > 0);           /* edges are blended */
    assert_true(differ < covered / 8); /* the rest is the same picture */

    /* A frame for another framebuffer resolves into it. */
    GLuint fbo = 0, rbo = 0;
    glCreateRenderbuffers(1, &rbo);
    glNamedRenderbufferStorage(rbo, GL_RGBA8, WIDTH, HEIGHT);
    glCreateFramebuffers(1, &fbo);
    glNamedFramebufferRenderbuffer(fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rbo);
    assert_int_equal(ds_renderer_frame(renderer, &camera, fbo), DS_OK);
    glFinish();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, target);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    /* read_pixels flips rows; compare row by row. */
    for (int row = 0; row < HEIGHT; row++)
        assert_memory_equal(target + (size_t)row * WIDTH * 4,
                            multi + (size_t)(HEIGHT - 1 - row) * WIDTH * 4, WIDTH * 4);
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &rbo);

    assert_int_equal(ds_renderer_set_msaa(renderer, 1), DS_OK);
    assert_int_equal(ds_renderer_culling(renderer), 1);
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, multi), DS_OK);
    assert_memory_equal(single, multi, sizeof single);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);

    /* Culling AUTO: on with CUDA, off on llvmpipe (test_stages_auto: on
     * with the GL stages on a GPU's GL). */
    desc.cull = DS_CULL_AUTO;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_culling(renderer),
                     ds_renderer_interop(renderer) == DS_INTEROP_NONE ? 0 : 1);
    ds_renderer_destroy(renderer);
    ds_mesh_free(&mesh);
}

/* The size check: the index format's limits, in one line naming the
 * count and the limit; on the CPU path the buffers' bytes against the
 * host memory available. */
static void test_check_fits(void **state)
{
    (void)state;
    ds_renderer_desc desc = {0};
    desc.interop = DS_INTEROP_NONE;
    assert_int_equal(ds_renderer_check_fits(&desc, 1000, 2000), DS_OK);
    ds_log_set_quiet(1);
    uint64_t need = ds_renderer_host_bytes(&desc, DS_RENDERER_MAX_VERTICES,
                                           DS_RENDERER_MAX_TRIANGLES);
    uint64_t available = ds_host_memory_available();
    assert_true(need > 64ull * DS_RENDERER_MAX_TRIANGLES);
    ds_status at_limits = ds_renderer_check_fits(&desc, DS_RENDERER_MAX_VERTICES,
                                                 DS_RENDERER_MAX_TRIANGLES);
    if (available && need > available) {
        assert_int_equal(at_limits, DS_ERR_TOO_LARGE);
        printf("%s\n", ds_last_error());
        assert_non_null(strstr(ds_last_error(), "render: 715.8M triangles need about "));
        assert_non_null(strstr(ds_last_error(), "of host memory for the renderer's buffers"));
    } else {
        assert_int_equal(at_limits, DS_OK);
    }
    assert_int_equal(ds_renderer_check_fits(&desc, 1000, (size_t)DS_RENDERER_MAX_TRIANGLES + 1),
                     DS_ERR_TOO_LARGE);
    printf("%s\n", ds_last_error());
    assert_non_null(strstr(ds_last_error(), "715.8M triangles"));
    assert_non_null(strstr(ds_last_error(), "715827882"));
    assert_null(strchr(ds_last_error(), '\n'));
    assert_int_equal(ds_renderer_check_fits(&desc, 3100000000u, 0), DS_ERR_TOO_LARGE);
    printf("%s\n", ds_last_error());
    assert_non_null(strstr(ds_last_error(), "3100000000 vertices"));
    /* A 3.1G-triangle grid (the dragon at 60 x 60) is refused from its
     * counts alone. */
    assert_int_equal(ds_renderer_check_fits(&desc, 1575000000u, 3121000000u), DS_ERR_TOO_LARGE);
    printf("%s\n", ds_last_error());
    assert_non_null(strstr(ds_last_error(), "3.12G triangles"));
    ds_log_set_quiet(0);

    /* The CPU path's host bytes against peak RSS measured on llvmpipe
     * (depthsort --headless --frames 1 --size 16x16): the 20 MB uchar-list
     * PLY (256 vertices, 19,765,625 triangles, drawn indexed: its indices
     * exceed one storage block) peaked at 3.86 GB, its 10 MB half pulled
     * at 0.96 GB; with the loaded mesh (28 bytes a vertex, 12 a
     * triangle, as the app's check adds it) within 20 %. */
    uint64_t indexed = ds_renderer_host_bytes(&desc, 256, 19765625) + 28 * 256 + 12ull * 19765625;
    uint64_t pulled = ds_renderer_host_bytes(&desc, 256, 9882812) + 28 * 256 + 12ull * 9882812;
    printf("host bytes: 19.8M triangles %.2f GB, 9.9M %.2f GB\n", indexed / 1e9, pulled / 1e9);
    assert_true(indexed > 3.86e9 * 0.8 && indexed < 3.86e9 * 1.2);
    assert_true(pulled > 0.96e9 * 0.8 && pulled < 0.96e9 * 1.2);
    /* Drawn indexed by request, the same mesh holds Mesa's draw memory. */
    desc.draw_form = DS_DRAW_INDEXED;
    assert_true(ds_renderer_host_bytes(&desc, 256, 9882812) > pulled + (1ull << 30));
    desc.draw_form = DS_DRAW_AUTO;
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    ds_renderer *renderer = (ds_renderer *)&renderer;
    ds_renderer_desc desc = {0};
    ds_log_set_quiet(1);
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
    assert_null(renderer);
    ds_mesh mesh;
    make_layers(&mesh);
    desc.mesh = &mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.draw_form = (ds_draw_form)7;
    renderer = (ds_renderer *)&renderer;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
    assert_null(renderer);
    desc.draw_form = DS_DRAW_AUTO;
    desc.tiles = (ds_tiles_mode)9;
    renderer = (ds_renderer *)&renderer;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
    assert_null(renderer);
    desc.tiles = DS_TILES_AUTO;
    const int bad_tile_pixels[] = {-1, DS_RENDERER_TILE_PIXELS_MAX + 1};
    for (size_t i = 0; i < sizeof bad_tile_pixels / sizeof bad_tile_pixels[0]; i++) {
        desc.tile_pixels = bad_tile_pixels[i];
        renderer = (ds_renderer *)&renderer;
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_ERR_INVALID_ARG);
        assert_null(renderer);
    }
    ds_log_set_quiet(0);
    ds_mesh_free(&mesh);
}

static long file_size(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return -1;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fclose(file);
    return size;
}

static void test_headless_smoke(void **state)
{
    (void)state;
    /* ds_headless_run makes its own context: release ours meanwhile. */
    ds_egl_context_destroy(context);
    context = NULL;
    /* The outputs go to a fresh temporary folder, not the working one. */
    char folder[] = "/tmp/test_render_smokeXXXXXX";
    assert_non_null(mkdtemp(folder));
    char csv[64], json[64], png[64];
    snprintf(csv, sizeof csv, "%s/run.csv", folder);
    snprintf(json, sizeof json, "%s/run.json", folder);
    snprintf(png, sizeof png, "%s/last.png", folder);
    ds_options opts;
    memset(&opts, 0, sizeof opts);
    opts.scene = "gyroid:5k";
    opts.grid_x = opts.grid_y = 1;
    opts.headless = 1;
    opts.frames = 4;
    opts.sort = "cub";
    opts.width = 64;
    opts.height = 48;
    opts.orbit_degrees = 90.0f;
    opts.alpha = 0.35f;
    opts.csv_path = csv;
    opts.json_path = json;
    opts.screenshot_path = png;
    opts.verify = 1;
    assert_int_equal(ds_headless_run(&opts), 0);

    FILE *file = fopen(csv, "r");
    assert_non_null(file);
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, file))
        lines++;
    fclose(file);
    assert_int_equal(lines, 1 + opts.frames); /* header + one row per frame */
    assert_true(file_size(json) > 100);
    uint8_t head[8] = {0};
    file = fopen(png, "rb");
    assert_non_null(file);
    assert_int_equal(fread(head, 1, 8, file), 8);
    fclose(file);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);

    /* A bad sort name is a usage error, not a crash. */
    ds_log_set_quiet(1);
    /* A CSV or JSON that cannot be written whole (a full disk) fails the
     * run; stdio would otherwise lose the error in its buffer. */
    opts.verify = 0;
    opts.screenshot_path = NULL;
    opts.csv_path = "/dev/full";
    assert_int_not_equal(ds_headless_run(&opts), 0);
    opts.csv_path = NULL;
    opts.json_path = "/dev/full";
    assert_int_not_equal(ds_headless_run(&opts), 0);
    struct stat device;
    assert_int_equal(stat("/dev/full", &device), 0);
    assert_true(S_ISCHR(device.st_mode)); /* written to, never renamed over */

    opts.sort = "nosuchsort";
    opts.csv_path = opts.json_path = opts.screenshot_path = NULL;
    assert_int_equal(ds_headless_run(&opts), 2);
    ds_log_set_quiet(0);
    remove(csv);
    remove(json);
    remove(png);
    rmdir(folder);
    assert_int_equal(ds_egl_context_create(1, &context), DS_OK);
}

/* Points binned by screen tile (8-pixel tiles, each frame verified) give
 * the same image as one draw of the sorted splats, from three angles. */
static void test_points_tiles_agree(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("gyroid", 3000, &mesh), DS_OK);
    static uint8_t reference[WIDTH * HEIGHT * 4], pixels[WIDTH * HEIGHT * 4];
    ds_renderer *renderers[2] = {NULL, NULL};
    for (int tiled = 0; tiled < 2; tiled++) {
        ds_renderer_desc desc = verified_desc(&mesh);
        desc.primitive = DS_PRIMITIVE_POINTS;
        desc.tiles = tiled ? DS_TILES_ON : DS_TILES_OFF;
        desc.tile_pixels = 8;
        assert_int_equal(ds_renderer_create(&desc, &renderers[tiled]), DS_OK);
    }
    for (int view = 0; view < 3; view++) {
        ds_camera camera = {0};
        camera.pitch = 0.35f;
        ds_camera_frame(&camera, mesh.center, mesh.radius, (float)WIDTH / HEIGHT);
        camera.yaw += 0.9f * (float)view;
        for (int tiled = 0; tiled < 2; tiled++) {
            ds_renderer *renderer = renderers[tiled];
            assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER),
                             DS_OK);
            assert_int_equal(ds_renderer_verify(renderer), DS_OK);
            assert_int_equal(ds_renderer_read_pixels(renderer, tiled ? pixels : reference), DS_OK);
        }
        size_t differ = 0;
        for (size_t i = 0; i < sizeof pixels; i += 4)
            differ += memcmp(pixels + i, reference + i, 4) != 0;
        printf("points, view %d: %zu pixels differ tiled and untiled\n", view, differ);
        assert_int_equal(differ, 0);
    }
    for (int tiled = 0; tiled < 2; tiled++) {
        assert_int_equal(ds_renderer_gl_errors(renderers[tiled]), 0);
        ds_renderer_destroy(renderers[tiled]);
    }
    ds_mesh_free(&mesh);
}

/* ---- culling ------------------------------------------------------------------ */

#define CULL_W 64
#define CULL_H 48
#define CULL_TRIANGLES 40000

static uint32_t cull_random(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

static float cull_uniform(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(cull_random(state) >> 8) / 16777216.0f;
}

/* Additive fragment counts: triangles (world positions, 9 floats each), or
 * with `point_scale` nonzero square point splats of max(point_scale / w, 1)
 * pixels (3 floats each; as points.vert.glsl, without the disc), through a
 * matrix into a CULL_W x CULL_H R32F target, one per fragment. */
typedef struct counter {
    GLuint program, color, framebuffer, buffer, vertex_array;
    float point_scale;
} counter;

static void counter_create(counter *c, const float *triangles, size_t count, float point_scale)
{
    static const char *vertex_source =
        "#version 450 core\n"
        "layout(location = 0) in vec3 p;\n"
        "layout(location = 0) uniform mat4 m;\n"
        "layout(location = 1) uniform float point_scale;\n"
        "void main() {\n"
        "    gl_Position = m * vec4(p, 1.0);\n"
        "    gl_PointSize = max(point_scale / gl_Position.w, 1.0);\n"
        "}\n";
    static const char *fragment_source =
        "#version 450 core\n"
        "out vec4 c;\n"
        "void main() { c = vec4(1.0); }\n";
    const char *sources[2] = {vertex_source, fragment_source};
    const GLenum stages[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    c->program = glCreateProgram();
    for (int i = 0; i < 2; i++) {
        GLuint shader = glCreateShader(stages[i]);
        glShaderSource(shader, 1, &sources[i], NULL);
        glCompileShader(shader);
        glAttachShader(c->program, shader);
        glDeleteShader(shader);
    }
    glLinkProgram(c->program);
    GLint linked = 0;
    glGetProgramiv(c->program, GL_LINK_STATUS, &linked);
    assert_true(linked);
    glCreateRenderbuffers(1, &c->color);
    glNamedRenderbufferStorage(c->color, GL_R32F, CULL_W, CULL_H);
    glCreateFramebuffers(1, &c->framebuffer);
    glNamedFramebufferRenderbuffer(c->framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, c->color);
    glCreateBuffers(1, &c->buffer);
    c->point_scale = point_scale;
    size_t floats = point_scale != 0.0f ? 3 : 9;
    glNamedBufferStorage(c->buffer, (GLsizeiptr)(count ? count * floats * sizeof(float) : 4),
                         triangles, 0);
    glCreateVertexArrays(1, &c->vertex_array);
    glVertexArrayVertexBuffer(c->vertex_array, 0, c->buffer, 0, 3 * sizeof(float));
    glVertexArrayAttribFormat(c->vertex_array, 0, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(c->vertex_array, 0, 0);
    glEnableVertexArrayAttrib(c->vertex_array, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, c->framebuffer);
    glViewport(0, 0, CULL_W, CULL_H);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
}

/* Adds triangles first .. first + count - 1, under `scissor` (x, y, width,
 * height) unless it is NULL. */
static void counter_draw(counter *c, const float m[16], size_t first, size_t count,
                         const int *scissor)
{
    glBindFramebuffer(GL_FRAMEBUFFER, c->framebuffer);
    glViewport(0, 0, CULL_W, CULL_H);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    if (scissor) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(scissor[0], scissor[1], scissor[2], scissor[3]);
    }
    glUseProgram(c->program);
    glUniformMatrix4fv(0, 1, GL_FALSE, m);
    glUniform1f(1, c->point_scale);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glBindVertexArray(c->vertex_array);
    if (c->point_scale != 0.0f)
        glDrawArrays(GL_POINTS, (GLint)first, (GLsizei)count);
    else
        glDrawArrays(GL_TRIANGLES, (GLint)(3 * first), (GLsizei)(3 * count));
    glBindVertexArray(0);
    glDisable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
}

static void counter_read(counter *c, float *dest)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, c->framebuffer);
    glReadPixels(0, 0, CULL_W, CULL_H, GL_RED, GL_FLOAT, dest);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

static void counter_destroy(counter *c)
{
    glDeleteVertexArrays(1, &c->vertex_array);
    glDeleteBuffers(1, &c->buffer);
    glDeleteFramebuffers(1, &c->framebuffer);
    glDeleteRenderbuffers(1, &c->color);
    glDeleteProgram(c->program);
}

/* How many pixels the triangles touch, drawn through m. */
static size_t pixels_touched(const float *triangles, size_t count, const float m[16])
{
    static float counts[CULL_W * CULL_H];
    counter c;
    counter_create(&c, triangles, count, 0.0f);
    counter_draw(&c, m, 0, count, NULL);
    counter_read(&c, counts);
    counter_destroy(&c);
    size_t touched = 0;
    for (size_t i = 0; i < CULL_W * CULL_H; i++)
        touched += counts[i] != 0.0f;
    return touched;
}

static uint32_t float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Narrow keys (distance_math.h): when the span fits, every key of [lo, hi]
 * narrows to a float of at most 24 (or 16) low bits that orders and ties
 * exactly as the key, above the culled key 0; the span decides the width;
 * no narrowing for lo <= 0, an infinite hi or a span beyond 24 bits; keys
 * outside clamp to the ends instead of wrapping. */
static void test_narrow_keys(void **state)
{
    (void)state;
    const float spans[][2] = {{1.5f, 3.2f}, {0.75f, 2.9f}, {1000.0f, 1003.0f}, {7.0f, 7.0f},
                              {1e-30f, 3e-30f}};
    for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++) {
        float lo = spans[s][0], hi = spans[s][1];
        ds_key_narrow narrow = ds_key_narrow_for(lo, hi);
        assert_int_not_equal(narrow.top, 0);
        uint32_t span = float_bits(hi) - float_bits(lo);
        assert_int_equal(ds_key_narrow_bits(narrow), span < 0xFFFFu ? 16 : 24);
        assert_int_equal(float_bits(ds_narrow_key(lo, narrow)), 1u);
        assert_int_equal(float_bits(ds_narrow_key(hi, narrow)), narrow.top);
        assert_true(narrow.top < (1u << ds_key_narrow_bits(narrow)));
        assert_int_equal(float_bits(ds_narrow_key(0.0f, narrow)), 0u);
        /* Out of the bounds: the ends, never another key's place. */
        assert_int_equal(float_bits(ds_narrow_key(lo * 0.5f, narrow)), 1u);
        assert_int_equal(float_bits(ds_narrow_key(hi * 2.0f, narrow)), narrow.top);
        assert_int_equal(float_bits(ds_narrow_key(INFINITY, narrow)), narrow.top);
        assert_int_equal(float_bits(ds_narrow_key(FLT_MIN, narrow)), 1u);
        /* Order and ties, on random pairs and on neighbours. */
        uint32_t rng = 12345u + (uint32_t)s;
        float previous = lo;
        for (int i = 0; i < 20000; i++) {
            rng = rng * 1664525u + 1013904223u;
            float a = lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
            float b = i % 2 ? nextafterf(a, hi) : previous;
            if (a > hi)
                a = hi;
            if (b > hi)
                b = hi;
            float na = ds_narrow_key(a, narrow), nb = ds_narrow_key(b, narrow);
            uint32_t ba = float_bits(na), bb = float_bits(nb);
            assert_true(ba >= 1u && ba <= narrow.top);
            assert_true((a < b) == (ba < bb));
            assert_true((a == b) == (ba == bb));
            previous = a;
        }
    }
    /* The widths' limits, and no narrowing where it cannot hold. */
    float lo = 1.0f, hi16, hi24, beyond;
    uint32_t bits = float_bits(lo) + 0xFFFEu;
    memcpy(&hi16, &bits, sizeof hi16);
    assert_int_equal(ds_key_narrow_bits(ds_key_narrow_for(lo, hi16)), 16);
    bits++;
    memcpy(&hi16, &bits, sizeof hi16);
    assert_int_equal(ds_key_narrow_bits(ds_key_narrow_for(lo, hi16)), 24);
    bits = float_bits(lo) + 0xFFFFFEu;
    memcpy(&hi24, &bits, sizeof hi24);
    assert_int_equal(ds_key_narrow_bits(ds_key_narrow_for(lo, hi24)), 24);
    bits++;
    memcpy(&beyond, &bits, sizeof beyond);
    assert_int_equal(ds_key_narrow_for(lo, beyond).top, 0);
    assert_int_equal(ds_key_narrow_bits(ds_key_narrow_for(lo, beyond)), 32);
    assert_int_equal(ds_key_narrow_for(0.0f, 1.0f).top, 0);
    assert_int_equal(ds_key_narrow_for(-1.0f, 1.0f).top, 0);
    assert_int_equal(ds_key_narrow_for(2.0f, 1.0f).top, 0);
    assert_int_equal(ds_key_narrow_for(1.0f, INFINITY).top, 0);
    assert_int_equal(ds_key_narrow_for(NAN, 1.0f).top, 0);
    /* Not narrowed: keys pass as they are. */
    ds_key_narrow none = {0u, 0u};
    assert_int_equal(float_bits(ds_narrow_key(2.5f, none)), float_bits(2.5f));
}

/* Random small triangles, many with vertices on pixel centres, half-pixel
 * lines and in slivers, seen through a matrix whose w is the world z (a
 * perspective division): every one ds_triangle_misses_samples() rules out,
 * drawn together, must touch no pixel of the rasteriser; and it must rule
 * out a fair share, or the test says nothing. Plus hand-made cases. */
static void test_cull_conservative(void **state)
{
    (void)state;
    /* Column-major: clip = (x, y, 0, z). */
    static const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    ds_cull_view view;
    ds_cull_view_set(&view, m, CULL_W, CULL_H);
    float *culled = malloc(CULL_TRIANGLES * 9 * sizeof(float));
    float *kept = malloc(CULL_TRIANGLES * 9 * sizeof(float));
    assert_non_null(culled);
    assert_non_null(kept);
    size_t culled_count = 0, kept_count = 0;
    uint32_t seed = 0x5EEDC011u;
    printf("cull seed 0x%08x\n", seed);
    for (int t = 0; t < CULL_TRIANGLES; t++) {
        float size = (float[]){0.3f, 0.7f, 1.2f, 2.5f}[cull_random(&seed) % 4];
        float cx = cull_uniform(&seed, -3.0f, CULL_W + 3.0f);
        float cy = cull_uniform(&seed, -3.0f, CULL_H + 3.0f);
        int snap = (int)(cull_random(&seed) % 3); /* 0 none, 1 to 1/2, 2 to 1/256 px */
        int sliver = cull_random(&seed) % 4 == 0;
        float tri[9];
        for (int k = 0; k < 3; k++) {
            float sx = cx + cull_uniform(&seed, -size, size);
            float sy = cy + cull_uniform(&seed, -size, size);
            if (sliver && k == 2) { /* near the line through the first two */
                float u = cull_uniform(&seed, -0.5f, 1.5f);
                sx = tri[0] + u * (tri[3] - tri[0]) + cull_uniform(&seed, -0.02f, 0.02f);
                sy = tri[1] + u * (tri[4] - tri[1]) + cull_uniform(&seed, -0.02f, 0.02f);
            }
            if (snap == 1) {
                sx = roundf(sx * 2.0f) * 0.5f;
                sy = roundf(sy * 2.0f) * 0.5f;
            } else if (snap == 2) {
                sx = roundf(sx * 256.0f) / 256.0f;
                sy = roundf(sy * 256.0f) / 256.0f;
            }
            tri[3 * k] = sx;
            tri[3 * k + 1] = sy;
        }
        /* Screen to world at a random depth z (= w). */
        for (int k = 0; k < 3; k++) {
            float z = cull_uniform(&seed, 0.5f, 2.0f);
            float ndc_x = tri[3 * k] / CULL_W * 2.0f - 1.0f,
                  ndc_y = tri[3 * k + 1] / CULL_H * 2.0f - 1.0f;
            tri[3 * k] = ndc_x * z;
            tri[3 * k + 1] = ndc_y * z;
            tri[3 * k + 2] = z;
        }
        int out = ds_triangle_misses_samples(&view, tri, tri + 3, tri + 6);
        memcpy(out ? culled + 9 * culled_count++ : kept + 9 * kept_count++, tri, sizeof tri);
    }
    size_t touched_by_culled = pixels_touched(culled, culled_count, m);
    size_t touched_by_kept = pixels_touched(kept, kept_count, m);
    printf("culled %zu of %d random triangles; they touch %zu pixels, the kept ones %zu\n",
           culled_count, CULL_TRIANGLES, touched_by_culled, touched_by_kept);
    assert_int_equal(touched_by_culled, 0);
    assert_true(culled_count > CULL_TRIANGLES / 5);
    assert_true(kept_count > CULL_TRIANGLES / 5);
    assert_true(touched_by_kept > CULL_W * CULL_H / 2);
    free(culled);
    free(kept);

    /* Hand-made, in pixels at w = 1. */
    static const struct { float p[6]; int misses; } cases[] = {
        {{10.2f, 10.2f, 10.4f, 10.2f, 10.3f, 10.4f}, 1}, /* between centres */
        {{10.5f, 10.5f, 11.0f, 10.5f, 10.5f, 11.0f}, 0}, /* a centre on a vertex */
        {{10.0f, 10.0f, 11.0f, 11.0f, 10.0f, 11.0f}, 0}, /* a centre on an edge */
        {{-5.0f, -5.0f, -4.0f, -5.0f, -5.0f, -4.0f}, 1}, /* outside the viewport */
        {{1.0f, 1.0f, 60.0f, 1.0f, 1.0f, 40.0f}, 0},     /* large: untested, kept */
        {{10.5f, 10.5f, 10.5f, 10.5f, 10.5f, 10.5f}, 0}, /* a point on a centre */
    };
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    ds_cull_view_set(&view, identity, CULL_W, CULL_H);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        float tri[9];
        for (int k = 0; k < 3; k++) {
            tri[3 * k] = cases[c].p[2 * k] / CULL_W * 2.0f - 1.0f;
            tri[3 * k + 1] = cases[c].p[2 * k + 1] / CULL_H * 2.0f - 1.0f;
            tri[3 * k + 2] = 0.0f;
        }
        assert_int_equal(ds_triangle_misses_samples(&view, tri, tri + 3, tri + 6), cases[c].misses);
    }
    /* Behind the eye: kept (clipping decides); beyond the far plane: out. */
    ds_cull_view_set(&view, m, CULL_W, CULL_H); /* w = z */
    float behind[9] = {0, 0, -1, 0.01f, 0, -1, 0, 0.01f, -1};
    assert_int_equal(ds_triangle_misses_samples(&view, behind, behind + 3, behind + 6), 0);
    ds_cull_view_set(&view, identity, CULL_W, CULL_H);
    float far_away[9] = {0, 0, 1.5f, 0.5f, 0, 1.5f, 0, 0.5f, 1.5f};
    assert_int_equal(ds_triangle_misses_samples(&view, far_away, far_away + 3, far_away + 6), 1);
}

/* ---- screen tiles ------------------------------------------------------------- */

#define TILE_TRIANGLES 6000

/* One random triangle for the tiles test, in world space through the
 * matrix of test_tiles_conservative(): from sub-pixel to larger than the
 * viewport, across tile and viewport edges, some with vertices on pixel or
 * tile boundaries, some wholly beyond the near or far plane or reaching
 * behind the eye. */
static void tile_random_triangle(uint32_t *seed, float tri[9])
{
    float size = (float[]){0.3f, 2.0f, 6.0f, 20.0f, 70.0f}[cull_random(seed) % 5];
    float cx = cull_uniform(seed, -25.0f, CULL_W + 25.0f);
    float cy = cull_uniform(seed, -25.0f, CULL_H + 25.0f);
    int snap = (int)(cull_random(seed) % 4); /* 0 none, 1 half pixels, 2 whole 8s */
    int depth = (int)(cull_random(seed) % 20); /* 0 behind, 1 past far, 2 before near */
    for (int k = 0; k < 3; k++) {
        float sx = cx + cull_uniform(seed, -size, size);
        float sy = cy + cull_uniform(seed, -size, size);
        if (snap == 1) {
            sx = roundf(sx * 2.0f) * 0.5f;
            sy = roundf(sy * 2.0f) * 0.5f;
        } else if (snap == 2) {
            sx = roundf(sx / 8.0f) * 8.0f;
            sy = roundf(sy / 8.0f) * 8.0f;
        }
        float z = cull_uniform(seed, 0.45f, 2.8f);
        if (depth == 0 && k == 0)
            z = cull_uniform(seed, -1.0f, 0.1f);
        else if (depth == 1)
            z = cull_uniform(seed, 3.05f, 4.0f);
        else if (depth == 2)
            z = cull_uniform(seed, 0.2f, 0.39f);
        /* Screen to world at depth z (= w); behind the eye, mirrored. */
        tri[3 * k] = (sx / CULL_W * 2.0f - 1.0f) * z;
        tri[3 * k + 1] = (sy / CULL_H * 2.0f - 1.0f) * z;
        tri[3 * k + 2] = z;
    }
}

/* One random point for the tiles test: around and across the viewport,
 * some behind the eye or beyond the near or far plane. */
static void tile_random_point(uint32_t *seed, float p[3])
{
    float sx = cull_uniform(seed, -30.0f, CULL_W + 30.0f);
    float sy = cull_uniform(seed, -30.0f, CULL_H + 30.0f);
    if (cull_random(seed) % 3 == 0) {
        sx = roundf(sx * 2.0f) * 0.5f;
        sy = roundf(sy * 2.0f) * 0.5f;
    }
    int depth = (int)(cull_random(seed) % 20);
    float z = depth == 0 ? cull_uniform(seed, -1.0f, 0.1f)
              : depth == 1 ? cull_uniform(seed, 3.05f, 4.0f)
              : depth == 2 ? cull_uniform(seed, 0.2f, 0.39f)
                           : cull_uniform(seed, 0.45f, 2.8f);
    p[0] = (sx / CULL_W * 2.0f - 1.0f) * z;
    p[1] = (sy / CULL_H * 2.0f - 1.0f) * z;
    p[2] = z;
}

/* Primitives (triangles, or point splats with point_scale nonzero) drawn
 * tile by tile, each tile under its ds_tile_scissor() and with only the
 * primitives whose tiles include it, must add up to the same fragment
 * count at every pixel as drawn at once. */
static void check_tiles(const float *primitives, size_t count, float point_scale,
                        const float m[16], int tile_pixels, double min_covered)
{
    size_t floats = point_scale != 0.0f ? 3 : 9;
    ds_cull_view view;
    ds_cull_view_set(&view, m, CULL_W, CULL_H);
    ds_tile_grid grid = ds_tile_grid_for(CULL_W, CULL_H, tile_pixels);
    int tiles = grid.columns * grid.rows;
    static float whole[CULL_W * CULL_H], tiled[CULL_W * CULL_H];
    counter c;
    counter_create(&c, primitives, count, point_scale);
    counter_draw(&c, m, 0, count, NULL);
    counter_read(&c, whole);
    counter_destroy(&c);
    uint32_t *rects = malloc(count * sizeof(uint32_t));
    assert_non_null(rects);
    size_t entries = 0, spanning = 0, empty = 0;
    for (size_t i = 0; i < count; i++) {
        const float *p = primitives + floats * i;
        uint32_t r = point_scale != 0.0f ? ds_point_tiles(&view, &grid, p, point_scale)
                                         : ds_triangle_tiles(&view, &grid, p, p + 3, p + 6);
        rects[i] = r;
        int columns = (int)(r >> 8 & 0xFF) - (int)(r & 0xFF) + 1;
        int rows = (int)(r >> 24) - (int)(r >> 16 & 0xFF) + 1;
        size_t n = columns > 0 && rows > 0 ? (size_t)(columns * rows) : 0;
        entries += n;
        spanning += n > 1;
        empty += n == 0;
    }
    /* The tile lists, tile-major, as the renderer draws them. */
    float *binned = malloc((entries ? entries : 1) * floats * sizeof(float));
    size_t at = 0, *first = calloc((size_t)tiles + 1, sizeof *first);
    assert_non_null(binned);
    assert_non_null(first);
    for (int tile = 0; tile < tiles; tile++) {
        first[tile] = at;
        int column = tile % grid.columns, row = tile / grid.columns;
        for (size_t i = 0; i < count; i++) {
            uint32_t r = rects[i];
            if (column >= (int)(r & 0xFF) && column <= (int)(r >> 8 & 0xFF) &&
                row >= (int)(r >> 16 & 0xFF) && row <= (int)(r >> 24))
                memcpy(binned + floats * at++, primitives + floats * i, floats * sizeof(float));
        }
    }
    first[tiles] = at;
    assert_int_equal(at, entries);
    counter_create(&c, binned, entries, point_scale);
    for (int tile = 0; tile < tiles; tile++) {
        int box[4];
        ds_tile_scissor(&grid, CULL_W, CULL_H, tile % grid.columns, tile / grid.columns, box);
        counter_draw(&c, m, first[tile], first[tile + 1] - first[tile], box);
    }
    counter_read(&c, tiled);
    counter_destroy(&c);
    size_t differ = 0, covered = 0;
    for (size_t i = 0; i < CULL_W * CULL_H; i++) {
        differ += whole[i] != tiled[i];
        covered += whole[i] != 0.0f;
    }
    printf("%s, tiles %dx%d: %zu entries for %zu (%zu in several tiles, %zu in none); "
           "%zu of %zu covered pixels differ\n", point_scale != 0.0f ? "points" : "triangles",
           grid.columns, grid.rows, entries, count, spanning, empty, differ, covered);
    assert_int_equal(differ, 0);
    /* Or the test says nothing: enough covered pixels, most primitives in
     * few tiles, some in several, some in none. */
    assert_true((double)covered > min_covered * CULL_W * CULL_H);
    assert_true(entries < count * (size_t)tiles / 4);
    assert_true(spanning > count / 20);
    assert_true(empty > count / 20);
    free(binned);
    free(first);
    free(rects);
}

/* ds_triangle_tiles() and ds_point_tiles() against the rasteriser (llvmpipe
 * in CI; the GPU on the GPU host), for two grids, one whose tile edges
 * fall between pixels. */
static void test_tiles_conservative(void **state)
{
    (void)state;
    /* Perspective: w = z, near 0.4, far 3 (clip z = a z + b). */
    static const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 3.4f / 2.6f, 1, 0, 0, -2.4f / 2.6f,
                                0};
    float *primitives = malloc(TILE_TRIANGLES * 9 * sizeof(float));
    assert_non_null(primitives);
    uint32_t seed = 0x711E5EEDu;
    printf("tiles seed 0x%08x\n", seed);
    for (int t = 0; t < TILE_TRIANGLES; t++)
        tile_random_triangle(&seed, primitives + 9 * t);
    check_tiles(primitives, TILE_TRIANGLES, 0.0f, m, 8, 0.9);
    check_tiles(primitives, TILE_TRIANGLES, 0.0f, m, 7, 0.9);
    for (int t = 0; t < TILE_TRIANGLES; t++)
        tile_random_point(&seed, primitives + 3 * t);
    check_tiles(primitives, TILE_TRIANGLES, 12.0f, m, 7, 0.5); /* 4 to 30 pixels */
    check_tiles(primitives, TILE_TRIANGLES, 0.8f, m, 8, 0.2);  /* 1 to 2 pixels */
    free(primitives);
}

/* ds_tiles_bin_host(): each tile's entries are the sorted positions whose
 * tiles include it, in sorted order; the commands point at them; and when
 * the entries do not fit, the plain list and the overflow command. */
static void test_tiles_binning(void **state)
{
    (void)state;
    enum { COUNT = 500, TRIANGLES = 700 };
    ds_tile_grid grid = ds_tile_grid_for(40, 30, 10); /* 4 x 3 */
    assert_int_equal(grid.columns, 4);
    assert_int_equal(grid.rows, 3);
    int tiles = grid.columns * grid.rows;
    static uint32_t order[COUNT], rects[COUNT], indices[3 * TRIANGLES];
    static uint32_t elements[3 * 4 * COUNT], commands[(DS_TILES_MAX + 1) * DS_TILES_COMMAND_WORDS];
    static uint32_t scratch[DS_TILES_MAX + 1];
    uint32_t seed = 0xB1A5EEDu;
    for (int i = 0; i < 3 * TRIANGLES; i++)
        indices[i] = cull_random(&seed) % 100000;
    for (int i = 0; i < COUNT; i++) {
        order[i] = cull_random(&seed) % TRIANGLES;
        int c0 = (int)(cull_random(&seed) % 4), r0 = (int)(cull_random(&seed) % 3);
        int c1 = c0 + (int)(cull_random(&seed) % 2), r1 = r0 + (int)(cull_random(&seed) % 2);
        rects[i] = i % 17 == 0 ? DS_TILES_EMPTY
                               : ds_tiles_pack(c0, c1 > 3 ? 3 : c1, r0, r1 > 2 ? 2 : r1);
    }
    for (int per = 1; per <= 3; per += 2) {
        size_t used = 0;
        int overflow = ds_tiles_bin_host(order, rects, COUNT, per == 3 ? indices : NULL, 3,
                                         &grid, elements, sizeof elements / sizeof *elements,
                                         commands, scratch, &used);
        assert_int_equal(overflow, 0);
        size_t expected_at = 0;
        for (int tile = 0; tile < tiles; tile++) {
            const uint32_t *command = commands + tile * DS_TILES_COMMAND_WORDS;
            assert_int_equal(command[2], 3 * expected_at);
            assert_int_equal(command[1], 1);
            int column = tile % 4, row = tile / 4;
            for (int i = 0; i < COUNT; i++) {
                uint32_t r = rects[i];
                if (!(column >= (int)(r & 0xFF) && column <= (int)(r >> 8 & 0xFF) &&
                      row >= (int)(r >> 16 & 0xFF) && row <= (int)(r >> 24)))
                    continue;
                for (int k = 0; k < per; k++)
                    assert_int_equal(elements[expected_at * per + k],
                                     per == 3 ? indices[3 * order[i] + k] : order[i]);
                expected_at++;
            }
            assert_int_equal(command[0], 3 * (expected_at - command[2] / 3));
        }
        assert_int_equal(used, expected_at * per);
        assert_int_equal(commands[tiles * DS_TILES_COMMAND_WORDS], 0); /* no overflow draw */

        /* Room for fewer entries than there are: the plain list. */
        overflow = ds_tiles_bin_host(order, rects, COUNT, per == 3 ? indices : NULL, 3, &grid,
                                     elements, expected_at * per - 1, commands, scratch, &used);
        assert_int_equal(overflow, 1);
        assert_int_equal(used, COUNT * per);
        for (int tile = 0; tile < tiles; tile++)
            assert_int_equal(commands[tile * DS_TILES_COMMAND_WORDS], 0);
        assert_int_equal(commands[tiles * DS_TILES_COMMAND_WORDS], 3 * COUNT);
        assert_int_equal(commands[tiles * DS_TILES_COMMAND_WORDS + 2], 0);
        for (int i = 0; i < COUNT; i++)
            assert_int_equal(elements[i * per], per == 3 ? indices[3 * order[i]] : order[i]);
    }
    /* Points: an entry draws one vertex. */
    size_t used = 0;
    ds_tiles_bin_host(order, rects, COUNT, NULL, 1, &grid, elements,
                      sizeof elements / sizeof *elements, commands, scratch, &used);
    uint32_t points_first = 0;
    for (int tile = 0; tile < tiles; tile++) {
        const uint32_t *command = commands + tile * DS_TILES_COMMAND_WORDS;
        assert_int_equal(command[2], points_first);
        points_first += command[0];
    }
    assert_int_equal(points_first, used);
    /* Grids: the tiles cover the viewport once, with integer edges. */
    for (int size = 1; size <= 300; size += 37) {
        ds_tile_grid g = ds_tile_grid_for(1920, 1080, size);
        assert_true(g.columns >= 1 && g.columns <= 255 && g.rows >= 1 && g.rows <= 255);
        assert_true(g.columns * g.rows <= DS_TILES_MAX);
        int box[4], right = 0;
        for (int column = 0; column < g.columns; column++) {
            ds_tile_scissor(&g, 1920, 1080, column, g.rows - 1, box);
            assert_int_equal(box[0], right);
            right = box[0] + box[2];
            assert_int_equal(box[1] + box[3], 1080);
        }
        assert_int_equal(right, 1920);
    }
}

/* Tile codes (tiles.h): the shift leaves room for every primitive number
 * and every tile plus the several code, or is 0; a one-tile primitive's
 * value names its tile and gives back the primitive; any other rectangle
 * gets the several code; without codes the value is the primitive. */
static void test_tile_codes(void **state)
{
    (void)state;
    assert_int_equal(ds_tiles_code_shift(1, 144), 1);
    assert_int_equal(ds_tiles_code_shift(2, 144), 1);
    assert_int_equal(ds_tiles_code_shift(3, 144), 2);
    assert_int_equal(ds_tiles_code_shift(871414, 144), 20);
    assert_int_equal(ds_tiles_code_shift(10022218, 144), 24);
    /* Tiles 0 .. 254 leave code 255, the several code, free; 256 do not. */
    assert_int_equal(ds_tiles_code_shift((size_t)1 << 24, 255), 24);
    assert_int_equal(ds_tiles_code_shift((size_t)1 << 24, 256), 0);
    assert_int_equal(ds_tiles_code_shift(((size_t)1 << 24) + 1, 127), 25);
    assert_int_equal(ds_tiles_code_shift(((size_t)1 << 24) + 1, 128), 0);
    assert_int_equal(ds_tiles_code_shift(10022218, 510), 0);
    assert_int_equal(ds_tiles_code_shift((size_t)1 << 31, 1), 31); /* one tile: code 0 */
    assert_int_equal(ds_tiles_code_shift((size_t)1 << 31, 2), 0);
    assert_int_equal(ds_tiles_code_shift(((size_t)1 << 31) + 1, 1), 0);
    assert_int_equal(ds_tiles_code_shift(1000, 0), 0);
    const size_t counts[] = {5, 871414, 10022218, (size_t)1 << 24, ((size_t)1 << 24) + 7};
    const int grids[][2] = {{16, 9}, {30, 17}, {1, 1}, {255, 4}, {51, 5}};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
            int columns = grids[g][0], rows = grids[g][1];
            int shift = ds_tiles_code_shift(counts[c], columns * rows);
            if (!shift) {
                assert_int_equal(ds_tiles_code_value(12345u, ds_tiles_pack(0, 0, 0, 0), columns,
                                                     0), 12345u);
                continue;
            }
            uint32_t several = DS_TILES_SEVERAL >> shift;
            assert_true((uint32_t)(columns * rows) <= several);
            uint32_t last = (uint32_t)(counts[c] - 1);
            for (int row = 0; row < rows; row += rows > 3 ? rows / 3 : 1)
                for (int column = 0; column < columns; column += columns > 5 ? columns / 5 : 1) {
                    uint32_t v = ds_tiles_code_value(last, ds_tiles_pack(column, column, row, row),
                                                     columns, shift);
                    assert_int_equal(ds_tiles_value_primitive(v, shift), last);
                    assert_int_equal(v >> shift, (uint32_t)(row * columns + column));
                }
            uint32_t v = ds_tiles_code_value(last, DS_TILES_EMPTY, columns, shift);
            assert_int_equal(v >> shift, several);
            assert_int_equal(ds_tiles_value_primitive(v, shift), last);
            if (columns > 1) {
                v = ds_tiles_code_value(0, ds_tiles_pack(0, 1, 0, 0), columns, shift);
                assert_int_equal(v, several << shift);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_sorted_and_unsorted),
        cmocka_unit_test(test_draw_forms_agree),
        cmocka_unit_test(test_draw_form_auto),
        cmocka_unit_test(test_stages_choice),
        cmocka_unit_test(test_stages_auto),
        cmocka_unit_test(test_cull_conservative),
        cmocka_unit_test(test_tiles_conservative),
        cmocka_unit_test(test_tiles_binning),
        cmocka_unit_test(test_tile_codes),
        cmocka_unit_test(test_points_sorted),
        cmocka_unit_test(test_points_tiles_agree),
        cmocka_unit_test(test_short_keys),
        cmocka_unit_test(test_narrow_keys),
        cmocka_unit_test(test_color_modes),
        cmocka_unit_test(test_msaa),
        cmocka_unit_test(test_check_fits),
        cmocka_unit_test(test_verify_refuses_nan_keys),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_headless_smoke),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
