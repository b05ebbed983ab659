/* SPDX-License-Identifier: MIT */
/* gl_stages.c — one frame's stages as GL compute shaders in the draw's
 * own context, so that the GPU never switches to a CUDA context in a frame
 * (renderer_internal.h, desc.stages = DS_STAGES_GL):
 *
 *   keys (+ cull count, + each primitive's tiles)   stage_keys.comp.glsl
 *   -> sort, far first                              gl_sort.h
 *   -> binning by screen tile                       tiles_count,
 *                                                   tiles_scatter.comp.glsl
 *      or the indexed scatter                       stage_scatter.comp.glsl
 *
 * The element buffer ends up holding the words stages_cuda.c and
 * stages_cpu.c write (tiles.h's layout, the in-place sorted list, the
 * scattered indices, the culled draw command): the keys are the CUDA
 * kernels' to the bit (the shaders say how), the sort is stable like
 * theirs, and the binning keeps the sorted order per tile.
 *
 * Folded to save dispatches: the cull count is the keys pass's (its last
 * workgroup writes the culled draw command and the count for the timings,
 * and zeroes the next frame's counter); the tile rectangles are computed
 * in the keys pass too, per primitive, and a one-tile primitive's tile
 * rides in its sort value (tiles.h's codes), so the binning gathers one
 * word only for primitives of several tiles; tiles.cu's two scans are
 * folded into the scatter, whose workgroups each sum the count's rows
 * before them. A tiled frame is the keys pass, the sort's passes (two
 * dispatches each) and two binning passes.
 *
 * Nothing here waits on the host, reads back or allocates per frame: the
 * buffers are made once, sized from the mesh, and the visible count is
 * read on the GPU by every pass that needs it. */
#include "renderer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_compute.h"
#include "gl_sort.h"

/* ---- tuning --------------------------------------------------------------- */
/* 256 invocations: the CUDA kernels' block size, a multiple of every
 * subgroup size. */
#define KEYS_THREADS 256
/* The keys pass's grid cap: enough workgroups to fill a large GPU several
 * times over; beyond it each invocation loops, and fewer workgroups mean
 * fewer atomics on the visible count. */
#define KEYS_GROUPS_MAX 2048
#define SCATTER_THREADS 256
#define SCATTER_GROUPS_MAX 65535 /* GL's guaranteed dispatch size */
/* The binning: a fixed grid of BIN_GROUPS workgroups (tiles.cu's
 * BIN_BLOCKS), so the per-tile table is BIN_GROUPS x DS_TILES_MAX words,
 * and the count workgroups' sums per tile over spans of BIN_SPAN of them,
 * from which each scatter workgroup finds where its entries start (about
 * 2 sqrt(BIN_GROUPS) rows a tile). 512 invocations: the scatter's rounds
 * of up to 512 positions halve its barriers against 256
 * (docs/performance.md). */
#define BIN_THREADS 512
#define BIN_GROUPS 256
#define BIN_SPAN 16
#define BIN_SPANS (BIN_GROUPS / BIN_SPAN)
/* Shared words of tiles_scatter.comp.glsl's per-tile masks: with the two
 * cursors 28 KB, inside GL's guaranteed 32 KB. */
#define MASK_WORDS 5120
/* Storage blocks the keys pass binds (the most of any pass). */
#define STORAGE_BLOCKS_NEEDED 9

/* Binding points, the same in every shader of the stages. */
enum {
    B_POSITIONS = 0,
    B_INDICES = 1,
    B_KEYS = 2,
    B_VALUES = 3,
    B_ELEMENTS = 4,
    B_STATE = 5,
    B_PRIMITIVE_RECTS = 6,
    B_RECTS = 7,
    B_VERIFY_KEYS = 8,
    B_DRAWN = 9,
    B_COUNT
};

/* The state buffer's words before tile_total (the shaders' State block). */
#define STATE_HEADER_WORDS 8
#define STATE_VISIBLE 0 /* two words, by frame parity */
#define STATE_WORDS                                                                                \
    (STATE_HEADER_WORDS + 2 * BIN_SPANS * DS_TILES_MAX + BIN_GROUPS * DS_TILES_MAX)

extern const char ds_shader_stage_keys_comp[];
extern const char ds_shader_stage_scatter_comp[];
extern const char ds_shader_tiles_count_comp[];
extern const char ds_shader_tiles_scatter_comp[];
extern const char ds_shader_stage_state[];

struct gl_stages {
    GLuint keys_points, keys_triangles, scatter, tiles_count, tiles_scatter;
    GLuint unsorted_keys;    /* the keys pass's keys (~float bits, or ~the
                                narrowed keys' bits) and primitive numbers
                                (with tile codes when binned), when a sort
                                follows: its input */
    GLuint unsorted_values;
    GLuint keys;             /* the sort's output keys (else the keys pass's) */
    GLuint values;           /* primitive numbers, with tile codes when
                                binned (not in place) */
    GLuint verify_keys;      /* desc.verify: the keys before the sort */
    GLuint primitive_rects;  /* tiles: each primitive's, from the keys pass */
    GLuint rects;            /* tiles: each drawn sorted position's, written
                                without codes or when verifying */
    GLuint state;            /* counters, the binning's table and sums */
    GLuint bin_half;         /* the half of the span sums the next binning
                                counts into (tiles_scatter zeroes the other) */
    GLuint elements[DS_INTEROP_SLOTS]; /* external-memory interop: element
                                buffers of the GL frames' own, so that GL
                                never writes the memory CUDA writes */
    GLuint drawn[TIMING_RING]; /* the culled count of each timing record */
    const volatile uint32_t *drawn_seen[TIMING_RING]; /* each mapped,
                                persistently and coherently, for reading */
    ds_gl_sort *sort;
    size_t capacity;         /* primitives: the larger of vertices and triangles */
};

int ds_render_gl_stages_supported(void)
{
    if (!GLAD_GL_VERSION_4_3 || !ds_gl_sort_supported())
        return 0;
    GLint blocks = 0, bindings = 0, shared_bytes = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &blocks);
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared_bytes);
    return blocks >= STORAGE_BLOCKS_NEEDED && bindings >= B_COUNT && shared_bytes >= 32768;
}

static ds_status compile(const char *name, const char *defines, const char *source,
                         GLuint *dest)
{
    /* distance_math.h's and tiles.h's constants, and the tuning above:
     * the shaders take them from here, one definition each; then the
     * State block they share (stage_state.glsl). */
    char all[4096];
    int n = snprintf(all, sizeof all,
                     "%s"
                     "#define KEYS_THREADS %d\n#define SCATTER_THREADS %d\n"
                     "#define BIN_THREADS %d\n#define BIN_GROUPS %d\n#define BIN_SPAN %d\n"
                     "#define BIN_SPANS %d\n#define MASK_WORDS %d\n"
                     "#define DS_TILES_MAX %d\n#define DS_TILES_COMMAND_WORDS %d\n"
                     "#define DS_TILES_EMPTY 0x%08Xu\n#define DS_TILES_MARGIN %.9g\n"
                     "#define DS_CULL_MARGIN %.9g\n#define DS_CULL_FAR_PIXELS %.9g\n"
                     "#define DS_CULL_MAX_SAMPLES %d\n"
                     "#define DS_QUANTISED_FIRST 0x%Xu\n#define DS_QUANTISED_LEVELS 0x%Xu\n"
                     "#define DS_TRIANGLE_KEY_MEAN %du\n#define DS_TRIANGLE_KEY_CENTROID %du\n"
                     "%s",
                     defines, KEYS_THREADS, SCATTER_THREADS, BIN_THREADS, BIN_GROUPS, BIN_SPAN,
                     BIN_SPANS, MASK_WORDS, DS_TILES_MAX, DS_TILES_COMMAND_WORDS, DS_TILES_EMPTY,
                     (double)DS_TILES_MARGIN, (double)DS_CULL_MARGIN,
                     (double)DS_CULL_FAR_PIXELS, DS_CULL_MAX_SAMPLES, DS_QUANTISED_FIRST,
                     DS_QUANTISED_LEVELS, (int)DS_TRIANGLE_KEY_MEAN,
                     (int)DS_TRIANGLE_KEY_CENTROID, ds_shader_stage_state);
    if (n < 0 || (size_t)n >= sizeof all)
        return ds_fail(DS_ERR_INVALID_ARG, "gl stages: shader defines too long");
    return ds_gl_compile_compute("gl stages", name, all, source, dest);
}

/* 1 if this GL's fma() is fused: (1 + 2^-12)^2 - 1 keeps its 2^-24 term
 * only when the product is not rounded first. One dispatch and a read-back
 * (create only). */
static ds_status fma_is_fused(int *dest)
{
    static const char source[] =
        "layout(local_size_x = 1) in;\n"
        "layout(std430, binding = 0) buffer Probe { float probe[]; };\n"
        "void main() { precise float r = fma(probe[0], probe[1], probe[2]); probe[3] = r; }\n";
    GLuint program = 0, buffer = 0;
    ds_status status = ds_gl_compile_compute("gl stages", "fma probe", "", source, &program);
    if (status)
        return status;
    float words[4] = {1.0f + 1.0f / 4096.0f, 1.0f + 1.0f / 4096.0f, -1.0f, 0.0f};
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, sizeof words, words, 0);
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT); /* the read below sees the write */
    glGetNamedBufferSubData(buffer, 3 * sizeof(float), sizeof(float), &words[3]);
    glUseProgram(0);
    glDeleteBuffers(1, &buffer);
    glDeleteProgram(program);
    *dest = words[3] != 1.0f / 2048.0f;
    return DS_OK;
}

/* An immutable buffer of `words` words (at least one), zeroed. */
static GLuint make_buffer(size_t words)
{
    GLuint buffer = 0;
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, (GLsizeiptr)((words ? words : 1) * sizeof(uint32_t)), NULL, 0);
    glClearNamedBufferData(buffer, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    return buffer;
}

ds_status ds_render_gl_stages_create(ds_renderer *renderer)
{
    ds_status status;
    if (renderer->gl.stages)
        return DS_OK;
    if (!ds_render_gl_stages_supported())
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "gl stages: this GL context lacks GL 4.3 compute shaders, "
                       "GL_ARB_shader_ballot or %d compute storage blocks",
                       STORAGE_BLOCKS_NEEDED);
    size_t v = renderer->mesh.vertex_count, t = renderer->mesh.triangle_count;
    size_t most = v > t ? v : t;
    /* Every buffer a shader binds must fit one storage block. */
    GLint64 block_bytes = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block_bytes);
    uint64_t largest = (uint64_t)renderer->mesh.element_capacity * sizeof(uint32_t);
    if ((uint64_t)3 * v * sizeof(float) > largest)
        largest = (uint64_t)3 * v * sizeof(float);
    if ((uint64_t)3 * t * sizeof(uint32_t) > largest)
        largest = (uint64_t)3 * t * sizeof(uint32_t);
    if ((uint64_t)STATE_WORDS * sizeof(uint32_t) > largest)
        largest = (uint64_t)STATE_WORDS * sizeof(uint32_t);
    if (block_bytes > 0 && largest > (uint64_t)block_bytes)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "gl stages: a buffer of %llu bytes exceeds this GL's storage block "
                       "size of %lld bytes",
                       (unsigned long long)largest, (long long)block_bytes);

    struct gl_stages *stages = calloc(1, sizeof *stages);
    if (!stages)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "gl stages: out of host memory");
    renderer->gl.stages = stages;
    stages->capacity = most;
    int fused = 0;
    if ((status = fma_is_fused(&fused)))
        goto fail;
    char points[64], triangles[64];
    snprintf(points, sizeof points, "#define POINTS 1\n#define FMA_FUSED %d\n", fused);
    snprintf(triangles, sizeof triangles, "#define TRIANGLES 1\n#define FMA_FUSED %d\n", fused);
    if ((status = compile("stage_keys", points, ds_shader_stage_keys_comp,
                          &stages->keys_points)) ||
        (status = compile("stage_keys", triangles, ds_shader_stage_keys_comp,
                          &stages->keys_triangles)) ||
        (status = compile("stage_scatter", "", ds_shader_stage_scatter_comp,
                          &stages->scatter)) ||
        (status = compile("tiles_count", "", ds_shader_tiles_count_comp,
                          &stages->tiles_count)) ||
        (status = compile("tiles_scatter", "", ds_shader_tiles_scatter_comp,
                          &stages->tiles_scatter)))
        goto fail;
    stages->unsorted_keys = make_buffer(most);
    stages->unsorted_values = make_buffer(most);
    stages->keys = make_buffer(most);
    stages->values = make_buffer(most);
    if (renderer->settings.verify)
        stages->verify_keys = make_buffer(most);
    if (renderer->settings.tiles) {
        stages->primitive_rects = make_buffer(most);
        stages->rects = make_buffer(most);
    }
    stages->state = make_buffer(STATE_WORDS);
    if (!renderer->settings.cpu_path &&
        ds_interop_mode_in_use(renderer->cuda.interop) == DS_INTEROP_EXTERNAL)
        for (int s = 0; s < DS_INTEROP_SLOTS; s++)
            stages->elements[s] = make_buffer(renderer->mesh.element_capacity);
    /* Host-visible for good: timing.c reads a finished frame's count from
     * the mapping, without a GL read-back call that could wait on GL. */
    for (int r = 0; r < TIMING_RING; r++) {
        const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        glCreateBuffers(1, &stages->drawn[r]);
        glNamedBufferStorage(stages->drawn[r], sizeof(uint32_t), NULL, flags);
        stages->drawn_seen[r] = glMapNamedBufferRange(stages->drawn[r], 0, sizeof(uint32_t), flags);
        if (!stages->drawn_seen[r]) {
            status = ds_fail(DS_ERR_GL, "gl stages: mapping a count buffer failed");
            goto fail;
        }
    }
    if ((status = ds_gl_sort_create(most ? most : 1, &stages->sort)))
        goto fail;
    if (glGetError() == GL_OUT_OF_MEMORY) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "gl stages: out of GPU memory for %zu primitives",
                         most);
        goto fail;
    }
    return DS_OK;
fail:
    ds_render_gl_stages_free(renderer);
    return status;
}

void ds_render_gl_stages_free(ds_renderer *renderer)
{
    struct gl_stages *stages = renderer->gl.stages;
    if (!stages)
        return;
    GLuint programs[] = {stages->keys_points, stages->keys_triangles, stages->scatter,
                         stages->tiles_count, stages->tiles_scatter};
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (programs[i])
            glDeleteProgram(programs[i]);
    GLuint buffers[] = {stages->unsorted_keys, stages->unsorted_values, stages->keys,
                        stages->values, stages->verify_keys,
                        stages->primitive_rects, stages->rects, stages->state,
                        stages->elements[0], stages->elements[1]};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            glDeleteBuffers(1, &buffers[i]);
    for (int r = 0; r < TIMING_RING; r++)
        if (stages->drawn[r]) {
            if (stages->drawn_seen[r])
                glUnmapNamedBuffer(stages->drawn[r]);
            glDeleteBuffers(1, &stages->drawn[r]);
        }
    ds_gl_sort_destroy(stages->sort);
    free(stages);
    renderer->gl.stages = NULL;
}

GLuint ds_render_gl_stages_elements(const ds_renderer *renderer, int slot)
{
    const struct gl_stages *stages = renderer->gl.stages;
    return stages && slot >= 0 && slot < DS_INTEROP_SLOTS ? stages->elements[slot] : 0;
}

/* A GL_TIMESTAMP at stage boundary e, when the renderer made the queries. */
static void stamp(frame_record *record, int e)
{
    if (record->stage_queries[e])
        glQueryCounter(record->stage_queries[e], GL_TIMESTAMP);
}

/* Every storage buffer of the stages at its binding point (the sort binds
 * its own in between). Before a sort, the keys pass writes its input. */
static void bind_buffers(const ds_renderer *renderer, const frame_plan *plan,
                         const frame_record *record, int before_sort)
{
    const struct gl_stages *stages = renderer->gl.stages;
    GLuint elements = ds_render_frame_elements(renderer, plan);
    GLuint buffers[B_COUNT] = {0};
    buffers[B_POSITIONS] = ds_render_position_buffer(renderer);
    buffers[B_INDICES] = renderer->gl.index_buffer;
    buffers[B_KEYS] = stages->keys;
    buffers[B_VALUES] = plan->in_place ? elements : stages->values;
    if (before_sort) {
        buffers[B_KEYS] = stages->unsorted_keys;
        buffers[B_VALUES] = stages->unsorted_values;
    }
    buffers[B_ELEMENTS] = elements;
    buffers[B_STATE] = stages->state;
    buffers[B_PRIMITIVE_RECTS] = stages->primitive_rects;
    buffers[B_RECTS] = stages->rects;
    buffers[B_VERIFY_KEYS] = stages->verify_keys;
    buffers[B_DRAWN] = stages->drawn[record - renderer->timing.records];
    glBindBuffersBase(GL_SHADER_STORAGE_BUFFER, 0, B_COUNT, buffers);
}

static GLuint groups_for(size_t count, int threads, size_t most)
{
    size_t groups = (count + (size_t)threads - 1) / (size_t)threads;
    if (groups < 1)
        groups = 1;
    return (GLuint)(groups < most ? groups : most);
}

/* The keys pass's uniforms and dispatch. */
static void run_keys(const ds_renderer *renderer, const frame_plan *plan)
{
    const struct gl_stages *stages = renderer->gl.stages;
    GLuint program = plan->points ? stages->keys_points : stages->keys_triangles;
    const ds_cull_view *view = &plan->view;
    int cull = plan->cull && !plan->points;
    glUseProgram(program);
    glProgramUniform1ui(program, 0, (GLuint)plan->count);
    glProgramUniform3fv(program, 1, 1, plan->eye);
    glProgramUniform1ui(program, 2, (GLuint)renderer->settings.triangle_key);
    glProgramUniform2f(program, 3, plan->range.lo, plan->range.scale);
    glProgramUniform1i(program, 4, cull);
    glProgramUniform1i(program, 5, plan->tiled);
    glProgramUniform1i(program, 6, plan->keep_keys && stages->verify_keys);
    glProgramUniform1i(program, 7, cull && !plan->tiled);
    glProgramUniform1i(program, 8, !plan->pull);
    glProgramUniform1ui(program, 9, (GLuint)renderer->mesh.command_word);
    glProgramUniform1ui(program, 10, (GLuint)(plan->frame & 1));
    glProgramUniform4fv(program, 11, 1, view->x);
    glProgramUniform4fv(program, 12, 1, view->y);
    glProgramUniform4fv(program, 13, 1, view->z);
    glProgramUniform4fv(program, 14, 1, view->w);
    glProgramUniform2f(program, 15, view->width, view->height);
    glProgramUniform2i(program, 16, plan->grid.columns, plan->grid.rows);
    /* tiles.h divides per primitive; the same correctly rounded quotient,
     * once. */
    glProgramUniform2f(program, 17, (float)plan->grid.columns / view->width,
                       (float)plan->grid.rows / view->height);
    glProgramUniform1f(program, 18, plan->point_scale);
    glProgramUniform2ui(program, 19, plan->narrow.base, plan->narrow.top);
    glProgramUniform1i(program, 20, plan->value_shift);
    glDispatchCompute(groups_for(plan->count, KEYS_THREADS, KEYS_GROUPS_MAX), 1, 1);
}

/* The binning's two passes (tiles.h's layout at command_word). */
/* The uniforms tiles_count and tiles_scatter share (locations 0 to 4):
 * the primitives, the grid, and where the frame's drawn count is. */
static void set_chunk_uniforms(GLuint program, GLuint count, int tiles, int columns, int cull,
                               GLuint parity)
{
    glProgramUniform1ui(program, 0, count);
    glProgramUniform1i(program, 1, tiles);
    glProgramUniform1i(program, 2, columns);
    glProgramUniform1i(program, 3, cull);
    glProgramUniform1ui(program, 4, parity);
}

static void run_binning(const ds_renderer *renderer, const frame_plan *plan)
{
    struct gl_stages *stages = renderer->gl.stages;
    int tiles = plan->grid.columns * plan->grid.rows;
    int cull = plan->cull && !plan->points;
    GLuint parity = (GLuint)(plan->frame & 1);
    GLuint count = (GLuint)plan->count;
    int entry_indices = !plan->points && !plan->pull;
    GLuint per = entry_indices ? 3u : 1u;
    GLuint half = stages->bin_half;
    stages->bin_half = 1 - half;

    GLuint program = stages->tiles_count;
    glUseProgram(program);
    set_chunk_uniforms(program, count, tiles, plan->grid.columns, cull, parity);
    glProgramUniform1ui(program, 5, half);
    glProgramUniform1i(program, 6, plan->value_shift);
    /* Rectangles in sorted order: for the scatter without codes, and for
     * verification. */
    glProgramUniform1i(program, 7,
                       !plan->value_shift || (plan->keep_keys && stages->verify_keys));
    glDispatchCompute(BIN_GROUPS, 1, 1);
    /* The scatter reads the count pass's table and span sums. */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

    int words_per_tile = MASK_WORDS / tiles;
    if (words_per_tile > BIN_THREADS / 32)
        words_per_tile = BIN_THREADS / 32;
    program = stages->tiles_scatter;
    glUseProgram(program);
    set_chunk_uniforms(program, count, tiles, plan->grid.columns, cull, parity);
    glProgramUniform1i(program, 5, entry_indices);
    glProgramUniform1i(program, 6, words_per_tile);
    glProgramUniform1ui(program, 7, half);
    glProgramUniform1ui(program, 8, (GLuint)(renderer->mesh.command_word / per + 1));
    glProgramUniform1ui(program, 9, (GLuint)renderer->mesh.command_word);
    glProgramUniform1ui(program, 10, plan->points ? 1u : 3u);
    glProgramUniform1i(program, 11, plan->value_shift);
    glDispatchCompute(BIN_GROUPS, 1, 1);
}

ds_status ds_render_gl_stages(ds_renderer *renderer, const frame_plan *plan,
                              frame_record *record)
{
    ds_status status;
    struct gl_stages *stages = renderer->gl.stages;
    if (!stages)
        return ds_fail(DS_ERR_INVALID_ARG, "gl stages: not created");
    if (plan->count > stages->capacity || plan->shuffle)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "gl stages: %zu primitives (room for %zu)%s", plan->count,
                       stages->capacity, plan->shuffle ? ", shuffle asked for" : "");
    int tiles = plan->grid.columns * plan->grid.rows;
    if (plan->tiled && (!stages->rects || tiles < 1 || tiles > DS_TILES_MAX))
        return ds_fail(DS_ERR_INVALID_ARG, "gl stages: binning into %d tiles without room", tiles);
    int cull = plan->cull && !plan->points;
    GLuint elements = ds_render_frame_elements(renderer, plan);
    record->gl = 1;

    bind_buffers(renderer, plan, record, plan->sorting);
    stamp(record, EV_START);
    if (plan->points)
        run_keys(renderer, plan);
    stamp(record, EV_DISTANCES);
    if (!plan->points)
        run_keys(renderer, plan);
    stamp(record, EV_KEYS);
    stamp(record, EV_SHUFFLE); /* no shuffle on this path */
    /* The sort, the binning or the scatter read the keys pass's keys,
     * values, rectangles and visible count. */
    if (plan->sorting || plan->tiled || !plan->in_place)
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    if (plan->sorting) {
        /* Ascending complements: far first. 16- and 24-bit keys: the
         * sort compares their top bits, as the sorter path's; narrowed
         * keys their low bits. Out of place, so that no pass count costs
         * a copy. */
        int begin_bit = renderer->settings.key_bits == 16   ? 16
                        : renderer->settings.key_bits == 24 ? 8
                                                            : 0;
        int end_bit = 32;
        if (plan->narrow.top) {
            begin_bit = 0;
            end_bit = ds_key_narrow_bits(plan->narrow);
        }
        if ((status = ds_gl_sort_pairs_into(stages->sort, stages->unsorted_keys,
                                            stages->unsorted_values, stages->keys,
                                            plan->in_place ? elements : stages->values,
                                            plan->count, begin_bit, end_bit)))
            return status;
        /* gl_sort.h: what follows sees the sorted buffers; its passes
         * bound their own storage buffers. */
        bind_buffers(renderer, plan, record, 0);
    }
    stamp(record, EV_SORT);
    if (plan->tiled) {
        run_binning(renderer, plan);
    } else if (!plan->in_place) {
        glUseProgram(stages->scatter);
        glProgramUniform1ui(stages->scatter, 0, (GLuint)plan->count);
        glDispatchCompute(groups_for(plan->count, SCATTER_THREADS, SCATTER_GROUPS_MAX), 1, 1);
    }
    stamp(record, EV_SCATTER);
    /* What the draw and later readers need of the writes above: the
     * indexed and point draws fetch the element buffer as indices
     * (element array), the culled and binned draws their commands
     * (command), the pulled draw the sorted triangle numbers as a storage
     * buffer, as does the next frame's keys pass the counter this frame
     * zeroed (storage); the timings read the culled count through its
     * persistent mapping (client mapped buffer). */
    GLbitfield barriers = GL_SHADER_STORAGE_BARRIER_BIT;
    if (!plan->pull)
        barriers |= GL_ELEMENT_ARRAY_BARRIER_BIT;
    if (cull || plan->tiled)
        barriers |= GL_COMMAND_BARRIER_BIT;
    if (cull)
        barriers |= GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT;
    glMemoryBarrier(barriers);
    glUseProgram(0);
    return DS_OK;
}

/* The culled count of the frame timed in `record` (its GL stages ran with
 * culling), for timing.c once the record's stage queries are available:
 * the keys pass's last workgroup wrote it into the record's own buffer,
 * which stays mapped, so this is a plain memory read. */
uint32_t ds_render_gl_stages_drawn(const ds_renderer *renderer, const frame_record *record)
{
    uint32_t drawn = record->drawn;
    const struct gl_stages *stages = renderer->gl.stages;
    if (stages && record->gl && record->culled)
        drawn = *stages->drawn_seen[record - renderer->timing.records];
    return drawn;
}

ds_status ds_render_gl_stages_read_back(ds_renderer *renderer, const frame_plan *plan,
                                        float *keys, uint32_t *values, uint32_t *rects,
                                        uint32_t *drawn)
{
    struct gl_stages *stages = renderer->gl.stages;
    if (!stages || !plan->gl)
        return ds_fail(DS_ERR_INVALID_ARG, "gl stages: no GL frame to read back");
    size_t n = plan->count;
    /* The reads below see what the shaders wrote. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t visible = (uint32_t)n;
    if (plan->cull && !plan->points) {
        glGetNamedBufferSubData(stages->state,
                                (GLintptr)((STATE_VISIBLE + (plan->frame & 1)) * sizeof(uint32_t)),
                                sizeof visible, &visible);
        if (visible > n)
            visible = (uint32_t)n;
    }
    if (drawn)
        *drawn = visible;
    if (keys) {
        if (!plan->keep_keys || !stages->verify_keys)
            return ds_fail(DS_ERR_INVALID_ARG,
                           "gl stages: the frame kept no keys (needs desc.verify and sorting)");
        glGetNamedBufferSubData(stages->verify_keys, 0, (GLsizeiptr)(n * sizeof(uint32_t)), keys);
        for (size_t i = 0; i < n; i++) {
            uint32_t word;
            memcpy(&word, &keys[i], sizeof word);
            word = ~word; /* the float's bits again */
            memcpy(&keys[i], &word, sizeof word);
        }
    }
    if (values) {
        GLuint buffer = plan->in_place ? ds_render_frame_elements(renderer, plan)
                                       : stages->values;
        glGetNamedBufferSubData(buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), values);
    }
    if (rects && plan->tiled)
        glGetNamedBufferSubData(stages->rects, 0, (GLsizeiptr)(visible * sizeof(uint32_t)), rects);
    if (!values || !plan->value_shift)
        return DS_OK;
    /* The primitives; with the keys kept (tiles_count then wrote each
     * position's rectangle), their tile codes checked first. */
    ds_status status = DS_OK;
    if (rects && plan->tiled && plan->keep_keys && stages->verify_keys) {
        uint32_t *primitives = malloc(visible * sizeof(uint32_t) + 1);
        if (!primitives)
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "gl stages: out of host memory");
        for (size_t i = 0; i < visible; i++)
            primitives[i] = ds_tiles_value_primitive(values[i], plan->value_shift);
        status = ds_render_check_codes(plan, values, primitives, rects, visible);
        free(primitives);
    }
    for (size_t i = 0; i < n; i++)
        values[i] = ds_tiles_value_primitive(values[i], plan->value_shift);
    return status;
}

/* Here, below verify.c, which checks a binned CUDA frame's codes with it
 * too (renderer_internal.h). */
ds_status ds_render_check_codes(const frame_plan *plan, const uint32_t *coded,
                                const uint32_t *values, const uint32_t *rects, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t want = ds_tiles_code_value(values[i], rects[i], plan->grid.columns,
                                            plan->value_shift);
        if (coded[i] != want)
            return ds_fail(DS_ERR_MISMATCH,
                           "verify: frame %llu: sorted value %zu is 0x%08x, expected "
                           "0x%08x (primitive %u, tiles 0x%08x, codes at bit %d)",
                           (unsigned long long)plan->frame, i, coded[i], want, values[i],
                           rects[i], plan->value_shift);
    }
    return DS_OK;
}
