/* SPDX-License-Identifier: MIT */
/* scene.h — built-in procedural scenes that stress transparency ordering,
 * each scaling with a size parameter (approximate triangle count) from
 * thousands to tens of millions. */
#ifndef DS_SCENE_H
#define DS_SCENE_H

#include <stddef.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the default scene used when no model is given. */
#define DS_SCENE_DEFAULT "gyroid"
#define DS_SCENE_DEFAULT_SIZE 1000000

/* Number of built-in scenes and their names, for --help. */
int ds_scene_count(void);
const char *ds_scene_name(int index);
const char *ds_scene_description(int index);

/* Builds scene `name` with about `triangles` triangles (0: its default) into
 * a finished mesh. Errors: DS_ERR_INVALID_ARG (unknown name, listing the
 * known ones), DS_ERR_TOO_LARGE, DS_ERR_OUT_OF_MEMORY. */
ds_status ds_scene_build(const char *name, size_t triangles, ds_mesh *dest);

/* Parses "NAME[:SIZE]" (SIZE may end in k or M) as --scene takes it. */
ds_status ds_scene_parse(const char *spec, char *name, size_t name_capacity,
                         size_t *triangles);

#ifdef __cplusplus
}
#endif
#endif
