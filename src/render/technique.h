/* SPDX-License-Identifier: MIT */
/* technique.h — the contract of a transparency technique, in the manner of
 * GLFW's platform layer: one file, src/render/technique_<FILE>.c, defines
 * one ds_technique_backend named ds_technique_<FILE>, and one line of
 * technique_registry.h names it. The renderer holds one state per
 * technique (state_size bytes, zeroed, made on the first switch to it) and
 * calls the technique only through these functions.
 *
 * Call order: prepare on every switch to the technique and before each of
 * its frames (it makes what is missing, for the current size: cheap when
 * nothing is); frame once per frame; free_images after a resize, for every
 * technique that has a state; free once, at destroy. */
#ifndef DS_TECHNIQUE_H
#define DS_TECHNIQUE_H

#include "renderer_internal.h"

typedef struct ds_technique_backend {
    size_t state_size; /* bytes of the technique's own state; 0: none */
    int sorts;         /* what it reports: its frames run the stages
                          (keys, sort, culling, binning) and draw their
                          order, so culling, the sorted key bits and
                          ds_renderer_verify() apply to them */
    /* Makes the GL objects a frame needs, for the renderer's mesh and
     * size, where missing. NULL: nothing to make. Errors: DS_ERR_GL,
     * DS_ERR_OUT_OF_MEMORY, DS_ERR_TOO_LARGE (a pool GL cannot bind). */
    ds_status (*prepare)(ds_renderer *renderer, void *state);
    /* One frame of `plan` into its target (plan->resolve_target when
     * multisampled, as raster_hw.c resolves), timed into `record`: its
     * begin_query before the GPU work, its draw_query around it, its
     * end_query after. frame.c has set the record's other fields. */
    ds_status (*frame)(ds_renderer *renderer, void *state, const frame_plan *plan,
                       frame_record *record);
    /* Frees the objects whose size is the viewport's (NULL: none). */
    void (*free_images)(ds_renderer *renderer, void *state);
    /* Frees every GL object of the state (not the state's memory). */
    void (*free)(ds_renderer *renderer, void *state);
} ds_technique_backend;

/* One backend object per FILE of the registry (two lines may share one). */
#define DS_TECHNIQUE_EXTERN(ID, name, file, label, cycle, summary) \
    extern const ds_technique_backend ds_technique_##file;
DS_TECHNIQUE_REGISTRY(DS_TECHNIQUE_EXTERN)
#undef DS_TECHNIQUE_EXTERN

/* technique.c: the backend of `technique` (NULL for none). */
const ds_technique_backend *ds_render_technique_backend(ds_technique technique);

/* technique.c: the state of `technique` made if missing, then prepared;
 * a GL error while preparing fails as DS_ERR_GL naming the technique. */
ds_status ds_render_technique_prepare(ds_renderer *renderer, ds_technique technique);

/* technique.c: the frame of the renderer's technique. */
ds_status ds_render_technique_frame(ds_renderer *renderer, const frame_plan *plan,
                                    frame_record *record);

/* technique.c: every technique's images freed (resize), or everything
 * (destroy). */
void ds_render_techniques_free_images(ds_renderer *renderer);
void ds_render_techniques_free(ds_renderer *renderer);

#endif
