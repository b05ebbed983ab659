/* SPDX-License-Identifier: MIT */
/* cuda_check.h — checking every CUDA call and launch, from C or CUDA.
 *
 * DS_CUDA_TRY(call) returns DS_ERR_CUDA from the enclosing function (after
 * logging "<subsystem>: <call> failed: <cuda error>") when call fails;
 * DS_CUDA_TRY_LAUNCH(subsystem, kernel_name) does the same for the last launch. Both work
 * in release builds. For functions with a cleanup label use DS_CUDA_GOTO.
 */
#ifndef DS_CUDA_CHECK_H
#define DS_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "status.h"

#define DS_CUDA_TRY(subsystem, call)                                          \
    do {                                                                      \
        cudaError_t ds_cuda_err_ = (call);                                    \
        if (ds_cuda_err_ != cudaSuccess)                                      \
            return ds_fail(DS_ERR_CUDA, "%s: %s failed: %s", (subsystem),     \
                           #call, cudaGetErrorString(ds_cuda_err_));         \
    } while (0)

#define DS_CUDA_TRY_LAUNCH(subsystem, kernel_name)                            \
    do {                                                                      \
        cudaError_t ds_cuda_err_ = cudaGetLastError();                        \
        if (ds_cuda_err_ != cudaSuccess)                                      \
            return ds_fail(DS_ERR_CUDA, "%s: launch of %s failed: %s",        \
                           (subsystem), (kernel_name),                        \
                           cudaGetErrorString(ds_cuda_err_));                 \
    } while (0)

/* Sets `status` and jumps to `label` on failure. */
#define DS_CUDA_GOTO(status, label, subsystem, call)                          \
    do {                                                                      \
        cudaError_t ds_cuda_err_ = (call);                                    \
        if (ds_cuda_err_ != cudaSuccess) {                                    \
            (status) = ds_fail(DS_ERR_CUDA, "%s: %s failed: %s", (subsystem), \
                               #call, cudaGetErrorString(ds_cuda_err_));     \
            goto label;                                                       \
        }                                                                     \
    } while (0)

#endif
