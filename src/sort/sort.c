/* SPDX-License-Identifier: MIT */
/* sort.c — the sort library's front end: algorithm names, the backend
 * table, argument checks, the optional shuffle pass, and dispatch. The
 * algorithms themselves live in kernels/sort/sort_<algo>.cu and src/sort/sort_cpu.c. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "sort_backend.h"
#include "sort_built.h"

#include "cuda_check.h"

struct ds_sorter {
    ds_sort_algo algo;
    const ds_sort_backend *backend;
    void *state;
    size_t max_count;
    int shuffle;
    uint64_t shuffle_seed;
    uint64_t sort_count;  /* sorts so far: varies the shuffle per call */
    int time_phases;
    /* Shuffle pass: scratch pairs (device, allocated only for GPU algorithms
     * when the sorter may shuffle) and events timing it. */
    float *scratch_keys;
    uint32_t *scratch_values;
    cudaEvent_t shuffle_start, shuffle_stop;
    int shuffled_last;
    int low_bits_allowed; /* keys_nonnegative with full keys */
};

/* The backends this build compiled (sort_built.h, from the registry);
 * NULL for an algorithm it left out (the CUDA ones in a build without
 * CUDA). */
static const ds_sort_backend *const backends[DS_SORT_ALGO_COUNT] = {
#define DS_SORT_TABLE_(ID, name) [DS_SORT_##ID] = &ds_sort_backend_##name,
    DS_SORT_BUILT(DS_SORT_TABLE_)
#undef DS_SORT_TABLE_
};

static const char *const algo_names[DS_SORT_ALGO_COUNT] = {
#define DS_SORT_NAME_(ID, name, file, hotkey, summary) [DS_SORT_##ID] = #name,
    DS_SORT_REGISTRY(DS_SORT_NAME_)
#undef DS_SORT_NAME_
};

static const char algo_hotkeys[DS_SORT_ALGO_COUNT] = {
#define DS_SORT_HOTKEY_(ID, name, file, hotkey, summary) [DS_SORT_##ID] = hotkey,
    DS_SORT_REGISTRY(DS_SORT_HOTKEY_)
#undef DS_SORT_HOTKEY_
};

static const char *const algo_summaries[DS_SORT_ALGO_COUNT] = {
#define DS_SORT_SUMMARY_(ID, name, file, hotkey, summary) [DS_SORT_##ID] = summary,
    DS_SORT_REGISTRY(DS_SORT_SUMMARY_)
#undef DS_SORT_SUMMARY_
};

const char *ds_sort_algo_name(ds_sort_algo algo)
{
    if ((unsigned)algo >= DS_SORT_ALGO_COUNT)
        return "unknown";
    return algo_names[algo];
}

ds_sort_algo ds_sort_algo_from_name(const char *name)
{
    for (int i = 0; i < DS_SORT_ALGO_COUNT; i++)
        if (name && strcmp(name, algo_names[i]) == 0)
            return (ds_sort_algo)i;
    return DS_SORT_ALGO_COUNT;
}

int ds_sort_algo_on_host(ds_sort_algo algo)
{
    return (unsigned)algo < DS_SORT_ALGO_COUNT && backends[algo] && backends[algo]->on_host;
}

int ds_sort_algo_host_paced(ds_sort_algo algo)
{
    return (unsigned)algo < DS_SORT_ALGO_COUNT && backends[algo] && backends[algo]->host_paced;
}

int ds_sort_algo_built(ds_sort_algo algo)
{
    return (unsigned)algo < DS_SORT_ALGO_COUNT && backends[algo] != NULL;
}

int ds_sort_cuda_built(void)
{
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (backends[a] && !backends[a]->on_host)
            return 1;
    return 0;
}

/* The shuffle scratch ds_sorter_create() makes for every GPU sorter: a
 * key and a value per pair. */
#define SHUFFLE_BYTES_PER_PAIR 8

size_t ds_sort_algo_bytes_per_pair(ds_sort_algo algo)
{
    if ((unsigned)algo >= DS_SORT_ALGO_COUNT || !backends[algo] || backends[algo]->on_host)
        return 0;
    return SHUFFLE_BYTES_PER_PAIR + backends[algo]->bytes_per_pair;
}

char ds_sort_algo_hotkey(ds_sort_algo algo)
{
    return (unsigned)algo < DS_SORT_ALGO_COUNT ? algo_hotkeys[algo] : 0;
}

const char *ds_sort_algo_summary(ds_sort_algo algo)
{
    return (unsigned)algo < DS_SORT_ALGO_COUNT ? algo_summaries[algo] : "";
}

static ds_status require_cuda_device(const char *name)
{
    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return ds_fail(DS_ERR_NO_DEVICE,
                       "sort %s: no CUDA device (%s); use --sort cpu", name,
                       err != cudaSuccess ? cudaGetErrorString(err)
                                          : "device count is 0");
    }
    return DS_OK;
}

ds_status ds_sorter_create(const ds_sorter_desc *desc, ds_sorter **dest)
{
    ds_status status = DS_OK;
    ds_sorter *sorter = NULL;
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "sort: dest is NULL");
    *dest = NULL;
    if (!desc || (unsigned)desc->algo >= DS_SORT_ALGO_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "sort: unknown algorithm");
    if (desc->key_bits != 0 && desc->key_bits != 16 && desc->key_bits != 24 &&
        desc->key_bits != 32)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort: key_bits must be 16, 24 or 32, not %d",
                       desc->key_bits);
    if (desc->max_count > ((size_t)1 << 31))
        return ds_fail(DS_ERR_TOO_LARGE,
                       "sort: max_count %zu exceeds 2^31 pairs",
                       desc->max_count);
    const ds_sort_backend *backend = backends[desc->algo];
    if (!backend)
        return ds_fail(DS_ERR_UNSUPPORTED,
                       "sort %s: not in this build (built without CUDA); use --sort gl or cpu",
                       algo_names[desc->algo]);
    if (!backend->on_host && (status = require_cuda_device(backend->name)))
        return status;

    sorter = calloc(1, sizeof *sorter);
    if (!sorter)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "sort: out of host memory");
    sorter->algo = desc->algo;
    sorter->backend = backend;
    sorter->max_count = desc->max_count;
    sorter->shuffle = desc->shuffle;
    sorter->shuffle_seed = desc->shuffle_seed ? desc->shuffle_seed
                                              : 0x9E3779B97F4A7C15ull;
    sorter->time_phases = desc->time_phases;
    sorter->low_bits_allowed =
        desc->keys_nonnegative && (desc->key_bits == 0 || desc->key_bits == 32);

    ds_sorter_desc backend_desc = *desc;
    if (backend_desc.key_bits == 0)
        backend_desc.key_bits = 32;
    if ((status = backend->create(&backend_desc, &sorter->state)))
        goto fail;

    /* The shuffle scratch is made for every GPU sorter, not only those
     * created with shuffle on, so that ds_sorter_set_shuffle() never
     * allocates. The CPU backend shuffles on the host itself. One spare
     * element lets the atomic shuffle pack an odd count of 64-bit pairs
     * across the two arrays (ds_shuffle_pairs in sort.h, kernels/sort/shuffle.cu). */
    if (!backend->on_host && desc->max_count > 0) {
        DS_CUDA_GOTO(status, fail, "sort",
                       cudaMalloc((void **)&sorter->scratch_keys,
                                  (desc->max_count + 1) * sizeof(float)));
        DS_CUDA_GOTO(status, fail, "sort",
                       cudaMalloc((void **)&sorter->scratch_values,
                                  (desc->max_count + 1) * sizeof(uint32_t)));
        DS_CUDA_GOTO(status, fail, "sort", cudaEventCreate(&sorter->shuffle_start));
        DS_CUDA_GOTO(status, fail, "sort", cudaEventCreate(&sorter->shuffle_stop));
    }
    *dest = sorter;
    return DS_OK;
fail:
    ds_sorter_destroy(sorter);
    return status;
}

void ds_sorter_destroy(ds_sorter *sorter)
{
    if (!sorter)
        return;
    if (!sorter->backend->on_host)
        cudaDeviceSynchronize();
    if (sorter->state)
        sorter->backend->destroy(sorter->state);
    /* Guarded so that a CPU sorter never initialises the CUDA runtime. */
    if (sorter->scratch_keys)
        cudaFree(sorter->scratch_keys);
    if (sorter->scratch_values)
        cudaFree(sorter->scratch_values);
    if (sorter->shuffle_start)
        cudaEventDestroy(sorter->shuffle_start);
    if (sorter->shuffle_stop)
        cudaEventDestroy(sorter->shuffle_stop);
    free(sorter);
}

/* Host shuffle for the CPU backend: Fisher–Yates with a splitmix64 stream. */
static void shuffle_host(float *keys, uint32_t *values, size_t count,
                         uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = count; i > 1; i--) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        size_t j = (size_t)(z % i);
        float k = keys[i - 1];
        keys[i - 1] = keys[j];
        keys[j] = k;
        uint32_t v = values[i - 1];
        values[i - 1] = values[j];
        values[j] = v;
    }
}

/* What both entry points do before the backend sorts: the checks, and the
 * shuffle when on. *done is set when there is nothing to sort. */
static ds_status sort_begin(ds_sorter *sorter, float *keys, uint32_t *values,
                            size_t count, ds_stream stream, int *done)
{
    ds_status status;
    *done = 1;
    if (!sorter)
        return ds_fail(DS_ERR_INVALID_ARG, "sort: sorter is NULL");
    if (count > sorter->max_count)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort %s: count %zu exceeds the sorter's max_count %zu",
                       sorter->backend->name, count, sorter->max_count);
    sorter->shuffled_last = 0;
    if (count == 0)
        return DS_OK;
    if (!keys || !values)
        return ds_fail(DS_ERR_INVALID_ARG, "sort %s: NULL keys or values",
                       sorter->backend->name);
    if (!sorter->backend->on_host &&
        (((uintptr_t)keys | (uintptr_t)values) & (DS_SORT_ALIGNMENT - 1)))
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort %s: keys and values must be %d-byte aligned "
                       "device pointers",
                       sorter->backend->name, DS_SORT_ALIGNMENT);
    uint64_t seed = sorter->shuffle_seed + sorter->sort_count++;
    if (sorter->shuffle) {
        if (sorter->backend->on_host) {
            shuffle_host(keys, values, count, seed);
        } else {
            cudaStream_t s = (cudaStream_t)stream;
            if (sorter->time_phases)
                DS_CUDA_TRY("sort", cudaEventRecord(sorter->shuffle_start, s));
            if ((status = ds_shuffle_pairs(keys, values, sorter->scratch_keys,
                                           sorter->scratch_values, count, seed,
                                           stream)))
                return status;
            if (sorter->time_phases)
                DS_CUDA_TRY("sort", cudaEventRecord(sorter->shuffle_stop, s));
            sorter->shuffled_last = 1;
        }
    }
    *done = 0;
    return DS_OK;
}

ds_status ds_sorter_sort(ds_sorter *sorter, float *keys, uint32_t *values,
                         size_t count, ds_sort_order order, ds_stream stream)
{
    int done;
    ds_status status = sort_begin(sorter, keys, values, count, stream, &done);
    if (status || done)
        return status;
    return sorter->backend->sort(sorter->state, keys, values, count, order,
                                 stream);
}

ds_status ds_sorter_sort_pingpong(ds_sorter *sorter, float *keys, uint32_t *values,
                                  float *alt_keys, uint32_t *alt_values, size_t count,
                                  ds_sort_order order, ds_stream stream, int *in_alt)
{
    if (!in_alt)
        return ds_fail(DS_ERR_INVALID_ARG, "sort: in_alt is NULL");
    *in_alt = 0;
    int done;
    ds_status status = sort_begin(sorter, keys, values, count, stream, &done);
    if (status || done)
        return status;
    if (!sorter->backend->sort_pingpong)
        return sorter->backend->sort(sorter->state, keys, values, count, order,
                                     stream);
    if (!alt_keys || !alt_values || (float *)alt_values == keys ||
        alt_keys == keys || alt_values == values ||
        (((uintptr_t)alt_keys | (uintptr_t)alt_values) & (DS_SORT_ALIGNMENT - 1)))
        return ds_fail(DS_ERR_INVALID_ARG,
                       "sort %s: the second pair must be two more %d-byte aligned "
                       "device arrays", sorter->backend->name, DS_SORT_ALIGNMENT);
    return sorter->backend->sort_pingpong(sorter->state, keys, values, alt_keys,
                                          alt_values, count, order, stream, in_alt);
}

const char *ds_sorter_name(const ds_sorter *sorter)
{
    return sorter ? sorter->backend->name : "none";
}

void ds_sorter_set_shuffle(ds_sorter *sorter, int shuffle)
{
    if (sorter)
        sorter->shuffle = shuffle;
}

void ds_sorter_set_low_key_bits(ds_sorter *sorter, int low_bits)
{
    if (sorter && sorter->low_bits_allowed && sorter->backend->set_low_bits &&
        (low_bits == 16 || low_bits == 24 || low_bits == 32))
        sorter->backend->set_low_bits(sorter->state, low_bits);
}

int ds_sorter_phases(ds_sorter *sorter, const char **names, float *ms,
                     int capacity)
{
    int written = 0;
    if (!sorter || !sorter->time_phases || capacity <= 0)
        return 0;
    if (sorter->shuffled_last) {
        float elapsed = 0.0f;
        if (cudaEventSynchronize(sorter->shuffle_stop) == cudaSuccess &&
            cudaEventElapsedTime(&elapsed, sorter->shuffle_start,
                                 sorter->shuffle_stop) == cudaSuccess) {
            names[written] = "shuffle";
            ms[written] = elapsed;
            written++;
        }
    }
    if (sorter->backend->phases && written < capacity)
        written += sorter->backend->phases(sorter->state, names + written,
                                           ms + written, capacity - written);
    return written;
}
