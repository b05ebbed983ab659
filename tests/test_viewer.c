/* test_viewer.c — the interactive viewer end to end, under Xvfb with Mesa
 * (llvmpipe gives GL 4.5 core through GLX): a --script switches sorts,
 * toggles the shuffle, drags the camera and takes screenshots; the test
 * checks that the process exits 0, that the screenshots exist at the window
 * size, and that exactly the overlay lines that should change do:
 *
 *   shot 1  --sort cpu                      sort line "8 cpu"
 *   shot 2  key 1 (cub)                     sort line differs from shot 1
 *                                           (cub selected, or "cub
 *                                           unavailable" without a GPU)
 *   shot 3  key S                           state line differs from shot 2,
 *                                           sort line identical
 *   shot 4  key 8 (cpu)                     sort line identical to shot 1
 *   shot 5  drag left 150 0, key H          model region differs from shot 4
 *                                           (orbit), sort line identical
 *   shot 6  key S (shuffle off again: ties in a fixed order)
 *   shot 7  key T (screen tiles toggled:    state line differs from shot 6,
 *           on, from auto's off on the      model region identical
 *           CPU path)
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

#include "overlay.h"

#ifndef DS_DEPTHSORT
#error "DS_DEPTHSORT must name the depthsort executable"
#endif

#define WIDTH 640
#define HEIGHT 480
#define SHOTS 7
/* Panel lines (see draw_stats() in viewer.c). */
#define SORT_LINE 1
#define STATE_LINE 3

static char work_dir[256];

typedef struct image {
    int width, height;
    uint8_t *rgba;
} image;

static image shots[SHOTS];

static int have_program(const char *name)
{
    const char *path = getenv("PATH");
    char candidate[1024];
    if (!path)
        return 0;
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, path, name);
        if (access(candidate, X_OK) == 0)
            return 1;
        path += n;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Counts pixels that differ in the rectangle [x0, x1) × [y0, y1). */
static long differing_pixels(const image *a, const image *b, int x0, int y0, int x1, int y1)
{
    long count = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            size_t i = 4 * ((size_t)y * (size_t)a->width + (size_t)x);
            if (memcmp(a->rgba + i, b->rgba + i, 3) != 0)
                count++;
        }
    return count;
}

/* Pixels differing in panel line `line` (at overlay scale 1). */
static long line_difference(int a, int b, int line)
{
    int top = DS_OVERLAY_LINE_TOP(line, 1);
    return differing_pixels(&shots[a], &shots[b], DS_OVERLAY_MARGIN, top,
                            DS_OVERLAY_MARGIN + DS_OVERLAY_PANEL_WIDTH,
                            top + DS_OVERLAY_LINE_HEIGHT);
}

/* Runs the scripted viewer once for all tests. */
static int run_viewer(void **state)
{
    (void)state;
    char script_path[300], log_path[300], command[2048];
    FILE *script;
    int status;

    snprintf(work_dir, sizeof work_dir, "/tmp/test_viewer_XXXXXX");
    if (!mkdtemp(work_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    snprintf(script_path, sizeof script_path, "%s/script.txt", work_dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", work_dir);
    script = fopen(script_path, "w");
    if (!script)
        return -1;
    fprintf(script,
            "# written by test_viewer\n"
            "frames 3\n"
            "screenshot %s/1.png\n"
            "key 1\n"
            "frames 2\n"
            "screenshot %s/2.png\n"
            "key S\n"
            "frames 2\n"
            "screenshot %s/3.png\n"
            "key 8\n"
            "frames 2\n"
            "screenshot %s/4.png\n"
            "drag left 150 0\n"
            "key H\n"
            "frames 2\n"
            "screenshot %s/5.png\n"
            "key S\n"
            "frames 2\n"
            "screenshot %s/6.png\n"
            "key T\n"
            "frames 2\n"
            "screenshot %s/7.png\n"
            "quit\n",
            work_dir, work_dir, work_dir, work_dir, work_dir, work_dir, work_dir);
    fclose(script);

    /* LeakSanitizer is off for the viewer process only: Mesa's driver is
     * unloaded (dlclose) before the leak check, so its one-time allocations
     * cannot be told from ours or suppressed by name. AddressSanitizer
     * and UBSan stay on. */
    snprintf(command, sizeof command,
             "ASAN_OPTIONS=detect_leaks=0 xvfb-run -a -s '-screen 0 1024x768x24' "
             "'%s' --sort cpu --scene gyroid:20k --size %dx%d --no-vsync --script '%s' "
             "> '%s' 2>&1",
             DS_DEPTHSORT, WIDTH, HEIGHT, script_path, log_path);
    status = system(command);
    {
        char line[512];
        FILE *log = fopen(log_path, "r");
        while (log && fgets(line, sizeof line, log))
            fprintf(stderr, "viewer| %s", line);
        if (log)
            fclose(log);
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "viewer exited with status %d\n",
                status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    for (int i = 0; i < SHOTS; i++) {
        char path[300];
        int channels;
        snprintf(path, sizeof path, "%s/%d.png", work_dir, i + 1);
        shots[i].rgba = stbi_load(path, &shots[i].width, &shots[i].height, &channels, 4);
        if (!shots[i].rgba) {
            fprintf(stderr, "%s: %s\n", path, stbi_failure_reason());
            return -1;
        }
    }
    return 0;
}

static int clean_up(void **state)
{
    char path[300];
    (void)state;
    for (int i = 0; i < SHOTS; i++) {
        stbi_image_free(shots[i].rgba);
        snprintf(path, sizeof path, "%s/%d.png", work_dir, i + 1);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/script.txt", work_dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/log.txt", work_dir);
    unlink(path);
    rmdir(work_dir);
    return 0;
}

static void screenshots_have_the_window_size(void **state)
{
    (void)state;
    for (int i = 0; i < SHOTS; i++) {
        assert_int_equal(shots[i].width, WIDTH);
        assert_int_equal(shots[i].height, HEIGHT);
    }
}

static void overlay_is_drawn(void **state)
{
    (void)state;
    /* Text pixels exist on the sort line: not all one colour. */
    int top = DS_OVERLAY_LINE_TOP(SORT_LINE, 1);
    const uint8_t *first = shots[0].rgba + 4 * ((size_t)top * WIDTH + DS_OVERLAY_MARGIN);
    long lit = 0;
    for (int y = top; y < top + DS_OVERLAY_LINE_HEIGHT; y++)
        for (int x = DS_OVERLAY_MARGIN; x < DS_OVERLAY_MARGIN + DS_OVERLAY_PANEL_WIDTH; x++)
            lit += memcmp(shots[0].rgba + 4 * ((size_t)y * WIDTH + (size_t)x), first, 3) != 0;
    assert_true(lit > 20);
}

static void sort_line_follows_the_sort_keys(void **state)
{
    (void)state;
    long changed = line_difference(0, 1, SORT_LINE);
    fprintf(stderr, "sort line: shot 1 vs 2 differ in %ld pixels\n", changed);
    assert_true(changed > 20);
    assert_int_equal(line_difference(1, 2, SORT_LINE), 0); /* only the shuffle changed */
    assert_int_equal(line_difference(0, 3, SORT_LINE), 0); /* back to cpu */
    assert_int_equal(line_difference(3, 4, SORT_LINE), 0); /* camera and help only */
}

static void state_line_follows_the_shuffle_key(void **state)
{
    (void)state;
    assert_int_equal(line_difference(0, 1, STATE_LINE), 0);
    assert_true(line_difference(1, 2, STATE_LINE) > 20);
}

static void drag_moves_the_camera(void **state)
{
    (void)state;
    /* The lower right quarter shows only the model (the panels are at the
     * top left). */
    long changed = differing_pixels(&shots[3], &shots[4], WIDTH / 2, HEIGHT / 2, WIDTH, HEIGHT);
    fprintf(stderr, "model region: shot 4 vs 5 differ in %ld pixels\n", changed);
    assert_true(changed > 100);
}

static void tiles_key_keeps_the_image(void **state)
{
    (void)state;
    assert_true(line_difference(5, 6, STATE_LINE) > 20);
    long changed = differing_pixels(&shots[5], &shots[6], WIDTH / 2, HEIGHT / 2, WIDTH, HEIGHT);
    fprintf(stderr, "model region: shot 6 vs 7 (tiles toggled) differ in %ld pixels\n", changed);
    assert_int_equal(changed, 0);
}

int main(void)
{
    if (!have_program("xvfb-run")) {
        fprintf(stderr, "test_viewer: xvfb-run not found (Debian package xvfb); skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(screenshots_have_the_window_size),
        cmocka_unit_test(overlay_is_drawn),
        cmocka_unit_test(sort_line_follows_the_sort_keys),
        cmocka_unit_test(state_line_follows_the_shuffle_key),
        cmocka_unit_test(drag_moves_the_camera),
        cmocka_unit_test(tiles_key_keeps_the_image),
    };
    return cmocka_run_group_tests(tests, run_viewer, clean_up);
}
