/* SPDX-License-Identifier: MIT */
/* technique_peel.c — depth peeling (technique.h; "peel" in
 * technique_registry.h), after Everitt, "Interactive Order-Independent
 * Transparency" (NVIDIA 2001), here with a (depth, primitive) key so that
 * equal depths peel in the mesh's order: each peel takes, per pixel, the
 * nearest fragment behind the last peel's key and adds it front to back
 * into a sum; a full-screen pass composites the sum over the background.
 * Exact and slow: it checks the A-buffer. */
#include "technique_peel.h"

#include "gl_program.h"
#include "technique.h"

extern const char ds_shader_peel_frag[];
extern const char ds_shader_peel_resolve_frag[];

/* Uniform locations of peel.frag.glsl (after shade.glsl's 0..7). */
enum { U_PEEL_PASS = 8, U_FIRST_PEEL = 9 };

static void peel_free_images(ds_renderer *renderer, void *state)
{
    peel_state *peel = state;
    (void)renderer;
    ds_oit_delete_framebuffer(&peel->gather_framebuffer);
    for (int k = 0; k < 2; k++) {
        ds_oit_delete_texture(&peel->depth[k]);
        ds_oit_delete_texture(&peel->primitive[k]);
    }
    ds_oit_delete_texture(&peel->sum);
}

ds_status ds_peel_prepare(ds_renderer *renderer, peel_state *peel)
{
    ds_status status;
    int w = renderer->settings.width, h = renderer->settings.height;
    ds_oit_make_arrays(renderer, &peel->arrays);
    if ((status = ds_oit_make_programs(ds_shader_peel_frag, "peel", peel->peel)) ||
        (status = ds_oit_make_fullscreen(ds_shader_peel_resolve_frag, "peel_resolve",
                                         &peel->resolve)))
        return status;
    if (!peel->query)
        glCreateQueries(GL_ANY_SAMPLES_PASSED, 1, &peel->query);
    if (peel->sum && (peel->width != w || peel->height != h))
        peel_free_images(renderer, peel);
    if (!peel->sum) {
        peel->width = w;
        peel->height = h;
        peel->gather_framebuffer = ds_oit_make_gather_framebuffer(w, h);
        for (int k = 0; k < 2; k++) {
            peel->depth[k] = ds_oit_make_texture(GL_R32UI, w, h);
            peel->primitive[k] = ds_oit_make_texture(GL_R32UI, w, h);
        }
        peel->sum = ds_oit_make_texture(GL_RGBA32F, w, h);
    }
    return DS_OK;
}

/* One pass of a peel (peel.frag.glsl's peel_pass). */
static void peel_pass(const ds_renderer *renderer, const peel_state *peel,
                      const frame_plan *plan, int pass, int first)
{
    glUniform1i(U_PEEL_PASS, pass);
    glUniform1i(U_FIRST_PEEL, first);
    ds_oit_draw_mesh_order(renderer, &peel->arrays, plan);
    /* The next pass (or the resolve) reads what this one's image
     * atomics and stores wrote. */
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

ds_status ds_peel_composite(ds_renderer *renderer, peel_state *peel, const frame_plan *plan,
                            GLuint output)
{
    static const uint32_t none = 0xFFFFFFFFu;
    static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
    glClearTexImage(peel->sum, 0, GL_RGBA, GL_FLOAT, zero);
    glBindFramebuffer(GL_FRAMEBUFFER, peel->gather_framebuffer);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    ds_render_use_program(renderer, plan, peel->peel[plan->points]);
    glBindImageTexture(4, peel->sum, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    /* Each peel takes, per pixel, the next (depth, primitive) key, so the
     * number of peels is at most the deepest pixel's fragments plus the
     * last, empty one; the bound only guards against a broken driver. */
    size_t most = plan->count + 1;
    for (size_t k = 0;; k++) {
        if (k > most)
            return ds_fail(DS_ERR_GL, "render: depth peeling did not end after %zu peels", k);
        int now = (int)(k & 1), last = 1 - now;
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
        glClearTexImage(peel->depth[now], 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
        glClearTexImage(peel->primitive[now], 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
        glBindImageTexture(0, peel->depth[now], 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
        glBindImageTexture(1, peel->primitive[now], 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
        glBindImageTexture(2, peel->depth[last], 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
        glBindImageTexture(3, peel->primitive[last], 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
        glBeginQuery(GL_ANY_SAMPLES_PASSED, peel->query);
        peel_pass(renderer, peel, plan, 0, k == 0);
        glEndQuery(GL_ANY_SAMPLES_PASSED);
        GLuint any = 0;
        glGetQueryObjectuiv(peel->query, GL_QUERY_RESULT, &any);
        if (!any)
            break;
        peel_pass(renderer, peel, plan, 1, k == 0);
        peel_pass(renderer, peel, plan, 2, k == 0);
    }
    glBindImageTexture(4, peel->sum, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    ds_oit_draw_fullscreen(renderer, &peel->arrays, output, peel->resolve);
    return DS_OK;
}

static ds_status peel_prepare(ds_renderer *renderer, void *state)
{
    return ds_peel_prepare(renderer, state);
}

static ds_status peel_composite(ds_renderer *renderer, void *state, const frame_plan *plan,
                                GLuint output)
{
    return ds_peel_composite(renderer, state, plan, output);
}

static ds_status peel_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                            frame_record *record)
{
    return ds_oit_frame(renderer, state, plan, record, peel_composite);
}

static void peel_free(ds_renderer *renderer, void *state)
{
    peel_state *peel = state;
    peel_free_images(renderer, state);
    for (int k = 0; k < 2; k++)
        ds_oit_delete_program(&peel->peel[k]);
    ds_oit_delete_program(&peel->resolve);
    if (peel->query)
        glDeleteQueries(1, &peel->query);
    peel->query = 0;
    ds_oit_free_arrays(&peel->arrays);
}

const ds_technique_backend ds_technique_peel = {
    .state_size = sizeof(peel_state),
    .prepare = peel_prepare,
    .frame = peel_frame,
    .free_images = peel_free_images,
    .free = peel_free,
};
