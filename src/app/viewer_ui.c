/* SPDX-License-Identifier: MIT */
/* viewer_ui.c — the viewer's side of the ImGui panels (--ui panels,
 * ui_panels.h): opening them at the monitor's content scale, framing the
 * model's viewport beside the docked panel, describing the viewer's state
 * for them each frame and applying what the mouse changed through the
 * functions the hotkeys call. Without the panels (--ui text, or a build
 * without libimgui-dev) the model has the whole window and the text
 * overlay (viewer_panel.c) is drawn instead.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glad/gl.h>

#include "viewer_internal.h"

#include "setup.h"

/* The names K cycles through, in ds_triangle_key order. */
static const char *const triangle_keys[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};

/* The colour modes the combo box offers: every one but auto; file only
 * for a model with colours (the last entry). */
static const ds_color_mode color_modes[] = {DS_COLOR_NORMAL, DS_COLOR_TINT, DS_COLOR_HEIGHT,
                                            DS_COLOR_FILE};
#define COLOR_MODES (int)(sizeof color_modes / sizeof color_modes[0])

/* The panels instead of the text overlay, scaled by the monitor's content
 * scale and --ui-scale. Where they cannot be had (a build without
 * libimgui-dev, a backend that fails) the text overlay stays, and one
 * line says so where --ui panels asked for them. Call before the renderer is made, so that it is made at
 * the viewport beside the panel. */
void ds_viewer_open_panels(ds_viewer *v)
{
    float xscale = 1.0f, yscale = 1.0f;
    glfwGetWindowContentScale(v->window, &xscale, &yscale);
    float scale = fmaxf(xscale, yscale) * (v->opts.ui_scale > 0.0f ? v->opts.ui_scale : 1.0f);
    ds_log_set_quiet(1); /* one warning line below, or none for auto */
    ds_status status = ds_ui_create(v->window, scale, &v->panels);
    ds_log_set_quiet(0);
    if (status != DS_OK) {
        if (v->opts.ui == DS_UI_PANELS)
            ds_warn("%s", ds_last_error());
        v->panels = NULL;
    }
    ds_viewer_layout_model_area(v);
}

/* The model's viewport: the window less the docked panel's width. The
 * renderer draws from the window's left edge (its viewport starts at 0,
 * 0), so the panel takes the right. The camera keeps its framing; only
 * the aspect follows. */
void ds_viewer_layout_model_area(ds_viewer *v)
{
    int reserved = v->panels ? ds_ui_reserved_width(v->panels, v->window_width,
                                                    v->ui.panel_mode != OVERLAY_OFF)
                             : 0;
    int width = v->window_width - reserved, height = v->window_height;
    if (width == v->fb_width && height == v->fb_height)
        return;
    v->fb_width = width;
    v->fb_height = height;
    if (width <= 0 || height <= 0 || !v->renderer)
        return; /* minimised, or the renderer is made at this size */
    if (ds_renderer_resize(v->renderer, width, height) != DS_OK)
        ds_viewer_show_error(v, "resize");
    v->camera.aspect = (float)width / (float)height;
    ds_viewer_reset_timings(v);
}

/* The stage rows that ran in the frames of the means: a stage that ran in
 * none reads 0 (renderer.h); without interop there is no interop row. */
static int stage_rows(const ds_viewer *v, const stage_means *m, ds_ui_stage *dest)
{
    static const char *const names[] = {"distances", "keys",    "shuffle",  "sort",
                                        "scatter",   "interop", "handover", "draw"};
    const float values[] = {m->distances, m->keys,    m->shuffle,  m->sort,
                            m->scatter,   m->interop, m->handover, m->draw};
    int interop = ds_renderer_interop(v->renderer) != DS_INTEROP_NONE;
    int count = 0;
    for (int i = 0; i < (int)(sizeof values / sizeof values[0]) && count < DS_UI_STAGES_MAX; i++) {
        if (values[i] <= 0.0f || (strcmp(names[i], "interop") == 0 && !interop))
            continue;
        dest[count].name = names[i];
        dest[count].ms = values[i];
        count++;
    }
    return count;
}

/* What the mouse changed, through the functions the hotkeys call (the
 * selections of viewer_settings.c, the renderer's setters, the timings'
 * reset). */
static void apply_changes(ds_viewer *v, const ds_ui_changes *c)
{
    if (c->sort == 0)
        ds_viewer_select_gl(v, 0);
    else if (c->sort > 0)
        ds_viewer_select_sort(v, (ds_sort_algo)(c->sort - 1), 0);
    if (c->technique >= 0)
        ds_viewer_select_technique(v, (ds_technique)c->technique);
    if (c->triangle_key >= 0) {
        v->settings.triangle_key = (ds_triangle_key)c->triangle_key;
        ds_renderer_set_triangle_key(v->renderer, v->settings.triangle_key);
        ds_viewer_reset_timings(v);
    }
    if (c->color_mode >= 0) {
        ds_renderer_set_color_mode(v->renderer, color_modes[c->color_mode]);
        v->settings.color_mode = ds_renderer_color_mode(v->renderer);
        ds_viewer_reset_timings(v);
    }
    if (c->alpha > 0.0f) {
        v->settings.alpha = fminf(1.0f, fmaxf(ALPHA_MIN, c->alpha));
        ds_renderer_set_alpha(v->renderer, v->settings.alpha);
        ds_viewer_reset_timings(v);
    }
    if (c->point_size > 0.0f) {
        ds_renderer_set_point_size(v->renderer, c->point_size);
        ds_viewer_reset_timings(v);
    }
    if (c->shuffle >= 0) {
        v->settings.shuffle = c->shuffle;
        ds_renderer_set_shuffle(v->renderer, v->settings.shuffle);
        ds_viewer_reset_timings(v);
    }
    if (c->tiles >= 0) {
        ds_renderer_set_tiles(v->renderer, c->tiles);
        ds_viewer_reset_timings(v);
    }
    if (c->help_on == 0)
        v->ui.help_on = 0;
}

/* Settings, sorts and techniques for the panels. */
static void describe_settings(const ds_viewer *v, ds_ui_view *view, const char **color_names)
{
    const viewer_settings *s = &v->settings;
    /* The sorts in Tab's order: the GL stages, then the registry's. */
    view->sorts[0] = (ds_ui_choice){DS_SORT_GL_NAME, !v->ui.gl_unavailable};
    view->sort_count = 1;
    for (int a = 0; a < DS_SORT_ALGO_COUNT && view->sort_count < DS_UI_CHOICES_MAX; a++)
        view->sorts[view->sort_count++] =
            (ds_ui_choice){ds_sort_algo_name((ds_sort_algo)a), !v->ui.unavailable[a]};
    view->sort = s->stages == DS_STAGES_GL ? 0 : 1 + (int)s->sort;
    view->sort_note = v->ui.sort_note;
    for (int t = 0; t < DS_TECHNIQUE_COUNT && t < DS_UI_CHOICES_MAX; t++)
        view->techniques[t] = (ds_ui_choice){ds_technique_label((ds_technique)t), 1};
    view->technique_count = DS_TECHNIQUE_COUNT < DS_UI_CHOICES_MAX ? DS_TECHNIQUE_COUNT
                                                                    : DS_UI_CHOICES_MAX;
    view->technique = (int)s->technique;
    view->technique_label = ds_technique_label(s->technique);
    view->triangle_keys = triangle_keys;
    view->triangle_key_count = DS_TRIANGLE_KEY_COUNT;
    view->triangle_key = (int)s->triangle_key;
    view->color_mode_count = v->has_colors ? COLOR_MODES : COLOR_MODES - 1;
    for (int i = 0; i < COLOR_MODES; i++) {
        color_names[i] = ds_color_mode_name(color_modes[i]);
        if (color_modes[i] == s->color_mode)
            view->color_mode = i;
    }
    view->color_modes = color_names;
    view->points = s->primitive == DS_PRIMITIVE_POINTS;
    view->alpha = s->alpha;
    view->alpha_min = ALPHA_MIN;
    view->point_size = ds_renderer_point_size(v->renderer);
    view->shuffle = s->shuffle;
    view->tiles = ds_renderer_tiles(v->renderer);
    view->msaa = s->msaa;
    view->vsync = s->vsync;
    view->window_mode = ds_viewer_window_mode(v);
}

/* Stage times, the plot's samples and the error. */
static void describe_numbers(const ds_viewer *v, ds_ui_view *view)
{
    const viewer_timings *t = &v->timings;
    stage_means m;
    ds_viewer_mean_timings(v, &m);
    view->sorted_bits =
        t->history_count ? t->history[(t->history_next + HISTORY - 1) % HISTORY].sorted_bits : 0;
    view->stage_count = stage_rows(v, &m, view->stages);
    view->frames_in_mean = t->history_count;
    view->frame_gpu_ms = m.frame;
    view->cpu_frame_ms = t->cpu_frame_ms_mean;
    /* On the CPU path the renderer times the host stages with the host
     * clock, unless they ran as GL compute. */
    view->timer_note = ds_renderer_interop(v->renderer) == DS_INTEROP_NONE && !m.gl
                           ? "GPU timers, the host stages on the host clock"
                           : "GPU timers";
    view->llvmpipe = strstr(view->gpu_name, "llvmpipe") != NULL;
    view->cpu_ms = t->graph_cpu_ms;
    view->gpu_ms = t->graph_gpu_ms;
    view->samples = GRAPH_SAMPLES;
    view->cpu_next = t->graph_cpu_next;
    view->gpu_next = t->graph_gpu_next;

    const viewer_error_view *e = &v->error;
    view->error_on = e->mode != ERROR_OFF || e->split;
    view->have_error = e->have_result;
    view->heatmap = e->mode == ERROR_HEATMAP;
    view->split = e->split;
    view->rmse = e->result.rmse;
    view->psnr = e->result.psnr;
    view->ssim = e->result.ssim;
    view->error_every = e->every;
    view->heat_levels = HEAT_LEVELS;
    for (int i = 0; i < DS_UI_HEAT_STEPS; i++)
        ds_image_metrics_colormap((float)i / (float)(DS_UI_HEAT_STEPS - 1), view->heat_colors[i]);
}

/* This frame's panels over the window's picture, and their changes. */
void ds_viewer_draw_panels(ds_viewer *v, int show_message_line)
{
    ds_ui_view view;
    ds_ui_changes changes;
    char elements[64], count[32];
    const char *help[DS_HOTKEY_LINES_MAX];
    const char *color_names[COLOR_MODES];
    memset(&view, 0, sizeof view);
    view.gpu_name = ds_renderer_gpu_name(v->renderer);
    view.interop = ds_interop_mode_name(ds_renderer_interop(v->renderer));
    view.model = v->opts.model_path ? v->opts.model_path : ds_app_scene_spec(&v->opts);
    ds_app_format_count(ds_renderer_sorted_count(v->renderer), count, sizeof count);
    snprintf(elements, sizeof elements, "%s %s", count,
             v->settings.primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles");
    view.elements = elements;
    view.full = v->ui.panel_mode == OVERLAY_FULL ? 1 : v->ui.panel_mode == OVERLAY_COMPACT ? 0 : -1;
    describe_settings(v, &view, color_names);
    describe_numbers(v, &view);
    view.message = show_message_line ? v->ui.message : NULL;
    for (int i = 0; i < v->ui.help_lines; i++)
        help[i] = v->ui.help[i];
    view.help = help;
    view.help_count = v->ui.help_lines;
    view.help_key_column = HELP_KEY_COLUMN;
    view.help_on = v->ui.help_on;

    /* Over the window's picture, the whole window: with MSAA the renderer
     * drew into its own framebuffer and resolved into the window's. */
    glBindFramebuffer(GL_FRAMEBUFFER, v->target);
    glViewport(0, 0, v->window_width, v->window_height);
    ds_ui_draw(v->panels, &view, &changes);
    apply_changes(v, &changes);
}
