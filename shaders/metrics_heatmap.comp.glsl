// SPDX-License-Identifier: MIT
// metrics_heatmap.comp.glsl — the error heatmap: each pixel's largest
// channel error, divided by the scale and clamped to 0..1, through the
// colour map polynomial whose coefficients image_metrics.c passes (the
// same ones ds_image_metrics_colormap() evaluates on the host). A pixel
// without error shows the reference dimmed to grey (as
// ds_image_metrics_heat_grey()), so that the model stays visible under
// the error's colours.
//
// Prepended by image_metrics.c: #version, TILE, COLORMAP_TERMS.
// One invocation owns one pixel.

layout(local_size_x = TILE, local_size_y = TILE) in;

layout(binding = 0) uniform sampler2D test_image;
layout(binding = 1) uniform sampler2D reference_image;
layout(binding = 0, rgba8) uniform writeonly image2D heatmap;
layout(location = 0) uniform ivec2 size;
layout(location = 1) uniform float inverse_scale;          // 1 / scale_levels
layout(location = 2) uniform vec3 colormap[COLORMAP_TERMS]; // t^0, t^1, ...

uvec3 rgb8(sampler2D image, ivec2 pixel)
{
    // UNORM8 v reads as v / 255; rounding recovers v exactly.
    return uvec3(round(texelFetch(image, pixel, 0).rgb * 255.0));
}

void main()
{
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, size)))
        return;
    ivec3 diff = abs(ivec3(rgb8(test_image, pixel)) - ivec3(rgb8(reference_image, pixel)));
    float t = min(float(max(diff.r, max(diff.g, diff.b))) * inverse_scale, 1.0);
    if (t == 0.0) {
        vec3 reference = vec3(rgb8(reference_image, pixel));
        float grey = 15.0 + 0.35 * dot(reference, vec3(0.299, 0.587, 0.114));
        imageStore(heatmap, pixel, vec4(vec3(round(grey) / 255.0), 1.0));
        return;
    }
    vec3 color = colormap[COLORMAP_TERMS - 1];          // Horner
    for (int k = COLORMAP_TERMS - 2; k >= 0; k--)
        color = color * t + colormap[k];
    imageStore(heatmap, pixel, vec4(clamp(color, 0.0, 1.0), 1.0));
}
