/* sort_radix.cu — our least-significant-digit radix sort of (float key,
 * uint32 value) pairs, after "High Performance and Scalable Radix Sorting: A
 * case study of implementing dynamic parallelism for GPU computing"
 * (Merrill & Grimshaw).
 *
 * Algorithm. Keys go through the order-preserving transform of
 * sort_keys.cuh (descending, NaN last and -0 == +0 are all in it), then are
 * sorted by DIGIT_BITS-bit digits from the least significant compared bit up.
 * The paper's allocation-oriented pass structure is kept — an upsweep
 * reduction of digit counts, a top-level scan, a downsweep that ranks keys
 * locally and scatters them through a shared-memory key exchange so that
 * global writes coalesce — with two changes that later work on the same
 * design (CUB's "onesweep") showed pay off on current GPUs:
 *   - one upsweep kernel reads the keys once and counts the digits of every
 *     pass (the digit histogram of a pass does not depend on the order the
 *     previous passes left), so a pass reads its keys only once;
 *   - within a pass, a tile learns how many keys of each digit precede it
 *     through decoupled look-back (each tile publishes its digit counts,
 *     then sums its predecessors' ones) instead of a per-pass upsweep and
 *     top-level scan of per-block counts.
 * Every kernel runs a fixed grid of blocks sized to the machine at create
 * time (SM count x resident blocks per SM) that loops over tiles; the
 * downsweep takes tiles in order from an atomic counter, so a tile only ever
 * waits on tiles held by blocks already running (no deadlock).
 *
 * The transform is fused into the first pass that runs (it reads the
 * caller's float keys) and the inverse into the last (it writes float keys),
 * and passes alternate between the caller's buffers and one scratch pair, so
 * with an even number of passes the result lands in place with no copy; an
 * odd number ends with one streaming copy back (k_radix_copy).
 *
 * Early exit (the paper's section 3.3.3): a pass whose digit is the same
 * for every key leaves the order unchanged, so it is skipped. The decision
 * is made on the device, by the top-level scan kernel from the upsweep
 * histograms (a digit whose count is the whole input), so the host never
 * waits: every pass kernel is still launched, and a skipped one returns at
 * once. The scan kernel also plans which buffer each remaining pass reads
 * and whether the final copy runs, so skipping one pass of an even count
 * saves its ranking but pays a streaming copy; skipping two saves both.
 *
 * Complexity: O(n * ceil(key_bits / DIGIT_BITS)) work; memory traffic per
 * pair is 4 bytes for the upsweep plus 16 bytes per pass.
 *
 * Limits: count < 2^32 (positions are 32-bit); the look-back status array
 * holds one 64-bit word per (tile, digit) for max_count, at most 0.33 bytes
 * per key. key_bits < 32 sorts by the top key_bits bits only.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"
#include "warp_reduce.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Digit width, measured on an H100 at 4M and 16M uniform pairs (README,
 * "Radix sort"): for 32-bit keys, 7 bits beat 8 bits (0.789 against 0.862
 * ms at 16M) — ranking 256 digits costs more per pass, and the top 7-bit
 * pass (bits 28-31) is constant for most depth-like keys (finite floats of
 * one sign between 2^-31 and 2), so early exit leaves 4 passes and no
 * copy; with a varying top digit it is 5 passes and a streaming copy.
 * 4 to 6 bits lose to their extra passes. Keys cut to 24 or 16 bits keep
 * 8-bit digits (3 passes and a copy, or 2 passes). */
static const int kDigitBitsFullKeys = 7;
static const int kDigitBitsShortKeys = 8;
/* The joint-pair upsweep (fewer shared atomics, but 74 KiB of histograms
 * per block and their row and column sums) was slower than the per-pass
 * one (0.095 against 0.071 ms at 16M on the H100), so it stays off. */
static const int kJointUpsweep = 0;

/* Kernel shapes: downsweep threads per block, keys per thread, blocks per
 * SM the register budget must allow, early count publication, next-tile
 * prefetch, look-back window, ranking by match.any (else one ballot per
 * digit bit), when values are loaded (VALUES_WITH_KEYS, VALUES_AFTER_RANK:
 * once the tile is ranked, VALUES_AFTER_EXCHANGE: once its keys are in
 * shared memory), and upsweep sub-histograms per block (k_radix_downsweep,
 * k_radix_upsweep). Larger tiles amortise the per-tile latencies (tile
 * dispenser, look-back, barriers) that a persistent block cannot hide, and
 * lengthen each digit's write run; a wider look-back window reads that
 * many predecessors' words at once, so a tile whose predecessors have only
 * published their own counts pays one memory round trip per window
 * instead of one per predecessor; loading values late keeps them out of
 * the registers that ranking needs; sub-histograms spread the shared
 * atomics of equal digits (the top digits of depth keys) over banks.
 * DEFAULT_SHAPE names the backend's (README, "Radix sort"); SHAPE0 and the
 * default are built for every digit width, the others for 7-bit digits
 * (the measurement). */
#define VALUES_WITH_KEYS 0
#define VALUES_AFTER_RANK 1
#define VALUES_AFTER_EXCHANGE 2
#define SHAPE0 384, 16, 2, true, false, 1, false, VALUES_WITH_KEYS, 1
#define SHAPE1 384, 16, 2, true, false, 4, false, VALUES_WITH_KEYS, 1
#define SHAPE2 384, 16, 2, true, false, 4, false, VALUES_WITH_KEYS, 8
#define SHAPE3 384, 16, 2, true, false, 4, false, VALUES_AFTER_RANK, 8
#define SHAPE4 384, 16, 2, true, false, 4, false, VALUES_AFTER_EXCHANGE, 8
#define SHAPE5 384, 16, 2, true, false, 4, true, VALUES_AFTER_RANK, 8
#define SHAPE6 384, 16, 2, true, false, 4, true, VALUES_AFTER_EXCHANGE, 8
#define SHAPE7 384, 16, 1, true, false, 4, false, VALUES_WITH_KEYS, 8
#define SHAPE8 384, 16, 1, true, false, 4, true, VALUES_AFTER_RANK, 8
#define SHAPE9 384, 16, 3, true, false, 4, true, VALUES_AFTER_EXCHANGE, 8
#define SHAPE10 256, 24, 2, true, false, 4, false, VALUES_AFTER_RANK, 8
#define SHAPE11 256, 24, 2, true, false, 4, true, VALUES_AFTER_RANK, 8
#define SHAPE12 512, 12, 2, true, false, 4, false, VALUES_AFTER_RANK, 8
#define SHAPE13 512, 12, 2, true, false, 4, true, VALUES_AFTER_RANK, 8
#define SHAPE14 384, 16, 2, true, false, 4, true, VALUES_WITH_KEYS, 8
#define RADIX_SHAPE_COUNT 15
/* Measured on an H200 at 16M uniform pairs, 7-bit digits (README, "Radix
 * sort"): 8 upsweep sub-histograms took the upsweep from 0.069 to 0.057 ms
 * (SHAPE2); loading values after ranking or after the key exchange took
 * the downsweep from 0.639 to 0.613-0.616 ms (SHAPE3, 4, 12: 512 x 12 at
 * 0.677 ms in all, 384 x 16 after the exchange at 0.678, the only one
 * without spills); match.any ranking cost 0.05-0.12 ms more than ballots
 * in every shape; one block per SM (no spills, 149-168 registers) and
 * three (56 registers, spilling) were slower still. */
#define DEFAULT_SHAPE 12
#define SHAPE_OF(n) SHAPE_OF_(n)
#define SHAPE_OF_(n) SHAPE##n
static const int kDefaultShape = DEFAULT_SHAPE;

/* Upsweep: 256 threads x 16 keys (four 16-byte loads) per tile; four
 * blocks per SM keep 64 KiB of loads in flight per SM. */
#define UPSWEEP_THREADS 256
#define UPSWEEP_VECTORS 4
#define UPSWEEP_TILE (UPSWEEP_THREADS * UPSWEEP_VECTORS * 4)
#define UPSWEEP_BLOCKS_PER_SM 4
/* Joint upsweep (k_radix_upsweep_joint): used when the joint histograms
 * of a block fit in this many bytes of shared memory (7-bit digits: 74 KiB
 * for 32-bit keys; 8-bit pairs would need 256 KiB) and digits have at
 * least 5 bits (its column sums assume a warp's 32 bins share the upper
 * digit). */
#define JOINT_MAX_BYTES (96 * 1024)
#define JOINT_MIN_BITS 5
/* Threads of the single-block top-level scan (one per digit). */
#define SCAN_THREADS 256
#define SCAN_WARPS (SCAN_THREADS / 32)
/* Most passes any supported digit width needs (32-bit keys, 4-bit digits). */
#define MAX_PASSES 8
/* Supported digit widths; 8 is the largest the one-thread-per-digit scans
 * allow (every block has at least 256 threads). */
#define MIN_DIGIT_BITS 4
#define MAX_DIGIT_BITS 8
#define MAX_RADIX (1 << MAX_DIGIT_BITS)

/* Look-back status word: epoch (30 bits) | flag (2 bits) | count (32 bits).
 * The epoch numbers the pass launches, so words left by earlier passes read
 * as "not yet published" and the array is never cleared between passes. */
#define STATUS_AGGREGATE 1ull /* the tile's own digit count */
#define STATUS_INCLUSIVE 2ull /* count of this and every earlier tile */
#define EPOCH_LIMIT (1u << 30)

/* Device-side plan and counters, cleared (up to `exec`) at each sort. */
typedef struct radix_control {
    uint32_t digit_base[MAX_PASSES][MAX_RADIX]; /* histogram, then its scan */
    uint32_t next_tile[MAX_PASSES];             /* downsweep tile dispenser */
    /* Written by k_radix_scan: */
    int exec[MAX_PASSES];      /* pass runs (not an early exit) */
    int src_scratch[MAX_PASSES]; /* pass reads the scratch pair, else caller's */
    int in_float[MAX_PASSES];  /* first pass that runs: transform on load */
    int out_float[MAX_PASSES]; /* last pass that runs: inverse on store */
    int final_copy;            /* odd pass count: result is in the scratch */
} radix_control;

typedef struct radix_state radix_state;
typedef ds_status (*radix_launch_fn)(radix_state *s, uint32_t *keys,
                                     uint32_t *values, uint32_t count,
                                     int descending, cudaStream_t stream);

struct radix_state {
    int key_bits;
    int digit_bits;
    int pass_count;
    size_t max_count;
    uint32_t *scratch_keys;
    uint32_t *scratch_values;
    unsigned long long *tile_status; /* [tiles][radix] look-back words */
    size_t status_bytes;
    radix_control *control;
    uint32_t epoch;                  /* last epoch used by a pass */
    int tile_size;                   /* downsweep keys per tile */
    int upsweep_grid;
    int joint_upsweep;               /* k_radix_upsweep_joint, else per pass */
    size_t joint_bytes;              /* its dynamic shared memory */
    int downsweep_grid;
    int copy_grid;
    radix_launch_fn launch;          /* the digit width's and shape's kernels */
    int time_phases;
    cudaEvent_t events[4];
};

static const char *const phase_names[3] = {"upsweep", "downsweep", "copy"};

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

/* Lanes of the warp holding the same BITS-bit digit as this lane: one
 * match.any.sync (MATCH), or one ballot per bit (CUB's warp_matcher_t
 * notes that match.any is slower for a few bits). All 32 lanes must call
 * it. */
template <int BITS, bool MATCH>
__device__ __forceinline__ uint32_t match_digit(uint32_t digit)
{
    if (MATCH)
        return __match_any_sync(0xFFFFFFFFu, digit);
    uint32_t peers = 0xFFFFFFFFu;
#pragma unroll
    for (int b = 0; b < BITS; b++) {
        uint32_t set = __ballot_sync(0xFFFFFFFFu, (digit >> b) & 1u);
        peers &= ((digit >> b) & 1u) ? set : ~set;
    }
    return peers;
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
 * published an inclusive count (tile 0 always does). WINDOW words are read
 * at once, so tiles that have published only their own counts cost one
 * memory round trip per WINDOW of them; a word not yet published (older
 * epoch) ends the window, and reading resumes from it. */
template <int WINDOW>
__device__ __forceinline__ void lookback(unsigned long long *tile_status,
                                         int radix, uint32_t d, int last,
                                         uint32_t epoch, uint32_t *before)
{
    uint32_t sum = 0;
    int t = last;
    while (t >= 0) {
        unsigned long long word[WINDOW];
#pragma unroll
        for (int j = 0; j < WINDOW; j++) {
            const volatile unsigned long long *slot =
                tile_status + (size_t)(t - j) * radix + d;
            word[j] = t - j >= 0 ? *slot : 0ull;
        }
        bool done = false;
        int consumed = 0;
#pragma unroll
        for (int j = 0; j < WINDOW; j++) {
            if (done || consumed != j)
                continue; /* stopped at an unpublished word or an end */
            if ((uint32_t)(word[j] >> 34) != epoch)
                continue;
            sum += (uint32_t)word[j];
            consumed = j + 1;
            if (((word[j] >> 32) & 3ull) == STATUS_INCLUSIVE)
                done = true;
        }
        if (done)
            break;
        t -= consumed;
    }
    *before = sum;
}

/* ---- kernels ----------------------------------------------------------- */

/* One upsweep tile's keys for this thread, in the order-preserving form:
 * 16-byte vectors t, t + 256, t + 512, t + 768 of the tile (coalesced),
 * i.e. 16 keys. Both upsweeps read their tiles through this. */
__device__ __forceinline__ void load_upsweep_tile(
    const uint32_t *__restrict__ keys, uint32_t tile, int descending,
    uint32_t (&ordered)[UPSWEEP_VECTORS * 4])
{
    const uint4 *src = reinterpret_cast<const uint4 *>(keys) +
                       (size_t)tile * (UPSWEEP_TILE / 4) + threadIdx.x;
    uint4 v[UPSWEEP_VECTORS];
#pragma unroll
    for (int j = 0; j < UPSWEEP_VECTORS; j++)
        v[j] = src[j * UPSWEEP_THREADS];
#pragma unroll
    for (int j = 0; j < UPSWEEP_VECTORS; j++) {
        ordered[4 * j + 0] = to_ordered(v[j].x, descending);
        ordered[4 * j + 1] = to_ordered(v[j].y, descending);
        ordered[4 * j + 2] = to_ordered(v[j].z, descending);
        ordered[4 * j + 3] = to_ordered(v[j].w, descending);
    }
}

/* Adds the digits of `keys` at one digit place to s_hist (digit d's
 * counter at s_hist[d * STRIDE]), one shared atomic per run of equal
 * digits: a digit that is the same for most keys (the top digits of depth
 * keys) then costs one atomic per thread, not per key. */
template <int BITS, int STRIDE, int N>
__device__ __forceinline__ void count_runs(uint32_t *s_hist,
                                           const uint32_t (&ordered)[N],
                                           int shift)
{
    uint32_t run_digit = digit_of<BITS>(ordered[0], shift), run = 1;
#pragma unroll
    for (int e = 1; e < N; e++) {
        uint32_t d = digit_of<BITS>(ordered[e], shift);
        if (d == run_digit) {
            run++;
        } else {
            atomicAdd(&s_hist[run_digit * STRIDE], run);
            run_digit = d;
            run = 1;
        }
    }
    atomicAdd(&s_hist[run_digit * STRIDE], run);
}

/* Upsweep: digit histograms of every pass in one read of the keys.
 * Block: 4096-key tiles, grid-stride; PARTS private histograms per pass in
 * shared memory (lane l adds to part l % PARTS; digit d's parts are
 * adjacent words, so lanes with equal digits hit different banks), summed
 * and added to the global ones at the end. Thread t: 16-byte vectors t,
 * t + 256, t + 512, t + 768 of the tile (coalesced), i.e. 16 keys. Keys
 * past the last whole tile (or all keys, for a misaligned buffer) are
 * counted one per thread. */
template <int BITS, int PARTS>
__global__ void __launch_bounds__(UPSWEEP_THREADS)
k_radix_upsweep(const uint32_t *__restrict__ keys, uint32_t count,
                int vector_ok, int descending, int low_bit, int pass_count,
                radix_control *control)
{
    const int radix = 1 << BITS;
    const int bins = radix * PARTS; /* shared words per pass */
    __shared__ uint32_t s_hist[(32 + BITS - 1) / BITS * (1 << BITS) * PARTS];
    for (int i = threadIdx.x; i < pass_count * bins; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();
    uint32_t *my_hist = s_hist + (threadIdx.x & 31) % PARTS;

    const uint32_t tiles = vector_ok ? count / UPSWEEP_TILE : 0;
    for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t ordered[UPSWEEP_VECTORS * 4];
        load_upsweep_tile(keys, tile, descending, ordered);
        for (int p = 0; p < pass_count; p++)
            count_runs<BITS, PARTS>(my_hist + p * bins, ordered,
                                    low_bit + p * BITS);
    }
    for (size_t i = (size_t)tiles * UPSWEEP_TILE +
                    (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t ordered = to_ordered(keys[i], descending);
        for (int p = 0; p < pass_count; p++)
            atomicAdd(&my_hist[p * bins +
                               digit_of<BITS>(ordered, low_bit + p * BITS) *
                                   PARTS],
                      1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < pass_count * radix; i += blockDim.x) {
        uint32_t sum = 0;
#pragma unroll
        for (int part = 0; part < PARTS; part++)
            sum += s_hist[i * PARTS + part];
        if (sum)
            atomicAdd(&control->digit_base[i / radix][i % radix], sum);
    }
}

/* As count_runs, for a digit of any width: the bits of `ordered` under
 * `mask` after shifting right by `shift`. */
template <int N>
__device__ __forceinline__ void count_runs_masked(uint32_t *s_hist,
                                                  const uint32_t (&ordered)[N],
                                                  int shift, uint32_t mask)
{
    uint32_t run_digit = (ordered[0] >> shift) & mask, run = 1;
#pragma unroll
    for (int e = 1; e < N; e++) {
        uint32_t d = (ordered[e] >> shift) & mask;
        if (d == run_digit) {
            run++;
        } else {
            atomicAdd(&s_hist[run_digit], run);
            run_digit = d;
            run = 1;
        }
    }
    atomicAdd(&s_hist[run_digit], run);
}

/* The passes' digit groups of the joint upsweep: with an odd pass count
 * pass 0 is counted alone, and the others in pairs (p, p + 1) by one joint
 * digit of both widths, so a key costs one shared atomic per pair instead
 * of one per pass. Group g starts at pass first[g] and its joint histogram
 * at word offset[g] of the block's shared memory; `bins` is the total. */
typedef struct joint_groups {
    int count;
    int first[MAX_PASSES];
    int passes[MAX_PASSES];
    int lo_bits[MAX_PASSES]; /* width of the group's lower pass */
    int bits[MAX_PASSES];    /* width of the joint digit */
    int offset[MAX_PASSES];
    int bins;
} joint_groups;

__host__ __device__ inline int pass_width(int digit_bits, int key_bits,
                                          int pass)
{
    int left = key_bits - pass * digit_bits;
    return left < digit_bits ? left : digit_bits;
}

__host__ __device__ inline joint_groups plan_joint_groups(int digit_bits,
                                                          int key_bits,
                                                          int pass_count)
{
    joint_groups g;
    g.count = 0;
    g.bins = 0;
    int p = 0;
    while (p < pass_count) {
        int n = (p == 0 && (pass_count & 1)) ? 1 : 2;
        int i = g.count++;
        g.first[i] = p;
        g.passes[i] = n;
        g.lo_bits[i] = pass_width(digit_bits, key_bits, p);
        g.bits[i] = g.lo_bits[i] +
                    (n == 2 ? pass_width(digit_bits, key_bits, p + 1) : 0);
        g.offset[i] = g.bins;
        g.bins += 1 << g.bits[i];
        p += n;
    }
    return g;
}

/* Joint upsweep: the digit histograms of every pass, counting a pair of
 * passes with one joint digit (plan_joint_groups); the per-pass
 * histograms are the joint histogram's row and column sums, taken once
 * per block at the end. Tiles and thread ownership as k_radix_upsweep.
 * Dynamic shared memory: groups.bins words. */
template <int BITS>
__global__ void __launch_bounds__(UPSWEEP_THREADS)
k_radix_upsweep_joint(const uint32_t *__restrict__ keys, uint32_t count,
                      int vector_ok, int descending, int low_bit,
                      int key_bits, int pass_count, radix_control *control)
{
    const int radix = 1 << BITS;
    extern __shared__ uint32_t s_joint[];
    __shared__ uint32_t s_hist[MAX_PASSES * (1 << BITS)];
    const joint_groups groups = plan_joint_groups(BITS, key_bits, pass_count);
    for (int i = threadIdx.x; i < groups.bins; i += blockDim.x)
        s_joint[i] = 0;
    for (int i = threadIdx.x; i < pass_count * radix; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();

    const uint32_t tiles = vector_ok ? count / UPSWEEP_TILE : 0;
    for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t ordered[UPSWEEP_VECTORS * 4];
        load_upsweep_tile(keys, tile, descending, ordered);
#pragma unroll
        for (int g = 0; g < MAX_PASSES; g++)
            if (g < groups.count)
                count_runs_masked(s_joint + groups.offset[g], ordered,
                              low_bit + groups.first[g] * BITS,
                              (1u << groups.bits[g]) - 1u);
    }
    for (size_t i = (size_t)tiles * UPSWEEP_TILE +
                    (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t ordered = to_ordered(keys[i], descending);
#pragma unroll
        for (int g = 0; g < MAX_PASSES; g++)
            if (g < groups.count)
                atomicAdd(&s_joint[groups.offset[g] +
                               ((ordered >> (low_bit + groups.first[g] * BITS)) &
                                ((1u << groups.bits[g]) - 1u))],
                      1u);
    }
    __syncthreads(); /* joint histograms complete */

    /* Row and column sums. Joint bin i of a pair holds lower digit
     * i & (2^lo_bits - 1) and upper digit i >> lo_bits; with lo_bits >= 5
     * (the host's condition) the 32 bins a warp reads share one upper
     * digit, so the warp adds them up before one atomic. */
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int g = 0; g < MAX_PASSES; g++) {
        if (g >= groups.count)
            break;
        const uint32_t *joint = s_joint + groups.offset[g];
        uint32_t *lower = s_hist + groups.first[g] * radix;
        const uint32_t lo_mask = (1u << groups.lo_bits[g]) - 1u;
        for (int base = 0; base < (1 << groups.bits[g]);
             base += blockDim.x) {
            int i = base + threadIdx.x;
            uint32_t c = i < (1 << groups.bits[g]) ? joint[i] : 0;
            if (groups.passes[g] == 1) {
                if (c)
                    lower[i] = c;
                continue;
            }
            if (c)
                atomicAdd(&lower[i & lo_mask], c);
            uint32_t column = warp_sum_u32(c);
            if (lane == 0 && column && i < (1 << groups.bits[g]))
                atomicAdd(&lower[radix + (i >> groups.lo_bits[g])], column);
        }
    }
    __syncthreads(); /* per-pass histograms complete */
    for (int i = threadIdx.x; i < pass_count * radix; i += blockDim.x)
        if (s_hist[i])
            atomicAdd(&control->digit_base[i / radix][i % radix], s_hist[i]);
}

/* Top-level scan and pass plan. One block; thread d owns digit d of every
 * pass: it turns the histogram into exclusive digit bases and flags a pass
 * whose digit is constant (early exit); thread 0 then plans the passes. */
template <int BITS>
__global__ void __launch_bounds__(SCAN_THREADS)
k_radix_scan(uint32_t count, int pass_count, radix_control *control)
{
    const int radix = 1 << BITS;
    __shared__ uint32_t s_warp_sums[SCAN_WARPS];
    __shared__ int s_constant[MAX_PASSES];
    const int d = threadIdx.x;
    for (int p = 0; p < pass_count; p++) {
        uint32_t n = d < radix ? control->digit_base[p][d] : 0;
        if (d == 0)
            s_constant[p] = 0;
        uint32_t total;
        uint32_t base = block_exclusive_sum<SCAN_WARPS>(n, s_warp_sums, &total);
        if (d < radix) {
            control->digit_base[p][d] = base;
            if (n == count)
                s_constant[p] = 1;
        }
        __syncthreads(); /* s_warp_sums is reused by the next pass */
    }
    if (d != 0)
        return;
    int exec[MAX_PASSES], runs = 0;
    for (int p = 0; p < pass_count; p++)
        runs += exec[p] = !s_constant[p];
    /* Each pass flips between the caller's and the scratch buffers; an odd
     * number of runs leaves the result in the scratch, and k_radix_copy
     * brings it back (a streaming copy is cheaper than re-running a skipped
     * pass, which would also be a stable copy). */
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
    control->final_copy = in_scratch;
}

/* Loads a warp's ITEMS x 32 values (lane l: values l, l + 32, ...) from
 * `src`; when the tile is not whole, only the first `valid` exist and the
 * rest read as 0. */
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

/* Shared memory of one downsweep block: the key and value exchanges and
 * the per-warp digit counters (dynamic, as a tile of 384 x 21 pairs
 * exceeds the 48 KiB static limit). */
template <int BITS, int THREADS, int ITEMS>
struct downsweep_smem {
    static const int tile = THREADS * ITEMS;
    static const int warps = THREADS / 32;
    static const size_t bytes =
        (2 * (size_t)tile + (size_t)warps * (1 << BITS)) * sizeof(uint32_t);
};

/* Downsweep: one stable digit pass. A block takes THREADS x ITEMS tiles in
 * order from control->next_tile[pass]; warp w of the block owns keys
 * [w * 32 * ITEMS, (w + 1) * 32 * ITEMS) of the tile, lane l the keys l,
 * l + 32, ... of it (so loads coalesce and warp-local ranks follow input
 * order). The block counts its tile's digits and publishes the counts
 * (EARLY: a shared-atomic histogram before ranking, as CUB's onesweep does,
 * so that later tiles' look-backs find them sooner; else the ranking's own
 * counts), ranks the tile (per-warp digit counters, ballot matching within
 * a warp), exchanges keys and values through shared memory into digit
 * order, learns the keys of each digit before the tile by decoupled
 * look-back (overlapping the exchange), and then thread t writes tile slots
 * t, t + THREADS, ...: consecutive threads write consecutive positions
 * within each digit's run. PREFETCH fetches the next tile's number while
 * working on the current one; MATCH and VALUES as in the shape table. */
template <int BITS, int THREADS, int ITEMS, int MIN_BLOCKS, bool EARLY,
          bool PREFETCH, int WINDOW, bool MATCH, int VALUES, int PARTS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
k_radix_downsweep(uint32_t *keys, uint32_t *values, uint32_t *scratch_keys,
                  uint32_t *scratch_values, uint32_t count, int pass,
                  int shift, int descending, uint32_t epoch,
                  unsigned long long *tile_status, radix_control *control)
{
    typedef downsweep_smem<BITS, THREADS, ITEMS> smem;
    const int radix = 1 << BITS;
    const int tile_size = smem::tile;
    const int warps = smem::warps;
    extern __shared__ uint32_t s_dynamic[];
    uint32_t *s_key_exchange = s_dynamic;
    uint32_t *s_value_exchange = s_dynamic + tile_size;
    uint32_t *s_warp_counts = s_dynamic + 2 * tile_size; /* [warps][radix] */
    __shared__ uint32_t s_tile_hist[1 << BITS];
    __shared__ uint32_t s_tile_start[1 << BITS];
    __shared__ uint32_t s_dst_base[1 << BITS];
    __shared__ uint32_t s_warp_sums[THREADS / 32];
    __shared__ uint32_t s_tile;

    if (!control->exec[pass])
        return; /* early exit: every key has the same digit here */
    const int from_scratch = control->src_scratch[pass];
    const int in_float = control->in_float[pass];
    const int out_float = control->out_float[pass];
    const uint32_t *src_keys = from_scratch ? scratch_keys : keys;
    const uint32_t *src_values = from_scratch ? scratch_values : values;
    uint32_t *dst_keys = from_scratch ? keys : scratch_keys;
    uint32_t *dst_values = from_scratch ? values : scratch_values;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t lanes_below = (1u << lane) - 1u;
    const uint32_t tiles = (count + tile_size - 1) / tile_size;
    /* Padding slots of a partial tile hold the maximal key; its digit here
     * is the largest this pass can see (fewer than BITS bits may remain). */
    const uint32_t pad_digit = digit_of<BITS>(0xFFFFFFFFu, shift);
    uint32_t *my_counts = s_warp_counts + warp * radix;

    if (threadIdx.x == 0)
        s_tile = atomicAdd(&control->next_tile[pass], 1u);
    for (;;) {
        /* Each warp clears its own counter row; the barrier below (and the
         * one ending the previous tile) orders it against other warps. */
        for (int d = lane; d < radix; d += 32)
            my_counts[d] = 0;
        if (EARLY)
            for (int d = threadIdx.x; d < radix; d += THREADS)
                s_tile_hist[d] = 0;
        __syncthreads(); /* s_tile and the cleared counters are ready */
        const uint32_t tile = s_tile;
        if (tile >= tiles)
            break;
        /* PREFETCH: a block only ever holds tiles it will process, so
         * look-backs on them always end. */
        uint32_t next_tile = 0;
        if (PREFETCH && threadIdx.x == 0)
            next_tile = atomicAdd(&control->next_tile[pass], 1u);
        const uint32_t tile_base = tile * tile_size;
        const uint32_t valid = min((uint32_t)tile_size, count - tile_base);

        /* Load: invalid slots of the last tile become maximal keys, which
         * rank after every valid key of the tile. Values come with the keys
         * or later (load_values), by VALUES. */
        uint32_t key[ITEMS], value[ITEMS], rank[ITEMS];
        const uint32_t warp_base = warp * (ITEMS * 32);
        const bool whole = valid == (uint32_t)tile_size;
        if (whole) {
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
        if (VALUES == VALUES_WITH_KEYS)
            load_values<ITEMS>(value, src_values + tile_base + warp_base,
                               lane, whole, valid - min(valid, warp_base));
        if (in_float) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                if (warp_base + i * 32 + lane < valid)
                    key[i] = to_ordered(key[i], descending);
        }

        /* Thread d publishes digit d's count of the tile (padding slots
         * excluded): the aggregate, or the inclusive count for tile 0. */
        if (EARLY) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                if (warp_base + i * 32 + lane < valid)
                    atomicAdd(&s_tile_hist[digit_of<BITS>(key[i], shift)], 1u);
            __syncthreads(); /* tile histogram complete */
            if (threadIdx.x < radix) {
                volatile unsigned long long *slot =
                    tile_status + (size_t)tile * radix + threadIdx.x;
                *slot = status_word(
                    epoch, tile == 0 ? STATUS_INCLUSIVE : STATUS_AGGREGATE,
                    s_tile_hist[threadIdx.x]);
            }
        }

        /* Warp-local stable ranks: lanes with equal digits are counted
         * together, lower lanes first. */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t d = digit_of<BITS>(key[i], shift);
            uint32_t peers = match_digit<BITS, MATCH>(d);
            int leader = __ffs(peers) - 1;
            uint32_t before = 0;
            if (lane == leader)
                before = atomicAdd(&my_counts[d], (uint32_t)__popc(peers));
            before = __shfl_sync(0xFFFFFFFFu, before, leader);
            rank[i] = before + __popc(peers & lanes_below);
        }
        if (VALUES == VALUES_AFTER_RANK)
            load_values<ITEMS>(value, src_values + tile_base + warp_base,
                               lane, whole, valid - min(valid, warp_base));
        __syncthreads(); /* all warps' counters complete */

        /* Thread d: digit d's counts per warp become warp offsets; `own`
         * is the tile's count of digit d without the padding slots. */
        uint32_t tile_count = 0, own = 0;
        if (threadIdx.x < radix) {
            for (int w = 0; w < warps; w++) {
                uint32_t c = s_warp_counts[w * radix + threadIdx.x];
                s_warp_counts[w * radix + threadIdx.x] = tile_count;
                tile_count += c;
            }
            own = tile_count;
            if (threadIdx.x == pad_digit)
                own -= tile_size - valid;
            if (!EARLY) {
                volatile unsigned long long *slot =
                    tile_status + (size_t)tile * radix + threadIdx.x;
                *slot = status_word(
                    epoch, tile == 0 ? STATUS_INCLUSIVE : STATUS_AGGREGATE,
                    own);
            }
        }
        uint32_t tile_total;
        uint32_t tile_start =
            block_exclusive_sum<warps>(tile_count, s_warp_sums, &tile_total);
        if (threadIdx.x < radix)
            s_tile_start[threadIdx.x] = tile_start;
        __syncthreads(); /* tile starts and warp offsets ready */

#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t d = digit_of<BITS>(key[i], shift);
            rank[i] += s_tile_start[d] + my_counts[d];
            s_key_exchange[rank[i]] = key[i];
        }
        if (VALUES == VALUES_AFTER_EXCHANGE)
            load_values<ITEMS>(value, src_values + tile_base + warp_base,
                               lane, whole, valid - min(valid, warp_base));
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            s_value_exchange[rank[i]] = value[i];

        if (threadIdx.x < radix) {
            const uint32_t d = threadIdx.x;
            /* Decoupled look-back: sum predecessors' counts of digit d until
             * one that already includes all tiles before it. */
            uint32_t before = 0;
            lookback<WINDOW>(tile_status, radix, d, (int)tile - 1, epoch,
                             &before);
            if (tile != 0) {
                volatile unsigned long long *slot =
                    tile_status + (size_t)tile * radix + d;
                *slot = status_word(epoch, STATUS_INCLUSIVE, before + own);
            }
            /* Global position of tile slot j with digit d is
             * s_dst_base[d] + j (mod 2^32 arithmetic). */
            s_dst_base[d] = control->digit_base[pass][d] + before - tile_start;
        }
        __syncthreads(); /* exchanges and global bases ready */

#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t slot = i * THREADS + threadIdx.x;
            if (slot < valid) {
                uint32_t k = s_key_exchange[slot];
                uint32_t position = s_dst_base[digit_of<BITS>(k, shift)] + slot;
                dst_keys[position] = out_float ? from_ordered(k, descending) : k;
                dst_values[position] = s_value_exchange[slot];
            }
        }
        if (threadIdx.x == 0)
            s_tile = PREFETCH ? next_tile
                              : atomicAdd(&control->next_tile[pass], 1u);
        __syncthreads(); /* exchanges, counters and s_tile free to reuse */
    }
}

/* Final copy for an odd number of passes: the last pass left float keys and
 * values in the scratch pair. Thread: 4 pairs (16-byte loads) per
 * grid-stride step when both caller buffers are 16-byte aligned, else one. */
__global__ void k_radix_copy(uint32_t *keys, uint32_t *values,
                             const uint32_t *scratch_keys,
                             const uint32_t *scratch_values, uint32_t count,
                             int vector_ok, const radix_control *control)
{
    if (!control->final_copy)
        return;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t vectors = vector_ok ? count / 4 : 0;
    for (size_t i = first; i < vectors; i += stride) {
        reinterpret_cast<uint4 *>(keys)[i] =
            reinterpret_cast<const uint4 *>(scratch_keys)[i];
        reinterpret_cast<uint4 *>(values)[i] =
            reinterpret_cast<const uint4 *>(scratch_values)[i];
    }
    for (size_t i = vectors * 4 + first; i < count; i += stride) {
        keys[i] = scratch_keys[i];
        values[i] = scratch_values[i];
    }
}

/* ---- host launchers ---------------------------------------------------- */

/* The template arguments of one instantiation, as the launchers name them. */
#define VARIANT                                                             \
    BITS, THREADS, ITEMS, MIN_BLOCKS, EARLY, PREFETCH, WINDOW, MATCH, VALUES, \
        PARTS

template <int BITS, int THREADS, int ITEMS, int MIN_BLOCKS, bool EARLY,
          bool PREFETCH, int WINDOW, bool MATCH, int VALUES, int PARTS>
static ds_status launch_passes(radix_state *s, uint32_t *keys,
                               uint32_t *values, uint32_t count,
                               int descending, cudaStream_t stream)
{
    typedef downsweep_smem<BITS, THREADS, ITEMS> smem;
    const int low_bit = 32 - s->key_bits;
    const int vector_ok = ((uintptr_t)keys & 15) == 0;
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[0], stream));
    /* Histograms and tile dispensers start from zero each sort; the plan
     * after them is rewritten by k_radix_scan. */
    DS_CUDA_TRY("sort radix",
                cudaMemsetAsync(s->control, 0, offsetof(radix_control, exec),
                                stream));
    if (s->joint_upsweep) {
        k_radix_upsweep_joint<BITS>
            <<<s->upsweep_grid, UPSWEEP_THREADS, s->joint_bytes, stream>>>(
                keys, count, vector_ok, descending, low_bit, s->key_bits,
                s->pass_count, s->control);
        DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_upsweep_joint");
    } else {
        k_radix_upsweep<BITS, PARTS><<<s->upsweep_grid, UPSWEEP_THREADS, 0,
                                       stream>>>(
            keys, count, vector_ok, descending, low_bit, s->pass_count,
            s->control);
        DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_upsweep");
    }
    k_radix_scan<BITS><<<1, SCAN_THREADS, 0, stream>>>(count, s->pass_count,
                                                       s->control);
    DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_scan");
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[1], stream));

    if (s->epoch + (uint32_t)s->pass_count >= EPOCH_LIMIT) {
        /* Epochs wrapped (after ~10^9 passes): old words could look current. */
        DS_CUDA_TRY("sort radix",
                    cudaMemsetAsync(s->tile_status, 0, s->status_bytes,
                                    stream));
        s->epoch = 0;
    }
    for (int p = 0; p < s->pass_count; p++) {
        /* Stream order separates the passes: pass p + 1 reads what pass p
         * wrote, and its look-back words carry a new epoch. */
        s->epoch++;
        k_radix_downsweep<VARIANT>
            <<<s->downsweep_grid, THREADS, smem::bytes, stream>>>(
                keys, values, s->scratch_keys, s->scratch_values, count, p,
                low_bit + p * BITS, descending, s->epoch, s->tile_status,
                s->control);
        DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_downsweep");
    }
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[2], stream));
    k_radix_copy<<<s->copy_grid, 256, 0, stream>>>(
        keys, values, s->scratch_keys, s->scratch_values, count,
        vector_ok && ((uintptr_t)values & 15) == 0, s->control);
    DS_CUDA_TRY_LAUNCH("sort radix", "k_radix_copy");
    if (s->time_phases)
        DS_CUDA_TRY("sort radix", cudaEventRecord(s->events[3], stream));
    return DS_OK;
}

/* Opts the downsweep into its dynamic shared memory and sizes the grids to
 * the machine: every resident block of each kernel, no more. */
template <int BITS, int THREADS, int ITEMS, int MIN_BLOCKS, bool EARLY,
          bool PREFETCH, int WINDOW, bool MATCH, int VALUES, int PARTS>
static ds_status prepare_kernels(radix_state *s, int sm_count)
{
    typedef downsweep_smem<BITS, THREADS, ITEMS> smem;
    int per_sm = 0;
    DS_CUDA_TRY("sort radix",
                cudaFuncSetAttribute(
                    k_radix_downsweep<VARIANT>,
                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                    (int)smem::bytes));
    /* Most shared memory, least L1: the persistent grid assumes every
     * block the occupancy query counts is resident. */
    DS_CUDA_TRY("sort radix",
                cudaFuncSetAttribute(
                    k_radix_downsweep<VARIANT>,
                    cudaFuncAttributePreferredSharedMemoryCarveout,
                    cudaSharedmemCarveoutMaxShared));
    DS_CUDA_TRY("sort radix",
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, k_radix_downsweep<VARIANT>,
                    THREADS, smem::bytes));
    if (per_sm < 1)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "sort radix: a %d x %d tile does not fit on this GPU",
                       THREADS, ITEMS);
    s->downsweep_grid = sm_count * per_sm;
    s->upsweep_grid = sm_count * UPSWEEP_BLOCKS_PER_SM;
    if (s->joint_upsweep) {
        /* Joint histograms of up to JOINT_MAX_BYTES: as many blocks per SM
         * as fit, at most UPSWEEP_BLOCKS_PER_SM. */
        int joint_per_sm = 0;
        DS_CUDA_TRY("sort radix",
                    cudaFuncSetAttribute(
                        k_radix_upsweep_joint<BITS>,
                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                        (int)s->joint_bytes));
        DS_CUDA_TRY("sort radix",
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                        &joint_per_sm, k_radix_upsweep_joint<BITS>,
                        UPSWEEP_THREADS, s->joint_bytes));
        if (joint_per_sm < 1)
            return ds_fail(DS_ERR_UNSUPPORTED,
                           "sort radix: joint upsweep of %zu bytes does not "
                           "fit on this GPU", s->joint_bytes);
        if (joint_per_sm > UPSWEEP_BLOCKS_PER_SM)
            joint_per_sm = UPSWEEP_BLOCKS_PER_SM;
        s->upsweep_grid = sm_count * joint_per_sm;
    }
    s->copy_grid = sm_count * 4;
    s->tile_size = smem::tile;
    s->launch = launch_passes<VARIANT>;
    return DS_OK;
}

/* The instantiations: digit widths 4 to 6 with shape 0 and the default
 * shape, 7- and 8-bit digits with every shape (for the measurement). */
#define PREPARE_SHAPES(bits)                                              \
    switch (shape) {                                                      \
    case 1: return prepare_kernels<bits, SHAPE1>(s, sm_count);            \
    case 2: return prepare_kernels<bits, SHAPE2>(s, sm_count);            \
    case 3: return prepare_kernels<bits, SHAPE3>(s, sm_count);            \
    case 4: return prepare_kernels<bits, SHAPE4>(s, sm_count);            \
    case 5: return prepare_kernels<bits, SHAPE5>(s, sm_count);            \
    case 6: return prepare_kernels<bits, SHAPE6>(s, sm_count);            \
    case 7: return prepare_kernels<bits, SHAPE7>(s, sm_count);            \
    case 8: return prepare_kernels<bits, SHAPE8>(s, sm_count);            \
    case 9: return prepare_kernels<bits, SHAPE9>(s, sm_count);            \
    case 10: return prepare_kernels<bits, SHAPE10>(s, sm_count);          \
    case 11: return prepare_kernels<bits, SHAPE11>(s, sm_count);          \
    case 12: return prepare_kernels<bits, SHAPE12>(s, sm_count);          \
    case 13: return prepare_kernels<bits, SHAPE13>(s, sm_count);          \
    case 14: return prepare_kernels<bits, SHAPE14>(s, sm_count);          \
    default: return prepare_kernels<bits, SHAPE0>(s, sm_count);           \
    }
#define PREPARE_TWO_SHAPES(bits)                                          \
    return shape ? prepare_kernels<bits, SHAPE_OF(DEFAULT_SHAPE)>(s, sm_count) \
                 : prepare_kernels<bits, SHAPE0>(s, sm_count)

static ds_status prepare_variant(radix_state *s, int digit_bits, int shape,
                                 int sm_count)
{
    if (digit_bits < 7 && shape != 0 && shape != kDefaultShape)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort radix: shape %d is only built for 7- and 8-bit "
                       "digits", shape);
    switch (digit_bits) {
    case 4: PREPARE_TWO_SHAPES(4);
    case 5: PREPARE_TWO_SHAPES(5);
    case 6: PREPARE_TWO_SHAPES(6);
    case 7: PREPARE_SHAPES(7);
    default: PREPARE_SHAPES(8);
    }
}

static void radix_destroy(void *state);

/* create() with an explicit digit width and tile shape; the backend uses
 * the measured widths above and shape 0, the measurement calls this
 * directly. */
static ds_status radix_create_variant(const ds_sorter_desc *desc,
                                      int digit_bits, int shape, int joint,
                                      void **state)
{
    ds_status status = DS_OK;
    *state = NULL;
    if (digit_bits < MIN_DIGIT_BITS || digit_bits > MAX_DIGIT_BITS ||
        shape < 0 || shape >= RADIX_SHAPE_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort radix: digit width %d outside [%d, %d] or "
                       "shape %d outside [0, %d)",
                       digit_bits, MIN_DIGIT_BITS, MAX_DIGIT_BITS, shape,
                       RADIX_SHAPE_COUNT);
    if (desc->max_count >= ((size_t)1 << 32))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort radix: max_count %zu needs 64-bit positions",
                       desc->max_count);
    radix_state *s = (radix_state *)calloc(1, sizeof *s);
    if (!s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort radix: out of host memory");
    s->key_bits = desc->key_bits ? desc->key_bits : 32;
    s->digit_bits = digit_bits;
    s->pass_count = (s->key_bits + digit_bits - 1) / digit_bits;
    s->max_count = desc->max_count;
    s->time_phases = desc->time_phases;
    if (joint && digit_bits >= JOINT_MIN_BITS) {
        joint_groups groups =
            plan_joint_groups(digit_bits, s->key_bits, s->pass_count);
        s->joint_bytes = (size_t)groups.bins * sizeof(uint32_t);
        s->joint_upsweep = s->joint_bytes <= JOINT_MAX_BYTES;
    }

    int device = 0, sm_count = 0;
    DS_CUDA_GOTO(status, fail, "sort radix", cudaGetDevice(&device));
    DS_CUDA_GOTO(status, fail, "sort radix",
                 cudaDeviceGetAttribute(&sm_count,
                                        cudaDevAttrMultiProcessorCount,
                                        device));
    if ((status = prepare_variant(s, digit_bits, shape, sm_count)))
        goto fail;

    {
        size_t n = desc->max_count > 0 ? desc->max_count : 1;
        size_t tiles = (n + s->tile_size - 1) / s->tile_size;
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->scratch_keys, n * sizeof(uint32_t)));
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->scratch_values,
                                n * sizeof(uint32_t)));
        s->status_bytes = tiles * ((size_t)1 << digit_bits) *
                          sizeof(unsigned long long);
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->tile_status, s->status_bytes));
        /* Epoch 0 is never used, so zeroed words read as unpublished. */
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMemset(s->tile_status, 0, s->status_bytes));
        DS_CUDA_GOTO(status, fail, "sort radix",
                     cudaMalloc((void **)&s->control, sizeof(radix_control)));
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

/* ---- backend entry ----------------------------------------------------- */

/* DS_RADIX_SHAPE=<n> in the environment replaces kDefaultShape, so that
 * one build can run the suites and benchmarks with any shape. */
static ds_status radix_create(const ds_sorter_desc *desc, void **state)
{
    int key_bits = desc->key_bits ? desc->key_bits : 32;
    int shape = kDefaultShape;
    const char *forced = getenv("DS_RADIX_SHAPE");
    if (forced && *forced)
        shape = atoi(forced);
    return radix_create_variant(desc,
                                key_bits == 32 ? kDigitBitsFullKeys
                                               : kDigitBitsShortKeys,
                                shape, kJointUpsweep, state);
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

static ds_status radix_sort(void *state, float *keys, uint32_t *values,
                            size_t count, ds_sort_order order,
                            ds_stream stream)
{
    radix_state *s = (radix_state *)state;
    uint32_t *k = (uint32_t *)keys; /* float bits; ordered between passes */
    const int descending = order == DS_SORT_DESCENDING;
    return s->launch(s, k, values, (uint32_t)count, descending,
                     (cudaStream_t)stream);
}

static int radix_phases(void *state, const char **names, float *ms,
                        int capacity)
{
    radix_state *s = (radix_state *)state;
    int written = 0;
    if (!s->time_phases)
        return 0;
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

extern "C" const ds_sort_backend ds_sort_backend_radix = {
    "radix", 0, radix_create, radix_destroy, radix_sort, radix_phases};
