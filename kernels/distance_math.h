/* distance_math.h — the distance and triangle-key arithmetic shared by the
 * CUDA kernels (distance.cu) and the renderer's CPU path, so that both
 * compute the same keys. */
#ifndef DS_DISTANCE_MATH_H
#define DS_DISTANCE_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"

#ifdef __CUDACC__
#define DS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define DS_HOST_DEVICE static inline
#endif

DS_HOST_DEVICE float ds_point_distance(const float *p, float ex, float ey,
                                       float ez)
{
    float dx = p[0] - ex, dy = p[1] - ey, dz = p[2] - ez;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* The key of the triangle (a, b, c) whose vertex distances are da, db, dc. */
DS_HOST_DEVICE float ds_triangle_key_of(ds_triangle_key key, float da,
                                        float db, float dc, const float *pa,
                                        const float *pb, const float *pc,
                                        float ex, float ey, float ez)
{
    if (key == DS_TRIANGLE_KEY_MEAN)
        return (da + db + dc) * (1.0f / 3.0f);
    if (key == DS_TRIANGLE_KEY_CENTROID) {
        float centroid[3];
        for (int k = 0; k < 3; k++)
            centroid[k] = (pa[k] + pb[k] + pc[k]) * (1.0f / 3.0f);
        return ds_point_distance(centroid, ex, ey, ez);
    }
    float farthest = da > db ? da : db;
    return farthest > dc ? farthest : dc;
}

/* 16-bit sort keys (renderer key_bits 16): the key's place in the depth
 * range [lo, lo + 1/scale] as one of QUANTISED_LEVELS steps, stored as the
 * positive float whose top 16 bits (of the sorts' order-preserving
 * transform) are that step. The step is offset by QUANTISED_FIRST so the
 * float is normal (never a denormal that flush-to-zero could merge), and
 * stays below 0x7F80 so it is never Inf or NaN. Monotonic in key. */
#define DS_QUANTISED_FIRST 0x0080u
#define DS_QUANTISED_LEVELS (0x7F80u - DS_QUANTISED_FIRST)

DS_HOST_DEVICE float ds_quantise_key(float key, float lo, float scale)
{
    float place = (key - lo) * scale * (float)(DS_QUANTISED_LEVELS - 1);
    uint32_t step = place > 0.0f ? (uint32_t)place : 0u; /* NaN -> 0 */
    if (step > DS_QUANTISED_LEVELS - 1)
        step = DS_QUANTISED_LEVELS - 1;
    uint32_t bits = (step + DS_QUANTISED_FIRST) << 16;
    float result;
    memcpy(&result, &bits, sizeof result);
    return result;
}

#endif
