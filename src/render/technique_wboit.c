/* SPDX-License-Identifier: MIT */
/* technique_wboit.c — weighted blended order-independent transparency
 * (technique.h; "wboit" in technique_registry.h), after McGuire and
 * Bavoil, "Weighted Blended Order-Independent Transparency" (JCGT 2013):
 * one draw of the mesh in its own order accumulates the weighted colour
 * sum and the product of (1 - alpha); a full-screen pass composites them.
 * An approximation: no sort, no per-pixel list. */
#include "gl_program.h"
#include "oit_common.h"
#include "technique.h"

extern const char ds_shader_wboit_accumulate_frag[];
extern const char ds_shader_wboit_composite_frag[];

typedef struct wboit_state {
    oit_arrays arrays;
    GLuint accumulate[2], composite; /* [0] triangles, [1] points */
    int width, height;               /* the images' size */
    GLuint framebuffer, accumulation, revealage;
} wboit_state;

static void wboit_free_images(ds_renderer *renderer, void *state)
{
    wboit_state *wboit = state;
    (void)renderer;
    ds_oit_delete_framebuffer(&wboit->framebuffer);
    ds_oit_delete_texture(&wboit->accumulation);
    ds_oit_delete_texture(&wboit->revealage);
}

static ds_status wboit_prepare(ds_renderer *renderer, void *state)
{
    wboit_state *wboit = state;
    ds_status status;
    int w = renderer->settings.width, h = renderer->settings.height;
    ds_oit_make_arrays(renderer, &wboit->arrays);
    if ((status = ds_oit_make_programs(ds_shader_wboit_accumulate_frag, "wboit_accumulate",
                                       wboit->accumulate)) ||
        (status = ds_oit_make_fullscreen(ds_shader_wboit_composite_frag, "wboit_composite",
                                         &wboit->composite)))
        return status;
    if (wboit->framebuffer && (wboit->width != w || wboit->height != h))
        wboit_free_images(renderer, state);
    if (!wboit->framebuffer) {
        wboit->width = w;
        wboit->height = h;
        wboit->accumulation = ds_oit_make_texture(GL_RGBA16F, w, h);
        wboit->revealage = ds_oit_make_texture(GL_R16F, w, h);
        glCreateFramebuffers(1, &wboit->framebuffer);
        glNamedFramebufferTexture(wboit->framebuffer, GL_COLOR_ATTACHMENT0, wboit->accumulation,
                                  0);
        glNamedFramebufferTexture(wboit->framebuffer, GL_COLOR_ATTACHMENT1, wboit->revealage, 0);
        static const GLenum targets[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
        glNamedFramebufferDrawBuffers(wboit->framebuffer, 2, targets);
    }
    return DS_OK;
}

static ds_status wboit_composite(ds_renderer *renderer, void *state, const frame_plan *plan,
                                 GLuint output)
{
    wboit_state *wboit = state;
    static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f}, one[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    glBindFramebuffer(GL_FRAMEBUFFER, wboit->framebuffer);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    glClearNamedFramebufferfv(wboit->framebuffer, GL_COLOR, 0, zero);
    glClearNamedFramebufferfv(wboit->framebuffer, GL_COLOR, 1, one);
    /* The paper's blending: the sums add, the revealage multiplies. */
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunci(0, GL_ONE, GL_ONE);
    glBlendFunci(1, GL_ZERO, GL_ONE_MINUS_SRC_COLOR);
    ds_render_use_program(renderer, plan, wboit->accumulate[plan->points]);
    ds_oit_draw_mesh_order(renderer, &wboit->arrays, plan);
    glBindTextureUnit(0, wboit->accumulation);
    glBindTextureUnit(1, wboit->revealage);
    ds_oit_draw_fullscreen(renderer, &wboit->arrays, output, wboit->composite);
    glBindTextureUnit(0, 0);
    glBindTextureUnit(1, 0);
    return DS_OK;
}

static ds_status wboit_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                             frame_record *record)
{
    return ds_oit_frame(renderer, state, plan, record, wboit_composite);
}

static void wboit_free(ds_renderer *renderer, void *state)
{
    wboit_state *wboit = state;
    wboit_free_images(renderer, state);
    for (int k = 0; k < 2; k++)
        ds_oit_delete_program(&wboit->accumulate[k]);
    ds_oit_delete_program(&wboit->composite);
    ds_oit_free_arrays(&wboit->arrays);
}

const ds_technique_backend ds_technique_wboit = {
    .state_size = sizeof(wboit_state),
    .prepare = wboit_prepare,
    .frame = wboit_frame,
    .free_images = wboit_free_images,
    .free = wboit_free,
};
