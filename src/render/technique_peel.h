/* SPDX-License-Identifier: MIT */
/* technique_peel.h — depth peeling's state and passes, for the technique
 * itself (technique_peel.c) and for the A-buffer, which peels a frame
 * whose deepest pixel its resolve cannot sort (technique_abuffer.c). The
 * A-buffer keeps the state in the peel technique's slot of the renderer,
 * so the two share one set of objects. */
#ifndef DS_TECHNIQUE_PEEL_H
#define DS_TECHNIQUE_PEEL_H

#include "oit_common.h"

typedef struct peel_state {
    oit_arrays arrays;
    GLuint peel[2], resolve;        /* [0] triangles, [1] points */
    GLuint query;                   /* GL_ANY_SAMPLES_PASSED of pass 0 */
    int width, height;              /* the images' size */
    GLuint gather_framebuffer;      /* no attachments, width x height */
    GLuint depth[2], primitive[2];  /* r32ui: this peel's and the last
                                       one's (depth bits, primitive) */
    GLuint sum;                     /* rgba32f: the front-to-back sum */
} peel_state;

/* Makes what is missing, for the renderer's size. */
ds_status ds_peel_prepare(ds_renderer *renderer, peel_state *peel);
/* The frame of `plan`, peeled front to back, into `output`. */
ds_status ds_peel_composite(ds_renderer *renderer, peel_state *peel, const frame_plan *plan,
                            GLuint output);

#endif
