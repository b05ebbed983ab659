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

ds_status ds_gl_compile_compute(const char *subsystem, const char *name, const char *defines,
                                const char *source, GLuint *dest)
{
    char log[16384];
    GLint ok = 0;
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    /* #line: compiler messages count the shader file's own lines. */
    const char *strings[4] = {"#version 450 core\n", defines ? defines : "", "#line 1\n",
                              source};
    glShaderSource(shader, 4, strings, NULL);
    glCompileShader(shader);
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        glDeleteShader(shader);
        return ds_fail(DS_ERR_GL, "%s: shader %s.comp.glsl: %.400s", subsystem, name,
                       first_error(log));
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glLinkProgram(program);
    glDeleteShader(shader); /* freed with the program */
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "%s: linking %s: %.400s", subsystem, name, first_error(log));
    }
    *dest = program;
    return DS_OK;
}
