/* sort_bitonic.cu — bitonic sort of (float key, uint32 value) pairs in three
 * versions, after the report "Bitonic Sort in CUDA" (Daskalopoulos, 2025):
 *   V0 (bitonic0): one kernel launch per (stage, step), global memory;
 *   V1 (bitonic1): the first stages, and the lower steps of each later
 *       stage, fused into one kernel whose blocks each own a 2048-element
 *       segment in global memory (__syncthreads between steps);
 *   V2 (bitonic2): those fused parts done in shared memory, on 8192-element
 *       tiles; beyond the report, the higher steps of a stage (which the
 *       report runs as one V0 launch each) are fused up to four at a time in
 *       registers, each thread owning a 16- or 32-element butterfly group.
 *
 * Network. Stage s (0-based) merges sorted runs of 2^s into runs of
 * 2^(s+1); its step j compares elements 2^j apart. We use the variant whose
 * first step of a stage compares element i with its mirror in the run
 * (i XOR (2^(s+1) - 1)) and whose every comparator puts the smaller key at
 * the lower index, instead of the report's alternating directions. It sorts
 * the same, and makes padding free: the n keys are padded to the next
 * power of two with virtual +infinity sentinels that are never stored — a
 * comparator that reaches past n is skipped, since the sentinel already
 * sits where the larger key belongs — so nothing at or beyond n is read or
 * written and no scratch memory is needed.
 *
 * Keys are converted in place to the order-preserving uint32 of
 * sort_keys.cuh by a first kernel (descending order, NaN last and -0 == +0
 * are all in that transform; the network always sorts ascending) and back
 * by a last one.
 *
 * Complexity: O(n log^2 n) comparisons; log2(N)(log2(N)+1)/2 steps for
 * N = next power of two of n. Launches: V0 one per step; V1 and V2 one per
 * stage beyond the fused ones plus one per global step (V2: per four).
 *
 * Limits: count <= 2^31 (32-bit indices); not stable.
 */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Threads per block for every step kernel: the report's 1024, which makes
 * V1's fused segment 2 x 1024 elements (the report's step_max = 10). */
#define BITONIC_THREADS 1024
#define V1_SEGMENT_BITS 11 /* log2(2 * BITONIC_THREADS) */
/* V2 shared-memory tile: 8192 pairs = 64 KiB of keys and values (dynamic
 * shared memory; two blocks fit an SM), each thread owning four
 * comparators per step: every doubling of the tile removes one global
 * pass from each later stage. */
#define V2_TILE_BITS 13
/* Also built: 16384-pair tiles (128 KiB, one block per SM), for the
 * measurement in the README. */
#define V2_LARGE_TILE_BITS 14
#define V2_SMEM_BYTES(tile_bits) (2 * ((size_t)1 << (tile_bits)) * sizeof(uint32_t))
/* V2 register-fused global steps per launch: 4 steps means 16 (32 with the
 * mirror step) pairs per thread, still without register spills. */
#define V2_FUSED_STEPS 4
/* Threads per block of the register-fused and conversion kernels. */
#define GROUP_THREADS 256

/* Sentinel key of the V2 tile and register groups: the largest ordered key.
 * A real NaN maps to the same value; compare-and-swap only on a strictly
 * greater key, so neither ever moves past the other. */
#define SENTINEL_KEY 0xFFFFFFFFu

typedef struct bitonic_state {
    int version;   /* 0, 1, 2 */
    int tile_bits; /* V2: log2 of the shared-memory tile */
} bitonic_state;

/* ---- device helpers ---------------------------------------------------- */

/* Puts the smaller key (and its value) at a, the larger at b. */
__device__ __forceinline__ void order_pair(uint32_t &key_a, uint32_t &value_a,
                                           uint32_t &key_b, uint32_t &value_b)
{
    if (key_a > key_b) {
        uint32_t k = key_a, v = value_a;
        key_a = key_b;
        value_a = value_b;
        key_b = k;
        value_b = v;
    }
}

/* The two indices of comparator c at (stage, step): the lower index has a
 * zero at bit `step`; the mirror step pairs it with its reflection in the
 * 2^(stage+1) run. */
__device__ __forceinline__ void comparator(uint32_t c, int stage, int step,
                                           uint32_t *lo, uint32_t *hi)
{
    uint32_t i = ((c >> step) << (step + 1)) | (c & ((1u << step) - 1u));
    *lo = i;
    *hi = step == stage ? i ^ ((2u << stage) - 1u) : i + (1u << step);
}

/* One step on global memory; pairs reaching past n meet a virtual
 * sentinel and stay. */
__device__ __forceinline__ void global_step(uint32_t *keys, uint32_t *values,
                                            uint32_t n, uint32_t c, int stage,
                                            int step)
{
    uint32_t lo, hi;
    comparator(c, stage, step, &lo, &hi);
    if (hi >= n)
        return;
    uint32_t ka = keys[lo], kb = keys[hi];
    if (ka > kb) {
        uint32_t va = values[lo];
        keys[lo] = kb;
        keys[hi] = ka;
        values[lo] = values[hi];
        values[hi] = va;
    }
}

/* ---- kernels ----------------------------------------------------------- */

/* Float keys to ordered uint32 in place (first kernel) and back (last).
 * Thread: one key per grid-stride step. */
__global__ void k_bitonic_to_ordered(uint32_t *keys, uint32_t n,
                                     int descending)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        keys[i] = ds_key_to_ordered(__uint_as_float(keys[i]), descending);
}

__global__ void k_bitonic_from_ordered(uint32_t *keys, uint32_t n,
                                       int descending)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        keys[i] = __float_as_uint(ds_ordered_to_key(keys[i], descending));
}

/* V0: one step. Thread c owns comparator c of the N/2. */
__global__ void __launch_bounds__(BITONIC_THREADS)
k_bitonic_step(uint32_t *keys, uint32_t *values, uint32_t n, int stage,
               int step)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    global_step(keys, values, n, c, stage, step);
}

/* V1: stages [0, last_stage] (first == 1) or steps [step_max, 0] of one
 * stage (first == 0), in global memory. Block b owns elements
 * [b * 2048, (b + 1) * 2048), thread t comparator b * 1024 + t of each
 * step; the barrier makes a step's writes visible to the block before the
 * next step reads them. */
__global__ void __launch_bounds__(BITONIC_THREADS)
k_bitonic_v1_fused(uint32_t *keys, uint32_t *values, uint32_t n, int first,
                   int stage_or_last)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    int stage_begin = first ? 0 : stage_or_last;
    for (int stage = stage_begin; stage <= stage_or_last; stage++) {
        int top = stage < V1_SEGMENT_BITS - 1 ? stage : V1_SEGMENT_BITS - 1;
        for (int step = top; step >= 0; step--) {
            global_step(keys, values, n, c, stage, step);
            __syncthreads();
        }
    }
}

/* V2: as V1 on a 2^TILE_BITS-element tile in shared memory. Block b owns
 * tile b (elements past n become sentinels, never written back); thread t
 * owns comparators t, t + 1024, ... of the tile in each step. The first
 * launch converts float keys to ordered ones as it loads them (in_float)
 * and the last converts them back as it stores (out_float), so no
 * separate conversion pass runs. */
template <int TILE_BITS>
__global__ void __launch_bounds__(BITONIC_THREADS)
k_bitonic_v2_fused(uint32_t *keys, uint32_t *values, uint32_t n, int first,
                   int stage_or_last, int in_float, int out_float,
                   int descending)
{
    const uint32_t tile = 1u << TILE_BITS;
    extern __shared__ uint32_t s_tile[];
    uint32_t *s_keys = s_tile, *s_values = s_tile + tile;
    const uint32_t base = blockIdx.x * tile;
    for (uint32_t i = threadIdx.x; i < tile; i += blockDim.x) {
        uint32_t g = base + i;
        uint32_t k = g < n ? keys[g] : SENTINEL_KEY;
        if (in_float && g < n)
            k = ds_key_to_ordered(__uint_as_float(k), descending);
        s_keys[i] = k;
        s_values[i] = g < n ? values[g] : 0;
    }
    __syncthreads(); /* tile loaded */
    int stage_begin = first ? 0 : stage_or_last;
    for (int stage = stage_begin; stage <= stage_or_last; stage++) {
        int top = stage < TILE_BITS - 1 ? stage : TILE_BITS - 1;
        for (int step = top; step >= 0; step--) {
#pragma unroll 4
            for (uint32_t c = threadIdx.x; c < tile / 2; c += blockDim.x) {
                uint32_t lo, hi;
                comparator(c, stage, step, &lo, &hi);
                order_pair(s_keys[lo], s_values[lo], s_keys[hi], s_values[hi]);
            }
            __syncthreads(); /* step done before the next reads */
        }
    }
    for (uint32_t i = threadIdx.x; i < tile; i += blockDim.x) {
        uint32_t g = base + i;
        if (g < n) {
            uint32_t k = s_keys[i];
            keys[g] = out_float
                          ? __float_as_uint(ds_ordered_to_key(k, descending))
                          : k;
            values[g] = s_values[i];
        }
    }
}

/* V2: steps [step_hi, step_lo] of stage `stage`, all above the tile, with
 * M = step_hi - step_lo + 1 <= V2_FUSED_STEPS, in registers.
 * Without the mirror step (step_hi < stage), thread g owns the 2^M
 * elements base + h * 2^step_lo (h < 2^M), closed under the M steps.
 * With it (step_hi == stage), it owns those with low part l and those with
 * the complementary low part ~l (2^(M+1) elements), since the mirror maps
 * (h, l) to (~h, ~l). Lanes take consecutive l, so loads coalesce. */
template <int M, bool MIRROR>
__global__ void __launch_bounds__(GROUP_THREADS)
k_bitonic_v2_group(uint32_t *keys, uint32_t *values, uint32_t n, int stage,
                   int step_lo, uint32_t groups)
{
    const int H = 1 << M;
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups)
        return;
    uint32_t index[MIRROR ? 2 * H : H];
    uint32_t key[MIRROR ? 2 * H : H], value[MIRROR ? 2 * H : H];
    const uint32_t low_mask = (1u << step_lo) - 1u;
    if (MIRROR) {
        /* step_hi == stage: run of 2^(stage+1); l has its top bit clear. */
        uint32_t per_run = 1u << (step_lo - 1);
        uint32_t run_base = (g / per_run) << (stage + 1);
        uint32_t l = g % per_run;
#pragma unroll
        for (int h = 0; h < H; h++) {
            index[h] = run_base + ((uint32_t)h << step_lo) + l;
            index[H + h] = run_base + ((uint32_t)h << step_lo) + (~l & low_mask);
        }
    } else {
        uint32_t base = ((g >> step_lo) << (step_lo + M)) | (g & low_mask);
#pragma unroll
        for (int h = 0; h < H; h++)
            index[h] = base + ((uint32_t)h << step_lo);
    }
#pragma unroll
    for (int e = 0; e < (MIRROR ? 2 * H : H); e++) {
        key[e] = index[e] < n ? keys[index[e]] : SENTINEL_KEY;
        value[e] = index[e] < n ? values[index[e]] : 0;
    }
    int first_half_step = step_lo + M - 1;
    if (MIRROR) {
        /* (h, l) against (~h, ~l); the lower index keeps the minimum. */
#pragma unroll
        for (int h = 0; h < H / 2; h++)
            order_pair(key[h], value[h], key[H + (H - 1 - h)],
                       value[H + (H - 1 - h)]);
#pragma unroll
        for (int h = H / 2; h < H; h++)
            order_pair(key[H + (H - 1 - h)], value[H + (H - 1 - h)], key[h],
                       value[h]);
        first_half_step--;
    }
#pragma unroll
    for (int half = 0; half < (MIRROR ? 2 : 1); half++) {
#pragma unroll
        for (int b = M - 1; b >= 0; b--) {
            if (step_lo + b > first_half_step)
                continue;
#pragma unroll
            for (int h = 0; h < H; h++)
                if (!(h & (1 << b)))
                    order_pair(key[half * H + h], value[half * H + h],
                               key[half * H + h + (1 << b)],
                               value[half * H + h + (1 << b)]);
        }
    }
#pragma unroll
    for (int e = 0; e < (MIRROR ? 2 * H : H); e++)
        if (index[e] < n) {
            keys[index[e]] = key[e];
            values[index[e]] = value[e];
        }
}

/* ---- host launchers ---------------------------------------------------- */

static int log2_ceil(uint32_t n)
{
    int bits = 0;
    while (((uint64_t)1 << bits) < n)
        bits++;
    return bits;
}

static unsigned blocks_for(uint64_t threads, unsigned per_block)
{
    return (unsigned)((threads + per_block - 1) / per_block);
}

static ds_status launch_step(uint32_t *keys, uint32_t *values, uint32_t n,
                             int log_n, int stage, int step,
                             cudaStream_t stream)
{
    uint64_t comparators = (uint64_t)1 << (log_n - 1);
    k_bitonic_step<<<blocks_for(comparators, BITONIC_THREADS), BITONIC_THREADS,
                     0, stream>>>(keys, values, n, stage, step);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_step");
    return DS_OK;
}

template <int M>
static ds_status launch_group(uint32_t *keys, uint32_t *values, uint32_t n,
                              int log_n, int stage, int step_lo, bool mirror,
                              cudaStream_t stream)
{
    uint32_t groups = (uint32_t)(((uint64_t)1 << log_n) >> (M + (mirror ? 1 : 0)));
    unsigned grid = blocks_for(groups, GROUP_THREADS);
    if (mirror)
        k_bitonic_v2_group<M, true><<<grid, GROUP_THREADS, 0, stream>>>(
            keys, values, n, stage, step_lo, groups);
    else
        k_bitonic_v2_group<M, false><<<grid, GROUP_THREADS, 0, stream>>>(
            keys, values, n, stage, step_lo, groups);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_group");
    return DS_OK;
}

static ds_status launch_group_any(uint32_t *keys, uint32_t *values,
                                  uint32_t n, int log_n, int stage,
                                  int step_hi, int step_lo,
                                  cudaStream_t stream)
{
    bool mirror = step_hi == stage;
    switch (step_hi - step_lo + 1) {
    case 1: return launch_group<1>(keys, values, n, log_n, stage, step_lo, mirror, stream);
    case 2: return launch_group<2>(keys, values, n, log_n, stage, step_lo, mirror, stream);
    case 3: return launch_group<3>(keys, values, n, log_n, stage, step_lo, mirror, stream);
    default: return launch_group<4>(keys, values, n, log_n, stage, step_lo, mirror, stream);
    }
}

/* One V2 tile launch (k_bitonic_v2_fused) with the state's tile size. */
static ds_status launch_tiles(int tile_bits, uint32_t *keys, uint32_t *values,
                              uint32_t n, int log_n, int first,
                              int stage_or_last, int in_float, int out_float,
                              int descending, cudaStream_t stream)
{
    const uint64_t padded = (uint64_t)1 << log_n;
    const unsigned grid = blocks_for(padded, 1u << tile_bits);
    if (tile_bits == V2_LARGE_TILE_BITS)
        k_bitonic_v2_fused<V2_LARGE_TILE_BITS>
            <<<grid, BITONIC_THREADS, V2_SMEM_BYTES(V2_LARGE_TILE_BITS),
               stream>>>(keys, values, n, first, stage_or_last, in_float,
                         out_float, descending);
    else
        k_bitonic_v2_fused<V2_TILE_BITS>
            <<<grid, BITONIC_THREADS, V2_SMEM_BYTES(V2_TILE_BITS), stream>>>(
                keys, values, n, first, stage_or_last, in_float, out_float,
                descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_fused");
    return DS_OK;
}

/* V2's network: conversions fused into the first and last tile launches. */
static ds_status run_network_v2(int tile_bits, uint32_t *keys,
                                uint32_t *values, uint32_t n, int log_n,
                                int descending, cudaStream_t stream)
{
    ds_status status;
    int first_stages = log_n < tile_bits ? log_n : tile_bits;
    if ((status = launch_tiles(tile_bits, keys, values, n, log_n, 1,
                               first_stages - 1, 1, log_n <= tile_bits,
                               descending, stream)))
        return status;
    for (int stage = tile_bits; stage < log_n; stage++) {
        /* Steps above the tile, up to V2_FUSED_STEPS at a time in
         * registers, then the tile's steps. */
        int step = stage;
        while (step >= tile_bits) {
            int count = step - tile_bits + 1;
            if (count > V2_FUSED_STEPS)
                count = V2_FUSED_STEPS;
            if ((status = launch_group_any(keys, values, n, log_n, stage,
                                           step, step - count + 1, stream)))
                return status;
            step -= count;
        }
        if ((status = launch_tiles(tile_bits, keys, values, n, log_n, 0,
                                   stage, 0, stage == log_n - 1, descending,
                                   stream)))
            return status;
    }
    return DS_OK;
}

/* The network for N = 2^log_n, in the version's launches (V0 and V1).
 * Stream order is the global barrier between launches. */
static ds_status run_network(int version, uint32_t *keys, uint32_t *values,
                             uint32_t n, int log_n, cudaStream_t stream)
{
    ds_status status;
    if (version == 0) {
        for (int stage = 0; stage < log_n; stage++)
            for (int step = stage; step >= 0; step--)
                if ((status = launch_step(keys, values, n, log_n, stage, step,
                                          stream)))
                    return status;
        return DS_OK;
    }
    const int fused_bits = V1_SEGMENT_BITS;
    const uint64_t padded = (uint64_t)1 << log_n;
    /* 1024 threads own a 2048-element segment. */
    const unsigned fused_grid = blocks_for(padded / 2, BITONIC_THREADS);
    int first_stages = log_n < fused_bits ? log_n : fused_bits;
    k_bitonic_v1_fused<<<fused_grid, BITONIC_THREADS, 0, stream>>>(
        keys, values, n, 1, first_stages - 1);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v1_fused (first stages)");
    for (int stage = fused_bits; stage < log_n; stage++) {
        /* Steps above the fused segment: one V0 launch each (as the
         * report). */
        for (int step = stage; step >= fused_bits; step--)
            if ((status = launch_step(keys, values, n, log_n, stage, step,
                                      stream)))
                return status;
        k_bitonic_v1_fused<<<fused_grid, BITONIC_THREADS, 0, stream>>>(
            keys, values, n, 0, stage);
        DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v1_fused (lower steps)");
    }
    return DS_OK;
}

/* ---- backend entry ----------------------------------------------------- */

/* create() with an explicit V2 tile size (V2_TILE_BITS or
 * V2_LARGE_TILE_BITS); the backends use V2_TILE_BITS, the measurement
 * calls this directly. */
static ds_status bitonic_create_variant(int version, int tile_bits,
                                        const ds_sorter_desc *desc,
                                        void **state)
{
    *state = NULL;
    if (desc->max_count > ((size_t)1 << 31))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort bitonic%d: max_count %zu exceeds 2^31", version,
                       desc->max_count);
    if (tile_bits != V2_TILE_BITS && tile_bits != V2_LARGE_TILE_BITS)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort bitonic%d: tile of 2^%d is not built", version,
                       tile_bits);
    if (version == 2) {
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_fused<V2_TILE_BITS>,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES(V2_TILE_BITS)));
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_fused<V2_LARGE_TILE_BITS>,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES(V2_LARGE_TILE_BITS)));
    }
    bitonic_state *s = (bitonic_state *)calloc(1, sizeof *s);
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "sort bitonic%d: out of host memory", version);
    s->version = version;
    s->tile_bits = tile_bits;
    *state = s;
    return DS_OK;
}

static ds_status bitonic_create(int version, const ds_sorter_desc *desc,
                                void **state)
{
    return bitonic_create_variant(version, V2_TILE_BITS, desc, state);
}

static ds_status bitonic0_create(const ds_sorter_desc *desc, void **state)
{
    return bitonic_create(0, desc, state);
}

static ds_status bitonic1_create(const ds_sorter_desc *desc, void **state)
{
    return bitonic_create(1, desc, state);
}

static ds_status bitonic2_create(const ds_sorter_desc *desc, void **state)
{
    return bitonic_create(2, desc, state);
}

static void bitonic_destroy(void *state)
{
    free(state);
}

static ds_status bitonic_sort(void *state, float *keys, uint32_t *values,
                              size_t count, ds_sort_order order,
                              ds_stream stream)
{
    const bitonic_state *s = (const bitonic_state *)state;
    cudaStream_t st = (cudaStream_t)stream;
    uint32_t n = (uint32_t)count;
    uint32_t *k = (uint32_t *)keys; /* ordered uint32 between the two
                                       conversion kernels */
    const int descending = order == DS_SORT_DESCENDING;
    const unsigned convert_grid = blocks_for(n, GROUP_THREADS) < 4096
                                      ? blocks_for(n, GROUP_THREADS)
                                      : 4096;
    ds_status status;
    int log_n = log2_ceil(n);
    if (s->version == 2)
        return log_n > 0 ? run_network_v2(s->tile_bits, k, values, n, log_n,
                                          descending, st)
                         : DS_OK;
    k_bitonic_to_ordered<<<convert_grid, GROUP_THREADS, 0, st>>>(k, n,
                                                                 descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_to_ordered");
    if (log_n > 0 &&
        (status = run_network(s->version, k, values, n, log_n, st)))
        return status;
    k_bitonic_from_ordered<<<convert_grid, GROUP_THREADS, 0, st>>>(
        k, n, descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_from_ordered");
    return DS_OK;
}

extern "C" const ds_sort_backend ds_sort_backend_bitonic0 = {
    "bitonic0", 0, 1, bitonic0_create, bitonic_destroy, bitonic_sort, NULL};
extern "C" const ds_sort_backend ds_sort_backend_bitonic1 = {
    "bitonic1", 0, 1, bitonic1_create, bitonic_destroy, bitonic_sort, NULL};
extern "C" const ds_sort_backend ds_sort_backend_bitonic2 = {
    "bitonic2", 0, 1, bitonic2_create, bitonic_destroy, bitonic_sort, NULL};
