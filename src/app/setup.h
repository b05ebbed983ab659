/* setup.h — what --info, the headless runner and the viewer share between
 * the command line and the renderer: the mesh the options name, and the
 * renderer description the options ask for. One function each, so that the
 * three entry points cannot drift apart. */
#ifndef DS_SETUP_H
#define DS_SETUP_H

#include "cli.h"
#include "mesh.h"
#include "renderer.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scene the options name: --scene as given, or the default scene when
 * neither a model nor --scene was given. NULL when a model file was given. */
const char *ds_app_scene_spec(const ds_options *opts);

/* Builds the mesh the options ask for: the model file, or the scene of
 * ds_app_scene_spec(), replicated on the --grid. *dest is the caller's to
 * free with ds_mesh_free(). Errors are the loader's or the scene
 * builder's (already logged), or DS_ERR_OUT_OF_MEMORY. */
ds_status ds_app_build_mesh(const ds_options *opts, ds_mesh *dest);

/* The sort a run starts with: --sort NAME, or for --sort all (and no
 * --sort) the first algorithm in registry order that runs on the GPU.
 * DS_SORT_ALGO_COUNT for an unknown name. */
ds_sort_algo ds_app_first_sort(const char *sort);

/* Fills *dest, zeroed first, with everything the options say about the
 * renderer for `mesh`: size, first sort, shuffle, primitive (points when
 * the mesh has no triangles), triangle key, interop, alpha, key bits,
 * sorting, culling, tiles and tile size, draw form and --verify. The
 * background is left zero: each runner picks its own. Errors:
 * DS_ERR_INVALID_ARG for an unknown --sort name (logged). */
ds_status ds_app_renderer_desc(const ds_options *opts, const ds_mesh *mesh, ds_renderer_desc *dest);

#ifdef __cplusplus
}
#endif
#endif
