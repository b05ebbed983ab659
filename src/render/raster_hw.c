/* SPDX-License-Identifier: MIT */
/* raster_hw.c — the hardware raster path (raster.h, raster_registry.h):
 * the GL draw of one frame's sorted elements, back to front with
 * straight alpha "over". The forms (renderer.h, ds_draw_form):
 *   indexed: glDrawElements over the scattered indices of the sorted
 *            triangles, or over the sorted vertex numbers for points;
 *   pulled:  glDrawArrays(3 x triangles) with mesh_pull.vert.glsl, which
 *            reads vertex k of sorted triangle i through the sorted
 *            triangle numbers and the mesh's index buffer;
 * each either one plain draw, one indirect draw whose count the culling
 * keys pass wrote after the elements, or, with screen tiles, one
 * scissored indirect draw per tile and the overflow draw (tiles.h). */
#include "gl_program.h"
#include "raster.h"

extern const char ds_shader_mesh_vert[];
extern const char ds_shader_mesh_frag[];
extern const char ds_shader_mesh_pull_vert[];
extern const char ds_shader_points_vert[];
extern const char ds_shader_points_frag[];
extern const char ds_shader_blend_frag[];

/* The path's GL objects: a program per form, and the vertex arrays. */
typedef struct hw_state {
    GLuint mesh_program, points_program, pull_program;
    GLuint pull_vertex_array;  /* pull: no attributes */
    GLuint vertex_arrays[DS_INTEROP_SLOTS]; /* one per element buffer */
} hw_state;

static ds_status compile_program(const char *vertex_source, const char *surface_source,
                                 const char *name, GLuint *dest)
{
    return ds_render_compile_program(vertex_source, surface_source, ds_shader_blend_frag, name,
                                     dest);
}

static ds_status hw_create(ds_renderer *renderer, void *state)
{
    hw_state *hw = state;
    ds_status status;
    if ((status = compile_program(ds_shader_mesh_vert, ds_shader_mesh_frag, "mesh",
                                  &hw->mesh_program)) ||
        (status = compile_program(ds_shader_points_vert, ds_shader_points_frag, "points",
                                  &hw->points_program)) ||
        (renderer->settings.pull &&
         (status = compile_program(ds_shader_mesh_pull_vert, ds_shader_mesh_frag,
                                   "mesh_pull", &hw->pull_program))))
        return status;
    if (renderer->settings.pull)
        glCreateVertexArrays(1, &hw->pull_vertex_array);
    glCreateVertexArrays(DS_INTEROP_SLOTS, hw->vertex_arrays);
    for (int s = 0; s < DS_INTEROP_SLOTS; s++) {
        GLuint vao = hw->vertex_arrays[s];
        ds_render_vertex_attributes(renderer, vao);
        glVertexArrayElementBuffer(vao, ds_render_element_buffer(renderer, s));
    }
    return DS_OK;
}

static void hw_free(ds_renderer *renderer, void *state)
{
    hw_state *hw = state;
    (void)renderer;
    if (hw->mesh_program)
        glDeleteProgram(hw->mesh_program);
    if (hw->points_program)
        glDeleteProgram(hw->points_program);
    if (hw->pull_program)
        glDeleteProgram(hw->pull_program);
    if (hw->pull_vertex_array)
        glDeleteVertexArrays(1, &hw->pull_vertex_array);
    if (hw->vertex_arrays[0])
        glDeleteVertexArrays(DS_INTEROP_SLOTS, hw->vertex_arrays);
}

/* The binned draw: each tile's command under its scissor, then the
 * overflow command (tiles.h) without one. The indirect buffer is bound. */
static void draw_tiles(const ds_renderer *renderer, const ds_tile_grid *grid, int pull,
                       GLenum mode)
{
    size_t word = renderer->mesh.command_word;
    glEnable(GL_SCISSOR_TEST);
    for (int row = 0; row < grid->rows; row++)
        for (int column = 0; column < grid->columns; column++) {
            int box[4];
            ds_tile_scissor(grid, renderer->settings.width, renderer->settings.height, column, row,
                            box);
            glScissor(box[0], box[1], box[2], box[3]);
            const void *command = (const void *)(word * sizeof(uint32_t));
            if (pull)
                glDrawArraysIndirect(GL_TRIANGLES, command);
            else
                glDrawElementsIndirect(mode, GL_UNSIGNED_INT, command);
            word += DS_TILES_COMMAND_WORDS;
        }
    glDisable(GL_SCISSOR_TEST);
    const void *overflow = (const void *)(word * sizeof(uint32_t));
    if (pull)
        glDrawArraysIndirect(GL_TRIANGLES, overflow);
    else
        glDrawElementsIndirect(mode, GL_UNSIGNED_INT, overflow);
}

static ds_status hw_draw(ds_renderer *renderer, void *state, const frame_plan *plan,
                         frame_record *record)
{
    const hw_state *hw = state;
    int points = plan->points, pull = plan->pull;
    size_t n = plan->count;
    GLuint program = points ? hw->points_program : pull ? hw->pull_program : hw->mesh_program;
    /* The draw: straight alpha "over", back to front; the depth test stays
     * on (for opaque geometry a caller may add) but nothing writes depth. */
    if (renderer->timing.timeline)
        ds_timeline_gl_now(renderer->timing.timeline, "draw_begin");
    glBeginQuery(GL_TIME_ELAPSED, record->draw_query);
    glBindFramebuffer(GL_FRAMEBUFFER, plan->target);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    glDepthMask(GL_TRUE);
    glClearColor(renderer->settings.background[0], renderer->settings.background[1],
                 renderer->settings.background[2], renderer->settings.background[3]);
    glClearDepth(1.0);
    glDisable(GL_SCISSOR_TEST);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    ds_render_use_program(renderer, plan, program);
    GLuint element_buffer = ds_render_frame_elements(renderer, plan);
    /* Culling: the keys pass left the draw's count in the command after
     * the elements. Tiles: a command per tile there, and the overflow's. */
    const void *command = (const void *)(renderer->mesh.command_word * sizeof(uint32_t));
    if (plan->cull || plan->tiled)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, element_buffer);
    if (pull) {
        /* mesh_pull.vert.glsl's blocks: sorted triangles, indices,
         * positions, colours and normals. */
        GLuint buffers[4] = {element_buffer, renderer->gl.index_buffer,
                             ds_render_position_buffer(renderer), renderer->gl.attribute_buffer};
        GLintptr offsets[4] = {0, 0, 0, 0};
        size_t sorted_words = plan->tiled ? renderer->mesh.command_word : n;
        GLsizeiptr sizes[4] = {(GLsizeiptr)(sorted_words * sizeof(uint32_t)),
                               (GLsizeiptr)(3 * n * sizeof(uint32_t)),
                               (GLsizeiptr)(3 * renderer->mesh.vertex_count * sizeof(float)),
                               (GLsizeiptr)(renderer->mesh.vertex_count *
                                            (renderer->mesh.normals_only ? 4 : 8))};
        glBindBuffersRange(GL_SHADER_STORAGE_BUFFER, 0, 4, buffers, offsets, sizes);
        glBindVertexArray(hw->pull_vertex_array);
    } else {
        /* The slot's element buffer, or the GL stages' own. */
        glVertexArrayElementBuffer(hw->vertex_arrays[plan->slot], element_buffer);
        glBindVertexArray(hw->vertex_arrays[plan->slot]);
    }
    if (plan->tiled)
        draw_tiles(renderer, &plan->grid, pull, points ? GL_POINTS : GL_TRIANGLES);
    else if (plan->cull && pull)
        glDrawArraysIndirect(GL_TRIANGLES, command);
    else if (plan->cull)
        glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, command);
    else if (pull)
        glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * n));
    else
        glDrawElements(points ? GL_POINTS : GL_TRIANGLES, (GLsizei)(points ? n : 3 * n),
                       GL_UNSIGNED_INT, NULL);
    if (plan->cull || plan->tiled)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    /* Multisampled: the frame resolves into the framebuffer asked for
     * (the own one resolves when it is read, ds_renderer_read_pixels). */
    if (plan->resolve)
        glBlitNamedFramebuffer(renderer->gl.framebuffer, plan->resolve_target, 0, 0,
                               renderer->settings.width, renderer->settings.height, 0, 0,
                               renderer->settings.width, renderer->settings.height,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(record->end_query, GL_TIMESTAMP);
    if (renderer->timing.timeline)
        ds_timeline_gl_now(renderer->timing.timeline, "draw_end");
    return DS_OK;
}

const ds_raster_backend ds_raster_hw = {
    .state_size = sizeof(hw_state),
    .create = hw_create,
    .draw = hw_draw,
    .free = hw_free,
};
