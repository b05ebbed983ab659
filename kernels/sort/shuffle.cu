/* SPDX-License-Identifier: MIT */
/* shuffle.cu — the optional O(n) pass that randomly permutes (key, value)
 * pairs in device memory before a sort (ds_shuffle_pairs in sort.h), as
 * "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (Sintorn &
 * Assarsson) does for nearly sorted vertex lists, so that a sort's atomics
 * on bucket counters do not serialise.
 *
 * Two methods (ds_shuffle_method in sort.h):
 *   - Feistel (the default, far faster): a seeded bijection on the index
 *     domain, a 4-round balanced Feistel network on the next even power of
 *     two, made a bijection on [0, n) by cycle walking (the domain is under
 *     4n, so fewer than 4 steps on average). One gather pass into the
 *     scratch pairs and one copy back. Not a uniformly random permutation,
 *     but far from any input order, which is all a sort needs.
 *   - Atomic exchange (the paper's method): every pair, packed in 64 bits,
 *     is thrown at a random slot of an empty table with atomicExch; a
 *     displaced pair is thrown again. The table is as large as the input,
 *     so the last throws find few holes (about n ln n throws in all, the
 *     coupon collector); after kAtomicRandomThrows a thread probes
 *     linearly, which always ends because a hole exists while it holds a
 *     pair.
 * Only the Feistel result is a function of the seed; the atomic result
 * depends on scheduling. NaN keys come out as the canonical NaN (the
 * atomic method needs one bit pattern free for its empty slot).
 * Memory: the caller's scratch arrays of count + 1 elements. Not handled:
 * count > 2^32 - 2. Design and reasons: docs/algorithms/shuffle.md.
 */
#include "cuda_check.h"
#include "sort_backend.h"

/* ---- tuning ------------------------------------------------------------ */

static const int kShuffleThreads = 256;   /* streaming passes */
static const int kShuffleMaxBlocks = 8192; /* grid-stride beyond this */
static const int kFeistelRounds = 4;      /* enough to scatter neighbours */
static const int kAtomicRandomThrows = 64; /* then probe linearly */

/* An empty slot of the atomic table: the low word is a NaN pattern that
 * packing never produces (NaNs are canonicalised to 0x7FC00000). */
static const unsigned long long kEmptySlot = ~0ull;

/* ---- device helpers ---------------------------------------------------- */

__host__ __device__ static inline uint32_t mix32(uint32_t x)
{
    /* murmur3's finaliser: every input bit affects every output bit. */
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct feistel_params {
    uint32_t half_bits;
    uint32_t half_mask;
    uint32_t round_keys[kFeistelRounds];
};

__device__ static inline uint32_t feistel_once(uint32_t x,
                                               const feistel_params &p)
{
    uint32_t left = x >> p.half_bits;
    uint32_t right = x & p.half_mask;
#pragma unroll
    for (int r = 0; r < kFeistelRounds; r++) {
        uint32_t next = left ^ (mix32(right ^ p.round_keys[r]) & p.half_mask);
        left = right;
        right = next;
    }
    return (left << p.half_bits) | right;
}

/* A bijection on [0, count): walk the cycle of the domain permutation until
 * it re-enters the range. */
__device__ static inline uint32_t feistel_index(uint32_t i, uint32_t count,
                                                const feistel_params &p)
{
    uint32_t x = feistel_once(i, p);
    while (x >= count)
        x = feistel_once(x, p);
    return x;
}

__device__ static inline unsigned long long pack_pair(float key,
                                                      uint32_t value)
{
    uint32_t bits = __float_as_uint(key);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        bits = 0x7FC00000u;
    return ((unsigned long long)value << 32) | bits;
}

/* The atomic table spans both scratch arrays: count / 2 64-bit slots in
 * scratch_keys, the rest in scratch_values (which holds count + 1 words,
 * enough for the odd extra slot). */
struct slot_table {
    unsigned long long *low;
    unsigned long long *high;
    uint32_t low_count;
};

__device__ static inline unsigned long long *slot_at(const slot_table &t,
                                                     uint32_t j)
{
    return j < t.low_count ? t.low + j : t.high + (j - t.low_count);
}

/* ---- kernels ----------------------------------------------------------- */

/* One thread per output position i (grid-stride): pulls the pair at the
 * permuted index. Reads are scattered, writes coalesced. */
__global__ void k_shuffle_feistel_gather(const float *keys,
                                         const uint32_t *values,
                                         float *keys_dest,
                                         uint32_t *values_dest,
                                         uint32_t count, feistel_params p)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        uint32_t from = feistel_index(i, count, p);
        keys_dest[i] = keys[from];
        values_dest[i] = values[from];
    }
}

/* One thread per input pair (grid-stride): throws it into the table and
 * keeps throwing whatever it displaces until it lands in an empty slot. */
__global__ void k_shuffle_atomic_throw(const float *keys,
                                       const uint32_t *values,
                                       slot_table table, uint32_t count,
                                       uint32_t seed_low, uint32_t seed_high)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        unsigned long long held = pack_pair(keys[i], values[i]);
        uint32_t rng = mix32(i ^ seed_low) ^ seed_high;
        uint32_t j = 0;
        for (int throw_ = 0; throw_ < kAtomicRandomThrows; throw_++) {
            rng = mix32(rng + 0x9E3779B9u);
            j = (uint32_t)(((uint64_t)rng * count) >> 32);
            held = atomicExch(slot_at(table, j), held);
            if (held == kEmptySlot)
                break;
        }
        while (held != kEmptySlot) {
            j = j + 1 == count ? 0 : j + 1;
            held = atomicExch(slot_at(table, j), held);
        }
    }
}

/* One thread per position (grid-stride): unpacks the table into the
 * caller's arrays. */
__global__ void k_shuffle_atomic_unpack(slot_table table, float *keys,
                                        uint32_t *values, uint32_t count)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        unsigned long long pair = *slot_at(table, i);
        keys[i] = __uint_as_float((uint32_t)pair);
        values[i] = (uint32_t)(pair >> 32);
    }
}

/* ---- host launchers ---------------------------------------------------- */

static unsigned grid_for(size_t count)
{
    size_t blocks = (count + kShuffleThreads - 1) / kShuffleThreads;
    return (unsigned)(blocks < (size_t)kShuffleMaxBlocks ? blocks
                                                          : kShuffleMaxBlocks);
}

static ds_status shuffle_feistel(float *keys, uint32_t *values,
                                 float *scratch_keys, uint32_t *scratch_values,
                                 uint32_t count, uint64_t seed,
                                 cudaStream_t stream)
{
    feistel_params p;
    uint32_t bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) < count)
        bits++;
    p.half_bits = (bits + 1) / 2;
    p.half_mask = (1u << p.half_bits) - 1;
    uint64_t state = seed;
    for (int r = 0; r < kFeistelRounds; r++)
        p.round_keys[r] = (uint32_t)splitmix64(&state);

    k_shuffle_feistel_gather<<<grid_for(count), kShuffleThreads, 0, stream>>>(
        keys, values, scratch_keys, scratch_values, count, p);
    DS_CUDA_TRY_LAUNCH("shuffle", "k_shuffle_feistel_gather");
    /* The sort runs in place on the caller's arrays: copy the permuted
     * pairs back (stream order makes the gather finish first). */
    DS_CUDA_TRY("shuffle", cudaMemcpyAsync(keys, scratch_keys,
                                           count * sizeof(float),
                                           cudaMemcpyDeviceToDevice, stream));
    DS_CUDA_TRY("shuffle", cudaMemcpyAsync(values, scratch_values,
                                           count * sizeof(uint32_t),
                                           cudaMemcpyDeviceToDevice, stream));
    return DS_OK;
}

static ds_status shuffle_atomic(float *keys, uint32_t *values,
                                float *scratch_keys, uint32_t *scratch_values,
                                uint32_t count, uint64_t seed,
                                cudaStream_t stream)
{
    slot_table table;
    table.low = reinterpret_cast<unsigned long long *>(scratch_keys);
    table.high = reinterpret_cast<unsigned long long *>(scratch_values);
    table.low_count = count / 2;
    const uint32_t high_count = count - table.low_count;
    DS_CUDA_TRY("shuffle", cudaMemsetAsync(table.low, 0xFF,
                                           table.low_count * sizeof(*table.low),
                                           stream));
    DS_CUDA_TRY("shuffle", cudaMemsetAsync(table.high, 0xFF,
                                           high_count * sizeof(*table.high),
                                           stream));
    uint64_t state = seed;
    uint64_t r = splitmix64(&state);
    /* Every pair is thrown before any is unpacked: stream order. */
    k_shuffle_atomic_throw<<<grid_for(count), kShuffleThreads, 0, stream>>>(
        keys, values, table, count, (uint32_t)r, (uint32_t)(r >> 32));
    DS_CUDA_TRY_LAUNCH("shuffle", "k_shuffle_atomic_throw");
    k_shuffle_atomic_unpack<<<grid_for(count), kShuffleThreads, 0, stream>>>(
        table, keys, values, count);
    DS_CUDA_TRY_LAUNCH("shuffle", "k_shuffle_atomic_unpack");
    return DS_OK;
}

/* ---- entry points ------------------------------------------------------ */

extern "C" const char *ds_shuffle_method_name(ds_shuffle_method method)
{
    switch (method) {
    case DS_SHUFFLE_FEISTEL: return "feistel";
    case DS_SHUFFLE_ATOMIC_EXCHANGE: return "atomic";
    default: return "unknown";
    }
}

extern "C" ds_status ds_shuffle_pairs_with(ds_shuffle_method method,
                                           float *keys, uint32_t *values,
                                           float *scratch_keys,
                                           uint32_t *scratch_values,
                                           size_t count, uint64_t seed,
                                           ds_stream stream)
{
    if (count < 2)
        return DS_OK;
    if (count > UINT32_MAX - 1)
        return ds_fail(DS_ERR_TOO_LARGE, "shuffle: %zu pairs exceed 2^32 - 2",
                       count);
    if (!keys || !values || !scratch_keys || !scratch_values)
        return ds_fail(DS_ERR_INVALID_ARG, "shuffle: NULL array");
    cudaStream_t s = (cudaStream_t)stream;
    switch (method) {
    case DS_SHUFFLE_FEISTEL:
        return shuffle_feistel(keys, values, scratch_keys, scratch_values,
                               (uint32_t)count, seed, s);
    case DS_SHUFFLE_ATOMIC_EXCHANGE:
        return shuffle_atomic(keys, values, scratch_keys, scratch_values,
                              (uint32_t)count, seed, s);
    default:
        return ds_fail(DS_ERR_INVALID_ARG, "shuffle: unknown method %d",
                       (int)method);
    }
}

extern "C" ds_status ds_shuffle_pairs(float *keys, uint32_t *values,
                                      float *scratch_keys,
                                      uint32_t *scratch_values, size_t count,
                                      uint64_t seed, ds_stream stream)
{
    return ds_shuffle_pairs_with(DS_SHUFFLE_DEFAULT, keys, values,
                                 scratch_keys, scratch_values, count, seed,
                                 stream);
}
