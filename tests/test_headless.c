/* SPDX-License-Identifier: MIT */
/* test_headless.c — the headless runner's output and its checks, run as the
 * program itself (DS_DEPTHSORT; EGL on Mesa llvmpipe without a GPU):
 *   - the CSV and the JSON carry every state field, each parsed here and
 *     compared with what the command line asked for; the printed state
 *     line and the `verify: N frames OK` line;
 *   - the hand-over is its own stage, next to interop, in the table, the
 *     CSV and the JSON (0 on the CPU path);
 *   - --sort gl runs the GL stages: every frame labelled gl, its order
 *     verified and its image the cpu sort's, byte for byte; with --shuffle
 *     it warns once and the frames run the sorter; --sort all runs gl
 *     first;
 *   - without --sort the run names the sort it chose and why, once: cpu
 *     on llvmpipe, gl (tiles and culling on, the same pixels) on a GPU's
 *     GL without CUDA (DS_TEST_GL_RENDERER);
 *   - --no-sort runs are labelled unsorted, and each ignored option warns
 *     once;
 *   - a bad --csv, --json or --screenshot path, a model too large for the
 *     index format and a malformed --camera-file fail at once, with one
 *     line naming the path, before any frame; a FIFO as --screenshot gets
 *     the whole PNG;
 *   - --script without a display is an error (exit status 2);
 *   - --timeline writes the last 8 frames' events, in order, each frame's
 *     host readings in the frame's order, GL's draw after its submission;
 *   - --up z stands a Z-long model upright in the image;
 *   - --camera round-trips: the JSON's start-camera line given back as
 *     --camera (or in --camera-file) renders the same PNG, byte for byte.
 * Each run is a few frames of a small model at a small size. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <stb_image.h>

#include "run_program.h"

/* A failure that checks its input first must come back well within this
 * (seconds), however large the model and however many the frames. */
#define FAIL_FAST_SECONDS 1.0

static char work_dir[256];

/* Runs depthsort in work_dir (run_program.h). */
static void run(const char *const *args, int no_display, run_result *dest)
{
    run_program(work_dir, args, no_display, dest);
}

/* run(), which must exit 0; else the test fails with `what` and stderr. */
static void run_ok(const char *const *args, const char *what, run_result *dest)
{
    run(args, 0, dest);
    if (dest->exit_status != 0)
        fail_msg("%s: exit %d:\n%s", what, dest->exit_status, dest->err);
}

static void work_path(const char *name, char *dest, size_t capacity)
{
    snprintf(dest, capacity, "%s/%s", work_dir, name);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

/* Occurrences of `needle` in `text`. */
static int count_of(const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* ---- CSV and JSON, parsed as far as the runner writes them ------------- */

#define CSV_FIELDS_MAX 64
#define CSV_FIELD_MAX 8192 /* the command field holds whole paths */

typedef struct csv_row {
    int count;
    char fields[CSV_FIELDS_MAX][CSV_FIELD_MAX];
} csv_row;

/* One CSV line (RFC 4180 quoting) at *cursor into dest; advances past its
 * line end. Returns 0 at the end of the text. */
static int csv_next_row(const char **cursor, csv_row *dest)
{
    const char *s = *cursor;
    if (!*s)
        return 0;
    dest->count = 0;
    for (;;) {
        assert_true(dest->count < CSV_FIELDS_MAX);
        char *field = dest->fields[dest->count++];
        size_t length = 0;
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"')
                    s++; /* a doubled quote */
                assert_true(length + 1 < CSV_FIELD_MAX);
                field[length++] = *s;
            }
            assert_int_equal(*s, '"');
            s++;
        } else {
            for (; *s && *s != ',' && *s != '\n'; s++) {
                assert_true(length + 1 < CSV_FIELD_MAX);
                field[length++] = *s;
            }
        }
        field[length] = '\0';
        if (*s == ',') {
            s++;
            continue;
        }
        assert_true(*s == '\n' || *s == '\0');
        if (*s)
            s++;
        break;
    }
    *cursor = s;
    return 1;
}

/* The index of column `name`, or a failure. */
static int column_of(const csv_row *header, const char *name)
{
    for (int i = 0; i < header->count; i++)
        if (!strcmp(header->fields[i], name))
            return i;
    fail_msg("the CSV has no column '%s'", name);
    return -1;
}

static const char *csv_value(const csv_row *header, const csv_row *row, const char *name)
{
    for (int i = 0; i < header->count; i++)
        if (!strcmp(header->fields[i], name))
            return row->fields[i];
    fail_msg("the CSV has no column '%s'", name);
    return NULL;
}

/* The JSON value of top-level `"name": ` as text: a string without its
 * quotes, or a number / true / false as written. */
static void json_value(const char *json, const char *name, char *dest, size_t capacity)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *at = strstr(json, key);
    if (!at)
        fail_msg("the JSON has no field '%s'", name);
    at += strlen(key);
    size_t length = 0;
    if (*at == '"') {
        for (at++; *at && *at != '"'; at++) {
            if (*at == '\\')
                at++;
            assert_true(length + 1 < capacity);
            dest[length++] = *at;
        }
    } else {
        for (; *at && *at != ',' && *at != '\n' && *at != '}'; at++) {
            assert_true(length + 1 < capacity);
            dest[length++] = *at;
        }
    }
    dest[length] = '\0';
}

/* A timestamp written as ISO 8601 UTC, within a day of now. */
static void assert_timestamp(const char *text)
{
    struct tm t = {0};
    char z = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%c", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour,
               &t.tm_min, &t.tm_sec, &z) != 7 ||
        z != 'Z' || strlen(text) != 20)
        fail_msg("timestamp '%s' is not ISO 8601 UTC", text);
    t.tm_year -= 1900;
    t.tm_mon -= 1;
    double age = difftime(time(NULL), timegm(&t));
    if (fabs(age) > 86400.0)
        fail_msg("timestamp '%s' is %.0f s from now", text, age);
}

/* ---- state fields ------------------------------------------------------ */

typedef struct expected_field {
    const char *name;
    const char *csv; /* the CSV's text; NULL: checked otherwise */
    const char *json;
} expected_field;

/* Every state field, in the CSV (each row) and in the JSON, holds what
 * the command line asked for, as the renderer resolved it. */
static void test_state_fields(void **state)
{
    (void)state;
    static const char *const args[] = {
        "--headless", "--scene", "planes:1000", "--frames", "3", "--size", "64x48", "--verify",
        "--key", "mean", "--key-bits", "24", "--alpha", "0.5", "--shuffle", "--color", "height",
        "--opacity", "view", "--tiles", "on", "--cull", "off", "--draw", "pull", "--up", "z",
        "--csv", "state.csv", "--json", "state.json", NULL};
    static run_result r;
    run_ok(args, "depthsort", &r);

    static const expected_field fields[] = {
        {"key", "mean", "mean"},         {"key_bits", "24", "24"},
        {"alpha", "0.5", "0.5"},         {"shuffle", "1", "true"},
        {"sorting", "1", "true"},        {"primitive", "triangles", "triangles"},
        {"draw", "pull", "pull"},        {"cull", "0", "false"},
        {"tiles", "1", "true"},          {"color", "height", "height"},
        {"opacity", "view", "view"},     {"msaa", "1", "1"},
        {"raster", "hw", "hw"},
        {"up", "+z", "+z"},              {"width", "64", "64"},
        {"height", "48", "48"},          {"model", "scene:planes:1000", "scene:planes:1000"},
        {"vertices", "588", "588"},      {"triangles", "864", "864"},
        {"elements", "864", "864"},      {"point_size", "0", "0"},
        /* checked below, against each other and their form */
        {"gpu", NULL, NULL},             {"driver", NULL, NULL},
        {"commit", NULL, NULL},          {"timestamp", NULL, NULL},
        {"interop", NULL, NULL},         {"camera", NULL, NULL},
    };
    const size_t field_count = sizeof fields / sizeof fields[0];

    char path[512];
    static char text[65536];
    work_path("state.csv", path, sizeof path);
    read_text(path, text, sizeof text);
    const char *cursor = text;
    static csv_row header, row;
    assert_true(csv_next_row(&cursor, &header));
    int rows = 0;
    static char first_row_sort[CSV_FIELD_MAX];
    while (csv_next_row(&cursor, &row)) {
        assert_int_equal(row.count, header.count);
        for (size_t f = 0; f < field_count; f++) {
            const char *value = csv_value(&header, &row, fields[f].name);
            if (fields[f].csv && strcmp(value, fields[f].csv))
                fail_msg("CSV %s = '%s', expected '%s'", fields[f].name, value, fields[f].csv);
            if (!fields[f].csv && !value[0])
                fail_msg("CSV %s is empty", fields[f].name);
        }
        assert_int_equal(atoi(csv_value(&header, &row, "frame")), rows);
        assert_true(atoi(csv_value(&header, &row, "drawn")) > 0);
        assert_timestamp(csv_value(&header, &row, "timestamp"));
        assert_true(!strncmp(csv_value(&header, &row, "camera"), "eye=", 4));
        snprintf(first_row_sort, sizeof first_row_sort, "%s", csv_value(&header, &row, "sort"));
        /* The hand-over: GPU time, none where the host ran the stages,
         * and a stage that did not run is an empty cell, not 0. */
        double handover = atof(csv_value(&header, &row, "handover_ms"));
        assert_true(handover >= 0.0);
        if (!strcmp(csv_value(&header, &row, "interop"), "none"))
            assert_string_equal(csv_value(&header, &row, "handover_ms"), "");
        else /* triangles on the GPU: no per-vertex distances */
            assert_string_equal(csv_value(&header, &row, "distances_ms"), "");
        rows++;
    }
    assert_int_equal(rows, 3);
    assert_true(column_of(&header, "interop_ms") + 1 == column_of(&header, "handover_ms"));
    assert_true(column_of(&header, "handover_ms") + 1 == column_of(&header, "draw_ms"));
    /* The sort actually run: cpu on the CPU path, never "unsorted". */
    const char *interop = csv_value(&header, &row, "interop");
    if (!strcmp(interop, "none"))
        assert_string_equal(first_row_sort, "cpu");
    assert_string_not_equal(first_row_sort, "unsorted");

    static char json[65536];
    work_path("state.json", path, sizeof path);
    read_text(path, json, sizeof json);
    static char value[CSV_FIELD_MAX];
    for (size_t f = 0; f < field_count; f++) {
        json_value(json, fields[f].name, value, sizeof value);
        if (fields[f].json && strcmp(value, fields[f].json))
            fail_msg("JSON %s = '%s', expected '%s'", fields[f].name, value, fields[f].json);
        /* The same run: the CSV's and the JSON's values agree. */
        if (!fields[f].json && strcmp(value, csv_value(&header, &row, fields[f].name)))
            fail_msg("JSON %s = '%s', CSV '%s'", fields[f].name, value,
                     csv_value(&header, &row, fields[f].name));
    }
    json_value(json, "sort", value, sizeof value); /* the first run's */
    assert_string_equal(value, first_row_sort);
    json_value(json, "frames", value, sizeof value);
    assert_string_equal(value, "3");
    /* Every stage, in the table's order: its statistics, or null where
     * it did not run (the triangles' distances on the GPU, the hand-over
     * on the CPU path). */
    const char *interop_ms = strstr(json, "\"interop_ms\": ");
    const char *handover_ms = strstr(json, "\"handover_ms\": ");
    const char *draw_ms = strstr(json, "\"draw_ms\": {\"median\": ");
    assert_true(interop_ms && handover_ms && draw_ms);
    assert_true(interop_ms < handover_ms && handover_ms < draw_ms);
    assert_non_null(strstr(json, !strcmp(interop, "none") ? "\"handover_ms\": null"
                                                           : "\"distances_ms\": null"));
    assert_non_null(strstr(draw_ms, "\"mean\": "));
    assert_non_null(strstr(draw_ms, "\"sd\": "));
    assert_non_null(strstr(json, "\"gpu_fps\": "));
    assert_non_null(strstr(json, "\"total_ms\": "));
    /* Where it ran: the host and the command line. */
    json_value(json, "cpu", value, sizeof value);
    assert_non_null(strstr(value, "threads"));
    json_value(json, "os", value, sizeof value);
    assert_true(value[0] != '\0');
    json_value(json, "command", value, sizeof value);
    assert_non_null(strstr(value, " --headless --scene planes:1000 --frames 3 "));
    json_value(json, "timing", value, sizeof value);
    assert_non_null(strstr(value, "handover: GPU time (GL timestamps)"));
    assert_non_null(strstr(r.out, "\n  handover: GPU time (GL timestamps)"));
    assert_non_null(strstr(r.out, "\n  handover   "));
    /* The printed state line and the verify line. */
    char state_line[512];
    snprintf(state_line, sizeof state_line,
             "  state: sort %s, key mean, key bits 24, alpha 0.5, shuffle on, primitive triangles, "
             "draw pull, cull off, tiles on, color height, opacity view, msaa 1, raster hw, up +z\n",
             first_row_sort);
    if (!strstr(r.out, state_line))
        fail_msg("stdout lacks '%s':\n%s", state_line, r.out);
    if (!strstr(r.out, "\nverify: 3 frames OK\n"))
        fail_msg("stdout lacks the verify line:\n%s", r.out);
    json_value(json, "driver", value, sizeof value);
    assert_non_null(strstr(r.out, value));
    /* Nothing was ignored: no warning but the CPU path's own. */
    assert_int_equal(count_of(r.err, "--"), 0);
}

/* --no-sort: labelled unsorted everywhere, one run for --sort all, no
 * verify line; each ignored option warns exactly once. A point cloud: the
 * triangle-only options warn once each. */
static void test_unsorted_and_ignored(void **state)
{
    (void)state;
    static const char *const args[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "48x32", "--no-sort",
        "--shuffle", "--verify", "--sort", "all", "--key", "centroid", "--key-bits", "16",
        "--overlay", "off", "--csv", "unsorted.csv", "--json", "unsorted.json", NULL};
    static run_result r;
    run_ok(args, "depthsort", &r);
    char path[512];
    static char text[65536];
    work_path("unsorted.csv", path, sizeof path);
    read_text(path, text, sizeof text);
    const char *cursor = text;
    static csv_row header, row;
    assert_true(csv_next_row(&cursor, &header));
    int rows = 0;
    while (csv_next_row(&cursor, &row)) {
        assert_string_equal(csv_value(&header, &row, "sort"), "unsorted");
        assert_string_equal(csv_value(&header, &row, "sorting"), "0");
        assert_string_equal(csv_value(&header, &row, "shuffle"), "0");
        assert_string_equal(csv_value(&header, &row, "tiles"), "0");
        assert_string_equal(csv_value(&header, &row, "cull"), "0");
        rows++;
    }
    assert_int_equal(rows, 2); /* one run, not one per sort */
    work_path("unsorted.json", path, sizeof path);
    read_text(path, text, sizeof text);
    char value[64];
    json_value(text, "sorting", value, sizeof value);
    assert_string_equal(value, "false");
    json_value(text, "sort", value, sizeof value);
    assert_string_equal(value, "unsorted");
    assert_int_equal(count_of(text, "\"sort\": "), 1);
    assert_non_null(strstr(r.out, "\nunsorted: 2 frames"));
    assert_non_null(strstr(r.out, "drawn unsorted"));
    assert_null(strstr(r.out, "sort cpu"));
    assert_null(strstr(r.out, "verify:"));
    static const char *const warned[] = {"warning: --shuffle", "warning: --verify",
                                         "warning: --sort all", "warning: --key centroid",
                                         "warning: --key-bits 16", "warning: --overlay"};
    for (size_t i = 0; i < sizeof warned / sizeof warned[0]; i++)
        if (count_of(r.err, warned[i]) != 1)
            fail_msg("'%s' warned %d times:\n%s", warned[i], count_of(r.err, warned[i]), r.err);

    /* A point cloud (a PLY without faces) asked for triangles, a key and a
     * draw form: drawn as points, one warning each. */
    work_path("cloud.ply", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 64\nproperty float x\nproperty float y\n"
                  "property float z\nend_header\n");
    for (int i = 0; i < 64; i++)
        fprintf(file, "%d %d %d\n", i % 4, (i / 4) % 4, i / 16);
    fclose(file);
    static const char *const cloud_args[] = {
        "--headless", "cloud.ply", "--frames", "2", "--size", "48x32", "--primitive", "triangles",
        "--key", "mean", "--draw", "indexed", "--json", "cloud.json", "--screenshot",
        "shot-{model}.png", NULL};
    run_ok(cloud_args, "depthsort", &r);
    /* {model}: the file's name without its extension. */
    if (!strstr(r.out, "\nscreenshot: shot-cloud.png\n"))
        fail_msg("--screenshot shot-{model}.png of cloud.ply: not shot-cloud.png:\n%s", r.out);
    work_path("shot-cloud.png", path, sizeof path);
    struct stat shot;
    assert_int_equal(stat(path, &shot), 0);
    static const char *const cloud_warned[] = {"warning: --primitive triangles",
                                               "warning: --key mean", "warning: --draw indexed"};
    for (size_t i = 0; i < sizeof cloud_warned / sizeof cloud_warned[0]; i++)
        if (count_of(r.err, cloud_warned[i]) != 1)
            fail_msg("'%s' warned %d times:\n%s", cloud_warned[i], count_of(r.err, cloud_warned[i]),
                     r.err);
    work_path("cloud.json", path, sizeof path);
    read_text(path, text, sizeof text);
    json_value(text, "primitive", value, sizeof value);
    assert_string_equal(value, "points");
    json_value(text, "key", value, sizeof value);
    assert_string_equal(value, "vertex");
    json_value(text, "point_size", value, sizeof value);
    assert_true(atof(value) > 0.0);
}

/* A run that must fail before any frame: non-zero exit within
 * FAIL_FAST_SECONDS, one line on stderr holding `fragment`, nothing on
 * stdout (the table comes after the frames). */
static void assert_fails_fast(const char *const *args, int no_display, int exit_status,
                              const char *fragment)
{
    static run_result r;
    run(args, no_display, &r);
    if (r.exit_status != exit_status)
        fail_msg("%s ...: exit %d, expected %d:\n%s", args[1], r.exit_status, exit_status, r.err);
    if (r.seconds > FAIL_FAST_SECONDS)
        fail_msg("%s ...: failed after %.2f s", args[1], r.seconds);
    if (count_lines(r.err) != 1 || strncmp(r.err, "depthsort: ", 11) || !strstr(r.err, fragment))
        fail_msg("%s ...: stderr is not one line naming '%s':\n%s", args[1], fragment, r.err);
    assert_string_equal(r.out, "");
}

/* A bad output path, a model too large for the index format or the draw
 * count, a malformed camera file: refused before anything is built or
 * drawn. The scene and frame count would take minutes if they ran. */
static void test_fails_before_the_first_frame(void **state)
{
    (void)state;
    static const char *const csv[] = {"--headless", "--scene", "gyroid:2M", "--frames", "100000",
                                      "--csv", "/nonexistent/x.csv", NULL};
    assert_fails_fast(csv, 0, 1, "/nonexistent/x.csv: cannot open for writing");
    static const char *const json[] = {"--headless", "--scene", "gyroid:2M", "--frames", "100000",
                                       "--json", "/nonexistent/y.json", NULL};
    assert_fails_fast(json, 0, 1, "/nonexistent/y.json");
    static const char *const png[] = {"--headless", "--scene", "gyroid:2M", "--frames", "100000",
                                      "--screenshot", "/nonexistent/z.png", NULL};
    assert_fails_fast(png, 0, 1, "/nonexistent/z.png");
    static const char *const timeline[] = {"--headless", "--scene", "gyroid:2M", "--frames",
                                           "100000", "--timeline", "/nonexistent/t.csv", NULL};
    assert_fails_fast(timeline, 0, 1, "/nonexistent/t.csv: cannot open for writing");
    char path[512];
    work_path("plain.txt", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fclose(file);
    static const char *const png_in_file[] = {"--headless", "--scene", "gyroid:2M", "--frames",
                                              "100000", "--screenshot", "plain.txt/z.png", NULL};
    assert_fails_fast(png_in_file, 0, 1, "plain.txt/z.png");
    /* A folder that exists but takes no new files (for root too). */
    static const char *const png_in_proc[] = {"--headless", "--scene", "gyroid:2M", "--frames",
                                              "100000", "--screenshot", "/proc/z.png", NULL};
    assert_fails_fast(png_in_proc, 0, 1, "/proc/z.png: cannot write the screenshot");

    /* 16.8M copies of 588 vertices: beyond uint32 indices. A --grid that
     * asks too much is a usage error: exit 2, as for any bad option. */
    static const char *const grid[] = {"--headless", "--scene", "planes:1000", "--grid",
                                       "4096x4096", NULL};
    assert_fails_fast(grid, 0, 2, "--grid 4096x4096");
    static const char *const grid_info[] = {"--info", "--scene", "planes:1000", "--grid",
                                            "4096x4096", NULL};
    assert_fails_fast(grid_info, 0, 2, "--grid 4096x4096");
    /* 1.73G triangles: within uint32 vertices, beyond what the renderer
     * draws; the grid would need about 30 GB of host memory. */
    static const char *const draw_count[] = {"--headless", "--scene", "planes:1000", "--grid",
                                             "2000x1000", NULL};
    assert_fails_fast(draw_count, 0, 2, "triangles");

    work_path("bad_camera.txt", path, sizeof path);
    file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "eye=0,0,1 target=0,0,1\n");
    fclose(file);
    static const char *const camera[] = {"--headless", "--scene", "planes:1000", "--frames",
                                         "100000", "--camera-file", "bad_camera.txt", NULL};
    static run_result r;
    run(camera, 0, &r);
    assert_int_equal(r.exit_status, 1);
    assert_int_equal(count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "bad_camera.txt: eye and target are the same point; refused: "
                                  "a headless run measures from the view the file names"));
    assert_string_equal(r.out, "");
    /* --compare measures too: the same refusal. */
    static const char *const compare_camera[] = {
        "--headless", "--scene", "planes:1000", "--frames", "100000", "--compare", "sorted",
        "--camera-file", "bad_camera.txt", NULL};
    run(compare_camera, 0, &r);
    assert_int_equal(r.exit_status, 1);
    assert_int_equal(count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "bad_camera.txt: eye and target are the same point; refused: "));
}

/* --script without a display: an error, not a silent headless run. */
static void test_script_needs_display(void **state)
{
    (void)state;
    static const char *const args[] = {"--scene", "planes:1000", "--script", "keys.txt", NULL};
    assert_fails_fast(args, 1, 2, "--script keys.txt: needs a display");
}

/* ---- timeline ---------------------------------------------------------- */

#define TIMELINE_FRAMES 8
#define TIMELINE_ROWS_MAX 512

/* The host readings of one frame on the CPU path, in the frame's order. */
static const char *const host_sequence[] = {
    "frame_begin", "collect_begin", "collect_end", "stages_begin",
    "stages_end", "draw_submit_begin", "draw_submit_end", "frame_end"};
#define HOST_SEQUENCE (sizeof host_sequence / sizeof host_sequence[0])

typedef struct timeline_row {
    long frame;
    char source[8], event[32];
    double t_ms;
} timeline_row;

/* --timeline on the CPU path (no CUDA rows): two comment lines, the
 * column names, then the last 8 timed frames' events sorted by time from
 * 0; every frame has its host readings in order and its GL draw, which
 * begins before it ends and ends after the host submitted it (GL's clock
 * put on the host's: the check fails if the alignment is wrong). */
static void test_timeline(void **state)
{
    (void)state;
    static const char *const args[] = {"--headless", "--scene", "planes:1000", "--frames", "12",
                                       "--size", "64x48", "--timeline", "timeline.csv", NULL};
    static run_result r;
    run_ok(args, "depthsort", &r);
    char path[512];
    static char text[65536];
    work_path("timeline.csv", path, sizeof path);
    read_text(path, text, sizeof text);
    char *line = strtok(text, "\n");
    for (int i = 0; i < 2; i++, line = strtok(NULL, "\n")) {
        assert_non_null(line);
        if (line[0] != '#')
            fail_msg("timeline: header line %d is not a comment: %s", i + 1, line);
    }
    assert_non_null(line);
    assert_string_equal(line, "frame,source,event,t_ms");
    static timeline_row rows[TIMELINE_ROWS_MAX];
    int count = 0;
    while ((line = strtok(NULL, "\n"))) {
        assert_true(count < TIMELINE_ROWS_MAX);
        timeline_row *row = &rows[count++];
        if (sscanf(line, "%ld,%7[^,],%31[^,],%lf", &row->frame, row->source, row->event,
                   &row->t_ms) != 4)
            fail_msg("timeline: malformed row %s", line);
        if (strcmp(row->source, "host") && strcmp(row->source, "gl"))
            fail_msg("timeline: source '%s' on the CPU path", row->source);
    }
    assert_int_equal(count, TIMELINE_FRAMES * (int)(HOST_SEQUENCE + 2));
    assert_true(rows[0].t_ms == 0.0);
    long first = rows[0].frame;
    for (int i = 1; i < count; i++)
        if (rows[i].t_ms < rows[i - 1].t_ms)
            fail_msg("timeline: row %d (%s) at %.4f ms before row %d's %.4f ms", i + 1,
                     rows[i].event, rows[i].t_ms, i, rows[i - 1].t_ms);
    for (long frame = first; frame < first + TIMELINE_FRAMES; frame++) {
        size_t next = 0;
        double submitted = -1.0, draw_begin = -1.0, draw_end = -1.0;
        for (int i = 0; i < count; i++) {
            if (rows[i].frame < first || rows[i].frame >= first + TIMELINE_FRAMES)
                fail_msg("timeline: frame %ld outside the last %d", rows[i].frame, TIMELINE_FRAMES);
            if (rows[i].frame != frame)
                continue;
            if (!strcmp(rows[i].source, "gl")) {
                double *at = !strcmp(rows[i].event, "draw_begin") ? &draw_begin
                             : !strcmp(rows[i].event, "draw_end") ? &draw_end : NULL;
                if (!at || *at >= 0.0)
                    fail_msg("timeline: frame %ld: unexpected gl %s", frame, rows[i].event);
                *at = rows[i].t_ms;
                continue;
            }
            if (next >= HOST_SEQUENCE || strcmp(rows[i].event, host_sequence[next]))
                fail_msg("timeline: frame %ld: host %s where %s was due", frame, rows[i].event,
                         next < HOST_SEQUENCE ? host_sequence[next] : "nothing");
            if (!strcmp(rows[i].event, "draw_submit_begin"))
                submitted = rows[i].t_ms;
            next++;
        }
        assert_int_equal(next, HOST_SEQUENCE);
        if (!(draw_begin >= 0.0 && draw_end >= draw_begin))
            fail_msg("timeline: frame %ld: GL draw %.4f .. %.4f ms", frame, draw_begin, draw_end);
        /* The header's alignment error is far below this margin. */
        if (draw_end < submitted - 0.05)
            fail_msg("timeline: frame %ld: GL's draw ends at %.4f ms, before its submission "
                     "at %.4f ms", frame, draw_end, submitted);
    }
}

/* ---- images ------------------------------------------------------------ */

/* Bounding box of the pixels that differ from the corner (background). */
static void covered_box(const char *png, int *width, int *height)
{
    char path[512];
    work_path(png, path, sizeof path);
    int w, h, channels;
    uint8_t *rgba = stbi_load(path, &w, &h, &channels, 4);
    assert_non_null(rgba);
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgba + 4 * ((size_t)y * (size_t)w + (size_t)x);
            int diff = 0;
            for (int c = 0; c < 3; c++)
                diff += abs((int)p[c] - (int)rgba[c]);
            if (diff > 24) {
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
        }
    stbi_image_free(rgba);
    assert_true(x1 >= 0);
    *width = x1 - x0 + 1;
    *height = y1 - y0 + 1;
}

/* --screenshot's options: a name template expanded; --supersample keeps
 * the asked size; --screenshot-alpha gives a transparent background
 * (alpha 0 in the corner, coverage over the model) whose picture,
 * composited over orange, is the frame drawn over orange; the model,
 * technique and size in tEXt chunks. */
static void test_screenshot_options(void **state)
{
    (void)state;
    static const char *const alpha_run[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48",
        "--supersample", "2", "--screenshot-alpha", "--screenshot", "shot-{model}-{technique}.png",
        NULL};
    static const char *const orange_run[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48",
        "--supersample", "2", "--background", "1,0.55,0", "--screenshot", "orange.png", NULL};
    static run_result r;
    run_ok(alpha_run, "--screenshot-alpha", &r);
    assert_non_null(strstr(r.out, "screenshot: shot-scene_planes_1000-sorted.png\n"));
    run_ok(orange_run, "--background orange", &r);
    char path[512];
    int w, h, channels, ow, oh;
    work_path("shot-scene_planes_1000-sorted.png", path, sizeof path);
    uint8_t *shot = stbi_load(path, &w, &h, &channels, 4);
    assert_non_null(shot);
    assert_int_equal(w, 64);
    assert_int_equal(h, 48);
    assert_int_equal(channels, 4);
    work_path("orange.png", path, sizeof path);
    uint8_t *orange = stbi_load(path, &ow, &oh, &channels, 4);
    assert_non_null(orange);
    assert_int_equal(ow, 64);
    assert_int_equal(oh, 48);
    assert_int_equal(shot[3], 0); /* the corner is background */
    static const double backing[3] = {255.0, 140.25, 0.0};
    int covered = 0;
    for (int i = 0; i < w * h; i++) {
        const uint8_t *p = shot + 4 * i, *q = orange + 4 * i;
        covered += p[3] > 0;
        assert_int_equal(q[3], 255);
        for (int c = 0; c < 3; c++) {
            double over = p[c] * (p[3] / 255.0) + backing[c] * (1.0 - p[3] / 255.0);
            if (fabs(over - q[c]) > 3.0)
                fail_msg("pixel %d channel %d: %.1f composited, %d drawn over orange", i, c,
                         over, q[c]);
        }
    }
    assert_true(covered > w * h / 10 && covered < w * h);
    stbi_image_free(shot);
    stbi_image_free(orange);

    char text[16384];
    work_path("shot-scene_planes_1000-sorted.png", path, sizeof path);
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    size_t length = fread(text, 1, sizeof text, file);
    fclose(file);
    static const char *const chunks[] = {"tEXtModel\0scene:planes:1000", "tEXtTechnique\0sorted",
                                         "tEXtSize\0" "64x48, supersample 2, transparent",
                                         "tEXtCommit\0"};
    static const size_t chunk_lengths[] = {27, 20, 42, 11};
    for (int k = 0; k < 4; k++) {
        int found = 0;
        for (size_t at = 0; !found && at + chunk_lengths[k] <= length; at++)
            found = memcmp(text + at, chunks[k], chunk_lengths[k]) == 0;
        if (!found)
            fail_msg("no text chunk %s", chunks[k] + 4);
    }
}

/* Coordinates whose extent or centre the camera's float arithmetic cannot
 * hold (the projection's 2 near far overflowed from about 4e18, the radius
 * was infinite from about 7e37, tiny models underflowed): drawn recentred
 * and rescaled with one warning line, a non-blank image that --verify
 * passes (every key finite), the camera line finite. */
static void test_extreme_coordinates(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double scale, shift;
    } cases[] = {
        {"huge.obj", 1e30, 0.0},   {"huge_far.obj", 1e30, -1e30}, {"edge.obj", 1e38, -1.5e38},
        {"tiny.obj", 1e-30, 0.0},  {"offset.obj", 1e15, 1e20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        work_path(cases[i].name, path, sizeof path);
        FILE *file = fopen(path, "w");
        assert_non_null(file);
        /* Two overlapping quads, a little apart in depth. */
        static const double quad[8][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0},
                                          {-0.5, -0.5, 0.3}, {1.5, -0.5, 0.3}, {1.5, 1.5, 0.3},
                                          {-0.5, 1.5, 0.3}};
        for (int v = 0; v < 8; v++)
            fprintf(file, "v %.9g %.9g %.9g\n", quad[v][0] * cases[i].scale + cases[i].shift,
                    quad[v][1] * cases[i].scale + cases[i].shift,
                    quad[v][2] * cases[i].scale + cases[i].shift);
        fprintf(file, "f 1 2 3 4\nf 5 6 7 8\n");
        fclose(file);
        static run_result r;
        const char *args[] = {"--headless", cases[i].name, "--frames", "2", "--size", "64x48",
                              "--verify", "--screenshot", "extreme.png", NULL};
        run(args, 0, &r);
        if (r.exit_status != 0)
            fail_msg("%s: exit %d:\n%s", cases[i].name, r.exit_status, r.err);
        if (count_of(r.err, "beyond what the camera's float arithmetic holds") != 1)
            fail_msg("%s: no single warning:\n%s", cases[i].name, r.err);
        assert_non_null(strstr(r.out, "verify: 2 frames OK"));
        if (strstr(r.out, "nan") || strstr(r.out, "inf"))
            fail_msg("%s: a non-finite number in the output:\n%s", cases[i].name, r.out);
        int width = 0, height = 0;
        covered_box("extreme.png", &width, &height);
        printf("%s: covers %dx%d of 64x48\n", cases[i].name, width, height);
        assert_true(width >= 16 && height >= 12);
    }
    /* In range: no warning, and --info reports the file's own bounds. */
    static run_result r;
    static const char *const info[] = {"--info", "huge.obj", NULL};
    run(info, 0, &r);
    assert_int_equal(r.exit_status, 0);
    assert_non_null(strstr(r.out, "bounds=-1.00000002e+30,-1.00000002e+30,0,1.49999995e+30"));
    assert_string_equal(r.err, "");
}

/* Outputs are written beside their targets and renamed when complete: a
 * run that fails after opening them (here the model is malformed) leaves
 * existing files as they were, not empty; a run that succeeds replaces
 * them; no temporary file stays behind either way. */
static void test_outputs_kept_on_failure(void **state)
{
    (void)state;
    static const char *const names[] = {"kept.csv", "kept.json", "kept_timeline.csv",
                                        "kept.png"};
    char path[512], text[256];
    for (size_t i = 0; i < 4; i++) {
        work_path(names[i], path, sizeof path);
        FILE *file = fopen(path, "w");
        assert_non_null(file);
        fprintf(file, "earlier results %zu\n", i);
        fclose(file);
    }
    work_path("broken.obj", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
    fclose(file);
    static const char *const failing[] = {"--headless", "broken.obj", "--frames", "2", "--size",
                                          "48x32", "--csv", "kept.csv", "--json", "kept.json",
                                          "--timeline", "kept_timeline.csv", "--screenshot",
                                          "kept.png", NULL};
    assert_fails_fast(failing, 0, 1, "broken.obj: line 3: face refers to vertex 3");
    for (size_t i = 0; i < 4; i++) {
        char expected[64];
        snprintf(expected, sizeof expected, "earlier results %zu\n", i);
        work_path(names[i], path, sizeof path);
        read_text(path, text, sizeof text);
        if (strcmp(text, expected) != 0)
            fail_msg("%s: \"%s\" after a failed run", names[i], text);
    }
    static const char *const working[] = {"--headless", "--scene", "planes:1000", "--frames", "2",
                                          "--size", "48x32", "--csv", "kept.csv", "--json",
                                          "kept.json", "--screenshot", "kept.png", NULL};
    static run_result r;
    run_ok(working, "depthsort", &r);
    work_path("kept.csv", path, sizeof path);
    read_text(path, text, sizeof text);
    assert_null(strstr(text, "earlier results"));
    assert_true(strlen(text) > 100);
    int width = 0, height = 0;
    covered_box("kept.png", &width, &height);
    DIR *dir = opendir(work_dir);
    assert_non_null(dir);
    for (struct dirent *entry; (entry = readdir(dir));)
        if (strstr(entry->d_name, ".tmp"))
            fail_msg("a temporary file stayed: %s", entry->d_name);
    closedir(dir);
}

/* --camera-file or a model naming a FIFO: refused at once (opening it for
 * reading would wait for a writer), one line naming it; --camera-file
 * naming a procfs file likewise. */
static void test_camera_file_fifo(void **state)
{
    (void)state;
    char path[512];
    work_path("camera.fifo", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    static const char *const args[] = {"--headless", "--scene", "planes:1000", "--frames", "100000",
                                       "--camera-file", "camera.fifo", NULL};
    assert_fails_fast(args, 0, 1, "camera.fifo: the camera file is a FIFO");
    /* The same FIFO as the model: --info (which blocked forever) and a
     * headless run refuse it at once. */
    static const char *const info[] = {"--info", "camera.fifo", NULL};
    assert_fails_fast(info, 0, 1, "camera.fifo: is a FIFO (named pipe), not a model file");
    static const char *const headless[] = {"--headless", "camera.fifo", NULL};
    assert_fails_fast(headless, 0, 1, "camera.fifo: is a FIFO (named pipe), not a model file");
    unlink(path);
    /* A folder, binary junk, a camera line too long: one line each. */
    static const char *const folder[] = {"--headless", "--scene", "planes:1000", "--frames",
                                         "100000", "--camera-file", ".", NULL};
    assert_fails_fast(folder, 0, 1, ".: the camera file is a directory");
    /* procfs: refused as what it is, not read as a malformed line. */
    static const char *const procfs[] = {"--headless", "--scene", "planes:1000", "--frames",
                                         "100000", "--camera-file", "/proc/self/status", NULL};
    assert_fails_fast(procfs, 0, 1, "/proc/self/status: the camera file is a procfs file");
    work_path("junk.camera", path, sizeof path);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919) % 256, file);
    fclose(file);
    static const char *const junk[] = {"--headless", "--scene", "planes:1000", "--frames",
                                       "100000", "--camera-file", "junk.camera", NULL};
    assert_fails_fast(junk, 0, 1, "junk.camera: ");
}

/* The FIFO's path for on_fifo_alarm. */
static char fifo_path[512];

/* A run that blocks on the FIFO (no reader left) must not hang the test:
 * a reader unblocks it (its write then fails) and the test fails. */
static void on_fifo_alarm(int signal_number)
{
    (void)signal_number;
    static const char message[] = "test_headless: depthsort blocked writing to a FIFO\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    open(fifo_path, O_RDONLY | O_NONBLOCK);
    _exit(1);
}

/* --screenshot naming a FIFO that a reader reads to its end (cat fifo >
 * shot.png): the reader gets the whole PNG. The up-front check of the
 * path once opened and closed the FIFO, which ended the reader's input
 * (an empty file), and the image's own write then waited for a reader
 * forever. */
static void test_screenshot_to_fifo(void **state)
{
    (void)state;
    work_path("shot.fifo", fifo_path, sizeof fifo_path);
    assert_int_equal(mkfifo(fifo_path, 0600), 0);
    char received[512];
    work_path("received.png", received, sizeof received);
    fflush(stdout);
    pid_t reader = fork();
    assert_true(reader >= 0);
    if (reader == 0) { /* cat shot.fifo > received.png */
        int in = open(fifo_path, O_RDONLY);
        int out = open(received, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buffer[4096];
        ssize_t got;
        while (in >= 0 && out >= 0 && (got = read(in, buffer, sizeof buffer)) > 0)
            if (write(out, buffer, (size_t)got) != got)
                _exit(1);
        _exit(in >= 0 && out >= 0 ? 0 : 1);
    }
    signal(SIGALRM, on_fifo_alarm);
    alarm(120);
    static const char *const args[] = {"--headless", "--scene", "planes:1000", "--frames", "2",
                                       "--size", "48x32", "--screenshot", "shot.fifo", NULL};
    static run_result r;
    run(args, 0, &r);
    alarm(0);
    int reader_status = 0;
    assert_int_equal(waitpid(reader, &reader_status, 0), reader);
    if (r.exit_status != 0)
        fail_msg("exit %d:\n%s", r.exit_status, r.err);
    assert_true(WIFEXITED(reader_status) && WEXITSTATUS(reader_status) == 0);
    int width = 0, height = 0;
    covered_box("received.png", &width, &height);
    unlink(fifo_path);
}

/* A --grid too large for the model is refused from the header's counts,
 * before the body is read (the body here is broken: its error would come
 * first otherwise), with the usage status 2. */
static void test_grid_checked_before_body(void **state)
{
    (void)state;
    char path[512];
    work_path("grid_body.ply", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 1000\nproperty float x\n"
                  "property float y\nproperty float z\nend_header\n");
    for (int v = 0; v < 1000; v++)
        fprintf(file, "%d 0 x\n", v);
    fclose(file);
    static const char *const args[] = {"--headless", "grid_body.ply", "--grid", "4096x4096", NULL};
    assert_fails_fast(args, 0, 2, "grid_body.ply: --grid 4096x4096 makes 16777216000 vertices");
    static const char *const one[] = {"--headless", "grid_body.ply", NULL};
    assert_fails_fast(one, 0, 1, "is not a valid float value");
}

/* The GPU path's memory check, from the header before the body is read:
 * DS_TEST_GPU_FREE_BYTES stands in for the device's free memory (no GPU
 * here). The body is broken, so a refusal that came after parsing would
 * name the bad value instead. */
static void test_gpu_memory_checked_before_body(void **state)
{
    (void)state;
    char path[512];
    work_path("gpu_body.ply", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 1000\nproperty float x\n"
                  "property float y\nproperty float z\nelement face 2000\n"
                  "property list uchar int vertex_indices\nend_header\n");
    for (int v = 0; v < 1000; v++)
        fprintf(file, "%d 0 x\n", v);
    for (int f = 0; f < 2000; f++)
        fprintf(file, "3 0 1 2\n");
    fclose(file);
    static const char *const one[] = {"--headless", "gpu_body.ply", NULL};
    static const char *const grid[] = {"--headless", "gpu_body.ply", "--grid", "20x20", NULL};
    static const char *const no_interop[] = {"--headless", "gpu_body.ply", "--interop", "none",
                                             NULL};
    /* 64 KiB: not even one copy's buffers. */
    setenv("DS_TEST_GPU_FREE_BYTES", "65536", 1);
    assert_fails_fast(one, 0, 1,
                      "gpu_body.ply: 1000 vertices and 2000 triangles need about ");
    assert_fails_fast(one, 0, 1, " of GPU memory with the ");
    assert_fails_fast(one, 0, 1, "; the test GPU (DS_TEST_GPU_FREE_BYTES) has 65536 bytes free");
    /* The CPU path asked for by name: no GPU check, the body is read. */
    assert_fails_fast(no_interop, 0, 1, "is not a valid float value");
    /* 16 MiB: one copy fits, 400 do not; --grid made it too big: exit 2. */
    setenv("DS_TEST_GPU_FREE_BYTES", "16777216", 1);
    assert_fails_fast(grid, 0, 2, "gpu_body.ply: --grid 20x20: 400 copies of 1000 vertices and "
                                  "2000 triangles need about ");
    assert_fails_fast(grid, 0, 2, "; the test GPU (DS_TEST_GPU_FREE_BYTES) has 16.0 MiB free "
                                  "(one copy needs ");
    assert_fails_fast(one, 0, 1, "is not a valid float value");
    unsetenv("DS_TEST_GPU_FREE_BYTES");
    assert_fails_fast(grid, 0, 1, "is not a valid float value");
}

/* A flat slab 2.5 wide (X), 0.1 thick (Y) and 4 long (Z), as a Z-up scan
 * of a standing figure: lying down as loaded, upright with --up z. */
static void test_up_axis(void **state)
{
    (void)state;
    char path[512];
    work_path("slab.ply", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                  "property float z\nelement face 12\nproperty list uchar int vertex_indices\n"
                  "end_header\n");
    for (int v = 0; v < 8; v++) /* vertex v = corner (x, y, z) from bits 2, 1, 0 */
        fprintf(file, "%g %g %g\n", v & 4 ? 1.25 : -1.25, v & 2 ? 0.05 : -0.05, v & 1 ? 2.0 : -2.0);
    static const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                                    {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int q = 0; q < 6; q++)
        fprintf(file, "3 %d %d %d\n3 %d %d %d\n", quads[q][0], quads[q][1], quads[q][2],
                quads[q][0], quads[q][2], quads[q][3]);
    fclose(file);
    static const char *const lying[] = {"--headless", "slab.ply", "--frames", "1", "--orbit", "0",
                                        "--size", "96x96", "--alpha", "1", "--screenshot",
                                        "lying.png", NULL};
    static const char *const upright[] = {"--headless", "slab.ply", "--frames", "1", "--orbit", "0",
                                          "--size", "96x96", "--alpha", "1", "--up", "z",
                                          "--screenshot", "upright.png", NULL};
    static run_result r;
    run(lying, 0, &r);
    assert_int_equal(r.exit_status, 0);
    run(upright, 0, &r);
    assert_int_equal(r.exit_status, 0);
    int w, h;
    covered_box("lying.png", &w, &h);
    if (!(w * 10 > h * 12))
        fail_msg("without --up the slab covers %dx%d pixels: not wider than tall", w, h);
    covered_box("upright.png", &w, &h);
    if (!(h * 10 > w * 12))
        fail_msg("with --up z the slab covers %dx%d pixels: not taller than wide", w, h);
}

/* Whether PNGs a and b hold the same pixels (their text chunks name the
 * sort, so the files' bytes differ). */
static int files_equal(const char *a, const char *b)
{
    char path[512];
    int wa, ha, wb, hb, channels;
    work_path(a, path, sizeof path);
    uint8_t *pa = stbi_load(path, &wa, &ha, &channels, 4);
    work_path(b, path, sizeof path);
    uint8_t *pb = stbi_load(path, &wb, &hb, &channels, 4);
    assert_non_null(pa);
    assert_non_null(pb);
    int equal = wa == wb && ha == hb && !memcmp(pa, pb, (size_t)wa * (size_t)ha * 4);
    stbi_image_free(pa);
    stbi_image_free(pb);
    return equal;
}

/* The "sort" of every row of CSV file `name`, which must all be `sort`;
 * returns the row count. */
static int csv_rows_sorted_by(const char *name, const char *sort)
{
    char path[512];
    static char text[65536];
    static csv_row header, row;
    work_path(name, path, sizeof path);
    read_text(path, text, sizeof text);
    const char *cursor = text;
    assert_true(csv_next_row(&cursor, &header));
    int rows = 0;
    while (csv_next_row(&cursor, &row)) {
        if (strcmp(csv_value(&header, &row, "sort"), sort))
            fail_msg("%s row %d: sort '%s', expected '%s'", name, rows,
                     csv_value(&header, &row, "sort"), sort);
        assert_true(atof(csv_value(&header, &row, "handover_ms")) >= 0.0);
        rows++;
    }
    return rows;
}

/* --sort gl: the GL stages, named gl in the table, every CSV row and the
 * JSON, their order verified against the cpu sort's each frame and the
 * image the cpu sort's, byte for byte (both orders are stable, far
 * first). With --shuffle they warn once and the frames run the sorter;
 * --sort all runs gl first, then the sorts of this path. */
static void test_gl_stages(void **state)
{
    (void)state;
    static const char *const gl[] = {
        "--headless", "--scene", "planes:1000", "--frames", "3", "--size", "64x48", "--sort", "gl",
        "--verify", "--csv", "gl.csv", "--json", "gl.json", "--screenshot", "gl.png", NULL};
    static run_result r;
    run_ok(gl, "--sort gl", &r);
    assert_int_equal(csv_rows_sorted_by("gl.csv", "gl"), 3);
    char path[512], value[256];
    static char json[65536];
    work_path("gl.json", path, sizeof path);
    read_text(path, json, sizeof json);
    json_value(json, "sort", value, sizeof value);
    assert_string_equal(value, "gl");
    if (!strstr(r.out, "\nsort gl: 3 frames") || !strstr(r.out, "  state: sort gl, ") ||
        !strstr(r.out, "\nverify: 3 frames OK\n"))
        fail_msg("--sort gl: stdout lacks the gl run or its verify line:\n%s", r.out);
    /* The default framing narrows the keys to 24 bits (the scene's box
     * seen from outside): said per run, in the CSV and the JSON. */
    if (!strstr(r.out, " drawn (median), keys sorted on 24 bits\n"))
        fail_msg("--sort gl: stdout lacks 'keys sorted on 24 bits':\n%s", r.out);
    assert_non_null(strstr(json, "\"sorted_bits_least\": 24, \"sorted_bits_most\": 24"));

    /* The same frames on full keys: the same image. */
    static const char *const full[] = {
        "--headless", "--scene", "planes:1000", "--frames", "3", "--size", "64x48", "--sort", "gl",
        "--narrow-keys", "off", "--verify", "--screenshot", "gl-full.png", NULL};
    run_ok(full, "--narrow-keys off", &r);
    if (!strstr(r.out, "keys sorted on 32 bits\n") || !strstr(r.out, "\nverify: 3 frames OK\n"))
        fail_msg("--narrow-keys off: stdout lacks 32 bits or the verify line:\n%s", r.out);
    assert_true(files_equal("gl.png", "gl-full.png"));

    static const char *const cpu[] = {
        "--headless", "--scene", "planes:1000", "--frames", "3", "--size", "64x48", "--sort", "cpu",
        "--interop", "none", "--screenshot", "cpu.png", "--progress", NULL};
    run_ok(cpu, "--sort cpu", &r);
    /* --progress off a terminal: the load's line, then whole lines from
     * the first frame on (every few seconds: here the first only). */
    if (!strstr(r.err, "depthsort: built planes:1000: 588 vertices, 864 triangles (") ||
        !strstr(r.err, "depthsort: run 1 of 1 (cpu): frame 1 of 3, under 1 s, about ") ||
        strchr(r.err, '\r'))
        fail_msg("--progress: no load line or progress line, or a line drawn in place:\n%s",
                 r.err);
    assert_true(files_equal("gl.png", "cpu.png"));

    static const char *const shuffled[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48", "--sort", "gl",
        "--shuffle", "--interop", "none", "--csv", "shuffled.csv", NULL};
    run_ok(shuffled, "--sort gl --shuffle", &r);
    if (count_of(r.err, "warning: --shuffle: the GL stages do not shuffle") != 1)
        fail_msg("--sort gl --shuffle: not one warning:\n%s", r.err);
    assert_int_equal(csv_rows_sorted_by("shuffled.csv", "cpu"), 2);

    static const char *const all[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48", "--sort", "all",
        "--interop", "none", "--json", "all.json", "--plot", "all-plots", NULL};
    run_ok(all, "--sort all", &r);
    /* --plot: a frame-time column per run, a row per frame. */
    work_path("all-plots/frame-times.dat", path, sizeof path);
    read_text(path, json, sizeof json);
    if (strncmp(json, "frame \"gl\" \"cpu\"\n0 ", 17) || count_of(json, "\n") != 3)
        fail_msg("--plot: frame-times.dat is not frame, gl, cpu over 2 frames:\n%s", json);
    work_path("all.json", path, sizeof path);
    read_text(path, json, sizeof json);
    const char *first = strstr(json, "{\"sort\": \"gl\"");
    const char *second = strstr(json, "{\"sort\": \"cpu\"");
    if (!first || !second || first > second || count_of(json, "{\"sort\": ") != 2)
        fail_msg("--sort all on the CPU path: not gl, then cpu:\n%s", json);
    /* The two side by side, the GPU sorts named as left out and why. */
    const char *summary = strstr(r.out, "\nsummary: GPU frame time");
    if (!summary || !strstr(summary, "\n  gl ") || !strstr(summary, "\n  cpu ") ||
        !strstr(summary, "x first"))
        fail_msg("--sort all: no summary with a row each:\n%s", r.out);
    static const char *const gpu_sorts[] = {"cub", "radix", "hybrid", "quick", "bitonic0",
                                            "bitonic1", "bitonic2"};
    for (size_t i = 0; i < sizeof gpu_sorts / sizeof gpu_sorts[0]; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "{\"name\": \"%s\", \"why\": \"", gpu_sorts[i]);
        if (!strstr(json, entry))
            fail_msg("--sort all on the CPU path: %s not said to be skipped:\n%s", gpu_sorts[i],
                     json);
    }
    if (!strstr(r.out, "\nskipped cub, radix, hybrid, quick, bitonic0, bitonic1, bitonic2: "))
        fail_msg("--sort all: the GPU sorts are not said to be skipped:\n%s", r.out);
}

/* Without --sort the run says once which sort it chose and why: on
 * llvmpipe the cpu sort; with DS_TEST_GL_RENDERER naming a GPU's GL (and
 * no CUDA device) gl, with tiles and culling on, drawing the same pixels;
 * with --sort named, no reason; --sort all still runs gl then cpu. */
static void test_default_sort(void **state)
{
    (void)state;
    static const char *const plain[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48",
        "--screenshot", "default.png", NULL};
    static run_result r;
    run_ok(plain, "no --sort", &r);
    if (count_of(r.err, "; sort ") != 1)
        fail_msg("no --sort: the choice is not said once:\n%s", r.err);
    int llvmpipe = strstr(r.err, "headless on llvmpipe") != NULL;
    int cuda = strstr(r.err, "interop none)") == NULL;
    if (llvmpipe && (!strstr(r.err, "; sort cpu (no CUDA ") ||
                     !strstr(r.err, ", and llvmpipe is a software rasteriser)\n")))
        fail_msg("no --sort on llvmpipe: not the cpu sort with its reason:\n%s", r.err);
    if (llvmpipe && !strstr(r.out, "  state: sort cpu, "))
        fail_msg("no --sort on llvmpipe: the state line is not cpu's:\n%s", r.out);
    if (cuda && !strstr(r.err, " on a CUDA GPU"))
        fail_msg("no --sort with CUDA: no reason naming the CUDA GPU:\n%s", r.err);

    static const char *const gpu[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48", "--verify",
        "--screenshot", "default-gpu.png", NULL};
    setenv("DS_TEST_GL_RENDERER", "AMD Radeon RX 7900 XTX (radeonsi, navi31)", 1);
    run_ok(gpu, "no --sort, DS_TEST_GL_RENDERER", &r);
    unsetenv("DS_TEST_GL_RENDERER");
    if (!cuda) {
        if (!strstr(r.err, "; sort gl (no CUDA device)\n") &&
            !strstr(r.err, "; sort gl (no CUDA in this build)\n"))
            fail_msg("no --sort on a GPU's GL without CUDA: not gl with its reason:\n%s", r.err);
        if (!strstr(r.out, "  state: sort gl, ") || !strstr(r.out, ", cull on, tiles on, ") ||
            !strstr(r.out, "\nverify: 2 frames OK\n"))
            fail_msg("no --sort on a GPU's GL: not gl with culling and tiles, verified:\n%s",
                     r.out);
        assert_true(files_equal("default.png", "default-gpu.png"));
    }

    static const char *const named[] = {
        "--headless", "--scene", "planes:1000", "--frames", "2", "--size", "64x48", "--sort", "gl",
        NULL};
    run_ok(named, "--sort gl", &r);
    if (strstr(r.err, "; sort "))
        fail_msg("--sort gl: a reason for a sort that was asked for:\n%s", r.err);
}

/* One frame with a start camera (none: the orbit's framing) into png, and
 * the start camera's line from the JSON into line. */
static void render_view(const char *camera_option, const char *camera_value, const char *png,
                        char *line, size_t capacity)
{
    const char *args[] = {"--headless", "--scene", "gyroid:20k", "--frames", "1", "--orbit", "0",
                          "--size", "96x72", "--json", "view.json", "--screenshot", png,
                          camera_option, camera_value, NULL};
    static run_result r;
    run_ok(args, "depthsort", &r);
    char path[512];
    static char json[65536];
    work_path("view.json", path, sizeof path);
    read_text(path, json, sizeof json);
    json_value(json, "camera", line, capacity);
}

/* The camera line round trip: the start view's line, given back with
 * --camera or in --camera-file, renders the same image. */
static void test_camera_round_trip(void **state)
{
    (void)state;
    char framed[256], line[256];
    render_view(NULL, NULL, "framed.png", framed, sizeof framed);
    render_view("--camera", framed, "framed_again.png", line, sizeof line);
    assert_string_equal(line, framed);
    assert_true(files_equal("framed.png", "framed_again.png"));

    /* A view off every axis, with its own field of view and target. */
    char turned[256];
    render_view("--camera", "eye=3,2,0.5 target=0.2,0,0 fov=30", "turned.png", turned,
                sizeof turned);
    assert_true(!files_equal("turned.png", "framed.png"));
    render_view("--camera", turned, "turned_again.png", line, sizeof line);
    assert_string_equal(line, turned);
    assert_true(files_equal("turned.png", "turned_again.png"));

    char path[512];
    work_path("view.txt", path, sizeof path);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "%s\n", turned);
    fclose(file);
    render_view("--camera-file", "view.txt", "from_file.png", line, sizeof line);
    assert_true(files_equal("turned.png", "from_file.png"));
    /* A camera file that does not exist yet (the viewer writes it): the
     * orbit's framing. */
    render_view("--camera-file", "no_such_view.txt", "no_file.png", line, sizeof line);
    assert_true(files_equal("framed.png", "no_file.png"));
}

static int make_work_dir(void **state)
{
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/test_headless_XXXXXX");
    return mkdtemp(work_dir) ? 0 : -1;
}

static int remove_work_dir(void **state)
{
    (void)state;
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
    return system(command) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_fields),
        cmocka_unit_test(test_gl_stages),
        cmocka_unit_test(test_default_sort),
        cmocka_unit_test(test_unsorted_and_ignored),
        cmocka_unit_test(test_fails_before_the_first_frame),
        cmocka_unit_test(test_script_needs_display),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_up_axis),
        cmocka_unit_test(test_camera_round_trip),
        cmocka_unit_test(test_extreme_coordinates),
        cmocka_unit_test(test_screenshot_options),
        cmocka_unit_test(test_camera_file_fifo),
        cmocka_unit_test(test_screenshot_to_fifo),
        cmocka_unit_test(test_outputs_kept_on_failure),
        cmocka_unit_test(test_grid_checked_before_body),
        cmocka_unit_test(test_gpu_memory_checked_before_body),
    };
    return cmocka_run_group_tests(tests, make_work_dir, remove_work_dir);
}
