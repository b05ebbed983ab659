/* SPDX-License-Identifier: MIT */
/* gl_sort.h — a stable LSD radix sort of (uint32 key, uint32 value) pairs
 * held in GL buffers, by compute shaders in the current GL context: the
 * renderer's GL stages (gl_stages.c) sort with it so that a frame never
 * leaves the draw's context. Ascending by the key bits [begin_bit,
 * end_bit), equal keys in their input order (stable); the renderer writes
 * the bitwise complement of the float distance's bits as the key, so
 * ascending is far first and its order is the CUDA sorts' and the cpu
 * sort's for the same keys.
 *
 * Each 8-bit digit is one pass of two dispatches: per block of the input
 * a digit histogram (with sums over digits and groups of blocks), then a
 * stable scatter that finds its block's positions from those sums and
 * ranks within the block by subgroup ballots (GL_KHR_shader_subgroup, or
 * GL_ARB_shader_ballot). No pass waits on the host, allocates or reads
 * anything back. Design and costs: gl_sort.c. */
#ifndef DS_GL_SORT_H
#define DS_GL_SORT_H

#include <stddef.h>

#include <glad/gl.h>

#include "status.h"

typedef struct ds_gl_sort ds_gl_sort;

/* 1 if the current context can run the sort: GL 4.3 compute shaders and
 * GL_ARB_shader_ballot. */
int ds_gl_sort_supported(void);

/* Programs and scratch buffers for up to `capacity` pairs (the only
 * allocation: 8 bytes per pair, plus 1 KiB of block counts per block of
 * 512 to 3,072 pairs), in the current context,
 * which every later call must have current. Runs a probe dispatch and
 * reads its result back (the subgroup layout). Errors:
 * DS_ERR_UNSUPPORTED (ds_gl_sort_supported() is 0, or subgroups outside
 * 4..64 invocations or not laid out as aligned runs of
 * gl_LocalInvocationIndex), DS_ERR_TOO_LARGE (capacity beyond what a
 * storage block or the work group count can hold), DS_ERR_GL (a shader
 * did not build, e.g. without GL_ARB_gpu_shader_int64, which the ballot
 * extension requires), DS_ERR_OUT_OF_MEMORY. *dest is NULL on failure. */
ds_status ds_gl_sort_create(size_t capacity, ds_gl_sort **dest);
void ds_gl_sort_destroy(ds_gl_sort *sort);

/* Which subgroup operations rank keys within a block. */
typedef enum {
    DS_GL_SORT_SUBGROUP_AUTO,          /* KHR where offered, else ARB */
    DS_GL_SORT_SUBGROUP_ARB,           /* GL_ARB_shader_ballot, workgroup barriers */
    DS_GL_SORT_SUBGROUP_KHR,           /* GL_KHR_shader_subgroup, atomics and shuffles */
    DS_GL_SORT_SUBGROUP_KHR_PARTITION  /* KHR, digits matched by
                                          GL_NV_shader_subgroup_partitioned */
} ds_gl_sort_subgroup;

/* Tuning for tests and benchmarks; zero-initialised means the defaults. */
typedef struct {
    ds_gl_sort_subgroup subgroup;
    int items; /* keys per invocation and block, 1..32; 0: by capacity and form */
} ds_gl_sort_tuning;

/* ds_gl_sort_create with a tuning (NULL: the defaults). A form the
 * context does not offer (KHR needs GL_KHR_shader_subgroup with basic,
 * ballot, shuffle and arithmetic operations in compute shaders and
 * subgroups of at most 32 invocations) is DS_ERR_UNSUPPORTED; values out
 * of range are DS_ERR_INVALID_ARG. */
ds_status ds_gl_sort_create_tuned(size_t capacity, const ds_gl_sort_tuning *tuning,
                                  ds_gl_sort **dest);

/* The tuning `sort` was built with, AUTO resolved. */
void ds_gl_sort_describe(const ds_gl_sort *sort, ds_gl_sort_tuning *dest);

/* The subgroup size on which other compute programs of the context may
 * build GL_KHR_shader_subgroup's arithmetic (radix_workgroup_scan.glsl's
 * subgroup scan): `sort`'s where its form is KHR or KHR_PARTITION
 * (arithmetic offered in compute shaders, subgroups of at most 32
 * invocations found by its probe to be aligned runs of
 * gl_LocalInvocationIndex with every lane active), else 0. */
unsigned ds_gl_sort_khr_subgroup_size(const ds_gl_sort *sort);

/* For measurements: while `queries` is set (at least 1 + 2 x 4 GL_TIMESTAMP
 * query names, owned by the caller), each sort records a timestamp into
 * queries[0] before its first dispatch and into queries[1 + 2 p + k]
 * after dispatch k (count, scatter) of pass p. NULL stops it. */
void ds_gl_sort_set_timestamps(ds_gl_sort *sort, const GLuint *queries);

/* "auto", "arb", "khr" or "khr-partition". */
const char *ds_gl_sort_subgroup_name(ds_gl_sort_subgroup subgroup);

/* Sorts keys[0, n) and values[0, n) (GL buffer names, from offset 0; they
 * may be any buffers, an element buffer included, each of at least n
 * words; two distinct buffers) in place, ascending by the key bits
 * [begin_bit, end_bit) (multiples of 8, 0 <= begin < end <= 32); the
 * other bits of the keys are carried along. Only issues compute
 * dispatches and memory barriers (and, for an odd number of digits, two
 * buffer copies back): the caller's earlier shader writes to the buffers
 * are waited for, and the GL commands issued after this call see the
 * sorted buffers (as storage buffers, element buffers and indirect
 * commands). Leaves the current program and the shader storage bindings
 * 0 to 5 changed. n <= capacity, else DS_ERR_INVALID_ARG; so is a bad bit
 * range or buffer pair. n < 2 issues nothing. */
ds_status ds_gl_sort_pairs(ds_gl_sort *sort, GLuint keys, GLuint values, size_t n,
                           int begin_bit, int end_bit);

/* As ds_gl_sort_pairs, but out of place: the pairs of (keys_in,
 * values_in) come out sorted in (keys_out, values_out), four distinct
 * buffers; the inputs are read, never written, and no pass count needs a
 * copy (the passes alternate between the out pair and the scratch pair so
 * that the last one writes the out pair). Leaves the same state changed. */
ds_status ds_gl_sort_pairs_into(ds_gl_sort *sort, GLuint keys_in, GLuint values_in,
                                GLuint keys_out, GLuint values_out, size_t n, int begin_bit,
                                int end_bit);

/* Pairs per block of the sort: the dispatch arguments of an indirect sort
 * are (max(1, ceil(n / this)), 1, 1). */
size_t ds_gl_sort_block_pairs(const ds_gl_sort *sort);

/* Work a caller issues alongside an indirect sort: after the sort issues
 * its dispatch k (0 to 2 x passes - 1: each pass's count, then its
 * scatter), and before the barrier that follows it, fn(user, k) may issue
 * dispatches that touch none of the sort's buffers and issue no barrier
 * itself; the sort's next barrier makes their writes visible. Independent
 * work so shares the sort's barriers instead of adding dependent
 * dispatches of its own. The sort binds its buffers, program and
 * indirect buffer again before each of its dispatches. */
typedef struct ds_gl_sort_alongside {
    void (*fn)(void *user, int dispatch);
    void *user;
} ds_gl_sort_alongside;

/* As ds_gl_sort_pairs_into, with the pair count written on the GPU, so
 * that no host read waits for it: word `count_word` of `count_buffer`
 * holds n (at most the capacity), and `dispatch_buffer` at byte
 * `dispatch_offset` holds the three words of glDispatchComputeIndirect,
 * (max(1, ceil(n / ds_gl_sort_block_pairs())), 1, 1), which every pass's
 * two dispatches read. `alongside` (NULL:
 * none) issues the caller's independent work between the sort's
 * dispatches. Leaves the same state changed as the others. */
ds_status ds_gl_sort_pairs_indirect(ds_gl_sort *sort, GLuint keys_in, GLuint values_in,
                                    GLuint keys_out, GLuint values_out, GLuint count_buffer,
                                    GLuint count_word, GLuint dispatch_buffer,
                                    GLintptr dispatch_offset, int begin_bit, int end_bit,
                                    const ds_gl_sort_alongside *alongside);

/* The compute dispatches the last sort call issued, and its steps: the
 * dispatches that each wait at a memory barrier for the ones before (for
 * a frame's count of dependent launches); zeros for NULL. */
void ds_gl_sort_issued(const ds_gl_sort *sort, unsigned *dispatches, unsigned *steps);

#endif
