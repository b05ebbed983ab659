/* SPDX-License-Identifier: MIT */
/* viewer_error.c — the error view (D, and the split view \\; see
 * viewer_internal.h): the picture against the exact reference. The same
 * renderer draws the A-buffer into its own framebuffer after the window's
 * frame, both are copied into textures of the viewer's, and
 * ds_image_metrics compares them on the GPU, polled in a later frame so
 * that the viewer never waits for it. Where that costs more than the frame
 * itself (llvmpipe) it runs every N frames and the overlay says so; the
 * reference frames stay out of the stage means. */
#include <math.h>

#include <glad/gl.h>

#include "viewer_internal.h"

/* ---- the error against the exact reference ------------------------------ */

void ds_viewer_forget_reference_frames(ds_viewer *v)
{
    for (int i = 0; i < REFERENCE_RING; i++)
        v->error.reference_frames[i] = UINT64_MAX;
}

void ds_viewer_free_error_targets(ds_viewer *v)
{
    ds_image_metrics_destroy(v->error.metrics);
    v->error.metrics = NULL;
    unsigned textures[3] = {v->error.test_texture, v->error.reference_texture,
                            v->error.heat_texture};
    unsigned framebuffers[2] = {v->error.reference_framebuffer, v->error.heat_framebuffer};
    if (v->error.test_texture)
        glDeleteTextures(3, textures);
    if (v->error.reference_framebuffer)
        glDeleteFramebuffers(2, framebuffers);
    v->error.test_texture = v->error.reference_texture = v->error.heat_texture = 0;
    v->error.reference_framebuffer = v->error.heat_framebuffer = 0;
    v->error.width = v->error.height = 0;
    v->error.have_result = 0;
    v->error.images_ready = 0;
}

/* The comparison's textures at the window's size, made on first use and
 * after a resize. Returns 0 (and shows why) when they cannot be made. */
int ds_viewer_ensure_error_targets(ds_viewer *v)
{
    if (v->error.metrics && v->error.width == v->fb_width && v->error.height == v->fb_height)
        return 1;
    ds_viewer_free_error_targets(v);
    ds_image_metrics_desc desc = {.width = v->fb_width, .height = v->fb_height};
    ds_log_set_quiet(1);
    ds_status status = ds_image_metrics_create(&desc, &v->error.metrics);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        ds_viewer_show_error(v, "error view");
        v->error.mode = ERROR_OFF;
        v->error.split = 0;
        return 0;
    }
    unsigned textures[3];
    glCreateTextures(GL_TEXTURE_2D, 3, textures);
    for (int i = 0; i < 3; i++)
        glTextureStorage2D(textures[i], 1, GL_RGBA8, v->fb_width, v->fb_height);
    v->error.test_texture = textures[0];
    v->error.reference_texture = textures[1];
    v->error.heat_texture = textures[2];
    unsigned framebuffers[2];
    glCreateFramebuffers(2, framebuffers);
    glNamedFramebufferTexture(framebuffers[0], GL_COLOR_ATTACHMENT0, v->error.reference_texture, 0);
    glNamedFramebufferTexture(framebuffers[1], GL_COLOR_ATTACHMENT0, v->error.heat_texture, 0);
    v->error.reference_framebuffer = framebuffers[0];
    v->error.heat_framebuffer = framebuffers[1];
    v->error.width = v->fb_width;
    v->error.height = v->fb_height;
    v->error.frames_to_measure = 0;
    if (!v->error.every)
        v->error.every = 1;
    return 1;
}

static void copy_texture(const ds_viewer *v, unsigned source, unsigned dest)
{
    glCopyImageSubData(source, GL_TEXTURE_2D, 0, 0, 0, 0, dest, GL_TEXTURE_2D, 0, 0, 0, 0,
                       v->fb_width, v->fb_height, 1);
}

/* After the window's frame: copies it, draws the reference (unless the
 * frame is the A-buffer's already), submits the comparison and, in the
 * heatmap view, the heatmap. Nothing here waits for the GPU, except the
 * A-buffer frame's own counter read. */
ds_status ds_viewer_measure_error(ds_viewer *v)
{
    ds_status status;
    copy_texture(v, ds_renderer_color_texture(v->renderer), v->error.test_texture);
    if (v->settings.technique == DS_TECHNIQUE_ABUFFER) {
        copy_texture(v, v->error.test_texture, v->error.reference_texture);
    } else {
        if ((status = ds_renderer_set_technique(v->renderer, DS_TECHNIQUE_ABUFFER)))
            return status;
        v->error.reference_frames[v->error.reference_next] = v->timings.frames_rendered;
        v->error.reference_next = (v->error.reference_next + 1) % REFERENCE_RING;
        status = ds_renderer_frame(v->renderer, &v->camera, DS_RENDERER_OWN_FRAMEBUFFER);
        ds_status back = ds_renderer_set_technique(v->renderer, v->settings.technique);
        if (status || (status = back))
            return status;
        v->timings.frames_rendered++;
        copy_texture(v, ds_renderer_color_texture(v->renderer), v->error.reference_texture);
    }
    if ((status = ds_image_metrics_submit(v->error.metrics, v->error.test_texture,
                                          v->error.reference_texture)))
        return status;
    if (v->error.mode == ERROR_HEATMAP)
        status = ds_image_metrics_heatmap(v->error.metrics, v->error.test_texture,
                                          v->error.reference_texture, (float)HEAT_LEVELS,
                                          v->error.heat_texture, NULL);
    v->error.images_ready = status == DS_OK;
    return status;
}

/* The measurement rate: every frame while it costs at most what a frame
 * without it does (host time, swap included), else every N frames so that
 * it takes about half the time. */
void ds_viewer_update_error_rate(ds_viewer *v, double measure_ms, double own_ms)
{
    if (measure_ms > 0.0)
        v->error.measure_ms_mean = v->error.measure_ms_mean > 0.0
                                 ? 0.8 * v->error.measure_ms_mean + 0.2 * measure_ms : measure_ms;
    if (own_ms > 0.0)
        v->error.own_ms_mean =
            v->error.own_ms_mean > 0.0 ? 0.8 * v->error.own_ms_mean + 0.2 * own_ms : own_ms;
    int every = (int)ceil(v->error.measure_ms_mean / fmax(v->error.own_ms_mean, 0.1));
    v->error.every = every < 1 ? 1 : every > ERROR_EVERY_MAX ? ERROR_EVERY_MAX : every;
}

int ds_viewer_split_column(const ds_viewer *v)
{
    int w = v->fb_width, column = w / 2;
    if (v->error.split_column > 0) {
        column = v->error.split_column;
    } else {
        /* The model's centre through the camera, clip x over w to the
         * viewport's columns. */
        float m[16];
        const float *c = v->model_center;
        ds_camera_view_projection(&v->camera, m);
        float clip_x = m[0] * c[0] + m[4] * c[1] + m[8] * c[2] + m[12];
        float clip_w = m[3] * c[0] + m[7] * c[1] + m[11] * c[2] + m[15];
        if (clip_w > 0.0f)
            column = (int)lroundf((0.5f * clip_x / clip_w + 0.5f) * (float)w);
    }
    return column < 1 ? 1 : column > w - 1 ? w - 1 : column;
}

/* Within this RMSE, in levels of 255, the halves look alike. */
#define SPLIT_MATCH_RMSE 1.0

void ds_viewer_announce_split(ds_viewer *v)
{
    const char *label = ds_technique_label(v->settings.technique);
    v->error.split_announce = 0;
    const ds_image_error *e = &v->error.result;
    if (e->rmse <= SPLIT_MATCH_RMSE)
        ds_viewer_show_message(v,
                               "split view, error line on: the halves match: %s is within "
                               "%.2f levels (RMSE; largest %d) of exact here",
                               label, e->rmse, e->max_error);
    else
        ds_viewer_show_message(v,
                               "split view, error line on: %s differs from exact by %.2f levels "
                               "(RMSE; largest %d)",
                               label, e->rmse, e->max_error);
}

/* The heatmap over the whole picture, or the reference right of the
 * split view's divider, into the window's picture before the overlay. */
void ds_viewer_show_error_images(ds_viewer *v)
{
    int w = v->fb_width, h = v->fb_height;
    if (!v->error.images_ready)
        return;
    if (v->error.mode == ERROR_HEATMAP)
        glBlitNamedFramebuffer(v->error.heat_framebuffer, v->target, 0, 0, w, h, 0, 0, w, h,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    else if (v->error.split) {
        int column = ds_viewer_split_column(v);
        glBlitNamedFramebuffer(v->error.reference_framebuffer, v->target, column, 0, w, h, column, 0, w, h,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }
}
