/* SPDX-License-Identifier: MIT */
/* viewer_run.h — for tests that run the interactive viewer (DS_DEPTHSORT)
 * under Xvfb with Mesa (llvmpipe gives GL 4.5 core through GLX), drive it
 * with a --script and read its screenshots back: whether xvfb-run is on
 * the PATH, one scripted run in a work folder, a PNG as RGBA, removing
 * the folder. Include after <cmocka.h> and stb_image.h; header-only (each
 * test is one translation unit). */
#ifndef DS_VIEWER_RUN_H
#define DS_VIEWER_RUN_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read_text.h"

#ifndef DS_DEPTHSORT
#error "DS_DEPTHSORT must name the depthsort executable"
#endif

/* A screenshot read back: width × height RGBA pixels (stbi_image_free). */
typedef struct image {
    int width, height;
    uint8_t *rgba;
} image;

/* Whether an executable `name` is in a folder of $PATH. */
static inline int have_program(const char *name)
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

/* Whether xvfb-run is missing; then it says so on stderr, naming `test`
 * and the Debian package, and the test exits 77 (skipped). */
static inline int viewer_xvfb_missing(const char *test)
{
    if (have_program("xvfb-run"))
        return 0;
    fprintf(stderr, "%s: xvfb-run not found (Debian package xvfb); skipped\n", test);
    return 1;
}

/* Writes `text` to the file at `path`: 0, or -1 when it cannot. */
static inline int viewer_write_script(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    int written = fputs(text, file) >= 0;
    return fclose(file) == 0 && written ? 0 : -1;
}

/* Reads the exit status a run wrote to `path` (echo $?), or -1. */
static inline int viewer_read_code(const char *path)
{
    int code = -1;
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    if (fscanf(file, "%d", &code) != 1)
        code = -1;
    fclose(file);
    return code;
}

/* Runs the viewer in work_dir on an Xvfb server started with
 * `server_args` (its -screen and any other Xvfb options, shell words) as
 * `DS_DEPTHSORT ARGS --no-vsync --script SCRIPT_PATH`
 * (`args` is shell words, quoted by the caller). With a `driver` (a shell
 * command, or NULL), the driver runs on the same X display beside the
 * viewer, given the viewer's process id as its last word, and its exit
 * status goes to *driver_status (-1 if it did not exit). Their stdout and
 * stderr go to work_dir/NAME.log, and from there into `log` (also echoed
 * to stderr). Returns the viewer's exit status, or -1 if it did not exit
 * on its own. */
static inline int viewer_run_on(const char *work_dir, const char *name, const char *server_args,
                                const char *args, const char *script_path, const char *driver,
                                int *driver_status, char *log, size_t log_capacity)
{
    char log_path[300], code_path[300], driver_path[300], command[4096];
    snprintf(log_path, sizeof log_path, "%s/%s.log", work_dir, name);
    snprintf(code_path, sizeof code_path, "%s/%s.code", work_dir, name);
    snprintf(driver_path, sizeof driver_path, "%s/%s.driver", work_dir, name);
    remove(code_path);
    remove(driver_path);
    /* LeakSanitizer is off for the viewer process only: Mesa's driver is
     * unloaded (dlclose) before the leak check, so its one-time allocations
     * cannot be told from ours or suppressed by name. AddressSanitizer
     * and UBSan stay on. `timeout` ends the run if the script does not.
     * The viewer's own exit status goes to NAME.code: xvfb-run returns its
     * own (5) when it fails to clean up its temporary directory afterwards.
     * The driver reaches the shell through the environment, so that its
     * own quotes need no second quoting. */
    char body[1024];
    if (driver) {
        setenv("DS_VIEWER_DRIVER", driver, 1);
        snprintf(body, sizeof body,
                 "\"$0\" \"$@\" & pid=$!; eval \"$DS_VIEWER_DRIVER $pid\"; echo $? > \"%s\"; "
                 "wait $pid; echo $? > \"%s\"",
                 driver_path, code_path);
    } else {
        snprintf(body, sizeof body, "\"$0\" \"$@\"; echo $? > \"%s\"", code_path);
    }
    snprintf(command, sizeof command,
             "cd '%s' && ASAN_OPTIONS=detect_leaks=0 timeout 120 xvfb-run -a -s '%s' "
             "sh -c '%s' '%s' %s --no-vsync --script '%s' > '%s' 2>&1",
             work_dir, server_args, body, DS_DEPTHSORT, args, script_path, log_path);
    int status = system(command);
    if (driver) {
        unsetenv("DS_VIEWER_DRIVER");
        *driver_status = viewer_read_code(driver_path);
    }
    read_text(log_path, log, log_capacity);
    fprintf(stderr, "viewer log (%s):\n%s", name, log);
    int code = viewer_read_code(code_path);
    if (code >= 0 || access(code_path, F_OK) == 0)
        return code;
    /* No code: the run never ended on its own (timeout) or never began. */
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* viewer_run_on() on a screen of screen_width × screen_height, 24 bits. */
static inline int viewer_run_driven(const char *work_dir, const char *name, int screen_width,
                                    int screen_height, const char *args, const char *script_path,
                                    const char *driver, int *driver_status, char *log,
                                    size_t log_capacity)
{
    char server_args[64];
    snprintf(server_args, sizeof server_args, "-screen 0 %dx%dx24", screen_width, screen_height);
    return viewer_run_on(work_dir, name, server_args, args, script_path, driver, driver_status,
                         log, log_capacity);
}

/* viewer_run_driven() without a driver. */
static inline int viewer_run(const char *work_dir, const char *name, int screen_width,
                             int screen_height, const char *args, const char *script_path,
                             char *log, size_t log_capacity)
{
    return viewer_run_driven(work_dir, name, screen_width, screen_height, args, script_path, NULL,
                             NULL, log, log_capacity);
}

/* Reads work_dir/NAME.png into *dest: 0, or -1 with a line on stderr. */
static inline int viewer_load_png(const char *work_dir, const char *name, image *dest)
{
    char path[300];
    int channels;
    snprintf(path, sizeof path, "%s/%s.png", work_dir, name);
    dest->rgba = stbi_load(path, &dest->width, &dest->height, &channels, 4);
    if (!dest->rgba) {
        fprintf(stderr, "%s: %s\n", path, stbi_failure_reason());
        return -1;
    }
    return 0;
}

/* Frees `count` screenshots read by viewer_load_png (or never read). */
static inline void viewer_free_images(image *images, int count)
{
    for (int i = 0; i < count; i++)
        stbi_image_free(images[i].rgba);
}

/* Removes the files in work_dir and the folder, unless TEST_VIEWER_KEEP
 * is set (then it keeps them for a look and says where). */
static inline void viewer_remove_work_dir(const char *work_dir)
{
    char path[600];
    if (getenv("TEST_VIEWER_KEEP")) {
        fprintf(stderr, "screenshots kept in %s\n", work_dir);
        return;
    }
    DIR *dir = opendir(work_dir);
    struct dirent *entry;
    while (dir && (entry = readdir(dir)))
        if (entry->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", work_dir, entry->d_name);
            unlink(path);
        }
    if (dir)
        closedir(dir);
    rmdir(work_dir);
}

#endif
