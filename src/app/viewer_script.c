/* SPDX-License-Identifier: MIT */
/* viewer_script.c — parses --script files into steps (see viewer_script.h).
 * Never asserts on input: every malformed line is a DS_ERR_PARSE naming the
 * line. */
#include "viewer_script.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <GLFW/glfw3.h>

#include "camera.h"
#include "render_types.h"
#include "sort.h"
#include "cli.h" /* DS_SORT_GL_NAME */

/* Upper bounds that keep a typo from hanging a test run for hours. */
#define MAX_FRAMES_PER_STEP 1000000
#define MAX_DRAG_PIXELS 100000.0f
#define MAX_SCROLL_NOTCHES 1000.0f
#define MAX_ORBIT_DEGREES 36000.0f
#define MAX_WAIT_MS 600000.0f

typedef struct named_key {
    const char *name;
    int key;
    int mods;
} named_key;

static const named_key named_keys[] = {
    {"TAB", GLFW_KEY_TAB, 0},
    {"ESC", GLFW_KEY_ESCAPE, 0},
    {"ESCAPE", GLFW_KEY_ESCAPE, 0},
    {"SPACE", GLFW_KEY_SPACE, 0},
    {"ENTER", GLFW_KEY_ENTER, 0},
    {"+", GLFW_KEY_EQUAL, GLFW_MOD_SHIFT},
    {"PLUS", GLFW_KEY_EQUAL, GLFW_MOD_SHIFT},
    {"-", GLFW_KEY_MINUS, 0},
    {"MINUS", GLFW_KEY_MINUS, 0},
    {"=", GLFW_KEY_EQUAL, 0},
    {"EQUAL", GLFW_KEY_EQUAL, 0},
    {"[", GLFW_KEY_LEFT_BRACKET, 0},
    {"LEFT_BRACKET", GLFW_KEY_LEFT_BRACKET, 0},
    {"]", GLFW_KEY_RIGHT_BRACKET, 0},
    {"RIGHT_BRACKET", GLFW_KEY_RIGHT_BRACKET, 0},
    {"\\", GLFW_KEY_BACKSLASH, 0},
    {"BACKSLASH", GLFW_KEY_BACKSLASH, 0},
    {"KP_ADD", GLFW_KEY_KP_ADD, 0},
    {"KP_SUBTRACT", GLFW_KEY_KP_SUBTRACT, 0},
};

int ds_script_key_from_name(const char *name, int *key, int *mods)
{
    static const struct { const char *prefix; int mod; } prefixes[] = {
        {"shift+", GLFW_MOD_SHIFT},
        {"ctrl+", GLFW_MOD_CONTROL},
        {"alt+", GLFW_MOD_ALT},
    };
    int mod_bits = 0;
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i].prefix);
            /* "+" alone is a key, so a prefix needs something after it. */
            if (strncasecmp(name, prefixes[i].prefix, n) == 0 && name[n]) {
                mod_bits |= prefixes[i].mod;
                name += n;
                again = 1;
            }
        }
    }

    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++) {
        if (strcasecmp(name, named_keys[i].name) == 0) {
            *key = named_keys[i].key;
            *mods = mod_bits | named_keys[i].mods;
            return 0;
        }
    }
    if (name[0] && !name[1]) {
        /* GLFW's printable key codes are the US-layout ASCII characters. */
        int c = toupper((unsigned char)name[0]);
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            *key = c;
            *mods = mod_bits;
            return 0;
        }
    }
    if (toupper((unsigned char)name[0]) == 'F' && isdigit((unsigned char)name[1])) {
        char *end;
        long f = strtol(name + 1, &end, 10);
        if (*end == '\0' && f >= 1 && f <= 12) {
            *key = GLFW_KEY_F1 + (int)f - 1;
            *mods = mod_bits;
            return 0;
        }
    }
    return -1;
}

void ds_script_free(ds_script *script)
{
    if (!script)
        return;
    for (size_t i = 0; i < script->count; i++)
        free(script->steps[i].path);
    free(script->steps);
    memset(script, 0, sizeof *script);
}

/* Splits `line` in place into at most `capacity` blank-separated words;
 * returns the word count, or capacity + 1 if there were more. */
static int split_words(char *line, char **words, int capacity)
{
    int count = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            return count;
        if (count == capacity)
            return capacity + 1;
        words[count++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

static int parse_float(const char *text, float limit, float *dest)
{
    char *end;
    errno = 0;
    float v = strtof(text, &end);
    if (errno || end == text || *end || !isfinite(v) || fabsf(v) > limit)
        return -1;
    *dest = v;
    return 0;
}

/* drag left|right|middle DX DY: the button and the distances in pixels. */
static ds_status parse_drag(char **words, int args, const char *name, int line,
                            ds_script_step *step)
{
    if (args != 3)
        return ds_fail(DS_ERR_PARSE, "%s: line %d: \"drag\" takes left|right|middle DX DY",
                       name, line);
    if (strcasecmp(words[1], "left") == 0)
        step->button = GLFW_MOUSE_BUTTON_LEFT;
    else if (strcasecmp(words[1], "right") == 0)
        step->button = GLFW_MOUSE_BUTTON_RIGHT;
    else if (strcasecmp(words[1], "middle") == 0)
        step->button = GLFW_MOUSE_BUTTON_MIDDLE;
    else
        return ds_fail(DS_ERR_PARSE, "%s: line %d: unknown mouse button \"%s\"",
                       name, line, words[1]);
    if (parse_float(words[2], MAX_DRAG_PIXELS, &step->dx) != 0 ||
        parse_float(words[3], MAX_DRAG_PIXELS, &step->dy) != 0)
        return ds_fail(DS_ERR_PARSE, "%s: line %d: drag distances must be numbers within %g pixels",
                       name, line, (double)MAX_DRAG_PIXELS);
    step->op = DS_SCRIPT_DRAG;
    return DS_OK;
}

/* technique NAME: one of the transparency techniques, by its --technique name. */
static ds_status parse_technique(char **words, int args, const char *name, int line,
                                 ds_script_step *step)
{
    ds_technique technique = args == 1 ? ds_technique_from_name(words[1]) : DS_TECHNIQUE_COUNT;
    if (technique == DS_TECHNIQUE_COUNT) {
        char known[160] = "";
        for (int t = 0; t < DS_TECHNIQUE_COUNT; t++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                     t ? ", " : "", ds_technique_name((ds_technique)t));
        return ds_fail(DS_ERR_PARSE, "%s: line %d: \"technique\" takes one of %s", name,
                       line, known);
    }
    step->op = DS_SCRIPT_TECHNIQUE;
    step->count = (int)technique;
    return DS_OK;
}

/* set alpha|color|key|bits VALUE: one setting (step->setting) and its value. */
static ds_status parse_set(char **words, int args, const char *name, int line,
                           ds_script_step *step)
{
    static const char *const keys[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
    step->op = DS_SCRIPT_SET;
    if (args != 2)
        return ds_fail(DS_ERR_PARSE, "%s: line %d: \"set\" takes alpha|color|key|bits and "
                       "a value", name, line);
    if (strcasecmp(words[1], "alpha") == 0) {
        step->setting = DS_SCRIPT_SET_ALPHA;
        if (parse_float(words[2], 1.0f, &step->dy) != 0 || step->dy <= 0.0f)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: alpha \"%s\" is not in (0, 1]",
                           name, line, words[2]);
        return DS_OK;
    }
    if (strcasecmp(words[1], "color") == 0) {
        step->setting = DS_SCRIPT_SET_COLOR;
        step->count = (int)ds_color_mode_from_name(words[2]);
        if (step->count == DS_COLOR_MODE_COUNT || step->count == DS_COLOR_AUTO)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: colour mode \"%s\": normal, tint, "
                           "height or file", name, line, words[2]);
        return DS_OK;
    }
    if (strcasecmp(words[1], "key") == 0) {
        step->setting = DS_SCRIPT_SET_KEY;
        for (int k = 0; k < DS_TRIANGLE_KEY_COUNT; k++)
            if (strcasecmp(words[2], keys[k]) == 0) {
                step->count = k;
                return DS_OK;
            }
        return ds_fail(DS_ERR_PARSE, "%s: line %d: key \"%s\": farthest, mean or centroid",
                       name, line, words[2]);
    }
    if (strcasecmp(words[1], "bits") == 0) {
        step->setting = DS_SCRIPT_SET_BITS;
        step->count = atoi(words[2]);
        if ((step->count != 16 && step->count != 24 && step->count != 32) ||
            strspn(words[2], "0123456789") != strlen(words[2]))
            return ds_fail(DS_ERR_PARSE, "%s: line %d: bits \"%s\": 16, 24 or 32", name,
                           line, words[2]);
        return DS_OK;
    }
    return ds_fail(DS_ERR_PARSE, "%s: line %d: \"set %s\": alpha, color, key or bits", name,
                   line, words[1]);
}

/* Parses one line's words into *step; returns DS_OK or logs the error. */
static ds_status parse_step(char **words, int word_count, const char *name,
                            int line, ds_script_step *step)
{
    const char *op = words[0];
    int args = word_count - 1;
    memset(step, 0, sizeof *step);
    step->line = line;

    if (strcasecmp(op, "frames") == 0) {
        char *end;
        long n;
        if (args != 1)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"frames\" takes one count", name, line);
        errno = 0;
        n = strtol(words[1], &end, 10);
        if (errno || *end || end == words[1] || n < 1 || n > MAX_FRAMES_PER_STEP)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: frame count \"%s\" is not in 1..%d",
                           name, line, words[1], MAX_FRAMES_PER_STEP);
        step->op = DS_SCRIPT_FRAMES;
        step->count = (int)n;
        return DS_OK;
    }
    if (strcasecmp(op, "key") == 0) {
        if (args != 1)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"key\" takes one key name", name, line);
        if (ds_script_key_from_name(words[1], &step->key, &step->mods) != 0)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: unknown key \"%s\"", name, line, words[1]);
        step->op = DS_SCRIPT_KEY;
        return DS_OK;
    }
    if (strcasecmp(op, "drag") == 0)
        return parse_drag(words, args, name, line, step);
    if (strcasecmp(op, "scroll") == 0) {
        if (args != 1 || parse_float(words[1], MAX_SCROLL_NOTCHES, &step->dy) != 0)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"scroll\" takes one number of notches",
                           name, line);
        step->op = DS_SCRIPT_SCROLL;
        return DS_OK;
    }
    if (strcasecmp(op, "screenshot") == 0 || strcasecmp(op, "drop") == 0) {
        int drop = strcasecmp(op, "drop") == 0;
        if (args != 1)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"%s\" takes one path (no blanks)", name,
                           line, drop ? "drop" : "screenshot");
        step->path = strdup(words[1]);
        if (!step->path)
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        step->op = drop ? DS_SCRIPT_DROP : DS_SCRIPT_SCREENSHOT;
        return DS_OK;
    }
    if (strcasecmp(op, "report") == 0) {
        if (args != 0)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"report\" takes nothing", name, line);
        step->op = DS_SCRIPT_REPORT;
        return DS_OK;
    }
    if (strcasecmp(op, "quit") == 0 || strcasecmp(op, "stay") == 0) {
        int stay = strcasecmp(op, "stay") == 0;
        if (args != 0)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"%s\" takes nothing", name, line,
                           stay ? "stay" : "quit");
        step->op = stay ? DS_SCRIPT_STAY : DS_SCRIPT_QUIT;
        return DS_OK;
    }
    if (strcasecmp(op, "sort") == 0) {
        if (args != 1 || (strcmp(words[1], DS_SORT_GL_NAME) != 0 &&
                          ds_sort_algo_from_name(words[1]) == DS_SORT_ALGO_COUNT))
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"sort\" takes one sort name (%s, or "
                           "one of --help's sorts), not \"%s\"", name, line, DS_SORT_GL_NAME,
                           args >= 1 ? words[1] : "");
        if (!(step->path = strdup(words[1])))
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        step->op = DS_SCRIPT_SORT;
        return DS_OK;
    }
    if (strcasecmp(op, "technique") == 0)
        return parse_technique(words, args, name, line, step);
    if (strcasecmp(op, "set") == 0)
        return parse_set(words, args, name, line, step);
    if (strcasecmp(op, "orbit") == 0) {
        char *end;
        long n = 0;
        errno = 0;
        if (args == 2)
            n = strtol(words[2], &end, 10);
        if (args != 2 || parse_float(words[1], MAX_ORBIT_DEGREES, &step->dx) != 0 || errno ||
            *end || n < 1 || n > MAX_FRAMES_PER_STEP)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"orbit\" takes DEGREES (within %g) and "
                           "FRAMES (1..%d)", name, line, (double)MAX_ORBIT_DEGREES,
                           MAX_FRAMES_PER_STEP);
        step->op = DS_SCRIPT_ORBIT;
        step->count = (int)n;
        return DS_OK;
    }
    if (strcasecmp(op, "wait") == 0 && args == 2 && strcasecmp(words[1], "file") == 0) {
        if (!(step->path = strdup(words[2])))
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        step->op = DS_SCRIPT_WAIT_FILE;
        return DS_OK;
    }
    if (strcasecmp(op, "wait") == 0) {
        if (args != 1 || parse_float(words[1], MAX_WAIT_MS, &step->dy) != 0 || step->dy < 0.0f)
            return ds_fail(DS_ERR_PARSE, "%s: line %d: \"wait\" takes milliseconds, 0 to %g, "
                           "or file PATH", name, line, (double)MAX_WAIT_MS);
        step->op = DS_SCRIPT_WAIT;
        return DS_OK;
    }
    return ds_fail(DS_ERR_PARSE,
                   "%s: line %d: unknown command \"%s\" (frames, key, drag, scroll, screenshot, "
                   "drop, sort, technique, set, camera, orbit, wait, report, quit, stay)",
                   name, line, op);
}

/* camera "LINE": the text after the command, without its quotes, checked
 * as --camera is (ds_camera_parse()) and kept for the run. */
static ds_status parse_camera(const char *rest, const char *name, int line,
                              ds_script_step *step)
{
    char text[DS_SCRIPT_MAX_LINE + 1], what[64];
    memset(step, 0, sizeof *step);
    step->line = line;
    rest += strspn(rest, " \t");
    snprintf(text, sizeof text, "%s", rest);
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
        text[--n] = '\0';
    char *start = text;
    if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
        text[n - 1] = '\0';
        start++;
    } else if (strchr(text, '"')) {
        return ds_fail(DS_ERR_PARSE, "%s: line %d: \"camera\" takes one quoted line", name,
                       line);
    }
    if (!*start)
        return ds_fail(DS_ERR_PARSE, "%s: line %d: \"camera\" takes \"eye=X,Y,Z target=X,Y,Z "
                       "[fov=DEG]\"", name, line);
    ds_camera check = {0};
    check.fov_y = 0.785398f;
    snprintf(what, sizeof what, "%s: line %d: camera", name, line);
    if (ds_camera_parse(start, what, &check) != DS_OK)
        return DS_ERR_PARSE; /* the one line is out */
    if (!(step->path = strdup(start)))
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    step->op = DS_SCRIPT_CAMERA;
    return DS_OK;
}

ds_status ds_script_parse(const char *text, size_t size, const char *name,
                          ds_script *dest)
{
    ds_status status = DS_OK;
    ds_script script = {0};
    size_t capacity = 0;
    size_t pos = 0;
    int line = 0;

    memset(dest, 0, sizeof *dest);
    while (pos < size) {
        char buffer[DS_SCRIPT_MAX_LINE + 1];
        char *words[4];
        size_t end = pos;
        int word_count;

        line++;
        while (end < size && text[end] != '\n')
            end++;
        if (end - pos > DS_SCRIPT_MAX_LINE) {
            status = ds_fail(DS_ERR_PARSE, "%s: line %d: longer than %d characters",
                             name, line, DS_SCRIPT_MAX_LINE);
            goto fail;
        }
        if (memchr(text + pos, '\0', end - pos)) {
            status = ds_fail(DS_ERR_PARSE, "%s: line %d: contains a NUL byte", name, line);
            goto fail;
        }
        memcpy(buffer, text + pos, end - pos);
        buffer[end - pos] = '\0';
        pos = end + 1;
        {
            const char *first = buffer;
            while (*first == ' ' || *first == '\t')
                first++;
            if (*first == '#')
                continue;
        }
        if (script.count == capacity) {
            size_t grown = capacity ? capacity * 2 : 16;
            ds_script_step *steps = realloc(script.steps, grown * sizeof *steps);
            if (!steps) {
                status = ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
                goto fail;
            }
            script.steps = steps;
            capacity = grown;
        }
        /* camera "LINE": the rest of the line, its blanks kept. */
        {
            const char *first = buffer + strspn(buffer, " \t");
            if (strncasecmp(first, "camera", 6) == 0 && (first[6] == ' ' || first[6] == '\t' ||
                                                       first[6] == '\0' || first[6] == '\r')) {
                status = parse_camera(first + 6, name, line, &script.steps[script.count]);
                if (status != DS_OK)
                    goto fail;
                script.count++;
                continue;
            }
        }
        word_count = split_words(buffer, words, 4);
        if (word_count == 0)
            continue;
        if (word_count > 4) {
            status = ds_fail(DS_ERR_PARSE, "%s: line %d: too many words", name, line);
            goto fail;
        }
        status = parse_step(words, word_count, name, line, &script.steps[script.count]);
        if (status != DS_OK)
            goto fail;
        script.count++;
    }
    *dest = script;
    return DS_OK;

fail:
    ds_script_free(&script);
    return status;
}

ds_status ds_script_load(const char *path, ds_script *dest)
{
    ds_status status;
    char *text = NULL;
    size_t size = 0, capacity = 0;
    FILE *file;

    memset(dest, 0, sizeof *dest);
    file = fopen(path, "rb");
    if (!file)
        return ds_fail(DS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    for (;;) {
        if (size == capacity) {
            /* Scripts are a few lines; a megabyte is a wrong file. */
            if (capacity >= (1u << 20)) {
                fclose(file);
                free(text);
                return ds_fail(DS_ERR_TOO_LARGE, "%s: a script is limited to 1 MiB", path);
            }
            capacity = capacity ? capacity * 2 : 4096;
            char *grown = realloc(text, capacity);
            if (!grown) {
                fclose(file);
                free(text);
                return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            text = grown;
        }
        size_t n = fread(text + size, 1, capacity - size, file);
        size += n;
        if (n == 0)
            break;
    }
    if (ferror(file)) {
        fclose(file);
        free(text);
        return ds_fail(DS_ERR_IO, "%s: read error", path);
    }
    fclose(file);
    status = ds_script_parse(text, size, path, dest);
    free(text);
    return status;
}
