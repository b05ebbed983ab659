/* renderer.c — the renderer's life cycle (renderer.h): create (the GL
 * programs, buffers and framebuffer, the CUDA stream, buffers and sorter,
 * or the CPU path's host copies; all per-frame storage is made here),
 * destroy, the settings, the facts, and the read-back of the own
 * framebuffer. One frame is frame.c's; renderer_internal.h maps the rest. */
#include "renderer_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

#define DEFAULT_ALPHA 0.35f
/* Points mode: splat diameter as a multiple of the mean spacing of points
 * spread over the bounding sphere's surface, enough to close the gaps. */
#define POINT_SIZE_SPACING 1.5f

/* Shader sources, embedded from shaders/ by cmake/embed.cmake. */
extern const char ds_shader_mesh_vert[];
extern const char ds_shader_mesh_frag[];
extern const char ds_shader_mesh_pull_vert[];
extern const char ds_shader_points_vert[];
extern const char ds_shader_points_frag[];

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
        glDeleteRenderbuffers(1, &renderer->depth_renderbuffer);
    }
    glCreateRenderbuffers(1, &renderer->color_renderbuffer);
    glNamedRenderbufferStorage(renderer->color_renderbuffer, GL_RGBA8,
                               renderer->width, renderer->height);
    glCreateFramebuffers(1, &renderer->framebuffer);
    glNamedFramebufferRenderbuffer(renderer->framebuffer, GL_COLOR_ATTACHMENT0,
                                   GL_RENDERBUFFER, renderer->color_renderbuffer);
    /* Nothing here writes depth, but the depth test stays on for opaque
     * geometry a caller may draw into the same framebuffer. */
    glCreateRenderbuffers(1, &renderer->depth_renderbuffer);
    glNamedRenderbufferStorage(renderer->depth_renderbuffer, GL_DEPTH_COMPONENT24,
                               renderer->width, renderer->height);
    glNamedFramebufferRenderbuffer(renderer->framebuffer, GL_DEPTH_ATTACHMENT,
                                   GL_RENDERBUFFER, renderer->depth_renderbuffer);
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
    GLuint positions = ds_render_position_buffer(renderer);
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
        glVertexArrayElementBuffer(vao, ds_render_element_buffer(renderer, s));
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
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    struct cudaDeviceProp prop;
    DS_CUDA_TRY("render", cudaSetDevice(device));
    DS_CUDA_TRY("render", cudaGetDeviceProperties(&prop, device));
    snprintf(renderer->gpu_name, sizeof renderer->gpu_name, "%s", prop.name);
    renderer->sm_count = prop.multiProcessorCount; /* sizes the culling keys grid */
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
    renderer->cull = desc->cull != DS_CULL_OFF;
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
    if (desc->tile_pixels != 0 && (desc->tile_pixels < DS_RENDERER_TILE_PIXELS_MIN ||
                                   desc->tile_pixels > DS_RENDERER_TILE_PIXELS_MAX)) {
        free(renderer);
        return ds_fail(DS_ERR_INVALID_ARG, "render: tile_pixels must be 0 or %d to %d, not %d",
                       DS_RENDERER_TILE_PIXELS_MIN, DS_RENDERER_TILE_PIXELS_MAX,
                       desc->tile_pixels);
    }
    renderer->tile_pixels = desc->tile_pixels;

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
    /* The stream's last frame may still use the buffers freed below. */
    if (!renderer->cpu_path && renderer->stream)
        cudaStreamSynchronize(renderer->stream);
    ds_sorter_destroy(renderer->sorter);
    ds_sorter_destroy(renderer->reference_sorter);
    ds_interop_destroy(renderer->interop);
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
    /* A sort still in flight uses the old sorter's temporary storage. */
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

