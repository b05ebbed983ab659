// SPDX-License-Identifier: MIT
// raster_plan.glsl — the compute raster's plan (compute_raster.c;
// docs/algorithms/compute-raster.md, step 2): the blocks' sums of the
// primitives' counts (the count passes added them) scanned into each
// block's first slot and the frame's fragment total, then from the total
// what the later passes need without the host reading it: the fragments
// kept (the total, or the buffers' capacity when the frame has more: an
// overflow, which the host learns of from the same words a few frames
// later, grows the buffers and draws the frame again), and the dispatch
// arguments of the GL sort and of the by-pixel pass.
//
// It runs in the last workgroup of the large count to finish
// (plan_if_last_group, at the end of raster_fragments' and raster_points'
// large counts: the "last block" reduction of CUDA's threadFenceReduction
// sample), so that the frame spends no dependent step on one workgroup's
// work; and alone (raster_plan.comp.glsl) when a caller's sort has grown
// the buffers after the count. The sums are read and the starts written to
// another range, so the plan may run twice in a frame.
//
// Compiled after raster_slots.glsl (the buffers, the uniforms blocks and
// capacity, the workgroup of RASTER_THREADS) and radix_workgroup_scan.glsl
// (with SCAN_THREADS = RASTER_THREADS).

layout(location = 20) uniform uint sort_block; // ds_gl_sort_block_pairs

// State words: the large count's workgroups done (zeroed by the host with
// the rest of the header each frame), and the plan's.
const uint STATE_GROUPS_DONE = 11u;
const uint STATE_KEPT = 3u, STATE_OVERFLOWED = 4u, STATE_BIN_GROUPS = 5u,
           STATE_SORT_GROUPS = 8u;
const uint MAX_GROUPS_X = 65535u;

// The plan, by the whole workgroup. Invocation t owns a run of `per`
// consecutive block sums.
void plan_frame()
{
    uint local = gl_LocalInvocationID.x;
    uint per = (blocks + RASTER_THREADS - 1u) / RASTER_THREADS;
    uint own = 0u;
    for (uint k = 0u; k < per; k++) {
        uint b = local * per + k;
        if (b < blocks)
            own += triangle_sums[b];
    }
    uint total;
    uint start = workgroup_exclusive_scan(own, total);
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
    state[STATE_TOTAL] = total;
    state[STATE_KEPT] = kept;
    state[STATE_OVERFLOWED] = total > capacity ? 1u : 0u;
    // The by-pixel pass: an invocation per kept fragment, RASTER_THREADS
    // a workgroup, in rows of at most MAX_GROUPS_X workgroups.
    uint groups = (kept + RASTER_THREADS - 1u) / RASTER_THREADS;
    uint x = min(groups, MAX_GROUPS_X);
    state[STATE_BIN_GROUPS] = x;
    state[STATE_BIN_GROUPS + 1u] = x == 0u ? 0u : (groups + x - 1u) / x;
    state[STATE_BIN_GROUPS + 2u] = 1u;
    state[STATE_SORT_GROUPS] = max(1u, (kept + sort_block - 1u) / sort_block);
    state[STATE_SORT_GROUPS + 1u] = 1u;
    state[STATE_SORT_GROUPS + 2u] = 1u;
}

shared bool plan_last_group;

// Called by every workgroup of the large count after its last primitive:
// the one that finishes last runs the plan. Each workgroup's additions to
// the blocks' sums (add_to_sums' atomics, the small count's before this
// dispatch) are made visible before it counts itself done, so the last
// one, which sees every other's count, reads complete sums (the sums are
// coherent: read past any cache of this workgroup's multiprocessor).
void plan_if_last_group()
{
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        plan_last_group = atomicAdd(state[STATE_GROUPS_DONE], 1u) == groups - 1u;
    }
    memoryBarrierShared();
    barrier();
    if (!plan_last_group)
        return;
    // The other workgroups' sums were visible before their counts, which
    // this one's atomic followed.
    memoryBarrierBuffer();
    plan_frame();
}
