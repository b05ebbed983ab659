// SPDX-License-Identifier: MIT
// raster_resolve.comp.glsl — the compute raster's composite
// (raster_compute.c): each pixel's list (raster_bin) in order of position,
// the first farthest, composited onto the background with the sorted
// draw's blending, straight alpha "over" (abuffer_resolve.frag.glsl's):
//     rgb = a src.rgb + (1 - a) dst.rgb,   alpha = a + (1 - a) dst.alpha
// in float, rounded once when stored into the RGBA8 output image.
// A list of up to LOCAL_ENTRIES entries is sorted in registers; a longer one
// in place in the lists buffer (slower, never cut short).
// Invocation (x, y) owns pixel (x, y); a subgroup of 32 takes 32 pixels
// of one row, 128 consecutive bytes of each per-pixel buffer.
layout(local_size_x = 32, local_size_y = 8) in;

// A covered pixel's count is zeroed once read, ready for the next frame's
// emit (which counts on them with atomics) without a clear of its own;
// an uncovered pixel's is zero already and is not written, so the
// per-pixel writes are as many as the covered pixels, not the screen's.
layout(std430, binding = 0) restrict buffer PixelCounts { uint pixel_counts[]; };
layout(std430, binding = 1) restrict readonly buffer PixelEnds { uint pixel_ends[]; };
layout(std430, binding = 2) restrict buffer Lists { uvec2 lists[]; };
layout(binding = 0, rgba8) uniform writeonly image2D image;

layout(location = 0) uniform ivec2 viewport;
layout(location = 1) uniform vec4 background;

const uint LOCAL_ENTRIES = 16u;

vec4 over(vec4 dst, uint rgba8)
{
    vec4 src = unpackUnorm4x8(rgba8);
    return vec4(src.a * src.rgb + (1.0 - src.a) * dst.rgb, src.a + (1.0 - src.a) * dst.a);
}

void main()
{
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(q, viewport)))
        return;
    uint pixel = uint(q.y) * uint(viewport.x) + uint(q.x);
    uint count = pixel_counts[pixel];
    if (count == 0u) {
        imageStore(image, q, background);
        return;
    }
    pixel_counts[pixel] = 0u;
    uint end = pixel_ends[pixel];
    uint start = end - count;
    vec4 dst = background;
    if (count == 1u) {
        // The most common covered pixel: nothing to order.
        dst = over(dst, lists[start].y);
    } else if (count <= LOCAL_ENTRIES) {
        uvec2 entries[LOCAL_ENTRIES];
        for (uint i = 0u; i < count; i++) {
            uvec2 entry = lists[start + i];
            uint j = i;
            while (j > 0u && entries[j - 1u].x > entry.x) {
                entries[j] = entries[j - 1u];
                j--;
            }
            entries[j] = entry;
        }
        for (uint i = 0u; i < count; i++)
            dst = over(dst, entries[i].y);
    } else {
        for (uint i = start + 1u; i < end; i++) {
            uvec2 entry = lists[i];
            uint j = i;
            while (j > start && lists[j - 1u].x > entry.x) {
                lists[j] = lists[j - 1u];
                j--;
            }
            lists[j] = entry;
        }
        for (uint i = start; i < end; i++)
            dst = over(dst, lists[i].y);
    }
    imageStore(image, q, dst);
}
