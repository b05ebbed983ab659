/* SPDX-License-Identifier: MIT */
/* sort_bitonic.cu — bitonic sort of (float key, uint32 value) pairs in device
 * memory, in the three versions of "Bitonic Sort on GPU: CUDA
 * Implementations & Optimizations" (Daskalopoulos, 2025):
 *   bitonic0 (V0): one launch per (stage, step), in global memory;
 *   bitonic1 (V1): stages 0 ... 10, and steps 10 ... 0 of every later
 *       stage, fused into one launch whose blocks each own a 2048-element
 *       segment of global memory; the steps above 10 are V0 launches;
 *   bitonic2 (V2): beyond the report, a sequence of passes, in each of
 *       which a block gathers a local tile of 8192 pairs into registers
 *       and shared memory, runs several consecutive steps on it and
 *       scatters it back. FIRST sorts each contiguous tile (stages 0 ...
 *       12); the later stages' steps, walked in order, are cut into GLOBAL
 *       (strided bits), MERGED (a stage's tail with the next stage's head)
 *       and TILE passes. Every pass kind is a kernel whose register windows
 *       and shared-memory layouts are template constants.
 *
 * Network: the variant whose first step of a stage compares each element
 * with its mirror in the run, so that every comparator puts the smaller key
 * at the lower index. n is padded to a power of two with virtual +infinity
 * sentinels that are never read or written, so any n works in place.
 * Keys go through the order transform of sort_keys.cuh (direction, NaN
 * last, -0 == +0) and back: V0/V1 in a first and a last kernel, V2 inside
 * its first and last passes.
 *
 * Complexity: O(n log^2 n) comparisons, log2(N)(log2(N) + 1)/2 steps for N
 * the next power of two of n. Launches: V0 one per step; V1 one for the
 * first stages, then per later stage one per step above 10 and one fused;
 * V2 one per pass (2^24: 22; 2^27: 30).
 * Memory: in place, no scratch. V2 uses 68 KiB of dynamic shared memory a
 * block (two blocks an SM).
 * Not handled: count > 2^31 (32-bit indices; create refuses); not stable;
 * key_bits is ignored (the full key is sorted).
 *
 * Design, tile layouts and where this departs from the report:
 * docs/algorithms/bitonic.md.
 */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* V0/V1 threads a block: the report's 1024, which makes V1's fused segment
 * 2 x 1024 elements (the report's step_max = 10). */
static constexpr int BITONIC_THREADS = 1024;
static constexpr int V1_SEGMENT_BITS = 11; /* log2(2 * BITONIC_THREADS) */
/* V2 local tile of 2^13 pairs: 68 KiB padded in shared memory, so that two
 * 512-thread blocks fit an SM. */
static constexpr int V2_TILE_BITS = 13;
static constexpr int V2_THREADS = 512;
/* 16 pairs a thread in registers, a window over 4 local index bits: up to
 * four steps between two barriers without spilling. */
static constexpr int V2_WINDOW_BITS = 4;
/* Low index bits a GLOBAL pass keeps contiguous (MERGED at least as many):
 * 2^5 pairs are 128-byte segments of keys and of values; 2^4 makes fewer
 * passes but measured slower. k_bitonic_v2_global's layouts assume 5. */
static constexpr int V2_GLOBAL_LOW_BITS = 5;
/* Conversion kernels (V0/V1): threads a block, and a grid cap past which
 * they stride. */
static constexpr int CONVERT_THREADS = 256;
static constexpr unsigned CONVERT_MAX_BLOCKS = 4096;

/* ---- derived constants ------------------------------------------------- */

static constexpr uint32_t V2_TILE = 1u << V2_TILE_BITS;
static constexpr uint32_t V2_LOCAL_MASK = V2_TILE - 1u;
static constexpr int V2_ITEMS = 1 << V2_WINDOW_BITS; /* pairs a thread */
/* One spare slot after every 16 (v2_pad). */
static constexpr uint32_t V2_PADDED_TILE = V2_TILE + V2_TILE / 16;
static constexpr size_t V2_SMEM_BYTES = V2_PADDED_TILE * sizeof(uint2);
/* A warp's 32 threads hold 2^V2_WARP_BITS pairs: in a window over local
 * bits below it, they are the warp's own block of the tile. */
static constexpr int V2_WARP_BITS = V2_WINDOW_BITS + 5;
/* MERGED passes take a tail of at most steps 10 ... 0 (k_bitonic_v2_merged). */
static constexpr int V2_MERGED_MAX_TAIL = V2_TILE_BITS - 3;

/* Sentinel key of the V2 local tiles: the largest ordered key.
 * A real NaN maps to the same value; compare-and-swap only on a strictly
 * greater key, so neither ever moves past the other. */
static constexpr uint32_t SENTINEL_KEY = 0xFFFFFFFFu;

typedef struct bitonic_state {
    int version; /* 0, 1, 2 */
} bitonic_state;

static_assert(V2_THREADS * V2_ITEMS == V2_TILE, "V2 tile = threads x items");
static_assert(V2_WINDOW_BITS == 4, "v2_window_steps is written for 4 bits");

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

/* ---- V2: passes over local tiles --------------------------------------- */

/* A V2 pass: block b gathers its local tile of 2^V2_TILE_BITS pairs (local
 * index u; the pass kind maps u to a global index), runs a run of steps on
 * it in windows and scatters it back. In a window each thread holds
 * V2_ITEMS pairs, the slots of 4 local index bits, in registers and runs
 * the steps on those bits there; between windows the tile is re-dealt
 * through shared memory. The first window loads from global memory and
 * the last stores there; local elements at or past n are sentinels, never
 * stored. Every window's layout, step list and barrier is a template
 * constant, so that a slot's shared address is the thread's base plus an
 * immediate and a comparator is its five instructions (compare, min, max,
 * two selects). Shared memory is padded instead of swizzled: one spare
 * slot after every 16, so slot v2_pad(u) = u + u / 16, which is additive
 * over disjoint bit sets (v2_pad(a | b) = v2_pad(a) + v2_pad(b)); every
 * layout below keeps the 16 lanes of a half-warp on 16 distinct bank pairs
 * (checked exhaustively on the host).
 *
 * Layouts. Plain window MASK (4 of the 13 local bits): slot s holds the
 * local index whose MASK bits are s (lowest first) and whose other bits
 * are the thread index t (lowest first). Mirror window of stage S >= 4:
 * slot p = (a << 1) | f, a the local bits S - 2 ... S, the bits below S -
 * 2 are t's L (top bit clear) for f = 0 and ~L for f = 1, the bits above S
 * are t's rest; so the stage's mirror step, which flips every bit 0 ... S,
 * is slot p against p ^ 15. A plain window whose bits all lie below
 * V2_WARP_BITS, and every mirror window of a stage below V2_WARP_BITS,
 * holds exactly the pairs with u >> V2_WARP_BITS == warp, so two such
 * windows in a row need only __syncwarp(). */

/* The register part of a window: slot p of the thread's V2_ITEMS. */
template <int Q>
__device__ __forceinline__ void v2_half_cleaner(uint32_t (&key)[V2_ITEMS],
                                                uint32_t (&value)[V2_ITEMS])
{
#pragma unroll
    for (int p = 0; p < V2_ITEMS; p++)
        if (!(p & (1 << Q)))
            order_pair(key[p], value[p], key[p | (1 << Q)],
                       value[p | (1 << Q)]);
}

/* Slot p against its mirror p ^ (2^(Q+1) - 1); bit Q clear keeps the min. */
template <int Q>
__device__ __forceinline__ void v2_mirror(uint32_t (&key)[V2_ITEMS],
                                          uint32_t (&value)[V2_ITEMS])
{
#pragma unroll
    for (int p = 0; p < V2_ITEMS; p++)
        if (!(p & (1 << Q)))
            order_pair(key[p], value[p], key[p ^ ((2 << Q) - 1)],
                       value[p ^ ((2 << Q) - 1)]);
}

/* Window's steps in slot space: for each mirror stage ms in
 * [ms_first, ms_last] its mirror and half-cleaners ms - 1 ... 0 (the last
 * one's down to q_bot); with no mirror stage, half-cleaners q_top ...
 * q_bot. The branches are uniform; slot indices stay compile-time. */
__device__ __forceinline__ void v2_window_steps(uint32_t (&key)[V2_ITEMS],
                                                uint32_t (&value)[V2_ITEMS],
                                                int ms_first, int ms_last,
                                                int q_top, int q_bot)
{
#pragma unroll
    for (int ms = 0; ms < V2_WINDOW_BITS; ms++) {
        if (ms < ms_first || ms > ms_last)
            continue;
        switch (ms) {
        case 0: v2_mirror<0>(key, value); break;
        case 1: v2_mirror<1>(key, value); break;
        case 2: v2_mirror<2>(key, value); break;
        default: v2_mirror<3>(key, value); break;
        }
        int bottom = ms == ms_last ? q_bot : 0;
#pragma unroll
        for (int q = V2_WINDOW_BITS - 2; q >= 0; q--)
            if (q < ms && q >= bottom) {
                if (q == 0) v2_half_cleaner<0>(key, value);
                else if (q == 1) v2_half_cleaner<1>(key, value);
                else v2_half_cleaner<2>(key, value);
            }
    }
    if (ms_first > ms_last) {
        if (3 <= q_top && 3 >= q_bot) v2_half_cleaner<3>(key, value);
        if (2 <= q_top && 2 >= q_bot) v2_half_cleaner<2>(key, value);
        if (1 <= q_top && 1 >= q_bot) v2_half_cleaner<1>(key, value);
        if (0 <= q_top && 0 >= q_bot) v2_half_cleaner<0>(key, value);
    }
}

__host__ __device__ constexpr uint32_t v2_pad(uint32_t u)
{
    return u + (u >> 4);
}

/* The bits of x placed, lowest first, on the set bits of mask. */
__host__ __device__ constexpr uint32_t v2_deposit(uint32_t x, uint32_t mask)
{
    uint32_t u = 0;
    for (int b = 0, q = 0; b < 32; b++)
        if ((mask >> b) & 1u)
            u |= ((x >> q++) & 1u) << b;
    return u;
}

/* Slot bit of local bit `bit` in a window over mask. */
__host__ __device__ constexpr int v2_slot_bit(uint32_t mask, int bit)
{
    int q = 0;
    for (int b = 0; b < bit; b++)
        q += (mask >> b) & 1u;
    return q;
}

/* Length of the run of set bits of mask that starts at bit b. */
__host__ __device__ constexpr int v2_run_length(uint32_t mask, int b)
{
    int len = 0;
    while (b + len < 32 && ((mask >> (b + len)) & 1u))
        len++;
    return len;
}

/* Highest set bit. */
__host__ __device__ constexpr int v2_top_bit(uint32_t mask)
{
    int top = -1;
    for (int b = 0; b < 32; b++)
        if ((mask >> b) & 1u)
            top = b;
    return top;
}

/* Mask of the window that ends a run of steps j ... 0 (j <= 3): local bits
 * 0 ... j and the top 3 - j, so that the thread bits sit right above the
 * low run (contiguous global stores). */
__host__ __device__ constexpr uint32_t v2_final_mask(int j)
{
    return ((2u << j) - 1u) |
           (((1u << (3 - j)) - 1u) << (V2_TILE_BITS - (3 - j)));
}

/* Whether the chunk of steps from j down reaches step 0 (see
 * v2_chunks). */
__host__ __device__ constexpr bool v2_chunk_last(int j, bool final)
{
    return j <= (final ? 1 : V2_WINDOW_BITS - 1);
}

/* A TILE pass's first chunk from step 6 or 7 runs on local bits 5 ... 8
 * (steps j ... 5), so that its global loads are 128 contiguous bytes a
 * warp. */
__host__ __device__ constexpr bool v2_chunk_wide(int j, bool final,
                                                 bool from_global)
{
    return final && from_global && j >= 6 && j <= 7;
}

/* Mask of the window of the chunk of steps from j down. */
__host__ __device__ constexpr uint32_t v2_chunk_mask(int j, bool final,
                                                     bool from_global = false)
{
    return v2_chunk_last(j, final) ? (final ? v2_final_mask(j) : 0xFu)
           : v2_chunk_wide(j, final, from_global)
               ? 0xFu << 5
               : 0xFu << (j > V2_WINDOW_BITS - 1 ? j - (V2_WINDOW_BITS - 1)
                                                : 0);
}

/* The lowest step of the chunk of steps from j down. */
__host__ __device__ constexpr int v2_chunk_low(int j, bool final,
                                               bool from_global)
{
    return v2_chunk_last(j, final)                 ? 0
           : v2_chunk_wide(j, final, from_global) ? 5
           : j - (V2_WINDOW_BITS - 1) > (final ? 2 : 0)
               ? j - (V2_WINDOW_BITS - 1)
               : (final ? 2 : 0);
}

/* Thread t's local index in a plain window over MASK (its slot 0). */
template <uint32_t MASK>
__device__ __forceinline__ uint32_t v2_spread_thread(uint32_t t)
{
    constexpr uint32_t free_bits = ~MASK & V2_LOCAL_MASK;
    uint32_t u = 0;
    int q = 0;
#pragma unroll
    for (int b = 0; b < V2_TILE_BITS; b++)
        if (((free_bits >> b) & 1u) &&
            (b == 0 || !((free_bits >> (b - 1)) & 1u))) {
            const int len = v2_run_length(free_bits, b);
            u |= ((t >> q) & ((1u << len) - 1u)) << b;
            q += len;
        }
    return u;
}

/* What a block's windows need: arrays, count, its tile, the tile in
 * shared memory, the key conversions. */
typedef struct v2_block {
    uint32_t *keys, *values;
    uint32_t n;
    uint32_t tile_base; /* global index of local element 0 */
    uint2 *s_pairs;     /* V2_PADDED_TILE slots */
    int in_float, out_float, descending;
} v2_block;

/* Half-cleaner steps HI ... LO (local bits, all in MASK), in slot space. */
template <uint32_t MASK, int HI, int LO>
__device__ __forceinline__ void v2_steps(uint32_t (&key)[V2_ITEMS],
                                         uint32_t (&value)[V2_ITEMS])
{
    if constexpr (HI >= LO) {
        static_assert((MASK >> HI) & 1u, "step outside the window");
        v2_half_cleaner<v2_slot_bit(MASK, HI)>(key, value);
        v2_steps<MASK, HI - 1, LO>(key, value);
    }
}

/* Plain window MASK from shared memory. */
template <uint32_t MASK>
__device__ __forceinline__ void v2_shared_load(const v2_block &b,
                                               uint32_t (&key)[V2_ITEMS],
                                               uint32_t (&value)[V2_ITEMS])
{
    const uint2 *base =
        b.s_pairs + v2_pad(v2_spread_thread<MASK>(threadIdx.x));
#pragma unroll
    for (int s = 0; s < V2_ITEMS; s++) {
        uint2 kv = base[v2_pad(v2_deposit(s, MASK))];
        key[s] = kv.x;
        value[s] = kv.y;
    }
}

/* Plain window MASK to shared memory, then the barrier that makes it
 * visible to the next window: __syncwarp() if WARP (both windows hold the
 * warp's own pairs), else __syncthreads(). */
template <uint32_t MASK, bool WARP>
__device__ __forceinline__ void
v2_shared_store(const v2_block &b, const uint32_t (&key)[V2_ITEMS],
                const uint32_t (&value)[V2_ITEMS])
{
    uint2 *base = b.s_pairs + v2_pad(v2_spread_thread<MASK>(threadIdx.x));
#pragma unroll
    for (int s = 0; s < V2_ITEMS; s++)
        base[v2_pad(v2_deposit(s, MASK))] = make_uint2(key[s], value[s]);
    if constexpr (WARP)
        __syncwarp();
    else
        __syncthreads();
}

/* Mirror window of stage S from (LOAD) or to (!LOAD) shared memory. */
template <int S, bool LOAD>
__device__ __forceinline__ void v2_mirror_io(const v2_block &b,
                                             uint32_t (&key)[V2_ITEMS],
                                             uint32_t (&value)[V2_ITEMS])
{
    static_assert(S >= V2_WINDOW_BITS && S < V2_TILE_BITS, "mirror stage");
    const uint32_t t = threadIdx.x;
    const uint32_t low = t & ((1u << (S - 3)) - 1u);
    const uint32_t high = (t >> (S - 3)) << (S + 1);
    uint2 *base0 = b.s_pairs + v2_pad(high | low);
    uint2 *base1 = b.s_pairs + v2_pad(high | (low ^ ((1u << (S - 2)) - 1u)));
#pragma unroll
    for (int p = 0; p < V2_ITEMS; p++) {
        uint2 *slot = (p & 1 ? base1 : base0) + v2_pad((p >> 1) << (S - 2));
        if constexpr (LOAD) {
            uint2 kv = *slot;
            key[p] = kv.x;
            value[p] = kv.y;
        } else {
            *slot = make_uint2(key[p], value[p]);
        }
    }
}

/* Plain window MASK from global memory: vectors over the low slot bits
 * that are local bits 0, 1; past n, sentinels. */
template <uint32_t MASK>
__device__ __forceinline__ void v2_tile_global_load(const v2_block &b,
                                                    uint32_t (&key)[V2_ITEMS],
                                                    uint32_t (&value)[V2_ITEMS])
{
    const uint32_t g0 = b.tile_base + v2_spread_thread<MASK>(threadIdx.x);
    constexpr int vec = (MASK & 3u) == 3u ? 4 : (MASK & 1u) ? 2 : 1;
    if (b.tile_base + V2_TILE <= b.n) {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s += vec) {
            const uint32_t g = g0 + v2_deposit(s, MASK);
            if constexpr (vec == 4) {
                uint4 kk = *(const uint4 *)(b.keys + g);
                uint4 vv = *(const uint4 *)(b.values + g);
                key[s] = kk.x; key[s + 1] = kk.y; key[s + 2] = kk.z; key[s + 3] = kk.w;
                value[s] = vv.x; value[s + 1] = vv.y; value[s + 2] = vv.z; value[s + 3] = vv.w;
            } else if constexpr (vec == 2) {
                uint2 kk = *(const uint2 *)(b.keys + g);
                uint2 vv = *(const uint2 *)(b.values + g);
                key[s] = kk.x; key[s + 1] = kk.y;
                value[s] = vv.x; value[s + 1] = vv.y;
            } else {
                key[s] = b.keys[g];
                value[s] = b.values[g];
            }
        }
    } else {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++) {
            const uint32_t g = g0 + v2_deposit(s, MASK);
            key[s] = g < b.n ? b.keys[g] : SENTINEL_KEY;
            value[s] = g < b.n ? b.values[g] : 0;
        }
    }
    if (b.in_float) /* the sentinel, a NaN, maps to itself */
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++)
            key[s] = ds_key_to_ordered(__uint_as_float(key[s]), b.descending);
}

/* Plain window MASK to global memory; nothing at or past n. */
template <uint32_t MASK>
__device__ __forceinline__ void
v2_tile_global_store(const v2_block &b, uint32_t (&key)[V2_ITEMS],
                     uint32_t (&value)[V2_ITEMS])
{
    if (b.out_float)
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++)
            key[s] = __float_as_uint(ds_ordered_to_key(key[s], b.descending));
    const uint32_t g0 = b.tile_base + v2_spread_thread<MASK>(threadIdx.x);
    constexpr int vec = (MASK & 3u) == 3u ? 4 : (MASK & 1u) ? 2 : 1;
    if (b.tile_base + V2_TILE <= b.n) {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s += vec) {
            const uint32_t g = g0 + v2_deposit(s, MASK);
            if constexpr (vec == 4) {
                *(uint4 *)(b.keys + g) = make_uint4(key[s], key[s + 1], key[s + 2], key[s + 3]);
                *(uint4 *)(b.values + g) = make_uint4(value[s], value[s + 1], value[s + 2], value[s + 3]);
            } else if constexpr (vec == 2) {
                *(uint2 *)(b.keys + g) = make_uint2(key[s], key[s + 1]);
                *(uint2 *)(b.values + g) = make_uint2(value[s], value[s + 1]);
            } else {
                b.keys[g] = key[s];
                b.values[g] = value[s];
            }
        }
    } else {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++) {
            const uint32_t g = g0 + v2_deposit(s, MASK);
            if (g < b.n) {
                b.keys[g] = key[s];
                b.values[g] = value[s];
            }
        }
    }
}

/* Windows of the window-sized chunks of steps J ... 0 (no mirror), from
 * the top: J ... J - 3, and so on; the chunk that reaches step 0 runs on
 * bits 0 ... 3, or, if it stores to global memory (FINAL), is steps 1 ...
 * 0 (or 0) on v2_final_mask, where a warp's store is 512 (256)
 * contiguous bytes: a final chunk of steps 3 ... 0 or 2 ... 0 would leave
 * 64- or 32-byte gaps between lanes, which costs more than the extra
 * window. FROM_GLOBAL: the first window loads from global memory.
 * NEXT_TOP: the top local bit of the window after the last (for its
 * barrier). */
template <int J, bool FROM_GLOBAL, bool FINAL, int NEXT_TOP>
__device__ __forceinline__ void v2_chunks(const v2_block &b,
                                          uint32_t (&key)[V2_ITEMS],
                                          uint32_t (&value)[V2_ITEMS])
{
    constexpr bool last = v2_chunk_last(J, FINAL);
    constexpr int lo = v2_chunk_low(J, FINAL, FROM_GLOBAL);
    constexpr uint32_t mask = v2_chunk_mask(J, FINAL, FROM_GLOBAL);
    if constexpr (FROM_GLOBAL)
        v2_tile_global_load<mask>(b, key, value);
    else
        v2_shared_load<mask>(b, key, value);
    v2_steps<mask, J, lo>(key, value);
    if constexpr (last && FINAL) {
        v2_tile_global_store<mask>(b, key, value);
    } else {
        constexpr int next_top =
            last ? NEXT_TOP : v2_top_bit(v2_chunk_mask(lo - 1, FINAL));
        constexpr int top = v2_top_bit(mask);
        v2_shared_store<mask,
                        (top > next_top ? top : next_top) < V2_WARP_BITS>(
            b, key, value);
        if constexpr (!last)
            v2_chunks<lo - 1, false, FINAL, NEXT_TOP>(b, key, value);
    }
}

/* FIRST pass, stage S >= 4 and those after it up to V2_TILE_BITS - 1: the
 * mirror window (steps S, S - 1, S - 2), then the chunks of the rest. */
template <int S>
__device__ __forceinline__ void v2_first_stage(const v2_block &b,
                                               uint32_t (&key)[V2_ITEMS],
                                               uint32_t (&value)[V2_ITEMS])
{
    constexpr bool final = S == V2_TILE_BITS - 1;
    v2_mirror_io<S, true>(b, key, value);
    v2_mirror<3>(key, value);
    v2_half_cleaner<2>(key, value);
    v2_half_cleaner<1>(key, value);
    v2_mirror_io<S, false>(b, key, value);
    constexpr int next_top = v2_top_bit(v2_chunk_mask(S - 3, final));
    if constexpr ((S > next_top ? S : next_top) < V2_WARP_BITS)
        __syncwarp();
    else
        __syncthreads();
    v2_chunks<S - 3, false, final, S + 1>(b, key, value);
    if constexpr (!final)
        v2_first_stage<S + 1>(b, key, value);
}

/* FIRST pass: block b sorts the 2^V2_TILE_BITS contiguous pairs from
 * b x 2^V2_TILE_BITS (stages 0 ... V2_TILE_BITS - 1, the keys converted
 * to ordered on load, and back on store if out_float); thread t holds 16
 * of them in each window (v2_* above). Padding past n: sentinels. */
__global__ void __launch_bounds__(V2_THREADS, 2)
k_bitonic_v2_first(uint32_t *keys, uint32_t *values, uint32_t n,
                   int out_float, int descending)
{
    extern __shared__ uint2 s_padded[];
    const v2_block b = {keys, values, n, blockIdx.x * V2_TILE,
                        s_padded, 1, out_float, descending};
    uint32_t key[V2_ITEMS], value[V2_ITEMS];
    /* stages 0 ... 3: each thread's 16 contiguous pairs, in registers */
    v2_tile_global_load<0xFu>(b, key, value);
    v2_window_steps(key, value, 0, V2_WINDOW_BITS - 1, 0, 0);
    v2_shared_store<0xFu, true>(b, key, value);
    v2_first_stage<V2_WINDOW_BITS>(b, key, value);
}

/* TILE pass: steps TOP ... 0 of a stage on each contiguous
 * 2^V2_TILE_BITS-pair tile (block b: tile b), loaded from and stored to
 * global memory (keys back to floats if out_float). */
template <int TOP>
__global__ void __launch_bounds__(V2_THREADS, 2)
k_bitonic_v2_tile(uint32_t *keys, uint32_t *values, uint32_t n,
                  int out_float, int descending)
{
    extern __shared__ uint2 s_padded[];
    const v2_block b = {keys, values, n, blockIdx.x * V2_TILE,
                        s_padded, 0, out_float, descending};
    uint32_t key[V2_ITEMS], value[V2_ITEMS];
    v2_chunks<TOP, true, true, V2_TILE_BITS - 1>(b, key, value);
}

/* GLOBAL pass: steps step_hi ... step_lo of a stage, all at or above
 * V2_TILE_BITS, 8 - MIRROR of them (step_hi the stage's mirror if
 * MIRROR). Local tile u = [low: V2_GLOBAL_LOW_BITS][pair: 1 if MIRROR][h:
 * 8 - MIRROR]: low is global bits 0 ... 4 (contiguous in memory), h the
 * global bits step_lo ... step_hi, and the bits between (the middle) and
 * above come from the block index. With the mirror the block holds a
 * middle value r (top bit clear) under pair = 0 and its complement ~r
 * under pair = 1, so that the mirror of u (every global bit up to step_hi
 * flipped) is u XOR all ones: local stage 12's mirror window, then steps
 * 9 ... 6; without, steps 12 ... 9 and 8 ... 5. Two windows, the first
 * loading from global memory and the second storing there. Global index
 * of u: the block's base for its pair bit (its middle value or the
 * complement) plus h << step_lo plus low, additive over u's bits, so a
 * slot's index is the window's base plus a per-slot multiple of
 * 2^step_lo. Lanes 0 ... 31 of a warp hold 32 consecutive low indices:
 * 128 contiguous bytes. */

template <bool MIRROR> struct v2_global_map {
    uint32_t base0, base1; /* index of u = 0 and of its pair (MIRROR) */
    int step_lo;

    __device__ __forceinline__ uint32_t index(uint32_t u) const
    {
        const uint32_t pair = MIRROR ? (u >> V2_GLOBAL_LOW_BITS) & 1u : 0u;
        return (pair ? base1 : base0) +
               ((u >> (V2_GLOBAL_LOW_BITS + MIRROR)) << step_lo) +
               (u & ((1u << V2_GLOBAL_LOW_BITS) - 1u));
    }
};

/* Loads (LOAD) or stores slot s of a window from/to global index g;
 * nothing at or past n (sentinels in). */
__device__ __forceinline__ void v2_global_slot(const v2_block &b,
                                               uint32_t g, bool load,
                                               uint32_t &key, uint32_t &value)
{
    if (load) {
        key = g < b.n ? b.keys[g] : SENTINEL_KEY;
        value = g < b.n ? b.values[g] : 0;
    } else if (g < b.n) {
        b.keys[g] = key;
        b.values[g] = value;
    }
}

/* Plain window MASK (no pair bit in it) from or to global memory. */
template <uint32_t MASK, bool MIRROR, bool LOAD>
__device__ __forceinline__ void v2_global_plain_io(const v2_block &b,
                                                   const v2_global_map<MIRROR> &m,
                                                   uint32_t (&key)[V2_ITEMS],
                                                   uint32_t (&value)[V2_ITEMS])
{
    static_assert(!MIRROR || !((MASK >> V2_GLOBAL_LOW_BITS) & 1u),
                  "the pair bit stays in the thread's base");
    static_assert(!(MASK & ((1u << V2_GLOBAL_LOW_BITS) - 1u)),
                  "low bits stay in the thread's base");
    const uint32_t g0 = m.index(v2_spread_thread<MASK>(threadIdx.x));
#pragma unroll
    for (int s = 0; s < V2_ITEMS; s++)
        v2_global_slot(b,
                       g0 + ((v2_deposit(s, MASK) >>
                              (V2_GLOBAL_LOW_BITS + MIRROR))
                             << m.step_lo),
                       LOAD, key[s], value[s]);
}

/* GLOBAL pass of a stage: steps step_hi ... step_lo (step_hi the stage's
 * mirror if MIRROR), block b: local tile b (see above). */
template <bool MIRROR>
__global__ void __launch_bounds__(V2_THREADS, 2)
k_bitonic_v2_global(uint32_t *keys, uint32_t *values, uint32_t n,
                    int step_hi, int step_lo)
{
    extern __shared__ uint2 s_padded[];
    const int middle_bits = step_lo - V2_GLOBAL_LOW_BITS;
    const int block_bits = middle_bits - MIRROR;
    const uint32_t middle = blockIdx.x & ((1u << block_bits) - 1u);
    const uint32_t high = (blockIdx.x >> block_bits) << step_hi << 1;
    v2_global_map<MIRROR> m;
    m.base0 = high | (middle << V2_GLOBAL_LOW_BITS);
    m.base1 = high | ((~middle & ((1u << middle_bits) - 1u))
                      << V2_GLOBAL_LOW_BITS);
    m.step_lo = step_lo;
    if (m.base0 >= n)
        return; /* the whole tile is padding (u = 0 is its least index) */
    const v2_block b = {keys, values, n, 0, s_padded, 0, 0, 0};
    uint32_t key[V2_ITEMS], value[V2_ITEMS];
    if constexpr (MIRROR) {
        /* mirror window of local stage 12: slot p = (a << 1) | f, a the
         * local bits 10 ... 12 (h bits 4 ... 6), f picking L or ~L */
        constexpr int S = V2_TILE_BITS - 1;
        const uint32_t t = threadIdx.x;
        const uint32_t low = t & ((1u << (S - 3)) - 1u);
        const uint32_t g_f[2] = {m.index(low),
                                 m.index(low ^ ((1u << (S - 2)) - 1u))};
#pragma unroll
        for (int p = 0; p < V2_ITEMS; p++)
            v2_global_slot(b, g_f[p & 1] + ((uint32_t)(p >> 1) << 4 << step_lo),
                           true, key[p], value[p]);
        v2_mirror<3>(key, value);
        v2_half_cleaner<2>(key, value);
        v2_half_cleaner<1>(key, value);
        v2_mirror_io<S, false>(b, key, value);
        __syncthreads();
        constexpr uint32_t mask = 0xFu << 6;
        v2_shared_load<mask>(b, key, value);
        v2_steps<mask, 9, 6>(key, value);
        v2_global_plain_io<mask, MIRROR, false>(b, m, key, value);
    } else {
        constexpr uint32_t top = 0xFu << 9, bottom = 0xFu << 5;
        v2_global_plain_io<top, MIRROR, true>(b, m, key, value);
        v2_steps<top, 12, 9>(key, value);
        v2_shared_store<top, false>(b, key, value);
        v2_shared_load<bottom>(b, key, value);
        v2_steps<bottom, 8, 5>(key, value);
        v2_global_plain_io<bottom, MIRROR, false>(b, m, key, value);
    }
}

/* A pass kernel taken from a table: keys, values, n and two
 * ints (TILE: out_float, descending; MERGED: step_hi, step_lo). */
typedef void (*v2_pass_kernel)(uint32_t *, uint32_t *, uint32_t, int, int);

/* k_bitonic_v2_tile<top> by its top step. */
static const v2_pass_kernel v2_tile_kernels[V2_TILE_BITS] = {
    k_bitonic_v2_tile<0>, k_bitonic_v2_tile<1>,  k_bitonic_v2_tile<2>,
    k_bitonic_v2_tile<3>, k_bitonic_v2_tile<4>,  k_bitonic_v2_tile<5>,
    k_bitonic_v2_tile<6>, k_bitonic_v2_tile<7>,  k_bitonic_v2_tile<8>,
    k_bitonic_v2_tile<9>, k_bitonic_v2_tile<10>, k_bitonic_v2_tile<11>,
    k_bitonic_v2_tile<12>};
static_assert(V2_TILE_BITS == 13, "v2_tile_kernels lists 13 instances");

/* MERGED pass: the tail of stage s, steps T ... 0, and the head of stage
 * s + 1, its mirror and H = 10 - K steps after it (K = max(T, 4)), in one
 * pass (run_passes_v2). Local tile u = [low: K + 1 bits,
 * contiguous global bits 0 ... K][pair: 1][h: H + 1 bits, global steps
 * step_lo ... s + 1]; the block supplies the middle bits between (and the
 * pair bit its complement, as in GLOBAL) and those above. The tail runs on
 * the low bits; the mirror of stage s + 1 flips every global bit up to
 * s + 1, that is every local bit (the middle through the pair bit), so it
 * is local stage 12's mirror window, whose half-cleaners on local bits 11
 * and 10 are head steps where H reaches them; the rest of the head, local
 * bits 9 ... K + 2, is one more window. The first window loads and the
 * last stores global memory; every slot's index is computed from its local
 * index (the map is additive but the pair bit may sit inside a window). */
template <int K> struct v2_merged_map {
    uint32_t base0, base1; /* global index of u = 0 and of its pair */
    int step_lo;

    __device__ __forceinline__ uint32_t index(uint32_t u) const
    {
        return (((u >> (K + 1)) & 1u) ? base1 : base0) +
               (u & ((2u << K) - 1u)) + ((u >> (K + 2)) << step_lo);
    }
};

/* Window MASK (plain) or the mirror window of local stage 12 (MIRROR),
 * from (LOAD) or to global memory through map m. */
template <uint32_t MASK, bool MIRROR, bool LOAD, class Map>
__device__ __forceinline__ void v2_mapped_io(const v2_block &b,
                                             const Map &m,
                                             uint32_t (&key)[V2_ITEMS],
                                             uint32_t (&value)[V2_ITEMS])
{
    const uint32_t t = threadIdx.x;
    if constexpr (MIRROR) {
        constexpr int S = V2_TILE_BITS - 1;
        const uint32_t low = t & ((1u << (S - 3)) - 1u);
#pragma unroll
        for (int p = 0; p < V2_ITEMS; p++) {
            const uint32_t l = p & 1 ? low ^ ((1u << (S - 2)) - 1u) : low;
            v2_global_slot(b, m.index(l | ((uint32_t)(p >> 1) << (S - 2))),
                           LOAD, key[p], value[p]);
        }
    } else {
        const uint32_t u0 = v2_spread_thread<MASK>(t);
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++)
            v2_global_slot(b, m.index(u0 | v2_deposit(s, MASK)), LOAD, key[s],
                           value[s]);
    }
}

/* The tail's chunks of steps J ... 0 on the low local bits, the first
 * (FIRST) loading through the map: from step 5 ... 7 it runs on local
 * bits 5 ... 8 (steps J ... 5) so that a warp loads 128 contiguous bytes;
 * the others as v2_chunks; every one stores to shared memory (the
 * mirror window follows). */
template <int J, bool FIRST, class Map>
__device__ __forceinline__ void v2_merged_tail(const v2_block &b,
                                               const Map &m,
                                               uint32_t (&key)[V2_ITEMS],
                                               uint32_t (&value)[V2_ITEMS])
{
    constexpr bool wide = FIRST && J >= 5 && J <= 7;
    constexpr bool last = J <= V2_WINDOW_BITS - 1;
    constexpr int lo = wide ? 5 : last ? 0 : J - (V2_WINDOW_BITS - 1);
    constexpr uint32_t mask = wide ? 0xFu << 5 : v2_chunk_mask(J, false);
    if constexpr (FIRST)
        v2_mapped_io<mask, false, true>(b, m, key, value);
    else
        v2_shared_load<mask>(b, key, value);
    v2_steps<mask, J, lo>(key, value);
    constexpr int next_top =
        lo == 0 ? V2_TILE_BITS - 1 : v2_top_bit(v2_chunk_mask(lo - 1, false));
    constexpr int top = v2_top_bit(mask);
    v2_shared_store<mask, (top > next_top ? top : next_top) < V2_WARP_BITS>(
        b, key, value);
    if constexpr (lo > 0)
        v2_merged_tail<lo - 1, false>(b, m, key, value);
}

/* MERGED pass with tail top T (see v2_merged_map): block b its tile;
 * step_hi = s + 1, step_lo = s + 1 - H. */
template <int T>
__global__ void __launch_bounds__(V2_THREADS, 2)
k_bitonic_v2_merged(uint32_t *keys, uint32_t *values, uint32_t n,
                    int step_hi, int step_lo)
{
    constexpr int K = T > V2_WINDOW_BITS ? T : V2_WINDOW_BITS;
    constexpr int H = V2_TILE_BITS - 3 - K;
    static_assert(H >= 0, "the head holds at least the mirror");
    extern __shared__ uint2 s_padded[];
    const int middle_bits = step_lo - (K + 1); /* >= 1: the planner */
    const int block_bits = middle_bits - 1;
    const uint32_t middle = blockIdx.x & ((1u << block_bits) - 1u);
    const uint32_t high = (blockIdx.x >> block_bits) << step_hi << 1;
    v2_merged_map<K> m;
    m.base0 = high | (middle << (K + 1));
    m.base1 = high | ((~middle & ((1u << middle_bits) - 1u)) << (K + 1));
    m.step_lo = step_lo;
    if (m.base0 >= n)
        return; /* the whole tile is padding (u = 0 is its least index) */
    const v2_block b = {keys, values, n, 0, s_padded, 0, 0, 0};
    uint32_t key[V2_ITEMS], value[V2_ITEMS];
    v2_merged_tail<T, true>(b, m, key, value);
    /* stage s + 1: mirror (local 12) and head steps on local 11, 10 */
    v2_mirror_io<V2_TILE_BITS - 1, true>(b, key, value);
    v2_mirror<3>(key, value);
    if constexpr (H >= 1)
        v2_half_cleaner<2>(key, value);
    if constexpr (H >= 2)
        v2_half_cleaner<1>(key, value);
    if constexpr (H <= 2) {
        v2_mapped_io<0, true, false>(b, m, key, value);
    } else {
        v2_mirror_io<V2_TILE_BITS - 1, false>(b, key, value);
        __syncthreads();
        constexpr uint32_t mask = 0xFu << 6;
        v2_shared_load<mask>(b, key, value);
        v2_steps<mask, 9, K + 2>(key, value);
        v2_mapped_io<mask, false, false>(b, m, key, value);
    }
}

/* k_bitonic_v2_merged<tail top> by its tail top. */
static const v2_pass_kernel v2_merged_kernels[V2_MERGED_MAX_TAIL + 1] = {
    k_bitonic_v2_merged<0>, k_bitonic_v2_merged<1>, k_bitonic_v2_merged<2>,
    k_bitonic_v2_merged<3>, k_bitonic_v2_merged<4>, k_bitonic_v2_merged<5>,
    k_bitonic_v2_merged<6>, k_bitonic_v2_merged<7>, k_bitonic_v2_merged<8>,
    k_bitonic_v2_merged<9>, k_bitonic_v2_merged<10>};

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

/* Local tiles of a V2 pass at N = 2^log_n (one, mostly padding, below a
 * tile). */
static unsigned v2_tiles(int log_n)
{
    return log_n < V2_TILE_BITS ? 1u : 1u << (log_n - V2_TILE_BITS);
}

/* GLOBAL pass: steps step_hi ... step_lo of a stage, step_hi its mirror
 * if `mirror` (7 steps then, else 8). */
static ds_status launch_v2_global(uint32_t *keys, uint32_t *values,
                                  uint32_t n, int log_n, int mirror,
                                  int step_hi, int step_lo,
                                  cudaStream_t stream)
{
    if (mirror)
        k_bitonic_v2_global<true><<<v2_tiles(log_n), V2_THREADS,
                                    V2_SMEM_BYTES, stream>>>(
            keys, values, n, step_hi, step_lo);
    else
        k_bitonic_v2_global<false><<<v2_tiles(log_n), V2_THREADS,
                                     V2_SMEM_BYTES, stream>>>(
            keys, values, n, step_hi, step_lo);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_global");
    return DS_OK;
}

/* TILE pass: steps top ... 0 of stage `stage`; the last stage converts
 * the keys back to floats. */
static ds_status launch_v2_tile(uint32_t *keys, uint32_t *values, uint32_t n,
                               int log_n, int stage, int top, int descending,
                               cudaStream_t stream)
{
    v2_tile_kernels[top]<<<v2_tiles(log_n), V2_THREADS, V2_SMEM_BYTES,
                           stream>>>(keys, values, n, stage == log_n - 1,
                                     descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_tile");
    return DS_OK;
}

/* V2's stages from V2_TILE_BITS on: walking their steps in order, each
 * pass takes as many as fit a local tile of 2^13 pairs with 2^5 contiguous
 * low bits: a stage's mirror and 6 steps (GLOBAL, only where no tail comes
 * before it), 8 steps at or above bit 6 (GLOBAL), or, once the steps left
 * in a stage are T ... 0 with T <= 10, those and the next stage's mirror
 * and 10 - max(T, 4) steps (MERGED), or the steps left alone (TILE: T = 11
 * or 12, or the last stage). 2^24: 21 passes after FIRST. Stream order is
 * the global barrier between passes. */
static ds_status run_passes_v2(uint32_t *keys, uint32_t *values, uint32_t n,
                               int log_n, int descending, cudaStream_t stream)
{
    const int global_steps = V2_TILE_BITS - V2_GLOBAL_LOW_BITS; /* 8 */
    ds_status status;
    int stage = V2_TILE_BITS, step = V2_TILE_BITS; /* the next step */
    while (stage < log_n) {
        if (step == stage) {
            if ((status = launch_v2_global(keys, values, n, log_n, 1, step,
                                           step - (global_steps - 2),
                                           stream)))
                return status;
            step -= global_steps - 1;
        } else if (step >= V2_TILE_BITS) {
            if ((status = launch_v2_global(keys, values, n, log_n, 0, step,
                                           step - (global_steps - 1),
                                           stream)))
                return status;
            step -= global_steps;
        } else {
            const int low = step > V2_WINDOW_BITS ? step : V2_WINDOW_BITS;
            const int head = V2_TILE_BITS - 3 - low; /* steps after the mirror */
            const int next = stage + 1;
            /* the head's lowest step leaves a middle bit for the pair */
            if (next < log_n && step <= V2_MERGED_MAX_TAIL &&
                next - head - (low + 1) >= 1) {
                v2_merged_kernels[step]<<<v2_tiles(log_n), V2_THREADS,
                                          V2_SMEM_BYTES, stream>>>(
                    keys, values, n, next, next - head);
                DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_merged");
                step = next - head - 1;
            } else {
                if ((status = launch_v2_tile(keys, values, n, log_n, stage,
                                             step, descending, stream)))
                    return status;
                step = next;
            }
            stage = next;
        }
    }
    return DS_OK;
}

/* V2's network. The first pass sorts each 2^V2_TILE_BITS tile (stages 0
 * ... 12) and converts the keys; the last stage's TILE pass converts them
 * back (the first pass, if it is the only one). */
static ds_status run_network_v2(uint32_t *keys, uint32_t *values,
                                uint32_t n, int log_n, int descending,
                                cudaStream_t stream)
{
    /* all 13 stages even for a shorter input: its padding is sentinels,
     * so the extra stages leave it sorted */
    k_bitonic_v2_first<<<v2_tiles(log_n), V2_THREADS, V2_SMEM_BYTES,
                         stream>>>(keys, values, n, log_n <= V2_TILE_BITS,
                                   descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_first");
    return run_passes_v2(keys, values, n, log_n, descending, stream);
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

static ds_status bitonic_create(int version, const ds_sorter_desc *desc,
                                void **state)
{
    *state = NULL;
    if (desc->max_count > ((size_t)1 << 31))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort bitonic%d: max_count %zu exceeds 2^31", version,
                       desc->max_count);
    if (version == 2) {
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_first,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES));
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_global<true>,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES));
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_global<false>,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES));
        for (int tail = 0; tail <= V2_MERGED_MAX_TAIL; tail++)
            DS_CUDA_TRY("sort bitonic2",
                        cudaFuncSetAttribute(
                            v2_merged_kernels[tail],
                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)V2_SMEM_BYTES));
        for (int top = 0; top < V2_TILE_BITS; top++)
            DS_CUDA_TRY("sort bitonic2",
                        cudaFuncSetAttribute(
                            v2_tile_kernels[top],
                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)V2_SMEM_BYTES));
    }
    bitonic_state *s = (bitonic_state *)calloc(1, sizeof *s);
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "sort bitonic%d: out of host memory", version);
    s->version = version;
    *state = s;
    return DS_OK;
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
    const unsigned convert_grid =
        blocks_for(n, CONVERT_THREADS) < CONVERT_MAX_BLOCKS
            ? blocks_for(n, CONVERT_THREADS)
            : CONVERT_MAX_BLOCKS;
    ds_status status;
    int log_n = log2_ceil(n);
    if (s->version == 2)
        return log_n > 0 ? run_network_v2(k, values, n, log_n, descending, st)
                         : DS_OK;
    k_bitonic_to_ordered<<<convert_grid, CONVERT_THREADS, 0, st>>>(k, n,
                                                                 descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_to_ordered");
    if (log_n > 0 &&
        (status = run_network(s->version, k, values, n, log_n, st)))
        return status;
    k_bitonic_from_ordered<<<convert_grid, CONVERT_THREADS, 0, st>>>(
        k, n, descending);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_from_ordered");
    return DS_OK;
}

/* Device bytes per pair that the bitonic create()s allocate
 * (sort_backend.h): it sorts in place; one byte a pair covers its small
 * fixed buffers. */
#define BITONIC_BYTES_PER_PAIR 1

extern "C" const ds_sort_backend ds_sort_backend_bitonic0 = {
    "bitonic0", 0, bitonic0_create, bitonic_destroy, bitonic_sort, NULL, NULL, NULL,
    BITONIC_BYTES_PER_PAIR, 0};
extern "C" const ds_sort_backend ds_sort_backend_bitonic1 = {
    "bitonic1", 0, bitonic1_create, bitonic_destroy, bitonic_sort, NULL, NULL, NULL,
    BITONIC_BYTES_PER_PAIR, 0};
extern "C" const ds_sort_backend ds_sort_backend_bitonic2 = {
    "bitonic2", 0, bitonic2_create, bitonic_destroy, bitonic_sort, NULL, NULL, NULL,
    BITONIC_BYTES_PER_PAIR, 0};
