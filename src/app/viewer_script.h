/* SPDX-License-Identifier: MIT */
/* viewer_script.h — scripted input for the viewer (--script FILE), so that
 * tests can drive the real key and mouse handlers without a person.
 *
 * A script is a text file, one command per line; blank lines and lines whose
 * first non-blank character is '#' are ignored; words are separated by
 * blanks; key names are case-insensitive:
 *
 *   frames N              render N frames (N >= 1)
 *   key NAME              press and release a key, NAME being a letter, a
 *                         digit, + - = [ ] \ , TAB, ESC, SPACE, ENTER,
 *                         F1..F12, KP_ADD, KP_SUBTRACT, with optional prefixes
 *                         shift+ / ctrl+ / alt+ ("key shift+TAB"); "+" is
 *                         shift+= as on a US keyboard
 *   drag BUTTON DX DY     drag with left|right|middle by DX, DY pixels
 *   scroll DY             turn the wheel by DY notches (positive: away)
 *   screenshot PATH       write the next frame as PNG: the model's view
 *                         alone (--screenshot-overlay on: with panels);
 *                         PATH may hold {model}, {technique}, {sort},
 *                         {frame}, {date}
 *   drop PATH             drop a file on the window (opens a PLY or OBJ)
 *   sort NAME             select a sort: gl or a registry name (cub, cpu...)
 *   technique NAME        select a technique by its name in --help
 *                         (sorted, unsorted, wboit, abuffer, ...)
 *   set alpha A           alpha in (0, 1]
 *   set color MODE        normal, tint, height or file
 *   set key KEY           farthest, mean or centroid
 *   set bits N            16, 24 or 32 key bits (the model is rebuilt)
 *   camera "LINE"         the view of a --camera line (camera.h)
 *   orbit DEG FRAMES      turn the view DEG degrees about its target over
 *                         FRAMES frames, rendering each
 *   wait MS               keep rendering for MS milliseconds
 *   wait file PATH        keep rendering until PATH exists (another
 *                         program's signal: a test that drives the mouse
 *                         with xdotool); after DS_SCRIPT_WAIT_FILE_MS a
 *                         warning, and the run's exit status is 1
 *   report                print the overlay's numbers on stdout, one line:
 *                         sort, technique, alpha, the window's size, the
 *                         frame count, the mean GPU frame, draw and stage
 *                         times over the frames since the last change, and
 *                         how the window is shown (GLX, or EGL copied in)
 *   quit                  close the window (the exit status is 0)
 *   stay                  end the script and leave the window to the user
 *
 * The viewer runs the steps in order between frames and feeds keys and
 * mouse moves through the same functions as the GLFW callbacks. A script
 * that ends without "quit" or "stay" closes the window after its last
 * step, with a warning (so that a forgotten quit cannot hang a test run).
 * A sort, technique or setting the viewer cannot apply (a CUDA sort on
 * the CPU path) is a warning, and the run's exit status is 1.
 *
 * Key codes are GLFW's (GLFW_KEY_*, GLFW_MOD_*); this module needs only the
 * GLFW header, not the library, and the names of the sort and render
 * layers, so that it is testable without a display.
 */
#ifndef DS_VIEWER_SCRIPT_H
#define DS_VIEWER_SCRIPT_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest line, and longest screenshot path, a script may hold. */
#define DS_SCRIPT_MAX_LINE 1024
/* How long "wait file" waits for its file. */
#define DS_SCRIPT_WAIT_FILE_MS 60000.0

typedef enum ds_script_op {
    DS_SCRIPT_FRAMES = 0, /* count frames */
    DS_SCRIPT_KEY,        /* key, mods */
    DS_SCRIPT_DRAG,       /* button, dx, dy */
    DS_SCRIPT_SCROLL,     /* dy */
    DS_SCRIPT_SCREENSHOT, /* path */
    DS_SCRIPT_DROP,       /* path */
    DS_SCRIPT_QUIT,
    DS_SCRIPT_SORT,       /* path: the name ("gl" or a registry name) */
    DS_SCRIPT_TECHNIQUE,  /* count: the ds_technique */
    DS_SCRIPT_SET,        /* setting, dy (alpha) or count (the value) */
    DS_SCRIPT_CAMERA,     /* path: the --camera line */
    DS_SCRIPT_ORBIT,      /* dx: degrees, count: frames */
    DS_SCRIPT_WAIT,       /* dy: milliseconds */
    DS_SCRIPT_STAY,
    DS_SCRIPT_REPORT,
    DS_SCRIPT_WAIT_FILE   /* path: the file whose existence ends the wait */
} ds_script_op;

/* What "set" changes. */
typedef enum ds_script_setting {
    DS_SCRIPT_SET_ALPHA = 0, /* dy */
    DS_SCRIPT_SET_COLOR,     /* count: a ds_color_mode */
    DS_SCRIPT_SET_KEY,       /* count: a ds_triangle_key */
    DS_SCRIPT_SET_BITS       /* count: 16, 24 or 32 */
} ds_script_setting;

typedef struct ds_script_step {
    ds_script_op op;
    int line;     /* 1-based line in the script, for messages */
    int count;    /* frames */
    int key;      /* GLFW_KEY_* */
    int mods;     /* GLFW_MOD_* bits */
    int button;   /* GLFW_MOUSE_BUTTON_* */
    ds_script_setting setting;
    float dx, dy; /* drag pixels, or scroll notches in dy */
    char *path;   /* screenshot, drop, sort, camera or wait file; owned by
                     the script */
} ds_script_step;

typedef struct ds_script {
    ds_script_step *steps; /* owned */
    size_t count;
} ds_script;

/* Parses a script held in memory; `name` is used in error messages
 * ("run.txt: line 3: unknown key \"F13\""). *dest is empty on failure.
 * Errors: DS_ERR_PARSE, DS_ERR_OUT_OF_MEMORY. */
ds_status ds_script_parse(const char *text, size_t size, const char *name,
                          ds_script *dest);

/* Reads and parses a script file. Errors: DS_ERR_IO and as above. */
ds_status ds_script_load(const char *path, ds_script *dest);

/* Frees the steps and zeroes the struct; a zeroed script is valid. */
void ds_script_free(ds_script *script);

/* Parses a key name as "key NAME" takes it into a GLFW key code and
 * modifier bits. Returns 0 on success, -1 for an unknown name. */
int ds_script_key_from_name(const char *name, int *key, int *mods);

#ifdef __cplusplus
}
#endif
#endif
