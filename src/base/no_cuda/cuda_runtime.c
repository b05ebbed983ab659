/* SPDX-License-Identifier: MIT */
/* cuda_runtime.c (no_cuda) — the no-device answers of cuda_runtime.h in a
 * build without the CUDA toolkit: no device is ever found, so no call
 * below is reached on the renderer's CPU path except the device queries
 * and the frees of what was never allocated. */
#include "cuda_runtime.h"

#define NO_DEVICE return cudaErrorNoDevice

cudaError_t cudaGetDeviceCount(int *count)
{
    if (count)
        *count = 0;
    NO_DEVICE;
}

cudaError_t cudaGetDevice(int *device) { (void)device; NO_DEVICE; }
cudaError_t cudaSetDevice(int device) { (void)device; NO_DEVICE; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    (void)prop; (void)device;
    NO_DEVICE;
}

/* The real runtime keeps "no device" sticky until read; nothing here
 * depends on that, so the last error is always none. */
cudaError_t cudaGetLastError(void) { return cudaSuccess; }

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorNoDevice: return "this build has no CUDA (configured without the toolkit)";
    }
    return "unknown error";
}

cudaError_t cudaDeviceSynchronize(void) { NO_DEVICE; }

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    (void)free_bytes; (void)total_bytes;
    NO_DEVICE;
}

cudaError_t cudaMalloc(void **pointer, size_t size)
{
    (void)size;
    if (pointer)
        *pointer = NULL;
    NO_DEVICE;
}

cudaError_t cudaMallocHost(void **pointer, size_t size) { return cudaMalloc(pointer, size); }

/* As the runtime: freeing NULL is no error. */
cudaError_t cudaFree(void *pointer) { return pointer ? cudaErrorNoDevice : cudaSuccess; }
cudaError_t cudaFreeHost(void *pointer) { return cudaFree(pointer); }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)dst; (void)src; (void)count; (void)kind;
    NO_DEVICE;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemset(void *pointer, int value, size_t count)
{
    (void)pointer; (void)value; (void)count;
    NO_DEVICE;
}

cudaError_t cudaMemsetAsync(void *pointer, int value, size_t count, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(pointer, value, count);
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    if (stream)
        *stream = NULL;
    NO_DEVICE;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    (void)flags;
    return cudaStreamCreate(stream);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) { (void)stream; NO_DEVICE; }
cudaError_t cudaStreamSynchronize(cudaStream_t stream) { (void)stream; NO_DEVICE; }

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (event)
        *event = NULL;
    NO_DEVICE;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    (void)flags;
    return cudaEventCreate(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) { (void)event; NO_DEVICE; }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)event; (void)stream;
    NO_DEVICE;
}

cudaError_t cudaEventQuery(cudaEvent_t event) { (void)event; NO_DEVICE; }
cudaError_t cudaEventSynchronize(cudaEvent_t event) { (void)event; NO_DEVICE; }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start; (void)end;
    if (ms)
        *ms = 0.0f;
    NO_DEVICE;
}
