/* SPDX-License-Identifier: MIT */
/* render_types.c — the names of the render modes (render_types.h); the
 * techniques' and raster paths' from their registries. */
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

/* The technique registry's columns, by enum value. */
static const struct {
    const char *name, *label, *summary;
    int cycle;
} techniques[DS_TECHNIQUE_COUNT] = {
#define DS_TECHNIQUE_ROW(ID, name, file, label, cycle, summary) \
    [DS_TECHNIQUE_##ID] = {#name, label, summary, cycle},
    DS_TECHNIQUE_REGISTRY(DS_TECHNIQUE_ROW)
#undef DS_TECHNIQUE_ROW
};

static const char *const raster_names[DS_RASTER_PATH_COUNT] = {
#define DS_RASTER_ROW(ID, name, file, summary) [DS_RASTER_##ID] = #name,
    DS_RASTER_REGISTRY(DS_RASTER_ROW)
#undef DS_RASTER_ROW
};

const char *ds_technique_name(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? techniques[technique].name : "unknown";
}

ds_technique ds_technique_from_name(const char *name)
{
    for (int t = 0; name && t < DS_TECHNIQUE_COUNT; t++)
        if (!strcmp(name, techniques[t].name))
            return (ds_technique)t;
    return DS_TECHNIQUE_COUNT;
}

const char *ds_technique_label(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? techniques[technique].label : "unknown";
}

const char *ds_technique_summary(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? techniques[technique].summary : "unknown";
}

int ds_technique_cycle(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? techniques[technique].cycle : 0;
}

const char *ds_raster_path_name(ds_raster_path path)
{
    return (unsigned)path < DS_RASTER_PATH_COUNT ? raster_names[path] : "unknown";
}

ds_raster_path ds_raster_path_from_name(const char *name)
{
    for (int r = 0; name && r < DS_RASTER_PATH_COUNT; r++)
        if (!strcmp(name, raster_names[r]))
            return (ds_raster_path)r;
    return DS_RASTER_PATH_COUNT;
}

static const char *const order_names[DS_RASTER_ORDER_COUNT] = {
    [DS_RASTER_FRAGMENT_ORDER] = "fragment", [DS_RASTER_TRIANGLE_ORDER] = "triangle",
};

const char *ds_raster_order_name(ds_raster_order order)
{
    return (unsigned)order < DS_RASTER_ORDER_COUNT ? order_names[order] : "unknown";
}

ds_raster_order ds_raster_order_from_name(const char *name)
{
    for (int m = 0; name && m < DS_RASTER_ORDER_COUNT; m++)
        if (!strcmp(name, order_names[m]))
            return (ds_raster_order)m;
    return DS_RASTER_ORDER_COUNT;
}
