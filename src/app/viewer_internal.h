/* SPDX-License-Identifier: MIT */
/* viewer_internal.h — the viewer's state and the seams between its files;
 * only src/app/viewer*.c include it. The viewer's jobs, one file each:
 *
 *   viewer.c           the window, one frame (render, error view, overlay,
 *                      screenshot, swap) and the main loop
 *   viewer_input.c     keys, mouse, resize and dropped files, from GLFW's
 *                      callbacks or the --script player; both take one path
 *   viewer_settings.c  what the keys change: the sort, the technique, the
 *                      colour, the view, vsync, fullscreen, the camera file
 *   viewer_error.c     the error against the exact reference (D, \\)
 *   viewer_panel.c     the timings and the overlay: stats panel, frame
 *                      graph, message and help
 *   viewer_load.c      building a model (progress on the terminal) and
 *                      installing it in a new renderer; reloads (R, a
 *                      dropped file, Y's up axis)
 *   viewer_ui.c        the ImGui panels (--ui panels, ui_panels.h): the
 *                      state described for them, their changes applied,
 *                      the model's viewport framed beside them
 */
#ifndef DS_VIEWER_INTERNAL_H
#define DS_VIEWER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "camera.h"
#include "cli.h"
#include "egl_context.h"
#include "hotkeys.h"
#include "image_metrics.h"
#include "mesh.h"
#include "overlay.h"
#include "renderer.h"
#include "sort.h"
#include "ui_panels.h"
#include "viewer.h"
#include "viewer_script.h"
#include "x11_present.h"

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
/* Alpha keys step by 1 / ALPHA_STEPS (0.05) within [ALPHA_MIN, 1]. */
#define ALPHA_STEPS 20.0f
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
 * image; the axis views (F1-F3) look exactly along an axis. */
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

/* O cycles the stats panel through these. */
typedef enum overlay_mode {
    OVERLAY_FULL = 0,
    OVERLAY_COMPACT,
    OVERLAY_OFF,
    OVERLAY_MODE_COUNT
} overlay_mode;

/* D cycles the error view: off, the numbers, the numbers and the heatmap. */
typedef enum error_view {
    ERROR_OFF = 0,
    ERROR_NUMBERS,
    ERROR_HEATMAP,
    ERROR_VIEW_COUNT
} error_view;

/* ds_viewer_reload_model()'s flags. */
enum { RELOAD_FRAME = 1, RELOAD_NEW_MODEL = 2 };

/* Settings the keys change (viewer_settings.c; the renderer holds the
 * same). */
typedef struct viewer_settings {
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
    int vsync;
    int fullscreen;
} viewer_settings;

/* The panels, the message line and the window's place (viewer_panel.c,
 * viewer_settings.c). */
typedef struct viewer_ui {
    overlay_mode panel_mode;
    float panel_right, panel_bottom; /* the stats panel's edges, pixels */
    int help_on;
    char help[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX]; /* the help panel */
    int help_lines;
    char message[256];    /* transient, bottom of the panel */
    double message_until_ms;
    int unavailable[DS_SORT_ALGO_COUNT]; /* a selection failed: skip on Tab */
    int gl_unavailable;   /* the same for the GL stages */
    char sort_note[160];  /* why the last selection failed, on the sort line */
    int windowed_x, windowed_y, windowed_width, windowed_height; /* before
                             fullscreen */
    int view_key;         /* the F-key of the last axis view (0: none) */
    int view_negative;    /* it looked from the axis's negative side */
    ds_camera view_camera; /* the camera it set: the same key again while
                             the view is unchanged turns to the other side */
} viewer_ui;

/* The error against the exact reference (D, \\; viewer_error.c): the
 * picture and the reference copied into textures of the viewer's (with
 * framebuffers to blit them from), the comparison in flight, the last
 * result. */
typedef struct viewer_error_view {
    error_view mode;
    int split;
    int split_column;       /* the divider, dragged to this column of the
                               model's viewport; 0: under the model's centre */
    int split_dragging;     /* the left button holds the divider */
    int split_announce;     /* \\'s feedback waits for the first result */
    ds_image_metrics *metrics;
    unsigned test_texture, reference_texture, heat_texture;
    unsigned reference_framebuffer, heat_framebuffer;
    int width, height;      /* the size the above were made for */
    ds_image_error result;
    int have_result;
    int images_ready;       /* the textures hold a measurement of this view */
    int every;              /* measure every N frames */
    int frames_to_measure;  /* until the next measurement */
    double measure_ms_mean; /* host time of one measurement */
    double own_ms_mean;     /* host time of one frame without it */
    uint64_t reference_frames[REFERENCE_RING];
    int reference_next;
} viewer_error_view;

/* Timings (viewer_panel.c): the last HISTORY completed frames, and the
 * graph samples. Frames numbered below `from` were rendered before the
 * latest change of settings and stay out of the means. frames_rendered
 * counts every frame the renderer drew, reference frames included. */
typedef struct viewer_timings {
    uint64_t frames_rendered, from;
    ds_frame_timings history[HISTORY];
    int history_count, history_next;
    float graph_cpu_ms[GRAPH_SAMPLES];
    float graph_gpu_ms[GRAPH_SAMPLES];
    int graph_cpu_next, graph_gpu_next;
    double last_swap_ms;
    double cpu_frame_ms_mean;
} viewer_timings;

/* The --script player (viewer_input.c) and the screenshot pending
 * (viewer.c takes it after the frame). */
typedef struct viewer_script_state {
    ds_script steps;
    size_t next;
    int frames_left;
    int failed;              /* a script's screenshot could not be written */
    char screenshot_path[DS_SCRIPT_MAX_LINE + 1]; /* "" when none pending */
    int screenshot_counter;
    int screenshot_scripted; /* the pending one is a script step's */
    int screenshot_alone;    /* the model's view only, taken before the
                                panels and overlay are drawn */
    int said_as_shown;       /* a shot --supersample or --screenshot-alpha
                                cannot shape was announced */
    float orbit_step;        /* orbit: radians of yaw after each frame */
    double wait_until_ms;    /* wait: steps resume at this ds_now_ms();
                                wait file: it gives up then */
    const ds_script_step *waiting_for_file; /* wait file's step, or NULL */
    int stay;                /* the script ended with stay */
    int ended;               /* it ended without quit or stay (warned) */
} viewer_script_state;

typedef struct ds_viewer {
    GLFWwindow *window;
    /* --gl-window egl, or auto without GLX (viewer.c): the window has no
     * GL; an EGL context draws into present's framebuffer, which is copied
     * into the window each frame. Both NULL with GLX. */
    ds_egl_context *egl;
    ds_x11_present *present;
    unsigned target; /* where the window's picture is drawn: 0 (GLX's
                        window) or present's framebuffer */
    ds_renderer *renderer;
    ds_overlay *overlay;
    ds_ui *panels; /* --ui panels (viewer_ui.c), else NULL: the text overlay */
    ds_camera camera;
    float model_center[3];
    float model_radius;
    int has_colors; /* the model brings its own colours (colour mode file) */
    int fb_width, fb_height;          /* the model's viewport, from the left */
    int window_width, window_height;  /* the window's framebuffer */

    /* The command line's options; R, Y and a dropped file rebuild the
     * model from them (opts.model_path points into model_path after a
     * drop, opts.up follows Y). */
    ds_options opts;
    char model_path[DS_SCRIPT_MAX_LINE + 1];

    viewer_settings settings;
    viewer_ui ui;
    viewer_error_view error;
    viewer_timings timings;
    viewer_script_state script;
    /* The mouse (viewer_input.c). */
    int left_down, pan_down;
    double cursor_x, cursor_y;
} ds_viewer;

/* Calls between the files; each is described where it is defined. */

/* viewer_settings.c */
/* How the window gets its pictures, for the panels and the report line:
 * "GLX" or "EGL copy (MIT-SHM)" (viewer.c opens it). */
const char *ds_viewer_window_mode(const ds_viewer *v);
void ds_viewer_show_message(ds_viewer *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ds_viewer_show_error(ds_viewer *v, const char *what);
void ds_viewer_reset_timings(ds_viewer *v);
int ds_viewer_select_sort(ds_viewer *v, ds_sort_algo algo, int quiet);
int ds_viewer_select_gl(ds_viewer *v, int quiet);
void ds_viewer_cycle_sort(ds_viewer *v, int step);
void ds_viewer_sort_label(const ds_viewer *v, char *dest, size_t capacity);
void ds_viewer_apply_vsync(ds_viewer *v);
void ds_viewer_frame_to_fit(ds_viewer *v);
void ds_viewer_toggle_fullscreen(ds_viewer *v);
void ds_viewer_next_screenshot_path(ds_viewer *v, char *dest, size_t capacity);
/* `pattern` with its {model}, {technique}, {sort}, {frame} (frames drawn)
 * and {date} keys expanded for the viewer's state (ds_screenshot_name()). */
void ds_viewer_expand_screenshot_name(ds_viewer *v, const char *pattern, char *dest,
                                      size_t capacity);
/* F1, F2, F3 (`key`): the view from +Z, +X or +Y of the model's axes
 * (after --up), framed; the same key again, the view unchanged, from the
 * negative side. A model file does not say which way its model faces. */
void ds_viewer_axis_view(ds_viewer *v, int key);
void ds_viewer_save_camera(ds_viewer *v);
void ds_viewer_cycle_color_mode(ds_viewer *v);
void ds_viewer_cycle_msaa(ds_viewer *v);
void ds_viewer_scale_point_size(ds_viewer *v, float factor);
void ds_viewer_select_technique(ds_viewer *v, ds_technique technique);
void ds_viewer_cycle_technique(ds_viewer *v);

/* viewer_load.c */
ds_status ds_viewer_build_mesh(const ds_options *opts, ds_mesh *dest);
ds_status ds_viewer_install_mesh(ds_viewer *v, const ds_options *opts, const ds_mesh *mesh);
void ds_viewer_set_title(ds_viewer *v);
ds_status ds_viewer_reload_model(ds_viewer *v, const char *what, int flags);
void ds_viewer_cycle_up(ds_viewer *v);

/* viewer_error.c */
void ds_viewer_forget_reference_frames(ds_viewer *v);
void ds_viewer_free_error_targets(ds_viewer *v);
int ds_viewer_ensure_error_targets(ds_viewer *v);
ds_status ds_viewer_measure_error(ds_viewer *v);
void ds_viewer_update_error_rate(ds_viewer *v, double measure_ms, double own_ms);
void ds_viewer_show_error_images(ds_viewer *v);
/* The split view's divider: a column of the model's viewport, under the
 * model's centre unless dragged, 1..fb_width-1. */
int ds_viewer_split_column(const ds_viewer *v);
/* The \\ key's feedback once its first measurement is in: whether the
 * halves match, and by how much they differ. */
void ds_viewer_announce_split(ds_viewer *v);

/* viewer_input.c */
void ds_viewer_run_script(ds_viewer *v);

/* viewer_panel.c */
typedef struct stage_means {
    float distances, keys, shuffle, sort, scatter, interop, handover, draw, frame;
    int gl; /* every frame of the means ran the GL stages */
} stage_means;
void ds_viewer_mean_timings(const ds_viewer *v, stage_means *dest);
void ds_viewer_collect_timings(ds_viewer *v);
void ds_viewer_record_cpu_frame(ds_viewer *v, double now_ms);
void ds_viewer_draw_stats(ds_viewer *v, int scale);
void ds_viewer_draw_message(ds_viewer *v, int scale);
void ds_viewer_draw_help(ds_viewer *v, int scale);
void ds_viewer_draw_error_keys(ds_viewer *v, int scale);

/* viewer_ui.c */
void ds_viewer_open_panels(ds_viewer *v);
void ds_viewer_layout_model_area(ds_viewer *v);
void ds_viewer_draw_panels(ds_viewer *v, int show_message_line);

/* viewer_input.c: GLFW's callbacks for the window, into the same
 * handlers the script feeds. */
void ds_viewer_attach_input(ds_viewer *v);

#endif
