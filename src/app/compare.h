/* SPDX-License-Identifier: MIT */
/* compare.h — the headless transparency comparison (--compare LIST): each
 * listed technique's image error against the exact reference (the
 * A-buffer) and its frame time, over the headless orbit. */
#ifndef DS_COMPARE_H
#define DS_COMPARE_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The heatmaps --diff-dir writes saturate at this many 8-bit levels of
 * error (their names end in -heat-0-16.png). */
#define DS_COMPARE_HEAT_LEVELS 16

/* Runs the comparison that opts->compare asks for and prints / writes its
 * table (stdout, --json, --csv, --diff-dir). Every input is checked before
 * the first frame: the output paths, the list against the primitive, the
 * image size against the metrics' limits and the A-buffer's first pool.
 * Returns the process exit status: 0, 1 (a failure, one line on stderr)
 * or 2 (a bad combination of options). */
int ds_compare_run(const ds_options *opts);

#ifdef __cplusplus
}
#endif
#endif
