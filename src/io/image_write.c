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

ds_status ds_write_png(const char *path, int width, int height,
                       const uint8_t *rgba)
{
    if (!path || !rgba || width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "png: bad image or path");
    if (!stbi_write_png(path, width, height, 4, rgba, width * 4))
        return ds_fail(DS_ERR_IO, "%s: cannot write the PNG", path);
    return DS_OK;
}
