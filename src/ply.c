/* ply.c — placeholder until the foundation issue lands. */
#include "load.h"

ds_status ds_load_ply_memory(const void *data, size_t size, const char *name, ds_mesh *dest) { (void)data; (void)size; (void)dest; return ds_fail(DS_ERR_NOT_BUILT, "%s: PLY loader not built yet", name); }
