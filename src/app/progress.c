/* SPDX-License-Identifier: MIT */
/* progress.c — progress.h: a line on stderr while a long run goes on. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "clock.h"

/* Quiet for the first seconds on a terminal: a short run prints nothing
 * extra (--progress shows it from the start). */
#define QUIET_MS 2000.0
/* Redraws in place on a terminal, and full lines off one. */
#define TERMINAL_EVERY_MS 100.0
#define LINE_EVERY_MS 5000.0

void ds_progress_start(ds_progress *progress, int forced)
{
    progress->terminal = isatty(STDERR_FILENO);
    progress->enabled = progress->terminal || forced;
    progress->forced = forced;
    progress->drawn = 0;
    progress->start_ms = ds_now_ms();
    progress->last_ms = -1e30; /* the first update may draw */
}

int ds_progress_enabled(const ds_progress *progress)
{
    return progress->enabled;
}

/* "42 s", "3 min 05 s" */
static void format_seconds(double seconds, char *dest, size_t capacity)
{
    if (seconds < 1.0)
        snprintf(dest, capacity, "under 1 s");
    else if (seconds < 60.0)
        snprintf(dest, capacity, "%.0f s", seconds);
    else
        snprintf(dest, capacity, "%d min %02d s", (int)(seconds / 60.0),
                 (int)seconds % 60);
}

void ds_progress_update(ds_progress *progress, double done, double total, const char *what)
{
    if (!progress->enabled)
        return;
    double now = ds_now_ms(), elapsed = now - progress->start_ms;
    double every = progress->terminal ? TERMINAL_EVERY_MS : LINE_EVERY_MS;
    if ((!progress->forced && elapsed < QUIET_MS) || now - progress->last_ms < every)
        return;
    progress->last_ms = now;
    char spent[32], left[48] = "";
    format_seconds(elapsed / 1000.0, spent, sizeof spent);
    if (done > 0.0 && total > done) {
        char estimate[32];
        format_seconds(elapsed / 1000.0 * (total - done) / done, estimate, sizeof estimate);
        snprintf(left, sizeof left, ", about %s left", estimate);
    }
    if (progress->terminal) {
        /* Clear the line, draw, and return to column 0, so that a warning
         * printed meanwhile starts on a clean line. */
        fprintf(stderr, "\r\033[2Kdepthsort: %s, %s%s\r", what, spent, left);
        progress->drawn = 1;
    } else {
        fprintf(stderr, "depthsort: %s, %s%s\n", what, spent, left);
    }
    fflush(stderr);
}

void ds_progress_finish(ds_progress *progress)
{
    if (progress->drawn) {
        fprintf(stderr, "\r\033[2K");
        fflush(stderr);
    }
    progress->drawn = 0;
}

void ds_progress_format_bytes(double bytes, char *dest, size_t capacity)
{
    if (bytes >= 1e9)
        snprintf(dest, capacity, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(dest, capacity, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(dest, capacity, "%.0f kB", bytes / 1e3);
    else
        snprintf(dest, capacity, "%.0f bytes", bytes);
}
