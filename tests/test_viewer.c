/* SPDX-License-Identifier: MIT */
/* test_viewer.c — the interactive viewer end to end, under Xvfb with Mesa
 * (llvmpipe gives GL 4.5 core through GLX). One --script run presses every
 * hotkey of handle_key() in viewer_input.c, turns the wheel and drags with both
 * buttons, taking a screenshot after each step; the tests then check each
 * step's visible effect against the screenshot before it:
 *
 *   - a panel line that shows a setting changes when its key is pressed and
 *     comes back to the pixel when the key undoes it (S, P, K, U, T, + / -
 *     and the keypad's, V, the digits, Tab);
 *   - the model region (the lower right quarter, clear of the panels)
 *     changes with the camera (wheel, right-drag, left-drag; each compared
 *     with a screenshot of the same overlay state, only that input between)
 *     and comes back with F; it stays the same when T changes how it is
 *     drawn; B turns the background dark;
 *   - O cycles the stats panel full, compact, off; H shows the help panel,
 *     F11 makes the window fill the screen and back, C and F12 write PNGs
 *     at the window size, Esc ends the run (the script has no "quit");
 *   - M, G, A, ] and [ change the picture and the look line; F1-F3 show
 *     three different views, F3 again the view from below; Y turns the model and six presses bring it
 *     back; R rebuilds it to the same picture; a dropped missing file
 *     shows an error and keeps the model, a dropped PLY replaces it;
 *   - L prints a --camera line (and writes it to --camera-file, ending with
 *     a newline); a --camera-file that is no camera line is a warning and
 *     the viewer starts; a Z-up model (not the bunny) warns "try --up z"; a second
 *     run started from that line draws the same model region, and without
 *     --overlay full (which the first run gives) starts with the compact
 *     panel, the full one being too wide for its window; two runs in a
 *     1000 x 600 window show that there --overlay auto starts it full;
 *   - X cycles sorted, unsorted, WBOIT, exact and back, each changing the
 *     state line and the picture; D shows the error line against the
 *     exact reference, then its heatmap, then neither; backslash splits
 *     the picture (right half exact);
 *   - a third run, on the default scene, shows that U changes the very
 *     first frame;
 *   - with --supersample 2 --screenshot-alpha, Shift+C writes the headless
 *     runner's picture of the same view, transparent where nothing is
 *     drawn, and the window's next frame is as before; shots with the
 *     overlay stay as shown, which the first says once.
 *
 * The sort keys come from the sort registry, and the GL stages' from cli.h:
 * each digit with a hotkey must change the sort line (to its sort, or
 * "... unavailable" where it cannot run), the cpu sort's key must bring
 * the starting line back, and a digit without a hotkey must change
 * nothing.
 *
 * These read the text overlay line by line, so every run asks for it
 * (--ui text); test_viewer_panels.c tests the ImGui panels.
 *
 * Needs xvfb-run (Debian's xvfb, installed by scripts/setup.sh); exits 77
 * (skipped) only when it is missing. DS_DEPTHSORT is the program's path.
 */
#include <errno.h>
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
#include "overlay.h"
#include "sort.h"
#include "viewer_run.h"

#ifndef DS_BUNNY
#error "DS_BUNNY must name assets/bunny.ply"
#endif

#define WIDTH 640
#define HEIGHT 480
/* The Xvfb screen, which F11's fullscreen window fills. */
#define SCREEN_WIDTH 1024
#define SCREEN_HEIGHT 768
/* Panel lines (see ds_viewer_draw_stats() in viewer_panel.c). */
#define SORT_LINE 1
#define ELEMENTS_LINE 2 /* element count, primitive, alpha */
#define STATE_LINE 3    /* shuffle, primitive, key, sorting, tiles */
#define LOOK_LINE 4     /* colour, opacity, msaa, up axis, point size */
/* The panel is sized to its widest line (about 360 pixels here); line
 * comparisons stop at this column, inside it, and the help panel opens
 * right of it. */
#define PANEL_RIGHT 330
#define HELP_LEFT (WIDTH * 3 / 5)
#define VSYNC_LINE 15
#define ERROR_LINE 16 /* the error against the exact reference (D, \\) */
/* A line "changes" when more pixels than this differ: fewer than one glyph
 * ("0.40" to "0.45"); identical text differs in none. */
#define TEXT_CHANGE 4
/* The model region "changes" when more pixels than this differ. */
#define MODEL_CHANGE 100

/* The digits '1'..'9', '0', in the order they are pressed. */
#define DIGITS 10
static const char digit_keys[DIGITS] = {'1', '2', '3', '4', '5', '6', '7', '8', '9', '0'};

/* The screenshots, in the order the script takes them. */
enum {
    SHOT_BASE,                        /* --sort cpu, defaults */
    SHOT_DIGIT,                       /* + i: after digit_keys[i] */
    SHOT_SORT_BACK = SHOT_DIGIT + DIGITS, /* the cpu sort's hotkey */
    SHOT_TAB,
    SHOT_SHIFT_TAB,
    SHOT_SORT_BACK_2,
    SHOT_SHUFFLE_ON,
    SHOT_SHUFFLE_OFF,
    SHOT_POINTS,
    SHOT_TRIANGLES,
    SHOT_KEY_MEAN,
    SHOT_KEY_CENTROID,
    SHOT_KEY_FARTHEST,
    SHOT_UNSORTED,
    SHOT_SORTED,
    SHOT_TILES_TOGGLED,
    SHOT_TILES_BACK,
    SHOT_TECH_UNSORTED,  /* X six times: unsorted, WBOIT, exact, compute, */
    SHOT_TECH_WBOIT,     /* compute-exact, sorted */
    SHOT_TECH_EXACT,
    SHOT_TECH_COMPUTE,
    SHOT_TECH_COMPUTE_EXACT,
    SHOT_TECH_SORTED,
    SHOT_ERROR_NUMBERS,  /* D three times: numbers, heatmap, off */
    SHOT_ERROR_HEATMAP,
    SHOT_ERROR_OFF,
    SHOT_SPLIT_UNSORTED, /* U and \: unsorted left, exact right */
    SHOT_SPLIT_OFF,      /* \ and U */
    SHOT_ALPHA_PLUS,
    SHOT_ALPHA_KP_ADD,
    SHOT_ALPHA_KP_SUBTRACT,
    SHOT_ALPHA_MINUS,
    SHOT_B_DARK,
    SHOT_B_LIGHT,
    SHOT_OVERLAY_OFF,
    SHOT_OVERLAY_ON,
    SHOT_HELP_ON,
    SHOT_HELP_OFF,
    SHOT_VSYNC_TOGGLED,
    SHOT_VSYNC_BACK,
    SHOT_ZOOMED,
    SHOT_FRAMED,
    SHOT_PANNED,
    SHOT_FRAMED_2,
    SHOT_ORBITED,
    SHOT_CAMERA_PRINTED, /* L */
    SHOT_COMPACT,        /* O: full -> compact -> off -> full */
    SHOT_PANEL_OFF,
    SHOT_PANEL_FULL,
    SHOT_FRONT,          /* F1, F2, F3, F3 again */
    SHOT_SIDE,
    SHOT_TOP,
    SHOT_BELOW,
    SHOT_COLOR_MODE,     /* M */
    SHOT_GLASS,          /* G, G */
    SHOT_CONSTANT,
    SHOT_MSAA,           /* A */
    SHOT_UP_Z,           /* Y, then 5 more: back to +y */
    SHOT_UP_BACK,
    SHOT_POINTS_2,       /* P, ], [, P */
    SHOT_POINTS_BIGGER,
    SHOT_POINTS_SMALLER,
    SHOT_TRIANGLES_2,
    SHOT_RELOADED,       /* R */
    SHOT_DROP_FAILED,    /* drop of a missing file */
    SHOT_DROPPED,        /* drop of a PLY */
    SHOT_FULLSCREEN,
    SHOT_WINDOWED,
    SHOTS
};

static char work_dir[256];
static char log_text[65536];
static char cpu_hotkey; /* the host sort's key: the one --sort cpu starts on */

static image shots[SHOTS];
static image camera_shot;   /* the run started from the printed camera line */
static char camera_line[256];
static char camera_log[16384];

/* Counts pixels that differ in the rectangle [x0, x1) × [y0, y1) of two
 * screenshots of one size. */
static long image_difference_sized(const image *first, const image *second, int x0, int y0,
                                   int x1, int y1)
{
    assert_int_equal(first->width, second->width);
    assert_int_equal(first->height, second->height);
    assert_true(x1 <= first->width && y1 <= first->height);
    long count = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            size_t i = 4 * ((size_t)y * (size_t)first->width + (size_t)x);
            if (memcmp(first->rgba + i, second->rgba + i, 3) != 0)
                count++;
        }
    return count;
}

/* The same, of two screenshots of the window's size. */
static long image_difference(const image *first, const image *second, int x0, int y0, int x1, int y1)
{
    assert_int_equal(first->width, WIDTH);
    assert_int_equal(first->height, HEIGHT);
    return image_difference_sized(first, second, x0, y0, x1, y1);
}

static long differing_pixels(int a, int b, int x0, int y0, int x1, int y1)
{
    return image_difference(&shots[a], &shots[b], x0, y0, x1, y1);
}

/* Pixels differing in stats panel line `line` (at overlay scale 1). */
static long line_difference(int a, int b, int line)
{
    int top = DS_OVERLAY_LINE_TOP(line, 1);
    return differing_pixels(a, b, DS_OVERLAY_MARGIN, top, PANEL_RIGHT,
                            top + DS_OVERLAY_LINE_HEIGHT);
}

/* The model region: the lower right quarter less its top rows, where a
 * long message line under the stats panel may reach. It shows only the
 * model and the background while the help panel is off. */
#define MODEL_TOP (HEIGHT / 2 + 48)
static long model_difference(int a, int b)
{
    return differing_pixels(a, b, WIDTH / 2, MODEL_TOP, WIDTH, HEIGHT);
}

/* Pixels of the model region where some channel differs by more than
 * `levels` of 255. */
static long model_difference_beyond(int a, int b, int levels)
{
    long count = 0;
    for (int y = MODEL_TOP; y < HEIGHT; y++)
        for (int x = WIDTH / 2; x < WIDTH; x++) {
            size_t i = 4 * ((size_t)y * WIDTH + (size_t)x);
            for (int c = 0; c < 3; c++)
                if (abs((int)shots[a].rgba[i + c] - (int)shots[b].rgba[i + c]) > levels) {
                    count++;
                    break;
                }
        }
    return count;
}

/* The script: each step's input, then two frames and its screenshot. */
static void shot(FILE *script, int index, const char *input)
{
    fprintf(script, "%sframes 2\nscreenshot %s/%d.png\n", input, work_dir, index);
}

static int write_script(const char *path)
{
    FILE *script = fopen(path, "w");
    char input[400];
    if (!script)
        return -1;
    fprintf(script, "# written by test_viewer\nframes 3\n");
    shot(script, SHOT_BASE, "");
    for (int i = 0; i < DIGITS; i++) {
        snprintf(input, sizeof input, "key %c\n", digit_keys[i]);
        shot(script, SHOT_DIGIT + i, input);
    }
    snprintf(input, sizeof input, "key %c\n", cpu_hotkey);
    shot(script, SHOT_SORT_BACK, input);
    shot(script, SHOT_TAB, "key TAB\n");
    shot(script, SHOT_SHIFT_TAB, "key shift+TAB\n");
    shot(script, SHOT_SORT_BACK_2, input);
    shot(script, SHOT_SHUFFLE_ON, "key S\n");
    shot(script, SHOT_SHUFFLE_OFF, "key S\n");
    shot(script, SHOT_POINTS, "key P\n");
    shot(script, SHOT_TRIANGLES, "key P\n");
    shot(script, SHOT_KEY_MEAN, "key K\n");
    shot(script, SHOT_KEY_CENTROID, "key K\n");
    shot(script, SHOT_KEY_FARTHEST, "key K\n");
    shot(script, SHOT_UNSORTED, "key U\n");
    shot(script, SHOT_SORTED, "key U\n");
    shot(script, SHOT_TILES_TOGGLED, "key T\n");
    shot(script, SHOT_TILES_BACK, "key T\n");
    shot(script, SHOT_TECH_UNSORTED, "key X\n");
    shot(script, SHOT_TECH_WBOIT, "key X\n");
    shot(script, SHOT_TECH_EXACT, "key X\n");
    shot(script, SHOT_TECH_COMPUTE, "key X\n");
    shot(script, SHOT_TECH_COMPUTE_EXACT, "key X\n");
    shot(script, SHOT_TECH_SORTED, "key X\n");
    shot(script, SHOT_ERROR_NUMBERS, "key D\n");
    shot(script, SHOT_ERROR_HEATMAP, "key D\n");
    shot(script, SHOT_ERROR_OFF, "key D\n");
    shot(script, SHOT_SPLIT_UNSORTED, "key U\nkey \\\n");
    shot(script, SHOT_SPLIT_OFF, "key \\\nkey U\n");
    shot(script, SHOT_ALPHA_PLUS, "key +\n");
    shot(script, SHOT_ALPHA_KP_ADD, "key KP_ADD\n");
    shot(script, SHOT_ALPHA_KP_SUBTRACT, "key KP_SUBTRACT\n");
    shot(script, SHOT_ALPHA_MINUS, "key -\n");
    shot(script, SHOT_B_DARK, "key B\n");
    shot(script, SHOT_B_LIGHT, "key B\n");
    shot(script, SHOT_OVERLAY_OFF, "key O\nkey O\n"); /* full, compact, off */
    shot(script, SHOT_OVERLAY_ON, "key O\n");
    shot(script, SHOT_HELP_ON, "key H\n");
    shot(script, SHOT_HELP_OFF, "key H\n");
    shot(script, SHOT_VSYNC_TOGGLED, "key V\n");
    shot(script, SHOT_VSYNC_BACK, "key V\n");
    shot(script, SHOT_ZOOMED, "scroll 2\n");
    shot(script, SHOT_FRAMED, "key F\n");
    shot(script, SHOT_PANNED, "drag right 60 40\n");
    shot(script, SHOT_FRAMED_2, "key F\n");
    shot(script, SHOT_ORBITED, "drag left 150 0\n");
    shot(script, SHOT_CAMERA_PRINTED, "key L\n");
    shot(script, SHOT_COMPACT, "key O\n");
    shot(script, SHOT_PANEL_OFF, "key O\n");
    shot(script, SHOT_PANEL_FULL, "key O\n");
    shot(script, SHOT_FRONT, "key F1\n");
    shot(script, SHOT_SIDE, "key F2\n");
    shot(script, SHOT_TOP, "key F3\n");
    shot(script, SHOT_BELOW, "key F3\n");
    shot(script, SHOT_COLOR_MODE, "key M\n");
    shot(script, SHOT_GLASS, "key G\n");
    shot(script, SHOT_CONSTANT, "key G\n");
    shot(script, SHOT_MSAA, "key A\n");
    shot(script, SHOT_UP_Z, "key Y\n");
    shot(script, SHOT_UP_BACK, "key Y\nkey Y\nkey Y\nkey Y\nkey Y\n");
    shot(script, SHOT_POINTS_2, "key P\n");
    shot(script, SHOT_POINTS_BIGGER, "key ]\nkey ]\n");
    shot(script, SHOT_POINTS_SMALLER, "key [\nkey [\nkey [\nkey [\n");
    shot(script, SHOT_TRIANGLES_2, "key P\n");
    shot(script, SHOT_RELOADED, "key R\n");
    snprintf(input, sizeof input, "drop %s/missing.ply\n", work_dir);
    shot(script, SHOT_DROP_FAILED, input);
    snprintf(input, sizeof input, "drop %s/tetra.ply\n", work_dir);
    shot(script, SHOT_DROPPED, input);
    /* The window manager-less X server resizes on its own time: a few
     * frames for the new size to arrive. */
    shot(script, SHOT_FULLSCREEN, "key F11\nframes 3\n");
    shot(script, SHOT_WINDOWED, "key F11\nframes 3\n");
    /* C and F12 write depthsort-<time>[-N].png into the working directory
     * (work_dir); Esc ends the run. */
    fprintf(script, "key C\nframes 2\nkey F12\nframes 2\nkey ESC\n");
    return fclose(script) == 0 ? 0 : -1;
}

/* Runs the viewer under Xvfb in work_dir with `args` (and --ui text) and
 * the script at script_path; its stdout and stderr go to `log` (also
 * echoed). Returns the exit status, or -1 if it did not exit normally. */
static int run_depthsort(const char *args, const char *script_path, const char *name, char *log,
                         size_t log_capacity)
{
    char all_args[1200];
    snprintf(all_args, sizeof all_args, "%s --ui text", args);
    return viewer_run(work_dir, name, SCREEN_WIDTH, SCREEN_HEIGHT, all_args, script_path, log,
                      log_capacity);
}

static int load_shot(const char *name, image *dest)
{
    return viewer_load_png(work_dir, name, dest);
}

/* A tetrahedron as an ASCII PLY, for the drop step. */
static int write_tetrahedron(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/tetra.ply", work_dir);
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                  "property float z\nelement face 4\nproperty list uchar int vertex_indices\n"
                  "end_header\n1 1 1\n-1 -1 1\n-1 1 -1\n1 -1 -1\n3 0 1 2\n3 0 3 1\n3 0 2 3\n3 1 3 2\n");
    return fclose(file) == 0 ? 0 : -1;
}

/* Runs the scripted viewer once for all tests, then once more from the
 * camera line that the first run printed. */
static int run_viewer(void **state)
{
    (void)state;
    char script_path[300], args[1024];

    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_sort_algo_on_host((ds_sort_algo)a))
            cpu_hotkey = ds_sort_algo_hotkey((ds_sort_algo)a);
    if (!cpu_hotkey) {
        fprintf(stderr, "the registry has no host sort with a hotkey\n");
        return -1;
    }
    snprintf(work_dir, sizeof work_dir, "/tmp/test_viewer_XXXXXX");
    if (!mkdtemp(work_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    snprintf(script_path, sizeof script_path, "%s/script.txt", work_dir);
    if (write_script(script_path) != 0 || write_tetrahedron() != 0)
        return -1;
    snprintf(args, sizeof args,
             "--sort cpu --scene planes:2000 --size %dx%d --overlay full --screenshot-overlay on "
             "--camera-file '%s/camera.txt'",
             WIDTH, HEIGHT, work_dir);
    int status = run_depthsort(args, script_path, "main", log_text, sizeof log_text);
    if (status != 0) {
        fprintf(stderr, "viewer exited with status %d\n", status);
        return -1;
    }
    for (int i = 0; i < SHOTS; i++) {
        char name[32];
        snprintf(name, sizeof name, "%d", i);
        if (load_shot(name, &shots[i]) != 0)
            return -1;
    }

    /* The second run starts from the printed --camera "..." and takes one
     * screenshot with the same settings as SHOT_CAMERA_PRINTED. */
    const char *line = strstr(log_text, "--camera \"");
    if (!line) {
        fprintf(stderr, "the L key printed no --camera line\n");
        return -1;
    }
    line += strlen("--camera \"");
    size_t length = strcspn(line, "\"\n");
    snprintf(camera_line, sizeof camera_line, "%.*s", (int)length, line);
    FILE *script = fopen(script_path, "w");
    if (!script)
        return -1;
    fprintf(script, "frames 3\nscreenshot %s/camera.png\nquit\n", work_dir);
    if (fclose(script) != 0)
        return -1;
    snprintf(args, sizeof args,
             "--sort cpu --scene planes:2000 --size %dx%d --screenshot-overlay on --camera \"%s\"",
             WIDTH, HEIGHT, camera_line);
    status = run_depthsort(args, script_path, "camera", camera_log, sizeof camera_log);
    if (status != 0 || load_shot("camera", &camera_shot) != 0) {
        fprintf(stderr, "the --camera run failed (status %d)\n", status);
        return -1;
    }
    return 0;
}

static int clean_up(void **state)
{
    (void)state;
    viewer_free_images(shots, SHOTS);
    stbi_image_free(camera_shot.rgba);
    /* TEST_VIEWER_KEEP=1 keeps the screenshots and logs for a look. */
    viewer_remove_work_dir(work_dir);
    return 0;
}

static void screenshots_have_the_window_size(void **state)
{
    (void)state;
    for (int i = 0; i < SHOTS; i++) {
        if (i == SHOT_FULLSCREEN)
            continue;
        assert_int_equal(shots[i].width, WIDTH);
        assert_int_equal(shots[i].height, HEIGHT);
    }
}

static void overlay_is_drawn(void **state)
{
    (void)state;
    /* Text pixels exist on the sort line: not all one colour. */
    int top = DS_OVERLAY_LINE_TOP(SORT_LINE, 1);
    const uint8_t *first = shots[SHOT_BASE].rgba + 4 * ((size_t)top * WIDTH + DS_OVERLAY_MARGIN);
    long lit = 0;
    for (int y = top; y < top + DS_OVERLAY_LINE_HEIGHT; y++)
        for (int x = DS_OVERLAY_MARGIN; x < PANEL_RIGHT; x++)
            lit += memcmp(shots[SHOT_BASE].rgba + 4 * ((size_t)y * WIDTH + (size_t)x), first, 3) != 0;
    assert_true(lit > TEXT_CHANGE);
}

/* The sort whose registry hotkey is `key`, or -1 for none. */
static int algo_of_digit(char key)
{
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_sort_algo_hotkey((ds_sort_algo)a) == key)
            return a;
    return -1;
}

static void digit_keys_select_the_registry_sorts(void **state)
{
    (void)state;
    int previous = SHOT_BASE;
    for (int i = 0; i < DIGITS; i++) {
        int algo = algo_of_digit(digit_keys[i]);
        int gl = digit_keys[i] == DS_SORT_GL_HOTKEY;
        long from_base = line_difference(SHOT_BASE, SHOT_DIGIT + i, SORT_LINE);
        long from_previous = line_difference(previous, SHOT_DIGIT + i, SORT_LINE);
        fprintf(stderr, "key %c (%s): sort line differs from the start in %ld pixels\n", digit_keys[i],
                gl ? DS_SORT_GL_NAME : algo < 0 ? "no sort" : ds_sort_algo_name((ds_sort_algo)algo),
                from_base);
        if (gl)
            assert_true(from_base > TEXT_CHANGE); /* gl, or "gl unavailable" */
        else if (algo < 0)
            assert_int_equal(from_previous, 0); /* selects nothing */
        else if (digit_keys[i] == cpu_hotkey)
            assert_int_equal(from_base, 0); /* the sort it started with */
        else
            assert_true(from_base > TEXT_CHANGE); /* selected, or "unavailable" */
        previous = SHOT_DIGIT + i;
    }
    assert_int_equal(line_difference(SHOT_BASE, SHOT_SORT_BACK, SORT_LINE), 0);
}

static void tab_cycles_the_sorts(void **state)
{
    (void)state;
    /* Tab from cpu, the last sort: the first GPU sort, or "no other sort
     * available here" without a GPU. Shift+Tab: back to cpu, or the same
     * note. */
    assert_true(line_difference(SHOT_SORT_BACK, SHOT_TAB, SORT_LINE) > TEXT_CHANGE);
    assert_true(line_difference(SHOT_BASE, SHOT_SHIFT_TAB, SORT_LINE) == 0 ||
                line_difference(SHOT_TAB, SHOT_SHIFT_TAB, SORT_LINE) == 0);
    assert_int_equal(line_difference(SHOT_BASE, SHOT_SORT_BACK_2, SORT_LINE), 0);
}

/* A key that toggles a setting on `line`: pressed once the line changes,
 * pressed again it is back to the pixel. */
static void assert_toggles(int before, int toggled, int back, int line)
{
    long changed = line_difference(before, toggled, line);
    fprintf(stderr, "shot %d vs %d: line %d differs in %ld pixels\n", before, toggled, line, changed);
    assert_true(changed > TEXT_CHANGE);
    assert_int_equal(line_difference(before, back, line), 0);
}

static void setting_keys_change_the_state_line(void **state)
{
    (void)state;
    /* The digits and Tab change the sort line only. */
    assert_int_equal(line_difference(SHOT_BASE, SHOT_TAB, STATE_LINE), 0);
    assert_toggles(SHOT_SORT_BACK_2, SHOT_SHUFFLE_ON, SHOT_SHUFFLE_OFF, STATE_LINE);
    assert_int_equal(line_difference(SHOT_SHUFFLE_OFF, SHOT_SHUFFLE_ON, SORT_LINE), 0);

    assert_toggles(SHOT_SHUFFLE_OFF, SHOT_POINTS, SHOT_TRIANGLES, STATE_LINE);
    assert_toggles(SHOT_SHUFFLE_OFF, SHOT_POINTS, SHOT_TRIANGLES, ELEMENTS_LINE); /* count, unit */
    assert_true(model_difference(SHOT_TRIANGLES, SHOT_POINTS) > MODEL_CHANGE);   /* splats */

    /* K cycles farthest, mean, centroid, farthest. */
    assert_true(line_difference(SHOT_TRIANGLES, SHOT_KEY_MEAN, STATE_LINE) > TEXT_CHANGE);
    assert_true(line_difference(SHOT_KEY_MEAN, SHOT_KEY_CENTROID, STATE_LINE) > TEXT_CHANGE);
    assert_true(line_difference(SHOT_TRIANGLES, SHOT_KEY_CENTROID, STATE_LINE) > TEXT_CHANGE);
    assert_int_equal(line_difference(SHOT_TRIANGLES, SHOT_KEY_FARTHEST, STATE_LINE), 0);

    assert_toggles(SHOT_KEY_FARTHEST, SHOT_UNSORTED, SHOT_SORTED, STATE_LINE);
    /* The planes scene interleaves its quads: unsorted blending shows. */
    assert_true(model_difference(SHOT_KEY_FARTHEST, SHOT_UNSORTED) > MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_KEY_FARTHEST, SHOT_SORTED), 0);

    assert_toggles(SHOT_SORTED, SHOT_TILES_TOGGLED, SHOT_TILES_BACK, STATE_LINE);
}

static void tiles_key_keeps_the_image(void **state)
{
    (void)state;
    long changed = model_difference(SHOT_SORTED, SHOT_TILES_TOGGLED);
    fprintf(stderr, "model region: tiles toggled differs in %ld pixels\n", changed);
    assert_int_equal(changed, 0);
}

/* X: the state line names each technique in turn and the picture
 * changes with it (the compute raster's two orders look like the sorted
 * draw and the A-buffer); the sixth press is back to the sorted draw. */
static void technique_key_cycles_the_techniques(void **state)
{
    (void)state;
    const int order[7] = {SHOT_TILES_BACK,   SHOT_TECH_UNSORTED,      SHOT_TECH_WBOIT,
                          SHOT_TECH_EXACT,   SHOT_TECH_COMPUTE,       SHOT_TECH_COMPUTE_EXACT,
                          SHOT_TECH_SORTED};
    for (int i = 0; i + 1 < 7; i++) {
        long line = line_difference(order[i], order[i + 1], STATE_LINE);
        long model = model_difference(order[i], order[i + 1]);
        fprintf(stderr, "X press %d: state line differs in %ld pixels, model region in %ld\n",
                i + 1, line, model);
        assert_true(line > TEXT_CHANGE);
        if (i < 3)
            assert_true(model > MODEL_CHANGE);
    }
    /* The unsorted draw is what U shows. */
    assert_int_equal(model_difference(SHOT_UNSORTED, SHOT_TECH_UNSORTED), 0);
    assert_int_equal(line_difference(SHOT_TILES_BACK, SHOT_TECH_SORTED, STATE_LINE), 0);
    assert_int_equal(model_difference(SHOT_TILES_BACK, SHOT_TECH_SORTED), 0);
}

/* D: a line with the error against exact appears, then the heatmap takes
 * the picture's place, then both go; backslash: the right half shows the exact
 * image beside the unsorted left half. */
static void error_keys_show_the_error_against_exact(void **state)
{
    (void)state;
    long numbers = line_difference(SHOT_TECH_SORTED, SHOT_ERROR_NUMBERS, ERROR_LINE);
    long heat = model_difference(SHOT_ERROR_NUMBERS, SHOT_ERROR_HEATMAP);
    fprintf(stderr, "D: error line %ld pixels, heatmap %ld pixels of the model region\n", numbers,
            heat);
    assert_true(numbers > TEXT_CHANGE);
    assert_int_equal(model_difference(SHOT_TECH_SORTED, SHOT_ERROR_NUMBERS), 0);
    assert_true(heat > 10 * MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_TECH_SORTED, SHOT_ERROR_OFF), 0);
    assert_int_equal(line_difference(SHOT_TECH_SORTED, SHOT_ERROR_OFF, ERROR_LINE), 0);

    /* The left half as drawn, but for the divider and its label near the
     * middle; the divider down the middle of the picture. */
    long right = model_difference(SHOT_UNSORTED, SHOT_SPLIT_UNSORTED);
    long left = differing_pixels(SHOT_UNSORTED, SHOT_SPLIT_UNSORTED, 0, HEIGHT - 120, WIDTH / 4,
                                 HEIGHT);
    long divider = differing_pixels(SHOT_UNSORTED, SHOT_SPLIT_UNSORTED, WIDTH / 2 - 1, 0,
                                    WIDTH / 2, HEIGHT);
    fprintf(stderr, "split: right half differs from unsorted in %ld pixels, left in %ld, the "
            "divider's column in %ld\n", right, left, divider);
    assert_true(right > MODEL_CHANGE);
    assert_int_equal(left, 0);
    assert_true(divider > HEIGHT / 2);
    assert_true(line_difference(SHOT_UNSORTED, SHOT_SPLIT_UNSORTED, ERROR_LINE) > TEXT_CHANGE);
    assert_int_equal(model_difference(SHOT_TECH_SORTED, SHOT_SPLIT_OFF), 0);
}

static void alpha_keys_step_the_alpha(void **state)
{
    (void)state;
    /* + and the keypad's + raise it a step each, the keypad's - and -
     * lower it back. */
    long plus = line_difference(SHOT_TILES_BACK, SHOT_ALPHA_PLUS, ELEMENTS_LINE);
    long kp_add = line_difference(SHOT_ALPHA_PLUS, SHOT_ALPHA_KP_ADD, ELEMENTS_LINE);
    fprintf(stderr, "alpha line: + differs in %ld pixels, then keypad + in %ld\n", plus, kp_add);
    assert_true(plus > TEXT_CHANGE);
    assert_true(kp_add > TEXT_CHANGE);
    assert_int_equal(line_difference(SHOT_ALPHA_PLUS, SHOT_ALPHA_KP_SUBTRACT, ELEMENTS_LINE), 0);
    assert_int_equal(line_difference(SHOT_TILES_BACK, SHOT_ALPHA_MINUS, ELEMENTS_LINE), 0);
    assert_true(model_difference(SHOT_TILES_BACK, SHOT_ALPHA_PLUS) > MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_TILES_BACK, SHOT_ALPHA_MINUS), 0);
}

/* Mean of the red, green and blue of pixel (x, y). */
static int brightness(int shot_index, int x, int y)
{
    const uint8_t *p = shots[shot_index].rgba + 4 * ((size_t)y * WIDTH + (size_t)x);
    return (p[0] + p[1] + p[2]) / 3;
}

static void background_key_turns_it_dark(void **state)
{
    (void)state;
    /* The bottom right corner is background: light by default, B dark. */
    assert_true(brightness(SHOT_ALPHA_MINUS, WIDTH - 2, HEIGHT - 2) > 200);
    assert_true(brightness(SHOT_B_DARK, WIDTH - 2, HEIGHT - 2) < 60);
    assert_int_equal(model_difference(SHOT_ALPHA_MINUS, SHOT_B_LIGHT), 0);
}

static void overlay_and_help_keys_show_the_panels(void **state)
{
    (void)state;
    /* O twice (compact, off): the stats panel goes; once more it comes back
     * as it was. */
    assert_toggles(SHOT_B_LIGHT, SHOT_OVERLAY_OFF, SHOT_OVERLAY_ON, SORT_LINE);
    /* H: the help panel opens right of the stats panel, over the model. */
    int help_x = HELP_LEFT;
    long shown = differing_pixels(SHOT_OVERLAY_ON, SHOT_HELP_ON, help_x, DS_OVERLAY_MARGIN, WIDTH,
                                  HEIGHT / 2);
    fprintf(stderr, "help region: H differs in %ld pixels\n", shown);
    assert_true(shown > 1000);
    assert_int_equal(differing_pixels(SHOT_OVERLAY_ON, SHOT_HELP_OFF, help_x, DS_OVERLAY_MARGIN, WIDTH,
                                      HEIGHT / 2), 0);
    /* V: the vsync state on its line. */
    assert_toggles(SHOT_HELP_OFF, SHOT_VSYNC_TOGGLED, SHOT_VSYNC_BACK, VSYNC_LINE);
}

static void wheel_and_frame_key_move_the_camera(void **state)
{
    (void)state;
    long zoomed = model_difference(SHOT_VSYNC_BACK, SHOT_ZOOMED);
    long panned = model_difference(SHOT_FRAMED, SHOT_PANNED);
    fprintf(stderr, "model region: wheel %ld, right-drag %ld pixels\n", zoomed, panned);
    assert_true(zoomed > MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_VSYNC_BACK, SHOT_FRAMED), 0); /* F: framed again */
    assert_true(panned > MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_VSYNC_BACK, SHOT_FRAMED_2), 0);
}

static void drag_moves_the_camera(void **state)
{
    (void)state;
    /* Both screenshots have the same overlay state; only the left-drag came
     * between them. */
    long changed = model_difference(SHOT_FRAMED_2, SHOT_ORBITED);
    fprintf(stderr, "model region: left-drag differs in %ld pixels\n", changed);
    assert_true(changed > MODEL_CHANGE);
}

static void fullscreen_key_fills_the_screen(void **state)
{
    (void)state;
    assert_int_equal(shots[SHOT_FULLSCREEN].width, SCREEN_WIDTH);
    assert_int_equal(shots[SHOT_FULLSCREEN].height, SCREEN_HEIGHT);
    assert_int_equal(shots[SHOT_WINDOWED].width, WIDTH);
    assert_int_equal(shots[SHOT_WINDOWED].height, HEIGHT);
}

static void screenshot_key_writes_a_png(void **state)
{
    (void)state;
    /* "screenshot: depthsort-YYYYMMDD-HHMMSS.png" on stdout, relative to
     * the working directory. */
    const char *line = strstr(log_text, "screenshot: depthsort-");
    assert_non_null(line);
    char name[128], path[512];
    assert_int_equal(sscanf(line, "screenshot: %127s", name), 1);
    assert_non_null(strstr(name, ".png"));
    snprintf(path, sizeof path, "%s/%s", work_dir, name);
    int width = 0, height = 0, channels = 0;
    assert_true(stbi_info(path, &width, &height, &channels));
    assert_int_equal(width, WIDTH);
    assert_int_equal(height, HEIGHT);
}


static void camera_key_prints_a_line_that_restores_the_view(void **state)
{
    (void)state;
    /* Printed as --camera "...", the same bare line in --camera-file. */
    fprintf(stderr, "camera line: %s\n", camera_line);
    assert_non_null(strstr(camera_line, "eye="));
    assert_non_null(strstr(camera_line, "target="));
    char path[300], written[256] = "";
    snprintf(path, sizeof path, "%s/camera.txt", work_dir);
    FILE *file = fopen(path, "r");
    assert_non_null(file);
    assert_non_null(fgets(written, sizeof written, file));
    fclose(file);
    /* One line, ending with a newline as text files do. */
    size_t length = strlen(written);
    assert_true(length > 0 && written[length - 1] == '\n');
    written[length - 1] = '\0';
    assert_string_equal(written, camera_line);
    /* L snaps the view to the line (a float rounding away), so the model
     * region stays as it was but for a few pixels. (This holds at an alpha
     * whose alpha * 255 is no half: at 0.5, 127.5 is a tie of the RGBA8
     * blend that the interpolated alpha's last bit rounds to 127 or 128,
     * and a float rounding of the view then tips thousands of pixels by
     * one level.) The run that started from the line shows the very same
     * model region. */
    long tipped = model_difference(SHOT_ORBITED, SHOT_CAMERA_PRINTED);
    long snapped = model_difference_beyond(SHOT_ORBITED, SHOT_CAMERA_PRINTED, 1);
    fprintf(stderr, "model region: L's snap differs in %ld pixels, by more than one level in %ld\n",
            tipped, snapped);
    assert_true(tipped < MODEL_CHANGE);
    long differ = image_difference(&shots[SHOT_CAMERA_PRINTED], &camera_shot, WIDTH / 2, MODEL_TOP,
                                   WIDTH, HEIGHT);
    fprintf(stderr, "model region: the --camera run differs in %ld pixels\n", differ);
    assert_int_equal(differ, 0);
}

static void overlay_key_cycles_full_compact_off(void **state)
{
    (void)state;
    /* Compact: the sort moves to line 0 and the stage lines go; off: no
     * panel at all; full again: as before. */
    long compact = line_difference(SHOT_CAMERA_PRINTED, SHOT_COMPACT, VSYNC_LINE);
    long off = line_difference(SHOT_COMPACT, SHOT_PANEL_OFF, 0);
    fprintf(stderr, "overlay: compact clears %ld pixels of the vsync line, off %ld of line 0\n",
            compact, off);
    assert_true(compact > TEXT_CHANGE);
    assert_true(off > TEXT_CHANGE);
    assert_true(line_difference(SHOT_CAMERA_PRINTED, SHOT_PANEL_OFF, SORT_LINE) > TEXT_CHANGE);
    assert_int_equal(line_difference(SHOT_CAMERA_PRINTED, SHOT_PANEL_FULL, SORT_LINE), 0);
    assert_int_equal(line_difference(SHOT_CAMERA_PRINTED, SHOT_PANEL_FULL, LOOK_LINE), 0);
    /* The compact panel is small: the area below its two lines and the
     * message line shows the model as with the panel off. */
    int below = DS_OVERLAY_LINE_TOP(5, 1);
    assert_int_equal(differing_pixels(SHOT_COMPACT, SHOT_PANEL_OFF, 0, below, WIDTH / 2, HEIGHT / 2), 0);
}

/* The --camera run has no --overlay: in its 640-pixel window the full
 * panel (about 370 pixels) would take more than 2/5 of the width, so it
 * starts compact: its line 0 is the first run's compact line 0 (the sort
 * and state, no numbers; compared up to LINE0_RIGHT, left of the panel's
 * right edge, which moves with line 1's numbers), which the panel-off
 * shot lacks; the full
 * panel's vsync line is gone; below the compact lines the picture is the
 * first run's compact one. */
#define LINE0_RIGHT 200
static void small_window_starts_with_the_compact_panel(void **state)
{
    (void)state;
    int line0 = DS_OVERLAY_LINE_TOP(0, 1), vsync_top = DS_OVERLAY_LINE_TOP(VSYNC_LINE, 1);
    long as_compact = image_difference(&shots[SHOT_COMPACT], &camera_shot, DS_OVERLAY_MARGIN, line0,
                                       LINE0_RIGHT, line0 + DS_OVERLAY_LINE_HEIGHT);
    long as_off = image_difference(&shots[SHOT_PANEL_OFF], &camera_shot, DS_OVERLAY_MARGIN, line0,
                                   LINE0_RIGHT, line0 + DS_OVERLAY_LINE_HEIGHT);
    long gone = image_difference(&shots[SHOT_CAMERA_PRINTED], &camera_shot, DS_OVERLAY_MARGIN,
                                 vsync_top, PANEL_RIGHT, vsync_top + DS_OVERLAY_LINE_HEIGHT);
    long below = image_difference(&shots[SHOT_COMPACT], &camera_shot, 0, DS_OVERLAY_LINE_TOP(5, 1),
                                  WIDTH / 2, HEIGHT / 2);
    fprintf(stderr,
            "small window: line 0 differs from compact's in %ld pixels, from off's in %ld; the "
            "vsync line in %ld; below the compact panel %ld\n",
            as_compact, as_off, gone, below);
    assert_int_equal(as_compact, 0);
    assert_true(as_off > TEXT_CHANGE);
    assert_true(gone > TEXT_CHANGE);
    assert_int_equal(below, 0);
}

/* In a window where the full panel takes at most 2/5 of the width
 * (1000 x 600: 370 of 1000), --overlay auto starts it full: its vsync
 * line (settings only, no numbers) is drawn where an --overlay compact
 * run of the same window shows the model or background. */
#define WIDE_WIDTH 1000
#define WIDE_HEIGHT 600
static void wide_window_starts_with_the_full_panel(void **state)
{
    (void)state;
    char script_path[300], args[256];
    static char log[16384];
    image shot[2] = {{0}};
    snprintf(script_path, sizeof script_path, "%s/wide.txt", work_dir);
    for (int compact = 0; compact < 2; compact++) {
        FILE *script = fopen(script_path, "w");
        assert_non_null(script);
        fprintf(script, "frames 3\nscreenshot %s/wide%d.png\nquit\n", work_dir, compact);
        assert_int_equal(fclose(script), 0);
        snprintf(args, sizeof args,
                 "--sort cpu --scene planes:2000 --size %dx%d --screenshot-overlay on%s",
                 WIDE_WIDTH, WIDE_HEIGHT, compact ? " --overlay compact" : "");
        assert_int_equal(run_depthsort(args, script_path, compact ? "wide1" : "wide0", log,
                                       sizeof log),
                         0);
        char name[16];
        snprintf(name, sizeof name, "wide%d", compact);
        assert_int_equal(load_shot(name, &shot[compact]), 0);
        assert_int_equal(shot[compact].width, WIDE_WIDTH);
        assert_int_equal(shot[compact].height, WIDE_HEIGHT);
    }
    int top = DS_OVERLAY_LINE_TOP(VSYNC_LINE, 1);
    long differ = 0;
    for (int y = top; y < top + DS_OVERLAY_LINE_HEIGHT; y++)
        for (int x = DS_OVERLAY_MARGIN; x < PANEL_RIGHT; x++) {
            size_t at = 4 * ((size_t)y * WIDE_WIDTH + (size_t)x);
            differ += memcmp(shot[0].rgba + at, shot[1].rgba + at, 3) != 0;
        }
    fprintf(stderr, "wide window: auto's vsync line differs from compact's in %ld pixels\n",
            differ);
    stbi_image_free(shot[0].rgba);
    stbi_image_free(shot[1].rgba);
    assert_true(differ > TEXT_CHANGE);
}

static void view_keys_show_front_side_top(void **state)
{
    (void)state;
    long front_side = model_difference(SHOT_FRONT, SHOT_SIDE);
    long side_top = model_difference(SHOT_SIDE, SHOT_TOP);
    long front_top = model_difference(SHOT_FRONT, SHOT_TOP);
    fprintf(stderr, "views: front/side %ld, side/top %ld, front/top %ld pixels\n", front_side, side_top,
            front_top);
    assert_true(front_side > MODEL_CHANGE);
    assert_true(side_top > MODEL_CHANGE);
    assert_true(front_top > MODEL_CHANGE);
    assert_true(model_difference(SHOT_PANEL_FULL, SHOT_FRONT) > MODEL_CHANGE); /* left the orbit */
    /* The same key again, the view unchanged: from the other side. */
    long top_below = model_difference(SHOT_TOP, SHOT_BELOW);
    fprintf(stderr, "views: top/below %ld pixels\n", top_below);
    assert_true(top_below > MODEL_CHANGE);
}

static void look_keys_change_the_picture_and_the_state_line(void **state)
{
    (void)state;
    /* M: the next colour mode. */
    assert_true(line_difference(SHOT_BELOW, SHOT_COLOR_MODE, LOOK_LINE) > TEXT_CHANGE);
    assert_true(model_difference(SHOT_BELOW, SHOT_COLOR_MODE) > MODEL_CHANGE);
    /* G: view-dependent opacity, and back. */
    assert_toggles(SHOT_COLOR_MODE, SHOT_GLASS, SHOT_CONSTANT, LOOK_LINE);
    long glass = model_difference(SHOT_COLOR_MODE, SHOT_GLASS);
    fprintf(stderr, "model region: G differs in %ld pixels\n", glass);
    assert_true(glass > MODEL_CHANGE);
    assert_int_equal(model_difference(SHOT_COLOR_MODE, SHOT_CONSTANT), 0);
    /* A: 2 samples, or the refusal on the message line; either way the
     * state line says what is in use. */
    long msaa_line = line_difference(SHOT_CONSTANT, SHOT_MSAA, LOOK_LINE);
    long msaa_model = model_difference(SHOT_CONSTANT, SHOT_MSAA);
    fprintf(stderr, "msaa: state line %ld, model region %ld pixels\n", msaa_line, msaa_model);
    assert_true(msaa_line > TEXT_CHANGE);
    assert_true(msaa_model > 0); /* smoothed edges */
}

static void up_key_turns_the_model_and_comes_back(void **state)
{
    (void)state;
    long turned = model_difference(SHOT_MSAA, SHOT_UP_Z);
    fprintf(stderr, "up +z: model region differs in %ld pixels\n", turned);
    assert_true(turned > MODEL_CHANGE);
    assert_true(line_difference(SHOT_MSAA, SHOT_UP_Z, LOOK_LINE) > TEXT_CHANGE);
    /* Six presses: every axis once, back at +y, rebuilt and framed. */
    assert_int_equal(line_difference(SHOT_MSAA, SHOT_UP_BACK, LOOK_LINE), 0);
    assert_int_equal(model_difference(SHOT_MSAA, SHOT_UP_BACK), 0);
}

static void point_size_keys_grow_and_shrink_the_splats(void **state)
{
    (void)state;
    long bigger = model_difference(SHOT_POINTS_2, SHOT_POINTS_BIGGER);
    long smaller = model_difference(SHOT_POINTS_BIGGER, SHOT_POINTS_SMALLER);
    fprintf(stderr, "points: ] differs in %ld, [ in %ld pixels\n", bigger, smaller);
    assert_true(bigger > MODEL_CHANGE);
    assert_true(smaller > MODEL_CHANGE);
    assert_true(line_difference(SHOT_POINTS_2, SHOT_POINTS_BIGGER, LOOK_LINE) > TEXT_CHANGE);
    assert_int_equal(model_difference(SHOT_UP_BACK, SHOT_TRIANGLES_2), 0);
}

/* Occurrences of `needle` in `text`. */
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void reload_and_drop_load_models(void **state)
{
    (void)state;
    /* R: built again with the same progress lines, same picture. */
    assert_true(count_of(log_text, "depthsort: building planes:2000:") >= 2 + 6);
    assert_int_equal(model_difference(SHOT_TRIANGLES_2, SHOT_RELOADED), 0);
    /* A missing file: one error line, the model stays, and the message
     * shows under the panel. */
    assert_non_null(strstr(log_text, "missing.ply"));
    assert_int_equal(model_difference(SHOT_RELOADED, SHOT_DROP_FAILED), 0);
    long message = differing_pixels(SHOT_RELOADED, SHOT_DROP_FAILED, 0, 0, WIDTH / 2, HEIGHT / 2);
    fprintf(stderr, "upper left: the error message differs in %ld pixels\n", message);
    assert_true(message > 100);
    /* A PLY: loaded with the same progress lines, framed. */
    assert_non_null(strstr(log_text, "depthsort: loading "));
    assert_non_null(strstr(log_text, "tetra.ply: 4 vertices, 4 triangles"));
    long dropped = model_difference(SHOT_DROP_FAILED, SHOT_DROPPED);
    fprintf(stderr, "model region: the dropped tetrahedron differs in %ld pixels\n", dropped);
    assert_true(dropped > MODEL_CHANGE);
}

static void both_screenshot_keys_write_pngs(void **state)
{
    (void)state;
    assert_int_equal(count_of(log_text, "screenshot: depthsort-"), 2);
}

/* Screenshots for a paper: a script's shot is the model alone by default
 * (its name a template), the same picture Shift+C takes; with
 * --screenshot-overlay on the script's shot has the panel, and --screenshot
 * names the key's shots. */
static void screenshots_alone_and_with_the_overlay(void **state)
{
    (void)state;
    char script_path[300], args[512];
    static char log[16384];
    snprintf(script_path, sizeof script_path, "%s/alone.txt", work_dir);
    FILE *script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script, "frames 3\nscreenshot %s/alone-{sort}.png\nquit\n", work_dir);
    assert_int_equal(fclose(script), 0);
    assert_int_equal(run_depthsort("--sort cpu --scene planes:2000 --size 320x240 --overlay full",
                                   script_path, "alone", log, sizeof log), 0);
    script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script, "frames 3\nscreenshot %s/panel.png\nkey shift+C\nframes 2\nquit\n", work_dir);
    assert_int_equal(fclose(script), 0);
    snprintf(args, sizeof args,
             "--sort cpu --scene planes:2000 --size 320x240 --overlay full --screenshot-overlay on "
             "--screenshot '%s/key-{technique}.png'", work_dir);
    assert_int_equal(run_depthsort(args, script_path, "panel", log, sizeof log), 0);
    assert_non_null(strstr(log, "/key-sorted.png"));
    image alone = {0}, panel = {0}, key = {0};
    assert_int_equal(load_shot("alone-cpu", &alone), 0);
    assert_int_equal(load_shot("panel", &panel), 0);
    assert_int_equal(load_shot("key-sorted", &key), 0);
    assert_int_equal(alone.width, 320);
    assert_int_equal(alone.height, 240);
    assert_int_equal(key.width, 320);
    assert_int_equal(key.height, 240);
    long panel_pixels = 0, key_pixels = 0;
    for (size_t i = 0; i < (size_t)320 * 240; i++) {
        panel_pixels += memcmp(alone.rgba + 4 * i, panel.rgba + 4 * i, 3) != 0;
        key_pixels += memcmp(alone.rgba + 4 * i, key.rgba + 4 * i, 3) != 0;
    }
    fprintf(stderr, "screenshots: the panel changes %ld pixels; Shift+C differs from the "
                    "script's shot alone in %ld\n", panel_pixels, key_pixels);
    stbi_image_free(alone.rgba);
    stbi_image_free(panel.rgba);
    stbi_image_free(key.rgba);
    assert_true(panel_pixels > 1000);
    assert_int_equal(key_pixels, 0);
}

/* --supersample 2 --screenshot-alpha in the viewer: Shift+C draws the
 * model's view alone again at twice the size over black and white, and
 * writes the headless runner's picture of the same view (the same
 * --camera, size and options); its background is transparent where
 * nothing is drawn. The shots with the overlay stay window-sized and
 * opaque, which the first says once, and the window's picture after the
 * supersampled shot is the one before it (the renderer has its size and
 * background back), below the message line Shift+C shows. */
#define PAPER_WIDTH 320
#define PAPER_HEIGHT 240
#define PAPER_SCALE 2
static void supersampled_transparent_shot_is_the_headless_picture(void **state)
{
    (void)state;
    static const char view[] = "eye=0.05,0.2,0.3 target=-0.02,0.1,0 fov=40";
    char script_path[300], args[1024], command[2048];
    static char log[16384];
    snprintf(script_path, sizeof script_path, "%s/paper.txt", work_dir);
    FILE *script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script,
            "frames 3\nscreenshot %s/paper-before.png\nkey shift+C\nframes 2\n"
            "screenshot %s/paper-after.png\nquit\n",
            work_dir, work_dir);
    assert_int_equal(fclose(script), 0);
    snprintf(args, sizeof args,
             "'%s' --sort cpu --size %dx%d --overlay off --camera '%s' --supersample %d "
             "--screenshot-alpha --screenshot-overlay on --screenshot '%s/paper-viewer.png'",
             DS_BUNNY, PAPER_WIDTH, PAPER_HEIGHT, view, PAPER_SCALE, work_dir);
    assert_int_equal(run_depthsort(args, script_path, "paper", log, sizeof log), 0);
    snprintf(command, sizeof command,
             "cd '%s' && ASAN_OPTIONS=detect_leaks=0 '%s' --headless '%s' --sort cpu --size %dx%d "
             "--camera '%s' --orbit 0 "
             "--frames 1 --supersample %d --screenshot-alpha --screenshot paper-headless.png "
             "> paper-headless.log 2>&1",
             work_dir, DS_DEPTHSORT, DS_BUNNY, PAPER_WIDTH, PAPER_HEIGHT, view, PAPER_SCALE);
    assert_int_equal(system(command), 0);

    /* One warning for the two shots with the overlay. */
    const char *said = strstr(log, "is taken as shown, at the window's size");
    assert_non_null(said);
    assert_null(strstr(said + 1, "is taken as shown"));

    image viewer = {0}, headless = {0}, before = {0}, after = {0};
    assert_int_equal(load_shot("paper-viewer", &viewer), 0);
    assert_int_equal(load_shot("paper-headless", &headless), 0);
    assert_int_equal(load_shot("paper-before", &before), 0);
    assert_int_equal(load_shot("paper-after", &after), 0);
    assert_int_equal(viewer.width, PAPER_WIDTH);
    assert_int_equal(viewer.height, PAPER_HEIGHT);
    assert_int_equal(headless.width, PAPER_WIDTH);
    assert_int_equal(headless.height, PAPER_HEIGHT);
    int worst = 0;
    long clear = 0, covered = 0, edge = 0;
    for (size_t i = 0; i < (size_t)PAPER_WIDTH * PAPER_HEIGHT; i++) {
        for (int c = 0; c < 4; c++) {
            int gap = abs((int)viewer.rgba[4 * i + c] - (int)headless.rgba[4 * i + c]);
            worst = gap > worst ? gap : worst;
        }
        uint8_t alpha = viewer.rgba[4 * i + 3];
        clear += alpha == 0;
        covered += alpha > 0;
    }
    /* Averaged blocks: the silhouette's pixels have a coverage between
     * their neighbours' (a 1x picture has only the layers' alphas, one
     * layer's the default 0.45). */
    for (int y = 1; y < PAPER_HEIGHT - 1; y++)
        for (int x = 1; x < PAPER_WIDTH - 1; x++) {
            const uint8_t *p = viewer.rgba + 4 * ((size_t)y * PAPER_WIDTH + (size_t)x);
            uint8_t left = p[-1], right = p[7];
            edge += (left == 0 || right == 0) && p[3] > 0 && p[3] < 0.45 * 255 - 8;
        }
    int corners[4][2] = {{0, 0}, {PAPER_WIDTH - 1, 0}, {0, PAPER_HEIGHT - 1},
                         {PAPER_WIDTH - 1, PAPER_HEIGHT - 1}};
    for (int k = 0; k < 4; k++)
        assert_int_equal(viewer.rgba[4 * ((size_t)corners[k][1] * PAPER_WIDTH + corners[k][0]) + 3],
                         0);
    /* Below the message line Shift+C leaves in the window's corner. */
    int top = DS_OVERLAY_MARGIN + DS_OVERLAY_LINE_HEIGHT + 2 * DS_OVERLAY_PADDING + 4;
    long changed = image_difference_sized(&before, &after, 0, top, PAPER_WIDTH, PAPER_HEIGHT);
    fprintf(stderr, "paper: viewer vs headless at most %d levels apart; %ld clear, %ld covered, "
                    "%ld partly covered silhouette pixels; the window after the shot differs in "
                    "%ld pixels\n", worst, clear, covered, edge, changed);
    assert_true(worst <= 2);
    assert_true(clear > PAPER_WIDTH * PAPER_HEIGHT / 4);
    assert_true(covered > PAPER_WIDTH * PAPER_HEIGHT / 10);
    assert_true(edge > 20);
    assert_int_equal(before.width, PAPER_WIDTH);
    assert_int_equal(after.height, PAPER_HEIGHT);
    assert_int_equal(changed, 0);
    stbi_image_free(viewer.rgba);
    stbi_image_free(headless.rgba);
    stbi_image_free(before.rgba);
    stbi_image_free(after.rgba);
}

/* The first thing a visitor tries: on the default scene (no --scene, no
 * model) and the first view, U must visibly change the picture. The
 * scenes come in an order that follows no view (scene.c), so the unsorted
 * first frame blends far sheets over near ones. Overlay off, whole window
 * compared; a tenth of the pixels must change (about a quarter do). */
#define FIRST_FRAME_WIDTH 320
#define FIRST_FRAME_HEIGHT 240
#define FIRST_FRAME_MIN_DIFFERENCE 7680 /* a tenth of the 76,800 pixels */
static void u_changes_the_default_scene_first_frame(void **state)
{
    (void)state;
    char script_path[300], args[256];
    static char log[16384];
    snprintf(script_path, sizeof script_path, "%s/first.txt", work_dir);
    FILE *script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script, "screenshot %s/first_sorted.png\nkey U\nscreenshot %s/first_unsorted.png\nquit\n",
            work_dir, work_dir);
    assert_int_equal(fclose(script), 0);
    snprintf(args, sizeof args, "--sort cpu --size %dx%d --overlay off", FIRST_FRAME_WIDTH,
             FIRST_FRAME_HEIGHT);
    assert_int_equal(run_depthsort(args, script_path, "first", log, sizeof log), 0);
    image sorted = {0}, unsorted = {0};
    assert_int_equal(load_shot("first_sorted", &sorted), 0);
    assert_int_equal(load_shot("first_unsorted", &unsorted), 0);
    assert_int_equal(sorted.width, FIRST_FRAME_WIDTH);
    assert_int_equal(unsorted.height, FIRST_FRAME_HEIGHT);
    long changed = 0;
    for (size_t i = 0; i < (size_t)FIRST_FRAME_WIDTH * FIRST_FRAME_HEIGHT; i++)
        changed += memcmp(sorted.rgba + 4 * i, unsorted.rgba + 4 * i, 3) != 0;
    fprintf(stderr, "default scene, first frame: U changes %ld of %d pixels (at least %d asked)\n",
            changed, FIRST_FRAME_WIDTH * FIRST_FRAME_HEIGHT, FIRST_FRAME_MIN_DIFFERENCE);
    stbi_image_free(sorted.rgba);
    stbi_image_free(unsorted.rgba);
    assert_true(changed >= FIRST_FRAME_MIN_DIFFERENCE);
}

/* A script is automation: a screenshot it cannot write fails the run
 * (exit 1, the reason on the error line) after the script goes on. */
static void failed_script_screenshot_fails_the_run(void **state)
{
    (void)state;
    char script_path[300];
    static char log[16384];
    snprintf(script_path, sizeof script_path, "%s/bad_shot.txt", work_dir);
    FILE *script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script, "frames 1\nscreenshot /nonexistent-folder/v.png\nframes 1\nscreenshot %s/after.png\nquit\n",
            work_dir);
    assert_int_equal(fclose(script), 0);
    assert_int_equal(run_depthsort("--sort cpu --size 160x120", script_path, "bad_shot", log,
                                   sizeof log),
                     1);
    assert_non_null(strstr(log, "/nonexistent-folder/v.png: cannot write the PNG: "));
    image after = {0};
    assert_int_equal(load_shot("after", &after), 0);
    stbi_image_free(after.rgba);
}

/* A short run of the viewer on `model` with `extra` options: its exit
 * status, its log in `log`. */
static int run_briefly(const char *name, const char *model, const char *extra, char *log,
                       size_t capacity)
{
    char script_path[300], args[1024];
    snprintf(script_path, sizeof script_path, "%s/%s.txt", work_dir, name);
    FILE *script = fopen(script_path, "w");
    if (!script || fprintf(script, "frames 2\nquit\n") < 0 || fclose(script) != 0)
        return -1;
    snprintf(args, sizeof args, "'%s' --sort cpu --size 160x120 --overlay off %s", model, extra);
    return run_depthsort(args, script_path, name, log, capacity);
}

/* A model standing on Z read as Y-up (x 1, y 0.4, z 3) gets one warning
 * that names --up z; turned up with --up z, and the bunny (Y-up), none.
 * A --camera-file that is not a camera line is a warning too, and the
 * viewer starts from its framed view (exit 0), without an error line. */
static void z_up_model_and_malformed_camera_file_warn(void **state)
{
    (void)state;
    static char log[16384];
    char model[300], camera[300], extra[400];
    snprintf(model, sizeof model, "%s/zup.ply", work_dir);
    FILE *file = fopen(model, "w");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                  "property float z\nelement face 4\nproperty list uchar int vertex_indices\n"
                  "end_header\n0 0 0\n1 0 0\n0 0.4 0\n0.5 0.2 3\n3 0 1 2\n3 0 3 1\n3 0 2 3\n"
                  "3 1 3 2\n");
    assert_int_equal(fclose(file), 0);
    snprintf(camera, sizeof camera, "%s/bad_camera.txt", work_dir);
    file = fopen(camera, "w");
    assert_non_null(file);
    fprintf(file, "eye=1,2 target=banana\n");
    assert_int_equal(fclose(file), 0);

    snprintf(extra, sizeof extra, "--camera-file '%s'", camera);
    assert_int_equal(run_briefly("zup", model, extra, log, sizeof log), 0);
    assert_non_null(strstr(log, "zup.ply: model looks Z-up (its Z extent 3 is 7.5 times its Y "
                                "extent 0.4); try --up z"));
    assert_non_null(strstr(log, "bad_camera.txt: eye= needs three numbers X,Y,Z; ignored, "
                                "starting from the framed view (L writes a good line; headless "
                                "runs refuse such a file)"));
    const char *first = strstr(log, "eye= needs");
    assert_non_null(first);
    assert_null(strstr(first + 1, "eye= needs")); /* the warning only, no error line */

    assert_int_equal(run_briefly("zup_turned", model, "--up z", log, sizeof log), 0);
    assert_null(strstr(log, "looks Z-up"));
    assert_int_equal(run_briefly("bunny", DS_BUNNY, "", log, sizeof log), 0);
    assert_null(strstr(log, "looks Z-up"));
}

/* The script's own commands: camera gives the view --camera gives (the
 * same picture), orbit turns it, technique and set change the picture,
 * wait keeps drawing; without quit the script closes the window after its
 * last step with one warning, and the run's status is 0. */
static void script_commands_drive_the_view_and_the_settings(void **state)
{
    (void)state;
    static const char view[] = "eye=0.3,0.8,4.2 target=0,0,0 fov=40";
    static char log[16384];
    char script_path[300];
    snprintf(script_path, sizeof script_path, "%s/commands.txt", work_dir);
    FILE *script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script,
            "camera \"%s\"\nframes 2\nscreenshot %s/cmd-camera.png\n"
            "orbit 120 6\nscreenshot %s/cmd-orbit.png\n"
            "sort gl\ntechnique wboit\nset alpha 0.9\nset color height\nset key mean\n"
            "wait 150\nscreenshot %s/cmd-set.png\n",
            view, work_dir, work_dir, work_dir);
    assert_int_equal(fclose(script), 0);
    assert_int_equal(run_depthsort("--scene planes:2000 --size 640x480 --overlay off", script_path, "commands",
                                   log, sizeof log),
                     0);
    assert_non_null(strstr(log, "commands.txt: the script ended without quit or stay; closing "
                                "the window"));

    snprintf(script_path, sizeof script_path, "%s/by-option.txt", work_dir);
    script = fopen(script_path, "w");
    assert_non_null(script);
    fprintf(script, "frames 2\nscreenshot %s/cmd-option.png\nquit\n", work_dir);
    assert_int_equal(fclose(script), 0);
    char args[200];
    snprintf(args, sizeof args, "--scene planes:2000 --size 640x480 --overlay off --camera '%s'", view);
    assert_int_equal(run_depthsort(args, script_path, "by-option", log, sizeof log), 0);

    image by_script = {0}, by_option = {0}, orbited = {0}, changed = {0};
    assert_int_equal(load_shot("cmd-camera", &by_script), 0);
    assert_int_equal(load_shot("cmd-option", &by_option), 0);
    assert_int_equal(load_shot("cmd-orbit", &orbited), 0);
    assert_int_equal(load_shot("cmd-set", &changed), 0);
    long same = image_difference(&by_script, &by_option, 0, 0, WIDTH, HEIGHT);
    long turned = image_difference(&by_script, &orbited, 0, 0, WIDTH, HEIGHT);
    long set = image_difference(&orbited, &changed, 0, 0, WIDTH, HEIGHT);
    fprintf(stderr, "camera vs --camera %ld, orbit %ld, settings %ld pixels differ\n", same,
            turned, set);
    assert_int_equal(same, 0);
    assert_true(turned > WIDTH * HEIGHT / 20);
    assert_true(set > WIDTH * HEIGHT / 20);
    stbi_image_free(by_script.rgba);
    stbi_image_free(by_option.rgba);
    stbi_image_free(orbited.rgba);
    stbi_image_free(changed.rgba);
}

int main(void)
{
    if (viewer_xvfb_missing("test_viewer"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(screenshots_have_the_window_size),
        cmocka_unit_test(script_commands_drive_the_view_and_the_settings),
        cmocka_unit_test(overlay_is_drawn),
        cmocka_unit_test(digit_keys_select_the_registry_sorts),
        cmocka_unit_test(tab_cycles_the_sorts),
        cmocka_unit_test(setting_keys_change_the_state_line),
        cmocka_unit_test(tiles_key_keeps_the_image),
        cmocka_unit_test(technique_key_cycles_the_techniques),
        cmocka_unit_test(error_keys_show_the_error_against_exact),
        cmocka_unit_test(alpha_keys_step_the_alpha),
        cmocka_unit_test(background_key_turns_it_dark),
        cmocka_unit_test(overlay_and_help_keys_show_the_panels),
        cmocka_unit_test(wheel_and_frame_key_move_the_camera),
        cmocka_unit_test(drag_moves_the_camera),
        cmocka_unit_test(fullscreen_key_fills_the_screen),
        cmocka_unit_test(screenshot_key_writes_a_png),
        cmocka_unit_test(camera_key_prints_a_line_that_restores_the_view),
        cmocka_unit_test(overlay_key_cycles_full_compact_off),
        cmocka_unit_test(small_window_starts_with_the_compact_panel),
        cmocka_unit_test(wide_window_starts_with_the_full_panel),
        cmocka_unit_test(view_keys_show_front_side_top),
        cmocka_unit_test(look_keys_change_the_picture_and_the_state_line),
        cmocka_unit_test(up_key_turns_the_model_and_comes_back),
        cmocka_unit_test(point_size_keys_grow_and_shrink_the_splats),
        cmocka_unit_test(reload_and_drop_load_models),
        cmocka_unit_test(both_screenshot_keys_write_pngs),
        cmocka_unit_test(screenshots_alone_and_with_the_overlay),
        cmocka_unit_test(supersampled_transparent_shot_is_the_headless_picture),
        cmocka_unit_test(u_changes_the_default_scene_first_frame),
        cmocka_unit_test(failed_script_screenshot_fails_the_run),
        cmocka_unit_test(z_up_model_and_malformed_camera_file_warn),
    };
    return cmocka_run_group_tests(tests, run_viewer, clean_up);
}
