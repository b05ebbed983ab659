/* SPDX-License-Identifier: MIT */
/* test_metrics.c — the GPU image metrics (image_metrics.h) on whatever EGL
 * offers (Mesa llvmpipe in CI, an NVIDIA GPU elsewhere), against values
 * known by hand and against a straightforward CPU implementation written
 * here (double precision, the 2D window summed directly, variances from
 * the window mean — another route to the same numbers):
 *   - identical images: RMSE 0, max 0, bad 0, SSIM 1, PSNR +infinity;
 *     alpha is ignored;
 *   - a uniform one-level offset: RMSE exactly 1, max 1, bad_2 0;
 *   - one pixel off by 9 (bad_8 = 1 / (w h)) and by 8 (bad_8 = 0);
 *   - random and correlated images of several sizes (one SSIM window,
 *     partial tiles, more tiles than the reduce pass has invocations)
 *     against the CPU, and the CPU with a wrong sigma or border rule is
 *     caught by the same tolerance;
 *   - textures with mutable storage and default (mipmapped) filters;
 *   - submit / poll, each result once;
 *   - the heatmap's colours at zero, saturated and middle errors, its
 *     row order, the colour map's ends and monotonic lightness;
 *   - bad sizes, textures and scales are refused with one error;
 *   - no GL error is reported through KHR_debug.
 * With --bench WxH [N] it times N comparisons at that size instead (the
 * median GPU time) and checks the result against the CPU: the check of
 * 1920 × 1080, too slow on llvmpipe for CI (seconds per comparison). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "egl_context.h"
#include "image_metrics.h"

#define SEED 20240917u
/* The GPU sums in double what the CPU sums in double, in another order
 * and through the separable window: a few ulps of SSIM's terms. */
#define SSIM_TOLERANCE 1e-9
#define RMSE_TOLERANCE 1e-12

static unsigned gl_errors;

static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user)
{
    (void)source; (void)id; (void)severity; (void)length; (void)user;
    if (type == GL_DEBUG_TYPE_ERROR) {
        gl_errors++;
        fprintf(stderr, "GL error: %s\n", message);
    }
}

static uint32_t random_state;

static uint32_t next_random(void)
{
    /* xorshift32 */
    random_state ^= random_state << 13;
    random_state ^= random_state >> 17;
    random_state ^= random_state << 5;
    return random_state;
}

static uint8_t *alloc_image(int width, int height)
{
    uint8_t *image = calloc((size_t)width * height, 4);
    assert_non_null(image);
    return image;
}

/* Immutable storage (glTextureStorage2D), or with mutable set the old
 * glTexImage2D with its default mipmapped minification filter: without
 * the module's own sampler such a texture is incomplete and reads 0. */
static GLuint make_texture(int width, int height, const uint8_t *rgba, int mutable_storage)
{
    GLuint texture = 0;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (mutable_storage) {
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, rgba);
        glBindTexture(GL_TEXTURE_2D, 0);
    } else {
        glCreateTextures(GL_TEXTURE_2D, 1, &texture);
        glTextureStorage2D(texture, 1, GL_RGBA8, width, height);
        glTextureSubImage2D(texture, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }
    return texture;
}

static ds_image_metrics *make_metrics(int width, int height)
{
    ds_image_metrics_desc desc = {0};
    desc.width = width;
    desc.height = height;
    ds_image_metrics *metrics = NULL;
    assert_int_equal(ds_image_metrics_create(&desc, &metrics), DS_OK);
    assert_non_null(metrics);
    return metrics;
}

/* Runs the GPU comparison of two host images (GL row 0 first). */
static ds_image_error gpu_compare(int width, int height, const uint8_t *test,
                                  const uint8_t *reference)
{
    ds_image_metrics *metrics = make_metrics(width, height);
    GLuint textures[2] = {make_texture(width, height, test, 0),
                          make_texture(width, height, reference, 0)};
    ds_image_error error;
    memset(&error, 0xA5, sizeof error); /* poisoned: every field must be written */
    assert_int_equal(ds_image_metrics_compare(metrics, textures[0], textures[1], &error), DS_OK);
    glDeleteTextures(2, textures);
    ds_image_metrics_destroy(metrics);
    return error;
}

/* ---- the CPU reference ------------------------------------------------------- */

/* border_valid: SSIM over the pixels whose window fits (the definition);
 * 0: over every pixel with coordinates clamped to the edge — a wrong rule
 * the tests must tell apart. */
static ds_image_error cpu_compare(int width, int height, const uint8_t *test,
                                  const uint8_t *reference, double sigma, int border_valid)
{
    const double pixels = (double)width * height;
    double squares = 0.0, bad_2 = 0.0, bad_8 = 0.0;
    int max_error = 0;
    double *luma_test = malloc(sizeof(double) * (size_t)width * height);
    double *luma_reference = malloc(sizeof(double) * (size_t)width * height);
    assert_non_null(luma_test);
    assert_non_null(luma_reference);
    for (size_t i = 0; i < (size_t)width * height; i++) {
        int largest = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)test[4 * i + c] - (int)reference[4 * i + c]);
            squares += (double)d * d;
            largest = d > largest ? d : largest;
        }
        max_error = largest > max_error ? largest : max_error;
        bad_2 += largest > 2;
        bad_8 += largest > 8;
        luma_test[i] = 0.299 * test[4 * i] + 0.587 * test[4 * i + 1] + 0.114 * test[4 * i + 2];
        luma_reference[i] = 0.299 * reference[4 * i] + 0.587 * reference[4 * i + 1] +
                            0.114 * reference[4 * i + 2];
    }

    /* The 11 × 11 window, normalised over its 121 weights. */
    double window[11][11], window_sum = 0.0;
    for (int j = 0; j < 11; j++)
        for (int i = 0; i < 11; i++)
            window_sum += window[j][i] =
                exp(-((i - 5) * (i - 5) + (j - 5) * (j - 5)) / (2.0 * sigma * sigma));
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double ssim_sum = 0.0, ssim_count = 0.0;
    int margin = border_valid ? 5 : 0;
    for (int y = margin; y < height - margin; y++) {
        for (int x = margin; x < width - margin; x++) {
            double mx = 0.0, my = 0.0;
            for (int j = 0; j < 11; j++)
                for (int i = 0; i < 11; i++) {
                    int px = x + i - 5, py = y + j - 5;
                    px = px < 0 ? 0 : px >= width ? width - 1 : px;
                    py = py < 0 ? 0 : py >= height ? height - 1 : py;
                    double w = window[j][i] / window_sum;
                    mx += w * luma_test[(size_t)py * width + px];
                    my += w * luma_reference[(size_t)py * width + px];
                }
            double vx = 0.0, vy = 0.0, cov = 0.0;
            for (int j = 0; j < 11; j++)
                for (int i = 0; i < 11; i++) {
                    int px = x + i - 5, py = y + j - 5;
                    px = px < 0 ? 0 : px >= width ? width - 1 : px;
                    py = py < 0 ? 0 : py >= height ? height - 1 : py;
                    double w = window[j][i] / window_sum;
                    double dx = luma_test[(size_t)py * width + px] - mx;
                    double dy = luma_reference[(size_t)py * width + px] - my;
                    vx += w * dx * dx;
                    vy += w * dy * dy;
                    cov += w * dx * dy;
                }
            ssim_sum += (2 * mx * my + c1) * (2 * cov + c2) /
                        ((mx * mx + my * my + c1) * (vx + vy + c2));
            ssim_count += 1.0;
        }
    }
    free(luma_test);
    free(luma_reference);

    ds_image_error error = {0};
    error.rmse = sqrt(squares / (3.0 * pixels));
    error.psnr = error.rmse > 0 ? 20.0 * log10(255.0 / error.rmse) : INFINITY;
    error.ssim = ssim_sum / ssim_count;
    error.max_error = max_error;
    error.bad_2 = bad_2 / pixels;
    error.bad_8 = bad_8 / pixels;
    return error;
}

/* ---- images ------------------------------------------------------------------- */

static void random_image(int width, int height, uint8_t *dest)
{
    for (size_t i = 0; i < (size_t)width * height * 4; i++)
        dest[i] = (uint8_t)(next_random() >> 24);
}

/* A smooth picture (gradients and waves, flat bright and dark patches
 * where the variance is tiny), alpha 255. */
static void smooth_image(int width, int height, uint8_t *dest)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint8_t *p = dest + 4 * ((size_t)y * width + x);
            double wave = 0.5 + 0.5 * sin(x * 0.31) * cos(y * 0.17);
            p[0] = (uint8_t)(255.0 * x / (width - 1));
            p[1] = (uint8_t)(200.0 * wave + 20.0);
            p[2] = x < width / 3 ? 250 : y < height / 2 ? 3 : (uint8_t)(128 + 100 * wave);
            p[3] = 255;
        }
}

/* The picture with noise of up to ±noise levels, and `spots` pixels
 * replaced by random values. */
static void distort_image(int width, int height, const uint8_t *source, int noise, int spots,
                          uint8_t *dest)
{
    for (size_t i = 0; i < (size_t)width * height * 4; i++) {
        int v = source[i] + (int)(next_random() % (uint32_t)(2 * noise + 1)) - noise;
        dest[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    for (int s = 0; s < spots; s++) {
        size_t i = next_random() % ((size_t)width * height);
        for (int c = 0; c < 3; c++)
            dest[4 * i + c] = (uint8_t)(next_random() >> 24);
    }
}

/* A pair to compare and what the comparison needs: b a smooth picture, a
 * b with distort_image's noise and spots (from random_state = seed), a
 * texture of each (mutable_storage as make_texture's) and the metrics
 * object of their size. */
typedef struct image_pair {
    int width, height;
    uint8_t *a, *b;
    GLuint textures[2];
    ds_image_metrics *metrics;
} image_pair;

static void make_pair(int width, int height, uint32_t seed, int noise, int spots,
                      int mutable_storage, image_pair *dest)
{
    dest->width = width;
    dest->height = height;
    dest->a = alloc_image(width, height);
    dest->b = alloc_image(width, height);
    random_state = seed;
    smooth_image(width, height, dest->b);
    distort_image(width, height, dest->b, noise, spots, dest->a);
    dest->metrics = make_metrics(width, height);
    dest->textures[0] = make_texture(width, height, dest->a, mutable_storage);
    dest->textures[1] = make_texture(width, height, dest->b, mutable_storage);
}

static void free_pair(image_pair *pair)
{
    glDeleteTextures(2, pair->textures);
    ds_image_metrics_destroy(pair->metrics);
    free(pair->a);
    free(pair->b);
}

static void assert_close(double gpu, double cpu, double tolerance, const char *what)
{
    if (!(fabs(gpu - cpu) <= tolerance)) {
        print_error("%s: GPU %.15g, CPU %.15g (tolerance %g)\n", what, gpu, cpu, tolerance);
        fail();
    }
}

static void assert_matches_cpu(const ds_image_error *gpu, const ds_image_error *cpu)
{
    assert_close(gpu->rmse, cpu->rmse, RMSE_TOLERANCE, "rmse");
    assert_close(gpu->psnr, cpu->psnr, 1e-9, "psnr");
    assert_close(gpu->ssim, cpu->ssim, SSIM_TOLERANCE, "ssim");
    assert_int_equal(gpu->max_error, cpu->max_error);
    assert_true(gpu->bad_2 == cpu->bad_2);
    assert_true(gpu->bad_8 == cpu->bad_8);
    assert_true(gpu->gpu_ms >= 0.0 && isfinite(gpu->gpu_ms));
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_identical(void **state)
{
    (void)state;
    const int width = 40, height = 30;
    uint8_t *image = alloc_image(width, height), *copy = alloc_image(width, height);
    random_state = SEED;
    smooth_image(width, height, image);
    memcpy(copy, image, (size_t)width * height * 4);
    /* Alpha is not compared. */
    for (size_t i = 0; i < (size_t)width * height; i++)
        copy[4 * i + 3] = (uint8_t)(next_random() >> 24);
    ds_image_error error = gpu_compare(width, height, copy, image);
    assert_true(error.rmse == 0.0);
    assert_true(isinf(error.psnr) && error.psnr > 0.0);
    assert_int_equal(error.max_error, 0);
    assert_true(error.bad_2 == 0.0 && error.bad_8 == 0.0);
    assert_close(error.ssim, 1.0, 1e-6, "ssim of identical images");

    /* The same texture as both inputs. */
    ds_image_metrics *metrics = make_metrics(width, height);
    GLuint texture = make_texture(width, height, image, 0);
    assert_int_equal(ds_image_metrics_compare(metrics, texture, texture, &error), DS_OK);
    assert_true(error.rmse == 0.0);
    assert_close(error.ssim, 1.0, 1e-6, "ssim of a texture with itself");
    glDeleteTextures(1, &texture);
    ds_image_metrics_destroy(metrics);
    free(image);
    free(copy);
    assert_int_equal(gl_errors, 0);
}

/* Every RGB channel one level up or down: RMSE exactly 1. */
static void check_offset(int width, int height)
{
    uint8_t *image = alloc_image(width, height), *offset = alloc_image(width, height);
    smooth_image(width, height, image);
    for (size_t i = 0; i < (size_t)width * height * 4; i++)
        offset[i] = (uint8_t)(image[i] < 255 ? image[i] + 1 : image[i] - 1);
    ds_image_error error = gpu_compare(width, height, offset, image);
    assert_true(error.rmse == 1.0);
    assert_true(error.psnr == 20.0 * log10(255.0));
    assert_int_equal(error.max_error, 1);
    assert_true(error.bad_2 == 0.0 && error.bad_8 == 0.0);
    assert_true(error.ssim < 1.0 && error.ssim > 0.99);
    free(image);
    free(offset);
    assert_int_equal(gl_errors, 0);
}

static void test_offset(void **state)
{
    (void)state;
    check_offset(64, 48);
    check_offset(400, 330); /* 525 tiles: the reduce pass's strided loop */
}

/* One pixel off by 9 in one channel is bad at 8; off by 8, only at 2. */
static void test_single_pixel(void **state)
{
    (void)state;
    const int width = 50, height = 20;
    uint8_t *image = alloc_image(width, height), *changed = alloc_image(width, height);
    smooth_image(width, height, image);
    const size_t pixel = 7 * (size_t)width + 31;
    for (int delta = 8; delta <= 9; delta++) {
        memcpy(changed, image, (size_t)width * height * 4);
        changed[4 * pixel + 1] = (uint8_t)(image[4 * pixel + 1] >= 128 ? image[4 * pixel + 1] - delta
                                                                    : image[4 * pixel + 1] + delta);
        ds_image_error error = gpu_compare(width, height, changed, image);
        assert_int_equal(error.max_error, delta);
        assert_true(error.bad_2 == 1.0 / (width * height));
        assert_true(error.bad_8 == (delta > 8 ? 1.0 / (width * height) : 0.0));
        assert_close(error.rmse, sqrt(delta * delta / (3.0 * width * height)), RMSE_TOLERANCE,
                     "rmse of one pixel");
        ds_image_error cpu = cpu_compare(width, height, changed, image, 1.5, 1);
        assert_matches_cpu(&error, &cpu);
    }
    free(image);
    free(changed);
    assert_int_equal(gl_errors, 0);
}

/* Against the CPU at sizes that are one SSIM window, whole tiles,
 * partial tiles, and more tiles (525) than the reduce pass has
 * invocations; random pairs (SSIM near 0) and a picture against its
 * noisy copy. */
static void test_against_cpu(void **state)
{
    (void)state;
    static const int sizes[][2] = {{11, 11}, {64, 48}, {37, 29}, {400, 330}};
    random_state = SEED;
    print_message("seed %u\n", SEED);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int width = sizes[s][0], height = sizes[s][1];
        uint8_t *a = alloc_image(width, height), *b = alloc_image(width, height);
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0) {
                random_image(width, height, a);
                random_image(width, height, b);
            } else {
                smooth_image(width, height, b);
                distort_image(width, height, b, 6, width * height / 50 + 1, a);
            }
            ds_image_error gpu = gpu_compare(width, height, a, b);
            ds_image_error cpu = cpu_compare(width, height, a, b, 1.5, 1);
            print_message("%dx%d %s: rmse %.6f psnr %.4f ssim %.9f max %d bad_2 %.5f "
                          "bad_8 %.5f gpu %.3f ms\n", width, height, kind ? "noisy" : "random",
                          gpu.rmse, gpu.psnr, gpu.ssim, gpu.max_error, gpu.bad_2, gpu.bad_8,
                          gpu.gpu_ms);
            assert_matches_cpu(&gpu, &cpu);
            if (kind == 1) {
                /* The tolerance tells the definition from near misses: a
                 * window of sigma 1.4, or a border rule that pads. */
                ds_image_error wrong_sigma = cpu_compare(width, height, a, b, 1.4, 1);
                ds_image_error wrong_border = cpu_compare(width, height, a, b, 1.5, 0);
                assert_true(fabs(gpu.ssim - wrong_sigma.ssim) > 1000 * SSIM_TOLERANCE);
                if (width > 11)
                    assert_true(fabs(gpu.ssim - wrong_border.ssim) > 1000 * SSIM_TOLERANCE);
                /* And a difference of one level in one pixel shows in RMSE. */
                a[0] = (uint8_t)(a[0] ^ 1);
                ds_image_error moved = cpu_compare(width, height, a, b, 1.5, 1);
                assert_true(fabs(gpu.rmse - moved.rmse) > 1000 * RMSE_TOLERANCE);
            }
        }
        free(a);
        free(b);
    }
    assert_int_equal(gl_errors, 0);
}

/* A texture of the old kind (mutable, mipmapped filter by default, one
 * level) reads the same as an immutable one. */
static void test_mutable_texture(void **state)
{
    (void)state;
    image_pair p;
    make_pair(33, 17, SEED + 1, 10, 5, 1, &p);
    ds_image_error gpu;
    assert_int_equal(ds_image_metrics_compare(p.metrics, p.textures[0], p.textures[1], &gpu),
                     DS_OK);
    ds_image_error cpu = cpu_compare(p.width, p.height, p.a, p.b, 1.5, 1);
    assert_matches_cpu(&gpu, &cpu);
    free_pair(&p);
    assert_int_equal(gl_errors, 0);
}

static void test_submit_poll(void **state)
{
    (void)state;
    image_pair p;
    make_pair(48, 40, SEED + 2, 3, 4, 0, &p);
    ds_image_metrics *metrics = p.metrics;
    const GLuint *textures = p.textures;
    ds_image_error polled, compared;
    assert_int_equal(ds_image_metrics_poll(metrics, 1, &polled), 0); /* nothing submitted */
    assert_int_equal(ds_image_metrics_submit(metrics, textures[0], textures[1]), DS_OK);
    int tries = 0;
    while (!ds_image_metrics_poll(metrics, tries >= 1000, &polled))
        tries++;
    assert_int_equal(ds_image_metrics_poll(metrics, 1, &polled), 0); /* each result once */
    assert_int_equal(ds_image_metrics_compare(metrics, textures[0], textures[1], &compared),
                     DS_OK);
    assert_true(polled.rmse == compared.rmse && polled.ssim == compared.ssim);
    assert_true(polled.rmse > 0.0);
    /* The swapped pair: RMSE and SSIM are symmetric. */
    assert_int_equal(ds_image_metrics_compare(metrics, textures[1], textures[0], &polled), DS_OK);
    assert_close(polled.rmse, compared.rmse, RMSE_TOLERANCE, "rmse swapped");
    assert_close(polled.ssim, compared.ssim, SSIM_TOLERANCE, "ssim swapped");
    free_pair(&p);
    assert_int_equal(gl_errors, 0);
}

static void assert_rgb_near(const uint8_t *got, const uint8_t *want, int tolerance,
                            const char *what)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)got[c] - (int)want[c]) > tolerance) {
            print_error("%s: got %d,%d,%d want %d,%d,%d\n", what, got[0], got[1], got[2],
                        want[0], want[1], want[2]);
            fail();
        }
}

static void test_colormap(void **state)
{
    (void)state;
    uint8_t low[3], high[3];
    ds_image_metrics_colormap(0.0f, low);
    ds_image_metrics_colormap(1.0f, high);
    /* viridis's ends: dark violet 68,1,84 and yellow 253,231,37. */
    const uint8_t viridis_low[3] = {68, 1, 84}, viridis_high[3] = {253, 231, 37};
    assert_rgb_near(low, viridis_low, 3, "colour map at 0");
    assert_rgb_near(high, viridis_high, 3, "colour map at 1");
    /* Out of range clamps to the ends. */
    uint8_t clamped[3];
    ds_image_metrics_colormap(-2.0f, clamped);
    assert_memory_equal(clamped, low, 3);
    ds_image_metrics_colormap(7.0f, clamped);
    assert_memory_equal(clamped, high, 3);
    /* Lightness (Rec. 709 luminance of the 8-bit values, a proxy) never
     * falls along the map. */
    double previous = -1.0;
    for (int i = 0; i <= 255; i++) {
        uint8_t rgb[3];
        ds_image_metrics_colormap(i / 255.0f, rgb);
        double luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
        assert_true(luminance >= previous - 0.5);
        previous = luminance;
    }
}

static void test_heatmap(void **state)
{
    (void)state;
    const int width = 32, height = 24;
    const float scale = 16.0f;
    uint8_t *reference = alloc_image(width, height), *test = alloc_image(width, height);
    smooth_image(width, height, reference);
    memcpy(test, reference, (size_t)width * height * 4);
    /* GL row 0 (the bottom): x = 1 off by 255 levels, x = 2 by exactly
     * the scale, x = 3 by half of it, x = 4 by 12 in green only. */
    const struct { int x, channel, delta; float t; } marks[] = {
        {1, 0, 255, 1.0f}, {2, 2, 16, 1.0f}, {3, 0, 8, 0.5f}, {4, 1, 12, 0.75f}};
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
        size_t at = 4 * (size_t)marks[m].x + (size_t)marks[m].channel;
        if (marks[m].delta == 255) {
            reference[at] = 0;
            test[at] = 255;
        } else {
            test[at] = (uint8_t)(test[at] >= 128 ? test[at] - marks[m].delta
                                                 : test[at] + marks[m].delta);
        }
    }
    ds_image_metrics *metrics = make_metrics(width, height);
    GLuint textures[2] = {make_texture(width, height, test, 0),
                          make_texture(width, height, reference, 0)};
    uint8_t *heat = alloc_image(width, height);
    memset(heat, 0x5A, (size_t)width * height * 4);
    assert_int_equal(ds_image_metrics_heatmap(metrics, textures[0], textures[1], scale, 0, heat),
                     DS_OK);

    uint8_t zero[3], full[3];
    ds_image_metrics_colormap(0.0f, zero);
    ds_image_metrics_colormap(1.0f, full);
    /* The read-back starts at the top: GL row 0 is its last row. */
    const uint8_t *bottom = heat + 4 * (size_t)width * (height - 1);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const uint8_t *p = heat + 4 * ((size_t)y * width + x);
            assert_int_equal(p[3], 255);
            /* No error: the reference (uploaded bottom row first) dimmed
             * to grey, not the colour map's zero. */
            uint8_t grey[3];
            ds_image_metrics_heat_grey(reference + 4 * ((size_t)(height - 1 - y) * width + x),
                                       grey);
            if (y != height - 1 || x == 0 || x > 4)
                assert_rgb_near(p, grey, 1, "heatmap without error");
        }
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
        uint8_t want[3];
        ds_image_metrics_colormap(marks[m].t, want);
        assert_rgb_near(bottom + 4 * marks[m].x, want, marks[m].t == 1.0f ? 0 : 1,
                        "heatmap at a marked pixel");
    }
    assert_memory_not_equal(zero, full, 3);
    assert_rgb_near(bottom + 4, full, 0, "saturated heatmap");

    /* Into a caller's texture: the same pixels, GL's row order. */
    GLuint target = make_texture(width, height, reference, 0);
    assert_int_equal(ds_image_metrics_heatmap(metrics, textures[0], textures[1], scale, target,
                                              NULL), DS_OK);
    uint8_t *own = alloc_image(width, height);
    glGetTextureImage(target, 0, GL_RGBA, GL_UNSIGNED_BYTE, width * height * 4, own);
    for (int y = 0; y < height; y++)
        assert_memory_equal(own + 4 * (size_t)y * width,
                            heat + 4 * (size_t)(height - 1 - y) * width, (size_t)width * 4);
    /* A coarser scale: the half-scale pixel is now below saturation's
     * colour and above zero's. */
    assert_int_equal(ds_image_metrics_heatmap(metrics, textures[0], textures[1], 255.0f, 0, heat),
                     DS_OK);
    uint8_t want[3];
    ds_image_metrics_colormap(8.0f / 255.0f, want);
    assert_rgb_near(bottom + 4 * 3, want, 1, "heatmap at scale 255");
    assert_rgb_near(bottom + 4, full, 0, "heatmap of 255 levels at scale 255");
    assert_true(ds_image_metrics_heatmap_texture(metrics) != 0);

    glDeleteTextures(1, &target);
    glDeleteTextures(2, textures);
    ds_image_metrics_destroy(metrics);
    free(reference);
    free(test);
    free(heat);
    free(own);
    assert_int_equal(gl_errors, 0);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    ds_log_set_quiet(1);
    ds_image_metrics_desc desc = {0};
    ds_image_metrics *metrics = (ds_image_metrics *)&desc;
    desc.width = 10;
    desc.height = 11;
    assert_int_equal(ds_image_metrics_create(&desc, &metrics), DS_ERR_INVALID_ARG);
    assert_null(metrics);
    assert_non_null(strstr(ds_last_error(), "10x11"));
    desc.width = DS_IMAGE_METRICS_MAX_SIZE + 1;
    assert_int_equal(ds_image_metrics_create(&desc, &metrics), DS_ERR_INVALID_ARG);

    const int width = 20, height = 16;
    uint8_t *image = alloc_image(width, height);
    metrics = make_metrics(width, height);
    GLuint good = make_texture(width, height, image, 0);
    GLuint small = make_texture(width, height - 1, image, 0);
    GLuint half_float = 0, srgb = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &half_float);
    glTextureStorage2D(half_float, 1, GL_RGBA16F, width, height);
    glCreateTextures(GL_TEXTURE_2D, 1, &srgb);
    glTextureStorage2D(srgb, 1, GL_SRGB8_ALPHA8, width, height);
    ds_image_error error;
    assert_int_equal(ds_image_metrics_compare(metrics, good, 0, &error), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "reference texture 0"));
    assert_int_equal(ds_image_metrics_compare(metrics, 987654, good, &error), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "test texture 987654"));
    assert_int_equal(ds_image_metrics_compare(metrics, small, good, &error), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "20x15"));
    assert_int_equal(ds_image_metrics_compare(metrics, good, half_float, &error),
                     DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "GL_RGBA8"));
    assert_int_equal(ds_image_metrics_submit(metrics, srgb, good), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_image_metrics_poll(metrics, 1, &error), 0); /* nothing went out */
    assert_int_equal(ds_image_metrics_heatmap(metrics, good, good, 0.0f, 0, image),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_image_metrics_heatmap(metrics, good, good, NAN, 0, image),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_image_metrics_heatmap(metrics, good, good, 4.0f, small, NULL),
                     DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "heatmap texture"));
    /* Still works after the refusals. */
    assert_int_equal(ds_image_metrics_compare(metrics, good, good, &error), DS_OK);
    assert_true(error.rmse == 0.0);
    GLuint textures[4] = {good, small, half_float, srgb};
    glDeleteTextures(4, textures);
    ds_image_metrics_destroy(metrics);
    ds_image_metrics_destroy(NULL);
    free(image);
    ds_log_set_quiet(0);
    assert_int_equal(gl_errors, 0);
}

/* ---- --bench ---------------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench(int width, int height, int count)
{
    image_pair p;
    make_pair(width, height, SEED, 6, width * height / 50 + 1, 0, &p);
    double *ms = calloc((size_t)count, sizeof(double));
    ds_image_error error = {0};
    for (int i = 0; i < count; i++) {
        if (ds_image_metrics_compare(p.metrics, p.textures[0], p.textures[1], &error) != DS_OK)
            return 1;
        ms[i] = error.gpu_ms;
    }
    qsort(ms, (size_t)count, sizeof(double), compare_double);
    ds_image_error cpu = cpu_compare(width, height, p.a, p.b, 1.5, 1);
    printf("%dx%d: %d comparisons, GPU median %.4f ms (min %.4f, max %.4f); rmse %.6f ssim %.9f;"
           " against the CPU: rmse %+.3g ssim %+.3g\n", width, height, count, ms[count / 2],
           ms[0], ms[count - 1], error.rmse, error.ssim, error.rmse - cpu.rmse,
           error.ssim - cpu.ssim);
    int bad = fabs(error.rmse - cpu.rmse) > RMSE_TOLERANCE ||
              fabs(error.ssim - cpu.ssim) > SSIM_TOLERANCE || gl_errors;
    free_pair(&p);
    free(ms);
    return bad;
}

int main(int argc, char **argv)
{
    ds_egl_context *context = NULL;
    ds_status status = ds_egl_context_create(1, &context);
    if (status == DS_ERR_NO_DEVICE) {
        printf("test_metrics: no EGL display with GL 4.5 core; skipped\n");
        return 77;
    }
    if (status != DS_OK)
        return 1;
    glEnable(GL_DEBUG_OUTPUT);
    glDebugMessageCallback(on_gl_debug, NULL);

    int result;
    int width = 0, height = 0, count = 50;
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0 &&
        sscanf(argv[2], "%dx%d", &width, &height) == 2) {
        if (argc >= 4)
            count = atoi(argv[3]);
        result = bench(width, height, count > 0 ? count : 1);
    } else {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_identical),
            cmocka_unit_test(test_offset),
            cmocka_unit_test(test_single_pixel),
            cmocka_unit_test(test_against_cpu),
            cmocka_unit_test(test_mutable_texture),
            cmocka_unit_test(test_submit_poll),
            cmocka_unit_test(test_colormap),
            cmocka_unit_test(test_heatmap),
            cmocka_unit_test(test_invalid_arguments),
        };
        result = cmocka_run_group_tests(tests, NULL, NULL);
    }
    ds_egl_context_destroy(context);
    return result;
}
