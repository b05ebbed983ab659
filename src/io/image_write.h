/* SPDX-License-Identifier: MIT */
/* image_write.h — PNG output for screenshots (stb_image_write behind one
 * call, so that its implementation is compiled exactly once). */
#ifndef DS_IMAGE_WRITE_H
#define DS_IMAGE_WRITE_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes width × height RGBA8 pixels, top row first, as a PNG at `path`.
 * Errors: DS_ERR_INVALID_ARG, DS_ERR_IO (logged with the path and the
 * reason), DS_ERR_OUT_OF_MEMORY. */
ds_status ds_write_png(const char *path, int width, int height,
                       const uint8_t *rgba);

/* One tEXt chunk: a Latin-1 keyword of 1 to 79 characters ("Title",
 * "Software", "Comment" are PNG's registered ones) and its text. */
typedef struct ds_png_text {
    const char *key;
    const char *text;
} ds_png_text;

/* ds_write_png() with `count` tEXt chunks placed right after the IHDR
 * chunk, in order (PNG 1.2, section 4.2.3.1: uncompressed text). The
 * alpha channel is straight (not premultiplied), as PNG defines it.
 * Errors: those of ds_write_png(); DS_ERR_INVALID_ARG for a keyword that is
 * empty or longer than 79 characters. */
ds_status ds_write_png_text(const char *path, int width, int height, const uint8_t *rgba,
                            const ds_png_text *texts, int count);

#ifdef __cplusplus
}
#endif
#endif
