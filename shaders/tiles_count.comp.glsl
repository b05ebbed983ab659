// SPDX-License-Identifier: MIT
// tiles_count.comp.glsl — the GL binning's first pass (gl_stages.c), as
// tiles.cu's k_tiles_count: workgroup b owns a contiguous chunk of the
// first `drawn` sorted positions (drawn: the cull's visible count, read
// here on the GPU, or all of them); it learns each position's tile
// rectangle from the sort value's tile code (stage_state.glsl), or for
// the several code (or without codes) from the keys pass's rectangle of
// the primitive, writes the keys pass's rectangle in sorted order when the
// scatter or verification needs it (without codes, or verifying), and
// counts its
// entries per tile in shared memory, into
// table[b * DS_TILES_MAX + tile], and adds them into its span's row of
// this binning's half of span_sums (zero before this dispatch: the
// previous binning's tiles_scatter cleared it, or the stages' creation).
//
// Prepended by gl_stages.c: #version, BIN_THREADS, BIN_GROUPS, BIN_SPAN,
// BIN_SPANS, DS_TILES_MAX.

layout(local_size_x = BIN_THREADS) in;

layout(location = 0) uniform uint count;
layout(location = 1) uniform int tiles;
layout(location = 2) uniform int columns;
layout(location = 3) uniform bool use_visible;
layout(location = 4) uniform uint parity;
layout(location = 5) uniform uint half_index;
layout(location = 6) uniform int value_shift;    // tile codes in the values (0: none)
layout(location = 7) uniform bool write_rects;   // rects[] in sorted order

layout(std430, binding = 3) readonly buffer Values { uint order[]; };
// binding 5: State (stage_state.glsl)
layout(std430, binding = 6) readonly buffer PrimitiveRects { uint primitive_rects[]; };
layout(std430, binding = 7) writeonly buffer Rects { uint rects[]; };

shared uint per_tile[DS_TILES_MAX];

void main()
{
    uint local = gl_LocalInvocationIndex, group = gl_WorkGroupID.x;
    for (int t = int(local); t < tiles; t += BIN_THREADS)
        per_tile[t] = 0u;
    barrier();
    // tiles.cu's chunk_of()
    uint n = min(use_visible ? state.visible[parity] : count, count);
    uint chunk = (n + uint(BIN_GROUPS) - 1u) / uint(BIN_GROUPS);
    uint end = min(chunk * group + chunk, n);
    uint begin = min(chunk * group, end);
    for (uint i = begin + local; i < end; i += uint(BIN_THREADS)) {
        uint value = order[i], r;
        uint primitive = tiles_value_primitive(value, value_shift);
        if (!tiles_code_rect(value, columns, value_shift, r))
            r = primitive_rects[primitive];
        // The copy holds the keys pass's rectangle (what the scatter needs
        // without codes, and what verification checks the codes against).
        if (write_rects)
            rects[i] = primitive_rects[primitive];
        int c0 = int(r & 0xFFu), c1 = int(r >> 8 & 0xFFu);
        int r0 = int(r >> 16 & 0xFFu), r1 = int(r >> 24);
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++)
                atomicAdd(per_tile[row * columns + column], 1u);
    }
    barrier();
    uint span_row = (half_index * uint(BIN_SPANS) + group / uint(BIN_SPAN)) * uint(DS_TILES_MAX);
    for (int t = int(local); t < tiles; t += BIN_THREADS) {
        uint entries = per_tile[t];
        state.table[group * uint(DS_TILES_MAX) + uint(t)] = entries;
        if (entries != 0u)
            atomicAdd(state.span_sums[span_row + uint(t)], entries);
    }
}
