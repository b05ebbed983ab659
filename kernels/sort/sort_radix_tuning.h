/* SPDX-License-Identifier: MIT */
/* sort_radix_tuning.h — the radix sort's run-time tuning
 * (sort_radix.cu) as data: the measured defaults, and what a test or a
 * benchmark passes as ds_sorter_desc.tuning to make a sorter with other
 * values. Internal to the sort library and its tests. */
#ifndef DS_SORT_RADIX_TUNING_H
#define DS_SORT_RADIX_TUNING_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ds_radix_tuning {
    /* 7 for 32-bit keys: ranking 128 digits is cheaper than 256, and the top
     * 7-bit digit is constant for most depth keys, so 4 passes run. */
    int digit_bits_full_keys;
    /* 8 for key_bits 24 and 16: 3 or 2 passes. */
    int digit_bits_short_keys;
    /* Downsweep tile as built (kDownsweepThreads x kDownsweepItems);
     * create refuses other values. */
    int downsweep_threads;
    int downsweep_items;
    /* 4 upsweep blocks an SM keep 64 KiB of loads in flight per SM. */
    int upsweep_blocks_per_sm;
    /* The final copy streams: 4 blocks of 256 threads an SM saturate it. */
    int copy_blocks_per_sm;
    int copy_threads;
    /* Nonzero: the match words always lie over the exchanges (the shared
     * memory layout of GPUs with less of it), so that the tests run that
     * form on any GPU. 0: their own room where that keeps the occupancy. */
    int match_overlaid;
} ds_radix_tuning;

/* The measured defaults (sort_radix.cu), used when desc.tuning is NULL. */
extern const ds_radix_tuning ds_radix_tuning_default;

#ifdef __cplusplus
}
#endif
#endif
