// SPDX-License-Identifier: MIT
// raster_plan.comp.glsl — one workgroup between the compute raster's count
// passes and its emit (raster_compute.c): the blocks' sums of the
// triangles' counts (raster_fragments' count passes added them) scanned
// into each block's first slot and the frame's fragment total, then from
// the total what the later passes need without the host reading it: the
// fragments kept (the total, or the buffers' capacity when the frame has
// more: an overflow, which the host learns of from the same words a few
// frames later, grows the buffers and draws the frame again), and the
// dispatch arguments of the GL sort and of the by-pixel pass.
// Invocation t owns a run of `per` consecutive block sums. The sums are
// read and the starts written to another range, so the plan may run twice
// in a frame (a caller's sort grows the buffers between).
layout(local_size_x = SCAN_THREADS) in;

// raster_fragments' state: [0] total, [3] kept, [4] overflowed, [5..7]
// the by-pixel pass's workgroups, [8..10] the sort's.
layout(std430, binding = 6) buffer State { uint state[]; };
// [0, blocks) the blocks' sums, [blocks, 2 blocks) their first slots.
layout(std430, binding = 5) buffer TriangleSums { uint triangle_sums[]; };

layout(location = 0) uniform uint capacity;
layout(location = 1) uniform uint sort_block;    // ds_gl_sort_block_pairs
layout(location = 2) uniform uint bin_threads;   // raster_bin's workgroup
layout(location = 3) uniform uint blocks;

const uint MAX_GROUPS_X = 65535u;

shared uint partial[SCAN_THREADS];

void main()
{
    uint local = gl_LocalInvocationID.x;
    uint per = (blocks + SCAN_THREADS - 1u) / SCAN_THREADS;
    uint own = 0u;
    for (uint k = 0u; k < per; k++) {
        uint b = local * per + k;
        if (b < blocks)
            own += triangle_sums[b];
    }
    // Exclusive scan of the invocations' sums (Hillis and Steele).
    partial[local] = own;
    barrier();
    for (uint step = 1u; step < SCAN_THREADS; step <<= 1) {
        uint add = local >= step ? partial[local - step] : 0u;
        barrier();
        partial[local] += add;
        barrier();
    }
    uint total = partial[SCAN_THREADS - 1u];
    uint start = partial[local] - own;
    for (uint k = 0u; k < per; k++) {
        uint b = local * per + k;
        if (b < blocks) {
            uint value = triangle_sums[b];
            triangle_sums[blocks + b] = start;
            start += value;
        }
    }
    if (local != 0u)
        return;
    uint kept = min(total, capacity);
    state[0] = total;
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
