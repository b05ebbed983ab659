// radix_onesweep.comp.glsl — one 8-bit digit pass of gl_sort.c's onesweep
// form, in one dispatch (Adinets and Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022): each block ranks its
// pairs, learns where its digits go by a decoupled look-back over the
// blocks before it (Merrill and Garland, "Single-pass Parallel Prefix Scan
// with Decoupled Look-back", 2016), and scatters.
//
// Prepended by gl_sort.c: #version, the ballot extensions, RADIX_BITS,
// RADIX, THREADS, ITEMS, SUBGROUP_SIZE, ROWS (= THREADS / SUBGROUP_SIZE),
// MAX_PASSES, HISTOGRAM_WORDS, TICKETS.
//
// Block order. A workgroup's block is not gl_WorkGroupID but a ticket
// (atomicAdd on state[TICKETS + pass], zeroed by radix_histogram): every
// lower block belongs to a workgroup that has started, so waiting on it
// cannot wait on a workgroup that the GPU (or llvmpipe's thread pool) has
// not scheduled.
//
// Ranking and scatter are radix_scatter's (see there): subgroup s owns
// the block's segment [s * SEGMENT, (s + 1) * SEGMENT); stable ranks from
// ballots and per-subgroup rows of digit counts; the block staged in
// shared memory in sorted order and written out in runs.
//
// Where the block's digit d goes:
//   digit_start[d]   the exclusive scan over digits of this pass's
//                    totals in state[histogram_base + pass * RADIX + d]
//                    (radix_histogram), computed by every workgroup;
//   + prefix(b, d)   the pairs of digit d in blocks before b.
// Look-back word (b, d) of the pass's region packs a status in its top
// two bits and a count in the other 30 (the sort holds fewer than 2^30
// pairs): 0 = nothing yet, AGGREGATE = block b's count of d, INCLUSIVE =
// prefix(b, d) + that count. One atomic exchange publishes status and
// count together, one atomic read (atomicOr with 0) reads them together,
// so no separate data read has to be ordered after the flag. Block b
// publishes its aggregate as soon as it has ranked, then walks back from
// b - 1 adding aggregates until an inclusive word, then publishes its own
// inclusive. Invocation t does the digits t * DIGITS_PER_INVOCATION + k.
//
// Not for Mesa's llvmpipe with more than one thread: it ends any
// shader's loops after 65535 iterations in all, so a spin on a block whose
// thread has been descheduled can end early, with a wrong prefix
// (gl_sort.c picks the other form there).
//
// Resets without host work: the pass uses look-back region pass % 2 and
// zeroes its own block's row of the other region for the next pass
// (every reader of that region, the pass before, has finished; region 0
// for the first pass is zeroed by radix_histogram). In the first pass
// block 0 zeroes the other histogram half (histogram_base alternates
// between sorts), which the next sort's radix_histogram adds into; its
// last readers, the previous sort's passes, have finished.

layout(local_size_x = THREADS) in;

#define BLOCK (THREADS * ITEMS)
#define SEGMENT (SUBGROUP_SIZE * ITEMS)
#define DIGITS_PER_INVOCATION (RADIX / THREADS)
#define STAGE_WORDS (ROWS * RADIX > BLOCK ? ROWS * RADIX : BLOCK)
#define AGGREGATE 0x40000000u
#define INCLUSIVE 0x80000000u
#define STATUS_MASK 0xC0000000u
#define COUNT_MASK 0x3FFFFFFFu

layout(location = 0) uniform uint key_count;
layout(location = 1) uniform uint shift;
layout(location = 2) uniform uint block_count;
layout(location = 3) uniform uint pass;
layout(location = 4) uniform uint histogram_base;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 4) coherent buffer State { uint state[]; };
layout(std430, binding = 5) coherent buffer LookBack { uint look_back[]; };

#if SUBGROUP_SIZE > 32
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

// The workgroup's block (its ticket).
shared uint ticket;
// rows[s * RADIX + d] while ranking; then the block's keys, later its
// values, in sorted order.
shared uint stage[STAGE_WORDS];
// Where digit d starts within the block's sorted order.
shared uint digit_local[RADIX];
// Output position of the block's j-th sorted pair of digit d, minus j.
shared uint digit_global[RADIX];
shared uint scan_buffer[2 * THREADS];

// The lanes of this subgroup whose item is valid and has this digit.
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

// Exclusive prefix sum of `value` over the workgroup's invocations
// (Hillis and Steele, ping-ponging between the halves of scan_buffer).
uint workgroup_exclusive_scan(uint value)
{
    const uint local = gl_LocalInvocationIndex;
    uint source = 0u;
    scan_buffer[local] = value;
    memoryBarrierShared();
    barrier();
    for (uint offset = 1u; offset < THREADS; offset <<= 1) {
        uint sum = scan_buffer[source + local];
        if (local >= offset)
            sum += scan_buffer[source + local - offset];
        source ^= uint(THREADS);
        scan_buffer[source + local] = sum;
        memoryBarrierShared();
        barrier();
    }
    const uint inclusive = scan_buffer[source + local];
    barrier();
    return inclusive - value;
}

void main()
{
    const uint local = gl_LocalInvocationIndex;
    // radix_probe checked at creation that subgroups are aligned ranges of
    // gl_LocalInvocationIndex.
    const uint subgroup = local / SUBGROUP_SIZE;
    const uint lane = local % SUBGROUP_SIZE;
    const uint row = subgroup * RADIX;

    if (local == 0u)
        ticket = atomicAdd(state[TICKETS + pass], 1u);
    for (uint word = local; word < ROWS * RADIX; word += THREADS)
        stage[word] = 0u;
    memoryBarrierShared();
    barrier();
    const uint block = ticket;
    const uint region = (pass & 1u) * block_count * RADIX;
    const uint next_region = ((pass + 1u) & 1u) * block_count * RADIX;
    for (uint digit = local; digit < RADIX; digit += THREADS)
        look_back[next_region + block * RADIX + digit] = 0u;
    if (pass == 0u && block == 0u)
        for (uint word = local; word < HISTOGRAM_WORDS; word += THREADS)
            state[(HISTOGRAM_WORDS - histogram_base) + word] = 0u;

    const uint first = block * BLOCK + subgroup * SEGMENT + lane;
    uint keys[ITEMS];
    uint values[ITEMS];
    uint ranks[ITEMS];
    for (uint item = 0u; item < ITEMS; item++) {
        const uint index = first + item * SUBGROUP_SIZE;
        keys[item] = index < key_count ? keys_in[index] : 0u;
        values[item] = index < key_count ? values_in[index] : 0u;
    }

    // Rank within the subgroup's segment, round by round.
    for (uint item = 0u; item < ITEMS; item++) {
        const bool valid = first + item * SUBGROUP_SIZE < key_count;
        const uint digit = bitfieldExtract(keys[item], int(shift), RADIX_BITS);
        const mask_t peers = match_digit(digit, valid);
        const uint earlier = valid ? stage[row + digit] : 0u;
        ranks[item] = earlier + POPCOUNT(peers & LT_MASK);
        // Every lane has read rows before the highest lane of a digit
        // updates it.
        memoryBarrierShared();
        barrier();
        if (valid && (peers & GT_MASK) == mask_t(0))
            stage[row + digit] = earlier + POPCOUNT(peers);
        // The update is seen by the next round's reads.
        memoryBarrierShared();
        barrier();
    }

    // rows[s][d] becomes the count of digit d in subgroups before s; the
    // block's digit counts are published, then scanned into digit_local.
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
        atomicExchange(look_back[region + block * RADIX + digit],
                       (block == 0u ? INCLUSIVE : AGGREGATE) | running);
    }
    const uint local_start = workgroup_exclusive_scan(own_total);

    // The pass's digit starts: the scan of its totals over the digits.
    uint totals[DIGITS_PER_INVOCATION];
    uint own_sum = 0u;
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        totals[k] = state[histogram_base + pass * RADIX + local * DIGITS_PER_INVOCATION + k];
        own_sum += totals[k];
    }
    uint digit_start = workgroup_exclusive_scan(own_sum);

    uint start = local_start;
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; k++) {
        const uint digit = local * DIGITS_PER_INVOCATION + k;
        // The decoupled look-back: prefix(block, digit).
        uint prefix = 0u;
        if (block != 0u) {
            uint other = block - 1u;
            for (;;) {
                const uint word = atomicOr(look_back[region + other * RADIX + digit], 0u);
                const uint status = word & STATUS_MASK;
                if (status != 0u) {
                    prefix += word & COUNT_MASK;
                    if (status == INCLUSIVE)
                        break;
                    other--;
                }
            }
            atomicExchange(look_back[region + block * RADIX + digit],
                           INCLUSIVE | (prefix + digit_totals[k]));
        }
        digit_local[digit] = start;
        digit_global[digit] = digit_start + prefix - start;
        start += digit_totals[k];
        digit_start += totals[k];
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
