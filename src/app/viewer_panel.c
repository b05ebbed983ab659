/* SPDX-License-Identifier: MIT */
/* viewer_panel.c — the viewer's overlay (viewer_internal.h): the stage
 * timings (rolling means of the renderer's GPU timers over HISTORY frames)
 * and the frame graph, the stats panel in its full and compact forms, the
 * transient message and the help panel, drawn with overlay.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "setup.h"
#include "viewer_internal.h"

/* Translucent, so that the model behind the panels stays visible. */
static const uint8_t panel_color[4] = {16, 16, 20, 200};
static const uint8_t text_color[4] = {235, 235, 235, 255};
static const uint8_t dim_color[4] = {150, 150, 160, 255};
static const uint8_t warn_color[4] = {255, 190, 90, 255};
static const uint8_t cpu_bar_color[4] = {110, 110, 125, 255};
static const uint8_t gpu_bar_color[4] = {90, 220, 120, 255};
static const uint8_t grid_line_color[4] = {200, 120, 60, 255};
static const char *const triangle_key_names[DS_TRIANGLE_KEY_COUNT] = {
    "farthest", "mean", "centroid"};

/* ---- timings and the overlay -------------------------------------------- */

void ds_viewer_collect_timings(ds_viewer *v)
{
    ds_frame_timings t;
    while (ds_renderer_next_timings(v->renderer, &t)) {
        /* The renderer's first frame has no frame time (it would span
         * from the frame before): no sample rather than a 0.00. */
        if (t.frame_ms <= 0.0f)
            continue;
        v->timings.graph_gpu_ms[v->timings.graph_gpu_next] = t.frame_ms;
        v->timings.graph_gpu_next = (v->timings.graph_gpu_next + 1) % GRAPH_SAMPLES;
        if (t.frame < v->timings.from)
            continue; /* rendered before the latest change */
        int reference = 0;
        for (int i = 0; i < REFERENCE_RING; i++)
            reference |= v->error.reference_frames[i] == t.frame;
        if (reference)
            continue; /* the error view's exact frame */
        v->timings.history[v->timings.history_next] = t;
        v->timings.history_next = (v->timings.history_next + 1) % HISTORY;
        if (v->timings.history_count < HISTORY)
            v->timings.history_count++;
    }
}

void ds_viewer_record_cpu_frame(ds_viewer *v, double now_ms)
{
    float ms = (float)(now_ms - v->timings.last_swap_ms);
    v->timings.last_swap_ms = now_ms;
    v->timings.graph_cpu_ms[v->timings.graph_cpu_next] = ms;
    v->timings.graph_cpu_next = (v->timings.graph_cpu_next + 1) % GRAPH_SAMPLES;
    /* Exponential mean: steady enough to read, quick to follow changes. */
    v->timings.cpu_frame_ms_mean =
        v->timings.cpu_frame_ms_mean > 0.0 ? 0.95 * v->timings.cpu_frame_ms_mean + 0.05 * ms : ms;
}

void ds_viewer_mean_timings(const ds_viewer *v, stage_means *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->gl = v->timings.history_count > 0;
    for (int i = 0; i < v->timings.history_count; i++) {
        const ds_frame_timings *t = &v->timings.history[i];
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
    if (v->timings.history_count > 0) {
        float n = (float)v->timings.history_count;
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
static float draw_lines(ds_viewer *v, const panel *p, int scale, float min_inner_width,
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
    v->ui.panel_right = x + inner + (float)(2 * scale * DS_OVERLAY_PADDING);
    v->ui.panel_bottom = y + height + (float)(scale * DS_OVERLAY_PADDING);
    return inner;
}

/* The graph's legend: a swatch and a label for each colour. */
static void draw_legend(ds_viewer *v, float x, float y, int scale)
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
static void draw_graph(ds_viewer *v, float x, float y, float width, float height, int scale)
{
    float range = GRAPH_MIN_RANGE_MS;
    int columns = (int)(width / (float)scale);
    char label[64];
    if (columns > GRAPH_SAMPLES)
        columns = GRAPH_SAMPLES;
    for (int i = 0; i < GRAPH_SAMPLES; i++)
        range = fmaxf(range, fmaxf(v->timings.graph_cpu_ms[i], v->timings.graph_gpu_ms[i]));
    range = ceilf(range / GRAPH_MIN_RANGE_MS) * GRAPH_MIN_RANGE_MS;
    for (int c = 0; c < columns; c++) {
        int age = columns - 1 - c;
        float cpu =
            v->timings.graph_cpu_ms[(v->timings.graph_cpu_next - 1 - age + 2 * GRAPH_SAMPLES) %
                                    GRAPH_SAMPLES];
        float gpu =
            v->timings.graph_gpu_ms[(v->timings.graph_gpu_next - 1 - age + 2 * GRAPH_SAMPLES) %
                                    GRAPH_SAMPLES];
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
static void state_lines(ds_viewer *v, panel *p, const char *unit)
{
    char count[32];
    ds_app_format_count(ds_renderer_sorted_count(v->renderer), count, sizeof count);
    add_line(p, text_color, "elements: %s %s | alpha %.2f", count, unit, (double)v->settings.alpha);
    add_line(p, text_color, "shuffle %s | %s | key %s | %s | tiles %s",
             v->settings.shuffle ? "ON" : "off", unit, triangle_key_names[v->settings.triangle_key],
             ds_technique_label(v->settings.technique),
             ds_renderer_tiles(v->renderer) ? "on" : "off");
    add_line(p, text_color, "color %s | opacity %s | msaa %d | up %s | point %.3g",
             ds_color_mode_name(v->settings.color_mode), ds_opacity_mode_name(v->settings.opacity),
             v->settings.msaa, ds_up_axis_name(v->settings.up),
             (double)ds_renderer_point_size(v->renderer));
}

/* The error view's lines: the error against the exact reference, how
 * often it is measured, and the heatmap's scale. */
static void error_lines(ds_viewer *v, panel *p)
{
    if (v->error.mode == ERROR_OFF && !v->error.split)
        return;
    char every[48];
    if (v->error.every <= 1)
        snprintf(every, sizeof every, "every frame");
    else
        snprintf(every, sizeof every, "every %d frames", v->error.every);
    if (!v->error.have_result)
        add_line(p, warn_color, "vs exact: measuring... (%s)", every);
    else if (isinf(v->error.result.psnr))
        add_line(p, warn_color, "vs exact: RMSE 0 | PSNR inf | SSIM %.4f | %s",
                 v->error.result.ssim, every);
    else
        add_line(p, warn_color, "vs exact: RMSE %.3f levels of 255 | PSNR %.1f dB | SSIM %.4f | %s",
                 v->error.result.rmse, v->error.result.psnr, v->error.result.ssim, every);
    if (v->error.mode == ERROR_HEATMAP)
        add_line(p, dim_color, "heatmap: largest channel error, 0 to %d+ levels", HEAT_LEVELS);
    if (v->error.split)
        add_line(p, dim_color, "split: left %s, right exact",
                 ds_technique_label(v->settings.technique));
}

/* " | 24-bit keys" when the latest timed frame's sort compared fewer than
 * 32 key bits (narrowed keys, or --key-bits), else "". */
static void sorted_bits_label(const ds_viewer *v, char *dest, size_t size)
{
    int bits =
        v->timings.history_count
            ? v->timings.history[(v->timings.history_next + HISTORY - 1) % HISTORY].sorted_bits
            : 0;
    dest[0] = '\0';
    if (bits > 0 && bits < 32)
        snprintf(dest, size, " | %d-bit keys", bits);
}

/* The stats panel, full or compact. The first lines hold only settings
 * (no numbers that change by themselves), so that tests can compare them
 * between frames: full: line 1 the sort, 2-4 the state; compact: line 0
 * the sort and sorting state. */
void ds_viewer_draw_stats(ds_viewer *v, int scale)
{
    panel p = {.count = 0};
    stage_means m;
    const char *unit = v->settings.primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles";
    char sort[64], bits[32];
    ds_viewer_sort_label(v, sort, sizeof sort);
    sorted_bits_label(v, bits, sizeof bits);
    ds_viewer_mean_timings(v, &m);

    if (v->ui.panel_mode == OVERLAY_COMPACT) {
        add_line(&p, v->ui.sort_note[0] ? warn_color : text_color, "sort: %s | %s | %s | color %s",
                 sort, ds_technique_label(v->settings.technique),
                 v->settings.primitive == DS_PRIMITIVE_POINTS ? "points" : "triangles",
                 ds_color_mode_name(v->settings.color_mode));
        /* The frame and the part of it that no stage accounts for. */
        if (v->timings.history_count > 0)
            add_line(&p, text_color, "GPU %.2f ms (handover %.3f) | %.1f FPS | O: off  H: help",
                     (double)m.frame, (double)m.handover,
                     v->timings.cpu_frame_ms_mean > 0.0 ? 1e3 / v->timings.cpu_frame_ms_mean : 0.0);
        else
            add_line(&p, text_color, "GPU - | O: off  H: help");
        error_lines(v, &p);
        draw_lines(v, &p, scale, 0.0f, 0.0f);
        return;
    }

    add_line(&p, text_color, "depthsort  %s  (interop: %s)", ds_renderer_gpu_name(v->renderer),
             ds_interop_mode_name(ds_renderer_interop(v->renderer)));
    add_line(&p, v->ui.sort_note[0] ? warn_color : text_color, "sort: %s%s  %s", sort, bits,
             v->ui.sort_note);
    state_lines(v, &p, unit);
    /* On the CPU path the renderer times the host stages with the host
     * clock, unless they ran as GL compute. The hand-over is the GPU time
     * between two frames' draws that no stage accounts for. */
    add_line(&p, dim_color, "stage times, ms, mean of %d frames (%s)", v->timings.history_count,
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
            /* '-' before any frame, for a stage that ran in none of
             * them (renderer.h: it reads 0), as the headless table, and
             * for interop without interop (the host clock's span around
             * nothing). */
            int no_interop = strcmp(names[i], "interop") == 0 &&
                             ds_renderer_interop(v->renderer) == DS_INTEROP_NONE;
            if (v->timings.history_count > 0 && values[i] != 0.0f && !no_interop)
                snprintf(line->value, sizeof line->value, "%8.3f", (double)values[i]);
            else
                snprintf(line->value, sizeof line->value, "%8s", "-");
        }
    }
    if (v->timings.history_count > 0)
        add_line(&p, text_color, "frame: GPU %.2f ms | CPU clock %.2f ms = %.1f FPS",
                 (double)m.frame, v->timings.cpu_frame_ms_mean,
                 v->timings.cpu_frame_ms_mean > 0.0 ? 1e3 / v->timings.cpu_frame_ms_mean : 0.0);
    else
        add_line(&p, text_color, "frame: GPU - | CPU clock %.2f ms", v->timings.cpu_frame_ms_mean);
    if (v->present) /* frames copied into the window wait for no blank */
        add_line(&p, dim_color, "no vsync (EGL copy) | O: compact  H: help");
    else
        add_line(&p, dim_color, "vsync %s | O: compact  H: help", v->settings.vsync ? "on" : "off");
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
void ds_viewer_draw_message(ds_viewer *v, int scale)
{
    float x = (float)(scale * DS_OVERLAY_MARGIN);
    float y =
        v->ui.panel_mode == OVERLAY_OFF ? (float)(scale * DS_OVERLAY_MARGIN) : v->ui.panel_bottom;
    float width = ds_overlay_text_width(v->ui.message, (float)scale);
    ds_overlay_rect(v->overlay, x, y, width + (float)(2 * scale * DS_OVERLAY_PADDING),
                    (float)(scale * (DS_OVERLAY_LINE_HEIGHT + 2 * DS_OVERLAY_PADDING)),
                    panel_color);
    ds_overlay_text(v->overlay, x + (float)(scale * DS_OVERLAY_PADDING),
                    y + (float)(scale * DS_OVERLAY_PADDING), (float)scale, warn_color,
                    v->ui.message);
}

/* The help panel: a title over ds_hotkey_help()'s lines, the same as in
 * --help, right of the stats panel. The font is proportional, so each
 * line's key (its first HELP_KEY_COLUMN characters) and description are
 * drawn in two columns. */
void ds_viewer_draw_help(ds_viewer *v, int scale)
{
    static const char title[] = "Hotkeys";
    float x = (float)(scale * DS_OVERLAY_MARGIN);
    float y = (float)(scale * DS_OVERLAY_MARGIN);
    float pad = (float)(scale * DS_OVERLAY_PADDING);
    float line_height = (float)(scale * DS_OVERLAY_LINE_HEIGHT);
    float key_width = 0.0f, text_width = 0.0f;
    char key[HELP_KEY_COLUMN + 1];
    if (v->ui.panel_mode != OVERLAY_OFF)
        x = v->ui.panel_right + (float)(scale * DS_OVERLAY_MARGIN);
    for (int i = 0; i < v->ui.help_lines; i++) {
        snprintf(key, sizeof key, "%s", v->ui.help[i]);
        key_width = fmaxf(key_width, ds_overlay_text_width(key, (float)scale));
        if (strlen(v->ui.help[i]) > HELP_KEY_COLUMN)
            text_width =
                fmaxf(text_width,
                      ds_overlay_text_width(v->ui.help[i] + HELP_KEY_COLUMN + 1, (float)scale));
    }
    key_width += (float)(6 * scale);
    float width = fmaxf(ds_overlay_text_width(title, (float)scale), key_width + text_width);
    ds_overlay_rect(v->overlay, x, y, width + 2.0f * pad,
                    (float)(1 + v->ui.help_lines) * line_height + 2.0f * pad, panel_color);
    ds_overlay_text(v->overlay, x + pad, y + pad, (float)scale, warn_color, title);
    for (int i = 0; i < v->ui.help_lines; i++) {
        float top = y + pad + (float)(i + 1) * line_height;
        snprintf(key, sizeof key, "%s", v->ui.help[i]);
        ds_overlay_text(v->overlay, x + pad, top, (float)scale, text_color, key);
        if (strlen(v->ui.help[i]) > HELP_KEY_COLUMN)
            ds_overlay_text(v->overlay, x + pad + key_width, top, (float)scale, text_color,
                            v->ui.help[i] + HELP_KEY_COLUMN + 1);
    }
}

/* The keys of the error views, over the picture: with the heatmap, its
 * colour bar (the colour map from 0 to HEAT_LEVELS+ levels, ticks, and
 * its units) in the lower left corner; with the split view, a divider
 * down the middle and a label over each half, so that the key is seen to
 * act even where the two halves look alike. */
void ds_viewer_draw_error_keys(ds_viewer *v, int scale)
{
    if (!v->error.images_ready)
        return;
    float s = (float)scale, margin = 8.0f * s;
    static const uint8_t key_panel_color[4] = {16, 16, 20, 200};
    if (v->error.mode == ERROR_HEATMAP) {
        const char *units = "largest channel error, levels of 255";
        float bar_width = 256.0f * s, bar_height = 12.0f * s, line = 12.0f * s;
        float text_width = ds_overlay_text_width(units, s);
        float width = 2.0f * margin + (text_width > bar_width + 24.0f * s ? text_width
                                                                           : bar_width + 24.0f * s);
        float height = 2.0f * margin + 2.0f * line + bar_height + 4.0f * s;
        float x0 = 0.0f, y0 = (float)v->fb_height - height;
        ds_overlay_rect(v->overlay, x0, y0, width, height, key_panel_color);
        ds_overlay_text(v->overlay, x0 + margin, y0 + margin, s, text_color, units);
        float bar_y = y0 + margin + line + 2.0f * s;
        for (int i = 0; i < 64; i++) {
            uint8_t rgb[3], rgba[4];
            ds_image_metrics_colormap((float)i / 63.0f, rgb);
            memcpy(rgba, rgb, 3);
            rgba[3] = 255;
            ds_overlay_rect(v->overlay, x0 + margin + bar_width * (float)i / 64.0f, bar_y,
                            bar_width / 64.0f + 1.0f, bar_height, rgba);
        }
        for (int k = 0; k <= 4; k++) {
            char label[16];
            snprintf(label, sizeof label, k == 4 ? "%d+" : "%d", HEAT_LEVELS * k / 4);
            float at = x0 + margin + (bar_width - 1.0f) * (float)k / 4.0f;
            float label_width = ds_overlay_text_width(label, s);
            ds_overlay_rect(v->overlay, at, bar_y + bar_height, s, 3.0f * s, text_color);
            ds_overlay_text(v->overlay,
                            at - (k == 0 ? 0.0f : k == 4 ? label_width : 0.5f * label_width),
                            bar_y + bar_height + 4.0f * s, s, text_color, label);
        }
    } else if (v->error.split) {
        float middle = (float)ds_viewer_split_column(v);
        /* A light line between dark edges: it shows over the light
         * default background, the dark one and the model alike. */
        static const uint8_t divider[4] = {235, 235, 235, 255};
        static const uint8_t divider_edge[4] = {16, 16, 20, 255};
        ds_overlay_rect(v->overlay, middle - 2.0f * s, 0.0f, 4.0f * s, (float)v->fb_height,
                        divider_edge);
        ds_overlay_rect(v->overlay, middle - s, 0.0f, 2.0f * s, (float)v->fb_height, divider);
        char left[96];
        snprintf(left, sizeof left, "as drawn: %s", ds_technique_label(v->settings.technique));
        const char *right = "exact (A-buffer)";
        float y = (float)v->fb_height - 24.0f * s;
        float left_width = ds_overlay_text_width(left, s);
        ds_overlay_rect(v->overlay, middle - left_width - 16.0f * s, y - 4.0f * s,
                        left_width + 12.0f * s, 16.0f * s, key_panel_color);
        ds_overlay_text(v->overlay, middle - left_width - 10.0f * s, y, s, text_color, left);
        ds_overlay_rect(v->overlay, middle + 4.0f * s, y - 4.0f * s,
                        ds_overlay_text_width(right, s) + 12.0f * s, 16.0f * s, key_panel_color);
        ds_overlay_text(v->overlay, middle + 10.0f * s, y, s, text_color, right);
    }
}
