/* SPDX-License-Identifier: MIT */
/* test_viewer_mouse.c — the ImGui panels (--ui panels) under a real mouse:
 * the viewer under Xvfb with Mesa, its panel clicked and dragged through
 * XTest by xdotool, each effect read from the script's report lines.
 *
 * This program runs twice: as the test, which starts the viewer
 * (viewer_run.h), and as the driver that the runner starts beside it on
 * the same X display ("--drive DIR PID"). The viewer's script draws,
 * reports and waits for a file ("wait file"); the driver waits for each
 * report, finds the widgets in the panel's screenshot, moves the mouse,
 * and writes the file; the script's next report shows the effect:
 *
 *   1. a click at the right end of the alpha slider: alpha 1.00;
 *   2. the button pressed in its middle and held: alpha half way between
 *      0.05 (ALPHA_MIN in viewer_internal.h) and 1;
 *   3. dragged past the slider's left end, still held: alpha 0.05;
 *   4. released: alpha stays 0.05;
 *   5. a click on the technique combo box: its list opens (a screenshot),
 *      nothing changes yet;
 *   6. a click on the list's item two below the current one ("sorted"):
 *      that technique, as the registry orders them.
 *
 * Every wait is on the viewer (a report line, a frame count), none on the
 * clock, so a slow machine only makes it slower; the driver gives up after
 * DRIVE_LIMIT_S and lets the viewer's script end.
 *
 * Needs xvfb-run and xdotool (Debian packages xvfb and xdotool, installed
 * by scripts/setup.sh); exits 77 (skipped) when either is missing.
 * DS_DEPTHSORT is the program's path, DS_BUNNY the sample model's.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "technique_registry.h"
#include "ui_panels.h"
#include "viewer_run.h"

#ifndef DS_BUNNY
#error "DS_BUNNY must name assets/bunny.ply"
#endif

#define WIDTH 1280
#define HEIGHT 720
#define PANEL_LEFT (WIDTH - DS_UI_PANEL_WIDTH)
/* The steps the driver takes, each followed by a report; the script's
 * first report comes before any. */
#define STEPS 6
#define REPORTS (STEPS + 1)
/* Frames the viewer draws after each step before it reports: ImGui 1.86's
 * GLFW backend sees a press in the next frame and a click's release in
 * the one after; the rest is margin for an event that arrives late. */
#define FRAMES_PER_STEP 5
/* The driver's limit for the whole run (within viewer_run.h's 120 s). */
#define DRIVE_LIMIT_S 90.0
/* A pixel of a frame (ImGui's FrameBg, a header, a button) is bluish:
 * blue this much above red; the window's background is grey. */
#define BLUE_OVER_RED 30
/* A row is a widget's frame where this share of the scanned columns is
 * bluish (the rest: its text). */
#define FRAME_SHARE 0.6
/* A run reaching past this share of the panel's width is a section
 * header, not a widget's frame (those stop at their label). */
#define HEADER_SHARE 0.85

static const char *const technique_names[] = {
#define TECHNIQUE_NAME(id, name, file, label, cycle, summary) #name,
    DS_TECHNIQUE_REGISTRY(TECHNIQUE_NAME)
#undef TECHNIQUE_NAME
};
#define TECHNIQUE_COUNT ((int)(sizeof technique_names / sizeof technique_names[0]))

static char work_dir[256];

/* ---- the driver ------------------------------------------------------------ */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Report lines in the run's log so far. */
static int count_reports(const char *log_path)
{
    FILE *file = fopen(log_path, "r");
    char line[4096];
    int count = 0;
    while (file && fgets(line, sizeof line, file))
        count += strncmp(line, "report: ", 8) == 0;
    if (file)
        fclose(file);
    return count;
}

/* Waits until the log holds `count` reports: 0, or -1 when the viewer
 * has gone or the time is up. */
static int wait_for_reports(const char *log_path, int count, pid_t viewer, double deadline)
{
    const struct timespec poll = {0, 20 * 1000 * 1000};
    while (count_reports(log_path) < count) {
        if (kill(viewer, 0) != 0) {
            fprintf(stderr, "driver: the viewer ended before report %d\n", count);
            return -1;
        }
        if (now_seconds() > deadline) {
            fprintf(stderr, "driver: no report %d within %.0f s\n", count, DRIVE_LIMIT_S);
            return -1;
        }
        nanosleep(&poll, NULL);
    }
    return 0;
}

/* The script's signal that step `step` (1-based) is done. */
static void touch_go(const char *dir, int step)
{
    char path[300];
    snprintf(path, sizeof path, "%s/go-%d", dir, step);
    FILE *file = fopen(path, "w");
    if (file)
        fclose(file);
}

/* Runs xdotool with the arguments `fmt` formats (on the viewer's
 * display: the driver runs inside xvfb-run), saying so on stderr. */
static int xdotool(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int xdotool(const char *fmt, ...)
{
    char args[512], command[700];
    va_list list;
    va_start(list, fmt);
    vsnprintf(args, sizeof args, fmt, list);
    va_end(list);
    snprintf(command, sizeof command, "xdotool %s", args);
    fprintf(stderr, "driver: %s\n", command);
    return system(command) == 0 ? 0 : -1;
}

/* The viewer's window id (xdotool's, decimal) into dest. */
static int find_window(char *dest, size_t capacity)
{
    FILE *pipe = popen("xdotool search --onlyvisible --name '^depthsort'", "r");
    if (!pipe)
        return -1;
    int found = fgets(dest, (int)capacity, pipe) != NULL;
    pclose(pipe);
    dest[strcspn(dest, "\n")] = '\0';
    return found && dest[0] ? 0 : -1;
}

static const uint8_t *pixel(const image *im, int x, int y)
{
    return im->rgba + 4 * ((size_t)y * (size_t)im->width + (size_t)x);
}

static int bluish(const image *im, int x, int y)
{
    const uint8_t *p = pixel(im, x, y);
    return (int)p[2] - (int)p[0] >= BLUE_OVER_RED;
}

/* Whether row y is a widget's frame across [x0, x1): mostly bluish. */
static int frame_row(const image *im, int y, int x0, int x1)
{
    int count = 0;
    for (int x = x0; x < x1; x++)
        count += bluish(im, x, y);
    return count >= FRAME_SHARE * (x1 - x0);
}

typedef struct box {
    int left, right, top, bottom; /* inclusive */
} box;

/* The settings' frames top down (sort, technique, alpha, triangle key,
 * colour): runs of frame rows in the panel's left half that stop short
 * of its right edge, where the label is (a section header does not, nor
 * the scroll bar's column before it).
 * Returns how many were found, at most `capacity`. */
static int find_frames(const image *im, box *dest, int capacity)
{
    int count = 0, x0 = PANEL_LEFT + 4, x1 = PANEL_LEFT + DS_UI_PANEL_WIDTH / 2;
    for (int y = 0; y < im->height && count < capacity; y++) {
        if (!frame_row(im, y, x0, x1) || bluish(im, WIDTH - 6, y))
            continue;
        box b = {.top = y};
        while (y + 1 < im->height && frame_row(im, y + 1, x0, x1) && !bluish(im, WIDTH - 6, y + 1))
            y++;
        b.bottom = y;
        if (b.bottom - b.top < 8)
            continue;
        /* Its extent along its top row, inside the padding (no text). */
        b.left = PANEL_LEFT;
        while (b.left < WIDTH && !bluish(im, b.left, b.top))
            b.left++;
        b.right = b.left;
        while (b.right + 1 < WIDTH && bluish(im, b.right + 1, b.top))
            b.right++;
        /* A section header spans the panel up to its scroll bar, which a
         * panel taller than the window has (a long model path wraps). */
        if (b.right - PANEL_LEFT > HEADER_SHARE * DS_UI_PANEL_WIDTH)
            continue;
        dest[count++] = b;
    }
    return count;
}

/* The list's highlighted row (the current item) under the combo box `combo`:
 * the first run of frame rows below it. */
static int find_highlight(const image *im, const box *combo, int *top, int *bottom)
{
    int y = combo->bottom + 1;
    while (y < im->height && !frame_row(im, y, combo->left + 4, combo->right - 4))
        y++;
    if (y >= im->height)
        return -1;
    *top = y;
    while (y + 1 < im->height && frame_row(im, y + 1, combo->left + 4, combo->right - 4))
        y++;
    *bottom = y;
    return 0;
}

static int load(const char *dir, const char *name, image *dest)
{
    if (viewer_load_png(dir, name, dest) != 0)
        return -1;
    if (dest->width != WIDTH || dest->height != HEIGHT) {
        fprintf(stderr, "driver: %s.png is %dx%d, not the window's %dx%d\n", name, dest->width,
                dest->height, WIDTH, HEIGHT);
        return -1;
    }
    return 0;
}

/* The driver's steps; returns the first that failed (1-based), or 0. */
static int drive_steps(const char *dir, pid_t viewer)
{
    char log_path[300], window[64];
    double deadline = now_seconds() + DRIVE_LIMIT_S;
    snprintf(log_path, sizeof log_path, "%s/mouse.log", dir);
    image layout = {0}, popup = {0};
    box frames[8];
    int step = 1;
    if (wait_for_reports(log_path, 1, viewer, deadline) || find_window(window, sizeof window) ||
        load(dir, "mouse-layout", &layout))
        return step;
    int found = find_frames(&layout, frames, 8);
    for (int i = 0; i < found; i++)
        fprintf(stderr, "driver: frame %d at x %d..%d, y %d..%d\n", i, frames[i].left,
                frames[i].right, frames[i].top, frames[i].bottom);
    stbi_image_free(layout.rgba);
    if (found < 5)
        return step;
    const box *technique = &frames[1], *alpha = &frames[2];
    int alpha_y = (alpha->top + alpha->bottom) / 2;

    /* 1: a click at the slider's right end. */
    if (xdotool("mousemove --window %s %d %d click 1", window, alpha->right - 2, alpha_y))
        return step;
    touch_go(dir, step++);
    /* 2: pressed in the middle and held. The press and the moves after
     * it are separate steps: in one frame ImGui would see the press where
     * the pointer ended. */
    if (wait_for_reports(log_path, 2, viewer, deadline) ||
        xdotool("mousemove --window %s %d %d mousedown 1", window,
                (alpha->left + alpha->right) / 2, alpha_y))
        return step;
    touch_go(dir, step++);
    /* 3: moved in steps past its left end, still held. */
    if (wait_for_reports(log_path, 3, viewer, deadline) ||
        xdotool("mousemove --window %s %d %d mousemove --window %s %d %d", window,
                alpha->left + 20, alpha_y, window, alpha->left - 6, alpha_y))
        return step;
    touch_go(dir, step++);
    /* 4: released. */
    if (wait_for_reports(log_path, 4, viewer, deadline) || xdotool("mouseup 1"))
        return step;
    touch_go(dir, step++);
    /* 5: a click on the technique combo box opens its list. */
    if (wait_for_reports(log_path, 5, viewer, deadline) ||
        xdotool("mousemove --window %s %d %d click 1", window, technique->left + 40,
                (technique->top + technique->bottom) / 2))
        return step;
    touch_go(dir, step++);
    /* 6: the item two below the current one: the rows are as tall as the
     * highlighted current row. */
    int top, bottom;
    if (wait_for_reports(log_path, 6, viewer, deadline) || load(dir, "mouse-popup", &popup))
        return step;
    int highlighted = find_highlight(&popup, technique, &top, &bottom);
    stbi_image_free(popup.rgba);
    if (highlighted != 0 || bottom - top < 8 || bottom - top > 60) {
        fprintf(stderr, "driver: no highlighted row under the combo box\n");
        return step;
    }
    int pitch = bottom - top + 1;
    fprintf(stderr, "driver: the current item's row is y %d..%d\n", top, bottom);
    if (xdotool("mousemove --window %s %d %d click 1", window, technique->left + 40,
                (top + bottom) / 2 + 2 * pitch))
        return step;
    touch_go(dir, step++);
    return 0;
}

/* --drive DIR PID: the steps, then the signal for every step left, so
 * that a failed driver never leaves the viewer waiting. Exit status 0 or
 * the step that failed. */
static int drive(const char *dir, pid_t viewer)
{
    int failed = drive_steps(dir, viewer);
    for (int step = failed ? failed : STEPS + 1; step <= STEPS; step++)
        touch_go(dir, step);
    if (failed)
        fprintf(stderr, "driver: step %d failed\n", failed);
    return failed;
}

/* ---- the test -------------------------------------------------------------- */

typedef struct report {
    char technique[64];
    float alpha;
} report;

/* The report lines of `log` in order; returns how many (at most max). */
static int parse_reports(const char *log, report *dest, int max)
{
    int count = 0;
    for (const char *at = strstr(log, "report: "); at && count < max;
         at = strstr(at + 1, "report: ")) {
        if (at != log && at[-1] != '\n')
            continue;
        const char *technique = strstr(at, ", technique ");
        const char *alpha = strstr(at, ", alpha ");
        if (!technique || !alpha)
            continue;
        technique += strlen(", technique ");
        size_t length = strcspn(technique, ",");
        snprintf(dest[count].technique, sizeof dest[count].technique, "%.*s", (int)length,
                 technique);
        dest[count].alpha = strtof(alpha + strlen(", alpha "), NULL);
        count++;
    }
    return count;
}

static int technique_index(const char *name)
{
    for (int t = 0; t < TECHNIQUE_COUNT; t++)
        if (strcmp(technique_names[t], name) == 0)
            return t;
    return -1;
}

static void mouse_changes_the_settings_in_the_panel(void **state)
{
    (void)state;
    static char log[65536];
    char script[2048], script_path[300], args[512], self[PATH_MAX], driver[PATH_MAX + 400];
    snprintf(work_dir, sizeof work_dir, "/tmp/test_viewer_mouse_XXXXXX");
    assert_non_null(mkdtemp(work_dir));

    int at = snprintf(script, sizeof script,
                      "frames 3\nscreenshot %s/mouse-layout.png\nreport\n", work_dir);
    for (int step = 1; step <= STEPS; step++) {
        at += snprintf(script + at, sizeof script - (size_t)at, "wait file %s/go-%d\nframes %d\n",
                       work_dir, step, FRAMES_PER_STEP);
        if (step == 5) /* the open list, for the driver */
            at += snprintf(script + at, sizeof script - (size_t)at,
                           "screenshot %s/mouse-popup.png\n", work_dir);
        at += snprintf(script + at, sizeof script - (size_t)at, "report\n");
    }
    snprintf(script + at, sizeof script - (size_t)at, "quit\n");
    snprintf(script_path, sizeof script_path, "%s/mouse.txt", work_dir);
    assert_int_equal(viewer_write_script(script_path, script), 0);

    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(length > 0);
    self[length] = '\0';
    snprintf(driver, sizeof driver, "'%s' --drive '%s'", self, work_dir);
    snprintf(args, sizeof args,
             "'%s' --sort cpu --size %dx%d --ui panels --screenshot-overlay on", DS_BUNNY, WIDTH,
             HEIGHT);
    int driver_status = -1;
    int status = viewer_run_driven(work_dir, "mouse", WIDTH + 200, HEIGHT + 200, args,
                                   script_path, driver, &driver_status, log, sizeof log);
    assert_int_equal(driver_status, 0);
    assert_int_equal(status, 0);

    report reports[REPORTS + 1];
    int count = parse_reports(log, reports, REPORTS + 1);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "report %d: technique %s, alpha %.2f\n", i, reports[i].technique,
                (double)reports[i].alpha);
    assert_int_equal(count, REPORTS);
    int sorted = technique_index("sorted");
    assert_true(sorted >= 0 && sorted + 2 < TECHNIQUE_COUNT);
    /* Before: the defaults. */
    assert_string_equal(reports[0].technique, "sorted");
    assert_float_equal(reports[0].alpha, 0.45f, 0.001f);
    /* 1-4: the slider clicked at its right end, pressed in its middle,
     * dragged past its left end, released. */
    assert_float_equal(reports[1].alpha, 1.0f, 0.001f);
    assert_float_equal(reports[2].alpha, 0.525f, 0.06f); /* the middle, give or take the grab */
    assert_float_equal(reports[3].alpha, 0.05f, 0.001f);
    assert_float_equal(reports[4].alpha, 0.05f, 0.001f);
    /* 5: the list open, nothing chosen; 6: two below the current. */
    assert_string_equal(reports[5].technique, "sorted");
    assert_string_equal(reports[6].technique, technique_names[sorted + 2]);
    assert_float_equal(reports[6].alpha, 0.05f, 0.001f);
}

static int clean_up(void **state)
{
    (void)state;
    if (work_dir[0])
        viewer_remove_work_dir(work_dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--drive") == 0)
        return drive(argv[2], (pid_t)atol(argv[3]));
    if (viewer_xvfb_missing("test_viewer_mouse"))
        return 77;
    if (!have_program("xdotool")) {
        fprintf(stderr, "test_viewer_mouse: xdotool not found (Debian package xdotool); "
                        "skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mouse_changes_the_settings_in_the_panel),
    };
    return cmocka_run_group_tests(tests, NULL, clean_up);
}
