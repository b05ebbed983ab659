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
 *
 * The error view (D, and the split view \) compares the picture with the
 * exact reference: the same renderer draws the A-buffer into its own
 * framebuffer after the window's frame, both are copied into textures of
 * the viewer's, and ds_image_metrics compares them on the GPU, polled in a
 * later frame so that the viewer never waits for it. Where that costs
 * more than the frame itself (llvmpipe) it runs every N frames and the
 * overlay says so; the reference frames stay out of the stage means.
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
#include "image_metrics.h"
#include "image_write.h"
#include "mesh.h"
#include "output_file.h"
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
/* About the full stats panel's width at scale 1 (its widest lines);
 * --overlay auto starts it full where that is at most 2/5 of the asked
 * window width (1920 x 1080 at scale 2: 740 of 1920), else compact. */
#define FULL_PANEL_WIDTH 370
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
/* Point size keys multiply or divide the splat diameter by this. */
#define POINT_SIZE_STEP 1.25f
/* The first view looks down on the model from 20 degrees above the
 * horizon (the headless orbit's pitch), so that depth varies over the
 * image; preset views (F1-F3) are exactly front, side and top. */
#define VIEW_PITCH 0.35f
/* Errors (a failed load, an unsupported sample count) stay this long. */
#define ERROR_MS 12000.0
/* Scripted drags are fed as this many cursor moves. */
#define DRAG_STEPS 8
/* Terminal progress ticks while loading and uploading. */
#define PROGRESS_TICK_NS 100000000L
/* The error heatmap saturates at this many 8-bit levels (yellow). */
#define HEAT_LEVELS 16
/* The error is measured at least every this many frames. */
#define ERROR_EVERY_MAX 60
/* Reference frames remembered so that their timings stay out of the
 * means (more than the renderer keeps in flight). */
#define REFERENCE_RING 8

static const float dark_background[4] = {0.07f, 0.07f, 0.09f, 1.0f};
static const float light_background[4] = {0.93f, 0.93f, 0.91f, 1.0f};

/* Translucent, so that the model behind the panels stays visible. */
static const uint8_t panel_color[4] = {16, 16, 20, 200};
static const uint8_t text_color[4] = {235, 235, 235, 255};
static const uint8_t dim_color[4] = {150, 150, 160, 255};
static const uint8_t warn_color[4] = {255, 190, 90, 255};
static const uint8_t cpu_bar_color[4] = {110, 110, 125, 255};
static const uint8_t gpu_bar_color[4] = {90, 220, 120, 255};
static const uint8_t grid_line_color[4] = {200, 120, 60, 255};

/* O cycles the stats panel through these. */
typedef enum overlay_mode { OVERLAY_FULL = 0, OVERLAY_COMPACT, OVERLAY_OFF, OVERLAY_MODE_COUNT } overlay_mode;

/* D cycles the error view: off, the numbers, the numbers and the heatmap. */
typedef enum error_view { ERROR_OFF = 0, ERROR_NUMBERS, ERROR_HEATMAP, ERROR_VIEW_COUNT } error_view;

/* Y cycles the up axis in this order: the common ones first. */
static const ds_up_axis up_cycle[DS_UP_COUNT] = {DS_UP_POS_Y, DS_UP_POS_Z, DS_UP_POS_X,
                                                 DS_UP_NEG_Y, DS_UP_NEG_Z, DS_UP_NEG_X};

static const char *const triangle_key_names[DS_TRIANGLE_KEY_COUNT] = {
    "farthest", "mean", "centroid"};

typedef struct viewer {
    GLFWwindow *window;
    ds_renderer *renderer;
    ds_overlay *overlay;
    ds_camera camera;
    float model_center[3];
    float model_radius;
    int has_colors; /* the model brings its own colours (colour mode file) */
    int fb_width, fb_height;
    int exit_status;

    /* The command line's options; R, Y and a dropped file rebuild the
     * model from them (opts.model_path points into model_path after a
     * drop, opts.up follows Y). */
    ds_options opts;
    char model_path[DS_SCRIPT_MAX_LINE + 1];

    /* Settings the keys change (the renderer holds the same). */
    ds_stages_mode stages; /* GL or SORTER, as ds_renderer_stages() */
    ds_sort_algo sort;     /* the sorter: with GL, the shuffle's */
    int shuffle;
    ds_primitive primitive;
    ds_triangle_key triangle_key;
    int sorting;
    ds_technique technique;
    float alpha;
    ds_color_mode color_mode;
    ds_opacity_mode opacity;
    int msaa;
    int msaa_max; /* the most samples known to work */
    ds_up_axis up;
    int light_background;
    float background[4]; /* --background, then B's dark or light */
    overlay_mode panel_mode;
    float panel_right, panel_bottom; /* the stats panel's edges, pixels */
    int help_on;
    int vsync;
    int fullscreen;
    int windowed_x, windowed_y, windowed_width, windowed_height;
    int unavailable[DS_SORT_ALGO_COUNT]; /* a selection failed: skip on Tab */
    int gl_unavailable;   /* the same for the GL stages */
    char sort_note[160];  /* why the last selection failed, on the sort line */
    char message[256];    /* transient, bottom of the panel */
    double message_until_ms;
    char help[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX]; /* the help panel */
    int help_lines;

    /* The error against the exact reference (D, \\): the picture and the
     * reference copied into textures of the viewer's (with framebuffers
     * to blit them from), the comparison in flight, the last result. */
    error_view error_mode;
    int split;
    ds_image_metrics *metrics;
    unsigned test_texture, reference_texture, heat_texture;
    unsigned reference_framebuffer, heat_framebuffer;
    int error_width, error_height; /* the size the above were made for */
    ds_image_error error;
    int have_error;
    int images_ready;       /* the textures hold a measurement of this view */
    int error_every;        /* measure every N frames */
    int frames_to_measure;  /* until the next measurement */
    double measure_ms_mean; /* host time of one measurement */
    double own_ms_mean;     /* host time of one frame without it */
    uint64_t reference_frames[REFERENCE_RING];
    int reference_next;

    /* Mouse. */
    int left_down, pan_down;
    double cursor_x, cursor_y;

    /* Timings: the last HISTORY completed frames, and the graph samples.
     * Frames numbered below timings_from were rendered before the latest
     * change of settings and stay out of the means. frames_rendered counts
     * every frame the renderer drew, reference frames included. */
    uint64_t frames_rendered, timings_from;
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
    int screenshot_scripted; /* the pending one is a script step's */
    int script_failed;       /* a script's screenshot could not be written */
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

/* The latest error line (ds_last_error()) after `what: `, kept longer. */
static void show_error(viewer *v, const char *what)
{
    snprintf(v->message, sizeof v->message, "%s: %s", what, ds_last_error());
    v->message_until_ms = ds_now_ms() + ERROR_MS;
}

/* After any change of settings: the means restart with the next frame
 * rendered; frames already in flight report later and are left out. */
static void reset_timings(viewer *v)
{
    v->history_count = 0;
    v->history_next = 0;
    v->timings_from = v->frames_rendered;
}

/* Selects a sort of the registry, around which the stages run; on failure
 * keeps the current selection and says why on the sort line and, unless
 * quiet (Tab probing), in a warning line on the terminal: the viewer goes
 * on. */
static int select_sort(viewer *v, ds_sort_algo algo, int quiet)
{
    ds_status status;
    if (algo == v->sort && v->stages == DS_STAGES_SORTER) {
        v->sort_note[0] = '\0';
        return 1;
    }
    if (!ds_sort_algo_built(algo)) {
        snprintf(v->sort_note, sizeof v->sort_note, "(%s: not in this build, which has no CUDA)",
                 ds_sort_algo_name(algo));
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
        v->unavailable[algo] = 1;
        snprintf(v->sort_note, sizeof v->sort_note, "(%s unavailable: %s)",
                 ds_sort_algo_name(algo), ds_status_str(status));
        return 0;
    }
    v->sort = algo;
    v->stages = DS_STAGES_SORTER;
    v->sort_note[0] = '\0';
    reset_timings(v);
    return 1;
}

/* Selects the GL stages (the sorter stays, for the shuffle), the same
 * way. */
static int select_gl(viewer *v, int quiet)
{
    if (v->stages == DS_STAGES_GL) {
        v->sort_note[0] = '\0';
        return 1;
    }
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_stages(v->renderer, DS_STAGES_GL);
    ds_log_set_quiet(0);
    if (status != DS_OK && !quiet)
        ds_warn("%s", ds_last_error());
    if (status != DS_OK) {
        v->gl_unavailable = 1;
        snprintf(v->sort_note, sizeof v->sort_note, "(%s unavailable: %s)", DS_SORT_GL_NAME,
                 ds_status_str(status));
        return 0;
    }
    v->stages = DS_STAGES_GL;
    v->sort_note[0] = '\0';
    reset_timings(v);
    return 1;
}

/* Tab / Shift+Tab: the next (step +1) or previous (-1) sort that works,
 * in the order of --sort all: the GL stages (entry 0), then the
 * registry's sorts (entry 1 + algo). */
static void cycle_sort(viewer *v, int step)
{
    int n = 1 + DS_SORT_ALGO_COUNT;
    int current = v->stages == DS_STAGES_GL ? 0 : 1 + (int)v->sort;
    for (int i = 1; i < n; i++) {
        int entry = ((current + step * i) % n + n) % n;
        if (entry == 0) {
            if (!v->gl_unavailable && select_gl(v, 1))
                return;
            continue;
        }
        ds_sort_algo algo = (ds_sort_algo)(entry - 1);
        if (v->unavailable[algo] || !ds_sort_algo_built(algo))
            continue;
        if (select_sort(v, algo, 1))
            return;
    }
    snprintf(v->sort_note, sizeof v->sort_note, "(no other sort available here)");
}

/* The sort line's selection: "0 gl" or "1 cub", and with the GL stages
 * and the shuffle on, the sorter that the shuffled frames run on
 * (renderer.h: the GL stages do not shuffle). */
static void sort_label(const viewer *v, char *dest, size_t capacity)
{
    char hotkey = v->stages == DS_STAGES_GL ? DS_SORT_GL_HOTKEY : ds_sort_algo_hotkey(v->sort);
    const char *name = ds_app_sort_name(v->stages, v->sort);
    if (v->stages == DS_STAGES_GL && v->shuffle && v->sorting)
        snprintf(dest, capacity, "%c %s (shuffled: %s)", hotkey ? hotkey : '-', name,
                 ds_sort_algo_name(v->sort));
    else
        snprintf(dest, capacity, "%c %s", hotkey ? hotkey : '-', name);
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

/* reload_model()'s flags. */
enum { RELOAD_FRAME = 1, RELOAD_NEW_MODEL = 2 };
static ds_status reload_model(viewer *v, const char *what, int flags);

/* A preset view: yaw and pitch, framed to fit. */
static void preset_view(viewer *v, float yaw, float pitch)
{
    v->camera.yaw = yaw;
    v->camera.pitch = pitch; /* ds_camera_frame() keeps it off the pole */
    frame_to_fit(v);
}

/* Prints the view as the --camera option that restores it, and writes the
 * bare line to --camera-file when one was given. The view then snaps to
 * what the line reads back to (a float rounding away), so that a run
 * started from the line draws the very same image. */
static void save_camera(viewer *v)
{
    char line[DS_CAMERA_LINE_MAX];
    ds_camera_format(&v->camera, line, sizeof line);
    if (ds_camera_parse(line, "camera", &v->camera) == DS_OK)
        ds_camera_enclose(&v->camera, v->model_center, v->model_radius);
    printf("--camera \"%s\"\n", line);
    fflush(stdout);
    if (!v->opts.camera_file) {
        show_message(v, "camera: printed on stdout");
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
        show_message(v, "camera: written to %s", v->opts.camera_file);
    else
        show_error(v, "camera");
}

/* M: the next colour mode; file colours only for a model that has them. */
static void cycle_color_mode(viewer *v)
{
    ds_color_mode next = v->color_mode;
    do
        next = next + 1 >= DS_COLOR_MODE_COUNT ? DS_COLOR_NORMAL : next + 1;
    while (next == DS_COLOR_AUTO || (next == DS_COLOR_FILE && !v->has_colors));
    ds_renderer_set_color_mode(v->renderer, next);
    v->color_mode = ds_renderer_color_mode(v->renderer);
}

/* A: 1, 2, 4, 8 samples and back to 1; a count the GL refuses is shown as
 * an error and the next press starts again from 1. */
static void cycle_msaa(viewer *v)
{
    int next = v->msaa * 2;
    if (next > 8 || next > v->msaa_max)
        next = 1;
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_msaa(v->renderer, next);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        v->msaa_max = v->msaa;
        show_error(v, "msaa");
        return;
    }
    v->msaa = ds_renderer_msaa(v->renderer);
}

/* Y: the next up axis; the model is rebuilt turned, and framed. */
static void cycle_up(viewer *v)
{
    int at = 0;
    while (at < DS_UP_COUNT && up_cycle[at] != v->up)
        at++;
    ds_up_axis previous = v->up;
    v->up = up_cycle[(at + 1) % DS_UP_COUNT];
    v->opts.up = v->up;
    if (reload_model(v, "up", RELOAD_FRAME) != DS_OK) {
        v->up = previous;
        v->opts.up = previous;
    }
}

static void scale_point_size(viewer *v, float factor)
{
    ds_renderer_set_point_size(v->renderer, ds_renderer_point_size(v->renderer) * factor);
}

/* Makes `technique` the renderer's; on failure (the A-buffer's pool does
 * not fit) keeps the current one and shows why. */
static void select_technique(viewer *v, ds_technique technique)
{
    ds_log_set_quiet(1);
    ds_status status = ds_renderer_set_technique(v->renderer, technique);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        show_error(v, ds_technique_name(technique));
        return;
    }
    v->technique = ds_renderer_technique(v->renderer);
    v->sorting = v->technique != DS_TECHNIQUE_UNSORTED;
    /* The error shown was the previous technique's: measure again now. */
    v->have_error = 0;
    v->images_ready = 0;
    v->frames_to_measure = 0;
    reset_timings(v);
}

/* X: the techniques in the order of the registry's cycle column
 * (technique_registry.h), and round again; from one outside the cycle
 * (depth peeling, the second exact method, is for checking: --compare
 * peel), the first. */
static void cycle_technique(viewer *v)
{
    int place = ds_technique_cycle(v->technique);
    ds_technique first = DS_TECHNIQUE_COUNT, next = DS_TECHNIQUE_COUNT;
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        int at = ds_technique_cycle((ds_technique)t);
        if (at && (first == DS_TECHNIQUE_COUNT || at < ds_technique_cycle(first)))
            first = (ds_technique)t;
        if (place && at > place && (next == DS_TECHNIQUE_COUNT || at < ds_technique_cycle(next)))
            next = (ds_technique)t;
    }
    select_technique(v, next != DS_TECHNIQUE_COUNT ? next : first);
}

/* ---- the error against the exact reference ------------------------------ */

static void forget_reference_frames(viewer *v)
{
    for (int i = 0; i < REFERENCE_RING; i++)
        v->reference_frames[i] = UINT64_MAX;
}

static void free_error_targets(viewer *v)
{
    ds_image_metrics_destroy(v->metrics);
    v->metrics = NULL;
    unsigned textures[3] = {v->test_texture, v->reference_texture, v->heat_texture};
    unsigned framebuffers[2] = {v->reference_framebuffer, v->heat_framebuffer};
    if (v->test_texture)
        glDeleteTextures(3, textures);
    if (v->reference_framebuffer)
        glDeleteFramebuffers(2, framebuffers);
    v->test_texture = v->reference_texture = v->heat_texture = 0;
    v->reference_framebuffer = v->heat_framebuffer = 0;
    v->error_width = v->error_height = 0;
    v->have_error = 0;
    v->images_ready = 0;
}

/* The comparison's textures at the window's size, made on first use and
 * after a resize. Returns 0 (and shows why) when they cannot be made. */
static int ensure_error_targets(viewer *v)
{
    if (v->metrics && v->error_width == v->fb_width && v->error_height == v->fb_height)
        return 1;
    free_error_targets(v);
    ds_image_metrics_desc desc = {.width = v->fb_width, .height = v->fb_height};
    ds_log_set_quiet(1);
    ds_status status = ds_image_metrics_create(&desc, &v->metrics);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        show_error(v, "error view");
        v->error_mode = ERROR_OFF;
        v->split = 0;
        return 0;
    }
    unsigned textures[3];
    glCreateTextures(GL_TEXTURE_2D, 3, textures);
    for (int i = 0; i < 3; i++)
        glTextureStorage2D(textures[i], 1, GL_RGBA8, v->fb_width, v->fb_height);
    v->test_texture = textures[0];
    v->reference_texture = textures[1];
    v->heat_texture = textures[2];
    unsigned framebuffers[2];
    glCreateFramebuffers(2, framebuffers);
    glNamedFramebufferTexture(framebuffers[0], GL_COLOR_ATTACHMENT0, v->reference_texture, 0);
    glNamedFramebufferTexture(framebuffers[1], GL_COLOR_ATTACHMENT0, v->heat_texture, 0);
    v->reference_framebuffer = framebuffers[0];
    v->heat_framebuffer = framebuffers[1];
    v->error_width = v->fb_width;
    v->error_height = v->fb_height;
    v->frames_to_measure = 0;
    if (!v->error_every)
        v->error_every = 1;
    return 1;
}

static void copy_texture(const viewer *v, unsigned source, unsigned dest)
{
    glCopyImageSubData(source, GL_TEXTURE_2D, 0, 0, 0, 0, dest, GL_TEXTURE_2D, 0, 0, 0, 0,
                       v->fb_width, v->fb_height, 1);
}

/* After the window's frame: copies it, draws the reference (unless the
 * frame is the A-buffer's already), submits the comparison and, in the
 * heatmap view, the heatmap. Nothing here waits for the GPU, except the
 * A-buffer frame's own counter read. */
static ds_status measure_error(viewer *v)
{
    ds_status status;
    copy_texture(v, ds_renderer_color_texture(v->renderer), v->test_texture);
    if (v->technique == DS_TECHNIQUE_ABUFFER) {
        copy_texture(v, v->test_texture, v->reference_texture);
    } else {
        if ((status = ds_renderer_set_technique(v->renderer, DS_TECHNIQUE_ABUFFER)))
            return status;
        v->reference_frames[v->reference_next] = v->frames_rendered;
        v->reference_next = (v->reference_next + 1) % REFERENCE_RING;
        status = ds_renderer_frame(v->renderer, &v->camera, DS_RENDERER_OWN_FRAMEBUFFER);
        ds_status back = ds_renderer_set_technique(v->renderer, v->technique);
        if (status || (status = back))
            return status;
        v->frames_rendered++;
        copy_texture(v, ds_renderer_color_texture(v->renderer), v->reference_texture);
    }
    if ((status = ds_image_metrics_submit(v->metrics, v->test_texture, v->reference_texture)))
        return status;
    if (v->error_mode == ERROR_HEATMAP)
        status = ds_image_metrics_heatmap(v->metrics, v->test_texture, v->reference_texture,
                                          (float)HEAT_LEVELS, v->heat_texture, NULL);
    v->images_ready = status == DS_OK;
    return status;
}

/* The measurement rate: every frame while it costs at most what a frame
 * without it does (host time, swap included), else every N frames so that
 * it takes about half the time. */
static void update_error_rate(viewer *v, double measure_ms, double own_ms)
{
    if (measure_ms > 0.0)
        v->measure_ms_mean = v->measure_ms_mean > 0.0
                                 ? 0.8 * v->measure_ms_mean + 0.2 * measure_ms : measure_ms;
    if (own_ms > 0.0)
        v->own_ms_mean = v->own_ms_mean > 0.0 ? 0.8 * v->own_ms_mean + 0.2 * own_ms : own_ms;
    int every = (int)ceil(v->measure_ms_mean / fmax(v->own_ms_mean, 0.1));
    v->error_every = every < 1 ? 1 : every > ERROR_EVERY_MAX ? ERROR_EVERY_MAX : every;
}

/* The heatmap over the whole picture, or the reference over its right
 * half (split), into the window before the overlay. */
static void show_error_images(viewer *v)
{
    int w = v->fb_width, h = v->fb_height;
    if (!v->images_ready)
        return;
    if (v->error_mode == ERROR_HEATMAP)
        glBlitNamedFramebuffer(v->heat_framebuffer, 0, 0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT,
                               GL_NEAREST);
    else if (v->split)
        glBlitNamedFramebuffer(v->reference_framebuffer, 0, w / 2, 0, w, h, w / 2, 0, w, h,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
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
    if (ds_viewer_key_selects_gl(key)) {
        select_gl(v, 0);
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
        reset_timings(v);
        break;
    case GLFW_KEY_U:
        /* From any technique to the sorted draw, or sorted <-> unsorted. */
        select_technique(v, v->technique == DS_TECHNIQUE_SORTED ? DS_TECHNIQUE_UNSORTED
                                                                : DS_TECHNIQUE_SORTED);
        break;
    case GLFW_KEY_X:
        cycle_technique(v);
        break;
    case GLFW_KEY_D:
        v->error_mode = (error_view)((v->error_mode + 1) % ERROR_VIEW_COUNT);
        v->frames_to_measure = 0;
        v->have_error = 0;
        v->images_ready = 0;
        break;
    case GLFW_KEY_BACKSLASH:
        v->split = !v->split;
        v->frames_to_measure = 0;
        v->images_ready = 0;
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
        reset_timings(v);
        break;
    }
    case GLFW_KEY_B:
        v->light_background = !v->light_background;
        memcpy(v->background, v->light_background ? light_background : dark_background,
               sizeof v->background);
        ds_renderer_set_background(v->renderer, v->background);
        break;
    case GLFW_KEY_M:
        cycle_color_mode(v);
        reset_timings(v);
        break;
    case GLFW_KEY_G:
        ds_renderer_set_opacity_mode(v->renderer, v->opacity == DS_OPACITY_CONSTANT
                                                      ? DS_OPACITY_VIEW
                                                      : DS_OPACITY_CONSTANT);
        v->opacity = ds_renderer_opacity_mode(v->renderer);
        reset_timings(v);
        break;
    case GLFW_KEY_LEFT_BRACKET:
    case GLFW_KEY_RIGHT_BRACKET:
        scale_point_size(v, key == GLFW_KEY_RIGHT_BRACKET ? POINT_SIZE_STEP : 1.0f / POINT_SIZE_STEP);
        reset_timings(v);
        break;
    case GLFW_KEY_A:
        cycle_msaa(v);
        reset_timings(v);
        break;
    case GLFW_KEY_Y:
        cycle_up(v);
        break;
    case GLFW_KEY_F1:
        preset_view(v, 0.0f, 0.0f); /* front: looking down -Z */
        break;
    case GLFW_KEY_F2:
        preset_view(v, 0.5f * (float)M_PI, 0.0f); /* side: from +X */
        break;
    case GLFW_KEY_F3:
        preset_view(v, 0.0f, 0.5f * (float)M_PI); /* top: from +Y */
        break;
    case GLFW_KEY_L:
        save_camera(v);
        break;
    case GLFW_KEY_R:
        reload_model(v, "reload", 0);
        break;
    case GLFW_KEY_C:
    case GLFW_KEY_F12:
        next_screenshot_path(v, v->screenshot_path, sizeof v->screenshot_path);
        break;
    case GLFW_KEY_O:
        v->panel_mode = (overlay_mode)((v->panel_mode + 1) % OVERLAY_MODE_COUNT);
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
        show_error(v, "resize");
    v->camera.aspect = (float)width / (float)height;
    reset_timings(v);
}

/* A file dropped on the window: loaded as R reloads, framed; a failed load
 * keeps the current model. */
static void handle_drop(viewer *v, const char *path)
{
    char previous[sizeof v->model_path];
    const char *previous_path = v->opts.model_path;
    snprintf(previous, sizeof previous, "%s", v->model_path);
    snprintf(v->model_path, sizeof v->model_path, "%s", path);
    v->opts.model_path = v->model_path;
    if (reload_model(v, "open", RELOAD_FRAME | RELOAD_NEW_MODEL) == DS_OK) {
        v->opts.point_size = 0.0f; /* the option was for the first model */
        return;
    }
    memcpy(v->model_path, previous, sizeof previous);
    v->opts.model_path = previous_path;
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

static void on_drop(GLFWwindow *window, int count, const char **paths)
{
    viewer *v = glfwGetWindowUserPointer(window);
    if (count <= 0)
        return;
    handle_drop(v, paths[0]);
    if (count > 1)
        show_message(v, "%d files dropped: opened the first", count);
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
            v->screenshot_scripted = 1;
            v->script_frames_left = 1; /* taken at the end of the next frame */
            break;
        case DS_SCRIPT_DROP:
            handle_drop(v, step->path);
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
        v->graph_gpu_ms[v->graph_gpu_next] = t.frame_ms;
        v->graph_gpu_next = (v->graph_gpu_next + 1) % GRAPH_SAMPLES;
        if (t.frame < v->timings_from)
            continue; /* rendered before the latest change */
        int reference = 0;
        for (int i = 0; i < REFERENCE_RING; i++)
            reference |= v->reference_frames[i] == t.frame;
        if (reference)
            continue; /* the error view's exact frame */
        v->history[v->history_next] = t;
        v->history_next = (v->history_next + 1) % HISTORY;
        if (v->history_count < HISTORY)
            v->history_count++;
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
    float distances, keys, shuffle, sort, scatter, interop, handover, draw, frame;
    int gl; /* every frame of the means ran the GL stages */
} stage_means;

static void mean_timings(const viewer *v, stage_means *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->gl = v->history_count > 0;
    for (int i = 0; i < v->history_count; i++) {
        const ds_frame_timings *t = &v->history[i];
        dest->gl &= t->stages == DS_STAGES_GL;
        dest->handover += t->handover_ms;
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
        dest->handover /= n;
        dest->draw /= n;
        dest->frame /= n;
    }
}

/* The stats panel is laid out as lines first, then drawn on a
 * translucent rectangle sized to its widest line, so no line is cut. */
#define PANEL_LINES_MAX 24
/* Stage lines: the name's indent and the value column, at scale 1. */
#define STAGE_INDENT 8
#define STAGE_VALUE_COLUMN 70
/* The frame graph is at least this wide at scale 1. */
#define GRAPH_MIN_WIDTH 240

typedef struct text_line {
    char text[200];
    char value[24]; /* drawn at STAGE_VALUE_COLUMN: the stage times */
    int indent;
    const uint8_t *color;
} text_line;

typedef struct panel {
    text_line lines[PANEL_LINES_MAX];
    int count;
} panel;

static void add_line(panel *p, const uint8_t *color, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void add_line(panel *p, const uint8_t *color, const char *fmt, ...)
{
    if (p->count == PANEL_LINES_MAX)
        return;
    text_line *line = &p->lines[p->count++];
    memset(line, 0, sizeof *line);
    line->color = color;
    va_list args;
    va_start(args, fmt);
    vsnprintf(line->text, sizeof line->text, fmt, args);
    va_end(args);
}

static float line_width(const text_line *line, int scale)
{
    float width = (float)(scale * line->indent) + ds_overlay_text_width(line->text, (float)scale);
    if (line->value[0])
        width = fmaxf(width, (float)(scale * STAGE_VALUE_COLUMN) +
                                 ds_overlay_text_width(line->value, (float)scale));
    return width;
}

/* Draws the lines from the top of the panel; returns the inner width. */
static float draw_lines(viewer *v, const panel *p, int scale, float min_inner_width,
                        float extra_height)
{
    float inner = min_inner_width;
    for (int i = 0; i < p->count; i++)
        inner = fmaxf(inner, line_width(&p->lines[i], scale));
    float x = (float)(scale * DS_OVERLAY_MARGIN), y = (float)(scale * DS_OVERLAY_MARGIN);
    float height = (float)(scale * (2 * DS_OVERLAY_PADDING + p->count * DS_OVERLAY_LINE_HEIGHT)) +
                   extra_height;
    ds_overlay_rect(v->overlay, x, y, inner + (float)(2 * scale * DS_OVERLAY_PADDING), height,
                    panel_color);
    float text_x = x + (float)(scale * DS_OVERLAY_PADDING);
    for (int i = 0; i < p->count; i++) {
        const text_line *line = &p->lines[i];
        float top = (float)DS_OVERLAY_LINE_TOP(i, scale);
        ds_overlay_text(v->overlay, text_x + (float)(scale * line->indent), top, (float)scale,
                        line->color, line->text);
        if (line->value[0])
            ds_overlay_text(v->overlay, text_x + (float)(scale * STAGE_VALUE_COLUMN), top,
                            (float)scale, line->color, line->value);
    }
    v->panel_right = x + inner + (float)(2 * scale * DS_OVERLAY_PADDING);
    v->panel_bottom = y + height + (float)(scale * DS_OVERLAY_PADDING);
    return inner;
}

/* The graph's legend: a swatch and a label for each colour. */
static void draw_legend(viewer *v, float x, float y, int scale)
{
    static const char *const labels[3] = {"CPU frame interval", "GPU frame time",
                                          "16.7 ms (60 Hz)"};
    const uint8_t *colors[3] = {cpu_bar_color, gpu_bar_color, grid_line_color};
    for (int i = 0; i < 3; i++) {
        ds_overlay_rect(v->overlay, x, y + (float)(2 * scale), (float)(6 * scale),
                        (float)(6 * scale), colors[i]);
        x += (float)(9 * scale);
        x += ds_overlay_text(v->overlay, x, y, (float)scale, dim_color, labels[i]);
        x += (float)(8 * scale);
    }
}

/* The frame-time graph: CPU frame intervals as grey bars, GPU frame times
 * as green bars in front of them, newest on the right; the orange line is
 * one 60 Hz frame, the label the top of the scale. */
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
    for (int c = 0; c < columns; c++) {
        int age = columns - 1 - c;
        float cpu = v->graph_cpu_ms[(v->graph_cpu_next - 1 - age + 2 * GRAPH_SAMPLES) % GRAPH_SAMPLES];
        float gpu = v->graph_gpu_ms[(v->graph_gpu_next - 1 - age + 2 * GRAPH_SAMPLES) % GRAPH_SAMPLES];
        float bar = fminf(height, height * cpu / range);
        float gpu_bar = fminf(height, height * gpu / range);
        float cx = x + (float)(c * scale);
        ds_overlay_rect(v->overlay, cx, y + height - bar, (float)scale, bar, cpu_bar_color);
        if (gpu > 0.0f)
            ds_overlay_rect(v->overlay, cx, y + height - gpu_bar, (float)scale,
                            fmaxf(gpu_bar, (float)scale), gpu_bar_color);
    }
    /* The 60 Hz line, over the bars. */
    ds_overlay_rect(v->overlay, x, y + height - height * 16.7f / range, width, (float)scale,
                    grid_line_color);
    snprintf(label, sizeof label, "%.0f ms", (double)range);
    ds_overlay_text(v->overlay, x + 2.0f * scale, y + 1.0f * scale, (float)scale, dim_color, label);
}

/* The settings as the state lines show them. */
static void state_lines(viewer *v, panel *p, const char *unit)
{
    char count[32];
    format_count(ds_renderer_sorted_count(v->renderer), count, sizeof count);
    add_line(p, text_color, "elements: %s %s | alpha %.2f", count, unit, (double)v->alpha);
    add_line(p, text_color, "shuffle %s | %s | key %s | %s | tiles %s", v->shuffle ? "ON" : "off",
             unit, triangle_key_names[v->triangle_key], ds_technique_label(v->technique),
             ds_renderer_tiles(v->renderer) ? "on" : "off");
    add_line(p, text_color, "color %s | opacity %s | msaa %d | up %s | point %.3g",
             ds_color_mode_name(v->color_mode), ds_opacity_mode_name(v->opacity), v->msaa,
             ds_up_axis_name(v->up), (double)ds_renderer_point_size(v->renderer));
}

/* The error view's lines: the error against the exact reference, how
 * often it is measured, and the heatmap's scale. */
static void error_lines(viewer *v, panel *p)
{
    if (v->error_mode == ERROR_OFF && !v->split)
        return;
    char every[48];
    if (v->error_every <= 1)
        snprintf(every, sizeof every, "every frame");
    else
        snprintf(every, sizeof every, "every %d frames", v->error_every);
    if (!v->have_error)
        add_line(p, warn_color, "vs exact: measuring... (%s)", every);
    else if (isinf(v->error.psnr))
        add_line(p, warn_color, "vs exact: RMSE 0 | PSNR inf | SSIM %.4f | %s",
                 v->error.ssim, every);
    else
        add_line(p, warn_color, "vs exact: RMSE %.3f | PSNR %.1f dB | SSIM %.4f | %s",
                 v->error.rmse, v->error.psnr, v->error.ssim, every);
    if (v->error_mode == ERROR_HEATMAP)
        add_line(p, dim_color, "heatmap: largest channel error, 0 to %d+ levels", HEAT_LEVELS);
    if (v->split)
        add_line(p, dim_color, "split: left %s, right exact", ds_technique_label(v->technique));
}

/* " | 24-bit keys" when the latest timed frame's sort compared fewer than
 * 32 key bits (narrowed keys, or --key-bits), else "". */
static void sorted_bits_label(const viewer *v, char *dest, size_t size)
{
    int bits = v->history_count
                   ? v->history[(v->history_next + HISTORY - 1) % HISTORY].sorted_bits
                   : 0;
    dest[0] = '\0';
    if (bits > 0 && bits < 32)
        snprintf(dest, size, " | %d-bit keys", bits);
}

/* The stats panel, full or compact. The first lines hold only settings
 * (no numbers that change by themselves), so that tests can compare them
 * between frames: full: line 1 the sort, 2-4 the state; compact: line 0
 * the sort and sorting state. */
static void draw_stats(viewer *v, int scale)
{
    panel p = {.count = 0};
    stage_means m;
    const char *unit = v->primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles";
    char sort[64], bits[32];
    sort_label(v, sort, sizeof sort);
    sorted_bits_label(v, bits, sizeof bits);
    mean_timings(v, &m);

    if (v->panel_mode == OVERLAY_COMPACT) {
        add_line(&p, v->sort_note[0] ? warn_color : text_color, "sort: %s | %s | %s | color %s",
                 sort, ds_technique_label(v->technique),
                 v->primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles",
                 ds_color_mode_name(v->color_mode));
        /* The frame and the part of it that no stage accounts for. */
        if (v->history_count > 0)
            add_line(&p, text_color, "GPU %.2f ms (handover %.3f) | %.1f FPS | O: off  H: help",
                     (double)m.frame, (double)m.handover,
                     v->cpu_frame_ms_mean > 0.0 ? 1e3 / v->cpu_frame_ms_mean : 0.0);
        else
            add_line(&p, text_color, "GPU - | O: off  H: help");
        error_lines(v, &p);
        draw_lines(v, &p, scale, 0.0f, 0.0f);
        return;
    }

    add_line(&p, text_color, "depthsort  %s  (interop: %s)", ds_renderer_gpu_name(v->renderer),
             ds_interop_mode_name(ds_renderer_interop(v->renderer)));
    add_line(&p, v->sort_note[0] ? warn_color : text_color, "sort: %s%s  %s", sort, bits,
             v->sort_note);
    state_lines(v, &p, unit);
    /* On the CPU path the renderer times the host stages with the host
     * clock, unless they ran as GL compute. The hand-over is the GPU time
     * between two frames' draws that no stage accounts for. */
    add_line(&p, dim_color, "stage times, ms, mean of %d frames (%s)", v->history_count,
             ds_renderer_interop(v->renderer) == DS_INTEROP_NONE && !m.gl
                 ? "GPU timers; sort: host clock"
                 : "GPU timers; handover: GL timestamps");
    {
        enum { STAGES = 8 };
        const char *names[STAGES] = {"distances", "keys",    "shuffle",  "sort",
                                     "scatter",   "interop", "handover", "draw"};
        const float values[STAGES] = {m.distances, m.keys,    m.shuffle,  m.sort,
                                      m.scatter,   m.interop, m.handover, m.draw};
        for (int i = 0; i < STAGES; i++) {
            add_line(&p, text_color, "%s", names[i]);
            text_line *line = &p.lines[p.count - 1];
            line->indent = STAGE_INDENT;
            /* '-' before any frame, and for a stage that ran in none of
             * them (renderer.h: it reads 0), as the headless table. */
            if (v->history_count > 0 && values[i] != 0.0f)
                snprintf(line->value, sizeof line->value, "%8.3f", (double)values[i]);
            else
                snprintf(line->value, sizeof line->value, "%8s", "-");
        }
    }
    if (v->history_count > 0)
        add_line(&p, text_color, "frame: GPU %.2f ms | CPU clock %.2f ms = %.1f FPS", (double)m.frame,
                 v->cpu_frame_ms_mean, v->cpu_frame_ms_mean > 0.0 ? 1e3 / v->cpu_frame_ms_mean : 0.0);
    else
        add_line(&p, text_color, "frame: GPU - | CPU clock %.2f ms", v->cpu_frame_ms_mean);
    add_line(&p, dim_color, "vsync %s | O: compact  H: help", v->vsync ? "on" : "off");
    error_lines(v, &p);
    int legend_line = p.count;
    add_line(&p, dim_color, "%s", ""); /* the legend's row, drawn below */

    float graph_h = (float)(scale * GRAPH_HEIGHT);
    float inner = draw_lines(v, &p, scale, (float)(scale * GRAPH_MIN_WIDTH),
                             graph_h + (float)(scale * DS_OVERLAY_PADDING));
    float x = (float)(scale * (DS_OVERLAY_MARGIN + DS_OVERLAY_PADDING));
    draw_legend(v, x, (float)DS_OVERLAY_LINE_TOP(legend_line, scale), scale);
    float graph_top = (float)DS_OVERLAY_LINE_TOP(legend_line + 1, scale);
    draw_graph(v, x, graph_top, fminf(inner, (float)(scale * GRAPH_SAMPLES)), graph_h, scale);
}

/* The transient message line, under the stats panel (or in its place). */
static void draw_message(viewer *v, int scale)
{
    float x = (float)(scale * DS_OVERLAY_MARGIN);
    float y = v->panel_mode == OVERLAY_OFF ? (float)(scale * DS_OVERLAY_MARGIN) : v->panel_bottom;
    float width = ds_overlay_text_width(v->message, (float)scale);
    ds_overlay_rect(v->overlay, x, y, width + (float)(2 * scale * DS_OVERLAY_PADDING),
                    (float)(scale * (DS_OVERLAY_LINE_HEIGHT + 2 * DS_OVERLAY_PADDING)), panel_color);
    ds_overlay_text(v->overlay, x + (float)(scale * DS_OVERLAY_PADDING),
                    y + (float)(scale * DS_OVERLAY_PADDING), (float)scale, warn_color, v->message);
}

/* The help panel: a title over ds_hotkey_help()'s lines, the same as in
 * --help, right of the stats panel. The font is proportional, so each
 * line's key (its first HELP_KEY_COLUMN characters) and description are
 * drawn in two columns. */
static void draw_help(viewer *v, int scale)
{
    static const char title[] = "Hotkeys";
    float x = (float)(scale * DS_OVERLAY_MARGIN);
    float y = (float)(scale * DS_OVERLAY_MARGIN);
    float pad = (float)(scale * DS_OVERLAY_PADDING);
    float line_height = (float)(scale * DS_OVERLAY_LINE_HEIGHT);
    float key_width = 0.0f, text_width = 0.0f;
    char key[HELP_KEY_COLUMN + 1];
    if (v->panel_mode != OVERLAY_OFF)
        x = v->panel_right + (float)(scale * DS_OVERLAY_MARGIN);
    for (int i = 0; i < v->help_lines; i++) {
        snprintf(key, sizeof key, "%s", v->help[i]);
        key_width = fmaxf(key_width, ds_overlay_text_width(key, (float)scale));
        if (strlen(v->help[i]) > HELP_KEY_COLUMN)
            text_width = fmaxf(text_width, ds_overlay_text_width(v->help[i] + HELP_KEY_COLUMN + 1,
                                                                 (float)scale));
    }
    key_width += (float)(6 * scale);
    float width = fmaxf(ds_overlay_text_width(title, (float)scale), key_width + text_width);
    ds_overlay_rect(v->overlay, x, y, width + 2.0f * pad,
                    (float)(1 + v->help_lines) * line_height + 2.0f * pad, panel_color);
    ds_overlay_text(v->overlay, x + pad, y + pad, (float)scale, warn_color, title);
    for (int i = 0; i < v->help_lines; i++) {
        float top = y + pad + (float)(i + 1) * line_height;
        snprintf(key, sizeof key, "%s", v->help[i]);
        ds_overlay_text(v->overlay, x + pad, top, (float)scale, text_color, key);
        if (strlen(v->help[i]) > HELP_KEY_COLUMN)
            ds_overlay_text(v->overlay, x + pad + key_width, top, (float)scale, text_color,
                            v->help[i] + HELP_KEY_COLUMN + 1);
    }
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
        if (v->screenshot_scripted)
            v->script_failed = 1;
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
            if (!v->screenshot_scripted) /* a script's shots stay clean */
                show_message(v, "screenshot: %s", v->screenshot_path);
        } else {
            show_message(v, "screenshot failed: %s", ds_last_error());
            if (v->screenshot_scripted)
                v->script_failed = 1; /* the run's exit status says so */
        }
    }
    free(pixels);
    free(flipped);
    v->screenshot_path[0] = '\0';
    v->screenshot_scripted = 0;
}

/* Renders, overlays, saves a pending screenshot and swaps. Returns DS_OK or
 * the renderer's error (already logged). */
static ds_status render_frame(viewer *v)
{
    double start_ms = ds_now_ms();
    ds_status status = ds_renderer_frame(v->renderer, &v->camera, 0);
    if (status != DS_OK)
        return status;
    v->frames_rendered++;
    int measured = 0, error_view_on = v->error_mode != ERROR_OFF || v->split;
    if (error_view_on && ensure_error_targets(v)) {
        if (v->frames_to_measure <= 0) {
            double measure_start = ds_now_ms();
            if ((status = measure_error(v)) != DS_OK)
                return status;
            update_error_rate(v, ds_now_ms() - measure_start, 0.0);
            v->frames_to_measure = v->error_every;
            measured = 1;
        }
        /* A submit replaces the one before it: what comes back is the
         * latest measurement, once the GPU has finished it. */
        if (ds_image_metrics_poll(v->metrics, 0, &v->error))
            v->have_error = 1;
        v->frames_to_measure--;
        show_error_images(v);
    }
    collect_timings(v);
    int show_message_line = ds_now_ms() < v->message_until_ms;
    if (v->panel_mode != OVERLAY_OFF || v->help_on || show_message_line) {
        int scale = DS_OVERLAY_SCALE(v->fb_height);
        /* Over the window's picture: with MSAA the renderer drew into its
         * own framebuffer and resolved into the window. */
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        ds_overlay_begin(v->overlay, v->fb_width, v->fb_height);
        if (v->panel_mode != OVERLAY_OFF)
            draw_stats(v, scale);
        if (show_message_line)
            draw_message(v, scale);
        if (v->help_on)
            draw_help(v, scale);
        ds_overlay_draw(v->overlay);
    }
    if (v->screenshot_path[0])
        save_screenshot(v);
    glfwSwapBuffers(v->window);
    double now = ds_now_ms();
    record_cpu_frame(v, now);
    if (error_view_on && !measured)
        update_error_rate(v, 0.0, now - start_ms);
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
    glfwSetDropCallback(v->window, on_drop);
    glfwGetFramebufferSize(v->window, &v->fb_width, &v->fb_height);
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

/* The options with the viewer's current settings, for re-creating the
 * renderer on a reload: what the keys changed carries over, except the
 * colour mode and point size for another model (flags RELOAD_NEW_MODEL),
 * which start again from the command line's. */
static void current_options(const viewer *v, int flags, ds_options *dest)
{
    *dest = v->opts;
    dest->sort = ds_sort_algo_name(v->sort);
    dest->stages = v->stages;
    dest->shuffle = v->shuffle;
    dest->primitive = v->primitive;
    dest->triangle_key = v->triangle_key;
    dest->no_sort = !v->sorting;
    dest->alpha = v->alpha;
    dest->color_mode = v->color_mode;
    dest->opacity = v->opacity;
    dest->msaa = v->msaa;
    dest->tiles = ds_renderer_tiles(v->renderer) ? DS_TILES_ON : DS_TILES_OFF;
    dest->point_size = ds_renderer_point_size(v->renderer);
    if (flags & RELOAD_NEW_MODEL) {
        dest->color_mode = v->opts.color_mode;
        dest->point_size = v->opts.point_size;
    }
}

/* Builds the mesh that `opts` names, with a progress line on the terminal.
 * *dest is the caller's to free. */
static ds_status build_mesh(const ds_options *opts, ds_mesh *dest)
{
    progress phase;
    char phase_name[DS_SCRIPT_MAX_LINE + 64], result[160], vertices[32], triangles[32];
    const char *input = opts->model_path ? opts->model_path : ds_app_scene_spec(opts);
    snprintf(phase_name, sizeof phase_name, "%s %s", opts->model_path ? "loading" : "building", input);
    progress_begin(&phase, phase_name);
    ds_status status = ds_app_build_mesh(opts, dest);
    if (status != DS_OK) {
        progress_end(&phase, "failed");
        return status;
    }
    format_count(dest->vertex_count, vertices, sizeof vertices);
    format_count(dest->triangle_count, triangles, sizeof triangles);
    snprintf(result, sizeof result, "%s vertices, %s triangles", vertices, triangles);
    progress_end(&phase, result);
    return DS_OK;
}

/* Creates a renderer for `mesh` as `opts` ask, at the window's framebuffer
 * size, and makes it the viewer's (destroying the one before only once the
 * new one works); then reads back what the renderer chose (the cpu sort on
 * the CPU path, points for a mesh without triangles, the colour mode). */
static ds_status install_mesh(viewer *v, const ds_options *opts, const ds_mesh *mesh)
{
    ds_renderer_desc desc;
    ds_renderer *renderer = NULL;
    progress phase;
    char result[160];
    ds_status status = ds_app_renderer_desc(opts, mesh, &desc);
    if (status != DS_OK)
        return status;
    desc.width = v->fb_width > 0 ? v->fb_width : 1;
    desc.height = v->fb_height > 0 ? v->fb_height : 1;
    desc.verify = 0; /* the viewer never checks a frame's order */
    progress_begin(&phase, "uploading to the GPU");
    status = ds_renderer_create(&desc, &renderer);
    if (status != DS_OK) {
        /* Device memory runs out as a CUDA or GL error; say what it means. */
        if (status == DS_ERR_CUDA || status == DS_ERR_GL || status == DS_ERR_OUT_OF_MEMORY)
            snprintf(result, sizeof result,
                     "failed (%s): the model may not fit in GPU memory", ds_status_str(status));
        else
            snprintf(result, sizeof result, "failed (%s)", ds_status_str(status));
        progress_end(&phase, result);
        return status;
    }
    progress_end(&phase, ds_renderer_gpu_name(renderer));
    ds_renderer_destroy(v->renderer);
    v->renderer = renderer;
    ds_renderer_set_background(renderer, v->background);
    v->sort = ds_renderer_sort(renderer);
    v->stages = ds_renderer_stages(renderer);
    v->primitive = ds_renderer_primitive(renderer);
    v->color_mode = ds_renderer_color_mode(renderer);
    v->opacity = ds_renderer_opacity_mode(renderer);
    v->msaa = ds_renderer_msaa(renderer);
    v->has_colors = mesh->has_colors;
    memcpy(v->model_center, mesh->center, sizeof v->model_center);
    v->model_radius = mesh->radius;
    /* The technique carries over (the sorted or unsorted draw came with
     * the options). */
    if (v->technique != ds_renderer_technique(renderer))
        select_technique(v, v->technique);
    v->technique = ds_renderer_technique(renderer);
    /* Timings restart with the new renderer's frame numbers. */
    v->frames_rendered = 0;
    forget_reference_frames(v);
    reset_timings(v);
    return DS_OK;
}

static void set_title(viewer *v)
{
    char title[DS_SCRIPT_MAX_LINE + 32];
    const char *input = v->opts.model_path ? v->opts.model_path : ds_app_scene_spec(&v->opts);
    snprintf(title, sizeof title, "depthsort — %s", input);
    glfwSetWindowTitle(v->window, title);
}

/* R, Y and a dropped file: the model built again from v->opts with the
 * current settings; on failure the current model stays and the error shows
 * in the overlay. RELOAD_FRAME: frame the new model (else the camera
 * stays). */
static ds_status reload_model(viewer *v, const char *what, int flags)
{
    ds_options opts;
    ds_mesh mesh = {0};
    current_options(v, flags, &opts);
    ds_status status = build_mesh(&opts, &mesh);
    if (status == DS_OK)
        status = install_mesh(v, &opts, &mesh);
    ds_mesh_free(&mesh);
    if (status != DS_OK) {
        show_error(v, what);
        return status;
    }
    set_title(v);
    if (flags & RELOAD_FRAME)
        frame_to_fit(v);
    else
        ds_camera_enclose(&v->camera, v->model_center, v->model_radius);
    return DS_OK;
}

static void initial_settings(viewer *v, const ds_options *opts)
{
    v->opts = *opts;
    if (opts->model_path) {
        snprintf(v->model_path, sizeof v->model_path, "%s", opts->model_path);
        v->opts.model_path = v->model_path;
    }
    v->sort = ds_app_first_sort(opts->sort);
    v->stages = opts->stages == DS_STAGES_GL ? DS_STAGES_GL : DS_STAGES_SORTER; /* until created */
    v->shuffle = opts->shuffle;
    v->primitive = opts->primitive;
    v->triangle_key = opts->triangle_key;
    v->sorting = !opts->no_sort;
    v->technique = opts->no_sort ? DS_TECHNIQUE_UNSORTED : DS_TECHNIQUE_SORTED;
    forget_reference_frames(v);
    v->alpha = opts->alpha > 0.0f ? opts->alpha : 0.35f;
    v->up = opts->up;
    v->msaa_max = 8;
    memcpy(v->background, dark_background, sizeof v->background);
    if (opts->background_given) {
        memcpy(v->background, opts->background, sizeof opts->background);
        v->background[3] = 1.0f;
    }
    v->panel_mode = start_panel_mode(opts->overlay, opts->width, opts->height);
    v->vsync = opts->vsync;
    v->help_lines = ds_hotkey_help(HELP_KEY_COLUMN, HELP_WIDTH, v->help, DS_HOTKEY_LINES_MAX);
}

static void close_viewer(viewer *v)
{
    ds_script_free(&v->script);
    if (v->window) {
        glfwMakeContextCurrent(v->window);
        ds_overlay_destroy(v->overlay);
        free_error_targets(v);
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
    int exit_status = 1;

    v = calloc(1, sizeof *v);
    if (!v) {
        ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: out of memory");
        return 1;
    }
    initial_settings(v, opts);
    if (opts->script_path && ds_script_load(opts->script_path, &v->script) != DS_OK)
        goto done;

    /* The model first: a long load shows its progress before a window. */
    if ((status = build_mesh(&v->opts, &mesh)) != DS_OK) {
        if (status == DS_ERR_INVALID_ARG)
            exit_status = 2; /* an option (--grid) asked too much */
        goto done;
    }
    if (open_window(v, &v->opts, "depthsort") != DS_OK)
        goto done;
    set_title(v);
    apply_vsync(v);
    status = install_mesh(v, &v->opts, &mesh);
    if (status == DS_OK) {
        ds_app_note_missing_sorts();
        ds_app_warn_ignored(&v->opts, &mesh, v->renderer);
        /* The first view: 20 degrees above the horizon, framed, unless
         * --camera or --camera-file name one. */
        v->camera.pitch = VIEW_PITCH;
        frame_to_fit(v);
        status = ds_app_start_camera(&v->opts, &mesh, &v->camera, NULL);
    }
    ds_mesh_free(&mesh); /* the renderer holds its own copy */
    if (status != DS_OK)
        goto done;

    status = ds_overlay_create(&v->overlay);
    if (status != DS_OK)
        goto done;
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
    if (v->script_failed)
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
