/* camera.c — the orbit camera (see camera.h). Right-handed, +Y up, OpenGL
 * clip space (z in [-1, 1]); matrices from cglm, column-major.
 *
 * The eye sits at target + distance · (cos p · sin y, sin p, cos p · cos y):
 * yaw 0 and pitch 0 look down -Z. */
#include "camera.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

/* Used by ds_camera_frame() when fov_y is unset. */
#define DEFAULT_FOV_Y (45.0f * (float)M_PI / 180.0f)
/* Pitch stays this far from straight up or down, where the view's up
 * vector (+Y) would be parallel to the view direction. */
#define PITCH_LIMIT ((float)M_PI / 2.0f - 1e-3f)
/* Framing leaves this much room around the sphere. */
#define FRAME_MARGIN 1.02f
/* near/far enclose the sphere with this slack on either side. */
#define DEPTH_SLACK 0.9f
/* near never drops below this fraction of far (depth precision). */
#define MIN_NEAR_FRACTION 1e-5f

static float clamp_pitch(float pitch)
{
    if (pitch > PITCH_LIMIT)
        return PITCH_LIMIT;
    if (pitch < -PITCH_LIMIT)
        return -PITCH_LIMIT;
    return pitch;
}

/* Unit direction from the target to the eye. */
static void eye_direction(const ds_camera *camera, vec3 dest)
{
    float cp = cosf(camera->pitch);
    dest[0] = cp * sinf(camera->yaw);
    dest[1] = sinf(camera->pitch);
    dest[2] = cp * cosf(camera->yaw);
}

void ds_camera_frame(ds_camera *camera, const float center[3], float radius, float aspect)
{
    if (!(camera->fov_y > 0.0f && camera->fov_y < (float)M_PI))
        camera->fov_y = DEFAULT_FOV_Y;
    if (!(aspect > 0.0f))
        aspect = 1.0f;
    if (!(radius > 0.0f))
        radius = 1.0f; /* a single point: any sensible scale */
    camera->aspect = aspect;
    camera->pitch = clamp_pitch(camera->pitch);
    memcpy(camera->target, center, sizeof camera->target);

    /* The sphere fits where its tangent cone matches the narrower half
     * angle of the frustum. */
    float half_y = 0.5f * camera->fov_y;
    float half_x = atanf(aspect * tanf(half_y));
    float half = half_x < half_y ? half_x : half_y;
    float padded = radius * FRAME_MARGIN;
    camera->distance = padded / sinf(half);
    camera->far_plane = (camera->distance + padded) / DEPTH_SLACK;
    camera->near_plane = (camera->distance - padded) * DEPTH_SLACK;
    if (camera->near_plane < camera->far_plane * MIN_NEAR_FRACTION)
        camera->near_plane = camera->far_plane * MIN_NEAR_FRACTION;
}

void ds_camera_orbit(ds_camera *camera, float dyaw, float dpitch)
{
    float yaw = fmodf(camera->yaw + dyaw, 2.0f * (float)M_PI);
    if (yaw > (float)M_PI)
        yaw -= 2.0f * (float)M_PI;
    else if (yaw < -(float)M_PI)
        yaw += 2.0f * (float)M_PI;
    camera->yaw = yaw;
    camera->pitch = clamp_pitch(camera->pitch + dpitch);
}

void ds_camera_pan(ds_camera *camera, float dx, float dy)
{
    vec3 back, right, up, world_up = {0.0f, 1.0f, 0.0f};
    eye_direction(camera, back);
    glm_vec3_cross(world_up, back, right); /* never parallel: pitch is clamped */
    glm_vec3_normalize(right);
    glm_vec3_cross(back, right, up);
    for (int k = 0; k < 3; k++)
        camera->target[k] += camera->distance * (dx * right[k] + dy * up[k]);
}

void ds_camera_zoom(ds_camera *camera, float factor)
{
    if (!(factor > 0.0f))
        return;
    /* Keep near/far around the same region: shift them with the eye. */
    float change = camera->distance * factor - camera->distance;
    camera->distance *= factor;
    camera->far_plane += change;
    camera->near_plane += change;
    if (camera->near_plane < camera->far_plane * MIN_NEAR_FRACTION)
        camera->near_plane = camera->far_plane * MIN_NEAR_FRACTION;
}

void ds_camera_eye(const ds_camera *camera, float dest[3])
{
    vec3 back;
    eye_direction(camera, back);
    for (int k = 0; k < 3; k++)
        dest[k] = camera->target[k] + camera->distance * back[k];
}

void ds_camera_view(const ds_camera *camera, float dest[16])
{
    vec3 eye, target, up = {0.0f, 1.0f, 0.0f};
    mat4 view;
    ds_camera_eye(camera, eye);
    memcpy(target, camera->target, sizeof target);
    glm_lookat_rh_no(eye, target, up, view);
    memcpy(dest, view, sizeof view);
}

void ds_camera_projection(const ds_camera *camera, float dest[16])
{
    mat4 projection;
    glm_perspective_rh_no(camera->fov_y, camera->aspect, camera->near_plane, camera->far_plane, projection);
    memcpy(dest, projection, sizeof projection);
}

void ds_camera_view_projection(const ds_camera *camera, float dest[16])
{
    mat4 view, projection, product;
    ds_camera_view(camera, (float *)view);
    ds_camera_projection(camera, (float *)projection);
    glm_mat4_mul(projection, view, product);
    memcpy(dest, product, sizeof product);
}
