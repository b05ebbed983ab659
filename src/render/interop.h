/* SPDX-License-Identifier: MIT */
/* interop.h — the one module that owns every CUDA–OpenGL interop call
 * (cudaGraphics*, CUDA VMM export, GL_EXT_memory_object_fd import).
 *
 * It owns the two buffers that both APIs touch: the vertex positions (GL
 * vertex buffer, read by the distance kernel) and two element buffers
 * (written by the scatter kernel, read by the draw; two, so that CUDA can
 * write frame N+1's order while GL still draws frame N).
 *
 * Per frame, for element buffer `slot`:
 *   ds_interop_begin()    -> device pointers valid on `stream` for CUDA
 *   ... kernels on stream ...
 *   ds_interop_end()      -> GL may now read the buffers
 *   ... GL draw from ds_interop_element_buffer(slot) ...
 *   ds_interop_gl_used()  -> records when GL is done with the slot
 *
 * Modes:
 *   DS_INTEROP_MAP: GL buffers registered once (cudaGraphicsGLRegisterBuffer),
 *     mapped and unmapped every frame; the driver orders GL and CUDA work.
 *   DS_INTEROP_EXTERNAL: CUDA VMM allocations (cuMemCreate, exported as
 *     POSIX file descriptors) imported into GL as buffer storage
 *     (glImportMemoryFdEXT, glNamedBufferStorageMemEXT); no per-frame
 *     mapping. GL_EXT_semaphore_fd could only IMPORT a semaphore, and CUDA
 *     cannot export one (only Vulkan or D3D12 can make it), so the hand-over
 *     uses fences instead:
 *       GL -> CUDA: a glFenceSync after each draw; before CUDA writes an
 *         element buffer again (two frames later) the host waits for it;
 *       CUDA -> GL: a CUDA event after the scatter; the host waits for it
 *         before issuing the draw (the CPU sleeps, the GPU does not idle:
 *         the previous frame's draw is already queued).
 */
#ifndef DS_INTEROP_H
#define DS_INTEROP_H

#include <stddef.h>
#include <stdint.h>

#include "render_types.h"
#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DS_INTEROP_SLOTS 2

typedef struct ds_interop ds_interop;

typedef struct ds_interop_desc {
    ds_interop_mode mode;      /* AUTO (external, else map), MAP or EXTERNAL */
    const float *positions;    /* host, 3 * vertex_count; uploaded once */
    size_t vertex_count;
    size_t element_count;      /* uint32 indices per element buffer */
} ds_interop_desc;

/* 1 if a CUDA device exists (clears the runtime's "no device" error). */
int ds_interop_cuda_available(void);

/* The CUDA device a run will use (the current one, whose GPU
 * ds_egl_context_create() picks for GL): its free memory and its name in
 * dest_name (capacity bytes), asked before any GL context exists, so that
 * a model can be refused from its header. Creates the CUDA context.
 * Returns 0, setting nothing, when there is no device or a query fails. */
int ds_interop_cuda_memory(uint64_t *free_bytes, char *dest_name, size_t capacity);

/* The CUDA device that drives the current GL context (cudaGLGetDevices), or
 * -1 when none does (Mesa, another vendor). Needs a current context. */
int ds_interop_gl_cuda_device(void);

/* Needs the GL context current and the CUDA device set. Errors:
 * DS_ERR_UNSUPPORTED (the requested mode is refused; AUTO only fails when
 * both are), DS_ERR_CUDA, DS_ERR_GL, DS_ERR_INVALID_ARG. */
ds_status ds_interop_create(const ds_interop_desc *desc, ds_interop **dest);

/* Waits for the GPU, then frees everything; NULL is allowed. */
void ds_interop_destroy(ds_interop *interop);

ds_interop_mode ds_interop_mode_in_use(const ds_interop *interop);
uint32_t ds_interop_position_buffer(const ds_interop *interop); /* GL name */
uint32_t ds_interop_element_buffer(const ds_interop *interop, int slot);
/* CUDA's address of element buffer `slot` outside a frame: the external
 * path's fixed allocation; NULL on the map path (mapped only per frame). */
const uint32_t *ds_interop_element_pointer(const ds_interop *interop, int slot);

/* Hands the positions and element buffer `slot` to CUDA for this frame.
 * Adds the host time spent in interop calls to *host_ms (waits for GPU work
 * that is the frame's own are not counted, see interop.c). */
ds_status ds_interop_begin(ds_interop *interop, int slot, ds_stream stream,
                           const float **positions, uint32_t **elements,
                           double *host_ms);

/* Hands them back to GL once the work enqueued on `stream` completes. */
ds_status ds_interop_end(ds_interop *interop, int slot, ds_stream stream,
                         double *host_ms);

/* Call after the GL commands reading element buffer `slot` are issued. */
ds_status ds_interop_gl_used(ds_interop *interop, int slot, double *host_ms);

/* GL buffers lent to CUDA one frame at a time (the compute raster's
 * fragment keys and values, sorted by a CUDA sort): registered once,
 * mapped on `stream` (CUDA's work then follows GL's earlier writes) and
 * unmapped (GL's later reads follow CUDA's work). Errors: DS_ERR_CUDA. */
typedef struct ds_interop_buffers ds_interop_buffers;
ds_status ds_interop_buffers_register(const uint32_t *gl_buffers, int count,
                                      ds_interop_buffers **dest);
/* The count device pointers, valid on `stream` until the unmap. */
ds_status ds_interop_buffers_map(ds_interop_buffers *buffers, ds_stream stream,
                                 void **pointers);
ds_status ds_interop_buffers_unmap(ds_interop_buffers *buffers, ds_stream stream);
/* 1 if `buffers` holds exactly these GL buffers, in this order. */
int ds_interop_buffers_are(const ds_interop_buffers *buffers, const uint32_t *gl_buffers,
                           int count);
void ds_interop_buffers_unregister(ds_interop_buffers *buffers);

/* Host readings around each wait, map and flush go to `timeline` (the
 * renderer's, timeline.h) while it is set; NULL stops them. */
struct ds_timeline;
void ds_interop_set_timeline(ds_interop *interop, struct ds_timeline *timeline);

#ifdef __cplusplus
}
#endif
#endif
