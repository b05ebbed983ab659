/* SPDX-License-Identifier: MIT */
/* x11_present.h — shows GL frames in a GLFW window that has no GL of its
 * own (GLFW_CLIENT_API = GLFW_NO_API), the way VirtualGL does: the frame
 * is drawn into a framebuffer object of this module's, read back and put
 * into the X window with Xlib (MIT-SHM's XShmPutImage where the server
 * offers it, else XPutImage).
 *
 * Why: GLX needs the GL vendor's X server side. A GPU without it (cloud
 * and compute GPUs under Xvfb or VNC, where NVIDIA's GLX client finds no
 * GLXFBConfig) still gives a headless EGL context on the device
 * (egl_context.h), and CUDA-GL interop with it; this puts that context's
 * pictures into an ordinary X window, whose input stays GLFW's.
 *
 * Step by step (a GL 4.5 context current, e.g. ds_egl_context_create()):
 *   ds_x11_present *present;
 *   ds_x11_present_create(window, &present);
 *   each frame:
 *     ds_x11_present_resize(present, width, height);  // the window's
 *                                                     // framebuffer size
 *     draw into ds_x11_present_framebuffer(present);
 *     ds_x11_present_frame(present);
 *   ds_x11_present_destroy(present);
 *
 * The window shows each frame one frame later: a frame's pixels are read
 * into a pixel buffer object without waiting, and once the next frame has
 * been submitted a thread of this module's copies them into the window,
 * so that the GPU, the render loop and the copy overlap as with a swap
 * chain. A frame that is ready while that thread still copies the one
 * before is not shown: the render loop never waits for the copy. There
 * is no vsync.
 */
#ifndef DS_X11_PRESENT_H
#define DS_X11_PRESENT_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_x11_present ds_x11_present;

/* For `window` (a GLFWwindow * on GLFW's X11 platform, made with
 * GLFW_NO_API). Errors: DS_ERR_UNSUPPORTED (not an X11 window, or its
 * visual is not 24-bit TrueColor), DS_ERR_OUT_OF_MEMORY. */
ds_status ds_x11_present_create(void *window, ds_x11_present **dest);

/* Waits for the frame being copied into the window, then frees the
 * thread, the framebuffer, the pixel buffers and the image; NULL is
 * allowed. The GL context must be current. */
void ds_x11_present_destroy(ds_x11_present *present);

/* Makes the framebuffer (colour RGBA8, depth 24) and the image at
 * width x height; a no-op at the current size. Waits for the frame being
 * copied into the window; a frame still in flight at the old size is
 * dropped. Errors: DS_ERR_INVALID_ARG (non-positive
 * size), DS_ERR_GL, DS_ERR_OUT_OF_MEMORY. */
ds_status ds_x11_present_resize(ds_x11_present *present, int width, int height);

/* The framebuffer to draw the window's picture into (0 before the first
 * resize). */
unsigned ds_x11_present_framebuffer(const ds_x11_present *present);

/* Reads this frame back (without waiting, or with finish_read_back
 * until it has reached host memory), waits for the previous one's
 * read-back and hands it to the thread that puts it into the window, or
 * drops it where that thread is still busy. Errors: DS_ERR_GL (a
 * read-back that never completed). */
ds_status ds_x11_present_frame(ds_x11_present *present, int finish_read_back);

/* How frames reach the window: "MIT-SHM" or "XPutImage". */
const char *ds_x11_present_method(const ds_x11_present *present);

#ifdef __cplusplus
}
#endif
#endif
