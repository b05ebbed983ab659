/* SPDX-License-Identifier: MIT */
/* sort_backend.h — the contract between the sort front end
 * (src/sort/sort.c) and each algorithm (kernels/sort/sort_<algo>.cu,
 * src/sort/sort_cpu.c). Internal to the sort library.
 *
 * Adding an algorithm: write kernels/sort/sort_<algo>.cu defining
 *   extern "C" const ds_sort_backend ds_sort_backend_<algo> = {...};
 * and add its line to src/sort/sort_registry.h (docs/sort-library.md).
 *
 * The front end has already validated arguments (non-NULL arrays, count <=
 * max_count, DS_SORT_ALIGNMENT for device arrays), returned early for
 * count == 0, and run the shuffle pass when enabled; the backend sorts
 * keys/values in place with the full semantics of sort.h (descending, NaN
 * last, -0 == +0; key_bits, which a backend may ignore by sorting the full
 * key). Algorithm notes: docs/algorithms/<algo>.md.
 */
#ifndef DS_SORT_BACKEND_H
#define DS_SORT_BACKEND_H

#include "sort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_sort_backend {
    const char *name;
    int on_host; /* sorts host memory */
    /* Allocates everything for up to desc->max_count pairs into *state. */
    ds_status (*create)(const ds_sorter_desc *desc, void **state);
    void (*destroy)(void *state);
    ds_status (*sort)(void *state, float *keys, uint32_t *values, size_t count,
                      ds_sort_order order, ds_stream stream);
    /* Optional (may be NULL): per-phase times of the last sort, as
     * ds_sorter_phases(); returns the number written. */
    int (*phases)(void *state, const char **names, float *ms, int capacity);
    /* Optional (may be NULL: the backend sorts full keys): the keys of
     * later sorts are below 2^low_bits (16, 24, or 32 for any), as
     * ds_sorter_set_low_key_bits() promises; only called for sorters
     * created with keys_nonnegative and full key_bits. */
    void (*set_low_bits)(void *state, int low_bits);
    /* Optional (may be NULL: the front end sorts in place and reports the
     * first pair): ds_sorter_sort_pingpong(), *in_alt already 0. */
    ds_status (*sort_pingpong)(void *state, float *keys, uint32_t *values, float *alt_keys,
                               uint32_t *alt_values, size_t count, ds_sort_order order,
                               ds_stream stream, int *in_alt);
    /* What it reports of its memory: device bytes that create() allocates
     * per pair for max_count pairs, rounded up (an upper bound for large
     * counts: fixed-size tables count as a share of a pair), besides the
     * caller's keys and values and the front end's shuffle scratch; 0
     * for a host backend. ds_sort_algo_bytes_per_pair() adds the
     * shuffle's. */
    size_t bytes_per_pair;
    /* 1 if a sort waits for the host between its steps (it reads a report
     * back from the device mid-sort and decides what to launch next), so
     * that its time depends on the host's and the bus's latency; 0 if it
     * is queued whole. */
    int host_paced;
} ds_sort_backend;

/* One backend object per registry line (sort_registry.h). */
#define DS_SORT_EXTERN_(ID, name, file, hotkey, summary) \
    extern const ds_sort_backend ds_sort_backend_##name;
DS_SORT_REGISTRY(DS_SORT_EXTERN_)
#undef DS_SORT_EXTERN_

#ifdef __cplusplus
}
#endif
#endif
