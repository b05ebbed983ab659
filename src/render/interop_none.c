/* SPDX-License-Identifier: MIT */
/* interop_none.c — interop.h in a build without CUDA (src/CMakeLists.txt
 * builds it in place of interop.c): no CUDA device ever drives GL, so the
 * renderer takes its CPU path, and an interop mode asked for by name is
 * refused with one line. No ds_interop is ever made, so the accessors
 * below are never reached with one. */
#include "interop.h"

int ds_interop_cuda_available(void)
{
    return 0;
}

int ds_interop_cuda_memory(uint64_t *free_bytes, char *dest_name, size_t capacity)
{
    (void)free_bytes; (void)dest_name; (void)capacity;
    return 0;
}

int ds_interop_gl_cuda_device(void)
{
    return -1;
}

ds_status ds_interop_create(const ds_interop_desc *desc, ds_interop **dest)
{
    (void)desc;
    if (dest)
        *dest = NULL;
    return ds_fail(DS_ERR_UNSUPPORTED, "interop: this build has no CUDA "
                   "(configured without the CUDA toolkit)");
}

void ds_interop_destroy(ds_interop *interop)
{
    (void)interop;
}

ds_interop_mode ds_interop_mode_in_use(const ds_interop *interop)
{
    (void)interop;
    return DS_INTEROP_NONE;
}

uint32_t ds_interop_position_buffer(const ds_interop *interop)
{
    (void)interop;
    return 0;
}

uint32_t ds_interop_element_buffer(const ds_interop *interop, int slot)
{
    (void)interop; (void)slot;
    return 0;
}

const uint32_t *ds_interop_element_pointer(const ds_interop *interop, int slot)
{
    (void)interop; (void)slot;
    return NULL;
}

static ds_status no_cuda(void)
{
    return ds_fail(DS_ERR_NO_DEVICE, "interop: this build has no CUDA");
}

ds_status ds_interop_begin(ds_interop *interop, int slot, ds_stream stream,
                           const float **positions, uint32_t **elements, double *host_ms)
{
    (void)interop; (void)slot; (void)stream; (void)positions; (void)elements; (void)host_ms;
    return no_cuda();
}

ds_status ds_interop_end(ds_interop *interop, int slot, ds_stream stream, double *host_ms)
{
    (void)interop; (void)slot; (void)stream; (void)host_ms;
    return no_cuda();
}

ds_status ds_interop_gl_used(ds_interop *interop, int slot, double *host_ms)
{
    (void)interop; (void)slot; (void)host_ms;
    return no_cuda();
}

void ds_interop_set_timeline(ds_interop *interop, struct ds_timeline *timeline)
{
    (void)interop; (void)timeline;
}

ds_status ds_interop_buffers_register(const uint32_t *gl_buffers, int count,
                                      ds_interop_buffers **dest)
{
    (void)gl_buffers; (void)count;
    if (dest)
        *dest = NULL;
    return no_cuda();
}

ds_status ds_interop_buffers_map(ds_interop_buffers *buffers, ds_stream stream, void **pointers)
{
    (void)buffers; (void)stream; (void)pointers;
    return no_cuda();
}

ds_status ds_interop_buffers_unmap(ds_interop_buffers *buffers, ds_stream stream)
{
    (void)buffers; (void)stream;
    return no_cuda();
}

int ds_interop_buffers_are(const ds_interop_buffers *buffers, const uint32_t *gl_buffers,
                           int count)
{
    (void)buffers; (void)gl_buffers; (void)count;
    return 0;
}

void ds_interop_buffers_unregister(ds_interop_buffers *buffers)
{
    (void)buffers;
}
