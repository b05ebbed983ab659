// SPDX-License-Identifier: MIT
// radix_scatter.comp.glsl — the second of the two dispatches of one 8-bit
// digit of gl_sort.c's LSD radix sort: moves each block's pairs to their
// sorted positions, stably.
//
// Prepended by gl_sort.c: #version, the subgroup extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, ROWS (= THREADS / SUBGROUP_SIZE),
// GROUP, SPANS, SUMS_WORDS, then radix_subgroup.glsl (match_digit and the
// mask macros) and radix_workgroup_scan.glsl (SCAN_THREADS = THREADS).
// One workgroup per block of BLOCK pairs. Subgroup s owns the block's
// segment [s * SEGMENT, (s + 1) * SEGMENT), SEGMENT = SUBGROUP_SIZE *
// ITEMS; lane l's item i is the segment's pair i * SUBGROUP_SIZE + l, so
// each load is one contiguous run per subgroup and the items, taken
// round by round (i) and lane by lane within a round, come in input order.
//
// A pair's output position is
//   pairs of digits below d                   (the exclusive scan of the
//                                              digit totals)
//   + pairs of digit d in earlier blocks      (see below)
//   + pairs of digit d in earlier subgroups of the block
//   + pairs of digit d earlier in this subgroup's segment,
// which is the stable order. radix_count left, in this pass's half of
// sums[] (at sums_base), each digit's total and its sums over each group
// of GROUP consecutive blocks and each span of GROUP groups, and each
// block's own counts in counts[]. The second term is then the sums of the
// spans before this block's span, of the groups before its group in the
// span and of the blocks before it in the group: at most
// blocks / GROUP^2 + 2 (GROUP - 1) rows of RADIX words, each an
// independent load. The workgroup reads them as 16-byte words, PHASES
// invocations per four digits, each taking every PHASES-th row, four
// loads in flight at a time; the partial sums meet in shared memory. A
// separate scan dispatch per pass would cost more (gl-radix.md).
//
// The last term is the subgroup's running count of digit d before this
// round (rows[s][d], shared memory) plus the lanes below with the same
// digit this round (match_digit, then bitCount below the lane). The
// highest lane of each digit adds the round's count to rows[s][d]:
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
// The workgroups also zero the other half of sums[] (at clear_base), which
// the next pass's radix_count adds into: its last reader, the previous
// pass's radix_scatter, has finished (barrier before this dispatch).

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)
#define SEGMENT (SUBGROUP_SIZE * ITEMS)
#define DIGITS_PER_INVOCATION (RADIX / THREADS)
#define QUADS (RADIX / 4)
#define PHASES (THREADS / QUADS)
#define STAGE_WORDS (ROWS * RADIX > BLOCK ? ROWS * RADIX : BLOCK)

layout(location = 0) uniform uint key_count_given;
// count_word >= 0: the pair count is word count_word of KeyCount, which
// the GPU wrote (ds_gl_sort_pairs_indirect), not key_count_given.
layout(location = 6) uniform int count_word;
layout(std430, binding = 6) readonly buffer KeyCount { uint key_count_words[]; };
uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 3) uniform uint sums_base;
layout(location = 4) uniform uint clear_base;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 4) readonly buffer Counts { uvec4 counts4[]; };
layout(std430, binding = 5) buffer Sums { uvec4 sums4[]; };

// rows[s * RADIX + d] while ranking; then the block's keys, later its
// values, in sorted order.
shared uint stage[STAGE_WORDS];
// Where digit d starts within the block's sorted order.
shared uint digit_local[RADIX];
// Output position of the block's j-th sorted pair of digit d, minus j.
shared uint digit_global[RADIX];

void main()
{
    key_count = count_word >= 0 ? key_count_words[count_word] : key_count_given;
    const uint local = gl_LocalInvocationIndex;
    const uint block = gl_WorkGroupID.x;
    // radix_probe checked at creation that subgroups are aligned ranges of
    // gl_LocalInvocationIndex.
    const uint subgroup = local / SUBGROUP_SIZE;
    const uint lane = local % SUBGROUP_SIZE;
    const uint row = subgroup * RADIX;

    for (uint word = local; word < ROWS * RADIX; word += THREADS)
        stage[word] = 0u;
    for (uint word = local; word < RADIX; word += THREADS)
        digit_global[word] = 0u;
    for (uint quad = block * THREADS + local; quad < SUMS_WORDS / 4u;
         quad += gl_NumWorkGroups.x * THREADS)
        sums4[clear_base / 4u + quad] = uvec4(0u);

    const uint first = block * BLOCK + subgroup * SEGMENT + lane;
    uint keys[ITEMS];
    uint values[ITEMS];
    uint ranks[ITEMS];
    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = first + item * SUBGROUP_SIZE;
        keys[item] = index < key_count ? keys_in[index] : 0u;
        values[item] = index < key_count ? values_in[index] : 0u;
    }
    // Each owned digit's total, and this invocation's share of the rows
    // before the block (row j < spans: span j's sums; then the groups of
    // the block's span before its group; then the blocks of its group
    // before it), added into digit_global; issued after the pairs' loads
    // and done with before the ranking, which then has the registers.
    uint digit_totals_all[DIGITS_PER_INVOCATION];
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        const uint digit = local * DIGITS_PER_INVOCATION + k;
        const uint quad = (sums_base + digit) / 4u;
        digit_totals_all[k] = sums4[quad][digit % 4u];
    }
    const uint group = block / GROUP, span = group / GROUP;
    const uint groups_end = group - span * GROUP + span;  // rows [span, groups_end)
    const uint rows_before = groups_end + block - group * GROUP;
    const uint quad = local % QUADS;
    // Row j's 16-byte word, each range's first row at its j.
    const uint span_row = sums_base / 4u + QUADS + quad;
    const uint group_row = span_row + (SPANS + span * GROUP - span) * QUADS;
    const uint block_row = (group * GROUP - groups_end) * QUADS + quad;
    uvec4 before[4] = uvec4[4](uvec4(0u), uvec4(0u), uvec4(0u), uvec4(0u));
    for (uint j = local / QUADS; j < rows_before; j += 4u * PHASES)
        for (uint u = 0u; u < 4u; u++) {
            const uint row = j + u * PHASES;
            if (row < rows_before)
                before[u] += row < span        ? sums4[span_row + row * QUADS]
                             : row < groups_end ? sums4[group_row + row * QUADS]
                                                : counts4[block_row + row * QUADS];
        }
    // digit_global was zeroed before the barrier below: the shares are
    // added after it.
    memoryBarrierShared();
    barrier();
    const uvec4 rows_sum = before[0] + before[1] + before[2] + before[3];
    for (uint c = 0u; c < 4u; c++)
        if (rows_sum[c] != 0u)
            atomicAdd(digit_global[quad * 4u + c], rows_sum[c]);

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
    // Every subgroup's row is complete before the rows are summed below,
    // and every share of the earlier blocks' counts is in digit_global.
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
    uint own_all = 0u;
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++)
        own_all += digit_totals_all[k];
    uint all_total;
    uint global_start = workgroup_exclusive_scan(own_all, all_total);
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        const uint digit = local * DIGITS_PER_INVOCATION + k;
        digit_local[digit] = start;
        digit_global[digit] = global_start + digit_global[digit] - start;
        start += digit_totals[k];
        global_start += digit_totals_all[k];
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
