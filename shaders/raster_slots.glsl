// SPDX-License-Identifier: MIT
// raster_slots.glsl — where the compute raster's fragment passes put their
// fragments (compute_raster.c compiles it after raster_setup.glsl, before
// raster_fragments.comp.glsl for triangles or raster_points.comp.glsl for
// points, under their EMIT and LARGE defines): the buffers they share, each
// primitive's first slot, and the emit of one fragment.
//
// The count passes keep each primitive's covered pixels and add them to
// its chunk's sum (RASTER_THREADS primitives, the small count's workgroup)
// and its block's (BLOCK_CHUNKS chunks); the plan (raster_plan.glsl, in the
// large count's last workgroup) scans the blocks' sums into their first
// slots and the frame's total. The emit then finds a
// primitive's first slot itself: its block's start, plus the chunks before
// it in the block, plus the primitives before it in the chunk. No dispatch
// of its own scans the primitives' counts (each would be a step the whole
// frame waits for).

layout(local_size_x = RASTER_THREADS) in;

layout(std430, binding = 4) buffer TriangleFragments { uint triangle_fragments[]; };
// [0, blocks) the blocks' sums (zero before the count passes: the emit
// zeroes them after the plan read them), [blocks, 2 blocks) their first
// slots (the plan's), then the chunks' sums. Coherent in the counts: the
// large count's last workgroup reads the sums the others added.
#if EMIT
layout(std430, binding = 5) buffer TriangleSums { uint triangle_sums[]; };
#else
layout(std430, binding = 5) coherent buffer TriangleSums { uint triangle_sums[]; };
#endif
// [0] the frame's fragments (the plan writes it), [1] large primitives
// listed, [2] the pixels' total, [3..10] the plan's words, [11] the large
// count's workgroups done, then the list.
layout(std430, binding = 6) buffer State { uint state[]; };
layout(std430, binding = 7) writeonly buffer FragmentKeys { uint fragment_keys[]; };
layout(std430, binding = 8) writeonly buffer FragmentValues { uint fragment_values[]; };
// (pixel, RGBA8)
layout(std430, binding = 9) writeonly buffer Fragments { uvec2 fragments[]; };
layout(std430, binding = 10) buffer PixelCounts { uint pixel_counts[]; };

layout(location = 11) uniform bool fragment_order;
layout(location = 13) uniform uint capacity;     // fragments the buffers hold
layout(location = 14) uniform bool float_keys;   // for a caller's descending float sort
layout(location = 15) uniform uint blocks;       // ceil(primitives / BLOCK)
// Fragment order with the GL sort: (base, top) narrows the keys to the
// float steps of 1 / w above base (distance_math.h's ds_key_narrow:
// every 1 / w of the frame lies in (base, base + top]), so that they fit
// 24 or 16 bits; top 0: full keys.
layout(location = 19) uniform uvec2 depth_keys;

const uint STATE_TOTAL = 0u, STATE_LARGE = 1u, STATE_LIST = 12u;
const uint BLOCK_CHUNKS = RASTER_BLOCK_CHUNKS;
const uint BLOCK = BLOCK_CHUNKS * RASTER_THREADS;

#if !EMIT

// Adds a large primitive's count to its chunk's and block's sums (the
// small count wrote the chunk's).
void add_to_sums(uint i, uint count)
{
    if (count == 0u)
        return;
    atomicAdd(triangle_sums[2u * blocks + i / RASTER_THREADS], count);
    atomicAdd(triangle_sums[i / BLOCK], count);
}

#if !LARGE
shared uint chunk_sum;

// The small count's workgroup: count_chunk_begin() before any
// count_chunk_add() of a primitive's covered pixels, count_chunk_end()
// after, each by the whole workgroup: the chunk's sum and its share of
// its block's.
void count_chunk_begin()
{
    if (gl_LocalInvocationID.x == 0u)
        chunk_sum = 0u;
    barrier();
}

void count_chunk_add(uint covered)
{
    if (covered != 0u)
        atomicAdd(chunk_sum, covered);
}

void count_chunk_end(uint chunk)
{
    barrier();
    if (gl_LocalInvocationID.x == 0u && chunk * RASTER_THREADS < triangle_count) {
        triangle_sums[2u * blocks + chunk] = chunk_sum;
        if (chunk_sum != 0u)
            atomicAdd(triangle_sums[chunk / BLOCK_CHUNKS], chunk_sum);
    }
}
#endif

#else

// Fragment f = slot (triangle order) or total - 1 - slot (fragment order:
// the higher primitive first at equal depth, as the A-buffer orders
// them), its key, its pixel and colour, and a count on its pixel. The
// fragment-order key comes from inv_w, the fragment's 1 / w (positive:
// the near plane is clipped), far first: the GL sort's ascending keys
// are its bits (positive floats order as their bits), or those steps
// above base when narrowed; a caller's sort, which orders floats
// descending, gets the float whose bits are 0x7F7FFFFF - its bits (a
// positive normal float for any 1 / w the camera gives, in the reverse
// order).
void emit(uint slot, ivec2 q, float inv_w, uint color, uint rank)
{
    uint f = fragment_order ? state[STATE_TOTAL] - 1u - slot : slot;
    if (f >= capacity)
        return; // an overflow: raster_plan keeps the first `capacity`
    uint pixel = uint(q.y) * uint(viewport.x) + uint(q.x);
    uint bits = floatBitsToUint(inv_w);
    uint key;
    if (!fragment_order) {
        key = rank;
    } else if (float_keys) {
        key = 0x7F7FFFFFu - bits;
    } else if (depth_keys.y == 0u) {
        key = bits;
    } else {
        // The steps above base, clamped to [1, top] as ds_narrow_key
        // clamps (a sound bound never needs it).
        uint steps = bits > depth_keys.x ? bits - depth_keys.x : 1u;
        key = min(steps, depth_keys.y);
    }
    fragment_keys[f] = key;
    fragment_values[f] = f;
    fragments[f] = uvec2(pixel, color);
    atomicAdd(pixel_counts[pixel], 1u);
}

shared uint chunk_base;

// The first slot of chunk `chunk`, into chunk_base: its block's start plus
// the chunks before it in the block, each invocation adding one of them.
// The whole workgroup calls it; chunk_base is complete on return.
void find_chunk_base(uint chunk)
{
    uint local = gl_LocalInvocationID.x;
    uint block = chunk / BLOCK_CHUNKS;
    if (local == 0u)
        chunk_base = triangle_sums[blocks + block];
    barrier();
    if (local < chunk % BLOCK_CHUNKS) {
        uint sum = triangle_sums[2u * blocks + block * BLOCK_CHUNKS + local];
        if (sum != 0u)
            atomicAdd(chunk_base, sum);
    }
    barrier();
}

#if !LARGE
// The first slot of primitive i, invocation i % RASTER_THREADS of the
// small emit's workgroup for chunk `chunk` (i past the last primitive:
// valid false). The whole workgroup calls it. It also zeroes the blocks'
// sums, which the plan, their only reader, has read, for the next frame's
// count passes.
uint small_first_slot(uint chunk, uint i, bool valid)
{
    if (i < blocks)
        triangle_sums[i] = 0u;
    find_chunk_base(chunk);
    // The chunk's first slot plus the counts of the primitives before it
    // in the chunk (radix_workgroup_scan.glsl).
    uint chunk_total;
    return chunk_base + workgroup_exclusive_scan(valid ? triangle_fragments[i] : 0u, chunk_total);
}
#else
shared uint primitive_base;

// The first slot of large primitive i, for the whole workgroup, which
// calls it: its chunk's, plus the primitives before it in the chunk, each
// invocation adding one.
uint large_first_slot(uint i)
{
    uint local = gl_LocalInvocationID.x;
    find_chunk_base(i / RASTER_THREADS);
    if (local == 0u)
        primitive_base = chunk_base;
    barrier();
    if (local < i % RASTER_THREADS) {
        uint before = triangle_fragments[i - i % RASTER_THREADS + local];
        if (before != 0u)
            atomicAdd(primitive_base, before);
    }
    barrier();
    uint base = primitive_base;
    // Every invocation has read primitive_base before the next call
    // writes it.
    barrier();
    return base;
}
#endif

#endif
