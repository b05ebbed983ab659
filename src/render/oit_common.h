/* SPDX-License-Identifier: MIT */
/* oit_common.h — what the order-independent techniques share
 * (technique_wboit.c, technique_peel.c, technique_abuffer.c): each draws
 * the mesh in its own order in one draw (no sort), with the sorted draw's
 * vertex stage and surface shading (mesh.frag.glsl, points.frag.glsl) and
 * its own fragment main, then a full-screen pass writes the image. Helpers
 * only: every object they make belongs to the technique that asks. */
#ifndef DS_OIT_COMMON_H
#define DS_OIT_COMMON_H

#include "renderer_internal.h"

/* The vertex arrays of a technique: the mesh in its own order (the raster
 * path's attribute layout, with the mesh's index buffer), and the
 * attribute-less one of the full-screen pass. */
typedef struct oit_arrays {
    GLuint mesh_order, empty;
} oit_arrays;

void ds_oit_make_arrays(const ds_renderer *renderer, oit_arrays *arrays);
void ds_oit_free_arrays(oit_arrays *arrays);

GLuint ds_oit_make_texture(GLenum format, int width, int height);
void ds_oit_delete_texture(GLuint *texture);
void ds_oit_delete_program(GLuint *program);

/* A framebuffer without attachments that rasterises width x height: the
 * passes that write only images and buffers. */
GLuint ds_oit_make_gather_framebuffer(int width, int height);
void ds_oit_delete_framebuffer(GLuint *framebuffer);

/* The technique's programs for triangles [0] and points [1]: the sorted
 * draw's vertex stage and surface, then `fragment_main` (each made if 0). */
ds_status ds_oit_make_programs(const char *fragment_main, const char *name, GLuint dest[2]);
/* A full-screen pass's program (made if 0). */
ds_status ds_oit_make_fullscreen(const char *fragment_main, const char *name, GLuint *dest);

/* The mesh in its own order, one draw: gl_PrimitiveID is then the mesh's
 * triangle (or point) number, the tie-break of the exact techniques. */
void ds_oit_draw_mesh_order(const ds_renderer *renderer, const oit_arrays *arrays,
                            const frame_plan *plan);
/* A full-screen pass into `output` with the background as a uniform;
 * blending off: the pass computes the composited value itself. */
void ds_oit_draw_fullscreen(const ds_renderer *renderer, const oit_arrays *arrays,
                            GLuint output, GLuint program);

/* The frame of an order-independent technique: no stage runs, and the
 * frame leaves CUDA alone (timing.c reads its stages as 0); `composite`
 * draws the image into `output`, timed into the record's draw query. */
typedef ds_status (*ds_oit_composite)(ds_renderer *renderer, void *state, const frame_plan *plan,
                                      GLuint output);
ds_status ds_oit_frame(ds_renderer *renderer, void *state, const frame_plan *plan,
                       frame_record *record, ds_oit_composite composite);

#endif
