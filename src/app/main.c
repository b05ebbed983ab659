/* SPDX-License-Identifier: MIT */
/* main.c — depthsort's entry: parse the command line, then hand over to
 * --info, the headless runner or the viewer. Holds no algorithm. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "compare.h"
#include "headless.h"
#include "mesh.h"
#include "scene.h"
#include "setup.h"
#include "viewer.h"

/* What --info calls the input's format: the one the loader parsed
 * (mesh.h lists them), or "scene:NAME". */
static void input_format(const ds_options *opts, const ds_mesh *mesh, char *dest, size_t capacity)
{
    if (opts->model_path) {
        snprintf(dest, capacity, "%s", mesh->format ? mesh->format : "unknown");
        return;
    }
    char name[64];
    size_t triangles;
    if (ds_scene_parse(ds_app_scene_spec(opts), name, sizeof name, &triangles) != DS_OK)
        name[0] = '\0';
    snprintf(dest, capacity, "scene:%s", name);
}

/* --info: exactly one machine-readable line on stdout. */
static int print_info(const ds_options *opts)
{
    ds_mesh mesh = {0};
    char format[80] = "";
    double start = ds_now_ms();
    ds_status status = ds_app_build_mesh(opts, &mesh);
    double elapsed = ds_now_ms() - start;
    if (status != DS_OK) /* the one error line is already on stderr */
        return status == DS_ERR_INVALID_ARG ? 2 : 1; /* 2: an option (--grid) asked too much */
    input_format(opts, &mesh, format, sizeof format);
    printf("vertices=%zu triangles=%zu format=%s bounds=%.9g,%.9g,%.9g,%.9g,%.9g,%.9g load_ms=%.3f\n",
           mesh.vertex_count, mesh.triangle_count, format, (double)mesh.bounds_min[0],
           (double)mesh.bounds_min[1], (double)mesh.bounds_min[2], (double)mesh.bounds_max[0],
           (double)mesh.bounds_max[1], (double)mesh.bounds_max[2], elapsed);
    ds_mesh_free(&mesh);
    return 0;
}

int main(int argc, char **argv)
{
    ds_options opts;
    int exit_now = 0;
    if (ds_cli_parse(argc, argv, &opts, &exit_now) != DS_OK)
        return 2;
    if (exit_now)
        return 0;
    if (opts.info)
        return print_info(&opts);
    if (!opts.headless && !ds_viewer_display_available() && opts.script_path) {
        /* A script is keys for the viewer's window: without a display it
         * would silently time the headless orbit instead. */
        ds_fail(DS_ERR_INVALID_ARG, "--script %s: needs a display (DISPLAY or WAYLAND_DISPLAY); "
                "none is set", opts.script_path);
        return 2;
    }
    if (opts.compare)
        return ds_compare_run(&opts); /* headless, with or without --headless */
    if (opts.headless || !ds_viewer_display_available())
        return ds_headless_run(&opts);
    return ds_viewer_run(&opts);
}
