/* SPDX-License-Identifier: MIT */
/* screenshot.c — supersampled and transparent screenshots, and their PNG
 * text chunks (screenshot.h); headless --screenshot and the viewer's shots
 * of the model alone both come here, so that the two pictures of one view
 * are the same. */
#include "screenshot.h"

#include <stdio.h>
#include <stdlib.h>

#include "image_write.h"

#ifndef DS_VERSION
#define DS_VERSION "unknown" /* set by the build for the depthsort target */
#endif

/* The built-in git commit (cmake/embed.cmake), "unknown" outside git. */
extern const char ds_build_commit[];

/* One frame at `camera`'s view, drawn at the renderer's size over an
 * opaque `background` (NULL: the renderer's own), read back into dest
 * (top row first). */
static ds_status draw_over(ds_renderer *renderer, const ds_camera *camera,
                           const float background[4], uint8_t *dest)
{
    ds_status status;
    if (background)
        ds_renderer_set_background(renderer, background);
    if ((status = ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER)))
        return status;
    return ds_renderer_read_pixels(renderer, dest);
}

/* Averages scale × scale blocks of `over_black` (premultiplied colour: the
 * frame over black) with their coverage, and writes straight RGBA into
 * dest. Without `over_white` the picture is opaque; with it the coverage of
 * each pixel follows from the two backgrounds: every technique composites
 * "over" its clear colour, C = F + (1 - a) B, so C_white - C_black = 1 - a
 * (Smith and Blinn, "Blue Screen Matting", SIGGRAPH 1996: the triangulation
 * of two backings). */
static void downsample(const uint8_t *over_black, const uint8_t *over_white, int width,
                       int height, int scale, uint8_t *dest)
{
    size_t big_row = (size_t)width * (size_t)scale;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double sum[4] = {0.0, 0.0, 0.0, 0.0};
            for (int j = 0; j < scale; j++)
                for (int i = 0; i < scale; i++) {
                    size_t at = 4 * ((size_t)(y * scale + j) * big_row + (size_t)(x * scale + i));
                    double alpha = 255.0;
                    if (over_white) {
                        double gap = 0.0;
                        for (int c = 0; c < 3; c++)
                            gap += (double)over_white[at + c] - (double)over_black[at + c];
                        alpha = 255.0 - gap / 3.0;
                        alpha = alpha < 0.0 ? 0.0 : alpha > 255.0 ? 255.0 : alpha;
                    }
                    for (int c = 0; c < 3; c++)
                        sum[c] += over_black[at + c];
                    sum[3] += alpha;
                }
            uint8_t *out = dest + 4 * ((size_t)y * (size_t)width + (size_t)x);
            double alpha = sum[3] / (scale * scale);
            for (int c = 0; c < 3; c++) {
                double premultiplied = sum[c] / (scale * scale);
                /* PNG's alpha is straight: the colour divided by coverage. */
                double straight = !over_white        ? premultiplied
                                  : alpha > 0.5      ? premultiplied * 255.0 / alpha
                                                     : 0.0;
                out[c] = (uint8_t)(straight > 255.0 ? 255.0 : straight + 0.5);
            }
            out[3] = (uint8_t)(alpha + 0.5);
        }
}

ds_status ds_screenshot_draw(ds_renderer *renderer, const ds_camera *camera, int width,
                             int height, int scale, int alpha, uint8_t *dest)
{
    static const float black_rgba[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    static const float white_rgba[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    if (scale < 1)
        scale = 1;
    size_t big = (size_t)width * (size_t)height * 4 * (size_t)scale * (size_t)scale;
    uint8_t *black = malloc(big), *white = alpha ? malloc(big) : NULL;
    ds_status status = DS_OK;
    if (!black || (alpha && !white))
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "screenshot: out of host memory for %dx%d pixels",
                         width * scale, height * scale);
    if (!status)
        status = ds_renderer_resize(renderer, width * scale, height * scale);
    if (!status)
        status = draw_over(renderer, camera, alpha ? black_rgba : NULL, black);
    if (!status && alpha)
        status = draw_over(renderer, camera, white_rgba, white);
    if (!status)
        downsample(black, white, width, height, scale, dest);
    free(black);
    free(white);
    return status;
}

ds_status ds_screenshot_write(const char *path, int width, int height, const uint8_t *rgba,
                              const ds_screenshot_info *info)
{
    ds_png_text texts[7];
    int count = 0;
    texts[count++] = (ds_png_text){"Software", "depthsort " DS_VERSION};
    texts[count++] = (ds_png_text){"Model", info->model ? info->model : "scene"};
    if (info->technique)
        texts[count++] = (ds_png_text){"Technique", info->technique};
    if (info->sort)
        texts[count++] = (ds_png_text){"Sort", info->sort};
    texts[count++] = (ds_png_text){"Size", info->size ? info->size : ""};
    if (info->camera)
        texts[count++] = (ds_png_text){"Camera", info->camera};
    texts[count++] = (ds_png_text){"Commit", ds_build_commit};
    return ds_write_png_text(path, width, height, rgba, texts, count);
}
