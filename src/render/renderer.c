/* renderer.c — composes the per-frame pipeline of renderer.h:
 *
 *   interop begin -> [vertex distances] -> keys (+ cull) -> [shuffle] ->
 *   sort (far first) -> [scatter] -> [draw command] -> interop end -> one
 *   draw; or, with screen tiles (the default for sorted triangles),
 *   sort -> binning by tile -> one scissored indirect draw per tile
 *
 * Screen tiles (tiles.h, tiles.cu): the sorted order jumps all over the
 * screen, and the GPU draws such a stream slowly (the dragon's visible
 * triangles: 1.72 ms sorted, 1.29 ms in mesh order, on an H200). Binned by
 * tile, each tile's list a subsequence of the sorted order, and drawn tile
 * by tile under a scissor, every pixel still blends the same fragments in
 * the same order: the same image to the bit, the draw 1.34 ms. The binning
 * runs on the GPU after the sort (0.07 ms for the dragon) and writes the
 * per-tile commands itself; no host round trip.
 *
 * Culling (default in triangles mode while sorting, into single-sampled
 * targets): the keys pass gives a triangle that covers no pixel centre
 * (ds_triangle_misses_samples(), conservative) key 0, so that it sorts
 * last, and counts the others; a one-thread kernel turns the count into a
 * DrawElements/DrawArraysIndirectCommand stored after the elements in the
 * same buffer, and the draw is indirect. No host round trip, the same
 * image (test_render checks both against the rasteriser), and the H100's
 * graphics pipeline, which spends about 1.6 ns on every submitted
 * triangle even when it covers nothing, skips about 45% of the dragon's.
 *
 * Large meshes' triangles are drawn by vertex pulling: the keys pass writes
 * the sort's values (triangle numbers) straight into the GL element buffer,
 * the sort permutes them there, and glDrawArrays(3 x triangles) with
 * mesh_pull.vert.glsl reads vertex k of sorted triangle i through them and
 * the mesh's index buffer. No scatter pass, and the draw loses nothing: in
 * sorted order the post-transform vertex cache finds next to no reuse
 * anyway, or little (renderer.h, ds_draw_form). Points sort in the element
 * buffer too; smaller meshes scatter the sorted triangles' indices for a
 * glDrawElements.
 *
 * on one CUDA stream, or the same stages on the host with the cpu sort and
 * a glNamedBufferSubData upload when there is no CUDA device behind the GL
 * context (Mesa, CI). Stage times come from CUDA events and GL timer
 * queries kept in a ring of TIMING_RING frames and read back once their
 * results are available, so the frame path never waits for them. */
#include "renderer.h"

#include <glad/gl.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "clock.h"
#include "cuda_check.h"
#include "distance.h"
#include "distance_math.h"
#include "interop.h"
#include "tiles.h"

/* Frames whose timer results may be outstanding at once; the oldest is read
 * (waiting if it must) before its slot is reused. Four covers the driver's
 * usual two or three frames of queue. */
#define TIMING_RING 4
/* Completed frames kept for ds_renderer_next_timings(). */
#define TIMINGS_BACKLOG 256
#define DEFAULT_ALPHA 0.35f
/* Points mode: splat diameter as a multiple of the mean spacing of points
 * spread over the bounding sphere's surface, enough to close the gaps. */
#define POINT_SIZE_SPACING 1.5f
/* A DrawElementsIndirectCommand (five words; the arrays form uses four). */
#define DRAW_COMMAND_WORDS 5

/* Shader sources, embedded from shaders/ by cmake/embed.cmake. */
extern const char ds_shader_mesh_vert[];
extern const char ds_shader_mesh_frag[];
extern const char ds_shader_mesh_pull_vert[];
extern const char ds_shader_points_vert[];
extern const char ds_shader_points_frag[];

/* Uniform locations fixed in the shaders. */
enum { U_VIEW_PROJECTION = 0, U_ALPHA = 1, U_POINT_SCALE = 2 };
/* CUDA events of one frame, in stream order. */
enum { EV_START, EV_DISTANCES, EV_KEYS, EV_SHUFFLE, EV_SORT, EV_SCATTER, EV_COUNT };

typedef struct frame_record {
    int pending;         /* issued, results not collected yet */
    uint64_t frame;
    cudaEvent_t events[EV_COUNT];
    GLuint draw_query;   /* GL_TIME_ELAPSED of clear + draw */
    GLuint end_query;    /* GL_TIMESTAMP after the draw */
    float host_interop_ms;
    float host_stage_ms[EV_COUNT]; /* CPU path: the stages on the host */
    int culled;          /* drawn by the indirect command of the visible */
    uint32_t drawn;      /* CPU path, or no culling: the count drawn */
} frame_record;

struct ds_renderer {
    /* settings */
    int width, height;
    ds_primitive primitive;
    ds_triangle_key triangle_key;
    float alpha;
    float background[4];
    float point_size;
    int sorting, shuffle, verify;
    int key_bits;
    int pull;             /* triangles by vertex pulling (else indexed) */
    int fused_keys;       /* triangle keys without the per-vertex pass */
    int depth_buffer;     /* the own framebuffer has a depth attachment */
    int cull;             /* leave out triangles that cover no sample */
    int tiles;            /* room to bin by screen tile (not DS_TILES_OFF) */
    int tiles_on;         /* binning on (ds_renderer_set_tiles) */
    int tile_pixels;      /* tile size (tuning: DS_TILE_PIXELS) */
    uint32_t sampled_target; /* the framebuffer last checked for samples */
    int target_samples;   /* its GL_SAMPLES, -1 before the first check */
    float mesh_center[3], mesh_radius; /* depth range of 16-bit keys */
    int cpu_path;
    ds_sort_algo algo;
    ds_sorter *sorter;
    ds_sorter *reference_sorter; /* verify: the cpu sort */
    char gpu_name[256];

    /* the mesh; each element buffer holds element_capacity words: the
     * list (command_word words: the sorted elements, or tiles.h's binned
     * entries), then the indirect draw command of culling, or the tiles'
     * commands */
    size_t vertex_count, triangle_count, element_capacity, command_word;
    uint32_t *host_indices;  /* CPU path and verify */
    float *host_positions;   /* CPU path */

    /* GL */
    GLuint mesh_program, points_program, pull_program;
    GLuint color_buffer;
    GLuint index_buffer;      /* pull: the mesh's indices, for the shader */
    GLuint pull_vertex_array; /* pull: no attributes */
    GLuint cpu_position_buffer, cpu_element_buffer; /* CPU path */
    GLuint vertex_arrays[DS_INTEROP_SLOTS];
    GLuint framebuffer, color_renderbuffer, depth_renderbuffer;
    unsigned gl_errors;
    int debug_installed;

    /* CUDA path */
    ds_interop *interop;
    cudaStream_t stream;
    float *distances, *keys;
    uint32_t *values, *indices;
    float *shuffle_keys;
    uint32_t *shuffle_values;
    float *verify_keys;
    uint32_t *visible;       /* device: triangles the keys pass kept */
    uint32_t *tile_rects;    /* device: tiles of each sorted position */
    void *tile_scratch;      /* device: ds_tiles_bin()'s */
    uint32_t *host_visible;  /* pinned: one per timing record */

    /* CPU path scratch (host) */
    float *host_distances, *host_keys;
    uint32_t *host_values, *host_elements;
    uint32_t *host_tile_rects, *host_tile_scratch; /* CPU path and verify */

    /* verify: the last frame's pre-sort keys and state */
    float *host_verify_keys;
    uint32_t *host_verify_values, *host_verify_elements;
    uint8_t *host_seen;
    GLuint verify_copy_buffer; /* GL's view of the element buffer, copied */
    int last_sorted;
    int last_slot;
    int last_tiled;          /* the last frame was binned ... */
    ds_tile_grid last_grid;  /* ... on this grid */

    /* timing */
    uint64_t frame_count, next_collect;
    frame_record records[TIMING_RING];
    GLuint64 last_end_timestamp;
    int have_last_end;
    ds_frame_timings latest;
    int have_latest;
    ds_frame_timings backlog[TIMINGS_BACKLOG];
    size_t backlog_head, backlog_count;
};

static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id,
                                 GLenum severity, GLsizei length,
                                 const GLchar *message, const void *user)
{
    (void)source; (void)id; (void)severity; (void)length;
    if (type != GL_DEBUG_TYPE_ERROR)
        return;
    ds_renderer *renderer = (ds_renderer *)user;
    renderer->gl_errors++;
    ds_warn("GL error: %s", message);
}

static ds_status compile_program(const char *vertex_source,
                                 const char *fragment_source, const char *name,
                                 GLuint *dest)
{
    const char *sources[2] = {vertex_source, fragment_source};
    const GLenum stages[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    char log[1024];
    GLint ok = 0;
    GLuint program = glCreateProgram();
    for (int i = 0; i < 2; i++) {
        GLuint shader = glCreateShader(stages[i]);
        glShaderSource(shader, 1, &sources[i], NULL);
        glCompileShader(shader);
        glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            glGetShaderInfoLog(shader, sizeof log, NULL, log);
            glDeleteShader(shader);
            glDeleteProgram(program);
            return ds_fail(DS_ERR_GL, "render: shader %s.%s.glsl: %s", name,
                           i ? "frag" : "vert", log);
        }
        glAttachShader(program, shader);
        glDeleteShader(shader); /* freed with the program */
    }
    glLinkProgram(program);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "render: linking %s: %s", name, log);
    }
    *dest = program;
    return DS_OK;
}

static ds_status make_framebuffer(ds_renderer *renderer)
{
    if (renderer->framebuffer) {
        glDeleteFramebuffers(1, &renderer->framebuffer);
        glDeleteRenderbuffers(1, &renderer->color_renderbuffer);
        if (renderer->depth_renderbuffer)
            glDeleteRenderbuffers(1, &renderer->depth_renderbuffer);
        renderer->depth_renderbuffer = 0;
    }
    glCreateRenderbuffers(1, &renderer->color_renderbuffer);
    glNamedRenderbufferStorage(renderer->color_renderbuffer, GL_RGBA8,
                               renderer->width, renderer->height);
    glCreateFramebuffers(1, &renderer->framebuffer);
    glNamedFramebufferRenderbuffer(renderer->framebuffer, GL_COLOR_ATTACHMENT0,
                                   GL_RENDERBUFFER, renderer->color_renderbuffer);
    if (renderer->depth_buffer) {
        glCreateRenderbuffers(1, &renderer->depth_renderbuffer);
        glNamedRenderbufferStorage(renderer->depth_renderbuffer, GL_DEPTH_COMPONENT24,
                                   renderer->width, renderer->height);
        glNamedFramebufferRenderbuffer(renderer->framebuffer, GL_DEPTH_ATTACHMENT,
                                       GL_RENDERBUFFER, renderer->depth_renderbuffer);
    }
    GLenum complete = glCheckNamedFramebufferStatus(renderer->framebuffer, GL_FRAMEBUFFER);
    if (complete != GL_FRAMEBUFFER_COMPLETE)
        return ds_fail(DS_ERR_GL, "render: framebuffer %dx%d incomplete (0x%x)",
                       renderer->width, renderer->height, complete);
    return DS_OK;
}

static float default_point_size(const ds_mesh *mesh)
{
    double n = mesh->vertex_count ? (double)mesh->vertex_count : 1.0;
    double radius = mesh->radius > 0.0f ? mesh->radius : 1.0;
    return (float)(POINT_SIZE_SPACING * radius * sqrt(4.0 * M_PI / n));
}

static ds_status make_sorter(ds_sort_algo algo, size_t count, int key_bits,
                             ds_sorter **dest)
{
    ds_sorter_desc desc = {0};
    desc.algo = algo;
    desc.max_count = count;
    desc.key_bits = key_bits;
    /* Every key is a distance (or a quantised one): +0 up to +Inf, never
     * NaN, since the loaders refuse non-finite positions. */
    desc.keys_nonnegative = 1;
    return ds_sorter_create(&desc, dest);
}

/* Vertex arrays: positions (binding 0) and colours (binding 1), one array
 * per element buffer. */
static void make_vertex_arrays(ds_renderer *renderer)
{
    GLuint positions = renderer->cpu_path ? renderer->cpu_position_buffer
                                          : ds_interop_position_buffer(renderer->interop);
    glCreateVertexArrays(DS_INTEROP_SLOTS, renderer->vertex_arrays);
    for (int s = 0; s < DS_INTEROP_SLOTS; s++) {
        GLuint vao = renderer->vertex_arrays[s];
        glVertexArrayVertexBuffer(vao, 0, positions, 0, 3 * sizeof(float));
        glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(vao, 0, 0);
        glEnableVertexArrayAttrib(vao, 0);
        glVertexArrayVertexBuffer(vao, 1, renderer->color_buffer, 0, 4);
        glVertexArrayAttribFormat(vao, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0);
        glVertexArrayAttribBinding(vao, 1, 1);
        glEnableVertexArrayAttrib(vao, 1);
        glVertexArrayElementBuffer(vao, renderer->cpu_path
                                            ? renderer->cpu_element_buffer
                                            : ds_interop_element_buffer(renderer->interop, s));
    }
}

/* Vertex pulling needs four shader storage blocks in the vertex stage, each
 * within the implementation's block size (llvmpipe: 128 MiB); otherwise
 * the renderer draws indexed. */
static int pull_supported(const ds_mesh *mesh)
{
    GLint blocks = 0;
    GLint64 block_bytes = 0;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &blocks);
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block_bytes);
    uint64_t largest = 3 * (uint64_t)mesh->triangle_count * sizeof(uint32_t);
    if (3 * (uint64_t)mesh->vertex_count * sizeof(float) > largest)
        largest = 3 * (uint64_t)mesh->vertex_count * sizeof(float);
    return blocks >= 4 && (uint64_t)block_bytes >= largest;
}

static void *host_alloc(size_t count, size_t size, ds_status *status)
{
    void *p = calloc(count ? count : 1, size);
    if (!p && *status == DS_OK)
        *status = ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    return p;
}

/* CUDA side: stream, per-frame buffers, events, interop, sorter. */
static ds_status create_cuda(ds_renderer *renderer, const ds_mesh *mesh,
                             ds_interop_mode mode, int device)
{
    ds_status status = DS_OK;
    size_t n = ds_renderer_sorted_count(renderer);
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    struct cudaDeviceProp prop;
    DS_CUDA_TRY("render", cudaSetDevice(device));
    DS_CUDA_TRY("render", cudaGetDeviceProperties(&prop, device));
    snprintf(renderer->gpu_name, sizeof renderer->gpu_name, "%s", prop.name);
    DS_CUDA_TRY("render", cudaStreamCreateWithFlags(&renderer->stream, cudaStreamNonBlocking));

    ds_interop_desc interop_desc = {0};
    interop_desc.mode = mode;
    interop_desc.positions = mesh->positions;
    interop_desc.vertex_count = v;
    interop_desc.element_count = renderer->element_capacity;
    if ((status = ds_interop_create(&interop_desc, &renderer->interop)))
        return status;

    /* Keys and values are sized for either primitive, so that switching
     * between triangles and points never allocates. */
    size_t most = v > t ? v : t;
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->distances, (v ? v : 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->keys, (most ? most : 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->values, (most ? most : 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->shuffle_keys, (most + 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->shuffle_values, (most + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->indices, (t ? 3 * t : 1) * sizeof(uint32_t)));
    if (t)
        DS_CUDA_TRY("render", cudaMemcpy(renderer->indices, mesh->indices,
                                         3 * t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (renderer->verify)
        DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->verify_keys, (most ? most : 1) * sizeof(float)));
    DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->visible, sizeof(uint32_t)));
    if (renderer->tiles) {
        DS_CUDA_TRY("render", cudaMalloc((void **)&renderer->tile_rects,
                                         (most ? most : 1) * sizeof(uint32_t)));
        DS_CUDA_TRY("render", cudaMalloc(&renderer->tile_scratch, ds_tiles_scratch_bytes()));
    }
    DS_CUDA_TRY("render", cudaMallocHost((void **)&renderer->host_visible,
                                         TIMING_RING * sizeof(uint32_t)));
    for (int r = 0; r < TIMING_RING; r++)
        for (int e = 0; e < EV_COUNT; e++)
            DS_CUDA_TRY("render", cudaEventCreate(&renderer->records[r].events[e]));
    (void)n;
    return make_sorter(renderer->algo, most, renderer->key_bits, &renderer->sorter);
}

static ds_status create_cpu(ds_renderer *renderer, const ds_mesh *mesh)
{
    ds_status status = DS_OK;
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    size_t most = v > t ? v : t;
    const GLubyte *name = glGetString(GL_RENDERER);
    snprintf(renderer->gpu_name, sizeof renderer->gpu_name, "%s",
             name ? (const char *)name : "unknown GL renderer");
    renderer->host_positions = host_alloc(3 * v, sizeof(float), &status);
    renderer->host_distances = host_alloc(v, sizeof(float), &status);
    renderer->host_keys = host_alloc(most, sizeof(float), &status);
    renderer->host_values = host_alloc(most, sizeof(uint32_t), &status);
    renderer->host_elements = host_alloc(renderer->element_capacity, sizeof(uint32_t), &status);
    if (status)
        return status;
    memcpy(renderer->host_positions, mesh->positions, 3 * v * sizeof(float));
    glCreateBuffers(1, &renderer->cpu_position_buffer);
    glNamedBufferStorage(renderer->cpu_position_buffer,
                         (GLsizeiptr)((v ? 3 * v : 1) * sizeof(float)),
                         mesh->positions, 0);
    glCreateBuffers(1, &renderer->cpu_element_buffer);
    glNamedBufferStorage(renderer->cpu_element_buffer,
                         (GLsizeiptr)(renderer->element_capacity * sizeof(uint32_t)),
                         NULL, GL_DYNAMIC_STORAGE_BIT);
    return make_sorter(DS_SORT_CPU, most, renderer->key_bits, &renderer->sorter);
}

ds_status ds_renderer_create(const ds_renderer_desc *desc, ds_renderer **dest)
{
    ds_status status = DS_OK;
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "render: dest is NULL");
    *dest = NULL;
    if (!desc || !desc->mesh || desc->width <= 0 || desc->height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "render: need a mesh and a positive size");
    if (!glad_glCreateBuffers || !GLAD_GL_VERSION_4_5)
        return ds_fail(DS_ERR_GL, "render: no current OpenGL 4.5 context loaded through glad");
    const ds_mesh *mesh = desc->mesh;
    if (mesh->vertex_count > DS_MESH_MAX_ELEMENTS || mesh->triangle_count > DS_MESH_MAX_ELEMENTS / 3)
        return ds_fail(DS_ERR_TOO_LARGE, "render: mesh too large");
    if ((unsigned)desc->sort_algo >= DS_SORT_ALGO_COUNT ||
        (unsigned)desc->triangle_key >= DS_TRIANGLE_KEY_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad sort or triangle key");

    ds_renderer *renderer = calloc(1, sizeof *renderer);
    if (!renderer)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    renderer->width = desc->width;
    renderer->height = desc->height;
    renderer->primitive = mesh->triangle_count ? desc->primitive : DS_PRIMITIVE_POINTS;
    renderer->triangle_key = desc->triangle_key;
    renderer->alpha = desc->alpha > 0.0f ? desc->alpha : DEFAULT_ALPHA;
    memcpy(renderer->background, desc->background, sizeof renderer->background);
    renderer->point_size = desc->point_size > 0.0f ? desc->point_size : default_point_size(mesh);
    renderer->sorting = !desc->no_sort;
    renderer->shuffle = desc->shuffle;
    renderer->verify = desc->verify;
    renderer->key_bits = desc->key_bits ? desc->key_bits : 32;
    if (renderer->key_bits != 16 && renderer->key_bits != 24 && renderer->key_bits != 32) {
        free(renderer);
        return ds_fail(DS_ERR_INVALID_ARG, "render: key_bits must be 16, 24 or 32, not %d",
                       desc->key_bits);
    }
    renderer->fused_keys = !desc->vertex_distances;
    renderer->depth_buffer = !desc->no_depth_buffer;
    renderer->cull = !desc->no_cull;
    renderer->target_samples = -1;
    memcpy(renderer->mesh_center, mesh->center, sizeof renderer->mesh_center);
    renderer->mesh_radius = mesh->radius;
    renderer->algo = desc->sort_algo;
    renderer->vertex_count = mesh->vertex_count;
    renderer->triangle_count = mesh->triangle_count;
    if ((unsigned)desc->tiles > DS_TILES_OFF) {
        free(renderer);
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad tiles mode %d", (int)desc->tiles);
    }
    renderer->tiles = desc->tiles != DS_TILES_OFF && mesh->vertex_count > 0;
    const char *tile_pixels = getenv("DS_TILE_PIXELS"); /* tuning only */
    renderer->tile_pixels = desc->tile_pixels > 0                    ? desc->tile_pixels
                            : tile_pixels && atoi(tile_pixels) > 0 ? atoi(tile_pixels)
                                                                   : 0;

    /* Errors from here on are counted, so tests can fail on any. */
    glEnable(GL_DEBUG_OUTPUT);
    glDebugMessageCallback(on_gl_debug, renderer);
    renderer->debug_installed = 1;

    /* Which path: CUDA behind this GL context, or the host. */
    int device = -1;
    if (desc->interop != DS_INTEROP_NONE)
        device = ds_interop_gl_cuda_device();
    if (device < 0) {
        if (desc->interop == DS_INTEROP_MAP || desc->interop == DS_INTEROP_EXTERNAL) {
            status = ds_fail(DS_ERR_UNSUPPORTED,
                             "render: interop %s needs a CUDA device behind the GL context",
                             ds_interop_mode_name(desc->interop));
            goto fail;
        }
        renderer->cpu_path = 1;
        if (renderer->algo != DS_SORT_CPU && desc->interop != DS_INTEROP_NONE)
            ds_warn("render: no CUDA device drives this GL context; using the cpu sort");
        renderer->algo = DS_SORT_CPU;
    }
    renderer->tiles_on = renderer->tiles && (desc->tiles == DS_TILES_ON || !renderer->cpu_path);

    size_t t = mesh->triangle_count, most = mesh->vertex_count > t ? mesh->vertex_count : t;
    if (renderer->verify || renderer->cpu_path) {
        renderer->host_indices = host_alloc(3 * t, sizeof(uint32_t), &status);
        if (status)
            goto fail;
        if (t)
            memcpy(renderer->host_indices, mesh->indices, 3 * t * sizeof(uint32_t));
    }
    if ((unsigned)desc->draw_form > DS_DRAW_INDEXED) {
        status = ds_fail(DS_ERR_INVALID_ARG, "render: bad draw form %d", (int)desc->draw_form);
        goto fail;
    }
    renderer->pull = t > 0 && desc->draw_form != DS_DRAW_INDEXED &&
                     (desc->draw_form == DS_DRAW_PULL || t >= DS_RENDERER_PULL_MIN_TRIANGLES) &&
                     pull_supported(mesh);
    /* Each element buffer: the list, then the draw commands. */
    size_t list = 3 * t > mesh->vertex_count ? 3 * t : mesh->vertex_count;
    if (renderer->tiles && ds_tiles_capacity(t, renderer->pull ? 1 : 3) > list)
        list = ds_tiles_capacity(t, renderer->pull ? 1 : 3);
    if (renderer->tiles && ds_tiles_capacity(mesh->vertex_count, 1) > list)
        list = ds_tiles_capacity(mesh->vertex_count, 1); /* points */
    renderer->command_word = list;
    renderer->element_capacity =
        list + (renderer->tiles ? (DS_TILES_MAX + 1) * DS_TILES_COMMAND_WORDS : DRAW_COMMAND_WORDS);
    if (renderer->tiles && (renderer->verify || renderer->cpu_path)) {
        renderer->host_tile_rects = host_alloc(most, sizeof(uint32_t), &status);
        renderer->host_tile_scratch = host_alloc(DS_TILES_MAX + 1, sizeof(uint32_t), &status);
        if (status)
            goto fail;
    }
    if (renderer->verify) {
        renderer->host_verify_keys = host_alloc(most, sizeof(float), &status);
        renderer->host_verify_values = host_alloc(most, sizeof(uint32_t), &status);
        renderer->host_verify_elements = host_alloc(renderer->element_capacity, sizeof(uint32_t), &status);
        renderer->host_seen = host_alloc(most, 1, &status);
        if (status || (status = make_sorter(DS_SORT_CPU, most, renderer->key_bits, &renderer->reference_sorter)))
            goto fail;
    }

    if ((status = compile_program(ds_shader_mesh_vert, ds_shader_mesh_frag, "mesh",
                                  &renderer->mesh_program)) ||
        (status = compile_program(ds_shader_points_vert, ds_shader_points_frag, "points",
                                  &renderer->points_program)) ||
        (renderer->pull &&
         (status = compile_program(ds_shader_mesh_pull_vert, ds_shader_mesh_frag,
                                   "mesh_pull", &renderer->pull_program))))
        goto fail;
    glCreateBuffers(1, &renderer->color_buffer);
    glNamedBufferStorage(renderer->color_buffer,
                         (GLsizeiptr)((mesh->vertex_count ? mesh->vertex_count : 1) * 4),
                         mesh->colors, 0);
    if (renderer->pull) {
        glCreateBuffers(1, &renderer->index_buffer);
        glNamedBufferStorage(renderer->index_buffer, (GLsizeiptr)(3 * t * sizeof(uint32_t)),
                             mesh->indices, 0);
        glCreateVertexArrays(1, &renderer->pull_vertex_array);
    }
    if ((status = make_framebuffer(renderer)))
        goto fail;

    status = renderer->cpu_path ? create_cpu(renderer, mesh)
                                : create_cuda(renderer, mesh, desc->interop, device);
    if (status)
        goto fail;
    make_vertex_arrays(renderer);
    for (int r = 0; r < TIMING_RING; r++) {
        glCreateQueries(GL_TIME_ELAPSED, 1, &renderer->records[r].draw_query);
        glCreateQueries(GL_TIMESTAMP, 1, &renderer->records[r].end_query);
    }
    if (renderer->verify) {
        glCreateBuffers(1, &renderer->verify_copy_buffer);
        glNamedBufferStorage(renderer->verify_copy_buffer,
                             (GLsizeiptr)(renderer->element_capacity * sizeof(uint32_t)),
                             NULL, 0);
    }
    if (renderer->gl_errors) {
        status = ds_fail(DS_ERR_GL, "render: %u GL errors while creating the renderer",
                         renderer->gl_errors);
        goto fail;
    }
    *dest = renderer;
    return DS_OK;
fail:
    ds_renderer_destroy(renderer);
    return status;
}

void ds_renderer_destroy(ds_renderer *renderer)
{
    if (!renderer)
        return;
    if (!renderer->cpu_path && renderer->stream)
        cudaStreamSynchronize(renderer->stream);
    ds_sorter_destroy(renderer->sorter);
    ds_sorter_destroy(renderer->reference_sorter);
    ds_interop_destroy(renderer->interop);
    cudaFree(renderer->distances);
    cudaFree(renderer->keys);
    cudaFree(renderer->values);
    cudaFree(renderer->indices);
    cudaFree(renderer->shuffle_keys);
    cudaFree(renderer->shuffle_values);
    cudaFree(renderer->verify_keys);
    cudaFree(renderer->visible);
    cudaFree(renderer->tile_rects);
    cudaFree(renderer->tile_scratch);
    cudaFreeHost(renderer->host_visible);
    for (int r = 0; r < TIMING_RING; r++) {
        for (int e = 0; e < EV_COUNT; e++)
            if (renderer->records[r].events[e])
                cudaEventDestroy(renderer->records[r].events[e]);
        if (renderer->records[r].draw_query)
            glDeleteQueries(1, &renderer->records[r].draw_query);
        if (renderer->records[r].end_query)
            glDeleteQueries(1, &renderer->records[r].end_query);
    }
    if (renderer->stream)
        cudaStreamDestroy(renderer->stream);
    if (renderer->mesh_program)
        glDeleteProgram(renderer->mesh_program);
    if (renderer->points_program)
        glDeleteProgram(renderer->points_program);
    if (renderer->pull_program)
        glDeleteProgram(renderer->pull_program);
    if (renderer->index_buffer)
        glDeleteBuffers(1, &renderer->index_buffer);
    if (renderer->pull_vertex_array)
        glDeleteVertexArrays(1, &renderer->pull_vertex_array);
    glDeleteVertexArrays(DS_INTEROP_SLOTS, renderer->vertex_arrays);
    if (renderer->color_buffer)
        glDeleteBuffers(1, &renderer->color_buffer);
    if (renderer->cpu_position_buffer)
        glDeleteBuffers(1, &renderer->cpu_position_buffer);
    if (renderer->cpu_element_buffer)
        glDeleteBuffers(1, &renderer->cpu_element_buffer);
    if (renderer->verify_copy_buffer)
        glDeleteBuffers(1, &renderer->verify_copy_buffer);
    if (renderer->framebuffer) {
        glDeleteFramebuffers(1, &renderer->framebuffer);
        glDeleteRenderbuffers(1, &renderer->color_renderbuffer);
        if (renderer->depth_renderbuffer)
            glDeleteRenderbuffers(1, &renderer->depth_renderbuffer);
    }
    if (renderer->debug_installed)
        glDebugMessageCallback(NULL, NULL);
    free(renderer->host_indices);
    free(renderer->host_positions);
    free(renderer->host_distances);
    free(renderer->host_keys);
    free(renderer->host_values);
    free(renderer->host_elements);
    free(renderer->host_verify_keys);
    free(renderer->host_verify_values);
    free(renderer->host_verify_elements);
    free(renderer->host_seen);
    free(renderer->host_tile_rects);
    free(renderer->host_tile_scratch);
    free(renderer);
}

/* ---- timings -------------------------------------------------------------- */

static float event_ms(const frame_record *record, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, record->events[from], record->events[to]) != cudaSuccess) {
        cudaGetLastError();
        return 0.0f;
    }
    return ms;
}

/* Reads the results of the oldest outstanding frame if they are available
 * (or, with wait set, once they are). Returns 1 if a frame was collected. */
static int collect_one(ds_renderer *renderer, int wait)
{
    frame_record *record = &renderer->records[renderer->next_collect % TIMING_RING];
    if (!record->pending || record->frame != renderer->next_collect)
        return 0;
    if (!wait) {
        GLint available = 0;
        glGetQueryObjectiv(record->end_query, GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available)
            return 0;
        if (!renderer->cpu_path) {
            cudaError_t done = cudaEventQuery(record->events[EV_SCATTER]);
            if (done == cudaErrorNotReady)
                return 0;
        }
    }
    ds_frame_timings t = {0};
    t.frame = record->frame;
    if (renderer->cpu_path) {
        t.distances_ms = record->host_stage_ms[EV_DISTANCES];
        t.keys_ms = record->host_stage_ms[EV_KEYS];
        t.sort_ms = record->host_stage_ms[EV_SORT];
        t.scatter_ms = record->host_stage_ms[EV_SCATTER];
    } else {
        cudaEventSynchronize(record->events[EV_SCATTER]);
        t.distances_ms = event_ms(record, EV_START, EV_DISTANCES);
        t.keys_ms = event_ms(record, EV_DISTANCES, EV_KEYS);
        t.shuffle_ms = event_ms(record, EV_KEYS, EV_SHUFFLE);
        t.sort_ms = event_ms(record, EV_SHUFFLE, EV_SORT);
        t.scatter_ms = event_ms(record, EV_SORT, EV_SCATTER);
    }
    t.interop_ms = record->host_interop_ms;
    t.drawn = record->culled && !renderer->cpu_path
                  ? renderer->host_visible[record - renderer->records]
                  : record->drawn;
    GLuint64 draw_ns = 0, end_ns = 0;
    glGetQueryObjectui64v(record->draw_query, GL_QUERY_RESULT, &draw_ns);
    glGetQueryObjectui64v(record->end_query, GL_QUERY_RESULT, &end_ns);
    t.draw_ms = (float)(draw_ns * 1e-6);
    if (renderer->have_last_end && end_ns > renderer->last_end_timestamp)
        t.frame_ms = (float)((end_ns - renderer->last_end_timestamp) * 1e-6);
    renderer->last_end_timestamp = end_ns;
    renderer->have_last_end = 1;

    record->pending = 0;
    renderer->next_collect++;
    renderer->latest = t;
    renderer->have_latest = 1;
    size_t tail = (renderer->backlog_head + renderer->backlog_count) % TIMINGS_BACKLOG;
    renderer->backlog[tail] = t;
    if (renderer->backlog_count < TIMINGS_BACKLOG)
        renderer->backlog_count++;
    else
        renderer->backlog_head = (renderer->backlog_head + 1) % TIMINGS_BACKLOG;
    return 1;
}

int ds_renderer_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (collect_one(renderer, 0))
        ;
    if (!renderer->have_latest)
        return 0;
    *dest = renderer->latest;
    return 1;
}

int ds_renderer_next_timings(ds_renderer *renderer, ds_frame_timings *dest)
{
    while (collect_one(renderer, 0))
        ;
    if (!renderer->backlog_count)
        return 0;
    *dest = renderer->backlog[renderer->backlog_head];
    renderer->backlog_head = (renderer->backlog_head + 1) % TIMINGS_BACKLOG;
    renderer->backlog_count--;
    return 1;
}

ds_status ds_renderer_finish(ds_renderer *renderer)
{
    glFinish();
    if (!renderer->cpu_path)
        DS_CUDA_TRY("render", cudaStreamSynchronize(renderer->stream));
    while (collect_one(renderer, 1))
        ;
    return DS_OK;
}

/* ---- the frame -------------------------------------------------------------- */

/* Culling assumes one sample per pixel at its centre: true of the own
 * framebuffer; asked of GL for any other (once per target). */
static int single_sampled(ds_renderer *renderer, GLuint target)
{
    if (target == renderer->framebuffer)
        return 1;
    if (renderer->target_samples < 0 || renderer->sampled_target != target) {
        GLint samples = 0;
        glGetNamedFramebufferParameteriv(target, GL_SAMPLES, &samples);
        renderer->sampled_target = target;
        renderer->target_samples = samples;
    }
    return renderer->target_samples <= 1;
}

/* 16-bit keys: quantise over the depth range the bounding sphere spans
 * from the eye (the range where every key lies). */
static ds_key_range key_range(const ds_renderer *renderer, const float eye[3])
{
    ds_key_range range = {0.0f, 0.0f};
    if (renderer->key_bits != 16)
        return range;
    float d = ds_point_distance(renderer->mesh_center, eye[0], eye[1], eye[2]);
    float r = renderer->mesh_radius > 0.0f ? renderer->mesh_radius * 1.001f : 1.0f;
    range.lo = d > r ? d - r : 0.0f;
    range.scale = 1.0f / (d + r - range.lo);
    return range;
}

/* Points, and triangles drawn by pulling, sort their values right in the
 * element buffer: it ends up holding the sorted order, one entry per
 * sorted element, and no scatter runs. */
/* The frame bins its sorted primitives by screen tile (tiles.h). */
static int frame_tiled(const ds_renderer *renderer)
{
    return renderer->tiles_on && renderer->sorting;
}

/* The sort permutes the element buffer itself: points and pulled
 * triangles drawn as one list. */
static int sorts_in_element_buffer(const ds_renderer *renderer)
{
    return (renderer->primitive == DS_PRIMITIVE_POINTS || renderer->pull) &&
           !frame_tiled(renderer);
}

/* A binned frame: the window transform, the grid, and the splat size. */
typedef struct frame_tiles {
    ds_cull_view view;
    ds_tile_grid grid;
    float point_scale; /* points.vert.glsl's */
} frame_tiles;

#define RECORD(e)                                                              \
    DS_CUDA_TRY("render", cudaEventRecord(record->events[(e)], renderer->stream))

static ds_status cuda_stages(ds_renderer *renderer, frame_record *record,
                             int slot, const float eye[3], const ds_cull_view *cull,
                             const frame_tiles *tiles)
{
    ds_status status;
    const float *positions = NULL;
    uint32_t *elements = NULL;
    double interop_ms = 0.0;
    ds_stream stream = (ds_stream)renderer->stream;
    int points = renderer->primitive == DS_PRIMITIVE_POINTS;
    int fused = !points && renderer->fused_keys;
    size_t n = ds_renderer_sorted_count(renderer);

    if ((status = ds_interop_begin(renderer->interop, slot, stream, &positions,
                                   &elements, &interop_ms)))
        return status;
    int in_place = sorts_in_element_buffer(renderer);
    uint32_t *values = in_place ? elements : renderer->values;
    if (cull)
        DS_CUDA_TRY("render", cudaMemsetAsync(renderer->visible, 0, sizeof(uint32_t),
                                              renderer->stream));
    RECORD(EV_START);
    /* Points: the vertex distance is the key, written straight into keys. */
    ds_key_range range = key_range(renderer, eye);
    if (!fused &&
        (status = ds_vertex_distances(positions, renderer->vertex_count, eye,
                                      points ? renderer->keys : renderer->distances,
                                      points ? values : NULL, range, stream)))
        return status;
    RECORD(EV_DISTANCES);
    if (!points &&
        (status = ds_triangle_keys(renderer->indices, renderer->triangle_count,
                                   fused ? NULL : renderer->distances, positions, eye,
                                   renderer->triangle_key, range, cull, renderer->visible,
                                   renderer->keys, values, stream)))
        return status;
    RECORD(EV_KEYS);
    if (renderer->verify && renderer->sorting)
        DS_CUDA_TRY("render", cudaMemcpyAsync(renderer->verify_keys, renderer->keys,
                                              n * sizeof(float), cudaMemcpyDeviceToDevice,
                                              renderer->stream));
    if (renderer->sorting && renderer->shuffle &&
        (status = ds_shuffle_pairs(renderer->keys, values,
                                   renderer->shuffle_keys, renderer->shuffle_values, n,
                                   0x5EED0000ull + renderer->frame_count, stream)))
        return status;
    RECORD(EV_SHUFFLE);
    if (renderer->sorting &&
        (status = ds_sorter_sort(renderer->sorter, renderer->keys, values, n,
                                 DS_SORT_DESCENDING, stream)))
        return status;
    RECORD(EV_SORT);
    if (tiles) {
        ds_tiles_source source = {points ? NULL : renderer->indices, positions, renderer->pull,
                                  tiles->point_scale};
        if ((status = ds_tiles_bin(values, cull ? renderer->visible : NULL, n, &source,
                                   &tiles->view, &tiles->grid, renderer->tile_rects,
                                   renderer->tile_scratch, elements, renderer->command_word,
                                   elements + renderer->command_word, stream)))
            return status;
    } else {
        if (!in_place &&
            (status = ds_scatter_indices(values, n, renderer->indices, 3, elements, stream)))
            return status;
        if (cull && (status = ds_draw_command(renderer->visible, !renderer->pull,
                                              elements + renderer->command_word, stream)))
            return status;
    }
    if (cull) {
        DS_CUDA_TRY("render", cudaMemcpyAsync(renderer->host_visible + (record - renderer->records),
                                              renderer->visible, sizeof(uint32_t),
                                              cudaMemcpyDeviceToHost, renderer->stream));
    }
    RECORD(EV_SCATTER);
    if ((status = ds_interop_end(renderer->interop, slot, stream, &interop_ms)))
        return status;
    record->host_interop_ms = (float)interop_ms;
    return DS_OK;
}

/* The same stages on the host, then one upload into the element buffer. */
static ds_status cpu_stages(ds_renderer *renderer, frame_record *record,
                            const float eye[3], const ds_cull_view *cull,
                            const frame_tiles *tiles)
{
    ds_status status;
    int points = renderer->primitive == DS_PRIMITIVE_POINTS;
    size_t n = ds_renderer_sorted_count(renderer);
    const float *p = renderer->host_positions;
    float *distances = points ? renderer->host_keys : renderer->host_distances;
    ds_key_range range = key_range(renderer, eye);
    double t0 = ds_now_ms();
    for (size_t v = 0; v < renderer->vertex_count; v++)
        distances[v] = ds_point_distance(p + 3 * v, eye[0], eye[1], eye[2]);
    double t1 = ds_now_ms();
    if (points) {
        for (size_t v = 0; v < n; v++) {
            if (range.scale != 0.0f)
                distances[v] = ds_quantise_key(distances[v], range.lo, range.scale);
            renderer->host_values[v] = (uint32_t)v;
        }
    } else {
        const uint32_t *idx = renderer->host_indices;
        uint32_t visible = 0;
        for (size_t t = 0; t < n; t++) {
            uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
            const float *pa = p + 3 * (size_t)a, *pb = p + 3 * (size_t)b, *pc = p + 3 * (size_t)c;
            float key = ds_triangle_key_of(renderer->triangle_key, distances[a], distances[b],
                                           distances[c], pa, pb, pc, eye[0], eye[1], eye[2]);
            if (range.scale != 0.0f)
                key = ds_quantise_key(key, range.lo, range.scale);
            if (cull) {
                /* As distance.cu's keys pass: culled last, then left out. */
                int drawn = !ds_triangle_misses_samples(cull, pa, pb, pc);
                key = drawn ? fmaxf(key, FLT_MIN) : 0.0f;
                visible += (uint32_t)drawn;
            }
            renderer->host_keys[t] = key;
            renderer->host_values[t] = (uint32_t)t;
        }
        if (cull)
            record->drawn = visible;
    }
    double t2 = ds_now_ms();
    if (renderer->verify && renderer->sorting)
        memcpy(renderer->host_verify_keys, renderer->host_keys, n * sizeof(float));
    if (renderer->sorting) {
        ds_sorter_set_shuffle(renderer->sorter, renderer->shuffle);
        if ((status = ds_sorter_sort(renderer->sorter, renderer->host_keys,
                                     renderer->host_values, n, DS_SORT_DESCENDING, 0)))
            return status;
    }
    double t3 = ds_now_ms();
    uint32_t *elements = renderer->host_elements;
    size_t binned_words = 0;
    if (tiles) {
        /* As tiles.cu: the tiles of each drawn sorted position, binned. */
        size_t count = cull ? record->drawn : n;
        const uint32_t *idx = renderer->host_indices;
        for (size_t i = 0; i < count; i++) {
            size_t e = renderer->host_values[i];
            const uint32_t *v = idx + 3 * e;
            renderer->host_tile_rects[i] =
                points ? ds_point_tiles(&tiles->view, &tiles->grid, p + 3 * e, tiles->point_scale)
                       : ds_triangle_tiles(&tiles->view, &tiles->grid, p + 3 * (size_t)v[0],
                                           p + 3 * (size_t)v[1], p + 3 * (size_t)v[2]);
        }
        ds_tiles_bin_host(renderer->host_values, renderer->host_tile_rects, count,
                          points || renderer->pull ? NULL : idx, points ? 1 : 3, &tiles->grid,
                          elements, renderer->command_word, elements + renderer->command_word,
                          renderer->host_tile_scratch, &binned_words);
    } else if (!sorts_in_element_buffer(renderer)) {
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                elements[3 * i + k] = renderer->host_indices[3 * (size_t)renderer->host_values[i] + k];
    }
    double t4 = ds_now_ms();
    /* The uploads wait, inside GL, for earlier draws still reading. */
    GLuint buffer = renderer->cpu_element_buffer;
    GLintptr command_offset = (GLintptr)(renderer->command_word * sizeof(uint32_t));
    if (tiles) {
        size_t command_words =
            (size_t)(tiles->grid.columns * tiles->grid.rows + 1) * DS_TILES_COMMAND_WORDS;
        glNamedBufferSubData(buffer, 0, (GLsizeiptr)(binned_words * sizeof(uint32_t)), elements);
        glNamedBufferSubData(buffer, command_offset,
                             (GLsizeiptr)(command_words * sizeof(uint32_t)),
                             elements + renderer->command_word);
    } else {
        int per = sorts_in_element_buffer(renderer) ? 1 : 3;
        glNamedBufferSubData(buffer, 0, (GLsizeiptr)(n * per * sizeof(uint32_t)),
                             per == 1 ? renderer->host_values : elements);
        if (cull) {
            /* The same command distance.cu's ds_draw_command() writes. */
            uint32_t command[DRAW_COMMAND_WORDS] = {3 * record->drawn, 1, 0, 0, 0};
            glNamedBufferSubData(buffer, command_offset, sizeof command, command);
        }
    }
    double t5 = ds_now_ms();
    record->host_stage_ms[EV_DISTANCES] = (float)(t1 - t0);
    record->host_stage_ms[EV_KEYS] = (float)(t2 - t1);
    record->host_stage_ms[EV_SORT] = (float)(t3 - t2);
    record->host_stage_ms[EV_SCATTER] = (float)(t4 - t3);
    record->host_interop_ms = (float)(t5 - t4);
    return DS_OK;
}

/* The binned draw: each tile's command under its scissor, then the
 * overflow command (tiles.h) without one. The indirect buffer is bound. */
static void draw_tiles(const ds_renderer *renderer, const ds_tile_grid *grid, int pull,
                       GLenum mode)
{
    size_t word = renderer->command_word;
    glEnable(GL_SCISSOR_TEST);
    for (int row = 0; row < grid->rows; row++)
        for (int column = 0; column < grid->columns; column++) {
            int box[4];
            ds_tile_scissor(grid, renderer->width, renderer->height, column, row, box);
            glScissor(box[0], box[1], box[2], box[3]);
            const void *command = (const void *)(word * sizeof(uint32_t));
            if (pull)
                glDrawArraysIndirect(GL_TRIANGLES, command);
            else
                glDrawElementsIndirect(mode, GL_UNSIGNED_INT, command);
            word += DS_TILES_COMMAND_WORDS;
        }
    glDisable(GL_SCISSOR_TEST);
    const void *overflow = (const void *)(word * sizeof(uint32_t));
    if (pull)
        glDrawArraysIndirect(GL_TRIANGLES, overflow);
    else
        glDrawElementsIndirect(mode, GL_UNSIGNED_INT, overflow);
}

ds_status ds_renderer_frame(ds_renderer *renderer, const ds_camera *camera,
                            uint32_t framebuffer)
{
    ds_status status;
    if (!renderer || !camera)
        return ds_fail(DS_ERR_INVALID_ARG, "render: NULL renderer or camera");
    frame_record *record = &renderer->records[renderer->frame_count % TIMING_RING];
    /* Read whatever finished; the slot about to be reused must be read
     * first (it is four frames old, so this rarely waits). */
    while (collect_one(renderer, 0))
        ;
    while (record->pending && collect_one(renderer, 1))
        ;
    record->pending = 0;
    record->frame = renderer->frame_count;
    int slot = (int)(renderer->frame_count % DS_INTEROP_SLOTS);

    float eye[3], view_projection[16], projection[16];
    ds_camera_eye(camera, eye);
    ds_camera_view_projection(camera, view_projection);
    ds_camera_projection(camera, projection);

    int points = renderer->primitive == DS_PRIMITIVE_POINTS;
    GLuint target = framebuffer == DS_RENDERER_OWN_FRAMEBUFFER ? renderer->framebuffer
                                                               : framebuffer;
    size_t n = ds_renderer_sorted_count(renderer);
    ds_cull_view view;
    ds_cull_view_set(&view, view_projection, (float)renderer->width, (float)renderer->height);
    const ds_cull_view *cull = NULL;
    if (renderer->cull && renderer->sorting && !points && single_sampled(renderer, target))
        cull = &view;
    int tiled = frame_tiled(renderer);
    float point_scale = renderer->point_size * projection[5] * 0.5f * (float)renderer->height;
    frame_tiles tiles = {view, ds_tile_grid_for(renderer->width, renderer->height,
                                                renderer->tile_pixels), point_scale};
    const ds_tile_grid *grid = &tiles.grid;
    record->culled = cull != NULL;
    record->drawn = (uint32_t)n;
    status = renderer->cpu_path ? cpu_stages(renderer, record, eye, cull, tiled ? &tiles : NULL)
                                : cuda_stages(renderer, record, slot, eye, cull,
                                              tiled ? &tiles : NULL);
    if (status)
        return status;
    renderer->last_sorted = renderer->sorting;
    renderer->last_slot = renderer->cpu_path ? 0 : slot;
    renderer->last_tiled = tiled;
    renderer->last_grid = tiles.grid;

    /* The draw: straight alpha "over", back to front; the depth test stays
     * on (for opaque geometry a caller may add) but nothing writes depth. */
    int pull = !points && renderer->pull;
    GLuint program = points ? renderer->points_program
                            : pull ? renderer->pull_program : renderer->mesh_program;
    glBeginQuery(GL_TIME_ELAPSED, record->draw_query);
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, renderer->width, renderer->height);
    glDepthMask(GL_TRUE);
    glClearColor(renderer->background[0], renderer->background[1],
                 renderer->background[2], renderer->background[3]);
    glClearDepth(1.0);
    glDisable(GL_SCISSOR_TEST);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(program);
    glUniformMatrix4fv(U_VIEW_PROJECTION, 1, GL_FALSE, view_projection);
    glUniform1f(U_ALPHA, renderer->alpha);
    if (points) {
        glEnable(GL_PROGRAM_POINT_SIZE);
        glUniform1f(U_POINT_SCALE, point_scale);
    }
    GLuint element_buffer = renderer->cpu_path
                                ? renderer->cpu_element_buffer
                                : ds_interop_element_buffer(renderer->interop, renderer->last_slot);
    /* Culling: the keys pass left the draw's count in the command after
     * the elements. Tiles: a command per tile there, and the overflow's. */
    const void *command = (const void *)(renderer->command_word * sizeof(uint32_t));
    if (cull || tiled)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, element_buffer);
    if (pull) {
        /* mesh_pull.vert.glsl's blocks: sorted triangles, indices,
         * positions, colours. */
        GLuint buffers[4] = {
            element_buffer,
            renderer->index_buffer,
            renderer->cpu_path ? renderer->cpu_position_buffer
                               : ds_interop_position_buffer(renderer->interop),
            renderer->color_buffer};
        GLintptr offsets[4] = {0, 0, 0, 0};
        size_t sorted_words = tiled ? renderer->command_word : n;
        GLsizeiptr sizes[4] = {(GLsizeiptr)(sorted_words * sizeof(uint32_t)),
                               (GLsizeiptr)(3 * n * sizeof(uint32_t)),
                               (GLsizeiptr)(3 * renderer->vertex_count * sizeof(float)),
                               (GLsizeiptr)(renderer->vertex_count * 4)};
        glBindBuffersRange(GL_SHADER_STORAGE_BUFFER, 0, 4, buffers, offsets, sizes);
        glBindVertexArray(renderer->pull_vertex_array);
    } else {
        glBindVertexArray(renderer->vertex_arrays[renderer->last_slot]);
    }
    if (tiled)
        draw_tiles(renderer, grid, pull, points ? GL_POINTS : GL_TRIANGLES);
    else if (cull && pull)
        glDrawArraysIndirect(GL_TRIANGLES, command);
    else if (cull)
        glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, command);
    else if (pull)
        glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * n));
    else
        glDrawElements(points ? GL_POINTS : GL_TRIANGLES, (GLsizei)(points ? n : 3 * n),
                       GL_UNSIGNED_INT, NULL);
    if (cull || tiled)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(record->end_query, GL_TIMESTAMP);
    if (!renderer->cpu_path) {
        double interop_ms = 0.0;
        if ((status = ds_interop_gl_used(renderer->interop, slot, &interop_ms)))
            return status;
        record->host_interop_ms += (float)interop_ms;
    }
    record->pending = 1;
    renderer->frame_count++;
    return DS_OK;
}

/* ---- settings and facts ----------------------------------------------------- */

ds_status ds_renderer_resize(ds_renderer *renderer, int width, int height)
{
    if (width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "render: size %dx%d", width, height);
    if (width == renderer->width && height == renderer->height)
        return DS_OK;
    renderer->width = width;
    renderer->height = height;
    return make_framebuffer(renderer);
}

ds_status ds_renderer_set_sort(ds_renderer *renderer, ds_sort_algo algo)
{
    ds_status status;
    ds_sorter *sorter = NULL;
    if (algo == renderer->algo)
        return DS_OK;
    if (renderer->cpu_path)
        return ds_fail(DS_ERR_NO_DEVICE, "render: sort %s needs a CUDA device behind GL",
                       ds_sort_algo_name(algo));
    size_t most = renderer->vertex_count > renderer->triangle_count
                      ? renderer->vertex_count : renderer->triangle_count;
    DS_CUDA_TRY("render", cudaStreamSynchronize(renderer->stream));
    if ((status = make_sorter(algo, most, renderer->key_bits, &sorter)))
        return status;
    ds_sorter_destroy(renderer->sorter);
    renderer->sorter = sorter;
    renderer->algo = algo;
    return DS_OK;
}

void ds_renderer_set_shuffle(ds_renderer *renderer, int shuffle) { renderer->shuffle = shuffle; }

ds_status ds_renderer_set_primitive(ds_renderer *renderer, ds_primitive primitive)
{
    if (primitive == DS_PRIMITIVE_TRIANGLES && renderer->triangle_count == 0)
        return ds_fail(DS_ERR_INVALID_ARG, "render: a point cloud has no triangles");
    renderer->primitive = primitive;
    return DS_OK;
}

void ds_renderer_set_triangle_key(ds_renderer *renderer, ds_triangle_key key)
{
    if ((unsigned)key < DS_TRIANGLE_KEY_COUNT)
        renderer->triangle_key = key;
}

void ds_renderer_set_alpha(ds_renderer *renderer, float alpha)
{
    if (alpha > 0.0f && alpha <= 1.0f)
        renderer->alpha = alpha;
}

void ds_renderer_set_sorting(ds_renderer *renderer, int sorting) { renderer->sorting = sorting != 0; }

void ds_renderer_set_tiles(ds_renderer *renderer, int tiles)
{
    renderer->tiles_on = renderer->tiles && tiles;
}

int ds_renderer_tiles(const ds_renderer *renderer) { return renderer->tiles_on; }

void ds_renderer_set_background(ds_renderer *renderer, const float rgba[4])
{
    memcpy(renderer->background, rgba, sizeof renderer->background);
}

void ds_renderer_set_point_size(ds_renderer *renderer, float world_size)
{
    if (world_size > 0.0f)
        renderer->point_size = world_size;
}

const char *ds_renderer_gpu_name(const ds_renderer *renderer) { return renderer->gpu_name; }

ds_interop_mode ds_renderer_interop(const ds_renderer *renderer)
{
    return renderer->cpu_path ? DS_INTEROP_NONE : ds_interop_mode_in_use(renderer->interop);
}

const char *ds_interop_mode_name(ds_interop_mode mode)
{
    switch (mode) {
    case DS_INTEROP_AUTO: return "auto";
    case DS_INTEROP_MAP: return "map";
    case DS_INTEROP_EXTERNAL: return "external";
    case DS_INTEROP_NONE: return "none";
    }
    return "unknown";
}

ds_sort_algo ds_renderer_sort(const ds_renderer *renderer) { return renderer->algo; }
ds_primitive ds_renderer_primitive(const ds_renderer *renderer) { return renderer->primitive; }

ds_draw_form ds_renderer_draw_form(const ds_renderer *renderer)
{
    return renderer->pull ? DS_DRAW_PULL : DS_DRAW_INDEXED;
}

size_t ds_renderer_sorted_count(const ds_renderer *renderer)
{
    return renderer->primitive == DS_PRIMITIVE_POINTS ? renderer->vertex_count
                                                      : renderer->triangle_count;
}

unsigned ds_renderer_gl_errors(const ds_renderer *renderer) { return renderer->gl_errors; }

/* ---- read-back and verification --------------------------------------------- */

ds_status ds_renderer_read_pixels(ds_renderer *renderer, uint8_t *dest)
{
    int w = renderer->width, h = renderer->height;
    size_t row = (size_t)w * 4;
    unsigned errors = renderer->gl_errors;
    glFinish();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, renderer->framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, dest);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    if (renderer->gl_errors != errors)
        return ds_fail(DS_ERR_GL, "render: glReadPixels failed");
    /* GL's first row is the bottom one; images start at the top. */
    for (int y = 0; y < h / 2; y++) {
        uint8_t *a = dest + (size_t)y * row, *b = dest + (size_t)(h - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            uint8_t s = a[i];
            a[i] = b[i];
            b[i] = s;
        }
    }
    return DS_OK;
}

/* The sort's view of a key: the top `bits` bits of its order-preserving
 * transform, -0 as +0 and every NaN alike (sort.h's semantics). */
static uint32_t sort_key(float key, int bits)
{
    uint32_t u;
    if (isnan(key))
        return UINT32_MAX >> (32 - bits);
    if (key == 0.0f)
        key = 0.0f;
    memcpy(&u, &key, sizeof u);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return u >> (32 - bits);
}

/* GL's view of an element buffer (`gl`, n entries) against CUDA's. */
static ds_status same_as_cuda_view(const uint32_t *gl, const uint32_t *cuda_view, size_t n,
                                   uint64_t frame)
{
    uint32_t *written = malloc(n * sizeof(uint32_t) + 1);
    if (!written)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    ds_status status = DS_OK;
    if (cudaMemcpy(written, cuda_view, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) !=
        cudaSuccess) {
        cudaGetLastError();
        status = ds_fail(DS_ERR_CUDA, "verify: reading CUDA's view of the element buffer failed");
    }
    for (size_t i = 0; status == DS_OK && i < n; i++)
        if (gl[i] != written[i])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: element buffer entry %zu is %u in GL but "
                             "CUDA wrote %u",
                             (unsigned long long)frame, i, gl[i], written[i]);
    free(written);
    return status;
}

/* Pulling: the shader's index buffer must hold the mesh's indices. */
static ds_status check_index_buffer(const ds_renderer *renderer)
{
    size_t count = 3 * renderer->triangle_count;
    uint32_t *gl = malloc(count * sizeof(uint32_t) + 1);
    if (!gl)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    glGetNamedBufferSubData(renderer->index_buffer, 0, (GLsizeiptr)(count * sizeof(uint32_t)), gl);
    ds_status status = DS_OK;
    for (size_t i = 0; status == DS_OK && i < count; i++)
        if (gl[i] != renderer->host_indices[i])
            status = ds_fail(DS_ERR_MISMATCH, "verify: index buffer entry %zu is %u, "
                             "the mesh says %u", i, gl[i], renderer->host_indices[i]);
    free(gl);
    return status;
}

/* A binned frame: the element buffer GL read (host_verify_elements) must
 * hold what ds_tiles_bin_host() makes of the sorted order `values` and the
 * tiles the frame found for each sorted position. */
static ds_status check_tiles(ds_renderer *renderer, const uint32_t *values, uint64_t frame)
{
    const frame_record *record = &renderer->records[frame % TIMING_RING];
    size_t count = ds_renderer_sorted_count(renderer);
    uint32_t *rects = renderer->host_tile_rects;
    if (!renderer->cpu_path) {
        uint32_t visible = (uint32_t)count;
        if (record->culled)
            DS_CUDA_TRY("verify", cudaMemcpy(&visible, renderer->visible, sizeof visible,
                                             cudaMemcpyDeviceToHost));
        count = visible < count ? visible : count;
        DS_CUDA_TRY("verify", cudaMemcpy(rects, renderer->tile_rects, count * sizeof(uint32_t),
                                         cudaMemcpyDeviceToHost));
    } else if (record->culled) {
        count = record->drawn;
    }
    const ds_tile_grid *grid = &renderer->last_grid;
    size_t command_words = (size_t)(grid->columns * grid->rows + 1) * DS_TILES_COMMAND_WORDS;
    uint32_t *expected = malloc((renderer->command_word + command_words) * sizeof(uint32_t));
    if (!expected)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    size_t used = 0;
    int points = renderer->primitive == DS_PRIMITIVE_POINTS;
    const uint32_t *entry_indices = points || renderer->pull ? NULL : renderer->host_indices;
    ds_tiles_bin_host(values, rects, count, entry_indices, points ? 1 : 3, grid, expected,
                      renderer->command_word, expected + renderer->command_word,
                      renderer->host_tile_scratch, &used);
    const uint32_t *gl = renderer->host_verify_elements;
    ds_status status = DS_OK;
    for (size_t i = 0; status == DS_OK && i < used; i++)
        if (gl[i] != expected[i])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: binned element buffer word %zu is %u, "
                             "expected %u", (unsigned long long)frame, i, gl[i], expected[i]);
    for (size_t i = 0; status == DS_OK && i < command_words; i++) {
        size_t at = renderer->command_word + i;
        if (gl[at] != expected[at])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: word %zu of tile %zu's draw command is %u, "
                             "expected %u", (unsigned long long)frame,
                             i % DS_TILES_COMMAND_WORDS, i / DS_TILES_COMMAND_WORDS, gl[at],
                             expected[at]);
    }
    free(expected);
    return status;
}

ds_status ds_renderer_verify(ds_renderer *renderer)
{
    ds_status status;
    if (!renderer->verify || !renderer->last_sorted || renderer->frame_count == 0)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "render: verify needs desc.verify, sorting on and a frame");
    uint64_t frame = renderer->frame_count - 1;
    int points = renderer->primitive == DS_PRIMITIVE_POINTS;
    int in_place = sorts_in_element_buffer(renderer);
    size_t n = ds_renderer_sorted_count(renderer);
    int per = in_place ? 1 : 3;
    if ((status = ds_renderer_finish(renderer)))
        return status;
    if (!renderer->cpu_path)
        DS_CUDA_TRY("render", cudaMemcpy(renderer->host_verify_keys, renderer->verify_keys,
                                         n * sizeof(float), cudaMemcpyDeviceToHost));
    GLuint element_buffer = renderer->cpu_path
                                ? renderer->cpu_element_buffer
                                : ds_interop_element_buffer(renderer->interop, renderer->last_slot);
    /* What the draw read: a GPU copy inside GL, then a read-back of the
     * copy. (Reading an element buffer that lives in imported CUDA memory
     * back directly can return data GL cached at an earlier read-back: GL
     * does not know that CUDA wrote it, without a semaphore.) */
    GLsizeiptr element_bytes = (GLsizeiptr)((renderer->last_tiled ? renderer->element_capacity
                                                                   : n * per) *
                                            sizeof(uint32_t));
    glCopyNamedBufferSubData(element_buffer, renderer->verify_copy_buffer, 0, 0, element_bytes);
    glGetNamedBufferSubData(renderer->verify_copy_buffer, 0, element_bytes,
                            renderer->host_verify_elements);
    const uint32_t *cuda_view = renderer->cpu_path ? NULL
        : ds_interop_element_pointer(renderer->interop, renderer->last_slot);
    uint32_t *values = renderer->host_verify_values;
    if (in_place) {
        /* The element buffer is the sorted order itself: check the order
         * the draw reads, and that CUDA's view of it agrees. */
        memcpy(values, renderer->host_verify_elements, n * sizeof(uint32_t));
        if (cuda_view && (status = same_as_cuda_view(values, cuda_view, n, frame)))
            return status;
        if (renderer->pull && !points && (status = check_index_buffer(renderer)))
            return status;
    } else if (renderer->cpu_path) {
        memcpy(values, renderer->host_values, n * sizeof(uint32_t));
    } else {
        DS_CUDA_TRY("render", cudaMemcpy(values, renderer->values,
                                         n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    }

    /* The reference: the cpu sort of the same keys. The GPU order must give
     * the same key sequence (ties may come in any order), be a permutation,
     * and its indices must be what the element buffer holds. */
    const float *keys = renderer->host_verify_keys;
    memset(renderer->host_seen, 0, n);
    for (size_t i = 0; i < n; i++) {
        if (values[i] >= n || renderer->host_seen[values[i]])
            return ds_fail(DS_ERR_MISMATCH,
                           "verify: frame %llu, sort %s: position %zu holds %s value %u",
                           (unsigned long long)frame, ds_sort_algo_name(renderer->algo), i,
                           values[i] >= n ? "out-of-range" : "repeated", values[i]);
        renderer->host_seen[values[i]] = 1;
    }
    /* Verification is an off-line check, not the frame path: it may allocate. */
    float *reference_keys = NULL;
    uint32_t *reference_values = NULL;
    reference_keys = malloc(n * sizeof(float) + 1);
    reference_values = malloc(n * sizeof(uint32_t) + 1);
    if (!reference_keys || !reference_values) {
        free(reference_keys);
        free(reference_values);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    }
    memcpy(reference_keys, keys, n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        reference_values[i] = (uint32_t)i;
    status = ds_sorter_sort(renderer->reference_sorter, reference_keys, reference_values, n,
                            DS_SORT_DESCENDING, 0);
    for (size_t i = 0; status == DS_OK && i < n; i++) {
        if (sort_key(keys[values[i]], renderer->key_bits) !=
            sort_key(reference_keys[i], renderer->key_bits)) {
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu, sort %s: position %zu has key %.9g "
                             "(element %u) but the cpu reference has %.9g",
                             (unsigned long long)frame, ds_sort_algo_name(renderer->algo),
                             i, keys[values[i]], values[i], reference_keys[i]);
            break;
        }
        for (int k = 0; !in_place && !renderer->last_tiled && k < per; k++) {
            uint32_t want = renderer->host_indices[(size_t)values[i] * 3 + k];
            if (renderer->host_verify_elements[i * per + k] != want) {
                /* Tell a GL visibility problem from a wrong scatter. */
                uint32_t written = want;
                if (cuda_view)
                    cudaMemcpy(&written, cuda_view + i * per + k, sizeof written,
                               cudaMemcpyDeviceToHost);
                status = ds_fail(DS_ERR_MISMATCH,
                                 "verify: frame %llu: element buffer index %zu is %u in GL, "
                                 "expected %u%s",
                                 (unsigned long long)frame, i * per + k,
                                 renderer->host_verify_elements[i * per + k], want,
                                 cuda_view && written == want ? " (CUDA wrote it right)" : "");
                break;
            }
        }
    }
    free(reference_keys);
    free(reference_values);
    if (status == DS_OK && renderer->last_tiled)
        status = check_tiles(renderer, values, frame);
    return status;
}
