/* SPDX-License-Identifier: MIT */
/* viewer_input.c — the viewer's input (viewer_internal.h). Input has one
 * path: GLFW callbacks and --script steps both call handle_key(),
 * handle_mouse_button(), handle_cursor() and handle_scroll(); the keys'
 * effects are viewer_settings.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "setup.h"
#include "viewer_internal.h"

/* How near the split view's divider a press grabs it, in pixels. */
#define SPLIT_GRAB_PIXELS 6.0

/* ---- input: keys, mouse, the window's events ---------------------------- */

/* The keys that change what is drawn and how (viewer_settings.c does the
 * changing); 1 if `key` is one. */
static int drawing_key(ds_viewer *v, int key)
{
    ds_status status;
    switch (key) {
    case GLFW_KEY_S:
        v->settings.shuffle = !v->settings.shuffle;
        ds_renderer_set_shuffle(v->renderer, v->settings.shuffle);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_P: {
        ds_primitive next = v->settings.primitive == DS_PRIMITIVE_TRIANGLES ? DS_PRIMITIVE_POINTS
                                                                   : DS_PRIMITIVE_TRIANGLES;
        ds_log_set_quiet(1);
        status = ds_renderer_set_primitive(v->renderer, next);
        ds_log_set_quiet(0);
        if (status == DS_OK) {
            v->settings.primitive = next;
            ds_viewer_reset_timings(v);
        } else {
            ds_viewer_show_message(v, "primitive: %s", ds_last_error());
        }
        return 1;
    }
    case GLFW_KEY_K:
        v->settings.triangle_key =
            (ds_triangle_key)((v->settings.triangle_key + 1) % DS_TRIANGLE_KEY_COUNT);
        ds_renderer_set_triangle_key(v->renderer, v->settings.triangle_key);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_U:
        /* From any technique to the sorted draw, or sorted <-> unsorted. */
        ds_viewer_select_technique(v, v->settings.technique == DS_TECHNIQUE_SORTED
                                          ? DS_TECHNIQUE_UNSORTED
                                          : DS_TECHNIQUE_SORTED);
        return 1;
    case GLFW_KEY_X:
        ds_viewer_cycle_technique(v);
        return 1;
    case GLFW_KEY_D:
        v->error.mode = (error_view)((v->error.mode + 1) % ERROR_VIEW_COUNT);
        v->error.frames_to_measure = 0;
        v->error.have_result = 0;
        v->error.images_ready = 0;
        return 1;
    case GLFW_KEY_BACKSLASH:
        v->error.split = !v->error.split;
        v->error.frames_to_measure = 0;
        v->error.images_ready = 0;
        v->error.split_column = 0; /* under the model's centre again */
        v->error.split_dragging = 0;
        v->error.split_announce = v->error.split;
        if (v->error.split)
            ds_viewer_show_message(v, "split view: left as drawn (%s), right exact (A-buffer); "
                                      "the error line is on too",
                                   ds_technique_label(v->settings.technique));
        else
            ds_viewer_show_message(v, "split view off");
        return 1;
    case GLFW_KEY_T:
        ds_renderer_set_tiles(v->renderer, !ds_renderer_tiles(v->renderer));
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: {
        float step = (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) ? 1.0f : -1.0f;
        /* Round to the step so that repeated presses land on n / 20, and
         * divide: n / 20.0f is the float nearest n / 20, the one --alpha
         * parses, where n * 0.05f is not always (9 * 0.05f is 0.45000002,
         * so + then - from the default 0.45 drew a different picture). */
        float alpha = roundf(v->settings.alpha * ALPHA_STEPS + step) / ALPHA_STEPS;
        v->settings.alpha = fminf(1.0f, fmaxf(ALPHA_MIN, alpha));
        ds_renderer_set_alpha(v->renderer, v->settings.alpha);
        ds_viewer_reset_timings(v);
        return 1;
    }
    case GLFW_KEY_B:
        /* Light (the default, ds_app_default_background()) and dark. */
        v->settings.light_background = !v->settings.light_background;
        if (v->settings.light_background)
            ds_app_default_background(v->settings.background);
        else
            memcpy(v->settings.background, dark_background, sizeof v->settings.background);
        ds_renderer_set_background(v->renderer, v->settings.background);
        return 1;
    case GLFW_KEY_M:
        ds_viewer_cycle_color_mode(v);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_G:
        ds_renderer_set_opacity_mode(v->renderer, v->settings.opacity == DS_OPACITY_CONSTANT
                                                      ? DS_OPACITY_VIEW
                                                      : DS_OPACITY_CONSTANT);
        v->settings.opacity = ds_renderer_opacity_mode(v->renderer);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_LEFT_BRACKET:
    case GLFW_KEY_RIGHT_BRACKET:
        ds_viewer_scale_point_size(v, key == GLFW_KEY_RIGHT_BRACKET ? POINT_SIZE_STEP
                                                                    : 1.0f / POINT_SIZE_STEP);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_A:
        ds_viewer_cycle_msaa(v);
        ds_viewer_reset_timings(v);
        return 1;
    case GLFW_KEY_Y:
        ds_viewer_cycle_up(v);
        return 1;
    default:
        return 0;
    }
}

/* The keys of the view, the window and the session; 1 if `key` is one. */
static int view_key(ds_viewer *v, int key)
{
    switch (key) {
    case GLFW_KEY_F1:
    case GLFW_KEY_F2:
    case GLFW_KEY_F3:
        ds_viewer_axis_view(v, key);
        return 1;
    case GLFW_KEY_L:
        ds_viewer_save_camera(v);
        return 1;
    case GLFW_KEY_R:
        ds_viewer_reload_model(v, "reload", 0);
        return 1;
    case GLFW_KEY_C:
    case GLFW_KEY_F12:
        ds_viewer_next_screenshot_path(v, v->script.screenshot_path,
                                       sizeof v->script.screenshot_path);
        return 1;
    case GLFW_KEY_O:
        v->ui.panel_mode = (overlay_mode)((v->ui.panel_mode + 1) % OVERLAY_MODE_COUNT);
        return 1;
    case GLFW_KEY_H:
        v->ui.help_on = !v->ui.help_on;
        return 1;
    case GLFW_KEY_F:
        ds_viewer_frame_to_fit(v);
        return 1;
    case GLFW_KEY_F11:
        ds_viewer_toggle_fullscreen(v);
        return 1;
    case GLFW_KEY_V:
        if (v->present) {
            ds_viewer_show_message(v, "vsync: not available: each frame is copied into the "
                                      "window (%s)", ds_viewer_window_mode(v));
            return 1;
        }
        v->settings.vsync = !v->settings.vsync;
        ds_viewer_apply_vsync(v);
        return 1;
    case GLFW_KEY_ESCAPE:
        glfwSetWindowShouldClose(v->window, GLFW_TRUE);
        return 1;
    default:
        return 0;
    }
}

/* One key press (or repeat), from GLFW or the script. */
static void handle_key(ds_viewer *v, int key, int mods)
{
    ds_sort_algo algo = ds_viewer_sort_for_key(key);
    if (algo != DS_SORT_ALGO_COUNT) {
        ds_viewer_select_sort(v, algo, 0);
        return;
    }
    if (ds_viewer_key_selects_gl(key)) {
        ds_viewer_select_gl(v, 0);
        return;
    }
    if (key == GLFW_KEY_TAB) {
        ds_viewer_cycle_sort(v, (mods & GLFW_MOD_SHIFT) ? -1 : 1);
        return;
    }
    if (key == GLFW_KEY_C && (mods & GLFW_MOD_SHIFT)) {
        /* The picture alone: the model's view, without panels. */
        ds_viewer_next_screenshot_path(v, v->script.screenshot_path,
                                       sizeof v->script.screenshot_path);
        v->script.screenshot_alone = 1;
        return;
    }
    if (!drawing_key(v, key))
        view_key(v, key);
}

static void handle_mouse_button(ds_viewer *v, int button, int pressed, double x, double y)
{
    v->cursor_x = x;
    v->cursor_y = y;
    /* The split view's divider, grabbed within a few pixels, follows the
     * left button instead of the model turning. */
    if (button == GLFW_MOUSE_BUTTON_LEFT && pressed && v->error.split &&
        fabs(x - (double)ds_viewer_split_column(v)) <= SPLIT_GRAB_PIXELS) {
        v->error.split_dragging = 1;
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_LEFT && !pressed)
        v->error.split_dragging = 0;
    if (button == GLFW_MOUSE_BUTTON_LEFT)
        v->left_down = pressed;
    else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE)
        v->pan_down = pressed;
}

static void handle_cursor(ds_viewer *v, double x, double y)
{
    float dx = (float)(x - v->cursor_x);
    float dy = (float)(y - v->cursor_y);
    int window_height = 0, window_width = 0;
    v->cursor_x = x;
    v->cursor_y = y;
    if (v->error.split_dragging) {
        int column = (int)lround(x);
        v->error.split_column = column < 1 ? 1 : column > v->fb_width - 1 ? v->fb_width - 1 : column;
    } else if (v->left_down) {
        /* Dragging right turns the model right: the eye moves left. */
        ds_camera_orbit(&v->camera, -dx * ORBIT_RADIANS_PER_PIXEL, dy * ORBIT_RADIANS_PER_PIXEL);
    } else if (v->pan_down) {
        glfwGetWindowSize(v->window, &window_width, &window_height);
        if (window_height <= 0)
            return;
        /* One window height spans 2 tan(fov/2) distances at the target, so
         * the point under the cursor follows it. */
        float per_pixel = 2.0f * tanf(0.5f * v->camera.fov_y) / (float)window_height;
        ds_camera_pan(&v->camera, -dx * per_pixel, dy * per_pixel);
    }
}

static void handle_scroll(ds_viewer *v, double notches)
{
    ds_camera_zoom(&v->camera, powf(ZOOM_PER_NOTCH, (float)-notches));
}

/* The window's new size; the model's viewport follows (viewer_ui.c). */
static void handle_resize(ds_viewer *v, int width, int height)
{
    v->window_width = width;
    v->window_height = height;
    ds_viewer_layout_model_area(v);
}

/* A file dropped on the window: loaded as R reloads, framed; a failed load
 * keeps the current model. */
static void handle_drop(ds_viewer *v, const char *path)
{
    char previous[sizeof v->model_path];
    const char *previous_path = v->opts.model_path;
    snprintf(previous, sizeof previous, "%s", v->model_path);
    snprintf(v->model_path, sizeof v->model_path, "%s", path);
    v->opts.model_path = v->model_path;
    if (ds_viewer_reload_model(v, "open", RELOAD_FRAME | RELOAD_NEW_MODEL) == DS_OK) {
        v->opts.point_size = 0.0f; /* the option was for the first model */
        return;
    }
    memcpy(v->model_path, previous, sizeof previous);
    v->opts.model_path = previous_path;
}

/* ---- GLFW callbacks: unpack and hand over ------------------------------- */

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    ds_viewer *v = glfwGetWindowUserPointer(window);
    (void)scancode;
    /* A key typed into a panel's field is not a hotkey. */
    if ((action == GLFW_PRESS || action == GLFW_REPEAT) && !ds_ui_wants_keyboard(v->panels))
        handle_key(v, key, mods);
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods)
{
    ds_viewer *v = glfwGetWindowUserPointer(window);
    double x, y;
    (void)mods;
    /* A press on a panel is the panel's; a release always ends a drag. */
    if (action == GLFW_PRESS && ds_ui_wants_mouse(v->panels))
        return;
    glfwGetCursorPos(window, &x, &y);
    handle_mouse_button(v, button, action == GLFW_PRESS, x, y);
}

static void on_cursor(GLFWwindow *window, double x, double y)
{
    handle_cursor(glfwGetWindowUserPointer(window), x, y);
}

static void on_scroll(GLFWwindow *window, double dx, double dy)
{
    ds_viewer *v = glfwGetWindowUserPointer(window);
    (void)dx;
    if (!ds_ui_wants_mouse(v->panels))
        handle_scroll(v, dy);
}

static void on_framebuffer_size(GLFWwindow *window, int width, int height)
{
    handle_resize(glfwGetWindowUserPointer(window), width, height);
}

static void on_drop(GLFWwindow *window, int count, const char **paths)
{
    ds_viewer *v = glfwGetWindowUserPointer(window);
    if (count <= 0)
        return;
    handle_drop(v, paths[0]);
    if (count > 1)
        ds_viewer_show_message(v, "%d files dropped: opened the first", count);
}

void ds_viewer_attach_input(ds_viewer *v)
{
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_mouse_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    glfwSetFramebufferSizeCallback(v->window, on_framebuffer_size);
    glfwSetDropCallback(v->window, on_drop);
}

/* ---- the script --------------------------------------------------------- */

static void script_drag(ds_viewer *v, const ds_script_step *step)
{
    double x = 0.5 * v->fb_width, y = 0.5 * v->fb_height;
    handle_mouse_button(v, step->button, 1, x, y);
    for (int i = 1; i <= DRAG_STEPS; i++)
        handle_cursor(v, x + step->dx * i / DRAG_STEPS, y + step->dy * i / DRAG_STEPS);
    handle_mouse_button(v, step->button, 0, x + step->dx, y + step->dy);
}

/* A step the viewer could not apply: one warning naming the line, and
 * the run's exit status 1. */
static void script_step_failed(ds_viewer *v, const ds_script_step *step, const char *what)
{
    ds_warn("%s: line %d: %s", v->opts.script_path, step->line, what);
    v->script.failed = 1;
}

/* "set": as the keys would change it, to the value given. */
static void script_set(ds_viewer *v, const ds_script_step *step)
{
    switch (step->setting) {
    case DS_SCRIPT_SET_ALPHA:
        v->settings.alpha = step->dy;
        ds_renderer_set_alpha(v->renderer, v->settings.alpha);
        break;
    case DS_SCRIPT_SET_COLOR:
        if (step->count == DS_COLOR_FILE && !v->has_colors) {
            script_step_failed(v, step, "set color file: the model has no colours");
            return;
        }
        ds_renderer_set_color_mode(v->renderer, (ds_color_mode)step->count);
        v->settings.color_mode = ds_renderer_color_mode(v->renderer);
        break;
    case DS_SCRIPT_SET_KEY:
        v->settings.triangle_key = (ds_triangle_key)step->count;
        ds_renderer_set_triangle_key(v->renderer, v->settings.triangle_key);
        break;
    case DS_SCRIPT_SET_BITS: {
        /* Key bits are fixed when a renderer is made: a new one. */
        int previous = v->opts.key_bits;
        v->opts.key_bits = step->count;
        if (ds_viewer_reload_model(v, "key bits", 0) != DS_OK) {
            v->opts.key_bits = previous;
            script_step_failed(v, step, "set bits: the renderer could not be made again");
            return;
        }
        break;
    }
    }
    ds_viewer_reset_timings(v);
}

/* sort NAME: the GL sort or a sorter, chosen as its hotkey would; a sort
 * that cannot run fails the script. */
static void script_sort(ds_viewer *v, const ds_script_step *step)
{
    int ok = strcmp(step->path, DS_SORT_GL_NAME) == 0
                 ? ds_viewer_select_gl(v, 1)
                 : ds_viewer_select_sort(v, ds_sort_algo_from_name(step->path), 1);
    if (!ok) {
        char what[256];
        snprintf(what, sizeof what, "sort %s: %s", step->path, v->ui.sort_note);
        script_step_failed(v, step, what);
    }
}

/* technique NAME: chosen as its hotkey would; one that cannot be selected
 * fails the script. */
static void script_technique(ds_viewer *v, const ds_script_step *step)
{
    ds_viewer_select_technique(v, (ds_technique)step->count);
    if (v->settings.technique != (ds_technique)step->count) {
        char what[128];
        snprintf(what, sizeof what, "technique %s could not be selected",
                 ds_technique_name((ds_technique)step->count));
        script_step_failed(v, step, what);
    }
}

/* camera "LINE": the view set as --camera would, enclosing the model; a
 * bad line (logged by ds_camera_parse) fails the script. */
static void script_camera(ds_viewer *v, const ds_script_step *step)
{
    char what[64];
    snprintf(what, sizeof what, "%s: line %d: camera", v->opts.script_path, step->line);
    if (ds_camera_parse(step->path, what, &v->camera) == DS_OK)
        ds_camera_enclose(&v->camera, v->model_center, v->model_radius);
    else
        v->script.failed = 1;
}

/* report: one line on stdout with the overlay's means, for a script to
 * compare with the headless runner's for the same view. */
static void script_report(ds_viewer *v)
{
    stage_means means;
    char sort[64];
    ds_viewer_collect_timings(v);
    ds_viewer_mean_timings(v, &means);
    ds_viewer_sort_label(v, sort, sizeof sort);
    /* render: the renderer's own frame (stages, hand-over, draw),
     * what a busy headless frame is; frame adds what the viewer
     * draws and waits for between frames. */
    float stages = means.distances + means.keys + means.shuffle + means.sort +
                   means.scatter;
    printf("report: sort %s, technique %s, alpha %.2f, %dx%d, %d frames: frame %.4f "
           "ms, render %.4f ms, draw %.4f ms, stages %.4f ms (keys %.4f, sort %.4f, "
           "scatter %.4f), handover %.4f ms, interop %.4f ms, window %s, on %s\n",
           sort + (sort[0] && sort[1] == ' ' ? 2 : 0),
           ds_technique_name(v->settings.technique), (double)v->settings.alpha,
           v->fb_width, v->fb_height,
           v->timings.history_count, (double)means.frame,
           (double)(stages + means.handover + means.draw), (double)means.draw,
           (double)stages,
           (double)means.keys, (double)means.sort, (double)means.scatter,
           (double)means.handover, (double)means.interop, ds_viewer_window_mode(v),
           ds_renderer_gpu_name(v->renderer));
    fflush(stdout);
}

/* Runs script steps until one asks for frames, a wait is on, or the
 * script ends; at its end without quit or stay, closes the window. */
void ds_viewer_run_script(ds_viewer *v)
{
    const ds_script_step *waiting = v->script.waiting_for_file;
    if (waiting) {
        if (access(waiting->path, F_OK) != 0) {
            if (ds_now_ms() < v->script.wait_until_ms)
                return;
            char what[DS_SCRIPT_MAX_LINE + 64];
            snprintf(what, sizeof what, "wait file %s: none after %.0f s", waiting->path,
                     DS_SCRIPT_WAIT_FILE_MS / 1000.0);
            script_step_failed(v, waiting, what);
        }
        v->script.waiting_for_file = NULL;
        v->script.wait_until_ms = 0.0;
    }
    if (v->script.wait_until_ms > 0.0) {
        if (ds_now_ms() < v->script.wait_until_ms)
            return;
        v->script.wait_until_ms = 0.0;
    }
    if (v->script.frames_left == 0)
        v->script.orbit_step = 0.0f;
    while (v->script.frames_left == 0 && v->script.wait_until_ms == 0.0 &&
           v->script.next < v->script.steps.count && !glfwWindowShouldClose(v->window)) {
        const ds_script_step *step = &v->script.steps.steps[v->script.next++];
        switch (step->op) {
        case DS_SCRIPT_FRAMES:
            v->script.frames_left = step->count;
            break;
        case DS_SCRIPT_KEY:
            handle_key(v, step->key, step->mods);
            break;
        case DS_SCRIPT_DRAG:
            script_drag(v, step);
            break;
        case DS_SCRIPT_SCROLL:
            handle_scroll(v, step->dy);
            break;
        case DS_SCRIPT_SCREENSHOT:
            ds_viewer_expand_screenshot_name(v, step->path, v->script.screenshot_path,
                                             sizeof v->script.screenshot_path);
            v->script.screenshot_scripted = 1;
            v->script.screenshot_alone = !v->opts.screenshot_overlay;
            v->script.frames_left = 1; /* taken at the end of the next frame */
            break;
        case DS_SCRIPT_DROP:
            handle_drop(v, step->path);
            break;
        case DS_SCRIPT_QUIT:
            glfwSetWindowShouldClose(v->window, GLFW_TRUE);
            break;
        case DS_SCRIPT_STAY:
            v->script.next = v->script.steps.count;
            v->script.stay = 1;
            break;
        case DS_SCRIPT_SORT:
            script_sort(v, step);
            break;
        case DS_SCRIPT_TECHNIQUE:
            script_technique(v, step);
            break;
        case DS_SCRIPT_SET:
            script_set(v, step);
            break;
        case DS_SCRIPT_CAMERA:
            script_camera(v, step);
            break;
        case DS_SCRIPT_ORBIT:
            /* The view turns after each of the frames (viewer.c). */
            v->script.frames_left = step->count;
            v->script.orbit_step = step->dx * ((float)M_PI / 180.0f) / (float)step->count;
            break;
        case DS_SCRIPT_WAIT:
            v->script.wait_until_ms = ds_now_ms() + step->dy;
            break;
        case DS_SCRIPT_WAIT_FILE:
            /* Checked before each later frame (above), drawing meanwhile. */
            v->script.waiting_for_file = step;
            v->script.wait_until_ms = ds_now_ms() + DS_SCRIPT_WAIT_FILE_MS;
            break;
        case DS_SCRIPT_REPORT:
            script_report(v);
            break;
        }
    }
    if (v->script.steps.count && v->script.next == v->script.steps.count &&
        v->script.frames_left == 0 && v->script.wait_until_ms == 0.0 && !v->script.stay &&
        !v->script.ended && !glfwWindowShouldClose(v->window)) {
        /* A script without quit would leave a test run waiting forever. */
        v->script.ended = 1;
        ds_warn("%s: the script ended without quit or stay; closing the window",
                v->opts.script_path);
        glfwSetWindowShouldClose(v->window, GLFW_TRUE);
    }
}
