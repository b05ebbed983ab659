/* distance_math.h — the distance and triangle-key arithmetic shared by the
 * CUDA kernels (distance.cu) and the renderer's CPU path, so that both
 * compute the same keys. */
#ifndef DS_DISTANCE_MATH_H
#define DS_DISTANCE_MATH_H

#include <math.h>
#include <stdint.h>

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

#endif
