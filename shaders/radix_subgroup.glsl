// SPDX-License-Identifier: MIT
// radix_subgroup.glsl — the subgroup operations that radix_count and
// radix_scatter rank with, in the form gl_sort.c chose (SUBGROUP_KHR):
//   0  GL_ARB_shader_ballot. It has no subgroup barrier, so a subgroup's
//      lanes that share memory meet at workgroup barriers, and the
//      workgroup scan is Hillis and Steele's in shared memory.
//   1  GL_KHR_shader_subgroup (basic, ballot, shuffle, arithmetic),
//      subgroups of at most 32 lanes: radix_scatter ranks a round with a
//      shared atomic by one lane per digit and a shuffle of its result,
//      with no barrier between rounds, and scans with subgroup scans.
//      With MATCH_PARTITION, the lanes with equal digits come from
//      GL_NV_shader_subgroup_partitioned in one operation instead of one
//      ballot per digit bit.
//
// Prepended by gl_sort.c after its defines (SUBGROUP_KHR, MATCH_PARTITION,
// RADIX_BITS, THREADS, SUBGROUP_SIZE, ROWS).

#if SUBGROUP_KHR
#define mask_t uint
#define BALLOT(b) subgroupBallot(b).x
#define LT_MASK gl_SubgroupLtMask.x
#define GT_MASK gl_SubgroupGtMask.x
#define POPCOUNT(m) uint(bitCount(m))
#elif SUBGROUP_SIZE > 32
#define mask_t uint64_t
#define BALLOT(b) ballotARB(b)
#define LT_MASK gl_SubGroupLtMaskARB
#define GT_MASK gl_SubGroupGtMaskARB
#define POPCOUNT(m) uint(bitCount(unpackUint2x32(m)).x + bitCount(unpackUint2x32(m)).y)
#else
#define mask_t uint
#define BALLOT(b) uint(ballotARB(b))
#define LT_MASK uint(gl_SubGroupLtMaskARB)
#define GT_MASK uint(gl_SubGroupGtMaskARB)
#define POPCOUNT(m) uint(bitCount(m))
#endif

// The lanes of this subgroup whose item is valid and has this digit.
// Every lane of the subgroup must call it: a ballot sees active lanes only.
mask_t match_digit(uint digit, bool valid)
{
#if MATCH_PARTITION
    // Invalid lanes get a value no digit has, so they form their own part.
    return subgroupPartitionNV(valid ? digit : 0xFFFFFFFFu).x;
#else
    mask_t peers = BALLOT(valid);
    for (int bit = 0; bit < RADIX_BITS; bit++) {
        const bool set = ((digit >> bit) & 1u) != 0u;
        const mask_t votes = BALLOT(set);
        peers &= set ? votes : ~votes;
    }
    return peers;
#endif
}
