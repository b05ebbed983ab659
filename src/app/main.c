/* main.c — depthsort's entry: parse the command line, then hand over to
 * --info, the headless runner or the viewer. Holds no algorithm. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "clock.h"
#include "headless.h"
#include "load.h"
#include "mesh.h"
#include "scene.h"
#include "viewer.h"

/* Enough of a PLY header to reach its "format" line, which comes second. */
#define FORMAT_PROBE_BYTES 4096

/* Names a loaded file's format from its first bytes, as --info reports it:
 * ply-ascii, ply-binary-le, ply-binary-be, or obj (the loader accepted it,
 * so anything not PLY is OBJ). */
static const char *file_format(const char *path)
{
    char head[FORMAT_PROBE_BYTES + 1];
    FILE *file = fopen(path, "rb");
    if (!file)
        return "unknown";
    size_t length = fread(head, 1, FORMAT_PROBE_BYTES, file);
    fclose(file);
    head[length] = '\0';
    if (length < 3 || memcmp(head, "ply", 3))
        return "obj";
    for (const char *line = head; line; line = strchr(line, '\n')) {
        while (*line == '\n' || *line == '\r')
            line++;
        if (!strncmp(line, "format", 6) && (line[6] == ' ' || line[6] == '\t')) {
            const char *kind = line + 6 + strspn(line + 6, " \t");
            if (!strncmp(kind, "binary_little_endian", 20))
                return "ply-binary-le";
            if (!strncmp(kind, "binary_big_endian", 17))
                return "ply-binary-be";
            return "ply-ascii";
        }
        if (!strncmp(line, "end_header", 10))
            break;
    }
    return "ply";
}

/* Builds the mesh the options ask for: the model file, or a scene (the
 * default one when neither is given), replicated on the grid. */
static ds_status build_mesh(const ds_options *opts, ds_mesh *dest, char *format, size_t format_capacity)
{
    ds_mesh single = {0};
    ds_status status;
    if (opts->model_path) {
        status = ds_load_mesh(opts->model_path, &single);
        snprintf(format, format_capacity, "%s", file_format(opts->model_path));
    } else {
        char name[64];
        size_t triangles = 0;
        status = ds_scene_parse(opts->scene ? opts->scene : DS_SCENE_DEFAULT, name, sizeof name, &triangles);
        if (status == DS_OK)
            status = ds_scene_build(name, triangles, &single);
        snprintf(format, format_capacity, "scene:%s", name);
    }
    if (status != DS_OK)
        return status;
    if (opts->grid_x == 1 && opts->grid_y == 1) {
        *dest = single;
        return DS_OK;
    }
    status = ds_mesh_grid(&single, opts->grid_x, opts->grid_y, dest);
    ds_mesh_free(&single);
    return status;
}

/* --info: exactly one machine-readable line on stdout. */
static int print_info(const ds_options *opts)
{
    ds_mesh mesh = {0};
    char format[80] = "";
    double start = ds_now_ms();
    ds_status status = build_mesh(opts, &mesh, format, sizeof format);
    double elapsed = ds_now_ms() - start;
    if (status != DS_OK)
        return 1; /* the one error line is already on stderr */
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
    if (opts.headless || !ds_viewer_display_available())
        return ds_headless_run(&opts);
    return ds_viewer_run(&opts);
}
