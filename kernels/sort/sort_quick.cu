/* SPDX-License-Identifier: MIT */
/* sort_quick.cu — GPU quicksort, after Cederman & Tsigas, "GPU-Quicksort: A
 * Practical Quicksort Algorithm for Graphics Processors".
 *
 * Keys are sorted in their ordered uint32 form (sort_keys.cuh), which makes
 * descending order, NaN-last and -0 == +0 plain unsigned comparison. The map
 * is fused into the sort: a read-only pass finds the root's bounds (the first
 * pivot needs them), the first read of a key maps it, and every write of a
 * key to its final place maps it back.
 *
 * Phase one (many blocks per sequence, iterations queued by the host): each
 * long sequence is cut into tiles (the paper's sections), listed by a
 * one-block plan kernel and walked by a persistent grid that prefetches the
 * next tile into shared memory (cp.async) and claims tiles from a counter
 * after three fixed rounds. A tile is counted against the pivot with warp
 * ballots, reserves its output ranges with atomics on the sequence's cursors
 * and is written to the other buffer; keys equal to the pivot are final. The
 * pivot is the average of the sequence's minimum and maximum key values,
 * later the midpoint of their codes, so phase one ends within a bounded
 * number of iterations on any input.
 * Phase two (one block per sequence, no host): a persistent grid sorts each
 * remaining sequence with an explicit stack (median-of-three pivot) down to a
 * shared-memory flip-bitonic sort that runs in register windows.
 * The kernels are chained with programmatic dependent launch (sm_90).
 *
 * Cost: O(n log n) expected, phase one O(n) per iteration; all-equal keys
 * cost one read pass. Phase two's median of three has the classic O(n^2)
 * inputs, but only within one sequence of about n / maxseq keys.
 * Memory beyond the caller's arrays: 12 bytes per pair (auxiliary keys and
 * values, equal-key values) plus lists of O(maxseq) entries, all made at
 * create; nothing is allocated per sort.
 * Not handled: key_bits (the full key is always sorted); stability; more
 * than 2^32 - 1 pairs (create refuses them).
 *
 * Design, departures from the paper, tuning reasons and the -DDS_QUICK_TRACE
 * timeline build: docs/algorithms/quick.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "launch_bounds.cuh"
#include "sort_keys.cuh"
#include "warp_reduce.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Compile-time constants: template parameters, array sizes, launch bounds,
 * or values the kernels fold into their code. */

/* Threads per block of the partition and phase-two kernels (template
 * parameter, launch bounds): 512 was fastest at every size in a sweep over
 * 128, 256 and 512. */
constexpr int QUICK_THREADS = 512;
/* Keys each thread holds per tile of the partition (array size): eight
 * loads in flight per thread hide latency. */
constexpr int QUICK_ITEMS = 8;
/* A phase-one tile (the paper's section). */
constexpr uint32_t QUICK_TILE = (uint32_t)QUICK_THREADS * QUICK_ITEMS;
/* The persistent partition's block g takes tiles g + k * grid for k below
 * this, then claims tiles from a counter, three tiles ahead of the one it
 * partitions (the claim's latency hides behind that tile's work, the
 * tile's descriptor load behind the next one's): blocks do not run
 * equally fast, and a static split ends when the slowest does. It equals
 * the depth of partition_tiles' pipeline (now, next, after). */
constexpr uint32_t QUICK_STATIC_ROUNDS = 3;
/* The bitonic small sort runs windows of a few index bits in registers:
 * 4 bits (16 words a thread, 22 shared-memory round trips at 8192 pairs)
 * for the packed 32-bit words, 3 bits (8 words, 30 round trips) for the
 * 64-bit ones, so that both fit the 40 registers of three 512-thread
 * phase-two blocks an SM; a sequence is padded to a power of two of at
 * least QUICK_SMALL_MIN pairs; 48 windows leave room. */
constexpr int QUICK_SMALL_BITS_PACKED = 4;
constexpr int QUICK_SMALL_BITS_WIDE = 3;
constexpr int QUICK_SMALL_MAX_BITS = 4;
constexpr uint32_t QUICK_SMALL_MIN = 32u;
constexpr int QUICK_SMALL_MAX_WINDOWS = 48;
/* Phase-two threads an SM (launch bounds): three 512-thread blocks, at
 * most 40 registers a thread. */
constexpr int QUICK_TASK_THREADS_PER_SM = 1536;
/* Uniform children that sit in the auxiliary buffer (or hold codes in the
 * caller's) are copied (mapped) back in chunks of this many pairs, one
 * phase-two block each. */
constexpr uint32_t QUICK_COPY_CHUNK = 65536u;
/* Phase two's stack (array size): depth <= log2(2^31) + 1 when continuing
 * with the smaller part; 64 leaves room. */
constexpr int QUICK_STACK_DEPTH = 64;
/* Guard on phase-one iterations: value pivots stop after at most
 * quick_tuning.value_iterations_max iterations and each code-midpoint
 * split halves a sequence's code range, so phase one ends within
 * value_iterations_max + 33 iterations anyway. */
constexpr int QUICK_MAX_ITERATIONS = 64;
/* Threads of the single-block planning kernel (launch bounds, array size)
 * and of the bounds pass (array size). */
constexpr int QUICK_PLAN_THREADS = 1024;
constexpr int QUICK_BOUNDS_THREADS = 256;
/* Sequences whose first tiles the plan kernel searches in shared memory
 * (32 KiB, array size); more fall back to searching the global work list. */
constexpr uint32_t QUICK_PLAN_STAGED = 8192u;
/* Largest bitonic small sort (size classes are instantiated up to it):
 * 8192 pairs, 64 KiB of shared memory; less on GPUs whose per-block opt-in
 * limit leaves no room for it next to the kernel's own static shared
 * memory (under QUICK_STATIC_SMEM bytes). */
constexpr uint32_t QUICK_MAX_SBSIZE = 8192u;
constexpr int QUICK_STATIC_SMEM = 4096;

/* Values the host launchers read at run time. maxseq and sbsize follow the
 * paper's rule optp(s, k, m) = 2^floor(log2(s*k + m) + 0.5) for s keys. */
typedef struct quick_tuning {
    /* maxseq = optp(n, maxseq_k, maxseq_m) in [maxseq_min, maxseq_max]:
     * phase one stops at maxseq sequences. Kept large (4096 at 2^24) so
     * that a late-splitting sequence handed to one phase-two block is short,
     * though n / 8192 is slightly faster on uniform keys. */
    double maxseq_k, maxseq_m;
    uint32_t maxseq_min, maxseq_max;
    /* sbsize = optp(n, sbsize_k, sbsize_m) in [sbsize_min, QUICK_MAX_SBSIZE]:
     * phase two's bitonic sort takes sequences this short (the fit is in
     * docs/algorithms/quick.md). */
    double sbsize_k, sbsize_m;
    uint32_t sbsize_min;
    /* Phase-one iterations that split at the average of the key values
     * (balanced for floats spread over many binades) are log2(maxseq) + 3,
     * at most this; later ones split at the code midpoint, which is linear
     * inside a binade and reaches keys crowded at one end of a wide range. */
    uint32_t value_iterations_max;
    /* Partition blocks resident per SM; 0: as many as fit (two of 512
     * threads), the most latency hiding. */
    uint32_t partition_blocks_per_sm;
    /* Phase-one iterations queued per host look at the report after the
     * first two batches (1, then log2(maxseq) + 1): iterations queued past
     * the end cost a few empty launches, a look costs a round trip. */
    uint32_t later_batch;
    /* The bounds pass: one block per this many keys a thread, at most
     * bounds_blocks_per_sm blocks an SM (a latency-bound grid-stride loop
     * needs many loads in flight, but each block ends in two atomics). */
    uint32_t bounds_keys_per_thread;
    uint32_t bounds_blocks_per_sm;
    /* Blocks per SM that fill the previous iteration's gaps beside the one
     * planning block: 32 warps an SM, one per tile in turn. */
    uint32_t fill_blocks_per_sm;
} quick_tuning;

/* The defaults the backend is measured with (reasons in
 * docs/algorithms/quick.md). */
static const quick_tuning quick_tuning_default = {
    0.00025, 128.0, 64u, 8192u, /* maxseq */
    0.001, 4000.0, 256u,        /* sbsize */
    24u,                        /* value_iterations_max */
    0u,                         /* partition_blocks_per_sm */
    4u,                         /* later_batch */
    8u, 16u,                    /* bounds pass */
    1u,                         /* fill_blocks_per_sm */
};

/* The parameters of one sort of n keys. */
typedef struct quick_params {
    uint32_t maxseq;  /* phase one stops at this many sequences */
    uint32_t sbsize;  /* bitonic small sort at or below this length */
} quick_params;

/* optp from the paper: a power of two near s*k + m. */
static uint32_t optp(double s, double k, double m)
{
    return 1u << (int)floor(log2(s * k + m) + 0.5);
}

static uint32_t clamp_u32(uint32_t x, uint32_t lo, uint32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static quick_params quick_params_for(const quick_tuning *t, size_t n)
{
    quick_params p;
    double s = (double)n;
    p.maxseq = clamp_u32(optp(s, t->maxseq_k, t->maxseq_m), t->maxseq_min, t->maxseq_max);
    p.sbsize = clamp_u32(optp(s, t->sbsize_k, t->sbsize_m), t->sbsize_min, QUICK_MAX_SBSIZE);
    return p;
}

/* ---- device data ------------------------------------------------------- */

/* A phase-one sequence: [start, end) of buffer `in_aux` (0: the caller's
 * arrays, 1: the auxiliary ones), ordered keys within [lo, hi], lo < hi. */
typedef struct quick_seq {
    uint32_t start, end, lo, hi, in_aux;
    uint32_t first_block;  /* its first block in this iteration's grid */
    uint32_t pivot;        /* this iteration's, set by plan_iteration */
    /* Shared by the blocks of one iteration (reset by plan_iteration). */
    uint32_t below, above, equal;  /* cursors, in elements */
    uint32_t blocks_left;
    uint32_t below_max, above_min;  /* the children's inner bounds */
    uint32_t gap_start;             /* set by the last block, for fill */
} quick_seq;

enum {
    QUICK_TASK_SORT_MAIN = 0, /* ordered codes in the caller's arrays */
    QUICK_TASK_SORT_AUX = 1,  /* ordered codes in the auxiliary ones */
    QUICK_TASK_COPY = 2,      /* a uniform range in aux: copy to main */
    QUICK_TASK_SORT_RAW = 3,  /* the caller's floats, not yet mapped */
    QUICK_TASK_RESTORE = 4    /* a uniform range of codes in main: map back */
};

/* A phase-two job: sort [start, end) found in the main or aux buffer into
 * the main one, copy that range from aux to main, or map it back in main
 * (uniform ranges). */
typedef struct quick_task {
    uint32_t start, end, kind;
} quick_task;

/* One phase-one tile, written by plan_iteration: keys [begin, stop) of
 * work sequence `seq`, in the auxiliary buffer iff in_aux. */
typedef struct quick_tile {
    uint32_t seq, begin, stop, in_aux;
} quick_tile;

/* One phase-one tile's equal keys, for fill_gaps. */
typedef struct quick_block_record {
    uint32_t seq, section_begin, equal_count, equal_offset;
} quick_block_record;

/* What the host reads after each plan, through mapped pinned memory: the
 * plan kernel writes the fields, fences, then writes `ticket`. */
typedef struct quick_report {
    uint32_t go, blocks, task_count, overflow, iterations;
    volatile uint32_t ticket;
} quick_report;

typedef struct quick_control {
    uint32_t work_count[2];  /* sequences in each work list */
    uint32_t task_count;
    uint32_t overflow;       /* a list capacity was hit: a bug, reported */
    /* By the iteration's work list (cur): the plan of the next iteration
     * writes the other pair while this iteration's fill reads its own. */
    uint32_t go[2];          /* the iteration partitions */
    uint32_t blocks[2];      /* the iteration's tiles */
    uint32_t claimed[2];     /* its tiles claimed past the static rounds */
    uint32_t finished;       /* phase one is over: later plans do nothing */
    uint32_t iterations;     /* partition iterations so far */
    uint32_t next_task;      /* phase two's next task to take */
    uint32_t root_lo, root_hi;
} quick_control;

/* Everything a kernel needs, passed by value. */
typedef struct quick_args {
    uint32_t *keys, *values;          /* the caller's: floats, codes or final keys */
    uint32_t *aux_keys, *aux_values;  /* auxiliary buffer */
    uint32_t *equal_values;           /* equal-key values, by position */
    quick_seq *work[2];
    quick_tile *tiles;
    quick_block_record *blocks;
    quick_task *tasks;
    quick_control *control;
    quick_report *report;             /* mapped host memory */
    uint32_t work_cap, block_cap, task_cap;
    uint32_t count, maxseq, min_length, sbsize, tile;
    uint32_t value_iterations; /* phase-one iterations that use the value pivot */
    int descending;
} quick_args;

/* ---- device helpers ---------------------------------------------------- */

__device__ __forceinline__ uint32_t midpoint(uint32_t lo, uint32_t hi)
{
    return (lo >> 1) + (hi >> 1) + (lo & hi & 1u);
}

/* The ordered code of the average of the key values coded lo < hi (in the
 * ordered space's direction, where code c stands for the float
 * ds_ordered_to_key(c, 0)), clamped into [lo, hi]. Any pivot in [lo, hi]
 * makes progress: lo and hi both occur in the sequence.
 * A NaN or infinity at either end would make the average non-finite, and
 * halving the code range instead takes several passes to cut them off; so an
 * infinite or NaN end is itself the pivot: its keys are equal to it, final
 * in one pass, and the rest goes on with finite bounds. In code space that
 * is hi >= 0xFF800000 (NaN, or the infinity sorting last) and
 * lo <= 0x007FFFFF (the infinity sorting first), in either direction. */
__device__ __forceinline__ uint32_t value_midpoint(uint32_t lo, uint32_t hi)
{
    if (hi >= 0xFF800000u)
        return hi;
    if (lo <= 0x007FFFFFu)
        return lo;
    const float m = 0.5f * ds_ordered_to_key(lo, 0) + 0.5f * ds_ordered_to_key(hi, 0);
    if (!isfinite(m))
        return midpoint(lo, hi);
    return min(max(ds_key_to_ordered(m, 0), lo), hi);
}

/* A key as read from the caller's floats into ordered form. */
__device__ __forceinline__ uint32_t ordered_from_raw(uint32_t bits, int descending)
{
    return ds_key_to_ordered(__uint_as_float(bits), descending);
}

/* A code as written to its final place: the float it stands for (the map
 * back folded into the write). */
__device__ __forceinline__ uint32_t final_key(const quick_args &q, uint32_t code)
{
    return __float_as_uint(ds_ordered_to_key(code, q.descending));
}

__device__ __forceinline__ uint32_t median3(uint32_t a, uint32_t b, uint32_t c)
{
    return max(min(a, b), min(max(a, b), c));
}

/* Block-wide reduction of (below, above, below_max, above_min); every
 * thread gets the result. `scratch` holds 4 words per warp. */
template <int T>
__device__ void reduce_counts(uint32_t *below, uint32_t *above,
                              uint32_t *below_max, uint32_t *above_min,
                              uint32_t (*scratch)[4])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t b = *below, a = *above, bm = *below_max, am = *above_min;
    b = warp_sum_u32(b);
    a = warp_sum_u32(a);
    bm = warp_max_u32(bm);
    am = warp_min_u32(am);
    __syncthreads(); /* scratch may still be read from an earlier call */
    if (lane == 0) {
        scratch[warp][0] = b;
        scratch[warp][1] = a;
        scratch[warp][2] = bm;
        scratch[warp][3] = am;
    }
    __syncthreads();
    b = a = bm = 0;
    am = 0xFFFFFFFFu;
    for (int w = 0; w < T / 32; w++) {
        b += scratch[w][0];
        a += scratch[w][1];
        bm = max(bm, scratch[w][2]);
        am = min(am, scratch[w][3]);
    }
    *below = b;
    *above = a;
    *below_max = bm;
    *above_min = am;
}

/* First pass: one thread counts keys [begin, end) strided by T (coalesced),
 * and with BOUNDS tracks the largest key below and smallest above. RAW:
 * the keys are the caller's floats, mapped as they are read. */
template <int T, bool BOUNDS, bool RAW>
__device__ void count_pass(const uint32_t *__restrict__ keys, uint32_t begin,
                           uint32_t end, uint32_t pivot, int descending,
                           uint32_t *below, uint32_t *above, uint32_t *below_max,
                           uint32_t *above_min)
{
    uint32_t b = 0, a = 0, bm = 0, am = 0xFFFFFFFFu;
#pragma unroll 4
    for (uint32_t i = begin + threadIdx.x; i < end; i += T) {
        uint32_t k = RAW ? ordered_from_raw(keys[i], descending) : keys[i];
        b += k < pivot;
        a += k > pivot;
        if (BOUNDS) {
            if (k < pivot)
                bm = max(bm, k);
            if (k > pivot)
                am = min(am, k);
        }
    }
    *below = b;
    *above = a;
    *below_max = bm;
    *above_min = am;
}

typedef struct tile_shared {
    unsigned long long warp_counts[32];
    unsigned long long warp_prefix[32];
    unsigned long long tile_total;
} tile_shared;

/* Class counts packed in 21-bit fields of one 64-bit word: below, equal,
 * above (a tile has at most 512 * 8 keys). */
#define CLASS_BITS 21
#define CLASS_MASK ((1ull << CLASS_BITS) - 1)

/* Second pass: partitions [begin, end) of src into dst — keys below the
 * pivot from below_pos up, above it from above_pos up, and the values of
 * keys equal to it to equal_values[0..); RAW as in count_pass (dst gets
 * codes). The block walks tiles of
 * T * QUICK_ITEMS keys; thread t owns keys tile + j*T + t (coalesced
 * loads). Within a tile, a key's slot is (warp prefix of its class across
 * warps) + (its rank in its warp: ballot and popc over rows j), so each
 * class's writes of a warp row land contiguously. */
template <int T, bool RAW>
__device__ void partition_pass(const uint32_t *__restrict__ src_keys,
                               const uint32_t *__restrict__ src_values,
                               uint32_t begin, uint32_t end, uint32_t pivot,
                               int descending,
                               uint32_t *__restrict__ dst_keys,
                               uint32_t *__restrict__ dst_values,
                               uint32_t below_pos, uint32_t above_pos,
                               uint32_t *__restrict__ equal_values,
                               tile_shared *sh)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t lanes_below = (1u << lane) - 1u;
    uint32_t equal_pos = 0;
    for (uint32_t tile = begin; tile < end; tile += T * QUICK_ITEMS) {
        uint32_t key[QUICK_ITEMS], value[QUICK_ITEMS], rank[QUICK_ITEMS];
        int cls[QUICK_ITEMS];
#pragma unroll
        for (int j = 0; j < QUICK_ITEMS; j++) {
            uint32_t i = tile + j * T + threadIdx.x;
            cls[j] = 3;
            if (i < end) {
                key[j] = RAW ? ordered_from_raw(src_keys[i], descending) : src_keys[i];
                value[j] = src_values[i];
                cls[j] = key[j] < pivot ? 0 : (key[j] > pivot ? 2 : 1);
            }
        }
        uint32_t running[3] = {0, 0, 0};
#pragma unroll
        for (int j = 0; j < QUICK_ITEMS; j++) {
            uint32_t m0 = __ballot_sync(~0u, cls[j] == 0);
            uint32_t m1 = __ballot_sync(~0u, cls[j] == 1);
            uint32_t m2 = __ballot_sync(~0u, cls[j] == 2);
            uint32_t m = cls[j] == 0 ? m0 : (cls[j] == 1 ? m1 : m2);
            uint32_t base = cls[j] == 0 ? running[0]
                                        : (cls[j] == 1 ? running[1] : running[2]);
            rank[j] = base + __popc(m & lanes_below);
            running[0] += __popc(m0);
            running[1] += __popc(m1);
            running[2] += __popc(m2);
        }
        if (lane == 0)
            sh->warp_counts[warp] =
                running[0] | ((unsigned long long)running[1] << CLASS_BITS) |
                ((unsigned long long)running[2] << (2 * CLASS_BITS));
        __syncthreads();
        if (warp == 0) {
            unsigned long long c = lane < T / 32 ? sh->warp_counts[lane] : 0;
            unsigned long long inclusive = c;
            for (int o = 1; o < 32; o <<= 1) {
                unsigned long long n = __shfl_up_sync(~0u, inclusive, o);
                if (lane >= o)
                    inclusive += n;
            }
            if (lane < T / 32)
                sh->warp_prefix[lane] = inclusive - c;
            if (lane == 31)
                sh->tile_total = inclusive;
        }
        /* warp_prefix/tile_total are written above and read below; the
         * next tile writes only warp_counts, which warp 0 has consumed. */
        __syncthreads();
        unsigned long long prefix = sh->warp_prefix[warp];
        unsigned long long total = sh->tile_total;
#pragma unroll
        for (int j = 0; j < QUICK_ITEMS; j++) {
            if (cls[j] == 3)
                continue;
            uint32_t slot = rank[j] +
                            (uint32_t)((prefix >> (CLASS_BITS * cls[j])) & CLASS_MASK);
            if (cls[j] == 0) {
                dst_keys[below_pos + slot] = key[j];
                dst_values[below_pos + slot] = value[j];
            } else if (cls[j] == 2) {
                dst_keys[above_pos + slot] = key[j];
                dst_values[above_pos + slot] = value[j];
            } else {
                equal_values[equal_pos + slot] = value[j];
            }
        }
        below_pos += (uint32_t)(total & CLASS_MASK);
        equal_pos += (uint32_t)((total >> CLASS_BITS) & CLASS_MASK);
        above_pos += (uint32_t)((total >> (2 * CLASS_BITS)) & CLASS_MASK);
    }
}

__device__ void push_task(const quick_args &q, uint32_t start, uint32_t end,
                          uint32_t kind)
{
    uint32_t i = atomicAdd(&q.control->task_count, 1u);
    if (i < q.task_cap) {
        quick_task t = {start, end, kind};
        q.tasks[i] = t;
    } else {
        q.control->overflow = 1;
    }
}

/* Files a new sequence (one thread; never the caller's unmapped keys):
 * nothing if empty; if uniform, its keys are final: copy chunks when it is
 * in aux, else restore chunks that map its codes back in place; a
 * phase-two task if short; else the next phase-one work list. */
__device__ void file_sequence(const quick_args &q, int next, uint32_t start,
                              uint32_t end, uint32_t in_aux, uint32_t lo,
                              uint32_t hi)
{
    if (end <= start)
        return;
    if (lo == hi) {
        for (uint32_t c = start; c < end; c += QUICK_COPY_CHUNK)
            push_task(q, c, min(end, c + QUICK_COPY_CHUNK),
                      in_aux ? QUICK_TASK_COPY : QUICK_TASK_RESTORE);
        return;
    }
    if (end - start < q.min_length) {
        push_task(q, start, end, in_aux ? QUICK_TASK_SORT_AUX : QUICK_TASK_SORT_MAIN);
        return;
    }
    uint32_t i = atomicAdd(&q.control->work_count[next], 1u);
    if (i >= q.work_cap) {
        q.control->overflow = 1;
        return;
    }
    quick_seq *s = &(next ? q.work[1] : q.work[0])[i];
    s->start = start;
    s->end = end;
    s->lo = lo;
    s->hi = hi;
    s->in_aux = in_aux;
}

/* Programmatic dependent launch (sm_90): the kernels of phase one's
 * iterations and phase two are launched with launch_chained, so that each
 * may be resident before the one before it ends; every block of each of
 * them first waits here until that kernel has completed and its writes
 * are visible (so completion stays ordered down the chain), then lets the
 * next kernel launch. Elsewhere (or launched plainly) these do nothing. */
__device__ __forceinline__ void chain_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The timeline of a DS_QUICK_TRACE build (docs/algorithms/quick.md): each
 * block notes when it arrived, started after chain_wait and ended, folded
 * per launch into g_quick_trace[slot][kind] (min / max). Slot: phase-one
 * iteration for plan, fill and partition; for phase two 1 is the launch
 * that ran the tasks, 0 one queued before phase one ended. */
#ifdef DS_QUICK_TRACE
#define QUICK_TRACE_SLOTS 80
enum { TRACE_PLAN, TRACE_FILL, TRACE_PARTITION, TRACE_TASKS, TRACE_KINDS };
__device__ unsigned long long g_quick_trace[QUICK_TRACE_SLOTS][TRACE_KINDS][5];
__device__ __forceinline__ unsigned long long trace_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ void trace_record(int slot, int kind, unsigned long long arrive,
                             unsigned long long start)
{
    __syncthreads();
    if (threadIdx.x == 0 && slot >= 0 && slot < QUICK_TRACE_SLOTS) {
        unsigned long long end = trace_now(), *r = g_quick_trace[slot][kind];
        atomicMin(&r[0], arrive);
        atomicMin(&r[1], start);
        atomicMax(&r[2], start);
        atomicMin(&r[3], end);
        atomicMax(&r[4], end);
    }
}
#define TRACE_ARRIVE const unsigned long long trace_arrive = trace_now();
#define TRACE_START const unsigned long long trace_start = trace_now();
#define TRACE_END(slot, kind) trace_record((slot), (kind), trace_arrive, trace_start);
#else
#define TRACE_ARRIVE
#define TRACE_START
#define TRACE_END(slot, kind)
#endif

/* ---- kernels: setup and root bounds ------------------------------------ */

__global__ void k_quick_reset(quick_control *control)
{
    quick_control c = {};
    c.root_lo = 0xFFFFFFFFu;
    c.root_hi = 0;
    *control = c;
}

/* The only pass before phase one: the smallest and largest ordered code
 * of the caller's keys (the root's bounds, which the first pivot needs),
 * without writing them. Grid-stride: each thread reads float4 vectors
 * (sort.h makes the keys 16-byte aligned; the last count % 4 keys go to
 * the first threads); the block reduces, and thread 0 folds the result in
 * with one atomic pair (an atomic pair per warp serialises in L2). */
__global__ void k_quick_bounds(const float *keys, uint32_t count, int descending,
                               quick_control *control)
{
    uint32_t lo = 0xFFFFFFFFu, hi = 0;
    auto take = [&](float key) {
        const uint32_t u = ds_key_to_ordered(key, descending);
        lo = min(lo, u);
        hi = max(hi, u);
    };
    const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t vectors = count / 4u;
    const float4 *body = (const float4 *)keys;
    for (uint32_t v = thread; v < vectors; v += gridDim.x * blockDim.x) {
        const float4 k = body[v];
        take(k.x);
        take(k.y);
        take(k.z);
        take(k.w);
    }
    if (4u * vectors + thread < count)
        take(keys[4u * vectors + thread]);
    __shared__ uint32_t warp_lo[QUICK_BOUNDS_THREADS / 32], warp_hi[QUICK_BOUNDS_THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    lo = warp_min_u32(lo);
    hi = warp_max_u32(hi);
    if (lane == 0) {
        warp_lo[warp] = lo;
        warp_hi[warp] = hi;
    }
    __syncthreads();
    if (warp == 0) {
        lo = lane < QUICK_BOUNDS_THREADS / 32 ? warp_lo[lane] : 0xFFFFFFFFu;
        hi = lane < QUICK_BOUNDS_THREADS / 32 ? warp_hi[lane] : 0;
        lo = warp_min_u32(lo);
        hi = warp_max_u32(hi);
        if (lane == 0) {
            atomicMin(&control->root_lo, lo);
            atomicMax(&control->root_hi, hi);
        }
    }
}

/* One thread files the whole array as the first sequence. All-equal keys
 * are final as they stand (sort.h lets zeros keep their sign and NaNs
 * their payload): the input costs the bounds pass alone. The root's keys
 * are the caller's floats: a short root is a raw phase-two task, and a
 * long one is phase one's first sequence, which the first partition maps. */
__global__ void k_quick_root(quick_args q)
{
    const uint32_t lo = q.control->root_lo, hi = q.control->root_hi;
    if (lo == hi)
        return;
    if (q.count < q.min_length)
        push_task(q, 0, q.count, QUICK_TASK_SORT_RAW);
    else
        file_sequence(q, 0, 0, q.count, 0, lo, hi);
}

/* ---- kernels: phase one ------------------------------------------------- */

/* Thread 0, at the end of a plan: publishes its decision to the host. */
__device__ void publish(const quick_args &q, int cur, uint32_t ticket)
{
    /* Volatile: other threads' atomics on these live in L2, not in this
     * SM's L1 where an earlier plain read may have left a stale copy. */
    volatile quick_control *c = q.control;
    q.report->go = c->go[cur];
    q.report->blocks = c->blocks[cur];
    q.report->task_count = c->task_count;
    q.report->overflow = c->overflow;
    q.report->iterations = c->iterations;
    __threadfence_system(); /* the fields are visible before the ticket */
    q.report->ticket = ticket;
}

/* One block of QUICK_PLAN_THREADS. Decides whether phase one goes on with
 * work list `cur`; if so cuts each sequence into tiles (the paper's
 * sections), lists the tiles, and resets each sequence's cursors; else
 * hands every sequence left to phase two and marks phase one finished, so
 * that the iterations the host queued beyond this one do nothing. Only
 * the last plan of a queued batch (`report`) publishes to the host: the
 * host waits for that one alone, and each publish costs a system fence. */
__device__ void plan_iteration(const quick_args &q, int cur, int iteration,
                               uint32_t ticket, int report)
{
    __shared__ uint32_t s_scan[QUICK_PLAN_THREADS / 32];
    __shared__ uint32_t s_running;
    __shared__ uint32_t s_first[QUICK_PLAN_STAGED];
    quick_control *c = q.control;
    if (c->finished) {
        if (threadIdx.x == 0) {
            c->go[cur] = 0;
            if (report)
                publish(q, cur, ticket);
        }
        return;
    }
    quick_seq *work = cur ? q.work[1] : q.work[0];
    const uint32_t w = min(c->work_count[cur], q.work_cap);
    const uint32_t done = c->task_count;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool go = w > 0 && w + done < q.maxseq &&
                    iteration < QUICK_MAX_ITERATIONS && !c->overflow;
    if (!go) {
        /* Iteration 0's only sequence is the unmapped root. */
        const uint32_t main_kind =
            iteration == 0 ? QUICK_TASK_SORT_RAW : QUICK_TASK_SORT_MAIN;
        for (uint32_t i = threadIdx.x; i < w; i += blockDim.x)
            push_task(q, work[i].start, work[i].end,
                      work[i].in_aux ? QUICK_TASK_SORT_AUX : main_kind);
        __syncthreads(); /* every task is filed before the count is sent */
        if (threadIdx.x == 0) {
            __threadfence();
            c->go[cur] = 0;
            c->blocks[cur] = 0;
            c->finished = 1;
            if (report)
                publish(q, cur, ticket);
        }
        return;
    }
    if (threadIdx.x == 0)
        s_running = 0;
    __syncthreads();
    const uint32_t tile = q.tile;
    for (uint32_t base = 0; base < w; base += blockDim.x) {
        uint32_t i = base + threadIdx.x;
        uint32_t nb = i < w ? (work[i].end - work[i].start + tile - 1) / tile : 0;
        uint32_t inclusive = nb;
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t n = __shfl_up_sync(~0u, inclusive, o);
            if (lane >= o)
                inclusive += n;
        }
        if (lane == 31)
            s_scan[warp] = inclusive;
        __syncthreads();
        uint32_t before = s_running;
        for (int k = 0; k < warp; k++)
            before += s_scan[k];
        if (i < w) {
            quick_seq *s = &work[i];
            s->first_block = before + inclusive - nb;
            if (i < QUICK_PLAN_STAGED)
                s_first[i] = before + inclusive - nb;
            s->below = s->above = s->equal = 0;
            s->blocks_left = nb;
            s->pivot = iteration >= q.value_iterations
                           ? midpoint(s->lo, s->hi)
                           : value_midpoint(s->lo, s->hi);
            s->below_max = 0;
            s->above_min = 0xFFFFFFFFu;
        }
        __syncthreads(); /* everyone has read s_running and s_scan */
        if (threadIdx.x == blockDim.x - 1)
            s_running = before + inclusive;
        __syncthreads();
    }
    /* The tile list: tile b belongs to the last sequence whose first_block
     * is <= b (written above by other threads of this block), found by a
     * binary search over a shared-memory copy of the first blocks when
     * they fit (else a dozen dependent global loads per tile). */
    const uint32_t tiles = s_running; /* the loop's last barrier orders s_first */
    const bool staged = w <= QUICK_PLAN_STAGED;
    if (tiles <= q.block_cap)
        for (uint32_t b = threadIdx.x; b < tiles; b += blockDim.x) {
            uint32_t lo = 0, hi = w - 1;
            while (lo < hi) {
                uint32_t mid = (lo + hi + 1) / 2;
                if ((staged ? s_first[mid] : work[mid].first_block) <= b)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            const quick_seq *s = &work[lo];
            const uint32_t first = staged ? s_first[lo] : s->first_block;
            const uint32_t begin = s->start + (b - first) * tile;
            quick_tile t = {lo, begin, min(s->end, begin + tile), s->in_aux};
            q.tiles[b] = t;
        }
    if (threadIdx.x == 0) {
        c->blocks[cur] = tiles;
        c->claimed[cur] = 0;
        c->go[cur] = tiles <= q.block_cap;
        if (tiles > q.block_cap)
            c->overflow = 1;
        c->iterations++;
        c->work_count[cur ^ 1] = 0;
        if (report)
            publish(q, cur, ticket);
    }
}

/* Starts the asynchronous copy of one tile's keys and values into a
 * staging buffer: thread t copies (and later alone reads) slots j*T + t,
 * so the buffer needs no barrier, only this thread's wait. */
template <int T>
__device__ __forceinline__ void stage_tile(const quick_args &q, const quick_tile &t,
                                           uint32_t *stage)
{
    const uint32_t *src_keys = t.in_aux ? q.aux_keys : q.keys;
    const uint32_t *src_values = t.in_aux ? q.aux_values : q.values;
#pragma unroll
    for (int j = 0; j < QUICK_ITEMS; j++) {
        const uint32_t i = t.begin + j * T + threadIdx.x;
        if (i < t.stop) {
            __pipeline_memcpy_async(&stage[j * T + threadIdx.x], &src_keys[i], 4);
            __pipeline_memcpy_async(&stage[(QUICK_ITEMS + j) * T + threadIdx.x],
                                    &src_values[i], 4);
        }
    }
}

typedef struct partition_shared {
    tile_shared tile;
    uint32_t bounds[32][2];
    uint32_t offset[3];
    uint32_t claim; /* the block's next claimed tile (k_quick_partition) */
} partition_shared;

/* Partitions one staged tile (the paper's two passes over a section, here
 * over shared memory): the first pass classifies every key against the
 * pivot and ranks it within its warp by ballots; the block sums the
 * counts, reserves its three output ranges with one atomicAdd each on
 * the sequence's cursors; the second pass writes keys below the pivot up
 * from the sequence's start, above it down from its end, and the values
 * of equal keys to equal_values. The sequence's last tile files the two
 * children. One body: both passes share the ballots' ranks in registers
 * and the block's shared counts between their barriers. */
template <int T>
__device__ void partition_tile(const quick_args &q, int cur, uint32_t index,
                               const quick_tile &t, const uint32_t *stage,
                               partition_shared *sh, uint32_t claim)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    quick_seq *s = &(cur ? q.work[1] : q.work[0])[t.seq];
    const uint32_t pivot = s->pivot;
    const uint32_t lanes_below = (1u << lane) - 1u;
    uint32_t rank[QUICK_ITEMS / 2]; /* 16 bits per item (< 32 * QUICK_ITEMS) */
    uint32_t classes = 0; /* 2 bits per item; 3 = no key */
    uint32_t below_max = 0, above_min = 0xFFFFFFFFu;
    uint32_t running[3] = {0, 0, 0};
#pragma unroll
    for (int j = 0; j < QUICK_ITEMS; j++) {
        const uint32_t i = t.begin + j * T + threadIdx.x;
        uint32_t cls = 3;
        if (i < t.stop) {
            const uint32_t key = stage[j * T + threadIdx.x];
            cls = key < pivot ? 0 : (key > pivot ? 2 : 1);
            if (cls == 0)
                below_max = max(below_max, key);
            if (cls == 2)
                above_min = min(above_min, key);
        }
        classes |= cls << (2 * j);
        const uint32_t m0 = __ballot_sync(~0u, cls == 0);
        const uint32_t m1 = __ballot_sync(~0u, cls == 1);
        const uint32_t m2 = __ballot_sync(~0u, cls == 2);
        const uint32_t m = cls == 0 ? m0 : (cls == 1 ? m1 : m2);
        const uint32_t base = cls == 0 ? running[0] : (cls == 1 ? running[1] : running[2]);
        const uint32_t r = base + __popc(m & lanes_below);
        if (j & 1)
            rank[j / 2] |= r << 16;
        else
            rank[j / 2] = r;
        running[0] += __popc(m0);
        running[1] += __popc(m1);
        running[2] += __popc(m2);
    }
    below_max = warp_max_u32(below_max);
    above_min = warp_min_u32(above_min);
    if (lane == 0) {
        sh->tile.warp_counts[warp] =
            running[0] | ((unsigned long long)running[1] << CLASS_BITS) |
            ((unsigned long long)running[2] << (2 * CLASS_BITS));
        sh->bounds[warp][0] = below_max;
        sh->bounds[warp][1] = above_min;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        sh->claim = claim; /* read by every thread after the barrier below */
    if (warp == 0) {
        unsigned long long cnt = lane < T / 32 ? sh->tile.warp_counts[lane] : 0;
        uint32_t bm = lane < T / 32 ? sh->bounds[lane][0] : 0;
        uint32_t am = lane < T / 32 ? sh->bounds[lane][1] : 0xFFFFFFFFu;
        unsigned long long inclusive = cnt;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned long long n = __shfl_up_sync(~0u, inclusive, o);
            if (lane >= o)
                inclusive += n;
        }
        bm = warp_max_u32(bm);
        am = warp_min_u32(am);
        if (lane < T / 32)
            sh->tile.warp_prefix[lane] = inclusive - cnt;
        const unsigned long long total = __shfl_sync(~0u, inclusive, 31);
        const uint32_t below = (uint32_t)(total & CLASS_MASK);
        const uint32_t equal = (uint32_t)((total >> CLASS_BITS) & CLASS_MASK);
        const uint32_t above = (uint32_t)((total >> (2 * CLASS_BITS)) & CLASS_MASK);
        /* Five lanes issue the reservations and bounds in parallel (the
         * bounds fire and forget); thread 0 fences them after the barrier
         * below, before this tile's blocks_left decrement. */
        if (lane == 0)
            sh->offset[0] = s->start + atomicAdd(&s->below, below);
        else if (lane == 1)
            sh->offset[1] = s->end - atomicAdd(&s->above, above) - above;
        else if (lane == 2)
            sh->offset[2] = atomicAdd(&s->equal, equal);
        else if (lane == 3 && below)
            atomicMax(&s->below_max, bm);
        else if (lane == 4 && above)
            atomicMin(&s->above_min, am);
        if (lane == 2) {
            quick_block_record r = {t.seq, t.begin, equal, sh->offset[2]};
            q.blocks[index] = r;
        }
    }
    __syncthreads();
    /* The last tile of the sequence reads the other tiles' totals and
     * bounds. The barrier orders this block's five atomics before thread
     * 0's fence (fences are cumulative), which orders them before the
     * decrement; the partitioned data itself is read only by the next
     * launch, so the decrement need not wait for the writes below. */
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicSub(&s->blocks_left, 1u) == 1u) {
            __threadfence();
            volatile quick_seq *vs = s;
            const uint32_t total_below = vs->below, total_above = vs->above;
            const uint32_t bmax = vs->below_max, amin = vs->above_min;
            const uint32_t start = vs->start, end = vs->end, lo = vs->lo, hi = vs->hi;
            const uint32_t in_aux = vs->in_aux;
            s->gap_start = start + total_below;
            file_sequence(q, cur ^ 1, start, start + total_below, !in_aux, lo, bmax);
            file_sequence(q, cur ^ 1, end - total_above, end, !in_aux, amin, hi);
        }
    }
    const unsigned long long prefix = sh->tile.warp_prefix[warp];
    const uint32_t below_pos = sh->offset[0], above_pos = sh->offset[1];
    uint32_t *dst_keys = t.in_aux ? q.keys : q.aux_keys;
    uint32_t *dst_values = t.in_aux ? q.values : q.aux_values;
    uint32_t *equal_values = q.equal_values + t.begin;
#pragma unroll
    for (int j = 0; j < QUICK_ITEMS; j++) {
        const uint32_t cls = (classes >> (2 * j)) & 3u;
        if (cls == 3)
            continue;
        const uint32_t slot = ((rank[j / 2] >> (16 * (j & 1))) & 0xFFFFu) +
                              (uint32_t)((prefix >> (CLASS_BITS * cls)) & CLASS_MASK);
        const uint32_t key = stage[j * T + threadIdx.x];
        const uint32_t value = stage[(QUICK_ITEMS + j) * T + threadIdx.x];
        if (cls == 0) {
            dst_keys[below_pos + slot] = key;
            dst_values[below_pos + slot] = value;
        } else if (cls == 2) {
            dst_keys[above_pos + slot] = key;
            dst_values[above_pos + slot] = value;
        } else {
            equal_values[slot] = value;
        }
    }
}

/* Phase one's partition, persistent: a grid of as many blocks as are
 * resident walks the plan's tiles, block b taking tiles b, b + grid and
 * b + 2 grid, then the tiles it claims (QUICK_STATIC_ROUNDS). While a
 * tile is partitioned (its atomics and writes), the next one's keys and
 * values are already on their way into the other half of the block's
 * staging memory (cp.async), so the loads never wait on the reservations;
 * the tile after that has its descriptor loaded, and the one after that
 * is being claimed (thread 0's atomic, published in partition_tile's
 * shared memory). Launched for every queued iteration; does nothing when
 * the plan said stop. `raw` (the first iteration: the root in the
 * caller's floats): each thread maps its own staged keys once they land,
 * so the partition writes codes to aux. */
template <int T>
__device__ void partition_tiles(const quick_args &q, int cur, int raw, uint32_t tiles,
                                uint32_t *s_stage, partition_shared *s_part)
{
    const uint32_t step = gridDim.x, first_claim = QUICK_STATIC_ROUNDS * step;
    uint32_t b = blockIdx.x, b_next = b + step, b_after = b + 2 * step;
    quick_tile now = q.tiles[b], next = now, after = now;
    stage_tile<T>(q, now, s_stage);
    __pipeline_commit();
    if (b_next < tiles)
        next = q.tiles[b_next];
    for (int buf = 0; b < tiles; buf ^= 1) {
        uint32_t claim = tiles;
        if (threadIdx.x == 0 && first_claim < tiles)
            claim = first_claim + atomicAdd(&q.control->claimed[cur], 1u);
        if (b_next < tiles)
            stage_tile<T>(q, next, s_stage + (buf ^ 1) * (2 * QUICK_ITEMS * T));
        __pipeline_commit();
        if (b_after < tiles)
            after = q.tiles[b_after];
        __pipeline_wait_prior(1);
        uint32_t *stage = s_stage + buf * (2 * QUICK_ITEMS * T);
        if (raw)
#pragma unroll
            for (int j = 0; j < QUICK_ITEMS; j++)
                if (now.begin + j * T + threadIdx.x < now.stop)
                    stage[j * T + threadIdx.x] =
                        ordered_from_raw(stage[j * T + threadIdx.x], q.descending);
        partition_tile<T>(q, cur, b, now, stage, s_part, claim);
        b = b_next;
        b_next = b_after;
        b_after = s_part->claim;
        now = next;
        next = after;
    }
}

/* One block partitions tiles (partition_tiles), thread t owning items
 * j * T + t of each. Two 512-thread blocks an SM need at most 64 registers
 * a thread, hence the launch bounds: with a minimum of one block ptxas
 * takes 72 and the grid halves. */
template <int T>
__global__ void __launch_bounds__(T, 1024 / T) k_quick_partition(quick_args q, int cur, int raw)
{
    extern __shared__ uint32_t s_stage[]; /* [2][2 * QUICK_ITEMS * T] */
    __shared__ partition_shared s_part;
    TRACE_ARRIVE
    chain_wait();
    TRACE_START
    const quick_control *c = q.control;
    const uint32_t tiles = c->go[cur] ? c->blocks[cur] : 0;
    if (blockIdx.x < tiles)
        partition_tiles<T>(q, cur, raw, tiles, s_stage, &s_part);
    TRACE_END(tiles ? (int)c->iterations - 1 : -1, TRACE_PARTITION)
}

/* After iteration `cur`'s partition: tile b's warp writes its equal keys'
 * values into its slice of the sequence's gap in the caller's arrays (the
 * partition has finished, so the source buffer is free there). One warp
 * per tile, `warp` of `warps` striding over the tiles, so that each warp
 * reads its tile's record once (a block walking its tiles one after
 * another waits on a record load per tile). Does nothing when that iteration's plan said stop. */
__device__ void fill_gaps(const quick_args &q, int cur, uint32_t warp, uint32_t warps)
{
    const quick_control *c = q.control;
    if (!c->go[cur])
        return;
    const uint32_t tiles = c->blocks[cur], lane = threadIdx.x & 31;
    const quick_seq *work = cur ? q.work[1] : q.work[0];
    for (uint32_t b = warp; b < tiles; b += warps) {
        const quick_block_record r = q.blocks[b];
        if (r.equal_count == 0)
            continue;
        const quick_seq *s = &work[r.seq];
        const uint32_t key = final_key(q, s->pivot);
        const uint32_t out = s->gap_start + r.equal_offset;
        for (uint32_t i = lane; i < r.equal_count; i += 32) {
            q.keys[out + i] = key;
            q.values[out + i] = q.equal_values[r.section_begin + i];
        }
    }
}

/* Between two partitions, one launch: block 0 plans iteration `iteration`
 * (work list cur, see plan_iteration) while the other blocks fill the
 * gaps of the iteration before (list cur ^ 1) when `fill` is set. The two
 * touch disjoint data: the plan writes the tile list, list cur's
 * sequences and the control pair go/blocks[cur]; the fill reads the
 * records, the equal values and list cur ^ 1, all of which only the next
 * partition overwrites. */
__global__ void __launch_bounds__(QUICK_PLAN_THREADS)
k_quick_plan_fill(quick_args q, int cur, int iteration, uint32_t ticket, int report,
                  int fill)
{
    TRACE_ARRIVE
    chain_wait();
    TRACE_START
    if (blockIdx.x == 0)
        plan_iteration(q, cur, iteration, ticket, report);
    else if (fill)
        fill_gaps(q, cur ^ 1,
                  (blockIdx.x - 1) * (QUICK_PLAN_THREADS / 32) + (threadIdx.x >> 5),
                  (gridDim.x - 1) * (QUICK_PLAN_THREADS / 32));
    TRACE_END(iteration, blockIdx.x == 0 ? TRACE_PLAN : TRACE_FILL)
}

/* ---- kernels: phase two ------------------------------------------------- */

/* The bitonic sort with the "flip" first step: stage k compares index i
 * of each k-block with its mirror i ^ (k - 1), later steps with i ^ j,
 * and every comparator puts the smaller word at the lower index. With the
 * padding all-ones (the largest word) at indices >= len, a comparator whose
 * upper index is >= len changes nothing, so pads never move.
 *
 * The network of a padded size 2^L has L(L+1)/2 steps, step p of stage s
 * (k = 2^s) acting on index bit b (pairs differ in bit b; the flip also
 * complements every bit below b). Register windows: a run of consecutive
 * steps that touches at most B distinct bits (B = 4 for packed words, 3
 * for wide ones) runs in the registers of one thread that holds the 2^B
 * words differing in exactly those bits (the window's bits); the other
 * L - B bits come from the (virtual) thread index, lowest bits from the
 * lowest thread bits, so a warp reads 32 different words of a row.
 * Between windows the words go through shared memory once (a store, a
 * barrier, a load): 22 round trips for 8192 pairs at B = 4 instead of
 * the 91 steps, every comparator in registers. A flip whose lower bits are not
 * all in the window pairs a thread's lower half (bit b clear) with the
 * upper half of the thread whose other lower bits are complemented: the
 * thread holds that upper half instead (out_mask), so windows stay closed.
 * A thread whose smallest index is >= len holds only pads and skips the
 * window. Everything about a window is a compile-time constant: register
 * pairs, and each register's shared-memory offset from the thread's base
 * (the padded layout below is linear over disjoint bits). */

/* k_quick_tasks' dynamic shared memory: the small sort's pairs, in
 * small_slot order (named here so that the sort's accesses are shared
 * ones, not generic, in the non-inlined size classes). */
extern __shared__ __align__(16) unsigned long long s_small[];

/* Compare-exchange of two words held by one thread: x gets the smaller. */
__device__ __forceinline__ void exchange_up(unsigned long long &x, unsigned long long &y)
{
    const bool swap = y < x;
    const unsigned long long lo = swap ? y : x, hi = swap ? x : y;
    x = lo;
    y = hi;
}

__device__ __forceinline__ void exchange_up(uint32_t &x, uint32_t &y)
{
    const uint32_t lo = min(x, y), hi = max(x, y);
    x = lo;
    y = hi;
}

/* Shared-memory slot of pair i: one word of padding after every 16
 * (row-sized runs of a window land in different banks). Linear over
 * disjoint bits: small_slot(a | b) = small_slot(a) + small_slot(b). */
__host__ __device__ constexpr uint32_t small_slot(uint32_t i)
{
    return i + (i >> 4);
}

/* Words of shared memory a small sort of n (a power of two) pairs needs. */
__host__ __device__ constexpr uint32_t small_words(uint32_t n)
{
    return small_slot(n);
}

struct small_step {
    int bit, flip;
};

/* Step p of the flip-bitonic network (stage s = 1, 2, ... has s steps). */
__host__ __device__ constexpr small_step network_step(int p)
{
    int s = 1;
    while (p >= s) {
        p -= s;
        s++;
    }
    return small_step{s - 1 - p, p == 0};
}

struct small_window {
    int bit[QUICK_SMALL_MAX_BITS]; /* index bit of register bit i, increasing */
    int other[32];             /* index bit of thread bit q, increasing */
    int first, count;          /* network steps [first, first + count) */
    int flip_reg;              /* -1, or the register bit whose set half ... */
    uint32_t out_mask;         /* ... has these (lower, other) bits complemented */
};

struct small_plan {
    int windows, bad;
    small_window w[QUICK_SMALL_MAX_WINDOWS];
};

/* Greedy: each window takes the longest run of steps touching at most
 * B bits, filled up with the lowest unused bits. */
__host__ __device__ constexpr small_plan make_small_plan(int L, int B)
{
    small_plan plan{};
    const int total = L * (L + 1) / 2;
    int p = 0;
    while (p < total && plan.windows < QUICK_SMALL_MAX_WINDOWS) {
        uint32_t mask = 0;
        int bits = 0, q = p;
        for (; q < total; q++) {
            const int b = network_step(q).bit;
            if ((mask >> b) & 1u)
                continue;
            if (bits == B)
                break;
            mask |= 1u << b;
            bits++;
        }
        for (int b = 0; bits < B; b++)
            if (!((mask >> b) & 1u)) {
                mask |= 1u << b;
                bits++;
            }
        small_window &w = plan.w[plan.windows++];
        for (int i = 0; i < QUICK_SMALL_MAX_BITS; i++)
            w.bit[i] = -1; /* unused register bits match no index bit */
        int reg = 0, other = 0;
        for (int b = 0; b < L; b++) {
            if ((mask >> b) & 1u)
                w.bit[reg++] = b;
            else
                w.other[other++] = b;
        }
        w.first = p;
        w.count = q - p;
        w.flip_reg = -1;
        w.out_mask = 0;
        for (int i = p; i < q; i++) {
            const small_step st = network_step(i);
            const uint32_t out = ((1u << st.bit) - 1u) & ~mask;
            if (!st.flip || out == 0)
                continue;
            if (w.flip_reg >= 0)
                plan.bad = 1; /* two such flips: the halves would not close */
            for (int r = 0; r < B; r++)
                if (w.bit[r] == st.bit)
                    w.flip_reg = r;
            w.out_mask = out;
        }
        p = q;
    }
    if (p < total)
        plan.bad = 1;
    return plan;
}

/* The register bit that holds index bit b in window w. */
__host__ __device__ constexpr int window_reg(const small_window &w, int b)
{
    int r = -1;
    for (int i = 0; i < QUICK_SMALL_MAX_BITS; i++)
        if (w.bit[i] == b)
            r = i;
    return r;
}

/* Register-window bits for a word type. */
template <typename Word>
__host__ __device__ constexpr int small_bits()
{
    return sizeof(Word) == 4 ? QUICK_SMALL_BITS_PACKED : QUICK_SMALL_BITS_WIDE;
}

/* The steps of window W of size 2^L on one thread's registers. */
template <typename Word, int L, int W, int S>
__device__ __forceinline__ void small_steps(Word (&x)[1 << small_bits<Word>()])
{
    constexpr small_window w = make_small_plan(L, small_bits<Word>()).w[W];
    if constexpr (S < w.count) {
        constexpr small_step st = network_step(w.first + S);
        constexpr int i = window_reg(w, st.bit);
        static_assert(i >= 0 && i < small_bits<Word>() && w.bit[i] == st.bit,
                      "a window holds the bits of its steps");
        constexpr int m = st.flip ? (2 << i) - 1 : 1 << i;
#pragma unroll
        for (int r = 0; r < (1 << small_bits<Word>()); r++)
            if (!((r >> i) & 1))
                exchange_up(x[r], x[r ^ m]);
        small_steps<Word, L, W, S + 1>(x);
    }
}

/* Window W and the ones after it, each ended by a barrier (its stores
 * are the next window's loads). Virtual thread v (v < 2^(L-4), strided
 * by the block) owns the window's 16 pairs at index deposit(v) plus each
 * register's bits (out_mask complemented in the flip's upper half). */
template <typename Word, int L, int W>
__device__ __forceinline__ void small_windows(uint32_t len)
{
    constexpr int B = small_bits<Word>();
    Word *s = reinterpret_cast<Word *>(s_small);
    constexpr small_plan plan = make_small_plan(L, B);
    static_assert(!plan.bad, "the flip-bitonic window plan is consistent");
    constexpr small_window w = plan.w[W];
    for (uint32_t v = threadIdx.x; v < (1u << (L - B)); v += blockDim.x) {
        uint32_t low = 0;
#pragma unroll
        for (int t = 0; t < L - B; t++)
            low |= ((v >> t) & 1u) << w.other[t];
        if (low >= len)
            continue; /* pads only: its smallest index is low */
        Word *lower = s + small_slot(low);
        Word *upper = s + small_slot(low ^ w.out_mask);
        Word x[1 << B];
#pragma unroll
        for (int r = 0; r < (1 << B); r++) {
            uint32_t offset = 0;
#pragma unroll
            for (int i = 0; i < B; i++)
                offset |= (uint32_t)((r >> i) & 1) << w.bit[i];
            const bool up = w.flip_reg >= 0 && ((r >> (w.flip_reg & 31)) & 1);
            x[r] = (up ? upper : lower)[small_slot(offset)];
        }
        small_steps<Word, L, W, 0>(x);
#pragma unroll
        for (int r = 0; r < (1 << B); r++) {
            uint32_t offset = 0;
#pragma unroll
            for (int i = 0; i < B; i++)
                offset |= (uint32_t)((r >> i) & 1) << w.bit[i];
            const bool up = w.flip_reg >= 0 && ((r >> (w.flip_reg & 31)) & 1);
            (up ? upper : lower)[small_slot(offset)] = x[r];
        }
    }
    __syncthreads();
    if constexpr (W + 1 < plan.windows)
        small_windows<Word, L, W + 1>(len);
}

/* The whole network of size 2^L over s_small (pads from
 * len on already all-ones). Not inlined: one copy per size class. */
template <typename Word, int L>
__device__ __noinline__ void small_sort_pow2(uint32_t len)
{
    small_windows<Word, L, 0>(len);
}

/* small_sort_pow2 for the padded size n2 (a power of two in
 * [QUICK_SMALL_MIN, 2^13]). */
template <typename Word>
__device__ __forceinline__ void small_sort_size(uint32_t n2, uint32_t len)
{
    switch (n2) {
    case 1u << 5: small_sort_pow2<Word, 5>(len); break;
    case 1u << 6: small_sort_pow2<Word, 6>(len); break;
    case 1u << 7: small_sort_pow2<Word, 7>(len); break;
    case 1u << 8: small_sort_pow2<Word, 8>(len); break;
    case 1u << 9: small_sort_pow2<Word, 9>(len); break;
    case 1u << 10: small_sort_pow2<Word, 10>(len); break;
    case 1u << 11: small_sort_pow2<Word, 11>(len); break;
    case 1u << 12: small_sort_pow2<Word, 12>(len); break;
    default: small_sort_pow2<Word, 13>(len); break;
    }
}

/* Flip-bitonic sort of `len` pairs (len <= sbsize) from src (the caller's
 * floats if raw, else codes) into the caller's arrays at the same place,
 * as final keys; shared memory holds the pairs and pads up to the next
 * power of two n2 = 2^L (at least QUICK_SMALL_MIN). When the codes span
 * less than 2^(32 - L) (after phase one, all but the sequences of the
 * widest binades), the sort moves one 32-bit word per pair, (code - min)
 * above the pair's index, instead of (code, value): a comparator is a
 * min and a max instead of a 64-bit compare and four selects, and the
 * values wait in shared memory behind the words until the write-out
 * gathers them by index. Words are unique, and the padding (all-ones)
 * is above every real word since some index below n2 - 1 is unused. */
template <int T>
__device__ void small_sort(const quick_args &q, const uint32_t *src_keys,
                           const uint32_t *src_values, uint32_t start,
                           uint32_t len, bool raw)
{
    __shared__ uint32_t s_range[2];
    int log2n = 5;
    while ((1u << log2n) < len)
        log2n++;
    const uint32_t n2 = 1u << log2n;
    if (threadIdx.x == 0) {
        s_range[0] = 0xFFFFFFFFu;
        s_range[1] = 0;
    }
    __syncthreads();
    /* The codes' range first (the keys are read again below, from L2). */
    uint32_t lo = 0xFFFFFFFFu, hi = 0;
    for (uint32_t i = threadIdx.x; i < len; i += T) {
        const uint32_t bits = src_keys[start + i];
        const uint32_t key = raw ? ordered_from_raw(bits, q.descending) : bits;
        lo = min(lo, key);
        hi = max(hi, key);
    }
    lo = warp_min_u32(lo);
    hi = warp_max_u32(hi);
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&s_range[0], lo);
        atomicMax(&s_range[1], hi);
    }
    __syncthreads();
    lo = s_range[0];
    hi = s_range[1];
    if (hi - lo < (1u << (32 - log2n))) {
        uint32_t *packed = reinterpret_cast<uint32_t *>(s_small);
        uint32_t *values = packed + small_words(n2);
        for (uint32_t i = threadIdx.x; i < n2; i += T) {
            uint32_t word = 0xFFFFFFFFu;
            if (i < len) {
                const uint32_t bits = src_keys[start + i];
                const uint32_t key = raw ? ordered_from_raw(bits, q.descending) : bits;
                word = ((key - lo) << log2n) | i;
                values[i] = src_values[start + i];
            }
            packed[small_slot(i)] = word;
        }
        __syncthreads();
        small_sort_size<uint32_t>(n2, len);
        for (uint32_t i = threadIdx.x; i < len; i += T) {
            const uint32_t w = packed[small_slot(i)];
            q.keys[start + i] = final_key(q, lo + (w >> log2n));
            q.values[start + i] = values[w & (n2 - 1)];
        }
    } else {
        for (uint32_t i = threadIdx.x; i < n2; i += T) {
            unsigned long long word = ~0ull;
            if (i < len) {
                const uint32_t bits = src_keys[start + i];
                const uint32_t key = raw ? ordered_from_raw(bits, q.descending) : bits;
                word = ((unsigned long long)key << 32) | src_values[start + i];
            }
            s_small[small_slot(i)] = word;
        }
        __syncthreads();
        small_sort_size<unsigned long long>(n2, len);
        for (uint32_t i = threadIdx.x; i < len; i += T) {
            const unsigned long long w = s_small[small_slot(i)];
            q.keys[start + i] = final_key(q, (uint32_t)(w >> 32));
            q.values[start + i] = (uint32_t)w;
        }
    }
    __syncthreads(); /* s_small and s_range are reused by the next small sort */
}

/* One task, by the whole block. A sort task runs quicksort on its range
 * with an explicit stack (larger part pushed first, smaller popped next),
 * writing every final key to the caller's arrays. A stack entry's source
 * is 0 (codes in main), 1 (codes in aux) or 2 (the caller's floats in
 * main: a raw task's range, before its first partition); children are
 * codes in the other buffer. */
template <int T>
__device__ void run_task(const quick_args &q, const quick_task task)
{
    __shared__ uint32_t s_stack[QUICK_STACK_DEPTH][3];
    __shared__ int s_top;
    __shared__ uint32_t s_reduce[T / 32][4];
    __shared__ tile_shared s_tile;
    if (task.kind == QUICK_TASK_COPY) {
        for (uint32_t i = task.start + threadIdx.x; i < task.end; i += T) {
            q.keys[i] = final_key(q, q.aux_keys[i]);
            q.values[i] = q.aux_values[i];
        }
        return;
    }
    if (task.kind == QUICK_TASK_RESTORE) {
        for (uint32_t i = task.start + threadIdx.x; i < task.end; i += T)
            q.keys[i] = final_key(q, q.keys[i]);
        return;
    }
    if (threadIdx.x == 0) {
        s_stack[0][0] = task.start;
        s_stack[0][1] = task.end;
        s_stack[0][2] = task.kind == QUICK_TASK_SORT_AUX
                            ? 1 : (task.kind == QUICK_TASK_SORT_RAW ? 2 : 0);
        s_top = 1;
    }
    __syncthreads();
    for (;;) {
        const int top = s_top;
        if (top == 0)
            break;
        const uint32_t start = s_stack[top - 1][0], end = s_stack[top - 1][1];
        const uint32_t source = s_stack[top - 1][2];
        const uint32_t in_aux = source == 1;
        const bool raw = source == 2;
        __syncthreads(); /* all have read the top before it is popped */
        if (threadIdx.x == 0)
            s_top = top - 1;
        const uint32_t len = end - start;
        const uint32_t *src_keys = in_aux ? q.aux_keys : q.keys;
        const uint32_t *src_values = in_aux ? q.aux_values : q.values;
        if (len <= q.sbsize) {
            small_sort<T>(q, src_keys, src_values, start, len, raw);
            continue;
        }
        uint32_t *dst_keys = in_aux ? q.keys : q.aux_keys;
        uint32_t *dst_values = in_aux ? q.values : q.aux_values;
        uint32_t first = src_keys[start], middle = src_keys[start + len / 2];
        uint32_t last = src_keys[end - 1];
        if (raw) {
            first = ordered_from_raw(first, q.descending);
            middle = ordered_from_raw(middle, q.descending);
            last = ordered_from_raw(last, q.descending);
        }
        const uint32_t pivot = median3(first, middle, last);
        uint32_t below, above, unused_max, unused_min;
        if (raw)
            count_pass<T, false, true>(src_keys, start, end, pivot, q.descending,
                                       &below, &above, &unused_max, &unused_min);
        else
            count_pass<T, false, false>(src_keys, start, end, pivot, q.descending,
                                        &below, &above, &unused_max, &unused_min);
        reduce_counts<T>(&below, &above, &unused_max, &unused_min, s_reduce);
        if (raw)
            partition_pass<T, true>(src_keys, src_values, start, end, pivot,
                                    q.descending, dst_keys, dst_values, start,
                                    end - above, q.equal_values + start, &s_tile);
        else
            partition_pass<T, false>(src_keys, src_values, start, end, pivot,
                                     q.descending, dst_keys, dst_values, start,
                                     end - above, q.equal_values + start, &s_tile);
        /* Every source read and equal_values write is done before the gap
         * (inside this range of the caller's arrays) is written. */
        __syncthreads();
        const uint32_t equal = len - below - above;
        const uint32_t pivot_key = final_key(q, pivot);
        for (uint32_t i = threadIdx.x; i < equal; i += T) {
            q.keys[start + below + i] = pivot_key;
            q.values[start + below + i] = q.equal_values[start + i];
        }
        if (threadIdx.x == 0) {
            uint32_t child[2][2] = {{start, start + below}, {end - above, end}};
            int larger = above > below;
            int order[2] = {larger, !larger};
            for (int k = 0; k < 2; k++) {
                const uint32_t *ch = child[order[k]];
                if (ch[1] > ch[0] && s_top < QUICK_STACK_DEPTH) {
                    s_stack[s_top][0] = ch[0];
                    s_stack[s_top][1] = ch[1];
                    s_stack[s_top][2] = !in_aux;
                    s_top++;
                }
            }
        }
        /* The gap copy reads equal_values[start..] which a child's
         * partition overwrites; the stack is read at the loop's top. */
        __syncthreads();
    }
}

/* Phase two, persistent: as many blocks as are resident take the tasks
 * one after another (an atomic counter), so that the launch needs no
 * task count from the host and can be queued right behind phase one's
 * iterations. Does nothing while phase one is not finished (a later
 * launch, queued after more iterations, does the work). */
template <int T>
__global__ void __launch_bounds__(T, DS_MIN_BLOCKS(T, QUICK_TASK_THREADS_PER_SM / T))
    k_quick_tasks(quick_args q)
{
    __shared__ uint32_t s_next;
    TRACE_ARRIVE
    chain_wait();
    TRACE_START
    quick_control *c = q.control;
    for (;;) {
        if (threadIdx.x == 0)
            s_next = c->finished ? atomicAdd(&c->next_task, 1u) : 0xFFFFFFFFu;
        __syncthreads();
        const uint32_t index = s_next;
        if (index >= min(c->task_count, q.task_cap))
            break;
        run_task<T>(q, q.tasks[index]);
        __syncthreads(); /* s_next and the task's shared state are free */
    }
    TRACE_END(c->finished ? 1 : 0, TRACE_TASKS) /* 0: a launch before the end */
}

/* ---- host launchers ---------------------------------------------------- */

/* Timed phases (time_phases): the bounds pass, phase one, phase two. */
#define QUICK_PHASES 3

typedef struct quick_state {
    size_t max_count;
    quick_tuning tuning;  /* a copy of quick_tuning_default; the launchers read it */
    uint32_t maxseq_cap;  /* maxseq for max_count: the lists' capacities */
    uint32_t *aux_keys, *aux_values, *equal_values;
    quick_seq *work[2];
    quick_tile *tiles;
    quick_block_record *blocks;
    quick_task *tasks;
    quick_control *control;
    quick_report *report;         /* mapped pinned host memory */
    quick_report *report_device;  /* its device address */
    uint32_t ticket;              /* last plan's ticket */
    uint32_t work_cap, block_cap, task_cap;
    int sm_count;
    int partition_fit;  /* k_quick_partition blocks per SM */
    int tasks_fit[14];  /* k_quick_tasks blocks per SM, by log2 sbsize
                           (0 .. log2 QUICK_MAX_SBSIZE) */
    uint32_t sbsize_max;  /* QUICK_MAX_SBSIZE or what this GPU allows */
    int time_phases, timed, iterations;
    cudaEvent_t events[QUICK_PHASES + 1];  /* phase i runs from event i to i + 1 */
} quick_state;

static const char *const phase_names[QUICK_PHASES] = {"bounds", "phase one", "phase two"};

/* Staging memory of k_quick_partition: two tiles of keys and values. */
static size_t partition_smem(void)
{
    return (size_t)2 * 2 * QUICK_ITEMS * QUICK_THREADS * sizeof(uint32_t);
}

/* Launches `kernel` (which starts with chain_wait) so that it may become
 * resident while the kernel before it on the stream is still running. */
template <typename... Params, typename... Args>
static cudaError_t launch_chained(void (*kernel)(Params...), uint32_t blocks,
                                  int threads, size_t smem, cudaStream_t stream,
                                  Args... args)
{
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3((unsigned)threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

/* One queued phase-one iteration's persistent partition (`blocks`
 * resident blocks); its fill runs in the next iteration's plan launch. */
static ds_status launch_partition(const quick_args &q, int cur, int raw,
                                  uint32_t blocks, cudaStream_t stream)
{
    DS_CUDA_TRY("sort quick",
                launch_chained(k_quick_partition<QUICK_THREADS>, blocks, QUICK_THREADS,
                               partition_smem(), stream, q, cur, raw));
    return DS_OK;
}

/* Lets k_quick_partition take its staging memory (above the 48 KiB
 * default) and records how many of its blocks fit on one SM. */
static ds_status prepare_partition(int *fit)
{
    DS_CUDA_TRY("sort quick",
                cudaFuncSetAttribute(k_quick_partition<QUICK_THREADS>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)partition_smem()));
    DS_CUDA_TRY("sort quick",
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    fit, k_quick_partition<QUICK_THREADS>, QUICK_THREADS, partition_smem()));
    if (*fit < 1)
        *fit = 1;
    return DS_OK;
}

/* Shared memory of k_quick_tasks: a small sort of sbsize pairs. */
static size_t small_sort_smem(uint32_t sbsize)
{
    return (size_t)small_words(max(sbsize, QUICK_SMALL_MIN)) * sizeof(unsigned long long);
}

/* Phase two's persistent grid (`blocks`), queued after each batch of
 * phase-one iterations; only the one after the last iteration works. */
static ds_status launch_tasks(const quick_args &q, uint32_t blocks,
                              cudaStream_t stream)
{
    DS_CUDA_TRY("sort quick",
                launch_chained(k_quick_tasks<QUICK_THREADS>, blocks, QUICK_THREADS,
                               small_sort_smem(q.sbsize), stream, q));
    return DS_OK;
}

/* Lets the phase-two kernels take the small sort's shared memory for
 * sbsize_max (above the 48 KiB default) and records how many blocks fit
 * on one SM for each sbsize 2^i (fit[i], i <= log2 QUICK_MAX_SBSIZE). */
static ds_status prepare_tasks(uint32_t sbsize_max, int *fit)
{
    DS_CUDA_TRY("sort quick",
                cudaFuncSetAttribute(k_quick_tasks<QUICK_THREADS>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)small_sort_smem(sbsize_max)));
    for (int i = 0; (1u << i) <= QUICK_MAX_SBSIZE; i++) {
        fit[i] = 1;
        if ((1u << i) <= sbsize_max)
            DS_CUDA_TRY("sort quick",
                        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                            &fit[i], k_quick_tasks<QUICK_THREADS>, QUICK_THREADS,
                            small_sort_smem(1u << i)));
        if (fit[i] < 1)
            fit[i] = 1;
    }
    return DS_OK;
}

static ds_status record(quick_state *st, int i, cudaStream_t stream)
{
    if (st->time_phases)
        DS_CUDA_TRY("sort quick", cudaEventRecord(st->events[i], stream));
    return DS_OK;
}

/* Spins until the plan kernel's report with `ticket` lands in mapped host
 * memory: a few microseconds, against tens for a copy and a stream
 * synchronise. Every 4096 spins the stream is queried, so that a failed
 * or finished stream ends the wait. */
static ds_status wait_report(quick_state *st, uint32_t ticket, cudaStream_t stream)
{
    for (unsigned spins = 1;; spins++) {
        if (st->report->ticket == ticket)
            break;
        if ((spins & 4095u) == 0) {
            cudaError_t err = cudaStreamQuery(stream);
            if (err == cudaSuccess && st->report->ticket != ticket)
                return ds_fail(DS_ERR_CUDA, "sort quick: plan report missing");
            if (err != cudaSuccess && err != cudaErrorNotReady)
                return ds_fail(DS_ERR_CUDA, "sort quick: %s", cudaGetErrorString(err));
        }
    }
    __sync_synchronize(); /* read the fields after the ticket */
    return DS_OK;
}

#ifdef DS_QUICK_TRACE
static cudaError_t trace_reset(cudaStream_t stream)
{
    unsigned long long init[QUICK_TRACE_SLOTS][TRACE_KINDS][5];
    for (int i = 0; i < QUICK_TRACE_SLOTS; i++)
        for (int k = 0; k < TRACE_KINDS; k++) {
            init[i][k][0] = init[i][k][1] = init[i][k][3] = ~0ull;
            init[i][k][2] = init[i][k][4] = 0;
        }
    return cudaMemcpyToSymbolAsync(g_quick_trace, init, sizeof init, 0,
                                   cudaMemcpyHostToDevice, stream);
}

static cudaError_t trace_print(uint32_t count, uint32_t grid, cudaStream_t stream)
{
    unsigned long long t[QUICK_TRACE_SLOTS][TRACE_KINDS][5];
    static const char *const kinds[TRACE_KINDS] = {"plan", "fill", "part", "tasks"};
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err == cudaSuccess)
        err = cudaMemcpyFromSymbol(t, g_quick_trace, sizeof t);
    if (err != cudaSuccess)
        return err;
    const unsigned long long t0 = t[0][TRACE_PLAN][0];
    fprintf(stderr, "trace n=%u grid=%u (us from plan 0 arrival: arrive start "
                    "start_last end_first end)\n", count, grid);
    for (int i = 0; i < QUICK_TRACE_SLOTS; i++)
        for (int k = 0; k < TRACE_KINDS; k++)
            if (t[i][k][4])
                fprintf(stderr, "trace %2d %-5s %9.2f %9.2f %9.2f %9.2f %9.2f\n", i,
                        kinds[k], (t[i][k][0] - t0) / 1e3, (t[i][k][1] - t0) / 1e3,
                        (t[i][k][2] - t0) / 1e3, (t[i][k][3] - t0) / 1e3,
                        (t[i][k][4] - t0) / 1e3);
    return cudaSuccess;
}
#endif

/* ---- backend entry ------------------------------------------------------ */

/* The whole sort, with the parameters that st->tuning gives for count.
 * One body: the launches read in queue order, which is the order the
 * stream runs them and the phase marks time them. */
static ds_status quick_sort(void *state, float *keys, uint32_t *values,
                            size_t count, ds_sort_order order, ds_stream user_stream)
{
    quick_state *st = (quick_state *)state;
    const quick_tuning *t = &st->tuning;
    const cudaStream_t stream = (cudaStream_t)user_stream;
    quick_params p = quick_params_for(t, count);
    ds_status status;
    /* The lists were sized for maxseq_cap; sbsize picks a compiled size class. */
    if (p.maxseq > st->maxseq_cap || p.sbsize > QUICK_MAX_SBSIZE ||
        (p.sbsize & (p.sbsize - 1)))
        return ds_fail(DS_ERR_INVALID_ARG, "sort quick: parameters out of range");
    if (p.sbsize > st->sbsize_max)
        p.sbsize = st->sbsize_max;
    const int descending = order == DS_SORT_DESCENDING;
    quick_args q = {};
    q.keys = (uint32_t *)keys;
    q.values = values;
    q.aux_keys = st->aux_keys;
    q.aux_values = st->aux_values;
    q.equal_values = st->equal_values;
    q.work[0] = st->work[0];
    q.work[1] = st->work[1];
    q.tiles = st->tiles;
    q.blocks = st->blocks;
    q.tasks = st->tasks;
    q.control = st->control;
    q.report = st->report_device;
    q.work_cap = st->work_cap;
    q.block_cap = st->block_cap;
    q.task_cap = st->task_cap;
    q.count = (uint32_t)count;
    q.maxseq = p.maxseq;
    q.sbsize = p.sbsize;
    q.tile = QUICK_TILE;
    q.descending = descending;
    uint32_t min_length = (uint32_t)((count + p.maxseq - 1) / p.maxseq);
    q.min_length = min_length > p.sbsize ? min_length : p.sbsize + 1;
    /* Balanced splits reach maxseq sequences in log2(maxseq) iterations;
     * a few more cover uneven ones (gaussian tails). Past that, a sequence
     * still splitting is one whose keys crowd at one end of a wide value
     * range (denormals under larger keys: the value pivot would need ~120
     * halvings to reach them), and the code midpoint, linear inside a
     * binade, is the better pivot. */
    uint32_t value_iterations = 3;
    for (uint32_t m = p.maxseq; m > 1; m >>= 1)
        value_iterations++;
    q.value_iterations = value_iterations < t->value_iterations_max
                             ? value_iterations : t->value_iterations_max;

    const size_t bounds_keys = (size_t)QUICK_BOUNDS_THREADS * t->bounds_keys_per_thread;
    uint32_t bounds_blocks = (uint32_t)((count + bounds_keys - 1) / bounds_keys);
    if (bounds_blocks > (uint32_t)st->sm_count * t->bounds_blocks_per_sm)
        bounds_blocks = (uint32_t)st->sm_count * t->bounds_blocks_per_sm;

#ifdef DS_QUICK_TRACE
    DS_CUDA_TRY("sort quick", trace_reset(stream));
#endif
    st->timed = 0;
    if ((status = record(st, 0, stream)))
        return status;
    k_quick_reset<<<1, 1, 0, stream>>>(st->control);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_reset");
    k_quick_bounds<<<bounds_blocks, QUICK_BOUNDS_THREADS, 0, stream>>>(
        keys, q.count, descending, st->control);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_bounds");
    if ((status = record(st, 1, stream)))
        return status;
    k_quick_root<<<1, 1, 0, stream>>>(q);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_root");

    /* Phase one, the host loop: iterations (plan with the previous
     * iteration's fill, partition) are queued in batches without waiting,
     * each decided on the device (the partition grid is persistent, so its
     * size does not depend on the plan); the host waits only for the last
     * plan of a batch, through its report in mapped memory, and queues
     * another batch while that plan says go. The first batch is one plan
     * (input that needs no partition, such as all-equal keys, stops
     * there), the second the log2(maxseq) + 1 plans that balanced splits
     * need (the last one stops), then later_batch at a time; queued
     * iterations past the end cost a few empty launches. Phase two's
     * persistent grid is queued behind every batch and works only after
     * the one whose plans finished phase one, so the GPU does not wait for
     * the host's look at the report. */
    int sb_log2 = 0;
    while ((1u << sb_log2) < p.sbsize)
        sb_log2++;
    const uint32_t task_grid = (uint32_t)st->sm_count * (uint32_t)st->tasks_fit[sb_log2];
    const uint32_t fit = (uint32_t)st->partition_fit;
    const uint32_t grid = (uint32_t)st->sm_count *
                          (t->partition_blocks_per_sm > 0 && t->partition_blocks_per_sm < fit
                               ? t->partition_blocks_per_sm : fit);
    const uint32_t plan_grid = 1 + (uint32_t)st->sm_count * t->fill_blocks_per_sm;
    int cur = 0, iteration = 0;
    int batch = 1;
    for (;;) {
        uint32_t ticket = 0;
        for (int b = 0; b < batch; b++, iteration++, cur ^= 1) {
            ticket = ++st->ticket;
            /* The plan, and the fill of the iteration before (none before
             * the first; the last partition's fill runs with the plan
             * that stops phase one, always queued after it). */
            DS_CUDA_TRY("sort quick",
                        launch_chained(k_quick_plan_fill, plan_grid, QUICK_PLAN_THREADS, 0,
                                       stream, q, cur, iteration, ticket,
                                       (int)(b == batch - 1), (int)(iteration > 0)));
            /* The first partition reads the caller's floats. */
            const int raw = iteration == 0;
            if ((status = launch_partition(q, cur, raw, grid, stream)))
                return status;
        }
        if ((status = record(st, 2, stream)))
            return status;
        if ((status = launch_tasks(q, task_grid, stream)))
            return status;
        if ((status = record(st, 3, stream)))
            return status;
        if ((status = wait_report(st, ticket, stream)))
            return status;
        if (st->report->overflow)
            return ds_fail(DS_ERR_CUDA, "sort quick: internal list overflow "
                                        "(%zu keys)", count);
        if (!st->report->go)
            break;
        batch = iteration == 1 ? (int)value_iterations - 2 : (int)t->later_batch;
    }
    st->iterations = (int)st->report->iterations;
#ifdef DS_QUICK_TRACE
    DS_CUDA_TRY("sort quick", trace_print(q.count, grid, stream));
#endif
    st->timed = st->time_phases;
    return DS_OK;
}

static void quick_destroy(void *state)
{
    quick_state *st = (quick_state *)state;
    if (!st)
        return;
    cudaFree(st->aux_keys);
    cudaFree(st->aux_values);
    cudaFree(st->equal_values);
    cudaFree(st->work[0]);
    cudaFree(st->work[1]);
    cudaFree(st->tiles);
    cudaFree(st->blocks);
    cudaFree(st->tasks);
    cudaFree(st->control);
    if (st->report)
        cudaFreeHost(st->report);
    for (int i = 0; i < QUICK_PHASES + 1; i++)
        if (st->events[i])
            cudaEventDestroy(st->events[i]);
    free(st);
}

/* Capacities for up to max_count keys at maxseq_cap: before an iteration,
 * work + tasks < maxseq, each sequence files at most two children, and
 * phase one's tiles number at most one per QUICK_TILE keys plus one per
 * sequence. */
static ds_status quick_create(const ds_sorter_desc *desc, void **dest)
{
    ds_status status = DS_OK;
    *dest = NULL;
    quick_state *st = (quick_state *)calloc(1, sizeof *st);
    if (!st)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort quick: out of host memory");
    size_t n = desc->max_count > 0 ? desc->max_count : 1;
    if (n > 0xFFFFFFFFull) {
        free(st);
        return ds_fail(DS_ERR_TOO_LARGE, "sort quick: max_count %zu exceeds 2^32 - 1",
                       desc->max_count);
    }
    int device = 0, smem_optin = 0;
    st->max_count = n;
    st->tuning = quick_tuning_default;
    const uint32_t maxseq_cap = quick_params_for(&st->tuning, n).maxseq;
    st->maxseq_cap = maxseq_cap;
    st->time_phases = desc->time_phases;
    st->work_cap = 2 * maxseq_cap + 2;
    st->block_cap = 3 * maxseq_cap + 4 + (uint32_t)(n / QUICK_TILE);
    st->task_cap = 3 * maxseq_cap + 4 + (uint32_t)(n / QUICK_COPY_CHUNK);
    DS_CUDA_GOTO(status, fail, "sort quick", cudaGetDevice(&device));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, device));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                        device));
    st->sbsize_max = QUICK_MAX_SBSIZE;
    while (st->sbsize_max > QUICK_SMALL_MIN &&
           small_sort_smem(st->sbsize_max) + QUICK_STATIC_SMEM > (size_t)smem_optin)
        st->sbsize_max >>= 1;
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->aux_keys, n * 4));
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->aux_values, n * 4));
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->equal_values, n * 4));
    for (int i = 0; i < 2; i++)
        DS_CUDA_GOTO(status, fail, "sort quick",
                     cudaMalloc((void **)&st->work[i], st->work_cap * sizeof(quick_seq)));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaMalloc((void **)&st->tiles, st->block_cap * sizeof(quick_tile)));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaMalloc((void **)&st->blocks, st->block_cap * sizeof(quick_block_record)));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaMalloc((void **)&st->tasks, st->task_cap * sizeof(quick_task)));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaMalloc((void **)&st->control, sizeof(quick_control)));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaHostAlloc((void **)&st->report, sizeof(quick_report),
                               cudaHostAllocMapped));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaHostGetDevicePointer((void **)&st->report_device, st->report, 0));
    st->report->ticket = 0;
    if (st->time_phases)
        for (int i = 0; i < QUICK_PHASES + 1; i++)
            DS_CUDA_GOTO(status, fail, "sort quick", cudaEventCreate(&st->events[i]));
    if ((status = prepare_tasks(st->sbsize_max, st->tasks_fit)) ||
        (status = prepare_partition(&st->partition_fit)))
        goto fail;
    *dest = st;
    return DS_OK;
fail:
    quick_destroy(st);
    return status;
}

static int quick_phases(void *state, const char **names, float *ms, int capacity)
{
    quick_state *st = (quick_state *)state;
    int written = 0;
    if (!st->timed)
        return 0;
    for (int i = 0; i < QUICK_PHASES && written < capacity; i++) {
        float elapsed = 0.0f;
        if (cudaEventSynchronize(st->events[i + 1]) != cudaSuccess ||
            cudaEventElapsedTime(&elapsed, st->events[i], st->events[i + 1]) != cudaSuccess)
            return written;
        names[written] = phase_names[i];
        ms[written] = elapsed;
        written++;
    }
    return written;
}

/* Device bytes per pair that quick_create() allocates (sort_backend.h):
 * three auxiliary arrays (12) and the work, tile, block and task lists. */
#define QUICK_BYTES_PER_PAIR 16

extern "C" const ds_sort_backend ds_sort_backend_quick = {
    "quick", 0, quick_create, quick_destroy, quick_sort, quick_phases, NULL, NULL,
    QUICK_BYTES_PER_PAIR, 1 /* host_paced: the plans' reports */};
