/* SPDX-License-Identifier: MIT */
/* raster.h — the contract of a raster path (raster_registry.h): what
 * turns a sorted frame's primitives, in the element buffer the stages
 * wrote, into pixels. One file, src/render/raster_<FILE>.c, defines one
 * ds_raster_backend named ds_raster_<FILE>, and one line of
 * raster_registry.h names it. The renderer holds one state per raster
 * path (state_size bytes, zeroed), made by create on the path's first
 * use, and calls the path only through these functions. */
#ifndef DS_RASTER_H
#define DS_RASTER_H

#include "renderer_internal.h"

typedef struct ds_raster_backend {
    size_t state_size; /* bytes of the path's own state; 0: none */
    /* Makes the path's GL objects for the renderer's mesh, element
     * buffers and draw form. Errors: DS_ERR_GL. */
    ds_status (*create)(ds_renderer *renderer, void *state);
    /* The objects whose size is the viewport's, for the renderer's new
     * size (ds_renderer_resize). NULL: none. Errors as create. */
    ds_status (*resize)(ds_renderer *renderer, void *state);
    /* Draws the frame of `plan` into plan->target (resolving into
     * plan->resolve_target when multisampled), timed into `record`: its
     * draw_query around the GPU work and its end_query after. Errors:
     * DS_ERR_GL, DS_ERR_OUT_OF_MEMORY (a buffer that had to grow). */
    ds_status (*draw)(ds_renderer *renderer, void *state, const frame_plan *plan,
                      frame_record *record);
    /* Frees every GL object of the state (not the state's memory). */
    void (*free)(ds_renderer *renderer, void *state);
} ds_raster_backend;

#define DS_RASTER_EXTERN(ID, name, file, summary) extern const ds_raster_backend ds_raster_##file;
DS_RASTER_REGISTRY(DS_RASTER_EXTERN)
#undef DS_RASTER_EXTERN

/* raster.c: the backend of `path` (NULL for none). */
const ds_raster_backend *ds_render_raster_backend(ds_raster_path path);

/* raster.c: the renderer's raster path's state made and created if
 * missing. */
ds_status ds_render_raster_create(ds_renderer *renderer);

/* raster.c: the frame of `plan` drawn by the renderer's raster path, or
 * by the compute path where frame.c planned it (plan->compute). */
ds_status ds_render_raster_draw(ds_renderer *renderer, const frame_plan *plan,
                                frame_record *record);

/* raster.c: every made path's viewport-sized objects for the new size. */
ds_status ds_render_rasters_resize(ds_renderer *renderer);

/* raster.c: every path's objects and states freed (destroy). */
void ds_render_rasters_free(ds_renderer *renderer);

#endif
