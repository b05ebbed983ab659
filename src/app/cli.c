/* SPDX-License-Identifier: MIT */
/* cli.c — the command line: getopt_long into a ds_options (see cli.h), the
 * usage text with every option and the viewer's hotkeys. Every value is
 * validated here, so the runners can trust what they read. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "camera.h"
#include "hotkeys.h"
#include "mesh.h"
#include "scene.h"
#include "sort.h"

#ifndef DS_VERSION
#define DS_VERSION "unknown" /* set by the build for the depthsort target */
#endif

/* Sanity limits on numeric options. */
#define MAX_GRID_SIDE 4096
#define MAX_IMAGE_SIDE 16384
#define MAX_FRAMES 100000000L

/* The hotkey list lines up with the options' descriptions (column 24) and
 * stays within 80 columns. */
#define HELP_KEY_COLUMN 21
#define HELP_WIDTH 78

enum {
    OPT_SCENE = 256,
    OPT_GRID,
    OPT_INFO,
    OPT_HEADLESS,
    OPT_FRAMES,
    OPT_SORT,
    OPT_SHUFFLE,
    OPT_SIZE,
    OPT_PRIMITIVE,
    OPT_KEY,
    OPT_INTEROP,
    OPT_KEY_BITS,
    OPT_ORBIT,
    OPT_ALPHA,
    OPT_CSV,
    OPT_JSON,
    OPT_SCREENSHOT,
    OPT_VERIFY,
    OPT_NO_SORT,
    OPT_NO_CULL,
    OPT_TILES,
    OPT_TILE_PIXELS,
    OPT_DRAW,
    OPT_VSYNC,
    OPT_NO_VSYNC,
    OPT_SCRIPT,
    OPT_OVERLAY,
    OPT_UI,
    OPT_UI_SCALE,
    OPT_GL_WINDOW,
    OPT_CULL,
    OPT_COLOR,
    OPT_TINT,
    OPT_BACKGROUND,
    OPT_OPACITY,
    OPT_POINT_SIZE,
    OPT_MSAA,
    OPT_RASTER,
    OPT_RASTER_ORDER,
    OPT_UP,
    OPT_CAMERA,
    OPT_CAMERA_FILE,
    OPT_COMPARE,
    OPT_DIFF_DIR,
    OPT_TIMELINE,
    OPT_PLOT,
    OPT_SCREENSHOT_OVERLAY,
    OPT_SUPERSAMPLE,
    OPT_SCREENSHOT_ALPHA,
    OPT_PROGRESS,
    OPT_NARROW_KEYS,
    OPT_HELP,
    OPT_VERSION,
};

static const struct option long_options[] = {
    {"scene", required_argument, NULL, OPT_SCENE},
    {"grid", required_argument, NULL, OPT_GRID},
    {"info", no_argument, NULL, OPT_INFO},
    {"headless", no_argument, NULL, OPT_HEADLESS},
    {"frames", required_argument, NULL, OPT_FRAMES},
    {"sort", required_argument, NULL, OPT_SORT},
    {"shuffle", no_argument, NULL, OPT_SHUFFLE},
    {"size", required_argument, NULL, OPT_SIZE},
    {"primitive", required_argument, NULL, OPT_PRIMITIVE},
    {"key", required_argument, NULL, OPT_KEY},
    {"interop", required_argument, NULL, OPT_INTEROP},
    {"key-bits", required_argument, NULL, OPT_KEY_BITS},
    {"narrow-keys", required_argument, NULL, OPT_NARROW_KEYS},
    {"orbit", required_argument, NULL, OPT_ORBIT},
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"csv", required_argument, NULL, OPT_CSV},
    {"json", required_argument, NULL, OPT_JSON},
    {"screenshot", required_argument, NULL, OPT_SCREENSHOT},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"no-sort", no_argument, NULL, OPT_NO_SORT},
    {"no-cull", no_argument, NULL, OPT_NO_CULL},
    {"tiles", required_argument, NULL, OPT_TILES},
    {"tile-pixels", required_argument, NULL, OPT_TILE_PIXELS},
    {"draw", required_argument, NULL, OPT_DRAW},
    {"vsync", no_argument, NULL, OPT_VSYNC},
    {"no-vsync", no_argument, NULL, OPT_NO_VSYNC},
    {"script", required_argument, NULL, OPT_SCRIPT},
    {"overlay", required_argument, NULL, OPT_OVERLAY},
    {"ui", required_argument, NULL, OPT_UI},
    {"gl-window", required_argument, NULL, OPT_GL_WINDOW},
    {"ui-scale", required_argument, NULL, OPT_UI_SCALE},
    {"cull", required_argument, NULL, OPT_CULL},
    {"color", required_argument, NULL, OPT_COLOR},
    {"tint", required_argument, NULL, OPT_TINT},
    {"background", required_argument, NULL, OPT_BACKGROUND},
    {"opacity", required_argument, NULL, OPT_OPACITY},
    {"point-size", required_argument, NULL, OPT_POINT_SIZE},
    {"msaa", required_argument, NULL, OPT_MSAA},
    {"raster", required_argument, NULL, OPT_RASTER},
    {"raster-order", required_argument, NULL, OPT_RASTER_ORDER},
    {"up", required_argument, NULL, OPT_UP},
    {"camera", required_argument, NULL, OPT_CAMERA},
    {"camera-file", required_argument, NULL, OPT_CAMERA_FILE},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"diff-dir", required_argument, NULL, OPT_DIFF_DIR},
    {"timeline", required_argument, NULL, OPT_TIMELINE},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"screenshot-overlay", required_argument, NULL, OPT_SCREENSHOT_OVERLAY},
    {"supersample", required_argument, NULL, OPT_SUPERSAMPLE},
    {"screenshot-alpha", no_argument, NULL, OPT_SCREENSHOT_ALPHA},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static const char *const triangle_key_names[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
static const char *const interop_names[] = {"auto", "map", "external", "none"};
static const char *const tiles_names[] = {"auto", "on", "off"};
static const char *const cull_names[] = {"auto", "on", "off"}; /* ds_cull_mode order */
static const char *const primitive_names[] = {"triangles", "points"};
static const char *const draw_names[] = {"auto", "pull", "indexed"};
static const char *const overlay_names[] = {"auto", "full", "compact", "off"}; /* ds_overlay_start order */
static const char *const ui_names[] = {"auto", "panels", "text"}; /* ds_ui_mode order */
static const char *const gl_window_names[] = {"auto", "glx", "egl"}; /* ds_gl_window order */
static const char *const compare_variants[DS_COMPARE_VARIANT_COUNT][2] = {
#define DS_COMPARE_VARIANT(ID, name, summary) [DS_COMPARE_VARIANT_##ID] = {name, summary},
    DS_COMPARE_VARIANTS(DS_COMPARE_VARIANT)
#undef DS_COMPARE_VARIANT
};

const char *ds_compare_item_name(ds_compare_item item)
{
    if ((unsigned)item < DS_TECHNIQUE_COUNT)
        return ds_technique_name((ds_technique)item);
    if ((unsigned)item < DS_COMPARE_ITEM_COUNT)
        return compare_variants[item - DS_TECHNIQUE_COUNT][0];
    return "unknown";
}

const char *ds_compare_item_summary(ds_compare_item item)
{
    if ((unsigned)item < DS_TECHNIQUE_COUNT)
        return ds_technique_summary((ds_technique)item);
    if ((unsigned)item < DS_COMPARE_ITEM_COUNT)
        return compare_variants[item - DS_TECHNIQUE_COUNT][1];
    return "unknown";
}

ds_technique ds_compare_item_technique(ds_compare_item item)
{
    return (unsigned)item < DS_TECHNIQUE_COUNT ? (ds_technique)item : DS_TECHNIQUE_SORTED;
}

int ds_compare_all(ds_compare_item dest[DS_COMPARE_ITEM_COUNT])
{
    int count = 0;
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        dest[count++] = (ds_compare_item)t;
        if (t == DS_TECHNIQUE_SORTED)
            for (int v = 0; v < DS_COMPARE_VARIANT_COUNT; v++)
                dest[count++] = (ds_compare_item)(DS_TECHNIQUE_COUNT + v);
    }
    return count;
}

/* The names of every item in `all`'s order, joined by ", ". */
static void compare_names_list(char *dest, size_t capacity)
{
    ds_compare_item all[DS_COMPARE_ITEM_COUNT];
    int count = ds_compare_all(all);
    dest[0] = 0;
    for (int i = 0; i < count; i++) {
        size_t used = strlen(dest);
        snprintf(dest + used, capacity - used, "%s%s", i ? ", " : "",
                 ds_compare_item_name(all[i]));
    }
}

int ds_compare_item_needs_triangles(ds_compare_item item)
{
    return item == DS_COMPARE_KEY_FARTHEST || item == DS_COMPARE_KEY_MEAN ||
           item == DS_COMPARE_KEY_CENTROID;
}

#define USAGE_LINE "usage: depthsort [MODEL.ply|MODEL.obj | --scene NAME[:SIZE]] [options]\n"

/* After an error: the usage line alone, so that the error stays in view. */
static void usage_line(FILE *out)
{
    fputs(USAGE_LINE "(depthsort --help lists the options)\n", out);
}

/* The help: long because it is one block of text (the options, then the
 * lists the registries make: sorts, techniques, scenes, hotkeys), which
 * reads best in the order a user sees it. */
void ds_cli_usage(void *stream)
{
    FILE *out = stream;
    fprintf(out,
            USAGE_LINE
            "\n"
            "Draws a transparent model back to front, depth-sorted on the GPU every frame.\n"
            "Without MODEL or --scene it shows the built-in scene %s:%d.\n"
            "\n"
            "Input:\n"
            "  MODEL                 Stanford PLY (ascii or binary) or Wavefront OBJ file\n"
            "  --scene NAME[:SIZE]   built-in scene of about SIZE triangles (k, M, G suffixes)\n"
            "  --grid NxM            replicate the model N x M times in the XZ plane (1x1)\n"
            "  --info                print one line (vertices, triangles, format, bounds,\n"
            "                        load_ms) and exit\n"
            "\n"
            "Rendering:\n"
            "  --sort NAME|gl|all    what sorts each frame: gl, the stages as GL compute,\n"
            "                        or a sort below that the stages run around in CUDA\n"
            "                        (or cpu, on the host); 'all' runs gl, then each sort\n"
            "                        (headless). Default: the fastest here, named with its\n"
            "                        reason at start: gl on a GPU whose GL can (with CUDA\n"
            "                        up to 4.5M primitives, then cub), cpu on a software\n"
            "                        GL (llvmpipe)\n"
            "  --shuffle             randomly permute the keys before each sort\n"
            "  --no-sort             draw unsorted, to show what wrong blending looks like\n"
            "  --cull auto|on|off    leave out triangles that cover no pixel centre: the\n"
            "                        same image, faster on a GPU (auto: on where the\n"
            "                        stages run on a GPU, off on the host or a software\n"
            "                        GL; --no-cull is off)\n"
            "  --tiles auto|on|off   bin the sorted primitives by screen tile and draw tile\n"
            "                        by tile: the same image, faster on a GPU (auto, the\n"
            "                        default: as --cull)\n"
            "  --tile-pixels N       screen tiles of about N x N pixels, from %d to %d\n"
            "                        (default: the renderer's)\n"
            "  --draw auto|pull|indexed\n"
            "                        draw form, the same image: pull the sorted triangles'\n"
            "                        vertices in the vertex shader, or scatter their\n"
            "                        indices and draw indexed (auto: pull from 250k\n"
            "                        triangles when tiled, from 3M when not)\n"
            "  --primitive triangles|points\n"
            "                        sort and draw triangles, or vertices as round splats\n"
            "                        (default: triangles; points for point clouds)\n"
            "  --key farthest|mean|centroid\n"
            "                        triangle sort key: farthest vertex (default), mean of\n"
            "                        the vertex distances, or centroid distance\n"
            "  --key-bits 16|24|32   sort on the top bits of each key only (32); fewer\n"
            "                        bits sort faster and may misorder near-equal depths\n"
            "  --narrow-keys on|off  on a GPU, sort full keys as their float steps above the\n"
            "                        nearest depth the model can have, on 24 or 16 bits\n"
            "                        when they fit: the same order and image, one or two\n"
            "                        radix passes less (on, the default)\n"
            "  --alpha A             opacity of every surface, in (0, 1] (0.45)\n"
            "  --interop auto|map|external|none\n"
            "                        CUDA-GL sharing: external memory where supported (auto),\n"
            "                        per-frame map/unmap, imported CUDA memory, or none (CPU)\n"
            "  --size WxH            framebuffer or window size (1920x1080)\n"
            "\n"
            "Appearance:\n"
            "  --color auto|normal|tint|height|file\n"
            "                        surface colour: the normal, one tint, a ramp along the\n"
            "                        up axis, or the file's colours (auto: the file's if it\n"
            "                        has them, else the normal)\n"
            "  --tint R,G,B          the tint of --color tint, each in [0, 1]\n"
            "  --background R,G,B    clear colour, each in [0, 1] (default: light grey)\n"
            "  --opacity constant|view\n"
            "                        constant alpha, or more opaque at grazing angles (view)\n"
            "  --point-size S        points: splat diameter in model units, > 0 (default:\n"
            "                        from the point spacing)\n"
            "  --msaa 1|2|4|8        samples per pixel (1: off; culling is off above 1)\n"
            "  --raster hw|compute|auto\n"
            "                        what rasterises the triangles or point splats: the\n"
            "                        GPU's rasteriser (hw, the default), or compute\n"
            "                        shaders on all its cores (compute; auto: compute\n"
            "                        where the frames can: --msaa 1, triangles)\n"
            "  --raster-order fragment|triangle\n"
            "                        the compute raster's order: every fragment sorted by\n"
            "                        its own depth, exact (fragment, the default), or the\n"
            "                        sorted triangles' (points') order (triangle)\n"
            "  --up +x|-x|+y|-y|+z|-z\n"
            "                        the model's up axis, turned to the screen's up (+y)\n"
            "  --camera \"eye=X,Y,Z target=X,Y,Z [up=0,1,0] [fov=DEG]\"\n"
            "                        start from this view (the viewer's camera key prints\n"
            "                        such a line); headless orbits turn from it\n"
            "  --camera-file F       read the start view from F's first line if F exists;\n"
            "                        the viewer's camera key writes it there\n"
            "\n"
            "Headless timing:\n"
            "  --headless            no window: time a scripted orbit and print a table\n"
            "  --frames N            frames per sort (100)\n"
            "  --orbit DEG           total camera orbit over the frames (360)\n"
            "  --csv FILE            write per-stage timings as CSV (ms; handover: GPU time\n"
            "                        from a frame's start to its draw that no stage accounts\n"
            "                        for, from GL timestamps)\n"
            "  --json FILE           write per-stage timings as JSON\n"
            "  --screenshot FILE.png save the last frame; the name may hold {model} (the\n"
            "                        file's name without folder and extension, or\n"
            "                        scene_NAME_SIZE), {technique} (sorted, wboit, ...),\n"
            "                        {sort} (the sort that drew, or unsorted), {frame}\n"
            "                        (frames drawn) and {date} (UTC, YYYYMMDD-HHMMSS)\n"
            "  --supersample N       the screenshot drawn at N times the size (1 to 4)\n"
            "                        and averaged down (box filter); in the viewer the\n"
            "                        model's view alone (Shift+C, script screenshots)\n"
            "  --screenshot-alpha    the screenshot's background transparent, its alpha\n"
            "                        the model's coverage (straight alpha); the same shots\n"
            "  --screenshot-overlay on|off\n"
            "                        viewer: script screenshots with the panels (default\n"
            "                        off: the model alone; C/F12 keep them, Shift+C never);\n"
            "                        --screenshot names the viewer's key shots\n"
            "  --verify              check every frame's order against the CPU sort\n"
            "  --timeline FILE       write the last 8 timed frames' host, GL and CUDA\n"
            "                        events on one clock as CSV (docs/performance.md)\n"
            "  --progress            the run's progress on stderr from the start, also when\n"
            "                        it is not a terminal (a terminal shows it after 2 s)\n"
            "  --plot DIR            plot each frame's time (and with --compare each\n"
            "                        technique's error) with gnuplot: .png, .pdf, and the\n"
            "                        .dat and .gp files that draw them, into DIR\n"
            "\n"
            "Transparency comparison (headless; docs/transparency.md):\n"
            "  --compare LIST        each technique's image error against the exact\n"
            "                        reference (A-buffer) and its frame time, over the\n"
            "                        orbit: 'all' or a comma list of the techniques\n"
            "                        below (sorted: with --sort, --key, --key-bits);\n"
            "                        --csv and --json write the table\n"
            "  --diff-dir DIR        write each technique's worst frame, its error\n"
            "                        heatmap (NAME-heat-0-16.png: yellow = 16 levels or\n"
            "                        more) and the reference image into DIR\n"
            "\n"
            "Viewer:\n"
            "  --no-vsync            start with vsync off (--vsync: on, the default)\n"
            "  --script FILE         drive the viewer from a file of commands (below)\n"
            "  --overlay auto|full|compact|off\n"
            "                        the stats panel at start (O cycles it); auto: full\n"
            "                        where it takes at most 2/5 of the window's width\n"
            "  --ui auto|panels|text settings, times and hotkeys as panels docked right\n"
            "                        of the model, or as the text overlay; auto\n"
            "                        (default): the panels where built with them\n"
            "  --ui-scale S          the panels' size times S, on top of the monitor's\n"
            "                        content scale (default 1)\n"
            "  --gl-window auto|glx|egl\n"
            "                        the window's OpenGL: glx, or egl (drawn off-screen\n"
            "                        on the GPU, each frame copied into the window; for\n"
            "                        GPUs without their X server side, as under Xvfb;\n"
            "                        no vsync); auto (default): glx, else egl\n"
            "\n"
            "  --help                this text\n"
            "  --version             print the version\n",
            DS_SCENE_DEFAULT, DS_SCENE_DEFAULT_SIZE, DS_RENDERER_TILE_PIXELS_MIN,
            DS_RENDERER_TILE_PIXELS_MAX);

    fprintf(out, "\nSorts (--sort NAME; the viewer's hotkey):\n");
    fprintf(out, "  %-10s %c  %s\n", DS_SORT_GL_NAME, DS_SORT_GL_HOTKEY, DS_SORT_GL_SUMMARY);
    int missing = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        char hotkey = ds_sort_algo_hotkey((ds_sort_algo)a);
        if (!ds_sort_algo_built((ds_sort_algo)a)) {
            missing++;
            continue;
        }
        fprintf(out, "  %-10s %c  %s\n", ds_sort_algo_name((ds_sort_algo)a), hotkey ? hotkey : ' ',
                ds_sort_algo_summary((ds_sort_algo)a));
    }
    if (missing) {
        fprintf(out, "  This build has no CUDA (configured without the toolkit); not in it:");
        for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
            if (!ds_sort_algo_built((ds_sort_algo)a))
                fprintf(out, " %s", ds_sort_algo_name((ds_sort_algo)a));
        fprintf(out, "\n");
    }
    fprintf(out, "\nTechniques (--compare NAME, in the order of 'all'; the viewer's X cycle):\n");
    ds_compare_item all[DS_COMPARE_ITEM_COUNT];
    int items = ds_compare_all(all);
    for (int i = 0; i < items; i++) {
        int cycle = (int)all[i] < DS_TECHNIQUE_COUNT ? ds_technique_cycle((ds_technique)all[i]) : 0;
        char place[8] = "";
        if (cycle)
            snprintf(place, sizeof place, "%d", cycle);
        fprintf(out, "  %-13s %2s  %s\n", ds_compare_item_name(all[i]), place,
                ds_compare_item_summary(all[i]));
    }
    fprintf(out, "\nScenes:\n");
    for (int s = 0; s < ds_scene_count(); s++)
        fprintf(out, "  %-10s %s\n", ds_scene_name(s), ds_scene_description(s));

    char lines[DS_HOTKEY_LINES_MAX][DS_HOTKEY_LINE_MAX];
    int count = ds_hotkey_help(HELP_KEY_COLUMN, HELP_WIDTH, lines, DS_HOTKEY_LINES_MAX);
    fprintf(out, "\nViewer hotkeys:\n");
    for (int i = 0; i < count; i++)
        fprintf(out, "  %s\n", lines[i]);
    fprintf(out,
            "\nScript commands (--script FILE, one a line, # comments; without a display:\n"
            "xvfb-run -a -s '-screen 0 1920x1080x24' depthsort MODEL --script FILE):\n"
            "  frames N              render N frames\n"
            "  key NAME              press a key: a letter, digit, + - = [ ] \\, TAB, ESC,\n"
            "                        SPACE, ENTER, F1..F12, with shift+ ctrl+ alt+\n"
            "  drag BUTTON DX DY     drag with left|right|middle by DX, DY pixels\n"
            "  scroll DY             turn the wheel DY notches (positive: closer)\n"
            "  sort NAME             select gl or a sort above\n"
            "  technique NAME        select a technique above (sorted, wboit, abuffer, ...)\n"
            "  set alpha A           alpha in (0, 1]; also set color normal|tint|height|file,\n"
            "                        set key farthest|mean|centroid, set bits 16|24|32\n"
            "  camera \"LINE\"         the view of a --camera line\n"
            "  orbit DEG FRAMES      turn the view DEG degrees over FRAMES frames\n"
            "  wait MS               keep drawing for MS milliseconds\n"
            "  wait file PATH        keep drawing until PATH exists (at most 60 s)\n"
            "  report                print the settings and the overlay's mean times\n"
            "  screenshot PATH       write the next frame as PNG (the model alone unless\n"
            "                        --screenshot-overlay on; PATH a template)\n"
            "  drop PATH             open a model as if dropped on the window\n"
            "  quit                  close the window, exit 0 (1 if a step failed)\n"
            "  stay                  end the script, leave the window open\n"
            "  A script that ends without quit or stay closes the window with a warning.\n");
}

/* Logs the one error line, then the usage, on stderr. */
static ds_status usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static ds_status usage_error(const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    ds_status status = ds_fail(DS_ERR_INVALID_ARG, "%s", message);
    usage_line(stderr);
    return status;
}

static int parse_long(const char *text, long lo, long hi, long *dest)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi)
        return 0;
    *dest = value;
    return 1;
}

static int parse_float(const char *text, float *dest)
{
    char *end;
    errno = 0;
    float value = strtof(text, &end);
    if (errno || end == text || *end || !isfinite(value))
        return 0;
    *dest = value;
    return 1;
}

/* "AxB" with both sides in [1, max]. */
static int parse_pair(const char *text, int max, int *a, int *b)
{
    const char *x = strchr(text, 'x');
    if (!x || x == text)
        return 0;
    char first[32];
    size_t length = (size_t)(x - text);
    if (length >= sizeof first)
        return 0;
    memcpy(first, text, length);
    first[length] = '\0';
    long va, vb;
    if (!parse_long(first, 1, max, &va) || !parse_long(x + 1, 1, max, &vb))
        return 0;
    /* strtol accepts leading blanks and signs; a size does not. */
    if (first[0] < '0' || first[0] > '9' || x[1] < '0' || x[1] > '9')
        return 0;
    *a = (int)va;
    *b = (int)vb;
    return 1;
}

/* "R,G,B", three finite numbers in [0, 1]. */
static int parse_rgb(const char *text, float dest[3])
{
    const char *s = text;
    float rgb[3];
    for (int k = 0; k < 3; k++) {
        char *end;
        errno = 0;
        rgb[k] = strtof(s, &end);
        if (errno || end == s || isspace((unsigned char)*s) || !(rgb[k] >= 0.0f && rgb[k] <= 1.0f))
            return 0;
        if (*end != (k < 2 ? ',' : '\0'))
            return 0;
        s = end + 1;
    }
    memcpy(dest, rgb, sizeof rgb);
    return 1;
}

/* The index of `text` among names[0 .. count), or -1 after the usage
 * error "OPTION 'text': expected a, b or c", listing the names in order
 * (so that the message cannot drift from the accepted words). */
static int parse_choice(const char *option, const char *text, const char *const *names,
                        int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(text, names[i]))
            return i;
    char expected[256];
    size_t used = 0;
    expected[0] = '\0';
    for (int i = 0; i < count && used < sizeof expected; i++)
        used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
                                 i == 0 ? "" : i == count - 1 ? " or " : ", ", names[i]);
    usage_error("%s '%s': expected %s", option, text, expected);
    return -1;
}
/* parse_choice over a whole names array. */
#define PARSE_CHOICE(option, text, names) \
    parse_choice(option, text, names, (int)(sizeof(names) / sizeof(names)[0]))

/* The options that share a shape, parsed by one loop (parse_shaped):
 * each writes one field of ds_options at `field`, and on a bad value fails
 * with "--NAME 'VALUE': expected ..." naming what it takes. Options with a
 * shape of their own (--scene, --sort, --key-bits, --narrow-keys,
 * --screenshot, --color, --opacity, --msaa, --raster, --raster-order,
 * --up, --camera, --compare, --help, --version) are ds_cli_parse's cases. */
typedef enum option_shape_kind {
    SHAPE_SET,      /* no value: the int field becomes `value` */
    SHAPE_NONEMPTY, /* the value as given (a path), refusing '' */
    SHAPE_CHOICE,   /* one of names[0 .. count): its index */
    SHAPE_WHOLE,    /* an integer in [min, max] */
    SHAPE_NUMBER,   /* a finite float in (above, at_most] */
    SHAPE_PAIR,     /* "AxB", each side in [1, max], into two ints */
    SHAPE_RGB       /* "R,G,B", each in [0, 1] */
} option_shape_kind;

typedef struct option_shape {
    int id;                  /* OPT_*: its long_options entry */
    option_shape_kind kind;
    size_t field;            /* offsetof(ds_options, ...) */
    size_t second;           /* SHAPE_PAIR: the second int's offset */
    size_t given;            /* an int field set to 1 as well; 0: none */
    int value;               /* SHAPE_SET */
    const char *const *names; /* SHAPE_CHOICE */
    int count;
    long min, max;           /* SHAPE_WHOLE; SHAPE_PAIR: max only */
    double above, at_most;   /* SHAPE_NUMBER */
    const char *expected;    /* the error's "expected ..." (SHAPE_PAIR:
                                the form, e.g. "WxH with W and H") */
} option_shape;

#define NAMES(list) .names = (list), .count = (int)(sizeof(list) / sizeof(list)[0])
#define FIELD(name) offsetof(ds_options, name)

/* The choices and SHAPE_SET write their int-sized enum fields as ints. */
_Static_assert(sizeof(ds_primitive) == sizeof(int) && sizeof(ds_triangle_key) == sizeof(int) &&
                   sizeof(ds_interop_mode) == sizeof(int) && sizeof(ds_tiles_mode) == sizeof(int) &&
                   sizeof(ds_draw_form) == sizeof(int) && sizeof(ds_overlay_start) == sizeof(int) &&
                   sizeof(ds_ui_mode) == sizeof(int) &&
                   sizeof(ds_cull_mode) == sizeof(int),
               "option enums are int-sized");

static const option_shape option_shapes[] = {
    {.id = OPT_INFO, .kind = SHAPE_SET, .field = FIELD(info), .value = 1},
    {.id = OPT_HEADLESS, .kind = SHAPE_SET, .field = FIELD(headless), .value = 1},
    {.id = OPT_SHUFFLE, .kind = SHAPE_SET, .field = FIELD(shuffle), .value = 1},
    {.id = OPT_VERIFY, .kind = SHAPE_SET, .field = FIELD(verify), .value = 1},
    {.id = OPT_SCREENSHOT_ALPHA, .kind = SHAPE_SET, .field = FIELD(screenshot_alpha), .value = 1},
    {.id = OPT_PROGRESS, .kind = SHAPE_SET, .field = FIELD(progress), .value = 1},
    {.id = OPT_NO_SORT, .kind = SHAPE_SET, .field = FIELD(no_sort), .value = 1},
    {.id = OPT_NO_CULL, .kind = SHAPE_SET, .field = FIELD(cull), .value = DS_CULL_OFF},
    {.id = OPT_VSYNC, .kind = SHAPE_SET, .field = FIELD(vsync), .value = 1},
    {.id = OPT_NO_VSYNC, .kind = SHAPE_SET, .field = FIELD(vsync), .value = 0},
    {.id = OPT_CSV, .kind = SHAPE_NONEMPTY, .field = FIELD(csv_path), .expected = "a file name"},
    {.id = OPT_JSON, .kind = SHAPE_NONEMPTY, .field = FIELD(json_path), .expected = "a file name"},
    {.id = OPT_SCRIPT, .kind = SHAPE_NONEMPTY, .field = FIELD(script_path),
     .expected = "a file name"},
    {.id = OPT_CAMERA_FILE, .kind = SHAPE_NONEMPTY, .field = FIELD(camera_file),
     .expected = "a file name"},
    {.id = OPT_DIFF_DIR, .kind = SHAPE_NONEMPTY, .field = FIELD(diff_dir), .expected = "a folder"},
    {.id = OPT_TIMELINE, .kind = SHAPE_NONEMPTY, .field = FIELD(timeline_path),
     .expected = "a file name"},
    {.id = OPT_PLOT, .kind = SHAPE_NONEMPTY, .field = FIELD(plot_dir), .expected = "a folder"},
    {.id = OPT_PRIMITIVE, .kind = SHAPE_CHOICE, .field = FIELD(primitive),
     .given = FIELD(primitive_given), NAMES(primitive_names)},
    {.id = OPT_KEY, .kind = SHAPE_CHOICE, .field = FIELD(triangle_key), NAMES(triangle_key_names)},
    {.id = OPT_INTEROP, .kind = SHAPE_CHOICE, .field = FIELD(interop), NAMES(interop_names)},
    {.id = OPT_TILES, .kind = SHAPE_CHOICE, .field = FIELD(tiles), NAMES(tiles_names)},
    {.id = OPT_DRAW, .kind = SHAPE_CHOICE, .field = FIELD(draw_form), NAMES(draw_names)},
    {.id = OPT_OVERLAY, .kind = SHAPE_CHOICE, .field = FIELD(overlay), NAMES(overlay_names)},
    {.id = OPT_UI, .kind = SHAPE_CHOICE, .field = FIELD(ui), NAMES(ui_names)},
    {.id = OPT_GL_WINDOW, .kind = SHAPE_CHOICE, .field = FIELD(gl_window), NAMES(gl_window_names)},
    {.id = OPT_CULL, .kind = SHAPE_CHOICE, .field = FIELD(cull), NAMES(cull_names)},
    {.id = OPT_SUPERSAMPLE, .kind = SHAPE_WHOLE, .field = FIELD(supersample), .min = 1, .max = 4},
    {.id = OPT_FRAMES, .kind = SHAPE_WHOLE, .field = FIELD(frames), .min = 1, .max = MAX_FRAMES},
    {.id = OPT_TILE_PIXELS, .kind = SHAPE_WHOLE, .field = FIELD(tile_pixels),
     .min = DS_RENDERER_TILE_PIXELS_MIN, .max = DS_RENDERER_TILE_PIXELS_MAX},
    {.id = OPT_ORBIT, .kind = SHAPE_NUMBER, .field = FIELD(orbit_degrees), .above = -HUGE_VAL,
     .at_most = HUGE_VAL, .expected = "an angle in degrees"},
    {.id = OPT_ALPHA, .kind = SHAPE_NUMBER, .field = FIELD(alpha), .above = 0.0, .at_most = 1.0,
     .expected = "a number in (0, 1]"},
    {.id = OPT_POINT_SIZE, .kind = SHAPE_NUMBER, .field = FIELD(point_size), .above = 0.0,
     .at_most = HUGE_VAL, .expected = "a size > 0 in model units"},
    {.id = OPT_UI_SCALE, .kind = SHAPE_NUMBER, .field = FIELD(ui_scale), .above = 0.25,
     .at_most = 4.0, .expected = "a scale above 0.25, at most 4"},
    {.id = OPT_GRID, .kind = SHAPE_PAIR, .field = FIELD(grid_x), .second = FIELD(grid_y),
     .max = MAX_GRID_SIDE, .expected = "NxM with N and M"},
    {.id = OPT_SIZE, .kind = SHAPE_PAIR, .field = FIELD(width), .second = FIELD(height),
     .max = MAX_IMAGE_SIDE, .expected = "WxH with W and H"},
    {.id = OPT_TINT, .kind = SHAPE_RGB, .field = FIELD(tint)},
    {.id = OPT_BACKGROUND, .kind = SHAPE_RGB, .field = FIELD(background),
     .given = FIELD(background_given)},
};

/* "--NAME" of an option id, from long_options. */
static const char *option_name(int id, char *dest, size_t capacity)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == id) {
            snprintf(dest, capacity, "--%s", o->name);
            return dest;
        }
    snprintf(dest, capacity, "--?");
    return dest;
}

/* Parses `arg` for a shaped option into dest; DS_OK, or DS_ERR_INVALID_ARG
 * after the one error line. *found is 0 when `id` has no shape. */
static ds_status parse_shaped(int id, const char *arg, ds_options *dest, int *found)
{
    const option_shape *shape = NULL;
    for (size_t i = 0; i < sizeof option_shapes / sizeof option_shapes[0]; i++)
        if (option_shapes[i].id == id)
            shape = &option_shapes[i];
    *found = shape != NULL;
    if (!shape)
        return DS_OK;
    char name[32];
    option_name(id, name, sizeof name);
    char *field = (char *)dest + shape->field;
    long whole;
    float number;
    switch (shape->kind) {
    case SHAPE_SET:
        *(int *)field = shape->value;
        break;
    case SHAPE_NONEMPTY:
        if (!*arg)
            return usage_error("%s '': expected %s", name, shape->expected);
        *(const char **)field = arg;
        break;
    case SHAPE_CHOICE: {
        int choice = parse_choice(name, arg, shape->names, shape->count);
        if (choice < 0)
            return DS_ERR_INVALID_ARG;
        *(int *)field = choice;
        break;
    }
    case SHAPE_WHOLE:
        if (!parse_long(arg, shape->min, shape->max, &whole))
            return usage_error("%s '%s': expected a whole number from %ld to %ld", name, arg,
                               shape->min, shape->max);
        *(int *)field = (int)whole;
        break;
    case SHAPE_NUMBER:
        if (!parse_float(arg, &number) || !(number > shape->above && number <= shape->at_most))
            return usage_error("%s '%s': expected %s", name, arg, shape->expected);
        *(float *)field = number;
        break;
    case SHAPE_PAIR:
        if (!parse_pair(arg, (int)shape->max, (int *)field, (int *)((char *)dest + shape->second)))
            return usage_error("%s '%s': expected %s from 1 to %ld", name, arg, shape->expected,
                               shape->max);
        break;
    case SHAPE_RGB:
        if (!parse_rgb(arg, (float *)field))
            return usage_error("%s '%s': expected R,G,B with each in [0, 1]", name, arg);
        break;
    }
    if (shape->given)
        *(int *)((char *)dest + shape->given) = 1;
    return DS_OK;
}

/* --compare LIST: "all", or comma-separated item names, each at most
 * once. */
static ds_status parse_compare_list(const char *list, ds_options *dest)
{
    dest->compare_count = 0;
    dest->compare_all = 0;
    if (!strcmp(list, "all")) {
        dest->compare_count = ds_compare_all(dest->compare_items);
        dest->compare_all = 1;
        dest->compare = list;
        return DS_OK;
    }
    const char *at = list;
    for (;;) {
        size_t length = strcspn(at, ",");
        int found = -1;
        for (int i = 0; i < DS_COMPARE_ITEM_COUNT; i++) {
            const char *name = ds_compare_item_name((ds_compare_item)i);
            if (strlen(name) == length && !strncmp(at, name, length))
                found = i;
        }
        if (found < 0) {
            char known[512];
            compare_names_list(known, sizeof known);
            return usage_error("--compare '%s': unknown technique '%.*s'; known: all, %s", list,
                               (int)length, at, known);
        }
        for (int i = 0; i < dest->compare_count; i++)
            if (dest->compare_items[i] == (ds_compare_item)found)
                return usage_error("--compare '%s': '%s' is listed twice", list,
                                   ds_compare_item_name((ds_compare_item)found));
        dest->compare_items[dest->compare_count++] = (ds_compare_item)found;
        if (!at[length])
            break;
        at += length + 1;
    }
    dest->compare = list;
    return DS_OK;
}

static void set_defaults(ds_options *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->grid_x = 1;
    dest->grid_y = 1;
    dest->frames = 100;
    dest->sort = "cub";
    dest->stages = DS_STAGES_AUTO;
    dest->width = 1920;
    dest->height = 1080;
    dest->primitive = DS_PRIMITIVE_TRIANGLES;
    dest->triangle_key = DS_TRIANGLE_KEY_FARTHEST;
    dest->interop = DS_INTEROP_AUTO;
    dest->draw_form = DS_DRAW_AUTO;
    dest->orbit_degrees = 360.0f;
    dest->alpha = 0.45f;
    dest->vsync = 1;
    dest->ui_scale = 1.0f;
    dest->supersample = 1;
    dest->cull = DS_CULL_AUTO;
    dest->color_mode = DS_COLOR_AUTO;
    dest->opacity = DS_OPACITY_CONSTANT;
    dest->msaa = 1;
    dest->up = DS_UP_POS_Y;
}

/* A model path given positionally: at most one. */
static ds_status take_model(const char *path, ds_options *dest)
{
    if (dest->model_path)
        return usage_error("more than one model given ('%s' and '%s')", dest->model_path, path);
    dest->model_path = path;
    return DS_OK;
}

/* What one option alone cannot refuse. */
static ds_status check_combinations(const ds_options *dest)
{
    if (dest->model_path && dest->scene)
        return usage_error("give a model or --scene, not both ('%s' and --scene %s)", dest->model_path,
                           dest->scene);
    if (dest->diff_dir && !dest->compare)
        return usage_error("--diff-dir %s: needs --compare (it holds the comparison's heatmaps)",
                           dest->diff_dir);
    int compute = dest->raster == DS_RASTER_COMPUTE && !dest->raster_auto;
    if (compute && dest->msaa > 1)
        return usage_error("--raster compute: the compute raster samples each pixel once; "
                           "--msaa %d keeps the hardware rasteriser", dest->msaa);
    if (compute && dest->no_sort)
        return usage_error("--raster compute: --no-sort draws the mesh's order with the "
                           "hardware rasteriser; give one of the two");
    if (dest->raster_order_given && dest->raster != DS_RASTER_COMPUTE)
        return usage_error("--raster-order %s: applies to --raster compute or auto",
                           ds_raster_order_name(dest->raster_order));
    if (dest->timeline_path && dest->compare)
        return usage_error("--timeline %s: times the headless orbit, not --compare",
                           dest->timeline_path);
    if (dest->compare && !dest->compare_all && dest->primitive == DS_PRIMITIVE_POINTS)
        for (int i = 0; i < dest->compare_count; i++)
            if (ds_compare_item_needs_triangles(dest->compare_items[i]))
                return usage_error("--compare %s: a triangle key does not apply to --primitive "
                                   "points (points are sorted by their own distance)",
                                   ds_compare_item_name(dest->compare_items[i]));
    return DS_OK;
}

/* --sort NAME: the GL sort, "all", or a built sorter; else the one error
 * line lists the names known. */
static ds_status parse_sort(const char *arg, ds_options *dest)
{
    if (!strcmp(arg, DS_SORT_GL_NAME)) {
        dest->stages = DS_STAGES_GL;
    } else if (!strcmp(arg, "all")) {
        dest->stages = DS_STAGES_AUTO;
    } else if (ds_sort_algo_from_name(arg) != DS_SORT_ALGO_COUNT) {
        dest->stages = DS_STAGES_SORTER;
    } else {
        char known[256] = DS_SORT_GL_NAME ", ";
        for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
            if (!ds_sort_algo_built((ds_sort_algo)a))
                continue;
            strncat(known, ds_sort_algo_name((ds_sort_algo)a), sizeof known - strlen(known) - 1);
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        }
        return usage_error("--sort '%s': unknown sort; known: %sall", arg, known);
    }
    dest->sort = arg;
    return DS_OK;
}

/* --screenshot PATH: a non-empty name whose {keys} are known; a name not
 * ending in .png gets a warning, not an error. */
static ds_status parse_screenshot(const char *arg, ds_options *dest)
{
    char bad[64];
    if (!*arg)
        return usage_error("--screenshot '': expected a file name");
    if (!ds_screenshot_name(arg, NULL, NULL, 0, bad, sizeof bad))
        return usage_error("--screenshot %s: unknown key {%s} (expected {model}, "
                           "{technique}, {sort}, {frame} or {date})", arg, bad);
    size_t length = strlen(arg);
    if (length < 4 || strcasecmp(arg + length - 4, ".png") != 0)
        ds_warn("--screenshot %s: the file is a PNG whatever its name", arg);
    dest->screenshot_path = arg;
    return DS_OK;
}

/* The options of a shape of their own (option_shapes has the others). */
static ds_status parse_special(int c, const char *arg, const char *name, ds_options *dest,
                               int *exit_now)
{
    long value;
    switch (c) {
    case OPT_SCENE: {
        char scene[64];
        size_t triangles;
        if (ds_scene_parse(arg, scene, sizeof scene, &triangles) != DS_OK) {
            /* ds_scene_parse has logged the one error line. */
            usage_line(stderr);
            return DS_ERR_INVALID_ARG;
        }
        dest->scene = arg;
        break;
    }
    case OPT_SORT:
        return parse_sort(arg, dest);
    case OPT_KEY_BITS:
        if (!parse_long(arg, 16, 32, &value) || (value != 16 && value != 24 && value != 32))
            return usage_error("--key-bits '%s': expected 16, 24 or 32", arg);
        dest->key_bits = (int)value;
        break;
    case OPT_NARROW_KEYS:
        if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
            return usage_error("--narrow-keys '%s': expected on or off", arg);
        dest->full_width_keys = strcmp(arg, "off") == 0;
        break;
    case OPT_SCREENSHOT_OVERLAY:
        if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
            return usage_error("--screenshot-overlay '%s': expected on or off", arg);
        dest->screenshot_overlay = strcmp(arg, "on") == 0;
        break;
    case OPT_SCREENSHOT:
        return parse_screenshot(arg, dest);
    case OPT_COLOR:
        dest->color_mode = ds_color_mode_from_name(arg);
        if (dest->color_mode == DS_COLOR_MODE_COUNT)
            return usage_error("--color '%s': expected auto, normal, tint, height or file", arg);
        break;
    case OPT_OPACITY:
        dest->opacity = ds_opacity_mode_from_name(arg);
        if (dest->opacity == DS_OPACITY_MODE_COUNT)
            return usage_error("--opacity '%s': expected constant or view", arg);
        break;
    case OPT_MSAA:
        if (!parse_long(arg, 1, 8, &value) || (value & (value - 1)) || arg[0] < '1' || arg[0] > '8')
            return usage_error("--msaa '%s': expected 1, 2, 4 or 8", arg);
        dest->msaa = (int)value;
        break;
    case OPT_RASTER:
        dest->raster_auto = !strcmp(arg, "auto");
        dest->raster = dest->raster_auto ? DS_RASTER_COMPUTE : ds_raster_path_from_name(arg);
        if (dest->raster == DS_RASTER_PATH_COUNT)
            return usage_error("--raster '%s': expected hw, compute or auto", arg);
        break;
    case OPT_RASTER_ORDER:
        dest->raster_order = ds_raster_order_from_name(arg);
        if (dest->raster_order == DS_RASTER_ORDER_COUNT)
            return usage_error("--raster-order '%s': expected fragment or triangle", arg);
        dest->raster_order_given = 1;
        break;
    case OPT_UP:
        dest->up = ds_up_axis_from_name(arg);
        if (dest->up == DS_UP_COUNT)
            return usage_error("--up '%s': expected +x, -x, +y, -y, +z or -z", arg);
        break;
    case OPT_CAMERA: {
        /* Checked now, so that a bad line fails before anything runs;
         * the runners parse it again against the model's camera. */
        ds_camera scratch = {0};
        if (ds_camera_parse(arg, "--camera", &scratch) != DS_OK) {
            /* ds_camera_parse has logged the one error line. */
            usage_line(stderr);
            return DS_ERR_INVALID_ARG;
        }
        dest->camera = arg;
        break;
    }
    case OPT_COMPARE:
        if (parse_compare_list(arg, dest) != DS_OK)
            return DS_ERR_INVALID_ARG; /* the one line and the usage are out */
        break;
    case OPT_HELP:
        ds_cli_usage(stdout);
        *exit_now = 1;
        return DS_OK;
    case OPT_VERSION:
        printf("depthsort %s\n", DS_VERSION);
        *exit_now = 1;
        return DS_OK;
    case ':':
        return usage_error("option '%s' needs a value", name);
    default:
        return usage_error("unknown option '%s'", name);
    }
    return DS_OK;
}

ds_status ds_cli_parse(int argc, char **argv, ds_options *dest, int *exit_now)
{
    ds_status status;
    set_defaults(dest);
    dest->argc = argc;
    dest->argv = argv;
    *exit_now = 0;
    optind = 0; /* glibc: restart scanning, so that parsing can repeat */
    opterr = 0; /* we print our own one-line errors */
    int previous = 1;
    for (;;) {
        int c = getopt_long(argc, argv, "+:", long_options, NULL);
        if (c == -1) {
            if (optind >= argc)
                break;
            if (!strcmp(argv[optind - 1], "--")) {
                /* After "--" everything is positional. */
                for (; optind < argc; optind++)
                    if ((status = take_model(argv[optind], dest)))
                        return status;
                break;
            }
            /* A positional argument; '+' stopped at it, so take it and go on
             * (options may follow the model). */
            if ((status = take_model(argv[optind], dest)))
                return status;
            optind++;
            previous = optind;
            continue;
        }
        const char *arg = optarg;
        const char *name = argv[previous];
        previous = optind;
        int shaped;
        if ((status = parse_shaped(c, arg, dest, &shaped)))
            return status;
        if (!shaped && ((status = parse_special(c, arg, name, dest, exit_now)) || *exit_now))
            return status;
    }
    return check_combinations(dest);
}
