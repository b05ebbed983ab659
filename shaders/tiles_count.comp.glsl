// tiles_count.comp.glsl — the GL binning's first pass (gl_stages.c), as
// tiles.cu's k_tiles_count: workgroup b owns a contiguous chunk of the
// first `drawn` sorted positions (drawn: the cull's visible count, read
// here on the GPU, or all of them); it copies each position's tile
// rectangle (the keys pass stored one per primitive) into sorted order and
// counts its entries per tile in shared memory, into
// table[tile * BIN_GROUPS + b].
//
// Prepended by gl_stages.c: #version, BIN_THREADS, BIN_GROUPS, DS_TILES_MAX.

layout(local_size_x = BIN_THREADS) in;

layout(location = 0) uniform uint count;
layout(location = 1) uniform int tiles;
layout(location = 2) uniform int columns;
layout(location = 3) uniform bool use_visible;
layout(location = 4) uniform uint parity;

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
        uint r = primitive_rects[order[i]];
        rects[i] = r;
        int c0 = int(r & 0xFFu), c1 = int(r >> 8 & 0xFFu);
        int r0 = int(r >> 16 & 0xFFu), r1 = int(r >> 24);
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++)
                atomicAdd(per_tile[row * columns + column], 1u);
    }
    barrier();
    for (int t = int(local); t < tiles; t += BIN_THREADS)
        state.table[uint(t * BIN_GROUPS) + group] = per_tile[t];
}
