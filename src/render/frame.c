/* SPDX-License-Identifier: MIT */
/* frame.c — one frame, as renderer.h describes it: the plan (every mode
 * decision of the frame, made here once), then the technique's frame
 * (technique.h): for the sorted draw (technique_sorted.c) the stages and
 * the raster path's draw. */
#include "raster_compute.h"
#include "renderer_internal.h"
#include "technique.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "cuda_check.h"

/* Culling assumes one sample per pixel at its centre: true of the own
 * framebuffer without MSAA; asked of GL for any other (once per target). */
static int single_sampled(ds_renderer *renderer, GLuint target)
{
    if (target == renderer->gl.framebuffer)
        return renderer->settings.msaa <= 1;
    if (renderer->gl.target_samples < 0 || renderer->gl.sampled_target != target) {
        GLint samples = 0;
        glGetNamedFramebufferParameteriv(target, GL_SAMPLES, &samples);
        renderer->gl.sampled_target = target;
        renderer->gl.target_samples = samples;
    }
    return renderer->gl.target_samples <= 1;
}

/* 16-bit keys: quantise over the depth range the bounding sphere spans
 * from the eye (the range where every key lies). */
static ds_key_range key_range(const ds_renderer *renderer, const float eye[3])
{
    ds_key_range range = {0.0f, 0.0f};
    if (renderer->settings.key_bits != 16)
        return range;
    float d = ds_point_distance(renderer->mesh.center, eye[0], eye[1], eye[2]);
    float r = renderer->mesh.radius > 0.0f ? renderer->mesh.radius * 1.001f : 1.0f;
    range.lo = d > r ? d - r : 0.0f;
    range.scale = 1.0f / (d + r - range.lo);
    return range;
}

int ds_render_value_shift(const ds_renderer *renderer, const frame_plan *plan)
{
    if (!plan->tiled || (!plan->gl && renderer->settings.cpu_path))
        return 0;
    return ds_tiles_code_shift(plan->count, plan->grid.columns * plan->grid.rows);
}

/* The narrowing of the frame's keys (distance_math.h). Every key is the
 * distance from the eye to a point of the model's box (a vertex, or a
 * mean or centroid of vertices), so it lies between the box's nearest
 * point and its farthest corner; the bounds are widened by a relative
 * KEY_BOUND_SLACK, far more than the few float roundings of a key. Only
 * full keys on a GPU path: the CPU path sorts as it always has. */
#define KEY_BOUND_SLACK 1e-5
ds_key_narrow ds_render_key_narrow(const ds_renderer *renderer, const frame_plan *plan)
{
    ds_key_narrow none = {0u, 0u};
    if (!renderer->settings.narrow_keys || renderer->settings.key_bits != 32 || !plan->sorting ||
        (renderer->settings.cpu_path && !plan->gl))
        return none;
    double near2 = 0.0, far2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = plan->eye[k], lo = renderer->mesh.min[k], hi = renderer->mesh.max[k];
        double gap = e < lo ? lo - e : e > hi ? e - hi : 0.0;
        double reach = fmax(fabs(e - lo), fabs(e - hi));
        near2 += gap * gap;
        far2 += reach * reach;
    }
    double lo = sqrt(near2) * (1.0 - KEY_BOUND_SLACK);
    double hi = sqrt(far2) * (1.0 + KEY_BOUND_SLACK);
    if (!(lo >= FLT_MIN && hi <= FLT_MAX))
        return none;
    return ds_key_narrow_for((float)lo, (float)hi);
}

void ds_render_plan(ds_renderer *renderer, const ds_camera *camera, uint32_t framebuffer,
                    frame_plan *dest)
{
    frame_plan plan;
    float projection[16];
    memset(&plan, 0, sizeof plan);
    plan.frame = renderer->timing.frame_count;
    /* The CUDA path alternates between two element buffers, so that CUDA
     * can write this frame's while GL may still draw the previous one. */
    plan.slot =
        renderer->settings.cpu_path ? 0 : (int)(renderer->timing.frame_count % DS_INTEROP_SLOTS);
    ds_camera_eye(camera, plan.eye);
    ds_camera_view_projection(camera, plan.view_projection);
    ds_camera_projection(camera, projection);
    plan.near_plane = camera->near_plane;
    plan.target = framebuffer == DS_RENDERER_OWN_FRAMEBUFFER ? renderer->gl.framebuffer
                                                             : framebuffer;
    if (renderer->settings.msaa > 1 && plan.target != renderer->gl.framebuffer) {
        plan.resolve = 1;
        plan.resolve_target = plan.target;
        plan.target = renderer->gl.framebuffer;
    }
    plan.points = renderer->settings.primitive == DS_PRIMITIVE_POINTS;
    plan.count = ds_renderer_sorted_count(renderer);
    plan.sorting = renderer->settings.sorting;
    /* The compute raster takes triangles and points at one sample a
     * pixel: the compute techniques' frames, and sorted frames on its
     * path. */
    ds_technique technique = renderer->settings.technique;
    int compute = technique == DS_TECHNIQUE_COMPUTE || technique == DS_TECHNIQUE_COMPUTE_EXACT ||
                  (technique == DS_TECHNIQUE_SORTED && renderer->settings.sorting &&
                   renderer->settings.raster == DS_RASTER_COMPUTE);
    plan.compute =
        compute && ds_render_compute_takes(renderer, single_sampled(renderer, plan.target));
    if (plan.compute && technique == DS_TECHNIQUE_COMPUTE)
        plan.sorting = 1;
    plan.shuffle = renderer->settings.sorting && renderer->settings.shuffle;
    plan.keep_keys = renderer->settings.verify && renderer->settings.sorting;
    /* Unsorted frames draw indexed in mesh order, whatever the form: the
     * post-transform cache finds the mesh's shared vertices there. */
    plan.pull = !plan.points && renderer->settings.pull && plan.sorting;
    plan.tiled = renderer->settings.tiles_on && renderer->settings.sorting;
    if (plan.compute && technique != DS_TECHNIQUE_COMPUTE_EXACT) {
        /* The raster reads the sorted triangle (or point) numbers: one
         * list, sorted in place in the element buffer, as the pulled
         * form's (points sort in place anyway). */
        plan.pull = !plan.points;
        plan.tiled = 0;
    }
    plan.in_place = (plan.points || plan.pull) && !plan.tiled;
    ds_cull_view_set(&plan.view, plan.view_projection, (float)renderer->settings.width,
                     (float)renderer->settings.height);
    /* The compute raster tests coverage itself. */
    plan.cull = renderer->settings.cull && renderer->settings.sorting && !plan.points &&
                !plan.compute &&
                ds_render_technique_backend(renderer->settings.technique)->sorts &&
                single_sampled(renderer, plan.target);
    plan.point_scale =
        renderer->settings.point_size * projection[5] * 0.5f * (float)renderer->settings.height;
    plan.range = key_range(renderer, plan.eye);
    /* The GL stages do not shuffle: a frame that does runs the sorter's. */
    plan.gl = renderer->settings.stages_gl && !plan.shuffle;
    plan.narrow = ds_render_key_narrow(renderer, &plan);
    plan.grid = ds_tile_grid_for(renderer->settings.width, renderer->settings.height,
                                 renderer->settings.tile_pixels);
    plan.value_shift = ds_render_value_shift(renderer, &plan);
    *dest = plan;
}

ds_status ds_renderer_frame(ds_renderer *renderer, const ds_camera *camera,
                            uint32_t framebuffer)
{
    ds_status status;
    if (!renderer || !camera)
        return ds_fail(DS_ERR_INVALID_ARG, "render: NULL renderer or camera");
    ds_timeline *timeline = renderer->timing.timeline;
    if (timeline)
        ds_timeline_frame_begin(timeline, renderer->timing.frame_count);
    /* May wait for the oldest frame's timer results (timing.c). */
    DS_TIMELINE_HOST(timeline, "collect_begin");
    frame_record *record = ds_render_next_record(renderer);
    DS_TIMELINE_HOST(timeline, "collect_end");
    frame_plan plan;
    ds_render_plan(renderer, camera, framebuffer, &plan);
    /* Where this frame's GPU work starts, for the hand-over (timing.c).
     * Before CUDA stages it is flushed, so that the GPU takes it before
     * them and both switches between the contexts fall after it; GL
     * stages follow it in the same command stream unflushed, so that a
     * GPU idle between frames (a window's copy) does not wait on the
     * host's next commands inside the frame. */
    glQueryCounter(record->entry_query, GL_TIMESTAMP);
    if (!plan.gl && !renderer->settings.cpu_path)
        glFlush();
    record->culled = plan.cull;
    record->drawn = (uint32_t)plan.count;
    record->points = plan.points;
    record->shuffled = plan.shuffle;
    int sorts = ds_render_technique_backend(renderer->settings.technique)->sorts;
    record->sorted_bits = !plan.sorting || !sorts ? 0
                          : renderer->settings.key_bits != 32 ? renderer->settings.key_bits
                                                     : ds_key_narrow_bits(plan.narrow);
    record->gl = 0;
    record->oit = 0;
    record->sort_gl = 0;
    /* The stages set it; the GL stages have no interop, and the hand-back
     * fence after the draw adds to it. */
    record->host_interop_ms = 0.0f;
    /* Where the image ends up (ds_renderer_color_texture). */
    GLuint output = plan.resolve ? plan.resolve_target : plan.target;
    renderer->gl.last_output = output ? output : DS_RENDERER_OWN_FRAMEBUFFER;

    /* raster_compute.c sets it for its frames. */
    renderer->verification.last_exact = 0;
    if ((status = ds_render_technique_frame(renderer, &plan, record)))
        return status;
    record->pending = 1;
    renderer->timing.frame_count++;
    DS_TIMELINE_HOST(timeline, "frame_end");
    return DS_OK;
}
