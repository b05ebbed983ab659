/* SPDX-License-Identifier: MIT */
/* gl_compute.h — compiling a GLSL compute shader into a program, shared by
 * the renderer's compute passes (image metrics, GL stages, GL sort). */
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

#endif
