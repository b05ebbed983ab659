/* SPDX-License-Identifier: MIT */
/* test_technique_registry.c — adding a technique is one file plus one
 * registry line (docs/architecture.md, "How to add a technique"). This
 * test's build adds tests/technique_flat.c and its line
 * (tests/technique_flat.h) to a copy of the render library and of the
 * command line, and checks that the technique then is everywhere the
 * registry reaches, with nothing else changed:
 *   - its enum value, name, label, summary and cycle place, after the
 *     built-in techniques, whose names and order are unchanged;
 *   - --compare accepts it and `all` runs it (last), --help lists it, and
 *     the viewer's X help line names it in its cycle place;
 *   - the renderer switches to it and draws with it (EGL, Mesa llvmpipe
 *     without a GPU), after a resize too: its image is the nearest
 *     surface, opaque, as the A-buffer's at alpha 1, and not the sorted
 *     draw's blend at a lower alpha. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cli.h"
#include "egl_context.h"
#include "hotkeys.h"
#include "renderer.h"
#include "scene.h"

#define W 96
#define H 64

static void registry_has_the_test_technique(void **state)
{
    (void)state;
    static const char *const names[] = {"unsorted", "sorted",  "wboit",         "peel",
                                        "abuffer",  "compute", "compute-exact", "flat"};
    assert_int_equal(DS_TECHNIQUE_COUNT, 8);
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        assert_string_equal(ds_technique_name((ds_technique)t), names[t]);
        assert_int_equal(ds_technique_from_name(names[t]), t);
    }
    assert_int_equal(DS_TECHNIQUE_FLAT, 7);
    assert_string_equal(ds_technique_label(DS_TECHNIQUE_FLAT), "flat (test)");
    assert_string_equal(ds_technique_summary(DS_TECHNIQUE_FLAT),
                        "the nearest surface, opaque (a test)");
    assert_int_equal(ds_technique_cycle(DS_TECHNIQUE_FLAT), 5);
    assert_int_equal(ds_technique_cycle(DS_TECHNIQUE_SORTED), 1);
}

static void command_line_knows_it(void **state)
{
    (void)state;
    /* --compare all: the built-in order, then the new technique. */
    static const char *const order[] = {"unsorted", "sorted", "key-farthest", "key-mean",
                                        "key-centroid", "bits-16", "bits-24", "wboit",
                                        "peel", "abuffer", "compute", "compute-exact", "flat"};
    ds_compare_item all[DS_COMPARE_ITEM_COUNT];
    int count = ds_compare_all(all);
    assert_int_equal(count, 13);
    for (int i = 0; i < count; i++)
        assert_string_equal(ds_compare_item_name(all[i]), order[i]);
    assert_int_equal(ds_compare_item_technique(DS_COMPARE_FLAT), DS_TECHNIQUE_FLAT);

    char *argv[] = {"depthsort", "--headless", "--compare", "sorted,flat", NULL};
    ds_options opts;
    int exit_now = 0;
    assert_int_equal(ds_cli_parse(4, argv, &opts, &exit_now), DS_OK);
    assert_int_equal(opts.compare_count, 2);
    assert_int_equal(opts.compare_items[1], DS_COMPARE_FLAT);

    /* --help: its line in the techniques' list. */
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    ds_cli_usage(out);
    fclose(out);
    const char *line = strstr(text, "\n  flat ");
    assert_non_null(line);
    assert_true(strcspn(line + 1, "\n") > strlen("the nearest surface, opaque (a test)"));
    assert_non_null(strstr(line, " 5  the nearest surface, opaque (a test)\n"));
    assert_true(strstr(line, " 5  the nearest surface") < strchr(line + 1, '\n'));
    free(text);

    /* The viewer's X line: the cycle by label, the new one last. */
    char lines[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX];
    int n = ds_hotkey_help(10, 200, lines, DS_HOTKEY_LINES_MAX);
    int found = 0;
    for (int i = 0; i < n; i++)
        found += strstr(lines[i], "transparency: sorted, UNSORTED, WBOIT, A-buffer (exact), "
                                  "flat (test)") != NULL;
    assert_int_equal(found, 1);
}

static uint8_t *draw(const ds_mesh *mesh, const ds_camera *camera, ds_technique technique,
                     float alpha)
{
    ds_renderer_desc desc = {0};
    desc.mesh = mesh;
    desc.width = W;
    desc.height = H;
    desc.sort_algo = DS_SORT_CPU;
    desc.interop = DS_INTEROP_NONE;
    desc.alpha = alpha;
    desc.background[3] = 1.0f;
    ds_renderer *renderer = NULL;
    assert_int_equal(ds_renderer_create(&desc, &renderer), DS_OK);
    assert_int_equal(ds_renderer_set_technique(renderer, technique), DS_OK);
    assert_int_equal(ds_renderer_technique(renderer), technique);
    uint8_t *pixels = malloc((size_t)W * H * 4);
    assert_non_null(pixels);
    /* Twice, with a resize between: the technique's images follow. */
    assert_int_equal(ds_renderer_resize(renderer, W / 2, H / 2), DS_OK);
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_resize(renderer, W, H), DS_OK);
    assert_int_equal(ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER), DS_OK);
    assert_int_equal(ds_renderer_read_pixels(renderer, pixels), DS_OK);
    assert_int_equal(ds_renderer_gl_errors(renderer), 0);
    ds_renderer_destroy(renderer);
    return pixels;
}

static void renderer_draws_with_it(void **state)
{
    (void)state;
    ds_egl_context *context = NULL;
    if (ds_egl_context_create(1, &context) != DS_OK)
        skip();
    ds_mesh mesh;
    ds_camera camera;
    assert_int_equal(ds_scene_build("planes", 2000, &mesh), DS_OK);
    memset(&camera, 0, sizeof camera);
    camera.fov_y = 0.8f;
    camera.pitch = 0.3f;
    ds_camera_frame(&camera, mesh.center, mesh.radius, (float)W / H);

    /* Opaque, the A-buffer composites each pixel's nearest fragment over
     * everything: the flat image to within rounding (ties at equal depth
     * may go the other way). At a lower alpha the sorted draw blends. */
    uint8_t *flat = draw(&mesh, &camera, DS_TECHNIQUE_FLAT, 1.0f);
    uint8_t *exact = draw(&mesh, &camera, DS_TECHNIQUE_ABUFFER, 1.0f);
    uint8_t *flat_low = draw(&mesh, &camera, DS_TECHNIQUE_FLAT, 0.3f);
    uint8_t *sorted_low = draw(&mesh, &camera, DS_TECHNIQUE_SORTED, 0.3f);
    size_t pixels = (size_t)W * H, covered = 0, off = 0, blended = 0;
    for (size_t p = 0; p < 4 * pixels; p += 4) {
        covered += flat[p] || flat[p + 1] || flat[p + 2];
        int worst = 0, apart = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)flat[p + c] - (int)exact[p + c]);
            worst = d > worst ? d : worst;
            apart |= abs((int)flat_low[p + c] - (int)sorted_low[p + c]) > 8;
        }
        off += worst > 2;
        blended += apart;
    }
    printf("flat: %zu of %zu pixels covered, %zu off the A-buffer's by more than 2 levels; "
           "%zu more than 8 levels from the sorted draw's at alpha 0.3\n",
           covered, pixels, off, blended);
    assert_true(covered > pixels / 10 && covered < pixels);
    assert_true(off <= pixels / 100);
    assert_true(blended > covered / 4);
    free(flat);
    free(exact);
    free(flat_low);
    free(sorted_low);
    ds_mesh_free(&mesh);
    ds_egl_context_destroy(context);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_has_the_test_technique),
        cmocka_unit_test(command_line_knows_it),
        cmocka_unit_test(renderer_draws_with_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
