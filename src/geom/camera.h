/* camera.h — an orbit camera: frame-to-fit, orbit, pan, zoom, and the
 * matrices the renderer needs. Matrices are column-major float[16] (cglm's
 * mat4 layout). */
#ifndef DS_CAMERA_H
#define DS_CAMERA_H

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

#ifdef __cplusplus
}
#endif
#endif
