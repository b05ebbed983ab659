/* SPDX-License-Identifier: MIT */
/* image_write.c — the one place stb_image_write's implementation is
 * compiled (see image_write.h). */
#include "image_write.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_SKIP_UNUSED
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "output_file.h"

typedef struct {
    FILE *file;
    int error; /* errno of the first failed write, or -1 without one */
} png_output;

/* stb's output callback: appends to the file, keeping the first failure. */
static void write_to_file(void *context, void *data, int size)
{
    png_output *out = context;
    if (out->error || size <= 0)
        return;
    errno = 0;
    if (fwrite(data, 1, (size_t)size, out->file) != (size_t)size)
        out->error = errno ? errno : -1;
}

ds_status ds_write_png(const char *path, int width, int height,
                       const uint8_t *rgba)
{
    if (!path || !rgba || width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "png: bad image or path");
    /* Opened here rather than by stb, so that a failure says why; written
     * beside the target and renamed when complete (output_file.h). */
    png_output out = {ds_output_open(path, "cannot write the PNG"), 0};
    if (!out.file)
        return DS_ERR_IO;
    int encoded = stbi_write_png_to_func(write_to_file, &out, width, height, 4, rgba, width * 4);
    if (!encoded || out.error) {
        ds_output_discard(out.file, path);
        if (!encoded)
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: cannot write the PNG: out of memory", path);
        return ds_fail(DS_ERR_IO, "%s: cannot write the PNG: %s", path,
                       out.error > 0 ? strerror(out.error) : "write error");
    }
    return ds_output_commit(out.file, path);
}
