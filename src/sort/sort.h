/* SPDX-License-Identifier: MIT */
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

#include "sort_registry.h"
#include "status.h"
#include "stream.h"

/* Alignment, in bytes, of the device keys and values a GPU sort takes. */
#define DS_SORT_ALIGNMENT 16

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ds_sort_algo {
#define DS_SORT_ENUM_(ID, name, file, hotkey, summary) DS_SORT_##ID,
    DS_SORT_REGISTRY(DS_SORT_ENUM_)
#undef DS_SORT_ENUM_
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
    const void *tuning;     /* NULL: the algorithm's measured defaults;
                               else its tuning struct (radix:
                               ds_radix_tuning, kernels/sort/
                               sort_radix_tuning.h), for tests and
                               benchmarks; others ignore it */
} ds_sorter_desc;

typedef struct ds_sorter ds_sorter;

/* Name a user types ("cub", "radix", "hybrid", "quick", "bitonic0",
 * "bitonic1", "bitonic2", "cpu"). Never NULL for a valid algo. */
const char *ds_sort_algo_name(ds_sort_algo algo);

/* Parses a name as above; returns DS_SORT_ALGO_COUNT if unknown. */
ds_sort_algo ds_sort_algo_from_name(const char *name);

/* 1 if the algorithm sorts host memory (DS_SORT_CPU), else 0. */
int ds_sort_algo_on_host(ds_sort_algo algo);

/* 1 if the algorithm's GPU sort waits for the host between its steps
 * (quick reads each plan's report back through mapped host memory), so
 * that other traffic on the bus to the host slows it; else 0. */
int ds_sort_algo_host_paced(ds_sort_algo algo);

/* 1 if this build has the algorithm, else 0: a build configured without
 * CUDA (DS_CUDA=OFF, or no toolkit found) has only the host sorts, and
 * ds_sorter_create() refuses the others with DS_ERR_UNSUPPORTED. Lists
 * shown to users (--help, the viewer's keys, --sort all) leave such
 * algorithms out. */
int ds_sort_algo_built(ds_sort_algo algo);

/* 1 if this build has any CUDA sort (it was built with CUDA), else 0. */
int ds_sort_cuda_built(void);

/* The viewer hotkey of the algorithm ('1'..'9', '0'), 0 if it has none. */
char ds_sort_algo_hotkey(ds_sort_algo algo);

/* Device bytes per pair that a sorter of `algo` allocates for max_count
 * pairs, an upper bound for large counts: the backend's own (its
 * contract, sort_backend.h) and, for a GPU sort, the front end's shuffle
 * scratch (8); 0 for a host sort, one this build lacks or an unknown
 * algo. For refusing a problem that cannot fit before anything is
 * allocated. */
size_t ds_sort_algo_bytes_per_pair(ds_sort_algo algo);

/* One-line description of the algorithm, for --help. Never NULL. */
const char *ds_sort_algo_summary(ds_sort_algo algo);

/* Creates a sorter and all its temporary storage. Errors:
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

/* ds_sorter_sort() with a second pair of device arrays (alt_keys,
 * alt_values; at least count elements each, DS_SORT_ALIGNMENT-aligned,
 * distinct from the first) that the sort may use as scratch: the sorted
 * pairs end in (keys, values), or in (alt_keys, alt_values) when *in_alt
 * is 1 on return. *in_alt is known on the host at once, before the sort
 * has run on the stream, so later work can be enqueued on the right
 * arrays. cub (whose pass count, with ds_sorter_set_low_key_bits(), may be
 * odd) and radix above its single launch (an odd number of likely passes:
 * three for 24 low bits) then skip their copy back; the other algorithms
 * sort in place and set 0. The pair not holding the result holds
 * unspecified data. Host algorithms: as ds_sorter_sort(), *in_alt 0. */
ds_status ds_sorter_sort_pingpong(ds_sorter *sorter, float *keys, uint32_t *values,
                                  float *alt_keys, uint32_t *alt_values, size_t count,
                                  ds_sort_order order, ds_stream stream, int *in_alt);

/* The algorithm's name, as ds_sort_algo_name(). */
const char *ds_sorter_name(const ds_sorter *sorter);

/* Turns the shuffle pass on or off for later sorts. */
void ds_sorter_set_shuffle(ds_sorter *sorter, int shuffle);

/* For the later sorts of a sorter created with desc.keys_nonnegative and
 * full keys (key_bits 0 or 32): the caller promises that every key's bits
 * are below 2^low_bits (16 or 24), that is, each key is a float from +0
 * up to the small float whose bits are 2^low_bits - 1 (the renderer's
 * narrowed keys, distance_math.h), so that a backend may compare those low
 * bits alone (cub and radix: 2 or 3 radix passes instead of 4; the others
 * sort the full keys, which order the same). 32 lifts the promise. Other
 * sorters and other values: ignored. A broken promise: the pairs still
 * come out permuted, in unspecified order. */
void ds_sorter_set_low_key_bits(ds_sorter *sorter, int low_bits);

/* The most phases any algorithm reports: a capacity for ds_sorter_phases(). */
#define DS_SORT_MAX_PHASES 16

/* Per-phase GPU times of the last sort, when desc.time_phases was set and
 * the algorithm reports phases (the shuffle, when on, is phase "shuffle").
 * Returns the number of phases written (at most `capacity`); names[i]
 * are static strings, ms[i] milliseconds. Synchronises with the last sort. */
int ds_sorter_phases(ds_sorter *sorter, const char **names, float *ms,
                     int capacity);

/* Randomly permutes count (key, value) pairs in device memory, seeded by
 * `seed` (the pass a sorter runs first when desc.shuffle is set; the
 * renderer also runs it as its own timed stage). scratch_keys and
 * scratch_values are device arrays of at least count + 1 elements. NaN keys
 * may come out as the canonical NaN. Errors: DS_ERR_CUDA. */
ds_status ds_shuffle_pairs(float *keys, uint32_t *values, float *scratch_keys,
                           uint32_t *scratch_values, size_t count,
                           uint64_t seed, ds_stream stream);

/* The two shuffle methods, for the benchmark and tests; ds_shuffle_pairs()
 * uses the faster one (DS_SHUFFLE_DEFAULT). NaN keys may come out as the
 * canonical NaN (sort.h allows it). */
typedef enum ds_shuffle_method {
    DS_SHUFFLE_FEISTEL = 0,      /* seeded bijective index permutation */
    DS_SHUFFLE_ATOMIC_EXCHANGE,  /* the hybrid-sort paper's atomicExch pass */
    DS_SHUFFLE_METHOD_COUNT
} ds_shuffle_method;
#define DS_SHUFFLE_DEFAULT DS_SHUFFLE_FEISTEL

const char *ds_shuffle_method_name(ds_shuffle_method method);
ds_status ds_shuffle_pairs_with(ds_shuffle_method method, float *keys,
                                uint32_t *values, float *scratch_keys,
                                uint32_t *scratch_values, size_t count,
                                uint64_t seed, ds_stream stream);

#ifdef __cplusplus
}
#endif
#endif
