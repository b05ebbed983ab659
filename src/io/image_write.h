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

#ifdef __cplusplus
}
#endif
#endif
