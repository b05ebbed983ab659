/* SPDX-License-Identifier: MIT */
/* test_sort_gpu.c — the GPU correctness suite of the sort library: every
 * built algorithm x every input distribution (plus camera distances of a
 * synthetic point set) x sizes from 0 to 2^24 x ascending/descending x
 * shuffle off/on, checked by ds_sort_check (order, NaN last, -0 == +0,
 * values a permutation, keys still paired). Device memory beyond count is
 * poisoned and must come back untouched. Exits 77 without a CUDA device.
 *
 * Options (so that one algorithm's author can run just theirs):
 *   --algo NAME      only this algorithm (repeatable; default all built)
 *   --dist NAME      only this distribution (repeatable; "mesh" included)
 *   --max-size N     skip sizes above N
 *   --quick          sizes up to 8193 plus 2^20 + 1 and 2,000,003 only
 *                    (radix: its one-block sort up to 8,192 pairs, on a
 *                    132-SM H100 its single launch up to 1,081,344, its
 *                    multi-launch sort above)
 *   --sizes LIST     only these sizes (comma separated), e.g. for racecheck
 *   --exact          allocate exactly count elements per case (no guard),
 *                    so that compute-sanitizer memcheck sees any read or
 *                    write beyond count; slower, use with small sizes
 * Seeds are fixed and printed with every failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "sort.h"
#include "sort_inputs.h"
#include "sort_keys.cuh"
#include "sort_radix_tuning.h"

#define GUARD_COUNT 1024          /* poisoned elements after count */
#define POISON_BYTE 0xA5
#define DIST_MESH DS_DIST_COUNT   /* extra distribution: camera distances */
#define DIST_TOTAL (DS_DIST_COUNT + 1)
#define BASE_SEED 20240601ull
#define MAX_REPORTED_FAILURES 40

static const size_t all_sizes[] = {
    0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 1023, 1024, 1025, 4096, 4099, 8192, 8193,
    (1u << 20) - 1, (1u << 20) + 1, 2000003, 5000003, 16777216,
};
#define SIZE_COUNT (sizeof all_sizes / sizeof *all_sizes)

/* Options from the command line (read-only once the tests start). */
static struct {
    int algo_selected[DS_SORT_ALGO_COUNT];
    int any_algo;
    int dist_selected[DIST_TOTAL];
    int any_dist;
    size_t max_size;
    int quick;
    int exact;
    size_t only_sizes[32];
    int only_size_count;
} opts = {.max_size = SIZE_MAX};

/* ---- helpers ----------------------------------------------------------- */

static const char *dist_label(int dist)
{
    return dist == DIST_MESH ? "mesh" : ds_sort_dist_name((ds_sort_dist)dist);
}

static int size_wanted(size_t n)
{
    if (n > opts.max_size)
        return 0;
    if (opts.quick && n > 8193 && n != (1u << 20) + 1 && n != 2000003)
        return 0;
    if (opts.only_size_count) {
        for (int i = 0; i < opts.only_size_count; i++)
            if (opts.only_sizes[i] == n)
                return 1;
        return 0;
    }
    return 1;
}

static int algo_wanted(ds_sort_algo algo)
{
    return (!opts.any_algo || opts.algo_selected[algo]);
}

/* Distances from an eye outside a torus of points laid out ring by ring,
 * the locally coherent order real vertex lists have. */
static void generate_mesh_distances(size_t count, uint64_t seed, float *dest)
{
    float *positions = malloc((count ? count : 1) * 3 * sizeof(float));
    assert_non_null(positions);
    size_t rings = 1;
    while (rings * rings < count)
        rings++;
    float twist = (float)(seed % 7) * 0.1f;
    for (size_t i = 0; i < count; i++) {
        float u = 6.2831853f * (float)(i / rings) / (float)rings + twist;
        float v = 6.2831853f * (float)(i % rings) / (float)rings;
        float r = 1.0f + 0.3f * cosf(v);
        positions[3 * i] = r * cosf(u);
        positions[3 * i + 1] = 0.3f * sinf(v);
        positions[3 * i + 2] = r * sinf(u);
    }
    const float eye[3] = {2.5f, 1.0f, 3.0f};
    ds_sort_input_distances(positions, count, eye, dest);
    free(positions);
}

static void generate(int dist, size_t count, uint64_t seed, float *dest)
{
    if (dist == DIST_MESH)
        generate_mesh_distances(count, seed, dest);
    else
        ds_sort_input_generate((ds_sort_dist)dist, count, seed, dest);
}

static int guard_untouched(const void *bytes, size_t size)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < size; i++)
        if (b[i] != POISON_BYTE)
            return 0;
    return 1;
}

/* Buffers shared by every case, sized for the largest one. */
typedef struct suite_buffers {
    size_t capacity;
    float *original;       /* host input keys */
    uint32_t *iota;        /* host input values */
    float *host_keys;      /* pinned: results (and the CPU sort's arrays) */
    uint32_t *host_values;
    float *device_keys;    /* capacity + GUARD_COUNT */
    uint32_t *device_values;
    cudaStream_t stream;
} suite_buffers;

/* Runs one case; returns 1 and prints a line with the seed on failure. */
static int run_case(ds_sorter *sorter, ds_sort_algo algo, suite_buffers *buf,
                    int dist, size_t n, uint64_t seed, ds_sort_order order,
                    int shuffle, int key_bits)
{
    char why[512] = "";
    const size_t total = n + GUARD_COUNT;
    ds_status status;
    float *keys;
    uint32_t *values;
    float *exact_keys = NULL;
    uint32_t *exact_values = NULL;

    ds_sorter_set_shuffle(sorter, shuffle);
    if (ds_sort_algo_on_host(algo)) {
        memcpy(buf->host_keys, buf->original, n * sizeof(float));
        memcpy(buf->host_values, buf->iota, n * sizeof(uint32_t));
        memset(buf->host_keys + n, POISON_BYTE, GUARD_COUNT * sizeof(float));
        memset(buf->host_values + n, POISON_BYTE,
               GUARD_COUNT * sizeof(uint32_t));
        status = ds_sorter_sort(sorter, buf->host_keys, buf->host_values, n,
                                order, NULL);
    } else {
        keys = buf->device_keys;
        values = buf->device_values;
        if (opts.exact && n > 0) {
            assert_int_equal(cudaMalloc((void **)&exact_keys,
                                        n * sizeof(float)), cudaSuccess);
            assert_int_equal(cudaMalloc((void **)&exact_values,
                                        n * sizeof(uint32_t)), cudaSuccess);
            keys = exact_keys;
            values = exact_values;
        }
        assert_int_equal(cudaMemcpyAsync(keys, buf->original, n * sizeof(float),
                                         cudaMemcpyHostToDevice, buf->stream),
                         cudaSuccess);
        assert_int_equal(cudaMemcpyAsync(values, buf->iota,
                                         n * sizeof(uint32_t),
                                         cudaMemcpyHostToDevice, buf->stream),
                         cudaSuccess);
        if (!opts.exact) {
            assert_int_equal(cudaMemsetAsync(keys + n, POISON_BYTE,
                                             GUARD_COUNT * sizeof(float),
                                             buf->stream), cudaSuccess);
            assert_int_equal(cudaMemsetAsync(values + n, POISON_BYTE,
                                             GUARD_COUNT * sizeof(uint32_t),
                                             buf->stream), cudaSuccess);
        }
        status = ds_sorter_sort(sorter, keys, values, n, order,
                                (ds_stream)buf->stream);
        size_t copied = opts.exact ? n : total;
        cudaError_t err = cudaMemcpyAsync(buf->host_keys, keys,
                                          copied * sizeof(float),
                                          cudaMemcpyDeviceToHost, buf->stream);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(buf->host_values, values,
                                  copied * sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost, buf->stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(buf->stream);
        cudaFree(exact_keys);
        cudaFree(exact_values);
        if (err != cudaSuccess) {
            snprintf(why, sizeof why, "CUDA error after the sort: %s",
                     cudaGetErrorString(err));
            status = DS_ERR_CUDA;
        }
    }

    int failed = 1;
    if (status != DS_OK) {
        if (!why[0])
            snprintf(why, sizeof why, "ds_sorter_sort returned %s: %s",
                     ds_status_str(status), ds_last_error());
    } else if (ds_sort_check(buf->original, n, buf->host_keys,
                             buf->host_values, order, key_bits, why,
                             sizeof why) != DS_OK) {
        /* why says what */
    } else if ((!opts.exact || ds_sort_algo_on_host(algo)) &&
               (!guard_untouched(buf->host_keys + n,
                                 GUARD_COUNT * sizeof(float)) ||
                !guard_untouched(buf->host_values + n,
                                 GUARD_COUNT * sizeof(uint32_t)))) {
        snprintf(why, sizeof why, "wrote beyond count (guard changed)");
    } else {
        failed = 0;
    }
    if (failed)
        printf("FAIL algo=%s dist=%s n=%zu order=%s shuffle=%d key_bits=%d "
               "seed=%llu: %s\n",
               ds_sort_algo_name(algo), dist_label(dist), n,
               order == DS_SORT_DESCENDING ? "descending" : "ascending",
               shuffle, key_bits, (unsigned long long)seed, why);
    return failed;
}

static size_t largest_size(void)
{
    size_t largest = 0;
    for (size_t s = 0; s < SIZE_COUNT; s++)
        if (size_wanted(all_sizes[s]) && all_sizes[s] > largest)
            largest = all_sizes[s];
    return largest;
}

static void buffers_init(suite_buffers *buf, size_t capacity)
{
    memset(buf, 0, sizeof *buf);
    buf->capacity = capacity;
    size_t total = capacity + GUARD_COUNT;
    buf->original = malloc(total * sizeof(float));
    buf->iota = malloc(total * sizeof(uint32_t));
    assert_non_null(buf->original);
    assert_non_null(buf->iota);
    ds_sort_input_iota(total, buf->iota);
    assert_int_equal(cudaMallocHost((void **)&buf->host_keys,
                                    total * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&buf->host_values,
                                    total * sizeof(uint32_t)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&buf->device_keys,
                                total * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&buf->device_values,
                                total * sizeof(uint32_t)), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&buf->stream), cudaSuccess);
}

static void buffers_free(suite_buffers *buf)
{
    free(buf->original);
    free(buf->iota);
    cudaFreeHost(buf->host_keys);
    cudaFreeHost(buf->host_values);
    cudaFree(buf->device_keys);
    cudaFree(buf->device_values);
    cudaStreamDestroy(buf->stream);
}

/* A sorter for up to max_count pairs of full (0) or key_bits-bit keys,
 * with or without the keys_nonnegative promise; the test fails if it
 * cannot be made. */
static ds_sorter *new_sorter(ds_sort_algo algo, size_t max_count, int key_bits,
                             int keys_nonnegative)
{
    ds_sorter_desc desc = {0};
    desc.algo = algo;
    desc.max_count = max_count;
    desc.key_bits = key_bits;
    desc.keys_nonnegative = keys_nonnegative;
    ds_sorter *sorter = NULL;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_OK);
    return sorter;
}

/* ---- tests ------------------------------------------------------------- */

/* The matrix: each input is generated once and sorted by every algorithm,
 * in both directions, with and without the shuffle. */
static void every_algorithm_sorts_every_input(void **state)
{
    (void)state;
    suite_buffers buf;
    const size_t capacity = largest_size();
    buffers_init(&buf, capacity);
    ds_sorter *sorters[DS_SORT_ALGO_COUNT] = {0};
    int algos = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a))
            continue;
        ds_sorter_desc desc = {0};
        desc.algo = (ds_sort_algo)a;
        desc.max_count = capacity;
        desc.shuffle_seed = BASE_SEED;
        ds_status status = ds_sorter_create(&desc, &sorters[a]);
        if (status != DS_OK)
            print_error("create %s for %zu pairs: %s\n",
                        ds_sort_algo_name((ds_sort_algo)a), capacity,
                        ds_last_error());
        assert_int_equal(status, DS_OK);
        algos++;
    }
    assert_true(algos > 0);

    int failures = 0, cases = 0;
    for (int dist = 0; dist < DIST_TOTAL; dist++) {
        if (opts.any_dist && !opts.dist_selected[dist])
            continue;
        for (size_t s = 0; s < SIZE_COUNT; s++) {
            const size_t n = all_sizes[s];
            if (!size_wanted(n))
                continue;
            const uint64_t seed = BASE_SEED + 1000003ull * (uint64_t)dist + s;
            generate(dist, n, seed, buf.original);
            for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
                if (!sorters[a])
                    continue;
                for (int order = 0; order < 2; order++)
                    for (int shuffle = 0; shuffle < 2; shuffle++) {
                        int failed = run_case(sorters[a], (ds_sort_algo)a,
                                              &buf, dist, n, seed,
                                              (ds_sort_order)order, shuffle,
                                              32);
                        failures += failed;
                        cases++;
                        if (failures >= MAX_REPORTED_FAILURES)
                            goto done;
                    }
            }
        }
        printf("  %-13s done (%d cases, %d failures so far)\n",
               dist_label(dist), cases, failures);
        fflush(stdout);
    }
done:
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        ds_sorter_destroy(sorters[a]);
    buffers_free(&buf);
    if (failures)
        print_error("%d of %d cases failed (stopped after %d)\n", failures,
                    cases, MAX_REPORTED_FAILURES);
    assert_int_equal(failures, 0);
}

/* key_bits 16 and 24: every algorithm accepts them; the result is checked
 * on the top bits only (what the header promises). */
static void pre_quantised_keys_sort_on_their_top_bits(void **state)
{
    (void)state;
    static const int bits[] = {16, 24};
    static const size_t sizes[] = {1, 33, 4099, 300001};
    suite_buffers buf;
    buffers_init(&buf, 300001);
    int failures = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a))
            continue;
        for (int b = 0; b < 2; b++) {
            ds_sorter *sorter = new_sorter((ds_sort_algo)a, 300001, bits[b], 0);
            for (size_t s = 0; s < 4; s++) {
                if (!size_wanted(sizes[s]))
                    continue;
                for (int dist = 0; dist < DS_DIST_COUNT; dist += 3) {
                    uint64_t seed = BASE_SEED + 77 * s + dist;
                    generate(dist, sizes[s], seed, buf.original);
                    for (int order = 0; order < 2; order++)
                        failures += run_case(sorter, (ds_sort_algo)a, &buf,
                                             dist, sizes[s], seed,
                                             (ds_sort_order)order, 0, bits[b]);
                }
            }
            ds_sorter_destroy(sorter);
        }
    }
    buffers_free(&buf);
    assert_int_equal(failures, 0);
}

/* Keys made sign-clear and NaN-free, as keys_nonnegative promises: |key|,
 * NaN -> +Inf. */
static void make_nonnegative(float *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float k = fabsf(keys[i]);
        keys[i] = isnan(k) ? INFINITY : k;
    }
}

/* desc.keys_nonnegative: every distribution made sign-clear and NaN-free
 * (|key|, NaN -> +Inf), with +0, a denormal, FLT_MIN, FLT_MAX and +Inf
 * planted, sorts exactly as without the promise (cub skips its key
 * transforms; the other algorithms ignore the flag), at every key width. */
static void nonnegative_keys_sort_untransformed(void **state)
{
    (void)state;
    static const int bits[] = {32, 24, 16};
    static const size_t sizes[] = {1, 33, 4099, 300001, 1000003};
    static const float planted[] = {0.0f, 1e-40f, 1.17549435e-38f,
                                    3.40282347e38f, INFINITY};
    const size_t capacity = 1000003;
    suite_buffers buf;
    buffers_init(&buf, capacity);
    int failures = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a))
            continue;
        for (int b = 0; b < 3; b++) {
            ds_sorter *sorter = new_sorter((ds_sort_algo)a, capacity, bits[b], 1);
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                if (!size_wanted(sizes[s]))
                    continue;
                for (int dist = 0; dist < DIST_TOTAL; dist += 2) {
                    uint64_t seed = BASE_SEED + 31 * s + dist;
                    generate(dist, sizes[s], seed, buf.original);
                    make_nonnegative(buf.original, sizes[s]);
                    for (size_t i = 3; i < sizes[s]; i += 97)
                        buf.original[i] = planted[(i / 97) % 5];
                    for (int order = 0; order < 2; order++)
                        failures += run_case(sorter, (ds_sort_algo)a, &buf,
                                             dist, sizes[s], seed,
                                             (ds_sort_order)order, 0, bits[b]);
                }
            }
            ds_sorter_destroy(sorter);
        }
    }
    buffers_free(&buf);
    assert_int_equal(failures, 0);
}

/* ds_sorter_set_low_key_bits: keys whose bits are below 2^16 or 2^24 (the
 * renderer's narrowed keys: +0, denormals and the smallest normals; each
 * distribution's keys mapped there in order, with ties) sort exactly, on
 * every algorithm (cub and radix on the low bits alone, the others on
 * full keys; 2,000,003 pairs take radix's multi-launch sort); then, with
 * 32, full-range keys sort again. */
static void low_key_bits_sort_exactly(void **state)
{
    (void)state;
    static const int bits[] = {24, 16};
    static const size_t sizes[] = {33, 4099, 300001, 1000003, 2000003};
    const size_t capacity = 2000003;
    suite_buffers buf;
    buffers_init(&buf, capacity);
    int failures = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a))
            continue;
        ds_sorter *sorter = new_sorter((ds_sort_algo)a, capacity, 0, 1);
        for (int b = 0; b < 2; b++) {
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                if (!size_wanted(sizes[s]))
                    continue;
                for (int dist = 0; dist < DIST_TOTAL; dist += 3) {
                    uint64_t seed = BASE_SEED + 53 * s + dist;
                    generate(dist, sizes[s], seed, buf.original);
                    make_nonnegative(buf.original, sizes[s]);
                    for (size_t i = 0; i < sizes[s]; i++) {
                        uint32_t word;
                        memcpy(&word, &buf.original[i], sizeof word);
                        word >>= 31 - bits[b];
                        if (i % 89 == 5)
                            word = (i / 89) % 3 == 0 ? 0u : (1u << bits[b]) - 1u;
                        memcpy(&buf.original[i], &word, sizeof word);
                    }
                    ds_sorter_set_low_key_bits(sorter, bits[b]);
                    for (int order = 0; order < 2; order++)
                        failures += run_case(sorter, (ds_sort_algo)a, &buf, dist, sizes[s],
                                             seed, (ds_sort_order)order, 0, 32);
                    ds_sorter_set_low_key_bits(sorter, 32);
                    generate(dist, sizes[s], seed, buf.original);
                    make_nonnegative(buf.original, sizes[s]);
                    failures += run_case(sorter, (ds_sort_algo)a, &buf, dist, sizes[s], seed,
                                         DS_SORT_DESCENDING, 0, 32);
                }
            }
        }
        ds_sorter_destroy(sorter);
    }
    buffers_free(&buf);
    assert_int_equal(failures, 0);
}

/* ds_sorter_sort_pingpong: the sorted pairs are where *in_alt says, for
 * every algorithm, full keys and (cub, and radix's multi-launch sort at
 * 2,000,003 pairs: an odd pass count, ending in the second pair) keys
 * below 2^24, also when they are below 2^16, so that the top pass is
 * skipped and the result must be moved to where *in_alt said; bad second
 * pairs are refused. */
static void pingpong_sorts_end_where_they_say(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 4099, 300001, 2000003};
    const size_t capacity = 2000003;
    float *keys = malloc(capacity * sizeof *keys), *out = malloc(capacity * sizeof *out);
    uint32_t *values = malloc(capacity * sizeof *values);
    float *d_keys, *d_alt_keys;
    uint32_t *d_values, *d_alt_values;
    assert_true(keys && out && values);
    assert_int_equal(cudaMalloc((void **)&d_keys, capacity * 4), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_values, capacity * 4), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_alt_keys, capacity * 4), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_alt_values, capacity * 4), cudaSuccess);
    int failures = 0, ended_in_alt = 0, radix_in_alt = 0;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a) || ds_sort_algo_on_host((ds_sort_algo)a))
            continue;
        ds_sorter *sorter = new_sorter((ds_sort_algo)a, capacity, 0, 1);
        int in_alt = 0;
        ds_log_set_quiet(1);
        assert_int_equal(ds_sorter_sort_pingpong(sorter, d_keys, d_values, d_alt_keys,
                                                 d_alt_values, 2, DS_SORT_ASCENDING, 0, NULL),
                         DS_ERR_INVALID_ARG);
        ds_status bad = ds_sorter_sort_pingpong(sorter, d_keys, d_values, d_keys, d_alt_values,
                                                2, DS_SORT_ASCENDING, 0, &in_alt);
        ds_log_set_quiet(0);
        /* Only a backend that uses the second pair looks at it. */
        assert_true(bad == DS_ERR_INVALID_ARG || bad == DS_OK);
        for (int low = 0; low < 3; low++) {
            ds_sorter_set_low_key_bits(sorter, low ? 24 : 32);
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                if (!size_wanted(sizes[s]))
                    continue;
                size_t n = sizes[s];
                ds_sort_input_generate(DS_DIST_UNIFORM, n, BASE_SEED + s, keys);
                make_nonnegative(keys, n);
                for (size_t i = 0; low && i < n; i++) {
                    uint32_t word;
                    memcpy(&word, &keys[i], sizeof word);
                    word >>= low == 1 ? 7 : 16; /* below 2^24, or 2^16 */
                    memcpy(&keys[i], &word, sizeof word);
                }
                ds_sort_input_iota(n, values);
                cudaMemcpy(d_keys, keys, n * 4, cudaMemcpyHostToDevice);
                cudaMemcpy(d_values, values, n * 4, cudaMemcpyHostToDevice);
                assert_int_equal(ds_sorter_sort_pingpong(sorter, d_keys, d_values, d_alt_keys,
                                                         d_alt_values, n, DS_SORT_DESCENDING, 0,
                                                         &in_alt),
                                 DS_OK);
                ended_in_alt += in_alt;
                if (a == DS_SORT_RADIX)
                    radix_in_alt += in_alt;
                cudaMemcpy(out, in_alt ? d_alt_keys : d_keys, n * 4, cudaMemcpyDeviceToHost);
                cudaMemcpy(values, in_alt ? d_alt_values : d_values, n * 4,
                           cudaMemcpyDeviceToHost);
                char why[512];
                if (ds_sort_check(keys, n, out, values, DS_SORT_DESCENDING, 32, why,
                                  sizeof why) != DS_OK) {
                    print_error("%s pingpong n=%zu low=%d in_alt=%d: %s\n",
                                ds_sort_algo_name((ds_sort_algo)a), n, low, in_alt, why);
                    failures++;
                }
            }
        }
        ds_sorter_destroy(sorter);
    }
    cudaFree(d_keys);
    cudaFree(d_values);
    cudaFree(d_alt_keys);
    cudaFree(d_alt_values);
    free(keys);
    free(out);
    free(values);
    assert_int_equal(failures, 0);
    /* cub's three passes over 24-bit keys end in the second pair, and so
     * do radix's above its single launch. */
    if (algo_wanted(DS_SORT_CUB) && size_wanted(4099))
        assert_true(ended_in_alt > 0);
    if (algo_wanted(DS_SORT_RADIX) && size_wanted(2000003))
        assert_true(radix_in_alt > 0);
}

/* Both shuffle methods permute: pairs stay together, every value once, and
 * most pairs move. */
static void both_shuffles_permute_the_pairs(void **state)
{
    (void)state;
    static const size_t sizes[] = {2, 3, 1000, 1001, 65536, 1000003};
    for (int m = 0; m < DS_SHUFFLE_METHOD_COUNT; m++) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            const size_t n = sizes[s];
            if (n > largest_size())
                continue;
            float *keys = malloc(n * sizeof *keys);
            float *out = malloc(n * sizeof *out);
            uint32_t *values = malloc(n * sizeof *values);
            assert_true(keys && out && values);
            ds_sort_input_generate(DS_DIST_SPECIAL, n, BASE_SEED + s, keys);
            ds_sort_input_iota(n, values);
            float *d_keys, *d_scratch_keys;
            uint32_t *d_values, *d_scratch_values;
            assert_int_equal(cudaMalloc((void **)&d_keys, n * 4), cudaSuccess);
            assert_int_equal(cudaMalloc((void **)&d_values, n * 4), cudaSuccess);
            assert_int_equal(cudaMalloc((void **)&d_scratch_keys, (n + 1) * 4),
                             cudaSuccess);
            assert_int_equal(cudaMalloc((void **)&d_scratch_values,
                                        (n + 1) * 4), cudaSuccess);
            cudaMemcpy(d_keys, keys, n * 4, cudaMemcpyHostToDevice);
            cudaMemcpy(d_values, values, n * 4, cudaMemcpyHostToDevice);
            assert_int_equal(ds_shuffle_pairs_with((ds_shuffle_method)m,
                                                   d_keys, d_values,
                                                   d_scratch_keys,
                                                   d_scratch_values, n,
                                                   BASE_SEED, NULL),
                             DS_OK);
            assert_int_equal(cudaMemcpy(out, d_keys, n * 4,
                                        cudaMemcpyDeviceToHost), cudaSuccess);
            assert_int_equal(cudaMemcpy(values, d_values, n * 4,
                                        cudaMemcpyDeviceToHost), cudaSuccess);
            size_t fixed = 0;
            uint8_t *seen = calloc(n, 1);
            assert_non_null(seen);
            for (size_t i = 0; i < n; i++) {
                assert_true(values[i] < n);
                assert_false(seen[values[i]]);
                seen[values[i]] = 1;
                uint32_t a, b;
                memcpy(&a, &out[i], 4);
                memcpy(&b, &keys[values[i]], 4);
                int both_nan = (a & 0x7FFFFFFFu) > 0x7F800000u &&
                               (b & 0x7FFFFFFFu) > 0x7F800000u;
                if (a != b && !both_nan)
                    fail_msg("shuffle %s n=%zu: key at %zu lost its pair",
                             ds_shuffle_method_name((ds_shuffle_method)m), n,
                             i);
                fixed += values[i] == i;
            }
            if (n >= 1000 && fixed > n / 50)
                fail_msg("shuffle %s n=%zu: %zu of %zu pairs did not move",
                         ds_shuffle_method_name((ds_shuffle_method)m), n,
                         fixed, n);
            free(seen);
            free(keys);
            free(out);
            free(values);
            cudaFree(d_keys);
            cudaFree(d_values);
            cudaFree(d_scratch_keys);
            cudaFree(d_scratch_values);
        }
    }
}

/* Phase timing: the cub backend reports its three phases, after the
 * shuffle when that is on. */
static void phases_are_reported(void **state)
{
    (void)state;
    if (!algo_wanted(DS_SORT_CUB))
        skip();
    ds_sorter_desc desc = {0};
    desc.algo = DS_SORT_CUB;
    desc.max_count = 4096;
    desc.time_phases = 1;
    desc.shuffle = 1;
    ds_sorter *sorter;
    assert_int_equal(ds_sorter_create(&desc, &sorter), DS_OK);
    float *keys;
    uint32_t *values;
    assert_int_equal(cudaMalloc((void **)&keys, 4096 * 4), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&values, 4096 * 4), cudaSuccess);
    cudaMemset(keys, 0, 4096 * 4);
    cudaMemset(values, 0, 4096 * 4);
    assert_int_equal(ds_sorter_sort(sorter, keys, values, 4096,
                                    DS_SORT_ASCENDING, NULL), DS_OK);
    const char *names[DS_SORT_MAX_PHASES];
    float ms[DS_SORT_MAX_PHASES];
    int phases = ds_sorter_phases(sorter, names, ms, DS_SORT_MAX_PHASES);
    assert_int_equal(phases, 4);
    assert_string_equal(names[0], "shuffle");
    for (int p = 0; p < phases; p++)
        assert_true(ms[p] >= 0.0f);
    assert_int_equal(ds_sorter_phases(sorter, names, ms, 2), 2);
    cudaFree(keys);
    cudaFree(values);
    ds_sorter_destroy(sorter);
}

/* Front-end errors on a GPU sorter: count 0 launches nothing even with
 * NULL arrays; too large a count and arrays off DS_SORT_ALIGNMENT are
 * refused (the same arrays aligned sort). */
static void gpu_sorter_checks_its_arguments(void **state)
{
    (void)state;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a) || ds_sort_algo_on_host((ds_sort_algo)a))
            continue;
        ds_sorter *sorter = new_sorter((ds_sort_algo)a, 10, 0, 0);
        assert_string_equal(ds_sorter_name(sorter),
                            ds_sort_algo_name((ds_sort_algo)a));
        assert_int_equal(ds_sorter_sort(sorter, NULL, NULL, 0,
                                        DS_SORT_ASCENDING, NULL), DS_OK);
        ds_log_set_quiet(1);
        assert_int_equal(ds_sorter_sort(sorter, NULL, NULL, 11,
                                        DS_SORT_ASCENDING, NULL),
                         DS_ERR_INVALID_ARG);
        assert_int_equal(ds_sorter_sort(sorter, NULL, NULL, 5,
                                        DS_SORT_ASCENDING, NULL),
                         DS_ERR_INVALID_ARG);
        float *keys;
        uint32_t *values;
        assert_int_equal(cudaMalloc((void **)&keys, 16 * sizeof(float)), cudaSuccess);
        assert_int_equal(cudaMalloc((void **)&values, 16 * sizeof(uint32_t)),
                         cudaSuccess);
        assert_int_equal(cudaMemset(keys, 0, 16 * sizeof(float)), cudaSuccess);
        assert_int_equal(ds_sorter_sort(sorter, keys + 1, values, 5,
                                        DS_SORT_ASCENDING, NULL),
                         DS_ERR_INVALID_ARG);
        assert_non_null(strstr(ds_last_error(), "aligned"));
        assert_int_equal(ds_sorter_sort(sorter, keys, values + 3, 5,
                                        DS_SORT_ASCENDING, NULL),
                         DS_ERR_INVALID_ARG);
        ds_log_set_quiet(0);
        assert_int_equal(ds_sorter_sort(sorter, keys + 4, values + 4, 5,
                                        DS_SORT_ASCENDING, NULL), DS_OK);
        assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
        cudaFree(keys);
        cudaFree(values);
        ds_sorter_destroy(sorter);
        /* max_count 0 is a valid (if useless) sorter. */
        sorter = new_sorter((ds_sort_algo)a, 0, 0, 0);
        assert_int_equal(ds_sorter_sort(sorter, NULL, NULL, 0,
                                        DS_SORT_DESCENDING, NULL), DS_OK);
        ds_sorter_destroy(sorter);
    }
}

/* What a sorter of 8M pairs takes from the device's free memory is within
 * what its backend reports (ds_sort_algo_bytes_per_pair, which the
 * renderer uses to refuse a mesh that cannot fit), give or take the
 * allocator's granularity. */
static void sorters_take_what_they_report(void **state)
{
    (void)state;
    const size_t count = (size_t)8 << 20, slack = (size_t)8 << 20;
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!algo_wanted((ds_sort_algo)a) || ds_sort_algo_on_host((ds_sort_algo)a))
            continue;
        size_t free_before = 0, free_after = 0, total = 0;
        assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
        assert_int_equal(cudaMemGetInfo(&free_before, &total), cudaSuccess);
        ds_sorter *sorter = new_sorter((ds_sort_algo)a, count, 0, 0);
        assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
        assert_int_equal(cudaMemGetInfo(&free_after, &total), cudaSuccess);
        size_t taken = free_before > free_after ? free_before - free_after : 0;
        size_t reported = ds_sort_algo_bytes_per_pair((ds_sort_algo)a) * count;
        printf("%-9s %zu pairs: took %.1f MiB, reports %.1f MiB\n",
               ds_sort_algo_name((ds_sort_algo)a), count, taken / 1048576.0,
               reported / 1048576.0);
        if (taken > reported + slack)
            fail_msg("sort %s took %zu bytes for %zu pairs, more than the %zu it reports",
                     ds_sort_algo_name((ds_sort_algo)a), taken, count, reported);
        ds_sorter_destroy(sorter);
    }
}

/* ---- radix against a stable sort ---------------------------------------- */

/* Inputs for radix_sorts_stably, beyond the distributions. */
enum { STABLE_FRAME = DS_DIST_COUNT, STABLE_SIGNED, STABLE_CLUSTER };

/* The renderer's keys (distance_math.h): a culled primitive's 0, else a
 * narrowed key, a denormal of bits 1 .. 2^24 - 1. */
static void generate_frame_keys(size_t count, uint64_t seed, float *dest)
{
    ds_sort_input_generate(DS_DIST_UNIFORM, count, seed, dest);
    for (size_t i = 0; i < count; i++) {
        double unit = dest[i] / 2147483648.0;
        uint32_t bits = unit < 0.5 ? 0u : 1u + (uint32_t)((unit - 0.5) * 2.0 * 16777214.0);
        memcpy(&dest[i], &bits, sizeof bits);
    }
}

static void generate_stable_input(int input, size_t count, uint64_t seed, float *dest)
{
    if (input < DS_DIST_COUNT) {
        ds_sort_input_generate((ds_sort_dist)input, count, seed, dest);
    } else if (input == STABLE_FRAME) {
        generate_frame_keys(count, seed, dest);
    } else if (input == STABLE_SIGNED) {
        /* Both signs, both zeros, 32 values 0.25 apart: many ties. */
        ds_sort_input_generate(DS_DIST_UNIFORM, count, seed, dest);
        for (size_t i = 0; i < count; i++) {
            float k = floorf(dest[i] / 268435456.0f * 4.0f) / 4.0f - 4.0f;
            dest[i] = i % 7 == 3 ? (i % 2 ? -0.0f : 0.0f) : k;
        }
    } else {
        /* One tight cluster between two far outliers. */
        ds_sort_input_generate(DS_DIST_UNIFORM, count, seed, dest);
        for (size_t i = 0; i < count; i++)
            dest[i] = 1.0f + dest[i] * 0x1p-40f;
        dest[count / 3] = -1e30f;
        dest[count / 2] = 1e30f;
    }
}

static const uint32_t *stable_keys; /* qsort's context: ordered keys */

static int compare_stable(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (stable_keys[i] != stable_keys[j])
        return stable_keys[i] < stable_keys[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* radix sorts stably (every digit pass is stable), and the renderer's
 * images rely on radix, cub and the GL stages agreeing on the order of
 * ties. Each input is sorted by radix and compared pair by pair with a
 * stable sort on the host, at sizes of the one-block sort (up to 8,192
 * pairs, both shapes), of the single launch (up to one tile per resident
 * block: 1,081,344 pairs on an H100) and of the multi-launch sort
 * (2,000,003, with 7- and, for 24-bit keys, 8-bit digits): the distributions with the
 * most ties and odd values (all equal, few values, NaN and infinities),
 * the renderer's keys with their culled zeros, both signs and both zeros,
 * one cluster between two outliers; in both directions, with full and
 * 24-bit keys (ties below the compared bits keep their input order), from
 * a sorter made for exactly the count, and from one made with
 * the tuning's match_overlaid (the shared-memory layout of GPUs with less
 * of it, whose kernels an H100 would not otherwise run). */
static void radix_sorts_stably(void **state)
{
    (void)state;
    if (!algo_wanted(DS_SORT_RADIX))
        return;
    static const size_t sizes[] = {1000, 4096, 4099, 8192, 65536, 300007, 871414, 1048577, 2000003};
    static const int inputs[] = {DS_DIST_UNIFORM,    DS_DIST_SORTED,  DS_DIST_ZERO,
                                 DS_DIST_FEW_UNIQUE, DS_DIST_GAUSSIAN, DS_DIST_SPECIAL,
                                 STABLE_FRAME,       STABLE_SIGNED,   STABLE_CLUSTER};
    const size_t capacity = 2000003;
    float *original = malloc(capacity * sizeof(float));
    float *out_keys = malloc(capacity * sizeof(float));
    uint32_t *ordered = malloc(capacity * sizeof(uint32_t));
    uint32_t *expected = malloc(capacity * sizeof(uint32_t));
    uint32_t *out_values = malloc(capacity * sizeof(uint32_t));
    assert_non_null(original);
    assert_non_null(out_keys);
    assert_non_null(ordered);
    assert_non_null(expected);
    assert_non_null(out_values);
    float *keys = NULL;
    uint32_t *values = NULL;
    assert_int_equal(cudaMalloc((void **)&keys, capacity * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&values, capacity * sizeof(uint32_t)), cudaSuccess);
    ds_sorter *full = new_sorter(DS_SORT_RADIX, capacity, 0, 0);
    ds_sorter *short_keys = new_sorter(DS_SORT_RADIX, capacity, 24, 0);
    ds_sorter *small = new_sorter(DS_SORT_RADIX, 65536, 0, 0);
    ds_radix_tuning overlaid_tuning = ds_radix_tuning_default;
    overlaid_tuning.match_overlaid = 1;
    ds_sorter_desc overlaid_desc = {0};
    overlaid_desc.algo = DS_SORT_RADIX;
    overlaid_desc.max_count = capacity;
    overlaid_desc.tuning = &overlaid_tuning;
    ds_sorter *overlaid = NULL;
    assert_int_equal(ds_sorter_create(&overlaid_desc, &overlaid), DS_OK);
    int failures = 0, cases = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        if (!size_wanted(n))
            continue;
        for (size_t in = 0; in < sizeof inputs / sizeof *inputs; in++) {
            const uint64_t seed = BASE_SEED + 97 * s + in;
            generate_stable_input(inputs[in], n, seed, original);
            for (int variant = 0; variant < 4; variant++) {
                ds_sorter *const sorters[4] = {full, short_keys, small, overlaid};
                ds_sorter *sorter = sorters[variant];
                if ((variant == 1 && n != 1000 && n != 4099 && n != 300007 && n != 871414 &&
                     n != 2000003) ||
                    (variant == 2 && n != 65536) || (variant == 3 && n > 871414))
                    continue;
                const uint32_t mask = variant == 1 ? 0xFFFFFF00u : 0xFFFFFFFFu;
                for (int order = 0; order < 2; order++) {
                    for (size_t i = 0; i < n; i++) {
                        ordered[i] = ds_key_to_ordered(original[i], order) & mask;
                        expected[i] = (uint32_t)i;
                    }
                    stable_keys = ordered;
                    qsort(expected, n, sizeof *expected, compare_stable);
                    assert_int_equal(cudaMemcpy(keys, original, n * sizeof(float),
                                                cudaMemcpyHostToDevice),
                                     cudaSuccess);
                    uint32_t *iota = out_values;
                    for (size_t i = 0; i < n; i++)
                        iota[i] = (uint32_t)i;
                    assert_int_equal(cudaMemcpy(values, iota, n * sizeof(uint32_t),
                                                cudaMemcpyHostToDevice),
                                     cudaSuccess);
                    assert_int_equal(ds_sorter_sort(sorter, keys, values, n,
                                                    (ds_sort_order)order, NULL),
                                     DS_OK);
                    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
                    assert_int_equal(cudaMemcpy(out_keys, keys, n * sizeof(float),
                                                cudaMemcpyDeviceToHost),
                                     cudaSuccess);
                    assert_int_equal(cudaMemcpy(out_values, values, n * sizeof(uint32_t),
                                                cudaMemcpyDeviceToHost),
                                     cudaSuccess);
                    size_t bad = n;
                    for (size_t i = 0; i < n && bad == n; i++)
                        if (out_values[i] != expected[i] ||
                            ds_key_to_ordered(out_keys[i], order) !=
                                ds_key_to_ordered(original[expected[i]], order))
                            bad = i;
                    cases++;
                    if (bad != n) {
                        failures++;
                        printf("FAIL radix stable: input %d n=%zu %s key_bits=%d "
                               "max_count=%s%s: at %zu value %u, expected %u\n",
                               inputs[in], n, order ? "descending" : "ascending",
                               variant == 1 ? 24 : 32, variant == 2 ? "65536" : "2000003",
                               variant == 3 ? " overlaid" : "", bad, out_values[bad],
                               expected[bad]);
                    }
                }
            }
        }
    }
    printf("radix against a stable sort: %d cases, %d failed\n", cases,
           failures);
    ds_sorter_destroy(full);
    ds_sorter_destroy(short_keys);
    ds_sorter_destroy(small);
    ds_sorter_destroy(overlaid);
    cudaFree(keys);
    cudaFree(values);
    free(original);
    free(out_keys);
    free(ordered);
    free(expected);
    free(out_values);
    assert_int_equal(failures, 0);
}

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--algo NAME]... [--dist NAME]... [--max-size N] "
            "[--sizes LIST] [--quick] [--exact]\n",
            program);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--algo") == 0 && i + 1 < argc) {
            ds_sort_algo algo = ds_sort_algo_from_name(argv[++i]);
            if (algo == DS_SORT_ALGO_COUNT) {
                fprintf(stderr, "unknown algorithm '%s'\n", argv[i]);
                return 2;
            }
            opts.algo_selected[algo] = 1;
            opts.any_algo = 1;
        } else if (strcmp(argv[i], "--dist") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            int dist = strcmp(name, "mesh") == 0
                           ? DIST_MESH
                           : (int)ds_sort_dist_from_name(name);
            if (dist == DS_DIST_COUNT) {
                fprintf(stderr, "unknown distribution '%s'\n", name);
                return 2;
            }
            opts.dist_selected[dist] = 1;
            opts.any_dist = 1;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
            opts.max_size = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            for (char *item = strtok(argv[++i], ","); item;
                 item = strtok(NULL, ","))
                if (opts.only_size_count < 32)
                    opts.only_sizes[opts.only_size_count++] =
                        strtoull(item, NULL, 0);
        } else if (strcmp(argv[i], "--quick") == 0) {
            opts.quick = 1;
        } else if (strcmp(argv[i], "--exact") == 0) {
            opts.exact = 1;
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("test_sort_gpu: no CUDA device, skipped\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("test_sort_gpu: %s; algorithms:", prop.name);
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (algo_wanted((ds_sort_algo)a))
            printf(" %s", ds_sort_algo_name((ds_sort_algo)a));
    printf("; largest size %zu\n", largest_size());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_sorter_checks_its_arguments),
        cmocka_unit_test(sorters_take_what_they_report),
        cmocka_unit_test(phases_are_reported),
        cmocka_unit_test(both_shuffles_permute_the_pairs),
        cmocka_unit_test(pre_quantised_keys_sort_on_their_top_bits),
        cmocka_unit_test(nonnegative_keys_sort_untransformed),
        cmocka_unit_test(low_key_bits_sort_exactly),
        cmocka_unit_test(pingpong_sorts_end_where_they_say),
        cmocka_unit_test(radix_sorts_stably),
        cmocka_unit_test(every_algorithm_sorts_every_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
