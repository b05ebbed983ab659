// radix_scatter.comp.glsl — pass 3 of 3 of one 8-bit digit of gl_sort.c's
// LSD radix sort: moves each block's pairs to their sorted positions,
// stably.
//
// Prepended by gl_sort.c: #version, the subgroup extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, ROWS (= THREADS / SUBGROUP_SIZE),
// then radix_subgroup.glsl (match_digit and the mask macros) and
// radix_workgroup_scan.glsl (SCAN_THREADS = THREADS).
// One workgroup per block of BLOCK pairs. Subgroup s owns the block's
// segment [s * SEGMENT, (s + 1) * SEGMENT), SEGMENT = SUBGROUP_SIZE *
// ITEMS; lane l's item i is the segment's pair i * SUBGROUP_SIZE + l, so
// each load is one contiguous run per subgroup and the items, taken
// round by round (i) and lane by lane within a round, come in input order.
//
// A pair's output position is
//   counts[d * blocks + block]          (radix_scan: where this block's
//                                        digit d goes)
//   + pairs of digit d in earlier subgroups of the block
//   + pairs of digit d earlier in this subgroup's segment,
// which is the stable order. The last term is the subgroup's running count
// of digit d before this round (rows[s][d], shared memory) plus the lanes
// below with the same digit this round (match_digit, then bitCount below
// the lane). The highest lane of each digit adds the round's count to
// rows[s][d]:
//  - KHR form: with an atomic, whose old value it shuffles to the digit's
//    other lanes, as CUB's BlockRadixRankMatch does. No barrier between
//    rounds: the next round's atomic on the same counter comes after this
//    round's shuffle, which needs this one's result. (NVIDIA compiles
//    subgroupBarrier() to a device-wide memory barrier, which costs more
//    than the workgroup barriers below.)
//  - ARB form (no shuffle, no subgroup barrier): every lane reads rows,
//    the workgroup meets at a barrier, the highest lane writes the new
//    count, and the workgroup meets again.
//
// The pairs are then staged in shared memory in the block's sorted order
// and written out by consecutive invocations: a digit's pairs of a block
// go to consecutive addresses, so the global writes come in runs instead
// of one word per lane.
//
// Workgroup 0 also zeroes totals[] for the next pass's radix_count: this
// pass's radix_scan, the last reader, has finished (barrier before this
// dispatch).

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)
#define SEGMENT (SUBGROUP_SIZE * ITEMS)
#define DIGITS_PER_INVOCATION (RADIX / THREADS)
#define STAGE_WORDS (ROWS * RADIX > BLOCK ? ROWS * RADIX : BLOCK)

layout(location = 0) uniform uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 2) uniform uint block_count;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 4) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 5) writeonly buffer Totals { uint totals[]; };

// rows[s * RADIX + d] while ranking; then the block's keys, later its
// values, in sorted order.
shared uint stage[STAGE_WORDS];
// Where digit d starts within the block's sorted order.
shared uint digit_local[RADIX];
// Output position of the block's j-th sorted pair of digit d, minus j.
shared uint digit_global[RADIX];

void main()
{
    const uint local = gl_LocalInvocationIndex;
    const uint block = gl_WorkGroupID.x;
    // radix_probe checked at creation that subgroups are aligned ranges of
    // gl_LocalInvocationIndex.
    const uint subgroup = local / SUBGROUP_SIZE;
    const uint lane = local % SUBGROUP_SIZE;
    const uint row = subgroup * RADIX;

    for (uint word = local; word < ROWS * RADIX; word += THREADS)
        stage[word] = 0u;
    if (block == 0u)
        for (uint digit = local; digit < RADIX; digit += THREADS)
            totals[digit] = 0u;

    const uint first = block * BLOCK + subgroup * SEGMENT + lane;
    uint keys[ITEMS];
    uint values[ITEMS];
    uint ranks[ITEMS];
    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = first + item * SUBGROUP_SIZE;
        keys[item] = index < key_count ? keys_in[index] : 0u;
        values[item] = index < key_count ? values_in[index] : 0u;
    }
    memoryBarrierShared();
    barrier();

    // Rank within the subgroup's segment, round by round.
    for (uint item = 0u; item < ITEMS; item++) {
        const bool valid = first + item * SUBGROUP_SIZE < key_count;
        const uint digit = bitfieldExtract(keys[item], int(shift), RADIX_BITS);
        const mask_t peers = match_digit(digit, valid);
        const bool highest = valid && (peers & GT_MASK) == mask_t(0);
#if SUBGROUP_KHR
        uint earlier = 0u;
        if (highest)
            earlier = atomicAdd(stage[row + digit], POPCOUNT(peers));
        // Invalid lanes read their own zero.
        earlier = subgroupShuffle(earlier, valid ? uint(findMSB(peers)) : lane);
        ranks[item] = earlier + POPCOUNT(peers & LT_MASK);
#else
        const uint earlier = valid ? stage[row + digit] : 0u;
        ranks[item] = earlier + POPCOUNT(peers & LT_MASK);
        // Every lane has read rows before the highest lane of a digit
        // updates it.
        memoryBarrierShared();
        barrier();
        if (highest)
            stage[row + digit] = earlier + POPCOUNT(peers);
        // The update is seen by the next round's reads.
        memoryBarrierShared();
        barrier();
#endif
    }
    // Every subgroup's row is complete before the rows are summed below.
    memoryBarrierShared();
    barrier();

    // rows[s][d] becomes the count of digit d in subgroups before s; the
    // block's digit totals are scanned into digit_local.
    uint digit_totals[DIGITS_PER_INVOCATION];
    uint own_total = 0u;
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        const uint digit = local * DIGITS_PER_INVOCATION + k;
        uint running = 0u;
        for (uint r = 0u; r < ROWS; r++) {
            const uint count = stage[r * RADIX + digit];
            stage[r * RADIX + digit] = running;
            running += count;
        }
        digit_totals[k] = running;
        own_total += running;
    }
    uint block_total;
    uint start = workgroup_exclusive_scan(own_total, block_total);
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        const uint digit = local * DIGITS_PER_INVOCATION + k;
        digit_local[digit] = start;
        digit_global[digit] = counts[digit * block_count + block] - start;
        start += digit_totals[k];
    }
    // rows, digit_local and digit_global are complete.
    memoryBarrierShared();
    barrier();

    for (uint item = 0u; item < ITEMS; item++) {
        const uint digit = bitfieldExtract(keys[item], int(shift), RADIX_BITS);
        ranks[item] += stage[row + digit] + digit_local[digit];
    }
    // Every invocation has read rows before stage holds keys.
    barrier();

    const uint block_pairs = min(key_count - block * BLOCK, uint(BLOCK));
    for (uint item = 0u; item < ITEMS; item++)
        if (first + item * SUBGROUP_SIZE < key_count)
            stage[ranks[item]] = keys[item];
    memoryBarrierShared();
    barrier();
    uint destinations[ITEMS];
    for (uint item = 0u; item < ITEMS; item++) {
        const uint sorted = item * THREADS + local;
        if (sorted < block_pairs) {
            const uint key = stage[sorted];
            destinations[item] = digit_global[bitfieldExtract(key, int(shift), RADIX_BITS)] + sorted;
            keys_out[destinations[item]] = key;
        }
    }
    // Every invocation has read the staged keys before stage holds values.
    barrier();
    for (uint item = 0u; item < ITEMS; item++)
        if (first + item * SUBGROUP_SIZE < key_count)
            stage[ranks[item]] = values[item];
    memoryBarrierShared();
    barrier();
    for (uint item = 0u; item < ITEMS; item++) {
        const uint sorted = item * THREADS + local;
        if (sorted < block_pairs)
            values_out[destinations[item]] = stage[sorted];
    }
}
