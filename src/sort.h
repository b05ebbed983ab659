/* sort.h — the depthsort sort library: one API over every GPU sort.
 *
 * Sorts (float key, uint32 value) pairs, ascending or descending, on a
 * caller-given CUDA stream. Knows nothing of meshes or GL.
 *
 * Step by step:
 *   ds_sorter_desc desc = {0};            // zero means default
 *   desc.algo = DS_SORT_RADIX;            // or ds_sort_algo_from_name("radix")
 *   desc.max_count = n;
 *   ds_sorter *sorter;
 *   if (ds_sorter_create(&desc, &sorter) != DS_OK) ...;   // allocates everything
 *   ds_sorter_sort(sorter, d_keys, d_values, n, DS_SORT_DESCENDING, stream);
 *   ds_sorter_destroy(sorter);
 *
 * Semantics (every algorithm, tested by tests/test_sort_gpu.c):
 *   - In place: on return (in stream order) keys[0..count) is sorted and
 *     values[i] is the value that was paired with keys[i] on input (keys
 *     equal under the sort's equality below). Nothing at or beyond `count`
 *     is read or written.
 *   - Duplicates allowed; no stability promised.
 *   - -0.0 and +0.0 compare equal (a zero may come out as either sign).
 *   - NaN keys (any sign, any payload) compare equal to each other and go
 *     last in both directions; they come out as NaN, payload and sign not
 *     preserved. +Inf and -Inf order beyond every finite key.
 *   - count may be anything from 0 to desc.max_count (max_count up to at
 *     least 2^28); count 0 returns DS_OK without launching anything.
 *   - key_bits < 32: only the top key_bits bits of the order-preserving
 *     transform of each key are compared (keys pre-quantised by the caller);
 *     keys that differ only below come out in unspecified relative order.
 *     Algorithms that do not exploit it sort by the full key.
 *   - shuffle: the pairs are first randomly permuted on the GPU (as the
 *     hybrid-sort paper does for nearly sorted input), seeded by
 *     shuffle_seed + number of sorts so far.
 *   - Memory: keys/values are device pointers for every GPU algorithm, and
 *     host pointers for DS_SORT_CPU (ds_sort_algo_on_host() tells). The
 *     stream is ignored by the CPU algorithm. Device pointers must be
 *     DS_SORT_ALIGNMENT-byte aligned (cudaMalloc's are; the kernels move
 *     16-byte vectors); ds_sorter_sort() refuses others.
 *   - No allocation inside ds_sorter_sort(): all temporary storage is made
 *     by ds_sorter_create() for max_count.
 */
#ifndef DS_SORT_H
#define DS_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Alignment, in bytes, of the device keys and values a GPU sort takes. */
#define DS_SORT_ALIGNMENT 16

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque stand-in for cudaStream_t so that C code needs no CUDA headers;
 * pass a cudaStream_t (or 0 for the legacy default stream). */
typedef struct CUstream_st *ds_stream;

typedef enum ds_sort_algo {
    DS_SORT_CUB = 0,   /* cub::DeviceRadixSort::SortPairs (the baseline) */
    DS_SORT_RADIX,     /* our LSD radix sort, Merrill & Grimshaw style */
    DS_SORT_HYBRID,    /* Sintorn & Assarsson bucket + vector merge sort */
    DS_SORT_QUICK,     /* Cederman & Tsigas GPU quicksort */
    DS_SORT_BITONIC0,  /* bitonic, one launch per step */
    DS_SORT_BITONIC1,  /* bitonic, low steps fused per block */
    DS_SORT_BITONIC2,  /* bitonic, fused steps in shared memory */
    DS_SORT_CPU,       /* host LSD radix sort; reference and no-GPU fallback */
    DS_SORT_ALGO_COUNT
} ds_sort_algo;

typedef enum ds_sort_order {
    DS_SORT_ASCENDING = 0,
    DS_SORT_DESCENDING = 1 /* far first: the back-to-front draw order */
} ds_sort_order;

typedef struct ds_sorter_desc {
    ds_sort_algo algo;      /* default DS_SORT_CUB */
    size_t max_count;       /* largest count ever passed to ds_sorter_sort */
    int key_bits;           /* 0 or 32: full keys; 24 or 16: pre-quantised */
    int shuffle;            /* nonzero: permute randomly before each sort */
    uint64_t shuffle_seed;  /* 0: a fixed default seed */
    int time_phases;        /* nonzero: record per-phase GPU times (slower) */
    int keys_nonnegative;   /* nonzero: the caller promises that every key
                               has its sign bit clear and is no NaN (+0.0 up
                               to +Inf: distances, say), so that a backend
                               may sort the float bits as they stand (cub
                               then skips its two key-transform passes). A
                               broken promise: the pairs still come out
                               permuted, in unspecified order. */
} ds_sorter_desc;

typedef struct ds_sorter ds_sorter;

/* Name a user types ("cub", "radix", "hybrid", "quick", "bitonic0",
 * "bitonic1", "bitonic2", "cpu"). Never NULL for a valid algo. */
const char *ds_sort_algo_name(ds_sort_algo algo);

/* Parses a name as above; returns DS_SORT_ALGO_COUNT if unknown. */
ds_sort_algo ds_sort_algo_from_name(const char *name);

/* 1 if the algorithm sorts host memory (DS_SORT_CPU), else 0. */
int ds_sort_algo_on_host(ds_sort_algo algo);

/* 1 if the algorithm's implementation is in this build, 0 if it reports
 * DS_ERR_NOT_BUILT. */
int ds_sort_algo_built(ds_sort_algo algo);

/* Creates a sorter and all its temporary storage. Errors: DS_ERR_NOT_BUILT,
 * DS_ERR_NO_DEVICE (GPU algorithm without a CUDA device), DS_ERR_CUDA (incl.
 * out of device memory), DS_ERR_INVALID_ARG. *dest is NULL on failure. */
ds_status ds_sorter_create(const ds_sorter_desc *desc, ds_sorter **dest);

/* Frees everything; NULL is allowed. Synchronises the device first. */
void ds_sorter_destroy(ds_sorter *sorter);

/* Sorts in place, enqueued on `stream` (see the semantics above). Errors:
 * DS_ERR_INVALID_ARG (count > max_count, NULL pointers with count > 0),
 * DS_ERR_CUDA. */
ds_status ds_sorter_sort(ds_sorter *sorter, float *keys, uint32_t *values,
                         size_t count, ds_sort_order order, ds_stream stream);

/* The algorithm's name, as ds_sort_algo_name(). */
const char *ds_sorter_name(const ds_sorter *sorter);

/* Turns the shuffle pass on or off for later sorts. */
void ds_sorter_set_shuffle(ds_sorter *sorter, int shuffle);

/* Per-phase GPU times of the last sort, when desc.time_phases was set and
 * the algorithm reports phases (the shuffle, when on, is phase "shuffle").
 * Returns the number of phases written (at most `capacity`); names[i]
 * are static strings, ms[i] milliseconds. Synchronises with the last sort. */
int ds_sorter_phases(ds_sorter *sorter, const char **names, float *ms,
                     int capacity);

#ifdef __cplusplus
}
#endif
#endif
