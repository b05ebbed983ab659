/* oit.c — the order-independent techniques (renderer.h,
 * ds_renderer_set_technique): the A-buffer and depth peeling, the exact
 * references, and weighted blended OIT. Each draws the mesh in its own
 * order in one draw (no sort), with the sorted draw's vertex stage and
 * surface shading (mesh.frag.glsl, points.frag.glsl) and its own
 * fragment main, then a full-screen pass writes the image. Their GL
 * objects are made on the first switch to a technique; the images again
 * after a resize. */
#include "renderer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char ds_shader_mesh_vert[];
extern const char ds_shader_mesh_frag[];
extern const char ds_shader_points_vert[];
extern const char ds_shader_points_frag[];
extern const char ds_shader_fullscreen_vert[];
extern const char ds_shader_abuffer_store_frag[];
extern const char ds_shader_abuffer_resolve_frag[];
extern const char ds_shader_peel_frag[];
extern const char ds_shader_peel_resolve_frag[];
extern const char ds_shader_wboit_accumulate_frag[];
extern const char ds_shader_wboit_composite_frag[];

/* Uniform locations of the techniques' shaders (after shade.glsl's 0..7). */
enum { U_CAPACITY = 8, U_PEEL_PASS = 8, U_FIRST_PEEL = 9, U_BACKGROUND = 9 };
/* Shader storage bindings of the A-buffer (after the pulled draw's 0..3). */
enum { B_COUNTER = 4, B_NODES = 5 };

/* The head image's clear value: the end of a list. */
#define LIST_END 0xFFFFFFFFu
/* A pool that must grow gets this much more than the frame needed, so
 * that a camera moving a little does not grow it every frame. */
#define GROW_HEADROOM 4 /* one quarter */

static void delete_program(GLuint *program)
{
    if (*program)
        glDeleteProgram(*program);
    *program = 0;
}

static void delete_texture(GLuint *texture)
{
    if (*texture)
        glDeleteTextures(1, texture);
    *texture = 0;
}

static GLuint make_texture(GLenum format, int width, int height)
{
    GLuint texture = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    glTextureStorage2D(texture, 1, format, width, height);
    return texture;
}

/* The techniques' programs for triangles [0] and points [1]: the sorted
 * draw's vertex stage and surface, then `fragment_main`. */
static ds_status make_programs(const char *fragment_main, const char *name, GLuint dest[2])
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

static ds_status make_fullscreen(const char *fragment_main, const char *name, GLuint *dest)
{
    if (*dest)
        return DS_OK;
    return ds_render_compile_program(ds_shader_fullscreen_vert, NULL, fragment_main, name, dest);
}

/* The A-buffer resolve: on Mesa's llvmpipe, whose shader compiler dropped
 * iterations of loops bounded by a list's length, the form whose loops
 * all run a fixed count (abuffer_resolve.frag.glsl); elsewhere the
 * insertion sort, which costs a pixel only the fragments it holds. */
static ds_status make_resolve(GLuint *dest)
{
    if (*dest)
        return DS_OK;
    const char *renderer_name = (const char *)glGetString(GL_RENDERER);
    if (!renderer_name || !strstr(renderer_name, "llvmpipe"))
        return make_fullscreen(ds_shader_abuffer_resolve_frag, "abuffer_resolve", dest);
    static const char fixed[] = "#define DS_ABUFFER_FIXED_LOOPS 1\n";
    size_t length = strlen(ds_shader_abuffer_resolve_frag);
    char *source = malloc(sizeof fixed + length);
    if (!source)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    memcpy(source, fixed, sizeof fixed - 1);
    memcpy(source + sizeof fixed - 1, ds_shader_abuffer_resolve_frag, length + 1);
    ds_status status = make_fullscreen(source, "abuffer_resolve", dest);
    free(source);
    return status;
}

/* What every technique shares: the mesh in its own order (the same
 * attribute layout as renderer.c's vertex arrays, with the mesh's index
 * buffer), the attribute-less vertex array of the full-screen pass. */
static void make_common(ds_renderer *renderer)
{
    oit_state *oit = &renderer->oit;
    if (oit->vertex_array)
        return;
    GLuint vao = 0;
    glCreateVertexArrays(1, &vao);
    ds_render_vertex_attributes(renderer, vao);
    glVertexArrayElementBuffer(vao, renderer->index_buffer);
    oit->vertex_array = vao;
    glCreateVertexArrays(1, &oit->empty_vertex_array);
}

/* The size-dependent objects of `technique`, for the current viewport. */
static void make_images(ds_renderer *renderer, ds_technique technique)
{
    oit_state *oit = &renderer->oit;
    int w = renderer->width, h = renderer->height;
    oit->width = w;
    oit->height = h;
    if (!oit->gather_framebuffer && technique != DS_TECHNIQUE_WBOIT) {
        /* Rasterises width x height with no attachment to write. */
        glCreateFramebuffers(1, &oit->gather_framebuffer);
        glNamedFramebufferParameteri(oit->gather_framebuffer, GL_FRAMEBUFFER_DEFAULT_WIDTH, w);
        glNamedFramebufferParameteri(oit->gather_framebuffer, GL_FRAMEBUFFER_DEFAULT_HEIGHT, h);
    }
    if (technique == DS_TECHNIQUE_ABUFFER && !oit->heads)
        oit->heads = make_texture(GL_R32UI, w, h);
    if (technique == DS_TECHNIQUE_PEEL && !oit->peel_sum) {
        for (int k = 0; k < 2; k++) {
            oit->peel_depth[k] = make_texture(GL_R32UI, w, h);
            oit->peel_primitive[k] = make_texture(GL_R32UI, w, h);
        }
        oit->peel_sum = make_texture(GL_RGBA32F, w, h);
    }
    if (technique == DS_TECHNIQUE_WBOIT && !oit->wboit_framebuffer) {
        oit->wboit_accumulation = make_texture(GL_RGBA16F, w, h);
        oit->wboit_revealage = make_texture(GL_R16F, w, h);
        glCreateFramebuffers(1, &oit->wboit_framebuffer);
        glNamedFramebufferTexture(oit->wboit_framebuffer, GL_COLOR_ATTACHMENT0,
                                  oit->wboit_accumulation, 0);
        glNamedFramebufferTexture(oit->wboit_framebuffer, GL_COLOR_ATTACHMENT1,
                                  oit->wboit_revealage, 0);
        static const GLenum targets[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
        glNamedFramebufferDrawBuffers(oit->wboit_framebuffer, 2, targets);
    }
}

/* The largest pool GL can bind as one storage block, in nodes (node
 * numbers are 32-bit and LIST_END is reserved). */
static size_t max_nodes(void)
{
    GLint64 block_bytes = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block_bytes);
    uint64_t nodes = (uint64_t)block_bytes / DS_ABUFFER_NODE_BYTES;
    if (nodes > LIST_END - 1u)
        nodes = LIST_END - 1u;
    return (size_t)nodes;
}

/* A pool of `capacity` nodes in place of the old one. */
static ds_status make_pool(ds_renderer *renderer, size_t capacity)
{
    oit_state *oit = &renderer->oit;
    size_t most = max_nodes();
    double mib = (double)capacity * DS_ABUFFER_NODE_BYTES / (1024.0 * 1024.0);
    if (capacity > most)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "render: the A-buffer needs %zu nodes (%.0f MiB) at %dx%d; this GL "
                       "binds at most %zu (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
                       capacity, mib, renderer->width, renderer->height, most);
    if (oit->nodes)
        glDeleteBuffers(1, &oit->nodes);
    oit->nodes = 0;
    oit->node_capacity = 0;
    while (glGetError() != GL_NO_ERROR)
        ;
    unsigned errors = renderer->gl_errors;
    glCreateBuffers(1, &oit->nodes);
    glNamedBufferStorage(oit->nodes, (GLsizeiptr)(capacity * DS_ABUFFER_NODE_BYTES), NULL, 0);
    if (glGetError() != GL_NO_ERROR || renderer->gl_errors != errors) {
        glDeleteBuffers(1, &oit->nodes);
        oit->nodes = 0;
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "render: the A-buffer's pool of %zu nodes (%.0f MiB) at %dx%d does not "
                       "fit in GPU memory", capacity, mib, renderer->width, renderer->height);
    }
    oit->node_capacity = capacity;
    return DS_OK;
}

ds_status ds_render_oit_prepare(ds_renderer *renderer, ds_technique technique)
{
    oit_state *oit = &renderer->oit;
    ds_status status = DS_OK;
    unsigned errors = renderer->gl_errors;
    make_common(renderer);
    switch (technique) {
    case DS_TECHNIQUE_ABUFFER:
        /* Depth peeling too: the fallback for pixels the resolve cannot
         * sort. */
        if ((status = ds_render_oit_prepare(renderer, DS_TECHNIQUE_PEEL)))
            return status;
        if ((status = make_programs(ds_shader_abuffer_store_frag, "abuffer_store",
                                    oit->abuffer_store)) ||
            (status = make_resolve(&oit->abuffer_resolve)))
            return status;
        if (!oit->counter) {
            glCreateBuffers(1, &oit->counter);
            glNamedBufferStorage(oit->counter, 2 * sizeof(uint32_t), NULL, GL_DYNAMIC_STORAGE_BIT);
        }
        if (!oit->nodes) {
            size_t capacity = renderer->abuffer_initial_nodes
                                  ? renderer->abuffer_initial_nodes
                                  : (size_t)DS_ABUFFER_NODES_PER_PIXEL * (size_t)renderer->width *
                                        (size_t)renderer->height;
            if ((status = make_pool(renderer, capacity)))
                return status;
        }
        break;
    case DS_TECHNIQUE_PEEL:
        if ((status = make_programs(ds_shader_peel_frag, "peel", oit->peel)) ||
            (status = make_fullscreen(ds_shader_peel_resolve_frag, "peel_resolve",
                                      &oit->peel_resolve)))
            return status;
        if (!oit->peel_query)
            glCreateQueries(GL_ANY_SAMPLES_PASSED, 1, &oit->peel_query);
        break;
    case DS_TECHNIQUE_WBOIT:
        if ((status = make_programs(ds_shader_wboit_accumulate_frag, "wboit_accumulate",
                                    oit->wboit)) ||
            (status = make_fullscreen(ds_shader_wboit_composite_frag, "wboit_composite",
                                      &oit->wboit_composite)))
            return status;
        break;
    default:
        return DS_OK;
    }
    make_images(renderer, technique);
    if (renderer->gl_errors != errors)
        return ds_fail(DS_ERR_GL, "render: %u GL errors while making the %s technique's objects",
                       renderer->gl_errors - errors, ds_technique_name(technique));
    return DS_OK;
}

void ds_render_oit_free_images(ds_renderer *renderer)
{
    oit_state *oit = &renderer->oit;
    if (oit->gather_framebuffer)
        glDeleteFramebuffers(1, &oit->gather_framebuffer);
    if (oit->wboit_framebuffer)
        glDeleteFramebuffers(1, &oit->wboit_framebuffer);
    oit->gather_framebuffer = oit->wboit_framebuffer = 0;
    delete_texture(&oit->heads);
    for (int k = 0; k < 2; k++) {
        delete_texture(&oit->peel_depth[k]);
        delete_texture(&oit->peel_primitive[k]);
    }
    delete_texture(&oit->peel_sum);
    delete_texture(&oit->wboit_accumulation);
    delete_texture(&oit->wboit_revealage);
}

void ds_render_oit_free(ds_renderer *renderer)
{
    oit_state *oit = &renderer->oit;
    ds_render_oit_free_images(renderer);
    for (int k = 0; k < 2; k++) {
        delete_program(&oit->abuffer_store[k]);
        delete_program(&oit->peel[k]);
        delete_program(&oit->wboit[k]);
    }
    delete_program(&oit->abuffer_resolve);
    delete_program(&oit->peel_resolve);
    delete_program(&oit->wboit_composite);
    if (oit->vertex_array)
        glDeleteVertexArrays(1, &oit->vertex_array);
    if (oit->empty_vertex_array)
        glDeleteVertexArrays(1, &oit->empty_vertex_array);
    if (oit->counter)
        glDeleteBuffers(1, &oit->counter);
    if (oit->nodes)
        glDeleteBuffers(1, &oit->nodes);
    if (oit->peel_query)
        glDeleteQueries(1, &oit->peel_query);
    memset(oit, 0, sizeof *oit);
}

/* The mesh in its own order, one draw: gl_PrimitiveID is then the mesh's
 * triangle (or point) number, the tie-break of the exact techniques. */
static void draw_mesh_order(const ds_renderer *renderer, const frame_plan *plan)
{
    glBindVertexArray(renderer->oit.vertex_array);
    if (plan->points)
        glDrawArrays(GL_POINTS, 0, (GLsizei)renderer->vertex_count);
    else
        glDrawElements(GL_TRIANGLES, (GLsizei)(3 * renderer->triangle_count), GL_UNSIGNED_INT,
                       NULL);
}

/* A full-screen pass into `output` with the background as a uniform;
 * blending off: the pass computes the composited value itself. */
static void draw_fullscreen(const ds_renderer *renderer, GLuint output, GLuint program)
{
    glBindFramebuffer(GL_FRAMEBUFFER, output);
    glViewport(0, 0, renderer->width, renderer->height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    glUseProgram(program);
    glUniform4fv(U_BACKGROUND, 1, renderer->background);
    glBindVertexArray(renderer->oit.empty_vertex_array);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* The A-buffer's gather: clear the heads and the counter, store every
 * fragment. */
static void abuffer_gather(ds_renderer *renderer, const frame_plan *plan)
{
    oit_state *oit = &renderer->oit;
    static const uint32_t end = LIST_END, zero[2] = {0, 0};
    /* The clears overwrite what the last resolve read through images and
     * buffers: its accesses must be done. */
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    glClearTexImage(oit->heads, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &end);
    glClearNamedBufferSubData(oit->counter, GL_R32UI, 0, sizeof zero, GL_RED_INTEGER,
                              GL_UNSIGNED_INT, zero);
    glBindFramebuffer(GL_FRAMEBUFFER, oit->gather_framebuffer);
    glViewport(0, 0, renderer->width, renderer->height);
    ds_render_use_program(renderer, plan, oit->abuffer_store[plan->points]);
    glUniform1ui(U_CAPACITY, (GLuint)oit->node_capacity);
    glBindImageTexture(0, oit->heads, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, B_COUNTER, oit->counter);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, B_NODES, oit->nodes);
    draw_mesh_order(renderer, plan);
}

static ds_status peel_frame(ds_renderer *renderer, const frame_plan *plan, GLuint output);

static ds_status abuffer_frame(ds_renderer *renderer, const frame_plan *plan, GLuint output)
{
    oit_state *oit = &renderer->oit;
    uint32_t count = 0;
    abuffer_gather(renderer, plan);
    /* The counter, read back: the gather's atomics must have landed. The
     * read waits for the GPU: the price of never truncating a list. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(oit->counter, 0, sizeof count, &count);
    if (count > oit->node_capacity) {
        size_t capacity = (size_t)count + (size_t)count / GROW_HEADROOM;
        if (capacity > max_nodes() && (size_t)count <= max_nodes())
            capacity = max_nodes();
        ds_status status = make_pool(renderer, capacity);
        if (status)
            return status;
        oit->grow_count++;
        abuffer_gather(renderer, plan);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glGetNamedBufferSubData(oit->counter, 0, sizeof count, &count);
        if (count > oit->node_capacity)
            return ds_fail(DS_ERR_GL, "render: the A-buffer took %u nodes after growing to %zu "
                           "for the same frame", count, oit->node_capacity);
    }
    oit->nodes_used = count;
    /* The resolve reads the lists the gather wrote through the image and
     * the storage buffer. */
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    glBindImageTexture(0, oit->heads, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    draw_fullscreen(renderer, output, oit->abuffer_resolve);
    /* A pixel deeper than the resolve sorts: the frame again by depth
     * peeling, which composites the same fragments in the same order. */
    uint32_t deepest = 0;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(oit->counter, sizeof(uint32_t), sizeof deepest, &deepest);
    if (deepest > DS_ABUFFER_SORTED_FRAGMENTS) {
        oit->peeled_frames++;
        return peel_frame(renderer, plan, output);
    }
    return DS_OK;
}

/* One pass of a peel (peel.frag.glsl's peel_pass). */
static void peel_pass(const ds_renderer *renderer, const frame_plan *plan, int pass, int first)
{
    glUniform1i(U_PEEL_PASS, pass);
    glUniform1i(U_FIRST_PEEL, first);
    draw_mesh_order(renderer, plan);
    /* The next pass (or the resolve) reads what this one's image
     * atomics and stores wrote. */
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

static ds_status peel_frame(ds_renderer *renderer, const frame_plan *plan, GLuint output)
{
    oit_state *oit = &renderer->oit;
    static const uint32_t none = 0xFFFFFFFFu;
    static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
    glClearTexImage(oit->peel_sum, 0, GL_RGBA, GL_FLOAT, zero);
    glBindFramebuffer(GL_FRAMEBUFFER, oit->gather_framebuffer);
    glViewport(0, 0, renderer->width, renderer->height);
    ds_render_use_program(renderer, plan, oit->peel[plan->points]);
    glBindImageTexture(4, oit->peel_sum, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    /* Each peel takes, per pixel, the next (depth, primitive) key, so the
     * number of peels is at most the deepest pixel's fragments plus the
     * last, empty one; the bound only guards against a broken driver. */
    size_t most = ds_renderer_sorted_count(renderer) + 1;
    int peels = 0;
    for (size_t k = 0;; k++) {
        if (k > most)
            return ds_fail(DS_ERR_GL, "render: depth peeling did not end after %zu peels", k);
        int now = (int)(k & 1), last = 1 - now;
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
        glClearTexImage(oit->peel_depth[now], 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
        glClearTexImage(oit->peel_primitive[now], 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
        glBindImageTexture(0, oit->peel_depth[now], 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
        glBindImageTexture(1, oit->peel_primitive[now], 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
        glBindImageTexture(2, oit->peel_depth[last], 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
        glBindImageTexture(3, oit->peel_primitive[last], 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
        glBeginQuery(GL_ANY_SAMPLES_PASSED, oit->peel_query);
        peel_pass(renderer, plan, 0, k == 0);
        glEndQuery(GL_ANY_SAMPLES_PASSED);
        GLuint any = 0;
        glGetQueryObjectuiv(oit->peel_query, GL_QUERY_RESULT, &any);
        if (!any)
            break;
        peel_pass(renderer, plan, 1, k == 0);
        peel_pass(renderer, plan, 2, k == 0);
        peels++;
    }
    oit->peels = peels;
    glBindImageTexture(4, oit->peel_sum, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    draw_fullscreen(renderer, output, oit->peel_resolve);
    return DS_OK;
}

static ds_status wboit_frame(ds_renderer *renderer, const frame_plan *plan, GLuint output)
{
    oit_state *oit = &renderer->oit;
    static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f}, one[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    glBindFramebuffer(GL_FRAMEBUFFER, oit->wboit_framebuffer);
    glViewport(0, 0, renderer->width, renderer->height);
    glClearNamedFramebufferfv(oit->wboit_framebuffer, GL_COLOR, 0, zero);
    glClearNamedFramebufferfv(oit->wboit_framebuffer, GL_COLOR, 1, one);
    /* The paper's blending: the sums add, the revealage multiplies. */
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunci(0, GL_ONE, GL_ONE);
    glBlendFunci(1, GL_ZERO, GL_ONE_MINUS_SRC_COLOR);
    ds_render_use_program(renderer, plan, oit->wboit[plan->points]);
    draw_mesh_order(renderer, plan);
    glBindTextureUnit(0, oit->wboit_accumulation);
    glBindTextureUnit(1, oit->wboit_revealage);
    draw_fullscreen(renderer, output, oit->wboit_composite);
    glBindTextureUnit(0, 0);
    glBindTextureUnit(1, 0);
    return DS_OK;
}

ds_status ds_render_oit_frame(ds_renderer *renderer, const frame_plan *plan, frame_record *record)
{
    ds_status status;
    ds_technique technique = renderer->technique;
    /* Made at set_technique and resize; here only if a resize failed. */
    if (renderer->oit.width != renderer->width || renderer->oit.height != renderer->height)
        ds_render_oit_free_images(renderer);
    if ((status = ds_render_oit_prepare(renderer, technique)))
        return status;
    /* Multisampled: the image goes straight to where the sorted draw
     * would resolve it, or into every sample of the own framebuffer. */
    GLuint output = plan->resolve ? plan->resolve_target : plan->target;
    glBeginQuery(GL_TIME_ELAPSED, record->draw_query);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    if (technique == DS_TECHNIQUE_ABUFFER)
        status = abuffer_frame(renderer, plan, output);
    else if (technique == DS_TECHNIQUE_PEEL)
        status = peel_frame(renderer, plan, output);
    else
        status = wboit_frame(renderer, plan, output);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(record->end_query, GL_TIMESTAMP);
    return status;
}

ds_status ds_renderer_abuffer_info(const ds_renderer *renderer, ds_abuffer_info *dest)
{
    const oit_state *oit = &renderer->oit;
    if (!dest || !oit->nodes)
        return ds_fail(DS_ERR_INVALID_ARG, "render: no A-buffer: the technique was never abuffer");
    uint32_t words[2] = {0, 0};
    glGetNamedBufferSubData(oit->counter, 0, sizeof words, words);
    size_t pixels = (size_t)renderer->width * (size_t)renderer->height;
    memset(dest, 0, sizeof *dest);
    dest->node_capacity = oit->node_capacity;
    dest->nodes_used = oit->nodes_used;
    dest->bytes = oit->node_capacity * DS_ABUFFER_NODE_BYTES + 4 * pixels + sizeof words;
    dest->bytes_per_pixel = pixels ? (double)dest->bytes / (double)pixels : 0.0;
    dest->max_fragments = words[1];
    dest->grow_count = oit->grow_count;
    dest->peeled_frames = oit->peeled_frames;
    return DS_OK;
}
