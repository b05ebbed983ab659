// SPDX-License-Identifier: MIT
// raster_bin.comp.glsl — the compute raster's by-pixel pass
// (raster_compute.c): every fragment, taken in the frame's order, joins its
// pixel's list, which raster_scan placed at the pixel's start: an entry is
// (position in the order, RGBA8). Fragment order: position s of the sorted
// fragments, whose values are the fragments' numbers; triangle order: the
// fragment's key, its triangle's sorted position. The slot within a list
// comes from an atomic, so a list is in no particular order: the entries'
// positions are unique within a pixel (one sorted position per fragment;
// a triangle covers a pixel once), and raster_resolve puts each list back
// in their order, which makes the pass stable: a pixel's fragments keep
// the order the sort gave them.
// Invocation s owns position s (a 2D grid of workgroups for many).
layout(local_size_x = RASTER_THREADS) in;

layout(std430, binding = 0) readonly buffer SortedValues { uint sorted_values[]; };
layout(std430, binding = 1) readonly buffer Fragments { uvec2 fragments[]; };
layout(std430, binding = 2) readonly buffer FragmentKeys { uint fragment_keys[]; };
// The pixels' list starts; each ends at its list's end after this pass.
layout(std430, binding = 3) buffer PixelEnds { uint pixel_ends[]; };
layout(std430, binding = 4) writeonly buffer Lists { uvec2 lists[]; };

layout(location = 1) uniform bool fragment_order;
// raster_plan's: [3] the fragments kept
layout(std430, binding = 5) readonly buffer State { uint state[]; };

void main()
{
    uint s = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * RASTER_THREADS +
             gl_LocalInvocationID.x;
    if (s >= state[3])
        return;
    uint f = fragment_order ? sorted_values[s] : s;
    uvec2 fragment = fragments[f];
    uint position = fragment_order ? s : fragment_keys[f];
    uint slot = atomicAdd(pixel_ends[fragment.x], 1u);
    lists[slot] = uvec2(position, fragment.y);
}
