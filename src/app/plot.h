/* SPDX-License-Identifier: MIT */
/* plot.h — --plot DIR: line plots of per-frame series (frame times, image
 * error) drawn by gnuplot (Debian's gnuplot-nox), for the headless runner
 * and --compare. Each plot NAME is three files and two pictures in DIR:
 * NAME.dat (the data, one column per series, NaN where a series has no
 * value), NAME.gp (the gnuplot script, to edit and run again), NAME.png
 * and NAME.pdf. Without gnuplot the data and the script are still
 * written, and one line says that no picture was drawn. */
#ifndef DS_PLOT_H
#define DS_PLOT_H

#include <stddef.h>

#include "status.h"

/* One line of a plot: count values at x = 0, 1, 2, ...; NaN: no value. */
typedef struct ds_plot_series {
    const char *name;
    const double *values;
    size_t count;
} ds_plot_series;

typedef struct ds_plot_desc {
    const char *name;    /* file stem: letters, digits, '-' and '_' */
    const char *title;
    const char *x_label;
    const char *y_label;
    const ds_plot_series *series;
    int series_count;
    int log_y;           /* a logarithmic y axis (values <= 0 not drawn) */
} ds_plot_desc;

/* Checks (and makes, one level) DIR before anything is loaded, as
 * --diff-dir is checked. Errors: DS_ERR_IO naming DIR. */
ds_status ds_plot_check_dir(const char *option, const char *dir);

/* Writes the plot's data and script into `dir` and runs gnuplot on it.
 * *gnuplot_missing (in and out): set when gnuplot was not found, which is
 * said once (one warning line) and is no error. Errors: DS_ERR_IO (a file
 * could not be written, or gnuplot failed: its status is named). */
ds_status ds_plot_write(const char *dir, const ds_plot_desc *desc, int *gnuplot_missing);

#endif
