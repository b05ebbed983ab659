/* SPDX-License-Identifier: MIT */
/* cli.h — the parsed command line, shared by main, the headless runner and
 * the viewer (which only read it). */
#ifndef DS_CLI_H
#define DS_CLI_H

#include <stddef.h>

#include "renderer.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What --compare measures against the exact reference (the A-buffer):
 * every technique of the registry (technique_registry.h), with the same
 * value as its ds_technique, then the variants of the sorted draw, which
 * change only its triangle key (key-*) or its key bits (bits-*); "sorted"
 * is the per-primitive sort with the command line's --sort, --key and
 * --key-bits. `all` runs them in the registry's order with the variants
 * right after "sorted" (ds_compare_all). */
#define DS_COMPARE_VARIANTS(X)                                                   \
    X(KEY_FARTHEST, "key-farthest", "sorted, by the farthest vertex (--key)")   \
    X(KEY_MEAN, "key-mean", "sorted, by the mean vertex distance (--key)")      \
    X(KEY_CENTROID, "key-centroid", "sorted, by the centroid distance (--key)") \
    X(BITS_16, "bits-16", "sorted, on 16-bit keys (--key-bits)")                \
    X(BITS_24, "bits-24", "sorted, on 24-bit keys (--key-bits)")

typedef enum ds_compare_variant {
#define DS_COMPARE_VARIANT(ID, name, summary) DS_COMPARE_VARIANT_##ID,
    DS_COMPARE_VARIANTS(DS_COMPARE_VARIANT)
#undef DS_COMPARE_VARIANT
    DS_COMPARE_VARIANT_COUNT
} ds_compare_variant;

typedef enum ds_compare_item {
#define DS_COMPARE_TECHNIQUE(ID, name, file, label, cycle, summary) \
    DS_COMPARE_##ID = DS_TECHNIQUE_##ID,
    DS_TECHNIQUE_REGISTRY(DS_COMPARE_TECHNIQUE)
#undef DS_COMPARE_TECHNIQUE
#define DS_COMPARE_VARIANT(ID, name, summary) \
    DS_COMPARE_##ID = DS_TECHNIQUE_COUNT + DS_COMPARE_VARIANT_##ID,
    DS_COMPARE_VARIANTS(DS_COMPARE_VARIANT)
#undef DS_COMPARE_VARIANT
    DS_COMPARE_ITEM_COUNT = DS_TECHNIQUE_COUNT + DS_COMPARE_VARIANT_COUNT
} ds_compare_item;

/* "unsorted", "sorted", "key-farthest", ...; "unknown" for others. The
 * summary: the registry's for a technique, the list's for a variant. */
const char *ds_compare_item_name(ds_compare_item item);
const char *ds_compare_item_summary(ds_compare_item item);
/* 1 for the items that need triangles (the key-* ones: points are sorted
 * by their own distance, so a triangle key does not apply). */
int ds_compare_item_needs_triangles(ds_compare_item item);
/* The technique an item draws with: its own, or SORTED for a variant. */
ds_technique ds_compare_item_technique(ds_compare_item item);
/* Every item in the order `all` runs them; returns DS_COMPARE_ITEM_COUNT. */
int ds_compare_all(ds_compare_item dest[DS_COMPARE_ITEM_COUNT]);

/* The GL stages (renderer.h, desc.stages DS_STAGES_GL) are chosen and
 * named like a sort: --sort gl, the viewer's key, and the name every
 * table, file and line gives a frame whose stages ran as GL compute. The
 * sort registry does not hold them (it is the CUDA sort library, below
 * the render layer), so their name, key and summary live here, once
 * (setup.h's ds_app_sort_name() names a frame's). */
#define DS_SORT_GL_NAME "gl"
#define DS_SORT_GL_HOTKEY '0'
#define DS_SORT_GL_SUMMARY "GL compute stages, GL radix sort: no CUDA hand-over"

/* The viewer's stats panel at start (--overlay); O cycles it. */
typedef enum ds_overlay_start {
    DS_OVERLAY_START_AUTO = 0, /* full where it fits, else compact */
    DS_OVERLAY_START_FULL,
    DS_OVERLAY_START_COMPACT,
    DS_OVERLAY_START_OFF
} ds_overlay_start;

/* The viewer's interface (--ui): Dear ImGui panels where the build has
 * them (ui_panels.h), or the text overlay (overlay.h). */
typedef enum ds_ui_mode {
    DS_UI_AUTO = 0, /* the panels where built, else the text overlay */
    DS_UI_PANELS,   /* the panels; a build without them says so */
    DS_UI_TEXT
} ds_ui_mode;

/* How the viewer's window gets its OpenGL context (--gl-window). GLX needs
 * the GL vendor's X server side; where a GPU has none (cloud and compute
 * GPUs under Xvfb or VNC), EGL draws off-screen on the device and each
 * frame is copied into a plain X window (x11_present.h). */
typedef enum ds_gl_window {
    DS_GL_WINDOW_AUTO = 0, /* GLX, else EGL with one line saying so */
    DS_GL_WINDOW_GLX,
    DS_GL_WINDOW_EGL
} ds_gl_window;

typedef struct ds_options {
    const char *model_path;   /* positional MODEL, or NULL */
    const char *scene;        /* --scene NAME[:SIZE], or NULL */
    int grid_x, grid_y;       /* --grid NxM; 1x1 default */
    int info;                 /* --info: print one line and exit */
    int headless;             /* --headless */
    int frames;               /* --frames N (headless), default 100 */
    const char *sort;         /* --sort NAME|gl|all, default "cub" (cpu w/o
                                 GPU): the sorter, which with gl serves
                                 only the shuffle */
    ds_stages_mode stages;    /* --sort gl: GL; --sort NAME: SORTER; no
                                 --sort, or all: AUTO (the renderer's
                                 choice; all's runs set their own) */
    int shuffle;              /* --shuffle */
    int width, height;        /* --size WxH, default 1920x1080 */
    ds_primitive primitive;   /* --primitive; points for point clouds */
    int primitive_given;      /* --primitive was on the command line */
    ds_triangle_key triangle_key; /* --key farthest|mean|centroid */
    ds_interop_mode interop;  /* --interop auto|map|external|none */
    int key_bits;             /* --key-bits 16|24|32: bits of each key the
                                 sort compares (0: all 32) */
    float orbit_degrees;      /* --orbit DEG: total orbit over the frames */
    float alpha;              /* --alpha A in (0,1], default 0.45 */
    const char *csv_path;     /* --csv FILE */
    const char *json_path;    /* --json FILE */
    const char *screenshot_path; /* --screenshot FILE.png, maybe a template
                                    (ds_screenshot_name()) */
    int screenshot_overlay;   /* --screenshot-overlay on: the viewer's
                                 --screenshot and script shots keep the panels */
    int supersample;          /* --supersample N in 1..4: shots at N× size */
    int screenshot_alpha;     /* --screenshot-alpha: transparent background */
    const char *timeline_path; /* --timeline FILE: the last timed frames'
                                 events on one clock (CSV) */
    int verify;               /* --verify */
    int no_sort;              /* --no-sort: draw unsorted */
    int full_width_keys;      /* --narrow-keys off */
    ds_cull_mode cull;        /* --cull auto|on|off; --no-cull is off */
    ds_tiles_mode tiles;      /* --tiles auto|on|off */
    int tile_pixels;          /* --tile-pixels N: screen tile size; 0: the
                                 renderer's default */
    ds_draw_form draw_form;   /* --draw auto|pull|indexed */
    int vsync;                /* viewer: 1 default, --no-vsync */
    ds_overlay_start overlay; /* viewer: --overlay auto|full|compact|off */
    ds_ui_mode ui;            /* viewer: --ui auto|panels|text */
    float ui_scale;           /* viewer: --ui-scale S, 1 by default */
    ds_gl_window gl_window;   /* viewer: --gl-window auto|glx|egl */
    const char *script_path;  /* viewer: --script FILE of scripted input */
    ds_color_mode color_mode; /* --color auto|normal|tint|height|file */
    float tint[3];            /* --tint R,G,B in [0,1]; all zero: default */
    float background[3];      /* --background R,G,B in [0,1] */
    int background_given;     /* --background was on the command line */
    ds_opacity_mode opacity;  /* --opacity constant|view */
    float point_size;         /* --point-size S: splat diameter in world
                                 units; 0: from the mesh's spacing */
    int msaa;                 /* --msaa N: 1 (off), 2, 4, 8 */
    ds_raster_path raster;    /* --raster hw|compute|auto (default hw) */
    int raster_auto;          /* --raster auto: compute where it can */
    ds_raster_order raster_order; /* --raster-order fragment|triangle */
    int raster_order_given;
    ds_up_axis up;            /* --up +x|-x|+y|-y|+z|-z (default +y) */
    const char *camera;       /* --camera "eye=X,Y,Z target=X,Y,Z up=0,1,0
                                 fov=DEG" (camera.h) */
    const char *camera_file;  /* --camera-file F: the viewer's camera key
                                 writes the line there; headless and the
                                 viewer read it at start if it exists */
    const char *compare;      /* --compare LIST as given (headless image
                                 error against the exact reference), or NULL */
    ds_compare_item compare_items[DS_COMPARE_ITEM_COUNT]; /* LIST in its
                                 order, each once; `all`: every item */
    int compare_count;
    int compare_all;          /* LIST was `all` (key-* leave out points) */
    const char *diff_dir;     /* --diff-dir DIR: heatmaps of the worst frames */
    const char *plot_dir;     /* --plot DIR: frame-time (and error) plots */
    int progress;             /* --progress: progress lines off a terminal */
    int argc;                 /* the command line, as given (for reports) */
    char **argv;
} ds_options;

/* Fills defaults, then parses argv with getopt_long. Returns DS_OK, or
 * DS_ERR_INVALID_ARG after printing the error and usage to stderr.
 * *exit_now is set when --help or --version already printed and the program
 * should exit 0. */
ds_status ds_cli_parse(int argc, char **argv, ds_options *dest, int *exit_now);

/* Prints the usage text (every option and hotkey) to `stream` (a FILE *). */
void ds_cli_usage(void *stream);

/* What a screenshot's name template expands: {model} (the model file's
 * base name, ds_screenshot_model(), or the scene), {technique} (sorted,
 * unsorted, wboit, ...), {sort} (the sort that drew: gl, cub, cpu, ...;
 * unsorted), {frame} (frames drawn, a number) and {date} (UTC,
 * "20261129-090412"); other characters than [A-Za-z0-9._+-] in a value
 * become '_'. */
typedef struct ds_screenshot_keys {
    const char *model, *technique, *sort, *date;
    int frame;
} ds_screenshot_keys;

/* Expands `pattern` into dest (truncated to capacity) with `keys`; with
 * dest or keys NULL only checks the keys. Returns 1, or 0 for an unknown
 * {key}, whose name goes to bad_key (may be NULL). A '{' without '}' is
 * kept as it is. */
int ds_screenshot_name(const char *pattern, const ds_screenshot_keys *keys, char *dest,
                       size_t capacity, char *bad_key, size_t bad_capacity);

/* {model}'s value into dest (truncated to capacity): the file's name
 * without its folder and its last extension ("bunny" for assets/bunny.ply;
 * a name that is all extension, ".ply", stays whole), or with model_path
 * NULL "scene:" and the scene spec. */
void ds_screenshot_model(const char *model_path, const char *scene, char *dest,
                         size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
