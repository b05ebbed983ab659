/* SPDX-License-Identifier: MIT */
/* sort_hybrid.cu — the hybrid sort of "Fast Parallel GPU-Sorting Using a
 * Hybrid Algorithm" (Sintorn & Assarsson, JPDC 2008): a bucket sort splits
 * the input into L ordered buckets, then a vector merge sort sorts each
 * bucket. Design, departures from the paper and the reason for every
 * tuning value: docs/algorithms/hybrid.md.
 *
 * Passes, in stream order (the phase names of ds_sorter_phases()), all on
 * the GPU with no host round trip:
 *   min/max     the lowest and highest key;
 *   histogram   Fig. 7: bins linear in the key domain, each also keeping its
 *               lowest and highest key;
 *   refine      Fig. 5, one block: pivot j at rank j * n / L, interpolated
 *               inside its bin; a bin of one value becomes its own bucket;
 *   count       Fig. 4: each key's bucket, searched among the pivots of its
 *               own histogram bin, counted per sub-chunk in shared memory;
 *               then one block lays out the padded buckets;
 *   reposition  Fig. 6: each pair to its bucket, staged by bucket in shared
 *               memory so that the writes come in runs;
 *   merge       the vector merge sort (Fig. 1 and 3, hybrid_network.cuh):
 *               16 pairs a thread in registers, merge-path merges up to a
 *               shared-memory sort tile, merge-path global passes for
 *               buckets longer than a tile; each bucket's last step writes
 *               floats into the caller's arrays;
 *   compact     copies out the constant buckets, which need no sorting.
 *
 * Keys are the ordered uint32 of kernels/common/sort_keys.cuh with the
 * direction folded in and NaN moved to 0xFFFFFFFE, so one unsigned compare
 * orders them and 0 and 0xFFFFFFFF are free as padding; a uint4 of keys
 * plays the paper's float4, with a uint4 of values beside it.
 *
 * Complexity: O(n) for the bucket sort, O(n log(n / L)) for the merges,
 * plus log2(bucket / tile) streaming passes for a bucket the histogram
 * could not split. Memory: two padded key and value arrays of
 * n + 4 * MAX_BUCKETS words each, and one base per reposition sub-chunk
 * and bucket (n / 2 bytes).
 *
 * Not handled: key_bits (full 32-bit keys are always sorted); stability
 * (equal keys leave in any order); more than 2^31 pairs (the front end's
 * limit; offsets are 32-bit).
 */
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cassert>
#include <new>

#include "cuda_check.h"
#include "hybrid_network.cuh"
#include "sort_backend.h"
#include "sort_keys.cuh"
#include "warp_reduce.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Compile-time shapes: template arguments, launch bounds, array sizes. */

/* Pairs a merge thread owns: four uint4 vectors, the paper's float4s. */
static constexpr int TILE_ITEMS = 16;
/* Global merge passes and compaction: 256 threads, a 4096-pair tile of keys
 * and values in 32 KB of shared memory, several blocks per SM. */
static constexpr int TILE_THREADS = 256;
static constexpr int TILE_SIZE = TILE_THREADS * TILE_ITEMS;
/* One spare word per 32 in shared tiles, so that thread t's 16 consecutive
 * slots (t * 16 + i) fall in distinct banks across a warp. */
static constexpr int TILE_SMEM = TILE_SIZE + TILE_SIZE / 32;

/* Sort tiles (the tile sort's unit): 256, 512 or 1024 threads x 16 pairs in
 * 33, 66 or 132 KB; larger tiles leave fewer global merge passes. */
static constexpr int SORT_TILE_VARIANTS = 3;
static const int kSortTileThreads[SORT_TILE_VARIANTS] = {256, 512, 1024};

/* Most buckets: bounds the shared memory of the count and reposition
 * passes, and a bucket id fits the 16 bits the count pass stores. */
static constexpr int MAX_BUCKETS = 2048;
/* Most histogram bins: 12 bytes of shared memory each. */
static constexpr int MAX_HIST_BINS = 8192;

/* Streaming passes (min/max, histogram, count): 512 threads, 8 keys a
 * thread per batch, enough loads in flight to cover memory latency. */
static constexpr int STREAM_THREADS = 512;
static constexpr int STREAM_ITEMS = 8;
static constexpr int STREAM_BATCH = STREAM_THREADS * STREAM_ITEMS;

/* Reposition (and count) sub-chunk: 1024 threads x up to 16 pairs staged in
 * 128 KB, one block per SM, so that each bucket gets runs of about
 * 16384 / L pairs per write; keys wait in shared memory across the scan so
 * that 1024 threads fit in 64 registers. Instantiated for 16, 8, 4, 2. */
static constexpr int REPOSITION_THREADS = 1024;
static constexpr int REPOSITION_ITEMS = 16;
static_assert(REPOSITION_THREADS * REPOSITION_ITEMS <= 65536 && MAX_BUCKETS < 65536,
              "reposition packs bucket and rank into 16 bits each");
static_assert(MAX_BUCKETS <= MAX_HIST_BINS, "the one-block passes scan buckets as bins");

/* One-block passes (refine, layout) and the reset. */
static constexpr int SINGLE_THREADS = 1024;
/* bins (and buckets, fewer) a one-block thread scans */
static constexpr int SINGLE_ITEMS = MAX_HIST_BINS / SINGLE_THREADS;
static constexpr int RESET_BLOCKS = 8;
static constexpr int RESET_THREADS = 1024;

/* Run-time tuning, read by the launchers from the state's copy. */
struct hybrid_tuning {
    /* Pairs per bucket as a fraction of the sort tile: 15/16 leaves room
     * for the pivots' error, so nearly every bucket fits one tile. */
    size_t bucket_fill_num, bucket_fill_den;
    /* Largest sort tile in pairs: the biggest that fits shared memory is
     * fastest at 16M (16384, every variant allowed). */
    size_t max_sort_tile;
    /* A larger sort tile only while n / tile >= this many tiles per SM, so
     * that small inputs keep more SMs busy. */
    size_t sort_tiles_per_sm;
    /* Histogram bins per bucket (the paper: several times more bins than
     * buckets helps spiky input), and the least bins at small L. */
    uint32_t hist_bins_per_bucket, min_hist_bins;
    /* Pairs a reposition thread stages (16, 8, 4 or 2), halved until the
     * staging fits shared memory: longer write runs per bucket. */
    int reposition_items;
    /* Min/max grid: this many blocks per resident reposition block,
     * grid-strided, enough to saturate bandwidth for a pass this light. */
    size_t minmax_blocks_per_stream_block;
};

static const hybrid_tuning kHybridTuning = {
    15, 16,                  /* bucket_fill_num, bucket_fill_den */
    16384,                   /* max_sort_tile */
    2,                       /* sort_tiles_per_sm */
    4, 256,                  /* hist_bins_per_bucket, min_hist_bins */
    REPOSITION_ITEMS,        /* reposition_items */
    2,                       /* minmax_blocks_per_stream_block */
};

/* ---- keys, phases, state ----------------------------------------------- */

/* Internal keys: NaN moved down one, freeing both ends of the uint range. */
#define KEY_NAN 0xFFFFFFFEu
#define KEY_SENTINEL 0x00000000u /* bucket padding: sorts first, dropped */
#define KEY_PAD 0xFFFFFFFFu      /* past the end of a partial tile */

enum {
    PHASE_MINMAX,
    PHASE_HISTOGRAM,
    PHASE_REFINE,
    PHASE_COUNT,
    PHASE_REPOSITION,
    PHASE_MERGE,
    PHASE_COMPACT,
    PHASE_COUNT_ALL
};
static const char *const phase_names[PHASE_COUNT_ALL] = {
    "min/max", "histogram", "refine", "count", "reposition", "merge", "compact"};

/* Device-side results that steer later kernels without a round trip. */
struct hybrid_globals {
    uint32_t min_key, max_key;  /* min == max: nothing to sort */
    uint32_t max_padded;        /* largest padded size of a merged bucket */
    uint32_t total_tiles;       /* tiles over all buckets */
    uint32_t total_sort_tiles;  /* sort tiles over all buckets */
    uint32_t reposition_claimed; /* sub-chunks claimed past the first round */
    uint32_t sort_claimed;       /* sort tiles claimed past the first round */
};

/* Per-bucket layout, written by k_hybrid_layout. */
struct hybrid_buckets {
    uint32_t *count;     /* elements (atomic counters during count) */
    uint32_t *offset;    /* 4-aligned start in the padded arrays */
    uint32_t *out;       /* start in the caller's arrays */
    uint32_t *tile;      /* first tile; tile[L] = total tiles */
    uint32_t *sort_tile; /* first sort tile (tile sort's unit); [L] = total */
    uint32_t *constant;  /* 1: all keys equal, no sorting needed */
};

struct hybrid_state {
    hybrid_tuning tuning;     /* kHybridTuning, read by the launchers */
    size_t max_count;
    size_t capacity;          /* padded arrays: max_count + 4 * MAX_BUCKETS */
    int sms;
    int stream_blocks;        /* resident blocks of the reposition kernel */
    int histogram_blocks;
    uint32_t max_bins;        /* histogram bins that fit in shared memory */
    int reposition_items;     /* 16, 8, 4 or 2: what fits in shared memory */
    int tile_blocks;          /* resident blocks of the merge kernels */
    int sort_tile_variants;   /* sort tile sizes that fit shared memory */
    int sort_tile_blocks[SORT_TILE_VARIANTS]; /* resident blocks of each */
    hybrid_globals *globals;
    uint32_t *hist, *bin_min, *bin_max;
    uint32_t *bin_first;      /* bins + 1: pivots in lower bins (refine) */
    uint32_t *pivots;         /* W + 1: pivots[0] = min, pivots[L..W] = max + 1 */
    hybrid_buckets buckets;
    uint32_t *block_base;     /* [sub-chunks][L]: each one's base in each bucket */
    uint32_t *keys[2], *values[2]; /* padded ping-pong arrays */
    int time_phases;
    int timed_last;
    cudaEvent_t events[PHASE_COUNT_ALL + 1];
};

/* ---- device helpers ---------------------------------------------------- */

struct min_op {
    __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? a : b; }
};
struct max_op {
    __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

__device__ static inline uint32_t to_internal(float key, int descending)
{
    uint32_t ordered = ds_key_to_ordered(key, descending);
    return ordered == 0xFFFFFFFFu ? KEY_NAN : ordered;
}

__device__ static inline float from_internal(uint32_t key, int descending)
{
    return ds_ordered_to_key(key == KEY_NAN ? 0xFFFFFFFFu : key, descending);
}

__device__ static inline int nothing_to_sort(const hybrid_globals *g)
{
    return g->min_key == g->max_key;
}

/* The histogram's bins: bin = (k - min) * scale >> 32 with scale =
 * bins * 2^32 / (max - min + 1), monotone in k, below bins for keys and at
 * most bins for max + 1 (the product stays under bins * 2^32 <= 2^45). */
__device__ static inline uint64_t bin_scale(const hybrid_globals *g, uint32_t bins)
{
    uint64_t span = (uint64_t)(g->max_key - g->min_key) + 1;
    return ((uint64_t)bins << 32) / span;
}

__device__ static inline uint32_t bin_of(uint32_t key, uint32_t min_key, uint64_t scale)
{
    return (uint32_t)(((uint64_t)(key - min_key) * scale) >> 32);
}

/* Asks L2 for the 128-byte line holding p; nothing waits on it. */
__device__ static inline void prefetch_l2(const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" : : "l"(p));
}

/* Slot of tile element i in a padded shared tile (see TILE_SMEM). */
__device__ static inline uint32_t slot(uint32_t i)
{
    return i + (i >> 5);
}

/* Number of elements of a[0..na) among the first `diag` of merge(a, b),
 * elements of a first on ties (global memory). */
__device__ static inline uint32_t merge_path(const uint32_t *a, uint32_t na,
                                             const uint32_t *b, uint32_t nb,
                                             uint32_t diag)
{
    uint32_t lo = diag > nb ? diag - nb : 0;
    uint32_t hi = diag < na ? diag : na;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (a[mid] <= b[diag - 1 - mid])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* merge_path on a padded shared tile: runs [a0, a0 + na) and [b0, b0 + nb). */
__device__ static inline uint32_t merge_path_shared(const uint32_t *tile,
                                                    uint32_t a0, uint32_t na,
                                                    uint32_t b0, uint32_t nb,
                                                    uint32_t diag)
{
    uint32_t lo = diag > nb ? diag - nb : 0;
    uint32_t hi = diag < na ? diag : na;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (tile[slot(a0 + mid)] <= tile[slot(b0 + diag - 1 - mid)])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Merges up to TILE_ITEMS outputs from shared a[ai..a_end) and
 * b[bi..b_end) into registers (a first on ties); returns how many. */
__device__ static inline int merge_serial(const uint32_t *keys,
                                          const uint32_t *values, uint32_t ai,
                                          uint32_t a_end, uint32_t bi,
                                          uint32_t b_end, uint32_t *out_keys,
                                          uint32_t *out_values)
{
    int produced = 0;
    /* the next key of each side stays in a register; one side advances */
    uint32_t ka = ai < a_end ? keys[slot(ai)] : 0;
    uint32_t kb = bi < b_end ? keys[slot(bi)] : 0;
#pragma unroll
    for (int i = 0; i < TILE_ITEMS; i++) {
        int a_ok = ai < a_end, b_ok = bi < b_end;
        int take_a = a_ok && (!b_ok || ka <= kb);
        out_keys[i] = take_a ? ka : kb;
        out_values[i] = (a_ok || b_ok) ? values[slot(take_a ? ai : bi)] : 0;
        produced += a_ok || b_ok;
        if (take_a) {
            ai++;
            ka = ai < a_end ? keys[slot(ai)] : 0;
        } else if (b_ok) {
            bi++;
            kb = bi < b_end ? keys[slot(bi)] : 0;
        }
    }
    return produced;
}

/* The bucket owning tile t: the last bucket whose first tile is <= t. */
__device__ static inline uint32_t bucket_of_tile(const uint32_t *tile,
                                                 uint32_t L, uint32_t t)
{
    uint32_t lo = 0, hi = L; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) >> 1;
        if (tile[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__device__ static inline uint32_t padded(uint32_t count)
{
    return (count + 3u) & ~3u;
}

/* ---- kernels ----------------------------------------------------------- */

/* Resets the histogram, bucket counters and globals; grid-stride. */
__global__ void k_hybrid_reset(hybrid_globals *g, uint32_t *hist,
                               uint32_t *bin_min, uint32_t *bin_max,
                               uint32_t bins, uint32_t *bucket_count,
                               uint32_t L)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t j = i; j < bins; j += stride) {
        hist[j] = 0;
        bin_min[j] = 0xFFFFFFFFu;
        bin_max[j] = 0;
    }
    for (uint32_t j = i; j < L; j += stride)
        bucket_count[j] = 0;
    if (i == 0) {
        g->min_key = 0xFFFFFFFFu;
        g->max_key = 0;
        g->max_padded = 0;
        g->total_tiles = 0;
        g->reposition_claimed = 0;
        g->sort_claimed = 0;
    }
}

/* Each thread folds a grid-stride slice into a min and max; one atomic per
 * block. */
__global__ void __launch_bounds__(STREAM_THREADS)
k_hybrid_minmax(const float *keys, size_t n, int descending, hybrid_globals *g)
{
    typedef cub::BlockReduce<uint32_t, STREAM_THREADS> reduce;
    __shared__ typename reduce::TempStorage temp;
    uint32_t lo = 0xFFFFFFFFu, hi = 0;
    for (size_t base = blockIdx.x * (size_t)STREAM_BATCH; base < n;
         base += (size_t)gridDim.x * STREAM_BATCH) {
        float batch[STREAM_ITEMS];
#pragma unroll
        for (int j = 0; j < STREAM_ITEMS; j++) {
            size_t i = base + (size_t)j * STREAM_THREADS + threadIdx.x;
            batch[j] = i < n ? keys[i] : keys[base];
        }
#pragma unroll
        for (int j = 0; j < STREAM_ITEMS; j++) {
            uint32_t k = to_internal(batch[j], descending);
            lo = min(lo, k);
            hi = max(hi, k);
        }
    }
    uint32_t block_lo = reduce(temp).Reduce(lo, min_op());
    __syncthreads();
    uint32_t block_hi = reduce(temp).Reduce(hi, max_op());
    if (threadIdx.x == 0) {
        atomicMin(&g->min_key, block_lo);
        atomicMax(&g->max_key, block_hi);
    }
}

/* Fig. 7 with per-bin min/max. A block keeps `bins` counters plus lowest and
 * highest key in shared memory over a grid-stride slice, and adds its
 * nonzero bins to the global arrays once. A warp whose 32 keys share one
 * bin (sorted or constant runs) updates it once; otherwise each lane does
 * its own shared atomics (grouping lanes by bin with __match_any_sync
 * costs more than it saves on random keys). */
__global__ void __launch_bounds__(STREAM_THREADS)
k_hybrid_histogram(const float *keys, size_t n, int descending,
                   const hybrid_globals *g, uint32_t *hist, uint32_t *bin_min,
                   uint32_t *bin_max, uint32_t bins)
{
    extern __shared__ uint32_t shared[];
    if (nothing_to_sort(g))
        return;
    uint32_t *s_hist = shared, *s_min = shared + bins, *s_max = shared + 2 * bins;
    for (uint32_t j = threadIdx.x; j < bins; j += STREAM_THREADS) {
        s_hist[j] = 0;
        s_min[j] = 0xFFFFFFFFu;
        s_max[j] = 0;
    }
    __syncthreads();
    uint32_t lo = g->min_key;
    /* one multiply-shift per key (bin_of), where (k - lo) * bins / span
     * would take a 64-bit division; the refine pass reads each bin's actual
     * lowest and highest key, so bins need not be exactly equal in width */
    uint64_t scale = bin_scale(g, bins);
    for (size_t batch_base = blockIdx.x * (size_t)STREAM_BATCH; batch_base < n;
         batch_base += (size_t)gridDim.x * STREAM_BATCH) {
      float batch[STREAM_ITEMS]; /* all loads in flight before the atomics */
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
          size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
          batch[j] = i < n ? keys[i] : 0.0f;
      }
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
        size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
        int valid = i < n;
        uint32_t k = valid ? to_internal(batch[j], descending) : 0;
        uint32_t bin = valid ? bin_of(k, lo, scale) : bins;
        uint32_t first_bin = __shfl_sync(0xFFFFFFFFu, bin, 0);
        if (__all_sync(0xFFFFFFFFu, valid && bin == first_bin)) {
            uint32_t warp_min = warp_min_u32(k), warp_max = warp_max_u32(k);
            if ((threadIdx.x & 31) == 0) {
                atomicAdd(&s_hist[bin], 32u);
                atomicMin(&s_min[bin], warp_min);
                atomicMax(&s_max[bin], warp_max);
            }
        } else if (valid) {
            atomicAdd(&s_hist[bin], 1u);
            atomicMin(&s_min[bin], k);
            atomicMax(&s_max[bin], k);
        }
      }
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < bins; j += STREAM_THREADS) {
        if (s_hist[j]) {
            atomicAdd(&hist[j], s_hist[j]);
            atomicMin(&bin_min[j], s_min[j]);
            atomicMax(&bin_max[j], s_max[j]);
        }
    }
}

/* Fig. 5, one block: scans the histogram, then each thread places pivots
 * j = tid, tid + 1024, ...: the bin holding rank j * n / L, and a key
 * interpolated between that bin's lowest and highest key. A bin with one
 * key value v gets v for the first pivot that lands in it and v + 1 for the
 * rest, so that v alone makes up the bucket between them. Pivots L..W (the
 * search width) are max + 1. Then bin_first[h] for h = 0..bins: how many of
 * pivots[1..L-1] lie in bins below h, which the count pass's search starts
 * from. */
__global__ void __launch_bounds__(SINGLE_THREADS)
k_hybrid_refine(const hybrid_globals *g, const uint32_t *hist,
                const uint32_t *bin_min, const uint32_t *bin_max,
                uint32_t bins, size_t n, uint32_t L, uint32_t W,
                uint32_t *pivots, uint32_t *bin_first)
{
    typedef cub::BlockScan<uint32_t, SINGLE_THREADS> scan;
    __shared__ typename scan::TempStorage temp;
    __shared__ uint32_t s_cum[MAX_HIST_BINS];
    __shared__ uint32_t s_pivot_bin[MAX_BUCKETS]; /* bin of pivots[j], j < L */
    if (nothing_to_sort(g))
        return;
    uint32_t items[SINGLE_ITEMS];
    for (int i = 0; i < SINGLE_ITEMS; i++) {
        uint32_t j = threadIdx.x * SINGLE_ITEMS + i;
        items[i] = j < bins ? hist[j] : 0;
    }
    scan(temp).ExclusiveSum(items, items);
    for (int i = 0; i < SINGLE_ITEMS; i++) {
        uint32_t j = threadIdx.x * SINGLE_ITEMS + i;
        if (j < bins)
            s_cum[j] = items[i];
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j <= W; j += SINGLE_THREADS) {
        if (j == 0) {
            pivots[0] = g->min_key;
            continue;
        }
        if (j >= L) {
            pivots[j] = g->max_key + 1; /* max <= KEY_NAN: no wrap */
            continue;
        }
        uint64_t target = (uint64_t)j * n / L;
        uint64_t previous = (uint64_t)(j - 1) * n / L;
        /* Last bin whose cumulative start is <= target: it is nonempty. */
        uint32_t lo = 0, hi = bins;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) >> 1;
            if (s_cum[mid] <= target)
                lo = mid;
            else
                hi = mid;
        }
        uint32_t key_lo = bin_min[lo], key_hi = bin_max[lo];
        uint32_t pivot;
        if (key_lo == key_hi) {
            pivot = key_lo + (previous >= s_cum[lo] ? 1u : 0u);
        } else {
            double fraction = (double)(target - s_cum[lo]) / (double)hist[lo];
            double width = (double)(key_hi - key_lo) + 1.0;
            uint64_t step = (uint64_t)(fraction * width);
            pivot = key_lo + (uint32_t)min(step, (uint64_t)(key_hi - key_lo));
        }
        pivots[j] = pivot;
        s_pivot_bin[j] = bin_of(pivot, g->min_key, bin_scale(g, bins));
    }
    __syncthreads(); /* pivot bins known (non-decreasing, as the pivots) */
    for (uint32_t h = threadIdx.x; h <= bins; h += SINGLE_THREADS)
        bin_first[h] = hybrid_bin_first(s_pivot_bin, L, h);
}

/* Fig. 4, block-aggregated. Block b owns keys [b * chunk, (b + 1) * chunk),
 * chunk being the reposition's sub-chunk: counts its elements per bucket in
 * shared memory (one atomic per warp when the warp's keys share a bucket,
 * else one per lane), then adds each nonzero count to the bucket's global
 * counter; the old value is this chunk's base inside the bucket, kept for
 * the reposition pass. Each element's bucket goes to buckets_out for the
 * reposition too (the launcher always passes it; the NULL test stays
 * because without it the compiler's schedule takes more registers and
 * fits fewer blocks per SM). Chunks of one sub-chunk make many small
 * blocks, several resident per SM, where one long chunk per resident
 * reposition block (one per SM) would have too few loads in flight.
 *
 * The search is Fig. 4's binary search over the pivots, started from the
 * key's histogram bin: bin_first[h] pivots lie in bins below h (all lower
 * than any key of bin h) and the pivots from bin_first[h + 1] on in bins
 * above it (all higher), so only the pivots inside the key's own bin are
 * searched, usually none to three; a search over all L pivots makes the
 * pass shared-memory bound. The batch's eight searches run in step, so
 * that their loads overlap. */
__global__ void __launch_bounds__(STREAM_THREADS)
k_hybrid_count(const float *keys, size_t n, int descending,
               const hybrid_globals *g, const uint32_t *pivots, uint32_t L,
               uint32_t W, const uint32_t *bin_first, uint32_t bins,
               size_t chunk, uint32_t *bucket_count, uint32_t *block_base,
               uint16_t *buckets_out)
{
    extern __shared__ uint32_t shared[];
    if (nothing_to_sort(g))
        return;
    uint32_t *s_pivots = shared, *s_first = shared + W + 1;
    uint32_t *s_count = s_first + bins + 1;
    for (uint32_t j = threadIdx.x; j <= W; j += STREAM_THREADS) {
        s_pivots[j] = pivots[j];
        if (j < L)
            s_count[j] = 0;
    }
    for (uint32_t h = threadIdx.x; h <= bins; h += STREAM_THREADS)
        s_first[h] = bin_first[h];
    uint32_t min_key = g->min_key;
    uint64_t scale = bin_scale(g, bins);
    __syncthreads();
    size_t begin = blockIdx.x * chunk;
    size_t end = min(n, begin + chunk);
    for (size_t batch_base = begin; batch_base < end; batch_base += STREAM_BATCH) {
      float batch[STREAM_ITEMS]; /* all loads in flight before the searches */
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
          size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
          batch[j] = i < end ? keys[i] : 0.0f;
      }
      /* all searches before any counter moves: the counters share the
       * pivots' shared array, so a search placed after an atomic could not
       * start before it, and the batch's searches would run one by one */
      uint32_t found[STREAM_ITEMS], left[STREAM_ITEMS], key[STREAM_ITEMS];
      int more = 0;
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
        size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
        key[j] = to_internal(batch[j], descending);
        uint32_t h = i < end ? bin_of(key[j], min_key, scale) : 0;
        found[j] = s_first[h];
        left[j] = i < end ? s_first[h + 1] - found[j] : 0;
        more |= left[j] != 0;
      }
      /* all eight searches in step (hybrid_network.cuh) */
      while (more) {
        more = 0;
#pragma unroll
        for (int j = 0; j < STREAM_ITEMS; j++) {
          if (left[j]) {
            hybrid_search_step(s_pivots, key[j], &found[j], &left[j]);
            more |= left[j] != 0;
          }
        }
      }
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
        size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
        if (i >= end)
            found[j] = L;
        else if (buckets_out)
            buckets_out[i] = (uint16_t)found[j];
      }
#pragma unroll
      for (int j = 0; j < STREAM_ITEMS; j++) {
        size_t i = batch_base + (size_t)j * STREAM_THREADS + threadIdx.x;
        int valid = i < end;
        uint32_t bucket = found[j];
        uint32_t first_bucket = __shfl_sync(0xFFFFFFFFu, bucket, 0);
        if (__all_sync(0xFFFFFFFFu, valid && bucket == first_bucket)) {
            if ((threadIdx.x & 31) == 0)
                atomicAdd(&s_count[bucket], 32u);
        } else if (valid) {
            atomicAdd(&s_count[bucket], 1u);
        }
      }
    }
    __syncthreads();
    uint32_t *my_base = block_base + (size_t)blockIdx.x * L;
    for (uint32_t j = threadIdx.x; j < L; j += STREAM_THREADS)
        if (s_count[j])
            my_base[j] = atomicAdd(&bucket_count[j], s_count[j]);
}

/* One block: the bucket layout. Prefix sums of padded sizes (4-aligned
 * starts), of sizes (output starts) and of tiles; constant buckets; the
 * largest padded size still to merge; sentinel keys in the padding slots
 * (at most 3 a bucket) of the first ping-pong array. */
__global__ void __launch_bounds__(SINGLE_THREADS)
k_hybrid_layout(hybrid_globals *g, const uint32_t *pivots, uint32_t L,
                uint32_t sort_tile_size, hybrid_buckets buckets,
                uint32_t *keys, uint32_t *values)
{
    typedef cub::BlockScan<uint32_t, SINGLE_THREADS> scan;
    typedef cub::BlockReduce<uint32_t, SINGLE_THREADS> reduce;
    __shared__ typename scan::TempStorage scan_temp;
    __shared__ typename reduce::TempStorage reduce_temp;
    if (nothing_to_sort(g))
        return;
    const int per = SINGLE_ITEMS;
    uint32_t size[per], pad[per], out[per], tiles[per], sort_tiles[per];
    uint32_t largest = 0;
    int constant[per];
    for (int i = 0; i < per; i++) {
        uint32_t b = threadIdx.x * per + i;
        size[i] = b < L ? buckets.count[b] : 0;
        constant[i] = b < L && pivots[b + 1] - pivots[b] == 1;
        pad[i] = padded(size[i]);
        out[i] = size[i];
        tiles[i] = (pad[i] + TILE_SIZE - 1) / TILE_SIZE;
        sort_tiles[i] = (pad[i] + sort_tile_size - 1) / sort_tile_size;
        if (!constant[i])
            largest = max(largest, pad[i]);
    }
    uint32_t total_tiles, total_sort_tiles;
    scan(scan_temp).ExclusiveSum(pad, pad);
    __syncthreads();
    scan(scan_temp).ExclusiveSum(out, out);
    __syncthreads();
    scan(scan_temp).ExclusiveSum(tiles, tiles, total_tiles);
    __syncthreads();
    scan(scan_temp).ExclusiveSum(sort_tiles, sort_tiles, total_sort_tiles);
    uint32_t block_largest = reduce(reduce_temp).Reduce(largest, max_op());
    for (int i = 0; i < per; i++) {
        uint32_t b = threadIdx.x * per + i;
        if (b >= L)
            continue;
        buckets.offset[b] = pad[i];
        buckets.out[b] = out[i];
        buckets.tile[b] = tiles[i];
        buckets.sort_tile[b] = sort_tiles[i];
        buckets.constant[b] = constant[i];
        if (!constant[i])
            for (uint32_t s = pad[i] + size[i]; s < pad[i] + padded(size[i]); s++) {
                keys[s] = KEY_SENTINEL;
                values[s] = 0;
            }
    }
    if (threadIdx.x == 0) {
        buckets.tile[L] = total_tiles;
        buckets.sort_tile[L] = total_sort_tiles;
        g->total_tiles = total_tiles;
        g->total_sort_tiles = total_sort_tiles;
        g->max_padded = block_largest;
    }
}

/* Fig. 6 over the sub-chunks of k_hybrid_count (THREADS * ITEMS pairs):
 * block b takes sub-chunk b, then claims sub-chunks from a counter (thread
 * 0's atomic before a sub-chunk's write-out, read after its last barrier),
 * so that faster blocks take more and the blocks end together. Each
 * element's bucket comes from the count pass (buckets_in); its rank inside
 * the bucket from a shared atomic increment (once per warp when the warp
 * shares a bucket). A block scan of the sub-chunk's bucket counts stages
 * the pairs in shared memory grouped by bucket, and they are written out
 * from there, so that consecutive threads write consecutive slots of a
 * bucket instead of one scattered word each. A pair's slot is its bucket's
 * offset + the sub-chunk's base in that bucket (from the count pass) + its
 * rank. Writes internal keys into the padded array. Shared memory
 * (dynamic): reposition_smem(). One body: the claim loop's stages share
 * the block's shared memory and barriers. */
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS, 1)
k_hybrid_reposition(const float *keys, const uint32_t *values, size_t n,
                    int descending, hybrid_globals *g, uint32_t L,
                    const uint32_t *bucket_offset, const uint32_t *block_base,
                    uint32_t *out_keys, uint32_t *out_values,
                    const uint16_t *buckets_in)
{
    typedef cub::BlockScan<uint32_t, THREADS> scan;
    const int SCAN_ITEMS = MAX_BUCKETS / THREADS; /* buckets a thread scans */
    extern __shared__ uint32_t shared[];
    __shared__ typename scan::TempStorage scan_temp;
    __shared__ uint32_t s_claim;
    if (nothing_to_sort(g))
        return;
    const uint32_t sub_chunk = THREADS * ITEMS;
    const size_t sub_chunks = (n + sub_chunk - 1) / sub_chunk;
    uint32_t *s_keys = shared, *s_values = shared + sub_chunk;
    uint32_t *s_count = shared + 2 * sub_chunk; /* then each bucket's start */
    uint32_t *s_dest = s_count + L;             /* global slot of the start */
    /* bucket of each staged slot, so the write-out need not search */
    uint16_t *s_bucket = (uint16_t *)(s_dest + L);
    for (size_t q = blockIdx.x; q < sub_chunks;) {
        size_t sub = q * sub_chunk;
        /* 32-bit offsets inside the sub-chunk keep register use down */
        uint32_t staged = (uint32_t)min((size_t)sub_chunk, n - sub);
        const float *sub_keys = keys + sub;
        const uint32_t *sub_values = values + sub;
        /* buckets_in is never NULL; the test keeps the compiler from
         * hoisting the next group's loads into this one, which spills */
        const uint16_t *sub_buckets = buckets_in ? buckets_in + sub : NULL;
        const uint32_t *my_base = block_base + q * L;
        for (uint32_t j = threadIdx.x; j < L; j += THREADS)
            s_count[j] = 0;
        __syncthreads(); /* counters zeroed */
        /* key and (bucket << 16 | rank in the sub-chunk's bucket) per item;
         * bucket <= MAX_BUCKETS and rank < sub_chunk fit 16 bits */
        uint32_t bucket_rank[ITEMS];
        /* loads in groups of 8 items a thread: 16 loads in flight each,
         * and fewer registers than all at once */
        const int GROUP = ITEMS < 8 ? ITEMS : 8;
#pragma unroll
        for (int first = 0; first < ITEMS; first += GROUP) {
          uint32_t key[GROUP];
#pragma unroll
          for (int j = first; j < first + GROUP; j++) {
            uint32_t i = j * THREADS + threadIdx.x;
            key[j - first] = i < staged ? __float_as_uint(sub_keys[i]) : 0;
            bucket_rank[j] = sub_buckets && i < staged ? sub_buckets[i] : L;
          }
#pragma unroll
          for (int j = first; j < first + GROUP; j++) {
            int valid = j * THREADS + threadIdx.x < staged;
            uint32_t k = valid ? to_internal(__uint_as_float(key[j - first]), descending) : 0;
            uint32_t bucket = !valid ? L : bucket_rank[j];
            uint32_t rank = 0;
            uint32_t first_bucket = __shfl_sync(0xFFFFFFFFu, bucket, 0);
            if (__all_sync(0xFFFFFFFFu, valid && bucket == first_bucket)) {
                uint32_t warp_first = 0;
                if ((threadIdx.x & 31) == 0)
                    warp_first = atomicAdd(&s_count[bucket], 32u);
                rank = __shfl_sync(0xFFFFFFFFu, warp_first, 0) + (threadIdx.x & 31);
            } else if (valid) {
                rank = atomicAdd(&s_count[bucket], 1u);
            }
            bucket_rank[j] = bucket << 16 | rank;
            /* the key waits in the values' staging area, in load order, so
             * that its register is free across the scan */
            if (valid)
                s_values[j * THREADS + threadIdx.x] = k;
          }
        }
        __syncthreads(); /* sub-chunk counted */
        uint32_t counts[SCAN_ITEMS];
#pragma unroll
        for (int j = 0; j < SCAN_ITEMS; j++) {
            uint32_t b = threadIdx.x * SCAN_ITEMS + j;
            counts[j] = b < L ? s_count[b] : 0;
        }
        uint32_t starts[SCAN_ITEMS];
        scan(scan_temp).ExclusiveSum(counts, starts);
#pragma unroll
        for (int j = 0; j < SCAN_ITEMS; j++) {
            uint32_t b = threadIdx.x * SCAN_ITEMS + j;
            if (b < L) {
                s_count[b] = starts[j];
                /* the count pass wrote bases only where it counted */
                s_dest[b] = counts[j] ? bucket_offset[b] + my_base[b] : 0;
            }
        }
        __syncthreads(); /* bucket starts known */
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            uint32_t i = j * THREADS + threadIdx.x;
            if (i < staged) {
                uint32_t at = s_count[bucket_rank[j] >> 16] + (bucket_rank[j] & 0xFFFFu);
                s_keys[at] = s_values[i];
                s_bucket[at] = (uint16_t)(bucket_rank[j] >> 16);
                bucket_rank[j] = at;
            }
        }
        __syncthreads(); /* the waiting keys are read: s_values is free */
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            uint32_t i = j * THREADS + threadIdx.x;
            if (i < staged)
                s_values[bucket_rank[j]] = sub_values[i];
        }
        __syncthreads(); /* sub-chunk staged by bucket */
        uint32_t claim = 0;
        if (threadIdx.x == 0)
            claim = gridDim.x + atomicAdd(&g->reposition_claimed, 1u);
        for (uint32_t at = threadIdx.x; at < staged; at += THREADS) {
            uint32_t bucket = s_bucket[at];
            uint32_t slot = s_dest[bucket] + (at - s_count[bucket]);
            out_keys[slot] = s_keys[at];
            out_values[slot] = s_values[at];
        }
        if (threadIdx.x == 0)
            s_claim = claim; /* every thread read the last one a sub-chunk ago */
        __syncthreads(); /* staging, starts and scan storage free again */
        q = s_claim;
    }
}

/* Where a sort tile lies: its bucket, its valid (padded) pairs, 0 for a
 * constant bucket or no tile, and its first slot in the padded arrays. */
struct sort_tile_at {
    uint32_t bucket, valid, base;
};

/* Finds sort tile t (of `size` pairs) and loads this thread's four key
 * vectors of it, KEY_PAD past its valid part, and asks L2 for the line of
 * its values that this thread will load; nothing for t >= total or a
 * constant bucket. (The values wait: in registers as well, they would
 * spill at 1024 threads.) */
__device__ static inline sort_tile_at load_sort_tile(const hybrid_buckets &buckets,
                                                     uint32_t L, uint32_t size,
                                                     uint32_t t, uint32_t total,
                                                     const uint32_t *keys,
                                                     const uint32_t *values,
                                                     hybrid_vec4 vk[4])
{
    sort_tile_at at = {0, 0, 0};
    if (t >= total)
        return at;
    at.bucket = bucket_of_tile(buckets.sort_tile, L, t);
    if (buckets.constant[at.bucket])
        return at;
    uint32_t first = (t - buckets.sort_tile[at.bucket]) * size;
    at.valid = min(size, padded(buckets.count[at.bucket]) - first);
    at.base = buckets.offset[at.bucket] + first; /* multiple of 4 */
    const uint4 *k4 = (const uint4 *)(keys + at.base);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        uint32_t vector = threadIdx.x * 4 + i;
        uint4 kk = make_uint4(KEY_PAD, KEY_PAD, KEY_PAD, KEY_PAD);
        if (vector * 4 < at.valid)
            kk = k4[vector];
        vk[i] = {kk.x, kk.y, kk.z, kk.w};
    }
    if (threadIdx.x * TILE_ITEMS < at.valid)
        prefetch_l2(values + at.base + threadIdx.x * TILE_ITEMS);
    return at;
}

/* This thread's four value vectors of a loaded sort tile. */
__device__ static inline void load_sort_tile_values(sort_tile_at at,
                                                    const uint32_t *values,
                                                    hybrid_vec4 vv[4])
{
    const uint4 *v4 = (const uint4 *)(values + at.base);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        uint32_t vector = threadIdx.x * 4 + i;
        uint4 vvv = make_uint4(0, 0, 0, 0);
        if (vector * 4 < at.valid)
            vvv = v4[vector];
        vv[i] = {vvv.x, vvv.y, vvv.z, vvv.w};
    }
}

/* The vector merge sort's first passes, one sort tile (THREADS * 16 pairs
 * of one bucket) per block iteration: thread t sorts pairs [16t, 16t + 16)
 * in registers (sortElements, Fig. 1, the merge loop), then the block
 * merges runs of 16 -> THREADS * 16 in shared memory, each thread producing
 * 16 outputs located by merge-path search. Sorts in place; slots past a
 * partial tile are padded with KEY_PAD and not written back. A bucket that
 * fits in one sort tile is finished here (sentinels dropped, floats into
 * the caller's arrays). Constant buckets are skipped. The block's next
 * tile is loaded into registers before this one is written out, so that
 * its loads (and its bucket search) overlap the stores: with one block per
 * SM nothing else would cover them. Shared memory (dynamic): keys then
 * values, tile_smem(THREADS * 16) words each. */
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
k_hybrid_tile_sort(hybrid_globals *g, hybrid_buckets buckets, uint32_t L,
                   uint32_t *keys, uint32_t *values, float *final_keys,
                   uint32_t *final_values, int descending)
{
    const uint32_t size = THREADS * TILE_ITEMS;
    /* a warp's 32 runs of 16 fill its own 512 slots, so merges up to runs
     * of 512 stay inside the warp and need only warp syncs */
    const uint32_t warp_runs = 32 * TILE_ITEMS;
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_claim;
    uint32_t *s_keys = shared, *s_values = shared + size + size / 32;
    if (nothing_to_sort(g))
        return;
    uint32_t total = g->total_sort_tiles;
    hybrid_vec4 vk[4], vv[4];
    sort_tile_at next = load_sort_tile(buckets, L, size, blockIdx.x, total, keys,
                                       values, vk);
    for (uint32_t t = blockIdx.x; t < total;) {
        /* The next tile: claimed here, published to the block before its
         * loads are issued below (or at once for a constant tile). */
        uint32_t claim = 0;
        if (threadIdx.x == 0)
            claim = gridDim.x + atomicAdd(&g->sort_claimed, 1u);
        sort_tile_at tile = next;
        uint32_t b = tile.bucket, valid = tile.valid, base = tile.base;
        if (!valid) { /* a constant bucket's tile */
            __syncthreads(); /* everyone has read the last claim */
            if (threadIdx.x == 0)
                s_claim = claim;
            __syncthreads();
            t = s_claim;
            next = load_sort_tile(buckets, L, size, t, total, keys, values, vk);
            continue;
        }
        load_sort_tile_values(tile, values, vv);
        hybrid_sort16_pairs(vk, vv);
        uint32_t rk[TILE_ITEMS], rv[TILE_ITEMS];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            rk[4 * i] = vk[i].x, rk[4 * i + 1] = vk[i].y;
            rk[4 * i + 2] = vk[i].z, rk[4 * i + 3] = vk[i].w;
            rv[4 * i] = vv[i].x, rv[4 * i + 1] = vv[i].y;
            rv[4 * i + 2] = vv[i].z, rv[4 * i + 3] = vv[i].w;
        }
        /* runs beyond the valid (rounded to 16) part are all KEY_PAD and
         * stay where they are: merging stops at the padded length */
        for (uint32_t run = TILE_ITEMS; run < valid; run <<= 1) {
            /* the previous pass has read s_keys (a warp pass read only its
             * warp's slots, which are the only ones this thread writes) */
            if (run < warp_runs)
                __syncwarp();
            else
                __syncthreads();
#pragma unroll
            for (int i = 0; i < TILE_ITEMS; i++) {
                s_keys[slot(threadIdx.x * TILE_ITEMS + i)] = rk[i];
                s_values[slot(threadIdx.x * TILE_ITEMS + i)] = rv[i];
            }
            /* all runs of this pass are in s_keys */
            if (run < warp_runs)
                __syncwarp();
            else
                __syncthreads();
            uint32_t mine = threadIdx.x * TILE_ITEMS;
            uint32_t pair = mine & ~(2 * run - 1);
            uint32_t diag = mine - pair;
            uint32_t ai = merge_path_shared(s_keys, pair, run, pair + run, run, diag);
            merge_serial(s_keys, s_values, pair + ai, pair + run,
                         pair + run + diag - ai, pair + 2 * run, rk, rv);
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TILE_ITEMS; i++) {
            s_keys[slot(threadIdx.x * TILE_ITEMS + i)] = rk[i];
            s_values[slot(threadIdx.x * TILE_ITEMS + i)] = rv[i];
        }
        if (threadIdx.x == 0)
            s_claim = claim;
        __syncthreads(); /* the tile is whole in shared memory, the claim out */
        t = s_claim;
        /* vk is free: the next tile's loads go out first */
        next = load_sort_tile(buckets, L, size, t, total, keys, values, vk);
        uint32_t count = buckets.count[b];
        if (padded(count) <= size) {
            /* the whole bucket: drop its sentinels, write the final output */
            uint32_t skip = padded(count) - count;
            size_t out = (size_t)buckets.out[b] - skip;
            for (uint32_t j = skip + threadIdx.x; j < valid; j += THREADS) {
                final_keys[out + j] = from_internal(s_keys[slot(j)], descending);
                final_values[out + j] = s_values[slot(j)];
            }
        } else {
            for (uint32_t j = threadIdx.x; j < valid; j += THREADS) {
                keys[base + j] = s_keys[slot(j)];
                values[base + j] = s_values[slot(j)];
            }
        }
        __syncthreads(); /* s_keys is reused by the next tile */
    }
}

/* One merge-path partitioned global pass: sorted runs of `run` pairs inside
 * each bucket become runs of 2 * run. A block iteration owns 4096 outputs
 * of one bucket: two threads find where its output range starts and ends
 * on the merge path of its pair of runs, the block stages those input
 * slices in shared memory, and each thread merges 16 outputs. A run with
 * no partner is copied. A bucket's last pass (padded size <= 2 * run)
 * drops its sentinels and writes floats straight into the caller's arrays;
 * buckets already done and constant buckets are skipped. */
__global__ void __launch_bounds__(TILE_THREADS)
k_hybrid_merge_pass(const hybrid_globals *g, hybrid_buckets buckets, uint32_t L,
                    uint32_t run, const uint32_t *src_keys,
                    const uint32_t *src_values, uint32_t *dst_keys,
                    uint32_t *dst_values, float *final_keys,
                    uint32_t *final_values, int descending)
{
    __shared__ uint32_t s_keys[TILE_SMEM];
    __shared__ uint32_t s_values[TILE_SMEM];
    __shared__ uint32_t s_split[2];
    if (nothing_to_sort(g) || g->max_padded <= run)
        return;
    uint32_t total = g->total_tiles;
    for (uint32_t t = blockIdx.x; t < total; t += gridDim.x) {
        uint32_t b = bucket_of_tile(buckets.tile, L, t);
        uint32_t size = padded(buckets.count[b]);
        if (buckets.constant[b] || size <= run)
            continue;
        uint32_t out_begin = (t - buckets.tile[b]) * TILE_SIZE;
        uint32_t out_end = min(out_begin + TILE_SIZE, size);
        uint32_t base = buckets.offset[b];
        uint32_t pair = out_begin - out_begin % (2 * run);
        uint32_t a_count = min(run, size - pair);
        uint32_t b_count = min(run, size - pair - a_count);
        const uint32_t *a = src_keys + base + pair, *bk = a + a_count;
        uint32_t d0 = out_begin - pair, d1 = out_end - pair;
        if (threadIdx.x < 2)
            s_split[threadIdx.x] =
                merge_path(a, a_count, bk, b_count, threadIdx.x ? d1 : d0);
        __syncthreads(); /* splits known */
        uint32_t a0 = s_split[0], a1 = s_split[1];
        uint32_t b0 = d0 - a0;
        uint32_t na = a1 - a0, count = d1 - d0;
        const uint32_t *av = src_values + base + pair;
        for (uint32_t j = threadIdx.x; j < count; j += TILE_THREADS) {
            uint32_t from = j < na ? a0 + j : a_count + b0 + (j - na);
            s_keys[slot(j)] = a[from];
            s_values[slot(j)] = av[from];
        }
        __syncthreads(); /* slices staged */
        uint32_t mine = min(threadIdx.x * TILE_ITEMS, count);
        uint32_t ai = merge_path_shared(s_keys, 0, na, na, count - na, mine);
        uint32_t rk[TILE_ITEMS], rv[TILE_ITEMS];
        uint32_t limit = min(mine + TILE_ITEMS, count);
        /* bound the B side so that exactly limit - mine outputs are made */
        int made = merge_serial(s_keys, s_values, ai, na, na + mine - ai, count,
                                rk, rv);
        made = min(made, (int)(limit - mine));
        __syncthreads(); /* everyone has read the staged slices */
#pragma unroll
        for (int i = 0; i < TILE_ITEMS; i++)
            if (i < made) {
                s_keys[slot(mine + i)] = rk[i];
                s_values[slot(mine + i)] = rv[i];
            }
        __syncthreads(); /* merged outputs staged */
        if (size <= 2 * run) {
            /* the bucket's last pass: drop sentinels, write the final output */
            uint32_t skip = size - buckets.count[b];
            size_t out = (size_t)buckets.out[b] - skip + out_begin;
            uint32_t from = skip > out_begin ? skip - out_begin : 0;
            for (uint32_t j = from + threadIdx.x; j < count; j += TILE_THREADS) {
                final_keys[out + j] = from_internal(s_keys[slot(j)], descending);
                final_values[out + j] = s_values[slot(j)];
            }
        } else {
            for (uint32_t j = threadIdx.x; j < count; j += TILE_THREADS) {
                dst_keys[base + out_begin + j] = s_keys[slot(j)];
                dst_values[base + out_begin + j] = s_values[slot(j)];
            }
        }
        __syncthreads(); /* shared arrays reused by the next tile */
    }
}

/* Last pass, for constant buckets only (the tile sort or a bucket's last
 * merge pass wrote every other bucket's final output): maps their keys,
 * which sit at the front of the bucket with the padding after, back to
 * floats into the caller's arrays. One tile per block iteration. */
__global__ void __launch_bounds__(TILE_THREADS)
k_hybrid_compact(const hybrid_globals *g, hybrid_buckets buckets, uint32_t L,
                 const uint32_t *keys, const uint32_t *values, float *out_keys,
                 uint32_t *out_values, int descending)
{
    if (nothing_to_sort(g))
        return;
    uint32_t total = g->total_tiles;
    for (uint32_t t = blockIdx.x; t < total; t += gridDim.x) {
        uint32_t b = bucket_of_tile(buckets.tile, L, t);
        if (!buckets.constant[b])
            continue;
        uint32_t count = buckets.count[b];
        const uint32_t *k = keys + buckets.offset[b];
        const uint32_t *v = values + buckets.offset[b];
        uint32_t first = (t - buckets.tile[b]) * TILE_SIZE;
        uint32_t last = min(first + TILE_SIZE, count);
        size_t out = buckets.out[b];
        for (uint32_t q = first + threadIdx.x; q < last; q += TILE_THREADS) {
            out_keys[out + q] = from_internal(k[q], descending);
            out_values[out + q] = v[q];
        }
    }
}

/* ---- host helpers ------------------------------------------------------ */

/* L for n pairs sorted in tiles of sort_size pairs: one bucket per
 * bucket_fill of a sort tile, clamped to [1, MAX_BUCKETS]. */
static uint32_t buckets_for(const hybrid_state *s, size_t n, uint32_t sort_size)
{
    size_t target = (size_t)sort_size * s->tuning.bucket_fill_num /
                    s->tuning.bucket_fill_den;
    size_t want = (n + target - 1) / target;
    return (uint32_t)(want < 1 ? 1 : want > MAX_BUCKETS ? MAX_BUCKETS : want);
}

/* The pivot table's width for L buckets: the power of two >= L (Fig. 4's
 * search width). The refine pass writes pivots[0..W], pivots[L..W] being
 * max + 1; the count's search reads pivots[1..L-1], the layout pivots[L]. */
static uint32_t search_width(uint32_t L)
{
    uint32_t W = 1;
    while (W < L)
        W *= 2;
    return W;
}

static uint32_t bins_for(const hybrid_state *s, uint32_t L)
{
    uint32_t bins = L * s->tuning.hist_bins_per_bucket;
    if (bins < s->tuning.min_hist_bins)
        bins = s->tuning.min_hist_bins;
    return bins > s->max_bins ? s->max_bins : bins;
}

/* Shared memory of a sort tile of `pairs` pairs: keys and values, each
 * with one spare word per 32 (see slot()). */
static size_t tile_smem(size_t pairs)
{
    return 2 * sizeof(uint32_t) * (pairs + pairs / 32);
}

static const void *tile_sort_kernel(int variant)
{
    return variant == 2 ? (const void *)k_hybrid_tile_sort<1024>
         : variant == 1 ? (const void *)k_hybrid_tile_sort<512>
                        : (const void *)k_hybrid_tile_sort<256>;
}

/* The sort tile variant for n pairs: the largest that fits shared memory
 * and max_sort_tile, and whose tile count still covers sort_tiles_per_sm
 * per SM. */
static int sort_tile_for(const hybrid_state *s, size_t n)
{
    int chosen = 0;
    for (int v = 1; v < s->sort_tile_variants; v++) {
        size_t pairs = (size_t)kSortTileThreads[v] * TILE_ITEMS;
        if (pairs <= s->tuning.max_sort_tile &&
            n / pairs >= s->tuning.sort_tiles_per_sm * (size_t)s->sms)
            chosen = v;
    }
    return chosen;
}

/* The reposition kernel for `items` pairs a thread (16, 8, 4 or 2). */
static const void *reposition_kernel(int items)
{
    return items == 16 ? (const void *)k_hybrid_reposition<REPOSITION_THREADS, 16>
         : items == 8  ? (const void *)k_hybrid_reposition<REPOSITION_THREADS, 8>
         : items == 4  ? (const void *)k_hybrid_reposition<REPOSITION_THREADS, 4>
                       : (const void *)k_hybrid_reposition<REPOSITION_THREADS, 2>;
}

/* Pairs in a reposition (and count) sub-chunk. */
static size_t reposition_sub_chunk(int items)
{
    return (size_t)REPOSITION_THREADS * items;
}

/* The reposition's dynamic shared memory for L buckets: staged keys and
 * values, each bucket's start and global slot, each staged pair's bucket. */
static size_t reposition_smem(int items, size_t L)
{
    size_t pairs = reposition_sub_chunk(items);
    return sizeof(uint32_t) * (2 * pairs + 2 * L) + sizeof(uint16_t) * pairs;
}

static int resident_blocks(const void *kernel, int threads, size_t smem, int sms)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                      smem) != cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    return per_sm * sms;
}

static void hybrid_destroy(void *opaque)
{
    hybrid_state *s = (hybrid_state *)opaque;
    if (!s)
        return;
    cudaFree(s->globals);
    cudaFree(s->hist);
    cudaFree(s->bin_min);
    cudaFree(s->bin_max);
    cudaFree(s->bin_first);
    cudaFree(s->pivots);
    cudaFree(s->buckets.count);
    cudaFree(s->buckets.offset);
    cudaFree(s->buckets.out);
    cudaFree(s->buckets.tile);
    cudaFree(s->buckets.sort_tile);
    cudaFree(s->buckets.constant);
    cudaFree(s->block_base);
    for (int i = 0; i < 2; i++) {
        cudaFree(s->keys[i]);
        cudaFree(s->values[i]);
    }
    for (int i = 0; i <= PHASE_COUNT_ALL; i++)
        if (s->events[i])
            cudaEventDestroy(s->events[i]);
    delete s;
}

/* The kernels' shared memory against what the device lets a block opt in
 * to: the reposition's pairs per thread, the histogram's bins, the sort
 * tile's variants, and how many blocks of each stay resident. */
static ds_status fit_shared_memory(hybrid_state *s, int device)
{
    /* Shared memory per block that a kernel may opt in to: 227 KB on
     * Hopper, 99 KB on sm_86, 64 KB on sm_75. */
    int optin = 0;
    DS_CUDA_TRY("sort hybrid",
                cudaDeviceGetAttribute(&optin,
                                       cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                       device));
    s->max_bins = (uint32_t)optin / (3 * sizeof(uint32_t));
    if (s->max_bins > MAX_HIST_BINS)
        s->max_bins = MAX_HIST_BINS;
    s->reposition_items = 0;
    for (int items = s->tuning.reposition_items; items >= 2 && !s->reposition_items;
         items /= 2) {
        cudaFuncAttributes attributes;
        DS_CUDA_TRY("sort hybrid",
                    cudaFuncGetAttributes(&attributes, reposition_kernel(items)));
        if (attributes.sharedSizeBytes + reposition_smem(items, MAX_BUCKETS) <=
            (size_t)optin)
            s->reposition_items = items;
    }
    if (!s->reposition_items)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "sort hybrid: %d bytes of shared memory per block "
                       "is too little", optin);
    size_t hist_smem = 3 * sizeof(uint32_t) * s->max_bins;
    size_t count_smem = sizeof(uint32_t) * (2 * MAX_BUCKETS + MAX_HIST_BINS + 2);
    size_t stage_smem = reposition_smem(s->reposition_items, MAX_BUCKETS);
    DS_CUDA_TRY("sort hybrid",
                cudaFuncSetAttribute(k_hybrid_histogram,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)hist_smem));
    DS_CUDA_TRY("sort hybrid",
                cudaFuncSetAttribute(k_hybrid_count,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)count_smem));
    DS_CUDA_TRY("sort hybrid",
                cudaFuncSetAttribute(reposition_kernel(s->reposition_items),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)stage_smem));
    s->histogram_blocks = resident_blocks((const void *)k_hybrid_histogram,
                                          STREAM_THREADS, hist_smem, s->sms);
    s->stream_blocks = resident_blocks(reposition_kernel(s->reposition_items),
                                       REPOSITION_THREADS, stage_smem, s->sms);
    s->tile_blocks = resident_blocks((const void *)k_hybrid_merge_pass,
                                     TILE_THREADS, 0, s->sms);
    for (int v = 0; v < SORT_TILE_VARIANTS; v++) {
        size_t smem = tile_smem((size_t)kSortTileThreads[v] * TILE_ITEMS);
        if (smem > (size_t)optin)
            break;
        DS_CUDA_TRY("sort hybrid",
                    cudaFuncSetAttribute(tile_sort_kernel(v),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem));
        s->sort_tile_blocks[v] = resident_blocks(tile_sort_kernel(v),
                                                 kSortTileThreads[v], smem,
                                                 s->sms);
        s->sort_tile_variants = v + 1;
    }
    return DS_OK;
}

/* The device buffers: the pass's globals, histogram, pivots and bucket
 * tables, the sub-chunks' bases and the two padded key/value arrays. */
static ds_status allocate_buffers(hybrid_state *s)
{
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->globals, sizeof(hybrid_globals)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->hist, MAX_HIST_BINS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->bin_min, MAX_HIST_BINS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->bin_max, MAX_HIST_BINS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->bin_first, (MAX_HIST_BINS + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->pivots, (MAX_BUCKETS + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.count, MAX_BUCKETS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.offset, MAX_BUCKETS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.out, MAX_BUCKETS * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.tile, (MAX_BUCKETS + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.sort_tile,
                           (MAX_BUCKETS + 1) * sizeof(uint32_t)));
    DS_CUDA_TRY("sort hybrid",
                cudaMalloc((void **)&s->buckets.constant, MAX_BUCKETS * sizeof(uint32_t)));
    {
        /* a base per sub-chunk and bucket: max_count / 2 bytes at 16 pairs
         * a thread, 4 * max_count at 2 */
        size_t sub_chunk = reposition_sub_chunk(s->reposition_items);
        size_t sub_chunks = (s->max_count + sub_chunk - 1) / sub_chunk;
        DS_CUDA_TRY("sort hybrid",
                    cudaMalloc((void **)&s->block_base,
                               (sub_chunks ? sub_chunks : 1) * MAX_BUCKETS *
                                   sizeof(uint32_t)));
    }
    for (int i = 0; i < 2; i++) {
        DS_CUDA_TRY("sort hybrid",
                    cudaMalloc((void **)&s->keys[i], s->capacity * sizeof(uint32_t)));
        DS_CUDA_TRY("sort hybrid",
                    cudaMalloc((void **)&s->values[i], s->capacity * sizeof(uint32_t)));
    }
    if (s->time_phases)
        for (int i = 0; i <= PHASE_COUNT_ALL; i++)
            DS_CUDA_TRY("sort hybrid", cudaEventCreate(&s->events[i]));
    return DS_OK;
}

static ds_status hybrid_create(const ds_sorter_desc *desc, void **state)
{
    ds_status status = DS_OK;
    hybrid_state *s = new (std::nothrow) hybrid_state();
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort hybrid: out of host memory");
    s->max_count = desc->max_count;
    s->capacity = desc->max_count + 4 * (size_t)MAX_BUCKETS;
    s->time_phases = desc->time_phases;
    s->tuning = kHybridTuning;
    /* reposition_kernel() is instantiated for 16, 8, 4 and 2 pairs */
    assert(s->tuning.reposition_items >= 2 &&
           s->tuning.reposition_items <= REPOSITION_ITEMS &&
           (s->tuning.reposition_items & (s->tuning.reposition_items - 1)) == 0);

    int device = 0;
    DS_CUDA_GOTO(status, fail, "sort hybrid", cudaGetDevice(&device));
    DS_CUDA_GOTO(status, fail, "sort hybrid",
                 cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount,
                                        device));
    if ((status = fit_shared_memory(s, device)) || (status = allocate_buffers(s)))
        goto fail;
    *state = s;
    return DS_OK;
fail:
    hybrid_destroy(s);
    return status;
}

/* Records phase boundary `i` when timing. */
static ds_status mark(hybrid_state *s, int i, cudaStream_t stream)
{
    if (s->time_phases)
        DS_CUDA_TRY("sort hybrid", cudaEventRecord(s->events[i], stream));
    return DS_OK;
}

static ds_status hybrid_sort(void *opaque, float *keys, uint32_t *values,
                             size_t count, ds_sort_order order, ds_stream stream)
{
    hybrid_state *s = (hybrid_state *)opaque;
    cudaStream_t st = (cudaStream_t)stream;
    ds_status status;
    int descending = order == DS_SORT_DESCENDING;
    int variant = sort_tile_for(s, count);
    uint32_t sort_size = (uint32_t)kSortTileThreads[variant] * TILE_ITEMS;
    uint32_t L = buckets_for(s, count, sort_size);
    uint32_t W = search_width(L);
    uint32_t bins = bins_for(s, L);
    size_t count_smem = sizeof(uint32_t) * ((size_t)W + 1 + bins + 1 + L);
    size_t stage_smem = reposition_smem(s->reposition_items, L);
    size_t hist_smem = 3 * sizeof(uint32_t) * bins;
    size_t chunk = reposition_sub_chunk(s->reposition_items);
    unsigned count_grid = (unsigned)((count + chunk - 1) / chunk);
    unsigned reposition_grid = count_grid < (unsigned)s->stream_blocks
                                   ? count_grid : (unsigned)s->stream_blocks;
    size_t stream_grid_full = (count + STREAM_BATCH - 1) / STREAM_BATCH;
    size_t minmax_blocks =
        (size_t)s->stream_blocks * s->tuning.minmax_blocks_per_stream_block;
    unsigned minmax_grid =
        (unsigned)(stream_grid_full < minmax_blocks ? stream_grid_full : minmax_blocks);
    unsigned hist_grid = (unsigned)(stream_grid_full < (size_t)s->histogram_blocks
                                        ? stream_grid_full : (size_t)s->histogram_blocks);
    size_t tiles_bound = (count + 3 * (size_t)L) / TILE_SIZE + L + 1;
    unsigned tile_grid = (unsigned)(tiles_bound < (size_t)s->tile_blocks
                                        ? tiles_bound : (size_t)s->tile_blocks);
    size_t sort_bound = (count + 3 * (size_t)L) / sort_size + L + 1;
    unsigned sort_grid = (unsigned)(sort_bound < (size_t)s->sort_tile_blocks[variant]
                                        ? sort_bound
                                        : (size_t)s->sort_tile_blocks[variant]);
    /* worst case passes: one bucket of every element, padded */
    size_t max_tiles = (count + 3 + sort_size - 1) / sort_size;
    int passes = 0;
    while (((size_t)1 << passes) < max_tiles)
        passes++;

    s->timed_last = 0;
    if ((status = mark(s, 0, st)))
        return status;
    k_hybrid_reset<<<RESET_BLOCKS, RESET_THREADS, 0, st>>>(s->globals, s->hist, s->bin_min,
                                       s->bin_max, bins, s->buckets.count, L);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_reset");
    k_hybrid_minmax<<<minmax_grid, STREAM_THREADS, 0, st>>>(keys, count,
                                                            descending, s->globals);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_minmax");
    if ((status = mark(s, 1, st)))
        return status;
    k_hybrid_histogram<<<hist_grid, STREAM_THREADS, hist_smem, st>>>(
        keys, count, descending, s->globals, s->hist, s->bin_min, s->bin_max, bins);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_histogram");
    if ((status = mark(s, 2, st)))
        return status;
    k_hybrid_refine<<<1, SINGLE_THREADS, 0, st>>>(s->globals, s->hist, s->bin_min,
                                                  s->bin_max, bins, count, L, W,
                                                  s->pivots, s->bin_first);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_refine");
    if ((status = mark(s, 3, st)))
        return status;
    k_hybrid_count<<<count_grid, STREAM_THREADS, count_smem, st>>>(
        keys, count, descending, s->globals, s->pivots, L, W, s->bin_first, bins,
        chunk, s->buckets.count, s->block_base, (uint16_t *)s->keys[1]);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_count");
    k_hybrid_layout<<<1, SINGLE_THREADS, 0, st>>>(s->globals, s->pivots, L,
                                                  sort_size, s->buckets, s->keys[0],
                                                  s->values[0]);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_layout");
    if ((status = mark(s, 4, st)))
        return status;
    /* keys[1] holds each element's bucket (uint16) from the count pass
     * until the first global merge pass overwrites it */
    switch (s->reposition_items) {
#define LAUNCH_REPOSITION(items)                                               \
    k_hybrid_reposition<REPOSITION_THREADS, items>                             \
        <<<reposition_grid, REPOSITION_THREADS, stage_smem, st>>>(             \
            keys, values, count, descending, s->globals, L, s->buckets.offset, \
            s->block_base, s->keys[0], s->values[0], (const uint16_t *)s->keys[1])
    case 16: LAUNCH_REPOSITION(16); break;
    case 8: LAUNCH_REPOSITION(8); break;
    case 4: LAUNCH_REPOSITION(4); break;
    default: LAUNCH_REPOSITION(2); break;
#undef LAUNCH_REPOSITION
    }
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_reposition");
    if ((status = mark(s, 5, st)))
        return status;
    switch (variant) {
#define LAUNCH_TILE_SORT(threads)                                              \
    k_hybrid_tile_sort<threads><<<sort_grid, threads,                          \
                                  tile_smem((size_t)threads * TILE_ITEMS), st>>>( \
        s->globals, s->buckets, L, s->keys[0], s->values[0], keys, values,     \
        descending)
    case 2: LAUNCH_TILE_SORT(1024); break;
    case 1: LAUNCH_TILE_SORT(512); break;
    default: LAUNCH_TILE_SORT(256); break;
#undef LAUNCH_TILE_SORT
    }
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_tile_sort");
    /* Ping-pong: pass p reads array p % 2 and writes the other, except that
     * each bucket's last pass (or its tile sort, for one-tile buckets)
     * writes the caller's arrays; k_hybrid_compact then copies the
     * constant buckets, which never left array 0. */
    for (int p = 0; p < passes; p++) {
        k_hybrid_merge_pass<<<tile_grid, TILE_THREADS, 0, st>>>(
            s->globals, s->buckets, L, sort_size << p, s->keys[p & 1],
            s->values[p & 1], s->keys[!(p & 1)], s->values[!(p & 1)], keys,
            values, descending);
        DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_merge_pass");
    }
    if ((status = mark(s, 6, st)))
        return status;
    k_hybrid_compact<<<tile_grid, TILE_THREADS, 0, st>>>(
        s->globals, s->buckets, L, s->keys[0], s->values[0], keys, values,
        descending);
    DS_CUDA_TRY_LAUNCH("sort hybrid", "k_hybrid_compact");
    if ((status = mark(s, 7, st)))
        return status;
    s->timed_last = s->time_phases;
    return DS_OK;
}

static int hybrid_phases(void *opaque, const char **names, float *ms, int capacity)
{
    hybrid_state *s = (hybrid_state *)opaque;
    int written = 0;
    if (!s->timed_last || cudaEventSynchronize(s->events[PHASE_COUNT_ALL]) != cudaSuccess)
        return 0;
    for (int i = 0; i < PHASE_COUNT_ALL && written < capacity; i++) {
        float elapsed = 0.0f;
        if (cudaEventElapsedTime(&elapsed, s->events[i], s->events[i + 1]) != cudaSuccess)
            return written;
        names[written] = phase_names[i];
        ms[written] = elapsed;
        written++;
    }
    return written;
}

/* Device bytes per pair that hybrid_create() allocates (sort_backend.h):
 * two padded pairs of key and value arrays (16 and their padding) and the
 * per-chunk bucket bases, with the fixed histogram and bucket tables. */
#define HYBRID_BYTES_PER_PAIR 22

extern "C" const ds_sort_backend ds_sort_backend_hybrid = {
    "hybrid", 0, hybrid_create, hybrid_destroy, hybrid_sort, hybrid_phases, NULL, NULL,
    HYBRID_BYTES_PER_PAIR, 0};
