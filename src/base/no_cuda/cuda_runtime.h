/* SPDX-License-Identifier: MIT */
/* cuda_runtime.h (no_cuda) — the CUDA runtime calls the host code makes,
 * for a build without the CUDA toolkit (DS_CUDA=OFF, or none found).
 *
 * src/CMakeLists.txt puts this folder on the include path in place of the
 * toolkit's, so that the renderer, the sort front end and the EGL set-up
 * compile unchanged. Each call answers as the real runtime does on a
 * machine without a CUDA device: cudaGetDeviceCount() finds none and every
 * other call fails with cudaErrorNoDevice (freeing NULL succeeds). The
 * renderer then takes the path it takes on such a machine, the CPU path
 * (renderer.h), and the GL stages still run in the GL context. Only the
 * names the host code uses are here, with the toolkit's signatures; a new
 * CUDA call in host code fails to compile in this build until it is added
 * (the CI builds both configurations). */
#ifndef DS_NO_CUDA_RUNTIME_H
#define DS_NO_CUDA_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorNotReady = 600,
    cudaErrorNoDevice = 100
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
} cudaMemcpyKind;

/* The same opaque types as the toolkit's, so ds_stream (stream.h) casts. */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int multiProcessorCount;
};

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

cudaError_t cudaMalloc(void **pointer, size_t size);
cudaError_t cudaMallocHost(void **pointer, size_t size);
cudaError_t cudaFree(void *pointer);
cudaError_t cudaFreeHost(void *pointer);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemset(void *pointer, int value, size_t count);
cudaError_t cudaMemsetAsync(void *pointer, int value, size_t count, cudaStream_t stream);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

#ifdef __cplusplus
}
#endif
#endif
