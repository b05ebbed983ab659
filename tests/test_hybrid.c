/* SPDX-License-Identifier: MIT */
/* test_hybrid.c — proves the hybrid sort's vector building blocks
 * (kernels/sort/hybrid_network.cuh) on the CPU: the 2008 journal's sortElements
 * and its (key, value) form on every 4-element input over {0,1,2,3} (ties
 * included) and every permutation of 4 distinct keys; Fig. 1's two-step
 * merge on every pair of sorted vectors over {0..7}; and the 16-element
 * per-thread sort on every 0/1 input and on seeded random inputs; and the
 * count pass's bucket search from a key's histogram bin against a plain
 * count of pivots, on seeded random pivots (spikes and repeats included).
 * The GPU sort itself is checked by tests/test_sort_gpu.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hybrid_network.cuh"

static hybrid_vec4 vec(const uint32_t lanes[4])
{
    hybrid_vec4 r = {lanes[0], lanes[1], lanes[2], lanes[3]};
    return r;
}

static void lanes_of(hybrid_vec4 r, uint32_t dest[4])
{
    dest[0] = r.x;
    dest[1] = r.y;
    dest[2] = r.z;
    dest[3] = r.w;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Asserts that got[0..n) is the ascending sort of input[0..n). */
static void assert_sorted_copy(const uint32_t *input, const uint32_t *got, int n)
{
    uint32_t expected[16];
    for (int i = 0; i < n; i++)
        expected[i] = input[i];
    qsort(expected, (size_t)n, sizeof expected[0], cmp_u32);
    for (int i = 0; i < n; i++)
        assert_int_equal(got[i], expected[i]);
}

/* Asserts that the (key, value) output is sorted by key and that each value
 * is a distinct input index whose input key is the key beside it. */
static void assert_pairs(const uint32_t *keys_in, const uint32_t *keys,
                         const uint32_t *values, int n)
{
    int seen[16] = {0};
    assert_sorted_copy(keys_in, keys, n);
    for (int i = 0; i < n; i++) {
        assert_true(values[i] < (uint32_t)n);
        assert_int_equal(seen[values[i]], 0);
        seen[values[i]] = 1;
        assert_int_equal(keys_in[values[i]], keys[i]);
    }
}

/* Every 4-tuple over {0,1,2,3}: 256 inputs, ties of every shape. */
static void test_sort_elements_all_inputs(void **state)
{
    (void)state;
    for (int code = 0; code < 256; code++) {
        uint32_t in[4], out[4];
        for (int i = 0; i < 4; i++)
            in[i] = (uint32_t)(code >> (2 * i)) & 3u;
        lanes_of(hybrid_sort_elements(vec(in)), out);
        assert_sorted_copy(in, out, 4);
    }
}

/* All 24 orders of four distinct keys, large ones included. */
static void test_sort_elements_permutations(void **state)
{
    (void)state;
    const uint32_t keys[4] = {7u, 0x80000000u, 0xFFFFFFFEu, 0x007FFFFFu};
    int count = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 4; d++) {
                    if (a == b || a == c || a == d || b == c || b == d || c == d)
                        continue;
                    uint32_t in[4] = {keys[a], keys[b], keys[c], keys[d]};
                    uint32_t out[4];
                    lanes_of(hybrid_sort_elements(vec(in)), out);
                    assert_sorted_copy(in, out, 4);
                    count++;
                }
    assert_int_equal(count, 24);
}

/* The (key, value) network: values follow keys, ties lose nothing. */
static void test_sort_elements_pairs_all_inputs(void **state)
{
    (void)state;
    for (int code = 0; code < 256; code++) {
        uint32_t in[4], keys[4], values[4];
        const uint32_t index[4] = {0, 1, 2, 3};
        for (int i = 0; i < 4; i++)
            in[i] = (uint32_t)(code >> (2 * i)) & 3u;
        hybrid_vec4 k = vec(in), v = vec(index);
        hybrid_sort_elements_pairs(&k, &v);
        lanes_of(k, keys);
        lanes_of(v, values);
        assert_pairs(in, keys, values, 4);
    }
}

/* Every sorted 4-vector over {0..7}: the 330 multisets, ascending. */
static int sorted_vectors(uint32_t dest[330][4])
{
    int n = 0;
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = a; b < 8; b++)
            for (uint32_t c = b; c < 8; c++)
                for (uint32_t d = c; d < 8; d++) {
                    dest[n][0] = a;
                    dest[n][1] = b;
                    dest[n][2] = c;
                    dest[n][3] = d;
                    n++;
                }
    return n;
}

/* Fig. 1, keys only, then sortElements on both halves: a is the four lowest
 * of the eight, b the four highest, both ascending. 330^2 pairs. */
static void test_merge_lowest_highest_all_inputs(void **state)
{
    (void)state;
    static uint32_t sorted[330][4];
    int n = sorted_vectors(sorted);
    assert_int_equal(n, 330);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t in[8], out[8];
            for (int l = 0; l < 4; l++) {
                in[l] = sorted[i][l];
                in[4 + l] = sorted[j][l];
            }
            hybrid_vec4 a = vec(sorted[i]), b = vec(sorted[j]);
            hybrid_merge_lowest_highest(&a, &b);
            lanes_of(hybrid_sort_elements(a), out);
            lanes_of(hybrid_sort_elements(b), out + 4);
            assert_sorted_copy(in, out, 8);
        }
}

/* Fig. 1 on (key, value) vectors, every pair of sorted inputs. */
static void test_merge_pairs_all_inputs(void **state)
{
    (void)state;
    static uint32_t sorted[330][4];
    int n = sorted_vectors(sorted);
    const uint32_t low_index[4] = {0, 1, 2, 3}, high_index[4] = {4, 5, 6, 7};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t in[8], keys[8], values[8];
            for (int l = 0; l < 4; l++) {
                in[l] = sorted[i][l];
                in[4 + l] = sorted[j][l];
            }
            hybrid_vec4 ak = vec(sorted[i]), bk = vec(sorted[j]);
            hybrid_vec4 av = vec(low_index), bv = vec(high_index);
            hybrid_merge_pairs(&ak, &av, &bk, &bv);
            lanes_of(ak, keys);
            lanes_of(bk, keys + 4);
            lanes_of(av, values);
            lanes_of(bv, values + 4);
            assert_pairs(in, keys, values, 8);
        }
}

static void check_sort16(const uint32_t in[16])
{
    hybrid_vec4 k[4], v[4];
    uint32_t keys[16], values[16], index[16];
    for (int i = 0; i < 16; i++)
        index[i] = (uint32_t)i;
    for (int i = 0; i < 4; i++) {
        k[i] = vec(in + 4 * i);
        v[i] = vec(index + 4 * i);
    }
    hybrid_sort16_pairs(k, v);
    for (int i = 0; i < 4; i++) {
        lanes_of(k[i], keys + 4 * i);
        lanes_of(v[i], values + 4 * i);
    }
    assert_pairs(in, keys, values, 16);
}

/* The per-thread 16-pair sort (network plus the data-dependent merge loop):
 * every 0/1 input, then seeded random inputs over small and full ranges. */
static void test_sort16_pairs(void **state)
{
    (void)state;
    for (uint32_t code = 0; code < (1u << 16); code++) {
        uint32_t in[16];
        for (int i = 0; i < 16; i++)
            in[i] = (code >> i) & 1u;
        check_sort16(in);
    }
    const unsigned seed = 12345u;
    printf("test_hybrid: sort16 random seed %u\n", seed);
    srand(seed);
    for (int trial = 0; trial < 200000; trial++) {
        uint32_t in[16];
        uint32_t range = (trial % 3 == 0) ? 4u : (trial % 3 == 1) ? 64u : 0u;
        for (int i = 0; i < 16; i++) {
            uint32_t r = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
            in[i] = range ? r % range : r;
        }
        check_sort16(in);
    }
}

static uint32_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 32);
}

/* The kernels' histogram bin: (key - lo) * scale >> 32. */
static uint32_t bin_of(uint32_t key, uint32_t lo, uint64_t scale)
{
    return (uint32_t)(((uint64_t)(key - lo) * scale) >> 32);
}

/* One configuration: L buckets, `bins` bins, keys in [lo, hi]; pivots drawn
 * sorted from a few clusters (so that bins hold none, one or many pivots,
 * some repeated), then every key tested: pivots, their neighbours, random
 * keys and the ends. */
static void check_bin_search(uint64_t *rng, uint32_t L, uint32_t bins,
                             uint32_t lo, uint32_t hi)
{
    enum { MAX_L = 2048 };
    static uint32_t pivots[MAX_L + 1], pivot_bin[MAX_L], first[8193];
    assert_true(L <= MAX_L && bins <= 8192 && lo < hi && hi < 0xFFFFFFFFu);
    uint64_t span = (uint64_t)(hi - lo) + 1;
    uint64_t scale = ((uint64_t)bins << 32) / span;
    uint32_t width = hi - lo;
    pivots[0] = lo;
    for (uint32_t j = 1; j < L; j++) {
        uint32_t r = next_random(rng);
        switch (r % 4) {
        case 0: pivots[j] = lo + next_random(rng) % width; break;        /* anywhere */
        case 1: pivots[j] = lo + width / 3 + next_random(rng) % 8; break; /* a spike */
        case 2: pivots[j] = j > 1 ? pivots[j - 1] : lo; break;           /* a repeat */
        default: pivots[j] = hi - next_random(rng) % 2; break;           /* the top */
        }
        if (r % 16 == 15)
            pivots[j] = hi + 1; /* a single-value top bucket's end */
    }
    qsort(pivots + 1, L - 1, sizeof pivots[0], cmp_u32);
    pivots[L] = hi + 1;
    for (uint32_t j = 1; j < L; j++)
        pivot_bin[j] = bin_of(pivots[j], lo, scale);
    for (uint32_t h = 0; h <= bins; h++)
        first[h] = hybrid_bin_first(pivot_bin, L, h);
    for (int trial = 0; trial < 4 * (int)L + 2000; trial++) {
        uint32_t key;
        uint32_t pick = next_random(rng) % 5;
        uint32_t j = 1 + next_random(rng) % L;
        if (pick == 0)
            key = lo + next_random(rng) % width;
        else if (pick == 1)
            key = trial % 2 ? lo : hi;
        else
            key = pivots[j < L ? j : L - 1] - (pick == 2) + (pick == 4);
        if (key < lo || key > hi)
            continue;
        uint32_t expected = 0;
        for (uint32_t p = 1; p < L; p++)
            expected += pivots[p] <= key;
        uint32_t h = bin_of(key, lo, scale);
        assert_true(h < bins);
        uint32_t found = first[h], left = first[h + 1] - first[h];
        while (left)
            hybrid_search_step(pivots, key, &found, &left);
        assert_int_equal(found, expected);
    }
}

static void test_bin_search(void **state)
{
    (void)state;
    const uint64_t seed = 2024;
    uint64_t rng = seed;
    printf("test_hybrid: bin search seed %llu\n", (unsigned long long)seed);
    static const uint32_t sizes[] = {1, 2, 3, 13, 255, 1093, 2048};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t L = sizes[i];
        uint32_t bins = 4 * L < 256 ? 256 : 4 * L > 8192 ? 8192 : 4 * L;
        check_bin_search(&rng, L, bins, 1, 0xFFFFFFFEu);
        check_bin_search(&rng, L, bins, 0x80000000u, 0x80000000u + 5000);
        check_bin_search(&rng, L, 256, 77, 79);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_elements_all_inputs),
        cmocka_unit_test(test_sort_elements_permutations),
        cmocka_unit_test(test_sort_elements_pairs_all_inputs),
        cmocka_unit_test(test_merge_lowest_highest_all_inputs),
        cmocka_unit_test(test_merge_pairs_all_inputs),
        cmocka_unit_test(test_sort16_pairs),
        cmocka_unit_test(test_bin_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
