/* SPDX-License-Identifier: MIT */
/* sort_cpu.c — the host reference sort and the no-GPU fallback: an LSD
 * radix sort on the order-preserving uint32 transform of each key
 * (kernels/common/sort_keys.cuh), so that it honours every sort.h rule
 * (direction, NaN last, -0 == +0, key_bits) exactly like the GPU sorts.
 *
 * O(n * passes): one read pass builds the histograms of every digit at
 * once, then one scatter pass per digit, skipping digits that are the same
 * for every key (common for nearly constant or pre-quantised keys). Stable,
 * though sort.h does not promise it. Sorts host memory; single-threaded.
 */
#include "sort_backend.h"

#include <stdlib.h>
#include <string.h>

#include "sort_keys.cuh"

/* ---- tuning ------------------------------------------------------------ */

/* 11-bit digits: 32 bits in 3 passes and a 2048-entry histogram (8 KiB of
 * uint32) that stays in L1 while scattering. */
#define CPU_MAX_DIGIT_BITS 11
#define CPU_MAX_PASSES 4 /* ceil(32 / 11) = 3; one spare for safety */
#define CPU_BUCKETS (1u << CPU_MAX_DIGIT_BITS)

typedef struct cpu_state {
    size_t max_count;
    int key_bits;
    uint32_t *ordered[2];  /* transformed keys, ping-pong */
    uint32_t *value_scratch; /* the values' second buffer; the caller's
                                values array is the first */
} cpu_state;

static void cpu_destroy(void *state)
{
    cpu_state *cpu = state;
    if (!cpu)
        return;
    free(cpu->ordered[0]);
    free(cpu->ordered[1]);
    free(cpu->value_scratch);
    free(cpu);
}

static ds_status cpu_create(const ds_sorter_desc *desc, void **dest)
{
    cpu_state *cpu = calloc(1, sizeof *cpu);
    if (!cpu)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort cpu: out of host memory");
    cpu->max_count = desc->max_count;
    cpu->key_bits = desc->key_bits ? desc->key_bits : 32;
    size_t bytes = (desc->max_count ? desc->max_count : 1) * sizeof(uint32_t);
    cpu->ordered[0] = malloc(bytes);
    cpu->ordered[1] = malloc(bytes);
    cpu->value_scratch = malloc(bytes);
    if (!cpu->ordered[0] || !cpu->ordered[1] || !cpu->value_scratch) {
        cpu_destroy(cpu);
        return ds_fail(DS_ERR_OUT_OF_MEMORY,
                       "sort cpu: cannot allocate scratch for %zu pairs",
                       desc->max_count);
    }
    *dest = cpu;
    return DS_OK;
}

static ds_status cpu_sort(void *state, float *keys, uint32_t *values,
                          size_t count, ds_sort_order order, ds_stream stream)
{
    (void)stream;
    cpu_state *cpu = state;
    const int descending = order == DS_SORT_DESCENDING;

    /* Digits cover bits [low_bit, 32) in equal widths of at most 11 bits:
     * 32 -> 11+11+10, 24 -> 8+8+8, 16 -> 8+8. */
    const int low_bit = 32 - cpu->key_bits;
    const int passes = (cpu->key_bits + CPU_MAX_DIGIT_BITS - 1) /
                       CPU_MAX_DIGIT_BITS;
    const int digit_bits = (cpu->key_bits + passes - 1) / passes;
    int shift[CPU_MAX_PASSES];
    int width[CPU_MAX_PASSES];
    for (int p = 0; p < passes; p++) {
        shift[p] = low_bit + p * digit_bits;
        width[p] = 32 - shift[p] < digit_bits ? 32 - shift[p] : digit_bits;
    }

    /* One read pass: transform and histogram every digit. */
    _Static_assert(CPU_BUCKETS * CPU_MAX_PASSES * sizeof(size_t) <= 65536,
                  "histograms must fit on the stack");
    size_t histogram[CPU_MAX_PASSES][CPU_BUCKETS];
    memset(histogram, 0, sizeof histogram);
    uint32_t *src_keys = cpu->ordered[0];
    for (size_t i = 0; i < count; i++) {
        uint32_t k = ds_key_to_ordered(keys[i], descending);
        src_keys[i] = k;
        for (int p = 0; p < passes; p++)
            histogram[p][(k >> shift[p]) & ((1u << width[p]) - 1)]++;
    }

    uint32_t *dst_keys = cpu->ordered[1];
    uint32_t *src_values = values;
    uint32_t *dst_values = cpu->value_scratch;
    for (int p = 0; p < passes; p++) {
        const uint32_t mask = (1u << width[p]) - 1;
        size_t *h = histogram[p];
        /* A digit shared by every key leaves the order as it is. */
        if (h[(src_keys[0] >> shift[p]) & mask] == count)
            continue;
        size_t offset = 0;
        for (uint32_t b = 0; b <= mask; b++) {
            size_t c = h[b];
            h[b] = offset;
            offset += c;
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t k = src_keys[i];
            size_t at = h[(k >> shift[p]) & mask]++;
            dst_keys[at] = k;
            dst_values[at] = src_values[i];
        }
        uint32_t *t = src_keys;
        src_keys = dst_keys;
        dst_keys = t;
        t = src_values;
        src_values = dst_values;
        dst_values = t;
    }

    for (size_t i = 0; i < count; i++)
        keys[i] = ds_ordered_to_key(src_keys[i], descending);
    if (src_values != values)
        memcpy(values, src_values, count * sizeof *values);
    return DS_OK;
}

const ds_sort_backend ds_sort_backend_cpu = {
    .name = "cpu",
    .on_host = 1,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .sort = cpu_sort,
    .phases = NULL,
    .bytes_per_pair = 0, /* host memory */
};
