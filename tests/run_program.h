/* SPDX-License-Identifier: MIT */
/* run_program.h — for tests that run the depthsort program itself
 * (DS_DEPTHSORT, set by tests/CMakeLists.txt): one child process in a work
 * folder, its exit status, its time and its output. Include after
 * <cmocka.h>; header-only (each test is one translation unit). */
#ifndef DS_RUN_PROGRAM_H
#define DS_RUN_PROGRAM_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "read_text.h"

#ifndef DS_DEPTHSORT
#error "DS_DEPTHSORT must name the depthsort executable"
#endif

#define RUN_MAX_ARGS 48

typedef struct run_result {
    int exit_status; /* -1: killed by a signal */
    double seconds;  /* wall time of the run */
    char out[65536];
    char err[16384];
} run_result;

static inline double run_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs depthsort in work_dir with `args` (NULL-terminated); no_display
 * clears DISPLAY and WAYLAND_DISPLAY for it. Result in *dest (large: the
 * caller passes a static one). */
static inline void run_program(const char *work_dir, const char *const *args, int no_display,
                               run_result *dest)
{
    char *argv[RUN_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)DS_DEPTHSORT;
    for (; *args; args++) {
        assert_true(argc < RUN_MAX_ARGS);
        argv[argc++] = (char *)*args;
    }
    argv[argc] = NULL;
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", work_dir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", work_dir);
    fflush(stdout);
    fflush(stderr);
    double start = run_now_seconds();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(work_dir) != 0 || !freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr))
            _exit(127);
        if (no_display) {
            unsetenv("DISPLAY");
            unsetenv("WAYLAND_DISPLAY");
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int wait_status = 0;
    assert_int_equal(waitpid(pid, &wait_status, 0), pid);
    dest->seconds = run_now_seconds() - start;
    dest->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    read_text(out_path, dest->out, sizeof dest->out);
    read_text(err_path, dest->err, sizeof dest->err);
}

#endif
