/* SPDX-License-Identifier: MIT */
/* viewer.c — the interactive GLFW viewer: a GL 4.5 core window that drives
 * the renderer every frame, maps keys and mouse to its settings and the
 * camera, and draws the timing overlay. Holds no algorithm: sorting and
 * drawing are the renderer's; the viewer only chooses, times and shows.
 * This file opens the window, draws one frame (the renderer's, the error
 * view, the overlay, a pending screenshot) and runs the loop;
 * viewer_internal.h maps the other files.
 *
 * The window gets its GL one of two ways (--gl-window): GLX's 4.5 core
 * context, drawing into the window's framebuffer 0; or, where the display
 * offers no GLX context for the GPU (NVIDIA's GLX client under Xvfb), a
 * GL-less window and an EGL context on the device, drawing into a
 * framebuffer object that x11_present.c copies into the window after each
 * frame. Everything draws into v->target, which is one or the other.
 *
 * Timings shown are the renderer's GPU timers (rolling means over the last
 * HISTORY frames), which never include the copy into the window; the
 * frame rate uses the CPU clock between buffer swaps (or copies), and is
 * labelled so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "clock.h"
#include "screenshot.h"
#include "setup.h"
#include "viewer_internal.h"

int ds_viewer_display_available(void)
{
    const char *x11 = getenv("DISPLAY");
    const char *wayland = getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

/* ---- frames ------------------------------------------------------------- */

/* The model's view alone, drawn again off-screen at --supersample times
 * its size and averaged down, over black and white for
 * --screenshot-alpha (screenshot.h), into dest (fb_width × fb_height, top
 * row first). The window's picture of this frame is untouched; the
 * renderer gets its size and background back before the panels and the
 * next frame, and the frames drawn here stay out of the timings. */
static ds_status draw_model_alone(ds_viewer *v, int scale, int alpha, uint8_t *dest)
{
    ds_status status = ds_screenshot_draw(v->renderer, &v->camera, v->fb_width, v->fb_height,
                                          scale, alpha, dest);
    v->timings.frames_rendered += alpha ? 2 : 1;
    ds_renderer_set_background(v->renderer, v->settings.background);
    ds_status back = ds_renderer_resize(v->renderer, v->fb_width, v->fb_height);
    ds_viewer_reset_timings(v);
    return status ? status : back;
}

/* The window's picture into dest (top row first, opaque): GLX's back
 * buffer, or the framebuffer that is copied into the window; the whole
 * window, or for a shot alone the model's viewport (fb_width × fb_height
 * from the left edge, taken before the panels are drawn). */
static void read_window(const ds_viewer *v, int alone, int width, int height, uint8_t *dest)
{
    int bottom = alone ? v->window_height - v->fb_height : 0; /* GL rows from the bottom */
    if (bottom < 0)
        bottom = 0;
    size_t row = 4 * (size_t)width;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, v->target);
    glReadBuffer(v->target ? GL_COLOR_ATTACHMENT0 : GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, bottom, width, height, GL_RGBA, GL_UNSIGNED_BYTE, dest);
    /* GL's rows start at the bottom, PNG's at the top; the window's
     * alpha channel is meaningless in a picture, so it is made opaque. */
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = dest + row * (size_t)y, *b = dest + row * (size_t)(height - 1 - y);
        for (size_t i = 0; i < row; i++) {
            uint8_t swap = a[i];
            a[i] = b[i];
            b[i] = swap;
        }
    }
    for (size_t i = 0; i < (size_t)width * (size_t)height; i++)
        dest[4 * i + 3] = 255;
}

/* Writes the pending screenshot as PNG: the whole window (panels
 * included), or the model's view alone. --supersample and
 * --screenshot-alpha draw the view alone again off-screen; a shot with
 * the panels, or of the error view (D's heatmap, \'s split), is the
 * window's picture as shown, which the first such shot says once. */
static void save_screenshot(ds_viewer *v)
{
    int alone = v->script.screenshot_alone;
    int scale = v->opts.supersample > 1 ? v->opts.supersample : 1;
    int alpha = v->opts.screenshot_alpha;
    int error_shown = v->error.images_ready && (v->error.mode == ERROR_HEATMAP || v->error.split);
    int redraw = alone && !error_shown && (scale > 1 || alpha);
    if ((scale > 1 || alpha) && !redraw && !v->script.said_as_shown) {
        ds_warn("screenshot %s: %s is taken as shown, at the window's size: --supersample and "
                "--screenshot-alpha shape the model's view alone (Shift+C; a script's "
                "screenshot without --screenshot-overlay on)",
                v->script.screenshot_path, alone ? "the error view" : "a picture with the panels");
        v->script.said_as_shown = 1;
    }
    int width = alone ? v->fb_width : v->window_width;
    int height = alone ? v->fb_height : v->window_height;
    uint8_t *pixels = malloc(4 * (size_t)width * (size_t)height);
    ds_status status = DS_OK;
    if (!pixels)
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "screenshot: out of memory");
    else if (redraw)
        status = draw_model_alone(v, scale, alpha, pixels);
    else
        read_window(v, alone, width, height, pixels);
    if (status == DS_OK) {
        char size[96], camera[256];
        snprintf(size, sizeof size, "%dx%d, %s, supersample %d%s", width, height,
                 alone ? "model alone" : "panels", redraw ? scale : 1,
                 redraw && alpha ? ", transparent" : "");
        ds_camera_format(&v->camera, camera, sizeof camera);
        const ds_screenshot_info info = {
            .model = v->model_path[0] ? v->model_path : NULL,
            .technique = ds_technique_name(v->settings.technique),
            .sort = ds_app_sort_name(v->settings.stages, v->settings.sort),
            .size = size,
            .camera = camera};
        status = ds_screenshot_write(v->script.screenshot_path, width, height, pixels, &info);
    }
    if (status == DS_OK) {
        printf("screenshot: %s\n", v->script.screenshot_path);
        fflush(stdout);
        if (!v->script.screenshot_scripted) /* a script's shots stay clean */
            ds_viewer_show_message(v, "screenshot: %s", v->script.screenshot_path);
    } else {
        ds_viewer_show_message(v, "screenshot failed: %s", ds_last_error());
        if (v->script.screenshot_scripted)
            v->script.failed = 1; /* the run's exit status says so */
    }
    free(pixels);
    v->script.screenshot_path[0] = '\0';
    v->script.screenshot_scripted = 0;
    v->script.screenshot_alone = 0;
}

/* Renders, overlays, saves a pending screenshot and swaps. Returns DS_OK or
 * the renderer's error (already logged). */
static ds_status render_frame(ds_viewer *v)
{
    ds_viewer_layout_model_area(v); /* the panels shown, collapsed or hidden */
    double start_ms = ds_now_ms();
    ds_status status;
    if (v->present) { /* the copied window's framebuffer follows its size */
        if ((status = ds_x11_present_resize(v->present, v->window_width, v->window_height)))
            return status;
        v->target = ds_x11_present_framebuffer(v->present);
    }
    status = ds_renderer_frame(v->renderer, &v->camera, v->target);
    if (status != DS_OK)
        return status;
    v->timings.frames_rendered++;
    int measured = 0, error_view_on = v->error.mode != ERROR_OFF || v->error.split;
    if (error_view_on && ds_viewer_ensure_error_targets(v)) {
        if (v->error.frames_to_measure <= 0) {
            double measure_start = ds_now_ms();
            if ((status = ds_viewer_measure_error(v)) != DS_OK)
                return status;
            ds_viewer_update_error_rate(v, ds_now_ms() - measure_start, 0.0);
            v->error.frames_to_measure = v->error.every;
            measured = 1;
        }
        /* A submit replaces the one before it: what comes back is the
         * latest measurement, once the GPU has finished it. */
        if (ds_image_metrics_poll(v->error.metrics, 0, &v->error.result)) {
            v->error.have_result = 1;
            if (v->error.split_announce)
                ds_viewer_announce_split(v);
        }
        v->error.frames_to_measure--;
        ds_viewer_show_error_images(v);
    }
    if (v->script.screenshot_path[0] && v->script.screenshot_alone)
        save_screenshot(v); /* before the panels and the overlay */
    ds_viewer_collect_timings(v);
    int show_message_line = ds_now_ms() < v->ui.message_until_ms;
    if (v->panels) {
        /* The split view's divider and labels under the panels (which
         * show the heatmap's colour bar themselves). */
        if (v->error.images_ready && v->error.split && v->error.mode != ERROR_HEATMAP) {
            glBindFramebuffer(GL_FRAMEBUFFER, v->target);
            ds_overlay_begin(v->overlay, v->window_width, v->window_height);
            ds_viewer_draw_error_keys(v, DS_OVERLAY_SCALE(v->fb_height));
            ds_overlay_draw(v->overlay);
        }
        ds_viewer_draw_panels(v, show_message_line);
    } else if (v->ui.panel_mode != OVERLAY_OFF || v->ui.help_on || show_message_line ||
               (v->error.images_ready && (v->error.mode == ERROR_HEATMAP || v->error.split))) {
        int scale = DS_OVERLAY_SCALE(v->fb_height);
        /* Over the window's picture: with MSAA the renderer drew into its
         * own framebuffer and resolved into the window's. */
        glBindFramebuffer(GL_FRAMEBUFFER, v->target);
        ds_overlay_begin(v->overlay, v->window_width, v->window_height);
        /* The error views' keys: the heatmap's colour bar, the split's
         * divider and labels (under the panels). */
        ds_viewer_draw_error_keys(v, scale);
        if (v->ui.panel_mode != OVERLAY_OFF)
            ds_viewer_draw_stats(v, scale);
        if (show_message_line)
            ds_viewer_draw_message(v, scale);
        if (v->ui.help_on)
            ds_viewer_draw_help(v, scale);
        ds_overlay_draw(v->overlay);
    }
    if (v->script.screenshot_path[0])
        save_screenshot(v);
    /* After the renderer's timestamps: the GPU frame time never holds the
     * copy into the window; the CPU clock's frame does. A CUDA sort that
     * waits for the host between its steps (quick) would meet this
     * frame's read-back on the bus during the next frame, each of its
     * reports queued behind up to the whole frame's bytes: for it the
     * read-back finishes first. */
    if (v->present)
        status = ds_x11_present_frame(v->present,
                                      ds_renderer_interop(v->renderer) != DS_INTEROP_NONE &&
                                          ds_sort_algo_host_paced(ds_renderer_sort(v->renderer)));
    else
        glfwSwapBuffers(v->window);
    if (status != DS_OK)
        return status;
    /* The panels and the window's read-back stay out of the next frame's
     * hand-over. */
    ds_renderer_between_frames(v->renderer);
    double now = ds_now_ms();
    ds_viewer_record_cpu_frame(v, now);
    if (error_view_on && !measured)
        ds_viewer_update_error_rate(v, 0.0, now - start_ms);
    return DS_OK;
}

/* ---- setup and the main loop -------------------------------------------- */

static void on_glfw_error(int code, const char *description)
{
    ds_warn("glfw: %s (0x%x)", description, code);
}

/* GLFW's last error's description, cleared; "" when none. GLFW keeps it
 * whether or not an error callback is set. */
static const char *glfw_last_error(void)
{
    const char *description = NULL;
    glfwGetError(&description);
    return description ? description : "";
}

/* A window with GLX's OpenGL 4.5 core context, or NULL with GLFW's reason
 * in `why` (its errors are not printed: the caller says one line). */
static GLFWwindow *glx_window(int width, int height, const char *title, char *why,
                              size_t capacity)
{
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    glfw_last_error();
    glfwSetErrorCallback(NULL);
    GLFWwindow *window = glfwCreateWindow(width, height, title, NULL, NULL);
    if (!window)
        snprintf(why, capacity, "%s", glfw_last_error());
    glfwSetErrorCallback(on_glfw_error);
    return window;
}

/* A window without GL, an EGL context on the device (the headless
 * runner's choice, so that CUDA interop works) and the copy between. */
static ds_status egl_window(ds_viewer *v, int width, int height, const char *title)
{
    ds_status status;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    v->window = glfwCreateWindow(width, height, title, NULL, NULL);
    if (!v->window)
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: could not open a window");
    if ((status = ds_egl_context_create(0, &v->egl)) ||
        (status = ds_x11_present_create(v->window, &v->present)))
        return status;
    return DS_OK;
}

static ds_status open_window(ds_viewer *v, const ds_options *opts, const char *title)
{
    int width = opts->width > 0 ? opts->width : 1280;
    int height = opts->height > 0 ? opts->height : 720;
    GLFWmonitor *monitor;
    ds_status status;

    /* Quiet until the window is open: each failure below is one line. */
    glfw_last_error();
    glfwSetErrorCallback(NULL);
    if (!glfwInit()) {
        const char *display = getenv("DISPLAY");
        return ds_fail(DS_ERR_NO_DEVICE, "viewer: GLFW could not open the display %s (%s)",
                       display && *display ? display : "(DISPLAY unset)", glfw_last_error());
    }
    glfwSetErrorCallback(on_glfw_error);
    /* Do not open a window larger than the screen's work area. */
    monitor = glfwGetPrimaryMonitor();
    if (monitor) {
        int wx, wy, ww = 0, wh = 0;
        glfwGetMonitorWorkarea(monitor, &wx, &wy, &ww, &wh);
        if (ww > 0 && wh > 0 && (width > ww || height > wh)) {
            float shrink = fminf((float)ww / (float)width, (float)wh / (float)height);
            width = (int)((float)width * shrink);
            height = (int)((float)height * shrink);
        }
    }
    char why[256] = "";
    if (opts->gl_window != DS_GL_WINDOW_EGL)
        v->window = glx_window(width, height, title, why, sizeof why);
    if (v->window) {
        glfwMakeContextCurrent(v->window);
        if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress))
            return ds_fail(DS_ERR_GL, "viewer: could not load the OpenGL 4.5 functions");
    } else if (opts->gl_window == DS_GL_WINDOW_GLX) {
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "viewer: could not open a window with an OpenGL 4.5 core context (%s); "
                       "--gl-window egl draws with EGL and copies each frame into the window",
                       why);
    } else {
        if ((status = egl_window(v, width, height, title)))
            return status;
        if (opts->gl_window == DS_GL_WINDOW_AUTO)
            ds_warn("viewer: no GLX OpenGL 4.5 context on this display (%s); drawing with EGL "
                    "on %s and copying each frame into the window (%s, no vsync)",
                    why, ds_egl_context_platform(v->egl), ds_x11_present_method(v->present));
        v->settings.vsync = 0; /* a copy waits for no vertical blank */
    }
    ds_viewer_attach_input(v);
    glfwGetFramebufferSize(v->window, &v->window_width, &v->window_height);
    v->fb_width = v->window_width;
    v->fb_height = v->window_height;
    if (v->present && v->window_width > 0 && v->window_height > 0) {
        if ((status = ds_x11_present_resize(v->present, v->window_width, v->window_height)))
            return status;
        v->target = ds_x11_present_framebuffer(v->present);
    }
    return DS_OK;
}

/* The stats panel's first mode: --overlay's, or for auto, full where it
 * fits a window of the size asked (--size), else compact. The asked size,
 * not the opened one: a window manager that trims the default window to
 * its work area should not change the panel. */
static overlay_mode start_panel_mode(ds_overlay_start start, int width, int height)
{
    switch (start) {
    case DS_OVERLAY_START_FULL:
        return OVERLAY_FULL;
    case DS_OVERLAY_START_COMPACT:
        return OVERLAY_COMPACT;
    case DS_OVERLAY_START_OFF:
        return OVERLAY_OFF;
    case DS_OVERLAY_START_AUTO:
        break;
    }
    return 5 * FULL_PANEL_WIDTH * DS_OVERLAY_SCALE(height) <= 2 * width ? OVERLAY_FULL
                                                                        : OVERLAY_COMPACT;
}

static void initial_settings(ds_viewer *v, const ds_options *opts)
{
    v->opts = *opts;
    if (opts->model_path) {
        snprintf(v->model_path, sizeof v->model_path, "%s", opts->model_path);
        v->opts.model_path = v->model_path;
    }
    v->settings.sort = ds_app_first_sort(opts->sort);
    v->settings.stages =
        opts->stages == DS_STAGES_GL ? DS_STAGES_GL : DS_STAGES_SORTER; /* until created */
    v->settings.shuffle = opts->shuffle;
    v->settings.primitive = opts->primitive;
    v->settings.triangle_key = opts->triangle_key;
    v->settings.sorting = !opts->no_sort;
    v->settings.technique = opts->no_sort ? DS_TECHNIQUE_UNSORTED : DS_TECHNIQUE_SORTED;
    /* --raster compute starts in compute-exact unless the order is the
     * triangles' (the renderer then starts so, where it can). */
    if (opts->raster == DS_RASTER_COMPUTE && opts->raster_order == DS_RASTER_FRAGMENT_ORDER &&
        !opts->no_sort)
        v->settings.technique = DS_TECHNIQUE_COMPUTE_EXACT;
    ds_viewer_forget_reference_frames(v);
    v->settings.alpha = opts->alpha > 0.0f ? opts->alpha : 0.45f;
    v->settings.up = opts->up;
    v->settings.msaa_max = 8;
    /* The default light background, as headless runs draw it, so that a
     * viewer screenshot matches their pixels. */
    v->settings.light_background = 1;
    ds_app_default_background(v->settings.background);
    if (opts->background_given) {
        memcpy(v->settings.background, opts->background, sizeof opts->background);
        v->settings.background[3] = 1.0f;
    }
    v->ui.panel_mode = start_panel_mode(opts->overlay, opts->width, opts->height);
    v->settings.vsync = opts->vsync;
    v->ui.help_lines = ds_hotkey_help(HELP_KEY_COLUMN, HELP_WIDTH, v->ui.help, DS_HOTKEY_LINES_MAX);
}

static void close_viewer(ds_viewer *v)
{
    ds_script_free(&v->script.steps);
    /* GL objects exist only where a context was made: GLX's window's, or
     * the EGL context (which stays current). */
    int has_gl = v->egl || (v->window &&
                            glfwGetWindowAttrib(v->window, GLFW_CLIENT_API) != GLFW_NO_API);
    if (has_gl) {
        if (!v->egl)
            glfwMakeContextCurrent(v->window);
        ds_ui_destroy(v->panels);
        ds_overlay_destroy(v->overlay);
        ds_viewer_free_error_targets(v);
        ds_renderer_destroy(v->renderer);
        ds_x11_present_destroy(v->present);
    }
    ds_egl_context_destroy(v->egl);
    if (v->window)
        glfwDestroyWindow(v->window);
    glfwTerminate();
}

int ds_viewer_run(const ds_options *opts)
{
    ds_viewer *v;
    ds_mesh mesh = {0};
    ds_status status;
    int exit_status = 1;

    v = calloc(1, sizeof *v);
    if (!v) {
        ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: out of memory");
        return 1;
    }
    initial_settings(v, opts);
    if (opts->script_path && ds_script_load(opts->script_path, &v->script.steps) != DS_OK)
        goto done;

    /* The model first: a long load shows its progress before a window. */
    if ((status = ds_viewer_build_mesh(&v->opts, &mesh)) != DS_OK) {
        if (status == DS_ERR_INVALID_ARG)
            exit_status = 2; /* an option (--grid) asked too much */
        goto done;
    }
    if (open_window(v, &v->opts, "depthsort") != DS_OK)
        goto done;
    ds_viewer_set_title(v);
    ds_viewer_apply_vsync(v);
    if (v->opts.ui != DS_UI_TEXT)
        ds_viewer_open_panels(v); /* before the renderer: it is made beside them */
    status = ds_viewer_install_mesh(v, &v->opts, &mesh);
    if (status == DS_OK) {
        ds_app_note_missing_sorts();
        ds_app_warn_ignored(&v->opts, &mesh, v->renderer);
        /* The first view: 20 degrees above the horizon, framed, unless
         * --camera or --camera-file name one. */
        v->camera.pitch = VIEW_PITCH;
        ds_viewer_frame_to_fit(v);
        /* A --camera-file the viewer cannot read as a camera line (an old
         * or hand-edited one) is a warning: a person sees the framed view,
         * and L writes a good line over it (measured runs refuse it:
         * ds_app_start_camera_measured()). Other failures stay errors. */
        ds_camera framed = v->camera;
        int from_file = !v->opts.camera && v->opts.camera_file;
        ds_log_set_quiet(from_file);
        status = ds_app_start_camera(&v->opts, &mesh, &v->camera, NULL);
        ds_log_set_quiet(0);
        char reason[1024];
        snprintf(reason, sizeof reason, "%s", ds_last_error()); /* ds_fail() overwrites it */
        if (from_file && status == DS_ERR_PARSE) {
            ds_warn("%s; ignored, starting from the framed view (L writes a good line; headless "
                    "runs refuse such a file)", reason);
            v->camera = framed;
            status = DS_OK;
        } else if (from_file && status != DS_OK) {
            ds_fail(status, "%s", reason);
        }
    }
    ds_mesh_free(&mesh); /* the renderer holds its own copy */
    if (status != DS_OK)
        goto done;

    status = ds_overlay_create(&v->overlay);
    if (status != DS_OK)
        goto done;
    v->timings.last_swap_ms = ds_now_ms();

    exit_status = 0;
    while (!glfwWindowShouldClose(v->window)) {
        glfwPollEvents();
        ds_viewer_run_script(v);
        if (glfwWindowShouldClose(v->window))
            break;
        if (v->fb_width <= 0 || v->fb_height <= 0) {
            glfwWaitEvents(); /* minimised */
            continue;
        }
        if (render_frame(v) != DS_OK) {
            exit_status = 1;
            break;
        }
        if (v->script.frames_left > 0) {
            v->script.frames_left--;
            v->camera.yaw += v->script.orbit_step; /* a script's orbit */
        }
    }
    if (v->script.failed)
        exit_status = 1;
    if (exit_status == 0 && ds_renderer_finish(v->renderer) != DS_OK)
        exit_status = 1;
    if (exit_status == 0 && ds_renderer_gl_errors(v->renderer) > 0) {
        ds_fail(DS_ERR_GL, "viewer: %u OpenGL errors were reported while running",
                ds_renderer_gl_errors(v->renderer));
        exit_status = 1;
    }

done:
    ds_mesh_free(&mesh);
    close_viewer(v);
    free(v);
    return exit_status;
}
