/* SPDX-License-Identifier: MIT */
/* renderer.c — the renderer's life cycle (renderer.h): create (the GL
 * programs, buffers and framebuffer, the CUDA stream, buffers and sorter,
 * or the CPU path's host copies; all per-frame storage is made here),
 * destroy, the settings, the facts, and the read-back of the own
 * framebuffer. One frame is frame.c's; renderer_internal.h maps the rest. */
#include "compute_raster.h"
#include "raster.h"
#include "raster_compute.h"
#include "renderer_internal.h"
#include "technique.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "host_memory.h"

#define DEFAULT_ALPHA 0.45f
/* Points mode: splat diameter as a multiple of the mean spacing of points
 * spread over the bounding sphere's surface, enough to close the gaps. */
#define POINT_SIZE_SPACING 1.5f
/* DS_COLOR_TINT with an all-zero desc.tint: a pale blue glass. */
static const float DEFAULT_TINT[3] = {0.62f, 0.80f, 0.95f};
static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id,
                                 GLenum severity, GLsizei length,
                                 const GLchar *message, const void *user)
{
    (void)source; (void)id; (void)severity; (void)length;
    if (type != GL_DEBUG_TYPE_ERROR)
        return;
    ds_renderer *renderer = (ds_renderer *)user;
    renderer->gl.errors++;
    ds_warn("GL error: %s", message);
}

static void free_framebuffer(ds_renderer *renderer)
{
    if (renderer->gl.framebuffer) {
        glDeleteFramebuffers(1, &renderer->gl.framebuffer);
        if (renderer->gl.color_texture)
            glDeleteTextures(1, &renderer->gl.color_texture);
        if (renderer->gl.color_renderbuffer)
            glDeleteRenderbuffers(1, &renderer->gl.color_renderbuffer);
        glDeleteRenderbuffers(1, &renderer->gl.depth_renderbuffer);
    }
    if (renderer->gl.resolve_framebuffer) {
        glDeleteFramebuffers(1, &renderer->gl.resolve_framebuffer);
        glDeleteTextures(1, &renderer->gl.resolve_texture);
    }
    renderer->gl.framebuffer = renderer->gl.color_renderbuffer = renderer->gl.depth_renderbuffer =
        0;
    renderer->gl.color_texture = 0;
    renderer->gl.resolve_framebuffer = renderer->gl.resolve_texture = 0;
    renderer->gl.last_output = 0;
}

/* The own framebuffer: renderer->settings.msaa samples of RGBA8 and depth, and
 * with msaa > 1 a single-sampled RGBA8 one it resolves into. The
 * single-sampled colour is a texture, so that ds_image_metrics can read
 * it (ds_renderer_color_texture). */
static ds_status make_framebuffer(ds_renderer *renderer)
{
    int samples = renderer->settings.msaa > 1 ? renderer->settings.msaa : 0;
    unsigned errors = renderer->gl.errors;
    free_framebuffer(renderer);
    glCreateFramebuffers(1, &renderer->gl.framebuffer);
    if (samples) {
        glCreateRenderbuffers(1, &renderer->gl.color_renderbuffer);
        glNamedRenderbufferStorageMultisample(renderer->gl.color_renderbuffer, samples, GL_RGBA8,
                                              renderer->settings.width, renderer->settings.height);
        glNamedFramebufferRenderbuffer(renderer->gl.framebuffer, GL_COLOR_ATTACHMENT0,
                                       GL_RENDERBUFFER, renderer->gl.color_renderbuffer);
    } else {
        glCreateTextures(GL_TEXTURE_2D, 1, &renderer->gl.color_texture);
        glTextureStorage2D(renderer->gl.color_texture, 1, GL_RGBA8, renderer->settings.width,
                           renderer->settings.height);
        glNamedFramebufferTexture(renderer->gl.framebuffer, GL_COLOR_ATTACHMENT0,
                                  renderer->gl.color_texture, 0);
    }
    /* Nothing here writes depth, but the depth test stays on for opaque
     * geometry a caller may draw into the same framebuffer. */
    glCreateRenderbuffers(1, &renderer->gl.depth_renderbuffer);
    glNamedRenderbufferStorageMultisample(renderer->gl.depth_renderbuffer, samples,
                                          GL_DEPTH_COMPONENT24, renderer->settings.width,
                                          renderer->settings.height);
    glNamedFramebufferRenderbuffer(renderer->gl.framebuffer, GL_DEPTH_ATTACHMENT,
                                   GL_RENDERBUFFER, renderer->gl.depth_renderbuffer);
    GLenum complete = glCheckNamedFramebufferStatus(renderer->gl.framebuffer, GL_FRAMEBUFFER);
    if (complete == GL_FRAMEBUFFER_COMPLETE && samples) {
        glCreateTextures(GL_TEXTURE_2D, 1, &renderer->gl.resolve_texture);
        glTextureStorage2D(renderer->gl.resolve_texture, 1, GL_RGBA8, renderer->settings.width,
                           renderer->settings.height);
        glCreateFramebuffers(1, &renderer->gl.resolve_framebuffer);
        glNamedFramebufferTexture(renderer->gl.resolve_framebuffer, GL_COLOR_ATTACHMENT0,
                                  renderer->gl.resolve_texture, 0);
        complete = glCheckNamedFramebufferStatus(renderer->gl.resolve_framebuffer, GL_FRAMEBUFFER);
    }
    if (complete != GL_FRAMEBUFFER_COMPLETE || renderer->gl.errors != errors)
        return ds_fail(DS_ERR_GL, "render: framebuffer %dx%d with %d samples incomplete (0x%x)",
                       renderer->settings.width, renderer->settings.height, samples ? samples : 1,
                       complete);
    return DS_OK;
}

/* GL_MAX_SAMPLES of the current context. */
static int max_samples(void)
{
    GLint samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &samples);
    return samples;
}

static float default_point_size(const ds_mesh *mesh)
{
    double n = mesh->vertex_count ? (double)mesh->vertex_count : 1.0;
    double radius = mesh->radius > 0.0f ? mesh->radius : 1.0;
    return (float)(POINT_SIZE_SPACING * radius * sqrt(4.0 * M_PI / n));
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

/* A unit normal as GL_INT_2_10_10_10_REV, normalised: each component
 * c in [-1, 1] as round(511 c), two's complement in 10 bits, x lowest. */
static uint32_t pack_normal(const float n[3])
{
    uint32_t word = 0;
    for (int k = 0; k < 3; k++) {
        float c = n[k] < -1.0f ? -1.0f : n[k] > 1.0f ? 1.0f : n[k];
        int32_t q = (int32_t)lrintf(c * 511.0f);
        word |= ((uint32_t)q & 0x3FFu) << (10 * k);
    }
    return word;
}

/* The attribute buffer: per vertex the RGBA8 colour, then the packed
 * normal; 8 bytes, read by the vertex arrays and by mesh_pull.vert.glsl. */
static ds_status make_attribute_buffer(ds_renderer *renderer, const ds_mesh *mesh)
{
    size_t n = mesh->vertex_count;
    /* Without file colours a triangle mesh's colour is the normal's, made
     * in the shader: only the normal travels, half the bytes a vertex
     * fetches in the sorted draw's scattered order. Point clouds keep
     * ds_mesh_finish()'s height colours. */
    renderer->mesh.normals_only = !mesh->has_colors && mesh->triangle_count > 0;
    size_t per_vertex = renderer->mesh.normals_only ? 1 : 2;
    uint32_t *words = malloc((n ? per_vertex * n : 2) * sizeof *words);
    if (!words)
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "render: out of host memory for the attributes of %zu vertices", n);
    static const float up[3] = {0.0f, 1.0f, 0.0f};
    for (size_t v = 0; v < n; v++) {
        static const uint8_t white[4] = {255, 255, 255, 255};
        uint32_t normal = pack_normal(mesh->normals ? mesh->normals + 3 * v : up);
        if (renderer->mesh.normals_only) {
            words[v] = normal;
            continue;
        }
        memcpy(&words[2 * v], mesh->colors ? mesh->colors + 4 * v : white, sizeof(uint32_t));
        words[2 * v + 1] = normal;
    }
    if (!n)
        words[0] = words[1] = 0;
    glCreateBuffers(1, &renderer->gl.attribute_buffer);
    glNamedBufferStorage(renderer->gl.attribute_buffer,
                         (GLsizeiptr)((n ? n : 1) * per_vertex * sizeof(uint32_t)), words, 0);
    free(words);
    return DS_OK;
}


/* The settings of `desc`, checked and resolved (no GL object is made). */
static ds_status settings_from_desc(ds_renderer *renderer, const ds_renderer_desc *desc)
{
    const ds_mesh *mesh = desc->mesh;
    renderer->settings.width = desc->width;
    renderer->settings.height = desc->height;
    renderer->settings.primitive = mesh->triangle_count ? desc->primitive : DS_PRIMITIVE_POINTS;
    renderer->settings.triangle_key = desc->triangle_key;
    renderer->settings.alpha = desc->alpha > 0.0f ? desc->alpha : DEFAULT_ALPHA;
    memcpy(renderer->settings.background, desc->background, sizeof renderer->settings.background);
    renderer->settings.point_size =
        desc->point_size > 0.0f ? desc->point_size : default_point_size(mesh);
    renderer->settings.sorting = !desc->no_sort;
    renderer->settings.shuffle = desc->shuffle;
    renderer->settings.verify = desc->verify;
    renderer->settings.key_bits = desc->key_bits ? desc->key_bits : 32;
    if (renderer->settings.key_bits != 16 && renderer->settings.key_bits != 24 &&
        renderer->settings.key_bits != 32) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: key_bits must be 16, 24 or 32, not %d",
                       desc->key_bits);
    }
    renderer->gl.target_samples = -1;
    memcpy(renderer->mesh.center, mesh->center, sizeof renderer->mesh.center);
    renderer->mesh.radius = mesh->radius;
    memcpy(renderer->mesh.min, mesh->bounds_min, sizeof renderer->mesh.min);
    memcpy(renderer->mesh.max, mesh->bounds_max, sizeof renderer->mesh.max);
    renderer->settings.narrow_keys = !desc->full_width_keys;
    renderer->mesh.has_colors = mesh->has_colors;
    renderer->mesh.point_cloud = mesh->triangle_count == 0;
    float height_span = mesh->bounds_max[1] - mesh->bounds_min[1];
    renderer->mesh.height_lo = mesh->bounds_min[1];
    renderer->mesh.height_inv = height_span > 0.0f ? 1.0f / height_span : 0.0f;
    if ((unsigned)desc->color_mode >= DS_COLOR_MODE_COUNT ||
        (unsigned)desc->opacity >= DS_OPACITY_MODE_COUNT || (unsigned)desc->cull > DS_CULL_OFF) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad colour, opacity or cull mode");
    }
    ds_renderer_set_color_mode(renderer, desc->color_mode);
    ds_renderer_set_tint(renderer, desc->tint);
    renderer->settings.opacity = desc->opacity;
    renderer->settings.msaa = desc->msaa > 1 ? desc->msaa : 1;
    if (renderer->settings.msaa != 1 && renderer->settings.msaa != 2 &&
        renderer->settings.msaa != 4 && renderer->settings.msaa != 8) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: msaa must be 1, 2, 4 or 8 samples, not %d",
                       desc->msaa);
    }
    if (renderer->settings.msaa > max_samples())
        return ds_fail(DS_ERR_UNSUPPORTED, "render: msaa %d: this GL allows at most %d samples",
                       desc->msaa, max_samples());
    renderer->settings.algo = desc->sort_algo;
    renderer->mesh.vertex_count = mesh->vertex_count;
    renderer->mesh.triangle_count = mesh->triangle_count;
    if ((unsigned)desc->tiles > DS_TILES_OFF) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad tiles mode %d", (int)desc->tiles);
    }
    renderer->settings.tiles = desc->tiles != DS_TILES_OFF && mesh->vertex_count > 0;
    if (desc->tile_pixels != 0 && (desc->tile_pixels < DS_RENDERER_TILE_PIXELS_MIN ||
                                   desc->tile_pixels > DS_RENDERER_TILE_PIXELS_MAX)) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: tile_pixels must be 0 or %d to %d, not %d",
                       DS_RENDERER_TILE_PIXELS_MIN, DS_RENDERER_TILE_PIXELS_MAX,
                       desc->tile_pixels);
    }
    renderer->settings.tile_pixels = desc->tile_pixels;
    renderer->settings.technique = DS_TECHNIQUE_SORTED;
    renderer->settings.abuffer_initial_nodes = desc->abuffer_initial_nodes;
    if ((unsigned)desc->raster >= DS_RASTER_PATH_COUNT) {
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad raster path %d", (int)desc->raster);
    }
    renderer->settings.raster = desc->raster;
    renderer->settings.raster_initial_fragments = desc->raster_initial_fragments;
    renderer->settings.raster_time_passes = desc->raster_time_passes;
    renderer->settings.raster_no_subgroups = desc->raster_no_subgroups;
    float quantum = desc->raster_point_coord_quantum;
    if (!(quantum <= 0.0f) && !ds_point_coord_quantum_valid(quantum))
        return ds_fail(DS_ERR_INVALID_ARG, "render: raster_point_coord_quantum must be 0, below "
                       "0 or a power of two from 1/2 to 1/256, not %g", (double)quantum);
    renderer->settings.raster_point_coord_quantum = quantum;
    renderer->gl.compute_raster = -1;
    if ((unsigned)desc->raster_order >= DS_RASTER_ORDER_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad raster order %d", (int)desc->raster_order);
    return DS_OK;
}

/* ---- where the stages run (DS_STAGES_AUTO) ---------------------------------- */

/* Rasterisers that run on the CPU: what their GL_RENDERER contains (lower
 * case), and their name. */
static const struct {
    const char *match, *name;
} software_renderers[] = {
    {"llvmpipe", "llvmpipe"}, {"softpipe", "softpipe"},         {"swrast", "swrast"},
    {"software rasterizer", "swrast"}, {"lavapipe", "lavapipe"}, {"swiftshader", "SwiftShader"},
};

int ds_gl_renderer_is_software(const char *gl_renderer, const char **name)
{
    if (name)
        *name = NULL;
    if (!gl_renderer || !*gl_renderer)
        return 1;
    char lower[256];
    size_t n = 0;
    for (; gl_renderer[n] && n + 1 < sizeof lower; n++)
        lower[n] = (char)(gl_renderer[n] >= 'A' && gl_renderer[n] <= 'Z' ? gl_renderer[n] + 32
                                                                          : gl_renderer[n]);
    lower[n] = '\0';
    for (size_t i = 0; i < sizeof software_renderers / sizeof software_renderers[0]; i++)
        if (strstr(lower, software_renderers[i].match)) {
            if (name)
                *name = software_renderers[i].name;
            return 1;
        }
    return 0;
}

ds_stages_mode ds_renderer_choose_stages(const ds_stages_facts *facts, char *why,
                                         size_t capacity)
{
    static const char lacks[] = "this GL lacks GL 4.3 compute shaders or GL_ARB_shader_ballot";
    const char *max = "4.5M"; /* DS_RENDERER_GL_STAGES_AUTO_MAX */
    if (facts->cuda_device && !facts->interop_none) {
        if (!facts->gl_stages_supported) {
            snprintf(why, capacity, "%s", lacks);
            return DS_STAGES_SORTER;
        }
        if (facts->sorted_count > DS_RENDERER_GL_STAGES_AUTO_MAX) {
            snprintf(why, capacity, "over %s primitives, where the CUDA sorts are faster", max);
            return DS_STAGES_SORTER;
        }
        snprintf(why, capacity, "up to %s primitives on a CUDA GPU: no GL/CUDA hand-over", max);
        return DS_STAGES_GL;
    }
    const char *no_cuda = facts->interop_none ? "--interop none"
                          : !facts->cuda_built ? "no CUDA in this build"
                                               : "no CUDA device";
    const char *software = NULL;
    if (facts->interop_none) {
        snprintf(why, capacity, "%s", no_cuda); /* the CPU path, as asked */
        return DS_STAGES_SORTER;
    }
    if (ds_gl_renderer_is_software(facts->gl_renderer, &software)) {
        if (software)
            snprintf(why, capacity, "%s, and %s is a software rasteriser", no_cuda, software);
        else
            snprintf(why, capacity, "%s, and the GL names no renderer", no_cuda);
        return DS_STAGES_SORTER;
    }
    if (!facts->gl_stages_supported) {
        snprintf(why, capacity, "%s, and %s", no_cuda, lacks);
        return DS_STAGES_SORTER;
    }
    snprintf(why, capacity, "%s", no_cuda);
    return DS_STAGES_GL;
}

/* Which path: CUDA behind this GL context (*dest_device its device), or
 * the host (-1); what AUTO stages weigh; and what follows, tiles and
 * culling AUTO: on where the stages run on a GPU (CUDA, or the GL stages
 * on a GPU's GL), off on the host and on a software GL, where the host
 * keys pass's sample test costs more than the draw it saves. */
static ds_status choose_path(ds_renderer *renderer, const ds_renderer_desc *desc,
                             int *dest_device)
{
    int device = -1;
    if (desc->interop != DS_INTEROP_NONE)
        device = ds_interop_gl_cuda_device();
    *dest_device = device;
    if (device < 0) {
        if (desc->interop == DS_INTEROP_MAP || desc->interop == DS_INTEROP_EXTERNAL)
            return ds_fail(DS_ERR_UNSUPPORTED,
                           "render: interop %s needs a CUDA device behind the GL context",
                           ds_interop_mode_name(desc->interop));
        renderer->settings.cpu_path = 1;
        /* AUTO says why in its choice (ds_renderer_stages_why()). */
        if (renderer->settings.algo != DS_SORT_CPU && desc->interop != DS_INTEROP_NONE &&
            desc->stages == DS_STAGES_SORTER)
            ds_warn("render: no CUDA device drives this GL context; using the cpu sort");
        renderer->settings.algo = DS_SORT_CPU;
    }
    /* DS_TEST_GL_RENDERER stands in for GL_RENDERER, so that the choice a
     * GPU's GL gets is tested on llvmpipe. */
    const char *gl_renderer = getenv("DS_TEST_GL_RENDERER");
    if (!gl_renderer || !*gl_renderer)
        gl_renderer = (const char *)glGetString(GL_RENDERER);
    renderer->settings.stages_facts = (ds_stages_facts){
        .cuda_built = ds_sort_cuda_built(),
        .cuda_device = device >= 0,
        .interop_none = desc->interop == DS_INTEROP_NONE,
        .gl_renderer = gl_renderer,
        .gl_stages_supported = ds_render_gl_stages_supported(),
        .sorted_count = ds_renderer_sorted_count(renderer)};
    char why[sizeof renderer->settings.stages_why];
    int gpu = !renderer->settings.cpu_path ||
              (!ds_gl_renderer_is_software(renderer->settings.stages_facts.gl_renderer, NULL) &&
               (desc->stages == DS_STAGES_GL ||
                (desc->stages == DS_STAGES_AUTO &&
                 ds_renderer_choose_stages(&renderer->settings.stages_facts, why, sizeof why) ==
                     DS_STAGES_GL)));
    renderer->settings.tiles_on =
        renderer->settings.tiles && (desc->tiles == DS_TILES_ON || gpu);
    renderer->settings.cull = desc->cull == DS_CULL_ON || (desc->cull == DS_CULL_AUTO && gpu);
    return DS_OK;
}

/* The draw form and the element buffers' size, and the host copies of
 * the indices and tile arrays that the CPU path and verify use. */
static ds_status size_elements(ds_renderer *renderer, const ds_renderer_desc *desc)
{
    const ds_mesh *mesh = desc->mesh;
    ds_status status = DS_OK;
    size_t t = mesh->triangle_count, most = mesh->vertex_count > t ? mesh->vertex_count : t;
    if (renderer->settings.verify || renderer->settings.cpu_path) {
        renderer->cpu.indices = ds_render_host_alloc(3 * t, sizeof(uint32_t), &status);
        if (status)
            return status;
        if (t)
            memcpy(renderer->cpu.indices, mesh->indices, 3 * t * sizeof(uint32_t));
    }
    if ((unsigned)desc->draw_form > DS_DRAW_INDEXED)
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad draw form %d", (int)desc->draw_form);
    /* AUTO: pull from one size when the frames start binned by screen
     * tile, from a larger one when not (renderer.h). */
    renderer->settings.pull =
        t > 0 && desc->draw_form != DS_DRAW_INDEXED &&
        (desc->draw_form == DS_DRAW_PULL ||
         t >= (renderer->settings.tiles_on ? DS_RENDERER_PULL_TILED_MIN_TRIANGLES
                                           : DS_RENDERER_PULL_MIN_TRIANGLES)) &&
        pull_supported(mesh);
    /* Each element buffer: the list, then the draw commands. */
    size_t list = 3 * t > mesh->vertex_count ? 3 * t : mesh->vertex_count;
    if (renderer->settings.tiles && ds_tiles_capacity(t, renderer->settings.pull ? 1 : 3) > list)
        list = ds_tiles_capacity(t, renderer->settings.pull ? 1 : 3);
    if (renderer->settings.tiles && ds_tiles_capacity(mesh->vertex_count, 1) > list)
        list = ds_tiles_capacity(mesh->vertex_count, 1); /* points */
    renderer->mesh.command_word = list;
    renderer->mesh.element_capacity =
        list + (renderer->settings.tiles ? (DS_TILES_MAX + 1) * DS_TILES_COMMAND_WORDS
                                         : DRAW_COMMAND_WORDS);
    if (renderer->settings.tiles && (renderer->settings.verify || renderer->settings.cpu_path)) {
        renderer->cpu.tile_rects = ds_render_host_alloc(most, sizeof(uint32_t), &status);
        renderer->cpu.tile_scratch =
            ds_render_host_alloc(DS_TILES_MAX + 1, sizeof(uint32_t), &status);
    }
    return status;
}

/* desc.raster COMPUTE: where the frames can be rasterised in compute, the
 * path (and with fragment order the technique compute-exact, made later
 * by create); where not, one line and DS_ERR_UNSUPPORTED before any frame,
 * or with raster_auto the hardware path (which auto also keeps for
 * points). */
static ds_status start_raster(ds_renderer *renderer, const ds_renderer_desc *desc)
{
    if (desc->raster != DS_RASTER_COMPUTE)
        return DS_OK;
    const render_settings *s = &renderer->settings;
    const char *why = s->msaa > 1 ? "it samples each pixel once (MSAA is above 1)"
                      : !ds_render_compute_available(renderer)
                          ? "this GL lacks GL 4.3 compute shaders or GL_ARB_shader_ballot"
                          : NULL;
    if (why && !desc->raster_auto)
        return ds_fail(DS_ERR_UNSUPPORTED, "render: --raster compute: %s", why);
    /* auto takes the compute raster where its image is the A-buffer's:
     * points' coverage differs from NVIDIA's point sprites
     * (compute-raster.md, Points), so they keep the hardware draw. */
    if (!why && desc->raster_auto && s->primitive == DS_PRIMITIVE_POINTS)
        why = "points";
    if (why)
        renderer->settings.raster = DS_RASTER_HW;
    else if (desc->raster_order == DS_RASTER_FRAGMENT_ORDER)
        renderer->settings.technique = DS_TECHNIQUE_COMPUTE_EXACT;
    return DS_OK;
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
    if ((status = ds_renderer_check_fits(desc, mesh->vertex_count, mesh->triangle_count)))
        return status;
    if ((unsigned)desc->sort_algo >= DS_SORT_ALGO_COUNT ||
        (unsigned)desc->triangle_key >= DS_TRIANGLE_KEY_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad sort or triangle key");

    ds_renderer *renderer = calloc(1, sizeof *renderer);
    if (!renderer)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    if ((status = settings_from_desc(renderer, desc))) {
        free(renderer);
        return status;
    }

    /* Errors from here on are counted, so tests can fail on any. */
    glEnable(GL_DEBUG_OUTPUT);
    glDebugMessageCallback(on_gl_debug, renderer);
    renderer->gl.debug_installed = 1;

    int device = -1;
    if ((status = choose_path(renderer, desc, &device)) ||
        (status = size_elements(renderer, desc)))
        goto fail;
    size_t t = mesh->triangle_count, most = mesh->vertex_count > t ? mesh->vertex_count : t;
    if (renderer->settings.verify && (status = ds_render_verification_create(renderer, most)))
        goto fail;

    if ((status = make_attribute_buffer(renderer, mesh)))
        goto fail;
    /* The mesh's indices in GL: pulled triangles read them, and the
     * order-independent techniques draw the mesh in its own order. */
    glCreateBuffers(1, &renderer->gl.index_buffer);
    glNamedBufferStorage(renderer->gl.index_buffer,
                         (GLsizeiptr)((t ? 3 * t : 1) * sizeof(uint32_t)), t ? mesh->indices : NULL,
                         0);
    if ((status = make_framebuffer(renderer)))
        goto fail;

    /* The path's own: the host copies, or the CUDA stream, interop and
     * buffers; then the sorter (cpu on the CPU path). */
    status = renderer->settings.cpu_path
                 ? ds_render_cpu_create(renderer, mesh)
                 : ds_render_cuda_create(renderer, mesh, desc->interop, device);
    if (status || (status = ds_render_make_sorter(renderer->settings.cpu_path
                                                      ? DS_SORT_CPU
                                                      : renderer->settings.algo,
                                                  most, renderer->settings.key_bits,
                                                  &renderer->sorter)))
        goto fail;
    /* The raster path's programs and vertex arrays (raster.h). */
    if ((status = start_raster(renderer, desc)) || (status = ds_render_raster_create(renderer)))
        goto fail;
    /* A renderer started in a compute technique makes its objects now,
     * not in the first frame. */
    if (renderer->settings.technique != DS_TECHNIQUE_SORTED &&
        (status = ds_render_technique_prepare(renderer, renderer->settings.technique)))
        goto fail;
    if ((status = ds_render_timing_create(renderer)))
        goto fail;
    /* The stages: in GL when asked, or by default where a CUDA device
     * drives GL and the context can (the GPU then never switches to the
     * CUDA context in a frame); around the sorter otherwise. */
    if ((unsigned)desc->stages >= DS_STAGES_MODE_COUNT) {
        status = ds_fail(DS_ERR_INVALID_ARG, "render: bad stages mode %d", (int)desc->stages);
        goto fail;
    }
    if ((status = ds_renderer_set_stages(renderer, desc->stages)))
        goto fail;
    if (renderer->gl.errors) {
        status = ds_fail(DS_ERR_GL, "render: %u GL errors while creating the renderer",
                         renderer->gl.errors);
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
    if (!renderer->settings.cpu_path && renderer->cuda.stream)
        cudaStreamSynchronize(renderer->cuda.stream);
    ds_timeline_free(renderer->timing.timeline);
    ds_sorter_destroy(renderer->sorter);
    ds_render_verification_free(renderer);
    ds_render_techniques_free(renderer);
    ds_render_rasters_free(renderer);
    ds_render_gl_stages_free(renderer);
    ds_render_cuda_free(renderer);
    ds_render_timing_free(renderer);
    ds_render_cpu_free(renderer);
    if (renderer->gl.index_buffer)
        glDeleteBuffers(1, &renderer->gl.index_buffer);
    if (renderer->gl.attribute_buffer)
        glDeleteBuffers(1, &renderer->gl.attribute_buffer);
    free_framebuffer(renderer);
    if (renderer->gl.debug_installed)
        glDebugMessageCallback(NULL, NULL);
    free(renderer);
}

/* ---- settings and facts ----------------------------------------------------- */

ds_status ds_renderer_resize(ds_renderer *renderer, int width, int height)
{
    if (width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "render: size %dx%d", width, height);
    if (width == renderer->settings.width && height == renderer->settings.height)
        return DS_OK;
    renderer->settings.width = width;
    renderer->settings.height = height;
    ds_status status = make_framebuffer(renderer);
    if (status)
        return status;
    /* The order-independent images and the raster paths' follow the
     * viewport. */
    ds_render_techniques_free_images(renderer);
    if ((status = ds_render_rasters_resize(renderer)))
        return status;
    return ds_render_technique_prepare(renderer, renderer->settings.technique);
}

ds_status ds_renderer_set_sort(ds_renderer *renderer, ds_sort_algo algo)
{
    ds_status status;
    ds_sorter *sorter = NULL;
    if (algo == renderer->settings.algo)
        return DS_OK;
    if (renderer->settings.cpu_path)
        return ds_fail(DS_ERR_NO_DEVICE, "render: sort %s needs a CUDA device behind GL",
                       ds_sort_algo_name(algo));
    size_t most = renderer->mesh.vertex_count > renderer->mesh.triangle_count
                      ? renderer->mesh.vertex_count : renderer->mesh.triangle_count;
    /* A sort still in flight uses the old sorter's temporary storage. */
    DS_CUDA_TRY("render", cudaStreamSynchronize(renderer->cuda.stream));
    if ((status = ds_render_make_sorter(algo, most, renderer->settings.key_bits, &sorter)))
        return status;
    ds_sorter_destroy(renderer->sorter);
    renderer->sorter = sorter;
    renderer->settings.algo = algo;
    return DS_OK;
}

void ds_renderer_set_shuffle(ds_renderer *renderer, int shuffle)
{
    renderer->settings.shuffle = shuffle;
}

ds_status ds_renderer_set_stages(ds_renderer *renderer, ds_stages_mode mode)
{
    ds_status status;
    if ((unsigned)mode >= DS_STAGES_MODE_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "render: bad stages mode %d", (int)mode);
    int supported = ds_render_gl_stages_supported();
    char why[sizeof renderer->settings.stages_why] = "";
    int gl = mode == DS_STAGES_GL;
    if (mode == DS_STAGES_AUTO) {
        ds_stages_facts facts = renderer->settings.stages_facts;
        facts.gl_stages_supported = supported;
        facts.sorted_count = ds_renderer_sorted_count(renderer);
        gl = ds_renderer_choose_stages(&facts, why, sizeof why) == DS_STAGES_GL;
    }
    if (gl && !renderer->gl.stages) {
        if (!supported)
            return ds_fail(DS_ERR_UNSUPPORTED, "render: the GL stages need GL 4.3 compute "
                           "shaders and GL_ARB_shader_ballot, which this GL context lacks");
        /* AUTO takes the sorter path where the GL stages cannot be made
         * (a mesh beyond this GL's storage blocks), and says why. */
        if (mode == DS_STAGES_AUTO)
            ds_log_set_quiet(1);
        status = ds_render_gl_stages_create(renderer);
        if (mode == DS_STAGES_AUTO)
            ds_log_set_quiet(0);
        if (status && mode != DS_STAGES_AUTO)
            return status;
        if (status) {
            snprintf(why, sizeof why, "the GL stages cannot run here: %.120s", ds_last_error());
            gl = 0;
        }
    }
    renderer->settings.stages = mode;
    renderer->settings.stages_gl = gl;
    snprintf(renderer->settings.stages_why, sizeof renderer->settings.stages_why, "%s", why);
    return DS_OK;
}

const char *ds_renderer_stages_why(const ds_renderer *renderer)
{
    return renderer->settings.stages_why;
}

ds_stages_mode ds_renderer_stages(const ds_renderer *renderer)
{
    return renderer->settings.stages_gl ? DS_STAGES_GL : DS_STAGES_SORTER;
}

ds_status ds_renderer_set_primitive(ds_renderer *renderer, ds_primitive primitive)
{
    if (primitive == DS_PRIMITIVE_TRIANGLES && renderer->mesh.triangle_count == 0)
        return ds_fail(DS_ERR_INVALID_ARG, "render: a point cloud has no triangles");
    renderer->settings.primitive = primitive;
    return DS_OK;
}

void ds_renderer_set_triangle_key(ds_renderer *renderer, ds_triangle_key key)
{
    if ((unsigned)key < DS_TRIANGLE_KEY_COUNT)
        renderer->settings.triangle_key = key;
}

void ds_renderer_set_alpha(ds_renderer *renderer, float alpha)
{
    if (alpha > 0.0f && alpha <= 1.0f)
        renderer->settings.alpha = alpha;
}

void ds_renderer_set_sorting(ds_renderer *renderer, int sorting)
{
    renderer->settings.sorting = sorting != 0;
}

ds_status ds_renderer_set_technique(ds_renderer *renderer, ds_technique technique)
{
    if ((unsigned)technique >= DS_TECHNIQUE_COUNT) {
        char names[256] = "";
        for (int t = 0; t < DS_TECHNIQUE_COUNT; t++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                     ds_technique_name((ds_technique)t));
        return ds_fail(DS_ERR_INVALID_ARG, "render: technique %d is not one of %s",
                       (int)technique, names);
    }
    /* Sorted and unsorted are one technique, the sort on or off. */
    if (technique == DS_TECHNIQUE_SORTED || technique == DS_TECHNIQUE_UNSORTED) {
        renderer->settings.sorting = technique == DS_TECHNIQUE_SORTED;
        renderer->settings.technique = DS_TECHNIQUE_SORTED;
        return DS_OK;
    }
    ds_status status = ds_render_technique_prepare(renderer, technique);
    if (status == DS_OK)
        renderer->settings.technique = technique;
    return status;
}

ds_technique ds_renderer_technique(const ds_renderer *renderer)
{
    if (renderer->settings.technique == DS_TECHNIQUE_SORTED && !renderer->settings.sorting)
        return DS_TECHNIQUE_UNSORTED;
    return renderer->settings.technique;
}

ds_raster_path ds_renderer_raster(const ds_renderer *renderer) { return renderer->settings.raster; }

unsigned ds_renderer_color_texture(ds_renderer *renderer)
{
    /* A compute frame that overflowed its buffers is drawn again first
     * (a failure is logged; the texture holds what was drawn). */
    ds_render_compute_settle(renderer);
    if (!renderer->gl.last_output)
        return 0;
    /* The texture's own framebuffer: the own one single-sampled, else
     * its resolve copy. A frame that went elsewhere (or into the
     * multisampled own one) is copied (resolved) into it here. */
    GLuint texture_framebuffer =
        renderer->settings.msaa > 1 ? renderer->gl.resolve_framebuffer : renderer->gl.framebuffer;
    if (renderer->gl.last_output != texture_framebuffer) {
        GLuint source = renderer->gl.last_output == DS_RENDERER_OWN_FRAMEBUFFER
                            ? 0 : renderer->gl.last_output;
        int w = renderer->settings.width, h = renderer->settings.height;
        glBlitNamedFramebuffer(source, texture_framebuffer, 0, 0, w, h, 0, 0, w, h,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }
    return renderer->settings.msaa > 1 ? renderer->gl.resolve_texture : renderer->gl.color_texture;
}

void ds_renderer_set_tiles(ds_renderer *renderer, int tiles)
{
    renderer->settings.tiles_on = renderer->settings.tiles && tiles;
}

int ds_renderer_tiles(const ds_renderer *renderer) { return renderer->settings.tiles_on; }

void ds_renderer_set_background(ds_renderer *renderer, const float rgba[4])
{
    memcpy(renderer->settings.background, rgba, sizeof renderer->settings.background);
}

void ds_renderer_set_point_size(ds_renderer *renderer, float world_size)
{
    if (world_size > 0.0f)
        renderer->settings.point_size = world_size;
}

float ds_renderer_point_size(const ds_renderer *renderer) { return renderer->settings.point_size; }

/* AUTO: the file's colours where it has them; else what ds_mesh_finish()
 * would have made, the normal for triangles and the height for points. */
void ds_renderer_set_color_mode(ds_renderer *renderer, ds_color_mode mode)
{
    if ((unsigned)mode >= DS_COLOR_MODE_COUNT)
        return;
    if (mode == DS_COLOR_AUTO)
        mode = renderer->mesh.has_colors ? DS_COLOR_FILE
               : renderer->mesh.point_cloud ? DS_COLOR_HEIGHT : DS_COLOR_NORMAL;
    renderer->settings.color_mode = mode;
}

ds_color_mode ds_renderer_color_mode(const ds_renderer *renderer)
{
    return renderer->settings.color_mode;
}

void ds_renderer_set_tint(ds_renderer *renderer, const float rgb[3])
{
    int zero = !rgb || (rgb[0] == 0.0f && rgb[1] == 0.0f && rgb[2] == 0.0f);
    for (int k = 0; k < 3; k++) {
        float c = zero ? DEFAULT_TINT[k] : rgb[k];
        renderer->settings.tint[k] = c < 0.0f ? 0.0f : c > 1.0f ? 1.0f : c;
    }
}

void ds_renderer_set_opacity_mode(ds_renderer *renderer, ds_opacity_mode mode)
{
    if ((unsigned)mode < DS_OPACITY_MODE_COUNT)
        renderer->settings.opacity = mode;
}

ds_opacity_mode ds_renderer_opacity_mode(const ds_renderer *renderer)
{
    return renderer->settings.opacity;
}

ds_status ds_renderer_set_msaa(ds_renderer *renderer, int samples)
{
    if (samples == 0)
        samples = 1;
    if (samples != 1 && samples != 2 && samples != 4 && samples != 8)
        return ds_fail(DS_ERR_INVALID_ARG, "render: msaa must be 1, 2, 4 or 8 samples, not %d",
                       samples);
    if (samples > max_samples())
        return ds_fail(DS_ERR_UNSUPPORTED, "render: msaa %d: this GL allows at most %d samples",
                       samples, max_samples());
    if (samples == renderer->settings.msaa)
        return DS_OK;
    /* The previous frame may still draw into the old framebuffer. */
    glFinish();
    int previous = renderer->settings.msaa;
    renderer->settings.msaa = samples;
    ds_status status = make_framebuffer(renderer);
    if (status) {
        renderer->settings.msaa = previous;
        if (make_framebuffer(renderer) == DS_OK)
            return status;
    }
    return status;
}

int ds_renderer_msaa(const ds_renderer *renderer) { return renderer->settings.msaa; }

int ds_renderer_culling(const ds_renderer *renderer)
{
    /* The compute raster tests coverage itself (frame.c). */
    int compute = renderer->settings.technique == DS_TECHNIQUE_COMPUTE ||
                  (renderer->settings.raster == DS_RASTER_COMPUTE && renderer->gl.compute_raster == 1);
    return renderer->settings.cull && renderer->settings.sorting && !compute &&
           ds_render_technique_backend(renderer->settings.technique)->sorts &&
           renderer->settings.primitive == DS_PRIMITIVE_TRIANGLES &&
           renderer->settings.msaa <= 1 && renderer->gl.target_samples <= 1;
}

/* "3.1G triangles", "437,645 vertices": counts as a person reads them. */
static void format_count(size_t count, const char *unit, char *dest, size_t size)
{
    if (count >= 1000000000)
        snprintf(dest, size, "%.2fG %s", (double)count / 1e9, unit);
    else if (count >= 1000000)
        snprintf(dest, size, "%.1fM %s", (double)count / 1e6, unit);
    else
        snprintf(dest, size, "%zu %s", count, unit);
}

uint64_t ds_renderer_buffer_bytes(const ds_renderer_desc *desc, size_t vertex_count,
                                  size_t triangle_count)
{
    /* What create_cuda() and the GL buffers on the same device hold. */
    size_t v = vertex_count, t = triangle_count, most = v > t ? v : t;
    int tiles = desc->tiles != DS_TILES_OFF;
    size_t list = 3 * t > v ? 3 * t : v;
    if (tiles && ds_tiles_capacity(t, 3) > list)
        list = ds_tiles_capacity(t, 3);
    if (tiles && ds_tiles_capacity(v, 1) > list)
        list = ds_tiles_capacity(v, 1);
    size_t elements = list + (size_t)(DS_TILES_MAX + 1) * DS_TILES_COMMAND_WORDS;
    uint64_t need = 12ull * v                            /* positions */
                    + 8ull * v                           /* colours and normals */
                    + 4ull * DS_INTEROP_SLOTS * elements /* element buffers */
                    + 8ull * most + 8ull * (most + 1)    /* keys, values; shuffle */
                    + 12ull * t                          /* indices (CUDA) */
                    + 12ull * t;                         /* indices (GL, pulled) */
    if (tiles)
        need += 8ull * most + ds_tiles_scratch_bytes(); /* sorted positions' and
                                                           primitives' tiles */
    if (desc->stages != DS_STAGES_SORTER)
        need += 24ull * most; /* GL stages: keys, values, two tile lists, the
                                 GL sort's two scratch buffers */
    if (desc->verify)
        need += 4ull * most + 4ull * elements;
    ds_sort_algo algo = (unsigned)desc->sort_algo < DS_SORT_ALGO_COUNT ? desc->sort_algo
                                                                       : DS_SORT_CUB;
    /* The sorter's own (its backend's contract), sized for either
     * primitive. */
    need += (uint64_t)ds_sort_algo_bytes_per_pair(algo) * most;
    return need;
}

/* Mesa's llvmpipe, the CPU path's usual GL, measured with peak RSS on
 * meshes of 2.5M to 20M triangles: about 128 MiB of its own before any
 * buffer; an indexed draw of a large mesh holds about 72 bytes per index
 * while it runs (binned in 16x16 framebuffers) up to about 2.25 GiB (it
 * gets there sooner when large triangles cover a large framebuffer); its
 * storage blocks hold at most 128 MiB, so larger meshes cannot be pulled
 * and draw indexed. */
#define MESA_BASE_BYTES (128ull << 20)
#define MESA_INDEXED_BYTES_PER_INDEX 72ull
#define MESA_INDEXED_MAX_BYTES (2304ull << 20)
#define MESA_STORAGE_BLOCK_BYTES (128ull << 20)

uint64_t ds_renderer_host_bytes(const ds_renderer_desc *desc, size_t vertex_count,
                                size_t triangle_count)
{
    /* What ds_renderer_create() and ds_render_cpu_create() hold on the
     * CPU path, each GL buffer twice (ours and the driver's copy). */
    uint64_t v = vertex_count, t = triangle_count, most = v > t ? v : t;
    int tiles_on = desc->tiles == DS_TILES_ON;
    uint64_t list = 3 * t > v ? 3 * t : v;
    if (tiles_on && ds_tiles_capacity((size_t)t, 3) > list)
        list = ds_tiles_capacity((size_t)t, 3);
    if (tiles_on && ds_tiles_capacity((size_t)v, 1) > list)
        list = ds_tiles_capacity((size_t)v, 1);
    uint64_t elements = list + (uint64_t)(DS_TILES_MAX + 1) * DS_TILES_COMMAND_WORDS;
    uint64_t need = MESA_BASE_BYTES
                    + 2 * 12ull * v            /* positions: host and GL */
                    + 4ull * v + 16ull * v     /* distances; attributes (GL, built on the host) */
                    + 2 * 12ull * t            /* indices: host and GL */
                    + 2 * 4ull * elements      /* the element buffer: host and GL */
                    + 8ull * most              /* keys, values */
                    + 12ull * most;            /* the cpu sort's scratch (sort_cpu.c) */
    if (desc->tiles != DS_TILES_OFF)
        need += 4ull * most; /* tile rectangles, made whenever tiles may be asked for */
    if (desc->verify)
        need += 4ull * most + 4ull * elements;
    /* The draw: pulled (renderer.h) when the form allows, the mesh is
     * large enough and its indices fit one storage block; else indexed. */
    uint64_t block_bytes = MESA_STORAGE_BLOCK_BYTES; /* asked without GL: llvmpipe's */
    int pull = t && desc->draw_form != DS_DRAW_INDEXED &&
               (desc->draw_form == DS_DRAW_PULL ||
                t >= (tiles_on ? DS_RENDERER_PULL_TILED_MIN_TRIANGLES
                               : DS_RENDERER_PULL_MIN_TRIANGLES)) &&
               12 * t <= block_bytes && 12 * v <= block_bytes;
    if (t && !pull) {
        uint64_t indexed = MESA_INDEXED_BYTES_PER_INDEX * 3 * t;
        need += indexed < MESA_INDEXED_MAX_BYTES ? indexed : MESA_INDEXED_MAX_BYTES;
    }
    return need;
}

ds_status ds_renderer_check_fits(const ds_renderer_desc *desc, size_t vertex_count,
                                 size_t triangle_count)
{
    char what[64];
    if (!desc)
        return ds_fail(DS_ERR_INVALID_ARG, "render: desc is NULL");
    if (triangle_count)
        format_count(triangle_count, "triangles", what, sizeof what);
    else
        format_count(vertex_count, "points", what, sizeof what);
    /* Indices are uint32, and a plain draw counts its indices (3 per
     * triangle) or points in a GLsizei. */
    if (vertex_count > DS_RENDERER_MAX_VERTICES)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "render: %zu vertices exceed the 32-bit index format's %u", vertex_count,
                       (unsigned)DS_RENDERER_MAX_VERTICES);
    if (triangle_count > DS_RENDERER_MAX_TRIANGLES)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "render: %s exceed the 32-bit draw count's %u triangles", what,
                       (unsigned)DS_RENDERER_MAX_TRIANGLES);
    uint64_t need = ds_renderer_buffer_bytes(desc, vertex_count, triangle_count);
    int device =
        desc->interop == DS_INTEROP_NONE || !glad_glGetString ? -1 : ds_interop_gl_cuda_device();
    if (device < 0) {
        /* The CPU path (or no GL yet to ask): Mesa keeps the GL buffers in
         * host memory, and the host stages hold arrays of the same sizes
         * (ds_renderer_host_bytes). */
        need = ds_renderer_host_bytes(desc, vertex_count, triangle_count);
        uint64_t available = ds_host_memory_available();
        if (available && need > available) {
            char need_text[32], available_text[32];
            ds_format_bytes(need, need_text, sizeof need_text);
            ds_format_bytes(available, available_text, sizeof available_text);
            return ds_fail(DS_ERR_TOO_LARGE,
                           "render: %s need about %s of host memory for the renderer's buffers; "
                           "%s is available",
                           what, need_text, available_text);
        }
        return DS_OK;
    }
    ds_sort_algo algo = (unsigned)desc->sort_algo < DS_SORT_ALGO_COUNT ? desc->sort_algo
                                                                       : DS_SORT_CUB;

    size_t free_bytes = 0, total_bytes = 0;
    struct cudaDeviceProp prop;
    if (cudaSetDevice(device) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return DS_OK; /* create() reports what fails */
    }
    if (need > free_bytes) {
        const double gib = 1024.0 * 1024.0 * 1024.0;
        return ds_fail(DS_ERR_TOO_LARGE,
                       "render: %s need %.1f GiB of GPU memory with the %s sort; the %s has "
                       "%.1f GiB free",
                       what, (double)need / gib, ds_sort_algo_name(algo), prop.name,
                       (double)free_bytes / gib);
    }
    return DS_OK;
}

const char *ds_renderer_gpu_name(const ds_renderer *renderer) { return renderer->gpu_name; }

ds_interop_mode ds_renderer_interop(const ds_renderer *renderer)
{
    return renderer->settings.cpu_path ? DS_INTEROP_NONE
                                       : ds_interop_mode_in_use(renderer->cuda.interop);
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

ds_sort_algo ds_renderer_sort(const ds_renderer *renderer) { return renderer->settings.algo; }
ds_primitive ds_renderer_primitive(const ds_renderer *renderer)
{
    return renderer->settings.primitive;
}

ds_draw_form ds_renderer_draw_form(const ds_renderer *renderer)
{
    return renderer->settings.pull ? DS_DRAW_PULL : DS_DRAW_INDEXED;
}

size_t ds_renderer_sorted_count(const ds_renderer *renderer)
{
    return renderer->settings.primitive == DS_PRIMITIVE_POINTS ? renderer->mesh.vertex_count
                                                      : renderer->mesh.triangle_count;
}

unsigned ds_renderer_gl_errors(const ds_renderer *renderer) { return renderer->gl.errors; }

/* ---- read-back and verification --------------------------------------------- */

ds_status ds_renderer_read_pixels(ds_renderer *renderer, uint8_t *dest)
{
    ds_status settled = ds_render_compute_settle(renderer);
    if (settled)
        return settled;
    int w = renderer->settings.width, h = renderer->settings.height;
    size_t row = (size_t)w * 4;
    unsigned errors = renderer->gl.errors;
    GLuint source = renderer->gl.framebuffer;
    if (renderer->settings.msaa > 1) {
        /* Samples cannot be read; resolve them (the box filter GL blits). */
        glBlitNamedFramebuffer(renderer->gl.framebuffer, renderer->gl.resolve_framebuffer, 0, 0, w,
                               h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        source = renderer->gl.resolve_framebuffer;
    }
    glFinish();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, source);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, dest);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    if (renderer->gl.errors != errors)
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

