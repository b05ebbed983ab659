/* SPDX-License-Identifier: MIT */
/* sort_inputs.h — host-side inputs and the reference check for the sort
 * library's tests and benchmark: the key distributions of the GPU sorting
 * papers (Cederman & Tsigas; Sintorn & Assarsson), camera distances from a
 * point array, and one function that decides whether a sort output is
 * right under the sort.h semantics. Plain C, no CUDA, no meshes.
 *
 *   float *keys = malloc(n * sizeof *keys);
 *   ds_sort_input_generate(DS_DIST_GAUSSIAN, n, seed, keys);
 *   ... copy, sort ...
 *   char why[256];
 *   if (ds_sort_check(keys, n, sorted_keys, sorted_values, order, 32,
 *                     why, sizeof why) != DS_OK) puts(why);
 */
#ifndef DS_SORT_INPUTS_H
#define DS_SORT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ds_sort_dist {
    DS_DIST_UNIFORM = 0,  /* uniform in [0, 2^31), as in the quicksort paper */
    DS_DIST_SORTED,       /* non-decreasing uniform steps */
    DS_DIST_REVERSE,      /* non-increasing */
    DS_DIST_ZERO,         /* one constant value, picked from the seed */
    DS_DIST_BUCKET,       /* p = 128 blocks of p sections (quicksort paper) */
    DS_DIST_GAUSSIAN,     /* mean of four uniforms (quicksort paper) */
    DS_DIST_STAGGERED,    /* p = 128 (quicksort paper) */
    DS_DIST_FEW_UNIQUE,   /* 16 distinct values */
    DS_DIST_NEARLY_SORTED,/* sorted, then n / 100 random swaps */
    DS_DIST_SPECIAL,      /* uniform in [-1000, 1000] sprinkled with NaN
                             (both signs, several payloads), +-Inf, -0, +0,
                             +-FLT_MAX and denormals */
    DS_DIST_COUNT
} ds_sort_dist;

/* "uniform", "sorted", "reverse", "zero", "bucket", "gaussian",
 * "staggered", "few-unique", "nearly-sorted", "special"; "unknown" else. */
const char *ds_sort_dist_name(ds_sort_dist dist);

/* Parses a name as above; DS_DIST_COUNT if unknown. */
ds_sort_dist ds_sort_dist_from_name(const char *name);

/* Writes count keys of the distribution into dest; the same (dist, count,
 * seed) always gives the same keys. An unknown dist writes zeros. */
void ds_sort_input_generate(ds_sort_dist dist, size_t count, uint64_t seed,
                            float *dest);

/* dest[i] = i, the values every test and benchmark pairs with its keys. */
void ds_sort_input_iota(size_t count, uint32_t *dest);

/* Euclidean distances from `eye` to count points (xyz, 3 * count floats):
 * the keys a depth sort sees. */
void ds_sort_input_distances(const float *positions, size_t count,
                             const float eye[3], float *dest);

/* Checks a sort's output against its input under sort.h: keys ordered in
 * `order` on the top key_bits bits of their ordered transform (NaN last,
 * -0 == +0; key_bits 0 means 32), values a permutation of 0..count-1 (the
 * input values were ds_sort_input_iota), and keys[i] equal to
 * original_keys[values[i]] under the sort's equality. Returns DS_OK, or
 * DS_ERR_MISMATCH with the first failure described in `message`
 * ("descending: keys[17] = 0.5 before keys[18] = 0.75"), or
 * DS_ERR_OUT_OF_MEMORY. Does not log. */
ds_status ds_sort_check(const float *original_keys, size_t count,
                        const float *keys, const uint32_t *values,
                        ds_sort_order order, int key_bits, char *message,
                        size_t message_size);

#ifdef __cplusplus
}
#endif
#endif
