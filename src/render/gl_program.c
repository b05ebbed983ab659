/* SPDX-License-Identifier: MIT */
/* gl_program.c — what every draw shares (gl_program.h): its program,
 * compiled as GLSL_VERSION, shade.glsl, then each stage's file, made
 * current with shade.glsl's uniforms; and the mesh's vertex layout. */
#include "gl_program.h"

#include "gl_compute.h"

#define GLSL_VERSION "#version 450 core\n"
extern const char ds_shader_shade[];

ds_status ds_render_compile_program(const char *vertex, const char *surface,
                                    const char *fragment_main, const char *name, GLuint *dest)
{
    const GLenum stages[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    char log[1024];
    GLuint program = glCreateProgram();
    for (int i = 0; i < 2; i++) {
        /* #line: compiler messages count each file's own lines (the
         * fragment stage's surface file is source string 3, its main 5). */
        const char *strings[6] = {GLSL_VERSION, ds_shader_shade, "\n#line 1\n",
                                  i ? (surface ? surface : "") : vertex, "\n#line 1\n",
                                  i ? fragment_main : ""};
        GLuint shader = ds_gl_compile_shader(stages[i], 6, strings, log, sizeof log);
        if (!shader) {
            glDeleteProgram(program);
            return ds_fail(DS_ERR_GL, "render: shader %s.%s.glsl: %s", name,
                           i ? "frag" : "vert", log);
        }
        glAttachShader(program, shader);
        glDeleteShader(shader); /* freed with the program */
    }
    if (!ds_gl_link_program(program, log, sizeof log)) {
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "render: linking %s: %s", name, log);
    }
    *dest = program;
    return DS_OK;
}

/* Uniform locations fixed in shade.glsl. */
enum {
    U_VIEW_PROJECTION = 0,
    U_ALPHA = 1,
    U_POINT_SCALE = 2,
    U_EYE = 3,
    U_COLOR_MODE = 4,
    U_TINT = 5,
    U_HEIGHT_RANGE = 6,
    U_VIEW_OPACITY = 7,
    U_NORMALS_ONLY = 12
};

void ds_render_use_program(const ds_renderer *renderer, const frame_plan *plan, GLuint program)
{
    glUseProgram(program);
    glUniformMatrix4fv(U_VIEW_PROJECTION, 1, GL_FALSE, plan->view_projection);
    glUniform1f(U_ALPHA, renderer->settings.alpha);
    glUniform3fv(U_EYE, 1, plan->eye);
    glUniform1i(U_COLOR_MODE, (GLint)renderer->settings.color_mode);
    glUniform3fv(U_TINT, 1, renderer->settings.tint);
    glUniform2f(U_HEIGHT_RANGE, renderer->mesh.height_lo, renderer->mesh.height_inv);
    glUniform1i(U_VIEW_OPACITY, renderer->settings.opacity == DS_OPACITY_VIEW);
    glUniform1i(U_NORMALS_ONLY, renderer->mesh.normals_only);
    if (plan->points) {
        glEnable(GL_PROGRAM_POINT_SIZE);
        glUniform1f(U_POINT_SCALE, plan->point_scale);
    }
}

void ds_render_vertex_attributes(const ds_renderer *renderer, GLuint vao)
{
    glVertexArrayVertexBuffer(vao, 0, ds_render_position_buffer(renderer), 0, 3 * sizeof(float));
    glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(vao, 0, 0);
    glEnableVertexArrayAttrib(vao, 0);
    /* One integer attribute for both words (or the normal's alone),
     * unpacked in shade.glsl: one attribute fetch a vertex instead of two
     * (the sorted draw touches vertices in no cache-friendly order). */
    int words = renderer->mesh.normals_only ? 1 : 2;
    glVertexArrayVertexBuffer(vao, 1, renderer->gl.attribute_buffer, 0,
                              (GLsizei)(words * sizeof(uint32_t)));
    glVertexArrayAttribIFormat(vao, 1, words, GL_UNSIGNED_INT, 0);
    glVertexArrayAttribBinding(vao, 1, 1);
    glEnableVertexArrayAttrib(vao, 1);
}
