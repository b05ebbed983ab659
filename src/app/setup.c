/* setup.c — the options turned into a mesh and a renderer description, for
 * --info (main.c), the headless runner and the viewer alike. */
#include "setup.h"

#include <string.h>

#include "load.h"
#include "scene.h"

const char *ds_app_scene_spec(const ds_options *opts)
{
    if (opts->model_path)
        return NULL;
    return opts->scene ? opts->scene : DS_SCENE_DEFAULT;
}

ds_status ds_app_build_mesh(const ds_options *opts, ds_mesh *dest)
{
    ds_mesh single = {0};
    ds_status status;
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
    if (opts->grid_x <= 1 && opts->grid_y <= 1) {
        *dest = single;
        return DS_OK;
    }
    status = ds_mesh_grid(&single, opts->grid_x > 0 ? opts->grid_x : 1,
                          opts->grid_y > 0 ? opts->grid_y : 1, dest);
    ds_mesh_free(&single);
    return status;
}

ds_sort_algo ds_app_first_sort(const char *sort)
{
    if (sort && strcmp(sort, "all") != 0)
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
    dest->cull = opts->cull;
    dest->tiles = opts->tiles;
    dest->tile_pixels = opts->tile_pixels;
    dest->draw_form = opts->draw_form;
    dest->verify = opts->verify;
    return DS_OK;
}
