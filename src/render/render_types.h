/* SPDX-License-Identifier: MIT */
/* render_types.h — the renderer's modes (primitive, triangle key, interop,
 * screen tiles, colour, opacity, culling, transparency technique, raster
 * path) as plain enums (the last two from their registries): the app parses them into ds_options and the render kernels read
 * them, so they live below both. */
#ifndef DS_RENDER_TYPES_H
#define DS_RENDER_TYPES_H

#include "raster_registry.h"
#include "technique_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ds_primitive {
    DS_PRIMITIVE_TRIANGLES = 0,
    DS_PRIMITIVE_POINTS
} ds_primitive;

typedef enum ds_triangle_key {
    DS_TRIANGLE_KEY_FARTHEST = 0, /* max of the three vertex distances */
    DS_TRIANGLE_KEY_MEAN,         /* mean of the three vertex distances */
    DS_TRIANGLE_KEY_CENTROID,     /* distance to the centroid */
    DS_TRIANGLE_KEY_COUNT
} ds_triangle_key;

typedef enum ds_interop_mode {
    DS_INTEROP_AUTO = 0,  /* external memory where supported, else map */
    DS_INTEROP_MAP,       /* cudaGraphicsMapResources each frame */
    DS_INTEROP_EXTERNAL,  /* CUDA VMM memory imported with GL_EXT_memory_object_fd */
    DS_INTEROP_NONE       /* CPU path: host sort and buffer uploads */
} ds_interop_mode;

/* Where a sorted frame's per-frame stages (keys, sort, binning) run
 * (renderer.h, desc.stages). */
typedef enum ds_stages_mode {
    DS_STAGES_AUTO = 0, /* the fastest that runs here
                           (ds_renderer_choose_stages()): GL on a GPU's GL
                           that has what the GL stages need, SORTER on a
                           software rasteriser or above a size */
    DS_STAGES_SORTER,   /* around desc.sort_algo's sorter: CUDA kernels
                           on buffers shared with GL (interop), or the
                           host on the CPU path */
    DS_STAGES_GL,       /* GL compute shaders in the draw's own context,
                           with the GL radix sort (gl_sort.h): no GL/CUDA
                           hand-over */
    DS_STAGES_MODE_COUNT
} ds_stages_mode;

/* Screen tiles (renderer.h). AUTO: on where the stages run on a GPU
 * (CUDA, or the GL stages on a GPU's GL), off on the host and on a
 * software GL, where binning costs more than a software rasteriser's draw
 * gains. */
typedef enum ds_tiles_mode {
    DS_TILES_AUTO = 0,
    DS_TILES_ON,  /* bin the sorted primitives by screen tile */
    DS_TILES_OFF  /* one draw of the sorted list */
} ds_tiles_mode;

/* How surfaces are coloured; the headlight shading applies in every mode,
 * and a file's per-vertex alpha multiplies the global alpha in every mode. */
typedef enum ds_color_mode {
    DS_COLOR_AUTO = 0, /* FILE when the mesh has colours, else NORMAL
                          (HEIGHT for a point cloud, as ds_mesh_finish()) */
    DS_COLOR_NORMAL,   /* the unit normal as a colour */
    DS_COLOR_TINT,     /* one colour for everything (desc.tint) */
    DS_COLOR_HEIGHT,   /* a ramp along +Y, the up axis after --up */
    DS_COLOR_FILE,     /* the mesh's per-vertex colours */
    DS_COLOR_MODE_COUNT
} ds_color_mode;

/* How opaque a surface is as a function of the view (renderer.h states
 * the formula). */
typedef enum ds_opacity_mode {
    DS_OPACITY_CONSTANT = 0, /* alpha as given */
    DS_OPACITY_VIEW,         /* more opaque at grazing angles, as glass */
    DS_OPACITY_MODE_COUNT
} ds_opacity_mode;

/* Leaving out triangles that cover no pixel centre (renderer.h). AUTO:
 * as ds_tiles_mode's. */
typedef enum ds_cull_mode {
    DS_CULL_AUTO = 0,
    DS_CULL_ON,
    DS_CULL_OFF
} ds_cull_mode;

/* How translucent surfaces are composited: one enum value per line of
 * technique_registry.h, in its order (renderer.h states each one's
 * passes). SORTED and UNSORTED are the per-primitive sort (on or off);
 * the others need no sort. Every technique draws triangles and points
 * alike. */
typedef enum ds_technique {
#define DS_TECHNIQUE_ENUM(ID, name, file, label, cycle, summary) DS_TECHNIQUE_##ID,
    DS_TECHNIQUE_REGISTRY(DS_TECHNIQUE_ENUM)
#undef DS_TECHNIQUE_ENUM
    DS_TECHNIQUE_COUNT
} ds_technique;

/* What turns a sorted frame's primitives into pixels: one enum value per
 * line of raster_registry.h, in its order; 0 is the default. */
typedef enum ds_raster_path {
#define DS_RASTER_ENUM(ID, name, file, summary) DS_RASTER_##ID,
    DS_RASTER_REGISTRY(DS_RASTER_ENUM)
#undef DS_RASTER_ENUM
    DS_RASTER_PATH_COUNT
} ds_raster_path;

/* The compute raster's order (raster_compute.h, --raster-order): each
 * fragment by its own depth (exact: technique compute-exact), or by its
 * triangle's sorted position (the compute raster path, technique
 * compute). */
typedef enum ds_raster_order {
    DS_RASTER_FRAGMENT_ORDER = 0,
    DS_RASTER_TRIANGLE_ORDER,
    DS_RASTER_ORDER_COUNT
} ds_raster_order;

/* Names as the command line spells them ("auto", "normal", ...);
 * "unknown" for others. from_name returns the COUNT value for an unknown
 * name. */
const char *ds_color_mode_name(ds_color_mode mode);
ds_color_mode ds_color_mode_from_name(const char *name);
const char *ds_opacity_mode_name(ds_opacity_mode mode);
ds_opacity_mode ds_opacity_mode_from_name(const char *name);
/* "auto", "sorter", "gl". */
const char *ds_stages_mode_name(ds_stages_mode mode);
/* The registry's columns of a technique (technique_registry.h): its name
 * ("unsorted", "sorted", ...), its viewer label, its one-line summary and
 * its place in the viewer's X cycle (1 first, 0 for none). "unknown" (0)
 * for others. */
const char *ds_technique_name(ds_technique technique);
ds_technique ds_technique_from_name(const char *name);
const char *ds_technique_label(ds_technique technique);
const char *ds_technique_summary(ds_technique technique);
int ds_technique_cycle(ds_technique technique);
/* The raster path's name ("hw", ...; "unknown" for others); from_name
 * returns DS_RASTER_PATH_COUNT for an unknown name. */
const char *ds_raster_path_name(ds_raster_path path);
ds_raster_path ds_raster_path_from_name(const char *name);
/* "fragment", "triangle"; from_name: DS_RASTER_ORDER_COUNT if unknown. */
const char *ds_raster_order_name(ds_raster_order order);
ds_raster_order ds_raster_order_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
