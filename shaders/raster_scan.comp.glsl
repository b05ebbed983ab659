// SPDX-License-Identifier: MIT
// raster_scan.comp.glsl — an exclusive prefix sum of n uint32 words
// (compute_raster.c: the pixels' counts into their lists' starts), in
// three dispatches by the
// define PHASE, a block being SCAN_THREADS x SCAN_ITEMS words:
//   1: each workgroup sums its block into block_sums[block];
//   2: one workgroup scans the block sums (exclusive, in place) and writes
//      the total into totals[total_word];
//   3: each workgroup scans its block and adds its block's start.
// Invocation t of a block owns its words t * SCAN_ITEMS .. + SCAN_ITEMS.
// In and out may be the same buffer bound twice: each word is read and
// then written by the same invocation. The workgroup's scan is
// radix_workgroup_scan.glsl's, compiled before this file.
layout(local_size_x = SCAN_THREADS) in;

layout(std430, binding = 0) readonly buffer ScanIn { uint scan_in[]; };
layout(std430, binding = 1) writeonly buffer ScanOut { uint scan_out[]; };
layout(std430, binding = 2) buffer BlockSums { uint block_sums[]; };
layout(std430, binding = 3) buffer Totals { uint totals[]; };

layout(location = 0) uniform uint n;
layout(location = 1) uniform uint total_word;

const uint BLOCK = SCAN_THREADS * SCAN_ITEMS;

void main()
{
    uint local = gl_LocalInvocationID.x;
#if PHASE == 1 || PHASE == 3
    uint block = gl_WorkGroupID.x;
    uint first = block * BLOCK + local * SCAN_ITEMS;
    uint words[SCAN_ITEMS];
    uint own = 0u;
    for (uint k = 0u; k < SCAN_ITEMS; k++) {
        words[k] = first + k < n ? scan_in[first + k] : 0u;
        own += words[k];
    }
    uint sum;
    uint start = workgroup_exclusive_scan(own, sum);
#if PHASE == 1
    if (local == 0u)
        block_sums[block] = sum;
#else
    start += block_sums[block];
    for (uint k = 0u; k < SCAN_ITEMS; k++)
        if (first + k < n) {
            scan_out[first + k] = start;
            start += words[k];
        }
#endif
#else
    // One workgroup: invocation t owns a run of `per` block sums.
    uint blocks = (n + BLOCK - 1u) / BLOCK;
    uint per = (blocks + SCAN_THREADS - 1u) / SCAN_THREADS;
    uint own = 0u;
    for (uint k = 0u; k < per; k++) {
        uint b = local * per + k;
        if (b < blocks)
            own += block_sums[b];
    }
    uint sum;
    uint start = workgroup_exclusive_scan(own, sum);
    for (uint k = 0u; k < per; k++) {
        uint b = local * per + k;
        if (b < blocks) {
            uint value = block_sums[b];
            block_sums[b] = start;
            start += value;
        }
    }
    if (local == 0u)
        totals[total_word] = sum;
#endif
}
