// tiles_scatter.comp.glsl — the GL binning's last pass (gl_stages.c), as
// tiles.cu's k_tiles_scatter: workgroup b walks its chunk of the drawn
// sorted positions again in rounds of `round_size` positions (invocation j
// owns position round + j) and writes one entry per tile of the
// position's rectangle, each tile's entries in sorted order (stable): the
// words of ds_tiles_bin_host().
//
// Ranks without subgroup operations, so that any subgroup size works: per
// round every tile has a bit mask of the invocations holding it
// (words_per_tile words of 32 bits), set with shared atomicOr; an entry's
// rank within its tile in the round is the number of bits below its own,
// and the tile's cursor moves on by the round's total. Shared memory:
// MASK_WORDS words of masks (words_per_tile = MASK_WORDS / tiles, at most
// BIN_THREADS / 32 = 16, so 512 positions a round up to 320 tiles and 160
// at 1024) and two cursors a tile, within GL's minimum of 32 KB.
//
// Prepended by gl_stages.c: #version, BIN_THREADS, BIN_GROUPS,
// MASK_WORDS, DS_TILES_MAX.

layout(local_size_x = BIN_THREADS) in;

layout(location = 0) uniform uint count;
layout(location = 1) uniform int tiles;
layout(location = 2) uniform int columns;
layout(location = 3) uniform bool use_visible;
layout(location = 4) uniform uint parity;
layout(location = 5) uniform bool entry_indices; // entries are a triangle's
                                                 // three indices, else a number
layout(location = 6) uniform int words_per_tile;

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer Values { uint order[]; };
layout(std430, binding = 4) writeonly buffer Elements { uint elements[]; };
// binding 5: State (stage_state.glsl)
layout(std430, binding = 7) readonly buffer Rects { uint rects[]; };

shared uint masks[MASK_WORDS];
shared uint cursor[DS_TILES_MAX];      // this round's first entry, per tile
shared uint next_cursor[DS_TILES_MAX]; // the next round's

void write_entry(uint at, uint primitive)
{
    if (entry_indices) {
        elements[3u * at] = indices[3u * primitive];
        elements[3u * at + 1u] = indices[3u * primitive + 1u];
        elements[3u * at + 2u] = indices[3u * primitive + 2u];
    } else {
        elements[at] = primitive;
    }
}

void main()
{
    uint local = gl_LocalInvocationIndex, group = gl_WorkGroupID.x;
    uint n = min(use_visible ? state.visible[parity] : count, count);
    uint chunk = (n + uint(BIN_GROUPS) - 1u) / uint(BIN_GROUPS);
    uint end = min(chunk * group + chunk, n);
    uint begin = min(chunk * group, end);
    if (state.overflow != 0u) {
        // The plain sorted list, entry i at i.
        for (uint i = begin + local; i < end; i += uint(BIN_THREADS))
            write_entry(i, order[i]);
        return;
    }
    for (int t = int(local); t < tiles; t += BIN_THREADS) {
        cursor[t] = state.tile_first[t] + state.table[uint(t * BIN_GROUPS) + group];
        for (int w = 0; w < words_per_tile; w++)
            masks[t * words_per_tile + w] = 0u;
    }
    barrier();
    uint round_size = 32u * uint(words_per_tile);
    int word = int(local >> 5);
    uint bit = 1u << (local & 31u), below = bit - 1u;
    for (uint first = begin; first < end; first += round_size) {
        uint i = first + local;
        bool owned = local < round_size && i < end;
        uint r = owned ? rects[i] : DS_TILES_EMPTY;
        uint primitive = owned ? order[i] : 0u;
        int c0 = int(r & 0xFFu), c1 = int(r >> 8 & 0xFFu);
        int r0 = int(r >> 16 & 0xFFu), r1 = int(r >> 24);
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++)
                atomicOr(masks[(row * columns + column) * words_per_tile + word], bit);
        barrier();
        // The entries; the lowest holder of a tile sets its next cursor.
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++) {
                int tile = row * columns + column, base = tile * words_per_tile;
                uint rank = uint(bitCount(masks[base + word] & below));
                for (int w = 0; w < word; w++)
                    rank += uint(bitCount(masks[base + w]));
                write_entry(cursor[tile] + rank, primitive);
                if (rank == 0u) {
                    uint holders = 0u;
                    for (int w = 0; w < words_per_tile; w++)
                        holders += uint(bitCount(masks[base + w]));
                    next_cursor[tile] = cursor[tile] + holders;
                }
            }
        barrier();
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++) {
                int tile = row * columns + column;
                masks[tile * words_per_tile + word] = 0u;
                cursor[tile] = next_cursor[tile];
            }
        barrier();
    }
}
