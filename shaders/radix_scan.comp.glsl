// radix_scan.comp.glsl — pass 2 of 3 of one digit of gl_sort.c's radix
// sort: turns the block histograms into output positions.
//
// Prepended by gl_sort.c: #version, RADIX, SCAN_THREADS, then
// radix_workgroup_scan.glsl (workgroup_exclusive_scan).
// One workgroup per digit d. The digit's first output position is the sum
// of totals[d'] for d' < d; then counts[d * blocks + b] becomes that
// position plus the counts of digit d in blocks before b (an exclusive
// scan along the digit's row). Invocation t owns totals [t * m, t * m + m),
// m = RADIX / SCAN_THREADS, and the row's entries [t * k, t * k + k), k =
// ceil(blocks / SCAN_THREADS): serial sums, then one workgroup scan each.

layout(local_size_x = SCAN_THREADS) in;

#define TOTALS_PER_INVOCATION (RADIX / SCAN_THREADS)

layout(location = 2) uniform uint block_count;

layout(std430, binding = 4) buffer Counts { uint counts[]; };
layout(std430, binding = 5) readonly buffer Totals { uint totals[]; };

void main()
{
    const uint local = gl_LocalInvocationIndex;
    const uint digit = gl_WorkGroupID.x;

    uint below = 0u;
    for (uint k = 0u; k < TOTALS_PER_INVOCATION; k++) {
        const uint other = local * TOTALS_PER_INVOCATION + k;
        if (other < digit)
            below += totals[other];
    }
    uint digit_start;
    workgroup_exclusive_scan(below, digit_start);

    const uint row = digit * block_count;
    const uint per_invocation = (block_count + SCAN_THREADS - 1u) / SCAN_THREADS;
    const uint first = min(local * per_invocation, block_count);
    const uint end = min(first + per_invocation, block_count);
    uint own = 0u;
    for (uint block = first; block < end; block++)
        own += counts[row + block];
    uint row_sum;
    uint position = workgroup_exclusive_scan(own, row_sum) + digit_start;
    for (uint block = first; block < end; block++) {
        const uint count = counts[row + block];
        counts[row + block] = position;
        position += count;
    }
}
