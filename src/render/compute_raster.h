/* SPDX-License-Identifier: MIT */
/* compute_raster.h — the compute raster: a frame's triangles rasterised
 * by GL compute shaders into fragments, the fragments ordered and each
 * pixel's composited back to front, on all the GPU's multiprocessors
 * instead of its fixed-function front end
 * (docs/algorithms/compute-raster.md).
 *
 * Step by step, in a current GL 4.5 context:
 *   ds_compute_raster_desc desc = {0};
 *   desc.width = w; desc.height = h; desc.triangle_count = t;
 *   ds_compute_raster *raster;
 *   ds_compute_raster_create(&desc, &raster);   // every buffer, sized
 *   ds_compute_raster_frame frame = {...};               // mesh buffers, shading
 *   ds_compute_raster_draw(raster, &frame);      // once a frame
 *   ds_compute_raster_destroy(raster);
 *
 * Coverage is GL's (pixel centres, vertices snapped to 1/256 pixel, a
 * top-left rule on shared edges), triangles are clipped at the near plane
 * and skipped when degenerate, depth is linear in the window and colour
 * perspective-correct, shading is shade.glsl's, and the fragments of a
 * pixel are composited with straight-alpha "over" in float onto the
 * background, written once. Points (frame.points) are the round splats of
 * points.vert.glsl and points.frag.glsl, each covered pixel a fragment of
 * the point's depth. Two orders:
 *   TRIANGLE: the fragments in the order of a given sorted triangle (or
 *     point) list (the sorted hardware draw's image, without its 8-bit
 *     blending steps);
 *   FRAGMENT: every fragment's own depth sorted (by its 1 / w, which
 *     orders as the window depth and whose floats span fewer steps),
 *     equal depths by triangle (or point) number, the higher farther: the
 *     A-buffer's image, exact per pixel.
 */
#ifndef DS_COMPUTE_RASTER_H
#define DS_COMPUTE_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include <glad/gl.h>

#include "render_types.h"
#include "status.h"

/* Fragments the buffers are first sized for, per pixel of the viewport
 * (the dragon at 1080p has 0.27; a deep scene grows them once). */
#define DS_COMPUTE_RASTER_FRAGMENTS_PER_PIXEL 2
/* Bytes a fragment takes in the raster's buffers and in the GL sort's. */
#define DS_COMPUTE_RASTER_FRAGMENT_BYTES 40

typedef struct ds_compute_raster ds_compute_raster;

typedef struct ds_compute_raster_desc {
    int width, height;         /* the viewport */
    size_t triangle_count;     /* the mesh's triangles */
    size_t point_count;        /* the mesh's vertices: the points it may
                                  draw instead, and what a frame of
                                  triangles shades once each for their
                                  corners */
    size_t initial_fragments;  /* 0: DS_COMPUTE_RASTER_FRAGMENTS_PER_PIXEL x pixels;
                                  tests make it small to force a grow */
    int time_passes;           /* nonzero: a GL_TIMESTAMP after each pass
                                  (ds_compute_raster_info) */
    int verify;                /* nonzero: keep each frame's fragment keys
                                  before the sort (ds_compute_raster_verify) */
    float point_coord_quantum; /* the step, in pixels, to which points'
                                  sprite coordinates floor the size
                                  (ds_compute_raster_info): 0 asks the
                                  driver (the first frame of points);
                                  1/2 to 1/256 (a power of two) takes
                                  that; below 0 the exact size */
    int no_subgroups;          /* nonzero: the workgroup scans and the GL
                                  sort without GL_KHR_shader_subgroup, as
                                  where the context lacks it (tests of
                                  that path on a GL that has it) */
} ds_compute_raster_desc;

/* shade.glsl's uniforms. */
typedef struct ds_compute_raster_shading {
    float view_projection[16];
    float alpha;
    float eye[3];
    int color_mode;            /* ds_color_mode, resolved */
    float tint[3];
    float height_range[2];     /* y of the bottom, 1 / height */
    int view_opacity;
    int normals_only;
} ds_compute_raster_shading;

/* Sorts n (float key, uint32 value) pairs descending by key (far first)
 * from the GL buffers (keys, values) into (keys_out, values_out), equal
 * keys in input order where the sort is stable; the keys are positive
 * normal floats, the fragments' 1 / w mirrored (their bits 0x7F7FFFFF -
 * the bits of 1 / w), which order as the window depths. For a caller that sorts fragments
 * with another sort than the raster's GL radix sort (the CUDA sorts); it
 * may use all four buffers as scratch. */
typedef ds_status (*ds_compute_raster_sort_fn)(void *user, GLuint keys, GLuint values, GLuint keys_out,
                                       GLuint values_out, size_t n);

typedef struct ds_compute_raster_frame {
    GLuint indices;            /* three uint32 per triangle */
    GLuint positions;          /* three floats per vertex */
    GLuint attributes;         /* renderer.c's words: RGBA8 and normal, or
                                  the normal alone (shading.normals_only) */
    size_t triangle_count;     /* the primitives drawn: triangles, or
                                  with `points` the points */
    int points;                /* nonzero: the vertices as splats, whose
                                  diameter in pixels is point_scale / clip w
                                  (points.vert.glsl) */
    float point_scale;
    ds_raster_order order;
    GLuint sorted_triangles;   /* TRIANGLE: triangle_count triangle (or
                                  point) numbers, far first */
    ds_compute_raster_shading shading;
    float background[4];
    GLuint image;              /* an RGBA8 texture of the viewport's size
                                  to write, or 0 for the raster's own */
    ds_compute_raster_sort_fn sort;    /* FRAGMENT: NULL for the GL radix sort */
    void *sort_user;
    float box[2][3];           /* FRAGMENT with the GL sort, narrow_keys:
                                  a box holding every primitive (min, max),
                                  whose corners' 1 / w bound the frame's */
    float near_plane;          /* the near plane's clip w (the camera's
                                  near distance): no fragment is nearer;
                                  0: unknown (then the box's corners must
                                  lie beyond it to narrow) */
    int narrow_keys;           /* nonzero: where those 1 / w span fewer
                                  than 2^24 float steps, the GL sort orders
                                  the steps (the same order) on 24 or 16
                                  bits, one or two radix passes less */
} ds_compute_raster_frame;

/* Passes timed with desc.time_passes. */
enum {
    DS_RASTER_PASS_COUNT = 0, /* set-up and coverage count, and the plan in
                                 the large count's last workgroup */
    DS_RASTER_PASS_TOTAL,     /* a caller's sort: the host reading the total
                                 (and the plan again where the buffers grew);
                                 nothing with the GL sort */
    DS_RASTER_PASS_EMIT,      /* fragments written */
    DS_RASTER_PASS_SORT,      /* fragment order: the depth sort */
    DS_RASTER_PASS_BIN,       /* the pixels' starts and the by-pixel pass */
    DS_RASTER_PASS_RESOLVE,   /* per-pixel order and composite */
    DS_RASTER_PASSES
};

typedef struct ds_compute_raster_info {
    size_t fragments;          /* the last frame whose total was read */
    size_t capacity;           /* fragments the buffers hold now */
    unsigned grow_count;       /* frames that grew them */
    size_t bytes;              /* GPU memory held */
    unsigned dispatches;       /* the last frame's GL compute dispatches */
    unsigned steps;            /* and its steps: dispatches that each wait
                                  at a memory barrier for the ones before
                                  (a CUDA sort's launches not counted) */
    /* Points' sprite coordinates: gl_PointCoord from the size floored to
     * a multiple of this (pixels; 0: the exact size), as the driver
     * computes it or desc forced; the largest difference of the driver's
     * coordinates from that rule in the probe (pixels; 0 when forced or
     * no frame of points yet); point_coord_explained 0 when no quantum
     * tried explained the driver's (the exact size is then used). */
    float point_coord_quantum;
    float point_coord_residual;
    int point_coord_probed;
    int point_coord_explained;
    unsigned key_bits;         /* the bits the last frame's GL sort ordered
                                  (32, 24 or 16); 0 without one */
    unsigned long sorted_frames;   /* frames drawn whose fragments the GL
                                      sort ordered */
    unsigned long narrowed_frames; /* of those, on 24 or 16 bits */
} ds_compute_raster_info;

/* 1 if `quantum` is a step desc.point_coord_quantum may force: a power
 * of two from 1/2 to 1/256. */
int ds_point_coord_quantum_valid(float quantum);

/* 1 if the current context can run it: GL 4.3 compute shaders and the GL
 * radix sort (gl_sort.h: GL_ARB_shader_ballot). */
int ds_compute_raster_supported(void);

/* Programs and buffers for the viewport and mesh (the only allocation,
 * besides a grow). Errors: DS_ERR_UNSUPPORTED (see supported),
 * DS_ERR_INVALID_ARG, DS_ERR_TOO_LARGE (buffers beyond what GL binds as a
 * storage block, or 2^32 fragments), DS_ERR_OUT_OF_MEMORY, DS_ERR_GL;
 * each with one line. *dest is NULL on failure. */
ds_status ds_compute_raster_create(const ds_compute_raster_desc *desc, ds_compute_raster **dest);

/* The per-pixel buffers and the image again for a new viewport. Errors as
 * create. */
ds_status ds_compute_raster_resize(ds_compute_raster *raster, int width, int height);

/* One frame into frame->image (or the own image). With the GL radix sort
 * it does not wait for the GPU: every pass after the count takes its size
 * from the GPU (indirect dispatches). Each frame's total is copied for
 * the host and read a few frames later (no wait); a frame with more
 * fragments than the buffers hold keeps the first ones that fit, and the
 * buffers grow (the total plus a quarter) when the host learns of it:
 * ds_compute_raster_settle() then draws that frame again, so no frame
 * that is read back is cut short. With frame->sort (a caller's sort, which
 * needs the count on the host) it waits once, after the count, and grows
 * the buffers before any fragment is written. Errors: DS_ERR_INVALID_ARG,
 * DS_ERR_TOO_LARGE and DS_ERR_OUT_OF_MEMORY (a grow that cannot be made),
 * DS_ERR_GL, or the sort's. */
ds_status ds_compute_raster_draw(ds_compute_raster *raster, const ds_compute_raster_frame *frame);

/* Waits for every frame drawn; if the last one overflowed, grows the
 * buffers and draws it again into the same image (*redrawn 1). Call
 * before reading the image back. Errors as draw. */
ds_status ds_compute_raster_settle(ds_compute_raster *raster, int *redrawn);

/* The raster's own RGBA8 image (the output when frame.image is 0). */
GLuint ds_compute_raster_image(const ds_compute_raster *raster);

/* Facts about the buffers and the last frame whose total was read; no
 * GL call. */
void ds_compute_raster_describe(const ds_compute_raster *raster, ds_compute_raster_info *dest);

/* The last frame's pass times (desc.time_passes; DS_RASTER_PASSES of
 * them, ms; zeros without), waiting for the GPU. */
void ds_compute_raster_pass_times(ds_compute_raster *raster, float *dest);

/* The last fragment-order frame's sort (desc.verify; reads back, so
 * waits): the sorted values a permutation of the fragments, their keys
 * in order (far first), and with `stable` equal keys in input order.
 * Errors: DS_ERR_MISMATCH with one line naming the first wrong position,
 * DS_ERR_INVALID_ARG (no verify, or no fragment-order frame yet),
 * DS_ERR_OUT_OF_MEMORY. */
ds_status ds_compute_raster_verify(ds_compute_raster *raster, int stable);

/* Frees everything; NULL is allowed. The same context must be current. */
void ds_compute_raster_destroy(ds_compute_raster *raster);

#endif
