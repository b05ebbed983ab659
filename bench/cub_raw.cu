/* SPDX-License-Identifier: MIT */
/* cub_raw.cu — the benchmark's reference point "cub-raw": plain
 * cub::DeviceRadixSort::SortPairs(Descending) on float keys, out of place,
 * with none of the sort library's semantics (no NaN/-0 handling, no
 * in-place contract). Our "cub" backend is measured against it. */
#include <cub/device/device_radix_sort.cuh>

#include <new>

#include "bench_cub_raw.h"
#include "cuda_check.h"

struct bench_cub_raw {
    float *keys_out;
    uint32_t *values_out;
    void *temp;
    size_t temp_bytes;
};

extern "C" void bench_cub_raw_destroy(bench_cub_raw *raw)
{
    if (!raw)
        return;
    cudaFree(raw->keys_out);
    cudaFree(raw->values_out);
    cudaFree(raw->temp);
    delete raw;
}

extern "C" ds_status bench_cub_raw_create(size_t max_count,
                                          bench_cub_raw **dest)
{
    ds_status status = DS_OK;
    size_t ascending_bytes = 0, descending_bytes = 0;
    int n = (int)(max_count ? max_count : 1);
    bench_cub_raw *raw = new (std::nothrow) bench_cub_raw();
    *dest = NULL;
    if (!raw)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "cub-raw: out of host memory");
    DS_CUDA_GOTO(status, fail, "cub-raw",
                 cudaMalloc(&raw->keys_out, n * sizeof(float)));
    DS_CUDA_GOTO(status, fail, "cub-raw",
                 cudaMalloc(&raw->values_out, n * sizeof(uint32_t)));
    DS_CUDA_GOTO(status, fail, "cub-raw",
                 cub::DeviceRadixSort::SortPairs(
                     NULL, ascending_bytes, raw->keys_out, raw->keys_out,
                     raw->values_out, raw->values_out, n));
    DS_CUDA_GOTO(status, fail, "cub-raw",
                 cub::DeviceRadixSort::SortPairsDescending(
                     NULL, descending_bytes, raw->keys_out, raw->keys_out,
                     raw->values_out, raw->values_out, n));
    raw->temp_bytes = ascending_bytes > descending_bytes ? ascending_bytes
                                                         : descending_bytes;
    DS_CUDA_GOTO(status, fail, "cub-raw",
                 cudaMalloc(&raw->temp, raw->temp_bytes));
    *dest = raw;
    return DS_OK;
fail:
    bench_cub_raw_destroy(raw);
    return status;
}

extern "C" ds_status bench_cub_raw_sort(bench_cub_raw *raw, const float *keys,
                                        const uint32_t *values, size_t count,
                                        int descending, ds_stream stream)
{
    size_t temp_bytes = raw->temp_bytes;
    cudaStream_t s = (cudaStream_t)stream;
    if (descending)
        DS_CUDA_TRY("cub-raw", cub::DeviceRadixSort::SortPairsDescending(
                                   raw->temp, temp_bytes, keys, raw->keys_out,
                                   values, raw->values_out, (int)count, 0, 32,
                                   s));
    else
        DS_CUDA_TRY("cub-raw", cub::DeviceRadixSort::SortPairs(
                                   raw->temp, temp_bytes, keys, raw->keys_out,
                                   values, raw->values_out, (int)count, 0, 32,
                                   s));
    return DS_OK;
}
