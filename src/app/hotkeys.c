/* SPDX-License-Identifier: MIT */
/* hotkeys.c — the viewer's hotkey table and help text (see hotkeys.h). The
 * sort hotkeys come from the sort registry, with the GL stages' key
 * (cli.h) before them, and X's techniques from the technique registry;
 * the others are listed here, in the order of
 * handle_key() in viewer_input.c, which acts on them. */
#include "hotkeys.h"

#include "cli.h"
#include "render_types.h"

#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

/* Every hotkey besides the sorts': its name as the help shows it, and what
 * it does. "" as a name continues the line above. */
static const char *const other_keys[][2] = {
    {"Tab", "next sort  (Shift+Tab: previous)"},
    {"S", "shuffle on/off"},
    {"P", "triangles / points"},
    {"K", "triangle key: farthest, mean, centroid"},
    {"U", "sorted / unsorted draw"},
    {"X", NULL}, /* the technique registry's cycle (technique_lines) */
    {"D", "error vs exact: numbers, heatmap, off"},
    {"\\", "split view: drawn | exact (drag divider)"},
    {"T", "screen tiles on/off (same image)"},
    {"+ / -", "alpha up / down  (also = and keypad)"},
    {"B", "background light / dark"},
    {"M", "colour: normal, tint, height, file"},
    {"G", "opacity: constant / view (glass)"},
    {"[ / ]", "point size down / up"},
    {"A", "anti-aliasing: 1, 2, 4, 8 samples"},
    {"Y", "up axis: +y +z +x -y -z -x (rebuilds)"},
    {"F1 F2 F3", "view from +Z / +X / +Y (top); again:"},
    {"", "from -Z / -X / -Y (a file has no front)"},
    {"L", "print the view as --camera (and write"},
    {"", "it to --camera-file)"},
    {"R", "reload the model from disk"},
    {"C / F12", "screenshot (PNG, path printed)"},
    {"Shift+C", "screenshot of the model alone"},
    {"O", "overlay: full, compact, off"},
    {"H", "help panel on/off"},
    {"F", "frame the model to fit"},
    {"F11", "fullscreen"},
    {"V", "vsync on/off"},
    {"Esc", "quit"},
    {"Mouse", "left-drag orbit, right/middle-drag pan,"},
    {"", "wheel zoom"},
    {"Drop", "a PLY or OBJ file on the window opens it"},
};

int ds_hotkey_glfw_key(char hotkey)
{
    if (hotkey == '0')
        return GLFW_KEY_0;
    if (hotkey >= '1' && hotkey <= '9')
        return GLFW_KEY_1 + (hotkey - '1');
    return GLFW_KEY_UNKNOWN;
}

int ds_viewer_key_selects_gl(int glfw_key)
{
    return glfw_key != GLFW_KEY_UNKNOWN && glfw_key == ds_hotkey_glfw_key(DS_SORT_GL_HOTKEY);
}

ds_sort_algo ds_viewer_sort_for_key(int glfw_key)
{
    /* The GL stages' key wins should the registry ever give it to a sort
     * too (test_cli refuses that). */
    if (glfw_key == GLFW_KEY_UNKNOWN || ds_viewer_key_selects_gl(glfw_key))
        return DS_SORT_ALGO_COUNT;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_hotkey_glfw_key(ds_sort_algo_hotkey((ds_sort_algo)a)) == glfw_key)
            return (ds_sort_algo)a;
    return DS_SORT_ALGO_COUNT;
}

/* Appends one line if there is room; returns the new count. */
static int add_line(char (*dest)[DS_HOTKEY_LINE_MAX], int count, int capacity, int key_column,
                    const char *key, const char *what)
{
    if (count >= capacity)
        return count;
    int used = snprintf(dest[count], DS_HOTKEY_LINE_MAX, "%-*s ", key_column, key);
    if (used > 0 && used < DS_HOTKEY_LINE_MAX)
        snprintf(dest[count] + used, (size_t)(DS_HOTKEY_LINE_MAX - used), "%s", what);
    return count + 1;
}

/* The sort keys in the help's order: entry 0 the GL stages', then the
 * registry's (0 for a sort without one); `name` gets the entry's name. */
static char sort_key(int entry, const char **name)
{
    if (entry == 0) {
        *name = DS_SORT_GL_NAME;
        return DS_SORT_GL_HOTKEY;
    }
    *name = ds_sort_algo_name((ds_sort_algo)(entry - 1));
    if (!ds_sort_algo_built((ds_sort_algo)(entry - 1)))
        return 0; /* not in this build (no CUDA): not in the help */
    return ds_sort_algo_hotkey((ds_sort_algo)(entry - 1));
}
#define SORT_KEY_ENTRIES (1 + DS_SORT_ALGO_COUNT)

/* The name of the sort keys' line: "0-8" when the hotkeys run in one
 * ascending row of digits, else "digits". */
static void sort_keys_name(char *dest, size_t capacity)
{
    char first = 0, last = 0;
    int row = 1;
    for (int e = 0; e < SORT_KEY_ENTRIES; e++) {
        const char *name;
        char hotkey = sort_key(e, &name);
        if (!hotkey)
            continue;
        if (!first)
            first = hotkey;
        else if (hotkey != last + 1)
            row = 0;
        last = hotkey;
    }
    if (first && row && first != last)
        snprintf(dest, capacity, "%c-%c", first, last);
    else if (first && row)
        snprintf(dest, capacity, "%c", first);
    else
        snprintf(dest, capacity, "digits");
}

/* "transparency: sorted, UNSORTED, ...": the technique registry's X cycle
 * (technique_registry.h) by label, wrapped to `room` characters after
 * `key`. Returns the new count. */
static int technique_lines(char (*dest)[DS_HOTKEY_LINE_MAX], int count, int capacity,
                           int key_column, size_t room, const char *key)
{
    char text[DS_HOTKEY_LINE_MAX] = "transparency:";
    int places = 0;
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++)
        if (ds_technique_cycle((ds_technique)t) > places)
            places = ds_technique_cycle((ds_technique)t);
    for (int place = 1; place <= places; place++)
        for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
            if (ds_technique_cycle((ds_technique)t) != place)
                continue;
            const char *label = ds_technique_label((ds_technique)t);
            size_t used = strlen(text);
            int last = place == places;
            /* The label and its comma must fit, else the line breaks. */
            if (used && used + 2 + strlen(label) > room) {
                count = add_line(dest, count, capacity, key_column, key, text);
                key = "";
                text[0] = 0;
                used = 0;
            }
            snprintf(text + used, sizeof text - used, "%s%s%s", used ? " " : "", label,
                     last ? "" : ",");
        }
    return add_line(dest, count, capacity, key_column, key, text);
}

int ds_hotkey_help(int key_column, int width, char (*dest)[DS_HOTKEY_LINE_MAX], int capacity)
{
    int count = 0;
    char name[16], text[DS_HOTKEY_LINE_MAX] = "sort:";
    size_t room = (size_t)(width > key_column + 1 ? width - key_column - 1 : 1);
    if (room >= sizeof text)
        room = sizeof text - 1;
    sort_keys_name(name, sizeof name);
    /* "sort: 0 gl  1 cub  2 radix ...", wrapped under the first entry. */
    const char *key = name;
    for (int e = 0; e < SORT_KEY_ENTRIES; e++) {
        const char *sort_name;
        char hotkey = sort_key(e, &sort_name), entry[64];
        if (!hotkey)
            continue;
        snprintf(entry, sizeof entry, "%c %s", hotkey, sort_name);
        size_t used = strlen(text);
        if (used > 5 && used + 2 + strlen(entry) > room) {
            count = add_line(dest, count, capacity, key_column, key, text);
            key = "";
            snprintf(text, sizeof text, "     %s", entry);
            continue;
        }
        snprintf(text + used, sizeof text - used, "%s%s", used > 5 ? "  " : " ", entry);
    }
    count = add_line(dest, count, capacity, key_column, key, text);
    for (size_t i = 0; i < sizeof other_keys / sizeof other_keys[0]; i++)
        count = other_keys[i][1]
                    ? add_line(dest, count, capacity, key_column, other_keys[i][0],
                               other_keys[i][1])
                    : technique_lines(dest, count, capacity, key_column, room, other_keys[i][0]);
    return count;
}
