/* SPDX-License-Identifier: MIT */
/* interop.c — CUDA–OpenGL buffer sharing, two ways (see interop.h): GL
 * buffers registered with CUDA and mapped per frame, or CUDA VMM memory
 * exported as file descriptors and imported into GL, ordered by fences.
 *
 * Host time accounting (ds_frame_timings.interop_ms): every interop call is
 * timed on the host clock, except the two waits of the external path that
 * only wait for GPU work the frame needs anyway (the previous draw before
 * its element buffer is rewritten; the CUDA stages before the draw is
 * issued) — those overlap GPU work and would be paid without interop too;
 * whatever bubble they leave on the GPU shows up in frame_ms. */
#include "interop.h"

#include <glad/gl.h> /* before cuda_gl_interop.h, which would pull GL/gl.h */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include "clock.h"
#include "cuda_check.h"
#include "timeline.h"

/* One CUDA VMM allocation seen by GL as buffer storage. */
typedef struct shared_block {
    CUmemGenericAllocationHandle handle;
    CUdeviceptr pointer;
    size_t size;           /* rounded up to the allocation granularity */
    GLuint memory_object;  /* GL_EXT_memory_object */
    GLuint buffer;
    int mapped;            /* cuMemMap done: unmap on free */
    int reserved;          /* cuMemAddressReserve done */
    int created;           /* cuMemCreate done */
} shared_block;

/* The driver API calls of the external path, fetched through the runtime
 * (cudaGetDriverEntryPointByVersion) so that the binary does not link
 * libcuda and still starts, on the CPU path, where no driver is installed. */
typedef struct driver_api {
    PFN_cuGetErrorString_v6000 cuGetErrorString;
    PFN_cuDeviceGet_v2000 cuDeviceGet;
    PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
    PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity;
    PFN_cuMemCreate_v10020 cuMemCreate;
    PFN_cuMemAddressReserve_v10020 cuMemAddressReserve;
    PFN_cuMemMap_v10020 cuMemMap;
    PFN_cuMemSetAccess_v10020 cuMemSetAccess;
    PFN_cuMemExportToShareableHandle_v10020 cuMemExportToShareableHandle;
    PFN_cuMemUnmap_v10020 cuMemUnmap;
    PFN_cuMemAddressFree_v10020 cuMemAddressFree;
    PFN_cuMemRelease_v10020 cuMemRelease;
} driver_api;

/* The driver API version whose entry points we ask for. */
#define DRIVER_API_VERSION 12000

struct ds_interop {
    ds_interop_mode mode; /* MAP or EXTERNAL */
    driver_api cu;
    size_t position_bytes, element_bytes;

    /* DS_INTEROP_MAP */
    GLuint position_buffer;
    GLuint element_buffers[DS_INTEROP_SLOTS];
    cudaGraphicsResource_t position_resource;
    cudaGraphicsResource_t element_resources[DS_INTEROP_SLOTS];

    /* DS_INTEROP_EXTERNAL */
    shared_block positions;
    shared_block elements[DS_INTEROP_SLOTS];
    GLsync draw_done[DS_INTEROP_SLOTS];   /* GL finished reading slot */
    cudaEvent_t cuda_done[DS_INTEROP_SLOTS]; /* CUDA finished writing slot */

    ds_timeline *timeline; /* the renderer's while it records one */
};

#define CU_TRY(status, label, call)                                           \
    do {                                                                      \
        CUresult cu_result_ = (call);                                         \
        if (cu_result_ != CUDA_SUCCESS) {                                     \
            const char *cu_message_ = "unknown error";                        \
            cu->cuGetErrorString(cu_result_, &cu_message_);                   \
            (status) = ds_fail(DS_ERR_CUDA, "interop: %s failed: %s", #call,  \
                               cu_message_);                                  \
            goto label;                                                       \
        }                                                                     \
    } while (0)

int ds_interop_cuda_available(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return 1;
}

int ds_interop_cuda_memory(uint64_t *free_bytes, char *dest_name, size_t capacity)
{
    int device = 0;
    size_t free_now = 0, total = 0;
    struct cudaDeviceProp prop;
    if (!ds_interop_cuda_available() || cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
        cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    *free_bytes = free_now;
    if (capacity)
        snprintf(dest_name, capacity, "%s", prop.name);
    return 1;
}

int ds_interop_gl_cuda_device(void)
{
    unsigned int count = 0;
    int device = -1;
    if (!ds_interop_cuda_available())
        return -1;
    if (cudaGLGetDevices(&count, &device, 1, cudaGLDeviceListAll) != cudaSuccess ||
        count == 0) {
        cudaGetLastError();
        return -1;
    }
    return device;
}

/* Drains GL errors left by a refused import, returning 1 if there was any. */
static int gl_failed(void)
{
    int failed = 0;
    while (glGetError() != GL_NO_ERROR)
        failed = 1;
    return failed;
}

static void shared_block_free(const driver_api *cu, shared_block *block)
{
    if (block->buffer)
        glDeleteBuffers(1, &block->buffer);
    if (block->memory_object)
        glDeleteMemoryObjectsEXT(1, &block->memory_object);
    if (block->mapped)
        cu->cuMemUnmap(block->pointer, block->size);
    if (block->reserved)
        cu->cuMemAddressFree(block->pointer, block->size);
    if (block->created)
        cu->cuMemRelease(block->handle);
    *block = (shared_block){0};
}

/* Allocates `size` bytes of device memory with CUDA's virtual memory
 * management, exportable as a file descriptor, and imports it into GL as the
 * storage of a new buffer. */
static ds_status shared_block_create(const driver_api *cu, size_t size,
                                     int device, shared_block *block)
{
    ds_status status = DS_OK;
    int fd = -1;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t granularity = 0;
    CU_TRY(status, fail, cu->cuMemGetAllocationGranularity(
                             &granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (size == 0)
        size = 1;
    block->size = (size + granularity - 1) / granularity * granularity;
    CU_TRY(status, fail, cu->cuMemCreate(&block->handle, block->size, &prop, 0));
    block->created = 1;
    CU_TRY(status, fail, cu->cuMemAddressReserve(&block->pointer, block->size,
                                             granularity, 0, 0));
    block->reserved = 1;
    CU_TRY(status, fail, cu->cuMemMap(block->pointer, block->size, 0, block->handle, 0));
    block->mapped = 1;
    CUmemAccessDesc access = {0};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_TRY(status, fail, cu->cuMemSetAccess(block->pointer, block->size, &access, 1));
    CU_TRY(status, fail, cu->cuMemExportToShareableHandle(
                             &fd, block->handle,
                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

    gl_failed();
    glCreateMemoryObjectsEXT(1, &block->memory_object);
    /* On success GL owns the descriptor; on failure we still do. */
    glImportMemoryFdEXT(block->memory_object, block->size,
                        GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    if (gl_failed()) {
        close(fd);
        status = ds_fail(DS_ERR_UNSUPPORTED,
                         "interop: glImportMemoryFdEXT refused a CUDA allocation");
        goto fail;
    }
    glCreateBuffers(1, &block->buffer);
    glNamedBufferStorageMemEXT(block->buffer, (GLsizeiptr)block->size,
                               block->memory_object, 0);
    if (gl_failed()) {
        status = ds_fail(DS_ERR_UNSUPPORTED,
                         "interop: glNamedBufferStorageMemEXT refused imported memory");
        goto fail;
    }
    return DS_OK;
fail:
    shared_block_free(cu, block);
    return status;
}

static ds_status load_driver_api(driver_api *cu)
{
    struct { const char *name; void **pointer; } entries[] = {
        {"cuGetErrorString", (void **)&cu->cuGetErrorString},
        {"cuDeviceGet", (void **)&cu->cuDeviceGet},
        {"cuDeviceGetAttribute", (void **)&cu->cuDeviceGetAttribute},
        {"cuMemGetAllocationGranularity", (void **)&cu->cuMemGetAllocationGranularity},
        {"cuMemCreate", (void **)&cu->cuMemCreate},
        {"cuMemAddressReserve", (void **)&cu->cuMemAddressReserve},
        {"cuMemMap", (void **)&cu->cuMemMap},
        {"cuMemSetAccess", (void **)&cu->cuMemSetAccess},
        {"cuMemExportToShareableHandle", (void **)&cu->cuMemExportToShareableHandle},
        {"cuMemUnmap", (void **)&cu->cuMemUnmap},
        {"cuMemAddressFree", (void **)&cu->cuMemAddressFree},
        {"cuMemRelease", (void **)&cu->cuMemRelease},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion(entries[i].name, entries[i].pointer,
                                             DRIVER_API_VERSION, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess || !*entries[i].pointer) {
            cudaGetLastError();
            return ds_fail(DS_ERR_UNSUPPORTED, "interop: the CUDA driver lacks %s",
                           entries[i].name);
        }
    }
    return DS_OK;
}

static ds_status create_external(ds_interop *interop, const float *positions)
{
    ds_status status = DS_OK;
    int device = 0;
    const driver_api *cu = &interop->cu;
    if (!GLAD_GL_EXT_memory_object || !GLAD_GL_EXT_memory_object_fd)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "interop: GL lacks GL_EXT_memory_object_fd");
    DS_CUDA_TRY("interop", cudaGetDevice(&device));
    if ((status = load_driver_api(&interop->cu)))
        return status;
    int vmm = 0;
    CUdevice cu_device;
    CU_TRY(status, fail, cu->cuDeviceGet(&cu_device, device));
    CU_TRY(status, fail, cu->cuDeviceGetAttribute(
                             &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                             cu_device));
    if (!vmm)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "interop: the CUDA device lacks virtual memory management");
    if ((status = shared_block_create(cu, interop->position_bytes, device,
                                      &interop->positions)))
        goto fail;
    for (int s = 0; s < DS_INTEROP_SLOTS; s++)
        if ((status = shared_block_create(cu, interop->element_bytes, device,
                                          &interop->elements[s])))
            goto fail;
    for (int s = 0; s < DS_INTEROP_SLOTS; s++)
        DS_CUDA_GOTO(status, fail, "interop",
                     cudaEventCreateWithFlags(&interop->cuda_done[s],
                                              cudaEventDisableTiming));
    /* Upload once; synchronous, so GL sees the positions from the start. */
    DS_CUDA_GOTO(status, fail, "interop",
                 cudaMemcpy((void *)interop->positions.pointer, positions,
                            interop->position_bytes, cudaMemcpyHostToDevice));
    DS_CUDA_GOTO(status, fail, "interop", cudaDeviceSynchronize());
    return DS_OK;
fail:
    return status; /* the caller's destroy frees the partial work */
}

static ds_status create_map(ds_interop *interop, const float *positions)
{
    ds_status status = DS_OK;
    glCreateBuffers(1, &interop->position_buffer);
    glNamedBufferStorage(interop->position_buffer,
                         (GLsizeiptr)(interop->position_bytes ? interop->position_bytes : 1),
                         positions, 0);
    glCreateBuffers(DS_INTEROP_SLOTS, interop->element_buffers);
    for (int s = 0; s < DS_INTEROP_SLOTS; s++)
        glNamedBufferStorage(interop->element_buffers[s],
                             (GLsizeiptr)(interop->element_bytes ? interop->element_bytes : 4),
                             NULL, 0);
    if (gl_failed())
        return ds_fail(DS_ERR_GL, "interop: creating the GL buffers failed");
    DS_CUDA_GOTO(status, fail, "interop",
                 cudaGraphicsGLRegisterBuffer(&interop->position_resource,
                                              interop->position_buffer,
                                              cudaGraphicsRegisterFlagsReadOnly));
    for (int s = 0; s < DS_INTEROP_SLOTS; s++)
        DS_CUDA_GOTO(status, fail, "interop",
                     cudaGraphicsGLRegisterBuffer(&interop->element_resources[s],
                                                  interop->element_buffers[s],
                                                  cudaGraphicsRegisterFlagsWriteDiscard));
    return DS_OK;
fail:
    return status; /* the caller's release() frees the partial work */
}

/* Frees whichever mode's resources exist. */
static void release(ds_interop *interop)
{
    cudaDeviceSynchronize();
    glFinish();
    if (interop->position_resource)
        cudaGraphicsUnregisterResource(interop->position_resource);
    for (int s = 0; s < DS_INTEROP_SLOTS; s++) {
        if (interop->element_resources[s])
            cudaGraphicsUnregisterResource(interop->element_resources[s]);
        if (interop->draw_done[s])
            glDeleteSync(interop->draw_done[s]);
        if (interop->cuda_done[s])
            cudaEventDestroy(interop->cuda_done[s]);
        shared_block_free(&interop->cu, &interop->elements[s]);
    }
    shared_block_free(&interop->cu, &interop->positions);
    if (interop->position_buffer)
        glDeleteBuffers(1, &interop->position_buffer);
    glDeleteBuffers(DS_INTEROP_SLOTS, interop->element_buffers);
    ds_interop_mode mode = interop->mode;
    driver_api cu = interop->cu;
    size_t position_bytes = interop->position_bytes;
    size_t element_bytes = interop->element_bytes;
    *interop = (ds_interop){0};
    interop->mode = mode;
    interop->cu = cu;
    interop->position_bytes = position_bytes;
    interop->element_bytes = element_bytes;
}

ds_status ds_interop_create(const ds_interop_desc *desc, ds_interop **dest)
{
    ds_status status = DS_OK;
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "interop: dest is NULL");
    *dest = NULL;
    if (!desc || (!desc->positions && desc->vertex_count) ||
        desc->mode == DS_INTEROP_NONE)
        return ds_fail(DS_ERR_INVALID_ARG, "interop: bad description");
    ds_interop *interop = calloc(1, sizeof *interop);
    if (!interop)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "interop: out of host memory");
    interop->position_bytes = desc->vertex_count * 3 * sizeof(float);
    interop->element_bytes = desc->element_count * sizeof(uint32_t);

    if (desc->mode == DS_INTEROP_AUTO || desc->mode == DS_INTEROP_EXTERNAL) {
        interop->mode = DS_INTEROP_EXTERNAL;
        status = create_external(interop, desc->positions);
        if (status == DS_OK)
            goto done;
        release(interop);
        if (desc->mode == DS_INTEROP_EXTERNAL)
            goto fail;
        ds_warn("interop: external memory unavailable (%s); mapping GL buffers instead",
                ds_last_error());
    }
    interop->mode = DS_INTEROP_MAP;
    if ((status = create_map(interop, desc->positions))) {
        release(interop);
        goto fail;
    }
done:
    *dest = interop;
    return DS_OK;
fail:
    free(interop);
    return status;
}

void ds_interop_destroy(ds_interop *interop)
{
    if (!interop)
        return;
    release(interop);
    free(interop);
}

ds_interop_mode ds_interop_mode_in_use(const ds_interop *interop)
{
    return interop->mode;
}

uint32_t ds_interop_position_buffer(const ds_interop *interop)
{
    return interop->mode == DS_INTEROP_EXTERNAL ? interop->positions.buffer
                                                : interop->position_buffer;
}

uint32_t ds_interop_element_buffer(const ds_interop *interop, int slot)
{
    return interop->mode == DS_INTEROP_EXTERNAL ? interop->elements[slot].buffer
                                                : interop->element_buffers[slot];
}

const uint32_t *ds_interop_element_pointer(const ds_interop *interop, int slot)
{
    return interop->mode == DS_INTEROP_EXTERNAL
               ? (const uint32_t *)interop->elements[slot].pointer
               : NULL;
}

ds_status ds_interop_begin(ds_interop *interop, int slot, ds_stream stream,
                           const float **positions, uint32_t **elements,
                           double *host_ms)
{
    double start = ds_now_ms();
    if (interop->mode == DS_INTEROP_EXTERNAL) {
        /* Protects element buffer `slot` from being rewritten while GL's
         * draw of two frames ago may still read it. Usually signalled long
         * ago; the wait is not counted (see the top of this file). */
        if (interop->draw_done[slot]) {
            GLsync fence = interop->draw_done[slot];
            interop->draw_done[slot] = NULL;
            double wait_start = ds_now_ms();
            DS_TIMELINE_HOST(interop->timeline, "fence_wait_begin");
            GLenum result = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT,
                                             (GLuint64)10 * 1000 * 1000 * 1000);
            DS_TIMELINE_HOST(interop->timeline, "fence_wait_end");
            start += ds_now_ms() - wait_start;
            glDeleteSync(fence);
            if (result == GL_WAIT_FAILED || result == GL_TIMEOUT_EXPIRED)
                return ds_fail(DS_ERR_GL, "interop: waiting for the GL draw failed");
        }
        *positions = (const float *)interop->positions.pointer;
        *elements = (uint32_t *)interop->elements[slot].pointer;
        *host_ms += ds_now_ms() - start;
        return DS_OK;
    }
    /* Mapping orders CUDA after GL's earlier use of the buffers. */
    cudaGraphicsResource_t resources[2] = {interop->position_resource,
                                           interop->element_resources[slot]};
    size_t size = 0;
    DS_TIMELINE_HOST(interop->timeline, "map_begin");
    DS_CUDA_TRY("interop", cudaGraphicsMapResources(2, resources, (cudaStream_t)stream));
    DS_CUDA_TRY("interop", cudaGraphicsResourceGetMappedPointer(
                               (void **)positions, &size, interop->position_resource));
    DS_CUDA_TRY("interop", cudaGraphicsResourceGetMappedPointer(
                               (void **)elements, &size, interop->element_resources[slot]));
    DS_TIMELINE_HOST(interop->timeline, "map_end");
    *host_ms += ds_now_ms() - start;
    return DS_OK;
}

ds_status ds_interop_end(ds_interop *interop, int slot, ds_stream stream,
                         double *host_ms)
{
    double start = ds_now_ms();
    if (interop->mode == DS_INTEROP_EXTERNAL) {
        /* GL cannot wait for CUDA on the GPU without a shared semaphore, so
         * the host waits for the scatter before it issues the draw that
         * reads the element buffer (not counted, see the top of the file). */
        DS_CUDA_TRY("interop", cudaEventRecord(interop->cuda_done[slot],
                                               (cudaStream_t)stream));
        double wait_start = ds_now_ms();
        DS_TIMELINE_HOST(interop->timeline, "cuda_wait_begin");
        DS_CUDA_TRY("interop", cudaEventSynchronize(interop->cuda_done[slot]));
        DS_TIMELINE_HOST(interop->timeline, "cuda_wait_end");
        start += ds_now_ms() - wait_start;
        *host_ms += ds_now_ms() - start;
        return DS_OK;
    }
    /* Unmapping orders GL's later use after the CUDA work on `stream`. */
    cudaGraphicsResource_t resources[2] = {interop->position_resource,
                                           interop->element_resources[slot]};
    DS_TIMELINE_HOST(interop->timeline, "unmap_begin");
    DS_CUDA_TRY("interop", cudaGraphicsUnmapResources(2, resources, (cudaStream_t)stream));
    DS_TIMELINE_HOST(interop->timeline, "unmap_end");
    *host_ms += ds_now_ms() - start;
    return DS_OK;
}

ds_status ds_interop_gl_used(ds_interop *interop, int slot, double *host_ms)
{
    if (interop->mode != DS_INTEROP_EXTERNAL)
        return DS_OK;
    double start = ds_now_ms();
    DS_TIMELINE_HOST(interop->timeline, "fence_flush_begin");
    if (interop->draw_done[slot])
        glDeleteSync(interop->draw_done[slot]);
    /* Signalled when GL has finished every command so far, the draw from
     * element buffer `slot` included; flushed so that it gets signalled. */
    interop->draw_done[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();
    DS_TIMELINE_HOST(interop->timeline, "fence_flush_end");
    *host_ms += ds_now_ms() - start;
    if (!interop->draw_done[slot])
        return ds_fail(DS_ERR_GL, "interop: glFenceSync failed");
    return DS_OK;
}

void ds_interop_set_timeline(ds_interop *interop, struct ds_timeline *timeline)
{
    interop->timeline = timeline;
}

/* ---- buffers lent one frame at a time ---------------------------------- */

#define LENT_MAX 8

struct ds_interop_buffers {
    int count;
    uint32_t names[LENT_MAX];
    cudaGraphicsResource_t resources[LENT_MAX];
};

ds_status ds_interop_buffers_register(const uint32_t *gl_buffers, int count,
                                      ds_interop_buffers **dest)
{
    *dest = NULL;
    if (count <= 0 || count > LENT_MAX)
        return ds_fail(DS_ERR_INVALID_ARG, "interop: %d buffers to lend (1 to %d)", count,
                       LENT_MAX);
    ds_interop_buffers *buffers = calloc(1, sizeof *buffers);
    if (!buffers)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "interop: out of host memory");
    for (int k = 0; k < count; k++) {
        cudaError_t error = cudaGraphicsGLRegisterBuffer(&buffers->resources[k], gl_buffers[k],
                                                         cudaGraphicsRegisterFlagsNone);
        if (error != cudaSuccess) {
            ds_interop_buffers_unregister(buffers);
            return ds_fail(DS_ERR_CUDA, "interop: registering GL buffer %u: %s", gl_buffers[k],
                           cudaGetErrorString(error));
        }
        buffers->names[k] = gl_buffers[k];
        buffers->count = k + 1;
    }
    *dest = buffers;
    return DS_OK;
}

ds_status ds_interop_buffers_map(ds_interop_buffers *buffers, ds_stream stream, void **pointers)
{
    DS_CUDA_TRY("interop", cudaGraphicsMapResources(buffers->count, buffers->resources,
                                                    (cudaStream_t)stream));
    for (int k = 0; k < buffers->count; k++) {
        size_t bytes = 0;
        DS_CUDA_TRY("interop", cudaGraphicsResourceGetMappedPointer(&pointers[k], &bytes,
                                                                    buffers->resources[k]));
    }
    return DS_OK;
}

ds_status ds_interop_buffers_unmap(ds_interop_buffers *buffers, ds_stream stream)
{
    DS_CUDA_TRY("interop", cudaGraphicsUnmapResources(buffers->count, buffers->resources,
                                                      (cudaStream_t)stream));
    return DS_OK;
}

int ds_interop_buffers_are(const ds_interop_buffers *buffers, const uint32_t *gl_buffers,
                           int count)
{
    if (!buffers || buffers->count != count)
        return 0;
    for (int k = 0; k < count; k++)
        if (buffers->names[k] != gl_buffers[k])
            return 0;
    return 1;
}

void ds_interop_buffers_unregister(ds_interop_buffers *buffers)
{
    if (!buffers)
        return;
    for (int k = 0; k < buffers->count; k++)
        cudaGraphicsUnregisterResource(buffers->resources[k]);
    free(buffers);
}
