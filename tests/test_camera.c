/* SPDX-License-Identifier: MIT */
/* test_camera.c — orbit camera math: the matrices agree with a second,
 * hand-written construction; frame-to-fit keeps a sphere inside the frustum
 * and fills it; orbit, pan and zoom keep their promises. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "camera.h"

#define PI 3.14159265358979f

/* Column-major: m[col * 4 + row]. */
static void transform(const float m[16], const float p[3], float w_in, float dest[4])
{
    for (int r = 0; r < 4; r++)
        dest[r] = m[0 * 4 + r] * p[0] + m[1 * 4 + r] * p[1] + m[2 * 4 + r] * p[2] + m[3 * 4 + r] * w_in;
}

static void multiply(const float a[16], const float b[16], float dest[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + r] * b[c * 4 + k];
            dest[c * 4 + r] = sum;
        }
}

static void normalize(float v[3])
{
    float s = 1.0f / sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] *= s, v[1] *= s, v[2] *= s;
}

static void cross(const float a[3], const float b[3], float dest[3])
{
    dest[0] = a[1] * b[2] - a[2] * b[1];
    dest[1] = a[2] * b[0] - a[0] * b[2];
    dest[2] = a[0] * b[1] - a[1] * b[0];
}

/* The textbook gluLookAt / gluPerspective, written out independently. */
static void reference_view(const ds_camera *camera, float dest[16])
{
    float eye[3], f[3], s[3], u[3], up[3] = {0, 1, 0};
    float cp = cosf(camera->pitch);
    eye[0] = camera->target[0] + camera->distance * cp * sinf(camera->yaw);
    eye[1] = camera->target[1] + camera->distance * sinf(camera->pitch);
    eye[2] = camera->target[2] + camera->distance * cp * cosf(camera->yaw);
    for (int k = 0; k < 3; k++)
        f[k] = camera->target[k] - eye[k];
    normalize(f);
    cross(f, up, s);
    normalize(s);
    cross(s, f, u);
    memset(dest, 0, 16 * sizeof(float));
    for (int k = 0; k < 3; k++) {
        dest[k * 4 + 0] = s[k];
        dest[k * 4 + 1] = u[k];
        dest[k * 4 + 2] = -f[k];
    }
    dest[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    dest[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    dest[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
    dest[15] = 1.0f;
}

static void reference_projection(const ds_camera *camera, float dest[16])
{
    float f = 1.0f / tanf(0.5f * camera->fov_y), n = camera->near_plane, fa = camera->far_plane;
    memset(dest, 0, 16 * sizeof(float));
    dest[0] = f / camera->aspect;
    dest[5] = f;
    dest[10] = (fa + n) / (n - fa);
    dest[11] = -1.0f;
    dest[14] = 2.0f * fa * n / (n - fa);
}

static void assert_matrices_close(const float a[16], const float b[16], float tolerance)
{
    for (int i = 0; i < 16; i++)
        if (fabsf(a[i] - b[i]) > tolerance * (1.0f + fabsf(b[i])))
            fail_msg("element %d: %g vs %g", i, (double)a[i], (double)b[i]);
}

static ds_camera framed_camera(float yaw, float pitch, float aspect)
{
    ds_camera camera = {0};
    camera.yaw = yaw;
    camera.pitch = pitch;
    const float center[3] = {3.0f, -2.0f, 10.0f};
    ds_camera_frame(&camera, center, 5.0f, aspect);
    return camera;
}

static void test_two_routes_agree(void **state)
{
    (void)state;
    static const float poses[][3] = {{0, 0, 1.0f}, {0.7f, 0.3f, 16.0f / 9.0f}, {-2.5f, -1.2f, 0.5f},
                                     {3.0f, 1.5f, 2.0f}};
    for (size_t i = 0; i < sizeof poses / sizeof poses[0]; i++) {
        ds_camera camera = framed_camera(poses[i][0], poses[i][1], poses[i][2]);
        ds_camera_pan(&camera, 0.1f, -0.05f);
        float view[16], projection[16], vp[16], expected_view[16], expected_projection[16], expected_vp[16];
        ds_camera_view(&camera, view);
        ds_camera_projection(&camera, projection);
        ds_camera_view_projection(&camera, vp);
        reference_view(&camera, expected_view);
        reference_projection(&camera, expected_projection);
        multiply(expected_projection, expected_view, expected_vp);
        assert_matrices_close(view, expected_view, 1e-5f);
        assert_matrices_close(projection, expected_projection, 1e-5f);
        assert_matrices_close(vp, expected_vp, 1e-4f);

        /* The view takes the eye to the origin and the target to -Z. */
        float eye[3], at[4];
        ds_camera_eye(&camera, eye);
        transform(view, eye, 1.0f, at);
        for (int k = 0; k < 3; k++)
            assert_float_equal(at[k], 0.0f, 1e-4f);
        transform(view, camera.target, 1.0f, at);
        assert_float_equal(at[0], 0.0f, 1e-4f);
        assert_float_equal(at[1], 0.0f, 1e-4f);
        assert_float_equal(at[2], -camera.distance, 1e-4f);
    }
}

static void test_frame_fits_sphere(void **state)
{
    (void)state;
    static const float aspects[] = {16.0f / 9.0f, 1.0f, 0.5f};
    const float center[3] = {3.0f, -2.0f, 10.0f}, radius = 5.0f;
    for (size_t a = 0; a < sizeof aspects / sizeof aspects[0]; a++) {
        ds_camera camera = framed_camera(0.4f, -0.3f, aspects[a]);
        assert_true(camera.near_plane > 0.0f && camera.near_plane < camera.far_plane);
        float vp[16], eye[3];
        ds_camera_view_projection(&camera, vp);
        ds_camera_eye(&camera, eye);
        float dist = sqrtf((eye[0] - center[0]) * (eye[0] - center[0]) + (eye[1] - center[1]) * (eye[1] - center[1]) +
                           (eye[2] - center[2]) * (eye[2] - center[2]));
        assert_true(camera.near_plane < dist - radius);
        assert_true(camera.far_plane > dist + radius);
        /* Points all over the sphere land inside clip space; the widest in
         * the narrower direction nearly touch the border. */
        float widest_x = 0.0f, widest_y = 0.0f;
        for (int i = 0; i <= 64; i++)
            for (int j = 0; j < 128; j++) {
                float theta = PI * (float)i / 64.0f, phi = 2.0f * PI * (float)j / 128.0f;
                float p[3] = {center[0] + radius * sinf(theta) * cosf(phi), center[1] + radius * cosf(theta),
                              center[2] + radius * sinf(theta) * sinf(phi)};
                float clip[4];
                transform(vp, p, 1.0f, clip);
                assert_true(clip[3] > 0.0f);
                for (int k = 0; k < 3; k++)
                    if (fabsf(clip[k] / clip[3]) > 1.0f)
                        fail_msg("aspect %g: point (%g,%g,%g) outside, ndc[%d] = %g", (double)aspects[a],
                                 (double)p[0], (double)p[1], (double)p[2], k, (double)(clip[k] / clip[3]));
                widest_x = fmaxf(widest_x, fabsf(clip[0] / clip[3]));
                widest_y = fmaxf(widest_y, fabsf(clip[1] / clip[3]));
            }
        assert_true(fmaxf(widest_x, widest_y) > 0.9f);
    }
}

static void test_frame_degenerate_inputs(void **state)
{
    (void)state;
    ds_camera camera = {0};
    camera.pitch = 10.0f; /* beyond the pole: clamped */
    const float origin[3] = {0, 0, 0};
    ds_camera_frame(&camera, origin, 0.0f, 0.0f);
    assert_true(camera.distance > 0.0f && isfinite(camera.distance));
    assert_true(camera.near_plane > 0.0f && camera.far_plane > camera.near_plane);
    assert_true(camera.fov_y > 0.0f && camera.aspect > 0.0f);
    assert_true(camera.pitch < PI / 2);
    float vp[16];
    ds_camera_view_projection(&camera, vp);
    for (int i = 0; i < 16; i++)
        assert_true(isfinite(vp[i]));
}

static void test_orbit_keeps_distance_and_clamps(void **state)
{
    (void)state;
    ds_camera camera = framed_camera(0.0f, 0.0f, 1.5f);
    float before = camera.distance;
    for (int i = 0; i < 100; i++) {
        ds_camera_orbit(&camera, 0.37f, (i % 2 ? 0.21f : -0.13f));
        float eye[3];
        ds_camera_eye(&camera, eye);
        float d = sqrtf((eye[0] - camera.target[0]) * (eye[0] - camera.target[0]) +
                        (eye[1] - camera.target[1]) * (eye[1] - camera.target[1]) +
                        (eye[2] - camera.target[2]) * (eye[2] - camera.target[2]));
        assert_float_equal(d, before, 1e-3f);
        assert_true(camera.yaw >= -PI - 1e-4f && camera.yaw <= PI + 1e-4f);
    }
    ds_camera_orbit(&camera, 0.0f, 100.0f);
    assert_true(camera.pitch < PI / 2 && camera.pitch > 1.5f);
    ds_camera_orbit(&camera, 0.0f, -200.0f);
    assert_true(camera.pitch > -PI / 2 && camera.pitch < -1.5f);
    /* A full turn of yaw comes back to the same eye. */
    ds_camera_orbit(&camera, 0.0f, 100.0f + 0.7f);
    float eye0[3], eye1[3];
    ds_camera_eye(&camera, eye0);
    for (int i = 0; i < 8; i++)
        ds_camera_orbit(&camera, PI / 4, 0.0f);
    ds_camera_eye(&camera, eye1);
    for (int k = 0; k < 3; k++)
        assert_float_equal(eye0[k], eye1[k], 1e-3f);
}

static void test_pan_and_zoom(void **state)
{
    (void)state;
    ds_camera camera = framed_camera(0.8f, 0.4f, 1.0f);
    float eye0[3], eye1[3], target0[3];
    ds_camera_eye(&camera, eye0);
    memcpy(target0, camera.target, sizeof target0);
    ds_camera_pan(&camera, 0.1f, 0.2f);
    ds_camera_eye(&camera, eye1);
    /* The target moved across the view, by |(dx,dy)| · distance, and the
     * eye moved with it (same view direction). */
    float move[3], back[3];
    for (int k = 0; k < 3; k++) {
        move[k] = camera.target[k] - target0[k];
        back[k] = eye0[k] - target0[k];
        assert_float_equal(eye1[k] - eye0[k], move[k], 1e-3f);
    }
    float along = (move[0] * back[0] + move[1] * back[1] + move[2] * back[2]) / camera.distance;
    assert_float_equal(along, 0.0f, 1e-3f);
    float length = sqrtf(move[0] * move[0] + move[1] * move[1] + move[2] * move[2]);
    assert_float_equal(length, sqrtf(0.05f) * camera.distance, 1e-3f);
    /* dy moves the target up the screen: its image moves down. */
    float vp[16], clip[4];
    ds_camera_view_projection(&camera, vp);
    transform(vp, target0, 1.0f, clip);
    assert_true(clip[1] / clip[3] < 0.0f);
    assert_true(clip[0] / clip[3] < 0.0f);

    float d = camera.distance, n = camera.near_plane, f = camera.far_plane;
    ds_camera_zoom(&camera, 0.5f);
    assert_float_equal(camera.distance, 0.5f * d, 1e-5f * d);
    assert_float_equal(camera.far_plane - camera.distance, f - d, 1e-4f * f);
    assert_true(camera.near_plane > 0.0f && camera.near_plane <= n);
    ds_camera_zoom(&camera, 0.0f); /* ignored */
    assert_float_equal(camera.distance, 0.5f * d, 1e-5f * d);
    ds_camera_zoom(&camera, 1e-3f); /* far inside: near stays positive */
    assert_true(camera.near_plane > 0.0f && camera.near_plane < camera.far_plane);
}

/* A view printed by ds_camera_format() reads back, with
 * ds_camera_enclose(), to the same matrices; fields may come in any order
 * and up/fov may be left out. */
static void test_line_round_trip(void **state)
{
    (void)state;
    const float center[3] = {3.0f, -2.0f, 10.0f};
    const float views[][3] = {{0.0f, 0.35f, 45.0f}, {2.5f, -1.2f, 30.0f}, {-3.0f, 1.5f, 70.0f},
                              {1.0f, 0.0f, 10.0f}};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        ds_camera camera = framed_camera(views[i][0], views[i][1], 1.6f);
        camera.fov_y = views[i][2] * (float)M_PI / 180.0f;
        ds_camera_pan(&camera, 0.1f, -0.05f);
        ds_camera_enclose(&camera, center, 5.0f);
        char line[DS_CAMERA_LINE_MAX];
        ds_camera_format(&camera, line, sizeof line);
        assert_non_null(strstr(line, "eye="));
        assert_non_null(strstr(line, " up=0,1,0 "));
        ds_camera back = {0};
        back.aspect = 1.6f;
        back.fov_y = 1.0f;
        assert_int_equal(ds_camera_parse(line, "test", &back), DS_OK);
        ds_camera_enclose(&back, center, 5.0f);
        float a[16], b[16];
        ds_camera_view_projection(&camera, a);
        ds_camera_view_projection(&back, b);
        assert_matrices_close(b, a, 1e-5f);
        assert_float_equal(back.fov_y, camera.fov_y, 1e-6f);
    }
    ds_camera camera = {.fov_y = 0.5f, .aspect = 1.0f};
    assert_int_equal(ds_camera_parse("  target=0,0,0 eye=0,0,5\n", "test", &camera), DS_OK);
    assert_float_equal(camera.distance, 5.0f, 1e-6f);
    assert_float_equal(camera.yaw, 0.0f, 1e-6f);
    assert_float_equal(camera.pitch, 0.0f, 1e-6f);
    assert_float_equal(camera.fov_y, 0.5f, 1e-6f); /* kept */
}

static void test_line_errors(void **state)
{
    (void)state;
    static const struct { const char *line, *message; } cases[] = {
        {"", "both eye= and target= are needed"},
        {"eye=0,0,5", "both eye= and target= are needed"},
        {"eye=0,0 target=0,0,0", "cam: eye= needs three numbers"},
        {"eye=0,0,5x target=0,0,0", "cam: eye= needs three numbers"},
        {"eye=0,0,nan target=0,0,0", "cam: eye= needs three numbers"},
        /* Three numbers, one beyond float: said so, not "needs three". */
        {"eye=1e39,0,0 target=0,0,0", "cam: eye=: 1e+39 is beyond float's range"},
        {"eye=0,0,5 target=0,-4e38,0", "cam: target=: -4e+38 is beyond float's range"},
        {"eye=0,0,5 target=0,0,0 fov=0", "fov=0 is not in (0, 180)"},
        {"eye=0,0,5 target=0,0,0 fov=wide", "fov= needs a number"},
        {"eye=0,0,5 target=0,0,5", "eye and target are the same point"},
        {"eye=0,5,0 target=0,0,0", "straight up or down"},
        {"eye=0,0,5 target=0,0,0 up=0,0,1", "up must be +Y"},
        {"eye=0,0,5 target=0,0,0 zoom=2", "expected eye=X,Y,Z"},
        /* A distance that overflows float is not "the same point". */
        {"eye=-3e38,0,3e38 target=3e38,0,-3e38", "eye and target are 8.49e+38 apart"},
        {"eye=0,0,1e20 target=0,0,0", "apart; the camera's float arithmetic holds"},
        {"eye=0,0,1e-20 target=0,0,0", "eye and target are 1e-20 apart"},
        {"eye=1e30,0,1 target=1e30,0,0", "over 2^20 times the eye's distance"},
    };
    ds_log_set_quiet(1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_camera camera = {.fov_y = 0.5f, .distance = 7.0f};
        assert_int_equal(ds_camera_parse(cases[i].line, "cam", &camera), DS_ERR_PARSE);
        if (!strstr(ds_last_error(), cases[i].message) || strncmp(ds_last_error(), "cam: ", 5) != 0)
            fail_msg("'%s' gave \"%s\"", cases[i].line, ds_last_error());
        assert_float_equal(camera.distance, 7.0f, 0.0f); /* untouched */
    }
    ds_log_set_quiet(0);
}

static int matrix_is_finite(const float m[16])
{
    for (int i = 0; i < 16; i++)
        if (!isfinite(m[i]))
            return 0;
    return 1;
}

/* Framing, zooming and panning never make NaN or infinity, whatever the
 * radius: spheres beyond the float range the projection holds are framed
 * as the nearest one inside it, and zoom and pan stop at the bounds. */
static void test_extreme_scales_stay_finite(void **state)
{
    (void)state;
    static const float radii[] = {1e-30f, 1e-20f, 1e-15f, 1.0f, 1e16f, 1e20f, 1e30f, 3e38f, INFINITY};
    const float origin[3] = {0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < sizeof radii / sizeof radii[0]; i++) {
        ds_camera camera = {.pitch = 0.3f};
        ds_camera_frame(&camera, origin, radii[i], 16.0f / 9.0f);
        float m[16];
        ds_camera_view_projection(&camera, m);
        if (!matrix_is_finite(m) || !(camera.near_plane > 0.0f) ||
            !(camera.far_plane > camera.near_plane) || !isfinite(camera.far_plane))
            fail_msg("radius %g: near %g far %g distance %g", (double)radii[i],
                     (double)camera.near_plane, (double)camera.far_plane, (double)camera.distance);
        for (int step = 0; step < 200; step++)
            ds_camera_zoom(&camera, 10.0f);
        ds_camera_pan(&camera, 1e30f, 1e30f);
        ds_camera_view_projection(&camera, m);
        if (!matrix_is_finite(m))
            fail_msg("radius %g zoomed out: near %g far %g distance %g", (double)radii[i],
                     (double)camera.near_plane, (double)camera.far_plane, (double)camera.distance);
        for (int step = 0; step < 400; step++)
            ds_camera_zoom(&camera, 0.1f);
        ds_camera_view_projection(&camera, m);
        assert_true(matrix_is_finite(m));
        assert_true(camera.distance > 0.0f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_routes_agree),
        cmocka_unit_test(test_frame_fits_sphere),
        cmocka_unit_test(test_frame_degenerate_inputs),
        cmocka_unit_test(test_orbit_keeps_distance_and_clamps),
        cmocka_unit_test(test_pan_and_zoom),
        cmocka_unit_test(test_line_round_trip),
        cmocka_unit_test(test_line_errors),
        cmocka_unit_test(test_extreme_scales_stay_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
