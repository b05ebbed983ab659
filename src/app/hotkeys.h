/* SPDX-License-Identifier: MIT */
/* hotkeys.h — the viewer's hotkeys in one place: which key selects which
 * sort (from the sort registry, sort_registry.h, and the GL stages' key
 * of cli.h) and the help text that
 * lists every hotkey, shown in the viewer's help panel and in --help.
 *
 * Pure functions on GLFW key codes (the header only, not the library), so
 * that the command line and the tests can use them without a display. */
#ifndef DS_HOTKEYS_H
#define DS_HOTKEYS_H

#include "sort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest help line, terminator included, and most help lines. */
#define DS_HOTKEY_LINE_MAX 128
#define DS_HOTKEY_LINES_MAX 48

/* The GLFW key code of a registry hotkey character ('1'..'9' are
 * GLFW_KEY_1.., '0' is GLFW_KEY_0), or GLFW_KEY_UNKNOWN for any other. */
int ds_hotkey_glfw_key(char hotkey);

/* The sort that GLFW key `glfw_key` selects, or DS_SORT_ALGO_COUNT when the
 * key selects none. */
ds_sort_algo ds_viewer_sort_for_key(int glfw_key);

/* 1 if GLFW key `glfw_key` selects the GL stages (cli.h,
 * DS_SORT_GL_HOTKEY), else 0. */
int ds_viewer_key_selects_gl(int glfw_key);

/* Writes the hotkey help into dest, one line per row: the key's name padded
 * to key_column characters, then what it does; the sorts' line is wrapped
 * to at most `width` characters. Returns the number of lines (at most
 * capacity; lines beyond it are left out). */
int ds_hotkey_help(int key_column, int width, char (*dest)[DS_HOTKEY_LINE_MAX], int capacity);

#ifdef __cplusplus
}
#endif
#endif
