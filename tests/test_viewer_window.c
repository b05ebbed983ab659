/* SPDX-License-Identifier: MIT */
/* test_viewer_window.c — the viewer's two ways to a window (--gl-window),
 * end to end under Xvfb with Mesa (viewer_run.h):
 *
 *   - the same scripted bunny view, techniques, error views, help panel
 *     and a resize (F11 to the screen and back) with glx and with egl give
 *     the same screenshots, but for llvmpipe's blend rounding in a few
 *     pixels (explained at WINDOW_DIFFERING_PER_MILLE);
 *   - what the X window shows in egl mode (read from Xvfb's screen, which
 *     -fbdir maps into a file) is the screenshot pixel for pixel: the
 *     copy flips the rows and orders the channels right;
 *   - on a server without GLX (-extension GLX), auto draws with EGL after
 *     one line, and its picture is egl's; glx there fails with one line;
 *   - a display that is not there fails with one line in every mode.
 *
 * Needs xvfb-run; exits 77 (skipped) only when it is missing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <stb_image.h>

#include "overlay.h"
#include "run_program.h"
#include "viewer_run.h"

#ifndef DS_BUNNY
#error "DS_BUNNY must name assets/bunny.ply"
#endif

#define WIDTH 640
#define HEIGHT 480
#define SCREEN_WIDTH 1024
#define SCREEN_HEIGHT 768

static char work_dir[200];

/* The shots of the glx and egl runs, in script order, and the input
 * before each. */
static const char *const shot_names[] = {"sorted",  "unsorted", "wboit", "abuffer",   "heatmap",
                                         "split",   "help",     "fullscreen", "windowed"};
static const char *const shot_steps[] = {"",
                                         "technique unsorted\n",
                                         "technique wboit\n",
                                         "technique abuffer\n",
                                         "technique sorted\nkey D\nkey D\nframes 3\n",
                                         "key D\nkey \\\nframes 3\n",
                                         "key \\\nkey H\n",
                                         "key H\nkey F11\nframes 3\n",
                                         "key F11\nframes 3\n"};
#define SHOTS (int)(sizeof shot_names / sizeof shot_names[0])

static char glx_log[16384], egl_log[16384];

/* The bunny, the stats panel off (its numbers differ from run to run),
 * whole-window shots, with --gl-window MODE, at the default alpha. */
static int run_mode(const char *name, const char *server_args, const char *mode,
                    const char *script, char *log, size_t capacity)
{
    char script_path[300], args[512];
    snprintf(script_path, sizeof script_path, "%s/%s.txt", work_dir, name);
    if (viewer_write_script(script_path, script) != 0)
        return -1;
    snprintf(args, sizeof args,
             "'%s' --sort cpu --size %dx%d --ui text --overlay off --screenshot-overlay on "
             "--gl-window %s",
             DS_BUNNY, WIDTH, HEIGHT, mode);
    return viewer_run_on(work_dir, name, server_args, args, script_path, NULL, NULL, log,
                         capacity);
}

static int run_glx_and_egl(void **state)
{
    (void)state;
    char script[4096], screen[64];
    snprintf(work_dir, sizeof work_dir, "/tmp/test_viewer_window_XXXXXX");
    if (!mkdtemp(work_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    snprintf(screen, sizeof screen, "-screen 0 %dx%dx24", SCREEN_WIDTH, SCREEN_HEIGHT);
    const char *modes[2] = {"glx", "egl"};
    char *logs[2] = {glx_log, egl_log};
    for (int m = 0; m < 2; m++) {
        size_t used = (size_t)snprintf(script, sizeof script, "frames 3\n");
        for (int i = 0; i < SHOTS; i++)
            used += (size_t)snprintf(script + used, sizeof script - used,
                                     "%sframes 2\nscreenshot %s/%s-%s.png\n", shot_steps[i],
                                     work_dir, modes[m], shot_names[i]);
        snprintf(script + used, sizeof script - used, "key V\nframes 2\nreport\nquit\n");
        int status = run_mode(modes[m], screen, modes[m], script, logs[m], sizeof glx_log);
        if (status != 0) {
            fprintf(stderr, "the --gl-window %s run exited with %d\n", modes[m], status);
            return -1;
        }
    }
    return 0;
}

static int clean_up(void **state)
{
    (void)state;
    viewer_remove_work_dir(work_dir);
    return 0;
}

/* Both runs draw the same pictures. Not bit for bit: llvmpipe blends into
 * GLX's window (the visual's BGRA layout) and into the copy's RGBA8
 * renderbuffer with a rounding that differs by one level in a few pixels
 * (6 of 307,200 in the sorted bunny; a GLX context drawing into the same
 * RGBA8 framebuffer matches EGL's exactly), and where many layers cover a
 * pixel those roundings can add up (one pixel of 786,432 by 10 levels at
 * 1024 x 768). So: at most 1 pixel in 1,000 differs, and at most 1 in
 * 100,000 by more than one level. The heatmap magnifies the error (one
 * level moves a pixel by 1/16 of its colour scale): there only the first
 * holds. */
#define WINDOW_DIFFERING_PER_MILLE 1
#define WINDOW_FAR_PER_100K 1
/* A key's message line (top left with the stats panel off) stays 4 s of
 * wall time, so under load it is in one run's shot and gone from the
 * other's: its rows are left out. */
#define MESSAGE_ROWS (DS_OVERLAY_MARGIN + DS_OVERLAY_LINE_HEIGHT + 2 * DS_OVERLAY_PADDING)
static void egl_window_draws_what_the_glx_window_does(void **state)
{
    (void)state;
    assert_non_null(strstr(glx_log, "window GLX,"));
    assert_non_null(strstr(egl_log, "window EGL copy ("));
    /* V says there is no vsync (the message line; the shots are taken
     * before), and GLFW reports nothing. */
    assert_null(strstr(egl_log, "glfw:"));
    for (int i = 0; i < SHOTS; i++) {
        image glx = {0}, egl = {0};
        char name[64];
        snprintf(name, sizeof name, "glx-%s", shot_names[i]);
        assert_int_equal(viewer_load_png(work_dir, name, &glx), 0);
        snprintf(name, sizeof name, "egl-%s", shot_names[i]);
        assert_int_equal(viewer_load_png(work_dir, name, &egl), 0);
        assert_int_equal(egl.width, glx.width);
        assert_int_equal(egl.height, glx.height);
        long differing = 0, far = 0, drawn = 0;
        int largest = 0;
        /* The background's colour: the bottom right corner, which the
         * framed bunny and the panels leave clear. */
        const uint8_t *clear = egl.rgba + 4 * ((size_t)egl.width * (size_t)egl.height - 1);
        for (size_t p = (size_t)MESSAGE_ROWS * (size_t)glx.width;
             p < (size_t)glx.width * (size_t)glx.height; p++) {
            int pixel_largest = 0;
            for (int c = 0; c < 3; c++) {
                int d = abs((int)glx.rgba[4 * p + c] - (int)egl.rgba[4 * p + c]);
                pixel_largest = d > pixel_largest ? d : pixel_largest;
            }
            largest = pixel_largest > largest ? pixel_largest : largest;
            differing += pixel_largest > 0;
            far += pixel_largest > 1;
            int off_clear = 0;
            for (int c = 0; c < 3; c++)
                off_clear |= abs((int)egl.rgba[4 * p + c] - (int)clear[c]) > 40;
            drawn += off_clear;
        }
        long pixels = (long)egl.width * egl.height;
        fprintf(stderr, "%-10s %dx%d: %ld pixels differ, %ld by more than one level (at most %d); "
                "%ld off the background\n", shot_names[i], egl.width, egl.height, differing, far, largest,
                drawn);
        viewer_free_images(&glx, 1);
        viewer_free_images(&egl, 1);
        assert_true(differing * 1000 <= pixels * WINDOW_DIFFERING_PER_MILLE);
        assert_true(far * 100000 <= pixels * WINDOW_FAR_PER_100K ||
                    strcmp(shot_names[i], "heatmap") == 0);
        assert_true(drawn > 1000); /* a picture, not a blank window */
    }
}

static void egl_window_follows_a_resize(void **state)
{
    (void)state;
    /* F11 re-made the copy's framebuffer at the screen's size and back. */
    image full = {0}, back = {0};
    assert_int_equal(viewer_load_png(work_dir, "egl-fullscreen", &full), 0);
    assert_int_equal(viewer_load_png(work_dir, "egl-windowed", &back), 0);
    int sizes[4] = {full.width, full.height, back.width, back.height};
    viewer_free_images(&full, 1);
    viewer_free_images(&back, 1);
    assert_int_equal(sizes[0], SCREEN_WIDTH);
    assert_int_equal(sizes[1], SCREEN_HEIGHT);
    assert_int_equal(sizes[2], WIDTH);
    assert_int_equal(sizes[3], HEIGHT);
}

/* ---- what the window shows ---------------------------------------------- */

/* A big-endian 32-bit field of an XWD header. */
static uint32_t xwd_field(const uint8_t *header, int index)
{
    const uint8_t *b = header + 4 * index;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The egl run's window as the X server holds it. Xvfb -fbdir maps its
 * screen into work_dir/Xvfb_screen0 (XWD format); a driver beside the
 * viewer (viewer_run.h) copies it 1.5 s after the screenshot appears,
 * while the viewer waits 4 s with the same picture (the window shows a
 * frame one frame late). The window opens at 0, 0 on a screen of its size
 * (no window manager), so the screen is the window. */
static void egl_window_shows_the_screenshot(void **state)
{
    (void)state;
    char script[1024], server_args[512], marker[300], screen_file[300], copy[300];
    static char log[16384];
    snprintf(marker, sizeof marker, "%s/shown.png", work_dir);
    snprintf(screen_file, sizeof screen_file, "%s/Xvfb_screen0", work_dir);
    snprintf(copy, sizeof copy, "%s/screen.xwd", work_dir);
    snprintf(script, sizeof script, "frames 3\nscreenshot %s\nwait 4000\nquit\n", marker);
    snprintf(server_args, sizeof server_args, "-screen 0 %dx%dx24 -fbdir %s", WIDTH, HEIGHT,
             work_dir);
    /* The driver gets the viewer's process id as its last word: unused. */
    char driver[2048], args[512], script_path[300];
    snprintf(driver, sizeof driver,
             "copy_screen() { i=0; while [ ! -e '%s' ] && [ $i -lt 600 ]; do sleep 0.05; "
             "i=$((i + 1)); done; sleep 1.5; cp '%s' '%s'; }; copy_screen",
             marker, screen_file, copy);
    snprintf(script_path, sizeof script_path, "%s/shown.txt", work_dir);
    assert_int_equal(viewer_write_script(script_path, script), 0);
    snprintf(args, sizeof args,
             "'%s' --sort cpu --size %dx%d --ui text --overlay off --screenshot-overlay on "
             "--gl-window egl",
             DS_BUNNY, WIDTH, HEIGHT);
    int driver_status = -1;
    int status = viewer_run_on(work_dir, "shown", server_args, args, script_path, driver,
                               &driver_status, log, sizeof log);
    assert_int_equal(status, 0);
    assert_int_equal(driver_status, 0);

    image shot = {0};
    assert_int_equal(viewer_load_png(work_dir, "shown", &shot), 0);
    FILE *file = fopen(copy, "rb");
    assert_non_null(file);
    static uint8_t xwd[16 * 1024 * 1024];
    size_t length = fread(xwd, 1, sizeof xwd, file);
    fclose(file);
    assert_true(length >= 100);
    uint32_t header_size = xwd_field(xwd, 0), width = xwd_field(xwd, 4),
             height = xwd_field(xwd, 5), byte_order = xwd_field(xwd, 7),
             bits = xwd_field(xwd, 11), bytes_per_line = xwd_field(xwd, 12),
             red_mask = xwd_field(xwd, 14), colors = xwd_field(xwd, 19);
    fprintf(stderr, "Xvfb's screen: %ux%u, %u bits, masks red 0x%x, byte order %u\n", width,
            height, bits, red_mask, byte_order);
    assert_int_equal(width, WIDTH);
    assert_int_equal(height, HEIGHT);
    assert_int_equal(bits, 32);
    assert_int_equal(red_mask, 0xff0000);
    assert_int_equal(byte_order, 0); /* LSBFirst: B, G, R, X in memory */
    size_t data = header_size + 12 * (size_t)colors; /* XWDColor: 12 bytes */
    assert_true(data + (size_t)bytes_per_line * height <= length);
    long differing = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            const uint8_t *shown = xwd + data + (size_t)y * bytes_per_line + 4 * (size_t)x;
            const uint8_t *png = shot.rgba + 4 * ((size_t)y * WIDTH + (size_t)x);
            differing += shown[2] != png[0] || shown[1] != png[1] || shown[0] != png[2];
        }
    fprintf(stderr, "the window against the screenshot: %ld pixels differ\n", differing);
    viewer_free_images(&shot, 1);
    assert_int_equal(differing, 0);
}

/* ---- a server without GLX, and no server ---------------------------------- */

static void auto_draws_with_egl_where_the_server_has_no_glx(void **state)
{
    (void)state;
    char script[512], server_args[128];
    static char log[16384];
    snprintf(server_args, sizeof server_args, "-screen 0 %dx%dx24 -extension GLX", SCREEN_WIDTH,
             SCREEN_HEIGHT);
    snprintf(script, sizeof script, "frames 3\nscreenshot %s/auto-sorted.png\nreport\nquit\n",
             work_dir);
    assert_int_equal(run_mode("auto", server_args, "auto", script, log, sizeof log), 0);
    /* One line says why and what instead; GLFW's own errors stay quiet. */
    const char *line = strstr(log, "viewer: no GLX OpenGL 4.5 context on this display (");
    assert_non_null(line);
    assert_non_null(strstr(line, "drawing with EGL on"));
    assert_null(strstr(line + strlen("viewer: no GLX"), "no GLX OpenGL")); /* once */
    assert_null(strstr(log, "glfw:"));
    assert_non_null(strstr(log, "window EGL copy ("));
    /* The same picture as the egl run's, bit for bit: the same EGL path. */
    image fallback = {0}, egl = {0};
    assert_int_equal(viewer_load_png(work_dir, "auto-sorted", &fallback), 0);
    assert_int_equal(viewer_load_png(work_dir, "egl-sorted", &egl), 0);
    int same = fallback.width == egl.width && fallback.height == egl.height &&
               memcmp(fallback.rgba, egl.rgba, 4 * (size_t)egl.width * (size_t)egl.height) == 0;
    viewer_free_images(&fallback, 1);
    viewer_free_images(&egl, 1);
    assert_true(same);

    /* glx on that server: one line naming GLFW's reason, exit status 1. */
    assert_int_equal(run_mode("glx-none", server_args, "glx", script, log, sizeof log), 1);
    assert_non_null(strstr(log, "could not open a window with an OpenGL 4.5 core context (GLX"));
    assert_null(strstr(log, "glfw:"));
}

/* A display that is not there: one line naming it, exit status 1, for
 * every mode (beside the scene's progress line, printed before). */
static void gl_window_with_a_bad_display_fails_with_one_line(void **state)
{
    (void)state;
    static run_result result;
    const char *saved = getenv("DISPLAY");
    char saved_display[256] = "";
    if (saved)
        snprintf(saved_display, sizeof saved_display, "%s", saved);
    setenv("DISPLAY", ":4093", 1);
    const char *modes[] = {"egl", "glx", "auto"};
    for (int i = 0; i < 3; i++) {
        const char *args[] = {"--scene", "planes:100", "--gl-window", modes[i], NULL};
        run_program(work_dir, args, 0, &result);
        fprintf(stderr, "--gl-window %s, DISPLAY=:4093: exit %d, stderr:\n%s", modes[i],
                result.exit_status, result.err);
        int lines = 0;
        for (const char *c = result.err; *c; c = strchr(c, '\n') ? strchr(c, '\n') + 1 : "")
            lines += strncmp(c, "depthsort: building ", 20) != 0;
        assert_int_equal(result.exit_status, 1);
        assert_non_null(strstr(result.err, "could not open the display :4093"));
        assert_int_equal(lines, 1);
    }
    if (saved)
        setenv("DISPLAY", saved_display, 1);
    else
        unsetenv("DISPLAY");
}

int main(void)
{
    if (viewer_xvfb_missing("test_viewer_window"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(egl_window_draws_what_the_glx_window_does),
        cmocka_unit_test(egl_window_follows_a_resize),
        cmocka_unit_test(egl_window_shows_the_screenshot),
        cmocka_unit_test(auto_draws_with_egl_where_the_server_has_no_glx),
        cmocka_unit_test(gl_window_with_a_bad_display_fails_with_one_line),
    };
    return cmocka_run_group_tests(tests, run_glx_and_egl, clean_up);
}
