/* SPDX-License-Identifier: MIT */
/* hybrid_network.cuh — the vector building blocks of the hybrid sort
 * ("Fast Parallel GPU-Sorting Using a Hybrid Algorithm", Sintorn &
 * Assarsson, JPDC 2008), as __host__ __device__ functions so that
 * tests/test_hybrid.c proves them exhaustively on the CPU.
 *
 * Keys are the ordered uint32 of kernels/common/sort_keys.cuh (unsigned
 * compare), four to a vector, as the paper's float4.
 *
 * Two forms of each step:
 *   - hybrid_sort_elements / hybrid_merge_lowest_highest: the paper's keys-
 *     only vector code, literally (per-lane conditions and swizzles). With
 *     tied keys two lanes can pick the same source lane, which is harmless
 *     for keys alone but would duplicate a value and lose another.
 *   - hybrid_sort_elements_pairs / hybrid_merge_pairs: the same networks with
 *     one condition per compared pair, so each (key, value) pair moves as a
 *     unit and ties keep both pairs. These are what the kernels run.
 *
 * The 2007 workshop version's sortElements, "r = (r.xyzw > r.yxwz) ? r.yxwz :
 * r.xyzw", evaluates the condition per lane and so writes min(x, y) to both
 * x and y; the 2008 journal's "? r.yyww : r.xxzz" form is the correct one.
 * Fig. 1's second line must read `a` from before the first line: read in
 * sequence, b.x = (b.x >= a'.w) ? b.x : a'.w with a'.w = min(a.w, b.x) keeps
 * b.x and loses a.w.
 */
#ifndef DS_HYBRID_NETWORK_CUH
#define DS_HYBRID_NETWORK_CUH

#include <stdint.h>

#ifndef __CUDACC__
#define __host__
#define __device__
#define DS_HYBRID_UNDEF_QUALIFIERS
#endif

/* Four keys (or four values) in lanes x, y, z, w; the layout of a uint4. */
typedef struct hybrid_vec4 {
    uint32_t x, y, z, w;
} hybrid_vec4;

/* The 2008 journal's sortElements, keys only, lane by lane:
 *   r = (r.xyzw > r.yxwz) ? r.yyww : r.xxzz
 *   r = (r.xyzw > r.zwxy) ? r.zwzw : r.xyxy
 *   r = (r.xyzw > r.xzyw) ? r.xzzw : r.xyyw
 * Sorts the four keys ascending (a bitonic network of three steps). */
__host__ __device__ static inline hybrid_vec4 hybrid_sort_elements(hybrid_vec4 r)
{
    hybrid_vec4 s;
    s.x = (r.x > r.y) ? r.y : r.x;
    s.y = (r.y > r.x) ? r.y : r.x;
    s.z = (r.z > r.w) ? r.w : r.z;
    s.w = (r.w > r.z) ? r.w : r.z;
    r = s;
    s.x = (r.x > r.z) ? r.z : r.x;
    s.y = (r.y > r.w) ? r.w : r.y;
    s.z = (r.z > r.x) ? r.z : r.x;
    s.w = (r.w > r.y) ? r.w : r.y;
    r = s;
    s.x = r.x; /* (r.x > r.x) ? r.x : r.x */
    s.y = (r.y > r.z) ? r.z : r.y;
    s.z = (r.z > r.y) ? r.z : r.y;
    s.w = r.w; /* (r.w > r.w) ? r.w : r.w */
    return s;
}

/* Fig. 1 (a), keys only: given sorted a and sorted b, a receives the four
 * lowest of the eight keys and b the four highest (each then needs
 * hybrid_sort_elements). Both lines read the incoming a and b.
 *   a.xyzw = (a.xyzw <  b.wzyx) ? a.xyzw : b.wzyx
 *   b.xyzw = (b.xyzw >= a.wzyx) ? b.xyzw : a.wzyx */
__host__ __device__ static inline void hybrid_merge_lowest_highest(hybrid_vec4 *a,
                                                                   hybrid_vec4 *b)
{
    hybrid_vec4 lo, hi;
    lo.x = (a->x < b->w) ? a->x : b->w;
    lo.y = (a->y < b->z) ? a->y : b->z;
    lo.z = (a->z < b->y) ? a->z : b->y;
    lo.w = (a->w < b->x) ? a->w : b->x;
    hi.x = (b->x >= a->w) ? b->x : a->w;
    hi.y = (b->y >= a->z) ? b->y : a->z;
    hi.z = (b->z >= a->y) ? b->z : a->y;
    hi.w = (b->w >= a->x) ? b->w : a->x;
    *a = lo;
    *b = hi;
}

/* Compare-and-swap of one (key, value) pair against another: afterwards
 * *k0 <= *k1, the values following their keys. */
__host__ __device__ static inline void hybrid_cas(uint32_t *k0, uint32_t *v0,
                                                  uint32_t *k1, uint32_t *v1)
{
    if (*k0 > *k1) {
        uint32_t k = *k0, v = *v0;
        *k0 = *k1;
        *v0 = *v1;
        *k1 = k;
        *v1 = v;
    }
}

/* sortElements on (key, value) vectors: the same three steps, each a pair of
 * compare-and-swaps (x,y)(z,w), then (x,z)(y,w), then (y,z). */
__host__ __device__ static inline void hybrid_sort_elements_pairs(hybrid_vec4 *k,
                                                                  hybrid_vec4 *v)
{
    hybrid_cas(&k->x, &v->x, &k->y, &v->y);
    hybrid_cas(&k->z, &v->z, &k->w, &v->w);
    hybrid_cas(&k->x, &v->x, &k->z, &v->z);
    hybrid_cas(&k->y, &v->y, &k->w, &v->w);
    hybrid_cas(&k->y, &v->y, &k->z, &v->z);
}

/* Fig. 1 on (key, value) vectors: compare-and-swap a[i] with b[3 - i], then
 * sort both vectors; afterwards a holds the four lowest pairs ascending and
 * b the four highest. Requires a and b sorted on entry. */
__host__ __device__ static inline void hybrid_merge_pairs(hybrid_vec4 *ak,
                                                          hybrid_vec4 *av,
                                                          hybrid_vec4 *bk,
                                                          hybrid_vec4 *bv)
{
    hybrid_cas(&ak->x, &av->x, &bk->w, &bv->w);
    hybrid_cas(&ak->y, &av->y, &bk->z, &bv->z);
    hybrid_cas(&ak->z, &av->z, &bk->y, &bv->y);
    hybrid_cas(&ak->w, &av->w, &bk->x, &bv->x);
    hybrid_sort_elements_pairs(ak, av);
    hybrid_sort_elements_pairs(bk, bv);
}

/* Sorts 16 (key, value) pairs held as four vectors, the way each thread of
 * the tile sort starts: sortElements on every vector, Fig. 1 on (0,1) and
 * (2,3) for two sorted runs of eight, then the paper's merge loop (Fig. 1 (b))
 * on those runs: output the low vector, keep the high one, and fetch the
 * next vector from the run whose next key is lower. All indices are static
 * so the vectors stay in registers. */
__host__ __device__ static inline void hybrid_sort16_pairs(hybrid_vec4 k[4],
                                                           hybrid_vec4 v[4])
{
    for (int i = 0; i < 4; i++)
        hybrid_sort_elements_pairs(&k[i], &v[i]);
    hybrid_merge_pairs(&k[0], &v[0], &k[1], &v[1]);
    hybrid_merge_pairs(&k[2], &v[2], &k[3], &v[3]);
    /* Runs A = (k0, k1) and B = (k2, k3). First step: a = k0, b = k2. */
    hybrid_vec4 out_k0 = k[0], out_v0 = v[0], held_k = k[2], held_v = v[2];
    hybrid_merge_pairs(&out_k0, &out_v0, &held_k, &held_v);
    /* Next from the run with the lower head; the other run's vector is
     * then all that is left. */
    int take_a = k[1].x <= k[3].x;
    hybrid_vec4 next_k = take_a ? k[1] : k[3], next_v = take_a ? v[1] : v[3];
    hybrid_vec4 last_k = take_a ? k[3] : k[1], last_v = take_a ? v[3] : v[1];
    hybrid_merge_pairs(&held_k, &held_v, &next_k, &next_v);
    hybrid_merge_pairs(&next_k, &next_v, &last_k, &last_v);
    k[0] = out_k0;
    v[0] = out_v0;
    k[1] = held_k;
    v[1] = held_v;
    k[2] = next_k;
    v[2] = next_v;
    k[3] = last_k;
    v[3] = last_v;
}

/* The count pass's bucket search (Fig. 4), started from the key's
 * histogram bin. pivot_bin[1..L-1] are the bins of pivots[1..L-1], non-
 * decreasing as the pivots are, and the bin function is monotone in the
 * key, so every pivot in a bin below the key's is lower than the key and
 * every pivot in a bin above it higher.
 *
 * hybrid_bin_first: how many of pivots[1..L-1] lie in bins below h (the
 * first j in [1, L) whose bin is >= h, minus one). */
__host__ __device__ static inline uint32_t hybrid_bin_first(const uint32_t *pivot_bin,
                                                            uint32_t L, uint32_t h)
{
    uint32_t lo = 1, hi = L;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (pivot_bin[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* One step of the search inside a bin: pivots[*found + 1 .. *found + *left]
 * are the candidates (found = bin_first[h], left = bin_first[h + 1] -
 * found to start); halves them against key. When *left reaches 0, *found
 * is the number of pivots[1..L-1] that are <= key: the key's bucket. A
 * step per call so that the kernel can run several searches in step. */
__host__ __device__ static inline void hybrid_search_step(const uint32_t *pivots,
                                                          uint32_t key,
                                                          uint32_t *found,
                                                          uint32_t *left)
{
    uint32_t halved = *left >> 1;
    if (pivots[*found + halved + 1] <= key) {
        *found += halved + 1;
        *left -= halved + 1;
    } else {
        *left = halved;
    }
}

#ifdef DS_HYBRID_UNDEF_QUALIFIERS
#undef __host__
#undef __device__
#undef DS_HYBRID_UNDEF_QUALIFIERS
#endif

#endif
