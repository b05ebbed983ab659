/* SPDX-License-Identifier: MIT */
/* status.h — the one status type every fallible depthsort call returns, and
 * the error log.
 *
 * Contract: a function that can fail on input, files, drivers or memory
 * returns a ds_status and, on failure, has already logged exactly one line
 * through ds_log_error() naming the file or subsystem and what was wrong
 * ("dragon.ply: line 12: face 7 uses vertex 91234 but the file has 437645
 * vertices"). The caller only propagates the status; it does not log again.
 */
#ifndef DS_STATUS_H
#define DS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ds_status {
    DS_OK = 0,
    DS_ERR_INVALID_ARG,   /* a caller passed something the contract forbids */
    DS_ERR_IO,            /* open/read/write/mmap failed */
    DS_ERR_PARSE,         /* malformed or truncated file */
    DS_ERR_TOO_LARGE,     /* a count or size beyond what we accept */
    DS_ERR_OUT_OF_MEMORY, /* host allocation failed */
    DS_ERR_NO_DEVICE,     /* no CUDA device, or no usable GL/EGL display */
    DS_ERR_CUDA,          /* a CUDA call or launch failed (incl. device OOM) */
    DS_ERR_GL,            /* GL/EGL failure, GL debug error */
    DS_ERR_UNSUPPORTED,   /* a feature the driver or platform lacks */
    DS_ERR_MISMATCH,      /* a verification found a wrong result */
    DS_STATUS_COUNT
} ds_status;

/* Short constant description of a status ("parse error"). Never NULL. */
const char *ds_status_str(ds_status status);

/* Logs one error line to stderr as "depthsort: <message>\n" and keeps the
 * message as this thread's last error. Returns `status` so that failure
 * paths read `return ds_fail(DS_ERR_PARSE, "%s: line %d: ...", ...)`. */
ds_status ds_fail(ds_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Logs a warning line ("depthsort: warning: ...") without failing. */
void ds_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The message of this thread's last ds_fail(), "" if none. Tests read it to
 * check that the right error was reported. */
const char *ds_last_error(void);

/* Silences (quiet != 0) or restores printing to stderr; messages are still
 * kept for ds_last_error(). Used by tests and fuzzers. */
void ds_log_set_quiet(int quiet);

#ifdef __cplusplus
}
#endif
#endif
