// SPDX-License-Identifier: MIT
// radix_count.comp.glsl — the first of the two dispatches of one 8-bit
// digit of gl_sort.c's LSD radix sort: the digit histogram of each block
// of BLOCK keys, and the sums radix_scatter builds its positions from.
//
// Prepended by gl_sort.c: #version, the subgroup extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, GROUP, SPANS, then
// radix_subgroup.glsl
// (match_digit and the mask macros).
// One workgroup per block; invocation t owns keys block * BLOCK + t +
// i * THREADS (i < ITEMS): consecutive invocations read consecutive words.
// Keys with equal digits in a subgroup are counted once, by the highest
// such lane, with one shared-memory atomic (the renderer's keys share
// their top digits: per-key atomics would serialise on one bin).
// Writes counts[block * RADIX + digit] and adds each digit's block count
// to three sums in this pass's half of sums[] (at `sums_base`, RADIX words
// a row): row 0, the digit's total; row 1 + block / (GROUP * GROUP), its
// span's (GROUP groups); row 1 + SPANS + block / GROUP, its group's (GROUP
// blocks). The half is zero before this dispatch (the previous pass's
// radix_scatter cleared it, or the sort's creation).

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)

layout(location = 0) uniform uint key_count_given;
// count_word >= 0: the pair count is word count_word of KeyCount, which
// the GPU wrote (ds_gl_sort_pairs_indirect), not key_count_given.
layout(location = 6) uniform int count_word;
layout(std430, binding = 6) readonly buffer KeyCount { uint key_count_words[]; };
uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 3) uniform uint sums_base;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 5) buffer Sums { uint sums[]; };

shared uint histogram[RADIX];

void main()
{
    key_count = count_word >= 0 ? key_count_words[count_word] : key_count_given;
    const uint local = gl_LocalInvocationIndex;
    const uint block = gl_WorkGroupID.x;
    for (uint digit = local; digit < RADIX; digit += THREADS)
        histogram[digit] = 0u;
    memoryBarrierShared();
    barrier();

    // Every load is issued before the first ballot waits on one.
    uint digits[ITEMS];
    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = block * BLOCK + item * THREADS + local;
        digits[item] = index < key_count ? bitfieldExtract(keys_in[index], int(shift), RADIX_BITS)
                                         : 0u;
    }
    for (uint item = 0u; item < ITEMS; item++) {
        const bool valid = block * BLOCK + item * THREADS + local < key_count;
        const uint digit = digits[item];
        const mask_t peers = match_digit(digit, valid);
        if (valid && (peers & GT_MASK) == mask_t(0))
            atomicAdd(histogram[digit], POPCOUNT(peers));
    }
    memoryBarrierShared();
    barrier();

    const uint span_base = sums_base + (1u + block / (GROUP * GROUP)) * RADIX;
    const uint group_base = sums_base + (1u + SPANS + block / GROUP) * RADIX;
    for (uint digit = local; digit < RADIX; digit += THREADS) {
        const uint count = histogram[digit];
        counts[block * RADIX + digit] = count;
        if (count != 0u) {
            atomicAdd(sums[sums_base + digit], count);
            atomicAdd(sums[span_base + digit], count);
            atomicAdd(sums[group_base + digit], count);
        }
    }
}
