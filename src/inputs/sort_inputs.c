/* SPDX-License-Identifier: MIT */
/* sort_inputs.c — key distributions and the reference check (see
 * sort_inputs.h). Distributions follow "GPU-Quicksort: A Practical
 * Quicksort Algorithm for Graphics Processors" (Cederman & Tsigas), whose
 * integer ranges [0, 2^31) we keep as float keys. */
#include "sort_inputs.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_keys.cuh"

/* p of the bucket and staggered distributions, as in the quicksort paper. */
#define DIST_BLOCKS 128
#define DIST_RANGE 2147483648.0 /* 2^31 */
#define FEW_UNIQUE_VALUES 16

static const char *const dist_names[DS_DIST_COUNT] = {
    [DS_DIST_UNIFORM] = "uniform",
    [DS_DIST_SORTED] = "sorted",
    [DS_DIST_REVERSE] = "reverse",
    [DS_DIST_ZERO] = "zero",
    [DS_DIST_BUCKET] = "bucket",
    [DS_DIST_GAUSSIAN] = "gaussian",
    [DS_DIST_STAGGERED] = "staggered",
    [DS_DIST_FEW_UNIQUE] = "few-unique",
    [DS_DIST_NEARLY_SORTED] = "nearly-sorted",
    [DS_DIST_SPECIAL] = "special",
};

const char *ds_sort_dist_name(ds_sort_dist dist)
{
    if ((unsigned)dist >= DS_DIST_COUNT)
        return "unknown";
    return dist_names[dist];
}

ds_sort_dist ds_sort_dist_from_name(const char *name)
{
    for (int d = 0; d < DS_DIST_COUNT; d++)
        if (name && strcmp(name, dist_names[d]) == 0)
            return (ds_sort_dist)d;
    return DS_DIST_COUNT;
}

/* ---- random numbers: splitmix64, fast and seedable by any integer ------- */

static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double next_unit(uint64_t *state)
{
    return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, bound) for bound > 0 (multiply-shift; bias < 2^-32). */
static size_t next_below(uint64_t *state, size_t bound)
{
    return (size_t)(((unsigned __int128)next_u64(state) * bound) >> 64);
}

static float from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Non-decreasing keys: running sums of uniform steps, scaled to end at
 * most at 2^31 (rounding and scaling are monotone: still sorted). */
static void generate_sorted(size_t count, uint64_t *rng, float *dest)
{
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        sum += next_unit(rng);
        dest[i] = (float)sum;
    }
    double scale = sum > 0.0 ? DIST_RANGE / (double)(float)sum : 1.0;
    for (size_t i = 0; i < count; i++)
        dest[i] = (float)((double)dest[i] * scale);
}

static float special_key(uint64_t *rng)
{
    static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                    0xFFFFFFFFu, 0x7FBFFFFFu, 0xFF812345u};
    switch (next_below(rng, 16)) {
    case 0: return from_bits(nans[next_below(rng, sizeof nans / sizeof *nans)]);
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    case 4: return 0.0f;
    case 5: return next_below(rng, 2) ? FLT_MAX : -FLT_MAX;
    case 6: return from_bits((uint32_t)next_below(rng, 0x00800000u) |
                             (next_below(rng, 2) ? 0x80000000u : 0u));
    default: return (float)(2000.0 * next_unit(rng) - 1000.0);
    }
}

void ds_sort_input_generate(ds_sort_dist dist, size_t count, uint64_t seed,
                            float *dest)
{
    uint64_t rng = seed ^ ((uint64_t)dist * 0xD1B54A32D192ED03ull);
    const size_t p = DIST_BLOCKS;
    const double slice = DIST_RANGE / (double)p;
    switch (dist) {
    case DS_DIST_UNIFORM:
        for (size_t i = 0; i < count; i++)
            dest[i] = (float)(DIST_RANGE * next_unit(&rng));
        break;
    case DS_DIST_SORTED:
        generate_sorted(count, &rng, dest);
        break;
    case DS_DIST_REVERSE:
        generate_sorted(count, &rng, dest);
        for (size_t i = 0, j = count ? count - 1 : 0; i < j; i++, j--) {
            float t = dest[i];
            dest[i] = dest[j];
            dest[j] = t;
        }
        break;
    case DS_DIST_ZERO: {
        float value = (float)(DIST_RANGE * next_unit(&rng));
        for (size_t i = 0; i < count; i++)
            dest[i] = value;
        break;
    }
    case DS_DIST_BUCKET:
        /* Block b holds p sections; section s draws from the s-th slice. */
        for (size_t b = 0; b < p; b++) {
            size_t begin = b * count / p, end = (b + 1) * count / p;
            for (size_t i = begin; i < end; i++) {
                size_t section = (i - begin) * p / (end - begin);
                dest[i] = (float)(slice * ((double)section + next_unit(&rng)));
            }
        }
        break;
    case DS_DIST_GAUSSIAN:
        for (size_t i = 0; i < count; i++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++)
                sum += next_unit(&rng);
            dest[i] = (float)(DIST_RANGE * sum / 4.0);
        }
        break;
    case DS_DIST_STAGGERED:
        /* Block b < p/2 draws from slice 2b + 1, the others from 2b - p. */
        for (size_t b = 0; b < p; b++) {
            size_t begin = b * count / p, end = (b + 1) * count / p;
            double first = b < p / 2 ? (double)(2 * b + 1) : (double)(2 * b - p);
            for (size_t i = begin; i < end; i++)
                dest[i] = (float)(slice * (first + next_unit(&rng)));
        }
        break;
    case DS_DIST_FEW_UNIQUE: {
        float values[FEW_UNIQUE_VALUES];
        for (int k = 0; k < FEW_UNIQUE_VALUES; k++)
            values[k] = (float)(DIST_RANGE * next_unit(&rng));
        for (size_t i = 0; i < count; i++)
            dest[i] = values[next_below(&rng, FEW_UNIQUE_VALUES)];
        break;
    }
    case DS_DIST_NEARLY_SORTED: {
        generate_sorted(count, &rng, dest);
        size_t swaps = count >= 2 ? (count + 99) / 100 : 0;
        for (size_t s = 0; s < swaps; s++) {
            size_t i = next_below(&rng, count), j = next_below(&rng, count);
            float t = dest[i];
            dest[i] = dest[j];
            dest[j] = t;
        }
        break;
    }
    case DS_DIST_SPECIAL:
        for (size_t i = 0; i < count; i++)
            dest[i] = special_key(&rng);
        break;
    default:
        memset(dest, 0, count * sizeof *dest);
        break;
    }
}

void ds_sort_input_iota(size_t count, uint32_t *dest)
{
    for (size_t i = 0; i < count; i++)
        dest[i] = (uint32_t)i;
}

void ds_sort_input_distances(const float *positions, size_t count,
                             const float eye[3], float *dest)
{
    for (size_t i = 0; i < count; i++) {
        float dx = positions[3 * i] - eye[0];
        float dy = positions[3 * i + 1] - eye[1];
        float dz = positions[3 * i + 2] - eye[2];
        dest[i] = sqrtf(dx * dx + dy * dy + dz * dz);
    }
}

static uint32_t float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

ds_status ds_sort_check(const float *original_keys, size_t count,
                        const float *keys, const uint32_t *values,
                        ds_sort_order order, int key_bits, char *message,
                        size_t message_size)
{
    const int descending = order == DS_SORT_DESCENDING;
    const char *direction = descending ? "descending" : "ascending";
    const int shift = 32 - (key_bits > 0 && key_bits < 32 ? key_bits : 32);
    if (message_size)
        message[0] = '\0';
    if (count == 0)
        return DS_OK;
    uint8_t *seen = calloc((count + 7) / 8, 1);
    if (!seen) {
        snprintf(message, message_size, "check: out of host memory");
        return DS_ERR_OUT_OF_MEMORY;
    }
    ds_status status = DS_ERR_MISMATCH;
    uint32_t previous = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = values[i];
        if (v >= count) {
            snprintf(message, message_size,
                     "%s: values[%zu] = %u is not below count %zu", direction,
                     i, v, count);
            goto done;
        }
        if (seen[v / 8] & (1u << (v % 8))) {
            snprintf(message, message_size,
                     "%s: value %u appears twice (again at values[%zu])",
                     direction, v, i);
            goto done;
        }
        seen[v / 8] |= (uint8_t)(1u << (v % 8));
        /* The sort's equality: equal ordered transforms (NaN == NaN,
         * -0 == +0); the direction does not matter for equality. */
        if (ds_key_to_ordered(keys[i], 0) !=
            ds_key_to_ordered(original_keys[v], 0)) {
            snprintf(message, message_size,
                     "%s: keys[%zu] = %.9g (0x%08x) but its value %u was "
                     "paired with %.9g (0x%08x)",
                     direction, i, keys[i], float_bits(keys[i]), v,
                     original_keys[v], float_bits(original_keys[v]));
            goto done;
        }
        uint32_t rank = ds_key_to_ordered(keys[i], descending) >> shift;
        if (i > 0 && rank < previous) {
            snprintf(message, message_size,
                     "%s (%d key bits): keys[%zu] = %.9g (0x%08x) comes "
                     "before keys[%zu] = %.9g (0x%08x)",
                     direction, 32 - shift, i - 1, keys[i - 1],
                     float_bits(keys[i - 1]), i, keys[i], float_bits(keys[i]));
            goto done;
        }
        previous = rank;
    }
    status = DS_OK;
done:
    free(seen);
    return status;
}
