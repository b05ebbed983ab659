/* viewer.c — the interactive GLFW viewer: a GL 4.5 core window that drives
 * the renderer every frame, maps keys and mouse to its settings and the
 * camera, and draws the timing overlay. Holds no algorithm: sorting and
 * drawing are the renderer's; the viewer only chooses, times and shows.
 *
 * Input has one path: GLFW callbacks and --script steps both call
 * handle_key(), handle_mouse_button(), handle_cursor() and handle_scroll().
 *
 * Timings shown are the renderer's GPU timers (rolling means over the last
 * HISTORY frames); the frame rate uses the CPU clock between buffer swaps
 * and is labelled so.
 */
#include "viewer.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "camera.h"
#include "clock.h"
#include "hotkeys.h"
#include "image_write.h"
#include "mesh.h"
#include "overlay.h"
#include "renderer.h"
#include "setup.h"
#include "sort.h"
#include "viewer_script.h"

/* Frames in the rolling means of the stage timings. */
#define HISTORY 60
/* Samples in the frame-time graph (one pixel column each at scale 1). */
#define GRAPH_SAMPLES 300
#define GRAPH_HEIGHT 40
/* The graph's vertical range is at least this (two 60 Hz frames). */
#define GRAPH_MIN_RANGE_MS 33.3f
/* Mouse: radians per pixel of orbit drag, zoom factor per wheel notch. */
#define ORBIT_RADIANS_PER_PIXEL 0.006f
#define ZOOM_PER_NOTCH 1.12f
/* Alpha keys step by this much within [ALPHA_MIN, 1]. */
#define ALPHA_STEP 0.05f
#define ALPHA_MIN 0.05f
/* Transient messages (screenshot saved, refused toggles) stay this long. */
#define MESSAGE_MS 4000.0
/* The help panel's key column and line width, in characters. */
#define HELP_KEY_COLUMN 10
#define HELP_WIDTH 52
/* Scripted drags are fed as this many cursor moves. */
#define DRAG_STEPS 8
/* Terminal progress ticks while loading and uploading. */
#define PROGRESS_TICK_NS 100000000L

static const float dark_background[4] = {0.07f, 0.07f, 0.09f, 1.0f};
static const float light_background[4] = {0.93f, 0.93f, 0.91f, 1.0f};

static const uint8_t panel_color[4] = {16, 16, 20, 255};
static const uint8_t text_color[4] = {235, 235, 235, 255};
static const uint8_t dim_color[4] = {150, 150, 160, 255};
static const uint8_t warn_color[4] = {255, 190, 90, 255};
static const uint8_t cpu_bar_color[4] = {110, 110, 125, 255};
static const uint8_t gpu_mark_color[4] = {90, 220, 120, 255};
static const uint8_t grid_line_color[4] = {60, 60, 70, 255};

static const char *const triangle_key_names[DS_TRIANGLE_KEY_COUNT] = {
    "farthest", "mean", "centroid"};

typedef struct viewer {
    GLFWwindow *window;
    ds_renderer *renderer;
    ds_overlay *overlay;
    ds_camera camera;
    float model_center[3];
    float model_radius;
    int fb_width, fb_height;
    int exit_status;

    /* Settings the keys change (the renderer holds the same). */
    ds_sort_algo sort;
    int shuffle;
    ds_primitive primitive;
    ds_triangle_key triangle_key;
    int sorting;
    float alpha;
    int light_background;
    int overlay_on;
    int help_on;
    int vsync;
    int fullscreen;
    int windowed_x, windowed_y, windowed_width, windowed_height;
    int unavailable[DS_SORT_ALGO_COUNT]; /* a selection failed: skip on Tab */
    char sort_note[160];  /* why the last selection failed, on the sort line */
    char message[256];    /* transient, bottom of the panel */
    double message_until_ms;
    char help[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX]; /* the help panel */
    int help_lines;

    /* Mouse. */
    int left_down, pan_down;
    double cursor_x, cursor_y;

    /* Timings: the last HISTORY completed frames, and the graph samples. */
    ds_frame_timings history[HISTORY];
    int history_count, history_next;
    float graph_cpu_ms[GRAPH_SAMPLES];
    float graph_gpu_ms[GRAPH_SAMPLES];
    int graph_cpu_next, graph_gpu_next;
    double last_swap_ms;
    double cpu_frame_ms_mean;

    /* Screenshots and the script. */
    char screenshot_path[DS_SCRIPT_MAX_LINE + 1]; /* "" when none pending */
    int screenshot_counter;
    ds_script script;
    size_t script_next;
    int script_frames_left;
} viewer;

int ds_viewer_display_available(void)
{
    const char *x11 = getenv("DISPLAY");
    const char *wayland = getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

/* ---- terminal progress while loading ----------------------------------- */

/* A phase ("loading dragon.ply") with a moving bar and elapsed seconds on a
 * terminal, redrawn by a ticker thread while the main thread works; off a
 * terminal, one line when the phase ends. The loaders have no progress
 * callback, so the bar shows that work goes on, not how much is left. */
typedef struct progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int running;       /* ticker thread started */
    int stop;          /* guarded by lock */
    const char *phase; /* constant during a phase */
    double start_ms;
} progress;

static double seconds_since(double start_ms)
{
    return 1e-3 * (ds_now_ms() - start_ms);
}

static void draw_progress(const progress *p, int tick)
{
    char bar[21];
    int position = tick % 32;
    if (position >= 16)
        position = 31 - position; /* bounce */
    for (int i = 0; i < 20; i++)
        bar[i] = (i >= position && i < position + 4) ? '=' : ' ';
    bar[20] = '\0';
    /* Clear the line, draw, and return to column 0 so that an error line
     * printed meanwhile starts on a clean line. */
    fprintf(stderr, "\r\033[2Kdepthsort: %s [%s] %.1f s\r", p->phase, bar,
            seconds_since(p->start_ms));
    fflush(stderr);
}

static void *progress_ticker(void *arg)
{
    progress *p = arg;
    int tick = 0;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += PROGRESS_TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stop)
            draw_progress(p, tick++);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void progress_begin(progress *p, const char *phase)
{
    memset(p, 0, sizeof *p);
    p->phase = phase;
    p->start_ms = ds_now_ms();
    if (!isatty(fileno(stderr)))
        return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->running = pthread_create(&p->thread, NULL, progress_ticker, p) == 0;
    if (!p->running) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
    }
}

/* Ends the phase with one line: "depthsort: <phase>: <result> (1.2 s)". */
static void progress_end(progress *p, const char *result)
{
    if (p->running) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        fprintf(stderr, "\r\033[2K");
    }
    fprintf(stderr, "depthsort: %s: %s (%.2f s)\n", p->phase, result, seconds_since(p->start_ms));
}

/* ---- loading ------------------------------------------------------------ */

/* "1,234,567" */
static void format_count(size_t n, char *dest, size_t capacity)
{
    char digits[32];
    int length = snprintf(digits, sizeof digits, "%zu", n);
    size_t out = 0;
    for (int i = 0; i < length && out + 2 < capacity; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            dest[out++] = ',';
        dest[out++] = digits[i];
    }
    dest[out] = '\0';
}

/* ---- settings ----------------------------------------------------------- */

static void show_message(viewer *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void show_message(viewer *v, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, args);
    va_end(args);
    v->message_until_ms = ds_now_ms() + MESSAGE_MS;
}

static void reset_timings(viewer *v)
{
    v->history_count = 0;
    v->history_next = 0;
}

/* Selects a sort; on failure keeps the current one and says why on the
 * sort line. quiet: no error line on the terminal (Tab probing). */
static int select_sort(viewer *v, ds_sort_algo algo, int quiet)
{
    ds_status status;
    if (algo == v->sort) {
        v->sort_note[0] = '\0';
        return 1;
    }
    if (quiet)
        ds_log_set_quiet(1);
    status = ds_renderer_set_sort(v->renderer, algo);
    if (quiet)
        ds_log_set_quiet(0);
    if (status != DS_OK) {
        v->unavailable[algo] = 1;
        snprintf(v->sort_note, sizeof v->sort_note, "(%s unavailable: %s)",
                 ds_sort_algo_name(algo), ds_status_str(status));
        return 0;
    }
    v->sort = algo;
    v->sort_note[0] = '\0';
    reset_timings(v);
    return 1;
}

/* Tab / Shift+Tab: the next (step +1) or previous (-1) sort that works. */
static void cycle_sort(viewer *v, int step)
{
    int n = DS_SORT_ALGO_COUNT;
    for (int i = 1; i < n; i++) {
        ds_sort_algo algo = (ds_sort_algo)((((int)v->sort + step * i) % n + n) % n);
        if (v->unavailable[algo])
            continue;
        if (select_sort(v, algo, 1))
            return;
    }
    snprintf(v->sort_note, sizeof v->sort_note, "(no other sort available here)");
}

static void apply_vsync(viewer *v)
{
    glfwSwapInterval(v->vsync ? 1 : 0);
}

static void frame_to_fit(viewer *v)
{
    float aspect = v->fb_height > 0 ? (float)v->fb_width / (float)v->fb_height : 1.0f;
    ds_camera_frame(&v->camera, v->model_center, v->model_radius, aspect);
}

static void toggle_fullscreen(viewer *v)
{
    if (!v->fullscreen) {
        GLFWmonitor *monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
        if (!mode) {
            show_message(v, "fullscreen: no monitor");
            return;
        }
        glfwGetWindowPos(v->window, &v->windowed_x, &v->windowed_y);
        glfwGetWindowSize(v->window, &v->windowed_width, &v->windowed_height);
        glfwSetWindowMonitor(v->window, monitor, 0, 0, mode->width, mode->height,
                             mode->refreshRate);
    } else {
        glfwSetWindowMonitor(v->window, NULL, v->windowed_x, v->windowed_y,
                             v->windowed_width, v->windowed_height, 0);
    }
    v->fullscreen = !v->fullscreen;
    apply_vsync(v); /* some platforms reset the swap interval */
}

/* Names the next free "depthsort-YYYYMMDD-HHMMSS[-N].png" in the working
 * directory. */
static void next_screenshot_path(viewer *v, char *dest, size_t capacity)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm local;
    localtime_r(&now, &local);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    for (;;) {
        if (v->screenshot_counter == 0)
            snprintf(dest, capacity, "depthsort-%s.png", stamp);
        else
            snprintf(dest, capacity, "depthsort-%s-%d.png", stamp, v->screenshot_counter);
        v->screenshot_counter++;
        if (access(dest, F_OK) != 0)
            return;
    }
}

/* One key press (or repeat), from GLFW or the script. */
static void handle_key(viewer *v, int key, int mods)
{
    ds_status status;
    ds_sort_algo algo = ds_viewer_sort_for_key(key);
    if (algo != DS_SORT_ALGO_COUNT) {
        select_sort(v, algo, 0);
        return;
    }
    switch (key) {
    case GLFW_KEY_TAB:
        cycle_sort(v, (mods & GLFW_MOD_SHIFT) ? -1 : 1);
        break;
    case GLFW_KEY_S:
        v->shuffle = !v->shuffle;
        ds_renderer_set_shuffle(v->renderer, v->shuffle);
        reset_timings(v);
        break;
    case GLFW_KEY_P: {
        ds_primitive next = v->primitive == DS_PRIMITIVE_TRIANGLES ? DS_PRIMITIVE_POINTS
                                                                   : DS_PRIMITIVE_TRIANGLES;
        ds_log_set_quiet(1);
        status = ds_renderer_set_primitive(v->renderer, next);
        ds_log_set_quiet(0);
        if (status == DS_OK) {
            v->primitive = next;
            reset_timings(v);
        } else {
            show_message(v, "primitive: %s", ds_last_error());
        }
        break;
    }
    case GLFW_KEY_K:
        v->triangle_key = (ds_triangle_key)((v->triangle_key + 1) % DS_TRIANGLE_KEY_COUNT);
        ds_renderer_set_triangle_key(v->renderer, v->triangle_key);
        break;
    case GLFW_KEY_U:
        v->sorting = !v->sorting;
        ds_renderer_set_sorting(v->renderer, v->sorting);
        reset_timings(v);
        break;
    case GLFW_KEY_T:
        ds_renderer_set_tiles(v->renderer, !ds_renderer_tiles(v->renderer));
        reset_timings(v);
        break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: {
        float step = (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) ? ALPHA_STEP : -ALPHA_STEP;
        /* Round to the step so that repeated presses land on 0.05 multiples. */
        float alpha = roundf((v->alpha + step) / ALPHA_STEP) * ALPHA_STEP;
        v->alpha = fminf(1.0f, fmaxf(ALPHA_MIN, alpha));
        ds_renderer_set_alpha(v->renderer, v->alpha);
        break;
    }
    case GLFW_KEY_B:
        v->light_background = !v->light_background;
        ds_renderer_set_background(v->renderer,
                                   v->light_background ? light_background : dark_background);
        break;
    case GLFW_KEY_C:
        next_screenshot_path(v, v->screenshot_path, sizeof v->screenshot_path);
        break;
    case GLFW_KEY_O:
        v->overlay_on = !v->overlay_on;
        break;
    case GLFW_KEY_H:
        v->help_on = !v->help_on;
        break;
    case GLFW_KEY_F:
        frame_to_fit(v);
        break;
    case GLFW_KEY_F11:
        toggle_fullscreen(v);
        break;
    case GLFW_KEY_V:
        v->vsync = !v->vsync;
        apply_vsync(v);
        break;
    case GLFW_KEY_ESCAPE:
        glfwSetWindowShouldClose(v->window, GLFW_TRUE);
        break;
    default:
        break;
    }
}

static void handle_mouse_button(viewer *v, int button, int pressed, double x, double y)
{
    v->cursor_x = x;
    v->cursor_y = y;
    if (button == GLFW_MOUSE_BUTTON_LEFT)
        v->left_down = pressed;
    else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE)
        v->pan_down = pressed;
}

static void handle_cursor(viewer *v, double x, double y)
{
    float dx = (float)(x - v->cursor_x);
    float dy = (float)(y - v->cursor_y);
    int window_height = 0, window_width = 0;
    v->cursor_x = x;
    v->cursor_y = y;
    if (v->left_down) {
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

static void handle_scroll(viewer *v, double notches)
{
    ds_camera_zoom(&v->camera, powf(ZOOM_PER_NOTCH, (float)-notches));
}

static void handle_resize(viewer *v, int width, int height)
{
    v->fb_width = width;
    v->fb_height = height;
    if (width <= 0 || height <= 0)
        return; /* minimised: nothing is drawn until it comes back */
    if (ds_renderer_resize(v->renderer, width, height) != DS_OK)
        show_message(v, "resize: %s", ds_last_error());
    v->camera.aspect = (float)width / (float)height;
}

/* ---- GLFW callbacks: unpack and hand over ------------------------------- */

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    (void)scancode;
    if (action == GLFW_PRESS || action == GLFW_REPEAT)
        handle_key(glfwGetWindowUserPointer(window), key, mods);
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods)
{
    double x, y;
    (void)mods;
    glfwGetCursorPos(window, &x, &y);
    handle_mouse_button(glfwGetWindowUserPointer(window), button, action == GLFW_PRESS, x, y);
}

static void on_cursor(GLFWwindow *window, double x, double y)
{
    handle_cursor(glfwGetWindowUserPointer(window), x, y);
}

static void on_scroll(GLFWwindow *window, double dx, double dy)
{
    (void)dx;
    handle_scroll(glfwGetWindowUserPointer(window), dy);
}

static void on_framebuffer_size(GLFWwindow *window, int width, int height)
{
    handle_resize(glfwGetWindowUserPointer(window), width, height);
}

static void on_glfw_error(int code, const char *description)
{
    ds_warn("glfw: %s (0x%x)", description, code);
}

/* ---- the script --------------------------------------------------------- */

static void script_drag(viewer *v, const ds_script_step *step)
{
    double x = 0.5 * v->fb_width, y = 0.5 * v->fb_height;
    handle_mouse_button(v, step->button, 1, x, y);
    for (int i = 1; i <= DRAG_STEPS; i++)
        handle_cursor(v, x + step->dx * i / DRAG_STEPS, y + step->dy * i / DRAG_STEPS);
    handle_mouse_button(v, step->button, 0, x + step->dx, y + step->dy);
}

/* Runs script steps until one asks for frames (or the script ends). */
static void run_script(viewer *v)
{
    while (v->script_frames_left == 0 && v->script_next < v->script.count &&
           !glfwWindowShouldClose(v->window)) {
        const ds_script_step *step = &v->script.steps[v->script_next++];
        switch (step->op) {
        case DS_SCRIPT_FRAMES:
            v->script_frames_left = step->count;
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
            snprintf(v->screenshot_path, sizeof v->screenshot_path, "%s", step->path);
            v->script_frames_left = 1; /* taken at the end of the next frame */
            break;
        case DS_SCRIPT_QUIT:
            glfwSetWindowShouldClose(v->window, GLFW_TRUE);
            break;
        }
    }
}

/* ---- timings and the overlay -------------------------------------------- */

static void collect_timings(viewer *v)
{
    ds_frame_timings t;
    while (ds_renderer_next_timings(v->renderer, &t)) {
        v->history[v->history_next] = t;
        v->history_next = (v->history_next + 1) % HISTORY;
        if (v->history_count < HISTORY)
            v->history_count++;
        v->graph_gpu_ms[v->graph_gpu_next] = t.frame_ms;
        v->graph_gpu_next = (v->graph_gpu_next + 1) % GRAPH_SAMPLES;
    }
}

static void record_cpu_frame(viewer *v, double now_ms)
{
    float ms = (float)(now_ms - v->last_swap_ms);
    v->last_swap_ms = now_ms;
    v->graph_cpu_ms[v->graph_cpu_next] = ms;
    v->graph_cpu_next = (v->graph_cpu_next + 1) % GRAPH_SAMPLES;
    /* Exponential mean: steady enough to read, quick to follow changes. */
    v->cpu_frame_ms_mean = v->cpu_frame_ms_mean > 0.0 ? 0.95 * v->cpu_frame_ms_mean + 0.05 * ms : ms;
}

typedef struct stage_means {
    float distances, keys, shuffle, sort, scatter, interop, draw, frame;
} stage_means;

static void mean_timings(const viewer *v, stage_means *dest)
{
    memset(dest, 0, sizeof *dest);
    for (int i = 0; i < v->history_count; i++) {
        const ds_frame_timings *t = &v->history[i];
        dest->distances += t->distances_ms;
        dest->keys += t->keys_ms;
        dest->shuffle += t->shuffle_ms;
        dest->sort += t->sort_ms;
        dest->scatter += t->scatter_ms;
        dest->interop += t->interop_ms;
        dest->draw += t->draw_ms;
        dest->frame += t->frame_ms;
    }
    if (v->history_count > 0) {
        float n = (float)v->history_count;
        dest->distances /= n;
        dest->keys /= n;
        dest->shuffle /= n;
        dest->sort /= n;
        dest->scatter /= n;
        dest->interop /= n;
        dest->draw /= n;
        dest->frame /= n;
    }
}

/* Draws one panel line, cut to the panel's width. */
static void panel_line(viewer *v, int line, int scale, const uint8_t rgba[4], const char *text)
{
    char fitted[512];
    snprintf(fitted, sizeof fitted, "%s", text);
    ds_overlay_fit_text(fitted, (float)scale,
                        (float)(scale * (DS_OVERLAY_PANEL_WIDTH - 2 * DS_OVERLAY_PADDING)));
    ds_overlay_text(v->overlay, (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING)),
                    (float)DS_OVERLAY_LINE_TOP(line, scale), (float)scale, rgba, fitted);
}

/* The frame-time graph: CPU frame intervals as grey bars, GPU frame times
 * as green marks, newest on the right. */
static void draw_graph(viewer *v, float x, float y, float width, float height, int scale)
{
    float range = GRAPH_MIN_RANGE_MS;
    int columns = (int)(width / (float)scale);
    char label[64];
    if (columns > GRAPH_SAMPLES)
        columns = GRAPH_SAMPLES;
    for (int i = 0; i < GRAPH_SAMPLES; i++)
        range = fmaxf(range, fmaxf(v->graph_cpu_ms[i], v->graph_gpu_ms[i]));
    range = ceilf(range / GRAPH_MIN_RANGE_MS) * GRAPH_MIN_RANGE_MS;
    /* A line at 16.7 ms (60 Hz). */
    ds_overlay_rect(v->overlay, x, y + height - height * 16.7f / range, width, (float)scale,
                    grid_line_color);
    for (int c = 0; c < columns; c++) {
        int age = columns - 1 - c;
        float cpu = v->graph_cpu_ms[(v->graph_cpu_next - 1 - age + 2 * GRAPH_SAMPLES) % GRAPH_SAMPLES];
        float gpu = v->graph_gpu_ms[(v->graph_gpu_next - 1 - age + 2 * GRAPH_SAMPLES) % GRAPH_SAMPLES];
        float bar = fminf(height, height * cpu / range);
        float mark = fminf(height, height * gpu / range);
        float cx = x + (float)(c * scale);
        ds_overlay_rect(v->overlay, cx, y + height - bar, (float)scale, bar, cpu_bar_color);
        if (gpu > 0.0f)
            ds_overlay_rect(v->overlay, cx, y + height - mark - (float)scale, (float)scale,
                            (float)scale, gpu_mark_color);
    }
    snprintf(label, sizeof label, "%.0f ms", (double)range);
    ds_overlay_text(v->overlay, x + 2.0f * scale, y + 1.0f * scale, (float)scale, dim_color, label);
}

/* The stats panel. Its first lines hold only settings (no numbers that
 * change by themselves), so that tests can compare them between frames:
 * line 1 the sort, line 3 the shuffle and primitive state. */
static void draw_stats(viewer *v, int scale)
{
    enum { FIRST_STAGE_LINE = 5, STAGE_LINES = 7, TEXT_LINES = 14 };
    char text[512], count[32];
    stage_means m;
    float panel_x = (float)(scale * DS_OVERLAY_MARGIN);
    float panel_y = (float)(scale * DS_OVERLAY_MARGIN);
    float panel_w = (float)(scale * DS_OVERLAY_PANEL_WIDTH);
    float graph_top = (float)DS_OVERLAY_LINE_TOP(TEXT_LINES, scale);
    float graph_h = (float)(scale * GRAPH_HEIGHT);
    int show_message_line = ds_now_ms() < v->message_until_ms;
    float panel_h = graph_top + graph_h - panel_y +
                    (float)(scale * (DS_OVERLAY_PADDING + (show_message_line ? DS_OVERLAY_LINE_HEIGHT : 0)));
    const char *unit = v->primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles";

    ds_overlay_rect(v->overlay, panel_x, panel_y, panel_w, panel_h, panel_color);

    snprintf(text, sizeof text, "depthsort  %s  (interop: %s)", ds_renderer_gpu_name(v->renderer),
             ds_interop_mode_name(ds_renderer_interop(v->renderer)));
    panel_line(v, 0, scale, text_color, text);

    char hotkey = ds_sort_algo_hotkey(v->sort);
    snprintf(text, sizeof text, "sort: %c %s  %s", hotkey ? hotkey : '-', ds_sort_algo_name(v->sort),
             v->sort_note);
    panel_line(v, 1, scale, v->sort_note[0] ? warn_color : text_color, text);

    format_count(ds_renderer_sorted_count(v->renderer), count, sizeof count);
    snprintf(text, sizeof text, "elements: %s %s | alpha %.2f", count, unit, (double)v->alpha);
    panel_line(v, 2, scale, text_color, text);

    snprintf(text, sizeof text, "shuffle %s | %s | key %s | %s | tiles %s",
             v->shuffle ? "ON" : "off", unit, triangle_key_names[v->triangle_key],
             v->sorting ? "sorted" : "UNSORTED", ds_renderer_tiles(v->renderer) ? "on" : "off");
    panel_line(v, 3, scale, text_color, text);

    mean_timings(v, &m);
    /* On the CPU path the renderer times the host sort with the host clock. */
    snprintf(text, sizeof text, "stage times, ms, mean of %d frames (%s)", v->history_count,
             ds_renderer_interop(v->renderer) == DS_INTEROP_NONE ? "GPU timers; sort: host clock"
                                                                 : "GPU timers");
    panel_line(v, 4, scale, dim_color, text);
    {
        const char *names[STAGE_LINES] = {"distances", "keys", "shuffle", "sort",
                                          "scatter", "interop", "draw"};
        const float values[STAGE_LINES] = {m.distances, m.keys, m.shuffle, m.sort,
                                           m.scatter, m.interop, m.draw};
        float value_x = (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING + 70));
        for (int i = 0; i < STAGE_LINES; i++) {
            float y = (float)DS_OVERLAY_LINE_TOP(FIRST_STAGE_LINE + i, scale);
            ds_overlay_text(v->overlay, (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING + 8)),
                            y, (float)scale, text_color, names[i]);
            if (v->history_count > 0)
                snprintf(text, sizeof text, "%8.3f", (double)values[i]);
            else
                snprintf(text, sizeof text, "%8s", "-");
            ds_overlay_text(v->overlay, value_x, y, (float)scale, text_color, text);
        }
    }

    if (v->history_count > 0)
        snprintf(text, sizeof text, "frame: GPU %.2f ms | CPU clock %.2f ms = %.1f FPS",
                 (double)m.frame, v->cpu_frame_ms_mean,
                 v->cpu_frame_ms_mean > 0.0 ? 1e3 / v->cpu_frame_ms_mean : 0.0);
    else
        snprintf(text, sizeof text, "frame: GPU - | CPU clock %.2f ms", v->cpu_frame_ms_mean);
    panel_line(v, FIRST_STAGE_LINE + STAGE_LINES, scale, text_color, text);

    snprintf(text, sizeof text, "vsync %s | H help | O hide", v->vsync ? "on" : "off");
    panel_line(v, FIRST_STAGE_LINE + STAGE_LINES + 1, scale, dim_color, text);

    draw_graph(v, (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING)), graph_top,
               panel_w - (float)(2 * scale * DS_OVERLAY_PADDING), graph_h, scale);

    if (show_message_line)
        ds_overlay_text(v->overlay, (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING)),
                        graph_top + graph_h + (float)(scale * DS_OVERLAY_PADDING), (float)scale,
                        warn_color, v->message);
}

/* The help panel: a title over ds_hotkey_help()'s lines, the same as in
 * --help. */
static void draw_help(viewer *v, int scale)
{
    static const char title[] = "Hotkeys";
    int lines = 1 + v->help_lines;
    float x = (float)(scale * DS_OVERLAY_MARGIN);
    float y = (float)(scale * DS_OVERLAY_MARGIN);
    float width = 0.0f;
    if (v->overlay_on)
        x += (float)(scale * (DS_OVERLAY_PANEL_WIDTH + DS_OVERLAY_MARGIN));
    width = ds_overlay_text_width(title, (float)scale);
    for (int i = 0; i < v->help_lines; i++)
        width = fmaxf(width, ds_overlay_text_width(v->help[i], (float)scale));
    ds_overlay_rect(v->overlay, x, y, width + (float)(2 * scale * DS_OVERLAY_PADDING),
                    (float)(scale * (lines * DS_OVERLAY_LINE_HEIGHT + 2 * DS_OVERLAY_PADDING)),
                    panel_color);
    for (int i = 0; i < lines; i++)
        ds_overlay_text(v->overlay, x + (float)(scale * DS_OVERLAY_PADDING),
                        y + (float)(scale * (DS_OVERLAY_PADDING + i * DS_OVERLAY_LINE_HEIGHT)),
                        (float)scale, i == 0 ? warn_color : text_color,
                        i == 0 ? title : v->help[i - 1]);
}

/* ---- frames ------------------------------------------------------------- */

/* Reads the window's back buffer (overlay included) and writes a PNG. */
static void save_screenshot(viewer *v)
{
    size_t row = 4 * (size_t)v->fb_width;
    uint8_t *pixels = malloc(row * (size_t)v->fb_height);
    uint8_t *flipped = malloc(row * (size_t)v->fb_height);
    if (!pixels || !flipped) {
        show_message(v, "screenshot: out of memory");
    } else {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, v->fb_width, v->fb_height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        /* GL's rows start at the bottom, PNG's at the top; the window's
         * alpha channel is meaningless in a picture, so it is made opaque. */
        for (int y = 0; y < v->fb_height; y++) {
            uint8_t *dest = flipped + row * (size_t)y;
            memcpy(dest, pixels + row * (size_t)(v->fb_height - 1 - y), row);
            for (int x = 0; x < v->fb_width; x++)
                dest[4 * x + 3] = 255;
        }
        if (ds_write_png(v->screenshot_path, v->fb_width, v->fb_height, flipped) == DS_OK) {
            printf("screenshot: %s\n", v->screenshot_path);
            fflush(stdout);
            show_message(v, "screenshot: %s", v->screenshot_path);
        } else {
            show_message(v, "screenshot failed: %s", ds_last_error());
        }
    }
    free(pixels);
    free(flipped);
    v->screenshot_path[0] = '\0';
}

/* Renders, overlays, saves a pending screenshot and swaps. Returns DS_OK or
 * the renderer's error (already logged). */
static ds_status render_frame(viewer *v)
{
    ds_status status = ds_renderer_frame(v->renderer, &v->camera, 0);
    if (status != DS_OK)
        return status;
    collect_timings(v);
    if (v->overlay_on || v->help_on) {
        int scale = DS_OVERLAY_SCALE(v->fb_height);
        ds_overlay_begin(v->overlay, v->fb_width, v->fb_height);
        if (v->overlay_on)
            draw_stats(v, scale);
        if (v->help_on)
            draw_help(v, scale);
        ds_overlay_draw(v->overlay);
    }
    if (v->screenshot_path[0])
        save_screenshot(v);
    glfwSwapBuffers(v->window);
    record_cpu_frame(v, ds_now_ms());
    return DS_OK;
}

/* ---- setup and the main loop -------------------------------------------- */

static ds_status open_window(viewer *v, const ds_options *opts, const char *title)
{
    int width = opts->width > 0 ? opts->width : 1280;
    int height = opts->height > 0 ? opts->height : 720;
    GLFWmonitor *monitor;

    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        return ds_fail(DS_ERR_NO_DEVICE, "viewer: GLFW could not initialise the display");
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
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    v->window = glfwCreateWindow(width, height, title, NULL, NULL);
    if (!v->window)
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: could not open a window with an OpenGL 4.5 core context");
    glfwMakeContextCurrent(v->window);
    if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress))
        return ds_fail(DS_ERR_GL, "viewer: could not load the OpenGL 4.5 functions");
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_mouse_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    glfwSetFramebufferSizeCallback(v->window, on_framebuffer_size);
    glfwGetFramebufferSize(v->window, &v->fb_width, &v->fb_height);
    return DS_OK;
}

/* Creates the renderer for `mesh` as the options ask, at the window's
 * framebuffer size, then reads back what the renderer chose (the cpu sort
 * on the CPU path, points for a mesh without triangles). */
static ds_status create_renderer(viewer *v, const ds_options *opts, const ds_mesh *mesh)
{
    ds_renderer_desc desc;
    ds_status status = ds_app_renderer_desc(opts, mesh, &desc);
    if (status != DS_OK)
        return status;
    desc.width = v->fb_width > 0 ? v->fb_width : 1;
    desc.height = v->fb_height > 0 ? v->fb_height : 1;
    desc.verify = 0; /* the viewer never checks a frame's order */
    memcpy(desc.background, dark_background, sizeof desc.background);
    status = ds_renderer_create(&desc, &v->renderer);
    if (status != DS_OK)
        return status;
    v->sort = ds_renderer_sort(v->renderer);
    v->primitive = ds_renderer_primitive(v->renderer);
    return DS_OK;
}

static void initial_settings(viewer *v, const ds_options *opts)
{
    v->sort = ds_app_first_sort(opts->sort);
    v->shuffle = opts->shuffle;
    v->primitive = opts->primitive;
    v->triangle_key = opts->triangle_key;
    v->sorting = !opts->no_sort;
    v->alpha = opts->alpha > 0.0f ? opts->alpha : 0.35f;
    v->overlay_on = 1;
    v->vsync = opts->vsync;
    v->help_lines = ds_hotkey_help(HELP_KEY_COLUMN, HELP_WIDTH, v->help, DS_HOTKEY_LINES_MAX);
}

static void close_viewer(viewer *v)
{
    ds_script_free(&v->script);
    if (v->window) {
        glfwMakeContextCurrent(v->window);
        ds_overlay_destroy(v->overlay);
        ds_renderer_destroy(v->renderer);
        glfwDestroyWindow(v->window);
    }
    glfwTerminate();
}

int ds_viewer_run(const ds_options *opts)
{
    viewer *v;
    ds_mesh mesh = {0};
    ds_status status;
    progress phase;
    char title[256], phase_name[300], result[160], vertices[32], triangles[32];
    const char *input = opts->model_path ? opts->model_path : ds_app_scene_spec(opts);
    int exit_status = 1;

    v = calloc(1, sizeof *v);
    if (!v) {
        ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: out of memory");
        return 1;
    }
    initial_settings(v, opts);
    if (opts->script_path && ds_script_load(opts->script_path, &v->script) != DS_OK)
        goto done;

    snprintf(phase_name, sizeof phase_name, "%s %s", opts->model_path ? "loading" : "building", input);
    progress_begin(&phase, phase_name);
    status = ds_app_build_mesh(opts, &mesh);
    if (status != DS_OK) {
        progress_end(&phase, "failed");
        goto done;
    }
    format_count(mesh.vertex_count, vertices, sizeof vertices);
    format_count(mesh.triangle_count, triangles, sizeof triangles);
    snprintf(result, sizeof result, "%s vertices, %s triangles", vertices, triangles);
    progress_end(&phase, result);
    memcpy(v->model_center, mesh.center, sizeof v->model_center);
    v->model_radius = mesh.radius;

    snprintf(title, sizeof title, "depthsort — %s", input);
    if (open_window(v, opts, title) != DS_OK)
        goto done;
    apply_vsync(v);

    progress_begin(&phase, "uploading to the GPU");
    status = create_renderer(v, opts, &mesh);
    if (status != DS_OK) {
        /* Device memory runs out as a CUDA or GL error; say what it means. */
        if (status == DS_ERR_CUDA || status == DS_ERR_GL || status == DS_ERR_OUT_OF_MEMORY)
            snprintf(result, sizeof result,
                     "failed (%s): the model may not fit in GPU memory", ds_status_str(status));
        else
            snprintf(result, sizeof result, "failed (%s)", ds_status_str(status));
        progress_end(&phase, result);
        goto done;
    }
    progress_end(&phase, ds_renderer_gpu_name(v->renderer));
    ds_mesh_free(&mesh); /* the renderer holds its own copy */

    status = ds_overlay_create(&v->overlay);
    if (status != DS_OK)
        goto done;
    frame_to_fit(v);
    v->last_swap_ms = ds_now_ms();

    exit_status = 0;
    while (!glfwWindowShouldClose(v->window)) {
        glfwPollEvents();
        run_script(v);
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
        if (v->script_frames_left > 0)
            v->script_frames_left--;
    }
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
