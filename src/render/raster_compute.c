/* SPDX-License-Identifier: MIT */
/* raster_compute.c — the compute raster path (raster.h, "compute" in
 * raster_registry.h) and the renderer's side of the compute raster
 * (compute_raster.h; docs/algorithms/compute-raster.md): a sorted frame's
 * triangles rasterised by compute shaders on every multiprocessor, their
 * fragments composited in the sorted triangles' order (the sorted draw's
 * image). technique_compute_exact.c draws with the same raster in
 * fragment order. Points are splats of the same raster. Frames the raster
 * cannot take (more than one sample a pixel, the sort off, a context
 * without compute shaders) keep the hardware draw: this path then hands
 * them to raster_hw.c. */
#include "raster_compute.h"

#include <stdlib.h>
#include <string.h>

#include "compute_raster.h"
#include "raster.h"

/* The path's state: the compute raster, the hardware path's state for
 * the frames it cannot take, and a framebuffer that reads the raster's
 * own image for a blit into a framebuffer not the renderer's own. */
typedef struct compute_state {
    ds_compute_raster *raster;
    void *hw;
    GLuint read_framebuffer;
    GLuint target;          /* the last frame's output framebuffer (0: the
                               window's) */
    int blit;               /* it is not the own one: the image is blitted */
    /* compute-exact with a CUDA sort: the fragments' GL buffers lent to
     * CUDA, and a sorter for the raster's capacity */
    struct ds_interop_buffers *lent;
    unsigned lent_generation;  /* the raster's grow count when lent */
    ds_sorter *sorter;
    ds_sort_algo sorter_algo;
    size_t sorter_capacity;
} compute_state;

int ds_render_compute_available(ds_renderer *renderer)
{
    if (renderer->gl.compute_raster < 0)
        renderer->gl.compute_raster = ds_compute_raster_supported();
    return renderer->gl.compute_raster;
}

static ds_status compute_create(ds_renderer *renderer, void *state)
{
    compute_state *s = state;
    ds_status status;
    /* The hardware path, for the frames this one cannot take. */
    if (!(s->hw = calloc(1, ds_raster_hw.state_size ? ds_raster_hw.state_size : 1)))
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    if ((status = ds_raster_hw.create(renderer, s->hw)))
        return status;
    if (!ds_render_compute_available(renderer))
        return DS_OK;
    ds_compute_raster_desc desc = {0};
    desc.width = renderer->settings.width;
    desc.height = renderer->settings.height;
    desc.triangle_count = renderer->mesh.triangle_count;
    desc.point_count = renderer->mesh.vertex_count;
    desc.initial_fragments = renderer->settings.raster_initial_fragments;
    desc.time_passes = renderer->settings.raster_time_passes;
    desc.verify = renderer->settings.verify;
    desc.no_subgroups = renderer->settings.raster_no_subgroups;
    desc.point_coord_quantum = renderer->settings.raster_point_coord_quantum;
    if ((status = ds_compute_raster_create(&desc, &s->raster)))
        return status;
    glCreateFramebuffers(1, &s->read_framebuffer);
    return DS_OK;
}

static ds_status compute_resize(ds_renderer *renderer, void *state)
{
    compute_state *s = state;
    return s->raster ? ds_compute_raster_resize(s->raster, renderer->settings.width, renderer->settings.height)
                     : DS_OK;
}

static void compute_free(ds_renderer *renderer, void *state)
{
    compute_state *s = state;
    if (s->hw) {
        ds_raster_hw.free(renderer, s->hw);
        free(s->hw);
    }
    ds_interop_buffers_unregister(s->lent);
    ds_sorter_destroy(s->sorter);
    ds_compute_raster_destroy(s->raster);
    if (s->read_framebuffer)
        glDeleteFramebuffers(1, &s->read_framebuffer);
    memset(s, 0, sizeof *s);
}

/* The path's state, made if missing (the compute techniques use it with
 * any raster path of sorted frames). */
static ds_status state_of(ds_renderer *renderer, compute_state **dest)
{
    void **state = &renderer->raster_state[DS_RASTER_COMPUTE];
    *dest = NULL;
    if (!*state) {
        if (!(*state = calloc(1, sizeof(compute_state))))
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
        ds_status status = compute_create(renderer, *state);
        if (status) {
            compute_free(renderer, *state);
            free(*state);
            *state = NULL;
            return status;
        }
    }
    *dest = *state;
    return DS_OK;
}

ds_status ds_render_compute_prepare(ds_renderer *renderer)
{
    compute_state *s;
    ds_status status = state_of(renderer, &s);
    return status ? status : compute_resize(renderer, s);
}

int ds_render_compute_takes(ds_renderer *renderer, int single_sampled)
{
    return single_sampled && ds_render_compute_available(renderer);
}

/* compute-exact's fragments sorted by the renderer's CUDA sort
 * (ds_compute_raster_sort_fn): the four GL buffers lent to CUDA for the
 * sort. Mapping them orders the sort after GL's emit pass; unmapping
 * orders GL's by-pixel pass after the sort. The lending and the sorter
 * are made again only when the raster's buffers or the sort change (a
 * grow, ds_renderer_set_sort), not per frame. */
static ds_status cuda_sort(void *user, GLuint keys, GLuint values, GLuint keys_out,
                           GLuint values_out, size_t n)
{
    ds_renderer *renderer = user;
    compute_state *s = renderer->raster_state[DS_RASTER_COMPUTE];
    ds_status status;
    const uint32_t names[4] = {keys, values, keys_out, values_out};
    ds_compute_raster_info info;
    ds_compute_raster_describe(s->raster, &info);
    /* A grow makes new buffers, which GL may give the old names. */
    if (!ds_interop_buffers_are(s->lent, names, 4) || s->lent_generation != info.grow_count) {
        ds_interop_buffers_unregister(s->lent);
        s->lent = NULL;
        if ((status = ds_interop_buffers_register(names, 4, &s->lent)))
            return status;
        s->lent_generation = info.grow_count;
    }
    if (!s->sorter || s->sorter_algo != renderer->settings.algo || s->sorter_capacity < info.capacity) {
        ds_sorter_destroy(s->sorter);
        s->sorter = NULL;
        ds_sorter_desc desc = {0};
        desc.algo = renderer->settings.algo;
        desc.max_count = info.capacity;
        desc.keys_nonnegative = 1; /* positive floats (compute_raster.h) */
        if ((status = ds_sorter_create(&desc, &s->sorter)))
            return status;
        s->sorter_algo = renderer->settings.algo;
        s->sorter_capacity = info.capacity;
    }
    void *pointers[4];
    cudaStream_t stream = renderer->cuda.stream;
    if ((status = ds_interop_buffers_map(s->lent, (ds_stream)stream, pointers)))
        return status;
    int in_alt = 0;
    status = ds_sorter_sort_pingpong(s->sorter, pointers[0], pointers[1], pointers[2],
                                     pointers[3], n, DS_SORT_DESCENDING, (ds_stream)stream,
                                     &in_alt);
    /* The raster reads the sorted values from values_out. */
    if (status == DS_OK && !in_alt) {
        cudaError_t error = cudaMemcpyAsync(pointers[3], pointers[1], n * sizeof(uint32_t),
                                            cudaMemcpyDeviceToDevice, stream);
        if (error != cudaSuccess)
            status = ds_fail(DS_ERR_CUDA, "render: copying the sorted fragments: %s",
                             cudaGetErrorString(error));
    }
    ds_status unmapped = ds_interop_buffers_unmap(s->lent, (ds_stream)stream);
    return status ? status : unmapped;
}

/* The raster's own image into the last frame's output framebuffer. */
static void blit_image(ds_renderer *renderer, compute_state *s)
{
    GLuint image = ds_compute_raster_image(s->raster);
    glNamedFramebufferTexture(s->read_framebuffer, GL_COLOR_ATTACHMENT0, image, 0);
    int w = renderer->settings.width, h = renderer->settings.height;
    glBlitNamedFramebuffer(s->read_framebuffer, s->target, 0, 0, w, h, 0, 0, w, h,
                           GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

ds_status ds_render_compute_draw(ds_renderer *renderer, const frame_plan *plan,
                                 ds_raster_order order, GLuint output)
{
    compute_state *s;
    ds_status status;
    if ((status = ds_render_compute_prepare(renderer)))
        return status;
    if ((status = state_of(renderer, &s)))
        return status;
    ds_compute_raster_frame frame;
    memset(&frame, 0, sizeof frame);
    frame.indices = renderer->gl.index_buffer;
    frame.positions = ds_render_position_buffer(renderer);
    frame.attributes = renderer->gl.attribute_buffer;
    frame.points = plan->points;
    frame.triangle_count =
        plan->points ? renderer->mesh.vertex_count : renderer->mesh.triangle_count;
    frame.point_scale = plan->point_scale;
    frame.order = order;
    if (order == DS_RASTER_TRIANGLE_ORDER) {
        frame.sorted_triangles = ds_render_frame_elements(renderer, plan);
    } else if (!renderer->settings.cpu_path && !plan->gl) {
        /* The frame's sort: the GL radix sort where the stages would run
         * in GL (and on the CPU path), else the selected CUDA sort. */
        frame.sort = cuda_sort;
        frame.sort_user = renderer;
    }
    memcpy(frame.box[0], renderer->mesh.min, sizeof frame.box[0]);
    memcpy(frame.box[1], renderer->mesh.max, sizeof frame.box[1]);
    frame.near_plane = plan->near_plane;
    frame.narrow_keys = renderer->settings.narrow_keys;
    ds_compute_raster_shading *shading = &frame.shading;
    memcpy(shading->view_projection, plan->view_projection, sizeof shading->view_projection);
    shading->alpha = renderer->settings.alpha;
    memcpy(shading->eye, plan->eye, sizeof shading->eye);
    shading->color_mode = (int)renderer->settings.color_mode;
    memcpy(shading->tint, renderer->settings.tint, sizeof shading->tint);
    shading->height_range[0] = renderer->mesh.height_lo;
    shading->height_range[1] = renderer->mesh.height_inv;
    shading->view_opacity = renderer->settings.opacity == DS_OPACITY_VIEW;
    shading->normals_only = renderer->mesh.normals_only;
    memcpy(frame.background, renderer->settings.background, sizeof frame.background);
    /* The own single-sampled framebuffer's texture is written directly;
     * any other framebuffer gets the raster's image by a blit. */
    int own = output == renderer->gl.framebuffer;
    frame.image = own ? renderer->gl.color_texture : 0;
    s->target = output;
    s->blit = !own;
    if ((status = ds_compute_raster_draw(s->raster, &frame)))
        return status;
    if (!own)
        blit_image(renderer, s);
    renderer->verification.last_exact = order != DS_RASTER_FRAGMENT_ORDER ? 0 : frame.sort ? 1 : 2;
    return DS_OK;
}

ds_status ds_render_compute_settle(ds_renderer *renderer)
{
    compute_state *s = renderer->raster_state[DS_RASTER_COMPUTE];
    if (!s || !s->raster)
        return DS_OK;
    int redrawn = 0;
    ds_status status = ds_compute_raster_settle(s->raster, &redrawn);
    if (status == DS_OK && redrawn && s->blit)
        blit_image(renderer, s);
    return status;
}

ds_status ds_render_compute_verify(ds_renderer *renderer)
{
    compute_state *s = renderer->raster_state[DS_RASTER_COMPUTE];
    /* The GL radix sort is stable: equal depths must keep the emit's
     * order (the higher triangle first); the CUDA sorts promise no
     * stability, so only their order is checked. */
    return ds_compute_raster_verify(s ? s->raster : NULL, renderer->verification.last_exact == 2);
}

ds_status ds_renderer_raster_info(ds_renderer *renderer, ds_raster_stats *dest)
{
    compute_state *s = renderer->raster_state[DS_RASTER_COMPUTE];
    if (!dest || !s || !s->raster)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "render: no compute raster: nothing was drawn by it");
    ds_status status = ds_render_compute_settle(renderer);
    if (status)
        return status;
    ds_compute_raster_info info;
    ds_compute_raster_describe(s->raster, &info);
    memset(dest, 0, sizeof *dest);
    dest->fragments = info.fragments;
    dest->capacity = info.capacity;
    dest->bytes = info.bytes;
    dest->grow_count = info.grow_count;
    dest->dispatches = info.dispatches;
    dest->steps = info.steps;
    dest->point_coord_quantum = info.point_coord_quantum;
    dest->point_coord_residual = info.point_coord_residual;
    dest->point_coord_probed = info.point_coord_probed;
    dest->point_coord_explained = info.point_coord_explained;
    dest->key_bits = info.key_bits;
    dest->sorted_frames = info.sorted_frames;
    dest->narrowed_frames = info.narrowed_frames;
    ds_compute_raster_pass_times(s->raster, dest->pass_ms);
    return DS_OK;
}

/* The path's draw of a sorted frame: in compute when frame.c planned it
 * so (plan->compute), else by the hardware path. */
static ds_status compute_draw(ds_renderer *renderer, void *state, const frame_plan *plan,
                              frame_record *record)
{
    compute_state *s = state;
    if (!plan->compute)
        return ds_raster_hw.draw(renderer, s->hw, plan, record);
    if (renderer->timing.timeline)
        ds_timeline_gl_now(renderer->timing.timeline, "draw_begin");
    glBeginQuery(GL_TIME_ELAPSED, record->draw_query);
    GLuint output = plan->resolve ? plan->resolve_target : plan->target;
    ds_status status = ds_render_compute_draw(renderer, plan, DS_RASTER_TRIANGLE_ORDER, output);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(record->end_query, GL_TIMESTAMP);
    if (renderer->timing.timeline)
        ds_timeline_gl_now(renderer->timing.timeline, "draw_end");
    return status;
}

const ds_raster_backend ds_raster_compute = {
    .state_size = sizeof(compute_state),
    .create = compute_create,
    .resize = compute_resize,
    .draw = compute_draw,
    .free = compute_free,
};

int ds_renderer_compute_raster(ds_renderer *renderer)
{
    ds_technique technique = renderer->settings.technique;
    int compute = technique == DS_TECHNIQUE_COMPUTE || technique == DS_TECHNIQUE_COMPUTE_EXACT ||
                  (technique == DS_TECHNIQUE_SORTED && renderer->settings.sorting &&
                   renderer->settings.raster == DS_RASTER_COMPUTE);
    return compute && renderer->settings.msaa <= 1 && ds_render_compute_takes(renderer, 1);
}
