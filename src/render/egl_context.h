/* SPDX-License-Identifier: MIT */
/* egl_context.h — a headless OpenGL 4.5 core context through EGL, no window.
 *
 * On NVIDIA: enumerates EGL devices (EGL_EXT_device_enumeration) and picks
 * the one that is the current CUDA device (EGL_NV_device_cuda), confirmed
 * with cudaGLGetDevices. Elsewhere (Mesa llvmpipe, CI): the surfaceless
 * platform (EGL_MESA_platform_surfaceless). The context has no default
 * framebuffer; draw into a framebuffer object. On success GL is loaded
 * through glad and the context is current on the calling thread.
 */
#ifndef DS_EGL_CONTEXT_H
#define DS_EGL_CONTEXT_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_egl_context ds_egl_context;

/* debug nonzero: a debug context (KHR_debug reports everything). Errors:
 * DS_ERR_NO_DEVICE (no EGL display offers GL 4.5 core), DS_ERR_GL. */
ds_status ds_egl_context_create(int debug, ds_egl_context **dest);

/* Releases and destroys the context; NULL is allowed. */
void ds_egl_context_destroy(ds_egl_context *context);

/* How the display was found: "device (CUDA 0)", "default", "surfaceless". */
const char *ds_egl_context_platform(const ds_egl_context *context);

#ifdef __cplusplus
}
#endif
#endif
