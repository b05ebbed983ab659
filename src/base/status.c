/* SPDX-License-Identifier: MIT */
/* status.c — status strings and the one-line error log (see status.h). */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

/* Per-thread so that concurrent loaders or tests never read each other's
 * message; these are the only mutable globals of the log. */
static _Thread_local char last_error[1024];
static _Thread_local int quiet_log;

static const char *const status_names[DS_STATUS_COUNT] = {
    [DS_OK] = "ok",
    [DS_ERR_INVALID_ARG] = "invalid argument",
    [DS_ERR_IO] = "I/O error",
    [DS_ERR_PARSE] = "parse error",
    [DS_ERR_TOO_LARGE] = "too large",
    [DS_ERR_OUT_OF_MEMORY] = "out of memory",
    [DS_ERR_NO_DEVICE] = "no device",
    [DS_ERR_CUDA] = "CUDA error",
    [DS_ERR_GL] = "OpenGL error",
    [DS_ERR_UNSUPPORTED] = "unsupported",
    [DS_ERR_MISMATCH] = "mismatch",
};

const char *ds_status_str(ds_status status)
{
    if ((unsigned)status >= DS_STATUS_COUNT)
        return "unknown status";
    return status_names[status];
}

ds_status ds_fail(ds_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, args);
    va_end(args);
    if (!quiet_log)
        fprintf(stderr, "depthsort: %s\n", last_error);
    return status;
}

void ds_warn(const char *fmt, ...)
{
    char message[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (!quiet_log)
        fprintf(stderr, "depthsort: warning: %s\n", message);
}

const char *ds_last_error(void) { return last_error; }

void ds_log_set_quiet(int quiet) { quiet_log = quiet; }
