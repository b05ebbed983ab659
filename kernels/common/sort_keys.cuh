/* SPDX-License-Identifier: MIT */
/* sort_keys.cuh — the float-key order transform shared by the sort
 * kernels and the CPU reference, so that every algorithm agrees on -0, NaN
 * and direction (sort.h). Usable from C (host) and CUDA. */
#ifndef DS_SORT_KEYS_CUH
#define DS_SORT_KEYS_CUH

#include <stdint.h>
#include <string.h>

/* Host-and-device qualifier under our own name, so that C files that also
 * include cuda_runtime.h (which defines __host__) see no redefinition. */
#ifdef __CUDACC__
#define DS_KEYS_HD __host__ __device__
#else
#define DS_KEYS_HD
#endif

/* Order-preserving map from a float key to a uint32 that sorts ascending by
 * unsigned compare in the requested direction, with the sort.h semantics:
 * -0 maps like +0; every NaN maps to 0xFFFFFFFF, last in both directions.
 * Ascending, finite keys and infinities land in [0x007FFFFF, 0xFF800000];
 * descending flips those bits, which keeps them in the same range, so
 * 0xFFFFFFFF stays NaN's alone. */
DS_KEYS_HD static inline uint32_t ds_key_to_ordered(float key,
                                                             int descending)
{
    uint32_t bits;
    memcpy(&bits, &key, sizeof bits);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return 0xFFFFFFFFu;
    if ((bits & 0x7FFFFFFFu) == 0)
        bits = 0;
    uint32_t ordered = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return descending ? ~ordered : ordered;
}

/* Inverse of ds_key_to_ordered: NaN comes back as the canonical quiet NaN
 * and -0 as +0, which sort.h allows. */
DS_KEYS_HD static inline float ds_ordered_to_key(uint32_t ordered,
                                                          int descending)
{
    uint32_t bits;
    if (ordered == 0xFFFFFFFFu) {
        bits = 0x7FC00000u;
    } else {
        if (descending)
            ordered = ~ordered;
        bits = (ordered & 0x80000000u) ? (ordered & 0x7FFFFFFFu) : ~ordered;
    }
    float key;
    memcpy(&key, &bits, sizeof key);
    return key;
}

#undef DS_KEYS_HD

#endif
