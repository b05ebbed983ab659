/* SPDX-License-Identifier: MIT */
/* test_gl_sort.c — the GL radix sort (gl_sort.h) on whatever EGL offers
 * (Mesa llvmpipe in CI), against a host stable sort on (key bits, index):
 *   - key sets: uniform 32-bit, few unique values, all equal, sorted,
 *     reversed, low bits only, high bits only, float bit patterns (±0,
 *     denormals, ±Inf, NaNs, 0xFFFFFFFF), staggered runs;
 *   - sizes 0, 1, 2, every power of two from 4 to 4096 and its
 *     neighbours (any subgroup size and block size the sort can pick),
 *     a few thousand, and one around 300k;
 *   - key bits [0,32), [8,32), [16,32), [24,32), and [0,8), [8,24), [0,24)
 *     (an odd number of passes ends with a copy back);
 *   - the values are the input positions, so stability is checked
 *     directly: equal masked keys keep ascending values; keys and values
 *     stay paired;
 *   - a sort of sorted output changes nothing; a smaller sort after a
 *     larger one on the same object leaves nothing stale; capacity exactly
 *     n; bad arguments are refused in one line;
 *   - no GL error is reported through KHR_debug.
 *   - every subgroup form the context offers (gl_sort.h), and blocks of
 *     3 and of 1 key per invocation;
 * `test_gl_sort --bench N RUNS [FORM [ITEMS]]` times sorts of N uniform
 * 32-bit pairs with GL timestamp queries instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "egl_context.h"
#include "gl_compute.h"
#include "gl_sort.h"
#include "status.h"

#define SEED 0x5eed1234u

static int gl_errors;

static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user)
{
    (void)source, (void)id, (void)length, (void)user;
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        fprintf(stderr, "test_gl_sort: GL: %s\n", message);
        gl_errors++;
    }
}

/* xorshift32: a fixed sequence from the printed seed. */
static uint32_t rng_state;
static uint32_t next_random(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

typedef enum {
    KEYS_UNIFORM,
    KEYS_FEW_UNIQUE,
    KEYS_ALL_EQUAL,
    KEYS_SORTED,
    KEYS_REVERSED,
    KEYS_LOW_BITS,
    KEYS_HIGH_BITS,
    KEYS_FLOATS,
    KEYS_STAGGERED,
    KEYS_KIND_COUNT
} key_kind;

static const char *const KIND_NAMES[KEYS_KIND_COUNT] = {
    "uniform", "few-unique", "all-equal", "sorted", "reversed",
    "low-bits", "high-bits", "floats", "staggered"};

static void make_keys(key_kind kind, uint32_t *keys, size_t n)
{
    /* Float bit patterns the renderer can meet: ±0, denormals, ±Inf,
     * quiet and signalling NaNs, and the all-ones word. */
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x007FFFFFu,
                                       0x80000001u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                       0x7F800001u, 0xFFC00000u, 0xFFFFFFFFu, 0x3F800000u};
    const size_t special_count = sizeof special / sizeof special[0];
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next_random();
        switch (kind) {
        case KEYS_UNIFORM: keys[i] = r; break;
        case KEYS_FEW_UNIQUE: keys[i] = (r % 5u) * 0x01010101u; break;
        case KEYS_ALL_EQUAL: keys[i] = 0x3F8000A5u; break;
        case KEYS_SORTED: keys[i] = (uint32_t)(i / 3u) * 977u; break;
        case KEYS_REVERSED: keys[i] = 0xFFFFFFFFu - (uint32_t)(i / 3u) * 977u; break;
        case KEYS_LOW_BITS: keys[i] = r & 0xFFu; break;
        case KEYS_HIGH_BITS: keys[i] = r & 0xFF000000u; break;
        case KEYS_FLOATS:
            keys[i] = r % 3u == 0 ? special[r / 3u % special_count]
                                  : (r & 0x807FFFFFu) | (0x3C000000u + (r >> 9 & 0x03800000u));
            break;
        case KEYS_STAGGERED: keys[i] = (uint32_t)(i / 37u % 11u) << 20 | (uint32_t)(i % 3u); break;
        default: keys[i] = 0; break;
        }
    }
}

/* The host reference: a stable sort on the key bits [begin, end). */
static int reference_begin, reference_end;
static const uint32_t *reference_keys;

static uint32_t key_bits(uint32_t key)
{
    uint32_t shifted = key >> reference_begin;
    int width = reference_end - reference_begin;
    return width >= 32 ? shifted : shifted & ((1u << width) - 1u);
}

static int compare_positions(const void *a, const void *b)
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    uint32_t ka = key_bits(reference_keys[ia]), kb = key_bits(reference_keys[ib]);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static ds_egl_context *context;

/* The form and block size every test below builds its sorts with; main
 * runs the tests once per form the context offers. */
static ds_gl_sort_tuning tuning;

static ds_status create_sort(size_t capacity, ds_gl_sort **dest)
{
    return ds_gl_sort_create_tuned(capacity, &tuning, dest);
}

/* Buffers of exactly n words (one if n is 0) holding `keys` and iota. */
static void upload(const uint32_t *keys, size_t n, GLuint *key_buffer, GLuint *value_buffer)
{
    uint32_t *iota = malloc((n ? n : 1) * sizeof *iota);
    assert_non_null(iota);
    for (size_t i = 0; i < n; i++)
        iota[i] = (uint32_t)i;
    GLuint buffers[2];
    glCreateBuffers(2, buffers);
    GLsizeiptr bytes = (GLsizeiptr)((n ? n : 1) * sizeof(uint32_t));
    /* The element-array use of the renderer needs no special flag. */
    glNamedBufferStorage(buffers[0], bytes, n ? keys : iota, GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferStorage(buffers[1], bytes, iota, GL_DYNAMIC_STORAGE_BIT);
    free(iota);
    *key_buffer = buffers[0];
    *value_buffer = buffers[1];
}

/* Sorts `keys` (n of them) on the GPU with `sort` and checks the result
 * against the host reference; `twice`: then sorts the result again. */
static void check_sort(ds_gl_sort *sort, const uint32_t *keys, size_t n, int begin, int end,
                       const char *what, int twice)
{
    GLuint key_buffer, value_buffer;
    upload(keys, n, &key_buffer, &value_buffer);
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, n, begin, end), DS_OK);

    uint32_t *got_keys = malloc((n ? n : 1) * sizeof *got_keys);
    uint32_t *got_values = malloc((n ? n : 1) * sizeof *got_values);
    uint32_t *expected = malloc((n ? n : 1) * sizeof *expected);
    assert_true(got_keys && got_values && expected);
    glGetNamedBufferSubData(key_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), got_keys);
    glGetNamedBufferSubData(value_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), got_values);
    for (size_t i = 0; i < n; i++)
        expected[i] = (uint32_t)i;
    reference_begin = begin;
    reference_end = end;
    reference_keys = keys;
    qsort(expected, n, sizeof *expected, compare_positions);
    for (size_t i = 0; i < n; i++) {
        if (got_values[i] != expected[i] || got_keys[i] != keys[expected[i]]) {
            fprintf(stderr, "test_gl_sort: %s form, %d items: %s n=%zu bits [%d,%d) seed 0x%x: "
                    "position %zu has (key 0x%08x, value %u), expected (0x%08x, %u)\n",
                    ds_gl_sort_subgroup_name(tuning.subgroup), tuning.items, what, n, begin,
                    end, SEED, i, got_keys[i], got_values[i], keys[expected[i]], expected[i]);
            fail();
        }
    }

    /* Sorting the sorted pairs again changes nothing (stable, and no
     * stale scratch from the first sort). */
    uint32_t *again = malloc((n ? n : 1) * sizeof *again);
    assert_non_null(again);
    if (twice) {
        assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, n, begin, end), DS_OK);
        glGetNamedBufferSubData(value_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), again);
        assert_memory_equal(again, got_values, n * sizeof(uint32_t));
        glGetNamedBufferSubData(key_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), again);
        assert_memory_equal(again, got_keys, n * sizeof(uint32_t));
    }

    GLuint buffers[2] = {key_buffer, value_buffer};
    glDeleteBuffers(2, buffers);
    free(again);
    free(expected);
    free(got_values);
    free(got_keys);
    assert_int_equal(gl_errors, 0);
}

static const int RANGES[][2] = {{0, 32}, {8, 32}, {16, 32}, {24, 32}};
#define RANGE_COUNT (sizeof RANGES / sizeof RANGES[0])

/* Every size around any subgroup or block size the sort may pick
 * (subgroups of 4 to 64, blocks of 512 to 2048): three key sets and one
 * range each, by turns; at a few sizes every key set and every range. */
static void test_small_sizes(void **state)
{
    (void)state;
    size_t sizes[64];
    size_t size_count = 0;
    sizes[size_count++] = 0;
    sizes[size_count++] = 1;
    sizes[size_count++] = 2;
    for (size_t p = 4; p <= 4096; p *= 2) {
        sizes[size_count++] = p - 1;
        sizes[size_count++] = p;
        sizes[size_count++] = p + 1;
    }
    sizes[size_count++] = 5000;
    ds_gl_sort *sort = NULL;
    assert_int_equal(create_sort(5000, &sort), DS_OK);
    uint32_t *keys = malloc(5000 * sizeof *keys);
    assert_non_null(keys);
    rng_state = SEED;
    for (size_t s = 0; s < size_count; s++) {
        const int every = sizes[s] == 33 || sizes[s] == 2049;
        for (int kind = 0; kind < KEYS_KIND_COUNT; kind++) {
            if (!every && (s + (size_t)kind) % 3 != 0)
                continue;
            make_keys((key_kind)kind, keys, sizes[s]);
            for (size_t r = 0; r < RANGE_COUNT; r++)
                if (every || r == (s + (size_t)kind) % RANGE_COUNT)
                    check_sort(sort, keys, sizes[s], RANGES[r][0], RANGES[r][1],
                               KIND_NAMES[kind], r == 0);
        }
    }
    free(keys);
    ds_gl_sort_destroy(sort);
}

/* Odd pass counts (the copy back) and ranges not ending at bit 32. */
static void test_partial_ranges(void **state)
{
    (void)state;
    static const int ranges[][2] = {{0, 8}, {8, 24}, {0, 24}, {24, 32}};
    const size_t n = 3001;
    ds_gl_sort *sort = NULL;
    assert_int_equal(create_sort(n, &sort), DS_OK);
    uint32_t *keys = malloc(n * sizeof *keys);
    assert_non_null(keys);
    rng_state = SEED ^ 1u;
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        make_keys(KEYS_UNIFORM, keys, n);
        check_sort(sort, keys, n, ranges[r][0], ranges[r][1], "uniform", 1);
        make_keys(KEYS_FEW_UNIQUE, keys, n);
        check_sort(sort, keys, n, ranges[r][0], ranges[r][1], "few-unique", 0);
    }
    free(keys);
    ds_gl_sort_destroy(sort);
}

/* Around 300k pairs, capacity exactly n: many blocks per digit row. Then a
 * smaller sort on the same object. */
static void test_large(void **state)
{
    (void)state;
    const size_t n = 300007;
    ds_gl_sort *sort = NULL;
    assert_int_equal(create_sort(n, &sort), DS_OK);
    uint32_t *keys = malloc(n * sizeof *keys);
    assert_non_null(keys);
    rng_state = SEED ^ 2u;
    make_keys(KEYS_UNIFORM, keys, n);
    check_sort(sort, keys, n, 0, 32, "uniform", 1);
    make_keys(KEYS_FLOATS, keys, n);
    check_sort(sort, keys, n, 16, 32, "floats", 0);
    make_keys(KEYS_FEW_UNIQUE, keys, 7777);
    check_sort(sort, keys, 7777, 0, 32, "few-unique after 300k", 1);
    free(keys);
    ds_gl_sort_destroy(sort);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    assert_int_equal(ds_gl_sort_supported(), 1);
    ds_gl_sort *sort = NULL;
    ds_log_set_quiet(1);
    assert_int_equal(ds_gl_sort_create(100, NULL), DS_ERR_INVALID_ARG);
    assert_int_equal(ds_gl_sort_create(100, &sort), DS_OK);
    uint32_t keys[101] = {0};
    GLuint key_buffer, value_buffer;
    upload(keys, 101, &key_buffer, &value_buffer);
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, 101, 0, 32),
                     DS_ERR_INVALID_ARG);
    assert_non_null(strstr(ds_last_error(), "gl sort"));
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, 100, 4, 32),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, 100, 16, 16),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, value_buffer, 100, 0, 40),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_gl_sort_pairs(sort, key_buffer, key_buffer, 100, 0, 32),
                     DS_ERR_INVALID_ARG);
    assert_int_equal(ds_gl_sort_pairs(NULL, key_buffer, value_buffer, 100, 0, 32),
                     DS_ERR_INVALID_ARG);
    ds_gl_sort *too_large = sort;
    assert_int_equal(ds_gl_sort_create((size_t)1 << 40, &too_large), DS_ERR_TOO_LARGE);
    assert_null(too_large);
    assert_true(strstr(ds_last_error(), "gl sort") != NULL);
    const ds_gl_sort_tuning bad_items = {DS_GL_SORT_SUBGROUP_AUTO, 33};
    assert_int_equal(ds_gl_sort_create_tuned(100, &bad_items, &too_large), DS_ERR_INVALID_ARG);
    const ds_gl_sort_tuning bad_form = {(ds_gl_sort_subgroup)99, 0};
    assert_int_equal(ds_gl_sort_create_tuned(100, &bad_form, &too_large), DS_ERR_INVALID_ARG);
    assert_null(too_large);
    ds_log_set_quiet(0);
    GLuint buffers[2] = {key_buffer, value_buffer};
    glDeleteBuffers(2, buffers);
    ds_gl_sort_destroy(sort);
    assert_int_equal(gl_errors, 0);
}

/* A sort of capacity 0 creates and sorts nothing. */
static void test_empty(void **state)
{
    (void)state;
    ds_gl_sort *sort = NULL;
    assert_int_equal(create_sort(0, &sort), DS_OK);
    uint32_t key = 7;
    check_sort(sort, &key, 0, 0, 32, "empty", 1);
    ds_gl_sort_destroy(sort);
}

/* GPU ms between the two GL_TIMESTAMP queries (waits for them). */
static double elapsed_ms(const GLuint queries[2])
{
    GLuint64 t0 = 0, t1 = 0;
    glGetQueryObjectui64v(queries[0], GL_QUERY_RESULT, &t0);
    glGetQueryObjectui64v(queries[1], GL_QUERY_RESULT, &t1);
    return (double)(t1 - t0) * 1e-6;
}

/* Sorts ms[0, count) ascending (insertion sort: a few dozen runs). */
static void sort_times(double *ms, int count)
{
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
}

/* What 12 dependent dispatches cost with nothing to do (a sort's count of
 * them for 32-bit keys), as many workgroups as a sort of n pairs has
 * blocks, with and without a storage barrier between them: the floor under
 * the sort's time that its work does not set. */
static void bench_dispatch_floor(size_t n, int count, const GLuint queries[2])
{
    static const char source[] =
        "layout(local_size_x = 256) in;\n"
        "layout(std430, binding = 0) buffer Word { uint word[]; };\n"
        "void main() { if (gl_GlobalInvocationID.x == 0u) word[0] += 1u; }\n";
    GLuint program = 0, buffer = 0;
    if (ds_gl_compile_compute("bench", "empty", "", source, &program) != DS_OK)
        return;
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, sizeof(uint32_t), NULL, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glUseProgram(program);
    GLuint groups = (GLuint)((n + 2047) / 2048);
    double *ms = malloc((size_t)count * sizeof *ms);
    for (int barriers = 1; ms && barriers >= 0; barriers--) {
        for (int i = 0; i < count; i++) {
            glQueryCounter(queries[0], GL_TIMESTAMP);
            for (int d = 0; d < 12; d++) {
                glDispatchCompute(groups, 1, 1);
                if (barriers)
                    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            }
            glQueryCounter(queries[1], GL_TIMESTAMP);
            ms[i] = elapsed_ms(queries);
        }
        sort_times(ms, count);
        printf("12 empty dispatches of %u workgroups, %s barriers: median %.4f ms\n", groups,
               barriers ? "with" : "without", ms[count / 2]);
    }
    free(ms);
    glUseProgram(0);
    glDeleteBuffers(1, &buffer);
    glDeleteProgram(program);
}

/* Median GPU ms of `count` sorts of the uniform keys[0, n) with a sort
 * built with `with`, from GL timestamp queries around each sort; negative
 * if the context does not offer that tuning. *resolved gets the tuning
 * with AUTO and the defaults resolved. The first sort's keys are checked
 * to be in order. */
static double bench_tuning(const ds_gl_sort_tuning *with, const uint32_t *keys, size_t n,
                           int count, const GLuint queries[2], ds_gl_sort_tuning *resolved)
{
    ds_gl_sort *sort = NULL;
    ds_log_set_quiet(1);
    ds_status status = ds_gl_sort_create_tuned(n, with, &sort);
    ds_log_set_quiet(0);
    if (status != DS_OK)
        return -1.0;
    ds_gl_sort_describe(sort, resolved);
    double *ms = malloc((size_t)count * sizeof *ms);
    uint32_t *got = malloc((n ? n : 1) * sizeof *got);
    GLuint key_buffer, value_buffer;
    upload(keys, n, &key_buffer, &value_buffer);
    double median = -1.0;
    if (ms && got) {
        for (int i = 0; i < count; i++) {
            glNamedBufferSubData(key_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), keys);
            glQueryCounter(queries[0], GL_TIMESTAMP);
            ds_gl_sort_pairs(sort, key_buffer, value_buffer, n, 0, 32);
            glQueryCounter(queries[1], GL_TIMESTAMP);
            ms[i] = elapsed_ms(queries);
        }
        glGetNamedBufferSubData(key_buffer, 0, (GLsizeiptr)(n * sizeof *got), got);
        for (size_t k = 1; k < n; k++)
            if (got[k - 1] > got[k]) {
                fprintf(stderr, "test_gl_sort: bench: the %s form left keys out of order\n",
                        ds_gl_sort_subgroup_name(resolved->subgroup));
                gl_errors++;
                break;
            }
        sort_times(ms, count);
        median = ms[count / 2];
    }
    GLuint buffers[2] = {key_buffer, value_buffer};
    glDeleteBuffers(2, buffers);
    free(got);
    free(ms);
    ds_gl_sort_destroy(sort);
    return median;
}

/* Where one sort's time goes: the median GPU time of each of its 8
 * dispatches (4 passes of count, scatter) over `count` sorts of the
 * uniform keys[0, n) with the default tuning, from timestamps between
 * them (gl_sort.h's ds_gl_sort_set_timestamps). */
static void bench_phases(const uint32_t *keys, size_t n, int count)
{
    enum { STAMPS = 9 };
    ds_gl_sort *sort = NULL;
    if (n < 2 || ds_gl_sort_create(n, &sort) != DS_OK)
        return;
    GLuint stamps[STAMPS], key_buffer, value_buffer;
    glCreateQueries(GL_TIMESTAMP, STAMPS, stamps);
    ds_gl_sort_set_timestamps(sort, stamps);
    upload(keys, n, &key_buffer, &value_buffer);
    double *ms = malloc((size_t)count * (STAMPS - 1) * sizeof *ms);
    double *column = malloc((size_t)count * sizeof *column);
    for (int i = 0; ms && column && i < count; i++) {
        glNamedBufferSubData(key_buffer, 0, (GLsizeiptr)(n * sizeof(uint32_t)), keys);
        ds_gl_sort_pairs(sort, key_buffer, value_buffer, n, 0, 32);
        GLuint64 t[STAMPS];
        for (int k = 0; k < STAMPS; k++)
            glGetQueryObjectui64v(stamps[k], GL_QUERY_RESULT, &t[k]);
        for (int k = 0; k + 1 < STAMPS; k++)
            ms[(size_t)k * (size_t)count + (size_t)i] = (double)(t[k + 1] - t[k]) * 1e-6;
    }
    if (ms && column) {
        ds_gl_sort_tuning resolved;
        ds_gl_sort_describe(sort, &resolved);
        printf("gl sort phases: %zu pairs, %s form, %d items, median ms of %d sorts "
               "(count, scatter):\n", n, ds_gl_sort_subgroup_name(resolved.subgroup),
               resolved.items, count);
        double total[2] = {0, 0};
        for (int pass = 0; pass < 4; pass++) {
            printf("  pass %d", pass);
            for (int k = 0; k < 2; k++) {
                memcpy(column, ms + (size_t)(2 * pass + k) * (size_t)count,
                       (size_t)count * sizeof *column);
                sort_times(column, count);
                printf("  %.4f", column[count / 2]);
                total[k] += column[count / 2];
            }
            printf("\n");
        }
        printf("  all    %.4f  %.4f\n", total[0], total[1]);
    }
    free(column);
    free(ms);
    GLuint buffers[2] = {key_buffer, value_buffer};
    glDeleteBuffers(2, buffers);
    glDeleteQueries(STAMPS, stamps);
    ds_gl_sort_destroy(sort);
}

/* `--bench N RUNS [FORM [ITEMS]]`: median GPU time of sorting N uniform
 * 32-bit pairs (all 32 bits) with the default tuning or the one named
 * (FORM: auto, arb, khr, khr-partition; ITEMS: keys per invocation), then
 * the per-dispatch times and the dispatch floor above. FORM `all`: every form the context offers at
 * 4, 8, 12 and 16 keys per invocation, each with its ratio to the ARB
 * form at 8 (the sort before the KHR form), over 5 interleaved rounds.
 * Then the default sort's time per dispatch and the dispatch floor. */
static int bench(size_t n, int count, const char *form, int items)
{
    enum { MAX_VARIANTS = 16, MAX_ROUNDS = 5 };
    uint32_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return 1;
    rng_state = SEED;
    make_keys(KEYS_UNIFORM, keys, n);
    GLuint queries[2];
    glCreateQueries(GL_TIMESTAMP, 2, queries);
    ds_gl_sort_tuning variants[MAX_VARIANTS];
    int variant_count = 0;
    if (form && strcmp(form, "all") == 0) {
        static const int items_tried[] = {4, 8, 12, 16};
        variants[variant_count++] = (ds_gl_sort_tuning){DS_GL_SORT_SUBGROUP_ARB, 8};
        for (int f = DS_GL_SORT_SUBGROUP_ARB; f <= DS_GL_SORT_SUBGROUP_KHR_PARTITION; f++)
            for (int i = 0; i < 4; i++)
                if (f != DS_GL_SORT_SUBGROUP_ARB || items_tried[i] != 8)
                    variants[variant_count++] =
                        (ds_gl_sort_tuning){(ds_gl_sort_subgroup)f, items_tried[i]};
    } else {
        variants[variant_count++] = (ds_gl_sort_tuning){DS_GL_SORT_SUBGROUP_AUTO, items};
        for (int f = DS_GL_SORT_SUBGROUP_AUTO; form && f <= DS_GL_SORT_SUBGROUP_KHR_PARTITION; f++)
            if (strcmp(form, ds_gl_sort_subgroup_name((ds_gl_sort_subgroup)f)) == 0)
                variants[0].subgroup = (ds_gl_sort_subgroup)f;
    }
    const int rounds = variant_count > 1 ? MAX_ROUNDS : 1;
    double medians[MAX_VARIANTS][MAX_ROUNDS];
    ds_gl_sort_tuning resolved[MAX_VARIANTS];
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < variant_count; v++)
            medians[v][r] = bench_tuning(&variants[v], keys, n, count, queries, &resolved[v]);
    for (int v = 0; v < variant_count; v++)
        sort_times(medians[v], rounds);
    const double baseline = medians[0][rounds / 2];
    for (int v = 0; v < variant_count; v++) {
        const double ms = medians[v][rounds / 2];
        if (ms < 0.0) {
            printf("gl sort: %zu pairs, %s form, %d items: not offered here\n", n,
                   ds_gl_sort_subgroup_name(variants[v].subgroup), variants[v].items);
            continue;
        }
        printf("gl sort: %zu pairs, 32 bits, %s form, %d items: median %.4f ms over %d sorts",
               n, ds_gl_sort_subgroup_name(resolved[v].subgroup), resolved[v].items, ms, count);
        if (rounds > 1)
            printf(", median of %d rounds, %.2fx the arb form at 8 items", rounds, baseline / ms);
        printf(" (%s)\n", (const char *)glGetString(GL_RENDERER));
    }
    bench_phases(keys, n, count);
    bench_dispatch_floor(n, count, queries);
    glDeleteQueries(2, queries);
    free(keys);
    return gl_errors != 0;
}

int main(int argc, char **argv)
{
    ds_status status = ds_egl_context_create(1, &context);
    if (status == DS_ERR_NO_DEVICE) {
        printf("test_gl_sort: no EGL display with GL 4.5 core; skipped\n");
        return 77;
    }
    if (status != DS_OK)
        return 1;
    if (!ds_gl_sort_supported()) {
        printf("test_gl_sort: %s lacks GL_ARB_shader_ballot; skipped\n",
               (const char *)glGetString(GL_RENDERER));
        ds_egl_context_destroy(context);
        return 77;
    }
    glEnable(GL_DEBUG_OUTPUT);
    glDebugMessageCallback(on_gl_debug, NULL);
    printf("test_gl_sort: seed 0x%x on %s\n", SEED, (const char *)glGetString(GL_RENDERER));

    int result = 0;
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0) {
        int count = argc >= 4 ? atoi(argv[3]) : 100;
        result = bench((size_t)strtoull(argv[2], NULL, 10), count > 0 ? count : 1,
                       argc >= 5 ? argv[4] : NULL, argc >= 6 ? atoi(argv[5]) : 0);
    } else {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_invalid_arguments),
            cmocka_unit_test(test_empty),
            cmocka_unit_test(test_small_sizes),
            cmocka_unit_test(test_partial_ranges),
            cmocka_unit_test(test_large),
        };
        /* Every form the context offers, at the default block; then the
         * default form at 3 keys per invocation, a block that is no power
         * of two, and at 1, whose 300k-pair sort has over a thousand
         * blocks (position sums over groups and spans of 11). */
        static const ds_gl_sort_tuning runs[] = {
            {DS_GL_SORT_SUBGROUP_ARB, 0},
            {DS_GL_SORT_SUBGROUP_KHR, 0},
            {DS_GL_SORT_SUBGROUP_KHR_PARTITION, 0},
            {DS_GL_SORT_SUBGROUP_AUTO, 3},
            {DS_GL_SORT_SUBGROUP_AUTO, 1},
        };
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            ds_gl_sort *probe = NULL;
            ds_log_set_quiet(1);
            ds_status offered = ds_gl_sort_create_tuned(16, &runs[r], &probe);
            ds_log_set_quiet(0);
            if (offered == DS_ERR_UNSUPPORTED) {
                printf("test_gl_sort: the %s form is not offered here: %s\n",
                       ds_gl_sort_subgroup_name(runs[r].subgroup), ds_last_error());
                continue;
            }
            if (offered != DS_OK)
                return 1;
            ds_gl_sort_tuning resolved;
            ds_gl_sort_describe(probe, &resolved);
            ds_gl_sort_destroy(probe);
            tuning = runs[r];
            char items[32] = "keys per invocation by size";
            if (runs[r].items)
                snprintf(items, sizeof items, "keys per invocation: %d", runs[r].items);
            printf("test_gl_sort: %s form (%s), %s\n", ds_gl_sort_subgroup_name(resolved.subgroup),
                   runs[r].subgroup == DS_GL_SORT_SUBGROUP_AUTO ? "auto" : "forced", items);
            result |= cmocka_run_group_tests(tests, NULL, NULL);
        }
    }
    ds_egl_context_destroy(context);
    return result;
}
