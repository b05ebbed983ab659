/* SPDX-License-Identifier: MIT */
/* bench_cub_raw.h — plain cub::DeviceRadixSort::SortPairs on float keys,
 * out of place: the baseline the sort benchmark divides by. Bench only. */
#ifndef DS_BENCH_CUB_RAW_H
#define DS_BENCH_CUB_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_cub_raw bench_cub_raw;

/* Output arrays and temporary storage for up to max_count (< 2^31) pairs. */
ds_status bench_cub_raw_create(size_t max_count, bench_cub_raw **dest);
void bench_cub_raw_destroy(bench_cub_raw *raw);

/* Sorts keys/values into the object's own output arrays (inputs untouched). */
ds_status bench_cub_raw_sort(bench_cub_raw *raw, const float *keys,
                             const uint32_t *values, size_t count,
                             int descending, ds_stream stream);

#ifdef __cplusplus
}
#endif
#endif
