/* SPDX-License-Identifier: MIT */
/* viewer_settings.c — what the viewer's keys change (viewer_internal.h):
 * the sort and the GL stages, the transparency technique, colour, MSAA
 * and point size, vsync and fullscreen, preset views, the camera
 * file and screenshot names; each change the renderer refuses is shown in
 * the overlay, and the settings stay as they were. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "output_file.h"
#include "setup.h"
#include "viewer_internal.h"

/* ---- settings ----------------------------------------------------------- */

void ds_viewer_show_message(ds_viewer *v, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(v->ui.message, sizeof v->ui.message, fmt, args);
    va_end(args);
    v->ui.message_until_ms = ds_now_ms() + MESSAGE_MS;
}

/* The latest error line (ds_last_error()) after `what: `, kept longer. */
void ds_viewer_show_error(ds_viewer *v, const char *what)
{
    snprintf(v->ui.message, sizeof v->ui.message, "%s: %s", what, ds_last_error());
    v->ui.message_until_ms = ds_now_ms() + ERROR_MS;
}

/* After any change of settings: the means restart with the next frame
 * rendered; frames already in flight report later and are left out. */
void ds_viewer_reset_timings(ds_viewer *v)
{
    v->timings.history_count = 0;
    v->timings.history_next = 0;
    v->timings.from = v->timings.frames_rendered;
}

/* Selects a sort of the registry, around which the stages run; on failure
 * keeps the current selection and says why on the sort line and, unless
 * quiet (Tab probing), in a warning line on the terminal: the viewer goes
 * on. */
int ds_viewer_select_sort(ds_viewer *v, ds_sort_algo algo, int quiet)
{
    ds_status status;
    if (algo == v->settings.sort && v->settings.stages == DS_STAGES_SORTER) {
        v->ui.sort_note[0] = '\0';
        return 1;
    }
    if (!ds_sort_algo_built(algo)) {
        snprintf(v->ui.sort_note, sizeof v->ui.sort_note,
                 "(%s: not in this build, which has no CUDA)", ds_sort_algo_name(algo));
        if (!quiet)
            ds_warn("sort %s: not in this build (built without CUDA)", ds_sort_algo_name(algo));
        return 0;
    }
    ds_log_set_quiet(1);
    /* The sort first: should it fail, the stages stay where they were. */
    status = ds_renderer_set_sort(v->renderer, algo);
    if (status == DS_OK)
        status = ds_renderer_set_stages(v->renderer, DS_STAGES_SORTER);
    ds_log_set_quiet(0);
    if (status != DS_OK && !quiet)
        ds_warn("%s", ds_last_error());
    if (status != DS_OK) {
        v->ui.unavailable[algo] = 1;
        snprintf(v->ui.sort_note, sizeof v->ui.sort_note, "(%s unavailable: %s)",
                 ds_sort_algo_name(algo), ds_status_str(status));
        return 0;
    }
    v->settings.sort = algo;
    v->settings.stages = DS_STAGES_SORTER;
    v->ui.sort_note[0] = '\0';
    ds_viewer_reset_timings(v);
    return 1;
}

/* Selects the GL stages (the sorter stays, for the shuffle), the same
 * way. */
int ds_viewer_select_gl(ds_viewer *v, int quiet)
{
    if (v->settings.stages == DS_STAGES_GL) {
        v->ui.sort_note[0] = '\0';
        return 1;
    }
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_stages(v->renderer, DS_STAGES_GL);
    ds_log_set_quiet(0);
    if (status != DS_OK && !quiet)
        ds_warn("%s", ds_last_error());
    if (status != DS_OK) {
        v->ui.gl_unavailable = 1;
        snprintf(v->ui.sort_note, sizeof v->ui.sort_note, "(%s unavailable: %s)", DS_SORT_GL_NAME,
                 ds_status_str(status));
        return 0;
    }
    v->settings.stages = DS_STAGES_GL;
    v->ui.sort_note[0] = '\0';
    ds_viewer_reset_timings(v);
    return 1;
}

/* Tab / Shift+Tab: the next (step +1) or previous (-1) sort that works,
 * in the order of --sort all: the GL stages (entry 0), then the
 * registry's sorts (entry 1 + algo). */
void ds_viewer_cycle_sort(ds_viewer *v, int step)
{
    int n = 1 + DS_SORT_ALGO_COUNT;
    int current = v->settings.stages == DS_STAGES_GL ? 0 : 1 + (int)v->settings.sort;
    for (int i = 1; i < n; i++) {
        int entry = ((current + step * i) % n + n) % n;
        if (entry == 0) {
            if (!v->ui.gl_unavailable && ds_viewer_select_gl(v, 1))
                return;
            continue;
        }
        ds_sort_algo algo = (ds_sort_algo)(entry - 1);
        if (v->ui.unavailable[algo] || !ds_sort_algo_built(algo))
            continue;
        if (ds_viewer_select_sort(v, algo, 1))
            return;
    }
    snprintf(v->ui.sort_note, sizeof v->ui.sort_note, "(no other sort available here)");
}

/* The sort line's selection: "0 gl" or "1 cub", and with the GL stages
 * and the shuffle on, the sorter that the shuffled frames run on
 * (renderer.h: the GL stages do not shuffle). */
void ds_viewer_sort_label(const ds_viewer *v, char *dest, size_t capacity)
{
    char hotkey = v->settings.stages == DS_STAGES_GL ? DS_SORT_GL_HOTKEY
                                                     : ds_sort_algo_hotkey(v->settings.sort);
    const char *name = ds_app_sort_name(v->settings.stages, v->settings.sort);
    if (v->settings.stages == DS_STAGES_GL && v->settings.shuffle && v->settings.sorting)
        snprintf(dest, capacity, "%c %s (shuffled: %s)", hotkey ? hotkey : '-', name,
                 ds_sort_algo_name(v->settings.sort));
    else
        snprintf(dest, capacity, "%c %s", hotkey ? hotkey : '-', name);
}

const char *ds_viewer_window_mode(const ds_viewer *v)
{
    if (!v->present)
        return "GLX";
    return strcmp(ds_x11_present_method(v->present), "MIT-SHM") == 0 ? "EGL copy (MIT-SHM)"
                                                                     : "EGL copy (XPutImage)";
}

void ds_viewer_apply_vsync(ds_viewer *v)
{
    if (v->present) { /* no swap: frames are copied into the window */
        v->settings.vsync = 0;
        return;
    }
    glfwSwapInterval(v->settings.vsync ? 1 : 0);
}

void ds_viewer_frame_to_fit(ds_viewer *v)
{
    float aspect = v->fb_height > 0 ? (float)v->fb_width / (float)v->fb_height : 1.0f;
    ds_camera_frame(&v->camera, v->model_center, v->model_radius, aspect);
}

void ds_viewer_toggle_fullscreen(ds_viewer *v)
{
    if (!v->settings.fullscreen) {
        GLFWmonitor *monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
        if (!mode) {
            ds_viewer_show_message(v, "fullscreen: no monitor");
            return;
        }
        glfwGetWindowPos(v->window, &v->ui.windowed_x, &v->ui.windowed_y);
        glfwGetWindowSize(v->window, &v->ui.windowed_width, &v->ui.windowed_height);
        glfwSetWindowMonitor(v->window, monitor, 0, 0, mode->width, mode->height,
                             mode->refreshRate);
    } else {
        glfwSetWindowMonitor(v->window, NULL, v->ui.windowed_x, v->ui.windowed_y,
                             v->ui.windowed_width, v->ui.windowed_height, 0);
    }
    v->settings.fullscreen = !v->settings.fullscreen;
    ds_viewer_apply_vsync(v); /* some platforms reset the swap interval */
}

void ds_viewer_expand_screenshot_name(ds_viewer *v, const char *pattern, char *dest,
                                      size_t capacity)
{
    char date[32] = "unknown";
    time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc))
        strftime(date, sizeof date, "%Y%m%d-%H%M%S", &utc);
    char model[DS_SCRIPT_MAX_LINE + 1];
    ds_screenshot_model(v->model_path[0] ? v->model_path : NULL, ds_app_scene_spec(&v->opts),
                        model, sizeof model);
    ds_screenshot_keys keys = {
        .model = model,
        .technique = ds_technique_name(v->settings.technique),
        .sort = ds_app_sort_name(v->settings.stages, v->settings.sort),
        .date = date,
        .frame = (int)v->timings.frames_rendered};
    ds_screenshot_name(pattern, &keys, dest, capacity, NULL, 0);
}

/* Names the next screenshot: --screenshot's template expanded when given,
 * else the next free "depthsort-YYYYMMDD-HHMMSS[-N].png" in the working
 * directory. */
void ds_viewer_next_screenshot_path(ds_viewer *v, char *dest, size_t capacity)
{
    if (v->opts.screenshot_path) {
        ds_viewer_expand_screenshot_name(v, v->opts.screenshot_path, dest, capacity);
        return;
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm local;
    localtime_r(&now, &local);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    for (;;) {
        if (v->script.screenshot_counter == 0)
            snprintf(dest, capacity, "depthsort-%s.png", stamp);
        else
            snprintf(dest, capacity, "depthsort-%s-%d.png", stamp, v->script.screenshot_counter);
        v->script.screenshot_counter++;
        if (access(dest, F_OK) != 0)
            return;
    }
}

/* The axis views. A PLY or OBJ file has no front: only glTF fixes one
 * (+Z faces the viewer, +Y up), and scans such as Stanford's bunny face
 * wherever the scanner left them. So the keys name the axis they look
 * along, and a second press looks from the other side, so that any
 * model's front is at most two presses away. */
static int same_view(const ds_camera *a, const ds_camera *b)
{
    return a->yaw == b->yaw && a->pitch == b->pitch && a->distance == b->distance &&
           a->target[0] == b->target[0] && a->target[1] == b->target[1] &&
           a->target[2] == b->target[2];
}

void ds_viewer_axis_view(ds_viewer *v, int key)
{
    const float half_turn = (float)M_PI, quarter_turn = 0.5f * (float)M_PI;
    int axis = key == GLFW_KEY_F1 ? 0 : key == GLFW_KEY_F2 ? 1 : 2; /* Z, X, Y */
    int negative = v->ui.view_key == key && !v->ui.view_negative &&
                   same_view(&v->camera, &v->ui.view_camera);
    /* The eye's direction from the target is (cos p sin y, sin p,
     * cos p cos y) (camera.c): yaw 0 is +Z, a quarter turn +X. */
    static const char *const names[3][2] = {{"+Z", "-Z"}, {"+X", "-X"}, {"+Y, the top", "-Y"}};
    v->camera.yaw = axis == 0 ? (negative ? half_turn : 0.0f)
                    : axis == 1 ? (negative ? -quarter_turn : quarter_turn)
                                : 0.0f;
    v->camera.pitch = axis == 2 ? (negative ? -quarter_turn : quarter_turn) : 0.0f;
    ds_viewer_frame_to_fit(v); /* ds_camera_frame() keeps the pitch off the pole */
    v->ui.view_key = key;
    v->ui.view_negative = negative;
    v->ui.view_camera = v->camera;
    ds_viewer_show_message(v, "view from %s (F%d again: %s; a file has no front)",
                           names[axis][negative], key - GLFW_KEY_F1 + 1, names[axis][!negative]);
}

/* Prints the view as the --camera option that restores it, and writes the
 * bare line to --camera-file when one was given. The view then snaps to
 * what the line reads back to (a float rounding away), so that a run
 * started from the line draws the very same image. */
void ds_viewer_save_camera(ds_viewer *v)
{
    char line[DS_CAMERA_LINE_MAX];
    ds_camera_format(&v->camera, line, sizeof line);
    if (ds_camera_parse(line, "camera", &v->camera) == DS_OK)
        ds_camera_enclose(&v->camera, v->model_center, v->model_radius);
    printf("--camera \"%s\"\n", line);
    fflush(stdout);
    if (!v->opts.camera_file) {
        ds_viewer_show_message(v, "camera: printed on stdout");
        return;
    }
    /* Beside the file, then renamed: a failed write keeps the old view. */
    FILE *file = ds_output_open(v->opts.camera_file, "cannot write the camera line");
    if (file && fprintf(file, "%s\n", line) <= 0) {
        ds_output_discard(file, v->opts.camera_file);
        ds_fail(DS_ERR_IO, "%s: cannot write the camera line", v->opts.camera_file);
        file = NULL;
    }
    if (file && ds_output_commit(file, v->opts.camera_file) == DS_OK)
        ds_viewer_show_message(v, "camera: written to %s", v->opts.camera_file);
    else
        ds_viewer_show_error(v, "camera");
}

/* M: the next colour mode; file colours only for a model that has them. */
void ds_viewer_cycle_color_mode(ds_viewer *v)
{
    ds_color_mode next = v->settings.color_mode;
    do
        next = next + 1 >= DS_COLOR_MODE_COUNT ? DS_COLOR_NORMAL : next + 1;
    while (next == DS_COLOR_AUTO || (next == DS_COLOR_FILE && !v->has_colors));
    ds_renderer_set_color_mode(v->renderer, next);
    v->settings.color_mode = ds_renderer_color_mode(v->renderer);
}

/* A: 1, 2, 4, 8 samples and back to 1; a count the GL refuses is shown as
 * an error and the next press starts again from 1. */
void ds_viewer_cycle_msaa(ds_viewer *v)
{
    int next = v->settings.msaa * 2;
    if (next > 8 || next > v->settings.msaa_max)
        next = 1;
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_msaa(v->renderer, next);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        v->settings.msaa_max = v->settings.msaa;
        ds_viewer_show_error(v, "msaa");
        return;
    }
    v->settings.msaa = ds_renderer_msaa(v->renderer);
}

void ds_viewer_scale_point_size(ds_viewer *v, float factor)
{
    ds_renderer_set_point_size(v->renderer, ds_renderer_point_size(v->renderer) * factor);
}

/* Makes `technique` the renderer's; on failure (the A-buffer's pool does
 * not fit) keeps the current one and shows why. */
void ds_viewer_select_technique(ds_viewer *v, ds_technique technique)
{
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_technique(v->renderer, technique);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        ds_viewer_show_error(v, ds_technique_name(technique));
        return;
    }
    v->settings.technique = ds_renderer_technique(v->renderer);
    v->settings.sorting = v->settings.technique != DS_TECHNIQUE_UNSORTED;
    /* The error shown was the previous technique's: measure again now. */
    v->error.have_result = 0;
    v->error.images_ready = 0;
    v->error.frames_to_measure = 0;
    v->error.split_announce = v->error.split; /* whether the halves now match */
    ds_viewer_reset_timings(v);
}

/* X: the techniques in the order of the registry's cycle column
 * (technique_registry.h), and round again; from one outside the cycle
 * (depth peeling, the second exact method, is for checking: --compare
 * peel), the first. */
void ds_viewer_cycle_technique(ds_viewer *v)
{
    int place = ds_technique_cycle(v->settings.technique);
    ds_technique first = DS_TECHNIQUE_COUNT, next = DS_TECHNIQUE_COUNT;
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        int at = ds_technique_cycle((ds_technique)t);
        if (at && (first == DS_TECHNIQUE_COUNT || at < ds_technique_cycle(first)))
            first = (ds_technique)t;
        if (place && at > place && (next == DS_TECHNIQUE_COUNT || at < ds_technique_cycle(next)))
            next = (ds_technique)t;
    }
    ds_viewer_select_technique(v, next != DS_TECHNIQUE_COUNT ? next : first);
}
