/* SPDX-License-Identifier: MIT */
/* image_metrics.h — the error of an image against a reference, on the GPU:
 * RMSE and PSNR over the 8-bit RGB values, the largest per-channel error,
 * the fraction of pixels off by more than 2 and by more than 8 levels, and
 * SSIM (Wang, Bovik, Sheikh, Simoncelli 2004, "Image quality assessment:
 * from error visibility to structural similarity"); and a heatmap of the
 * per-pixel error through a perceptual colour map.
 *
 * Step by step:
 *   // A GL 4.5 core context is current and GL is loaded through glad.
 *   ds_image_metrics_desc desc = {0};     // zero means default
 *   desc.width = 1920; desc.height = 1080;
 *   ds_image_metrics *metrics;
 *   if (ds_image_metrics_create(&desc, &metrics) != DS_OK) ...;
 *   ds_image_error error;
 *   if (ds_image_metrics_compare(metrics, test_texture, reference_texture,
 *                                &error) != DS_OK) ...;
 *   // or, without waiting: ds_image_metrics_submit() now and
 *   // ds_image_metrics_poll(metrics, 0, &error) in a later frame
 *   ds_image_metrics_heatmap(metrics, test_texture, reference_texture,
 *                            16.0f, 0, rgba);  // then ds_write_png() it
 *   ds_image_metrics_destroy(metrics);    // in the same context
 *
 * Inputs: two GL_TEXTURE_2D textures of internal format GL_RGBA8 (linear,
 *   not sRGB: the stored bytes are the values compared), desc.width ×
 *   desc.height at level 0. Each channel is read as its 8-bit value
 *   0..255; alpha is ignored. A renderbuffer cannot be read by a compute
 *   shader: blit it into a texture first.
 *
 * Definitions (over all width × height pixels, channels R, G, B):
 *   rmse      sqrt(sum of (test - reference)^2 / (3 · width · height)),
 *             in 8-bit levels;
 *   psnr      20 · log10(255 / rmse) dB; +INFINITY when rmse is 0
 *             (identical RGB). JSON has no infinity: print it as null
 *             (rmse 0 says why); CSV and tables print "inf";
 *   max_error the largest |test - reference| of any channel, 0..255;
 *   bad_2, bad_8  the fraction of pixels where some channel differs by
 *             more than 2 (resp. 8) levels;
 *   ssim      the mean SSIM map of the luma Y = 0.299 R + 0.587 G +
 *             0.114 B (0..255), with an 11 × 11 Gaussian window, sigma
 *             1.5, normalised to sum 1, C1 = (0.01 · 255)^2, C2 =
 *             (0.03 · 255)^2 — the paper's constants. Border rule: the
 *             map covers only the pixels whose whole window lies inside
 *             the image (MATLAB's filter2 'valid', as the authors'
 *             ssim_index.m), (width - 10) × (height - 10) of them; no
 *             padding and no down-sampling.
 *
 * On the GPU: one compute pass over 16 × 16 tiles loads each tile's luma
 *   with a 5-pixel apron into shared memory, runs the separable Gaussian
 *   (horizontal, then vertical) over the five moments E[x], E[y], E[x²],
 *   E[y²], E[xy], evaluates SSIM per pixel and the error terms, and
 *   reduces the tile to one partial; a second pass (one workgroup) sums
 *   the partials. Only the final 40 bytes are read back. Precision: the
 *   squared errors, the maximum and the counts are integers (exact; a
 *   tile's sum of squared errors is below 2^26), summed across tiles in
 *   double, exact below 2^53 (more than the largest image allowed here
 *   can reach); the moments, SSIM and its sums are in double, so the
 *   variances E[x²] - E[x]² do not cancel away (float would lose them on
 *   flat bright regions).
 *
 * Threading: one thread, the one whose GL context was current at create.
 * GL state: the calls below leave their compute program, texture units 0
 *   and 1 with a sampler, shader storage bindings 0..2 and image unit 0
 *   bound, and the heatmap's read-back sets the pack alignment to 4, the
 *   pack row length to 0 and unbinds GL_PIXEL_PACK_BUFFER; callers set
 *   their own state afterwards.
 */
#ifndef DS_IMAGE_METRICS_H
#define DS_IMAGE_METRICS_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The smallest side: the SSIM window must fit at least once. */
#define DS_IMAGE_METRICS_MIN_SIZE 11
/* The largest side (the sums stay exact, see above). */
#define DS_IMAGE_METRICS_MAX_SIZE 16384

typedef struct ds_image_metrics ds_image_metrics;

/* Zero-initialise, then fill what you need; zero means default. */
typedef struct ds_image_metrics_desc {
    int width, height; /* required: the size of both compared textures,
                          DS_IMAGE_METRICS_MIN_SIZE..DS_IMAGE_METRICS_MAX_SIZE */
} ds_image_metrics_desc;

/* One comparison; see the definitions above. */
typedef struct ds_image_error {
    double rmse;     /* 8-bit levels */
    double psnr;     /* dB; +INFINITY when rmse == 0 */
    double ssim;     /* -1..1; 1 for identical luma */
    int max_error;   /* 0..255 */
    double bad_2;    /* fraction of pixels, 0..1 */
    double bad_8;
    double gpu_ms;   /* GPU time of the comparison's passes (GL timestamps) */
} ds_image_error;

/* Compiles the passes and allocates every buffer a comparison and a
 * heatmap need (nothing is allocated per call). Errors:
 * DS_ERR_INVALID_ARG (size out of range), DS_ERR_GL. */
ds_status ds_image_metrics_create(const ds_image_metrics_desc *desc,
                                  ds_image_metrics **dest);

/* Frees every GL object; NULL is allowed. */
void ds_image_metrics_destroy(ds_image_metrics *metrics);

/* Compares test_texture against reference_texture and waits for the
 * result (one GPU round trip). Errors: DS_ERR_INVALID_ARG (not a 2D
 * GL_RGBA8 texture of the desc's size). */
ds_status ds_image_metrics_compare(ds_image_metrics *metrics, uint32_t test_texture,
                                   uint32_t reference_texture, ds_image_error *dest);

/* Enqueues a comparison without waiting. A submit replaces a previous
 * one not yet polled (its result is lost). Errors as compare. */
ds_status ds_image_metrics_submit(ds_image_metrics *metrics, uint32_t test_texture,
                                  uint32_t reference_texture);

/* The result of the last submit: returns 1 and fills dest once the GPU
 * has finished it (wait nonzero: waits for it), 0 while it has not (wait
 * zero) or when nothing is pending. Each result is returned once. */
int ds_image_metrics_poll(ds_image_metrics *metrics, int wait, ds_image_error *dest);

/* The heatmap: each pixel's largest channel error e, mapped through
 * ds_image_metrics_colormap(min(e / scale_levels, 1)) — so it saturates
 * at scale_levels levels (scale_levels > 0, e.g. 8 or 255) — and where e
 * is 0, the reference dimmed to grey (ds_image_metrics_heat_grey()), so
 * that the model stays visible under the colours. Written into
 * dest_texture (a GL_RGBA8 2D texture of the desc's size; alpha 255) or,
 * when that is 0, into the module's own (ds_image_metrics_heatmap_texture);
 * and when dest_rgba is not NULL, read back into it as width × height × 4
 * bytes, top row first (ready for ds_write_png; GL's row 0 is the
 * bottom). The colour says nothing without its scale: put scale_levels in
 * the file name (sorted-heat-0-16.png) or beside the image. Errors:
 * DS_ERR_INVALID_ARG. */
ds_status ds_image_metrics_heatmap(ds_image_metrics *metrics, uint32_t test_texture,
                                   uint32_t reference_texture, float scale_levels,
                                   uint32_t dest_texture, uint8_t *dest_rgba);

/* The module's own heatmap texture (GL_RGBA8, the desc's size). */
uint32_t ds_image_metrics_heatmap_texture(const ds_image_metrics *metrics);

/* The heatmap's colour map at t in 0..1 (clamped) as 8-bit RGB: a
 * viridis-like ramp from dark violet (t = 0, no error) through teal to
 * yellow (t = 1, saturated), lightness increasing throughout. The same
 * polynomial the GPU pass evaluates. */
void ds_image_metrics_colormap(float t, uint8_t dest[3]);

/* The heatmap's pixel where there is no error: the reference's luma
 * dimmed to a grey of 15..104, so that the model stays visible (as the
 * GPU pass computes it, within rounding). */
void ds_image_metrics_heat_grey(const uint8_t reference[3], uint8_t dest[3]);

#ifdef __cplusplus
}
#endif
#endif
