/* SPDX-License-Identifier: MIT */
/* radix_timeline.cu — where the time of radix's single-launch sort
 * (k_radix_small, docs/algorithms/radix.md) goes: sort_radix.cu built
 * with DS_RADIX_TIMELINE, whose kernels stamp the GPU's global timer at
 * each barrier from block 0 and from the last block. Sorts uniform keys
 * `runs` times and prints, for the run of median event time, how long each
 * step took in both blocks (µs); "pass N" is the N-th pass that ran.
 *
 *   radix_timeline [COUNT [KEY_BITS [RUNS]]]   defaults 871414 32 21
 *
 * COUNT must fit the single launch (one tile per resident block); the
 * tool runs the single launch even for counts that sort() gives the
 * one-block kernel (k_radix_block, no stamps). Then
 * prints the floor under any such sort: the event time of an empty
 * cooperative launch of the same shape with 0 to 4 grid-wide barriers,
 * and of an ordinary launch with counter barriers, for what the
 * cooperative launch and its barrier cost.
 * For measurement only: the stamps cost a little time themselves.
 */
#define DS_RADIX_TIMELINE 1
#include "sort_radix.cu"

#include <stdio.h>

#include "sort_inputs.h"

#define MAX_RUNS 101

/* The index of the median of ms[0 .. runs). */
static int median_index(const float *ms, int runs)
{
    int order[MAX_RUNS];
    for (int i = 0; i < runs; i++)
        order[i] = i;
    for (int i = 1; i < runs; i++)
        for (int j = i; j > 0 && ms[order[j]] < ms[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return order[runs / 2];
}

/* The floor of any single-launch sort: a cooperative launch of the same
 * block size and shared memory that does nothing but `barriers`
 * grid-wide barriers. */
__global__ void __launch_bounds__(kSmallThreads) k_floor(int barriers)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int i = 0; i < barriers; i++)
        grid.sync();
}

/* The same in an ordinary launch, with a plain counter barrier: every
 * block's thread 0 adds one to `arrived` and spins until all blocks of
 * this barrier have. `arrived` only grows, so `base` (this launch's first
 * target) keeps launches apart without a clear. Measurement only: an
 * ordinary launch does not promise that its blocks run at once, which a
 * sort cannot build on (docs/algorithms/radix.md). */
__global__ void __launch_bounds__(kSmallThreads)
    k_floor_plain(int barriers, unsigned long long *arrived, unsigned long long base)
{
    for (int i = 0; i < barriers; i++) {
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned long long target = base + (unsigned long long)(i + 1) * gridDim.x;
            __threadfence();
            atomicAdd(arrived, 1ull);
            while (*(volatile unsigned long long *)arrived < target) {
            }
            __threadfence();
        }
        __syncthreads();
    }
}

static unsigned long long *g_arrived;      /* k_floor_plain's counter */
static unsigned long long g_arrived_total; /* what it holds after the last launch */

/* Event time (µs, median of `runs`) of an empty launch of `blocks` with
 * `barriers` grid-wide barriers: cooperative with cooperative_groups'
 * barrier, or (plain) ordinary with the counter above. */
static float floor_us(unsigned blocks, size_t smem_bytes, int barriers, int runs, int plain)
{
    cudaFuncSetAttribute(k_floor, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_bytes);
    cudaFuncSetAttribute(k_floor_plain, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         (int)smem_bytes);
    if (plain && barriers > 0) {
        /* The counter barrier would wait forever for blocks that cannot
         * run beside the others. */
        int per_sm = 0, sms = 0, device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_floor_plain, kSmallThreads,
                                                          smem_bytes) != cudaSuccess ||
            (unsigned)(per_sm * sms) < blocks) {
            fprintf(stderr, "radix_timeline: %u blocks do not all fit at once\n", blocks);
            return -1.0f;
        }
    }
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    float ms[MAX_RUNS];
    for (int r = -2; r < runs; r++) {
        void *args[] = {&barriers};
        cudaError_t e;
        cudaEventRecord(start);
        if (plain) {
            k_floor_plain<<<blocks, kSmallThreads, smem_bytes>>>(barriers, g_arrived,
                                                                  g_arrived_total);
            e = cudaGetLastError();
            if (e == cudaSuccess) /* a launch that failed added nothing */
                g_arrived_total += (unsigned long long)barriers * blocks;
        } else {
            e = cudaLaunchCooperativeKernel((const void *)k_floor, dim3(blocks),
                                            dim3(kSmallThreads), args, smem_bytes, 0);
        }
        cudaEventRecord(stop);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(stop);
        if (e == cudaSuccess && r >= 0)
            e = cudaEventElapsedTime(&ms[r], start, stop);
        if (e != cudaSuccess) {
            fprintf(stderr, "radix_timeline: the empty launch: %s\n", cudaGetErrorString(e));
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
            return -1.0f;
        }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms[median_index(ms, runs)] * 1000.0f;
}

static int fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "radix_timeline: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 871414;
    int key_bits = argc > 2 ? atoi(argv[2]) : 32;
    int runs = argc > 3 ? atoi(argv[3]) : 21;
    if (n == 0 || runs < 1 || runs > MAX_RUNS ||
        (key_bits != 16 && key_bits != 24 && key_bits != 32)) {
        fprintf(stderr, "usage: radix_timeline [COUNT>0 [16|24|32 [RUNS 1..%d]]]\n",
                MAX_RUNS);
        return 2;
    }
    float *host_keys = (float *)malloc(n * sizeof(float));
    uint32_t *host_values = (uint32_t *)malloc(n * sizeof(uint32_t));
    float *keys = NULL;
    uint32_t *values = NULL;
    cudaError_t e;
    if (!host_keys || !host_values)
        return fprintf(stderr, "radix_timeline: out of host memory\n"), 1;
    ds_sort_input_generate(DS_DIST_UNIFORM, n, 1, host_keys);
    ds_sort_input_iota(n, host_values);
    if ((e = cudaMalloc((void **)&keys, n * sizeof(float))) ||
        (e = cudaMalloc((void **)&values, n * sizeof(uint32_t))))
        return fail("cudaMalloc", e);

    ds_sorter_desc desc = {};
    desc.max_count = n;
    desc.key_bits = key_bits;
    void *state = NULL;
    if (ds_sort_backend_radix.create(&desc, &state) != DS_OK) {
        fprintf(stderr, "radix_timeline: %s\n", ds_last_error());
        return 1;
    }
    radix_state *s = (radix_state *)state;
    if (n > s->small_limit) {
        fprintf(stderr, "radix_timeline: %zu pairs exceed the single launch's %u\n", n,
                s->small_limit);
        return 1;
    }
    /* The request sort_pairs would make, for the single launch itself. */
    radix_request request = {};
    request.digits = &s->digits;
    request.low_bit = 32 - key_bits;
    request.bits = key_bits;
    request.keys = (uint32_t *)keys;
    request.values = values;
    request.count = (uint32_t)n;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    static unsigned long long marks[MAX_RUNS][2][64];
    float ms[MAX_RUNS];
    for (int r = -2; r < runs; r++) { /* two warm-ups */
        static const unsigned long long zero[2][64] = {};
        if ((e = cudaMemcpyToSymbol(ds_radix_marks, zero, sizeof zero)) ||
            (e = cudaMemcpy(keys, host_keys, n * sizeof(float), cudaMemcpyHostToDevice)) ||
            (e = cudaMemcpy(values, host_values, n * sizeof(uint32_t),
                            cudaMemcpyHostToDevice)))
            return fail("upload", e);
        cudaEventRecord(start);
        if (launch_small(s, &request) != DS_OK) {
            fprintf(stderr, "radix_timeline: %s\n", ds_last_error());
            return 1;
        }
        cudaEventRecord(stop);
        if ((e = cudaEventSynchronize(stop)))
            return fail("sort", e);
        if (r < 0)
            continue;
        cudaEventElapsedTime(&ms[r], start, stop);
        if ((e = cudaMemcpyFromSymbol(marks[r], ds_radix_marks, sizeof marks[r])))
            return fail("marks", e);
    }
    /* The run of median time. */
    int m = median_index(ms, runs);
    const small_shape *shape = small_shape_for(s, (uint32_t)n);
    const unsigned blocks = (unsigned)((n + shape->tile - 1) / shape->tile);
    printf("radix single launch: %zu pairs, %d-bit keys, %u blocks of %d x %d keys, median of "
           "%d sorts %.1f us (events)\n",
           n, key_bits, blocks, kSmallThreads, shape->items, runs, ms[m] * 1000.0f);
    /* Marks: start, loaded, counted, histogram barrier, then per pass
     * ready, tile counts, ranked, offsets, look-back, scattered, barrier. */
    static const char *const head[] = {"load", "count digits", "histogram barrier"};
    static const char *const pass[] = {"plan and load", "tile counts", "rank",
                                       "offsets",       "exchange + look-back",
                                       "scatter",       "barrier"};
    printf("%-28s %10s %10s\n", "step", "block 0", "last");
    for (int i = 1; i < 64; i++) {
        unsigned long long a0 = marks[m][0][i], b0 = marks[m][0][i - 1];
        unsigned long long a1 = marks[m][1][i], b1 = marks[m][1][i - 1];
        if (!a0)
            break;
        char name[48];
        if (i <= 3)
            snprintf(name, sizeof name, "%s", head[i - 1]);
        else
            snprintf(name, sizeof name, "pass %d %s", (i - 4) / 7 + 1, pass[(i - 4) % 7]);
        printf("%-28s %10.2f", name, (a0 - b0) / 1000.0);
        if (a1 && b1)
            printf(" %10.2f", (a1 - b1) / 1000.0);
        printf("\n");
    }
    unsigned long long last0 = 0;
    for (int i = 0; i < 64 && marks[m][0][i]; i++)
        last0 = marks[m][0][i];
    printf("%-28s %10.2f\n", "block 0, first to last mark", (last0 - marks[m][0][0]) / 1000.0);
    const unsigned resident = shape->limit / shape->tile;
    if ((e = cudaMalloc((void **)&g_arrived, sizeof *g_arrived)) ||
        (e = cudaMemset(g_arrived, 0, sizeof *g_arrived)))
        return fail("cudaMalloc", e);
    for (int plain = 0; plain <= 1; plain++) {
        printf("empty %s launch, %u and %u blocks of %d threads (events, median of %d):\n",
               plain ? "ordinary (counter barriers)" : "cooperative", blocks, resident,
               kSmallThreads, runs);
        for (int barriers = 0; barriers <= 4; barriers++)
            printf("  %d grid barriers: %6.1f us  %6.1f us\n", barriers,
                   floor_us(blocks, shape->smem, barriers, runs, plain),
                   floor_us(resident, shape->smem, barriers, runs, plain));
    }
    cudaFree(g_arrived);
    ds_sort_backend_radix.destroy(state);
    cudaFree(keys);
    cudaFree(values);
    free(host_keys);
    free(host_values);
    return 0;
}
