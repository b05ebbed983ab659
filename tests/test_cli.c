/* test_cli.c — the command line: defaults, every option, --help/--version
 * output, and one error line plus usage for each bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"

#define MAX_ARGS 64

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
    assert_int_equal(actual->verify, expected->verify);
    assert_int_equal(actual->no_sort, expected->no_sort);
    assert_int_equal(actual->no_cull, expected->no_cull);
    assert_int_equal(actual->tiles, expected->tiles);
    assert_int_equal(actual->vsync, expected->vsync);
    assert_optional_string_equal(actual->script_path, expected->script_path);
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
        .grid_x = 1, .grid_y = 1, .frames = 100, .sort = "cub", .width = 1920, .height = 1080,
        .primitive = DS_PRIMITIVE_TRIANGLES, .triangle_key = DS_TRIANGLE_KEY_FARTHEST,
        .interop = DS_INTEROP_AUTO, .orbit_degrees = 360.0f, .alpha = 0.35f, .vsync = 1};
    assert_options_equal(&opts, &expected);
}

static void test_every_option(void **state)
{
    (void)state;
    static const char *const args[] = {
        "--scene", "shells:2M", "--grid", "4x3", "--info", "--headless", "--frames", "250", "--sort",
        "bitonic2", "--shuffle", "--size", "640x480", "--primitive", "points", "--key", "centroid",
        "--interop", "external", "--orbit", "-90.5", "--alpha", "1", "--csv", "t.csv", "--json", "t.json",
        "--screenshot", "s.png", "--verify", "--no-sort", "--no-vsync", "--script", "keys.txt",
        "--key-bits", "24", "--no-cull", "--tiles", "off", NULL};
    ds_options opts;
    parse_result r = parse_capturing(args, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_string_equal(r.output, "");
    /* Every field away from its default (model_path: --scene excludes one). */
    static const ds_options expected = {
        .model_path = NULL, .scene = "shells:2M", .grid_x = 4, .grid_y = 3, .info = 1, .headless = 1,
        .frames = 250, .sort = "bitonic2", .shuffle = 1, .width = 640, .height = 480,
        .primitive = DS_PRIMITIVE_POINTS, .primitive_given = 1, .triangle_key = DS_TRIANGLE_KEY_CENTROID,
        .interop = DS_INTEROP_EXTERNAL, .key_bits = 24, .orbit_degrees = -90.5f, .alpha = 1.0f,
        .csv_path = "t.csv", .json_path = "t.json", .screenshot_path = "s.png", .verify = 1,
        .no_sort = 1, .no_cull = 1, .tiles = DS_TILES_OFF, .vsync = 0, .script_path = "keys.txt"};
    assert_options_equal(&opts, &expected);
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

    static const char *const a3[] = {"--interop", "auto", "--key", "farthest", "--scene", "gyroid",
                                     "--tiles=off", NULL};
    r = parse_capturing(a3, &opts, 2);
    assert_int_equal(r.status, DS_OK);
    assert_int_equal(opts.interop, DS_INTEROP_AUTO);
    assert_int_equal(opts.tiles, DS_TILES_OFF);
    assert_int_equal(opts.triangle_key, DS_TRIANGLE_KEY_FARTHEST);
    assert_string_equal(opts.scene, "gyroid");
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
        "--frames N", "--sort NAME|all", "--shuffle", "--size WxH", "--primitive triangles|points",
        "--key farthest|mean|centroid", "--interop auto|map|external|none", "--orbit DEG", "--alpha A",
        "--csv FILE", "--json FILE", "--screenshot FILE.png", "--verify", "--no-sort", "--no-cull",
        "--tiles auto|on|off", "--no-vsync", "--script FILE", "--help", "--version",
        /* sorts and scenes */
        "cub", "radix", "hybrid", "quick", "bitonic0", "bitonic1", "bitonic2", "cpu", "gyroid", "shells",
        /* hotkeys */
        "1-8", "1 cub, 2 radix, 3 hybrid, 4 quick", "5 bitonic0, 6 bitonic1, 7 bitonic2, 8 cpu",
        "Tab / Shift+Tab", "\n  S ", "\n  P ", "\n  K ", "\n  U ", "\n  T ", "+ / -", "keypad", "\n  B ", "\n  C ",
        "screenshot", "\n  O ", "\n  H ", "\n  F ", "F11", "\n  V ", "Esc", "left-drag", "middle-drag",
        "wheel"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strstr(r.output, expected[i]))
            fail_msg("--help lacks '%s'", expected[i]);
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
        {"--frames", "0", NULL, "--frames"},
        {"--frames", "12abc", NULL, "--frames"},
        {"--frames", "99999999999999999999", NULL, "--frames"},
        {"--sort", "nosuch", NULL, "--sort 'nosuch'"},
        {"--primitive", "lines", NULL, "--primitive"},
        {"--key", "nearest", NULL, "--key"},
        {"--interop", "magic", NULL, "--interop"},
        {"--tiles", "maybe", NULL, "--tiles"},
        {"--alpha", "0", NULL, "--alpha"},
        {"--alpha", "1.5", NULL, "--alpha"},
        {"--alpha", "nan", NULL, "--alpha"},
        {"--orbit", "inf", NULL, "--orbit"},
        {"--orbit", "ten", NULL, "--orbit"},
        {"--scene", "nosuch", NULL, "known scenes: gyroid"},
        {"--scene", "gyroid:abc", NULL, "gyroid:abc"},
        {"--scene", "gyroid:5G", NULL, "exceed"},
        {"--bogus", NULL, "unknown option '--bogus'"},
        {"-x", NULL, "unknown option '-x'"},
        {"--frames", NULL, "needs a value"},
        {"--info=1", NULL, "--info=1"},
        {"a.ply", "b.ply", NULL, "more than one model"},
        {"a.ply", "--scene", "gyroid", NULL, "not both"},
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_choices_and_forms),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
