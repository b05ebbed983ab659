/* SPDX-License-Identifier: MIT */
/* gl_sort.c — gl_sort.h: a stable LSD radix sort of (uint32 key, uint32
 * value) pairs in GL buffers, 8 bits per pass, after the reduce-then-scan
 * radix sorts of Merrill and Grimshaw ("High Performance and Scalable
 * Radix Sorting", 2011) with the block-local ranking done by subgroup
 * ballots ("warp-level multisplit", Ashkiani et al., "GPU Multisplit",
 * 2016). O(n) work per pass, (end - begin) / 8 passes.
 *
 * Per pass, two dispatches over blocks of BLOCK = THREADS x ITEMS keys:
 *   radix_count    a workgroup per block: its digit histogram, written
 *                  block-major (counts[b * RADIX + d]), and each count
 *                  added to its digit's total and to its digit's sums over
 *                  the block's group (GROUP consecutive blocks) and span
 *                  (GROUP consecutive groups);
 *   radix_scatter  a workgroup per block: the block's digit positions
 *                  from the scan of the totals plus the sums of the spans,
 *                  groups and blocks before it (no separate scan
 *                  dispatch: the paper's top-level scan, done redundantly
 *                  by every block over about 3 cbrt(blocks) rows); stable
 *                  ranks from ballots; the block staged in shared memory
 *                  in sorted order and written out in runs.
 * The totals, span and group sums live in two halves of one buffer that
 * the passes alternate between: a pass's scatter zeroes the half the next
 * pass counts into, so nothing is cleared by a separate command.
 * The passes ping-pong between the caller's buffers and two scratch
 * buffers; in place, an odd pass count ends with a copy back.
 *
 * The subgroup layout (size, and that subgroups are aligned ranges of
 * gl_LocalInvocationIndex with every lane active) is probed once at
 * creation by radix_probe; the workgroup size follows from it so that at
 * most MAX_ROWS subgroups share a workgroup (one shared-memory row of
 * RADIX counters each).
 *
 * The ranking's subgroup operations come in two forms
 * (shaders/radix_subgroup.glsl): GL_KHR_shader_subgroup where the context
 * offers it, where each subgroup ranks its rounds on its own with shared
 * atomics and shuffles, and GL_ARB_shader_ballot otherwise (Mesa's
 * llvmpipe), where a subgroup's rounds meet the whole workgroup at
 * barriers. With
 * GL_NV_shader_subgroup_partitioned the KHR form can also match equal
 * digits in one operation (a tuning choice, off by default).
 *
 * Not handled: keys or values other than 32 bits, digits other than 8
 * bits, more than UINT32_MAX - BLOCK pairs. */
#include "gl_sort.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "gl_compute.h"

/* ---- tuning and definitions ---------------------------------------------- */

#define RADIX_BITS 8
#define RADIX (1 << RADIX_BITS)
/* Invocations per workgroup of radix_count and radix_scatter where the
 * subgroups allow: one digit per invocation in the block's digit scan. */
#define MAX_THREADS 256
/* Keys per invocation by default (docs/algorithms/gl-radix.md, Tuning):
 * below SMALL_SORT pairs 4 and below MEDIUM_SORT 8 (more blocks in
 * flight and shorter ranking chains: the sort is latency bound); above,
 * 12 in the KHR form (a subgroup's rounds do not wait for the others, so
 * longer blocks amortise the per-block sums) and 8 in the ARB form (whose
 * every round meets the whole workgroup). */
#define SMALL_SORT 262144
#define SMALL_ITEMS 4
#define MEDIUM_SORT 2000000
#define MEDIUM_ITEMS 8
#define KHR_ITEMS 12
#define ARB_ITEMS 8
#define MAX_ITEMS 32
/* Subgroups per workgroup at most: their RADIX-word rows of counters
 * (16 KiB) alias the staging area and stay within GL's 32 KiB. */
#define MAX_ROWS 16
#define MIN_SUBGROUP 4
#define MAX_SUBGROUP 64

/* Shader sources, embedded from shaders/ by cmake/embed.cmake. */
extern const char ds_shader_radix_probe_comp[];
extern const char ds_shader_radix_count_comp[];
extern const char ds_shader_radix_scatter_comp[];
extern const char ds_shader_radix_subgroup[];
extern const char ds_shader_radix_workgroup_scan[];

/* GL_KHR_shader_subgroup's queries and bits (not in the generated GL 4.5
 * loader). */
#ifndef GL_SUBGROUP_SIZE_KHR
#define GL_SUBGROUP_SIZE_KHR 0x9532
#define GL_SUBGROUP_SUPPORTED_STAGES_KHR 0x9533
#define GL_SUBGROUP_SUPPORTED_FEATURES_KHR 0x9534
#define GL_SUBGROUP_FEATURE_BASIC_BIT_KHR 0x00000001
#define GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR 0x00000004
#define GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR 0x00000008
#define GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR 0x00000010
#endif
#ifndef GL_SUBGROUP_FEATURE_PARTITIONED_BIT_NV
#define GL_SUBGROUP_FEATURE_PARTITIONED_BIT_NV 0x00000100
#endif

/* Shader storage bindings, as in the shaders. */
enum {
    BIND_KEYS_IN,
    BIND_VALUES_IN,
    BIND_KEYS_OUT,
    BIND_VALUES_OUT,
    BIND_COUNTS,
    BIND_SUMS,
    BIND_KEY_COUNT,
    BIND_COUNT
};

/* Uniform locations, as in the shaders. */
enum {
    UNIFORM_KEY_COUNT,
    UNIFORM_SHIFT,
    UNIFORM_BLOCK_COUNT, /* unused: the scatter reads gl_NumWorkGroups */
    UNIFORM_SUMS_BASE,
    UNIFORM_CLEAR_BASE,
    UNIFORM_COUNT_WORD = 6
};

struct ds_gl_sort {
    size_t capacity;
    ds_gl_sort_subgroup subgroup; /* the form chosen: ARB, KHR or KHR_PARTITION */
    GLuint items;         /* keys per invocation */
    GLuint threads;       /* invocations per count/scatter workgroup */
    GLuint block;         /* keys per block: threads * items */
    GLuint subgroup_size;
    GLuint sums_words;    /* one half of sums: RADIX totals, then RADIX a span
                             and RADIX a group */
    GLuint count_program, scatter_program;
    GLuint keys_alt, values_alt; /* the other side of the ping-pong */
    GLuint counts;               /* blocks x RADIX, block-major */
    GLuint sums;                 /* two halves of sums_words */
    int half;                    /* the half the next pass counts into */
    const GLuint *timestamps;    /* ds_gl_sort_set_timestamps, or NULL */
    /* the last sort's dispatches and dependent steps (ds_gl_sort_issued);
     * in_step: a dispatch was issued since the last barrier */
    unsigned dispatches, steps;
    int in_step;
};

/* ---- support and the subgroup probe ---------------------------------------- */

static int has_extension(const char *wanted)
{
    GLint extensions = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    for (GLint i = 0; i < extensions; i++) {
        const char *name = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (name && strcmp(name, wanted) == 0)
            return 1;
    }
    return 0;
}

int ds_gl_sort_supported(void)
{
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major < 4 || (major == 4 && minor < 3))
        return 0;
    return has_extension("GL_ARB_shader_ballot");
}

/* 1 if compute shaders get GL_KHR_shader_subgroup's basic, ballot,
 * shuffle and arithmetic operations (and, with `partition`, the
 * partitioned ones of GL_NV_shader_subgroup_partitioned) in subgroups of
 * `subgroup_size`. */
static int khr_subgroups_offered(GLuint subgroup_size, int partition)
{
    if (!has_extension("GL_KHR_shader_subgroup") ||
        (partition && !has_extension("GL_NV_shader_subgroup_partitioned")))
        return 0;
    GLint size = 0, stages = 0, features = 0;
    glGetIntegerv(GL_SUBGROUP_SIZE_KHR, &size);
    glGetIntegerv(GL_SUBGROUP_SUPPORTED_STAGES_KHR, &stages);
    glGetIntegerv(GL_SUBGROUP_SUPPORTED_FEATURES_KHR, &features);
    GLint needed = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR | GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR |
                   GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR | GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR;
    if (partition)
        needed |= GL_SUBGROUP_FEATURE_PARTITIONED_BIT_NV;
    return (GLuint)size == subgroup_size && (stages & GL_COMPUTE_SHADER_BIT) != 0 &&
           (features & needed) == needed;
}

const char *ds_gl_sort_subgroup_name(ds_gl_sort_subgroup subgroup)
{
    switch (subgroup) {
    case DS_GL_SORT_SUBGROUP_AUTO: return "auto";
    case DS_GL_SORT_SUBGROUP_ARB: return "arb";
    case DS_GL_SORT_SUBGROUP_KHR: return "khr";
    case DS_GL_SORT_SUBGROUP_KHR_PARTITION: return "khr-partition";
    }
    return "?";
}

/* The ballot extension, and the 64-bit integers its masks are made of
 * (GL_ARB_shader_ballot requires GL_ARB_gpu_shader_int64). */
static const char EXTENSIONS[] = "#extension GL_ARB_shader_ballot : require\n"
                                 "#extension GL_ARB_gpu_shader_int64 : require\n";
#define KHR_EXTENSIONS                                                                             \
    "#extension GL_KHR_shader_subgroup_basic : require\n"                                          \
    "#extension GL_KHR_shader_subgroup_ballot : require\n"                                         \
    "#extension GL_KHR_shader_subgroup_shuffle : require\n"                                        \
    "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
#define PARTITION_EXTENSION "#extension GL_NV_shader_subgroup_partitioned : require\n"

/* Runs radix_probe with `threads` invocations: *subgroup_size gets
 * gl_SubGroupSizeARB, *layout_ok whether subgroups are aligned ranges of
 * gl_LocalInvocationIndex with every lane active. A read-back, at
 * creation only. */
static ds_status probe_subgroups(GLuint threads, GLuint *subgroup_size, int *layout_ok)
{
    char defines[192];
    snprintf(defines, sizeof defines, "%s#define THREADS %u\n", EXTENSIONS, threads);
    GLuint program = 0, buffer = 0;
    ds_status status = ds_gl_compile_compute("gl sort", "radix_probe", defines,
                                             ds_shader_radix_probe_comp, &program);
    if (status != DS_OK)
        return status;
    const GLuint zero[2] = {0, 0};
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, sizeof zero, zero, 0);
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glDispatchCompute(1, 1, 1);
    /* The probe's writes, for the read-back below. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    GLuint result[2] = {0, 1};
    glGetNamedBufferSubData(buffer, 0, sizeof result, result);
    glUseProgram(0);
    glDeleteBuffers(1, &buffer);
    glDeleteProgram(program);
    *subgroup_size = result[0];
    *layout_ok = result[1] == 0;
    return DS_OK;
}

static int is_power_of_two(GLuint x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* ---- create / destroy ----------------------------------------------------- */

/* What create derives from the capacity and the block size: the blocks,
 * the position sums' group (blocks per group, groups per span) and spans,
 * and the subgroup rows of a workgroup. */
typedef struct sort_layout {
    size_t blocks, group, spans, rows;
} sort_layout;

ds_status ds_gl_sort_create(size_t capacity, ds_gl_sort **dest)
{
    return ds_gl_sort_create_tuned(capacity, NULL, dest);
}

/* The subgroup size, then the workgroup size it allows, then the layout
 * at that size: sets subgroup_size and threads. */
static ds_status choose_workgroup(ds_gl_sort *sort)
{
    GLuint size = 0, probed = 0;
    int layout_ok = 0;
    ds_status status;
    if ((status = probe_subgroups(MAX_THREADS, &size, &layout_ok)) != DS_OK)
        return status;
    if (size < MIN_SUBGROUP || size > MAX_SUBGROUP || !is_power_of_two(size))
        return ds_fail(DS_ERR_UNSUPPORTED, "gl sort: subgroups of %u invocations (supported: "
                       "powers of two from %d to %d)", size, MIN_SUBGROUP, MAX_SUBGROUP);
    sort->subgroup_size = size;
    sort->threads = size * MAX_ROWS < MAX_THREADS ? size * MAX_ROWS : MAX_THREADS;
    if (sort->threads != MAX_THREADS &&
        (status = probe_subgroups(sort->threads, &probed, &layout_ok)) != DS_OK)
        return status;
    if (!layout_ok || (sort->threads != MAX_THREADS && probed != size))
        return ds_fail(DS_ERR_UNSUPPORTED, "gl sort: the subgroups of a %u-invocation "
                       "workgroup are not aligned runs of %u invocations with every lane active",
                       sort->threads, size);
    return DS_OK;
}

/* The subgroup form (the tuning's, else KHR where it fits and is offered)
 * and the keys per invocation: sets subgroup, items and block. */
static ds_status choose_form(ds_gl_sort *sort, const ds_gl_sort_tuning *tuning, size_t capacity)
{
    GLuint size = sort->subgroup_size;
    /* The KHR form keeps a subgroup's ballot in one word and scans the
     * workgroup's subgroup sums in one subgroup. */
    const int khr_fits = size <= 32 && sort->threads / size <= size;
    sort->subgroup = tuning->subgroup;
    if (sort->subgroup == DS_GL_SORT_SUBGROUP_AUTO)
        sort->subgroup = khr_fits && khr_subgroups_offered(size, 0) ? DS_GL_SORT_SUBGROUP_KHR
                                                                    : DS_GL_SORT_SUBGROUP_ARB;
    const int partition = sort->subgroup == DS_GL_SORT_SUBGROUP_KHR_PARTITION;
    sort->items = tuning->items                       ? (GLuint)tuning->items
                  : capacity < SMALL_SORT             ? SMALL_ITEMS
                  : capacity < MEDIUM_SORT            ? MEDIUM_ITEMS
                  : sort->subgroup != DS_GL_SORT_SUBGROUP_ARB ? KHR_ITEMS
                                                      : ARB_ITEMS;
    sort->block = sort->threads * sort->items;
    if (sort->subgroup != DS_GL_SORT_SUBGROUP_ARB &&
        !(khr_fits && khr_subgroups_offered(size, partition)))
        return ds_fail(DS_ERR_UNSUPPORTED, "gl sort: the %s form needs GL_KHR_shader_subgroup "
                       "(basic, ballot, shuffle, arithmetic%s) in compute shaders with subgroups of at "
                       "most 32 invocations", ds_gl_sort_subgroup_name(sort->subgroup),
                       partition ? ", GL_NV_shader_subgroup_partitioned" : "");
    return DS_OK;
}

/* The blocks, the groups and spans of the position sums, against the
 * context's limits: a storage block holds capacity words; indices stay in
 * uint; one workgroup per block; the scatter's shared memory fits. Sets
 * sums_words. */
static ds_status fit_limits(ds_gl_sort *sort, size_t capacity, sort_layout *layout)
{
    GLint max_block_size = 0, max_groups = 0, max_shared = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block_size);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &max_shared);
    size_t blocks = (capacity + sort->block - 1) / sort->block;
    if (blocks == 0)
        blocks = 1;
    /* Groups and spans of about cbrt(blocks): a block's position sums
     * read at most 3 cbrt(blocks) rows. */
    size_t group = 1; /* blocks per group, groups per span */
    while (group * group * group < blocks)
        group++;
    size_t groups = (blocks + group - 1) / group;
    size_t spans = (groups + group - 1) / group;
    if (capacity > (size_t)max_block_size / sizeof(uint32_t) ||
        capacity > (size_t)UINT32_MAX - sort->block || blocks > (size_t)max_groups ||
        blocks * RADIX > (size_t)max_block_size / sizeof(uint32_t) ||
        2 * (1 + spans + groups) * RADIX > (size_t)max_block_size / sizeof(uint32_t))
        return ds_fail(DS_ERR_TOO_LARGE, "gl sort: %zu pairs exceed what the GL storage "
                       "blocks (%d bytes) or work group counts (%d) can hold",
                       capacity, max_block_size, max_groups);
    /* radix_scatter's shared memory: rows or staging, two digit tables,
     * the scan's two halves. */
    size_t rows = sort->threads / sort->subgroup_size;
    size_t stage = rows * RADIX > sort->block ? rows * RADIX : sort->block;
    size_t shared = (stage + 2 * RADIX + 2 * sort->threads) * sizeof(uint32_t);
    if (shared > (size_t)max_shared)
        return ds_fail(DS_ERR_UNSUPPORTED, "gl sort: the scatter needs %zu bytes of shared "
                       "memory, the context offers %d", shared, max_shared);

    sort->sums_words = (GLuint)((1 + spans + groups) * RADIX);
    layout->blocks = blocks;
    layout->group = group;
    layout->spans = spans;
    layout->rows = rows;
    return DS_OK;
}

/* The extensions and constants, then the subgroup operations (count and
 * scatter) and the workgroup scan (scatter): compiles radix_count and
 * radix_scatter. */
static ds_status compile_programs(ds_gl_sort *sort, const sort_layout *layout)
{
    const int partition = sort->subgroup == DS_GL_SORT_SUBGROUP_KHR_PARTITION;
    const char *extensions = sort->subgroup == DS_GL_SORT_SUBGROUP_ARB ? EXTENSIONS
                             : partition ? KHR_EXTENSIONS PARTITION_EXTENSION
                                         : KHR_EXTENSIONS;
    size_t defines_size = strlen(ds_shader_radix_subgroup) +
                          strlen(ds_shader_radix_workgroup_scan) + 1024;
    char *defines = malloc(defines_size);
    if (!defines)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "gl sort: out of host memory");
    int length = snprintf(defines, defines_size,
                          "%s#define SUBGROUP_KHR %d\n#define MATCH_PARTITION %d\n"
                          "#define RADIX_BITS %d\n#define RADIX %d\n#define THREADS %u\n"
                          "#define ITEMS %u\n#define SUBGROUP_SIZE %u\n#define ROWS %zu\n"
                          "#define GROUP %zuu\n#define SPANS %zuu\n#define SUMS_WORDS %uu\n%s",
                          extensions, sort->subgroup != DS_GL_SORT_SUBGROUP_ARB, partition,
                          RADIX_BITS, RADIX, sort->threads, sort->items, sort->subgroup_size,
                          layout->rows, layout->group, layout->spans, sort->sums_words,
                          ds_shader_radix_subgroup);
    ds_status status = ds_gl_compile_compute("gl sort", "radix_count", defines,
                                             ds_shader_radix_count_comp, &sort->count_program);
    /* The scatter's block scan spans its workgroup. */
    snprintf(defines + length, defines_size - (size_t)length, "#define SCAN_THREADS %u\n%s",
             sort->threads, ds_shader_radix_workgroup_scan);
    if (status == DS_OK)
        status = ds_gl_compile_compute("gl sort", "radix_scatter", defines,
                                       ds_shader_radix_scatter_comp, &sort->scatter_program);
    free(defines);
    return status;
}

/* The alternate keys and values, the block counts and the two halves of
 * the position sums; a GL error since create began fails the create. */
static ds_status create_buffers(ds_gl_sort *sort, size_t capacity, size_t blocks)
{
    /* Storage of at least one word: a zero-capacity sort still creates. */
    GLsizeiptr pair_bytes = (GLsizeiptr)(capacity ? capacity : 1) * (GLsizeiptr)sizeof(uint32_t);
    GLuint buffers[4];
    glCreateBuffers(4, buffers);
    sort->keys_alt = buffers[0];
    sort->values_alt = buffers[1];
    sort->counts = buffers[2];
    sort->sums = buffers[3];
    glNamedBufferStorage(sort->keys_alt, pair_bytes, NULL, 0);
    glNamedBufferStorage(sort->values_alt, pair_bytes, NULL, 0);
    glNamedBufferStorage(sort->counts, (GLsizeiptr)(blocks * RADIX * sizeof(uint32_t)), NULL, 0);
    /* radix_count adds into the sums: both halves zero at creation, and
     * each pass's scatter zeroes the half the next pass uses. */
    GLsizeiptr sums_bytes = (GLsizeiptr)(2 * sort->sums_words * sizeof(uint32_t));
    glNamedBufferStorage(sort->sums, sums_bytes, NULL, 0);
    glClearNamedBufferData(sort->sums, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);

    GLenum error = glGetError();
    if (error != GL_NO_ERROR)
        return ds_fail(error == GL_OUT_OF_MEMORY ? DS_ERR_OUT_OF_MEMORY : DS_ERR_GL,
                       "gl sort: creating the buffers for %zu pairs failed (GL error 0x%x)",
                       capacity, error);
    return DS_OK;
}

ds_status ds_gl_sort_create_tuned(size_t capacity, const ds_gl_sort_tuning *tuning,
                                  ds_gl_sort **dest)
{
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: create needs a dest");
    *dest = NULL;
    static const ds_gl_sort_tuning defaults = {0};
    if (!tuning)
        tuning = &defaults;
    if (tuning->items < 0 || tuning->items > MAX_ITEMS ||
        (unsigned)tuning->subgroup > DS_GL_SORT_SUBGROUP_KHR_PARTITION)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: tuning of %d keys per invocation (at most "
                       "%d) or subgroup form %d is out of range", tuning->items, MAX_ITEMS,
                       (int)tuning->subgroup);
    if (!ds_gl_sort_supported())
        return ds_fail(DS_ERR_UNSUPPORTED, "gl sort: the context lacks GL 4.3 compute shaders "
                       "or GL_ARB_shader_ballot");

    /* Errors raised before this call are not ours: clear them for the
     * check at the end. */
    while (glGetError() != GL_NO_ERROR) {
    }
    ds_status status = DS_OK;
    ds_gl_sort *sort = calloc(1, sizeof *sort);
    if (!sort)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "gl sort: out of host memory");
    sort->capacity = capacity;
    sort_layout layout = {0, 0, 0, 0};
    if ((status = choose_workgroup(sort)) != DS_OK ||
        (status = choose_form(sort, tuning, capacity)) != DS_OK ||
        (status = fit_limits(sort, capacity, &layout)) != DS_OK ||
        (status = compile_programs(sort, &layout)) != DS_OK ||
        (status = create_buffers(sort, capacity, layout.blocks)) != DS_OK) {
        ds_gl_sort_destroy(sort);
        return status;
    }
    *dest = sort;
    return DS_OK;
}

void ds_gl_sort_describe(const ds_gl_sort *sort, ds_gl_sort_tuning *dest)
{
    dest->subgroup = sort->subgroup;
    dest->items = (int)sort->items;
}

unsigned ds_gl_sort_khr_subgroup_size(const ds_gl_sort *sort)
{
    return sort && sort->subgroup != DS_GL_SORT_SUBGROUP_ARB ? sort->subgroup_size : 0u;
}

void ds_gl_sort_set_timestamps(ds_gl_sort *sort, const GLuint *queries)
{
    sort->timestamps = queries;
}

/* The timestamp after dispatch `k` of pass `pass` (k = -1: before the
 * first), where the caller asked for them. */
static void stamp(const ds_gl_sort *sort, int pass, int k)
{
    if (sort->timestamps)
        glQueryCounter(sort->timestamps[k < 0 ? 0 : 1 + 2 * pass + k], GL_TIMESTAMP);
}

void ds_gl_sort_destroy(ds_gl_sort *sort)
{
    if (!sort)
        return;
    /* Deleting name 0 is a no-op: a partial create cleans up here too. */
    GLuint buffers[4] = {sort->keys_alt, sort->values_alt, sort->counts, sort->sums};
    glDeleteBuffers(4, buffers);
    glDeleteProgram(sort->count_program);
    glDeleteProgram(sort->scatter_program);
    free(sort);
}

/* ---- sorting ----------------------------------------------------------------- */

/* The arguments both entry points share. */
static ds_status check_sort(const ds_gl_sort *sort, size_t n, int begin_bit, int end_bit)
{
    if (!sort)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: no sort object");
    if (n > sort->capacity)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: %zu pairs but the sort was created for %zu",
                       n, sort->capacity);
    if (begin_bit < 0 || end_bit > 32 || begin_bit >= end_bit || begin_bit % RADIX_BITS != 0 ||
        end_bit % RADIX_BITS != 0)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: key bits [%d, %d) are not multiples of %d "
                       "with 0 <= begin < end <= 32", begin_bit, end_bit, RADIX_BITS);
    return DS_OK;
}

/* The sorts from one pair into another: four buffers, none 0 and no two
 * the same. */
static ds_status check_four_buffers(GLuint keys_in, GLuint values_in, GLuint keys_out,
                                    GLuint values_out)
{
    const GLuint all[4] = {keys_in, values_in, keys_out, values_out};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            if (all[i] == 0 || all[j] == 0 || all[i] == all[j])
                return ds_fail(DS_ERR_INVALID_ARG, "gl sort: keys and values in (buffers %u, %u) "
                               "and out (%u, %u) must be four distinct buffers",
                               keys_in, values_in, keys_out, values_out);
    return DS_OK;
}

/* The passes, reading (keys_in, values_in) and leaving the result in
 * (keys_out, values_out): each pass writes whichever of the out pair and
 * the scratch pair makes the last one write the out pair. In place
 * (in == out) with an odd pass count, the first pass would overwrite what
 * it reads, so the passes end in the scratch pair and are copied back. */
/* A count on the GPU (ds_gl_sort_pairs_indirect): the buffer and word
 * holding n, and the dispatch arguments; count_buffer 0 for a host n. */
typedef struct gpu_count {
    GLuint count_buffer, count_word, dispatch_buffer;
    GLintptr dispatch_offset;
} gpu_count;

/* A barrier of the sort's: the next dispatch starts a new step. */
static void sort_barrier(ds_gl_sort *sort, GLbitfield bits)
{
    glMemoryBarrier(bits);
    sort->in_step = 0;
}

/* Dispatch `k` of the sort (count or scatter of a pass), counted, then
 * the caller's work alongside it. */
static void sort_dispatch(ds_gl_sort *sort, int k, GLuint blocks, const gpu_count *gpu,
                          const ds_gl_sort_alongside *alongside)
{
    if (gpu)
        glDispatchComputeIndirect(gpu->dispatch_offset);
    else
        glDispatchCompute(blocks, 1, 1);
    sort->dispatches++;
    sort->steps += !sort->in_step;
    sort->in_step = 1;
    if (alongside && alongside->fn)
        alongside->fn(alongside->user, k);
}

static void sort_passes(ds_gl_sort *sort, GLuint keys_in, GLuint values_in, GLuint keys_out,
                        GLuint values_out, size_t n, int begin_bit, int end_bit,
                        const gpu_count *gpu, const ds_gl_sort_alongside *alongside)
{
    const GLuint key_count = (GLuint)n;
    const GLuint blocks = (key_count + sort->block - 1) / sort->block;
    const int passes = (end_bit - begin_bit) / RADIX_BITS;
    const int copy_back = keys_in == keys_out && passes % 2 != 0;
    const GLint count_word = gpu ? (GLint)gpu->count_word : -1;
    glProgramUniform1ui(sort->count_program, UNIFORM_KEY_COUNT, key_count);
    glProgramUniform1ui(sort->scatter_program, UNIFORM_KEY_COUNT, key_count);
    glProgramUniform1i(sort->count_program, UNIFORM_COUNT_WORD, count_word);
    glProgramUniform1i(sort->scatter_program, UNIFORM_COUNT_WORD, count_word);
    if (gpu)
        glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, gpu->dispatch_buffer);

    /* Protects the caller's shader writes of keys and values (read by the
     * first pass) and a previous sort's reads of the scratch buffers
     * (overwritten by this one). */
    sort_barrier(sort, GL_SHADER_STORAGE_BARRIER_BIT);
    /* Without a GPU count the count binding takes any buffer: unread. */
    GLuint buffers[BIND_COUNT] = {keys_in, values_in, 0, 0, sort->counts, sort->sums,
                                  gpu ? gpu->count_buffer : sort->counts};
    stamp(sort, 0, -1);
    for (int pass = 0; pass < passes; pass++) {
        const GLuint shift = (GLuint)(begin_bit + pass * RADIX_BITS);
        const int to_out = copy_back ? pass % 2 != 0 : (passes - 1 - pass) % 2 == 0;
        buffers[BIND_KEYS_OUT] = to_out ? keys_out : sort->keys_alt;
        buffers[BIND_VALUES_OUT] = to_out ? values_out : sort->values_alt;

        const GLuint sums_base = (GLuint)sort->half * sort->sums_words;
        const GLuint clear_base = (GLuint)(1 - sort->half) * sort->sums_words;
        sort->half = 1 - sort->half;
        /* Bound before each dispatch: the work alongside binds its own. */
        glBindBuffersBase(GL_SHADER_STORAGE_BUFFER, 0, BIND_COUNT, buffers);
        if (gpu)
            glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, gpu->dispatch_buffer);
        glProgramUniform1ui(sort->count_program, UNIFORM_SHIFT, shift);
        glProgramUniform1ui(sort->count_program, UNIFORM_SUMS_BASE, sums_base);
        glUseProgram(sort->count_program);
        sort_dispatch(sort, 2 * pass, blocks, gpu, alongside);
        /* The block counts and the sums, for the scatter. */
        sort_barrier(sort, GL_SHADER_STORAGE_BARRIER_BIT);
        stamp(sort, pass, 0);

        glBindBuffersBase(GL_SHADER_STORAGE_BUFFER, 0, BIND_COUNT, buffers);
        if (gpu)
            glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, gpu->dispatch_buffer);
        glProgramUniform1ui(sort->scatter_program, UNIFORM_SHIFT, shift);
        glProgramUniform1ui(sort->scatter_program, UNIFORM_SUMS_BASE, sums_base);
        glProgramUniform1ui(sort->scatter_program, UNIFORM_CLEAR_BASE, clear_base);
        glUseProgram(sort->scatter_program);
        sort_dispatch(sort, 2 * pass + 1, blocks, gpu, alongside);
        if (pass + 1 < passes)
            /* The scattered pairs and the zeroed half of the sums, for
             * the next pass; its count overwrites the block counts this
             * scatter read, and its scatter the pairs this one read. */
            sort_barrier(sort, GL_SHADER_STORAGE_BARRIER_BIT);
        stamp(sort, pass, 1);

        buffers[BIND_KEYS_IN] = buffers[BIND_KEYS_OUT];
        buffers[BIND_VALUES_IN] = buffers[BIND_VALUES_OUT];
    }
    if (copy_back) {
        /* The last pass wrote the scratch buffers: its writes, for the
         * copies back into the caller's. */
        sort_barrier(sort, GL_BUFFER_UPDATE_BARRIER_BIT);
        GLsizeiptr bytes = (GLsizeiptr)n * (GLsizeiptr)sizeof(uint32_t);
        glCopyNamedBufferSubData(sort->keys_alt, keys_out, 0, 0, bytes);
        glCopyNamedBufferSubData(sort->values_alt, values_out, 0, 0, bytes);
    }
    /* The sorted pairs, for what the caller issues next: shader reads,
     * an element buffer, indirect commands. After the copies GL orders
     * these itself; the barrier then still covers the zeroed half of the
     * sums and the scratch buffers for the next sort. */
    sort_barrier(sort, GL_SHADER_STORAGE_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                           GL_COMMAND_BARRIER_BIT);
}

void ds_gl_sort_issued(const ds_gl_sort *sort, unsigned *dispatches, unsigned *steps)
{
    *dispatches = sort ? sort->dispatches : 0;
    *steps = sort ? sort->steps : 0;
}

ds_status ds_gl_sort_pairs(ds_gl_sort *sort, GLuint keys, GLuint values, size_t n,
                           int begin_bit, int end_bit)
{
    ds_status status = check_sort(sort, n, begin_bit, end_bit);
    if (status)
        return status;
    if (keys == 0 || values == 0 || keys == values)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: keys (buffer %u) and values (buffer %u) "
                       "must be two distinct buffers", keys, values);
    sort->dispatches = sort->steps = 0;
    if (n >= 2)
        sort_passes(sort, keys, values, keys, values, n, begin_bit, end_bit, NULL, NULL);
    return DS_OK;
}

ds_status ds_gl_sort_pairs_into(ds_gl_sort *sort, GLuint keys_in, GLuint values_in,
                                GLuint keys_out, GLuint values_out, size_t n, int begin_bit,
                                int end_bit)
{
    ds_status status = check_sort(sort, n, begin_bit, end_bit);
    if (status == DS_OK)
        status = check_four_buffers(keys_in, values_in, keys_out, values_out);
    if (status)
        return status;
    sort->dispatches = sort->steps = 0;
    if (n >= 2) {
        sort_passes(sort, keys_in, values_in, keys_out, values_out, n, begin_bit, end_bit, NULL,
                    NULL);
    } else if (n == 1) {
        /* Nothing to order: the one pair moves over as it is. */
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glCopyNamedBufferSubData(keys_in, keys_out, 0, 0, sizeof(uint32_t));
        glCopyNamedBufferSubData(values_in, values_out, 0, 0, sizeof(uint32_t));
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                        GL_COMMAND_BARRIER_BIT);
    }
    return DS_OK;
}

size_t ds_gl_sort_block_pairs(const ds_gl_sort *sort)
{
    return sort ? sort->block : 0;
}

ds_status ds_gl_sort_pairs_indirect(ds_gl_sort *sort, GLuint keys_in, GLuint values_in,
                                    GLuint keys_out, GLuint values_out, GLuint count_buffer,
                                    GLuint count_word, GLuint dispatch_buffer,
                                    GLintptr dispatch_offset, int begin_bit, int end_bit,
                                    const ds_gl_sort_alongside *alongside)
{
    ds_status status = check_sort(sort, 0, begin_bit, end_bit);
    if (status == DS_OK)
        status = check_four_buffers(keys_in, values_in, keys_out, values_out);
    if (status)
        return status;
    if (!count_buffer || !dispatch_buffer || dispatch_offset % 4 != 0)
        return ds_fail(DS_ERR_INVALID_ARG, "gl sort: an indirect sort needs a count buffer and "
                       "4-byte aligned dispatch arguments");
    const gpu_count gpu = {count_buffer, count_word, dispatch_buffer, dispatch_offset};
    sort->dispatches = sort->steps = 0;
    /* The GPU's count and dispatch arguments were written by shaders. */
    sort_barrier(sort, GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    sort_passes(sort, keys_in, values_in, keys_out, values_out, sort->capacity, begin_bit,
                end_bit, &gpu, alongside);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
    return DS_OK;
}
