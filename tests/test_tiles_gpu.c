/* SPDX-License-Identifier: MIT */
/* test_tiles_gpu.c — the CUDA binning (kernels/render/tiles.cu) against
 * its host reference, ds_tiles_bin_host(): random sorted orders and tile
 * rectangles (one tile, several, none, every tile, inverted), sort values
 * with and without tile codes, every entry form (points, indexed and
 * pulled triangles), visible counts below, at and above the count, and
 * element buffers too small (the overflow list). Every word of the entries
 * and of the commands must be the host's, and so must the per-position
 * rectangles when asked for. Exits 77 without a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "tiles.h"

static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    assert_int_equal(cudaMalloc(&p, bytes ? bytes : 4), cudaSuccess);
    return p;
}

static void upload(void *dest, const void *src, size_t bytes)
{
    assert_int_equal(cudaMemcpy(dest, src, bytes, cudaMemcpyHostToDevice), cudaSuccess);
}

/* A primitive's rectangle on `grid`: mostly one tile, as on screen; some
 * none, a few every tile, inverted (empty) or up to 3 x 3 tiles. */
static uint32_t random_rect(const ds_tile_grid *grid, uint32_t *seed)
{
    uint32_t pick = next_random(seed) % 1000;
    int c0 = (int)(next_random(seed) % (uint32_t)grid->columns);
    int r0 = (int)(next_random(seed) % (uint32_t)grid->rows);
    if (pick < 850)
        return ds_tiles_pack(c0, c0, r0, r0);
    if (pick < 920)
        return DS_TILES_EMPTY;
    if (pick < 922)
        return ds_tiles_pack(0, grid->columns - 1, 0, grid->rows - 1);
    if (pick < 930)
        return ds_tiles_pack(c0, c0 > 0 ? c0 - 1 : c0, r0, r0);
    int c1 = c0 + (int)(next_random(seed) % 3), r1 = r0 + (int)(next_random(seed) % 3);
    return ds_tiles_pack(c0, c1 < grid->columns ? c1 : grid->columns - 1, r0,
                         r1 < grid->rows ? r1 : grid->rows - 1);
}

/* One binning on the GPU and on the host; returns the words that differ. */
static size_t bin_case(int case_number, uint32_t *seed)
{
    static const int grids[][2] = {{16, 9}, {30, 17}, {1, 1}, {255, 4}, {51, 5}, {2, 1}};
    const int *g = grids[case_number % 6];
    ds_tile_grid grid = {g[0], g[1], 1.0f, 1.0f};
    int tiles = grid.columns * grid.rows;
    size_t count = 1 + next_random(seed) % (case_number % 5 == 0 ? 1100000u
                                            : case_number % 3 ? 70000u : 900u);
    int form = (int)(next_random(seed) % 3); /* 0 points, 1 indexed, 2 pulled */
    int per = form == 1 ? 3 : 1;
    int shift = case_number % 4 == 3 ? 0 : ds_tiles_code_shift(count, tiles);

    uint32_t *rects = malloc(count * sizeof *rects), *order = malloc(count * sizeof *order);
    uint32_t *values = malloc(count * sizeof *values), *sorted_rects = malloc(count * sizeof *rects);
    uint32_t *indices = malloc(3 * count * sizeof *indices);
    assert_true(rects && order && values && sorted_rects && indices);
    for (size_t p = 0; p < count; p++) {
        rects[p] = random_rect(&grid, seed);
        order[p] = (uint32_t)p;
        for (int k = 0; k < 3; k++)
            indices[3 * p + (size_t)k] = next_random(seed);
    }
    /* A random order, or one near the mesh's (as a far-first sort of a
     * scan gives: runs of neighbours). */
    int near = next_random(seed) % 3 == 0;
    for (size_t i = count - 1; i > 0; i--) {
        size_t j = near ? (i > 5 ? i - next_random(seed) % 5 : 0) : next_random(seed) % (i + 1);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < count; i++) {
        values[i] = ds_tiles_code_value(order[i], rects[order[i]], grid.columns, shift);
        sorted_rects[i] = rects[order[i]];
    }
    int use_visible = next_random(seed) % 2;
    uint32_t visible = use_visible ? next_random(seed) % (uint32_t)(count + 1) : (uint32_t)count;
    if (use_visible && next_random(seed) % 3 == 0)
        visible = (uint32_t)count + 5; /* more than the count: the count */
    size_t binned = visible < count ? visible : count;
    size_t capacity = ds_tiles_capacity(count, per);
    if (next_random(seed) % 8 == 0)
        capacity = (size_t)per * (binned + binned / 50); /* may overflow */
    size_t words = capacity + (size_t)(tiles + 1) * DS_TILES_COMMAND_WORDS;
    int want_rects = next_random(seed) % 2;

    uint32_t *d_values = device_alloc(count * 4), *d_rects = device_alloc(count * 4);
    uint32_t *d_visible = device_alloc(4), *d_indices = device_alloc(3 * count * 4);
    uint32_t *d_elements = device_alloc(words * 4), *d_sorted_rects = device_alloc(count * 4);
    void *scratch = device_alloc(ds_tiles_scratch_bytes());
    upload(d_values, values, count * 4);
    upload(d_rects, rects, count * 4);
    upload(d_visible, &visible, 4);
    upload(d_indices, indices, 3 * count * 4);
    assert_int_equal(cudaMemset(d_elements, 0xEE, words * 4), cudaSuccess);
    ds_tiles_source source = {form ? d_indices : NULL, d_rects, form == 2, shift};
    assert_int_equal(ds_tiles_bin(d_values, use_visible ? d_visible : NULL, count, &source, &grid,
                                  want_rects ? d_sorted_rects : NULL, scratch, d_elements, capacity,
                                  d_elements + capacity, 0),
                     DS_OK);
    uint32_t *gpu = malloc(words * 4), *host = malloc(words * 4), *gpu_rects = malloc(count * 4);
    uint32_t *host_scratch = malloc((DS_TILES_MAX + 1) * 4);
    assert_true(gpu && host && gpu_rects && host_scratch);
    assert_int_equal(cudaMemcpy(gpu, d_elements, words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(cudaMemcpy(gpu_rects, d_sorted_rects, count * 4, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    size_t used = 0;
    int overflow = ds_tiles_bin_host(order, sorted_rects, binned, form == 1 ? indices : NULL,
                                     form ? 3 : 1, &grid, host, capacity, host + capacity,
                                     host_scratch, &used);
    size_t differ = 0;
    for (size_t i = 0; i < used; i++)
        differ += gpu[i] != host[i];
    for (size_t i = capacity; i < words; i++)
        differ += gpu[i] != host[i];
    for (size_t i = 0; want_rects && i < binned; i++)
        differ += gpu_rects[i] != sorted_rects[i];
    if (differ || case_number % 40 == 0)
        printf("case %d: %zu primitives, %zu binned, %d tiles, codes at %d, form %d, %s: %zu "
               "words differ\n",
               case_number, count, binned, tiles, shift, form,
               overflow ? "overflow list" : "tiled", differ);
    cudaFree(d_values);
    cudaFree(d_rects);
    cudaFree(d_visible);
    cudaFree(d_indices);
    cudaFree(d_elements);
    cudaFree(d_sorted_rects);
    cudaFree(scratch);
    free(rects);
    free(order);
    free(values);
    free(sorted_rects);
    free(indices);
    free(gpu);
    free(host);
    free(gpu_rects);
    free(host_scratch);
    return differ;
}

static void binning_matches_the_host(void **state)
{
    (void)state;
    uint32_t seed = 0x7117E5u;
    size_t differ = 0;
    for (int c = 0; c < 240; c++)
        differ += bin_case(c, &seed);
    assert_int_equal(differ, 0);
}

/* Codes that cannot name every tile, and grids past DS_TILES_MAX, are
 * refused before any launch. */
static void impossible_codes_are_refused(void **state)
{
    (void)state;
    uint32_t *d = device_alloc(64);
    void *scratch = device_alloc(ds_tiles_scratch_bytes());
    ds_tile_grid grid = {16, 16, 1.0f, 1.0f}; /* 256 tiles */
    ds_tiles_source source = {NULL, d, 0, 24}; /* 255 codes */
    assert_int_equal(ds_tiles_bin(d, NULL, 4, &source, &grid, NULL, scratch, d, 8, d + 8, 0),
                     DS_ERR_INVALID_ARG);
    source.value_shift = 32;
    assert_int_equal(ds_tiles_bin(d, NULL, 4, &source, &grid, NULL, scratch, d, 8, d + 8, 0),
                     DS_ERR_INVALID_ARG);
    ds_tile_grid huge = {255, 5, 1.0f, 1.0f};
    source.value_shift = 0;
    assert_int_equal(ds_tiles_bin(d, NULL, 4, &source, &huge, NULL, scratch, d, 8, d + 8, 0),
                     DS_ERR_INVALID_ARG);
    cudaFree(d);
    cudaFree(scratch);
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("test_tiles_gpu: no CUDA device, skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binning_matches_the_host),
        cmocka_unit_test(impossible_codes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
