// SPDX-License-Identifier: MIT
// metrics_reduce.comp.glsl — sums the per-tile partials of
// metrics_tile.comp.glsl into the few numbers image_metrics.c reads back.
//
// Prepended by image_metrics.c: #version, REDUCE_THREADS.
// One workgroup; invocation i owns partials i, i + REDUCE_THREADS, ...;
// then a tree over shared memory. The sums of squared errors and the
// counts are integers accumulated in double: exact below 2^53.

layout(local_size_x = REDUCE_THREADS) in;

layout(location = 0) uniform uint partial_count;

layout(std430, binding = 0) readonly buffer Terms { uvec4 partial_terms[]; };
layout(std430, binding = 1) readonly buffer Ssim { double partial_ssim[]; };
layout(std430, binding = 2) writeonly buffer Result {
    double squared_error_sum;
    double ssim_sum;
    double bad_2_count;
    double bad_8_count;
    uint max_error;
} result;

shared dvec4 reduce_sums[REDUCE_THREADS];   // squared errors, SSIM, bad 2, bad 8
shared uint reduce_max[REDUCE_THREADS];

void main()
{
    const uint local = gl_LocalInvocationIndex;
    dvec4 sums = dvec4(0.0);
    uint largest = 0u;
    for (uint i = local; i < partial_count; i += REDUCE_THREADS) {
        uvec4 terms = partial_terms[i];
        sums += dvec4(double(terms.x), partial_ssim[i], double(terms.z), double(terms.w));
        largest = max(largest, terms.y);
    }
    reduce_sums[local] = sums;
    reduce_max[local] = largest;
    barrier();
    for (uint stride = REDUCE_THREADS / 2u; stride > 0u; stride >>= 1) {
        if (local < stride) {
            reduce_sums[local] += reduce_sums[local + stride];
            reduce_max[local] = max(reduce_max[local], reduce_max[local + stride]);
        }
        barrier();
    }
    if (local == 0u) {
        result.squared_error_sum = reduce_sums[0].x;
        result.ssim_sum = reduce_sums[0].y;
        result.bad_2_count = reduce_sums[0].z;
        result.bad_8_count = reduce_sums[0].w;
        result.max_error = reduce_max[0];
    }
}
