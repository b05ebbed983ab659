/* frame.c — one frame, as renderer.h describes it: the plan (every mode
 * decision of the frame, made here once), then the technique's frame
 * (technique.h): for the sorted draw (technique_sorted.c) the stages and
 * the raster path's draw. */
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
    if (target == renderer->framebuffer)
        return renderer->msaa <= 1;
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

int ds_render_value_shift(const ds_renderer *renderer, const frame_plan *plan)
{
    if (!plan->tiled || (!plan->gl && renderer->cpu_path))
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
    if (!renderer->narrow_keys || renderer->key_bits != 32 || !plan->sorting ||
        (renderer->cpu_path && !plan->gl))
        return none;
    double near2 = 0.0, far2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = plan->eye[k], lo = renderer->mesh_min[k], hi = renderer->mesh_max[k];
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
    plan.frame = renderer->frame_count;
    /* The CUDA path alternates between two element buffers, so that CUDA
     * can write this frame's while GL may still draw the previous one. */
    plan.slot = renderer->cpu_path ? 0 : (int)(renderer->frame_count % DS_INTEROP_SLOTS);
    ds_camera_eye(camera, plan.eye);
    ds_camera_view_projection(camera, plan.view_projection);
    ds_camera_projection(camera, projection);
    plan.target = framebuffer == DS_RENDERER_OWN_FRAMEBUFFER ? renderer->framebuffer
                                                             : framebuffer;
    if (renderer->msaa > 1 && plan.target != renderer->framebuffer) {
        plan.resolve = 1;
        plan.resolve_target = plan.target;
        plan.target = renderer->framebuffer;
    }
    plan.points = renderer->primitive == DS_PRIMITIVE_POINTS;
    plan.count = ds_renderer_sorted_count(renderer);
    plan.sorting = renderer->sorting;
    plan.shuffle = renderer->sorting && renderer->shuffle;
    plan.keep_keys = renderer->verify && renderer->sorting;
    /* Unsorted frames draw indexed in mesh order, whatever the form: the
     * post-transform cache finds the mesh's shared vertices there. */
    plan.pull = !plan.points && renderer->pull && plan.sorting;
    plan.tiled = renderer->tiles_on && renderer->sorting;
    plan.in_place = (plan.points || plan.pull) && !plan.tiled;
    ds_cull_view_set(&plan.view, plan.view_projection, (float)renderer->width,
                     (float)renderer->height);
    plan.cull = renderer->cull && renderer->sorting && !plan.points &&
                ds_render_technique_backend(renderer->technique)->sorts &&
                single_sampled(renderer, plan.target);
    plan.point_scale = renderer->point_size * projection[5] * 0.5f * (float)renderer->height;
    plan.range = key_range(renderer, plan.eye);
    /* The GL stages do not shuffle: a frame that does runs the sorter's. */
    plan.gl = renderer->stages_gl && !plan.shuffle;
    plan.narrow = ds_render_key_narrow(renderer, &plan);
    plan.grid = ds_tile_grid_for(renderer->width, renderer->height, renderer->tile_pixels);
    plan.value_shift = ds_render_value_shift(renderer, &plan);
    *dest = plan;
}

ds_status ds_renderer_frame(ds_renderer *renderer, const ds_camera *camera,
                            uint32_t framebuffer)
{
    ds_status status;
    if (!renderer || !camera)
        return ds_fail(DS_ERR_INVALID_ARG, "render: NULL renderer or camera");
    ds_timeline *timeline = renderer->timeline;
    if (timeline)
        ds_timeline_frame_begin(timeline, renderer->frame_count);
    /* May wait for the oldest frame's timer results (timing.c). */
    DS_TIMELINE_HOST(timeline, "collect_begin");
    frame_record *record = ds_render_next_record(renderer);
    DS_TIMELINE_HOST(timeline, "collect_end");
    frame_plan plan;
    ds_render_plan(renderer, camera, framebuffer, &plan);
    record->culled = plan.cull;
    record->drawn = (uint32_t)plan.count;
    record->points = plan.points;
    record->shuffled = plan.shuffle;
    int sorts = ds_render_technique_backend(renderer->technique)->sorts;
    record->sorted_bits = !plan.sorting || !sorts ? 0
                          : renderer->key_bits != 32 ? renderer->key_bits
                                                     : ds_key_narrow_bits(plan.narrow);
    record->gl = 0;
    record->oit = 0;
    /* The stages set it; the GL stages have no interop, and the hand-back
     * fence after the draw adds to it. */
    record->host_interop_ms = 0.0f;
    /* Where the image ends up (ds_renderer_color_texture). */
    GLuint output = plan.resolve ? plan.resolve_target : plan.target;
    renderer->last_output = output ? output : DS_RENDERER_OWN_FRAMEBUFFER;

    if ((status = ds_render_technique_frame(renderer, &plan, record)))
        return status;
    record->pending = 1;
    renderer->frame_count++;
    DS_TIMELINE_HOST(timeline, "frame_end");
    return DS_OK;
}
