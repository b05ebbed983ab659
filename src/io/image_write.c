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
#include <stdlib.h>
#include <string.h>

#include "output_file.h"

/* PNG's CRC-32 (ISO 3309, the polynomial 0xEDB88320 reflected) over a
 * chunk's type and data, bit by bit: a few short chunks per file. */
static uint32_t png_crc(uint32_t crc, const uint8_t *bytes, size_t count)
{
    crc = ~crc;
    for (size_t i = 0; i < count; i++) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_be32(uint8_t *dest, uint32_t value)
{
    dest[0] = (uint8_t)(value >> 24);
    dest[1] = (uint8_t)(value >> 16);
    dest[2] = (uint8_t)(value >> 8);
    dest[3] = (uint8_t)value;
}

/* Writes one tEXt chunk: length, "tEXt", key, NUL, text, CRC. */
static int write_text_chunk(FILE *file, const ds_png_text *t)
{
    size_t key_length = strlen(t->key), text_length = t->text ? strlen(t->text) : 0;
    size_t data_length = key_length + 1 + text_length;
    uint8_t *chunk = malloc(data_length + 12);
    if (!chunk)
        return 0;
    put_be32(chunk, (uint32_t)data_length);
    memcpy(chunk + 4, "tEXt", 4);
    memcpy(chunk + 8, t->key, key_length + 1);
    if (text_length)
        memcpy(chunk + 8 + key_length + 1, t->text, text_length);
    put_be32(chunk + 8 + data_length, png_crc(0, chunk + 4, data_length + 4));
    int written = fwrite(chunk, 1, data_length + 12, file) == data_length + 12;
    free(chunk);
    return written;
}

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

/* The signature (8 bytes) and the IHDR chunk (4 + 4 + 13 + 4) that every
 * PNG starts with; the text chunks go after them. */
enum { PNG_HEADER_BYTES = 8 + 25 };

ds_status ds_write_png_text(const char *path, int width, int height, const uint8_t *rgba,
                            const ds_png_text *texts, int count)
{
    if (count <= 0)
        return ds_write_png(path, width, height, rgba);
    if (!path || !rgba || width <= 0 || height <= 0 || !texts)
        return ds_fail(DS_ERR_INVALID_ARG, "png: bad image or path");
    for (int i = 0; i < count; i++) {
        size_t length = texts[i].key ? strlen(texts[i].key) : 0;
        if (length < 1 || length > 79)
            return ds_fail(DS_ERR_INVALID_ARG, "%s: PNG text keyword must have 1 to 79 characters",
                           path);
    }
    int size = 0;
    unsigned char *png = stbi_write_png_to_mem(rgba, width * 4, width, height, 4, &size);
    if (!png || size < PNG_HEADER_BYTES)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: cannot write the PNG: out of memory", path);
    FILE *file = ds_output_open(path, "cannot write the PNG");
    if (!file) {
        STBIW_FREE(png);
        return DS_ERR_IO;
    }
    errno = 0;
    int ok = fwrite(png, 1, PNG_HEADER_BYTES, file) == PNG_HEADER_BYTES;
    for (int i = 0; ok && i < count; i++)
        ok = write_text_chunk(file, &texts[i]);
    ok = ok && fwrite(png + PNG_HEADER_BYTES, 1, (size_t)size - PNG_HEADER_BYTES, file) ==
                   (size_t)size - PNG_HEADER_BYTES;
    int error = errno;
    STBIW_FREE(png);
    if (!ok) {
        ds_output_discard(file, path);
        return ds_fail(DS_ERR_IO, "%s: cannot write the PNG: %s", path,
                       error ? strerror(error) : "write error");
    }
    return ds_output_commit(file, path);
}
