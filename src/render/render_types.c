/* render_types.c — the names of the render modes (render_types.h). */
#include "render_types.h"

#include <string.h>

static const char *const color_names[DS_COLOR_MODE_COUNT] = {
    [DS_COLOR_AUTO] = "auto",     [DS_COLOR_NORMAL] = "normal", [DS_COLOR_TINT] = "tint",
    [DS_COLOR_HEIGHT] = "height", [DS_COLOR_FILE] = "file",
};

static const char *const opacity_names[DS_OPACITY_MODE_COUNT] = {
    [DS_OPACITY_CONSTANT] = "constant",
    [DS_OPACITY_VIEW] = "view",
};

static const char *const technique_names[DS_TECHNIQUE_COUNT] = {
    [DS_TECHNIQUE_SORTED] = "sorted", [DS_TECHNIQUE_UNSORTED] = "unsorted",
    [DS_TECHNIQUE_WBOIT] = "wboit",   [DS_TECHNIQUE_PEEL] = "peel",
    [DS_TECHNIQUE_ABUFFER] = "abuffer",
};

static const char *const stages_names[DS_STAGES_MODE_COUNT] = {
    [DS_STAGES_AUTO] = "auto", [DS_STAGES_SORTER] = "sorter", [DS_STAGES_GL] = "gl",
};

const char *ds_stages_mode_name(ds_stages_mode mode)
{
    return (unsigned)mode < DS_STAGES_MODE_COUNT ? stages_names[mode] : "unknown";
}

const char *ds_color_mode_name(ds_color_mode mode)
{
    return (unsigned)mode < DS_COLOR_MODE_COUNT ? color_names[mode] : "unknown";
}

ds_color_mode ds_color_mode_from_name(const char *name)
{
    for (int m = 0; name && m < DS_COLOR_MODE_COUNT; m++)
        if (!strcmp(name, color_names[m]))
            return (ds_color_mode)m;
    return DS_COLOR_MODE_COUNT;
}

const char *ds_opacity_mode_name(ds_opacity_mode mode)
{
    return (unsigned)mode < DS_OPACITY_MODE_COUNT ? opacity_names[mode] : "unknown";
}

ds_opacity_mode ds_opacity_mode_from_name(const char *name)
{
    for (int m = 0; name && m < DS_OPACITY_MODE_COUNT; m++)
        if (!strcmp(name, opacity_names[m]))
            return (ds_opacity_mode)m;
    return DS_OPACITY_MODE_COUNT;
}

const char *ds_technique_name(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? technique_names[technique] : "unknown";
}

ds_technique ds_technique_from_name(const char *name)
{
    for (int t = 0; name && t < DS_TECHNIQUE_COUNT; t++)
        if (!strcmp(name, technique_names[t]))
            return (ds_technique)t;
    return DS_TECHNIQUE_COUNT;
}
