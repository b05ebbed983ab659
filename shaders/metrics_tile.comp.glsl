// SPDX-License-Identifier: MIT
// metrics_tile.comp.glsl — the error terms and SSIM of one TILE × TILE
// tile of pixels, reduced to one partial per workgroup (image_metrics.c
// sums the partials with metrics_reduce.comp.glsl).
//
// SSIM after Wang, Bovik, Sheikh, Simoncelli 2004, "Image quality
// assessment: from error visibility to structural similarity": on luma,
// with the local moments under a normalised Gaussian window, separable:
// a horizontal pass over the tile's rows plus an apron of RADIUS rows
// above and below, then a vertical pass, both in shared memory. Moments
// and SSIM are in double: E[x²] - E[x]² cancels to noise in float on flat
// bright regions, where the variance is what SSIM looks at.
//
// Prepended by image_metrics.c: #version, TILE, RADIUS.
// One invocation owns one pixel (its error terms, its SSIM value); the
// workgroup owns the tile and writes partial gl_WorkGroupID's row.

layout(local_size_x = TILE, local_size_y = TILE) in;

#define WINDOW (2 * RADIUS + 1)
#define SPAN (TILE + 2 * RADIUS)   // the tile and its apron, per side
#define THREADS (TILE * TILE)

layout(binding = 0) uniform sampler2D test_image;
layout(binding = 1) uniform sampler2D reference_image;
layout(location = 0) uniform ivec2 size;
// C1, C2 scaled to luma × 1000 (SSIM is a ratio of terms that all scale
// as luma to the fourth power: the same value as on 0..255 luma).
layout(location = 1) uniform dvec2 ssim_constants;
layout(location = 2) uniform double weights[WINDOW];     // 1D Gaussian, sum 1

// Per workgroup: sum of squared errors, largest channel error, pixels
// off by more than 2, by more than 8 levels.
layout(std430, binding = 0) writeonly buffer Terms { uvec4 partial_terms[]; };
// Per workgroup: the sum of its pixels' SSIM values (valid pixels only).
layout(std430, binding = 1) writeonly buffer Ssim { double partial_ssim[]; };

// Luma × 1000 = 299 R + 587 G + 114 B: an integer up to 255000, exact in
// float, so the tile's luma costs 4 bytes a pixel of shared memory.
shared float luma_test[SPAN * SPAN];
shared float luma_reference[SPAN * SPAN];
// The horizontal pass: five moments for every row of the span, TILE
// columns each.
shared double row_moments[5][SPAN * TILE];
shared uvec4 reduce_terms[THREADS];
shared double reduce_ssim[THREADS];

uvec3 rgb8(sampler2D image, ivec2 pixel)
{
    // UNORM8 v reads as v / 255; rounding recovers v exactly.
    return uvec3(round(texelFetch(image, pixel, 0).rgb * 255.0));
}

float luma_milli(uvec3 rgb)
{
    return float(299u * rgb.r + 587u * rgb.g + 114u * rgb.b);
}

void main()
{
    const uint local = gl_LocalInvocationIndex;
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * TILE;
    const ivec2 pixel = origin + ivec2(gl_LocalInvocationID.xy);

    // The span's luma; apron pixels outside the image are clamped to the
    // edge (they only feed windows that the border rule leaves out).
    for (uint i = local; i < SPAN * SPAN; i += THREADS) {
        ivec2 at = clamp(origin - RADIUS + ivec2(i % SPAN, i / SPAN), ivec2(0), size - 1);
        luma_test[i] = luma_milli(rgb8(test_image, at));
        luma_reference[i] = luma_milli(rgb8(reference_image, at));
    }

    // This pixel's error terms (0 outside the image).
    uvec4 terms = uvec4(0u);
    bool inside = all(lessThan(pixel, size));
    if (inside) {
        ivec3 diff = abs(ivec3(rgb8(test_image, pixel)) - ivec3(rgb8(reference_image, pixel)));
        uint largest = uint(max(diff.r, max(diff.g, diff.b)));
        uint squares = uint(diff.r * diff.r + diff.g * diff.g + diff.b * diff.b);
        terms = uvec4(squares, largest, largest > 2u ? 1u : 0u,
                      largest > 8u ? 1u : 0u);
    }
    barrier();

    // Horizontal pass: row r of the span, column c of the tile.
    for (uint i = local; i < SPAN * TILE; i += THREADS) {
        uint r = i / TILE, c = i % TILE;
        dvec2 mean = dvec2(0.0), square = dvec2(0.0);
        double product = 0.0;
        for (int k = 0; k < WINDOW; k++) {
            uint at = r * SPAN + c + uint(k);
            dvec2 v = dvec2(luma_test[at], luma_reference[at]);
            double w = weights[k];
            mean += w * v;
            square += w * v * v;
            product += w * v.x * v.y;
        }
        row_moments[0][i] = mean.x;
        row_moments[1][i] = mean.y;
        row_moments[2][i] = square.x;
        row_moments[3][i] = square.y;
        row_moments[4][i] = product;
    }
    barrier();

    // Vertical pass and SSIM, where the whole window is inside the image.
    double ssim = 0.0;
    if (all(greaterThanEqual(pixel, ivec2(RADIUS))) &&
        all(lessThan(pixel, size - RADIUS))) {
        double m[5] = double[5](0.0, 0.0, 0.0, 0.0, 0.0);
        for (int k = 0; k < WINDOW; k++) {
            uint at = (gl_LocalInvocationID.y + uint(k)) * TILE + gl_LocalInvocationID.x;
            double w = weights[k];
            for (int j = 0; j < 5; j++)
                m[j] += w * row_moments[j][at];
        }
        double c1 = ssim_constants.x, c2 = ssim_constants.y;
        double var_x = m[2] - m[0] * m[0], var_y = m[3] - m[1] * m[1];
        double covariance = m[4] - m[0] * m[1];
        ssim = (2.0 * m[0] * m[1] + c1) * (2.0 * covariance + c2) /
               ((m[0] * m[0] + m[1] * m[1] + c1) * (var_x + var_y + c2));
    }

    // The tile's partial in two levels, row sums then their sum: two
    // barriers where a tree takes eight (a barrier is costly on CPU
    // implementations such as llvmpipe; on a GPU the short serial sums
    // hide behind the other workgroups).
    reduce_terms[local] = terms;
    reduce_ssim[local] = ssim;
    barrier();
    if (local < TILE) {
        uvec4 row = reduce_terms[local * TILE];
        double row_ssim = reduce_ssim[local * TILE];
        for (uint i = 1u; i < TILE; i++) {
            uvec4 t = reduce_terms[local * TILE + i];
            row = uvec4(row.x + t.x, max(row.y, t.y), row.zw + t.zw);
            row_ssim += reduce_ssim[local * TILE + i];
        }
        reduce_terms[local * TILE] = row;
        reduce_ssim[local * TILE] = row_ssim;
    }
    barrier();
    if (local == 0u) {
        uvec4 sum = reduce_terms[0];
        double sum_ssim = reduce_ssim[0];
        for (uint r = 1u; r < TILE; r++) {
            uvec4 t = reduce_terms[r * TILE];
            sum = uvec4(sum.x + t.x, max(sum.y, t.y), sum.zw + t.zw);
            sum_ssim += reduce_ssim[r * TILE];
        }
        uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial_terms[tile] = sum;
        partial_ssim[tile] = sum_ssim;
    }
}
