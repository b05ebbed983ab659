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
/* V2 local tile: 8192 pairs = 64 KiB of keys and values in dynamic shared
 * memory (two blocks fit an SM), 512 threads of 16 pairs each. A thread's
 * 16 pairs are a register window over 4 local index bits, so up to four
 * steps run between two barriers. */
#define V2_TILE_BITS 13
#define V2_TILE (1u << V2_TILE_BITS)
#define V2_THREADS 512
#define V2_WINDOW_BITS 4
#define V2_ITEMS (1 << V2_WINDOW_BITS)
#define V2_SMEM_BYTES (2 * V2_TILE * sizeof(uint32_t))
/* GLOBAL passes keep at least this many low index bits contiguous
 * (2^4 pairs = 64-byte segments of keys and of values); the remaining
 * tile bits hold that many global steps (one fewer with the mirror).
 * DS_BITONIC_LOW_BITS overrides it (2 ... 8), for measurement. */
#define V2_LOW_BITS 4
/* Stages below this run chunk by chunk (2^V2_CHUNK_BITS pairs, in L2);
 * 0 = never. DS_BITONIC_CHUNK_BITS overrides it, for measurement. */
#define V2_CHUNK_BITS 0
/* Threads per block of the conversion kernels. */
#define GROUP_THREADS 256

/* Sentinel key of the V2 tile and register groups: the largest ordered key.
 * A real NaN maps to the same value; compare-and-swap only on a strictly
 * greater key, so neither ever moves past the other. */
#define SENTINEL_KEY 0xFFFFFFFFu

typedef struct bitonic_state {
    int version;    /* 0, 1, 2 */
    int low_bits;   /* V2: V2_LOW_BITS or its override */
    int chunk_bits; /* V2: V2_CHUNK_BITS or its override */
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

/* ---- V2: passes over gathered local tiles ------------------------------ */

/* A V2 pass: block b gathers 2^V2_TILE_BITS elements (its local tile) into
 * shared memory, runs a run of bitonic steps on them, and scatters them
 * back. Local index u maps to a global index by the pass kind:
 *   FIRST, TILE: u is the low V2_TILE_BITS bits of the index (tile b);
 *     FIRST runs stages [0, last_stage], TILE a stage's steps
 *     V2_TILE_BITS - 1 ... 0;
 *   GLOBAL: steps [step_hi, step_lo] of `stage`, all at or above
 *     V2_TILE_BITS. u = [low: low_bits][pair: 1 if mirror][h: m steps]:
 *     the low bits are contiguous in memory (coalescing), h are the
 *     index bits step_lo ... step_hi, and the bits between (middle) and
 *     above come from b. With the mirror step (step_hi == stage) the
 *     block holds the middle value r (top bit clear) and, under pair = 1,
 *     its complement ~r: then the mirror of u is u XOR (all ones), the
 *     same local step as a tile's stage V2_TILE_BITS - 1, and the steps
 *     after it are the local bits below.
 * So every pass is a run of local steps on a local tile, done by
 * v2_local_stage(). */
enum v2_pass_kind { V2_PASS_FIRST, V2_PASS_TILE, V2_PASS_GLOBAL };

typedef struct v2_pass {
    int kind;
    int stage;     /* GLOBAL: the stage; FIRST: the last stage run */
    int step_hi;   /* GLOBAL: the global steps run, step_hi ... step_lo */
    int step_lo;
    int low_bits;  /* GLOBAL: contiguous low bits of the local tile */
    uint32_t block_offset; /* the launch covers blocks offset + [0, grid) */
    int in_float;  /* keys are floats on load: convert to ordered */
    int out_float; /* convert back to floats on store */
    int descending;
} v2_pass;

/* Shared-memory word of local element u: XOR-swizzled so that the lanes
 * of a warp hit distinct banks whether they differ in the low index bits
 * or in bits above a 16-element register window. */
__device__ __forceinline__ uint32_t v2_swizzle(uint32_t u)
{
    return u ^ ((u >> 5) & 31u);
}

/* Global index of local element u of block `block` in pass p. */
__device__ __forceinline__ uint32_t v2_global_index(const v2_pass &p,
                                                    uint32_t block,
                                                    uint32_t u)
{
    if (p.kind != V2_PASS_GLOBAL)
        return (block << V2_TILE_BITS) | u;
    const int low_bits = p.low_bits;
    const bool mirror = p.step_hi == p.stage;
    const int middle_bits = p.step_lo - low_bits;
    const int block_middle_bits = middle_bits - (mirror ? 1 : 0);
    uint32_t middle = block & ((1u << block_middle_bits) - 1u);
    uint32_t high = block >> block_middle_bits;
    uint32_t h = u >> (low_bits + (mirror ? 1 : 0));
    if (mirror && ((u >> low_bits) & 1u))
        middle = ~middle & ((1u << middle_bits) - 1u);
    return (high << p.step_hi << 1) | (h << p.step_lo) | (middle << low_bits) |
           (u & ((1u << low_bits) - 1u));
}

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

/* What a window needs of its block: the pass, the arrays, the tile. */
typedef struct v2_block {
    uint32_t *keys, *values;
    uint32_t n;
    uint32_t block;
    uint32_t *s_keys, *s_values;
} v2_block;

/* One window: the thread reads its V2_ITEMS local elements (from global
 * memory if it is the pass's first window, else from shared memory), runs
 * the steps in registers, and writes them back (to global memory if it is
 * the last window, else to shared memory, then one barrier).
 * Plain window (mirror_hi < 0): the elements whose local bits
 * [w_lo, w_lo + 3] are slot p and whose other bits are the thread index
 * (low bits first: the lanes of a warp cover 32 contiguous local
 * indices, or 16-element rows at w_lo = 0, which move as uint4).
 * Mirror window for local stage mirror_hi >= 4: slot p = (a, f), a the
 * bits [mirror_hi - 2, mirror_hi], and the bits below are the thread's L
 * (top bit clear) for f = 0 and ~L for f = 1, so the stage's mirror
 * (all bits 0 ... mirror_hi flipped) is slot p against p ^ 15. */
__device__ __forceinline__ void v2_window(const v2_block &b, const v2_pass &p,
                                          int w_lo, int mirror_hi,
                                          int ms_first, int ms_last,
                                          int q_top, int q_bot,
                                          int from_global, int to_global)
{
    /* Local index of slot s: base | s << w_lo (plain), or high | a << lo_w
     * | L or ~L (mirror); recomputed at each use to spare registers. */
    const uint32_t t = threadIdx.x;
    uint32_t base, low = 0, low_mask = 0;
    int shift;
    if (mirror_hi < 0) {
        base = (t & ((1u << w_lo) - 1u)) |
               ((t >> w_lo) << (w_lo + V2_WINDOW_BITS));
        shift = w_lo;
    } else {
        int lo_w = mirror_hi - (V2_WINDOW_BITS - 2);
        low_mask = (1u << lo_w) - 1u;
        low = t & ((1u << (lo_w - 1)) - 1u);
        base = (t >> (lo_w - 1)) << (mirror_hi + 1);
        shift = lo_w;
    }
    auto local_of = [&](int s) -> uint32_t {
        if (mirror_hi < 0)
            return base | ((uint32_t)s << shift);
        return base | ((uint32_t)(s >> 1) << shift) |
               ((s & 1) ? (~low & low_mask) : low);
    };
    /* Rows of 16 contiguous global elements: FIRST/TILE at w_lo = 0. */
    const bool rows = mirror_hi < 0 && w_lo == 0 && p.kind != V2_PASS_GLOBAL;
    uint32_t key[V2_ITEMS], value[V2_ITEMS];
    if (from_global) {
        if (rows) {
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s += 4) {
                uint32_t g = v2_global_index(p, b.block, local_of(s));
                if (g + 3 < b.n) {
                    uint4 kk = *(const uint4 *)(b.keys + g);
                    uint4 vv = *(const uint4 *)(b.values + g);
                    key[s] = kk.x; key[s + 1] = kk.y; key[s + 2] = kk.z; key[s + 3] = kk.w;
                    value[s] = vv.x; value[s + 1] = vv.y; value[s + 2] = vv.z; value[s + 3] = vv.w;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        key[s + e] = g + e < b.n ? b.keys[g + e] : SENTINEL_KEY;
                        value[s + e] = g + e < b.n ? b.values[g + e] : 0;
                    }
                }
            }
        } else {
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s++) {
                uint32_t g = v2_global_index(p, b.block, local_of(s));
                key[s] = g < b.n ? b.keys[g] : SENTINEL_KEY;
                value[s] = g < b.n ? b.values[g] : 0;
            }
        }
        if (p.in_float) /* the sentinel, a NaN, maps to itself */
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s++)
                key[s] = ds_key_to_ordered(__uint_as_float(key[s]),
                                           p.descending);
    } else {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++) {
            key[s] = b.s_keys[v2_swizzle(local_of(s))];
            value[s] = b.s_values[v2_swizzle(local_of(s))];
        }
    }
    v2_window_steps(key, value, ms_first, ms_last, q_top, q_bot);
    if (to_global) {
        if (p.out_float)
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s++)
                key[s] = __float_as_uint(ds_ordered_to_key(key[s],
                                                           p.descending));
        if (rows) {
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s += 4) {
                uint32_t g = v2_global_index(p, b.block, local_of(s));
                if (g + 3 < b.n) {
                    *(uint4 *)(b.keys + g) = make_uint4(key[s], key[s + 1], key[s + 2], key[s + 3]);
                    *(uint4 *)(b.values + g) = make_uint4(value[s], value[s + 1], value[s + 2], value[s + 3]);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        if (g + e < b.n) {
                            b.keys[g + e] = key[s + e];
                            b.values[g + e] = value[s + e];
                        }
                }
            }
        } else {
#pragma unroll
            for (int s = 0; s < V2_ITEMS; s++) {
                uint32_t g = v2_global_index(p, b.block, local_of(s));
                if (g < b.n) {
                    b.keys[g] = key[s];
                    b.values[g] = value[s];
                }
            }
        }
    } else {
#pragma unroll
        for (int s = 0; s < V2_ITEMS; s++) {
            b.s_keys[v2_swizzle(local_of(s))] = key[s];
            b.s_values[v2_swizzle(local_of(s))] = value[s];
        }
        __syncthreads(); /* window written before the next one reads */
    }
}

/* Local stage `hi` of the local tile, steps hi ... lo, the first one the
 * mirror if `mirror`: windows of V2_WINDOW_BITS steps (the mirror window
 * three). `first`: its first window loads from global memory; `last`:
 * its last window stores there. */
__device__ __forceinline__ void v2_local_stage(const v2_block &b,
                                               const v2_pass &p, int hi,
                                               int lo, int mirror, int first,
                                               int last)
{
    int bit = hi;
    if (mirror) {
        if (hi < V2_WINDOW_BITS) {
            v2_window(b, p, 0, -1, hi, hi, 0, lo, first, last);
            return;
        }
        int below = hi - (V2_WINDOW_BITS - 1); /* slot bit q is local bit below + q */
        int q_bot = lo - below > 1 ? lo - below : 1;
        v2_window(b, p, 0, hi, V2_WINDOW_BITS - 1, V2_WINDOW_BITS - 1, 0,
                  q_bot, first, last && lo > below);
        first = 0;
        bit = below;
    }
    while (bit >= lo) {
        int w_lo = bit - (V2_WINDOW_BITS - 1) > 0 ? bit - (V2_WINDOW_BITS - 1) : 0;
        int bottom = lo > w_lo ? lo : w_lo;
        v2_window(b, p, w_lo, -1, 1, 0, bit - w_lo, bottom - w_lo, first,
                  last && w_lo <= lo);
        first = 0;
        bit = w_lo - 1;
    }
}

/* V2 pass p (see v2_pass). Block: V2_THREADS threads, V2_ITEMS elements
 * each; 2 x 2^V2_TILE_BITS words of dynamic shared memory. The first
 * window loads straight from global memory and the last stores straight
 * to it; local elements at or past n are sentinels, never stored. */
__global__ void __launch_bounds__(V2_THREADS, 2)
k_bitonic_v2_pass(uint32_t *keys, uint32_t *values, uint32_t n, v2_pass p)
{
    extern __shared__ uint32_t s_tile[];
    v2_block b;
    b.keys = keys;
    b.values = values;
    b.n = n;
    b.block = blockIdx.x + p.block_offset;
    b.s_keys = s_tile;
    b.s_values = s_tile + V2_TILE;
    if (v2_global_index(p, b.block, 0) >= n)
        return; /* the whole tile is padding (uniform exit) */
    if (p.kind == V2_PASS_FIRST) {
        /* Stages 0..3 in one register window, then one local stage each. */
        int last = p.stage;
        int first_window_stages = last < V2_WINDOW_BITS - 1 ? last : V2_WINDOW_BITS - 1;
        v2_window(b, p, 0, -1, 0, first_window_stages, 0, 0, 1,
                  last < V2_WINDOW_BITS);
        for (int stage = V2_WINDOW_BITS; stage <= last; stage++)
            v2_local_stage(b, p, stage, 0, 1, 0, stage == last);
    } else if (p.kind == V2_PASS_TILE) {
        v2_local_stage(b, p, V2_TILE_BITS - 1, 0, 0, 1, 1);
    } else {
        int m = p.step_hi - p.step_lo + 1;
        v2_local_stage(b, p, V2_TILE_BITS - 1, V2_TILE_BITS - m,
                       p.step_hi == p.stage, 1, 1);
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

/* One V2 pass over `blocks` local tiles from p.block_offset. */
static ds_status launch_v2_pass(uint32_t *keys, uint32_t *values,
                                uint32_t n, const v2_pass *p, unsigned blocks,
                                cudaStream_t stream)
{
    k_bitonic_v2_pass<<<blocks, V2_THREADS, V2_SMEM_BYTES, stream>>>(
        keys, values, n, *p);
    DS_CUDA_TRY_LAUNCH("sort bitonic", "k_bitonic_v2_pass");
    return DS_OK;
}

/* Stage `stage` (>= V2_TILE_BITS) on blocks [offset, offset + blocks):
 * its global steps in GLOBAL passes of as many steps as fit beside the
 * contiguous low bits, then its tile steps in one TILE pass. */
static ds_status run_stage_v2(const bitonic_state *s, uint32_t *keys,
                              uint32_t *values, uint32_t n, int stage,
                              int last_stage, uint32_t offset,
                              unsigned blocks, int descending,
                              cudaStream_t stream)
{
    ds_status status;
    v2_pass p = {};
    p.stage = stage;
    p.block_offset = offset;
    p.descending = descending;
    int step = stage;
    while (step >= V2_TILE_BITS) {
        int mirror = step == stage;
        int most = V2_TILE_BITS - s->low_bits - mirror;
        int count = step - V2_TILE_BITS + 1;
        if (count > most)
            count = most;
        p.kind = V2_PASS_GLOBAL;
        p.step_hi = step;
        p.step_lo = step - count + 1;
        p.low_bits = V2_TILE_BITS - count - mirror;
        if ((status = launch_v2_pass(keys, values, n, &p, blocks, stream)))
            return status;
        step -= count;
    }
    p.kind = V2_PASS_TILE;
    p.out_float = stage == last_stage;
    return launch_v2_pass(keys, values, n, &p, blocks, stream);
}

/* V2's network. The first pass sorts each tile (stages 0 ... 12) and
 * converts the keys; the last stage's tile pass converts them back. With
 * chunk_bits, stages below chunk_bits run chunk by chunk (each chunk's
 * passes back to back, so its pairs stay in L2), the rest on all blocks. */
static ds_status run_network_v2(const bitonic_state *s, uint32_t *keys,
                                uint32_t *values, uint32_t n, int log_n,
                                int descending, cudaStream_t stream)
{
    ds_status status;
    /* A padded size below one tile still takes one (sentinel) tile. */
    int padded_bits = log_n < V2_TILE_BITS ? V2_TILE_BITS : log_n;
    int chunk_bits = s->chunk_bits;
    if (chunk_bits <= V2_TILE_BITS || chunk_bits > log_n)
        chunk_bits = padded_bits;
    const unsigned chunk_blocks = 1u << (chunk_bits - V2_TILE_BITS);
    const unsigned chunks = 1u << (padded_bits - chunk_bits);
    for (unsigned c = 0; c < chunks; c++) {
        v2_pass first = {};
        first.kind = V2_PASS_FIRST;
        first.stage = (log_n < V2_TILE_BITS ? log_n : V2_TILE_BITS) - 1;
        first.block_offset = c * chunk_blocks;
        first.in_float = 1;
        first.out_float = log_n <= V2_TILE_BITS;
        first.descending = descending;
        if ((status = launch_v2_pass(keys, values, n, &first, chunk_blocks,
                                     stream)))
            return status;
        for (int stage = V2_TILE_BITS; stage < chunk_bits; stage++)
            if ((status = run_stage_v2(s, keys, values, n, stage, log_n - 1,
                                       c * chunk_blocks, chunk_blocks,
                                       descending, stream)))
                return status;
    }
    for (int stage = chunk_bits > V2_TILE_BITS ? chunk_bits : V2_TILE_BITS;
         stage < log_n; stage++)
        if ((status = run_stage_v2(s, keys, values, n, stage, log_n - 1, 0,
                                   chunks * chunk_blocks, descending,
                                   stream)))
            return status;
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

static ds_status bitonic_create(int version, const ds_sorter_desc *desc,
                                void **state)
{
    *state = NULL;
    if (desc->max_count > ((size_t)1 << 31))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort bitonic%d: max_count %zu exceeds 2^31", version,
                       desc->max_count);
    if (version == 2)
        DS_CUDA_TRY("sort bitonic2",
                    cudaFuncSetAttribute(
                        k_bitonic_v2_pass,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)V2_SMEM_BYTES));
    bitonic_state *s = (bitonic_state *)calloc(1, sizeof *s);
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "sort bitonic%d: out of host memory", version);
    s->version = version;
    s->low_bits = V2_LOW_BITS;
    s->chunk_bits = V2_CHUNK_BITS;
    const char *low_bits = getenv("DS_BITONIC_LOW_BITS");
    if (low_bits && atoi(low_bits) >= 2 && atoi(low_bits) <= 8)
        s->low_bits = atoi(low_bits);
    const char *chunk_bits = getenv("DS_BITONIC_CHUNK_BITS");
    if (chunk_bits && atoi(chunk_bits) >= 0)
        s->chunk_bits = atoi(chunk_bits);
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
    const unsigned convert_grid = blocks_for(n, GROUP_THREADS) < 4096
                                      ? blocks_for(n, GROUP_THREADS)
                                      : 4096;
    ds_status status;
    int log_n = log2_ceil(n);
    if (s->version == 2)
        return log_n > 0 ? run_network_v2(s, k, values, n, log_n, descending,
                                          st)
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
