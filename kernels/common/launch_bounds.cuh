/* SPDX-License-Identifier: MIT */
/* launch_bounds.cuh — the minimum resident blocks a kernel's
 * __launch_bounds__ asks for, within what the architecture being compiled
 * can hold: an SM holds at most 1,024 threads on sm_75, 1,536 on sm_86,
 * sm_87 and sm_89, 2,048 on sm_70, sm_72, sm_80 and sm_90. A request
 * beyond that becomes 1: ptxas would drop it anyway, with a warning in
 * every build. The host pass (no __CUDA_ARCH__) takes the largest limit;
 * only the device passes use the value. */
#ifndef DS_LAUNCH_BOUNDS_CUH
#define DS_LAUNCH_BOUNDS_CUH

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define DS_SM_MAX_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
                                 __CUDA_ARCH__ == 890)
#define DS_SM_MAX_THREADS 1536
#else
#define DS_SM_MAX_THREADS 2048
#endif

/* `blocks` of `threads` where they fit on an SM, else 1. */
#define DS_MIN_BLOCKS(threads, blocks) \
    ((threads) * (blocks) <= DS_SM_MAX_THREADS ? (blocks) : 1)

#endif
