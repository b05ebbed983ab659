/* SPDX-License-Identifier: MIT */
/* sort_radix.cu — our least-significant-digit radix sort of (float key,
 * uint32 value) pairs, after "High Performance and Scalable Radix Sorting: a
 * case study of implementing dynamic parallelism for GPU computing"
 * (Merrill & Grimshaw), in the single-read, decoupled look-back form of
 * "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs"
 * (Adinets & Merrill).
 *
 * Algorithm. Keys are mapped to the order-preserving uint32 of
 * sort_keys.cuh (descending, NaN last and -0 == +0 are all in it) and
 * sorted digit by digit from the least significant compared bit up:
 *   1. k_radix_upsweep reads the keys once and counts the digits of every
 *      pass (a pass's histogram does not depend on the order earlier passes
 *      leave);
 *   2. its last block to finish (scan_and_plan) turns the counts into
 *      digit bases, skips every pass whose digit is the same for all keys
 *      (the paper's early exit, decided on the device so the host never
 *      waits) and plans which buffer each remaining pass reads;
 *   3. k_radix_downsweep, once per pass: a block ranks a tile locally,
 *      learns how many keys of each digit precede the tile by decoupled
 *      look-back, and scatters the tile through shared memory so that each
 *      digit's run is written contiguously;
 *   4. k_radix_copy brings the result back when an odd number of passes
 *      ran (or, for a ping-pong sort, moves it to the pair the host was
 *      told), and clears the counters for the next sort.
 * The key transform is fused into the first pass that runs and its inverse
 * into the last; passes alternate between the caller's arrays and one
 * scratch pair (the caller's second pair, for ds_sorter_sort_pingpong).
 * Keys promised below 2^16 or 2^24 (ds_sorter_set_low_key_bits) are sorted
 * on those bits alone, in 8-bit digits. Two paths for small inputs, both
 * 8-bit digits ending in the caller's pair without a copy; sort_pairs()
 * takes the first that holds the count:
 *   - at most 8,192 pairs (4,096 where a block cannot hold the larger
 *     tile, as on Turing): one block in an ordinary launch
 *     (k_radix_block), the keys kept in shared memory between passes, so
 *     its traffic is one read and one write of the pairs;
 *   - at most one tile per resident block: all of this in one cooperative
 *     launch (k_radix_small), the same passes separated by grid-wide
 *     barriers.
 *
 * Complexity: O(n * passes), passes = ceil(key_bits / digit bits) less the
 * skipped ones; traffic per pair is 4 bytes for the upsweep plus 16 bytes
 * per pass (plus 16 for the copy after an odd pass count).
 *
 * Memory (made at create for max_count): a scratch key/value pair (8 bytes
 * per pair), the look-back status words (one 64-bit word per tile and
 * digit, at most 0.5 bytes per pair) and a 16 KiB control block.
 *
 * Does not handle: count >= 2^32 (positions are 32-bit; create refuses
 * such a max_count). key_bits < 32 sorts by the top key_bits bits only, as
 * sort.h allows.
 *
 * Design, departures from the paper and tuning reasons:
 * docs/algorithms/radix.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"
#include "sort_radix_tuning.h"

/* ---- tuning ------------------------------------------------------------ */

/* Compile-time shape of the kernels (template arguments, array sizes and
 * launch bounds). */

/* Downsweep tile: 512 threads x 12 keys; larger tiles amortise the per-tile
 * latencies (tile counter, look-back, barriers) a persistent block cannot
 * hide, and 12 keys leave registers for ranking. */
constexpr int kDownsweepThreads = 512;
constexpr int kDownsweepItems = 12;
/* Two downsweep blocks per SM: the register budget (64 a thread) that
 * keeps both resident. */
constexpr int kDownsweepMinBlocks = 2;
/* Look-back reads this many predecessors' status words per round trip. */
constexpr int kLookbackWindow = 4;
/* The single launch's look-back groups this many tiles: a tile reads at
 * most kLookbackGroup - 1 tile counts and one group count per earlier
 * group (22 words for 132 tiles), in batches of kPrefixBatch. */
constexpr int kLookbackGroup = 16;
constexpr int kPrefixBatch = 8;
/* Upsweep: 256 threads x 16 keys (four 16-byte loads) per tile. */
constexpr int kUpsweepThreads = 256;
constexpr int kUpsweepVectors = 4;
constexpr int kUpsweepTile = kUpsweepThreads * kUpsweepVectors * 4;
/* Upsweep sub-histograms per block: lane l adds to copy l % 8, so equal
 * digits of a warp (the top digits of depth keys) hit different banks. */
constexpr int kUpsweepParts = 8;
/* Single-launch sort of inputs of at most one tile per resident block;
 * 8-bit digits, as each pass there costs a grid-wide barrier more than its
 * ranking. 512-thread blocks in one of kSmallShapeCount shapes (keys a
 * thread, blocks an SM): the first whose tiles, one block an SM, cover the
 * count, so that no SM ranks two tiles while another idles; else the first
 * that covers it at all. 8 keys up to a 4,096-key tile an SM (short tiles,
 * short passes), 13 and 16 above (docs/algorithms/radix.md, Tuning). */
constexpr int kSmallThreads = 512;
constexpr int kSmallItems = 8; /* the first shape's; its tile bounds the tile count */
constexpr int kSmallBits = 8;
constexpr int kSmallPasses = (32 + kSmallBits - 1) / kSmallBits;
constexpr int kSmallShapeCount = 3;
constexpr int kSmallShapeItems[kSmallShapeCount] = {kSmallItems, 13, 16};
constexpr int kSmallShapeMinBlocks[kSmallShapeCount] = {2, 1, 1};
/* Counts up to one block's tile sort in one ordinary launch of one block
 * (k_radix_block), 8-bit digits, in the first of these shapes (keys a
 * thread) whose tile holds them: 4,096 and 8,192 keys. 512 threads: twice
 * the radix, so that a pass's per-digit steps use half the block, and at
 * most 128 registers a thread for the 16 keys, values and ranks. Larger
 * one-block tiles lost to the single launch (docs/algorithms/radix.md). */
constexpr int kBlockThreads = 512;
constexpr int kBlockShapeCount = 2;
constexpr int kBlockShapeItems[kBlockShapeCount] = {8, 16};

/* Top-level scan: one thread per digit of the widest digit built (the
 * upsweep's block runs it). */
constexpr int kScanThreads = 256;
constexpr int kScanWarps = kScanThreads / 32;
static_assert(kScanThreads == kUpsweepThreads, "the last upsweep block scans");

/* Run-time choices (sort_radix_tuning.h says why each value); the
 * sorter's state keeps a copy. desc.tuning may name others. */
typedef ds_radix_tuning radix_tuning;

extern "C" const ds_radix_tuning ds_radix_tuning_default = {
    7,                 /* digit_bits_full_keys */
    8,                 /* digit_bits_short_keys */
    kDownsweepThreads, /* downsweep_threads */
    kDownsweepItems,   /* downsweep_items */
    4,                 /* upsweep_blocks_per_sm */
    4,                 /* copy_blocks_per_sm */
    256,               /* copy_threads */
    0,                 /* match_overlaid */
};

/* ---- layout ------------------------------------------------------------ */

/* Bounds of the control block's per-pass arrays: 32-bit keys in digits of
 * 4 bits or more, digits of at most 8 bits (one scan thread per digit). */
constexpr int kMaxPasses = 8;
constexpr int kMaxRadix = 1 << 8;

/* Look-back status word: epoch (30 bits) | flag (2 bits) | count (32 bits).
 * The epoch numbers the pass launches, so words left by earlier passes read
 * as "not yet published" and the array is never cleared between passes. */
constexpr unsigned long long kStatusAggregate = 1ull; /* the tile's count */
constexpr unsigned long long kStatusInclusive = 2ull; /* it and all earlier */
constexpr uint32_t kEpochLimit = 1u << 30;

/* radix_control.final_copy: the result is where the host said it would
 * be, or k_radix_copy moves it from the scratch pair to the caller's, or
 * back (a ping-pong sort that promised the scratch pair, after an early
 * exit changed the pass count's parity). */
constexpr int kCopyNone = 0;
constexpr int kCopyToCaller = 1;
constexpr int kCopyToScratch = 2;

/* Device-side plan and counters; up to `exec` zeroed at create and by
 * each multi-launch sort's k_radix_copy, for the next sort. */
typedef struct radix_control {
    uint32_t digit_base[kMaxPasses][kMaxRadix]; /* histogram, then its scan */
    uint32_t next_tile[kMaxPasses];             /* downsweep tile dispenser */
    uint32_t upsweeps_done;                     /* upsweep blocks finished */
    /* Written by the last upsweep block (scan_and_plan): */
    int exec[kMaxPasses];        /* pass runs (not an early exit) */
    int src_scratch[kMaxPasses]; /* pass reads the scratch pair, else caller's */
    int in_float[kMaxPasses];    /* first pass that runs: transform on load */
    int out_float[kMaxPasses];   /* last pass that runs: inverse on store */
    int final_copy;              /* kCopy*: where k_radix_copy moves the result */
    /* Not cleared per sort: the single-launch sort's histograms, two sets
     * used alternately; each sort zeroes the set the next one uses. */
    uint32_t small_hist[2][kSmallPasses][1 << kSmallBits];
} radix_control;

typedef struct radix_state radix_state;
typedef struct radix_digits radix_digits;
/* The pass sequence of one multi-launch sort. */
typedef struct radix_run {
    int low_bit;             /* the lowest compared bit */
    int pass_count;          /* digit places from low_bit up */
    uint32_t *scratch_keys;  /* the other pair the passes alternate with */
    uint32_t *scratch_values;
    int end_in_scratch;      /* the result must end there, not the caller's */
} radix_run;
/* One sort as sort_pairs hands it to a launcher: the compared bits
 * [low_bit, low_bit + bits) in `digits` (the multi-launch sort's digit
 * width), the caller's pair and, for a ping-pong sort, the second pair
 * and where *in_alt says the result ends. */
typedef struct radix_request {
    const radix_digits *digits;
    int low_bit, bits;
    uint32_t *keys, *values;         /* float bits in, sorted float bits out */
    uint32_t *alt_keys, *alt_values; /* the second pair, or NULL */
    uint32_t count;
    int descending;
    cudaStream_t stream;
    int *in_alt;                     /* NULL without a second pair */
} radix_request;
typedef ds_status (*radix_launch_fn)(radix_state *s, const radix_digits *d,
                                     const radix_run *run, uint32_t *keys,
                                     uint32_t *values, uint32_t count,
                                     int descending, cudaStream_t stream);

/* One digit width's multi-launch sort, sized at create. */
struct radix_digits {
    int bits;                /* digit width (7 or 8) */
    int downsweep_grid;
    size_t downsweep_smem;   /* dynamic shared memory (shared_layout) */
    int downsweep_separate;  /* the match words have their own room */
    radix_launch_fn launch;  /* launch_passes<bits> */
};

/* One shape of the one-block sort (kBlockShapeItems), sized at create. */
typedef struct block_shape {
    uint32_t tile;           /* kBlockThreads * items; 0: unusable */
    size_t smem;             /* dynamic shared memory (shared_layout) */
    const void *kernel;      /* the k_radix_block instance, in its layout */
} block_shape;

/* One shape of the single launch (kSmallShapeItems), sized at create. */
typedef struct small_shape {
    int items;               /* keys a thread */
    uint32_t tile;           /* kSmallThreads * items */
    uint32_t one_per_sm;     /* count its tiles cover one block an SM; 0: unusable */
    uint32_t limit;          /* count they cover with every block resident */
    size_t smem;             /* dynamic shared memory (shared_layout) */
    const void *kernel;      /* the k_radix_small instance, in its layout */
} small_shape;

struct radix_state {
    radix_tuning tuning;
    int key_bits;
    size_t max_count;
    uint32_t *scratch_keys;
    uint32_t *scratch_values;
    unsigned long long *tile_status; /* [tiles][radix] look-back words */
    size_t status_bytes;
    radix_control *control;
    uint32_t epoch;                  /* last epoch used by a pass */
    int tile_size;                   /* downsweep keys per tile */
    int upsweep_grid;
    int copy_grid;
    radix_digits digits;             /* for key_bits */
    /* 8-bit digits over the keys' low bits, for sorts after
     * set_low_bits() (prepared when create allows the promise; bits 0
     * otherwise); low_bits 32: no promise. */
    radix_digits low_digits;
    int low_bits;
    uint32_t small_limit;            /* largest count it sorts; 0: none */
    int small_half;                  /* its histogram set for the next sort */
    /* The last sort's one launch ("single launch" or "one block");
     * NULL: it was a multi-launch sort. */
    const char *last_launch;
    int control_dirty;               /* a multi-launch sort left its counters */
    small_shape small[kSmallShapeCount];
    block_shape block[kBlockShapeCount];
    int time_phases;
    cudaEvent_t events[4];
};

static const char *const phase_names[3] = {"upsweep", "downsweep", "copy"};
static const char *const small_phase_name = "single launch";
static const char *const block_phase_name = "one block";

/* ---- timeline (bench/radix_timeline.cu only) --------------------------- */

#ifdef DS_RADIX_TIMELINE
/* Block 0's and the last block's thread 0 stamp the GPU's global timer
 * (ns) at each mark; the host reads them after one sort. */
__device__ unsigned long long ds_radix_marks[2][64];
__shared__ unsigned s_mark_count;
__device__ __forceinline__ void radix_mark_reset()
{
    if (threadIdx.x == 0)
        s_mark_count = 0;
}
__device__ __forceinline__ void radix_mark()
{
    if (threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1)) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (s_mark_count < 64)
            ds_radix_marks[blockIdx.x == 0 ? 0 : 1][s_mark_count] = t;
        s_mark_count++;
    }
}
#define RADIX_MARK_RESET() radix_mark_reset()
#define RADIX_MARK() radix_mark()
#else
#define RADIX_MARK_RESET() ((void)0)
#define RADIX_MARK() ((void)0)
#endif

/* ---- device helpers ---------------------------------------------------- */

template <int BITS>
__device__ __forceinline__ uint32_t digit_of(uint32_t ordered, int shift)
{
    return (ordered >> shift) & ((1u << BITS) - 1u);
}

__device__ __forceinline__ uint32_t to_ordered(uint32_t float_bits,
                                               int descending)
{
    return ds_key_to_ordered(__uint_as_float(float_bits), descending);
}

__device__ __forceinline__ uint32_t from_ordered(uint32_t ordered,
                                                 int descending)
{
    return __float_as_uint(ds_ordered_to_key(ordered, descending));
}

/* Block-wide exclusive sum over WARPS warps; *total gets the sum.
 * Contains __syncthreads(); every thread must call it, and s_warp_sums
 * must not be reused before another barrier. */
template <int WARPS>
__device__ __forceinline__ uint32_t block_exclusive_sum(uint32_t value,
                                                        uint32_t *s_warp_sums,
                                                        uint32_t *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t inclusive = value;
    for (int delta = 1; delta < 32; delta <<= 1) {
        uint32_t up = __shfl_up_sync(0xFFFFFFFFu, inclusive, delta);
        if (lane >= delta)
            inclusive += up;
    }
    if (lane == 31)
        s_warp_sums[warp] = inclusive;
    __syncthreads();
    uint32_t before = 0, sum = 0;
    for (int w = 0; w < WARPS; w++) {
        uint32_t s = s_warp_sums[w];
        before += w < warp ? s : 0;
        sum += s;
    }
    *total = sum;
    return before + inclusive - value;
}

__device__ __forceinline__ unsigned long long status_word(uint32_t epoch,
                                                          unsigned long long flag,
                                                          uint32_t count)
{
    return ((unsigned long long)epoch << 34) | (flag << 32) | count;
}

/* Decoupled look-back for digit d: adds to *before the counts of tiles
 * `last`, last - 1, ... down to and including the nearest one that has
 * published an inclusive count (tile 0 always does). kLookbackWindow words
 * are read at once, so tiles that have published only their own counts
 * cost one memory round trip per window of them; a word not yet published
 * (older epoch) ends the window, and reading resumes from it. */
__device__ __forceinline__ void lookback(unsigned long long *tile_status,
                                         int radix, uint32_t d, int last,
                                         uint32_t epoch, uint32_t *before)
{
    uint32_t sum = 0;
    int t = last;
    while (t >= 0) {
        unsigned long long word[kLookbackWindow];
#pragma unroll
        for (int j = 0; j < kLookbackWindow; j++) {
            const volatile unsigned long long *slot =
                tile_status + (size_t)(t - j) * radix + d;
            word[j] = t - j >= 0 ? *slot : 0ull;
        }
        bool done = false;
        int consumed = 0;
#pragma unroll
        for (int j = 0; j < kLookbackWindow; j++) {
            if (done || consumed != j)
                continue; /* stopped at an unpublished word or an end */
            if ((uint32_t)(word[j] >> 34) != epoch)
                continue;
            sum += (uint32_t)word[j];
            consumed = j + 1;
            if (((word[j] >> 32) & 3ull) == kStatusInclusive)
                done = true;
        }
        if (done)
            break;
        t -= consumed;
    }
    *before = sum;
}

/* The counts of the `count` status words word[0], word[stride], ...,
 * each once it carries `epoch`: kPrefixBatch loads in flight, then a
 * wait on any that is not yet published. */
__device__ __forceinline__ uint32_t sum_published(const unsigned long long *word,
                                                  int stride, uint32_t count,
                                                  uint32_t epoch)
{
    const volatile unsigned long long *slot = word;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < count; i += kPrefixBatch) {
        unsigned long long w[kPrefixBatch];
#pragma unroll
        for (int j = 0; j < kPrefixBatch; j++)
            w[j] = i + j < count ? slot[(size_t)(i + j) * stride]
                                 : status_word(epoch, kStatusAggregate, 0);
#pragma unroll
        for (int j = 0; j < kPrefixBatch; j++) {
            while ((uint32_t)(w[j] >> 34) != epoch)
                w[j] = slot[(size_t)(i + j) * stride];
            sum += (uint32_t)w[j];
        }
    }
    return sum;
}

/* The single launch's look-back, in two levels. Its tiles all run at
 * once, so in a flat look-back the inclusive counts propagate from tile 0
 * a window per round trip while every tile walks back over the
 * aggregates before it. Instead tile t adds, for digit d,
 * the counts of the tiles before it in its group of kLookbackGroup and
 * one count per earlier group, which the last tile of each full group
 * publishes (its own count plus what it read). No wait can hang: tile
 * counts are published before ranking, a group count needs only its
 * group's tile counts, and every block of the launch is resident. */
__device__ __forceinline__ uint32_t grouped_prefix(const unsigned long long *tile_status,
                                                   unsigned long long *group_status,
                                                   int radix, uint32_t d,
                                                   uint32_t tile, uint32_t epoch,
                                                   uint32_t own)
{
    const uint32_t group = tile / kLookbackGroup;
    const uint32_t first = group * kLookbackGroup;
    const uint32_t in_group = sum_published(
        tile_status + (size_t)first * radix + d, radix, tile - first, epoch);
    if (tile - first == kLookbackGroup - 1) {
        volatile unsigned long long *slot = group_status + (size_t)group * radix + d;
        *slot = status_word(epoch, kStatusAggregate, in_group + own);
    }
    return in_group + sum_published(group_status + d, radix, group, epoch);
}

/* One upsweep tile's keys for this thread, in the order-preserving form:
 * 16-byte vectors t, t + 256, t + 512, t + 768 of the tile (coalesced),
 * i.e. 16 keys. */
__device__ __forceinline__ void load_upsweep_tile(
    const uint32_t *__restrict__ keys, uint32_t tile, int descending,
    uint32_t (&ordered)[kUpsweepVectors * 4])
{
    const uint4 *src = reinterpret_cast<const uint4 *>(keys) +
                       (size_t)tile * (kUpsweepTile / 4) + threadIdx.x;
    uint4 v[kUpsweepVectors];
#pragma unroll
    for (int j = 0; j < kUpsweepVectors; j++)
        v[j] = src[j * kUpsweepThreads];
#pragma unroll
    for (int j = 0; j < kUpsweepVectors; j++) {
        ordered[4 * j + 0] = to_ordered(v[j].x, descending);
        ordered[4 * j + 1] = to_ordered(v[j].y, descending);
        ordered[4 * j + 2] = to_ordered(v[j].z, descending);
        ordered[4 * j + 3] = to_ordered(v[j].w, descending);
    }
}

/* Adds the digits of `ordered` at one digit place to s_hist (digit d's
 * counter at s_hist[d * STRIDE]): one shared atomic a key, or one for all
 * of them when their digit is the same (the top digits of depth keys),
 * which `any` and `all`, the OR and AND of the keys, tell without
 * looking at each. */
template <int BITS, int STRIDE, int N>
__device__ __forceinline__ void count_digits(uint32_t *s_hist,
                                             const uint32_t (&ordered)[N],
                                             int shift, uint32_t any,
                                             uint32_t all)
{
    if ((((any ^ all) >> shift) & ((1u << BITS) - 1u)) == 0) {
        atomicAdd(&s_hist[digit_of<BITS>(all, shift) * STRIDE], (uint32_t)N);
        return;
    }
#pragma unroll
    for (int e = 0; e < N; e++)
        atomicAdd(&s_hist[digit_of<BITS>(ordered[e], shift) * STRIDE], 1u);
}

/* The OR and AND of a thread's keys, for count_digits(). */
template <int N>
__device__ __forceinline__ void or_and(const uint32_t (&ordered)[N],
                                       uint32_t *any, uint32_t *all)
{
    uint32_t o = 0, a = 0xFFFFFFFFu;
#pragma unroll
    for (int e = 0; e < N; e++) {
        o |= ordered[e];
        a &= ordered[e];
    }
    *any = o;
    *all = a;
}

/* A tile's first load, from the caller's pair: warp w's keys (in ordered
 * form) and values [w * 32 * ITEMS, (w + 1) * 32 * ITEMS) of the tile at
 * `keys` and `values`, lane l holding l, l + 32, ... of them; slots at or
 * past `valid` get the maximal key and value 0. Through L2 only
 * (__ldcg): each pair is read once. */
template <int ITEMS>
__device__ __forceinline__ void load_tile(const uint32_t *keys,
                                          const uint32_t *values,
                                          uint32_t valid, int descending,
                                          uint32_t (&key)[ITEMS],
                                          uint32_t (&value)[ITEMS])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t warp_base = warp * (ITEMS * 32);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t local = warp_base + i * 32 + lane;
        key[i] = 0xFFFFFFFFu;
        value[i] = 0;
        if (local < valid) {
            key[i] = to_ordered(__ldcg(keys + local), descending);
            value[i] = __ldcg(values + local);
        }
    }
}

/* Loads a warp's ITEMS x 32 values (lane l: values l, l + 32, ...) from
 * `src`; when the tile is not whole, only the first `valid` exist and the
 * rest read as 0. For the downsweep only: the single launch loads what the
 * same launch wrote, and must bypass L1. */
template <int ITEMS>
__device__ __forceinline__ void load_values(uint32_t (&value)[ITEMS],
                                            const uint32_t *src, int lane,
                                            bool whole, uint32_t valid)
{
    if (whole) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            value[i] = src[i * 32 + lane];
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t local = i * 32 + lane;
            value[i] = local < valid ? src[local] : 0;
        }
    }
}

/* Shared memory of a block that ranks and scatters THREADS x ITEMS-key
 * tiles: the key and value exchanges and the per-warp digit counters are
 * dynamic (over the 48 KiB static limit), and so are the per-warp match
 * words of the ranking: after them (match_bytes more) where the GPU's
 * blocks may have that much, else over the exchanges, which are not in
 * use until the ranking is done (and must then be cleared every tile);
 * the digit-sized arrays are the kernel's static ones. */
template <int BITS, int THREADS, int ITEMS>
struct tile_smem {
    static const int tile = THREADS * ITEMS;
    static const int warps = THREADS / 32;
    /* Items matched at once, each in its own set of match words: four for
     * 7-bit digits, two for 8-bit ones (whose words are twice as many). */
    static const int match_sets = BITS <= 7 ? 4 : 2;
    static_assert(match_sets * warps * (1 << BITS) <= 2 * tile,
                  "the match words fit in the exchanges");
    static const size_t bytes =
        (2 * (size_t)tile + (size_t)warps * (1 << BITS)) * sizeof(uint32_t);
    static const size_t match_bytes =
        (size_t)match_sets * warps * (1 << BITS) * sizeof(uint32_t);
};

/* The shared arrays rank_scatter_tile works in. */
struct tile_arrays {
    uint32_t *key_exchange;   /* [tile] */
    uint32_t *value_exchange; /* [tile] */
    uint32_t *warp_counts;    /* [warps][radix] */
    uint32_t *warp_match;     /* [match_sets][warps][radix] */
    uint32_t *tile_hist;      /* [radix] */
    uint32_t *tile_start;     /* [radix] */
    uint32_t *dst_base;       /* [radix] */
    uint32_t *warp_sums;      /* [warps] */
};

/* The digit-sized shared arrays of tile_arrays, declared static by each
 * kernel that ranks tiles. */
template <int BITS, int WARPS>
struct tile_statics {
    uint32_t tile_hist[1 << BITS];
    uint32_t tile_start[1 << BITS];
    uint32_t dst_base[1 << BITS];
    uint32_t warp_sums[WARPS];
};

/* The dynamic arrays of a tile of `tile_size` keys: the exchanges and
 * warp counters (tile_smem::bytes), the match words after them when
 * `separate_match` (tile_smem::match_bytes more), else over the
 * exchanges; the digit-sized arrays NULL, for the caller to set. */
template <int BITS, int WARPS>
__device__ __forceinline__ tile_arrays dynamic_tile_arrays(uint32_t *dynamic,
                                                           int tile_size,
                                                           int separate_match)
{
    uint32_t *counts = dynamic + 2 * tile_size;
    tile_arrays a = {};
    a.key_exchange = dynamic;
    a.value_exchange = dynamic + tile_size;
    a.warp_counts = counts;
    a.warp_match = separate_match ? counts + WARPS * (1 << BITS) : dynamic;
    return a;
}

/* dynamic_tile_arrays with the rest in `statics`. */
template <int BITS, int WARPS>
__device__ __forceinline__ tile_arrays
make_tile_arrays(uint32_t *dynamic, int tile_size, int separate_match,
                 tile_statics<BITS, WARPS> &statics)
{
    tile_arrays a =
        dynamic_tile_arrays<BITS, WARPS>(dynamic, tile_size, separate_match);
    a.tile_hist = statics.tile_hist;
    a.tile_start = statics.tile_start;
    a.dst_base = statics.dst_base;
    a.warp_sums = statics.warp_sums;
    return a;
}

/* Each warp zeroes its counter row, and with `match` its match words,
 * before a tile is ranked: every tile when the words lie over the
 * exchanges, which the tile before used; once when they have their own
 * room (the ranking leaves them zero). A block barrier must follow, after
 * the exchanges' last reads. */
template <int BITS, int WARPS, int SETS>
__device__ __forceinline__ void clear_warp_rows(const tile_arrays &a,
                                                bool match)
{
    const int radix = 1 << BITS;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = lane; d < radix; d += 32)
        a.warp_counts[warp * radix + d] = 0;
#pragma unroll
    for (int set = 0; set < SETS && match; set++) {
        uint4 *row = reinterpret_cast<uint4 *>(a.warp_match +
                                               (set * WARPS + warp) * radix);
        for (int q = lane; q < radix / 4; q += 32)
            row[q] = make_uint4(0, 0, 0, 0);
    }
}

/* Where one tile of a digit pass goes, and what it knows of the pass. */
struct tile_pass {
    uint32_t tile;              /* the tile's number in the pass */
    uint32_t valid;             /* its keys (the tile's size but for the last) */
    int shift;                  /* the digit's lowest bit */
    int out_float;              /* last pass that runs: store float keys */
    int descending;
    uint32_t epoch;             /* the pass's look-back epoch */
    const uint32_t *digit_base; /* [radix] keys of smaller digits, all tiles */
    uint32_t *dst_keys;
    uint32_t *dst_values;
    /* The single launch's group counts (grouped_prefix); NULL: the
     * decoupled look-back. */
    unsigned long long *group_status;
};

/* Whether all of a warp's keys, padding slots too, have one digit at
 * `shift`, and which (*digit). Such a warp (runs of equal keys: the
 * culled primitives' zero keys after the first pass, few distinct keys)
 * counts and ranks its keys with one atomic, where the per-key atomics
 * would all hit one word and serialise 32 ways. The OR and AND of a
 * thread's keys tell whether its digits agree. */
template <int BITS, int ITEMS>
__device__ __forceinline__ bool warp_one_digit(const uint32_t (&key)[ITEMS],
                                               int shift, uint32_t *digit)
{
    uint32_t any, all;
    or_and(key, &any, &all);
    *digit = __shfl_sync(0xFFFFFFFFu, digit_of<BITS>(all, shift), 0);
    return __all_sync(0xFFFFFFFFu, digit_of<BITS>(any ^ all, shift) == 0 &&
                                       digit_of<BITS>(all, shift) == *digit);
}

/* Warp-local stable ranks of a tile's keys at `shift`: lanes with equal
 * digits are counted together, lower lanes first, and each warp's digit
 * counts end in its counter row. A lane finds the lanes of its digit by
 * setting its bit in the warp's match word for the digit and reading the
 * word back (one shared atomic and one load, where ballots cost one vote
 * per digit bit); the lowest of them adds the group to the warp's
 * counter, in item order, and clears the word. match_sets items at a
 * time, each in its own set of words, so that their atomics and loads
 * overlap. A one_digit warp (warp_one_digit) ranks every slot, padding
 * too, in item order with one atomic. */
template <int BITS, int THREADS, int ITEMS>
__device__ __forceinline__ void warp_ranks(const tile_arrays &a,
                                           const uint32_t (&key)[ITEMS],
                                           int shift, bool one_digit,
                                           uint32_t warp_digit,
                                           uint32_t (&rank)[ITEMS])
{
    typedef tile_smem<BITS, THREADS, ITEMS> smem;
    constexpr int SETS = smem::match_sets;
    const int radix = 1 << BITS;
    const int warps = smem::warps;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t lanes_below = (1u << lane) - 1u;
    uint32_t *my_counts = a.warp_counts + warp * radix;
    if (one_digit) {
        uint32_t before = 0;
        if (lane == 0)
            before = atomicAdd(&my_counts[warp_digit], (uint32_t)(ITEMS * 32));
        before = __shfl_sync(0xFFFFFFFFu, before, 0);
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            rank[i] = before + i * 32 + lane;
        return;
    }
#pragma unroll
    for (int first = 0; first < ITEMS; first += SETS) {
        uint32_t *word[SETS];
        uint32_t peers[SETS];
#pragma unroll
        for (int g = 0; g < SETS && first + g < ITEMS; g++) {
            uint32_t d = digit_of<BITS>(key[first + g], shift);
            word[g] = a.warp_match + (g * warps + warp) * radix + d;
            atomicOr(word[g], 1u << lane);
        }
        __syncwarp(); /* every lane's bits are in */
#pragma unroll
        for (int g = 0; g < SETS && first + g < ITEMS; g++)
            peers[g] = *word[g];
        __syncwarp(); /* every lane has read before the words are cleared */
#pragma unroll
        for (int g = 0; g < SETS && first + g < ITEMS; g++) {
            int leader = __ffs(peers[g]) - 1;
            uint32_t before = 0;
            if (lane == leader) {
                uint32_t d = digit_of<BITS>(key[first + g], shift);
                before = atomicAdd(&my_counts[d], (uint32_t)__popc(peers[g]));
                *word[g] = 0;
            }
            before = __shfl_sync(0xFFFFFFFFu, before, leader);
            rank[first + g] = before + __popc(peers[g] & lanes_below);
        }
        __syncwarp(); /* the words are clear for the next items */
    }
}

/* After warp_ranks and a barrier: thread d turns digit d's counts per
 * warp into warp offsets and returns the tile's count of digit d,
 * padding slots included (threads past the radix: 0); the digits' tile
 * starts go to a.tile_start and *start. Contains a barrier
 * (block_exclusive_sum); a.tile_start is complete after the next. */
template <int BITS, int WARPS>
__device__ __forceinline__ uint32_t tile_offsets(const tile_arrays &a,
                                                 uint32_t *start)
{
    const int radix = 1 << BITS;
    uint32_t tile_count = 0;
    if (threadIdx.x < radix) {
        for (int w = 0; w < WARPS; w++) {
            uint32_t c = a.warp_counts[w * radix + threadIdx.x];
            a.warp_counts[w * radix + threadIdx.x] = tile_count;
            tile_count += c;
        }
    }
    uint32_t tile_total;
    *start = block_exclusive_sum<WARPS>(tile_count, a.warp_sums, &tile_total);
    if (threadIdx.x < radix)
        a.tile_start[threadIdx.x] = *start;
    return tile_count;
}

/* Keys and values into the exchanges in digit order: a key's slot is its
 * warp rank plus its digit's tile start and warp offset (rank[] becomes
 * the slot). After tile_offsets and a barrier. */
template <int BITS, int ITEMS>
__device__ __forceinline__ void exchange_tile(const tile_arrays &a,
                                              const uint32_t (&key)[ITEMS],
                                              const uint32_t (&value)[ITEMS],
                                              uint32_t (&rank)[ITEMS],
                                              int shift)
{
    const uint32_t *my_counts = a.warp_counts + (threadIdx.x >> 5) * (1 << BITS);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t d = digit_of<BITS>(key[i], shift);
        rank[i] += a.tile_start[d] + my_counts[d];
        a.key_exchange[rank[i]] = key[i];
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        a.value_exchange[rank[i]] = value[i];
}

/* One tile of a stable digit pass, from keys in registers to keys and
 * values at their places in the pass's output. Warp w holds keys
 * [w * 32 * ITEMS, (w + 1) * 32 * ITEMS) of the tile, lane l the keys
 * l, l + 32, ... of them, in ordered form; slots at or past `valid` hold
 * 0xFFFFFFFF, which ranks after every real key. The block:
 *   - counts the tile's digits with shared atomics and publishes them
 *     before ranking, so that later tiles' look-backs find them sooner;
 *   - ranks the tile (warp_ranks);
 *   - with LOAD_VALUES, loads the values from src_values (the tile's
 *     first pair; else value[] holds them already and src_values is not
 *     read): loading them only now keeps them out of the registers that
 *     ranking needs;
 *   - exchanges keys and values through shared memory into digit order;
 *   - learns the keys of each digit before the tile by decoupled look-back
 *     (thread d for digit d);
 *   - writes tile slots t, t + THREADS, ... from thread t, so consecutive
 *     threads write consecutive positions of a digit's run.
 * Expects a.tile_hist, the warp counters and the match words zeroed
 * (clear_warp_rows), and a barrier since.
 * Ends with the stores: the caller's barrier frees the shared arrays. */
template <int BITS, int THREADS, int ITEMS, bool LOAD_VALUES>
__device__ __forceinline__ void rank_scatter_tile(
    const tile_arrays &a, const tile_pass &p, uint32_t (&key)[ITEMS],
    uint32_t (&value)[ITEMS], const uint32_t *src_values,
    unsigned long long *tile_status)
{
    typedef tile_smem<BITS, THREADS, ITEMS> smem;
    const int radix = 1 << BITS;
    const int tile_size = smem::tile;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t warp_base = warp * (ITEMS * 32);
    const uint32_t valid = p.valid;
    /* Padding slots of a partial tile hold the maximal key; its digit here
     * is the largest this pass can see (fewer than BITS bits may remain). */
    const uint32_t pad_digit = digit_of<BITS>(0xFFFFFFFFu, p.shift);

    uint32_t warp_digit;
    const bool one_digit = warp_one_digit<BITS>(key, p.shift, &warp_digit);

    /* Thread d publishes digit d's count of the tile (padding slots
     * excluded): the aggregate, or the inclusive count for tile 0. */
    if (one_digit) {
        if (lane == 0 && valid > warp_base)
            atomicAdd(&a.tile_hist[warp_digit],
                      min(valid - warp_base, (uint32_t)(ITEMS * 32)));
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (warp_base + i * 32 + lane < valid)
                atomicAdd(&a.tile_hist[digit_of<BITS>(key[i], p.shift)], 1u);
    }
    __syncthreads(); /* tile histogram complete */
    RADIX_MARK();
    if (threadIdx.x < radix) {
        volatile unsigned long long *slot =
            tile_status + (size_t)p.tile * radix + threadIdx.x;
        *slot = status_word(p.epoch,
                            p.tile == 0 ? kStatusInclusive : kStatusAggregate,
                            a.tile_hist[threadIdx.x]);
    }

    uint32_t rank[ITEMS];
    warp_ranks<BITS, THREADS, ITEMS>(a, key, p.shift, one_digit, warp_digit,
                                     rank);
    if (LOAD_VALUES)
        load_values<ITEMS>(value, src_values + warp_base, lane,
                           valid == (uint32_t)tile_size,
                           valid - min(valid, warp_base));
    __syncthreads(); /* all warps' counters complete */
    RADIX_MARK();

    /* `own`: the tile's count of digit d without the padding slots. */
    uint32_t tile_start;
    uint32_t own = tile_offsets<BITS, smem::warps>(a, &tile_start);
    if (threadIdx.x == pad_digit)
        own -= tile_size - valid;
    __syncthreads(); /* tile starts and warp offsets ready */
    RADIX_MARK();

    exchange_tile<BITS>(a, key, value, rank, p.shift);

    if (threadIdx.x < radix) {
        const uint32_t d = threadIdx.x;
        /* Decoupled look-back: sum predecessors' counts of digit d until
         * one that already includes all tiles before it. */
        uint32_t before = 0;
        if (p.group_status) {
            before = grouped_prefix(tile_status, p.group_status, radix, d,
                                    p.tile, p.epoch, own);
        } else {
            lookback(tile_status, radix, d, (int)p.tile - 1, p.epoch, &before);
            if (p.tile != 0) {
                volatile unsigned long long *slot =
                    tile_status + (size_t)p.tile * radix + d;
                *slot = status_word(p.epoch, kStatusInclusive, before + own);
            }
        }
        /* Global position of tile slot j with digit d is
         * a.dst_base[d] + j (mod 2^32 arithmetic). */
        a.dst_base[d] = p.digit_base[d] + before - tile_start;
    }
    __syncthreads(); /* exchanges and global bases ready */
    RADIX_MARK();

#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t slot = i * THREADS + threadIdx.x;
        if (slot < valid) {
            uint32_t k = a.key_exchange[slot];
            uint32_t position =
                a.dst_base[digit_of<BITS>(k, p.shift)] + slot;
            p.dst_keys[position] =
                p.out_float ? from_ordered(k, p.descending) : k;
            p.dst_values[position] = a.value_exchange[slot];
        }
    }
}

/* ---- kernels ----------------------------------------------------------- */

/* Top-level scan and pass plan, by the last upsweep block once every
 * block's counts are in (kScanThreads threads): thread d owns digit d of
 * every pass: it turns the histogram into exclusive digit bases and flags
 * a pass whose digit is constant (early exit); thread 0 then plans the
 * passes. */
template <int BITS>
__device__ __forceinline__ void scan_and_plan(uint32_t count, int pass_count,
                                              int end_in_scratch,
                                              radix_control *control)
{
    const int radix = 1 << BITS;
    __shared__ uint32_t s_warp_sums[kScanWarps];
    __shared__ int s_constant[kMaxPasses];
    const int d = threadIdx.x;
    for (int p = 0; p < pass_count; p++) {
        uint32_t n = d < radix ? __ldcg(&control->digit_base[p][d]) : 0;
        if (d == 0)
            s_constant[p] = 0;
        uint32_t total;
        uint32_t base = block_exclusive_sum<kScanWarps>(n, s_warp_sums, &total);
        if (d < radix) {
            control->digit_base[p][d] = base;
            if (n == count)
                s_constant[p] = 1;
        }
        __syncthreads(); /* s_warp_sums is reused by the next pass */
    }
    if (d != 0)
        return;
    int exec[kMaxPasses], runs = 0;
    for (int p = 0; p < pass_count; p++)
        runs += exec[p] = !s_constant[p];
    /* Each pass flips between the caller's and the scratch buffers; an odd
     * number of runs leaves the result in the scratch. Where the host
     * promised the result (end_in_scratch) differs, k_radix_copy moves it
     * there (a streaming copy is cheaper than re-running a skipped pass,
     * which would also be a stable copy). */
    int in_scratch = 0, seen = 0;
    for (int p = 0; p < pass_count; p++) {
        control->exec[p] = exec[p];
        control->src_scratch[p] = in_scratch;
        control->in_float[p] = exec[p] && seen == 0;
        control->out_float[p] = exec[p] && seen == runs - 1;
        if (exec[p]) {
            seen++;
            in_scratch ^= 1;
        }
    }
    control->final_copy = in_scratch == end_in_scratch ? kCopyNone
                          : in_scratch                 ? kCopyToCaller
                                                       : kCopyToScratch;
}

/* Upsweep: digit histograms of every pass in one read of the keys.
 * Block: 4096-key tiles, grid-stride; kUpsweepParts private histograms per
 * pass in shared memory (lane l adds to part l % kUpsweepParts; digit d's
 * parts are adjacent words, so lanes with equal digits hit different
 * banks), summed and added to the global ones at the end. Thread t:
 * 16-byte vectors t, t + 256, t + 512, t + 768 of the tile (coalesced),
 * i.e. 16 keys. Keys past the last whole tile (or all keys, for a
 * misaligned buffer) are counted one per thread. The last block to finish
 * then scans the histograms and plans the passes (scan_and_plan). */
template <int BITS>
__global__ void __launch_bounds__(kUpsweepThreads)
k_radix_upsweep(const uint32_t *__restrict__ keys, uint32_t count,
                int vector_ok, int descending, int low_bit, int pass_count,
                int end_in_scratch, radix_control *control)
{
    const int radix = 1 << BITS;
    const int bins = radix * kUpsweepParts; /* shared words per pass */
    __shared__ uint32_t
        s_hist[(32 + BITS - 1) / BITS * (1 << BITS) * kUpsweepParts];
    for (int i = threadIdx.x; i < pass_count * bins; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();
    uint32_t *my_hist = s_hist + (threadIdx.x & 31) % kUpsweepParts;

    const uint32_t tiles = vector_ok ? count / kUpsweepTile : 0;
    for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t ordered[kUpsweepVectors * 4];
        load_upsweep_tile(keys, tile, descending, ordered);
        uint32_t any, all;
        or_and(ordered, &any, &all);
        for (int p = 0; p < pass_count; p++)
            count_digits<BITS, kUpsweepParts>(my_hist + p * bins, ordered,
                                              low_bit + p * BITS, any, all);
    }
    for (size_t i = (size_t)tiles * kUpsweepTile +
                    (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t ordered = to_ordered(keys[i], descending);
        for (int p = 0; p < pass_count; p++)
            atomicAdd(&my_hist[p * bins +
                               digit_of<BITS>(ordered, low_bit + p * BITS) *
                                   kUpsweepParts],
                      1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < pass_count * radix; i += blockDim.x) {
        uint32_t sum = 0;
#pragma unroll
        for (int part = 0; part < kUpsweepParts; part++)
            sum += s_hist[i * kUpsweepParts + part];
        if (sum)
            atomicAdd(&control->digit_base[i / radix][i % radix], sum);
    }
    /* The last block to finish scans the histograms and plans the passes
     * (no scan launch): each block's fence orders its additions before
     * its count of finished blocks, which the last block reads. */
    __shared__ int s_last;
    __threadfence();
    __syncthreads(); /* every thread's additions are fenced */
    if (threadIdx.x == 0)
        s_last = atomicAdd(&control->upsweeps_done, 1u) == gridDim.x - 1;
    __syncthreads(); /* s_last is known */
    if (s_last) {
        __threadfence();
        scan_and_plan<BITS>(count, pass_count, end_in_scratch, control);
    }
}

/* Downsweep: one stable digit pass. A block takes tiles of
 * kDownsweepThreads x kDownsweepItems keys in order from
 * control->next_tile[pass], so a tile only ever waits on tiles held by
 * running blocks (no deadlock), loads each tile's keys and ranks and
 * scatters it (rank_scatter_tile). */
template <int BITS, bool SEPARATE>
__global__ void __launch_bounds__(kDownsweepThreads, kDownsweepMinBlocks)
k_radix_downsweep(uint32_t *keys, uint32_t *values, uint32_t *scratch_keys,
                  uint32_t *scratch_values, uint32_t count, int pass,
                  int shift, int descending, uint32_t epoch,
                  unsigned long long *tile_status, radix_control *control)
{
    typedef tile_smem<BITS, kDownsweepThreads, kDownsweepItems> smem;
    constexpr int ITEMS = kDownsweepItems;
    const int radix = 1 << BITS;
    const int tile_size = smem::tile;
    extern __shared__ uint32_t s_dynamic[];
    __shared__ tile_statics<BITS, smem::warps> s_statics;
    __shared__ uint32_t s_tile;
    RADIX_MARK_RESET();
    const tile_arrays arrays =
        make_tile_arrays(s_dynamic, tile_size, SEPARATE, s_statics);
    /* Once: the ranking leaves the words zero. Written out here rather
     * than through clear_warp_rows(), whose call at this place made the
     * kernel spill twice as much. */
    if (SEPARATE) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        for (int set = 0; set < smem::match_sets; set++)
            for (int d = lane; d < radix; d += 32)
                arrays.warp_match[(set * smem::warps + warp) * radix + d] = 0;
    }

    if (!control->exec[pass])
        return; /* early exit: every key has the same digit here */
    const int from_scratch = control->src_scratch[pass];
    const int in_float = control->in_float[pass];
    const uint32_t *src_keys = from_scratch ? scratch_keys : keys;
    const uint32_t *src_values = from_scratch ? scratch_values : values;
    const int out_float = control->out_float[pass];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tiles = (count + tile_size - 1) / tile_size;

    if (threadIdx.x == 0)
        s_tile = atomicAdd(&control->next_tile[pass], 1u);
    for (;;) {
        /* Each warp clears its own counter row and match words; the
         * barrier below (and the one ending the previous tile, after the
         * exchanges' last reads) orders it against other warps. */
        clear_warp_rows<BITS, smem::warps, smem::match_sets>(arrays, !SEPARATE);
        for (int d = threadIdx.x; d < radix; d += kDownsweepThreads)
            arrays.tile_hist[d] = 0;
        __syncthreads(); /* s_tile and the cleared counters are ready */
        const uint32_t tile = s_tile;
        if (tile >= tiles)
            break;
        const uint32_t tile_base = tile * tile_size;
        const uint32_t valid = min((uint32_t)tile_size, count - tile_base);

        /* Load: invalid slots of the last tile become maximal keys, which
         * rank after every valid key of the tile. */
        uint32_t key[ITEMS], value[ITEMS];
        const uint32_t warp_base = warp * (ITEMS * 32);
        if (valid == (uint32_t)tile_size) {
            /* Whole tile: unguarded loads, all issued before any is used. */
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                key[i] = src_keys[tile_base + warp_base + i * 32 + lane];
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                uint32_t local = warp_base + i * 32 + lane;
                key[i] = local < valid ? src_keys[tile_base + local]
                                       : 0xFFFFFFFFu;
            }
        }
        if (in_float) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                if (warp_base + i * 32 + lane < valid)
                    key[i] = to_ordered(key[i], descending);
        }
        /* Built per tile from the kernel's arguments, so that they stay
         * out of the registers ranking needs. */
        const tile_pass p = {tile,
                             valid,
                             shift,
                             out_float,
                             descending,
                             epoch,
                             control->digit_base[pass],
                             from_scratch ? keys : scratch_keys,
                             from_scratch ? values : scratch_values,
                             NULL};
        rank_scatter_tile<BITS, kDownsweepThreads, ITEMS, true>(
            arrays, p, key, value, src_values + tile_base, tile_status);
        if (threadIdx.x == 0)
            s_tile = atomicAdd(&control->next_tile[pass], 1u);
        __syncthreads(); /* exchanges, counters and s_tile free to reuse */
    }
}

/* Single-launch sort (cooperative launch, one tile per block, every
 * block resident): the same digit passes as k_radix_downsweep, separated
 * by grid-wide barriers instead of kernel launches, for inputs small
 * enough that launches and per-pass latency, not memory traffic, set the
 * time. Block b owns tile b. It:
 *   1. loads its keys and values into registers and adds its digit counts
 *      of every pass to the histograms of `half` (block 0 zeroes the other
 *      set, for the next sort); barrier;
 *   2. skips each pass whose digit is the same for every key (every block
 *      reads the same histograms, so all decide alike), and for each pass
 *      that runs scans its histogram into digit bases, ranks and scatters
 *      its tile (rank_scatter_tile) and, but after the last, waits at a
 *      barrier and loads its tile of the pass's output.
 * Passes alternate between the caller's pair and the scratch pair. After
 * step 1's barrier nobody reads the caller's pair again until a pass has
 * written it, so when an odd number of passes runs the first writes it in
 * place from registers: the last one then ends there too, and no copy
 * follows. Loads of data written in the launch bypass L1.
 * One body: the tile stays in registers across the passes, so the steps
 * cannot become functions that each own their data. */
template <int BITS, bool SEPARATE, int ITEMS, int MIN_BLOCKS>
__global__ void __launch_bounds__(kSmallThreads, MIN_BLOCKS)
k_radix_small(uint32_t *keys, uint32_t *values, uint32_t *scratch_keys,
              uint32_t *scratch_values, uint32_t count, int descending,
              int low_bit, int pass_count, uint32_t epoch,
              unsigned long long *tile_status, radix_control *control,
              int half)
{
    typedef tile_smem<BITS, kSmallThreads, ITEMS> smem;
    const int radix = 1 << BITS;
    const int tile_size = smem::tile;
    extern __shared__ uint32_t s_dynamic[];
    __shared__ tile_statics<BITS, smem::warps> s_statics;
    __shared__ uint32_t s_digit_base[(32 + BITS - 1) / BITS][1 << BITS];
    const tile_arrays arrays =
        make_tile_arrays(s_dynamic, tile_size, SEPARATE, s_statics);
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    RADIX_MARK_RESET();
    RADIX_MARK(); /* the same thread reads the reset count */

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = blockIdx.x;
    const uint32_t tile_base = tile * tile_size;
    const uint32_t valid = min((uint32_t)tile_size, count - tile_base);
    const uint32_t warp_base = warp * (ITEMS * 32);
    static_assert(BITS == kSmallBits, "the histogram sets are kSmallBits wide");
    uint32_t(*hist)[1 << kSmallBits] = control->small_hist[half];

    /* 1. The tile in registers (padding slots: maximal keys) and every
     * pass's counts; the warp counters' words hold the block's histograms
     * (pass_count * radix of them fit: 32 / BITS passes, a warp row each). */
    uint32_t *s_hist = arrays.warp_counts;
    for (int i = threadIdx.x; i < pass_count * radix; i += kSmallThreads)
        s_hist[i] = 0;
    uint32_t key[ITEMS], value[ITEMS];
    load_tile(keys + tile_base, values + tile_base, valid, descending, key,
              value);
    __syncthreads(); /* s_hist cleared */
    RADIX_MARK(); /* after the barrier, so that the reset is seen */
    uint32_t any, all;
    or_and(key, &any, &all);
    for (int p = 0; p < pass_count; p++)
        count_digits<BITS, 1>(s_hist + p * radix, key, low_bit + p * BITS, any,
                              all);
    __syncthreads(); /* block histograms complete */
    RADIX_MARK();
    for (int i = threadIdx.x; i < pass_count * radix; i += kSmallThreads) {
        const int p = i / radix;
        const uint32_t d = i % radix;
        uint32_t n = s_hist[i];
        if (d == digit_of<BITS>(0xFFFFFFFFu, low_bit + p * BITS))
            n -= tile_size - valid; /* the padding slots */
        if (n)
            atomicAdd(&hist[p][d], n);
    }
    if (blockIdx.x == 0) {
        uint32_t *next = &control->small_hist[half ^ 1][0][0];
        for (int i = threadIdx.x; i < kSmallPasses << kSmallBits;
             i += kSmallThreads)
            next[i] = 0;
    }
    grid.sync(); /* every block's counts are in the histograms */
    RADIX_MARK();

    /* 2. Which passes run (a digit that holds every key orders nothing),
     * and each pass's digit bases. */
    int exec_mask = 0, runs = 0;
    uint32_t n[(32 + BITS - 1) / BITS];
#pragma unroll
    for (int p = 0; p < (32 + BITS - 1) / BITS; p++)
        n[p] = threadIdx.x < radix && p < pass_count
                   ? __ldcg(&hist[p][threadIdx.x])
                   : 0;
#pragma unroll
    for (int p = 0; p < (32 + BITS - 1) / BITS; p++) {
        if (p >= pass_count)
            break;
        uint32_t total;
        uint32_t base = block_exclusive_sum<smem::warps>(n[p], arrays.warp_sums,
                                                         &total);
        if (threadIdx.x < radix)
            s_digit_base[p][threadIdx.x] = base;
        /* Its barrier also frees the warp sums for the next scan. */
        if (!__syncthreads_or(n[p] == count)) {
            exec_mask |= 1 << p;
            runs++;
        }
    }
    int done = 0;
    for (int p = 0; p < pass_count; p++) {
        if (!((exec_mask >> p) & 1))
            continue;
        /* The last pass that runs writes the caller's pair. */
        const int into_scratch = (runs - 1 - done) & 1;
        tile_pass tp;
        tp.tile = tile;
        tp.valid = valid;
        tp.shift = low_bit + p * BITS;
        tp.out_float = done == runs - 1;
        tp.descending = descending;
        tp.epoch = epoch + (uint32_t)p;
        tp.digit_base = s_digit_base[p];
        tp.dst_keys = into_scratch ? scratch_keys : keys;
        tp.dst_values = into_scratch ? scratch_values : values;
        /* The group counts follow this launch's tile words. */
        tp.group_status = tile_status + (size_t)gridDim.x * radix;
        if (done > 0) {
            /* The previous pass wrote the other pair (the first pass has
             * the caller's in registers). */
            const uint32_t *src_keys = into_scratch ? keys : scratch_keys;
            const uint32_t *src_values = into_scratch ? values : scratch_values;
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                uint32_t local = warp_base + i * 32 + lane;
                key[i] = local < valid ? __ldcg(src_keys + tile_base + local)
                                       : 0xFFFFFFFFu;
                value[i] = local < valid
                               ? __ldcg(src_values + tile_base + local)
                               : 0;
            }
        }
        /* After the grid barrier (or phase 1, which leaves the exchanges
         * alone): the exchanges' last reads are done. */
        clear_warp_rows<BITS, smem::warps, smem::match_sets>(
            arrays, !SEPARATE || done == 0);
        for (int d = threadIdx.x; d < radix; d += kSmallThreads)
            arrays.tile_hist[d] = 0;
        __syncthreads(); /* counters and match words cleared */
        RADIX_MARK();
        rank_scatter_tile<BITS, kSmallThreads, ITEMS, false>(
            arrays, tp, key, value, NULL, tile_status);
        RADIX_MARK();
        if (++done < runs)
            grid.sync(); /* the next pass reads what every block wrote */
        RADIX_MARK();
    }
}

/* The sort of a count that fits one block's tile (THREADS x ITEMS keys),
 * in one ordinary launch of one block: the keys stay on the chip between
 * the digit passes, which rank the tile (warp_ranks) and exchange it
 * through shared memory, and only the last pass that runs writes the
 * caller's pair. No grid barrier, look-back, global round trip or control
 * block between passes: a pass costs its ranking and one exchange.
 * Warp w holds keys [w * 32 * ITEMS, (w + 1) * 32 * ITEMS), lane l the
 * keys l, l + 32, ... of them, in every pass (slots past `count`: the
 * maximal key). A digit that every key shares is skipped (the OR and AND
 * of the keys tell); when every pass is skipped the keys are equal in
 * the compared bits and the pair is left as it is, as the other launches
 * do. */
template <int BITS, bool SEPARATE, int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS, 1)
k_radix_block(uint32_t *keys, uint32_t *values, uint32_t count,
              int descending, int low_bit, int pass_count)
{
    typedef tile_smem<BITS, THREADS, ITEMS> smem;
    const int tile_size = smem::tile;
    extern __shared__ uint32_t s_dynamic[];
    /* Of the digit-sized arrays only the tile starts: no tile counts are
     * published and no global bases are looked up. */
    __shared__ uint32_t s_tile_start[1 << BITS];
    __shared__ uint32_t s_warp_sums[smem::warps];
    __shared__ uint32_t s_any, s_all;
    tile_arrays arrays =
        dynamic_tile_arrays<BITS, smem::warps>(s_dynamic, tile_size, SEPARATE);
    arrays.tile_start = s_tile_start;
    arrays.warp_sums = s_warp_sums;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t warp_base = warp * (ITEMS * 32);

    if (threadIdx.x == 0) {
        s_any = 0;
        s_all = 0xFFFFFFFFu;
    }
    clear_warp_rows<BITS, smem::warps, smem::match_sets>(arrays, true);
    /* With the match words in their own room the warp counters alternate
     * between two sets (the second after the match words): each pass
     * zeroes the set the next one counts in, whose last reads (the
     * previous pass's exchange) are a barrier behind, so no barrier is
     * spent on clearing. */
    uint32_t *const second_counts =
        arrays.warp_match + (size_t)smem::match_sets * smem::warps * (1 << BITS);
    int parity = 0;
    uint32_t key[ITEMS], value[ITEMS];
    load_tile(keys, values, count, descending, key, value);
    uint32_t any = 0, all = 0xFFFFFFFFu; /* of the real keys only */
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (warp_base + i * 32 + lane < count) {
            any |= key[i];
            all &= key[i];
        }
    }
    for (int delta = 16; delta > 0; delta >>= 1) {
        any |= __shfl_xor_sync(0xFFFFFFFFu, any, delta);
        all &= __shfl_xor_sync(0xFFFFFFFFu, all, delta);
    }
    __syncthreads(); /* s_any, s_all, counters and match words cleared */
    if (lane == 0) {
        atomicOr(&s_any, any);
        atomicAnd(&s_all, all);
    }
    __syncthreads(); /* the block's OR and AND complete */
    int exec_mask = 0;
    for (int p = 0; p < pass_count; p++)
        if (digit_of<BITS>(s_any ^ s_all, low_bit + p * BITS))
            exec_mask |= 1 << p;

    for (int p = 0; p < pass_count; p++) {
        if (!((exec_mask >> p) & 1))
            continue;
        const int shift = low_bit + p * BITS;
        tile_arrays pass_arrays = arrays;
        if (SEPARATE) {
            pass_arrays.warp_counts = parity ? second_counts : arrays.warp_counts;
            uint32_t *next = (parity ? arrays.warp_counts : second_counts) +
                             (threadIdx.x >> 5) * (1 << BITS);
            for (int d = lane; d < (1 << BITS); d += 32)
                next[d] = 0;
            parity ^= 1;
        }
        uint32_t warp_digit, rank[ITEMS], start;
        const bool one_digit = warp_one_digit<BITS>(key, shift, &warp_digit);
        warp_ranks<BITS, THREADS, ITEMS>(pass_arrays, key, shift, one_digit,
                                         warp_digit, rank);
        __syncthreads(); /* all warps' counters complete */
        tile_offsets<BITS, smem::warps>(pass_arrays, &start);
        __syncthreads(); /* tile starts and warp offsets ready */
        exchange_tile<BITS>(pass_arrays, key, value, rank, shift);
        __syncthreads(); /* the tile is in digit order in the exchanges */
        if (exec_mask >> (p + 1) == 0) {
            /* The last pass that runs: slots t, t + THREADS, ... from
             * thread t, coalesced; the padding slots are last. */
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                uint32_t slot = i * THREADS + threadIdx.x;
                if (slot < count) {
                    keys[slot] = from_ordered(arrays.key_exchange[slot],
                                              descending);
                    values[slot] = arrays.value_exchange[slot];
                }
            }
            return;
        }
        /* The next pass's keys, in the loading order, which keeps the
         * order stable. */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            key[i] = arrays.key_exchange[warp_base + i * 32 + lane];
            value[i] = arrays.value_exchange[warp_base + i * 32 + lane];
        }
        if (!SEPARATE) {
            __syncthreads(); /* the exchanges are read */
            clear_warp_rows<BITS, smem::warps, smem::match_sets>(arrays, true);
            __syncthreads(); /* counters and match words cleared */
        }
        /* With SEPARATE the next pass writes the exchanges only after its
         * ranking's barrier, which every thread passes after these reads. */
    }
}

/* The final copy, when the passes that ran left the result (float keys and
 * values) in the other pair than the host said (radix_control.final_copy):
 * an odd number in the scratch pair, or an even one in the caller's after
 * a ping-pong sort promised the scratch. Thread: 4 pairs (16-byte loads)
 * per grid-stride step when every buffer is 16-byte aligned, else one. */
__global__ void k_radix_copy(uint32_t *keys, uint32_t *values,
                             uint32_t *scratch_keys, uint32_t *scratch_values,
                             uint32_t count, int vector_ok,
                             radix_control *control)
{
    /* The sort's last kernel: block 0 zeroes the histograms, tile
     * dispensers and upsweep count for the next multi-launch sort (all
     * their readers have finished), so no memset precedes it. */
    if (blockIdx.x == 0) {
        uint32_t *words = reinterpret_cast<uint32_t *>(control);
        for (size_t i = threadIdx.x; i < offsetof(radix_control, exec) / sizeof(uint32_t);
             i += blockDim.x)
            words[i] = 0;
    }
    const int direction = control->final_copy;
    if (direction == kCopyNone)
        return;
    const int to_caller = direction == kCopyToCaller;
    uint32_t *dst_keys = to_caller ? keys : scratch_keys;
    uint32_t *dst_values = to_caller ? values : scratch_values;
    const uint32_t *src_keys = to_caller ? scratch_keys : keys;
    const uint32_t *src_values = to_caller ? scratch_values : values;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t vectors = vector_ok ? count / 4 : 0;
    for (size_t i = first; i < vectors; i += stride) {
        reinterpret_cast<uint4 *>(dst_keys)[i] =
            reinterpret_cast<const uint4 *>(src_keys)[i];
        reinterpret_cast<uint4 *>(dst_values)[i] =
            reinterpret_cast<const uint4 *>(src_values)[i];
    }
    for (size_t i = vectors * 4 + first; i < count; i += stride) {
        dst_keys[i] = src_keys[i];
        dst_values[i] = src_values[i];
    }
}

/* ---- host launchers ---------------------------------------------------- */

/* Makes room for `passes` new look-back epochs after s->epoch. */
static ds_status reserve_epochs(radix_state *s, int passes,
                                cudaStream_t stream)
{
    if (s->epoch + (uint32_t)passes >= kEpochLimit) {
        /* Epochs wrapped (after ~10^9 passes): old words could look current. */
        DS_CUDA_TRY("sort radix",
                    cudaMemsetAsync(s->tile_status, 0, s->status_bytes,
                                    stream));
        s->epoch = 0;
    }
    return DS_OK;
}

/* The multi-launch sort of the request, in its digits, alternating with
 * its second pair or, without one, the scratch pair.
 * With a second pair the result ends where *in_alt says: there after an
 * odd number of passes that are likely to run (all, but for full keys in
 * 7-bit digits the top one, whose 4 bits most depth keys share), else in
 * the caller's; a skipped pass that flips the parity costs a copy. */
static ds_status multi_launch(radix_state *s, const radix_request *r)
{
    const radix_digits *d = r->digits;
    radix_run run;
    run.low_bit = r->low_bit;
    run.pass_count = (r->bits + d->bits - 1) / d->bits;
    run.scratch_keys = r->alt_keys ? r->alt_keys : s->scratch_keys;
    run.scratch_values = r->alt_keys ? r->alt_values : s->scratch_values;
    const int likely_runs =
        run.pass_count - (d->bits == 7 && r->bits == 32 ? 1 : 0);
    run.end_in_scratch = r->alt_keys && (likely_runs & 1);
    ds_status status = d->launch(s, d, &run, r->keys, r->values, r->count,
                                 r->descending, r->stream);
    if (!status && r->in_alt)
        *r->in_alt = run.end_in_scratch;
    return status;
}

/* The single launch's shape for `count` pairs (at most small_limit): the
 * first whose tiles cover it one block an SM, else the first that covers
 * it with every block resident. */
static const small_shape *small_shape_for(const radix_state *s, uint32_t count)
{
    for (int i = 0; i < kSmallShapeCount; i++)
        if (count <= s->small[i].one_per_sm)
            return &s->small[i];
    for (int i = 0; i < kSmallShapeCount; i++)
        if (count <= s->small[i].limit)
            return &s->small[i];
    return NULL;
}

/* One sort of at most s->small_limit pairs in a single cooperative
 * launch (k_radix_small): one block a tile, 8-bit digits over the
 * request's compared bits, ending in the caller's pair; if the launch is
 * refused, the multi-launch sort of the same request. */
static ds_status launch_small(radix_state *s, const radix_request *r)
{
    uint32_t *keys = r->keys, *values = r->values;
    uint32_t count = r->count;
    int descending = r->descending, low_bit = r->low_bit;
    cudaStream_t stream = r->stream;
    const small_shape *shape = small_shape_for(s, count);
    ds_status status;
    int pass_count = (r->bits + kSmallBits - 1) / kSmallBits;
    if ((status = reserve_epochs(s, pass_count, stream)))
        return status;
    uint32_t epoch = s->epoch + 1; /* pass p uses epoch + p */
    s->epoch += (uint32_t)pass_count;
    int half = s->small_half;
    unsigned blocks = (count + shape->tile - 1) / shape->tile;
    void *args[] = {&keys,  &values,         &s->scratch_keys,
                    &s->scratch_values,       &count,
                    &descending,              &low_bit,
                    &pass_count,              &epoch,
                    &s->tile_status,          &s->control,
                    &half};
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[0], stream));
    cudaError_t e = cudaLaunchCooperativeKernel(shape->kernel, dim3(blocks),
                                                dim3(kSmallThreads), args,
                                                shape->smem, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
        /* Fewer SMs than at create (a partitioned GPU): the multi-launch
         * sort instead. */
        cudaGetLastError();
        return multi_launch(s, r);
    }
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not left for the next launch's check */
        return ds_fail(DS_ERR_CUDA,
                       "sort radix: cudaLaunchCooperativeKernel(k_radix_small) "
                       "failed: %s",
                       cudaGetErrorString(e));
    }
    s->last_launch = small_phase_name;
    /* Only a launched sort zeroes the other set, so only then does the
     * next one use it. */
    s->small_half ^= 1;
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[1], stream));
    return DS_OK;
}

/* The one-block shape for `count` pairs: the first whose tile holds them;
 * NULL: none does. */
static const block_shape *block_shape_for(const radix_state *s, uint32_t count)
{
    for (int i = 0; i < kBlockShapeCount; i++)
        if (count <= s->block[i].tile)
            return &s->block[i];
    return NULL;
}

/* One sort of at most one block's tile (k_radix_block): an ordinary
 * launch of one block, 8-bit digits over the request's compared bits,
 * ending in the caller's pair. */
static ds_status launch_block(radix_state *s, const radix_request *r,
                              const block_shape *shape)
{
    uint32_t *keys = r->keys, *values = r->values;
    uint32_t count = r->count;
    int descending = r->descending, low_bit = r->low_bit;
    int pass_count = (r->bits + kSmallBits - 1) / kSmallBits;
    void *args[] = {&keys, &values, &count, &descending, &low_bit, &pass_count};
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[0], r->stream));
    cudaError_t e = cudaLaunchKernel(shape->kernel, dim3(1), dim3(kBlockThreads),
                                     args, shape->smem, r->stream);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not left for the next launch's check */
        return ds_fail(DS_ERR_CUDA,
                       "sort radix: cudaLaunchKernel(k_radix_block) failed: %s",
                       cudaGetErrorString(e));
    }
    s->last_launch = block_phase_name;
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[1], r->stream));
    return DS_OK;
}

/* The shared memory layout of a kernel that ranks tiles (tile_smem): the
 * match words in their own room (`separate`, bytes + match_bytes of
 * dynamic shared memory) where that keeps as many blocks of `threads`
 * resident an SM (for a `lone_block` grid, where one block fits), else,
 * or always with `overlaid_only` (the tuning's match_overlaid), over the
 * exchanges (`overlaid`, `bytes`). Opts the chosen kernel into
 * its size and the most shared memory; *per_sm gets the overlaid form's
 * resident blocks an SM. */
template <class Kernel>
static cudaError_t shared_layout(Kernel overlaid, Kernel separate, int threads,
                                 size_t bytes, size_t match_bytes, int lone_block,
                                 int overlaid_only, int *per_sm, size_t *dest_bytes,
                                 int *dest_separate)
{
    cudaError_t e = cudaFuncSetAttribute(
        overlaid, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(overlaid,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, overlaid,
                                                          threads, bytes);
    if (e != cudaSuccess)
        return e;
    *dest_bytes = bytes;
    *dest_separate = 0;
    if (overlaid_only)
        return cudaSuccess;
    int per_sm_separate = 0;
    if (cudaFuncSetAttribute(separate, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)(bytes + match_bytes)) == cudaSuccess &&
        cudaFuncSetAttribute(separate, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) == cudaSuccess &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm_separate, separate, threads, bytes + match_bytes) == cudaSuccess &&
        per_sm_separate >= (lone_block ? 1 : *per_sm) && per_sm_separate > 0) {
        *dest_bytes = bytes + match_bytes;
        *dest_separate = 1;
    }
    cudaGetLastError(); /* a refused larger size leaves the overlaid form */
    return cudaSuccess;
}

/* Sizes shape I of the single launch; leaves it zero (unusable) where its
 * kernel cannot be set up or has no room on an SM (a setup error is
 * cleared: the other shapes and the multi-launch sort do not need it). */
template <int I>
static void prepare_shape(radix_state *s, int sm_count)
{
    constexpr int ITEMS = kSmallShapeItems[I], MIN_BLOCKS = kSmallShapeMinBlocks[I];
    typedef tile_smem<kSmallBits, kSmallThreads, ITEMS> smem;
    small_shape *shape = &s->small[I];
    int per_sm = 0, separate = 0;
    memset(shape, 0, sizeof *shape);
    if (shared_layout(k_radix_small<kSmallBits, false, ITEMS, MIN_BLOCKS>,
                      k_radix_small<kSmallBits, true, ITEMS, MIN_BLOCKS>, kSmallThreads,
                      smem::bytes, smem::match_bytes, 0, s->tuning.match_overlaid, &per_sm,
                      &shape->smem,
                      &separate) != cudaSuccess ||
        per_sm < 1) {
        cudaGetLastError();
        memset(shape, 0, sizeof *shape);
        return;
    }
    shape->items = ITEMS;
    shape->tile = smem::tile;
    shape->kernel = separate ? (const void *)k_radix_small<kSmallBits, true, ITEMS, MIN_BLOCKS>
                             : (const void *)k_radix_small<kSmallBits, false, ITEMS, MIN_BLOCKS>;
    shape->one_per_sm = (uint32_t)sm_count * smem::tile;
    shape->limit = (uint32_t)(sm_count * per_sm) * smem::tile;
}

/* Sizes shape I of the one-block sort; leaves it zero (unusable) where
 * its kernel cannot be set up (a setup error is cleared). */
template <int I>
static void prepare_block_shape(radix_state *s)
{
    constexpr int THREADS = kBlockThreads, ITEMS = kBlockShapeItems[I];
    typedef tile_smem<kSmallBits, THREADS, ITEMS> smem;
    /* The separate form's second counter set follows its match words. */
    const size_t counts_bytes = (size_t)smem::warps * (1 << kSmallBits) * sizeof(uint32_t);
    block_shape *shape = &s->block[I];
    int per_sm = 0, separate = 0;
    memset(shape, 0, sizeof *shape);
    if (shared_layout(k_radix_block<kSmallBits, false, THREADS, ITEMS>,
                      k_radix_block<kSmallBits, true, THREADS, ITEMS>, THREADS, smem::bytes,
                      smem::match_bytes + counts_bytes, 1, s->tuning.match_overlaid, &per_sm,
                      &shape->smem,
                      &separate) != cudaSuccess ||
        per_sm < 1) {
        cudaGetLastError();
        memset(shape, 0, sizeof *shape);
        return;
    }
    shape->tile = smem::tile;
    shape->kernel = separate ? (const void *)k_radix_block<kSmallBits, true, THREADS, ITEMS>
                             : (const void *)k_radix_block<kSmallBits, false, THREADS, ITEMS>;
}

/* Sizes the single launch: every block resident, one tile each, in the
 * shapes of kSmallShapeItems. Leaves small_limit 0 (the multi-launch sort
 * for every count) on a GPU without cooperative launches or where no
 * shape can be set up. */
static void prepare_small(radix_state *s, int device, int sm_count)
{
    int cooperative = 0;
    memset(s->small, 0, sizeof s->small);
    s->small_limit = 0;
    if (cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch,
                               device) != cudaSuccess ||
        !cooperative) {
        cudaGetLastError();
        return;
    }
    static_assert(kSmallShapeCount == 3, "a prepare_shape call per shape");
    prepare_shape<0>(s, sm_count);
    prepare_shape<1>(s, sm_count);
    prepare_shape<2>(s, sm_count);
    for (int i = 0; i < kSmallShapeCount; i++)
        s->small_limit = max(s->small_limit, s->small[i].limit);
}

/* One sort: the upsweep (whose last block scans and plans), every pass's
 * downsweep (a skipped pass returns at once on the device), then the copy
 * (which returns at once unless an odd number of passes ran, and clears
 * the counters for the next sort). */
template <int BITS>
static ds_status launch_passes(radix_state *s, const radix_digits *d,
                               const radix_run *run, uint32_t *keys,
                               uint32_t *values, uint32_t count,
                               int descending, cudaStream_t stream)
{
    const int low_bit = run->low_bit, pass_count = run->pass_count;
    ds_status status;
    const int vector_ok = ((uintptr_t)keys & 15) == 0;
    s->last_launch = NULL;
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[0], stream));
    /* The histograms, tile dispensers and upsweep count start from zero:
     * create, then each sort's k_radix_copy, clears them; a sort that
     * returned before its copy was queued leaves them dirty, and the next
     * one clears them first. */
    if (s->control_dirty)
        DS_CUDA_TRY("sort radix",
                    cudaMemsetAsync(s->control, 0, offsetof(radix_control, exec),
                                    stream));
    s->control_dirty = 1;
    k_radix_upsweep<BITS><<<s->upsweep_grid, kUpsweepThreads, 0, stream>>>(
        keys, count, vector_ok, descending, low_bit, pass_count,
        run->end_in_scratch, s->control);
    DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_upsweep");
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[1], stream));

    if ((status = reserve_epochs(s, pass_count, stream)))
        return status;
    for (int p = 0; p < pass_count; p++) {
        /* Stream order separates the passes: pass p + 1 reads what pass p
         * wrote, and its look-back words carry a new epoch. */
        s->epoch++;
        (d->downsweep_separate ? k_radix_downsweep<BITS, true>
                               : k_radix_downsweep<BITS, false>)
            <<<d->downsweep_grid, kDownsweepThreads, d->downsweep_smem, stream>>>(
                keys, values, run->scratch_keys, run->scratch_values, count,
                p, low_bit + p * BITS, descending, s->epoch, s->tile_status,
                s->control);
        DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_downsweep");
    }
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[2], stream));
    k_radix_copy<<<s->copy_grid, s->tuning.copy_threads, 0, stream>>>(
        keys, values, run->scratch_keys, run->scratch_values, count,
        vector_ok && ((uintptr_t)values & 15) == 0, s->control);
    DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_copy");
    s->control_dirty = 0;
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[3], stream));
    return DS_OK;
}

/* Opts the downsweep into its dynamic shared memory and sizes the grids to
 * the machine: every resident block of each kernel, no more (the
 * downsweep's blocks loop over tiles, so all of them must be resident). */
template <int BITS>
static ds_status prepare_kernels(radix_state *s, radix_digits *d, int sm_count)
{
    typedef tile_smem<BITS, kDownsweepThreads, kDownsweepItems> smem;
    int per_sm = 0;
    /* Most shared memory, least L1: the persistent grid assumes every
     * block the occupancy query counts is resident. */
    DS_CUDA_TRY("sort radix",
                shared_layout(k_radix_downsweep<BITS, false>,
                              k_radix_downsweep<BITS, true>, kDownsweepThreads,
                              smem::bytes, smem::match_bytes, 0, s->tuning.match_overlaid,
                              &per_sm, &d->downsweep_smem, &d->downsweep_separate));
    if (per_sm < 1)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "sort radix: a %d x %d tile does not fit on this GPU",
                       kDownsweepThreads, kDownsweepItems);
    d->bits = BITS;
    d->downsweep_grid = sm_count * per_sm;
    d->launch = launch_passes<BITS>;
    s->upsweep_grid = sm_count * s->tuning.upsweep_blocks_per_sm;
    s->copy_grid = sm_count * s->tuning.copy_blocks_per_sm;
    s->tile_size = smem::tile;
    return DS_OK;
}

/* ---- backend entry ----------------------------------------------------- */

static void radix_destroy(void *state);

static ds_status radix_create(const ds_sorter_desc *desc, void **state)
{
    ds_status status = DS_OK;
    const radix_tuning *tuning =
        desc->tuning ? (const radix_tuning *)desc->tuning : &ds_radix_tuning_default;
    const int key_bits = desc->key_bits ? desc->key_bits : 32;
    const int digit_bits = key_bits == 32 ? tuning->digit_bits_full_keys
                                          : tuning->digit_bits_short_keys;
    *state = NULL;
    /* Only the widths and the tile below are compiled. */
    if ((digit_bits != 7 && digit_bits != 8) ||
        tuning->downsweep_threads != kDownsweepThreads ||
        tuning->downsweep_items != kDownsweepItems)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "sort radix: tuning of %d-bit digits and %d x %d "
                       "tiles is not built (7 or 8 bits, %d x %d)",
                       digit_bits, tuning->downsweep_threads,
                       tuning->downsweep_items, kDownsweepThreads,
                       kDownsweepItems);
    if (desc->max_count >= ((size_t)1 << 32))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort radix: max_count %zu needs 64-bit positions",
                       desc->max_count);
    radix_state *s = (radix_state *)calloc(1, sizeof *s);
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort radix: out of host memory");
    s->tuning = *tuning;
    s->key_bits = key_bits;
    s->low_bits = 32;
    s->max_count = desc->max_count;
    s->time_phases = desc->time_phases;

    int device = 0, sm_count = 0;
    DS_CUDA_GOTO(status, fail, "sort radix", cudaGetDevice(&device));
    DS_CUDA_GOTO(status, fail, "sort radix",
                 cudaDeviceGetAttribute(&sm_count,
                                        cudaDevAttrMultiProcessorCount,
                                        device));
    status = digit_bits == 7 ? prepare_kernels<7>(s, &s->digits, sm_count)
                             : prepare_kernels<8>(s, &s->digits, sm_count);
    if (status)
        goto fail;
    /* Full keys that the caller may promise to hold in their low 16 or 24
     * bits (set_low_bits) also get 8-bit digits over those bits: 3 passes
     * for the renderer's narrowed keys where the 7-bit digits of full
     * keys take 4. Where that tile does not fit a block (Turing's 64 KiB)
     * the promise is ignored and the full keys are sorted. */
    if (desc->keys_nonnegative && key_bits == 32 &&
        prepare_kernels<8>(s, &s->low_digits, sm_count) != DS_OK) {
        cudaGetLastError();
        memset(&s->low_digits, 0, sizeof s->low_digits);
    }
    prepare_small(s, device, sm_count);
    static_assert(kBlockShapeCount == 2, "a prepare_block_shape call per shape");
    prepare_block_shape<0>(s);
    prepare_block_shape<1>(s);

    {
        size_t n = desc->max_count > 0 ? desc->max_count : 1;
        size_t tiles = (n + s->tile_size - 1) / s->tile_size;
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->scratch_keys, n * sizeof(uint32_t)));
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->scratch_values,
                                n * sizeof(uint32_t)));
        /* Words for the multi-launch sort's tiles or the single
         * launch's tiles and groups, whichever needs more. */
        size_t small_tiles =
            s->small_limit ? (min(n, (size_t)s->small_limit) + kSmallThreads * kSmallItems - 1) /
                                 (kSmallThreads * kSmallItems)
                           : 0;
        const int widest = s->low_digits.bits ? s->low_digits.bits : digit_bits;
        const size_t small_groups = (small_tiles + kLookbackGroup - 1) / kLookbackGroup;
        s->status_bytes = max(tiles << widest, (small_tiles + small_groups) << kSmallBits) *
                          sizeof(unsigned long long);
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->tile_status, s->status_bytes));
        /* Epoch 0 is never used, so zeroed words read as unpublished. */
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMemset(s->tile_status, 0, s->status_bytes));
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->control, sizeof(radix_control)));
        /* The single launch's histogram sets and the multi-launch
         * sort's counters start from zero. */
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMemset(s->control, 0, sizeof(radix_control)));
        /* The zeroes are in place before any sort, on any stream (the
         * memsets ran on the legacy stream, which a non-blocking stream
         * does not wait for). Create only. */
        DS_CUDA_GOTO(status, fail, "sort radix", cudaDeviceSynchronize());
    }
    if (s->time_phases)
        for (int i = 0; i < 4; i++)
            DS_CUDA_GOTO(status, fail, "sort radix",
                         cudaEventCreate(&s->events[i]));
    *state = s;
    return DS_OK;
fail:
    radix_destroy(s);
    return status;
}

static void radix_destroy(void *state)
{
    radix_state *s = (radix_state *)state;
    if (!s)
        return;
    cudaFree(s->scratch_keys);
    cudaFree(s->scratch_values);
    cudaFree(s->tile_status);
    cudaFree(s->control);
    for (int i = 0; i < 4; i++)
        if (s->events[i])
            cudaEventDestroy(s->events[i]);
    free(s);
}

/* A sort; with a second pair (alt_keys non-NULL) the multi-launch sort
 * alternates with it and *in_alt says where the result ends. */
static ds_status sort_pairs(radix_state *s, float *keys, uint32_t *values,
                            float *alt_keys, uint32_t *alt_values,
                            size_t count, ds_sort_order order,
                            ds_stream stream, int *in_alt)
{
    uint32_t *k = (uint32_t *)keys; /* float bits; ordered between passes */
    uint32_t *alt_k = (uint32_t *)alt_keys;
    const int descending = order == DS_SORT_DESCENDING;
    /* The compared bits: the top key_bits; or, for keys promised below
     * 2^low_bits (set_low_bits), whose bits above are all the same, the
     * low bits alone, in 8-bit digits. */
    const int low = s->low_bits < 32 && s->low_digits.bits;
    radix_request r;
    r.digits = low ? &s->low_digits : &s->digits;
    r.low_bit = low ? 0 : 32 - s->key_bits;
    r.bits = low ? s->low_bits : s->key_bits;
    r.keys = k;
    r.values = values;
    r.alt_keys = alt_k;
    r.alt_values = alt_values;
    r.count = (uint32_t)count;
    r.descending = descending;
    r.stream = (cudaStream_t)stream;
    r.in_alt = in_alt;
    const block_shape *block = count ? block_shape_for(s, r.count) : NULL;
    if (block)
        return launch_block(s, &r, block);
    if (count && count <= s->small_limit)
        return launch_small(s, &r);
    return multi_launch(s, &r);
}

static ds_status radix_sort(void *state, float *keys, uint32_t *values,
                            size_t count, ds_sort_order order,
                            ds_stream stream)
{
    return sort_pairs((radix_state *)state, keys, values, NULL, NULL, count,
                      order, stream, NULL);
}

/* ds_sorter_sort_pingpong(): the one-block sort and the single launch end
 * in the caller's pair; the multi-launch sort alternates with the second
 * pair instead of the scratch one, and ends where its likely pass count
 * leaves it (so the renderer's narrowed keys, three 8-bit passes, need no
 * copy back). */
static ds_status radix_sort_pingpong(void *state, float *keys,
                                     uint32_t *values, float *alt_keys,
                                     uint32_t *alt_values, size_t count,
                                     ds_sort_order order, ds_stream stream,
                                     int *in_alt)
{
    return sort_pairs((radix_state *)state, keys, values, alt_keys,
                      alt_values, count, order, stream, in_alt);
}

/* The keys of later sorts are below 2^low_bits (16, 24, or 32: no
 * promise); ds_sorter_set_low_key_bits(). */
static void radix_set_low_bits(void *state, int low_bits)
{
    static_cast<radix_state *>(state)->low_bits = low_bits;
}

static int radix_phases(void *state, const char **names, float *ms,
                        int capacity)
{
    radix_state *s = (radix_state *)state;
    int written = 0;
    if (!s->time_phases)
        return 0;
    if (s->last_launch) {
        float elapsed = 0.0f;
        if (capacity < 1 || cudaEventSynchronize(s->events[1]) != cudaSuccess ||
            cudaEventElapsedTime(&elapsed, s->events[0], s->events[1]) !=
                cudaSuccess)
            return 0;
        names[0] = s->last_launch;
        ms[0] = elapsed;
        return 1;
    }
    if (cudaEventSynchronize(s->events[3]) != cudaSuccess)
        return 0;
    for (int i = 0; i < 3 && written < capacity; i++) {
        float elapsed = 0.0f;
        if (cudaEventElapsedTime(&elapsed, s->events[i], s->events[i + 1]) !=
            cudaSuccess)
            return written;
        names[written] = phase_names[i];
        ms[written] = elapsed;
        written++;
    }
    return written;
}

/* Device bytes per pair that radix_create() allocates (sort_backend.h):
 * the scratch key and value arrays (8) and the tile status words, under 2
 * a pair for large counts. */
#define RADIX_BYTES_PER_PAIR 10

extern "C" const ds_sort_backend ds_sort_backend_radix = {
    "radix", 0, radix_create, radix_destroy, radix_sort, radix_phases, radix_set_low_bits,
    radix_sort_pingpong, RADIX_BYTES_PER_PAIR, 0};
