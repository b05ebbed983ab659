/* SPDX-License-Identifier: MIT */
/* ui_panels.cpp — the viewer's panels drawn with Dear ImGui (see
 * ui_panels.h), through the GLFW and OpenGL 3 backends that Debian's
 * libimgui-dev builds into its static library.
 *
 * Layout: one window docked to the right edge over the full height, its
 * sections collapsible (settings, stage times, frame-time plot, error);
 * the viewer shrinks the model's viewport by ds_ui_reserved_width() so the
 * panel never covers the model. In a window too narrow to share (under
 * DS_UI_NARROW_FACTOR panel widths) the panel starts collapsed to its title bar
 * and the model keeps the whole width. The hotkeys open in their own
 * window over the model, as tall as the window and scrolling.
 */
#include "ui_panels.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

/* The body font's size at scale 1, pixels. */
#define FONT_PIXELS 15.0f
/* The frame-time plot's height at scale 1, and its least range: two 60 Hz
 * frames, so that a steady 60 Hz sits mid-plot. */
#define PLOT_HEIGHT 90.0f
#define PLOT_MIN_RANGE_MS (2000.0f / 60.0f)
#define FRAME_60HZ_MS (1000.0f / 60.0f)
#define PLOT_SAMPLES_MAX 1024
/* A proportional font Debian installs with most desktops (fonts-dejavu-core);
 * without it, ImGui's built-in bitmap font, scaled. */
#define UI_FONT_FILE "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

static const ImVec4 note_color(0.62f, 0.62f, 0.68f, 1.0f);
static const ImVec4 warn_color(1.0f, 0.75f, 0.35f, 1.0f);
static const ImU32 cpu_series_color = IM_COL32(120, 170, 255, 255);
static const ImU32 gpu_series_color = IM_COL32(90, 220, 120, 255);
static const ImU32 target_line_color = IM_COL32(230, 140, 60, 200);
static const ImU32 axis_color = IM_COL32(170, 170, 180, 255);
static const ImU32 grid_color = IM_COL32(90, 90, 100, 120);

struct ds_ui {
    ImGuiContext *context;
    float scale;        /* framebuffer pixels per pixel at scale 1 */
    float layout_scale; /* the same in ImGui's units, the window's (they
                           differ where the framebuffer is denser than the
                           window's coordinates, as on macOS or Wayland) */
    float panel_width;  /* framebuffer pixels */
    int collapsed;      /* the panel, as last drawn */
    int was_narrow;     /* the window was too narrow to share, last frame */
};

ds_status ds_ui_create(void *window, float scale, ds_ui **dest)
{
    *dest = NULL;
    ds_ui *ui = new (std::nothrow) ds_ui();
    if (!ui)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: panels: out of memory");
    ui->scale = scale > 0.0f ? scale : 1.0f;
    ui->panel_width = (float)DS_UI_PANEL_WIDTH * ui->scale;
    int window_width = 0, window_height = 0, fb_width = 0, fb_height = 0;
    glfwGetWindowSize((GLFWwindow *)window, &window_width, &window_height);
    glfwGetFramebufferSize((GLFWwindow *)window, &fb_width, &fb_height);
    float fb_ratio = window_width > 0 && fb_width > 0 ? (float)fb_width / (float)window_width : 1.0f;
    ui->layout_scale = ui->scale / fb_ratio;
    ui->was_narrow = -1;
    IMGUI_CHECKVERSION();
    ui->context = ImGui::CreateContext();
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = NULL; /* no imgui.ini in the working directory */
    if (access(UI_FONT_FILE, R_OK) == 0) {
        io.Fonts->AddFontFromFileTTF(UI_FONT_FILE, roundf(FONT_PIXELS * ui->scale));
    } else {
        ImFontConfig config;
        config.SizePixels = roundf(13.0f * ui->scale);
        io.Fonts->AddFontDefault(&config);
    }
    ImGui::StyleColorsDark();
    ImGuiStyle &style = ImGui::GetStyle();
    style.WindowRounding = 0.0f;
    style.WindowBorderSize = 0.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.94f;
    /* Tighter rows than ImGui's default, so that the full panel fits a
     * 720-pixel window down to its plot. */
    style.ItemSpacing.y = 3.0f;
    style.FramePadding.y = 2.0f;
    style.CellPadding.y = 1.0f;
    style.ScaleAllSizes(ui->layout_scale);
    /* The font is rasterised at framebuffer pixels, drawn at the window's. */
    io.FontGlobalScale = 1.0f / fb_ratio;
    /* install_callbacks: the backend's callbacks call the viewer's, which
     * were installed before (ds_ui_wants_mouse() tells them apart). */
    /* A window without GL of its own (--gl-window egl: an EGL context
     * draws, the frame is copied in) is "other" to the GLFW backend. */
    GLFWwindow *glfw_window = (GLFWwindow *)window;
    bool has_gl = glfwGetWindowAttrib(glfw_window, GLFW_CLIENT_API) != GLFW_NO_API;
    if (!(has_gl ? ImGui_ImplGlfw_InitForOpenGL(glfw_window, true)
                 : ImGui_ImplGlfw_InitForOther(glfw_window, true))) {
        ImGui::DestroyContext(ui->context);
        delete ui;
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: panels: the ImGui GLFW backend failed");
    }
    if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext(ui->context);
        delete ui;
        return ds_fail(DS_ERR_GL, "viewer: panels: the ImGui OpenGL 3 backend could not load GL");
    }
    *dest = ui;
    return DS_OK;
}

void ds_ui_destroy(ds_ui *ui)
{
    if (!ui)
        return;
    ImGui::SetCurrentContext(ui->context);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext(ui->context);
    delete ui;
}

static int is_narrow(const ds_ui *ui, int window_width)
{
    return (float)window_width < DS_UI_NARROW_FACTOR * ui->panel_width;
}

int ds_ui_reserved_width(const ds_ui *ui, int window_width, int shown)
{
    if (!shown || ui->collapsed || is_narrow(ui, window_width))
        return 0;
    return (int)ui->panel_width;
}

int ds_ui_wants_mouse(const ds_ui *ui)
{
    return ui && ImGui::GetCurrentContext() == ui->context && ImGui::GetIO().WantCaptureMouse;
}

int ds_ui_wants_keyboard(const ds_ui *ui)
{
    return ui && ImGui::GetCurrentContext() == ui->context && ImGui::GetIO().WantTextInput;
}

/* A dim line, wrapped at the panel's edge. */
static void note(const char *fmt, ...) IM_FMTARGS(1);
static void note(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    ImGui::PushStyleColor(ImGuiCol_Text, note_color);
    ImGui::TextWrappedV(fmt, args);
    ImGui::PopStyleColor();
    va_end(args);
}

/* ---- sections ------------------------------------------------------------ */

/* A combo box over `choices`; returns the picked index, or -1. */
static int choice_combo(const char *label, const ds_ui_choice *choices, int count, int current)
{
    int picked = -1;
    const char *preview = current >= 0 && current < count ? choices[current].name : "-";
    if (ImGui::BeginCombo(label, preview)) {
        for (int i = 0; i < count; i++) {
            ImGuiSelectableFlags flags = choices[i].available ? 0 : ImGuiSelectableFlags_Disabled;
            if (ImGui::Selectable(choices[i].name, i == current, flags) && i != current)
                picked = i;
        }
        ImGui::EndCombo();
    }
    return picked;
}

static int name_combo(const char *label, const char *const *names, int count, int current)
{
    ds_ui_choice choices[DS_UI_CHOICES_MAX];
    if (count > DS_UI_CHOICES_MAX)
        count = DS_UI_CHOICES_MAX;
    for (int i = 0; i < count; i++)
        choices[i] = ds_ui_choice{names[i], 1};
    return choice_combo(label, choices, count, current);
}

static void settings_section(const ds_ui_view *v, ds_ui_changes *c)
{
    /* The widgets leave room on their right for the longest label. */
    ImGui::PushItemWidth(-(ImGui::CalcTextSize("triangle key").x +
                           ImGui::GetStyle().ItemInnerSpacing.x));
    c->sort = choice_combo("sort", v->sorts, v->sort_count, v->sort);
    if (v->sort_note && v->sort_note[0])
        ImGui::TextColored(warn_color, "%s", v->sort_note);
    c->technique = choice_combo("technique", v->techniques, v->technique_count, v->technique);
    float alpha = v->alpha;
    if (ImGui::SliderFloat("alpha", &alpha, v->alpha_min, 1.0f, "%.2f") && alpha != v->alpha)
        c->alpha = alpha;
    if (v->points) {
        /* The splat diameter in world units: a model's scale is any, so a
         * drag in proportion to the size rather than a fixed range. */
        float size = v->point_size;
        if (ImGui::DragFloat("point size", &size, 0.01f * v->point_size, 0.0f, 0.0f, "%.4g") &&
            size > 0.0f && size != v->point_size)
            c->point_size = size;
    } else {
        c->triangle_key = name_combo("triangle key", v->triangle_keys, v->triangle_key_count,
                                     v->triangle_key);
    }
    c->color_mode = name_combo("colour", v->color_modes, v->color_mode_count, v->color_mode);
    bool shuffle = v->shuffle != 0, tiles = v->tiles != 0;
    if (ImGui::Checkbox("shuffle", &shuffle))
        c->shuffle = shuffle;
    ImGui::SameLine();
    if (ImGui::Checkbox("tiles", &tiles))
        c->tiles = tiles;
    ImGui::PopItemWidth();
    char bits[32] = "";
    if (v->sorted_bits > 0)
        snprintf(bits, sizeof bits, " | %d-bit keys", v->sorted_bits);
    note("%s%s | msaa %d", v->elements, bits, v->msaa);
}

static void frame_line(const ds_ui_view *v)
{
    double fps = v->cpu_frame_ms > 0.0 ? 1e3 / v->cpu_frame_ms : 0.0;
    if (v->frames_in_mean > 0)
        ImGui::TextWrapped("frame: GPU %.2f ms | CPU clock %.2f ms = %.1f FPS",
                           (double)v->frame_gpu_ms, v->cpu_frame_ms, fps);
    else
        ImGui::TextWrapped("frame: GPU - | CPU clock %.2f ms", v->cpu_frame_ms);
}

/* The stage rows that ran, "other" for the rest of the frame, and the
 * frame: the rows add up to it. */
static void stages_section(const ds_ui_view *v)
{
    if (v->frames_in_mean == 0) {
        note("no frame timed yet");
        return;
    }
    note("ms, mean of %d frames; %s", v->frames_in_mean, v->timer_note);
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                            ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("stages", 3, flags)) {
        ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableHeadersRow();
        float sum = 0.0f;
        float frame = v->frame_gpu_ms;
        for (int i = 0; i < v->stage_count; i++) {
            sum += v->stages[i].ms;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(v->stages[i].name);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", (double)v->stages[i].ms);
            ImGui::TableNextColumn();
            if (frame > 0.0f)
                ImGui::Text("%.0f %%", 100.0 * v->stages[i].ms / frame);
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("other");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", (double)(frame - sum));
        ImGui::TableNextColumn();
        if (frame > 0.0f)
            ImGui::Text("%.0f %%", 100.0 * (frame - sum) / frame);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("frame (GPU)");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", (double)frame);
        ImGui::EndTable();
    }
    if (v->frame_gpu_ms < 0.0f || v->stage_count == 0)
        return;
    if (v->llvmpipe) {
        ImGui::PushStyleColor(ImGuiCol_Text, warn_color);
        ImGui::TextWrapped("llvmpipe: a CPU rasteriser, whose GL timestamps mark when it ran "
                           "the commands on the host: its stage times and GPU fps are no GPU's");
        ImGui::PopStyleColor();
    }
}

/* Sample `age` frames back of a ring whose newest is at next - 1. */
static float ring_at(const float *ring, int samples, int next, int age)
{
    return ring[((next - 1 - age) % samples + samples) % samples];
}

/* The 95th percentile of a ring's samples (those > 0), 0 when none: the
 * plot's scale, so that one slow frame (a reload, an error measurement)
 * runs off the top rather than flattening the rest. */
static float percentile_95(const float *ring, int samples)
{
    float sorted[PLOT_SAMPLES_MAX];
    int count = 0;
    for (int i = 0; i < samples && count < PLOT_SAMPLES_MAX; i++)
        if (ring[i] > 0.0f)
            sorted[count++] = ring[i];
    if (count == 0)
        return 0.0f;
    std::sort(sorted, sorted + count);
    return sorted[(count - 1) * 95 / 100];
}

/* The frame-time plot: CPU frame intervals and GPU frame times as lines,
 * newest on the right, with a millisecond axis (ticks every 60 Hz frame or
 * a multiple), a frames-ago axis and the 60 Hz line. */
static void plot_section(const ds_ui_view *v, float scale)
{
    if (!v->cpu_ms || v->samples < 2)
        return;
    float range = fmaxf(PLOT_MIN_RANGE_MS, 1.25f * fmaxf(percentile_95(v->cpu_ms, v->samples),
                                                         percentile_95(v->gpu_ms, v->samples)));
    range = ceilf(range / PLOT_MIN_RANGE_MS) * PLOT_MIN_RANGE_MS;
    float tick_ms = FRAME_60HZ_MS * fmaxf(1.0f, ceilf(range / (4.0f * FRAME_60HZ_MS)));

    /* Tenths only while they say something; the labels' column as wide as
     * the largest (a software GL's frames take seconds). */
    const char *format = tick_ms >= 100.0f ? "%.0f" : "%.1f";
    char label[32];
    snprintf(label, sizeof label, format, (double)range);
    ImDrawList *draw = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    float label_width = ImGui::CalcTextSize(label).x + 4.0f * scale;
    float width = ImGui::GetContentRegionAvail().x - label_width;
    float height = PLOT_HEIGHT * scale;
    float line_height = ImGui::GetTextLineHeight();
    ImVec2 top_left(origin.x + label_width, origin.y + 0.5f * line_height);
    ImVec2 bottom_right(top_left.x + width, top_left.y + height);
    draw->AddRectFilled(top_left, bottom_right, IM_COL32(20, 20, 26, 255));
    for (float ms = 0.0f; ms <= range + 0.01f; ms += tick_ms) {
        float y = bottom_right.y - height * ms / range;
        draw->AddLine(ImVec2(top_left.x, y), ImVec2(bottom_right.x, y), grid_color);
        draw->AddLine(ImVec2(top_left.x - 3.0f * scale, y), ImVec2(top_left.x, y), axis_color);
        snprintf(label, sizeof label, format, (double)ms);
        ImVec2 size = ImGui::CalcTextSize(label);
        draw->AddText(ImVec2(top_left.x - 4.0f * scale - size.x, y - 0.5f * size.y), axis_color,
                      label);
    }
    float y60 = bottom_right.y - height * FRAME_60HZ_MS / range;
    draw->AddLine(ImVec2(top_left.x, y60), ImVec2(bottom_right.x, y60), target_line_color,
                  1.5f * scale);
    /* Frames-ago ticks every 100 samples, labelled under the axis. */
    int columns = v->samples;
    for (int age = 0; age < columns; age += 100) {
        float x = bottom_right.x - width * (float)age / (float)(columns - 1);
        draw->AddLine(ImVec2(x, bottom_right.y), ImVec2(x, bottom_right.y + 3.0f * scale),
                      axis_color);
        snprintf(label, sizeof label, age ? "-%d" : "now", age);
        ImVec2 size = ImGui::CalcTextSize(label);
        float lx = fminf(fmaxf(x - 0.5f * size.x, top_left.x), bottom_right.x - size.x);
        draw->AddText(ImVec2(lx, bottom_right.y + 3.0f * scale), axis_color, label);
    }
    draw->AddLine(ImVec2(top_left.x, top_left.y), ImVec2(top_left.x, bottom_right.y), axis_color);
    draw->AddLine(ImVec2(top_left.x, bottom_right.y), bottom_right, axis_color);
    /* The series, clipped to the plot; gaps where a sample is missing.
     * The GPU's first and wider, the CPU's thin over it, so that both show
     * where they meet (on llvmpipe they nearly do). */
    draw->PushClipRect(top_left, bottom_right, true);
    const float *series[2] = {v->gpu_ms, v->cpu_ms};
    const int next[2] = {v->gpu_next, v->cpu_next};
    const ImU32 colors[2] = {gpu_series_color, cpu_series_color};
    const float widths[2] = {2.5f * scale, 1.0f * scale};
    for (int s = 0; s < 2; s++) {
        ImVec2 previous(0.0f, 0.0f);
        int have_previous = 0;
        for (int age = columns - 1; age >= 0; age--) {
            float ms = ring_at(series[s], v->samples, next[s], age);
            if (ms <= 0.0f) {
                have_previous = 0;
                continue;
            }
            ImVec2 point(bottom_right.x - width * (float)age / (float)(columns - 1),
                         bottom_right.y - height * fminf(ms, range) / range);
            if (have_previous)
                draw->AddLine(previous, point, colors[s], widths[s]);
            previous = point;
            have_previous = 1;
        }
    }
    draw->PopClipRect();
    ImGui::Dummy(ImVec2(label_width + width, height + 0.5f * line_height + line_height +
                                                 4.0f * scale));
    /* The legend, in the series' colours. */
    ImGui::TextColored(ImColor(cpu_series_color), "CPU frame interval");
    ImGui::SameLine();
    ImGui::TextColored(ImColor(gpu_series_color), "GPU frame time");
    ImGui::SameLine();
    ImGui::TextColored(ImColor(target_line_color), "60 Hz");
}

/* The error against the exact reference, with units, and the heatmap's
 * colour bar from 0 to heat_levels+ levels of 255. */
static void error_section(const ds_ui_view *v, float scale)
{
    if (v->error_every <= 1)
        note("%s against the exact A-buffer, every frame",
                           v->technique_label);
    else
        note("%s against the exact A-buffer, every %d frames",
                           v->technique_label, v->error_every);
    if (!v->have_error) {
        ImGui::TextColored(warn_color, "measuring...");
    } else {
        ImGui::Text("RMSE  %.3f levels of 255", v->rmse);
        if (isinf(v->psnr))
            ImGui::Text("PSNR  inf (identical)");
        else
            ImGui::Text("PSNR  %.1f dB", v->psnr);
        ImGui::Text("SSIM  %.4f (1 = identical)", v->ssim);
    }
    if (v->split)
        note("split: left %s, right exact", v->technique_label);
    if (!v->heatmap)
        return;
    note("heatmap: largest channel error, levels of 255");
    ImDrawList *draw = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    float width = ImGui::GetContentRegionAvail().x;
    float bar_height = 14.0f * scale;
    for (int i = 0; i < DS_UI_HEAT_STEPS; i++) {
        const uint8_t *rgb = v->heat_colors[i];
        float x0 = origin.x + width * (float)i / DS_UI_HEAT_STEPS;
        float x1 = origin.x + width * (float)(i + 1) / DS_UI_HEAT_STEPS;
        draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, origin.y + bar_height),
                            IM_COL32(rgb[0], rgb[1], rgb[2], 255));
    }
    char label[16];
    for (int tick = 0; tick <= 4; tick++) {
        float x = origin.x + width * (float)tick / 4.0f;
        draw->AddLine(ImVec2(x, origin.y + bar_height), ImVec2(x, origin.y + bar_height + 3.0f * scale),
                      axis_color);
        snprintf(label, sizeof label, tick == 4 ? "%d+" : "%d", v->heat_levels * tick / 4);
        ImVec2 size = ImGui::CalcTextSize(label);
        float lx = fminf(fmaxf(x - 0.5f * size.x, origin.x), origin.x + width - size.x);
        draw->AddText(ImVec2(lx, origin.y + bar_height + 3.0f * scale), axis_color, label);
    }
    ImGui::Dummy(ImVec2(width, bar_height + 3.0f * scale + ImGui::GetTextLineHeight()));
}

/* The hotkeys, in a window over the model as tall as the window allows,
 * scrolling; the close button is H. */
static void help_window(const ds_ui_view *v, float model_width, float height, float scale,
                        ds_ui_changes *c)
{
    float margin = 8.0f * scale;
    float width = fminf(560.0f * scale, model_width - 2.0f * margin);
    ImGui::SetNextWindowPos(ImVec2(margin, margin), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(fmaxf(width, 200.0f * scale), height - 2.0f * margin),
                             ImGuiCond_Always);
    bool open = true;
    if (ImGui::Begin("Hotkeys (H closes)", &open, ImGuiWindowFlags_NoResize |
                                                     ImGuiWindowFlags_NoMove |
                                                     ImGuiWindowFlags_NoCollapse)) {
        if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
            ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
            ImGui::TableSetupColumn("does", ImGuiTableColumnFlags_WidthStretch);
            for (int i = 0; i < v->help_count; i++) {
                const char *line = v->help[i];
                int column = v->help_key_column;
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                if ((int)strlen(line) <= column) {
                    ImGui::TextUnformatted(line);
                    continue;
                }
                ImGui::TextUnformatted(line, line + column);
                ImGui::TableNextColumn();
                ImGui::TextWrapped("%s", line + column + 1);
            }
            ImGui::EndTable();
        }
    }
    ImGui::End();
    if (!open)
        c->help_on = 0;
}

void ds_ui_draw(ds_ui *ui, const ds_ui_view *v, ds_ui_changes *c)
{
    c->sort = c->technique = c->triangle_key = c->color_mode = -1;
    c->alpha = c->point_size = -1.0f;
    c->shuffle = c->tiles = c->help_on = -1;
    ImGui::SetCurrentContext(ui->context);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();

    ImGuiIO &io = ImGui::GetIO();
    float fb_scale = io.DisplayFramebufferScale.x > 0.0f ? io.DisplayFramebufferScale.x : 1.0f;
    float panel_width = ui->panel_width / fb_scale;
    int window_width = (int)(io.DisplaySize.x * fb_scale);
    int narrow = is_narrow(ui, window_width);
    float model_width = io.DisplaySize.x - (narrow || ui->collapsed ? 0.0f : panel_width);

    if (v->full >= 0) {
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - panel_width, 0.0f), ImGuiCond_Always);
        ImGui::SetNextWindowSize(ImVec2(panel_width, io.DisplaySize.y), ImGuiCond_Always);
        /* Collapsed on the first frame in a narrow window, and whenever
         * the window becomes narrow; opened again when it widens. */
        if (narrow != ui->was_narrow)
            ImGui::SetNextWindowCollapsed(narrow != 0, ImGuiCond_Always);
        ui->was_narrow = narrow;
        ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize;
        int expanded = ImGui::Begin("depthsort", NULL, flags);
        ui->collapsed = !expanded;
        if (expanded) {
            note("%s", v->gpu_name);
            note("interop: %s | %s", v->interop, v->model);
            if (v->message && v->message[0]) { /* wrapped: a key's feedback is long */
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(warn_color, "%s", v->message);
                ImGui::PopTextWrapPos();
            }
            ImGui::SetNextItemOpen(true, ImGuiCond_Once);
            if (ImGui::CollapsingHeader("Settings"))
                settings_section(v, c);
            frame_line(v);
            if (v->error_on) {
                ImGui::SetNextItemOpen(true, ImGuiCond_Once);
                if (ImGui::CollapsingHeader("Error against the exact reference"))
                    error_section(v, ui->layout_scale);
            }
            if (v->full) {
                ImGui::SetNextItemOpen(true, ImGuiCond_Once);
                if (ImGui::CollapsingHeader("Stage times"))
                    stages_section(v);
                ImGui::SetNextItemOpen(true, ImGuiCond_Once);
                if (ImGui::CollapsingHeader("Frame time (ms over frames ago)"))
                    plot_section(v, ui->layout_scale);
            }
            if (strncmp(v->window_mode, "EGL", 3) == 0) /* a copy waits for no blank */
                note("%s, no vsync | O: compact/off  H: hotkeys", v->window_mode);
            else
                note("%s, vsync %s | O: compact/off  H: hotkeys", v->window_mode,
                     v->vsync ? "on" : "off");
        }
        ImGui::End();
    } else {
        ui->collapsed = 1; /* hidden: the model has the window */
        model_width = io.DisplaySize.x;
    }
    /* A message with the panel hidden or collapsed: a line at the bottom
     * left of the model. */
    if (v->message && v->message[0] && (v->full < 0 || ui->collapsed)) {
        float margin = 8.0f * ui->layout_scale;
        ImGui::SetNextWindowPos(ImVec2(margin, io.DisplaySize.y - margin), ImGuiCond_Always,
                                ImVec2(0.0f, 1.0f));
        ImGui::SetNextWindowBgAlpha(0.8f);
        ImGui::Begin("message", NULL, ImGuiWindowFlags_NoDecoration |
                                          ImGuiWindowFlags_AlwaysAutoResize |
                                          ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoNav);
        ImGui::TextColored(warn_color, "%s", v->message);
        ImGui::End();
    }
    if (v->help_on)
        help_window(v, model_width, io.DisplaySize.y, ui->layout_scale, c);

    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}
