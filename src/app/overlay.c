/* SPDX-License-Identifier: MIT */
/* overlay.c — batched 2D text and rectangles for the viewer's overlay (see
 * overlay.h). Glyphs come from stb_easy_font (Debian's libstb-dev), which
 * emits each glyph as a few axis-aligned quads; we turn every quad into two
 * triangles of a fixed-capacity vertex buffer and draw the whole batch with
 * one glDrawArrays. */
#include "overlay.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
#include <stb/stb_easy_font.h>

/* Capacity of one batch: the stats panel, the frame-time graph and the help
 * page together use a few thousand quads. */
#define MAX_QUADS 32768
/* stb_easy_font writes 4 vertices of 16 bytes per quad; one line of text is
 * printed at a time into this many quads. */
#define MAX_LINE_QUADS 4096

typedef struct overlay_vertex {
    float x, y;        /* pixels, top-left origin */
    uint8_t rgba[4];   /* straight alpha */
} overlay_vertex;

/* The layout stb_easy_font_print() writes. */
typedef struct easy_font_vertex {
    float x, y, z;
    uint8_t rgba[4];
} easy_font_vertex;

struct ds_overlay {
    GLuint program;
    GLuint vertex_array;
    GLuint vertex_buffer;
    GLint viewport_location;
    int width, height;
    size_t quad_count;
    unsigned long dropped;
    overlay_vertex *vertices;     /* 6 * MAX_QUADS */
    easy_font_vertex *line_quads; /* 4 * MAX_LINE_QUADS */
};

/* shaders/overlay.vert.glsl and overlay.frag.glsl, embedded at build time by
 * cmake/embed.cmake. */
extern const char ds_shader_overlay_vert[];
extern const char ds_shader_overlay_frag[];

static ds_status compile_shader(GLenum stage, const char *source, GLuint *dest)
{
    GLint ok = 0;
    GLuint shader = glCreateShader(stage);
    if (!shader)
        return ds_fail(DS_ERR_GL, "overlay: glCreateShader failed");
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        glDeleteShader(shader);
        return ds_fail(DS_ERR_GL, "overlay: %s shader: %s",
                       stage == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
    }
    *dest = shader;
    return DS_OK;
}

static ds_status build_program(GLuint *dest)
{
    GLuint vertex = 0, fragment = 0, program;
    GLint ok = 0;
    ds_status status = compile_shader(GL_VERTEX_SHADER, ds_shader_overlay_vert, &vertex);
    if (status != DS_OK)
        return status;
    status = compile_shader(GL_FRAGMENT_SHADER, ds_shader_overlay_frag, &fragment);
    if (status != DS_OK) {
        glDeleteShader(vertex);
        return status;
    }
    program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex);
    glDeleteShader(fragment);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "overlay: program link: %s", log);
    }
    *dest = program;
    return DS_OK;
}

ds_status ds_overlay_create(ds_overlay **dest)
{
    ds_status status;
    ds_overlay *overlay;

    *dest = NULL;
    overlay = calloc(1, sizeof *overlay);
    if (!overlay)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "overlay: out of memory");
    overlay->vertices = malloc(6 * (size_t)MAX_QUADS * sizeof *overlay->vertices);
    overlay->line_quads = malloc(4 * (size_t)MAX_LINE_QUADS * sizeof *overlay->line_quads);
    if (!overlay->vertices || !overlay->line_quads) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "overlay: out of memory");
        goto fail;
    }
    status = build_program(&overlay->program);
    if (status != DS_OK)
        goto fail;
    overlay->viewport_location = glGetUniformLocation(overlay->program, "viewport");

    glCreateBuffers(1, &overlay->vertex_buffer);
    glNamedBufferStorage(overlay->vertex_buffer,
                         6 * (GLsizeiptr)MAX_QUADS * (GLsizeiptr)sizeof(overlay_vertex),
                         NULL, GL_DYNAMIC_STORAGE_BIT);
    glCreateVertexArrays(1, &overlay->vertex_array);
    glVertexArrayVertexBuffer(overlay->vertex_array, 0, overlay->vertex_buffer, 0,
                              sizeof(overlay_vertex));
    glEnableVertexArrayAttrib(overlay->vertex_array, 0);
    glVertexArrayAttribFormat(overlay->vertex_array, 0, 2, GL_FLOAT, GL_FALSE,
                              offsetof(overlay_vertex, x));
    glVertexArrayAttribBinding(overlay->vertex_array, 0, 0);
    glEnableVertexArrayAttrib(overlay->vertex_array, 1);
    glVertexArrayAttribFormat(overlay->vertex_array, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE,
                              offsetof(overlay_vertex, rgba));
    glVertexArrayAttribBinding(overlay->vertex_array, 1, 0);
    if (glGetError() != GL_NO_ERROR) {
        status = ds_fail(DS_ERR_GL, "overlay: creating the vertex buffer failed");
        goto fail;
    }
    *dest = overlay;
    return DS_OK;

fail:
    ds_overlay_destroy(overlay);
    return status;
}

void ds_overlay_destroy(ds_overlay *overlay)
{
    if (!overlay)
        return;
    if (overlay->vertex_array)
        glDeleteVertexArrays(1, &overlay->vertex_array);
    if (overlay->vertex_buffer)
        glDeleteBuffers(1, &overlay->vertex_buffer);
    if (overlay->program)
        glDeleteProgram(overlay->program);
    free(overlay->vertices);
    free(overlay->line_quads);
    free(overlay);
}

void ds_overlay_begin(ds_overlay *overlay, int width, int height)
{
    overlay->width = width;
    overlay->height = height;
    overlay->quad_count = 0;
}

/* Appends the quad (x0, y0)-(x1, y1) as two triangles. */
static void push_quad(ds_overlay *overlay, float x0, float y0, float x1, float y1,
                      const uint8_t rgba[4])
{
    if (overlay->quad_count == MAX_QUADS) {
        overlay->dropped++;
        return;
    }
    overlay_vertex *v = overlay->vertices + 6 * overlay->quad_count++;
    const float corners[6][2] = {{x0, y0}, {x1, y0}, {x1, y1},
                                 {x0, y0}, {x1, y1}, {x0, y1}};
    for (int i = 0; i < 6; i++) {
        v[i].x = corners[i][0];
        v[i].y = corners[i][1];
        memcpy(v[i].rgba, rgba, 4);
    }
}

void ds_overlay_rect(ds_overlay *overlay, float x, float y, float w, float h,
                     const uint8_t rgba[4])
{
    if (w > 0.0f && h > 0.0f)
        push_quad(overlay, x, y, x + w, y + h, rgba);
}

/* Copies the line at *cursor (up to '\n') into line, cut to capacity, and
 * advances *cursor; returns 0 when no line is left. */
static int copy_line(const char **cursor, char *line, size_t capacity)
{
    const char *start = *cursor;
    const char *end;
    size_t n;
    if (!start)
        return 0;
    end = strchr(start, '\n');
    n = end ? (size_t)(end - start) : strlen(start);
    if (n >= capacity)
        n = capacity - 1;
    memcpy(line, start, n);
    line[n] = '\0';
    *cursor = end ? end + 1 : NULL;
    return 1;
}

float ds_overlay_text(ds_overlay *overlay, float x, float y, float scale,
                      const uint8_t rgba[4], const char *text)
{
    char line[512];
    float widest = 0.0f;
    const char *cursor = text;
    for (int row = 0; copy_line(&cursor, line, sizeof line); row++) {
        /* stb_easy_font draws glyphs from y to y + 7 with its own origin;
         * we print at 0,0 and scale and place every quad ourselves. */
        int quads = stb_easy_font_print(0.0f, 0.0f, line, NULL, overlay->line_quads,
                                        4 * MAX_LINE_QUADS * (int)sizeof(easy_font_vertex));
        float top = y + (float)row * DS_OVERLAY_LINE_HEIGHT * scale;
        for (int q = 0; q < quads; q++) {
            const easy_font_vertex *v = overlay->line_quads + 4 * q;
            /* Corners 0 and 2 are opposite (the quad is axis-aligned). */
            push_quad(overlay, x + v[0].x * scale, top + v[0].y * scale,
                      x + v[2].x * scale, top + v[2].y * scale, rgba);
        }
        float width = (float)stb_easy_font_width(line) * scale;
        if (width > widest)
            widest = width;
    }
    return widest;
}

float ds_overlay_text_width(const char *text, float scale)
{
    char line[512];
    float widest = 0.0f;
    const char *cursor = text;
    while (copy_line(&cursor, line, sizeof line)) {
        float width = (float)stb_easy_font_width(line) * scale;
        if (width > widest)
            widest = width;
    }
    return widest;
}

void ds_overlay_draw(ds_overlay *overlay)
{
    if (overlay->quad_count == 0 || overlay->width <= 0 || overlay->height <= 0)
        return;
    glNamedBufferSubData(overlay->vertex_buffer, 0,
                         (GLsizeiptr)(6 * overlay->quad_count * sizeof(overlay_vertex)),
                         overlay->vertices);
    glViewport(0, 0, overlay->width, overlay->height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(overlay->program);
    glUniform2f(overlay->viewport_location, (float)overlay->width, (float)overlay->height);
    glBindVertexArray(overlay->vertex_array);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(6 * overlay->quad_count));
    glBindVertexArray(0);
}

unsigned long ds_overlay_dropped(const ds_overlay *overlay)
{
    return overlay->dropped;
}
