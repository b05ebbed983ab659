/* SPDX-License-Identifier: MIT */
/* test_image_write.c — the PNG writer's tEXt chunks (image_write.h): read
 * back chunk by chunk, each CRC recomputed, placed right after IHDR, and
 * the image still decoded by stb_image with its pixels and alpha intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <stb_image.h>

#include "image_write.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* CRC-32 as the PNG specification's sample code computes it (table-free
 * here, but the same polynomial), to check the writer's own. */
static uint32_t crc32_of(const uint8_t *bytes, size_t count)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < count; i++) {
        crc ^= bytes[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1u ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return crc ^ 0xFFFFFFFFu;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    assert_int_equal(fseek(file, 0, SEEK_END), 0);
    long length = ftell(file);
    assert_true(length > 0);
    rewind(file);
    uint8_t *bytes = malloc((size_t)length);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)length, file), (size_t)length);
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

static void test_text_chunks(void **state)
{
    (void)state;
    char path[] = "/tmp/ds_image_write_XXXXXX.png";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    enum { W = 5, H = 3 };
    uint8_t rgba[W * H * 4];
    for (int i = 0; i < W * H; i++) {
        rgba[4 * i + 0] = (uint8_t)(i * 17);
        rgba[4 * i + 1] = (uint8_t)(255 - i * 9);
        rgba[4 * i + 2] = 40;
        rgba[4 * i + 3] = (uint8_t)(i == 0 ? 0 : 128 + i); /* (0, 0) transparent */
    }
    const ds_png_text texts[] = {{"Model", "bunny.ply"}, {"Technique", "sorted"}, {"Empty", ""}};
    assert_int_equal(ds_write_png_text(path, W, H, rgba, texts, 3), DS_OK);

    size_t size = 0;
    uint8_t *png = read_file(path, &size);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    size_t at = 8;
    int chunk = 0, texts_seen = 0;
    while (at + 12 <= size) {
        uint32_t length = be32(png + at);
        assert_true(at + 12 + length <= size);
        const uint8_t *type = png + at + 4;
        assert_int_equal(be32(png + at + 8 + length), crc32_of(type, length + 4));
        if (chunk == 0)
            assert_memory_equal(type, "IHDR", 4);
        if (memcmp(type, "tEXt", 4) == 0) {
            /* Right after IHDR, in the order given: "key\0text". */
            assert_int_equal(chunk, 1 + texts_seen);
            const ds_png_text *t = &texts[texts_seen++];
            size_t key_length = strlen(t->key);
            assert_int_equal(length, key_length + 1 + strlen(t->text));
            assert_memory_equal(type + 4, t->key, key_length + 1);
            assert_memory_equal(type + 4 + key_length + 1, t->text, strlen(t->text));
        }
        at += 12 + length;
        chunk++;
    }
    assert_int_equal(at, size);
    assert_int_equal(texts_seen, 3);
    free(png);

    int width = 0, height = 0, channels = 0;
    uint8_t *decoded = stbi_load(path, &width, &height, &channels, 4);
    assert_non_null(decoded);
    assert_int_equal(width, W);
    assert_int_equal(height, H);
    assert_int_equal(channels, 4);
    assert_memory_equal(decoded, rgba, sizeof rgba);
    stbi_image_free(decoded);

    /* A keyword PNG does not allow: refused, the file left as it was. */
    const ds_png_text bad[] = {{"", "x"}};
    assert_int_equal(ds_write_png_text(path, W, H, rgba, bad, 1), DS_ERR_INVALID_ARG);
    char long_key[81];
    memset(long_key, 'k', 80);
    long_key[80] = '\0';
    const ds_png_text too_long[] = {{long_key, "x"}};
    assert_int_equal(ds_write_png_text(path, W, H, rgba, too_long, 1), DS_ERR_INVALID_ARG);
    size_t again = 0;
    free(read_file(path, &again));
    assert_int_equal(again, size);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
