/* headless.h — the headless frame-timing runner (EGL, no window). */
#ifndef DS_HEADLESS_H
#define DS_HEADLESS_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the scripted orbit for opts->frames frames per selected sort and
 * prints/writes the timing tables. Returns the process exit status. */
int ds_headless_run(const ds_options *opts);

#ifdef __cplusplus
}
#endif
#endif
