/* SPDX-License-Identifier: MIT */
/* test_cli.c — the command line: defaults, every option, --help/--version
 * output, one error line plus usage for each bad input, and the agreement of
 * --help and the viewer's hotkeys with the sort registry and the GL
 * stages' entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "cli.h"
#include "hotkeys.h"
#include "sort.h"

#define MAX_ARGS 80

/* getopt permutes argv, so each call gets a fresh modifiable copy. */
typedef struct argv_copy {
    int argc;
    char *argv[MAX_ARGS + 1];
} argv_copy;

static argv_copy make_args(const char *const *args)
{
    argv_copy copy = {0};
    copy.argv[copy.argc++] = (char *)"depthsort";
    for (; *args; args++) {
        assert_true(copy.argc < MAX_ARGS);
        copy.argv[copy.argc++] = (char *)*args;
    }
    return copy;
}

/* Output captured from one file descriptor while parsing. */
typedef struct parse_result {
    ds_status status;
    int exit_now;
    char output[32768];
} parse_result;

static parse_result parse_capturing(const char *const *args, ds_options *opts, int fd)
{
    parse_result result = {0};
    argv_copy copy = make_args(args);
    fflush(stdout);
    fflush(stderr);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    int saved = dup(fd);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(capture), fd) >= 0);
    result.status = ds_cli_parse(copy.argc, copy.argv, opts, &result.exit_now);
    fflush(stdout);
    fflush(stderr);
    assert_true(dup2(saved, fd) >= 0);
    close(saved);
    rewind(capture);
    size_t length = fread(result.output, 1, sizeof result.output - 1, capture);
    result.output[length] = '\0';
    fclose(capture);
    return result;
}

/* assert_string_equal for strings that may be NULL. */
static void assert_optional_string_equal(const char *actual, const char *expected)
{
    if (expected)
        assert_string_equal(actual, expected);
    else
        assert_null(actual);
}

/* Every field of `actual` equals that of `expected`. */
static void assert_options_equal(const ds_options *actual, const ds_options *expected)
{
    assert_optional_string_equal(actual->model_path, expected->model_path);
    assert_optional_string_equal(actual->scene, expected->scene);
    assert_int_equal(actual->grid_x, expected->grid_x);
    assert_int_equal(actual->grid_y, expected->grid_y);
    assert_int_equal(actual->info, expected->info);
    assert_int_equal(actual->headless, expected->headless);
    assert_int_equal(actual->frames, expected->frames);
    assert_int_equal(actual->key_bits, expected->key_bits);
    assert_optional_string_equal(actual->sort, expected->sort);
    assert_int_equal(actual->stages, expected->stages);
    assert_int_equal(actual->shuffle, expected->shuffle);
    assert_int_equal(actual->width, expected->width);
    assert_int_equal(actual->height, expected->height);
    assert_int_equal(actual->primitive, expected->primitive);
    assert_int_equal(actual->primitive_given, expected->primitive_given);
    assert_int_equal(actual->triangle_key, expected->triangle_key);
    assert_int_equal(actual->interop, expected->interop);
    assert_float_equal(actual->orbit_degrees, expected->orbit_degrees, 0.0f);
    assert_float_equal(actual->alpha, expected->alpha, 0.0f);
    assert_optional_string_equal(actual->csv_path, expected->csv_path);
    assert_optional_string_equal(actual->json_path, expected->json_path);
    assert_optional_string_equal(actual->screenshot_path, expected->screenshot_path);
    assert_int_equal(actual->screenshot_overlay, expected->screenshot_overlay);
    assert_int_equal(actual->supersample, expected->supersample);
    assert_int_equal(actual->screenshot_alpha, expected->screenshot_alpha);
    assert_optional_string_equal(actual->timeline_path, expected->timeline_path);
    assert_int_equal(actual->verify, expected->verify);
    assert_int_equal(actual->no_sort, expected->no_sort);
    assert_int_equal(actual->full_width_keys, expected->full_width_keys);
    assert_int_equal(actual->cull, expected->cull);
    assert_int_equal(actual->tiles, expected->tiles);
    assert_int_equal(actual->tile_pixels, expected->tile_pixels);
    assert_int_equal(actual->draw_form, expected->draw_form);
    assert_int_equal(actual->vsync, expected->vsync);
    assert_int_equal(actual->overlay, expected->overlay);
    assert_optional_string_equal(actual->script_path, expected->script_path);
    assert_int_equal(actual->color_mode, expected->color_mode);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(actual->tint[k], expected->tint[k], 0.0f);
        assert_float_equal(actual->background[k], expected->background[k], 0.0f);
    }
    assert_int_equal(actual->background_given, expected->background_given);
    assert_int_equal(actual->opacity, expected->opacity);
    assert_float_equal(actual->point_size, expected->point_size, 0.0f);
    assert_int_equal(actual->msaa, expected->msaa);
    assert_int_equal(actual->up, expected->up);
    assert_optional_string_equal(actual->camera, expected->camera);
    assert_optional_string_equal(actual->camera_file, expected->camera_file);
}

static void test_defaults(void **state)
{
    (void)state;
    static const char *const args[] = {NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(r.exit_now, 0);
    assert_string_equal(r.output, "");
    /* Fields not named are 0 / NULL: off, or not given. */
    static const ds_options expected = {
        .grid_x = 1, .grid_y = 1, .frames = 100, .sort = "cub", .stages = DS_STAGES_AUTO,
        .width = 1920, .height = 1080,
        .primitive = DS_PRIMITIVE_TRIANGLES, .triangle_key = DS_TRIANGLE_KEY_FARTHEST,
        .interop = DS_INTEROP_AUTO, .orbit_degrees = 360.0f, .alpha = 0.45f, .vsync = 1,
        .tile_pixels = 0, .draw_form = DS_DRAW_AUTO, .cull = DS_CULL_AUTO,
        .color_mode = DS_COLOR_AUTO, .opacity = DS_OPACITY_CONSTANT, .msaa = 1, .up = DS_UP_POS_Y,
        .supersample = 1};
    assert_options_equal(&opts, &expected);
}

static void test_every_option(void **state)
{
    (void)state;
    static const char *const args[] = {
        "--scene", "shells:2M", "--grid", "4x3", "--info", "--headless", "--frames", "250", "--sort",
        "bitonic2", "--shuffle", "--size", "640x480", "--primitive", "points", "--key", "centroid",
        "--interop", "external", "--orbit", "-90.5", "--alpha", "1", "--csv", "t.csv", "--json", "t.json",
        "--screenshot", "s-{model}-{technique}-{sort}-{frame}-{date}.png", "--supersample", "3",
        "--screenshot-alpha", "--screenshot-overlay", "on", "--timeline", "t.timeline.csv", "--verify", "--no-sort", "--no-vsync", "--script", "keys.txt",
        "--overlay", "compact", "--key-bits", "24", "--narrow-keys", "off", "--no-cull", "--tiles", "off", "--tile-pixels", "64", "--draw", "pull",
        "--color", "height", "--tint", "0.25,0.5,1", "--background", "1,0.5,0", "--opacity", "view",
        "--point-size", "0.125", "--msaa", "4", "--up", "-z", "--camera",
        "fov=30 target=1,2,3 eye=1,2,13", "--camera-file", "view.txt", NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_string_equal(r.output, "");
    /* Every field away from its default (model_path: --scene excludes one). */
    static const ds_options expected = {
        .model_path = NULL, .scene = "shells:2M", .grid_x = 4, .grid_y = 3, .info = 1, .headless = 1,
        .frames = 250, .sort = "bitonic2", .stages = DS_STAGES_SORTER, .shuffle = 1,
        .width = 640, .height = 480,
        .primitive = DS_PRIMITIVE_POINTS, .primitive_given = 1, .triangle_key = DS_TRIANGLE_KEY_CENTROID,
        .interop = DS_INTEROP_EXTERNAL, .key_bits = 24, .orbit_degrees = -90.5f, .alpha = 1.0f,
        .csv_path = "t.csv", .json_path = "t.json", .screenshot_path = "s-{model}-{technique}-{sort}-{frame}-{date}.png",
        .supersample = 3, .screenshot_alpha = 1, .screenshot_overlay = 1,
        .timeline_path = "t.timeline.csv", .verify = 1,
        .no_sort = 1, .full_width_keys = 1, .cull = DS_CULL_OFF, .tiles = DS_TILES_OFF, .tile_pixels = 64, .draw_form = DS_DRAW_PULL,
        .vsync = 0, .overlay = DS_OVERLAY_START_COMPACT, .script_path = "keys.txt",
        .color_mode = DS_COLOR_HEIGHT,
        .tint = {0.25f, 0.5f, 1.0f}, .background = {1.0f, 0.5f, 0.0f}, .background_given = 1,
        .opacity = DS_OPACITY_VIEW, .point_size = 0.125f, .msaa = 4, .up = DS_UP_NEG_Z,
        .camera = "fov=30 target=1,2,3 eye=1,2,13", .camera_file = "view.txt"};
    assert_options_equal(&opts, &expected);
}

/* Every value of each new choice option, the up axis with and without its
 * '+', --cull beside --no-cull (the last one wins), and a camera line with
 * only eye and target. */
static void test_appearance_choices(void **state)
{
    (void)state;
    ds_options opts;
    static const char *const colors[] = {"auto", "normal", "tint", "height", "file"};
    for (int m = 0; m < 5; m++) {
        const char *const args[] = {"--color", colors[m], NULL};
        assert_int_equal(parse_capturing(args, &opts, 2).status, DS_OK);
        assert_int_equal(opts.color_mode, (ds_color_mode)m);
    }
    static const char *const ups[][2] = {{"+x", "x"}, {"-x", "-x"}, {"+y", "y"},
                                         {"-y", "-y"}, {"+z", "z"},  {"-z", "-z"}};
    static const ds_up_axis up_axes[] = {DS_UP_POS_X, DS_UP_NEG_X, DS_UP_POS_Y,
                                         DS_UP_NEG_Y, DS_UP_POS_Z, DS_UP_NEG_Z};
    for (int u = 0; u < 6; u++)
        for (int form = 0; form < 2; form++) {
            const char *const args[] = {"--up", ups[u][form], NULL};
            assert_int_equal(parse_capturing(args, &opts, 2).status, DS_OK);
            assert_int_equal(opts.up, up_axes[u]);
        }
    static const char *const msaa[] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; i++) {
        const char *const args[] = {"--msaa", msaa[i], NULL};
        assert_int_equal(parse_capturing(args, &opts, 2).status, DS_OK);
        assert_int_equal(opts.msaa, 1 << i);
    }
    static const char *const a1[] = {"--no-cull", "--cull", "on", "--opacity=constant", NULL};
    assert_int_equal(parse_capturing(a1, &opts, 2).status, DS_OK);
    assert_int_equal(opts.cull, DS_CULL_ON);
    assert_int_equal(opts.opacity, DS_OPACITY_CONSTANT);
    static const char *const a2[] = {"--cull", "auto", "--camera=eye=0,0,5 target=0,0,0", NULL};
    assert_int_equal(parse_capturing(a2, &opts, 2).status, DS_OK);
    assert_int_equal(opts.cull, DS_CULL_AUTO);
    assert_string_equal(opts.camera, "eye=0,0,5 target=0,0,0");
    assert_int_equal(opts.background_given, 0);
    static const char *const a3[] = {"--cull", "off", "--background", "0,0,0", "--tint=1,1,1", NULL};
    assert_int_equal(parse_capturing(a3, &opts, 2).status, DS_OK);
    assert_int_equal(opts.cull, DS_CULL_OFF);
    assert_int_equal(opts.background_given, 1);
    assert_float_equal(opts.tint[2], 1.0f, 0.0f);
}

static void test_choices_and_forms(void **state)
{
    (void)state;
    ds_options opts;
    /* --opt=value, the model anywhere, the last value wins. */
    static const char *const a1[] = {"--sort=all", "dragon.ply", "--key=mean", "--interop", "map",
                                     "--primitive=triangles", "--vsync", "--frames=1", "--frames", "7", NULL};
    parse_result r = parse_capturing(a1, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_string_equal(opts.model_path, "dragon.ply");
    assert_string_equal(opts.sort, "all");
    assert_int_equal(opts.stages, DS_STAGES_AUTO); /* each run of all sets its own */
    assert_int_equal(opts.triangle_key, DS_TRIANGLE_KEY_MEAN);
    assert_int_equal(opts.interop, DS_INTEROP_MAP);
    assert_int_equal(opts.primitive, DS_PRIMITIVE_TRIANGLES);
    assert_int_equal(opts.primitive_given, 1);
    assert_int_equal(opts.vsync, 1);
    assert_int_equal(opts.frames, 7);

    static const char *const a2[] = {"--interop", "none", "--sort", "cpu", "--", "--odd-name.obj", NULL};
    r = parse_capturing(a2, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(opts.interop, DS_INTEROP_NONE);
    assert_string_equal(opts.model_path, "--odd-name.obj");
    assert_string_equal(opts.sort, "cpu");
    assert_int_equal(opts.stages, DS_STAGES_SORTER);

    /* gl: the GL stages, named like a sort; the last --sort wins. */
    static const char *const gl[] = {"--sort", "radix", "--sort=" DS_SORT_GL_NAME, NULL};
    r = parse_capturing(gl, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_string_equal(opts.sort, "gl");
    assert_int_equal(opts.stages, DS_STAGES_GL);
    static const char *const gl_then_cub[] = {"--sort", "gl", "--sort", "cub", NULL};
    assert_int_equal(parse_capturing(gl_then_cub, &opts, 2).status, DS_OK);
    assert_string_equal(opts.sort, "cub");
    assert_int_equal(opts.stages, DS_STAGES_SORTER);

    static const char *const a3[] = {"--interop", "auto", "--key", "farthest", "--scene", "gyroid",
                                     "--tiles=off", "--draw=indexed", "--tile-pixels=16384",
                                     "--overlay=off", NULL};
    r = parse_capturing(a3, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(opts.overlay, DS_OVERLAY_START_OFF);
    assert_int_equal(opts.draw_form, DS_DRAW_INDEXED);
    assert_int_equal(opts.tile_pixels, 16384);
    assert_int_equal(opts.interop, DS_INTEROP_AUTO);
    assert_int_equal(opts.tiles, DS_TILES_OFF);
    assert_int_equal(opts.triangle_key, DS_TRIANGLE_KEY_FARTHEST);
    assert_string_equal(opts.scene, "gyroid");

    /* Points through the compute raster: splats, no longer refused. */
    static const char *const points[] = {"--raster", "compute", "--primitive", "points", NULL};
    r = parse_capturing(points, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(opts.raster, DS_RASTER_COMPUTE);
    assert_int_equal(opts.primitive, DS_PRIMITIVE_POINTS);
}

static void test_help(void **state)
{
    (void)state;
    static const char *const args[] = {"--frames", "5", "--help", NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 1);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(r.exit_now, 1);
    static const char *const expected[] = {
        "usage: depthsort", "MODEL", "--scene NAME[:SIZE]", "--grid NxM", "--info", "--headless",
        "--frames N", "--sort NAME|gl|all", "'all' runs gl, then each", "handover: GPU time", "--shuffle", "--size WxH", "--primitive triangles|points",
        "--key farthest|mean|centroid", "--interop auto|map|external|none", "--orbit DEG", "--alpha A",
        "--csv FILE", "--json FILE", "--screenshot FILE.png", "--timeline FILE", "--verify", "--no-sort", "--no-cull",
        "--tiles auto|on|off", "--tile-pixels N", "--draw auto|pull|indexed", "--no-vsync",
        "--script FILE", "--overlay auto|full|compact|off", "--help", "--version", "--cull auto|on|off",
        "--color auto|normal|tint|height|file", "--tint R,G,B", "--background R,G,B",
        "--opacity constant|view", "--point-size S", "--msaa 1|2|4|8", "--up +x|-x|+y|-y|+z|-z",
        "--camera \"eye=X,Y,Z target=X,Y,Z", "--camera-file F", "--compare LIST",
        "--diff-dir DIR", "key-centroid", "bits-24", "wboit", "abuffer", "-heat-0-16.png",
        /* scenes (the sorts: registry_agrees_with_help_and_hotkeys) */
        "gyroid", "shells",
        /* hotkeys */
        "Tab ", "Shift+Tab", "\n  S ", "\n  P ", "\n  K ", "\n  U ", "\n  T ", "+ / -", "keypad", "\n  B ",
        "\n  C ", "screenshot", "\n  X ", "WBOIT", "\n  D ", "heatmap", "\n  \\ ", "split view", "\n  O ", "\n  H ", "\n  F ", "F11", "\n  V ", "Esc", "left-drag",
        "middle-drag", "wheel"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strstr(r.output, expected[i]))
            fail_msg("--help lacks '%s'", expected[i]);
}

/* --compare: `all` in the technique registry's order with the sorted
 * draw's variants after "sorted", a list in its own order; points
 * keep `all` (the runner leaves the key-* items out) and the bits-*. */
static void test_compare_lists(void **state)
{
    (void)state;
    ds_options opts;
    static const char *const all[] = {"--compare", "all", "--diff-dir", "heat", NULL};
    assert_int_equal(parse_capturing(all, &opts, 2).status, DS_OK);
    assert_string_equal(opts.compare, "all");
    assert_int_equal(opts.compare_all, 1);
    static const char *const order[DS_COMPARE_ITEM_COUNT] = {
        "unsorted", "sorted", "key-farthest", "key-mean", "key-centroid",
        "bits-16", "bits-24", "wboit", "peel", "abuffer", "compute", "compute-exact"};
    assert_int_equal(opts.compare_count, DS_COMPARE_ITEM_COUNT);
    for (int i = 0; i < DS_COMPARE_ITEM_COUNT; i++)
        assert_string_equal(ds_compare_item_name(opts.compare_items[i]), order[i]);
    assert_string_equal(opts.diff_dir, "heat");
    static const char *const list[] = {"--compare", "abuffer,bits-16,unsorted,key-centroid", NULL};
    assert_int_equal(parse_capturing(list, &opts, 2).status, DS_OK);
    assert_int_equal(opts.compare_all, 0);
    assert_int_equal(opts.compare_count, 4);
    assert_int_equal(opts.compare_items[0], DS_COMPARE_ABUFFER);
    assert_int_equal(opts.compare_items[1], DS_COMPARE_BITS_16);
    assert_int_equal(opts.compare_items[2], DS_COMPARE_UNSORTED);
    assert_int_equal(opts.compare_items[3], DS_COMPARE_KEY_CENTROID);
    static const char *const points[] = {"--compare", "bits-16,wboit", "--primitive", "points", NULL};
    assert_int_equal(parse_capturing(points, &opts, 2).status, DS_OK);
    static const char *const points_all[] = {"--primitive", "points", "--compare", "all", NULL};
    assert_int_equal(parse_capturing(points_all, &opts, 2).status, DS_OK);
    for (int i = 0; i < DS_COMPARE_ITEM_COUNT; i++) {
        const char *name = ds_compare_item_name((ds_compare_item)i);
        assert_int_equal(ds_compare_item_needs_triangles((ds_compare_item)i),
                         strncmp(name, "key-", 4) == 0);
    }
    assert_string_equal(ds_compare_item_name(DS_COMPARE_ITEM_COUNT), "unknown");
}

static void test_version(void **state)
{
    (void)state;
    static const char *const args[] = {"--version", NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 1);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(r.exit_now, 1);
    assert_string_equal(r.output, "depthsort " DS_VERSION "\n");
}

/* A screenshot name template: each key expanded, a value's odd characters
 * as '_', a '{' without '}' kept, truncation to the capacity; {model}'s
 * value without folder and extension. */
static void test_screenshot_name(void **state)
{
    (void)state;
    const ds_screenshot_keys keys = {.model = "scene:planes:1000", .technique = "sorted",
                                     .sort = "cub", .date = "20261129-090000", .frame = 7};
    char name[128], bad[16];
    assert_int_equal(ds_screenshot_name("out/{model}-{technique}-{sort}-{frame}-{date}.png", &keys,
                                        name, sizeof name, bad, sizeof bad), 1);
    assert_string_equal(name, "out/scene_planes_1000-sorted-cub-7-20261129-090000.png");
    assert_int_equal(ds_screenshot_name("a{b.png", &keys, name, sizeof name, NULL, 0), 1);
    assert_string_equal(name, "a{b.png");
    assert_int_equal(ds_screenshot_name("{sort}{sort}{sort}", &keys, name, 6, NULL, 0), 1);
    assert_string_equal(name, "cubcu");
    assert_int_equal(ds_screenshot_name("x{Model}.png", NULL, NULL, 0, bad, sizeof bad), 0);
    assert_string_equal(bad, "Model");

    /* {model}: the file's base name without folder and extension. */
    static const struct {
        const char *path, *scene, *expected;
    } models[] = {
        {"assets/bunny.ply", NULL, "bunny"},
        {"bunny.ply", NULL, "bunny"},
        {"/data/scans/dragon_vrip.PLY", NULL, "dragon_vrip"},
        {"../shared/models/lucy.v2.obj", NULL, "lucy.v2"},
        {"models.d/teapot", NULL, "teapot"},
        {"dir/.ply", NULL, ".ply"},
        {NULL, "planes:1000", "scene:planes:1000"},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char model[64];
        ds_screenshot_model(models[i].path, models[i].scene, model, sizeof model);
        assert_string_equal(model, models[i].expected);
    }
    char model[6];
    ds_screenshot_model("assets/dragon_vrip.ply", NULL, model, sizeof model);
    assert_string_equal(model, "drago");
    const ds_screenshot_keys bunny = {.model = "bunny", .technique = "wboit", .sort = "gl",
                                      .date = "20261129-090000", .frame = 100};
    assert_int_equal(ds_screenshot_name("{model}-{technique}.png", &bunny, name, sizeof name,
                                        NULL, 0), 1);
    assert_string_equal(name, "bunny-wboit.png");
}

static void test_errors(void **state)
{
    (void)state;
    /* Each case: the arguments, then a fragment its error line must hold. */
    static const char *const cases[][6] = {
        {"--grid", "0x3", NULL, "--grid '0x3'"},
        {"--grid", "3", NULL, "--grid"},
        {"--grid", "3x", NULL, "--grid"},
        {"--grid", "x3", NULL, "--grid"},
        {"--grid", "-2x3", NULL, "--grid"},
        {"--grid", "99999x2", NULL, "--grid"},
        {"--size", "abc", NULL, "--size 'abc'"},
        {"--size", "640x0", NULL, "--size"},
        {"--size", "640x480x3", NULL, "--size"},
        {"--frames", "-1", NULL, "--frames '-1'"},
        {"--key-bits", "20", NULL, "--key-bits '20'"},
        {"--key-bits", "x", NULL, "--key-bits"},
        {"--narrow-keys", "maybe", NULL, "--narrow-keys 'maybe': expected on or off"},
        {"--frames", "0", NULL, "--frames"},
        {"--frames", "12abc", NULL, "--frames"},
        {"--frames", "99999999999999999999", NULL, "--frames"},
        {"--sort", "nosuch", NULL, "--sort 'nosuch'"},
        {"--sort", "nosuch", NULL, "known: gl, "},
        {"--sort", "GL", NULL, "--sort 'GL': unknown sort"},
        {"--sort", "gl,cub", NULL, "--sort 'gl,cub'"},
        {"--sort", "", NULL, "--sort '': unknown sort"},
        {"--primitive", "lines", NULL, "--primitive"},
        {"--key", "nearest", NULL, "--key"},
        {"--interop", "magic", NULL, "--interop"},
        {"--tiles", "maybe", NULL, "--tiles"},
        {"--raster", "gpu", NULL, "--raster 'gpu': expected hw, compute or auto"},
        {"--raster", "compute", "--msaa", "4", NULL, "--raster compute: the compute raster"},
        {"--raster", "compute", "--no-sort", NULL, "--raster compute: --no-sort"},
        {"--raster", "compute", "--raster-order", "x", NULL, "--raster-order 'x'"},
        {"--raster-order", "triangle", NULL, "--raster-order triangle: applies to --raster"},
        {"--tile-pixels", "0", NULL, "--tile-pixels '0'"},
        {"--tile-pixels", "-8", NULL, "--tile-pixels"},
        {"--tile-pixels", "16385", NULL, "--tile-pixels"},
        {"--tile-pixels", "64px", NULL, "--tile-pixels"},
        {"--draw", "fast", NULL, "--draw 'fast'"},
        {"--draw", "PULL", NULL, "--draw"},
        {"--overlay", "none", NULL, "--overlay 'none'"},
        {"--alpha", "0", NULL, "--alpha"},
        {"--alpha", "1.5", NULL, "--alpha"},
        {"--alpha", "nan", NULL, "--alpha"},
        {"--orbit", "inf", NULL, "--orbit"},
        {"--orbit", "ten", NULL, "--orbit"},
        {"--scene", "nosuch", NULL, "known scenes: gyroid"},
        {"--scene", "gyroid:abc", NULL, "gyroid:abc"},
        {"--scene", "gyroid:5G", NULL, "exceed"},
        {"--cull", "maybe", NULL, "--cull 'maybe'"},
        {"--cull", "", NULL, "--cull"},
        {"--color", "rainbow", NULL, "--color 'rainbow'"},
        {"--color", "Normal", NULL, "--color"},
        {"--tint", "1,1", NULL, "--tint '1,1'"},
        {"--tint", "1,1,1,1", NULL, "--tint"},
        {"--tint", "0.5,1.5,0", NULL, "--tint"},
        {"--tint", "-0.1,0,0", NULL, "--tint"},
        {"--tint", "nan,0,0", NULL, "--tint"},
        {"--tint", "0, 1,0", NULL, "--tint"},
        {"--background", "red", NULL, "--background 'red'"},
        {"--background", "0,0,2", NULL, "--background"},
        {"--background", "0,0,", NULL, "--background"},
        {"--opacity", "glass", NULL, "--opacity 'glass'"},
        {"--point-size", "0", NULL, "--point-size '0'"},
        {"--point-size", "-1", NULL, "--point-size"},
        {"--point-size", "inf", NULL, "--point-size"},
        {"--point-size", "2mm", NULL, "--point-size"},
        {"--msaa", "3", NULL, "--msaa '3'"},
        {"--msaa", "16", NULL, "--msaa"},
        {"--msaa", "0", NULL, "--msaa"},
        {"--msaa", "+4", NULL, "--msaa"},
        {"--up", "w", NULL, "--up 'w'"},
        {"--up", "+", NULL, "--up"},
        {"--up", "zz", NULL, "--up"},
        {"--camera", "eye=0,0,5", NULL, "--camera: both eye= and target="},
        {"--camera", "eye=0,0,5 target=0,0,5", NULL, "--camera: eye and target are the same"},
        {"--camera", "eye=0,0,5 target=0,0,0 up=0,0,1", NULL, "--camera: up must be +Y"},
        {"--camera", "eye=0,0,5 target=0,0,0 fov=200", NULL, "--camera: fov=200"},
        {"--camera", "eye=1,2 target=0,0,0", NULL, "--camera: eye="},
        {"--camera", "look=here", NULL, "--camera: expected eye="},
        {"--camera-file", NULL, "needs a value"},
        {"--bogus", NULL, "unknown option '--bogus'"},
        {"-x", NULL, "unknown option '-x'"},
        {"--frames", NULL, "needs a value"},
        {"--info=1", NULL, "--info=1"},
        {"a.ply", "b.ply", NULL, "more than one model"},
        {"a.ply", "--scene", "gyroid", NULL, "not both"},
        {"--compare", "sorted,bogus", NULL, "--compare 'sorted,bogus': unknown technique 'bogus'"},
        {"--compare", "", NULL, "unknown technique ''"},
        {"--compare", "sorted,", NULL, "unknown technique ''"},
        {"--compare", "ALL", NULL, "unknown technique 'ALL'"},
        {"--compare", "peel,wboit,peel", NULL, "'peel' is listed twice"},
        {"--primitive", "points", "--compare", "key-mean", NULL, "--compare key-mean"},
        {"--diff-dir", "out", NULL, "--diff-dir out: needs --compare"},
        {"--compare", "sorted", "--diff-dir", "", NULL, "--diff-dir ''"},
        {"--timeline", "", NULL, "--timeline ''"},
        /* Every file name: an empty one is a usage error, not a run that
         * fails after its frames (--screenshot) or with exit status 1. */
        {"--csv", "", NULL, "--csv '': expected a file name"},
        {"--json", "", NULL, "--json '': expected a file name"},
        {"--screenshot", "", NULL, "--screenshot '': expected a file name"},
        {"--camera-file", "", NULL, "--camera-file '': expected a file name"},
        {"--script", "", NULL, "--script '': expected a file name"},
        {"--supersample", "5", NULL, "--supersample '5'"},
        {"--supersample", "0", NULL, "--supersample"},
        {"--screenshot-overlay", "yes", NULL, "--screenshot-overlay 'yes': expected on or off"},
        {"--screenshot", "a{bogus}.png", NULL, "unknown key {bogus}"},
        {"--compare", "sorted", "--timeline", "t.csv", NULL, "--timeline t.csv: times the headless"},
    };
    ds_log_set_quiet(0); /* the error line must reach stderr */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *args = cases[i];
        size_t n = 0;
        while (args[n])
            n++;
        const char *fragment = args[n + 1];
        ds_options opts;
        parse_result r = parse_capturing(args, &opts, 2);
        if (r.status != DS_ERR_INVALID_ARG)
            fail_msg("case %zu (%s ...): status %s", i, args[0], ds_status_str(r.status));
        assert_int_equal(r.exit_now, 0);
        /* One error line, then the usage. */
        if (strncmp(r.output, "depthsort: ", 11) || !strstr(r.output, fragment))
            fail_msg("case %zu: error line lacks '%s':\n%.200s", i, fragment, r.output);
        const char *newline = strchr(r.output, '\n');
        assert_non_null(newline);
        assert_non_null(strstr(newline, "usage: depthsort"));
        assert_null(strstr(newline + 1, "depthsort: ")); /* no second error line */
        assert_non_null(strstr(ds_last_error(), fragment));
    }
}

/* The help text's lines, split at '\n' (modifies text). Returns the count. */
static int split_lines(char *text, char **lines, int capacity)
{
    int count = 0;
    for (char *line = strtok(text, "\n"); line && count < capacity; line = strtok(NULL, "\n"))
        lines[count++] = line;
    return count;
}

/* 1 if `line` holds "<hotkey> <name>" as a whole entry ("1 cub", not
 * "1 cub2"). */
static int has_entry(const char *line, char hotkey, const char *name)
{
    char entry[64];
    snprintf(entry, sizeof entry, "%c %s", hotkey, name);
    for (const char *at = strstr(line, entry); at; at = strstr(at + 1, entry)) {
        char before = at == line ? ' ' : at[-1], after = at[strlen(entry)];
        if (before == ' ' && (after == ' ' || after == '\0'))
            return 1;
    }
    return 0;
}

/* 1 if `word` stands in `line` between spaces (or the line's ends). */
static int has_word(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *at = strstr(line, word); at; at = strstr(at + 1, word)) {
        char before = at == line ? ' ' : at[-1], after = at[n];
        if (before == ' ' && (after == ' ' || after == '\0'))
            return 1;
    }
    return 0;
}

/* The GL stages' entry: in --help's sort list with its summary and
 * hotkey, first; its hotkey a digit that no registry sort has, that
 * selects the GL stages and no sort, and that --help's and the viewer's
 * hotkey lists name once; no other key selects them. */
static void gl_entry_agrees_with_help_and_hotkeys(char **lines, int line_count)
{
    char expected[256];
    snprintf(expected, sizeof expected, "  %-10s %c  %s", DS_SORT_GL_NAME, DS_SORT_GL_HOTKEY,
             DS_SORT_GL_SUMMARY);
    int found = 0, at = -1;
    for (int i = 0; i < line_count; i++)
        if (strcmp(lines[i], expected) == 0) {
            found++;
            at = i;
        }
    if (found != 1)
        fail_msg("--help has %d lines '%s'", found, expected);
    /* The first entry of the sort list, as --sort all runs it. */
    assert_true(at > 0);
    assert_non_null(strstr(lines[at - 1], "Sorts (--sort NAME"));

    char hotkey = DS_SORT_GL_HOTKEY;
    assert_true(hotkey >= '0' && hotkey <= '9');
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_sort_algo_hotkey((ds_sort_algo)a) == hotkey)
            fail_msg("hotkey '%c' is the GL stages' and %s's", hotkey,
                     ds_sort_algo_name((ds_sort_algo)a));
    int key = ds_hotkey_glfw_key(hotkey);
    assert_int_equal(key, hotkey == '0' ? GLFW_KEY_0 : GLFW_KEY_1 + (hotkey - '1'));
    assert_true(ds_viewer_key_selects_gl(key));
    assert_int_equal(ds_viewer_sort_for_key(key), DS_SORT_ALGO_COUNT);
    for (int other = GLFW_KEY_SPACE; other <= GLFW_KEY_LAST; other++)
        if (other != key && ds_viewer_key_selects_gl(other))
            fail_msg("key %d selects the GL stages, not only '%c'", other, hotkey);
    assert_false(ds_viewer_key_selects_gl(GLFW_KEY_UNKNOWN));

    found = 0;
    for (int i = 0; i < line_count; i++)
        found += has_entry(lines[i], hotkey, DS_SORT_GL_NAME);
    if (found != 1)
        fail_msg("--help names hotkey '%c %s' %d times", hotkey, DS_SORT_GL_NAME, found);
    for (int width = 30; width <= 80; width += 25) {
        char help[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX];
        int count = ds_hotkey_help(10, width, help, DS_HOTKEY_LINES_MAX);
        found = 0;
        for (int i = 0; i < count; i++)
            found += has_entry(help[i], hotkey, DS_SORT_GL_NAME);
        if (found != 1)
            fail_msg("viewer help at width %d names '%c %s' %d times", width, hotkey,
                     DS_SORT_GL_NAME, found);
    }
}

/* Every sort of the registry that this build has is in --help with its
 * summary and hotkey, and the viewer's help lists its hotkey; one it lacks
 * (a CUDA sort in a build without CUDA) is in neither list but named on
 * --help's line of sorts not in the build. Every hotkey selects its sort
 * in the viewer (which says why it cannot run one the build lacks), no
 * two sorts share one, and no other key selects a sort. The GL stages'
 * entry likewise. */
static void registry_agrees_with_help_and_hotkeys(void **state)
{
    (void)state;
    static const char *const args[] = {"--help", NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 1);
    assert_int_equal(r.status, DS_OK);
    static char *lines[1024];
    int line_count = split_lines(r.output, lines, 1024);

    int seen_hotkey[128] = {0};
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        const char *name = ds_sort_algo_name((ds_sort_algo)a);
        const char *summary = ds_sort_algo_summary((ds_sort_algo)a);
        char hotkey = ds_sort_algo_hotkey((ds_sort_algo)a);
        assert_true(summary[0] != '\0');

        /* --help: a line "  NAME  HOTKEY  SUMMARY" in the sort list, or
         * for a sort the build lacks the name on the line saying so. */
        int built = ds_sort_algo_built((ds_sort_algo)a);
        assert_int_equal(built, DS_TEST_HAVE_CUDA || ds_sort_algo_on_host((ds_sort_algo)a));
        char expected[256];
        snprintf(expected, sizeof expected, "  %-10s %c  %s", name, hotkey ? hotkey : ' ', summary);
        int found = 0, named_missing = 0;
        for (int i = 0; i < line_count; i++) {
            found += strcmp(lines[i], expected) == 0;
            if (strstr(lines[i], "not in it:") && has_word(lines[i], name))
                named_missing++;
        }
        if (found != built || named_missing != !built)
            fail_msg("--help has %d lines '%s' and names %s %d times as not in the build "
                     "(built: %d)", found, expected, name, named_missing, built);

        if (!hotkey)
            continue;
        /* A digit, used once, that selects this sort. */
        assert_true((hotkey >= '0' && hotkey <= '9'));
        if (seen_hotkey[(int)hotkey]++)
            fail_msg("hotkey '%c' is used twice (again by %s)", hotkey, name);
        int key = ds_hotkey_glfw_key(hotkey);
        assert_int_equal(key, hotkey == '0' ? GLFW_KEY_0 : GLFW_KEY_1 + (hotkey - '1'));
        assert_int_equal(ds_viewer_sort_for_key(key), a);

        /* --help's hotkey list has "HOTKEY NAME" (a built sort's). */
        found = 0;
        for (int i = 0; i < line_count; i++)
            found += has_entry(lines[i], hotkey, name);
        if (found != built)
            fail_msg("--help names hotkey '%c %s' %d times", hotkey, name, found);

        /* The help at the viewer's narrow width, and narrower, too. */
        for (int width = 30; width <= 80; width += 25) {
            char help[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX];
            int count = ds_hotkey_help(10, width, help, DS_HOTKEY_LINES_MAX);
            assert_true(count > 1 && count < DS_HOTKEY_LINES_MAX);
            found = 0;
            for (int i = 0; i < count; i++)
                found += has_entry(help[i], hotkey, name);
            if (found != built)
                fail_msg("viewer help at width %d names '%c %s' %d times", width, hotkey, name, found);
        }
    }
    /* No key that is not a registry hotkey selects a sort: the digits, the
     * keypad digits and every other GLFW key. */
    for (int key = GLFW_KEY_SPACE; key <= GLFW_KEY_LAST; key++) {
        int is_hotkey = key >= GLFW_KEY_0 && key <= GLFW_KEY_9 && seen_hotkey['0' + key - GLFW_KEY_0];
        if (!is_hotkey && ds_viewer_sort_for_key(key) != DS_SORT_ALGO_COUNT)
            fail_msg("key %d selects %s but is no registry hotkey", key,
                     ds_sort_algo_name(ds_viewer_sort_for_key(key)));
    }
    assert_int_equal(ds_viewer_sort_for_key(GLFW_KEY_UNKNOWN), DS_SORT_ALGO_COUNT);
    assert_int_equal(ds_hotkey_glfw_key('a'), GLFW_KEY_UNKNOWN);
    assert_int_equal(ds_hotkey_glfw_key(0), GLFW_KEY_UNKNOWN);
    gl_entry_agrees_with_help_and_hotkeys(lines, line_count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_choices_and_forms),
        cmocka_unit_test(test_appearance_choices),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_compare_lists),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_screenshot_name),
        cmocka_unit_test(registry_agrees_with_help_and_hotkeys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
