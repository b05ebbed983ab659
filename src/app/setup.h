/* SPDX-License-Identifier: MIT */
/* setup.h — what --info, the headless runner and the viewer share between
 * the command line and the renderer: the mesh the options name, the
 * renderer description and the starting camera the options ask for, and
 * the warnings for options a run ignores. One function each, so that the
 * three entry points cannot drift apart. */
#ifndef DS_SETUP_H
#define DS_SETUP_H

#include "camera.h"
#include "cli.h"
#include "mesh.h"
#include "progress.h"
#include "renderer.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scene the options name: --scene as given, or the default scene when
 * neither a model nor --scene was given. NULL when a model file was given. */
const char *ds_app_scene_spec(const ds_options *opts);

/* Builds the mesh the options ask for: the model file, or the scene of
 * ds_app_scene_spec(), turned so that --up points to +Y, then replicated
 * on the --grid. Before the grid allocates anything, the counts it would
 * make are checked against DS_MESH_MAX_ELEMENTS and (unless opts->info)
 * ds_renderer_check_fits() for the renderer the options describe. *dest
 * is the caller's to free with ds_mesh_free(). Errors are the loader's or
 * the scene builder's (already logged), DS_ERR_TOO_LARGE, or
 * DS_ERR_OUT_OF_MEMORY. */
ds_status ds_app_build_mesh(const ds_options *opts, ds_mesh *dest);

/* A runner's load: *progress started (--progress), ds_app_build_mesh(),
 * then, where progress shows, one line on stderr that names the model or
 * scene, what it holds (ds_app_describe_load()) and the seconds taken. */
ds_status ds_app_load_mesh(const ds_options *opts, ds_progress *progress, ds_mesh *dest);

/* What sorted a frame, as the app names it everywhere: DS_SORT_GL_NAME
 * ("gl") when `stages` is DS_STAGES_GL (ds_frame_timings.stages,
 * ds_renderer_stages()), else the registry name of `algo`. */
const char *ds_app_sort_name(ds_stages_mode stages, ds_sort_algo algo);

/* The sort a run without --sort starts with, and why (the renderer's
 * DS_STAGES_AUTO choice, ds_renderer_stages_why()): "sort gl (no CUDA in
 * this build)"; "" when --sort named a sort or all, or with --no-sort. For the one line
 * each runner prints when its renderer is made. */
void ds_app_describe_default_sort(const ds_options *opts, const ds_renderer *renderer,
                                  char *dest, size_t capacity);

/* The sorter a run starts with: --sort NAME, or for --sort gl, --sort all
 * (and no --sort) the first algorithm in registry order that runs on the
 * GPU (with gl it serves only the shuffle); DS_SORT_CPU for a sort this
 * build lacks, or when it has none on the GPU. DS_SORT_ALGO_COUNT for an
 * unknown name. */
ds_sort_algo ds_app_first_sort(const char *sort);

/* The registry's sorts this build lacks (the CUDA ones in a build without
 * CUDA), as "cub, radix, ..." into dest (truncated to fit); returns how
 * many. */
int ds_app_missing_sorts(char *dest, size_t capacity);

/* Where a run ran, for its reports: the CPU ("model name" of
 * /proc/cpuinfo and the threads online) and the OS (/etc/os-release's
 * PRETTY_NAME, then uname's system, release and machine). Never fails:
 * "unknown" where nothing can be read. */
void ds_app_host_info(char *cpu, size_t cpu_capacity, char *os, size_t os_capacity);

/* The command line of the run (opts->argv), quoted for a POSIX shell
 * where a word needs it, truncated to fit. */
void ds_app_command_line(const ds_options *opts, char *dest, size_t capacity);

/* What a load made, for its one line: "8,862 vertices, 17,599 triangles,
 * 335 kB at 15.2 MB/s" (the file's size and the rate of the whole load,
 * load_ms; a built-in scene has no bytes). */
/* n with thousands separators ("1,234,567") into dest, truncated to
 * capacity (including the terminating NUL). */
void ds_app_format_count(size_t n, char *dest, size_t capacity);

void ds_app_describe_load(const ds_options *opts, const ds_mesh *mesh, double load_ms,
                          char *dest, size_t capacity);

/* In a build that lacks sorts, one line on stderr that names them; each
 * runner says it once, when its run starts. */
void ds_app_note_missing_sorts(void);

/* Fills *dest, zeroed first, with everything the options say about the
 * renderer for `mesh`: size, first sort, where the stages run (opts->
 * stages), shuffle, primitive (points when
 * the mesh has no triangles), triangle key, interop, alpha, key bits,
 * sorting, culling, tiles and tile size, draw form, --verify, colour mode
 * and tint, opacity mode, MSAA, point size, and the background: the
 * --background colour (opaque), or else ds_app_default_background(), the
 * one default of the viewer, headless runs and --compare.
 * Errors: DS_ERR_INVALID_ARG for an unknown --sort name (logged). */
ds_status ds_app_renderer_desc(const ds_options *opts, const ds_mesh *mesh, ds_renderer_desc *dest);

/* The view a run starts from. `camera` comes in framed by the caller (its
 * own pitch, ds_camera_frame()); --camera, or else the first line of
 * --camera-file when that file exists, replaces its target, distance, yaw,
 * pitch and field of view, and near/far are set to enclose the mesh.
 * *from (may be NULL) is set to what the view came from: "--camera", the
 * camera file's path, or NULL for the caller's framing. Errors:
 * DS_ERR_PARSE (a malformed line, logged naming the option or the file),
 * DS_ERR_IO (the camera file exists but cannot be read). */
ds_status ds_app_start_camera(const ds_options *opts, const ds_mesh *mesh, ds_camera *camera,
                              const char **from);

/* ds_app_start_camera() for a measured run (headless, --compare), whose
 * numbers must be for the view asked for: a --camera-file that exists but
 * is no camera line is refused (DS_ERR_PARSE), its one line saying why
 * (the viewer instead warns and starts framed: a person sees the view,
 * and its L key writes a good line). Errors as ds_app_start_camera(). */
ds_status ds_app_start_camera_measured(const ds_options *opts, const ds_mesh *mesh,
                                       ds_camera *camera);

/* The clear colour without --background, opaque: a light grey (the
 * viewer's B toggles it with a dark one), against which a translucent
 * model's far surfaces show where a dark one hides them. */
void ds_app_default_background(float dest[4]);

/* The run's input as the tables name it: the model file's name without
 * its folder, or "scene:NAME:SIZE". */
void ds_app_input_label(const ds_options *opts, char *dest, size_t capacity);

/* Now, in UTC, as ISO 8601 ("2026-11-29T07:02:49Z"), or "unknown". */
void ds_app_timestamp(char *dest, size_t capacity);

/* Logs one warning line for each option that this run ignores, as the
 * created renderer shows it: --primitive triangles on a point cloud; --key
 * or --draw in points mode; --point-size with triangles; --shuffle with
 * --sort gl (the GL stages do not shuffle); --shuffle, --key,
 * --key-bits with --no-sort; --cull on, --tiles on, --tile-pixels,
 * --draw pull, --color, --tint where the renderer does otherwise; a --sort
 * this build lacks (run as cpu). Call once
 * per run, after ds_renderer_create(). */
void ds_app_warn_ignored(const ds_options *opts, const ds_mesh *mesh, const ds_renderer *renderer);

#ifdef __cplusplus
}
#endif
#endif
