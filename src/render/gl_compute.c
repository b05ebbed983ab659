/* SPDX-License-Identifier: MIT */
/* gl_compute.c — gl_compute.h. */
#include "gl_compute.h"

#include <stddef.h>
#include <string.h>

/* The first line of a compiler or linker log that names an error (NVIDIA's
 * logs list warnings first), else the log's start. */
static const char *first_error(const char *log)
{
    for (const char *line = log; *line;) {
        size_t length = strcspn(line, "\n");
        const char *found = strstr(line, "error");
        if (found && found < line + length)
            return line;
        line += length + (line[length] == '\n');
    }
    return log;
}

GLuint ds_gl_compile_shader(GLenum stage, GLsizei count, const char *const *strings, char *log,
                            GLsizei log_size)
{
    GLint ok = 0;
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, count, strings, NULL);
    glCompileShader(shader);
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok)
        return shader;
    glGetShaderInfoLog(shader, log_size, NULL, log);
    glDeleteShader(shader);
    return 0;
}

int ds_gl_link_program(GLuint program, char *log, GLsizei log_size)
{
    GLint ok = 0;
    glLinkProgram(program);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok)
        glGetProgramInfoLog(program, log_size, NULL, log);
    return ok != 0;
}

ds_status ds_gl_compile_compute(const char *subsystem, const char *name, const char *defines,
                                const char *source, GLuint *dest)
{
    char log[16384];
    /* #line: compiler messages count the shader file's own lines. */
    const char *strings[4] = {"#version 450 core\n", defines ? defines : "", "#line 1\n",
                              source};
    GLuint shader = ds_gl_compile_shader(GL_COMPUTE_SHADER, 4, strings, log, sizeof log);
    if (!shader)
        return ds_fail(DS_ERR_GL, "%s: shader %s.comp.glsl: %.400s", subsystem, name,
                       first_error(log));
    GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glDeleteShader(shader); /* freed with the program */
    if (!ds_gl_link_program(program, log, sizeof log)) {
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "%s: linking %s: %.400s", subsystem, name, first_error(log));
    }
    *dest = program;
    return DS_OK;
}
