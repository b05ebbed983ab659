/* SPDX-License-Identifier: MIT */
/* test_sort_host.c — the sort library on the host, everywhere (no GPU
 * needed): algorithm names, the front end's argument errors, the ordered
 * key transform, the input generators, the reference check (that it
 * catches wrong outputs), and the CPU sort against qsort on every
 * distribution and many sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "sort.h"
#include "sort_inputs.h"
#include "sort_keys.cuh"

#define SEED 424242ull

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float float_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- names ------------------------------------------------------------- */

static void algorithm_names_round_trip(void **state)
{
    (void)state;
    /* The names and hotkeys as the registry spells them. */
    static const char *const expected[DS_SORT_ALGO_COUNT] = {
#define NAME_(ID, name, file, hotkey, summary) [DS_SORT_##ID] = #name,
        DS_SORT_REGISTRY(NAME_)
#undef NAME_
    };
    static const char hotkeys[DS_SORT_ALGO_COUNT] = {
#define HOTKEY_(ID, name, file, hotkey, summary) [DS_SORT_##ID] = hotkey,
        DS_SORT_REGISTRY(HOTKEY_)
#undef HOTKEY_
    };
    assert_string_equal(expected[DS_SORT_CUB], "cub");
    assert_string_equal(expected[DS_SORT_CPU], "cpu");
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        assert_string_equal(ds_sort_algo_name((ds_sort_algo)a), expected[a]);
        assert_int_equal(ds_sort_algo_from_name(expected[a]), a);
        assert_int_equal(ds_sort_algo_on_host((ds_sort_algo)a),
                         a == DS_SORT_CPU);
        assert_int_equal(ds_sort_algo_hotkey((ds_sort_algo)a), hotkeys[a]);
        assert_true(strlen(ds_sort_algo_summary((ds_sort_algo)a)) > 0);
        /* Hotkeys are digits, or none, and no two algorithms share one. */
        char key = hotkeys[a];
        assert_true(key == 0 || (key >= '0' && key <= '9'));
        for (int b = 0; b < a; b++)
            assert_true(key == 0 || hotkeys[b] != key);
        /* Names are unique too (from_name finds this one, not an earlier). */
        for (int b = 0; b < a; b++)
            assert_string_not_equal(expected[a], expected[b]);
    }
    assert_int_equal(ds_sort_algo_hotkey(DS_SORT_ALGO_COUNT), 0);
    assert_int_equal(ds_sort_algo_from_name("CUB"), DS_SORT_ALGO_COUNT);
    assert_int_equal(ds_sort_algo_from_name(""), DS_SORT_ALGO_COUNT);
    assert_int_equal(ds_sort_algo_from_name(NULL), DS_SORT_ALGO_COUNT);
    assert_string_equal(ds_sort_algo_name(DS_SORT_ALGO_COUNT), "unknown");
    assert_false(ds_sort_algo_on_host((ds_sort_algo)-1));
    /* Memory per pair: none on the host or for a sort the build lacks; a
     * GPU sort's at least the shuffle scratch's 8 bytes (test_sort_gpu
     * measures them). */
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_sort_algo_on_host((ds_sort_algo)a) || !ds_sort_algo_built((ds_sort_algo)a))
            assert_int_equal(ds_sort_algo_bytes_per_pair((ds_sort_algo)a), 0);
        else
            assert_true(ds_sort_algo_bytes_per_pair((ds_sort_algo)a) >= 8);
    assert_int_equal(ds_sort_algo_bytes_per_pair(DS_SORT_ALGO_COUNT), 0);
    /* Only quick waits for the host between its steps (where built). */
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        assert_int_equal(ds_sort_algo_host_paced((ds_sort_algo)a),
                         a == DS_SORT_QUICK && ds_sort_algo_built((ds_sort_algo)a));
    assert_false(ds_sort_algo_host_paced(DS_SORT_ALGO_COUNT));
}

static void distribution_names_round_trip(void **state)
{
    (void)state;
    for (int d = 0; d < DS_DIST_COUNT; d++) {
        const char *name = ds_sort_dist_name((ds_sort_dist)d);
        assert_string_not_equal(name, "unknown");
        assert_int_equal(ds_sort_dist_from_name(name), d);
    }
    assert_int_equal(ds_sort_dist_from_name("mesh"), DS_DIST_COUNT);
    assert_int_equal(ds_sort_dist_from_name(NULL), DS_DIST_COUNT);
    assert_string_equal(ds_sort_dist_name(DS_DIST_COUNT), "unknown");
}

/* ---- front end --------------------------------------------------------- */

static void create_rejects_bad_descriptions(void **state)
{
    (void)state;
    ds_sorter *sorter = (ds_sorter *)&sorter; /* must be reset to NULL */
    ds_sorter_desc desc = {0};
    desc.algo = DS_SORT_CPU;
    desc.max_count = 100;
    ds_log_set_quiet(1);
    assert_int_equal(ds_sorter_create(&desc, NULL), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_sorter_create(NULL, &sorter), DS_ERR_INVALID_ARG);
    assert_null(sorter);
    desc.algo = DS_SORT_ALGO_COUNT;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_ERR_INVALID_ARG);
    assert_string_equal(ds_last_error(), "sort: unknown algorithm");
    desc.algo = DS_SORT_CPU;
    desc.key_bits = 7;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "key_bits"));
    desc.key_bits = 0;
    desc.max_count = ((size_t)1 << 31) + 1;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_ERR_TOO_LARGE);
    assert_null(sorter);
    /* A build without CUDA has the host sort alone and refuses the
     * others by name; with CUDA but without a device a GPU algorithm
     * reports DS_ERR_NO_DEVICE. */
    assert_int_equal(ds_sort_cuda_built(), DS_TEST_HAVE_CUDA);
    assert_true(ds_sort_algo_built(DS_SORT_CPU));
    assert_false(ds_sort_algo_built(DS_SORT_ALGO_COUNT));
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        assert_int_equal(ds_sort_algo_built((ds_sort_algo)a),
                         DS_TEST_HAVE_CUDA || ds_sort_algo_on_host((ds_sort_algo)a));
    int devices = 0;
    if (!DS_TEST_HAVE_CUDA) {
        desc.algo = DS_SORT_CUB;
        desc.max_count = 10;
        assert_int_equal(ds_sorter_create(&desc, &sorter), DS_ERR_UNSUPPORTED);
        assert_null(sorter);
        assert_string_equal(ds_last_error(), "sort cub: not in this build (built without "
                                             "CUDA); use --sort gl or cpu");
    } else if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        desc.algo = DS_SORT_CUB;
        desc.max_count = 10;
        assert_int_equal(ds_sorter_create(&desc, &sorter), DS_ERR_NO_DEVICE);
        assert_null(sorter);
        assert_non_null(strstr(ds_last_error(), "no CUDA device"));
    }
    ds_log_set_quiet(0);
    ds_sorter_destroy(NULL);
}

static void sort_checks_its_arguments(void **state)
{
    (void)state;
    ds_sorter_desc desc = {0};
    desc.algo = DS_SORT_CPU;
    desc.max_count = 8;
    ds_sorter *sorter;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_OK);
    assert_string_equal(ds_sorter_name(sorter), "cpu");
    assert_string_equal(ds_sorter_name(NULL), "none");
    const float original[8] = {3, 1, 2, 0, 5, 4, 7, 6};
    float keys[9] = {3, 1, 2, 0, 5, 4, 7, 6, 8};
    uint32_t values[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    ds_log_set_quiet(1);
    assert_int_equal(ds_sorter_sort(NULL, keys, values, 1, DS_SORT_ASCENDING,
                                    NULL), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_sorter_sort(sorter, keys, values, 9,
                                    DS_SORT_ASCENDING, NULL),
                     DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "exceeds"));
    assert_int_equal(ds_sorter_sort(sorter, NULL, values, 2,
                                    DS_SORT_ASCENDING, NULL),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_sorter_sort(sorter, keys, NULL, 2, DS_SORT_ASCENDING,
                                    NULL), DS_ERR_INVALID_ARG);
    ds_log_set_quiet(0);
    /* count 0 touches nothing, even NULL arrays. */
    assert_int_equal(ds_sorter_sort(sorter, NULL, NULL, 0, DS_SORT_ASCENDING,
                                    NULL), DS_OK);
    /* A full sort leaves the element beyond count alone. */
    assert_int_equal(ds_sorter_sort(sorter, keys, values, 8,
                                    DS_SORT_DESCENDING, NULL), DS_OK);
    for (int i = 0; i < 8; i++) {
        assert_true(keys[i] == (float)(7 - i));
        assert_true(original[values[i]] == keys[i]);
    }
    assert_true(keys[8] == 8.0f);
    assert_int_equal(values[8], 8);
    const char *names[4];
    float ms[4];
    assert_int_equal(ds_sorter_phases(sorter, names, ms, 4), 0);
    ds_sorter_destroy(sorter);
}

/* ---- the ordered transform --------------------------------------------- */

static void ordered_transform_keeps_sort_semantics(void **state)
{
    (void)state;
    const float ascending[] = {-INFINITY, -FLT_MAX, -1.5f, -1.0f,
                               -FLT_MIN,  -1e-45f,  0.0f,  1e-45f,
                               FLT_MIN,   1.0f,     2.0f,  FLT_MAX,
                               INFINITY};
    const size_t count = sizeof ascending / sizeof *ascending;
    for (size_t i = 0; i + 1 < count; i++) {
        assert_true(ds_key_to_ordered(ascending[i], 0) <
                    ds_key_to_ordered(ascending[i + 1], 0));
        assert_true(ds_key_to_ordered(ascending[i], 1) >
                    ds_key_to_ordered(ascending[i + 1], 1));
    }
    for (size_t i = 0; i < count; i++)
        for (int d = 0; d < 2; d++) {
            uint32_t o = ds_key_to_ordered(ascending[i], d);
            assert_true(o < 0xFFFFFFFFu);
            assert_int_equal(bits_of(ds_ordered_to_key(o, d)),
                             bits_of(ascending[i]));
        }
    /* -0 == +0, and comes back as +0. */
    for (int d = 0; d < 2; d++) {
        assert_int_equal(ds_key_to_ordered(-0.0f, d),
                         ds_key_to_ordered(0.0f, d));
        assert_int_equal(bits_of(ds_ordered_to_key(
                             ds_key_to_ordered(-0.0f, d), d)), 0);
    }
    /* Every NaN is last in both directions and comes back a NaN. */
    const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                             0xFFFFFFFFu, 0x7FFFFFFFu, 0xFF800001u};
    for (size_t i = 0; i < sizeof nans / sizeof *nans; i++)
        for (int d = 0; d < 2; d++) {
            assert_int_equal(ds_key_to_ordered(float_of(nans[i]), d),
                             0xFFFFFFFFu);
            assert_true(isnan(ds_ordered_to_key(0xFFFFFFFFu, d)));
        }
    /* Random bit patterns: the transform orders like float comparison. */
    uint64_t rng = SEED;
    for (int i = 0; i < 200000; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        float a = float_of((uint32_t)(rng >> 32));
        float b = float_of((uint32_t)rng);
        if (isnan(a) || isnan(b))
            continue;
        uint32_t oa = ds_key_to_ordered(a, 0), ob = ds_key_to_ordered(b, 0);
        assert_int_equal(a < b, oa < ob);
        assert_int_equal(a == b, oa == ob);
        assert_int_equal(a > b, ds_key_to_ordered(a, 1) <
                                    ds_key_to_ordered(b, 1));
    }
}

/* ---- inputs ------------------------------------------------------------ */

static void generators_make_their_distributions(void **state)
{
    (void)state;
    const size_t n = 100000;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_true(a && b);
    for (int d = 0; d < DS_DIST_COUNT; d++) {
        /* Deterministic per seed; another seed changes all but "zero"'s
         * shape. */
        ds_sort_input_generate((ds_sort_dist)d, n, SEED, a);
        ds_sort_input_generate((ds_sort_dist)d, n, SEED, b);
        assert_memory_equal(a, b, n * sizeof *a);
        ds_sort_input_generate((ds_sort_dist)d, n, SEED + 1, b);
        assert_memory_not_equal(a, b, n * sizeof *a);
        ds_sort_input_generate((ds_sort_dist)d, n, SEED, a);
        size_t ascending_steps = 0, nans = 0, infs = 0, negative_zeros = 0;
        for (size_t i = 0; i < n; i++) {
            ascending_steps += i > 0 && a[i] >= a[i - 1];
            nans += isnan(a[i]) != 0;
            infs += isinf(a[i]) != 0;
            negative_zeros += a[i] == 0.0f && signbit(a[i]);
            if (d != DS_DIST_SPECIAL)
                assert_true(a[i] >= 0.0f && a[i] <= 2147483648.0f);
        }
        switch (d) {
        case DS_DIST_SORTED:
            assert_int_equal(ascending_steps, n - 1);
            break;
        case DS_DIST_REVERSE:
            for (size_t i = 1; i < n; i++)
                assert_true(a[i] <= a[i - 1]);
            break;
        case DS_DIST_ZERO:
            for (size_t i = 1; i < n; i++)
                assert_true(a[i] == a[0]);
            break;
        case DS_DIST_NEARLY_SORTED:
            assert_true(ascending_steps < n - 1);
            assert_true(ascending_steps > n - n / 20);
            break;
        case DS_DIST_SPECIAL:
            assert_true(nans > n / 40 && infs > n / 20 && negative_zeros > 0);
            break;
        case DS_DIST_FEW_UNIQUE: {
            float unique[17];
            int found = 0;
            for (size_t i = 0; i < n; i++) {
                int known = 0;
                for (int k = 0; k < found; k++)
                    known |= unique[k] == a[i];
                if (!known) {
                    assert_true(found < 16);
                    unique[found++] = a[i];
                }
            }
            assert_true(found >= 12);
            break;
        }
        case DS_DIST_STAGGERED:
            /* Block 0 draws from slice 1, the last block from slice 126. */
            assert_true(a[0] >= 2147483648.0f / 128 &&
                        a[0] < 2 * 2147483648.0f / 128);
            assert_true(a[n - 1] >= 126 * (2147483648.0f / 128));
            break;
        case DS_DIST_BUCKET:
            assert_true(a[0] < 2147483648.0f / 128);
            break;
        default:
            assert_true(ascending_steps > n / 3 && ascending_steps < 2 * n / 3);
            break;
        }
    }
    free(a);
    free(b);
}

static void distances_are_euclidean(void **state)
{
    (void)state;
    const float positions[] = {3, 4, 0, 0, 0, 0, 1, 2, 2};
    const float eye[3] = {0, 0, 0};
    float d[3];
    ds_sort_input_distances(positions, 3, eye, d);
    assert_float_equal(d[0], 5.0f, 1e-6f);
    assert_float_equal(d[1], 0.0f, 0.0f);
    assert_float_equal(d[2], 3.0f, 1e-6f);
    uint32_t v[4];
    ds_sort_input_iota(4, v);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(v[i], i);
}

/* ---- the reference check catches every kind of wrong output ----------- */

static void check_finds_the_first_failure(void **state)
{
    (void)state;
    const float original[6] = {3.0f, NAN, -0.0f, 1.0f, -INFINITY, 1.0f};
    float keys[6] = {-INFINITY, 0.0f, 1.0f, 1.0f, 3.0f, NAN};
    uint32_t values[6] = {4, 2, 5, 3, 0, 1};
    char why[256];
    /* Right: -0 came back as +0, NaN payload may change. */
    keys[5] = float_of(0xFFC00001u);
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_ASCENDING, 32, why, sizeof why),
                     DS_OK);
    assert_string_equal(why, "");
    /* Out of order. */
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_DESCENDING, 32, why, sizeof why),
                     DS_ERR_MISMATCH);
    assert_non_null(strstr(why, "descending"));
    assert_non_null(strstr(why, "keys[1]"));
    /* A value twice. */
    values[3] = 5;
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_ASCENDING, 32, why, sizeof why),
                     DS_ERR_MISMATCH);
    assert_non_null(strstr(why, "value 5 appears twice"));
    /* A value out of range. */
    values[3] = 6;
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_ASCENDING, 32, why, sizeof why),
                     DS_ERR_MISMATCH);
    assert_non_null(strstr(why, "values[3] = 6"));
    /* A key that lost its value: equal keys 1.0 swapped is fine, a changed
     * key is not. */
    values[3] = 5;
    values[2] = 3;
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_ASCENDING, 32, why, sizeof why),
                     DS_OK);
    keys[2] = 1.5f;
    assert_int_equal(ds_sort_check(original, 6, keys, values,
                                   DS_SORT_ASCENDING, 32, why, sizeof why),
                     DS_ERR_MISMATCH);
    assert_non_null(strstr(why, "keys[2] = 1.5"));
    /* NaN not last. */
    const float with_nan[2] = {NAN, 1.0f};
    float out[2] = {NAN, 1.0f};
    uint32_t perm[2] = {0, 1};
    assert_int_equal(ds_sort_check(with_nan, 2, out, perm, DS_SORT_DESCENDING,
                                   32, why, sizeof why), DS_ERR_MISMATCH);
    /* key_bits: keys equal in the top 16 bits may come in any order. */
    const float close[2] = {1.0f, 1.0000001f};
    float swapped[2] = {1.0000001f, 1.0f};
    uint32_t back[2] = {1, 0};
    assert_int_equal(ds_sort_check(close, 2, swapped, back, DS_SORT_ASCENDING,
                                   16, why, sizeof why), DS_OK);
    assert_int_equal(ds_sort_check(close, 2, swapped, back, DS_SORT_ASCENDING,
                                   32, why, sizeof why), DS_ERR_MISMATCH);
    assert_int_equal(ds_sort_check(NULL, 0, NULL, NULL, DS_SORT_ASCENDING, 32,
                                   why, sizeof why), DS_OK);
}

/* ---- the CPU sort against qsort ---------------------------------------- */

static void cpu_sort_matches_qsort(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 100,
                                   1023, 1024, 1025, 4099, 65537, 200003};
    static const int key_bits[] = {32, 24, 16};
    const size_t max_n = 200003;
    float *original = malloc(max_n * sizeof(float));
    float *keys = malloc(max_n * sizeof(float));
    uint32_t *values = malloc(max_n * sizeof(uint32_t));
    uint32_t *expected = malloc(max_n * sizeof(uint32_t));
    assert_true(original && keys && values && expected);
    char why[512];
    for (int kb = 0; kb < 3; kb++) {
        ds_sorter_desc desc = {0};
        desc.algo = DS_SORT_CPU;
        desc.max_count = max_n;
        desc.key_bits = key_bits[kb];
        ds_sorter *sorter;
        assert_int_equal(ds_sorter_create(&desc, &sorter), DS_OK);
        for (int d = 0; d < DS_DIST_COUNT; d++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                const size_t n = sizes[s];
                if (kb > 0 && n > 5000)
                    continue;
                const uint64_t seed = SEED + 1000 * (uint64_t)d + s;
                ds_sort_input_generate((ds_sort_dist)d, n, seed, original);
                for (int order = 0; order < 2; order++)
                    for (int shuffle = 0; shuffle < 2; shuffle++) {
                        memcpy(keys, original, n * sizeof(float));
                        ds_sort_input_iota(n, values);
                        ds_sorter_set_shuffle(sorter, shuffle);
                        assert_int_equal(ds_sorter_sort(sorter, keys, values,
                                                        n,
                                                        (ds_sort_order)order,
                                                        NULL),
                                         DS_OK);
                        if (ds_sort_check(original, n, keys, values,
                                          (ds_sort_order)order, key_bits[kb],
                                          why, sizeof why) != DS_OK)
                            fail_msg("cpu dist=%s n=%zu order=%d shuffle=%d "
                                     "key_bits=%d seed=%llu: %s",
                                     ds_sort_dist_name((ds_sort_dist)d), n,
                                     order, shuffle, key_bits[kb],
                                     (unsigned long long)seed, why);
                        if (key_bits[kb] != 32)
                            continue;
                        /* Same sequence as qsort on the ordered keys. */
                        for (size_t i = 0; i < n; i++)
                            expected[i] = ds_key_to_ordered(original[i], order);
                        qsort(expected, n, sizeof *expected, compare_u32);
                        for (size_t i = 0; i < n; i++)
                            if (ds_key_to_ordered(keys[i], order) !=
                                expected[i])
                                fail_msg("cpu dist=%s n=%zu order=%d: keys[%zu]"
                                         " = %.9g differs from qsort's %.9g",
                                         ds_sort_dist_name((ds_sort_dist)d), n,
                                         order, i, keys[i],
                                         ds_ordered_to_key(expected[i], order));
                    }
            }
        ds_sorter_destroy(sorter);
    }
    free(original);
    free(keys);
    free(values);
    free(expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(algorithm_names_round_trip),
        cmocka_unit_test(distribution_names_round_trip),
        cmocka_unit_test(create_rejects_bad_descriptions),
        cmocka_unit_test(sort_checks_its_arguments),
        cmocka_unit_test(ordered_transform_keeps_sort_semantics),
        cmocka_unit_test(generators_make_their_distributions),
        cmocka_unit_test(distances_are_euclidean),
        cmocka_unit_test(check_finds_the_first_failure),
        cmocka_unit_test(cpu_sort_matches_qsort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
