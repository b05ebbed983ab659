/* SPDX-License-Identifier: MIT */
/* viewer.h — the interactive GLFW viewer with the timing overlay. */
#ifndef DS_VIEWER_H
#define DS_VIEWER_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a display is available for a window (DISPLAY or WAYLAND_DISPLAY). */
int ds_viewer_display_available(void);

/* Opens the window and runs until closed. Returns the process exit status. */
int ds_viewer_run(const ds_options *opts);

#ifdef __cplusplus
}
#endif
#endif
