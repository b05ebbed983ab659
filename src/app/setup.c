/* setup.c — the options turned into a mesh, a renderer description and a
 * starting camera, for --info (main.c), the headless runner and the viewer
 * alike; and the one warning per option that a run ignores. */
#include "setup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "scene.h"

const char *ds_app_scene_spec(const ds_options *opts)
{
    if (opts->model_path)
        return NULL;
    return opts->scene ? opts->scene : DS_SCENE_DEFAULT;
}

/* What error lines call the input: the model file or the scene. */
static const char *input_name(const ds_options *opts)
{
    return opts->model_path ? opts->model_path : ds_app_scene_spec(opts);
}

/* Refuses a --grid whose counts exceed what the mesh holds (uint32 indices,
 * DS_MESH_MAX_ELEMENTS) or, unless only --info is asked for, what the
 * renderer and the chosen sort can take (ds_renderer_check_fits()): from
 * the single copy's counts, before the grid allocates anything. */
static ds_status check_grid_fits(const ds_options *opts, const ds_mesh *single, int nx, int ny)
{
    size_t cells = (size_t)nx * (size_t)ny;
    size_t nv = single->vertex_count, nt = single->triangle_count;
    if ((nv && cells > DS_MESH_MAX_ELEMENTS / nv) || (nt && cells > DS_MESH_MAX_ELEMENTS / nt))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "%s: --grid %dx%d makes %.0f vertices and %.0f triangles; a mesh holds at "
                       "most %u of each (uint32 indices)",
                       input_name(opts), nx, ny, (double)cells * (double)nv,
                       (double)cells * (double)nt, DS_MESH_MAX_ELEMENTS);
    if (opts->info)
        return DS_OK; /* --info draws nothing */
    ds_renderer_desc desc;
    ds_status status = ds_app_renderer_desc(opts, single, &desc);
    if (status == DS_OK)
        status = ds_renderer_check_fits(&desc, cells * nv, cells * nt);
    return status;
}

ds_status ds_app_build_mesh(const ds_options *opts, ds_mesh *dest)
{
    ds_mesh single = {0};
    ds_status status;
    memset(dest, 0, sizeof *dest);
    if (opts->model_path) {
        status = ds_load_mesh(opts->model_path, &single);
    } else {
        char name[64];
        size_t triangles = 0;
        status = ds_scene_parse(ds_app_scene_spec(opts), name, sizeof name, &triangles);
        if (status == DS_OK)
            status = ds_scene_build(name, triangles, &single);
    }
    if (status != DS_OK)
        return status;
    /* Upright first: the grid lays its copies out in the XZ plane of the
     * turned model. */
    ds_mesh_set_up(&single, opts->up);
    int nx = opts->grid_x > 0 ? opts->grid_x : 1, ny = opts->grid_y > 0 ? opts->grid_y : 1;
    if ((status = check_grid_fits(opts, &single, nx, ny))) {
        ds_mesh_free(&single);
        return status;
    }
    if (nx == 1 && ny == 1) {
        *dest = single;
        return DS_OK;
    }
    status = ds_mesh_grid(&single, nx, ny, dest);
    ds_mesh_free(&single);
    return status;
}

const char *ds_app_sort_name(ds_stages_mode stages, ds_sort_algo algo)
{
    return stages == DS_STAGES_GL ? DS_SORT_GL_NAME : ds_sort_algo_name(algo);
}

ds_sort_algo ds_app_first_sort(const char *sort)
{
    if (sort && strcmp(sort, "all") != 0 && strcmp(sort, DS_SORT_GL_NAME) != 0)
        return ds_sort_algo_from_name(sort);
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (!ds_sort_algo_on_host((ds_sort_algo)a))
            return (ds_sort_algo)a;
    return (ds_sort_algo)0;
}

ds_status ds_app_renderer_desc(const ds_options *opts, const ds_mesh *mesh, ds_renderer_desc *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->sort_algo = ds_app_first_sort(opts->sort);
    if (dest->sort_algo == DS_SORT_ALGO_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "unknown sort '%s'", opts->sort);
    dest->stages = opts->stages;
    dest->mesh = mesh;
    dest->width = opts->width;
    dest->height = opts->height;
    dest->shuffle = opts->shuffle;
    dest->primitive = mesh->triangle_count ? opts->primitive : DS_PRIMITIVE_POINTS;
    dest->triangle_key = opts->triangle_key;
    dest->interop = opts->interop;
    dest->alpha = opts->alpha;
    dest->key_bits = opts->key_bits; /* 0 means 32 */
    dest->no_sort = opts->no_sort;
    dest->full_width_keys = opts->full_width_keys;
    dest->cull = opts->cull;
    dest->tiles = opts->tiles;
    dest->tile_pixels = opts->tile_pixels;
    dest->draw_form = opts->draw_form;
    dest->verify = opts->verify;
    dest->color_mode = opts->color_mode;
    memcpy(dest->tint, opts->tint, sizeof dest->tint);
    dest->opacity = opts->opacity;
    dest->msaa = opts->msaa;
    dest->point_size = opts->point_size;
    if (opts->background_given) {
        memcpy(dest->background, opts->background, sizeof opts->background);
        dest->background[3] = 1.0f;
    }
    return DS_OK;
}

/* The first line of --camera-file into dest (without its line end).
 * Returns DS_OK with *found 0 when the file does not exist. */
static ds_status read_camera_line(const char *path, char *dest, size_t capacity, int *found)
{
    *found = 0;
    FILE *file = fopen(path, "r");
    if (!file) {
        if (errno == ENOENT)
            return DS_OK;
        return ds_fail(DS_ERR_IO, "%s: cannot read the camera file: %s", path, strerror(errno));
    }
    errno = 0;
    int got = fgets(dest, (int)capacity, file) != NULL;
    int failed = ferror(file), error = errno;
    fclose(file);
    if (failed)
        return ds_fail(DS_ERR_IO, "%s: cannot read the camera file: %s", path,
                       strerror(error ? error : EIO));
    if (!got)
        return ds_fail(DS_ERR_PARSE, "%s: empty; expected a camera line \"eye=X,Y,Z target=X,Y,Z\"",
                       path);
    size_t length = strlen(dest);
    if (length + 1 == capacity && dest[length - 1] != '\n')
        return ds_fail(DS_ERR_PARSE, "%s: the first line is longer than a camera line (%zu characters)",
                       path, capacity - 2);
    dest[strcspn(dest, "\r\n")] = '\0';
    *found = 1;
    return DS_OK;
}

ds_status ds_app_start_camera(const ds_options *opts, const ds_mesh *mesh, ds_camera *camera,
                              const char **from)
{
    const char *source = NULL;
    ds_status status = DS_OK;
    if (opts->camera) {
        status = ds_camera_parse(opts->camera, "--camera", camera);
        source = "--camera";
    } else if (opts->camera_file) {
        char line[2 * DS_CAMERA_LINE_MAX];
        int found = 0;
        status = read_camera_line(opts->camera_file, line, sizeof line, &found);
        if (status == DS_OK && found) {
            status = ds_camera_parse(line, opts->camera_file, camera);
            source = opts->camera_file;
        }
    }
    if (status != DS_OK)
        return status;
    if (source)
        ds_camera_enclose(camera, mesh->center, mesh->radius);
    if (from)
        *from = source;
    return DS_OK;
}

void ds_app_warn_ignored(const ds_options *opts, const ds_mesh *mesh, const ds_renderer *renderer)
{
    static const char *const key_names[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
    int points = ds_renderer_primitive(renderer) == DS_PRIMITIVE_POINTS;
    if (opts->primitive_given && opts->primitive == DS_PRIMITIVE_TRIANGLES && points &&
        mesh->triangle_count == 0)
        ds_warn("--primitive triangles: %s has no triangles; drawing its points", input_name(opts));
    if (points && opts->triangle_key != DS_TRIANGLE_KEY_FARTHEST &&
        (unsigned)opts->triangle_key < DS_TRIANGLE_KEY_COUNT)
        ds_warn("--key %s: points are sorted by their own distance; the triangle key does not apply",
                key_names[opts->triangle_key]);
    if (points && opts->draw_form != DS_DRAW_AUTO)
        ds_warn("--draw %s: applies to triangles; points are drawn as splats",
                opts->draw_form == DS_DRAW_PULL ? "pull" : "indexed");
    if (!points && opts->point_size > 0.0f)
        ds_warn("--point-size: applies to points; this run draws triangles");
    if (opts->shuffle && !opts->no_sort && opts->stages == DS_STAGES_GL)
        ds_warn("--shuffle: the GL stages do not shuffle; with the shuffle on the frames run the "
                "sorter path (%s)", ds_sort_algo_name(ds_renderer_sort(renderer)));
    if (opts->no_sort) {
        if (opts->shuffle)
            ds_warn("--shuffle: nothing is sorted with --no-sort");
        if (!points && opts->triangle_key != DS_TRIANGLE_KEY_FARTHEST &&
            (unsigned)opts->triangle_key < DS_TRIANGLE_KEY_COUNT)
            ds_warn("--key %s: nothing is sorted with --no-sort", key_names[opts->triangle_key]);
        if (opts->key_bits && opts->key_bits != 32)
            ds_warn("--key-bits %d: nothing is sorted with --no-sort", opts->key_bits);
        if (!points && opts->draw_form == DS_DRAW_PULL)
            ds_warn("--draw pull: unsorted frames draw indexed in mesh order");
    }
    if (opts->cull == DS_CULL_ON && !ds_renderer_culling(renderer))
        ds_warn("--cull on: culling needs triangles, sorting and one sample per pixel; it is off in "
                "this run");
    int tiles = ds_renderer_tiles(renderer) && !opts->no_sort; /* tiles bin the sorted list */
    if (opts->tiles == DS_TILES_ON && !tiles)
        ds_warn("--tiles on: tiles need sorting; they are off in this run");
    if (opts->tile_pixels && !tiles && opts->tiles != DS_TILES_ON)
        ds_warn("--tile-pixels %d: tiles are off in this run", opts->tile_pixels);
    if (!points && opts->draw_form == DS_DRAW_PULL && ds_renderer_draw_form(renderer) != DS_DRAW_PULL)
        ds_warn("--draw pull: this GL lacks the vertex-stage storage blocks it needs; drawing indexed");
    ds_color_mode color = ds_renderer_color_mode(renderer);
    if (opts->color_mode != DS_COLOR_AUTO && color != opts->color_mode)
        ds_warn("--color %s: %s has no colours; using %s", ds_color_mode_name(opts->color_mode),
                input_name(opts), ds_color_mode_name(color));
    if ((opts->tint[0] > 0.0f || opts->tint[1] > 0.0f || opts->tint[2] > 0.0f) && color != DS_COLOR_TINT)
        ds_warn("--tint: applies to --color tint; colouring by %s", ds_color_mode_name(color));
}
