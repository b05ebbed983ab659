/* SPDX-License-Identifier: MIT */
/* oit_common.c — the order-independent techniques' shared helpers
 * (oit_common.h). */
#include "oit_common.h"

#include <stdio.h>
#include <string.h>

#include "gl_program.h"

extern const char ds_shader_mesh_vert[];
extern const char ds_shader_mesh_frag[];
extern const char ds_shader_points_vert[];
extern const char ds_shader_points_frag[];
extern const char ds_shader_fullscreen_vert[];

/* The full-screen passes' background uniform (after shade.glsl's 0..7). */
enum { U_BACKGROUND = 9 };

void ds_oit_make_arrays(const ds_renderer *renderer, oit_arrays *arrays)
{
    if (arrays->mesh_order)
        return;
    GLuint vao = 0;
    glCreateVertexArrays(1, &vao);
    ds_render_vertex_attributes(renderer, vao);
    glVertexArrayElementBuffer(vao, renderer->gl.index_buffer);
    arrays->mesh_order = vao;
    glCreateVertexArrays(1, &arrays->empty);
}

void ds_oit_free_arrays(oit_arrays *arrays)
{
    if (arrays->mesh_order)
        glDeleteVertexArrays(1, &arrays->mesh_order);
    if (arrays->empty)
        glDeleteVertexArrays(1, &arrays->empty);
    arrays->mesh_order = arrays->empty = 0;
}

GLuint ds_oit_make_texture(GLenum format, int width, int height)
{
    GLuint texture = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    glTextureStorage2D(texture, 1, format, width, height);
    return texture;
}

void ds_oit_delete_texture(GLuint *texture)
{
    if (*texture)
        glDeleteTextures(1, texture);
    *texture = 0;
}

void ds_oit_delete_program(GLuint *program)
{
    if (*program)
        glDeleteProgram(*program);
    *program = 0;
}

GLuint ds_oit_make_gather_framebuffer(int width, int height)
{
    GLuint framebuffer = 0;
    glCreateFramebuffers(1, &framebuffer);
    glNamedFramebufferParameteri(framebuffer, GL_FRAMEBUFFER_DEFAULT_WIDTH, width);
    glNamedFramebufferParameteri(framebuffer, GL_FRAMEBUFFER_DEFAULT_HEIGHT, height);
    return framebuffer;
}

void ds_oit_delete_framebuffer(GLuint *framebuffer)
{
    if (*framebuffer)
        glDeleteFramebuffers(1, framebuffer);
    *framebuffer = 0;
}

ds_status ds_oit_make_programs(const char *fragment_main, const char *name, GLuint dest[2])
{
    char point_name[64];
    snprintf(point_name, sizeof point_name, "%s (points)", name);
    ds_status status;
    if (!dest[0] && (status = ds_render_compile_program(ds_shader_mesh_vert, ds_shader_mesh_frag,
                                                        fragment_main, name, &dest[0])))
        return status;
    if (!dest[1] && (status = ds_render_compile_program(ds_shader_points_vert,
                                                        ds_shader_points_frag, fragment_main,
                                                        point_name, &dest[1])))
        return status;
    return DS_OK;
}

ds_status ds_oit_make_fullscreen(const char *fragment_main, const char *name, GLuint *dest)
{
    if (*dest)
        return DS_OK;
    return ds_render_compile_program(ds_shader_fullscreen_vert, NULL, fragment_main, name, dest);
}

void ds_oit_draw_mesh_order(const ds_renderer *renderer, const oit_arrays *arrays,
                            const frame_plan *plan)
{
    glBindVertexArray(arrays->mesh_order);
    if (plan->points)
        glDrawArrays(GL_POINTS, 0, (GLsizei)renderer->mesh.vertex_count);
    else
        glDrawElements(GL_TRIANGLES, (GLsizei)(3 * renderer->mesh.triangle_count), GL_UNSIGNED_INT,
                       NULL);
}

void ds_oit_draw_fullscreen(const ds_renderer *renderer, const oit_arrays *arrays,
                            GLuint output, GLuint program)
{
    glBindFramebuffer(GL_FRAMEBUFFER, output);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    glUseProgram(program);
    glUniform4fv(U_BACKGROUND, 1, renderer->settings.background);
    glBindVertexArray(arrays->empty);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

ds_status ds_oit_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                       frame_record *record, ds_oit_composite composite)
{
    memset(record->host_stage_ms, 0, sizeof record->host_stage_ms);
    record->oit = 1;
    glQueryCounter(record->begin_query, GL_TIMESTAMP);
    /* Multisampled: the image goes straight to where the sorted draw
     * would resolve it, or into every sample of the own framebuffer. */
    GLuint output = plan->resolve ? plan->resolve_target : plan->target;
    glBeginQuery(GL_TIME_ELAPSED, record->draw_query);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    ds_status status = composite(renderer, state, plan, output);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(record->end_query, GL_TIMESTAMP);
    return status;
}
