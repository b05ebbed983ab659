/* SPDX-License-Identifier: MIT */
/* test_gl_stages.c — the renderer's GL stages (gl_stages.c) on whatever EGL
 * offers (Mesa llvmpipe in CI), against a host reference, for triangles
 * (tiles on and off, pulled and indexed, culling on and off, 32-, 24- and
 * 16-bit keys, each triangle key) and points:
 *   - the keys before the sort, bit for bit, against the host computing
 *     the shaders' formula (the distance as nvcc contracts it, fmaf, with
 *     a correctly rounded sqrtf);
 *   - the sorted order against a stable host sort of the same keys, and
 *     in a binned frame each sorted value's tile code against the keys
 *     pass's rectangle of its primitive (gl_stages.c's read-back checks
 *     them; one case bins without codes, as when they do not fit);
 *   - every word of the element buffer (sorted list, scattered indices,
 *     culled draw command, or tiles.h's binned entries and commands)
 *     against the host's stages on that order (ds_tiles_bin_host());
 *   - the image drawn from it against the CPU path's image of the same
 *     frame.
 * The CPU path computes its keys without fma, so on llvmpipe its keys may
 * differ from the GL stages' in the last bit, and two primitives whose
 * keys differ by so little may swap. The image comparison therefore
 * demands byte equality when the two paths' drawn orders are the same
 * (the usual case for these scenes, and printed), and otherwise only
 * where no swapped primitive is drawn, which it does not try to locate:
 * it then reports the count of swapped positions and still requires the
 * images to differ in fewer pixels than those primitives could cover.
 * The culled set and the tile rectangles come from the CPU path's own
 * functions (distance_math.h, tiles.h), whose rows are not fused as the
 * shaders' are: a difference there would show as a failure, which the
 * scenes here do not provoke; a real port error does.
 * Skipped (77) without an EGL context or without compute support. */
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
#include "raster.h"
#include "renderer_internal.h"
#include "scene.h"
#include "tiles.h"

#define WIDTH 160
#define HEIGHT 120
#define TILE_PIXELS 32 /* 5 x 4 tiles */

static ds_egl_context *context;
static ds_mesh scene;

/* ---- the host reference of the shaders' arithmetic ---------------------- */

static float fma_distance(const float *p, const float *eye)
{
    float dx = p[0] - eye[0], dy = p[1] - eye[1], dz = p[2] - eye[2];
    return sqrtf(fmaf(dz, dz, fmaf(dx, dx, dy * dy)));
}

static float third(void)
{
    uint32_t bits = 0x3EAAAAABu;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float triangle_key(ds_triangle_key key, const float *pa, const float *pb,
                          const float *pc, const float *eye)
{
    float da = fma_distance(pa, eye), db = fma_distance(pb, eye), dc = fma_distance(pc, eye);
    if (key == DS_TRIANGLE_KEY_MEAN)
        return (da + db + dc) * third();
    if (key == DS_TRIANGLE_KEY_CENTROID) {
        float d[3];
        for (int k = 0; k < 3; k++)
            d[k] = fmaf(pa[k] + pb[k] + pc[k], third(), -eye[k]);
        return sqrtf(fmaf(d[2], d[2], fmaf(d[0], d[0], d[1] * d[1])));
    }
    float farthest = da > db ? da : db;
    return farthest > dc ? farthest : dc;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A stable sort of primitives by their key words (bits [sort_shift, 32)), ascending. */
static const uint32_t *sort_words;
static int sort_shift;
static int by_key_then_position(const void *a, const void *b)
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    uint32_t ka = sort_words[ia] >> sort_shift, kb = sort_words[ib] >> sort_shift;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

/* ---- one configuration -------------------------------------------------- */

typedef struct config {
    ds_primitive primitive;
    ds_tiles_mode tiles;
    ds_draw_form form;
    ds_cull_mode cull;
    int key_bits;
    ds_triangle_key key;
    float zoom; /* the camera's distance factor: > 1 leaves sub-pixel triangles */
    int tile_pixels;      /* 0: TILE_PIXELS */
    const ds_mesh *mesh;  /* NULL: the small scene */
    int full_width_keys;  /* 1: keys never narrowed */
    int no_codes;         /* 1: sort values without tile codes, as when they do not fit */
} config;

static void run_config(const config *c)
{
    ds_renderer_desc desc;
    memset(&desc, 0, sizeof desc);
    const ds_mesh *mesh = c->mesh ? c->mesh : &scene;
    desc.mesh = mesh;
    desc.width = WIDTH;
    desc.height = HEIGHT;
    desc.sort_algo = DS_SORT_CPU;
    desc.interop = DS_INTEROP_NONE;
    desc.stages = DS_STAGES_SORTER;
    desc.primitive = c->primitive;
    desc.triangle_key = c->key;
    desc.tiles = c->tiles;
    desc.tile_pixels = c->tile_pixels ? c->tile_pixels : TILE_PIXELS;
    desc.draw_form = c->form;
    desc.cull = c->cull;
    desc.key_bits = c->key_bits;
    desc.full_width_keys = c->full_width_keys;
    desc.verify = 1;
    desc.alpha = 0.4f;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    ds_camera camera;
    memset(&camera, 0, sizeof camera);
    camera.fov_y = 0.8f;
    ds_camera_orbit(&camera, 0.7f, 0.35f);
    ds_camera_frame(&camera, mesh->center, mesh->radius, (float)WIDTH / HEIGHT);
    ds_camera_zoom(&camera, c->zoom);
    ds_camera_enclose(&camera, mesh->center, mesh->radius);

    /* The CPU path's frame and image. */
    assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    size_t pixels = (size_t)WIDTH * HEIGHT * 4;
    uint8_t *cpu_image = malloc(pixels), *gl_image = malloc(pixels);
    assert_non_null(cpu_image);
    assert_non_null(gl_image);
    assert_int_equal(ds_renderer_read_pixels(renderer, cpu_image), DS_OK);
    const frame_plan *cpu_plan = &renderer->verification.last_plan;
    size_t n = cpu_plan->count;
    uint32_t *cpu_order = malloc((n + 1) * sizeof(uint32_t));
    assert_non_null(cpu_order);
    memcpy(cpu_order, renderer->cpu.values, n * sizeof(uint32_t));
    uint32_t cpu_drawn = cpu_plan->cull
                             ? renderer->timing.records[cpu_plan->frame % TIMING_RING].drawn
                             : (uint32_t)n;

    /* The same frame through the GL stages, then the same draw. */
    assert_int_equal(ds_render_gl_stages_create(renderer), DS_OK);
    frame_plan plan;
    ds_render_plan(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER, &plan);
    plan.gl = 1;
    /* As a GL frame's plan narrows full keys and codes the tiles in the
     * sort values (the CPU path's does neither). */
    plan.narrow = ds_render_key_narrow(renderer, &plan);
    plan.value_shift = c->no_codes ? 0 : ds_render_value_shift(renderer, &plan);
    if (plan.tiled && !c->no_codes)
        assert_int_not_equal(plan.value_shift, 0);
    if (c->key_bits == 32 && !c->full_width_keys && c->zoom >= 1.0f)
        assert_int_not_equal(plan.narrow.top, 0);
    if (c->key_bits != 32 || c->full_width_keys)
        assert_int_equal(plan.narrow.top, 0);
    frame_record *record = &renderer->timing.records[plan.frame % TIMING_RING];
    assert_int_equal(ds_render_gl_stages(renderer, &plan, record), DS_OK);
    ds_render_raster_draw(renderer, &plan, record);
    assert_int_equal(ds_renderer_read_pixels(renderer, gl_image), DS_OK);

    float *keys = malloc((n + 1) * sizeof(float));
    uint32_t *order = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *rects = calloc(n + 1, sizeof(uint32_t));
    uint32_t drawn = 0;
    assert_true(keys && order && rects);
    assert_int_equal(ds_render_gl_stages_read_back(renderer, &plan, keys, order, rects, &drawn),
                     DS_OK);
    size_t words = renderer->mesh.element_capacity;
    uint32_t *elements = malloc(words * sizeof(uint32_t));
    uint32_t *expected = calloc(words, sizeof(uint32_t));
    assert_true(elements && expected);
    glGetNamedBufferSubData(ds_render_element_buffer(renderer, plan.slot), 0,
                            (GLsizeiptr)(words * sizeof(uint32_t)), elements);

    /* (a) keys, bit for bit */
    const float *p = mesh->positions;
    const uint32_t *idx = mesh->indices;
    const ds_cull_view *cull = plan_cull(&plan);
    uint32_t *reference = malloc((n + 1) * sizeof(uint32_t));
    assert_non_null(reference);
    uint32_t visible = 0;
    for (size_t i = 0; i < n; i++) {
        float k;
        int kept = 1;
        if (plan.points) {
            k = ds_point_sort_key(fma_distance(p + 3 * i, plan.eye), plan.range);
        } else {
            const float *pa = p + 3 * (size_t)idx[3 * i], *pb = p + 3 * (size_t)idx[3 * i + 1],
                        *pc = p + 3 * (size_t)idx[3 * i + 2];
            k = triangle_key(c->key, pa, pb, pc, plan.eye);
            if (plan.range.scale != 0.0f)
                k = ds_quantise_key(k, plan.range.lo, plan.range.scale);
            if (cull) {
                kept = !ds_triangle_misses_samples(cull, pa, pb, pc);
                k = kept ? fmaxf(k, FLT_MIN) : 0.0f;
            }
        }
        visible += (uint32_t)kept;
        reference[i] = ~bits_of(k);
        if (~bits_of(keys[i]) != reference[i])
            fail_msg("key %zu is %.9g (0x%08x), the host's %.9g", i, (double)keys[i],
                     bits_of(keys[i]), (double)k, bits_of(k));
    }
    assert_int_equal(drawn, visible);

    /* (a) the order: a stable sort of the same words (the full keys' even
     * when the sort had them narrowed, which must not change it) */
    uint32_t *host_order = malloc((n + 1) * sizeof(uint32_t));
    assert_non_null(host_order);
    for (size_t i = 0; i < n; i++)
        host_order[i] = (uint32_t)i;
    sort_words = reference;
    sort_shift = c->key_bits == 16 ? 16 : c->key_bits == 24 ? 8 : 0;
    qsort(host_order, n, sizeof(uint32_t), by_key_then_position);
    for (size_t i = 0; i < n; i++)
        if (order[i] != host_order[i])
            fail_msg("sorted position %zu holds %u, the host's %u", i, order[i], host_order[i]);

    /* (a) the element buffer */
    size_t compare_words;
    if (plan.tiled) {
        uint32_t *host_rects = calloc(n + 1, sizeof(uint32_t));
        uint32_t scratch[DS_TILES_MAX + 1];
        assert_non_null(host_rects);
        ds_tiles_rects_host(order, drawn, plan.points ? NULL : idx, p, &plan.view, &plan.grid,
                            plan.point_scale, host_rects);
        for (size_t i = 0; i < drawn; i++)
            if (rects[i] != host_rects[i])
                fail_msg("the tiles of sorted position %zu are 0x%08x, the host's 0x%08x", i,
                         rects[i], host_rects[i]);
        size_t used = 0;
        const uint32_t *entry_indices = plan.points || plan.pull ? NULL : idx;
        ds_tiles_bin_host(order, host_rects, drawn, entry_indices, plan.points ? 1 : 3,
                          &plan.grid, expected, renderer->mesh.command_word,
                          expected + renderer->mesh.command_word, scratch, &used);
        compare_words = used;
        size_t command_words =
            (size_t)(plan.grid.columns * plan.grid.rows + 1) * DS_TILES_COMMAND_WORDS;
        for (size_t i = 0; i < command_words; i++) {
            size_t at = renderer->mesh.command_word + i;
            if (elements[at] != expected[at])
                fail_msg("word %zu of tile %zu's command is %u, the host's %u",
                         i % DS_TILES_COMMAND_WORDS, i / DS_TILES_COMMAND_WORDS, elements[at],
                         expected[at]);
        }
        free(host_rects);
    } else {
        int per = plan.in_place ? 1 : 3;
        compare_words = n * (size_t)per;
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < per; k++)
                expected[i * per + k] = per == 1 ? order[i] : idx[3 * (size_t)order[i] + k];
        if (cull) {
            uint32_t command[DRAW_COMMAND_WORDS] = {0};
            ds_cull_draw_command(drawn, !plan.pull, command);
            for (int k = 0; k < (plan.pull ? 4 : 5); k++)
                assert_int_equal(elements[renderer->mesh.command_word + k], command[k]);
        }
    }
    for (size_t i = 0; i < compare_words; i++)
        if (elements[i] != expected[i])
            fail_msg("element buffer word %zu is %u, the host's %u", i, elements[i], expected[i]);

    /* (b) the image against the CPU path's */
    size_t swapped = 0;
    for (size_t i = 0; i < n && i < cpu_drawn; i++)
        swapped += order[i] != cpu_order[i];
    size_t differ = 0;
    for (size_t i = 0; i < pixels; i += 4)
        differ += memcmp(cpu_image + i, gl_image + i, 4) != 0;
    if (swapped == 0 && drawn == cpu_drawn) {
        if (differ)
            fail_msg("%zu pixels differ from the CPU path's image with the same order", differ);
    } else {
        print_message("  %zu drawn positions differ from the CPU path's order "
                      "(last-bit key differences); %zu pixels differ\n", swapped, differ);
        assert_true(differ <= swapped * 64);
    }
    int overflow = plan.tiled &&
        elements[renderer->mesh.command_word +
                 (size_t)(plan.grid.columns * plan.grid.rows) * DS_TILES_COMMAND_WORDS] != 0;
    print_message("  %s tiles=%d%s pull=%d cull=%d bits=%d (sorted %d) key=%d: %zu primitives, "
                  "%u drawn%s\n",
                  plan.points ? "points" : "triangles", plan.tiled, overflow ? " (overflow)" : "",
                  plan.pull, plan.cull, c->key_bits,
                  c->key_bits == 32 ? ds_key_narrow_bits(plan.narrow) : c->key_bits, (int)c->key,
                  n, drawn,
                  swapped ? "" : ", same order and image");
    assert_int_equal(renderer->gl.errors, 0);

    free(reference);
    free(host_order);
    free(elements);
    free(expected);
    free(keys);
    free(order);
    free(rects);
    free(cpu_order);
    free(cpu_image);
    free(gl_image);
    ds_render_gl_stages_free(renderer);
    ds_renderer_destroy(renderer);
}

static void test_triangles(void **state)
{
    (void)state;
    static const ds_tiles_mode tiles[] = {DS_TILES_ON, DS_TILES_OFF};
    static const ds_draw_form forms[] = {DS_DRAW_PULL, DS_DRAW_INDEXED};
    static const ds_cull_mode culls[] = {DS_CULL_ON, DS_CULL_OFF};
    for (int t = 0; t < 2; t++)
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 2; k++) {
                config c = {DS_PRIMITIVE_TRIANGLES, tiles[t], forms[f], culls[k], 32,
                            DS_TRIANGLE_KEY_FARTHEST, 1.0f, 0, NULL, 0, 0};
                run_config(&c);
            }
    /* Full keys as they are: the sort's four passes. */
    config full = {DS_PRIMITIVE_TRIANGLES, DS_TILES_ON, DS_DRAW_INDEXED, DS_CULL_ON, 32,
                   DS_TRIANGLE_KEY_FARTHEST, 1.0f, 0, NULL, 1, 0};
    run_config(&full);
}

static void test_keys(void **state)
{
    (void)state;
    static const int bits[] = {24, 16};
    for (int b = 0; b < 2; b++) {
        config c = {DS_PRIMITIVE_TRIANGLES, DS_TILES_ON, DS_DRAW_INDEXED, DS_CULL_ON, bits[b],
                    DS_TRIANGLE_KEY_FARTHEST, 1.0f, 0, NULL, 0, 0};
        run_config(&c);
    }
    for (int key = DS_TRIANGLE_KEY_MEAN; key <= DS_TRIANGLE_KEY_CENTROID; key++) {
        config c = {DS_PRIMITIVE_TRIANGLES, DS_TILES_OFF, DS_DRAW_PULL, DS_CULL_ON, 32,
                    (ds_triangle_key)key, 1.0f, 0, NULL, 0, 0};
        run_config(&c);
    }
    /* Far away: most triangles are sub-pixel, so the cull has work. */
    config far = {DS_PRIMITIVE_TRIANGLES, DS_TILES_ON, DS_DRAW_PULL, DS_CULL_ON, 32,
                  DS_TRIANGLE_KEY_FARTHEST, 6.0f, 0, NULL, 0, 0};
    run_config(&far);
}

/* Binning beyond one round per workgroup and one mask word per tile (a
 * larger mesh), with many tiles, and the overflow form (close up, small
 * tiles: the entries outgrow the buffer). */
static void test_binning(void **state)
{
    (void)state;
    ds_mesh large;
    assert_int_equal(ds_scene_build("shells", 150000, &large), DS_OK);
    config many = {DS_PRIMITIVE_TRIANGLES, DS_TILES_ON, DS_DRAW_INDEXED, DS_CULL_OFF, 32,
                   DS_TRIANGLE_KEY_FARTHEST, 1.0f, 8, &large, 0, 0};
    run_config(&many);
    /* The same without tile codes in the values: the rectangles from the
     * keys pass for every position. */
    many.no_codes = 1;
    run_config(&many);
    config points = {DS_PRIMITIVE_POINTS, DS_TILES_ON, DS_DRAW_AUTO, DS_CULL_OFF, 32,
                     DS_TRIANGLE_KEY_FARTHEST, 1.0f, 4, &large, 0, 0};
    run_config(&points);
    ds_mesh_free(&large);
    config close = {DS_PRIMITIVE_TRIANGLES, DS_TILES_ON, DS_DRAW_PULL, DS_CULL_ON, 32,
                    DS_TRIANGLE_KEY_FARTHEST, 0.35f, 4, NULL, 0, 0};
    run_config(&close);
}

static void test_points(void **state)
{
    (void)state;
    static const ds_tiles_mode tiles[] = {DS_TILES_ON, DS_TILES_OFF};
    static const int bits[] = {32, 16};
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < 2; b++) {
            config c = {DS_PRIMITIVE_POINTS, tiles[t], DS_DRAW_AUTO, DS_CULL_OFF, bits[b],
                        DS_TRIANGLE_KEY_FARTHEST, 1.0f, 0, NULL, 0, 0};
            run_config(&c);
        }
}

/* On a GPU host (a CUDA device drives GL): the GL stages' keys against the
 * CUDA kernels' (distance.cu) for the same frame, bit for bit, for each
 * triangle key and for points: what makes the two paths' images the same
 * byte for byte. A mismatch prints both and the host's formula. Skipped on
 * the CPU path. */
static void test_keys_match_cuda(void **state)
{
    (void)state;
    ds_mesh mesh;
    assert_int_equal(ds_scene_build("shells", 150000, &mesh), DS_OK);
    static const struct {
        ds_primitive primitive;
        ds_triangle_key key;
    } cases[] = {{DS_PRIMITIVE_TRIANGLES, DS_TRIANGLE_KEY_FARTHEST},
                 {DS_PRIMITIVE_TRIANGLES, DS_TRIANGLE_KEY_MEAN},
                 {DS_PRIMITIVE_TRIANGLES, DS_TRIANGLE_KEY_CENTROID},
                 {DS_PRIMITIVE_POINTS, DS_TRIANGLE_KEY_FARTHEST}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ds_renderer_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.mesh = &mesh;
        desc.width = 640;
        desc.height = 360;
        desc.sort_algo = DS_SORT_CUB;
        desc.stages = DS_STAGES_SORTER;
        desc.primitive = cases[c].primitive;
        desc.triangle_key = cases[c].key;
        desc.verify = 1;
        ds_renderer *renderer = NULL;
        assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
        if (renderer->settings.cpu_path) {
            printf("  no CUDA device behind GL: the CUDA comparison is skipped\n");
            ds_renderer_destroy(renderer);
            break;
        }
        ds_camera camera;
        memset(&camera, 0, sizeof camera);
        camera.fov_y = 0.8f;
        ds_camera_orbit(&camera, 0.7f, 0.35f);
        ds_camera_frame(&camera, mesh.center, mesh.radius, 640.0f / 360.0f);
        ds_camera_enclose(&camera, mesh.center, mesh.radius);
        size_t n = ds_renderer_sorted_count(renderer);
        float *cuda_keys = malloc((n + 1) * sizeof(float));
        assert_non_null(cuda_keys);
        assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
        assert_int_equal(ds_renderer_verify(renderer), DS_OK);
        memcpy(cuda_keys, renderer->verification.keys, n * sizeof(float));
        assert_int_equal(ds_renderer_set_stages(renderer, DS_STAGES_GL), DS_OK);
        assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
        assert_int_equal(ds_renderer_verify(renderer), DS_OK);
        const float *gl_keys = renderer->verification.keys;
        const float *eye = renderer->verification.last_plan.eye;
        size_t differ = 0;
        for (size_t i = 0; i < n; i++) {
            if (bits_of(gl_keys[i]) == bits_of(cuda_keys[i]))
                continue;
            if (differ++ < 3) {
                const float *p = mesh.positions;
                const uint32_t *v = mesh.indices + 3 * i;
                float host = cases[c].primitive == DS_PRIMITIVE_POINTS
                                 ? fma_distance(p + 3 * i, eye)
                                 : triangle_key(cases[c].key, p + 3 * (size_t)v[0],
                                                p + 3 * (size_t)v[1], p + 3 * (size_t)v[2], eye);
                printf("  case %zu key %zu: GL %.9g (0x%08x), CUDA %.9g (0x%08x), host %.9g "
                       "(0x%08x)\n", c, i, (double)gl_keys[i], bits_of(gl_keys[i]),
                       (double)cuda_keys[i], bits_of(cuda_keys[i]), (double)host, bits_of(host));
            }
        }
        printf("  case %zu: %zu of %zu keys differ from CUDA's\n", c, differ, n);
        /* Back to the CUDA stages after GL frames, tiles on and off: the
         * draw's element buffer must hold what CUDA wrote (under
         * external-memory interop the GL frames keep element buffers of
         * their own; writing the imported ones left GL reading stale
         * words after the switch). */
        assert_int_equal(ds_renderer_set_stages(renderer, DS_STAGES_SORTER), DS_OK);
        for (int frame = 0; frame < 4; frame++) {
            ds_renderer_set_tiles(renderer, frame < 2);
            assert_int_equal(ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER),
                             DS_OK);
            assert_int_equal(ds_renderer_verify(renderer), DS_OK);
        }
        free(cuda_keys);
        ds_renderer_destroy(renderer);
        assert_int_equal(differ, 0);
    }
    ds_mesh_free(&mesh);
}

int main(void)
{
    if (ds_egl_context_create(1, &context) != DS_OK) {
        printf("test_gl_stages: no EGL context: skipped\n");
        return 77;
    }
    if (!ds_render_gl_stages_supported()) {
        printf("test_gl_stages: this GL cannot run the GL stages: skipped\n");
        ds_egl_context_destroy(context);
        return 77;
    }
    if (ds_scene_build("shells", 3000, &scene) != DS_OK) {
        printf("test_gl_stages: building the scene failed\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangles),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_binning),
        cmocka_unit_test(test_keys_match_cuda),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ds_mesh_free(&scene);
    ds_egl_context_destroy(context);
    return failed;
}
