// radix_count.comp.glsl — pass 1 of 3 of one 8-bit digit of gl_sort.c's
// LSD radix sort: the digit histogram of each block of BLOCK keys.
//
// Prepended by gl_sort.c: #version, the ballot extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE.
// One workgroup per block; invocation t owns keys block * BLOCK + t +
// i * THREADS (i < ITEMS): consecutive invocations read consecutive words.
// Keys with equal digits in a subgroup are counted once, by the highest
// such lane, with one shared-memory atomic (the renderer's keys share
// their top digits: per-key atomics would serialise on one bin).
// Writes counts[digit * blocks + block] and adds each digit's block count
// to totals[digit], which radix_scatter zeroes again after the scan.

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)

layout(location = 0) uniform uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 2) uniform uint block_count;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 5) buffer Totals { uint totals[]; };

#if SUBGROUP_SIZE > 32
#define mask_t uint64_t
#define BALLOT(b) ballotARB(b)
#define GT_MASK gl_SubGroupGtMaskARB
#define POPCOUNT(m) uint(bitCount(unpackUint2x32(m)).x + bitCount(unpackUint2x32(m)).y)
#else
#define mask_t uint
#define BALLOT(b) uint(ballotARB(b))
#define GT_MASK uint(gl_SubGroupGtMaskARB)
#define POPCOUNT(m) uint(bitCount(m))
#endif

shared uint histogram[RADIX];

// The lanes of this subgroup whose item is valid and has this digit
// (the AND over the digit's bits of the ballot or its complement).
// Every lane of the subgroup must call it: a ballot sees active lanes only.
mask_t match_digit(uint digit, bool valid)
{
    mask_t peers = BALLOT(valid);
    for (int bit = 0; bit < RADIX_BITS; bit++) {
        const bool set = ((digit >> bit) & 1u) != 0u;
        const mask_t votes = BALLOT(set);
        peers &= set ? votes : ~votes;
    }
    return peers;
}

void main()
{
    const uint local = gl_LocalInvocationIndex;
    const uint block = gl_WorkGroupID.x;
    for (uint digit = local; digit < RADIX; digit += THREADS)
        histogram[digit] = 0u;
    memoryBarrierShared();
    barrier();

    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = block * BLOCK + item * THREADS + local;
        const bool valid = index < key_count;
        const uint digit = valid ? bitfieldExtract(keys_in[index], int(shift), RADIX_BITS) : 0u;
        const mask_t peers = match_digit(digit, valid);
        if (valid && (peers & GT_MASK) == mask_t(0))
            atomicAdd(histogram[digit], POPCOUNT(peers));
    }
    memoryBarrierShared();
    barrier();

    for (uint digit = local; digit < RADIX; digit += THREADS) {
        const uint count = histogram[digit];
        counts[digit * block_count + block] = count;
        if (count != 0u)
            atomicAdd(totals[digit], count);
    }
}
