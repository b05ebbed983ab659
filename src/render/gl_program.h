/* SPDX-License-Identifier: MIT */
/* gl_program.h — what every draw shares (the raster paths' and the
 * techniques'): its GL program, compiled after shade.glsl (the colour
 * modes and the headlight) and made current with shade.glsl's uniforms
 * for one frame, and the mesh's vertex layout. */
#ifndef DS_GL_PROGRAM_H
#define DS_GL_PROGRAM_H

#include <glad/gl.h>

#include "renderer_internal.h"

/* A program of `vertex`, then `surface` (mesh.frag.glsl or
 * points.frag.glsl, or NULL) and `fragment_main` for the fragment stage,
 * each stage after GLSL 4.50 and shade.glsl. Errors: DS_ERR_GL with the
 * compiler's or linker's log, naming `name`. */
ds_status ds_render_compile_program(const char *vertex, const char *surface,
                                    const char *fragment_main, const char *name, GLuint *dest);

/* glUseProgram and shade.glsl's uniforms for the frame of `plan`. */
void ds_render_use_program(const ds_renderer *renderer, const frame_plan *plan, GLuint program);

/* Points a vertex array at the mesh: positions (attribute 0, binding 0)
 * and the colour and normal words (attribute 1, an integer uvec2, binding
 * 1) that shade.glsl unpacks. */
void ds_render_vertex_attributes(const ds_renderer *renderer, GLuint vao);

#endif
