/* SPDX-License-Identifier: MIT */
/* test_compare.c — the headless transparency comparison (--compare), run as
 * the program itself (DS_DEPTHSORT; EGL on Mesa llvmpipe without a GPU):
 *   - `--compare all` on a small planes scene writes every technique, with
 *     every field, into the JSON and the CSV, and the two agree;
 *   - the A-buffer against itself is exact (RMSE 0, SSIM 1, PSNR null in
 *     JSON, inf in CSV); depth peeling, the other exact method, is within
 *     one level of it; unsorted has more error than sorted on the planes
 *     and on the shells; per-triangle sorting is not exact on the
 *     intersecting planes;
 *   - --diff-dir writes each technique's worst frame, its heatmap (the
 *     scale in the name) and the reference, each at the run's size;
 *   - bad input fails at once, before any frame, with one line: an
 *     unknown technique, a triangle key with --primitive points or on a
 *     point cloud, an A-buffer the GL cannot hold, an unwritable
 *     --diff-dir.
 * Each run is 2 frames at 160x120 of a 2000-triangle scene. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <stb_image.h>

#include "cli.h"
#include "run_program.h"

/* Every item `--compare all` runs, from the lists it comes from: the
 * technique registry (technique_registry.h) and the sorted draw's
 * variants (cli.h), so that a new technique is checked here too. */
static const char *const names[] = {
#define TECHNIQUE_NAME(ID, name, file, label, cycle, summary) #name,
    DS_TECHNIQUE_REGISTRY(TECHNIQUE_NAME)
#undef TECHNIQUE_NAME
#define VARIANT_NAME(ID, name, summary) name,
    DS_COMPARE_VARIANTS(VARIANT_NAME)
#undef VARIANT_NAME
};
#define TECHNIQUES (int)(sizeof names / sizeof names[0])
static const char *const metrics[6] = {"rmse", "psnr", "ssim", "max_err", "bad_2", "bad_8"};

static char work_dir[256];
static char all_json[65536], all_csv[65536], all_err[16384], all_out[65536];

/* Runs depthsort in work_dir (run_program.h). */
static void run(const char *const *args, run_result *dest)
{
    run_program(work_dir, args, 0, dest);
}

/* The technique object {"name": "NAME", ...} of the JSON, as text. */
static void technique_json(const char *json, const char *name, char *dest, size_t capacity)
{
    char key[64];
    snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
    const char *at = strstr(json, key);
    if (!at)
        fail_msg("the JSON has no technique '%s'", name);
    size_t length = strcspn(at, "}");
    assert_true(length < capacity);
    memcpy(dest, at, length);
    dest[length] = '\0';
}

/* A field of a technique object: 1 and *dest for a number, 0 for null. */
static int field(const char *object, const char *name, double *dest)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *at = strstr(object, key);
    if (!at)
        fail_msg("technique %s has no field '%s'", object, name);
    at += strlen(key);
    if (!strncmp(at, "null", 4))
        return 0;
    char *end;
    *dest = strtod(at, &end);
    assert_true(end != at);
    return 1;
}

static double number(const char *object, const char *name)
{
    double value = 0.0;
    if (!field(object, name, &value))
        fail_msg("technique %s: '%s' is null", object, name);
    return value;
}

static double metric_of(const char *json, const char *technique, const char *name)
{
    char object[2048];
    technique_json(json, technique, object, sizeof object);
    return number(object, name);
}

/* The CSV row of `technique` as its fields (no quoted commas in these
 * rows but the GPU name's, which is quoted and skipped). */
static int csv_fields(const char *csv, const char *technique, char fields[][64], int capacity)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", technique);
    const char *line = strstr(csv, key);
    if (!line)
        return 0;
    while (line > csv && line[-1] != '\n')
        line--;
    int count = 0, quoted = 0;
    size_t length = 0;
    for (const char *c = line; *c && *c != '\n'; c++) {
        if (*c == '"') {
            quoted = !quoted;
            continue;
        }
        if (*c == ',' && !quoted) {
            fields[count][length] = '\0';
            if (++count >= capacity)
                return count;
            length = 0;
            continue;
        }
        if (length + 1 < 64)
            fields[count][length++] = *c;
    }
    fields[count][length] = '\0';
    return count + 1;
}

/* One run of every technique, shared by the tests. */
static int setup(void **state)
{
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/test_compare_XXXXXX");
    if (!mkdtemp(work_dir))
        return -1;
    static run_result result;
    const char *args[] = {"--headless", "--scene", "planes:2000", "--size", "160x120", "--frames",
                          "2", "--compare", "all", "--json", "all.json", "--csv", "all.csv",
                          "--diff-dir", "diffs", "--plot", "plots", NULL};
    run(args, &result);
    fprintf(stderr, "%s%s", result.out, result.err);
    if (result.exit_status != 0)
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/all.json", work_dir);
    read_text(path, all_json, sizeof all_json);
    snprintf(path, sizeof path, "%s/all.csv", work_dir);
    read_text(path, all_csv, sizeof all_csv);
    snprintf(all_err, sizeof all_err, "%s", result.err);
    snprintf(all_out, sizeof all_out, "%s", result.out);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
    return system(command) == 0 ? 0 : -1;
}

static void json_and_csv_carry_every_technique_and_field(void **state)
{
    (void)state;
    assert_non_null(strstr(all_json, "\"techniques\": ["));
    assert_non_null(strstr(all_json, "\"model\": \"scene:planes:2000\""));
    assert_non_null(strstr(all_json, "\"width\": 160"));
    assert_non_null(strstr(all_json, "\"frames\": 2"));
    assert_non_null(strstr(all_json, "\"bytes_per_pixel\": "));
    assert_non_null(strstr(all_json, "\"reference_frame_ms\": "));
    const char *header = "model,gpu,cpu,os,command,width,height,frames,commit,sort,key,key_bits,"
                         "alpha,primitive,name,frame,frame_ms,wall_ms,rmse,psnr,ssim,max_err,"
                         "bad_2,bad_8,worst_frame,rmse_worst,psnr_worst,ssim_worst,"
                         "max_err_worst,bad_2_worst,bad_8_worst\n";
    assert_memory_equal(all_csv, header, strlen(header));
    /* A row of medians per technique, then one per technique and frame. */
    int rows = 0;
    for (const char *c = all_csv; *c; c++)
        rows += *c == '\n';
    assert_int_equal(rows, 1 + TECHNIQUES + 2 * TECHNIQUES);
    for (int t = 0; t < TECHNIQUES; t++) {
        char object[2048], fields[40][64];
        double value;
        technique_json(all_json, names[t], object, sizeof object);
        assert_true(number(object, "frame_ms") > 0.0);
        double worst_frame = number(object, "worst_frame");
        assert_true(worst_frame == 0.0 || worst_frame == 1.0);
        int csv_count = csv_fields(all_csv, names[t], fields, 40);
        assert_int_equal(csv_count, 31);
        assert_string_equal(fields[14], names[t]);
        assert_string_equal(fields[15], ""); /* the medians' row */
        /* The frames' rows: their RMSE's mean (the median of two) and
         * largest are the summary's median and worst. */
        char frame_fields[2][40][64], key[80];
        for (int f = 0; f < 2; f++) {
            snprintf(key, sizeof key, "%s,%d", names[t], f);
            assert_int_equal(csv_fields(all_csv, key, frame_fields[f], 40), 31);
            assert_string_equal(frame_fields[f][24], ""); /* no worst frame */
            assert_true(strtod(frame_fields[f][16], NULL) > 0.0); /* its frame time */
        }
        double rmse0 = strtod(frame_fields[0][18], NULL), rmse1 = strtod(frame_fields[1][18], NULL);
        assert_true(fabs(0.5 * (rmse0 + rmse1) - strtod(fields[18], NULL)) <=
                    1e-4 * (1.0 + rmse0 + rmse1));
        assert_true(fabs((rmse0 > rmse1 ? rmse0 : rmse1) - strtod(fields[25], NULL)) <=
                    1e-4 * (1.0 + rmse0 + rmse1));
        for (int m = 0; m < 6; m++) {
            char worst[32];
            snprintf(worst, sizeof worst, "%s_worst", metrics[m]);
            /* The median in the JSON is the CSV's (inf there, null here). */
            if (field(object, metrics[m], &value))
                assert_true(fabs(strtod(fields[18 + m], NULL) - value) <= 1e-4 * (1.0 + fabs(value)));
            else
                assert_string_equal(fields[18 + m], "inf");
            assert_true(field(object, worst, &value) || !strcmp(metrics[m], "psnr"));
        }
    }
}

static void abuffer_is_exact_against_itself(void **state)
{
    (void)state;
    char object[2048];
    double value = -1.0;
    technique_json(all_json, "abuffer", object, sizeof object);
    assert_true(number(object, "rmse") == 0.0);
    assert_true(number(object, "rmse_worst") == 0.0);
    assert_true(number(object, "ssim") == 1.0);
    assert_true(number(object, "max_err") == 0.0);
    assert_int_equal(field(object, "psnr", &value), 0); /* infinite: null */
}

static void peel_agrees_with_the_abuffer(void **state)
{
    (void)state;
    assert_true(metric_of(all_json, "peel", "max_err_worst") <= 1.0);
    assert_true(metric_of(all_json, "peel", "bad_2_worst") == 0.0);
}

/* The compute raster in fragment order composites the A-buffer's
 * fragments in its order: within a level on every frame. */
static void compute_exact_agrees_with_the_abuffer(void **state)
{
    (void)state;
    assert_true(metric_of(all_json, "compute-exact", "max_err_worst") <= 1.0);
    assert_true(metric_of(all_json, "compute-exact", "bad_2_worst") == 0.0);
}

static void sorting_is_not_exact_on_intersecting_planes(void **state)
{
    (void)state;
    double sorted = metric_of(all_json, "sorted", "rmse");
    double unsorted = metric_of(all_json, "unsorted", "rmse");
    printf("planes: sorted RMSE %.4f, unsorted %.4f, wboit %.4f\n", sorted, unsorted,
           metric_of(all_json, "wboit", "rmse"));
    assert_true(sorted > 0.0);
    assert_true(metric_of(all_json, "sorted", "bad_8") > 0.0);
    assert_true(unsorted > sorted);
    /* sorted is key-farthest with 32-bit keys here: the same images. */
    assert_true(metric_of(all_json, "sorted", "rmse") == metric_of(all_json, "key-farthest", "rmse"));
}

static void unsorted_is_worse_than_sorted_on_shells(void **state)
{
    (void)state;
    static run_result result;
    const char *args[] = {"--headless", "--scene", "shells:2000", "--size", "160x120", "--frames",
                          "2", "--compare", "sorted,unsorted", "--json", "shells.json", NULL};
    run(args, &result);
    assert_int_equal(result.exit_status, 0);
    static char json[16384];
    char path[512];
    snprintf(path, sizeof path, "%s/shells.json", work_dir);
    read_text(path, json, sizeof json);
    double sorted = metric_of(json, "sorted", "rmse"), unsorted = metric_of(json, "unsorted", "rmse");
    printf("shells: sorted RMSE %.4f, unsorted %.4f\n", sorted, unsorted);
    assert_true(unsorted > sorted);
    /* Only the listed techniques are in the table. */
    assert_null(strstr(json, "\"name\": \"abuffer\""));
}

static void diff_dir_holds_the_worst_frames(void **state)
{
    (void)state;
    for (int t = 0; t < TECHNIQUES; t++) {
        char object[2048], path[600];
        technique_json(all_json, names[t], object, sizeof object);
        int worst = (int)number(object, "worst_frame");
        const char *files[3] = {"%s/diffs/%s-heat-0-16.png", "%s/diffs/%s-frame-%d.png",
                                "%s/diffs/reference-frame-%3$d.png"};
        for (int f = 0; f < 3; f++) {
            int width = 0, height = 0, channels = 0;
            snprintf(path, sizeof path, files[f], work_dir, names[t], worst);
            unsigned char *pixels = stbi_load(path, &width, &height, &channels, 4);
            if (!pixels)
                fail_msg("%s: %s", path, stbi_failure_reason());
            assert_int_equal(width, 160);
            assert_int_equal(height, 120);
            if (f == 0) {
                /* The heatmap's colour bar in its lower left quarter: the
                 * units' text (235 grey) and the map's saturated end. */
                int text = 0, saturated = 0;
                for (int y = height / 2; y < height; y++)
                    for (int x = 0; x < width * 3 / 4; x++) {
                        const unsigned char *p = pixels + 4 * (y * width + x);
                        text += p[0] == 235 && p[1] == 235 && p[2] == 235;
                        saturated += p[0] > 200 && p[1] > 200 && p[2] < 120;
                    }
                if (text < 20 || saturated < 20)
                    fail_msg("%s: no colour bar (%d text, %d saturated pixels)", path, text,
                             saturated);
            }
            stbi_image_free(pixels);
        }
    }
}

/* The table: fps and the ratio to the first row, the columns' meanings
 * and units under it; --plot: the frame-time and error plots, drawn (PNG,
 * 1280x720) with the data and scripts beside them: one column per
 * technique, a row per frame. Without gnuplot, one line says so. */
static void table_explains_and_plots_are_drawn(void **state)
{
    (void)state;
    if (!strstr(all_out, "x first") || !strstr(all_out, "\n  rmse: root mean square error") ||
        !strstr(all_out, "in levels of 255"))
        fail_msg("the table lacks its ratio column or its legend:\n%s", all_out);
    int gnuplot = !strstr(all_err, "gnuplot not found");
    static const char *const plots[2] = {"frame-times", "errors"};
    for (int p = 0; p < 2; p++) {
        char path[600], text[8192];
        snprintf(path, sizeof path, "%s/plots/%s.dat", work_dir, plots[p]);
        read_text(path, text, sizeof text);
        int lines = 0;
        for (const char *c = text; *c; c++)
            lines += *c == '\n';
        assert_int_equal(lines, 1 + 2); /* the names, then frames 0 and 1 */
        for (int t = 0; t < TECHNIQUES; t++) {
            char quoted[64];
            snprintf(quoted, sizeof quoted, " \"%s\"", names[t]);
            assert_non_null(strstr(text, quoted));
        }
        snprintf(path, sizeof path, "%s/plots/%s.gp", work_dir, plots[p]);
        read_text(path, text, sizeof text);
        char plot_line[64];
        snprintf(plot_line, sizeof plot_line, "plot for [i=2:%d] ", TECHNIQUES + 1);
        assert_non_null(strstr(text, plot_line));
        if (!gnuplot)
            continue;
        int width = 0, height = 0, channels = 0;
        snprintf(path, sizeof path, "%s/plots/%s.png", work_dir, plots[p]);
        unsigned char *pixels = stbi_load(path, &width, &height, &channels, 4);
        if (!pixels)
            fail_msg("%s: %s", path, stbi_failure_reason());
        assert_int_equal(width, 1280);
        assert_int_equal(height, 720);
        stbi_image_free(pixels);
    }
}

/* A bad input: exit status `status`, one line on stderr naming `needle`,
 * and nothing drawn (no table, no "compare on" line). */
static void check_refused(const char *const *args, int status, const char *needle)
{
    static run_result result;
    run(args, &result);
    fprintf(stderr, "refused (%d): %s", result.exit_status, result.err);
    assert_int_equal(result.exit_status, status);
    assert_non_null(strstr(result.err, needle));
    assert_null(strstr(result.err, "compare on"));
    assert_null(strstr(result.out, "technique"));
}

static void bad_inputs_fail_before_the_first_frame(void **state)
{
    (void)state;
    const char *unknown[] = {"--headless", "--scene", "planes:2000", "--compare", "sorted,bogus",
                             NULL};
    check_refused(unknown, 2, "unknown technique 'bogus'");
    const char *twice[] = {"--headless", "--compare", "peel,peel", NULL};
    check_refused(twice, 2, "listed twice");
    const char *points[] = {"--headless", "--scene", "planes:2000", "--primitive", "points",
                            "--compare", "sorted,key-mean", NULL};
    check_refused(points, 2, "--compare key-mean");
    const char *no_compare[] = {"--headless", "--diff-dir", "x", NULL};
    check_refused(no_compare, 2, "--diff-dir x: needs --compare");

    /* A point cloud: vertices only. */
    char cloud[512];
    snprintf(cloud, sizeof cloud, "%s/cloud.ply", work_dir);
    FILE *file = fopen(cloud, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                  "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n");
    assert_int_equal(fclose(file), 0);
    const char *cloud_args[] = {"--headless", cloud, "--size", "160x120", "--compare",
                                "key-centroid", NULL};
    check_refused(cloud_args, 2, "--compare key-centroid");

    /* A file where the folder should be. */
    char not_dir[512];
    snprintf(not_dir, sizeof not_dir, "%s/all.csv", work_dir);
    const char *diff_args[] = {"--headless", "--scene", "planes:2000", "--size", "160x120",
                               "--compare", "sorted", "--diff-dir", not_dir, NULL};
    check_refused(diff_args, 1, "not a folder");
    const char *tiny[] = {"--headless", "--scene", "planes:2000", "--size", "8x8", "--compare",
                          "sorted", NULL};
    check_refused(tiny, 2, "SSIM window");

    /* The A-buffer's first pool at 2048x2048 (4 nodes of 16 bytes a pixel,
     * 256 MiB) is beyond the one storage block llvmpipe binds (128 MiB); a
     * GPU holds it, and there this size has nothing to refuse. */
    if (strstr(all_json, "llvmpipe")) {
        const char *big[] = {"--headless", "--scene", "planes:200", "--size", "2048x2048",
                             "--compare", "sorted", NULL};
        check_refused(big, 1, "A-buffer");
    } else {
        printf("not llvmpipe: the A-buffer size check is left to the GL's own limit\n");
    }
}

int main(void)
{
    if (access(DS_DEPTHSORT, X_OK) != 0) {
        fprintf(stderr, "%s: not built\n", DS_DEPTHSORT);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_and_csv_carry_every_technique_and_field),
        cmocka_unit_test(abuffer_is_exact_against_itself),
        cmocka_unit_test(peel_agrees_with_the_abuffer),
        cmocka_unit_test(compute_exact_agrees_with_the_abuffer),
        cmocka_unit_test(sorting_is_not_exact_on_intersecting_planes),
        cmocka_unit_test(unsorted_is_worse_than_sorted_on_shells),
        cmocka_unit_test(diff_dir_holds_the_worst_frames),
        cmocka_unit_test(table_explains_and_plots_are_drawn),
        cmocka_unit_test(bad_inputs_fail_before_the_first_frame),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
