/* SPDX-License-Identifier: MIT */
/* technique_abuffer.c — the A-buffer (technique.h; "abuffer" in
 * technique_registry.h), the exact reference: Carpenter, "The A-buffer,
 * an antialiased hidden surface method" (SIGGRAPH 1984), in its GPU form
 * of per-pixel linked lists (Yang, Hensley, Grün and Thibieroz,
 * "Real-Time Concurrent Linked List Construction on the GPU", EGSR 2010).
 * One draw of the mesh in its own order stores every fragment into a
 * pool; a full-screen pass sorts each pixel's list by (depth, primitive)
 * and composites it back to front. A pool too small for a frame grows and
 * the frame is gathered again (never truncated); a pixel deeper than the
 * resolve sorts sends the frame to depth peeling (technique_peel.h),
 * which composites the same fragments in the same order. */
#include <stdlib.h>
#include <string.h>

#include "gl_program.h"
#include "technique.h"
#include "technique_peel.h"

extern const char ds_shader_abuffer_store_frag[];
extern const char ds_shader_abuffer_resolve_frag[];

/* Uniform locations of abuffer_store.frag.glsl (after shade.glsl's 0..7). */
enum { U_CAPACITY = 8 };
/* Shader storage bindings (after the pulled draw's 0..3). */
enum { B_COUNTER = 4, B_NODES = 5 };

/* The head image's clear value: the end of a list. */
#define LIST_END 0xFFFFFFFFu
/* A pool that must grow gets this much more than the frame needed, so
 * that a camera moving a little does not grow it every frame. */
#define GROW_HEADROOM 4 /* one quarter */

typedef struct abuffer_state {
    oit_arrays arrays;
    GLuint store[2], resolve;   /* [0] triangles, [1] points */
    GLuint counter;             /* nodes taken, then the longest list */
    GLuint nodes;               /* the pool */
    size_t node_capacity, nodes_used;
    unsigned grow_count, peeled_frames;
    int width, height;          /* the images' size */
    GLuint gather_framebuffer;  /* no attachments, width x height */
    GLuint heads;               /* r32ui, one list head per pixel */
} abuffer_state;

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
        return ds_oit_make_fullscreen(ds_shader_abuffer_resolve_frag, "abuffer_resolve", dest);
    static const char fixed[] = "#define DS_ABUFFER_FIXED_LOOPS 1\n";
    size_t length = strlen(ds_shader_abuffer_resolve_frag);
    char *source = malloc(sizeof fixed + length);
    if (!source)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    memcpy(source, fixed, sizeof fixed - 1);
    memcpy(source + sizeof fixed - 1, ds_shader_abuffer_resolve_frag, length + 1);
    ds_status status = ds_oit_make_fullscreen(source, "abuffer_resolve", dest);
    free(source);
    return status;
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
static ds_status make_pool(ds_renderer *renderer, abuffer_state *abuffer, size_t capacity)
{
    size_t most = max_nodes();
    double mib = (double)capacity * DS_ABUFFER_NODE_BYTES / (1024.0 * 1024.0);
    if (capacity > most)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "render: the A-buffer needs %zu nodes (%.0f MiB) at %dx%d; this GL "
                       "binds at most %zu (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
                       capacity, mib, renderer->settings.width, renderer->settings.height, most);
    if (abuffer->nodes)
        glDeleteBuffers(1, &abuffer->nodes);
    abuffer->nodes = 0;
    abuffer->node_capacity = 0;
    while (glGetError() != GL_NO_ERROR)
        ;
    unsigned errors = renderer->gl.errors;
    glCreateBuffers(1, &abuffer->nodes);
    glNamedBufferStorage(abuffer->nodes, (GLsizeiptr)(capacity * DS_ABUFFER_NODE_BYTES), NULL,
                         0);
    if (glGetError() != GL_NO_ERROR || renderer->gl.errors != errors) {
        glDeleteBuffers(1, &abuffer->nodes);
        abuffer->nodes = 0;
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "render: the A-buffer's pool of %zu nodes (%.0f MiB) at %dx%d does not "
                       "fit in GPU memory",
                       capacity, mib, renderer->settings.width, renderer->settings.height);
    }
    abuffer->node_capacity = capacity;
    return DS_OK;
}

static void abuffer_free_images(ds_renderer *renderer, void *state)
{
    abuffer_state *abuffer = state;
    (void)renderer;
    ds_oit_delete_framebuffer(&abuffer->gather_framebuffer);
    ds_oit_delete_texture(&abuffer->heads);
}

/* Depth peeling's state, in the peel technique's slot (technique_peel.h),
 * made there if missing. */
static ds_status fallback_peel(ds_renderer *renderer, peel_state **dest)
{
    void **slot = &renderer->technique_state[DS_TECHNIQUE_PEEL];
    if (!*slot && !(*slot = calloc(1, sizeof(peel_state))))
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    *dest = *slot;
    return DS_OK;
}

static ds_status abuffer_prepare(ds_renderer *renderer, void *state)
{
    abuffer_state *abuffer = state;
    ds_status status;
    int w = renderer->settings.width, h = renderer->settings.height;
    /* Depth peeling too: the fallback for pixels the resolve cannot
     * sort. */
    peel_state *peel = NULL;
    if ((status = fallback_peel(renderer, &peel)) || (status = ds_peel_prepare(renderer, peel)))
        return status;
    ds_oit_make_arrays(renderer, &abuffer->arrays);
    if ((status = ds_oit_make_programs(ds_shader_abuffer_store_frag, "abuffer_store",
                                       abuffer->store)) ||
        (status = make_resolve(&abuffer->resolve)))
        return status;
    if (!abuffer->counter) {
        glCreateBuffers(1, &abuffer->counter);
        glNamedBufferStorage(abuffer->counter, 2 * sizeof(uint32_t), NULL,
                             GL_DYNAMIC_STORAGE_BIT);
    }
    if (!abuffer->nodes) {
        size_t capacity = renderer->settings.abuffer_initial_nodes
                              ? renderer->settings.abuffer_initial_nodes
                              : (size_t)DS_ABUFFER_NODES_PER_PIXEL * (size_t)w * (size_t)h;
        if ((status = make_pool(renderer, abuffer, capacity)))
            return status;
    }
    if (abuffer->heads && (abuffer->width != w || abuffer->height != h))
        abuffer_free_images(renderer, state);
    if (!abuffer->heads) {
        abuffer->width = w;
        abuffer->height = h;
        abuffer->gather_framebuffer = ds_oit_make_gather_framebuffer(w, h);
        abuffer->heads = ds_oit_make_texture(GL_R32UI, w, h);
    }
    return DS_OK;
}

/* The gather: clear the heads and the counter, store every fragment. */
static void gather(ds_renderer *renderer, abuffer_state *abuffer, const frame_plan *plan)
{
    static const uint32_t end = LIST_END, zero[2] = {0, 0};
    /* The clears overwrite what the last resolve read through images and
     * buffers: its accesses must be done. */
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    glClearTexImage(abuffer->heads, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &end);
    glClearNamedBufferSubData(abuffer->counter, GL_R32UI, 0, sizeof zero, GL_RED_INTEGER,
                              GL_UNSIGNED_INT, zero);
    glBindFramebuffer(GL_FRAMEBUFFER, abuffer->gather_framebuffer);
    glViewport(0, 0, renderer->settings.width, renderer->settings.height);
    ds_render_use_program(renderer, plan, abuffer->store[plan->points]);
    glUniform1ui(U_CAPACITY, (GLuint)abuffer->node_capacity);
    glBindImageTexture(0, abuffer->heads, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, B_COUNTER, abuffer->counter);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, B_NODES, abuffer->nodes);
    ds_oit_draw_mesh_order(renderer, &abuffer->arrays, plan);
}

static ds_status abuffer_composite(ds_renderer *renderer, void *state, const frame_plan *plan,
                                   GLuint output)
{
    abuffer_state *abuffer = state;
    uint32_t count = 0;
    gather(renderer, abuffer, plan);
    /* The counter, read back: the gather's atomics must have landed. The
     * read waits for the GPU: the price of never truncating a list. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(abuffer->counter, 0, sizeof count, &count);
    if (count > abuffer->node_capacity) {
        size_t capacity = (size_t)count + (size_t)count / GROW_HEADROOM;
        if (capacity > max_nodes() && (size_t)count <= max_nodes())
            capacity = max_nodes();
        ds_status status = make_pool(renderer, abuffer, capacity);
        if (status)
            return status;
        abuffer->grow_count++;
        gather(renderer, abuffer, plan);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glGetNamedBufferSubData(abuffer->counter, 0, sizeof count, &count);
        if (count > abuffer->node_capacity)
            return ds_fail(DS_ERR_GL, "render: the A-buffer took %u nodes after growing to %zu "
                           "for the same frame", count, abuffer->node_capacity);
    }
    abuffer->nodes_used = count;
    /* The resolve reads the lists the gather wrote through the image and
     * the storage buffer. */
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    glBindImageTexture(0, abuffer->heads, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    ds_oit_draw_fullscreen(renderer, &abuffer->arrays, output, abuffer->resolve);
    /* A pixel deeper than the resolve sorts: the frame again by depth
     * peeling, which composites the same fragments in the same order. */
    uint32_t deepest = 0;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(abuffer->counter, sizeof(uint32_t), sizeof deepest, &deepest);
    if (deepest > DS_ABUFFER_SORTED_FRAGMENTS) {
        abuffer->peeled_frames++;
        return ds_peel_composite(renderer, renderer->technique_state[DS_TECHNIQUE_PEEL], plan,
                                 output);
    }
    return DS_OK;
}

static ds_status abuffer_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                               frame_record *record)
{
    return ds_oit_frame(renderer, state, plan, record, abuffer_composite);
}

static void abuffer_free(ds_renderer *renderer, void *state)
{
    abuffer_state *abuffer = state;
    abuffer_free_images(renderer, state);
    for (int k = 0; k < 2; k++)
        ds_oit_delete_program(&abuffer->store[k]);
    ds_oit_delete_program(&abuffer->resolve);
    if (abuffer->counter)
        glDeleteBuffers(1, &abuffer->counter);
    if (abuffer->nodes)
        glDeleteBuffers(1, &abuffer->nodes);
    abuffer->counter = abuffer->nodes = 0;
    ds_oit_free_arrays(&abuffer->arrays);
}

const ds_technique_backend ds_technique_abuffer = {
    .state_size = sizeof(abuffer_state),
    .prepare = abuffer_prepare,
    .frame = abuffer_frame,
    .free_images = abuffer_free_images,
    .free = abuffer_free,
};

ds_status ds_renderer_abuffer_info(const ds_renderer *renderer, ds_abuffer_info *dest)
{
    const abuffer_state *abuffer = renderer->technique_state[DS_TECHNIQUE_ABUFFER];
    if (!dest || !abuffer || !abuffer->nodes)
        return ds_fail(DS_ERR_INVALID_ARG, "render: no A-buffer: the technique was never abuffer");
    uint32_t words[2] = {0, 0};
    glGetNamedBufferSubData(abuffer->counter, 0, sizeof words, words);
    size_t pixels = (size_t)renderer->settings.width * (size_t)renderer->settings.height;
    memset(dest, 0, sizeof *dest);
    dest->node_capacity = abuffer->node_capacity;
    dest->nodes_used = abuffer->nodes_used;
    dest->bytes = abuffer->node_capacity * DS_ABUFFER_NODE_BYTES + 4 * pixels + sizeof words;
    dest->bytes_per_pixel = pixels ? (double)dest->bytes / (double)pixels : 0.0;
    dest->max_fragments = words[1];
    dest->grow_count = abuffer->grow_count;
    dest->peeled_frames = abuffer->peeled_frames;
    return DS_OK;
}
