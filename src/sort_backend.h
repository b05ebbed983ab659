/* sort_backend.h — the contract between the sort front end (src/sort.c) and
 * each algorithm (kernels/sort_<algo>.cu, src/sort_cpu.c). Internal to the
 * sort library.
 *
 * Adding an algorithm: write kernels/sort_<algo>.cu defining
 *   extern "C" const ds_sort_backend ds_sort_backend_<algo> = {...};
 * list it in CMakeLists.txt and in the table in src/sort.c.
 *
 * The front end has already validated arguments, returned early for
 * count == 0, and run the shuffle pass when enabled; the backend sorts
 * keys/values in place with the full semantics of sort.h (descending, NaN
 * last, -0 == +0, key_bits).
 */
#ifndef DS_SORT_BACKEND_H
#define DS_SORT_BACKEND_H

#include "sort.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DS_SORT_MAX_PHASES 16

typedef struct ds_sort_backend {
    const char *name;
    int on_host; /* sorts host memory */
    int built;   /* 0: create() reports DS_ERR_NOT_BUILT */
    /* Allocates everything for up to desc->max_count pairs into *state. */
    ds_status (*create)(const ds_sorter_desc *desc, void **state);
    void (*destroy)(void *state);
    ds_status (*sort)(void *state, float *keys, uint32_t *values, size_t count,
                      ds_sort_order order, ds_stream stream);
    /* Optional (may be NULL): per-phase times of the last sort, as
     * ds_sorter_phases(); returns the number written. */
    int (*phases)(void *state, const char **names, float *ms, int capacity);
} ds_sort_backend;

extern const ds_sort_backend ds_sort_backend_cub;
extern const ds_sort_backend ds_sort_backend_radix;
extern const ds_sort_backend ds_sort_backend_hybrid;
extern const ds_sort_backend ds_sort_backend_quick;
extern const ds_sort_backend ds_sort_backend_bitonic0;
extern const ds_sort_backend ds_sort_backend_bitonic1;
extern const ds_sort_backend ds_sort_backend_bitonic2;
extern const ds_sort_backend ds_sort_backend_cpu;

/* The shuffle pass (kernels/shuffle.cu): randomly permutes count pairs.
 * scratch_keys/scratch_values hold max_count + 1 elements, made at create
 * (the atomic-exchange method packs count 64-bit pairs across both). */
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
