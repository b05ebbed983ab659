/* SPDX-License-Identifier: MIT */
/* raster_compute.h — the renderer's side of the compute raster
 * (raster_compute.c), which the compute raster path and the compute
 * techniques (technique_compute.c, technique_compute_exact.c) share. */
#ifndef DS_RASTER_COMPUTE_H
#define DS_RASTER_COMPUTE_H

#include "renderer_internal.h"

/* 1 if the context can run the compute raster (asked once). */
int ds_render_compute_available(ds_renderer *renderer);

/* 1 if a frame of these can be rasterised in compute (triangles or
 * points): one sample a pixel, a context that can. */
int ds_render_compute_takes(ds_renderer *renderer, int single_sampled);

/* The compute path's state and raster, made if missing and sized for the
 * viewport (set_technique, resize; allocation: not a per-frame call).
 * Errors as ds_compute_raster_create(). */
ds_status ds_render_compute_prepare(ds_renderer *renderer);

/* The frame of `plan` rasterised in compute in `order` (triangle order
 * from the stages' sorted triangles in the frame's element buffer;
 * fragment order with the GL radix sort, or the renderer's CUDA sort when
 * the stages would run around it) into the framebuffer `output`. */
ds_status ds_render_compute_draw(ds_renderer *renderer, const frame_plan *plan,
                                 ds_raster_order order, GLuint output);

/* Waits for the compute frames; one that overflowed its buffers is drawn
 * again into the same output (read-back, colour texture, finish). */
ds_status ds_render_compute_settle(ds_renderer *renderer);

/* The last compute-exact frame's fragment sort (ds_renderer_verify). */
ds_status ds_render_compute_verify(ds_renderer *renderer);

#endif
