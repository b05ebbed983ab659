// SPDX-License-Identifier: MIT
// radix_workgroup_scan.glsl — the exclusive prefix sum over a workgroup of
// SCAN_THREADS invocations with which radix_scatter scans its block's
// digit counts and the pass's digit totals, the compute raster's pixel
// scan (raster_scan) and plan (raster_plan.glsl) scan their sums, and its
// emits (raster_slots.glsl, raster_fragments) their primitives' counts
// and the covered pixels of a large triangle's round.
//
// Prepended by gl_sort.c and compute_raster.c after the shader's defines
// (SCAN_THREADS, SUBGROUP_KHR and, where that is 1, SUBGROUP_SIZE and the
// subgroup extensions: where the context offers GL_KHR_shader_subgroup's
// arithmetic and the GL sort's probe found subgroups laid out as aligned
// runs of gl_LocalInvocationIndex).

shared uint scan_buffer[2 * SCAN_THREADS];

#if SUBGROUP_KHR
// A subgroup scan, then the scan of the subgroups' sums by subgroup 0
// (SCAN_THREADS / SUBGROUP_SIZE <= SUBGROUP_SIZE, which gl_sort.c and
// compute_raster.c check). Three barriers a call.
uint workgroup_exclusive_scan(uint value, out uint sum)
{
    const uint local = gl_LocalInvocationIndex;
    const uint subgroup = local / SUBGROUP_SIZE;
    const uint subgroups = SCAN_THREADS / SUBGROUP_SIZE;
    const uint inclusive = subgroupInclusiveAdd(value);
    if (local % SUBGROUP_SIZE == SUBGROUP_SIZE - 1u)
        scan_buffer[subgroup] = inclusive;
    memoryBarrierShared();
    barrier();
    if (subgroup == 0u) {
        const uint part = local < subgroups ? scan_buffer[local] : 0u;
        const uint before = subgroupExclusiveAdd(part);
        const uint total = subgroupAdd(part);
        if (local < subgroups)
            scan_buffer[subgroups + local] = before;
        if (local == 0u)
            scan_buffer[2u * subgroups] = total;
    }
    memoryBarrierShared();
    barrier();
    const uint result = scan_buffer[subgroups + subgroup] + inclusive - value;
    sum = scan_buffer[2u * subgroups];
    // scan_buffer is rewritten by the next call.
    barrier();
    return result;
}
#else
// Hillis and Steele's scan, ping-ponging between the halves of
// scan_buffer, a barrier per step (log2 SCAN_THREADS + 2 a call).
uint workgroup_exclusive_scan(uint value, out uint sum)
{
    const uint local = gl_LocalInvocationIndex;
    uint source = 0u;
    scan_buffer[local] = value;
    memoryBarrierShared();
    barrier();
    for (uint offset = 1u; offset < SCAN_THREADS; offset <<= 1) {
        uint partial = scan_buffer[source + local];
        if (local >= offset)
            partial += scan_buffer[source + local - offset];
        source ^= uint(SCAN_THREADS);
        scan_buffer[source + local] = partial;
        memoryBarrierShared();
        barrier();
    }
    const uint inclusive = scan_buffer[source + local];
    sum = scan_buffer[source + SCAN_THREADS - 1u];
    // scan_buffer is rewritten by the next call.
    barrier();
    return inclusive - value;
}
#endif
