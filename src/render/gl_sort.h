/* gl_sort.h — a stable LSD radix sort of (uint32 key, uint32 value) pairs
 * held in GL buffers, by compute shaders in the current GL context: the
 * renderer's GL stages (gl_stages.c) sort with it so that a frame never
 * leaves the draw's context. Ascending by the key bits [begin_bit,
 * end_bit), equal keys in their input order (stable); the renderer writes
 * the bitwise complement of the float distance's bits as the key, so
 * ascending is far first and its order is the CUDA sorts' and the cpu
 * sort's for the same keys.
 *
 * Each 8-bit digit is one pass: a stable scatter whose ranks within a
 * block come from subgroup ballots (GL_ARB_shader_ballot), its block's
 * output positions found in one of two forms (ds_gl_sort_form). No pass
 * waits on the host, allocates or reads anything back. Design and costs:
 * gl_sort.c. */
#ifndef DS_GL_SORT_H
#define DS_GL_SORT_H

#include <stddef.h>

#include <glad/gl.h>

#include "status.h"

typedef struct ds_gl_sort ds_gl_sort;

/* How a pass finds each block's output positions; both sort the same.
 * DS_GL_SORT_REDUCE_SCAN: three dispatches per pass (block histograms, a
 * scan over the blocks, the scatter). DS_GL_SORT_ONESWEEP: one histogram
 * dispatch for all passes, then one dispatch per pass whose blocks chain
 * their digit counts by a decoupled look-back (its workgroups wait on
 * each other: not on Mesa's llvmpipe, whose loop limit can cut a wait
 * short). A new sort object uses DS_GL_SORT_FORM (gl_sort.c, overridable
 * at compile time), except DS_GL_SORT_REDUCE_SCAN on llvmpipe. */
typedef enum {
    DS_GL_SORT_REDUCE_SCAN,
    DS_GL_SORT_ONESWEEP,
    DS_GL_SORT_FORM_COUNT
} ds_gl_sort_form;

/* 1 if the current context can run the sort: GL 4.3 compute shaders and
 * GL_ARB_shader_ballot. */
int ds_gl_sort_supported(void);

/* Programs and scratch buffers for up to `capacity` pairs (the only
 * allocation: 8 bytes per pair, plus 1 KiB per block of 2048 pairs and
 * 2 KiB per block of 4096, or fewer on subgroups under 16 invocations,
 * plus 8 KiB), both forms, in the current context,
 * which every later call must have current. Runs a probe dispatch and
 * reads its result back (the subgroup layout). Errors:
 * DS_ERR_UNSUPPORTED (ds_gl_sort_supported() is 0, or subgroups outside
 * 4..64 invocations or not laid out as aligned runs of
 * gl_LocalInvocationIndex), DS_ERR_TOO_LARGE (capacity of 2^30 pairs or
 * more, or beyond what a storage block or the work group count can
 * hold), DS_ERR_GL (a shader
 * did not build, e.g. without GL_ARB_gpu_shader_int64, which the ballot
 * extension requires), DS_ERR_OUT_OF_MEMORY. *dest is NULL on failure. */
ds_status ds_gl_sort_create(size_t capacity, ds_gl_sort **dest);
void ds_gl_sort_destroy(ds_gl_sort *sort);

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
/* Selects the form of the later sorts of `sort` (a ds_gl_sort_form; both
 * are built at create). DS_ERR_INVALID_ARG for a NULL sort or an unknown
 * form. ds_gl_sort_form_of: the current form (-1 for NULL);
 * ds_gl_sort_form_name: "reduce-then-scan", "onesweep" or "unknown". */
ds_status ds_gl_sort_set_form(ds_gl_sort *sort, int form);
int ds_gl_sort_form_of(const ds_gl_sort *sort);
const char *ds_gl_sort_form_name(int form);

ds_status ds_gl_sort_pairs(ds_gl_sort *sort, GLuint keys, GLuint values, size_t n,
                           int begin_bit, int end_bit);

#endif
