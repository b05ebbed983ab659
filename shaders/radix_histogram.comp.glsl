// radix_histogram.comp.glsl — the first dispatch of gl_sort.c's onesweep
// form: the digit histograms of every pass at once (Adinets and Merrill,
// "Onesweep", 2022), and the reset of the scatters' counters.
//
// Prepended by gl_sort.c: #version, the ballot extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, MAX_PASSES, and the state buffer's
// layout (HISTOGRAM_WORDS, TICKETS).
// One workgroup per block of BLOCK keys; invocation t owns keys block *
// BLOCK + t + i * THREADS (i < ITEMS): consecutive invocations read
// consecutive words. For pass p < passes, digit d of the keys is counted
// in shared memory, then added into state[histogram_base + p * RADIX + d]
// (zeroed by the previous sort's radix_onesweep, see there). A subgroup
// whose keys all share a digit adds it with one atomic (the renderer's
// keys share their top digits: per-key atomics would serialise on one
// bin).
// Also: workgroup 0 zeroes the passes' block tickets, and workgroup b
// zeroes row b of look-back region 0, which the first scatter uses (the
// previous sort's scatters, the last users of both, have finished: the
// host's barrier before this dispatch).

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)

layout(location = 0) uniform uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 2) uniform uint block_count;
layout(location = 3) uniform uint passes;
layout(location = 4) uniform uint histogram_base;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 4) coherent buffer State { uint state[]; };
layout(std430, binding = 5) writeonly buffer LookBack { uint look_back[]; };

shared uint histogram[MAX_PASSES * RADIX];

void main()
{
    const uint local = gl_LocalInvocationIndex;
    const uint block = gl_WorkGroupID.x;
    for (uint word = local; word < MAX_PASSES * RADIX; word += THREADS)
        histogram[word] = 0u;
    if (block == 0u && local < MAX_PASSES)
        state[TICKETS + local] = 0u;
    for (uint digit = local; digit < RADIX; digit += THREADS)
        look_back[block * RADIX + digit] = 0u;
    memoryBarrierShared();
    barrier();

    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = block * BLOCK + item * THREADS + local;
        const bool valid = index < key_count;
        const uint key = valid ? keys_in[index] : 0u;
        const uint64_t lanes = ballotARB(true);
        for (uint pass = 0u; pass < passes; pass++) {
            const uint digit = bitfieldExtract(key, int(shift + pass * RADIX_BITS), RADIX_BITS);
            const uint first = readFirstInvocationARB(digit);
            // Every lane is active (radix_probe) and valid, with one digit.
            if (ballotARB(valid && digit == first) == lanes) {
                if (gl_SubGroupInvocationARB == 0u)
                    atomicAdd(histogram[pass * RADIX + first], uint(SUBGROUP_SIZE));
            } else if (valid) {
                atomicAdd(histogram[pass * RADIX + digit], 1u);
            }
        }
    }
    memoryBarrierShared();
    barrier();

    for (uint word = local; word < passes * RADIX; word += THREADS) {
        const uint count = histogram[word];
        if (count != 0u)
            atomicAdd(state[histogram_base + word], count);
    }
}
