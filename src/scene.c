/* scene.c — placeholder until the foundation issue lands. */
#include "scene.h"

int ds_scene_count(void) { return 0; }
const char *ds_scene_name(int index) { (void)index; return ""; }
const char *ds_scene_description(int index) { (void)index; return ""; }
ds_status ds_scene_build(const char *name, size_t triangles, ds_mesh *dest) { (void)triangles; (void)dest; return ds_fail(DS_ERR_NOT_BUILT, "scene %s: not built yet", name); }
ds_status ds_scene_parse(const char *spec, char *name, size_t cap, size_t *triangles) { (void)spec; (void)name; (void)cap; (void)triangles; return DS_ERR_NOT_BUILT; }
