// SPDX-License-Identifier: MIT
// raster_plan.comp.glsl — one invocation between the compute raster's
// scan of the triangles' counts and its emit (raster_compute.c): from the
// frame's fragment total, what the later passes need without the host
// reading it: the fragments kept (the total, or the buffers' capacity when
// the frame has more: an overflow, which the host learns of from the same
// words a few frames later, grows the buffers and draws the frame again),
// and the dispatch arguments of the GL sort and of the by-pixel pass.
layout(local_size_x = 1) in;

// raster_fragments' state: [0] total, [3] kept, [4] overflowed, [5..7]
// the by-pixel pass's workgroups, [8..10] the sort's.
layout(std430, binding = 6) buffer State { uint state[]; };

layout(location = 0) uniform uint capacity;
layout(location = 1) uniform uint sort_block;    // ds_gl_sort_block_pairs
layout(location = 2) uniform uint bin_threads;   // raster_bin's workgroup

const uint MAX_GROUPS_X = 65535u;

void main()
{
    uint total = state[0];
    uint kept = min(total, capacity);
    state[3] = kept;
    state[4] = total > capacity ? 1u : 0u;
    uint groups = (kept + bin_threads - 1u) / bin_threads;
    uint x = min(groups, MAX_GROUPS_X);
    state[5] = x;
    state[6] = x == 0u ? 0u : (groups + x - 1u) / x;
    state[7] = 1u;
    state[8] = max(1u, (kept + sort_block - 1u) / sort_block);
    state[9] = 1u;
    state[10] = 1u;
}
