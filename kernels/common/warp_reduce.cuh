/* SPDX-License-Identifier: MIT */
/* warp_reduce.cuh — full-warp reductions of a uint32: the redux.sync
 * instruction on sm_80 and newer, a shuffle butterfly before (the build
 * also targets sm_75). Every lane of the warp must call them together. */
#ifndef DS_WARP_REDUCE_CUH
#define DS_WARP_REDUCE_CUH

#include <stdint.h>

__device__ static inline uint32_t warp_min_u32(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(0xFFFFFFFFu, v);
#else
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v = min(v, __shfl_xor_sync(0xFFFFFFFFu, v, lane_mask));
    return v;
#endif
}

__device__ static inline uint32_t warp_max_u32(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xFFFFFFFFu, v);
#else
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v = max(v, __shfl_xor_sync(0xFFFFFFFFu, v, lane_mask));
    return v;
#endif
}

__device__ static inline uint32_t warp_sum_u32(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xFFFFFFFFu, v);
#else
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v += __shfl_xor_sync(0xFFFFFFFFu, v, lane_mask);
    return v;
#endif
}

#endif
