/* SPDX-License-Identifier: MIT */
/* bench_gl_launch.c — what a GL compute pass costs before it does any work,
 * and what writing memory costs, on the headless context the renderer uses
 * (a benchmark, never a timed test):
 *
 *   bench_gl_launch [--dispatches N] [--mb SIZE,...] [--repeats R]
 *
 * Dispatches (GL_TIMESTAMP queries around N of them, N = 1000 by default):
 *   dependent    one workgroup each, each adding 1 to the same word after a
 *                glMemoryBarrier: the cost of one step of a chain of
 *                dependent passes (the compute raster's frame is ~15)
 *   independent  the same shader on its own word, no barrier between: the
 *                launch cost alone
 *   wide         dependent, 1,024 workgroups of 128 each (every SM busy,
 *                each invocation storing one word)
 * The word counts are read back and checked, so the chains did run.
 *
 * Bandwidth of zeroing a buffer of each SIZE MB (8, 33, 133 by default:
 * a 1080p, 4K and 4 x 4K per-pixel word), the median of R repeats, GB/s of
 * the buffer's size:
 *   write        a shader storing one uint per invocation, consecutive
 *   write4       the same, one uvec4 (16 bytes) per invocation
 *   clear        glClearNamedBufferSubData
 *   read+zero    a shader reading each word and storing 0 where it was not
 *                (the compute raster's resolve on its pixel counts; a
 *                shader first set every 4th word to 1, so a quarter is
 *                written)
 *   atomics      read+zero after the words were set by atomicAdd instead
 *                (as the raster's emit counts fragments on its pixels)
 * each on a buffer made with no storage flags and on one with
 * GL_DYNAMIC_STORAGE_BIT (the driver may place the two differently).
 *
 * On llvmpipe the numbers say nothing about a GPU; the program runs there so
 * that CI builds it and the A/B script can be tried without one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "egl_context.h"
#include "gl_compute.h"

#define DEFAULT_DISPATCHES 1000
#define DEFAULT_REPEATS 9
#define MAX_SIZES 8
#define WIDE_GROUPS 1024u
#define WIDE_THREADS 128u
/* Workgroups along x at most (GL guarantees 65,535); more go in rows. */
#define MAX_GROUPS_X 65535u

/* One word += 1 (binding 0, word `word`), by invocation 0 only. */
static const char CHAIN_SHADER[] =
    "layout(local_size_x = 128) in;\n"
    "layout(std430, binding = 0) buffer Words { uint words[]; };\n"
    "layout(location = 0) uniform uint word;\n"
    "void main() {\n"
    "    if (gl_GlobalInvocationID.x == 0u) words[word] += 1u;\n"
    "    else if (gl_WorkGroupID.x > 0u) words[1024u + gl_GlobalInvocationID.x] = word;\n"
    "}\n";

/* Zeroes n items of WORD (uint or uvec4) at one per invocation. */
static const char WRITE_SHADER[] =
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) writeonly buffer Words { WORD words[]; };\n"
    "layout(location = 0) uniform uint n;\n"
    "void main() {\n"
    "    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +\n"
    "             gl_LocalInvocationID.x;\n"
    "    if (i < n) words[i] = WORD(0u);\n"
    "}\n";

/* Sets every 4th word to 1: stored, or (ATOMIC) added to a zero word. */
static const char FILL_SHADER[] =
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) buffer Words { uint words[]; };\n"
    "layout(location = 0) uniform uint n;\n"
    "void main() {\n"
    "    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +\n"
    "             gl_LocalInvocationID.x;\n"
    "    if (i < n && i % 4u == 0u) {\n"
    "#if ATOMIC\n"
    "        atomicAdd(words[i], 1u);\n"
    "#else\n"
    "        words[i] = 1u;\n"
    "#endif\n"
    "    }\n"
    "}\n";

/* Reads each word, zeroes the ones that were not zero. */
static const char READ_ZERO_SHADER[] =
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) restrict buffer Words { uint words[]; };\n"
    "layout(location = 0) uniform uint n;\n"
    "void main() {\n"
    "    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +\n"
    "             gl_LocalInvocationID.x;\n"
    "    if (i < n && words[i] != 0u) words[i] = 0u;\n"
    "}\n";

static void usage(void)
{
    fprintf(stderr, "usage: bench_gl_launch [--dispatches N] [--mb SIZE,...] [--repeats R]\n");
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nanoseconds between two GL_TIMESTAMP queries (waits for both). */
static double elapsed_ns(GLuint begin, GLuint end)
{
    GLuint64 a = 0, b = 0;
    glGetQueryObjectui64v(begin, GL_QUERY_RESULT, &a);
    glGetQueryObjectui64v(end, GL_QUERY_RESULT, &b);
    return (double)(b - a);
}

/* `count` dispatches of `groups` workgroups of the chain shader on word
 * `word` (or word k for the k-th with `own_words`), a barrier after each
 * with `barriers`; returns microseconds per dispatch. */
static double time_chain(GLuint program, GLuint buffer, GLuint queries[2], int count,
                         GLuint groups, int barriers, int own_words)
{
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glQueryCounter(queries[0], GL_TIMESTAMP);
    for (int k = 0; k < count; k++) {
        glUniform1ui(0, own_words ? (GLuint)(k % 1024) : 0u);
        glDispatchCompute(groups, 1, 1);
        if (barriers)
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glQueryCounter(queries[1], GL_TIMESTAMP);
    return elapsed_ns(queries[0], queries[1]) / 1000.0 / count;
}

/* The programs of the zeroing measurements. */
typedef struct zeroing {
    GLuint write, write4, read_zero, fill, fill_atomic;
} zeroing;

/* One dispatch of `program` over n items, 256 an invocation group. */
static void dispatch_items(GLuint program, GLuint buffer, GLuint n)
{
    GLuint groups = (n + 255u) / 256u;
    GLuint x = groups < MAX_GROUPS_X ? groups : MAX_GROUPS_X;
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glUniform1ui(0, n);
    glDispatchCompute(x, (groups + x - 1) / x, 1);
}

/* The median over `repeats` of one zeroing of `bytes` by `how` (0 write,
 * 1 write4, 2 clear, 3 read+zero, 4 read+zero after atomics), in GB/s. */
static double time_zeroing(int how, const zeroing *programs, GLuint buffer, size_t bytes,
                           int repeats, GLuint queries[2])
{
    double *ns = malloc((size_t)repeats * sizeof *ns);
    if (!ns)
        return 0.0;
    GLuint words = (GLuint)(bytes / 4);
    for (int r = 0; r < repeats; r++) {
        if (how >= 3) { /* every 4th word 1, as a frame's counts (untimed) */
            glClearNamedBufferSubData(buffer, GL_R32UI, 0, (GLsizeiptr)bytes, GL_RED_INTEGER,
                                      GL_UNSIGNED_INT, NULL);
            glMemoryBarrier(GL_ALL_BARRIER_BITS);
            dispatch_items(how == 4 ? programs->fill_atomic : programs->fill, buffer, words);
        }
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glQueryCounter(queries[0], GL_TIMESTAMP);
        if (how == 2)
            glClearNamedBufferSubData(buffer, GL_R32UI, 0, (GLsizeiptr)bytes, GL_RED_INTEGER,
                                      GL_UNSIGNED_INT, NULL);
        else if (how == 1)
            dispatch_items(programs->write4, buffer, (GLuint)(bytes / 16));
        else
            dispatch_items(how == 0 ? programs->write : programs->read_zero, buffer, words);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glQueryCounter(queries[1], GL_TIMESTAMP);
        ns[r] = elapsed_ns(queries[0], queries[1]);
    }
    qsort(ns, (size_t)repeats, sizeof *ns, compare_doubles);
    double median = ns[repeats / 2];
    free(ns);
    return median > 0.0 ? (double)bytes / median : 0.0; /* bytes per ns = GB/s */
}

int main(int argc, char **argv)
{
    int dispatches = DEFAULT_DISPATCHES, repeats = DEFAULT_REPEATS, size_count = 3;
    double sizes_mb[MAX_SIZES] = {8.0, 33.0, 133.0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dispatches") == 0 && i + 1 < argc) {
            dispatches = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
            size_count = 0;
            for (char *p = argv[++i]; *p && size_count < MAX_SIZES;) {
                char *end;
                sizes_mb[size_count] = strtod(p, &end);
                if (end == p || sizes_mb[size_count] <= 0.0 || sizes_mb[size_count] > 4096.0) {
                    fprintf(stderr, "bench_gl_launch: --mb wants sizes in MB (0 to 4096), "
                            "comma-separated: '%s'\n", argv[i]);
                    return 2;
                }
                size_count++;
                p = *end == ',' ? end + 1 : end;
            }
        } else {
            usage();
            return 2;
        }
    }
    if (dispatches < 1 || repeats < 1 || size_count < 1) {
        usage();
        return 2;
    }

    ds_egl_context *context = NULL;
    if (ds_egl_context_create(0, &context) != DS_OK)
        return 1;
    int exit_code = 1;
    GLuint chain = 0, words = 0, big[2] = {0}, queries[2] = {0};
    zeroing z = {0};
    if (ds_gl_compile_compute("bench", "chain", "", CHAIN_SHADER, &chain) ||
        ds_gl_compile_compute("bench", "write", "#define WORD uint\n", WRITE_SHADER, &z.write) ||
        ds_gl_compile_compute("bench", "write4", "#define WORD uvec4\n", WRITE_SHADER,
                              &z.write4) ||
        ds_gl_compile_compute("bench", "read_zero", "", READ_ZERO_SHADER, &z.read_zero) ||
        ds_gl_compile_compute("bench", "fill", "#define ATOMIC 0\n", FILL_SHADER, &z.fill) ||
        ds_gl_compile_compute("bench", "fill_atomic", "#define ATOMIC 1\n", FILL_SHADER,
                              &z.fill_atomic))
        goto done;
    const GLubyte *renderer = glGetString(GL_RENDERER), *version = glGetString(GL_VERSION);
    printf("bench_gl_launch on %s (%s), EGL %s\n", renderer ? (const char *)renderer : "?",
           version ? (const char *)version : "?", ds_egl_context_platform(context));
    glCreateQueries(GL_TIMESTAMP, 2, queries);

    /* The chains: 1,024 counters, then room for the wide dispatch's
     * stores. */
    size_t word_bytes = (1024 + (size_t)WIDE_GROUPS * WIDE_THREADS) * sizeof(uint32_t);
    glCreateBuffers(1, &words);
    glNamedBufferStorage(words, (GLsizeiptr)word_bytes, NULL, GL_DYNAMIC_STORAGE_BIT);
    glClearNamedBufferData(words, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    /* A warm-up: compiles and first launches out of the timings. */
    time_chain(chain, words, queries, 16, 1, 1, 0);
    glClearNamedBufferData(words, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    double dependent = time_chain(chain, words, queries, dispatches, 1, 1, 0);
    double independent = time_chain(chain, words, queries, dispatches, 1, 0, 1);
    glClearNamedBufferData(words, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    double wide = time_chain(chain, words, queries, dispatches, WIDE_GROUPS, 1, 0);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t first = 0;
    glGetNamedBufferSubData(words, 0, sizeof first, &first);
    if (first != (uint32_t)dispatches) {
        fprintf(stderr, "bench_gl_launch: the wide chain counted %u of %d dispatches\n", first,
                dispatches);
        goto done;
    }
    printf("dispatch, dependent (barrier after each), 1 workgroup: %d x %.2f us\n", dispatches,
           dependent);
    printf("dispatch, independent (no barrier), 1 workgroup:       %d x %.2f us\n", dispatches,
           independent);
    printf("dispatch, dependent, %u workgroups of %u:            %d x %.2f us\n", WIDE_GROUPS,
           WIDE_THREADS, dispatches, wide);

    double most_mb = 0.0;
    for (int s = 0; s < size_count; s++)
        most_mb = sizes_mb[s] > most_mb ? sizes_mb[s] : most_mb;
    size_t most = ((size_t)(most_mb * 1e6) + 15) / 16 * 16;
    while (glGetError() != GL_NO_ERROR) {
    }
    glCreateBuffers(2, big);
    glNamedBufferStorage(big[0], (GLsizeiptr)most, NULL, 0);
    glNamedBufferStorage(big[1], (GLsizeiptr)most, NULL, GL_DYNAMIC_STORAGE_BIT);
    if (glGetError() != GL_NO_ERROR) {
        fprintf(stderr, "bench_gl_launch: two buffers of %.0f MB do not fit\n", most_mb);
        goto done;
    }
    static const char *const names[5] = {"write (uint)", "write (uvec4)", "clear",
                                          "read+zero (1/4 set)", "read+zero (1/4 set by atomics)"};
    printf("zeroing, GB/s (median of %d):%21s", repeats, "");
    for (int s = 0; s < size_count; s++)
        printf(" %7.0f MB", sizes_mb[s]);
    printf("\n");
    for (int flags = 0; flags < 2; flags++)
        for (int how = 0; how < 5; how++) {
            printf("  %-30s %-16s", names[how], flags ? "dynamic storage" : "no flags");
            for (int s = 0; s < size_count; s++) {
                size_t bytes = ((size_t)(sizes_mb[s] * 1e6) + 15) / 16 * 16;
                printf(" %10.1f", time_zeroing(how, &z, big[flags], bytes, repeats, queries));
            }
            printf("\n");
        }
    exit_code = glGetError() == GL_NO_ERROR ? 0 : 1;
    if (exit_code)
        fprintf(stderr, "bench_gl_launch: GL errors during the run\n");
done:
    if (queries[0])
        glDeleteQueries(2, queries);
    GLuint buffers[3] = {words, big[0], big[1]};
    glDeleteBuffers(3, buffers);
    GLuint programs[6] = {chain, z.write, z.write4, z.read_zero, z.fill, z.fill_atomic};
    for (int k = 0; k < 6; k++)
        if (programs[k])
            glDeleteProgram(programs[k]);
    ds_egl_context_destroy(context);
    return exit_code;
}
