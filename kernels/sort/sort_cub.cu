/* SPDX-License-Identifier: MIT */
/* sort_cub.cu — the baseline: cub::DeviceRadixSort::SortPairs from the
 * toolkit's CCCL (the LSD radix sort of "Onesweep: A Faster Least
 * Significant Digit Radix Sort for GPUs", Adinets & Merrill), wrapped so
 * that it keeps the sort.h semantics.
 *
 * CUB's own float ordering puts negative NaNs first and tells -0 from +0,
 * so keys are first mapped in place to the ordered uint32 of
 * kernels/common/sort_keys.cuh (direction folded in, so CUB always sorts
 * ascending), sorted as uint32 on bits [32 - key_bits, 32), and mapped back.
 * The caller's arrays are one half of CUB's DoubleBuffers and ours the
 * other, so nothing is copied unless CUB ends in our half (odd pass count),
 * in which case the inverse transform writes back into the caller's arrays.
 *
 * With desc.keys_nonnegative the caller promises sign-clear, non-NaN keys,
 * whose float bits already order as uint32: both transforms are skipped,
 * CUB sorts the bits as they stand (SortPairsDescending for descending),
 * and an odd pass count ends in a plain copy back. Keys promised below
 * 2^low_bits (ds_sorter_set_low_key_bits) are sorted on those bits only.
 * ds_sorter_sort_pingpong lends CUB the caller's second pair instead of
 * ours, and an odd pass count of untransformed keys ends there, uncopied.
 *
 * Complexity: O(n * passes), CUB's own digit width and passes. Memory: an
 * alternate key/value pair (8 bytes per pair) and CUB's temporary storage,
 * both sized once at create for max_count (the larger of the two
 * directions' needs). Counts above INT_MAX use CUB's 64-bit offsets.
 *
 * Design: docs/algorithms/cub.md.
 */
#include <cub/device/device_radix_sort.cuh>

#include <climits>
#include <new>

#include "cuda_check.h"
#include "sort_backend.h"
#include "sort_keys.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* Our only tunables are the launch shape of the key transforms, which are
 * streaming passes; CUB's sort takes its tuning from CCCL's policies for
 * the device. The sorter's state keeps a copy. */
typedef struct cub_tuning {
    int transform_threads;    /* 256: enough for a streaming pass */
    int transform_max_blocks; /* 4096: a few waves; threads stride on */
} cub_tuning;

static const cub_tuning kCubTuning = {
    256,  /* transform_threads */
    4096, /* transform_max_blocks */
};

enum { PHASE_TO_ORDERED, PHASE_SORT, PHASE_FROM_ORDERED, PHASE_COUNT };
static const char *const phase_names[PHASE_COUNT] = {"to_ordered", "cub_sort",
                                                     "from_ordered"};

struct cub_state {
    cub_tuning tuning;
    size_t max_count;
    int begin_bit;          /* 32 - key_bits */
    int keys_nonnegative;   /* sort the float bits untransformed */
    int low_bits;           /* set_low_bits(): the keys' bits below 2^low_bits */
    uint32_t *alt_keys;     /* the other half of CUB's DoubleBuffers */
    uint32_t *alt_values;
    void *temp;             /* CUB's temporary storage */
    size_t temp_bytes;
    int time_phases;
    int timed_last;
    cudaEvent_t events[PHASE_COUNT + 1];
};

/* ---- kernels ----------------------------------------------------------- */

/* One thread per element (grid-stride): keys[i] becomes its ordered uint32
 * in place; the float and uint32 views alias the same 4 bytes. */
__global__ void k_cub_to_ordered(uint32_t *keys, size_t count, int descending)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        float key = __uint_as_float(keys[i]);
        keys[i] = ds_key_to_ordered(key, descending);
    }
}

/* One thread per element (grid-stride): maps sorted ordered keys back to
 * floats into `keys_dest` (may equal `ordered`), copying the values along
 * when they are not already in `values_dest`. */
__global__ void k_cub_from_ordered(const uint32_t *ordered,
                                   const uint32_t *values, float *keys_dest,
                                   uint32_t *values_dest, size_t count,
                                   int descending)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        keys_dest[i] = ds_ordered_to_key(ordered[i], descending);
        if (values != values_dest)
            values_dest[i] = values[i];
    }
}

/* ---- host helpers ------------------------------------------------------ */

static unsigned transform_blocks(const cub_tuning *tuning, size_t count)
{
    const size_t threads = (size_t)tuning->transform_threads;
    const size_t most = (size_t)tuning->transform_max_blocks;
    size_t blocks = (count + threads - 1) / threads;
    return (unsigned)(blocks < most ? blocks : most);
}

/* CUB picks 32-bit offsets for int counts; 64-bit ones only when needed. */
template <typename Count>
static cudaError_t cub_sort_pairs(void *temp, size_t &temp_bytes,
                                  cub::DoubleBuffer<uint32_t> &keys,
                                  cub::DoubleBuffer<uint32_t> &values,
                                  Count count, int begin_bit, int end_bit,
                                  cudaStream_t stream)
{
    return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, values,
                                           count, begin_bit, end_bit, stream);
}

template <typename Count>
static cudaError_t cub_sort_pairs_descending(void *temp, size_t &temp_bytes,
                                             cub::DoubleBuffer<uint32_t> &keys,
                                             cub::DoubleBuffer<uint32_t> &values,
                                             Count count, int begin_bit,
                                             int end_bit, cudaStream_t stream)
{
    return cub::DeviceRadixSort::SortPairsDescending(
        temp, temp_bytes, keys, values, count, begin_bit, end_bit, stream);
}

static cudaError_t sort_pairs(void *temp, size_t &temp_bytes,
                              cub::DoubleBuffer<uint32_t> &keys,
                              cub::DoubleBuffer<uint32_t> &values,
                              size_t count, int begin_bit, int end_bit,
                              int descending, cudaStream_t stream)
{
    if (descending) {
        if (count <= (size_t)INT_MAX)
            return cub_sort_pairs_descending(temp, temp_bytes, keys, values,
                                             (int)count, begin_bit, end_bit,
                                             stream);
        return cub_sort_pairs_descending(temp, temp_bytes, keys, values,
                                         (int64_t)count, begin_bit, end_bit,
                                         stream);
    }
    if (count <= (size_t)INT_MAX)
        return cub_sort_pairs(temp, temp_bytes, keys, values, (int)count,
                              begin_bit, end_bit, stream);
    return cub_sort_pairs(temp, temp_bytes, keys, values, (int64_t)count,
                          begin_bit, end_bit, stream);
}

static void cub_destroy(void *state)
{
    cub_state *cub_s = (cub_state *)state;
    if (!cub_s)
        return;
    cudaFree(cub_s->alt_keys);
    cudaFree(cub_s->alt_values);
    cudaFree(cub_s->temp);
    for (int e = 0; e <= PHASE_COUNT; e++)
        if (cub_s->events[e])
            cudaEventDestroy(cub_s->events[e]);
    delete cub_s;
}

static ds_status cub_create(const ds_sorter_desc *desc, void **dest)
{
    ds_status status = DS_OK;
    cub_state *cub_s = new (std::nothrow) cub_state();
    if (!cub_s)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort cub: out of host memory");
    cub_s->tuning = kCubTuning;
    cub_s->max_count = desc->max_count;
    cub_s->begin_bit = 32 - (desc->key_bits ? desc->key_bits : 32);
    cub_s->keys_nonnegative = desc->keys_nonnegative;
    cub_s->low_bits = 32;
    cub_s->time_phases = desc->time_phases;
    size_t n = desc->max_count ? desc->max_count : 1;
    DS_CUDA_GOTO(status, fail, "sort cub",
                 cudaMalloc(&cub_s->alt_keys, n * sizeof(uint32_t)));
    DS_CUDA_GOTO(status, fail, "sort cub",
                 cudaMalloc(&cub_s->alt_values, n * sizeof(uint32_t)));
    {
        /* Size queries only: CUB reads no memory when temp is NULL. The
         * larger of the two directions' needs is kept. */
        cub::DoubleBuffer<uint32_t> keys(cub_s->alt_keys, cub_s->alt_keys);
        cub::DoubleBuffer<uint32_t> values(cub_s->alt_values,
                                           cub_s->alt_values);
        for (int descending = 0; descending < 2; descending++) {
            size_t bytes = 0;
            DS_CUDA_GOTO(status, fail, "sort cub",
                         sort_pairs(NULL, bytes, keys, values, n,
                                    cub_s->begin_bit, 32, descending, 0));
            if (bytes > cub_s->temp_bytes)
                cub_s->temp_bytes = bytes;
        }
    }
    DS_CUDA_GOTO(status, fail, "sort cub",
                 cudaMalloc(&cub_s->temp, cub_s->temp_bytes));
    if (cub_s->time_phases)
        for (int e = 0; e <= PHASE_COUNT; e++)
            DS_CUDA_GOTO(status, fail, "sort cub",
                         cudaEventCreate(&cub_s->events[e]));
    *dest = cub_s;
    return DS_OK;
fail:
    cub_destroy(cub_s);
    return status;
}

/* The sort into the caller's arrays, CUB ping-ponging with (alt_keys,
 * alt_values): ours, or the caller's with in_alt non-NULL, where an odd
 * pass count of untransformed keys then leaves the result and sets
 * *in_alt instead of copying it back. */
static ds_status cub_sort_with(cub_state *cub_s, float *keys, uint32_t *values,
                               uint32_t *alt_keys, uint32_t *alt_values, size_t count,
                               ds_sort_order order, ds_stream stream, int *in_alt)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int descending = order == DS_SORT_DESCENDING;
    const unsigned blocks = transform_blocks(&cub_s->tuning, count);
    const int threads = cub_s->tuning.transform_threads;
    uint32_t *caller_keys = reinterpret_cast<uint32_t *>(keys);

    cub_s->timed_last = cub_s->time_phases;
    if (cub_s->time_phases)
        DS_CUDA_TRY("sort cub", cudaEventRecord(cub_s->events[0], s));

    if (!cub_s->keys_nonnegative) {
        k_cub_to_ordered<<<blocks, threads, 0, s>>>(
            caller_keys, count, descending);
        DS_CUDA_TRY_LAUNCH("sort cub", "k_cub_to_ordered");
    }
    if (cub_s->time_phases)
        DS_CUDA_TRY("sort cub", cudaEventRecord(cub_s->events[1], s));

    /* The caller's arrays are the current halves; CUB ping-pongs into the
     * alternates and tells (on the host, at once) which half holds the
     * result. */
    cub::DoubleBuffer<uint32_t> key_buffers(caller_keys, alt_keys);
    cub::DoubleBuffer<uint32_t> value_buffers(values, alt_values);
    size_t temp_bytes = cub_s->temp_bytes;
    /* Untransformed keys below 2^low_bits differ in their low bits only
     * (fewer passes; CUB's temporary storage shrinks with them). */
    const int end_bit = cub_s->keys_nonnegative && cub_s->begin_bit == 0 ? cub_s->low_bits : 32;
    /* Transformed keys always sort ascending (direction folded in). */
    DS_CUDA_TRY("sort cub",
                sort_pairs(cub_s->temp, temp_bytes, key_buffers, value_buffers,
                           count, cub_s->begin_bit, end_bit,
                           cub_s->keys_nonnegative && descending, s));
    if (cub_s->time_phases)
        DS_CUDA_TRY("sort cub", cudaEventRecord(cub_s->events[2], s));

    if (!cub_s->keys_nonnegative) {
        k_cub_from_ordered<<<blocks, threads, 0, s>>>(
            key_buffers.Current(), value_buffers.Current(), keys, values,
            count, descending);
        DS_CUDA_TRY_LAUNCH("sort cub", "k_cub_from_ordered");
    } else if (key_buffers.Current() != caller_keys && in_alt) {
        /* Odd pass count, and the caller takes the result where it is. */
        *in_alt = 1;
    } else if (key_buffers.Current() != caller_keys) {
        /* Odd pass count: the result is in our half. Keys and values
         * always end in the same half. */
        DS_CUDA_TRY("sort cub",
                    cudaMemcpyAsync(caller_keys, key_buffers.Current(),
                                    count * sizeof(uint32_t),
                                    cudaMemcpyDeviceToDevice, s));
        DS_CUDA_TRY("sort cub",
                    cudaMemcpyAsync(values, value_buffers.Current(),
                                    count * sizeof(uint32_t),
                                    cudaMemcpyDeviceToDevice, s));
    }
    if (cub_s->time_phases)
        DS_CUDA_TRY("sort cub", cudaEventRecord(cub_s->events[3], s));
    return DS_OK;
}

static ds_status cub_sort(void *state, float *keys, uint32_t *values,
                          size_t count, ds_sort_order order, ds_stream stream)
{
    cub_state *cub_s = (cub_state *)state;
    return cub_sort_with(cub_s, keys, values, cub_s->alt_keys, cub_s->alt_values, count, order,
                         stream, NULL);
}

static ds_status cub_sort_pingpong(void *state, float *keys, uint32_t *values,
                                   float *alt_keys, uint32_t *alt_values, size_t count,
                                   ds_sort_order order, ds_stream stream, int *in_alt)
{
    return cub_sort_with((cub_state *)state, keys, values,
                         reinterpret_cast<uint32_t *>(alt_keys), alt_values, count, order,
                         stream, in_alt);
}

static int cub_phases(void *state, const char **names, float *ms, int capacity)
{
    cub_state *cub_s = (cub_state *)state;
    if (!cub_s->timed_last)
        return 0;
    if (cudaEventSynchronize(cub_s->events[PHASE_COUNT]) != cudaSuccess)
        return 0;
    int written = 0;
    for (int p = 0; p < PHASE_COUNT && written < capacity; p++) {
        float elapsed = 0.0f;
        if (cudaEventElapsedTime(&elapsed, cub_s->events[p],
                                 cub_s->events[p + 1]) != cudaSuccess)
            return written;
        names[written] = phase_names[p];
        ms[written] = elapsed;
        written++;
    }
    return written;
}

static void cub_set_low_bits(void *state, int low_bits)
{
    static_cast<cub_state *>(state)->low_bits = low_bits;
}

/* Device bytes per pair that cub_create() allocates (sort_backend.h): the
 * alternate key and value arrays (8) and CUB's temporary storage, under 2
 * a pair for large counts. */
#define CUB_BYTES_PER_PAIR 10

extern "C" const ds_sort_backend ds_sort_backend_cub = {
    "cub", 0, cub_create, cub_destroy, cub_sort, cub_phases, cub_set_low_bits,
    cub_sort_pingpong, CUB_BYTES_PER_PAIR, 0,
};
