/* SPDX-License-Identifier: MIT */
/* screenshot.h — pictures for a paper, shared by headless --screenshot and
 * the viewer's shots of the model alone (Shift+C, a script's screenshot):
 * the renderer's view drawn again off-screen at N times the size and
 * averaged down (--supersample), over black and over white for a
 * transparent background (--screenshot-alpha), and the PNG written with
 * text chunks that say what it shows.
 *
 *   uint8_t *rgba = malloc(width * height * 4);
 *   ds_screenshot_draw(renderer, &camera, width, height, scale, alpha, rgba);
 *   ...the caller sets the renderer's own size and background back...
 *   ds_screenshot_write(path, width, height, rgba, &info);
 */
#ifndef DS_SCREENSHOT_H
#define DS_SCREENSHOT_H

#include <stdint.h>

#include "camera.h"
#include "renderer.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the PNG's text chunks say; NULL leaves a chunk out (model and
 * size excepted). */
typedef struct ds_screenshot_info {
    const char *model;     /* the model's file or scene */
    const char *technique; /* ds_technique_name() */
    const char *sort;      /* ds_app_sort_name() */
    const char *size;      /* "1280x720, supersample 2, transparent" */
    const char *camera;    /* the view as a --camera line */
} ds_screenshot_info;

/* Draws `camera`'s view into the renderer's own framebuffer at `scale`
 * (1 to 4) times width × height, over black and, for `alpha`, again over
 * white, and averages each scale × scale block into dest: width × height
 * pixels of straight RGBA, top row first, opaque unless `alpha`. The
 * renderer is left at the larger size with a black or white background
 * (unchanged without `alpha`): the caller sets its own back with
 * ds_renderer_resize() and ds_renderer_set_background(). The frames it
 * draws (1, or 2 with `alpha`) are timed like any other. Errors: the
 * renderer's (DS_ERR_GL for a size the GL refuses), DS_ERR_OUT_OF_MEMORY. */
ds_status ds_screenshot_draw(ds_renderer *renderer, const ds_camera *camera, int width,
                             int height, int scale, int alpha, uint8_t *dest);

/* Writes rgba (width × height, top row first) as a PNG at `path` with
 * the text chunks Software (depthsort and its version), Model, Technique,
 * Sort, Size, Camera and Commit. Errors: those of ds_write_png_text(). */
ds_status ds_screenshot_write(const char *path, int width, int height, const uint8_t *rgba,
                              const ds_screenshot_info *info);

#ifdef __cplusplus
}
#endif
#endif
