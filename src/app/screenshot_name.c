/* SPDX-License-Identifier: MIT */
/* screenshot_name.c — a screenshot's file name from its template (cli.h:
 * ds_screenshot_name()), shared by the option check, the headless run and
 * the viewer's keys and script. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Copies `text` into dest at *at, each character outside [A-Za-z0-9._+-]
 * as '_', so that a key's value makes one plain file-name word. */
static void append_word(char *dest, size_t capacity, size_t *at, const char *text)
{
    for (; text && *text && *at + 1 < capacity; text++) {
        char c = *text;
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '+' || c == '-';
        dest[(*at)++] = plain ? c : '_';
    }
}

int ds_screenshot_name(const char *pattern, const ds_screenshot_keys *keys, char *dest,
                       size_t capacity, char *bad_key, size_t bad_capacity)
{
    static const char *const names[] = {"model", "technique", "sort", "frame", "date"};
    size_t at = 0;
    for (const char *p = pattern; *p; p++) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (!close) {
            if (dest && at + 1 < capacity)
                dest[at++] = *p;
            continue;
        }
        size_t length = (size_t)(close - p - 1);
        int which = -1;
        for (int k = 0; k < 5; k++)
            if (strlen(names[k]) == length && strncmp(p + 1, names[k], length) == 0)
                which = k;
        if (which < 0) {
            if (bad_key && bad_capacity)
                snprintf(bad_key, bad_capacity, "%.*s", (int)length, p + 1);
            return 0;
        }
        if (dest && keys) {
            char frame[16];
            snprintf(frame, sizeof frame, "%d", keys->frame);
            const char *values[] = {keys->model, keys->technique, keys->sort, frame, keys->date};
            append_word(dest, capacity, &at, values[which]);
        }
        p = close;
    }
    if (dest && capacity)
        dest[at < capacity ? at : capacity - 1] = '\0';
    return 1;
}

void ds_screenshot_model(const char *model_path, const char *scene, char *dest,
                         size_t capacity)
{
    if (!capacity)
        return;
    if (!model_path) {
        snprintf(dest, capacity, "scene:%s", scene ? scene : "");
        return;
    }
    const char *slash = strrchr(model_path, '/');
    const char *base = slash ? slash + 1 : model_path;
    const char *dot = strrchr(base, '.');
    size_t length = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    snprintf(dest, capacity, "%.*s", (int)(length < capacity ? length : capacity - 1), base);
}
