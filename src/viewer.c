/* viewer.c — placeholder until the viewer issue lands. */
#include "viewer.h"

#include <stdlib.h>

int ds_viewer_display_available(void) { return getenv("DISPLAY") != NULL || getenv("WAYLAND_DISPLAY") != NULL; }
int ds_viewer_run(const ds_options *opts) { (void)opts; ds_fail(DS_ERR_NOT_BUILT, "viewer: the interactive viewer is not built yet"); return 2; }
