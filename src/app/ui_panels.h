/* SPDX-License-Identifier: MIT */
/* ui_panels.h — the viewer's panels (--ui panels): its settings, stage
 * times, frame-time plot, error numbers and hotkeys as Dear ImGui windows,
 * the way NVIDIA's nvpro samples and Polyscope show theirs. The one C++
 * file of the program (ui_panels.cpp) sits behind this C header, so the
 * viewer stays C; a build without Debian's libimgui-dev has no panels and
 * the viewer draws its text overlay (overlay.h) instead.
 *
 * The panels own no setting. Each frame the viewer describes its state in
 * a ds_ui_view, and the panels hand back what the mouse changed in a
 * ds_ui_changes, which the viewer applies through the very functions its
 * hotkeys call; a hotkey's change therefore shows in the panels the next
 * frame, and a combo box's change goes through the same checks as a key.
 *
 * Step by step (the window's GL 4.5 core context is current):
 *   ds_ui *ui;
 *   if (ds_ui_create(window, scale, &ui) != DS_OK) ...;  // after the viewer's
 *                                                       // GLFW callbacks
 *   each frame, after the model is drawn into the window:
 *     ds_ui_view view = {...};
 *     ds_ui_changes changes;
 *     ds_ui_draw(ui, &view, &changes);   // over framebuffer 0
 *     apply changes;
 *   ds_ui_reserved_width(ui) says how many pixels at the window's right
 *   edge the docked panel takes, so that the model's viewport is framed
 *   beside it rather than under it.
 *   ds_ui_destroy(ui);
 */
#ifndef DS_UI_PANELS_H
#define DS_UI_PANELS_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_ui ds_ui;

/* The docked panel's width at scale 1, in pixels; it shares the window
 * only where the window is at least DS_UI_NARROW_FACTOR times as wide, and
 * starts collapsed to its title bar otherwise. */
#define DS_UI_PANEL_WIDTH 330
#define DS_UI_NARROW_FACTOR 2.5f

#define DS_UI_CHOICES_MAX 24
#define DS_UI_STAGES_MAX 12
#define DS_UI_HEAT_STEPS 32

/* One named choice of a combo box; unavailable ones are shown greyed. */
typedef struct ds_ui_choice {
    const char *name;
    int available;
} ds_ui_choice;

/* A stage row: its name and mean time in ms. */
typedef struct ds_ui_stage {
    const char *name;
    float ms;
} ds_ui_stage;

/* What the panels show this frame. Pointers stay the viewer's and must
 * live until ds_ui_draw() returns. */
typedef struct ds_ui_view {
    const char *gpu_name;    /* the GL renderer string */
    const char *interop;     /* the interop mode's name */
    const char *model;       /* the model's path or scene */
    const char *elements;    /* "17,599 triangles" */
    int full;                /* 1: the full panel; 0: compact (settings
                                and the frame line); -1: hidden (O) */

    /* Settings, each the index of the current choice. */
    ds_ui_choice sorts[DS_UI_CHOICES_MAX];
    int sort_count, sort;
    const char *sort_note;   /* why the last selection failed, or "" */
    ds_ui_choice techniques[DS_UI_CHOICES_MAX];
    int technique_count, technique;
    const char *const *triangle_keys;
    int triangle_key_count, triangle_key;
    const char *const *color_modes;
    int color_mode_count, color_mode;
    int points;              /* the point primitive: the point size slider */
    float alpha, alpha_min;
    float point_size;        /* world units */
    int shuffle, tiles;
    int msaa;
    int sorted_bits;         /* the latest frame's key bits, 0 unknown */

    /* Stage times: rows only for stages that ran, means over frames. */
    ds_ui_stage stages[DS_UI_STAGES_MAX];
    int stage_count;
    int frames_in_mean;      /* 0: no frame timed yet */
    float frame_gpu_ms;      /* the mean frame; the rows' rest is "other" */
    double cpu_frame_ms;     /* CPU clock between swaps, mean */
    const char *timer_note;  /* how the stages are timed */
    int llvmpipe;            /* the GL is Mesa's CPU rasteriser */

    /* The frame-time plot: two rings of `samples` values, the newest at
     * index next - 1; a value <= 0 is "no sample". */
    const float *cpu_ms, *gpu_ms;
    int samples, cpu_next, gpu_next;

    /* The error against the exact reference (D, \). */
    int error_on, have_error, heatmap, split;
    double rmse, psnr, ssim; /* rmse in levels of 255; psnr in dB */
    int error_every;         /* measured every N frames */
    int heat_levels;         /* the heatmap saturates at this many levels */
    uint8_t heat_colors[DS_UI_HEAT_STEPS][3]; /* 0 .. heat_levels */
    const char *technique_label;

    const char *message;     /* a transient line, or NULL */
    const char *const *help; /* the hotkey lines, key column first */
    int help_count, help_key_column;
    int help_on;
    int vsync;
    const char *window_mode; /* "GLX" or "EGL copy (...)": no vsync */
} ds_ui_view;

/* What the mouse changed this frame; -1 (or a negative value) where
 * nothing changed. */
typedef struct ds_ui_changes {
    int sort, technique, triangle_key, color_mode;
    float alpha, point_size;
    int shuffle, tiles;      /* the new state, or -1 */
    int help_on;             /* the help window's close button: 0, or -1 */
} ds_ui_changes;

#ifdef DS_HAVE_IMGUI
/* Sets up Dear ImGui on `window` (a GLFWwindow *) with its GLFW and
 * OpenGL 3 backends; `scale` multiplies the font and the sizes (the
 * monitor's content scale times --ui-scale). The GLFW backend chains the
 * callbacks the viewer installed before. Errors: DS_ERR_GL (the backend
 * could not load its GL functions or build its program). */
ds_status ds_ui_create(void *window, float scale, ds_ui **dest);

/* Shuts the backends down and frees the context; NULL is allowed. */
void ds_ui_destroy(ds_ui *ui);

/* Builds and draws this frame's panels over framebuffer 0 and reports the
 * mouse's changes. Leaves GL program, vertex array, blend and scissor
 * state changed (the renderer sets its own). */
void ds_ui_draw(ds_ui *ui, const ds_ui_view *view, ds_ui_changes *dest);

/* Pixels at the window's right edge that the docked panel takes (0 when
 * it is hidden or collapsed, or the window is too narrow to share). */
int ds_ui_reserved_width(const ds_ui *ui, int window_width, int shown);

/* Whether the panels take the mouse or keyboard now (a click on a panel
 * is not an orbit; a key typed into a field is not a hotkey). */
int ds_ui_wants_mouse(const ds_ui *ui);
int ds_ui_wants_keyboard(const ds_ui *ui);
#else
/* A build without libimgui-dev: no panels; ds_ui_create() says so and
 * the viewer draws its text overlay. */
static inline ds_status ds_ui_create(void *window, float scale, ds_ui **dest)
{
    (void)window;
    (void)scale;
    *dest = NULL;
    return ds_fail(DS_ERR_UNSUPPORTED, "viewer: this build has no panels (no libimgui-dev, "
                                       "or DS_UI_PANELS=OFF): the text overlay instead");
}
static inline void ds_ui_destroy(ds_ui *ui) { (void)ui; }
static inline void ds_ui_draw(ds_ui *ui, const ds_ui_view *view, ds_ui_changes *dest)
{
    (void)ui;
    (void)view;
    dest->sort = dest->technique = dest->triangle_key = dest->color_mode = -1;
    dest->alpha = dest->point_size = -1.0f;
    dest->shuffle = dest->tiles = dest->help_on = -1;
}
static inline int ds_ui_reserved_width(const ds_ui *ui, int window_width, int shown)
{
    (void)ui;
    (void)window_width;
    (void)shown;
    return 0;
}
static inline int ds_ui_wants_mouse(const ds_ui *ui) { (void)ui; return 0; }
static inline int ds_ui_wants_keyboard(const ds_ui *ui) { (void)ui; return 0; }
#endif

#ifdef __cplusplus
}
#endif
#endif
