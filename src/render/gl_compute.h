/* SPDX-License-Identifier: MIT */
/* gl_compute.h — compiling a GLSL compute shader into a program, shared by
 * the renderer's compute passes (image metrics, GL stages, GL sort); and
 * the compile and link steps under it, which the draws' programs
 * (gl_program.c) use too. */
#ifndef DS_GL_COMPUTE_H
#define DS_GL_COMPUTE_H

#include <glad/gl.h>

#include "status.h"

/* The program of one compute shader: "#version 450 core", then `defines`
 * (preprocessor lines, #extension lines included; may be ""), then
 * `source` counted from its line 1 in compiler messages. Errors:
 * DS_ERR_GL with one line naming `subsystem`, the shader `name`
 * (name.comp.glsl) and the compiler's or linker's log. */
ds_status ds_gl_compile_compute(const char *subsystem, const char *name, const char *defines,
                                const char *source, GLuint *dest);

/* One shader of `stage` from `count` source strings: the shader, or 0
 * with the compiler's log in `log` (log_size bytes). */
GLuint ds_gl_compile_shader(GLenum stage, GLsizei count, const char *const *strings, char *log,
                            GLsizei log_size);

/* Links `program` (its shaders attached): 1, or 0 with the linker's log in
 * `log` (log_size bytes); the caller then deletes the program. */
int ds_gl_link_program(GLuint program, char *log, GLsizei log_size);

#endif
