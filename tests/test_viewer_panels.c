/* SPDX-License-Identifier: MIT */
/* test_viewer_panels.c — the viewer's ImGui panels (--ui panels, the
 * default where built with libimgui-dev), end to end under Xvfb with Mesa:
 * the bunny at 1280 x 720, driven by a --script, read back from its
 * screenshots.
 *
 * - The panel is drawn, docked at the right edge: its strip differs from
 *   the same strip with the panel hidden (O twice: compact, off).
 * - The model is framed beside it, never under it: with the panel the
 *   model's pixels end left of the strip and centre in the rest of the
 *   window; with the panel hidden they centre in the whole window.
 * - A hotkey still applies and the panel shows it: the panel's settings
 *   (the rows above the first that changes from frame to frame by itself,
 *   the frame times) differ after "+" (alpha 0.45 to 0.50), and the model's
 *   picture does too.
 * - --ui-scale 2 makes the panel twice as wide, too wide to share a 1280
 *   window, so it starts collapsed and the model has the window.
 * - A --ui-scale out of range is a usage error (exit 2, one line).
 * - The split view (\\) draws its divider under the panels too: a column of
 *   the divider's colour under the model's centre (the middle of the
 *   model's area, where the framed model's centre projects), and after a
 *   drag from there 150 pixels to the left, 150 columns to the left; no
 *   such column without the split view.
 *
 * Needs xvfb-run; exits 77 (skipped) only when it is missing.
 * DS_DEPTHSORT is the program's path, DS_BUNNY the sample model's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "ui_panels.h"
#include "viewer_run.h"

#ifndef DS_BUNNY
#error "DS_BUNNY must name assets/bunny.ply"
#endif

#define WIDTH 1280
#define HEIGHT 720
#define PANEL_LEFT (WIDTH - DS_UI_PANEL_WIDTH)
/* A pixel belongs to the model when a channel differs from the
 * background by more than this. */
#define MODEL_THRESHOLD 12
/* Settings rows "change" when more pixels than this differ (one digit of
 * "0.45" to "0.50" is dozens). */
#define TEXT_CHANGE 4
/* Rows of the window's top that a collapsed title bar may take at
 * --ui-scale 2 (about 42); the framed bunny starts lower. */
#define COLLAPSED_BAR 80

/* The split view's divider (viewer_panel.c), and how far the script
 * drags it. */
static const uint8_t divider_color[3] = {235, 235, 235};
#define DIVIDER_DRAG 150

enum { SHOT_BASE, SHOT_STILL, SHOT_ALPHA, SHOT_HIDDEN, SHOT_SPLIT, SHOT_DRAGGED, SHOT_SCALED, SHOTS };
static const char *const shot_names[SHOTS] = {"base",  "still",   "alpha", "hidden",
                                              "split", "dragged", "scaled"};

static char work_dir[256];
static image shots[SHOTS];

/* Runs the viewer on the bunny under Xvfb with `args` and `script`
 * (written to NAME.txt); returns its exit status, -1 if it did not exit
 * normally. */
static int run_depthsort(const char *name, const char *args, const char *script)
{
    char script_path[300], all_args[1024], log[16384];
    snprintf(script_path, sizeof script_path, "%s/%s.txt", work_dir, name);
    if (viewer_write_script(script_path, script) != 0)
        return -1;
    snprintf(all_args, sizeof all_args, "'%s' %s", DS_BUNNY, args);
    return viewer_run(work_dir, name, WIDTH + 200, HEIGHT + 200, all_args, script_path, log,
                      sizeof log);
}

static int load_shot(int shot)
{
    if (viewer_load_png(work_dir, shot_names[shot], &shots[shot]) != 0)
        return -1;
    return shots[shot].width == WIDTH && shots[shot].height == HEIGHT ? 0 : -1;
}

static const uint8_t *pixel(const image *im, int x, int y)
{
    return im->rgba + 4 * ((size_t)y * (size_t)im->width + (size_t)x);
}

/* Pixels that differ in [x0, x1) × [y0, y1). */
static long differing(const image *a, const image *b, int x0, int y0, int x1, int y1)
{
    long count = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            count += memcmp(pixel(a, x, y), pixel(b, x, y), 3) != 0;
    return count;
}

/* The model's pixels in columns [0, x_end), rows [y0, height): those
 * unlike the background (the bottom-left pixel, which the framed bunny
 * never reaches); their horizontal extent. Returns how many there are. */
static long model_extent(const image *im, int x_end, int y0, int *left, int *right)
{
    const uint8_t *background = pixel(im, 0, im->height - 1);
    long count = 0;
    *left = im->width;
    *right = -1;
    for (int y = y0; y < im->height; y++)
        for (int x = 0; x < x_end; x++) {
            const uint8_t *p = pixel(im, x, y);
            int far = 0;
            for (int c = 0; c < 3; c++)
                far |= abs((int)p[c] - (int)background[c]) > MODEL_THRESHOLD;
            if (!far)
                continue;
            count++;
            if (x < *left)
                *left = x;
            if (x > *right)
                *right = x;
        }
    return count;
}

static int run_viewer(void **state)
{
    char script[2048];
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/test_viewer_panels_XXXXXX");
    if (!mkdtemp(work_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    /* Base and still: the same settings a few frames apart (only the
     * frame times differ); alpha: after "+"; hidden: O twice; split: the
     * panel back (O), then \\; dragged: the divider dragged from the
     * middle of the model's area (where the script's drags start); last,
     * Shift+C (alone.png). */
    snprintf(script, sizeof script,
             "frames 8\nscreenshot %s/base.png\nframes 4\nscreenshot %s/still.png\n"
             "key +\nframes 4\nscreenshot %s/alpha.png\n"
             "key O\nkey O\nframes 4\nscreenshot %s/hidden.png\n"
             "key O\nkey \\\nframes 6\nscreenshot %s/split.png\n"
             "drag left -%d 0\nframes 4\nscreenshot %s/dragged.png\n"
             "key shift+C\nframes 2\nquit\n",
             work_dir, work_dir, work_dir, work_dir, work_dir, DIVIDER_DRAG, work_dir);
    char args[512];
    snprintf(args, sizeof args,
             "--sort cpu --size %dx%d --ui panels --screenshot-overlay on --screenshot '%s/alone.png'",
             WIDTH, HEIGHT, work_dir);
    if (run_depthsort("main", args, script) != 0)
        return -1;
    snprintf(script, sizeof script, "frames 4\nscreenshot %s/scaled.png\nquit\n", work_dir);
    snprintf(args, sizeof args,
             "--sort cpu --size %dx%d --ui panels --ui-scale 2 --screenshot-overlay on", WIDTH, HEIGHT);
    if (run_depthsort("scaled", args, script) != 0)
        return -1;
    for (int i = 0; i < SHOTS; i++)
        if (load_shot(i) != 0)
            return -1;
    return 0;
}

static int clean_up(void **state)
{
    (void)state;
    viewer_free_images(shots, SHOTS);
    viewer_remove_work_dir(work_dir);
    return 0;
}

static void panel_is_drawn_at_the_right_edge(void **state)
{
    (void)state;
    long area = (long)DS_UI_PANEL_WIDTH * HEIGHT;
    long drawn = differing(&shots[SHOT_BASE], &shots[SHOT_HIDDEN], PANEL_LEFT, 0, WIDTH, HEIGHT);
    fprintf(stderr, "panel strip: %ld of %ld pixels differ from the hidden panel's\n", drawn, area);
    assert_true(drawn > area / 5);
}

static void model_is_framed_beside_the_panel(void **state)
{
    (void)state;
    int left, right;
    long count = model_extent(&shots[SHOT_BASE], PANEL_LEFT, 0, &left, &right);
    int centre = (left + right) / 2;
    fprintf(stderr, "with the panel: %ld model pixels in x %d..%d (centre %d; the area's %d)\n",
            count, left, right, centre, PANEL_LEFT / 2);
    assert_true(count > 10000);
    assert_true(right < PANEL_LEFT - 8);
    assert_true(abs(centre - PANEL_LEFT / 2) < PANEL_LEFT / 10);

    count = model_extent(&shots[SHOT_HIDDEN], WIDTH, 0, &left, &right);
    centre = (left + right) / 2;
    fprintf(stderr, "panel hidden: %ld model pixels in x %d..%d (centre %d; the window's %d)\n",
            count, left, right, centre, WIDTH / 2);
    assert_true(count > 10000);
    assert_true(abs(centre - WIDTH / 2) < WIDTH / 10);
}

/* Shift+C, named by --screenshot: the model's viewport alone, beside the
 * panel (the window less the panel's width), the model in it. */
static void shift_c_writes_the_model_alone(void **state)
{
    (void)state;
    char path[300];
    int width = 0, height = 0, channels = 0;
    snprintf(path, sizeof path, "%s/alone.png", work_dir);
    image alone = {0};
    alone.rgba = stbi_load(path, &width, &height, &channels, 4);
    assert_non_null(alone.rgba);
    alone.width = width;
    alone.height = height;
    int left, right;
    long count = model_extent(&alone, width, 0, &left, &right);
    fprintf(stderr, "Shift+C: %dx%d of the %dx%d window, %ld model pixels\n", width, height, WIDTH,
            HEIGHT, count);
    stbi_image_free(alone.rgba);
    assert_int_equal(width, PANEL_LEFT);
    assert_int_equal(height, HEIGHT);
    assert_true(count > 10000);
}

static void hotkey_change_shows_in_the_panel(void **state)
{
    (void)state;
    /* The settings rows: from the top down to the first row that changed
     * between two frames with the same settings (the frame times). */
    int settings_bottom = 0;
    while (settings_bottom < HEIGHT &&
           differing(&shots[SHOT_BASE], &shots[SHOT_STILL], PANEL_LEFT, settings_bottom, WIDTH,
                     settings_bottom + 1) == 0)
        settings_bottom++;
    long changed = differing(&shots[SHOT_BASE], &shots[SHOT_ALPHA], PANEL_LEFT, 0, WIDTH,
                             settings_bottom);
    long model = differing(&shots[SHOT_BASE], &shots[SHOT_ALPHA], 0, 0, PANEL_LEFT, HEIGHT);
    fprintf(stderr, "settings rows 0..%d: \"+\" changes %ld pixels there, %ld of the model\n",
            settings_bottom, changed, model);
    assert_true(settings_bottom > 100); /* combo boxes and the alpha slider */
    assert_true(changed > TEXT_CHANGE);
    assert_true(model > 1000);
}

static void larger_scale_starts_collapsed_in_a_narrow_window(void **state)
{
    (void)state;
    int left, right;
    /* The collapsed title bar is at the top (COLLAPSED_BAR rows at scale
     * 2); below it the model has the whole width. */
    long count = model_extent(&shots[SHOT_SCALED], WIDTH, COLLAPSED_BAR, &left, &right);
    int centre = (left + right) / 2;
    fprintf(stderr, "--ui-scale 2: %ld model pixels in x %d..%d (centre %d)\n", count, left,
            right, centre);
    assert_true(count > 10000);
    assert_true(abs(centre - WIDTH / 2) < WIDTH / 10);
}

/* The columns of [0, x_end) whose pixels are the divider's colour in at
 * least 90 % of the rows: how many, the first in *first. */
static int divider_columns(const image *im, int x_end, int *first)
{
    int count = 0;
    *first = -1;
    for (int x = 0; x < x_end; x++) {
        int rows = 0;
        for (int y = 0; y < im->height; y++)
            rows += memcmp(pixel(im, x, y), divider_color, 3) == 0;
        if (rows * 10 >= im->height * 9) {
            if (*first < 0)
                *first = x;
            count++;
        }
    }
    return count;
}

static void split_view_draws_its_divider_under_the_panels(void **state)
{
    (void)state;
    int first, centre = PANEL_LEFT / 2;
    assert_int_equal(divider_columns(&shots[SHOT_BASE], PANEL_LEFT, &first), 0);
    int count = divider_columns(&shots[SHOT_SPLIT], PANEL_LEFT, &first);
    fprintf(stderr, "split: %d divider columns from x %d (the model's centre %d)\n", count, first,
            centre);
    assert_true(count >= 1 && count <= 4);
    assert_true(abs(first - centre) <= 2);
    count = divider_columns(&shots[SHOT_DRAGGED], PANEL_LEFT, &first);
    fprintf(stderr, "dragged %d to the left: %d divider columns from x %d\n", DIVIDER_DRAG, count,
            first);
    assert_true(count >= 1 && count <= 4);
    assert_true(abs(first - (centre - DIVIDER_DRAG)) <= 2);
}

static void bad_ui_scale_is_a_usage_error(void **state)
{
    (void)state;
    char command[600];
    snprintf(command, sizeof command, "'%s' --ui-scale 9 --headless --frames 1 2>&1",
             DS_DEPTHSORT);
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    char output[1024];
    size_t length = fread(output, 1, sizeof output - 1, pipe);
    output[length] = '\0';
    int status = pclose(pipe);
    fprintf(stderr, "--ui-scale 9: %s", output);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    assert_non_null(strstr(output, "--ui-scale '9'"));
}

int main(void)
{
    if (viewer_xvfb_missing("test_viewer_panels"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(panel_is_drawn_at_the_right_edge),
        cmocka_unit_test(model_is_framed_beside_the_panel),
        cmocka_unit_test(hotkey_change_shows_in_the_panel),
        cmocka_unit_test(shift_c_writes_the_model_alone),
        cmocka_unit_test(larger_scale_starts_collapsed_in_a_narrow_window),
        cmocka_unit_test(split_view_draws_its_divider_under_the_panels),
        cmocka_unit_test(bad_ui_scale_is_a_usage_error),
    };
    return cmocka_run_group_tests(tests, run_viewer, clean_up);
}
