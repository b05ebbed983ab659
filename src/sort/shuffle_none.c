/* SPDX-License-Identifier: MIT */
/* shuffle_none.c — the shuffle of sort.h in a build without CUDA
 * (src/CMakeLists.txt builds it in place of kernels/sort/shuffle.cu): it
 * permutes device memory, which such a build never has. The host sort
 * never shuffles (sort.c runs the pass for GPU algorithms only). */
#include "sort.h"

const char *ds_shuffle_method_name(ds_shuffle_method method)
{
    switch (method) {
    case DS_SHUFFLE_FEISTEL: return "feistel";
    case DS_SHUFFLE_ATOMIC_EXCHANGE: return "atomic";
    default: return "unknown";
    }
}

ds_status ds_shuffle_pairs_with(ds_shuffle_method method, float *keys, uint32_t *values,
                                float *scratch_keys, uint32_t *scratch_values, size_t count,
                                uint64_t seed, ds_stream stream)
{
    (void)method; (void)keys; (void)values; (void)scratch_keys; (void)scratch_values;
    (void)count; (void)seed; (void)stream;
    return ds_fail(DS_ERR_UNSUPPORTED, "sort: the shuffle runs on a CUDA device, "
                   "and this build has no CUDA");
}

ds_status ds_shuffle_pairs(float *keys, uint32_t *values, float *scratch_keys,
                           uint32_t *scratch_values, size_t count, uint64_t seed,
                           ds_stream stream)
{
    return ds_shuffle_pairs_with(DS_SHUFFLE_DEFAULT, keys, values, scratch_keys, scratch_values,
                                 count, seed, stream);
}
