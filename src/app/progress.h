/* SPDX-License-Identifier: MIT */
/* progress.h — a run's progress on stderr, for the headless runner and
 * --compare: "depthsort: sort 2 of 8 (radix): frame 40 of 100, 3.2 s,
 * about 6 s left", redrawn in place on a terminal (at most ten times a
 * second), or one line every few seconds with --progress when stderr is
 * not a terminal. On a terminal nothing shows in the first two seconds,
 * so short runs stay quiet; --progress shows it from the first frame;
 * without a terminal or --progress nothing shows at all. */
#ifndef DS_PROGRESS_H
#define DS_PROGRESS_H

#include <stddef.h>

typedef struct ds_progress {
    int enabled;        /* a terminal, or --progress */
    int forced;         /* --progress: from the first frame */
    int terminal;       /* redraw in place */
    int drawn;          /* a line in place is on the screen */
    double start_ms, last_ms;
} ds_progress;

/* Starts timing. forced: --progress (shown off a terminal too). */
void ds_progress_start(ds_progress *progress, int forced);

/* 1 when progress is shown at all (a terminal, or --progress). */
int ds_progress_enabled(const ds_progress *progress);

/* `done` of `total` units of work finished (frames, over the whole run:
 * the estimate is the elapsed time scaled by what is left); `what` says
 * where the run is ("sort 2 of 8 (radix): frame 40 of 100"). */
void ds_progress_update(ds_progress *progress, double done, double total, const char *what);

/* Clears a line drawn in place, before the run's own output. */
void ds_progress_finish(ds_progress *progress);

/* "123.4 MB": a byte count for a person. */
void ds_progress_format_bytes(double bytes, char *dest, size_t capacity);

#endif
