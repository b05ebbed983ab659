/* SPDX-License-Identifier: MIT */
/* bench_sort.c — the sort benchmark: every built algorithm x sizes x key
 * distributions (or real camera distances from a model), timed with CUDA
 * events as the median of --runs sorts after --warmup, the input restored
 * from a pristine device copy before each run (not timed). Prints ms,
 * G pairs/s and the time of "cub-raw" (plain cub::DeviceRadixSort::SortPairs
 * on float keys, measured in the same run) divided by the algorithm's time.
 * Every result is checked once (ds_sort_check) so that a fast wrong sort
 * is marked WRONG, never reported as a win.
 *
 *   bench_sort [--algo LIST] [--dist LIST] [--sizes LIST] [--max-size N]
 *              [--runs N] [--warmup N] [--order asc|desc] [--shuffle]
 *              [--shuffle-methods] [--key-bits N] [--phases] [--csv FILE]
 *              [--model PATH [--grid NxM]] [--commit STR]
 *   LIST is comma separated; --algo all (default: every built GPU
 *   algorithm; add cpu by name), --dist all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "bench_cub_raw.h"
#include "load.h"
#include "mesh.h"
#include "scene.h"
#include "sort.h"
#include "sort_inputs.h"

#define MAX_SIZES 64
#define MAX_RUNS 1000
#define DEFAULT_RUNS 20
#define DEFAULT_WARMUP 3
#define VERIFY_SEED 7777ull
#define ALGO_CUB_RAW DS_SORT_ALGO_COUNT /* row label beyond the enum */

static const size_t default_extra_sizes[] = {69451, 871414, 5000000, 14027872,
                                             28055742};

typedef struct bench_options {
    int algos[DS_SORT_ALGO_COUNT];
    int dists[DS_DIST_COUNT];
    size_t sizes[MAX_SIZES];
    int size_count;
    size_t max_size;
    int runs, warmup;
    ds_sort_order order;
    int shuffle, shuffle_methods, key_bits, phases;
    const char *csv_path;
    const char *model_path;
    const char *scene;       /* NAME[:SIZE]: a built-in scene's vertices */
    int grid_x, grid_y;
    int eye_given;           /* --eye X,Y,Z; else a viewpoint off the model */
    float eye[3];
    const char *commit;
} bench_options;

typedef struct bench_buffers {
    size_t capacity;
    float *host_keys;        /* the input */
    uint32_t *host_values;
    float *check_keys;       /* a result, for the check */
    uint32_t *check_values;
    float *pristine_keys;    /* device copies of the input */
    uint32_t *pristine_values;
    float *keys;             /* device arrays sorted in place */
    uint32_t *values;
    cudaStream_t stream;
    cudaEvent_t start, stop;
} bench_buffers;

static int fail_cuda(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    fprintf(stderr, "bench_sort: %s: %s\n", what, cudaGetErrorString(err));
    return 1;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median(float *ms, int count)
{
    qsort(ms, (size_t)count, sizeof *ms, compare_float);
    return count % 2 ? ms[count / 2] : 0.5f * (ms[count / 2 - 1] + ms[count / 2]);
}

/* Restores the input on the device (stream-ordered, outside the events). */
static int restore(bench_buffers *b, size_t n)
{
    return fail_cuda(cudaMemcpyAsync(b->keys, b->pristine_keys, n * sizeof(float),
                                     cudaMemcpyDeviceToDevice, b->stream),
                     "restore keys") ||
           fail_cuda(cudaMemcpyAsync(b->values, b->pristine_values,
                                     n * sizeof(uint32_t),
                                     cudaMemcpyDeviceToDevice, b->stream),
                     "restore values");
}

typedef enum run_kind { RUN_SORTER, RUN_CUB_RAW, RUN_SHUFFLE } run_kind;

typedef struct run_target {
    run_kind kind;
    ds_sorter *sorter;
    bench_cub_raw *raw;
    ds_shuffle_method method;
    float *scratch_keys;
    uint32_t *scratch_values;
} run_target;

static ds_status run_once(const run_target *t, bench_buffers *b, size_t n,
                          ds_sort_order order, uint64_t seed)
{
    switch (t->kind) {
    case RUN_SORTER:
        return ds_sorter_sort(t->sorter, b->keys, b->values, n, order,
                              (ds_stream)b->stream);
    case RUN_CUB_RAW:
        return bench_cub_raw_sort(t->raw, b->keys, b->values, n,
                                  order == DS_SORT_DESCENDING,
                                  (ds_stream)b->stream);
    case RUN_SHUFFLE:
        return ds_shuffle_pairs_with(t->method, b->keys, b->values,
                                     t->scratch_keys, t->scratch_values, n,
                                     seed, (ds_stream)b->stream);
    }
    return DS_ERR_INVALID_ARG;
}

/* Median and minimum over opts->runs timed runs; -1 on failure. */
static int time_target(const run_target *t, bench_buffers *b, size_t n,
                       const bench_options *opts, float *median_ms,
                       float *min_ms)
{
    float ms[MAX_RUNS];
    for (int r = -opts->warmup; r < opts->runs; r++) {
        if (restore(b, n))
            return -1;
        if (fail_cuda(cudaEventRecord(b->start, b->stream), "event"))
            return -1;
        if (run_once(t, b, n, opts->order, (uint64_t)r + 1) != DS_OK)
            return -1;
        if (fail_cuda(cudaEventRecord(b->stop, b->stream), "event") ||
            fail_cuda(cudaEventSynchronize(b->stop), "sort"))
            return -1;
        if (r >= 0 &&
            fail_cuda(cudaEventElapsedTime(&ms[r], b->start, b->stop), "time"))
            return -1;
    }
    *median_ms = median(ms, opts->runs);
    *min_ms = ms[0];
    return 0;
}

/* One more run, downloaded and checked; "ok", "WRONG" or "error". */
static const char *verify(const run_target *t, bench_buffers *b, size_t n,
                          const bench_options *opts, const char *label)
{
    char why[512];
    if (restore(b, n) || run_once(t, b, n, opts->order, VERIFY_SEED) != DS_OK)
        return "error";
    const float *keys = b->keys;
    const uint32_t *values = b->values;
    if (t->kind == RUN_SHUFFLE)
        return "ok"; /* tested in test_sort_gpu */
    if (fail_cuda(cudaMemcpyAsync(b->check_keys, keys, n * sizeof(float),
                                  cudaMemcpyDeviceToHost, b->stream),
                  "download") ||
        fail_cuda(cudaMemcpyAsync(b->check_values, values, n * sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost, b->stream),
                  "download") ||
        fail_cuda(cudaStreamSynchronize(b->stream), "download"))
        return "error";
    if (t->kind == RUN_CUB_RAW)
        return "-"; /* out of place, raw float order: nothing to check */
    int key_bits = opts->key_bits ? opts->key_bits : 32;
    if (ds_sort_check(b->host_keys, n, b->check_keys, b->check_values,
                      opts->order, key_bits, why, sizeof why) != DS_OK) {
        fprintf(stderr, "bench_sort: %s n=%zu gave a wrong result: %s\n",
                label, n, why);
        return "WRONG";
    }
    return "ok";
}

static void print_phases(ds_sort_algo algo, bench_buffers *b, size_t n,
                         const bench_options *opts)
{
    ds_sorter_desc desc = {0};
    desc.algo = algo;
    desc.max_count = n;
    desc.key_bits = opts->key_bits;
    desc.shuffle = opts->shuffle;
    desc.time_phases = 1;
    ds_sorter *sorter;
    if (ds_sorter_create(&desc, &sorter) != DS_OK)
        return;
    const char *names[DS_SORT_MAX_PHASES];
    float ms[DS_SORT_MAX_PHASES];
    if (!restore(b, n) &&
        ds_sorter_sort(sorter, b->keys, b->values, n, opts->order,
                       (ds_stream)b->stream) == DS_OK) {
        int count = ds_sorter_phases(sorter, names, ms, DS_SORT_MAX_PHASES);
        printf("    phases %-9s n=%-9zu", ds_sort_algo_name(algo), n);
        for (int p = 0; p < count; p++)
            printf(" %s=%.3f", names[p], ms[p]);
        printf("%s\n", count ? "" : " (none reported)");
    }
    ds_sorter_destroy(sorter);
}

static int buffers_init(bench_buffers *b, size_t capacity)
{
    memset(b, 0, sizeof *b);
    b->capacity = capacity;
    size_t n = capacity ? capacity : 1;
    b->host_keys = malloc(n * sizeof(float));
    b->host_values = malloc(n * sizeof(uint32_t));
    b->check_keys = malloc(n * sizeof(float));
    b->check_values = malloc(n * sizeof(uint32_t));
    if (!b->host_keys || !b->host_values || !b->check_keys || !b->check_values) {
        fprintf(stderr, "bench_sort: out of host memory\n");
        return 1;
    }
    return fail_cuda(cudaMalloc((void **)&b->pristine_keys, n * sizeof(float)),
                     "cudaMalloc") ||
           fail_cuda(cudaMalloc((void **)&b->pristine_values,
                                n * sizeof(uint32_t)), "cudaMalloc") ||
           fail_cuda(cudaMalloc((void **)&b->keys, n * sizeof(float)),
                     "cudaMalloc") ||
           fail_cuda(cudaMalloc((void **)&b->values, n * sizeof(uint32_t)),
                     "cudaMalloc") ||
           fail_cuda(cudaStreamCreate(&b->stream), "stream") ||
           fail_cuda(cudaEventCreate(&b->start), "event") ||
           fail_cuda(cudaEventCreate(&b->stop), "event");
}

static void buffers_free(bench_buffers *b)
{
    free(b->host_keys);
    free(b->host_values);
    free(b->check_keys);
    free(b->check_values);
    cudaFree(b->pristine_keys);
    cudaFree(b->pristine_values);
    cudaFree(b->keys);
    cudaFree(b->values);
    if (b->stream)
        cudaStreamDestroy(b->stream);
    if (b->start)
        cudaEventDestroy(b->start);
    if (b->stop)
        cudaEventDestroy(b->stop);
}

/* ---- one (distribution, size) block of the table ---------------------- */

typedef struct bench_output {
    FILE *csv;
    const char *gpu;
    const char *commit;
} bench_output;

static void emit(const bench_output *out, const bench_options *opts,
                 const char *dist, size_t n, const char *label, float med,
                 float min, float raw_ms, const char *check)
{
    double rate = med > 0 ? (double)n / (med * 1e-3) / 1e9 : 0.0;
    double ratio = med > 0 && raw_ms > 0 ? raw_ms / med : 0.0;
    printf("%-13s %10zu  %-16s %10.4f %9.3f %9.3f  %s\n", dist, n, label, med,
           rate, ratio, check);
    if (out->csv)
        fprintf(out->csv, "%s,%s,%s,%zu,%s,%s,%d,%d,%.5f,%.5f,%.5f,%.4f,%s\n",
                out->gpu, out->commit, dist, n, label,
                opts->order == DS_SORT_DESCENDING ? "desc" : "asc",
                opts->shuffle, opts->key_bits ? opts->key_bits : 32, med, min,
                rate, ratio, check);
    fflush(stdout);
}

static int bench_input(const bench_options *opts, const bench_output *out,
                       bench_buffers *b, const char *dist, size_t n)
{
    float raw_ms = 0.0f, med, min;
    ds_sort_input_iota(n, b->host_values);
    if (fail_cuda(cudaMemcpy(b->pristine_keys, b->host_keys, n * sizeof(float),
                             cudaMemcpyHostToDevice), "upload") ||
        fail_cuda(cudaMemcpy(b->pristine_values, b->host_values,
                             n * sizeof(uint32_t), cudaMemcpyHostToDevice),
                  "upload"))
        return 1;

    run_target raw = {.kind = RUN_CUB_RAW};
    if (bench_cub_raw_create(n, &raw.raw) == DS_OK) {
        if (time_target(&raw, b, n, opts, &raw_ms, &min) == 0)
            emit(out, opts, dist, n, "cub-raw", raw_ms, min, raw_ms,
                 verify(&raw, b, n, opts, "cub-raw"));
        bench_cub_raw_destroy(raw.raw);
    }

    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (!opts->algos[a])
            continue;
        ds_sort_algo algo = (ds_sort_algo)a;
        const char *name = ds_sort_algo_name(algo);
        if (ds_sort_algo_on_host(algo)) {
            /* The CPU sort: wall-clock of host memory, same median rule. */
            ds_sorter_desc desc = {.algo = algo, .max_count = n,
                                   .key_bits = opts->key_bits,
                                   .shuffle = opts->shuffle};
            ds_sorter *sorter;
            if (ds_sorter_create(&desc, &sorter) != DS_OK)
                continue;
            float ms[MAX_RUNS];
            for (int r = -opts->warmup; r < opts->runs; r++) {
                memcpy(b->check_keys, b->host_keys, n * sizeof(float));
                ds_sort_input_iota(n, b->check_values);
                struct timespec t0, t1;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                ds_sorter_sort(sorter, b->check_keys, b->check_values, n,
                               opts->order, NULL);
                clock_gettime(CLOCK_MONOTONIC, &t1);
                if (r >= 0)
                    ms[r] = (float)((t1.tv_sec - t0.tv_sec) * 1e3 +
                                    (t1.tv_nsec - t0.tv_nsec) * 1e-6);
            }
            char why[256];
            const char *check =
                ds_sort_check(b->host_keys, n, b->check_keys, b->check_values,
                              opts->order, opts->key_bits ? opts->key_bits : 32,
                              why, sizeof why) == DS_OK ? "ok" : "WRONG";
            med = median(ms, opts->runs);
            emit(out, opts, dist, n, name, med, ms[0], raw_ms, check);
            ds_sorter_destroy(sorter);
            continue;
        }
        ds_sorter_desc desc = {.algo = algo, .max_count = n,
                               .key_bits = opts->key_bits,
                               .shuffle = opts->shuffle};
        run_target t = {.kind = RUN_SORTER};
        if (ds_sorter_create(&desc, &t.sorter) != DS_OK) {
            printf("%-13s %10zu  %-16s (create failed: %s)\n", dist, n, name,
                   ds_last_error());
            continue;
        }
        if (time_target(&t, b, n, opts, &med, &min) == 0)
            emit(out, opts, dist, n, name, med, min, raw_ms,
                 verify(&t, b, n, opts, name));
        else
            printf("%-13s %10zu  %-16s (failed: %s)\n", dist, n, name,
                   ds_last_error());
        ds_sorter_destroy(t.sorter);
        if (opts->phases)
            print_phases(algo, b, n, opts);
    }

    if (opts->shuffle_methods) {
        run_target t = {.kind = RUN_SHUFFLE};
        if (fail_cuda(cudaMalloc((void **)&t.scratch_keys,
                                 (n + 1) * sizeof(float)), "cudaMalloc") ||
            fail_cuda(cudaMalloc((void **)&t.scratch_values,
                                 (n + 1) * sizeof(uint32_t)), "cudaMalloc"))
            return 1;
        for (int m = 0; m < DS_SHUFFLE_METHOD_COUNT; m++) {
            char label[32];
            t.method = (ds_shuffle_method)m;
            /* The atomic method's last throws are serial (seconds at 2^22,
             * see kernels/sort/shuffle.cu); past 2^20 it would eat the run. */
            if (t.method == DS_SHUFFLE_ATOMIC_EXCHANGE && n > ((size_t)1 << 20))
                continue;
            snprintf(label, sizeof label, "shuffle-%s",
                     ds_shuffle_method_name(t.method));
            if (time_target(&t, b, n, opts, &med, &min) == 0)
                emit(out, opts, dist, n, label, med, min, raw_ms, "-");
        }
        cudaFree(t.scratch_keys);
        cudaFree(t.scratch_values);
    }
    return 0;
}

/* ---- command line ------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_sort [--algo LIST|all] [--dist LIST|all] [--sizes LIST]\n"
            "                  [--max-size N] [--runs N] [--warmup N]\n"
            "                  [--order asc|desc] [--shuffle] [--shuffle-methods]\n"
            "                  [--key-bits 16|24|32] [--phases] [--csv FILE]\n"
            "                  [--model PATH | --scene NAME[:SIZE]] [--grid NxM]\n"
            "                  [--eye X,Y,Z] [--commit STR]\n"
            "algorithms:");
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        fprintf(stderr, " %s", ds_sort_algo_name((ds_sort_algo)a));
    fprintf(stderr, "\ndistributions:");
    for (int d = 0; d < DS_DIST_COUNT; d++)
        fprintf(stderr, " %s", ds_sort_dist_name((ds_sort_dist)d));
    fprintf(stderr, "\n");
}

static int parse_list(char *list, int (*one)(const char *, bench_options *),
                      bench_options *opts)
{
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ","))
        if (one(item, opts))
            return 1;
    return 0;
}

static int one_algo(const char *name, bench_options *opts)
{
    if (strcmp(name, "all") == 0) {
        for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
            opts->algos[a] = !ds_sort_algo_on_host((ds_sort_algo)a);
        return 0;
    }
    ds_sort_algo algo = ds_sort_algo_from_name(name);
    if (algo == DS_SORT_ALGO_COUNT) {
        fprintf(stderr, "bench_sort: unknown algorithm '%s'\n", name);
        return 1;
    }
    opts->algos[algo] = 1;
    return 0;
}

static int one_dist(const char *name, bench_options *opts)
{
    if (strcmp(name, "all") == 0) {
        for (int d = 0; d < DS_DIST_COUNT; d++)
            opts->dists[d] = 1;
        return 0;
    }
    ds_sort_dist dist = ds_sort_dist_from_name(name);
    if (dist == DS_DIST_COUNT) {
        fprintf(stderr, "bench_sort: unknown distribution '%s'\n", name);
        return 1;
    }
    opts->dists[dist] = 1;
    return 0;
}

static int one_size(const char *text, bench_options *opts)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 0);
    if (errno || *end || n == 0 || n > ((size_t)1 << 30) ||
        opts->size_count == MAX_SIZES) {
        fprintf(stderr, "bench_sort: bad size '%s'\n", text);
        return 1;
    }
    opts->sizes[opts->size_count++] = (size_t)n;
    return 0;
}

static int parse_args(int argc, char **argv, bench_options *opts)
{
    int any_algo = 0, any_dist = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        if (strcmp(arg, "--algo") == 0 && value) {
            if (parse_list(value, one_algo, opts))
                return 1;
            any_algo = 1;
        } else if (strcmp(arg, "--dist") == 0 && value) {
            if (parse_list(value, one_dist, opts))
                return 1;
            any_dist = 1;
        } else if (strcmp(arg, "--sizes") == 0 && value) {
            if (parse_list(value, one_size, opts))
                return 1;
        } else if (strcmp(arg, "--max-size") == 0 && value) {
            opts->max_size = strtoull(value, NULL, 0);
        } else if (strcmp(arg, "--runs") == 0 && value) {
            opts->runs = atoi(value);
        } else if (strcmp(arg, "--warmup") == 0 && value) {
            opts->warmup = atoi(value);
        } else if (strcmp(arg, "--order") == 0 && value) {
            opts->order = strcmp(value, "desc") == 0 ? DS_SORT_DESCENDING
                                                     : DS_SORT_ASCENDING;
        } else if (strcmp(arg, "--key-bits") == 0 && value) {
            opts->key_bits = atoi(value);
        } else if (strcmp(arg, "--csv") == 0 && value) {
            opts->csv_path = value;
        } else if (strcmp(arg, "--model") == 0 && value) {
            opts->model_path = value;
        } else if (strcmp(arg, "--scene") == 0 && value) {
            opts->scene = value;
        } else if (strcmp(arg, "--eye") == 0 && value) {
            if (sscanf(value, "%f,%f,%f", &opts->eye[0], &opts->eye[1],
                       &opts->eye[2]) != 3) {
                fprintf(stderr, "bench_sort: bad eye '%s' (want X,Y,Z)\n",
                        value);
                return 1;
            }
            opts->eye_given = 1;
        } else if (strcmp(arg, "--grid") == 0 && value) {
            if (sscanf(value, "%dx%d", &opts->grid_x, &opts->grid_y) != 2 ||
                opts->grid_x < 1 || opts->grid_y < 1) {
                fprintf(stderr, "bench_sort: bad grid '%s'\n", value);
                return 1;
            }
        } else if (strcmp(arg, "--commit") == 0 && value) {
            opts->commit = value;
        } else {
            takes_value = 0;
            if (strcmp(arg, "--shuffle") == 0)
                opts->shuffle = 1;
            else if (strcmp(arg, "--shuffle-methods") == 0)
                opts->shuffle_methods = 1;
            else if (strcmp(arg, "--phases") == 0)
                opts->phases = 1;
            else {
                usage();
                return 1;
            }
        }
        i += takes_value;
    }
    if (opts->runs < 1 || opts->runs > MAX_RUNS || opts->warmup < 0) {
        fprintf(stderr, "bench_sort: --runs must be 1..%d\n", MAX_RUNS);
        return 1;
    }
    if (!any_algo) {
        char all[] = "all";
        one_algo(all, opts);
    }
    if (!any_dist)
        opts->dists[DS_DIST_UNIFORM] = 1;
    if (opts->size_count == 0) {
        for (int p = 10; p <= 26; p++)
            opts->sizes[opts->size_count++] = (size_t)1 << p;
        for (size_t s = 0; s < sizeof default_extra_sizes / sizeof(size_t); s++)
            opts->sizes[opts->size_count++] = default_extra_sizes[s];
    }
    return 0;
}

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    bench_options opts = {.runs = DEFAULT_RUNS, .warmup = DEFAULT_WARMUP,
                          .max_size = SIZE_MAX, .commit = "unknown"};
    if (parse_args(argc, argv, &opts))
        return 2;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "bench_sort: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (fail_cuda(cudaGetDeviceProperties(&prop, 0), "device"))
        return 1;

    /* Model mode: one input, the camera distances of the model's vertices. */
    ds_mesh mesh = {0};
    if (opts.model_path && opts.scene) {
        fprintf(stderr, "bench_sort: give --model or --scene, not both\n");
        return 1;
    }
    if (opts.scene) {
        char name[64];
        size_t triangles = 0;
        if (ds_scene_parse(opts.scene, name, sizeof name, &triangles) ||
            ds_scene_build(name, triangles, &mesh))
            return 1;
        opts.model_path = opts.scene; /* from here on, the same mode */
    } else if (opts.model_path) {
        if (ds_load_mesh(opts.model_path, &mesh) != DS_OK)
            return 1;
    }
    if (opts.model_path) {
        if (opts.grid_x * opts.grid_y > 1) {
            ds_mesh grid = {0};
            if (ds_mesh_grid(&mesh, opts.grid_x, opts.grid_y, &grid) != DS_OK)
                return 1;
            ds_mesh_free(&mesh);
            mesh = grid;
        }
        opts.size_count = 1;
        opts.sizes[0] = mesh.vertex_count;
    }
    qsort(opts.sizes, (size_t)opts.size_count, sizeof(size_t), compare_size);
    size_t capacity = 0;
    for (int s = 0; s < opts.size_count; s++)
        if (opts.sizes[s] <= opts.max_size && opts.sizes[s] > capacity)
            capacity = opts.sizes[s];

    bench_buffers b;
    if (buffers_init(&b, capacity))
        return 1;
    bench_output out = {.gpu = prop.name, .commit = opts.commit};
    if (opts.csv_path) {
        out.csv = fopen(opts.csv_path, "w");
        if (!out.csv) {
            fprintf(stderr, "bench_sort: %s: %s\n", opts.csv_path,
                    strerror(errno));
            return 1;
        }
        fprintf(out.csv, "gpu,commit,dist,n,algo,order,shuffle,key_bits,"
                         "median_ms,min_ms,gpairs_per_s,vs_cub_raw,check\n");
    }
    printf("# %s, commit %s, %s, shuffle %s, key_bits %d, median of %d runs "
           "after %d warm-up\n",
           prop.name, opts.commit,
           opts.order == DS_SORT_DESCENDING ? "descending" : "ascending",
           opts.shuffle ? "on" : "off", opts.key_bits ? opts.key_bits : 32,
           opts.runs, opts.warmup);
    printf("# vs_cub_raw = time(cub-raw) / time(algo): above 1 is faster\n");
    printf("%-13s %10s  %-16s %10s %9s %9s  %s\n", "dist", "n", "algo",
           "median_ms", "Gpairs/s", "vs_raw", "check");

    int status = 0;
    if (opts.model_path) {
        float eye[3] = {mesh.center[0] + 0.6f * mesh.radius,
                        mesh.center[1] + 0.4f * mesh.radius,
                        mesh.center[2] + 2.5f * mesh.radius};
        if (opts.eye_given)
            memcpy(eye, opts.eye, sizeof eye);
        printf("# %s: %zu vertices, eye %g,%g,%g\n", opts.model_path,
               mesh.vertex_count, eye[0], eye[1], eye[2]);
        ds_sort_input_distances(mesh.positions, mesh.vertex_count, eye,
                                b.host_keys);
        status = bench_input(&opts, &out, &b, "mesh", mesh.vertex_count);
    } else {
        for (int d = 0; d < DS_DIST_COUNT && !status; d++) {
            if (!opts.dists[d])
                continue;
            for (int s = 0; s < opts.size_count && !status; s++) {
                size_t n = opts.sizes[s];
                if (n > opts.max_size)
                    continue;
                ds_sort_input_generate((ds_sort_dist)d, n,
                                       VERIFY_SEED + (uint64_t)d, b.host_keys);
                status = bench_input(&opts, &out, &b,
                                     ds_sort_dist_name((ds_sort_dist)d), n);
            }
        }
    }
    if (out.csv)
        fclose(out.csv);
    buffers_free(&b);
    ds_mesh_free(&mesh);
    return status;
}
