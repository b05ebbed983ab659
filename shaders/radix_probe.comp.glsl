// SPDX-License-Identifier: MIT
// radix_probe.comp.glsl — checks, once when gl_sort.c creates the sort, the
// subgroup layout that radix_count and radix_scatter rely on: a workgroup of
// THREADS invocations splits into subgroups of gl_SubGroupSizeARB lanes
// that are aligned, contiguous ranges of gl_LocalInvocationIndex, lane l
// of a subgroup being its l-th invocation, all lanes active together.
//
// Prepended by gl_sort.c: #version, the ballot extensions, THREADS.
// One workgroup; every invocation checks its own place and reports a
// mismatch with an atomic OR.

layout(local_size_x = THREADS) in;

layout(std430, binding = 0) buffer Probe {
    uint subgroup_size;
    uint mismatch;
} probe;

void main()
{
    const uint index = gl_LocalInvocationIndex;
    const uint size = gl_SubGroupSizeARB;
    const uint lane = gl_SubGroupInvocationARB;
    // Every lane of the subgroup: its lowest size bits (size <= 64).
    const uint64_t full = size >= 64u ? ~0ul : (1ul << size) - 1ul;
    const uint64_t below = lane == 0u ? 0ul : (~0ul >> (64u - lane));
    bool fine = size >= 1u && size <= 64u && lane == index % size &&
                ballotARB(true) == full &&
                readInvocationARB(index, 0u) == index - lane &&
                readFirstInvocationARB(index) == index - lane &&
                gl_SubGroupLtMaskARB == below;
    if (index == 0u)
        probe.subgroup_size = size;
    if (!fine)
        atomicOr(probe.mismatch, 1u);
}
