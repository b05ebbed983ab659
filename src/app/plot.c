/* SPDX-License-Identifier: MIT */
/* plot.c — --plot DIR (plot.h): the data and a gnuplot script per plot,
 * then gnuplot run on the script (posix_spawnp, waited for), so that the
 * pictures can be made again, or restyled, from the files alone. */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

ds_status ds_plot_check_dir(const char *option, const char *dir)
{
    struct stat info;
    if (stat(dir, &info) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0)
            return ds_fail(DS_ERR_IO, "%s %s: cannot make the folder: %s", option, dir,
                           strerror(errno));
        return DS_OK;
    }
    if (!S_ISDIR(info.st_mode))
        return ds_fail(DS_ERR_IO, "%s %s: not a folder", option, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ds_fail(DS_ERR_IO, "%s %s: cannot write there: %s", option, dir, strerror(errno));
    return DS_OK;
}

/* A gnuplot string in single quotes (a quote inside doubled). */
static void gnuplot_string(FILE *file, const char *text)
{
    fputc('\'', file);
    for (; *text; text++) {
        if (*text == '\'')
            fputc('\'', file);
        fputc(*text, file);
    }
    fputc('\'', file);
}

/* A name as one column header of the data file: in double quotes, with
 * double quotes and backslashes left out. */
static void column_header(FILE *file, const char *text)
{
    fputc('"', file);
    for (; *text; text++)
        if (*text != '"' && *text != '\\')
            fputc(*text, file);
    fputc('"', file);
}

static ds_status write_data(const char *path, const ds_plot_desc *desc)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return ds_fail(DS_ERR_IO, "--plot: %s: cannot open for writing: %s", path,
                       strerror(errno));
    size_t rows = 0;
    fprintf(file, "frame");
    for (int s = 0; s < desc->series_count; s++) {
        fputc(' ', file);
        column_header(file, desc->series[s].name);
        if (desc->series[s].count > rows)
            rows = desc->series[s].count;
    }
    fputc('\n', file);
    for (size_t i = 0; i < rows; i++) {
        fprintf(file, "%zu", i);
        for (int s = 0; s < desc->series_count; s++) {
            const ds_plot_series *series = &desc->series[s];
            double value = i < series->count ? series->values[i] : NAN;
            if (isfinite(value))
                fprintf(file, " %.6g", value);
            else
                fprintf(file, " NaN");
        }
        fputc('\n', file);
    }
    if (ferror(file) | (fclose(file) != 0))
        return ds_fail(DS_ERR_IO, "--plot: %s: write failed", path);
    return DS_OK;
}

static ds_status write_script(const char *path, const char *stem, const ds_plot_desc *desc)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return ds_fail(DS_ERR_IO, "--plot: %s: cannot open for writing: %s", path,
                       strerror(errno));
    char target[4200];
    fprintf(file, "# Written by depthsort --plot; run again with: gnuplot %s\n", path);
    fprintf(file, "set datafile missing 'NaN'\nset key outside right top noenhanced\n"
                  "set grid\nset title noenhanced\nset xlabel ");
    gnuplot_string(file, desc->x_label);
    fprintf(file, "\nset ylabel ");
    gnuplot_string(file, desc->y_label);
    fprintf(file, "\nset title ");
    gnuplot_string(file, desc->title);
    fprintf(file, "\n%s\n", desc->log_y ? "set logscale y" : "set yrange [0:*]");
    static const char *const terminals[2][2] = {
        {"pngcairo size 1280,720 font ',11'", "png"},
        {"pdfcairo size 7in,4in font ',9'", "pdf"}};
    for (int t = 0; t < 2; t++) {
        fprintf(file, "set terminal %s\nset output ", terminals[t][0]);
        snprintf(target, sizeof target, "%s.%s", stem, terminals[t][1]);
        gnuplot_string(file, target);
        fprintf(file, "\nplot for [i=2:%d] ", desc->series_count + 1);
        snprintf(target, sizeof target, "%s.dat", stem);
        gnuplot_string(file, target);
        /* Points of a shape per series, and dashes after the eighth,
         * whose colours gnuplot's default cycle repeats: every line can be
         * told apart, in grey print too. */
        fprintf(file, " using 1:i with linespoints lw 1.5 pt ((i - 2) %% 13 + 1) ps 0.7 "
                      "dt 1 + (i > 9) title columnheader(i)\nunset output\n");
    }
    if (ferror(file) | (fclose(file) != 0))
        return ds_fail(DS_ERR_IO, "--plot: %s: write failed", path);
    return DS_OK;
}

ds_status ds_plot_write(const char *dir, const ds_plot_desc *desc, int *gnuplot_missing)
{
    ds_status status;
    char stem[4096], data[4200], script[4200];
    if (snprintf(stem, sizeof stem, "%s/%s", dir, desc->name) >= (int)sizeof stem)
        return ds_fail(DS_ERR_IO, "--plot %s: path too long", dir);
    snprintf(data, sizeof data, "%s.dat", stem);
    snprintf(script, sizeof script, "%s.gp", stem);
    if ((status = write_data(data, desc)) || (status = write_script(script, stem, desc)))
        return status;
    if (*gnuplot_missing)
        return DS_OK;
    pid_t pid;
    char *const argv[] = {"gnuplot", script, NULL};
    int error = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (error == ENOENT) {
        *gnuplot_missing = 1;
        ds_warn("--plot %s: gnuplot not found (Debian: gnuplot-nox): the data and scripts are "
                "written, no pictures", dir);
        return DS_OK;
    }
    if (error)
        return ds_fail(DS_ERR_IO, "--plot: cannot run gnuplot: %s", strerror(error));
    int wait_status = 0;
    while (waitpid(pid, &wait_status, 0) < 0)
        if (errno != EINTR)
            return ds_fail(DS_ERR_IO, "--plot: waiting for gnuplot: %s", strerror(errno));
    if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
        return ds_fail(DS_ERR_IO, "--plot: gnuplot %s failed (status %d)", script,
                       WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
    return DS_OK;
}
