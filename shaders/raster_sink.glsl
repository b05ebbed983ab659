// SPDX-License-Identifier: MIT
// raster_sink.glsl — the compute raster's by-pixel pass done by the GL
// sort's last pass (gl_sort.h's sink; compute_raster.c): in fragment order
// with the GL sort, each pair the last scatter places at sorted position
// s (its value the fragment's number) joins its pixel's list there and
// then, as raster_bin.comp.glsl would take it from the sorted values
// afterwards: an entry (s, RGBA8) at a slot of the pixel's list from an
// atomic, which raster_resolve puts back in order of s. That saves
// raster_bin's dispatch, the step it waits for, and the sorted pairs'
// write and read.

layout(std430, binding = 8) readonly buffer SinkFragments { uvec2 sink_fragments[]; };
// The pixels' list starts (raster_scan's, done alongside the sort's first
// dispatches); each ends at its list's end after the pass.
layout(std430, binding = 9) buffer SinkPixelEnds { uint sink_pixel_ends[]; };
layout(std430, binding = 10) writeonly buffer SinkLists { uvec2 sink_lists[]; };
// With keep_values (--verify), the sorted values as the sort would have
// written them, for ds_compute_raster_verify.
layout(std430, binding = 11) writeonly buffer SinkSortedValues { uint sink_sorted_values[]; };
layout(location = 8) uniform bool keep_values;

void radix_sink(uint position, uint key, uint value)
{
    uvec2 fragment = sink_fragments[value];
    uint slot = atomicAdd(sink_pixel_ends[fragment.x], 1u);
    sink_lists[slot] = uvec2(position, fragment.y);
    if (keep_values)
        sink_sorted_values[position] = value;
}
