/* SPDX-License-Identifier: MIT */
/* camera.h — an orbit camera: frame-to-fit, orbit, pan, zoom, and the
 * matrices the renderer needs. Matrices are column-major float[16] (cglm's
 * mat4 layout). */
#ifndef DS_CAMERA_H
#define DS_CAMERA_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_camera {
    float target[3];  /* orbit centre */
    float distance;   /* eye to target */
    float yaw;        /* radians about +Y */
    float pitch;      /* radians, clamped to (-pi/2, pi/2) */
    float fov_y;      /* radians */
    float aspect;     /* width / height */
    float near_plane, far_plane;
} ds_camera;

/* Places the camera so that a sphere (center, radius) fills the view at the
 * current yaw/pitch; sets near/far to enclose it. */
void ds_camera_frame(ds_camera *camera, const float center[3], float radius,
                     float aspect);
void ds_camera_orbit(ds_camera *camera, float dyaw, float dpitch);
/* Moves the target in the view plane by dx, dy in units of the distance. */
void ds_camera_pan(ds_camera *camera, float dx, float dy);
/* Multiplies the distance by factor (> 0). */
void ds_camera_zoom(ds_camera *camera, float factor);
void ds_camera_eye(const ds_camera *camera, float dest[3]);
void ds_camera_view(const ds_camera *camera, float dest[16]);
void ds_camera_projection(const ds_camera *camera, float dest[16]);
void ds_camera_view_projection(const ds_camera *camera, float dest[16]);

/* Sets near and far to enclose a sphere (center, radius) seen from the
 * current eye, as ds_camera_frame() does, without moving the camera. */
void ds_camera_enclose(ds_camera *camera, const float center[3], float radius);

/* A view as one line of text, which ds_camera_parse() reads back to the
 * same camera: "eye=X,Y,Z target=X,Y,Z up=0,1,0 fov=DEG" (fov is the
 * vertical field of view in degrees; up is always +Y, the orbit camera's
 * world up: turn a model with --up, not the camera). Numbers are printed
 * with 9 significant digits, so the round trip is exact in float. */
#define DS_CAMERA_LINE_MAX 200
void ds_camera_format(const ds_camera *camera, char *dest, size_t capacity);

/* Reads a line written by ds_camera_format(); the four fields may come in
 * any order, `up` and `fov` may be left out (+Y, and the current fov_y).
 * Sets target, distance, yaw, pitch and fov_y; keeps aspect, near and far
 * (call ds_camera_enclose() after). Errors: DS_ERR_PARSE, with one line
 * naming `what` (the option or file) and the problem: a malformed number,
 * eye == target, an up other than +Y, a view straight up or down, a fov
 * outside (0, 180). */
ds_status ds_camera_parse(const char *text, const char *what, ds_camera *dest);

#ifdef __cplusplus
}
#endif
#endif
