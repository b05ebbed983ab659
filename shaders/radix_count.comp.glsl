// radix_count.comp.glsl — pass 1 of 3 of one 8-bit digit of gl_sort.c's
// LSD radix sort: the digit histogram of each block of BLOCK keys.
//
// Prepended by gl_sort.c: #version, the subgroup extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, then radix_subgroup.glsl
// (match_digit and the mask macros).
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

shared uint histogram[RADIX];

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
