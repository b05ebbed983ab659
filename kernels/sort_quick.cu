/* sort_quick.cu — GPU-Quicksort, after Cederman & Tsigas, "GPU-Quicksort: A
 * Practical Quicksort Algorithm for Graphics Processors".
 *
 * Keys are first mapped in place to their ordered uint32 form
 * (ds_key_to_ordered), which makes descending order, NaN-last and -0 == +0
 * plain unsigned comparison; the last pass maps them back. Between the two:
 *
 * Phase one (several blocks per sequence, host loop). Every sequence that is
 * still long is cut into sections of about total/maxseq elements, one block
 * each. A block counts its keys below and above the pivot (first pass),
 * reduces the counts in shared memory, reserves its output ranges with
 * atomicAdd on the sequence's three cursors (below grows up from the start,
 * above grows down from the end, equal is an offset into the gap), and
 * partitions its section into the auxiliary buffer (second pass). Keys equal
 * to the pivot are final: their values wait in the `equal_values` scratch
 * until k_quick_fill, launched right after, writes them into the gap of the
 * user's buffer (with keys carrying values, the paper's "fill the gap with
 * the pivot" needs the values too, and the gap's start is known only once
 * every block has counted). The last block of a sequence (atomic counter)
 * creates the two children. The pivot is the average of the sequence's
 * minimum and maximum key values (for float keys spread over many binades
 * the average of their codes would cut off almost nothing); the children's
 * bounds come for free from the partition (largest key below, smallest key
 * above). After QUICK_VALUE_ITERATIONS the pivot is the midpoint of the
 * codes, which halves the code range, so phase one takes at most 24 + 33
 * iterations on any input; a sequence whose minimum equals its maximum is
 * done at once — all-equal input costs two passes (convert, restore).
 * By default (quick_params.two_pass = 0) each block owns one register tile
 * of threads * 8 keys and reads it once: it counts, reserves and writes in
 * one go; the paper's two passes over longer sections remain selectable.
 * Iterations continue while sequences are long and fewer than maxseq exist; each costs one host
 * round trip: the plan kernel's small report, written to mapped pinned
 * memory and spun on by the host, which also sizes the next grid.
 *
 * Phase two (one block per sequence, no host). Each block sorts its
 * sequence with an explicit shared-memory stack, always continuing with the
 * smaller part (depth <= log2 n), the same two-pass partition with the
 * median of first, middle and last key as pivot, equal keys again final,
 * and a shared-memory bitonic sort of (key, value) as one 64-bit word once
 * a sequence fits (<= sbsize), in the "flip" form whose comparators all
 * point one way, so that padding (the all-ones word) never moves and the
 * work follows the length rather than the next power of two. A pad that
 * ties with a real (NaN, 0xFFFFFFFF) pair is indistinguishable from it.
 *
 * Cost: O(n log n) expected; phase one O(n) per iteration. Memory beyond
 * the caller's arrays: 12 bytes per element (auxiliary keys and values,
 * equal-key values) plus lists of O(maxseq) entries, all made at create.
 * Not handled: key_bits (the full key is always sorted); stability.
 * Measured on an H100 at 2^24 uniform pairs: 3.40 ms, 5.6x cub-raw
 * (was 4.06 ms, 6.7x; the 3x goal is not met: phase-one iterations run at
 * about 200 us each, latency-bound; README "GPU quicksort").
 * Phase two's median of three has the classic O(n^2) inputs, but only
 * within one sequence of about n/maxseq keys after phase one.
 *
 * Parameters (threads per block, maxseq, sbsize) follow the paper's rule
 * optp(s, k, m) = 2^floor(log2(s*k + m) + 0.5) with constants fitted on an
 * H100 (see quick_params_for and README "GPU quicksort").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Keys each thread holds per tile of the partition pass: eight loads in
 * flight per thread hide latency; a tile is threads * 8 keys. */
#define QUICK_ITEMS 8
/* Smallest phase-one section allowed (quick_params.min_section may ask
 * for more): below this a block's fixed cost (two reductions, atomics)
 * outweighs its share of the pass. */
#define QUICK_MIN_SECTION 4096u
/* Smallest one-pass tile, 128 threads * QUICK_ITEMS (list capacities). */
#define QUICK_MIN_TILE (128u * QUICK_ITEMS)
/* The bitonic small sort keeps 8 pairs per thread in registers, striped
 * over a warp (a 256-pair segment): steps with distance < 256 run in
 * registers and shuffles, only longer ones go through shared memory. */
#define QUICK_SORT_ITEMS 8
#define QUICK_SEGMENT (32 * QUICK_SORT_ITEMS)
/* Uniform children that sit in the auxiliary buffer are copied back in
 * chunks of this many pairs, one phase-two block each. */
#define QUICK_COPY_CHUNK 65536u
/* Phase two's stack: depth <= log2(2^31) + 1 when continuing with the
 * smaller part; 64 leaves room. */
#define QUICK_STACK_DEPTH 64
/* Most phase-one iterations that split at the midpoint of the key values
 * (balanced for keys spread over many binades, as floats are); later ones
 * split at the midpoint of the ordered codes, which halves the code range,
 * so that phase one ends within QUICK_VALUE_ITERATIONS + 33 iterations.
 * The launcher uses log2(maxseq) + 3 when that is fewer. */
#define QUICK_VALUE_ITERATIONS 24
/* Guard on phase-one iterations (see above). */
#define QUICK_MAX_ITERATIONS 64
/* Threads of the single-block planning kernel and of the convert passes. */
#define QUICK_PLAN_THREADS 1024
#define QUICK_MAP_THREADS 256
/* Largest bitonic small sort: 8192 pairs, 64 KiB of shared memory; less
 * on GPUs whose per-block opt-in limit leaves no room for it next to the
 * kernel's own static shared memory (under QUICK_STATIC_SMEM bytes). */
#define QUICK_MAX_SBSIZE 8192u
#define QUICK_STATIC_SMEM 4096

typedef struct quick_params {
    int threads;      /* per block, both phases: 128, 256 or 512 */
    uint32_t maxseq;  /* phase one stops at this many sequences */
    uint32_t sbsize;  /* bitonic small sort at or below this length */
    uint32_t min_section; /* phase-one keys per block, at least (two-pass) */
    int code_pivot;   /* 1: phase-one pivot is the midpoint of the ordered
                         codes throughout, 0: of the key values first */
    int two_pass;     /* 1: phase-one blocks take long sections and read
                         them twice; 0: one register tile, read once */
    int pow2_sort;    /* 1: small sort pads to a power of two and sorts
                         it all; 0: flip variant, work follows the length */
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

/* The fitted rule (constants from the first H100 sweep, README "GPU
 * quicksort"). A later sweep with the one-pass partition, value pivot and
 * flip small sort found uniform keys up to 15% faster with 512 threads,
 * maxseq ~ n/8192 and sbsize 8192 from 2^20, but under that rule the
 * `special` distribution (NaN, infinities) took up to 6.8x its uniform
 * time: phase one stops at maxseq sequences and hands a long lagging
 * sequence to a single phase-two block. This rule keeps maxseq large
 * (4096 at 2^24), which keeps such sequences short. */
static quick_params quick_params_for(size_t n)
{
    quick_params p;
    double s = (double)n;
    p.threads = (int)clamp_u32(optp(s, 0.00004, 250.0), 128, 512);
    p.maxseq = clamp_u32(optp(s, 0.00025, 128.0), 64, 8192);
    p.sbsize = clamp_u32(optp(s, 0.001, 4000.0), 256, QUICK_MAX_SBSIZE);
    p.min_section = clamp_u32(optp(s, 0.001, 4096.0), QUICK_MIN_SECTION, 65536);
    p.code_pivot = 0;
    p.two_pass = 0;
    p.pow2_sort = 0;
    return p;
}

/* ---- device data ------------------------------------------------------- */

/* A phase-one sequence: [start, end) of buffer `in_aux` (0: the caller's
 * arrays, 1: the auxiliary ones), ordered keys within [lo, hi], lo < hi. */
typedef struct quick_seq {
    uint32_t start, end, lo, hi, in_aux;
    uint32_t first_block;  /* its first block in this iteration's grid */
    uint32_t pivot;        /* this iteration's, set by k_quick_plan */
    /* Shared by the blocks of one iteration (reset by k_quick_plan). */
    uint32_t below, above, equal;  /* cursors, in elements */
    uint32_t blocks_left;
    uint32_t below_max, above_min;  /* the children's inner bounds */
    uint32_t gap_start;             /* set by the last block, for fill */
} quick_seq;

enum { QUICK_TASK_SORT_MAIN = 0, QUICK_TASK_SORT_AUX = 1, QUICK_TASK_COPY = 2 };

/* A phase-two job: sort [start, end) found in the main or aux buffer into
 * the main one, or copy that range from aux to main (a uniform range). */
typedef struct quick_task {
    uint32_t start, end, kind;
} quick_task;

/* One phase-one block's equal keys, for k_quick_fill. */
typedef struct quick_block_record {
    uint32_t seq, section_begin, equal_count, equal_offset;
} quick_block_record;

/* What the host reads after each plan, through mapped pinned memory: the
 * plan kernel writes the fields, fences, then writes `ticket`. */
typedef struct quick_report {
    uint32_t go, blocks, task_count, overflow;
    volatile uint32_t ticket;
} quick_report;

typedef struct quick_control {
    uint32_t work_count[2];  /* sequences in each work list */
    uint32_t task_count;
    uint32_t overflow;       /* a list capacity was hit: a bug, reported */
    /* Read back by the host after each plan. */
    uint32_t go, blocks, section, pad;
    uint32_t root_lo, root_hi;
} quick_control;

/* Everything a kernel needs, passed by value. */
typedef struct quick_args {
    uint32_t *keys, *values;          /* the caller's, keys as ordered */
    uint32_t *aux_keys, *aux_values;  /* auxiliary buffer */
    uint32_t *equal_values;           /* equal-key values, by position */
    quick_seq *work[2];
    quick_block_record *blocks;
    quick_task *tasks;
    quick_control *control;
    quick_report *report;             /* mapped host memory */
    uint32_t work_cap, block_cap, task_cap;
    uint32_t count, maxseq, min_length, sbsize, min_section;
    uint32_t value_iterations; /* phase-one iterations that use the value pivot */
    int code_pivot, two_pass, pow2_sort;
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
 * halving the code range instead takes several passes to cut them off
 * (the "special" distribution took 2.5x its uniform time that way); so an
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
    for (int o = 16; o > 0; o >>= 1) {
        b += __shfl_xor_sync(~0u, b, o);
        a += __shfl_xor_sync(~0u, a, o);
        bm = max(bm, __shfl_xor_sync(~0u, bm, o));
        am = min(am, __shfl_xor_sync(~0u, am, o));
    }
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
 * and with BOUNDS tracks the largest key below and smallest above. */
template <int T, bool BOUNDS>
__device__ void count_pass(const uint32_t *__restrict__ keys, uint32_t begin,
                           uint32_t end, uint32_t pivot, uint32_t *below,
                           uint32_t *above, uint32_t *below_max,
                           uint32_t *above_min)
{
    uint32_t b = 0, a = 0, bm = 0, am = 0xFFFFFFFFu;
#pragma unroll 4
    for (uint32_t i = begin + threadIdx.x; i < end; i += T) {
        uint32_t k = keys[i];
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
 * keys equal to it to equal_values[0..). The block walks tiles of
 * T * QUICK_ITEMS keys; thread t owns keys tile + j*T + t (coalesced
 * loads). Within a tile, a key's slot is (warp prefix of its class across
 * warps) + (its rank in its warp: ballot and popc over rows j), so each
 * class's writes of a warp row land contiguously. */
template <int T>
__device__ void partition_pass(const uint32_t *__restrict__ src_keys,
                               const uint32_t *__restrict__ src_values,
                               uint32_t begin, uint32_t end, uint32_t pivot,
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
                key[j] = src_keys[i];
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

/* Files a new sequence (one thread): nothing if empty; if uniform, final
 * where it is, or copy chunks when it is in aux; a phase-two task if short;
 * else the next phase-one work list. */
__device__ void file_sequence(const quick_args &q, int next, uint32_t start,
                              uint32_t end, uint32_t in_aux, uint32_t lo,
                              uint32_t hi)
{
    if (end <= start)
        return;
    if (lo == hi) {
        if (in_aux)
            for (uint32_t c = start; c < end; c += QUICK_COPY_CHUNK)
                push_task(q, c, min(end, c + QUICK_COPY_CHUNK), QUICK_TASK_COPY);
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

/* ---- kernels: setup and key maps ---------------------------------------- */

__global__ void k_quick_reset(quick_control *control)
{
    quick_control c = {};
    c.root_lo = 0xFFFFFFFFu;
    c.root_hi = 0;
    *control = c;
}

/* Grid-stride: each thread maps keys to ordered form in place and folds
 * them into the root bounds (one atomic pair per warp). */
__global__ void k_quick_to_ordered(float *keys, uint32_t count, int descending,
                                   quick_control *control)
{
    uint32_t lo = 0xFFFFFFFFu, hi = 0;
    uint32_t *ordered = (uint32_t *)keys;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        uint32_t u = ds_key_to_ordered(keys[i], descending);
        ordered[i] = u;
        lo = min(lo, u);
        hi = max(hi, u);
    }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_xor_sync(~0u, lo, o));
        hi = max(hi, __shfl_xor_sync(~0u, hi, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&control->root_lo, lo);
        atomicMax(&control->root_hi, hi);
    }
}

__global__ void k_quick_to_keys(float *keys, uint32_t count, int descending)
{
    const uint32_t *ordered = (const uint32_t *)keys;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x)
        keys[i] = ds_ordered_to_key(ordered[i], descending);
}

/* One thread files the whole array as the first sequence. */
__global__ void k_quick_root(quick_args q)
{
    file_sequence(q, 0, 0, q.count, 0, q.control->root_lo, q.control->root_hi);
}

/* ---- kernels: phase one ------------------------------------------------- */

/* One block of QUICK_PLAN_THREADS. Decides whether phase one goes on with
 * work list `cur`; if so gives each sequence its blocks (sections of about
 * total/maxseq keys) and resets its cursors, else hands every sequence left
 * to phase two. */
/* Thread 0, at the end of the plan: publishes the decision to the host. */
__device__ void publish(const quick_args &q, uint32_t ticket)
{
    /* Volatile: other threads' atomics on these live in L2, not in this
     * SM's L1 where an earlier plain read may have left a stale copy. */
    volatile quick_control *c = q.control;
    q.report->go = c->go;
    q.report->blocks = c->blocks;
    q.report->task_count = c->task_count;
    q.report->overflow = c->overflow;
    __threadfence_system(); /* the fields are visible before the ticket */
    q.report->ticket = ticket;
}

__global__ void __launch_bounds__(QUICK_PLAN_THREADS)
k_quick_plan(quick_args q, int cur, int iteration, uint32_t ticket)
{
    __shared__ unsigned long long s_sum[QUICK_PLAN_THREADS / 32];
    __shared__ uint32_t s_scan[QUICK_PLAN_THREADS / 32];
    __shared__ uint32_t s_section, s_running;
    quick_control *c = q.control;
    quick_seq *work = cur ? q.work[1] : q.work[0];
    const uint32_t w = min(c->work_count[cur], q.work_cap);
    const uint32_t done = c->task_count;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool go = w > 0 && w + done < q.maxseq &&
                    iteration < QUICK_MAX_ITERATIONS && !c->overflow;
    if (!go) {
        for (uint32_t i = threadIdx.x; i < w; i += blockDim.x)
            push_task(q, work[i].start, work[i].end,
                      work[i].in_aux ? QUICK_TASK_SORT_AUX : QUICK_TASK_SORT_MAIN);
        __syncthreads(); /* every task is filed before the count is sent */
        if (threadIdx.x == 0) {
            __threadfence();
            c->go = 0;
            c->blocks = 0;
            publish(q, ticket);
        }
        return;
    }
    /* Section length: the paper's total/maxseq, at least min_section. */
    unsigned long long total = 0;
    for (uint32_t i = threadIdx.x; i < w; i += blockDim.x)
        total += work[i].end - work[i].start;
    for (int o = 16; o > 0; o >>= 1)
        total += __shfl_xor_sync(~0u, total, o);
    if (lane == 0)
        s_sum[warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int i = 0; i < QUICK_PLAN_THREADS / 32; i++)
            t += s_sum[i];
        unsigned long long section = (t + q.maxseq - 1) / q.maxseq;
        /* One-pass blocks take exactly one tile (min_section is its size). */
        s_section = q.two_pass ? (uint32_t)max(section, (unsigned long long)q.min_section)
                               : q.min_section;
        s_running = 0;
    }
    __syncthreads();
    const uint32_t section = s_section;
    for (uint32_t base = 0; base < w; base += blockDim.x) {
        uint32_t i = base + threadIdx.x;
        uint32_t nb = i < w ? (work[i].end - work[i].start + section - 1) / section : 0;
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
            s->below = s->above = s->equal = 0;
            s->blocks_left = nb;
            s->pivot = q.code_pivot || iteration >= q.value_iterations
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
    if (threadIdx.x == 0) {
        c->blocks = s_running;
        c->section = section;
        c->go = s_running <= q.block_cap;
        if (s_running > q.block_cap)
            c->overflow = 1;
        c->work_count[cur ^ 1] = 0;
        publish(q, ticket);
    }
}

/* One block per section of a work sequence (block -> sequence by binary
 * search on first_block). Counts, reserves, partitions into the other
 * buffer; the sequence's last block files the two children. */
template <int T>
__global__ void __launch_bounds__(T) k_quick_partition(quick_args q, int cur)
{
    __shared__ uint32_t s_reduce[T / 32][4];
    __shared__ tile_shared s_tile;
    __shared__ uint32_t s_seq, s_is_last, s_offset[3];
    quick_seq *work = cur ? q.work[1] : q.work[0];
    const quick_control *c = q.control;
    if (threadIdx.x == 0) {
        uint32_t lo = 0, hi = min(c->work_count[cur], q.work_cap) - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (work[mid].first_block <= blockIdx.x)
                lo = mid;
            else
                hi = mid - 1;
        }
        s_seq = lo;
    }
    __syncthreads();
    quick_seq *s = &work[s_seq];
    const uint32_t start = s->start, end = s->end, in_aux = s->in_aux;
    const uint32_t lo = s->lo, hi = s->hi;
    const uint32_t pivot = s->pivot;
    const uint32_t begin = start + (blockIdx.x - s->first_block) * c->section;
    const uint32_t stop = min(end, begin + c->section);
    const uint32_t *src_keys = in_aux ? q.aux_keys : q.keys;
    const uint32_t *src_values = in_aux ? q.aux_values : q.values;
    uint32_t *dst_keys = in_aux ? q.keys : q.aux_keys;
    uint32_t *dst_values = in_aux ? q.values : q.aux_values;

    uint32_t below, above, below_max, above_min;
    count_pass<T, true>(src_keys, begin, stop, pivot, &below, &above,
                        &below_max, &above_min);
    reduce_counts<T>(&below, &above, &below_max, &above_min, s_reduce);
    /* Five threads issue the reservations and bounds in parallel; each
     * fences, so that all five are visible before the barrier and thus
     * before this block's blocks_left decrement below. */
    const uint32_t equal = (stop - begin) - below - above;
    if (threadIdx.x < 5) {
        if (threadIdx.x == 0)
            s_offset[0] = atomicAdd(&s->below, below);
        else if (threadIdx.x == 1)
            s_offset[1] = atomicAdd(&s->above, above);
        else if (threadIdx.x == 2)
            s_offset[2] = atomicAdd(&s->equal, equal);
        else if (threadIdx.x == 3 && below)
            atomicMax(&s->below_max, below_max);
        else if (threadIdx.x == 4 && above)
            atomicMin(&s->above_min, above_min);
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        quick_block_record r = {s_seq, begin, equal, s_offset[2]};
        q.blocks[blockIdx.x] = r;
    }
    partition_pass<T>(src_keys, src_values, begin, stop, pivot, dst_keys,
                      dst_values, start + s_offset[0], end - s_offset[1] - above,
                      q.equal_values + begin, &s_tile);

    /* The last block to finish reads the other blocks' totals and bounds
     * (fenced above). The partitioned data itself is read only by the next
     * launch, so it needs no fence. */
    if (threadIdx.x == 0)
        s_is_last = atomicSub(&s->blocks_left, 1u) == 1u;
    __syncthreads();
    if (s_is_last && threadIdx.x == 0) {
        __threadfence();
        volatile quick_seq *vs = s;
        uint32_t total_below = vs->below, total_above = vs->above;
        uint32_t bmax = vs->below_max, amin = vs->above_min;
        s->gap_start = start + total_below;
        file_sequence(q, cur ^ 1, start, start + total_below, !in_aux, lo, bmax);
        file_sequence(q, cur ^ 1, end - total_above, end, !in_aux, amin, hi);
    }
}

/* One-pass variant of k_quick_partition: every block owns one tile of
 * T * QUICK_ITEMS keys of a sequence (the plan's section is the tile), so
 * it reads its keys once: thread t holds keys tile + j*T + t in registers,
 * ranks them by class with ballots as partition_pass does, reserves the
 * block's three ranges with one atomicAdd each, and writes them out. */
template <int T>
__global__ void __launch_bounds__(T) k_quick_partition_tile(quick_args q, int cur)
{
    __shared__ tile_shared s_tile;
    __shared__ uint32_t s_bounds[T / 32][2];
    __shared__ uint32_t s_seq, s_is_last, s_offset[3];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    quick_seq *work = cur ? q.work[1] : q.work[0];
    const quick_control *c = q.control;
    if (threadIdx.x == 0) {
        uint32_t lo = 0, hi = min(c->work_count[cur], q.work_cap) - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (work[mid].first_block <= blockIdx.x)
                lo = mid;
            else
                hi = mid - 1;
        }
        s_seq = lo;
    }
    __syncthreads();
    quick_seq *s = &work[s_seq];
    const uint32_t start = s->start, end = s->end, in_aux = s->in_aux;
    const uint32_t lo = s->lo, hi = s->hi, pivot = s->pivot;
    const uint32_t begin = start + (blockIdx.x - s->first_block) * (T * QUICK_ITEMS);
    const uint32_t *src_keys = in_aux ? q.aux_keys : q.keys;
    const uint32_t *src_values = in_aux ? q.aux_values : q.values;
    uint32_t *dst_keys = in_aux ? q.keys : q.aux_keys;
    uint32_t *dst_values = in_aux ? q.values : q.aux_values;

    const uint32_t lanes_below = (1u << lane) - 1u;
    uint32_t key[QUICK_ITEMS], value[QUICK_ITEMS], rank[QUICK_ITEMS];
    int cls[QUICK_ITEMS];
    uint32_t below_max = 0, above_min = 0xFFFFFFFFu;
#pragma unroll
    for (int j = 0; j < QUICK_ITEMS; j++) {
        uint32_t i = begin + j * T + threadIdx.x;
        cls[j] = 3;
        if (i < end) {
            key[j] = src_keys[i];
            value[j] = src_values[i];
            cls[j] = key[j] < pivot ? 0 : (key[j] > pivot ? 2 : 1);
            if (cls[j] == 0)
                below_max = max(below_max, key[j]);
            if (cls[j] == 2)
                above_min = min(above_min, key[j]);
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
    for (int o = 16; o > 0; o >>= 1) {
        below_max = max(below_max, __shfl_xor_sync(~0u, below_max, o));
        above_min = min(above_min, __shfl_xor_sync(~0u, above_min, o));
    }
    if (lane == 0) {
        s_tile.warp_counts[warp] =
            running[0] | ((unsigned long long)running[1] << CLASS_BITS) |
            ((unsigned long long)running[2] << (2 * CLASS_BITS));
        s_bounds[warp][0] = below_max;
        s_bounds[warp][1] = above_min;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned long long cnt = lane < T / 32 ? s_tile.warp_counts[lane] : 0;
        uint32_t bm = lane < T / 32 ? s_bounds[lane][0] : 0;
        uint32_t am = lane < T / 32 ? s_bounds[lane][1] : 0xFFFFFFFFu;
        unsigned long long inclusive = cnt;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned long long n = __shfl_up_sync(~0u, inclusive, o);
            if (lane >= o)
                inclusive += n;
        }
        for (int o = 16; o > 0; o >>= 1) {
            bm = max(bm, __shfl_xor_sync(~0u, bm, o));
            am = min(am, __shfl_xor_sync(~0u, am, o));
        }
        if (lane < T / 32)
            s_tile.warp_prefix[lane] = inclusive - cnt;
        const unsigned long long total = __shfl_sync(~0u, inclusive, 31);
        const uint32_t below = (uint32_t)(total & CLASS_MASK);
        const uint32_t equal = (uint32_t)((total >> CLASS_BITS) & CLASS_MASK);
        const uint32_t above = (uint32_t)((total >> (2 * CLASS_BITS)) & CLASS_MASK);
        /* Five lanes issue the reservations and bounds in parallel; each
         * fences, so that all five are visible before the barrier and thus
         * before this block's blocks_left decrement below. */
        if (lane == 0)
            s_offset[0] = start + atomicAdd(&s->below, below);
        else if (lane == 1)
            s_offset[1] = end - atomicAdd(&s->above, above) - above;
        else if (lane == 2)
            s_offset[2] = atomicAdd(&s->equal, equal);
        else if (lane == 3 && below)
            atomicMax(&s->below_max, bm);
        else if (lane == 4 && above)
            atomicMin(&s->above_min, am);
        if (lane < 5)
            __threadfence();
        if (lane == 0)
            s_tile.tile_total = equal;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        quick_block_record r = {s_seq, begin, (uint32_t)s_tile.tile_total, s_offset[2]};
        q.blocks[blockIdx.x] = r;
    }
    const unsigned long long prefix = s_tile.warp_prefix[warp];
    const uint32_t below_pos = s_offset[0], above_pos = s_offset[1];
    uint32_t *equal_values = q.equal_values + begin;
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
            equal_values[slot] = value[j];
        }
    }
    if (threadIdx.x == 0)
        s_is_last = atomicSub(&s->blocks_left, 1u) == 1u;
    __syncthreads();
    if (s_is_last && threadIdx.x == 0) {
        __threadfence();
        volatile quick_seq *vs = s;
        uint32_t total_below = vs->below, total_above = vs->above;
        uint32_t bmax = vs->below_max, amin = vs->above_min;
        s->gap_start = start + total_below;
        file_sequence(q, cur ^ 1, start, start + total_below, !in_aux, lo, bmax);
        file_sequence(q, cur ^ 1, end - total_above, end, !in_aux, amin, hi);
    }
}

/* Same grid as the partition just run: block b writes its equal keys'
 * values into its slice of the sequence's gap in the caller's arrays. The
 * partition kernel has finished, so the source buffer is free there. */
template <int T>
__global__ void __launch_bounds__(T) k_quick_fill(quick_args q, int cur)
{
    const quick_block_record r = q.blocks[blockIdx.x];
    if (r.equal_count == 0)
        return;
    const quick_seq *s = &(cur ? q.work[1] : q.work[0])[r.seq];
    const uint32_t pivot = s->pivot;
    const uint32_t out = s->gap_start + r.equal_offset;
    for (uint32_t i = threadIdx.x; i < r.equal_count; i += T) {
        q.keys[out + i] = pivot;
        q.values[out + i] = q.equal_values[r.section_begin + i];
    }
}

/* ---- kernels: phase two ------------------------------------------------- */

/* Compare-exchange of a pair held by one thread: x gets the smaller when
 * `up`, else the larger. */
__device__ __forceinline__ void exchange(unsigned long long &x,
                                         unsigned long long &y, bool up)
{
    unsigned long long lo = min(x, y), hi = max(x, y);
    x = up ? lo : hi;
    y = up ? hi : lo;
}

/* Bitonic steps (k, j) for k in [k_first, k_last] and every j < segment,
 * on each 256-pair segment of s: warp w owns segments w, w + T/32, ...;
 * lane l holds pairs seg + r*32 + l, r < 8 (conflict-free loads). Distances
 * 32..128 pair registers of one lane, distances 1..16 pair lanes
 * (shuffles). Direction of a pair: ascending iff (index & k) == 0. */
template <int T>
__device__ void bitonic_segments(unsigned long long *s, uint32_t n2,
                                 uint32_t k_first, uint32_t k_last)
{
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (uint32_t seg = warp * QUICK_SEGMENT; seg < n2;
         seg += (T / 32) * QUICK_SEGMENT) {
        unsigned long long x[QUICK_SORT_ITEMS];
#pragma unroll
        for (int r = 0; r < QUICK_SORT_ITEMS; r++)
            x[r] = s[seg + r * 32 + lane];
        for (uint32_t k = k_first; k <= k_last; k <<= 1) {
#pragma unroll
            for (int m = QUICK_SORT_ITEMS / 2; m >= 1; m >>= 1) {
                if (32u * m > k / 2)
                    continue;
#pragma unroll
                for (int r = 0; r < QUICK_SORT_ITEMS; r++)
                    if (!(r & m))
                        exchange(x[r], x[r | m], ((seg + r * 32 + lane) & k) == 0);
            }
            for (uint32_t j = min(16u, k / 2); j >= 1; j >>= 1) {
                const bool lower = (lane & j) == 0;
#pragma unroll
                for (int r = 0; r < QUICK_SORT_ITEMS; r++) {
                    unsigned long long y = __shfl_xor_sync(~0u, x[r], j);
                    bool up = ((seg + r * 32 + lane) & k) == 0;
                    bool keep_min = lower == up;
                    x[r] = keep_min ? min(x[r], y) : max(x[r], y);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < QUICK_SORT_ITEMS; r++)
            s[seg + r * 32 + lane] = x[r];
    }
}

/* Bitonic sort of `len` pairs (len <= sbsize) from src into the caller's
 * arrays at the same place, as 64-bit (key, value) words in shared memory,
 * padded to n2 = max(2^ceil(log2 len), 256). Steps of distance >= 256 go
 * through shared memory (thread t owns exchanges t, t + T, ...), the rest
 * through bitonic_segments. */
template <int T>
__device__ void bitonic_small_sort(const quick_args &q, const uint32_t *src_keys,
                                   const uint32_t *src_values, uint32_t start,
                                   uint32_t len, unsigned long long *s_sort)
{
    uint32_t n2 = QUICK_SEGMENT;
    while (n2 < len)
        n2 <<= 1;
    for (uint32_t i = threadIdx.x; i < n2; i += T)
        s_sort[i] = i < len ? ((unsigned long long)src_keys[start + i] << 32) |
                                  src_values[start + i]
                            : ~0ull;
    __syncthreads();
    bitonic_segments<T>(s_sort, n2, 2, QUICK_SEGMENT);
    __syncthreads();
    for (uint32_t k = 2 * QUICK_SEGMENT; k <= n2; k <<= 1) {
        for (uint32_t j = k >> 1; j >= QUICK_SEGMENT; j >>= 1) {
            for (uint32_t t = threadIdx.x; t < n2 / 2; t += T) {
                uint32_t a = ((t & ~(j - 1)) << 1) | (t & (j - 1)), b = a + j;
                unsigned long long x = s_sort[a], y = s_sort[b];
                exchange(x, y, (a & k) == 0);
                s_sort[a] = x;
                s_sort[b] = y;
            }
            __syncthreads();
        }
        bitonic_segments<T>(s_sort, n2, k, k);
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < len; i += T) {
        unsigned long long w = s_sort[i];
        q.keys[start + i] = (uint32_t)(w >> 32);
        q.values[start + i] = (uint32_t)w;
    }
    __syncthreads(); /* s_sort is reused by the next small sort */
}

/* The bitonic sort with the "flip" first step: stage k compares index i
 * of each k-block with its mirror i ^ (k - 1), later steps with i ^ j,
 * and every comparator puts the smaller word at the lower index. With the
 * padding all-ones (the largest word) at indices >= len, a comparator whose
 * upper index is >= len changes nothing, so pads never move, only the
 * 256-pair segments that hold real pairs are touched, and shared-memory
 * steps skip the pairs beyond len: the work follows len, not the padded
 * power of two. */

/* Flip step of stage K in {64, 128, 256} on one segment in registers: the
 * partner of (lane, r) is (lane ^ 31, r ^ (K/32 - 1)). */
template <int K>
__device__ __forceinline__ void flip_registers(unsigned long long (&x)[QUICK_SORT_ITEMS])
{
    unsigned long long y[QUICK_SORT_ITEMS];
#pragma unroll
    for (int r = 0; r < QUICK_SORT_ITEMS; r++)
        y[r] = __shfl_xor_sync(~0u, x[r ^ (K / 32 - 1)], 31);
#pragma unroll
    for (int r = 0; r < QUICK_SORT_ITEMS; r++)
        x[r] = (r & (K / 64)) == 0 ? min(x[r], y[r]) : max(x[r], y[r]);
}

/* Stages k in [k_first, k_last] (k <= 256: flip, then half-cleaners) or
 * the steps j < 256 of one stage k > 256 (half-cleaners only), on each of
 * the first `used` / 256 segments; layout as in bitonic_segments. */
template <int T>
__device__ void flip_segments(unsigned long long *s, uint32_t used,
                              uint32_t k_first, uint32_t k_last)
{
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (uint32_t seg = warp * QUICK_SEGMENT; seg < used;
         seg += (T / 32) * QUICK_SEGMENT) {
        unsigned long long x[QUICK_SORT_ITEMS];
#pragma unroll
        for (int r = 0; r < QUICK_SORT_ITEMS; r++)
            x[r] = s[seg + r * 32 + lane];
        for (uint32_t k = k_first; k <= k_last; k <<= 1) {
            uint32_t j_top = QUICK_SEGMENT / 2;
            if (k <= QUICK_SEGMENT) {
                j_top = k / 4;
                if (k <= 32) {
                    const bool lower = (lane & (k / 2)) == 0;
#pragma unroll
                    for (int r = 0; r < QUICK_SORT_ITEMS; r++) {
                        unsigned long long y = __shfl_xor_sync(~0u, x[r], k - 1);
                        x[r] = lower ? min(x[r], y) : max(x[r], y);
                    }
                } else if (k == 64) {
                    flip_registers<64>(x);
                } else if (k == 128) {
                    flip_registers<128>(x);
                } else {
                    flip_registers<256>(x);
                }
            }
#pragma unroll
            for (int m = QUICK_SORT_ITEMS / 2; m >= 1; m >>= 1) {
                if (32u * m > j_top)
                    continue;
#pragma unroll
                for (int r = 0; r < QUICK_SORT_ITEMS; r++)
                    if (!(r & m))
                        exchange(x[r], x[r | m], true);
            }
            for (uint32_t j = min(16u, j_top); j >= 1; j >>= 1) {
                const bool lower = (lane & j) == 0;
#pragma unroll
                for (int r = 0; r < QUICK_SORT_ITEMS; r++) {
                    unsigned long long y = __shfl_xor_sync(~0u, x[r], j);
                    x[r] = lower ? min(x[r], y) : max(x[r], y);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < QUICK_SORT_ITEMS; r++)
            s[seg + r * 32 + lane] = x[r];
    }
}

/* Compare-exchange in shared memory of a < b, skipped when b >= len. */
__device__ __forceinline__ void exchange_shared(unsigned long long *s, uint32_t a,
                                                uint32_t b, uint32_t len)
{
    if (b < len) {
        unsigned long long x = s[a], y = s[b];
        s[a] = min(x, y);
        s[b] = max(x, y);
    }
}

/* Flip-bitonic sort of `len` pairs (len <= sbsize) from src into the
 * caller's arrays at the same place; shared memory holds the real pairs
 * and pads up to the next multiple of 256. */
template <int T>
__device__ void flip_small_sort(const quick_args &q, const uint32_t *src_keys,
                                const uint32_t *src_values, uint32_t start,
                                uint32_t len, unsigned long long *s_sort)
{
    const uint32_t used = (len + QUICK_SEGMENT - 1) / QUICK_SEGMENT * QUICK_SEGMENT;
    uint32_t n2 = QUICK_SEGMENT;
    while (n2 < len)
        n2 <<= 1;
    for (uint32_t i = threadIdx.x; i < used; i += T)
        s_sort[i] = i < len ? ((unsigned long long)src_keys[start + i] << 32) |
                                  src_values[start + i]
                            : ~0ull;
    __syncthreads();
    flip_segments<T>(s_sort, used, 2, QUICK_SEGMENT);
    __syncthreads();
    for (uint32_t k = 2 * QUICK_SEGMENT; k <= n2; k <<= 1) {
        const uint32_t h = k >> 1;
        for (uint32_t t = threadIdx.x; t < n2 / 2; t += T) {
            uint32_t a = ((t & ~(h - 1)) << 1) | (t & (h - 1));
            exchange_shared(s_sort, a, a ^ (k - 1), len);
        }
        __syncthreads();
        for (uint32_t j = k >> 2; j >= QUICK_SEGMENT; j >>= 1) {
            for (uint32_t t = threadIdx.x; t < n2 / 2; t += T) {
                uint32_t a = ((t & ~(j - 1)) << 1) | (t & (j - 1));
                exchange_shared(s_sort, a, a + j, len);
            }
            __syncthreads();
        }
        flip_segments<T>(s_sort, used, k, k);
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < len; i += T) {
        unsigned long long w = s_sort[i];
        q.keys[start + i] = (uint32_t)(w >> 32);
        q.values[start + i] = (uint32_t)w;
    }
    __syncthreads(); /* s_sort is reused by the next small sort */
}

/* One block per task. A sort task runs quicksort on its range with an
 * explicit stack (larger part pushed first, smaller popped next), writing
 * every final key to the caller's arrays. */
template <int T>
__global__ void __launch_bounds__(T) k_quick_tasks(quick_args q)
{
    extern __shared__ unsigned long long s_sort[];
    __shared__ uint32_t s_stack[QUICK_STACK_DEPTH][3];
    __shared__ int s_top;
    __shared__ uint32_t s_reduce[T / 32][4];
    __shared__ tile_shared s_tile;
    const quick_task task = q.tasks[blockIdx.x];
    if (task.kind == QUICK_TASK_COPY) {
        for (uint32_t i = task.start + threadIdx.x; i < task.end; i += T) {
            q.keys[i] = q.aux_keys[i];
            q.values[i] = q.aux_values[i];
        }
        return;
    }
    if (threadIdx.x == 0) {
        s_stack[0][0] = task.start;
        s_stack[0][1] = task.end;
        s_stack[0][2] = task.kind == QUICK_TASK_SORT_AUX;
        s_top = 1;
    }
    __syncthreads();
    for (;;) {
        const int top = s_top;
        if (top == 0)
            break;
        const uint32_t start = s_stack[top - 1][0], end = s_stack[top - 1][1];
        const uint32_t in_aux = s_stack[top - 1][2];
        __syncthreads(); /* all have read the top before it is popped */
        if (threadIdx.x == 0)
            s_top = top - 1;
        const uint32_t len = end - start;
        const uint32_t *src_keys = in_aux ? q.aux_keys : q.keys;
        const uint32_t *src_values = in_aux ? q.aux_values : q.values;
        if (len <= q.sbsize) {
            if (q.pow2_sort)
                bitonic_small_sort<T>(q, src_keys, src_values, start, len, s_sort);
            else
                flip_small_sort<T>(q, src_keys, src_values, start, len, s_sort);
            continue;
        }
        uint32_t *dst_keys = in_aux ? q.keys : q.aux_keys;
        uint32_t *dst_values = in_aux ? q.values : q.aux_values;
        const uint32_t pivot = median3(src_keys[start], src_keys[start + len / 2],
                                       src_keys[end - 1]);
        uint32_t below, above, unused_max, unused_min;
        count_pass<T, false>(src_keys, start, end, pivot, &below, &above,
                             &unused_max, &unused_min);
        reduce_counts<T>(&below, &above, &unused_max, &unused_min, s_reduce);
        partition_pass<T>(src_keys, src_values, start, end, pivot, dst_keys,
                          dst_values, start, end - above,
                          q.equal_values + start, &s_tile);
        /* Every source read and equal_values write is done before the gap
         * (inside this range of the caller's arrays) is written. */
        __syncthreads();
        const uint32_t equal = len - below - above;
        for (uint32_t i = threadIdx.x; i < equal; i += T) {
            q.keys[start + below + i] = pivot;
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

/* ---- host launchers ---------------------------------------------------- */

typedef struct quick_state {
    size_t max_count;
    quick_params cap_params;  /* params for max_count: list capacities */
    uint32_t *aux_keys, *aux_values, *equal_values;
    quick_seq *work[2];
    quick_block_record *blocks;
    quick_task *tasks;
    quick_control *control;
    quick_report *report;         /* mapped pinned host memory */
    quick_report *report_device;  /* its device address */
    uint32_t ticket;              /* last plan's ticket */
    uint32_t work_cap, block_cap, task_cap;
    int sm_count;
    uint32_t sbsize_max;  /* QUICK_MAX_SBSIZE or what this GPU allows */
    int time_phases, timed, iterations;
    cudaEvent_t events[5];
} quick_state;

static const char *const phase_names[4] = {"to-ordered", "phase one",
                                           "phase two", "to-keys"};

template <int T>
static ds_status launch_partition(const quick_args &q, int cur, uint32_t blocks,
                                  cudaStream_t stream)
{
    if (q.two_pass) {
        k_quick_partition<T><<<blocks, T, 0, stream>>>(q, cur);
        DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_partition");
    } else {
        k_quick_partition_tile<T><<<blocks, T, 0, stream>>>(q, cur);
        DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_partition_tile");
    }
    k_quick_fill<T><<<blocks, T, 0, stream>>>(q, cur);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_fill");
    return DS_OK;
}

template <int T>
static ds_status launch_tasks(const quick_args &q, uint32_t tasks,
                              cudaStream_t stream)
{
    size_t smem = (size_t)max(q.sbsize, (uint32_t)QUICK_SEGMENT) *
                  sizeof(unsigned long long);
    k_quick_tasks<T><<<tasks, T, smem, stream>>>(q);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_tasks");
    return DS_OK;
}

/* Lets the phase-two kernels take sbsize_max words of dynamic shared
 * memory (above the 48 KiB default). */
template <int T>
static ds_status allow_small_sort_smem(uint32_t sbsize_max)
{
    DS_CUDA_TRY("sort quick",
                cudaFuncSetAttribute(k_quick_tasks<T>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(sbsize_max * sizeof(unsigned long long))));
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

/* The whole sort with explicit parameters (the tuning driver calls this
 * directly; the backend passes quick_params_for(count)). */
static ds_status quick_sort_with(quick_state *st, float *keys, uint32_t *values,
                                 size_t count, ds_sort_order order,
                                 cudaStream_t stream, quick_params p)
{
    ds_status status;
    if (p.maxseq > st->cap_params.maxseq || p.sbsize > QUICK_MAX_SBSIZE ||
        p.min_section < QUICK_MIN_SECTION || (p.sbsize & (p.sbsize - 1)) ||
        (p.threads != 128 && p.threads != 256 && p.threads != 512))
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
    q.min_section = p.two_pass ? p.min_section : (uint32_t)p.threads * QUICK_ITEMS;
    q.code_pivot = p.code_pivot;
    q.two_pass = p.two_pass;
    q.pow2_sort = p.pow2_sort;
    uint32_t min_length = (uint32_t)((count + p.maxseq - 1) / p.maxseq);
    q.min_length = min_length > p.sbsize ? min_length : p.sbsize + 1;
    /* Balanced splits reach maxseq sequences in log2(maxseq) iterations;
     * a few more cover uneven ones (gaussian tails). Past that, a sequence
     * still splitting is one whose keys crowd at one end of a wide value
     * range (denormals under larger keys in "special": the value pivot would
     * need ~120 halvings to reach them), and the code midpoint, linear inside
     * a binade, is the better pivot. */
    uint32_t value_iterations = 3;
    for (uint32_t m = p.maxseq; m > 1; m >>= 1)
        value_iterations++;
    q.value_iterations = value_iterations < QUICK_VALUE_ITERATIONS
                             ? value_iterations : QUICK_VALUE_ITERATIONS;

    uint32_t map_blocks = (uint32_t)((count + QUICK_MAP_THREADS * 8 - 1) /
                                     (QUICK_MAP_THREADS * 8));
    if (map_blocks > (uint32_t)st->sm_count * 16)
        map_blocks = (uint32_t)st->sm_count * 16;

    st->timed = 0;
    if ((status = record(st, 0, stream)))
        return status;
    k_quick_reset<<<1, 1, 0, stream>>>(st->control);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_reset");
    k_quick_to_ordered<<<map_blocks, QUICK_MAP_THREADS, 0, stream>>>(
        keys, q.count, descending, st->control);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_to_ordered");
    if ((status = record(st, 1, stream)))
        return status;
    k_quick_root<<<1, 1, 0, stream>>>(q);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_root");

    /* Phase one: plan, wait for its report (the one host round trip per
     * iteration: whether to go on and how many blocks), partition, fill. */
    int cur = 0;
    st->iterations = 0;
    for (int iteration = 0;; iteration++) {
        uint32_t ticket = ++st->ticket;
        k_quick_plan<<<1, QUICK_PLAN_THREADS, 0, stream>>>(q, cur, iteration, ticket);
        DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_plan");
        if ((status = wait_report(st, ticket, stream)))
            return status;
        if (st->report->overflow)
            return ds_fail(DS_ERR_CUDA, "sort quick: internal list overflow "
                                        "(%zu keys)", count);
        if (!st->report->go)
            break;
        uint32_t blocks = st->report->blocks;
        st->iterations++;
        if (blocks > 0) {
            switch (p.threads) {
            case 128: status = launch_partition<128>(q, cur, blocks, stream); break;
            case 256: status = launch_partition<256>(q, cur, blocks, stream); break;
            default: status = launch_partition<512>(q, cur, blocks, stream); break;
            }
            if (status)
                return status;
        }
        cur ^= 1;
    }
    if ((status = record(st, 2, stream)))
        return status;
    uint32_t tasks = st->report->task_count;
    if (tasks > 0) {
        switch (p.threads) {
        case 128: status = launch_tasks<128>(q, tasks, stream); break;
        case 256: status = launch_tasks<256>(q, tasks, stream); break;
        default: status = launch_tasks<512>(q, tasks, stream); break;
        }
        if (status)
            return status;
    }
    if ((status = record(st, 3, stream)))
        return status;
    k_quick_to_keys<<<map_blocks, QUICK_MAP_THREADS, 0, stream>>>(keys, q.count,
                                                                 descending);
    DS_CUDA_TRY_LAUNCH("sort quick", "k_quick_to_keys");
    if ((status = record(st, 4, stream)))
        return status;
    st->timed = st->time_phases;
    return DS_OK;
}

/* ---- backend entry ------------------------------------------------------ */

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
    cudaFree(st->blocks);
    cudaFree(st->tasks);
    cudaFree(st->control);
    if (st->report)
        cudaFreeHost(st->report);
    for (int i = 0; i < 5; i++)
        if (st->events[i])
            cudaEventDestroy(st->events[i]);
    free(st);
}

/* Capacities for up to max_count keys at maxseq (see the bounds in the
 * comments): before an iteration, work + tasks < maxseq, and each sequence
 * files at most two children; sections are >= total/maxseq. */
static ds_status quick_create_with(const ds_sorter_desc *desc, uint32_t maxseq_cap,
                                   void **dest)
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
    st->cap_params = quick_params_for(n);
    st->cap_params.maxseq = maxseq_cap;
    st->time_phases = desc->time_phases;
    st->work_cap = 2 * maxseq_cap + 2;
    st->block_cap = 3 * maxseq_cap + 4 + (uint32_t)(n / QUICK_MIN_TILE);
    st->task_cap = 3 * maxseq_cap + 4 + (uint32_t)(n / QUICK_COPY_CHUNK);
    DS_CUDA_GOTO(status, fail, "sort quick", cudaGetDevice(&device));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, device));
    DS_CUDA_GOTO(status, fail, "sort quick",
                 cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                        device));
    st->sbsize_max = QUICK_MAX_SBSIZE;
    while (st->sbsize_max > QUICK_SEGMENT &&
           st->sbsize_max * sizeof(unsigned long long) + QUICK_STATIC_SMEM > (size_t)smem_optin)
        st->sbsize_max >>= 1;
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->aux_keys, n * 4));
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->aux_values, n * 4));
    DS_CUDA_GOTO(status, fail, "sort quick", cudaMalloc((void **)&st->equal_values, n * 4));
    for (int i = 0; i < 2; i++)
        DS_CUDA_GOTO(status, fail, "sort quick",
                     cudaMalloc((void **)&st->work[i], st->work_cap * sizeof(quick_seq)));
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
        for (int i = 0; i < 5; i++)
            DS_CUDA_GOTO(status, fail, "sort quick", cudaEventCreate(&st->events[i]));
    if ((status = allow_small_sort_smem<128>(st->sbsize_max)) ||
        (status = allow_small_sort_smem<256>(st->sbsize_max)) ||
        (status = allow_small_sort_smem<512>(st->sbsize_max)))
        goto fail;
    *dest = st;
    return DS_OK;
fail:
    quick_destroy(st);
    return status;
}

static ds_status quick_create(const ds_sorter_desc *desc, void **state)
{
    size_t n = desc->max_count > 0 ? desc->max_count : 1;
    return quick_create_with(desc, quick_params_for(n).maxseq, state);
}

static ds_status quick_sort(void *state, float *keys, uint32_t *values,
                            size_t count, ds_sort_order order, ds_stream stream)
{
    return quick_sort_with((quick_state *)state, keys, values, count, order,
                           (cudaStream_t)stream, quick_params_for(count));
}

static int quick_phases(void *state, const char **names, float *ms, int capacity)
{
    quick_state *st = (quick_state *)state;
    int written = 0;
    if (!st->timed)
        return 0;
    for (int i = 0; i < 4 && written < capacity; i++) {
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

extern "C" const ds_sort_backend ds_sort_backend_quick = {
    "quick", 0, 1, quick_create, quick_destroy, quick_sort, quick_phases};
