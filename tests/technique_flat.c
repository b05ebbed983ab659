/* SPDX-License-Identifier: MIT */
/* technique_flat.c — a technique that only the tests build (technique.h;
 * its registry line is tests/technique_flat.h): the mesh in its own order
 * drawn opaque with the depth test, so each pixel shows its nearest
 * surface whatever the alpha. It exists to show that a technique is one
 * file plus one registry line (docs/architecture.md). */
#include "gl_program.h"
#include "oit_common.h"
#include "technique.h"

/* The surface's colour without its alpha. */
static const char flat_frag[] = "layout(location = 0) out vec4 color;\n"
                                "void main() { color = vec4(ds_surface().rgb, 1.0); }\n";

typedef struct flat_state {
    oit_arrays arrays;
    GLuint program[2]; /* [0] triangles, [1] points */
} flat_state;

static ds_status flat_prepare(ds_renderer *renderer, void *state)
{
    flat_state *flat = state;
    ds_oit_make_arrays(renderer, &flat->arrays);
    return ds_oit_make_programs(flat_frag, "flat", flat->program);
}

static ds_status flat_composite(ds_renderer *renderer, void *state, const frame_plan *plan,
                                GLuint output)
{
    flat_state *flat = state;
    glBindFramebuffer(GL_FRAMEBUFFER, output);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    glClearColor(renderer->settings.background[0], renderer->settings.background[1],
                 renderer->settings.background[2], renderer->settings.background[3]);
    glDepthMask(GL_TRUE);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    ds_render_use_program(renderer, plan, flat->program[plan->points]);
    ds_oit_draw_mesh_order(renderer, &flat->arrays, plan);
    glDisable(GL_DEPTH_TEST);
    return DS_OK;
}

static ds_status flat_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                            frame_record *record)
{
    return ds_oit_frame(renderer, state, plan, record, flat_composite);
}

static void flat_free(ds_renderer *renderer, void *state)
{
    flat_state *flat = state;
    (void)renderer;
    for (int k = 0; k < 2; k++)
        ds_oit_delete_program(&flat->program[k]);
    ds_oit_free_arrays(&flat->arrays);
}

const ds_technique_backend ds_technique_flat = {
    .state_size = sizeof(flat_state),
    .prepare = flat_prepare,
    .frame = flat_frame,
    .free = flat_free,
};
