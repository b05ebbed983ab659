/* SPDX-License-Identifier: MIT */
/* camera.c — the orbit camera (see camera.h). Right-handed, +Y up, OpenGL
 * clip space (z in [-1, 1]); matrices from cglm, column-major.
 *
 * The eye sits at target + distance · (cos p · sin y, sin p, cos p · cos y):
 * yaw 0 and pitch 0 look down -Z. */
#include "camera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
/* Radii and eye distances stay where the projection's 2 near far and the
 * keys' squared distances are finite, normal floats (mesh.h's
 * DS_MESH_MAX_RADIUS and DS_MESH_MIN_RADIUS, to which the app brings every
 * model): framing a sphere outside them frames the nearest one inside, and
 * zooming or a --camera beyond them is refused. */
#define MAX_RADIUS 1e16f
#define MIN_RADIUS 1e-15f
#define MAX_DISTANCE 1e17f
#define MIN_DISTANCE 1e-16f

/* The radius the camera frames: a point (or nonsense) at 1, others clamped. */
static float framed_radius(float radius)
{
    if (!(radius > 0.0f) || isnan(radius))
        return 1.0f;
    if (radius > MAX_RADIUS)
        return MAX_RADIUS;
    return radius < MIN_RADIUS ? MIN_RADIUS : radius;
}

/* near and far as the projection needs them: near at least a fraction of
 * far (depth precision), far beyond near (2 near far / (far - near) must
 * be finite even when the depth of the view is lost in float rounding far
 * away from a tiny model). */
static void keep_depth_range(ds_camera *camera)
{
    if (camera->near_plane < camera->far_plane * MIN_NEAR_FRACTION)
        camera->near_plane = camera->far_plane * MIN_NEAR_FRACTION;
    if (!(camera->near_plane > 0.0f))
        camera->near_plane = MIN_DISTANCE;
    if (!(camera->far_plane > camera->near_plane * 1.001f))
        camera->far_plane = camera->near_plane * 2.0f;
}

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
    radius = framed_radius(radius);
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
    ds_camera_enclose(camera, center, radius);
}

void ds_camera_enclose(ds_camera *camera, const float center[3], float radius)
{
    radius = framed_radius(radius);
    float eye[3];
    ds_camera_eye(camera, eye);
    double d2 = 0.0; /* in double: the squares of far eyes overflow float */
    for (int k = 0; k < 3; k++)
        d2 += ((double)eye[k] - center[k]) * ((double)eye[k] - center[k]);
    float to_center = (float)fmin(sqrt(d2), (double)MAX_DISTANCE);
    float padded = radius * FRAME_MARGIN;
    camera->far_plane = (to_center + padded) / DEPTH_SLACK;
    camera->near_plane = (to_center - padded) * DEPTH_SLACK;
    keep_depth_range(camera);
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
    float moved[3];
    for (int k = 0; k < 3; k++) {
        moved[k] = camera->target[k] + camera->distance * (dx * right[k] + dy * up[k]);
        if (!isfinite(moved[k]))
            return; /* a pan off float's range: stay */
    }
    memcpy(camera->target, moved, sizeof moved);
}

void ds_camera_zoom(ds_camera *camera, float factor)
{
    if (!(factor > 0.0f) || !(camera->distance * factor <= MAX_DISTANCE) ||
        !(camera->distance * factor >= MIN_DISTANCE))
        return; /* nothing, or beyond what the projection holds */
    /* Keep near/far around the same region: shift them with the eye. */
    float change = camera->distance * factor - camera->distance;
    camera->distance *= factor;
    camera->far_plane += change;
    camera->near_plane += change;
    keep_depth_range(camera);
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

void ds_camera_format(const ds_camera *camera, char *dest, size_t capacity)
{
    float eye[3];
    ds_camera_eye(camera, eye);
    const float *t = camera->target;
    snprintf(dest, capacity, "eye=%.9g,%.9g,%.9g target=%.9g,%.9g,%.9g up=0,1,0 fov=%.9g",
             (double)eye[0], (double)eye[1], (double)eye[2], (double)t[0], (double)t[1],
             (double)t[2], (double)(camera->fov_y * 180.0f / (float)M_PI));
}

/* Parses "X,Y,Z" (exactly three finite numbers) at *cursor, up to the next
 * blank or the end: 1; 0 when the text is not of that form; -1 when a
 * number is finite but beyond float's range (it in *beyond). */
static int parse_vec3(const char **cursor, float dest[3], double *beyond)
{
    const char *s = *cursor;
    for (int k = 0; k < 3; k++) {
        char *end = NULL;
        double value = strtod(s, &end);
        if (end == s || !isfinite(value))
            return 0;
        if (fabs(value) > 3.0e38) {
            *beyond = value;
            return -1;
        }
        dest[k] = (float)value;
        s = end;
        if (k < 2) {
            if (*s != ',')
                return 0;
            s++;
        }
    }
    if (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n')
        return 0;
    *cursor = s;
    return 1;
}

/* parse_vec3 for the key `key` ("eye", "target", "up"), failing with one
 * line that says what was wrong. */
static ds_status parse_key_vec3(const char **cursor, const char *what, const char *key,
                                float dest[3])
{
    double beyond = 0.0;
    int parsed = parse_vec3(cursor, dest, &beyond);
    if (parsed < 0)
        return ds_fail(DS_ERR_PARSE, "%s: %s=: %g is beyond float's range (3.4e+38)", what, key,
                       beyond);
    if (parsed == 0)
        return ds_fail(DS_ERR_PARSE, "%s: %s= needs three numbers X,Y,Z", what, key);
    return DS_OK;
}

ds_status ds_camera_parse(const char *text, const char *what, ds_camera *dest)
{
    float eye[3], target[3], up[3] = {0.0f, 1.0f, 0.0f};
    float fov = dest->fov_y * 180.0f / (float)M_PI;
    int have_eye = 0, have_target = 0;
    const char *s = text ? text : "";
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (*s == '\0')
            break;
        ds_status status = DS_OK;
        if (!strncmp(s, "eye=", 4)) {
            s += 4;
            if ((status = parse_key_vec3(&s, what, "eye", eye)) != DS_OK)
                return status;
            have_eye = 1;
        } else if (!strncmp(s, "target=", 7)) {
            s += 7;
            if ((status = parse_key_vec3(&s, what, "target", target)) != DS_OK)
                return status;
            have_target = 1;
        } else if (!strncmp(s, "up=", 3)) {
            s += 3;
            if ((status = parse_key_vec3(&s, what, "up", up)) != DS_OK)
                return status;
        } else if (!strncmp(s, "fov=", 4)) {
            char *end = NULL;
            double value = strtod(s + 4, &end);
            if (end == s + 4 || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
                return ds_fail(DS_ERR_PARSE, "%s: fov= needs a number of degrees", what);
            if (!(value > 0.0 && value < 180.0))
                return ds_fail(DS_ERR_PARSE, "%s: fov=%g is not in (0, 180) degrees", what, value);
            fov = (float)value;
            s = end;
        } else {
            return ds_fail(DS_ERR_PARSE,
                           "%s: expected eye=X,Y,Z target=X,Y,Z [up=0,1,0] [fov=DEG] at \"%.20s\"",
                           what, s);
        }
    }
    if (!have_eye || !have_target)
        return ds_fail(DS_ERR_PARSE, "%s: both eye= and target= are needed", what);
    float up_length = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    if (!(up_length > 0.0f) || fabsf(up[0]) > 1e-6f * up_length ||
        fabsf(up[2]) > 1e-6f * up_length || up[1] <= 0.0f)
        return ds_fail(DS_ERR_PARSE,
                       "%s: up must be +Y (0,1,0); turn the model with --up instead", what);
    /* The range check in double: the difference of two floats near 3e38
     * overflows float. Within the range, float gives the exact round trip
     * of ds_camera_format's lines. */
    double wide[3] = {(double)eye[0] - target[0], (double)eye[1] - target[1],
                      (double)eye[2] - target[2]};
    double length = sqrt(wide[0] * wide[0] + wide[1] * wide[1] + wide[2] * wide[2]);
    if (!(length > 0.0))
        return ds_fail(DS_ERR_PARSE, "%s: eye and target are the same point", what);
    if (length > MAX_DISTANCE || length < MIN_DISTANCE)
        return ds_fail(DS_ERR_PARSE,
                       "%s: eye and target are %.3g apart; the camera's float arithmetic holds "
                       "%g to %g",
                       what, length, (double)MIN_DISTANCE, (double)MAX_DISTANCE);
    /* The eye is computed as target + distance * direction in float: it
     * must differ from the target, so the target may be at most 2^20
     * distances from the origin (float holds 24 bits). */
    for (int k = 0; k < 3; k++)
        if (fabs((double)target[k]) > 1048576.0 * length)
            return ds_fail(DS_ERR_PARSE,
                           "%s: the target is %.3g from the origin, over 2^20 times the eye's "
                           "distance %.3g: float cannot hold that view",
                           what, fabs((double)target[k]), length);
    float back[3] = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
    float distance = sqrtf(back[0] * back[0] + back[1] * back[1] + back[2] * back[2]);
    float pitch = asinf(fminf(1.0f, fmaxf(-1.0f, back[1] / distance)));
    if (fabsf(pitch) > PITCH_LIMIT)
        return ds_fail(DS_ERR_PARSE, "%s: the view looks straight up or down", what);
    memcpy(dest->target, target, sizeof dest->target);
    dest->distance = distance;
    dest->pitch = pitch;
    dest->yaw = atan2f(back[0], back[2]);
    dest->fov_y = fov * (float)M_PI / 180.0f;
    return DS_OK;
}
