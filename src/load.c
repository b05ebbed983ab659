/* load.c — placeholder until the foundation issue lands. */
#include "load.h"

ds_status ds_load_mesh(const char *path, ds_mesh *dest) { (void)dest; return ds_fail(DS_ERR_NOT_BUILT, "%s: loaders not built yet", path); }
