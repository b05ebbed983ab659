/* headless.c — placeholder until the render pipeline issue lands. */
#include "headless.h"

int ds_headless_run(const ds_options *opts) { (void)opts; ds_fail(DS_ERR_NOT_BUILT, "headless: the headless timing run is not built yet"); return 2; }
