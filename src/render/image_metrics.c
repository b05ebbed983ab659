/* SPDX-License-Identifier: MIT */
/* image_metrics.c — image error against a reference on the GPU (RMSE,
 * PSNR, largest error, bad-pixel fractions, SSIM after Wang, Bovik, Sheikh
 * and Simoncelli 2004) and the error heatmap; definitions, precision and
 * the border rule in image_metrics.h.
 *
 * Two compute passes per comparison, then one 40-byte read-back:
 *   metrics_tile    a workgroup per TILE × TILE tile: error terms, the
 *                   separable Gaussian over the SSIM moments in shared
 *                   memory, SSIM per pixel, one partial per tile;
 *   metrics_reduce  one workgroup sums the partials.
 * The heatmap is one more pass (metrics_heatmap) writing an RGBA8 image. */
#include "image_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "gl_compute.h"

/* ---- tuning and definitions ---------------------------------------------- */

/* Tile side of the SSIM pass: 256 invocations, and with the apron the
 * shared memory (luma as float, five double moments per apron row, the
 * reduction) stays under GL's guaranteed 32 KiB. */
#define TILE 16
/* The window's half width: 11 × 11 is SSIM's definition, not a tuning. */
#define RADIUS 5
#define SSIM_SIGMA 1.5
/* SSIM's constants: (K1 L)^2 and (K2 L)^2 with K1 = 0.01, K2 = 0.03,
 * L = 255; the tile pass works on luma × 1000, so × 1000^2. */
#define SSIM_K1 0.01
#define SSIM_K2 0.03
#define LUMA_SCALE 1000.0
/* One workgroup sums every tile's partial: 1080p has 8160 tiles, 16 per
 * invocation at this size. */
#define REDUCE_THREADS 512

/* The heatmap's colour map: r, g, b = sum over k of COLORMAP[k] t^k, a
 * degree-6 least-squares fit (written for this module; ends weighted ten
 * times) to 33 evenly spaced samples of viridis (van der Walt and Smith,
 * matplotlib's default colour map, designed to be perceptually uniform
 * with monotonic lightness). It stays within 4 of 255 levels of the
 * samples; its lightness increases throughout. */
#define COLORMAP_TERMS 7
static const float COLORMAP[COLORMAP_TERMS][3] = {
    {0.267622f, 0.005018f, 0.329760f},
    {0.219794f, 1.412725f, 1.399407f},
    {-0.778152f, 0.116883f, 0.424468f},
    {-4.395661f, -5.526190f, -21.822558f},
    {8.008415f, 13.938556f, 63.176315f},
    {1.595859f, -13.716356f, -72.410282f},
    {-3.925684f, 4.675427f, 29.045612f},
};

/* Shader sources, embedded from shaders/ by cmake/embed.cmake. */
extern const char ds_shader_metrics_tile_comp[];
extern const char ds_shader_metrics_reduce_comp[];
extern const char ds_shader_metrics_heatmap_comp[];

/* The reduce pass's output, as metrics_reduce.comp.glsl lays it out
 * (std430). */
typedef struct result_block {
    double squared_error_sum;
    double ssim_sum;
    double bad_2_count;
    double bad_8_count;
    uint32_t max_error;
    uint32_t padding;
} result_block;

struct ds_image_metrics {
    int width, height;
    GLuint tiles_x, tiles_y;
    GLuint tile_program, reduce_program, heatmap_program;
    GLuint sampler;          /* nearest, level 0: any texture reads complete */
    GLuint partial_terms;    /* tiles × uvec4 */
    GLuint partial_ssim;     /* tiles × double */
    GLuint result;           /* result_block */
    GLuint heatmap_texture;  /* RGBA8, width × height */
    GLuint queries[2];       /* GL_TIMESTAMP before and after the passes */
    GLsync fence;            /* the last submit's passes, for poll */
    int pending;
    uint8_t *row;            /* one image row, for turning the heatmap's
                                read-back top row first */
};

/* ---- helpers ---------------------------------------------------------------- */

/* A 2D GL_RGBA8 texture of the metrics' size, or DS_ERR_INVALID_ARG
 * naming `role`. */
static ds_status check_texture(const ds_image_metrics *metrics, GLuint texture,
                               const char *role)
{
    if (texture == 0 || !glIsTexture(texture))
        return ds_fail(DS_ERR_INVALID_ARG, "image metrics: %s texture %u is not a texture",
                       role, texture);
    GLint target = 0, format = 0, width = 0, height = 0;
    glGetTextureParameteriv(texture, GL_TEXTURE_TARGET, &target);
    if (target != GL_TEXTURE_2D)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "image metrics: %s texture %u is not a 2D texture (target 0x%x)",
                       role, texture, (unsigned)target);
    glGetTextureLevelParameteriv(texture, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    glGetTextureLevelParameteriv(texture, 0, GL_TEXTURE_WIDTH, &width);
    glGetTextureLevelParameteriv(texture, 0, GL_TEXTURE_HEIGHT, &height);
    if (format != GL_RGBA8)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "image metrics: %s texture %u has format 0x%x, not GL_RGBA8",
                       role, texture, (unsigned)format);
    if (width != metrics->width || height != metrics->height)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "image metrics: %s texture %u is %dx%d, the metrics were made for %dx%d",
                       role, texture, width, height, metrics->width, metrics->height);
    return DS_OK;
}

static void bind_inputs(const ds_image_metrics *metrics, GLuint test, GLuint reference)
{
    glBindTextureUnit(0, test);
    glBindTextureUnit(1, reference);
    glBindSampler(0, metrics->sampler);
    glBindSampler(1, metrics->sampler);
}

/* ---- create / destroy ----------------------------------------------------- */

ds_status ds_image_metrics_create(const ds_image_metrics_desc *desc,
                                  ds_image_metrics **dest)
{
    if (!desc || !dest)
        return ds_fail(DS_ERR_INVALID_ARG, "image metrics: create needs a desc and a dest");
    *dest = NULL;
    if (desc->width < DS_IMAGE_METRICS_MIN_SIZE || desc->height < DS_IMAGE_METRICS_MIN_SIZE ||
        desc->width > DS_IMAGE_METRICS_MAX_SIZE || desc->height > DS_IMAGE_METRICS_MAX_SIZE)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "image metrics: size %dx%d outside %d..%d per side (the SSIM window "
                       "is %dx%d)", desc->width, desc->height, DS_IMAGE_METRICS_MIN_SIZE,
                       DS_IMAGE_METRICS_MAX_SIZE, 2 * RADIUS + 1, 2 * RADIUS + 1);

    /* Errors raised before this call are not ours (a debug callback has
     * reported them already): clear them for the check at the end. */
    while (glGetError() != GL_NO_ERROR) {
    }
    ds_status status = DS_OK;
    ds_image_metrics *metrics = calloc(1, sizeof *metrics);
    if (!metrics)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "image metrics: out of host memory");
    metrics->width = desc->width;
    metrics->height = desc->height;
    metrics->tiles_x = (GLuint)(desc->width + TILE - 1) / TILE;
    metrics->tiles_y = (GLuint)(desc->height + TILE - 1) / TILE;
    metrics->row = malloc((size_t)desc->width * 4);
    if (!metrics->row) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "image metrics: out of host memory");
        goto fail;
    }

    char defines[128];
    snprintf(defines, sizeof defines, "#define TILE %d\n#define RADIUS %d\n", TILE, RADIUS);
    if ((status = ds_gl_compile_compute("image metrics", "metrics_tile", defines,
                                       ds_shader_metrics_tile_comp, &metrics->tile_program)) != DS_OK)
        goto fail;
    snprintf(defines, sizeof defines, "#define REDUCE_THREADS %d\n", REDUCE_THREADS);
    if ((status = ds_gl_compile_compute("image metrics", "metrics_reduce", defines,
                                       ds_shader_metrics_reduce_comp, &metrics->reduce_program)) != DS_OK)
        goto fail;
    snprintf(defines, sizeof defines, "#define TILE %d\n#define COLORMAP_TERMS %d\n", TILE,
             COLORMAP_TERMS);
    if ((status = ds_gl_compile_compute("image metrics", "metrics_heatmap", defines,
                                       ds_shader_metrics_heatmap_comp, &metrics->heatmap_program)) != DS_OK)
        goto fail;

    /* The window: the 2D Gaussian exp(-(i² + j²) / 2σ²) normalised to sum
     * 1 is the product of two normalised 1D ones. */
    double weights[2 * RADIUS + 1], weight_sum = 0.0;
    for (int k = -RADIUS; k <= RADIUS; k++)
        weight_sum += weights[k + RADIUS] = exp(-(double)(k * k) / (2.0 * SSIM_SIGMA * SSIM_SIGMA));
    for (int k = 0; k < 2 * RADIUS + 1; k++)
        weights[k] /= weight_sum;
    const double c1 = (SSIM_K1 * 255.0 * LUMA_SCALE) * (SSIM_K1 * 255.0 * LUMA_SCALE);
    const double c2 = (SSIM_K2 * 255.0 * LUMA_SCALE) * (SSIM_K2 * 255.0 * LUMA_SCALE);
    glProgramUniform2i(metrics->tile_program, 0, desc->width, desc->height);
    glProgramUniform2d(metrics->tile_program, 1, c1, c2);
    glProgramUniform1dv(metrics->tile_program, 2, 2 * RADIUS + 1, weights);
    glProgramUniform1ui(metrics->reduce_program, 0, metrics->tiles_x * metrics->tiles_y);
    glProgramUniform2i(metrics->heatmap_program, 0, desc->width, desc->height);
    glProgramUniform3fv(metrics->heatmap_program, 2, COLORMAP_TERMS, &COLORMAP[0][0]);

    GLsizeiptr tiles = (GLsizeiptr)metrics->tiles_x * metrics->tiles_y;
    GLuint buffers[3];
    glCreateBuffers(3, buffers);
    metrics->partial_terms = buffers[0];
    metrics->partial_ssim = buffers[1];
    metrics->result = buffers[2];
    glNamedBufferStorage(metrics->partial_terms, tiles * 4 * (GLsizeiptr)sizeof(uint32_t), NULL, 0);
    glNamedBufferStorage(metrics->partial_ssim, tiles * (GLsizeiptr)sizeof(double), NULL, 0);
    glNamedBufferStorage(metrics->result, sizeof(result_block), NULL, 0);

    glCreateSamplers(1, &metrics->sampler);
    glSamplerParameteri(metrics->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(metrics->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCreateTextures(GL_TEXTURE_2D, 1, &metrics->heatmap_texture);
    glTextureStorage2D(metrics->heatmap_texture, 1, GL_RGBA8, desc->width, desc->height);
    glCreateQueries(GL_TIMESTAMP, 2, metrics->queries);

    GLenum error = glGetError();
    if (error != GL_NO_ERROR) {
        status = ds_fail(DS_ERR_GL, "image metrics: creating the %dx%d buffers failed (GL error "
                         "0x%x)", desc->width, desc->height, error);
        goto fail;
    }
    *dest = metrics;
    return DS_OK;

fail:
    ds_image_metrics_destroy(metrics);
    return status;
}

void ds_image_metrics_destroy(ds_image_metrics *metrics)
{
    if (!metrics)
        return;
    if (metrics->fence)
        glDeleteSync(metrics->fence);
    /* Deleting name 0 is a no-op: a partial create cleans up here too. */
    glDeleteQueries(2, metrics->queries);
    glDeleteTextures(1, &metrics->heatmap_texture);
    glDeleteSamplers(1, &metrics->sampler);
    GLuint buffers[3] = {metrics->partial_terms, metrics->partial_ssim, metrics->result};
    glDeleteBuffers(3, buffers);
    glDeleteProgram(metrics->tile_program);
    glDeleteProgram(metrics->reduce_program);
    glDeleteProgram(metrics->heatmap_program);
    free(metrics->row);
    free(metrics);
}

/* ---- comparison ------------------------------------------------------------- */

ds_status ds_image_metrics_submit(ds_image_metrics *metrics, uint32_t test_texture,
                                  uint32_t reference_texture)
{
    ds_status status;
    if ((status = check_texture(metrics, test_texture, "test")) != DS_OK ||
        (status = check_texture(metrics, reference_texture, "reference")) != DS_OK)
        return status;

    /* The partials may still be read by a previous submit's reduce pass. */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glQueryCounter(metrics->queries[0], GL_TIMESTAMP);
    glUseProgram(metrics->tile_program);
    bind_inputs(metrics, test_texture, reference_texture);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, metrics->partial_terms);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, metrics->partial_ssim);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, metrics->result);
    glDispatchCompute(metrics->tiles_x, metrics->tiles_y, 1);
    /* The reduce pass reads every tile's partial. */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(metrics->reduce_program);
    glDispatchCompute(1, 1, 1);
    /* poll's glGetNamedBufferSubData sees the reduce pass's result. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glQueryCounter(metrics->queries[1], GL_TIMESTAMP);
    if (metrics->fence)
        glDeleteSync(metrics->fence);
    metrics->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    metrics->pending = 1;
    return DS_OK;
}

int ds_image_metrics_poll(ds_image_metrics *metrics, int wait, ds_image_error *dest)
{
    if (!metrics->pending)
        return 0;
    /* The fence covers both passes and the second timestamp. A wait
     * failure (a lost context) falls through to the read, which blocks. */
    GLenum state = glClientWaitSync(metrics->fence, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    if (state == GL_TIMEOUT_EXPIRED && !wait)
        return 0;
    while (state == GL_TIMEOUT_EXPIRED)
        state = glClientWaitSync(metrics->fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000u);
    metrics->pending = 0;

    result_block block;
    glGetNamedBufferSubData(metrics->result, 0, sizeof block, &block);
    GLuint64 begin_ns = 0, end_ns = 0;
    glGetQueryObjectui64v(metrics->queries[0], GL_QUERY_RESULT, &begin_ns);
    glGetQueryObjectui64v(metrics->queries[1], GL_QUERY_RESULT, &end_ns);

    const double pixels = (double)metrics->width * metrics->height;
    const double ssim_pixels = (double)(metrics->width - 2 * RADIUS) *
                               (metrics->height - 2 * RADIUS);
    ds_image_error error = {0};
    error.rmse = sqrt(block.squared_error_sum / (3.0 * pixels));
    error.psnr = error.rmse > 0.0 ? 20.0 * log10(255.0 / error.rmse) : INFINITY;
    error.ssim = block.ssim_sum / ssim_pixels;
    error.max_error = (int)block.max_error;
    error.bad_2 = block.bad_2_count / pixels;
    error.bad_8 = block.bad_8_count / pixels;
    error.gpu_ms = end_ns > begin_ns ? (double)(end_ns - begin_ns) * 1e-6 : 0.0;
    *dest = error;
    return 1;
}

ds_status ds_image_metrics_compare(ds_image_metrics *metrics, uint32_t test_texture,
                                   uint32_t reference_texture, ds_image_error *dest)
{
    ds_status status = ds_image_metrics_submit(metrics, test_texture, reference_texture);
    if (status != DS_OK)
        return status;
    ds_image_metrics_poll(metrics, 1, dest);
    return DS_OK;
}

/* ---- heatmap ---------------------------------------------------------------- */

ds_status ds_image_metrics_heatmap(ds_image_metrics *metrics, uint32_t test_texture,
                                   uint32_t reference_texture, float scale_levels,
                                   uint32_t dest_texture, uint8_t *dest_rgba)
{
    ds_status status;
    if (!(scale_levels > 0.0f) || !isfinite(scale_levels))
        return ds_fail(DS_ERR_INVALID_ARG,
                       "image metrics: heatmap scale %g is not a positive number of levels",
                       (double)scale_levels);
    if ((status = check_texture(metrics, test_texture, "test")) != DS_OK ||
        (status = check_texture(metrics, reference_texture, "reference")) != DS_OK ||
        (dest_texture && (status = check_texture(metrics, dest_texture, "heatmap")) != DS_OK))
        return status;
    GLuint target = dest_texture ? dest_texture : metrics->heatmap_texture;

    glUseProgram(metrics->heatmap_program);
    glProgramUniform1f(metrics->heatmap_program, 1, 1.0f / scale_levels);
    bind_inputs(metrics, test_texture, reference_texture);
    glBindImageTexture(0, target, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    glDispatchCompute(metrics->tiles_x, metrics->tiles_y, 1);
    /* Whatever reads the heatmap next (a read-back, a sampler, a blit)
     * sees the image stores. */
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                    GL_FRAMEBUFFER_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    if (!dest_rgba)
        return DS_OK;

    const size_t row_bytes = (size_t)metrics->width * 4;
    const size_t bytes = row_bytes * (size_t)metrics->height;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0); /* read into client memory */
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glGetTextureImage(target, 0, GL_RGBA, GL_UNSIGNED_BYTE, (GLsizei)bytes, dest_rgba);
    /* GL's first row is the bottom one; images start at the top. */
    for (int y = 0; y < metrics->height / 2; y++) {
        uint8_t *top = dest_rgba + (size_t)y * row_bytes;
        uint8_t *bottom = dest_rgba + (size_t)(metrics->height - 1 - y) * row_bytes;
        memcpy(metrics->row, top, row_bytes);
        memcpy(top, bottom, row_bytes);
        memcpy(bottom, metrics->row, row_bytes);
    }
    return DS_OK;
}

uint32_t ds_image_metrics_heatmap_texture(const ds_image_metrics *metrics)
{
    return metrics->heatmap_texture;
}

void ds_image_metrics_heat_grey(const uint8_t reference[3], uint8_t dest[3])
{
    /* As metrics_heatmap.comp.glsl: 15 + 0.35 luma, rounded. */
    float grey = 15.0f + 0.35f * (0.299f * reference[0] + 0.587f * reference[1] +
                                  0.114f * reference[2]);
    dest[0] = dest[1] = dest[2] = (uint8_t)(grey + 0.5f);
}

void ds_image_metrics_colormap(float t, uint8_t dest[3])
{
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    for (int c = 0; c < 3; c++) {
        float v = COLORMAP[COLORMAP_TERMS - 1][c]; /* Horner, as the shader */
        for (int k = COLORMAP_TERMS - 2; k >= 0; k--)
            v = v * t + COLORMAP[k][c];
        v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        dest[c] = (uint8_t)(v * 255.0f + 0.5f);
    }
}
