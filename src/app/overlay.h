/* SPDX-License-Identifier: MIT */
/* overlay.h — a 2D overlay for the viewer: text (stb_easy_font) and
 * rectangles, batched and drawn with one small GL 4.5 core program on top of
 * whatever is in the framebuffer.
 *
 * Step by step (a GL 4.5 core context is current and GL is loaded):
 *   ds_overlay *overlay;
 *   if (ds_overlay_create(&overlay) != DS_OK) ...;  // all storage made here
 *   each frame:
 *     ds_overlay_begin(overlay, fb_width, fb_height);
 *     ds_overlay_rect(overlay, x, y, w, h, rgba);    // pixels, top-left origin
 *     ds_overlay_text(overlay, x, y, scale, rgba, "text");
 *     ds_overlay_draw(overlay);                       // one upload, one draw
 *   ds_overlay_destroy(overlay);
 *
 * Everything drawn between begin and draw that does not fit in the fixed
 * capacity is dropped (never reallocated per frame); ds_overlay_dropped()
 * tells how much.
 *
 * Layout units: stb_easy_font glyphs are about 5 × 7 pixels at scale 1 with
 * a 12-pixel line pitch; the viewer lays its panel out in those units, and
 * the viewer test reads the same macros to find a line's pixels.
 */
#ifndef DS_OVERLAY_H
#define DS_OVERLAY_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DS_OVERLAY_MARGIN 6       /* panel inset from the window corner */
#define DS_OVERLAY_PADDING 4      /* text inset inside the panel */
#define DS_OVERLAY_LINE_HEIGHT 12 /* stb_easy_font's line pitch */
/* Integer scale (crisp glyphs) for a framebuffer height. */
#define DS_OVERLAY_SCALE(fb_height) ((fb_height) >= 900 ? 2 : 1)
/* Top pixel row of text line `line` of the stats panel at `scale`. */
#define DS_OVERLAY_LINE_TOP(line, scale) \
    ((scale) * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING + (line) * DS_OVERLAY_LINE_HEIGHT))

typedef struct ds_overlay ds_overlay;

/* Builds the program, vertex array and buffer in the current context.
 * Errors: DS_ERR_GL (shader compile/link log included), DS_ERR_OUT_OF_MEMORY. */
ds_status ds_overlay_create(ds_overlay **dest);

/* Frees the GL objects (same context current); NULL is allowed. */
void ds_overlay_destroy(ds_overlay *overlay);

/* Starts a batch for a framebuffer of width × height pixels. */
void ds_overlay_begin(ds_overlay *overlay, int width, int height);

/* A filled rectangle; rgba is straight alpha. */
void ds_overlay_rect(ds_overlay *overlay, float x, float y, float w, float h,
                     const uint8_t rgba[4]);

/* Text with its top-left corner at x, y; '\n' starts a new line. Returns
 * the width in pixels of the widest line. */
float ds_overlay_text(ds_overlay *overlay, float x, float y, float scale,
                      const uint8_t rgba[4], const char *text);

/* Width in pixels of the widest line of `text` at `scale`. */
float ds_overlay_text_width(const char *text, float scale);

/* Uploads the batch and draws it over the current draw framebuffer with
 * alpha blending, depth test and culling off. Leaves the program, vertex
 * array, blend and depth state changed (the renderer sets its own). */
void ds_overlay_draw(ds_overlay *overlay);

/* Quads dropped since create because a batch was full (0 normally). */
unsigned long ds_overlay_dropped(const ds_overlay *overlay);

#ifdef __cplusplus
}
#endif
#endif
