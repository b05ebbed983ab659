// SPDX-License-Identifier: MIT
// tiles_scatter.comp.glsl — the GL binning's second and last pass
// (gl_stages.c), as tiles.cu's k_tiles_scan and k_tiles_scatter:
// workgroup b walks its chunk of the drawn sorted positions again in
// rounds of `round_size` positions (invocation j owns position round + j)
// and writes one entry per tile of the position's rectangle, each tile's
// entries in sorted order (stable): the words of ds_tiles_bin_host().
//
// Where tile t's entries from chunk b start, without a scan dispatch:
// every workgroup sums, per tile, all BIN_SPANS rows of this binning's
// half of span_sums (the tile's total) and the rows of the spans before
// its own plus the table rows of the count workgroups before it in its
// span (the entries before it), about 2 sqrt(BIN_GROUPS) rows, then
// scans the totals into each tile's first entry. Every workgroup finds
// the same totals and so the same overflow decision (below); workgroup 0
// writes the per-tile indirect draw commands at command_word, or, when
// the entries would not fit in `capacity` words, tiles.h's overflow form
// (every tile's command empty, the overflow command drawing the plain
// list of the drawn primitives). The prefixes are 32-bit sums, as
// tiles.cu's; whether the entries fit is decided on a second, saturating
// sum (at `saturated` = capacity / per + 1, the first total that does
// not fit), so a total beyond 2^32 cannot wrap into one that fits.
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
// The workgroups also zero the other half of span_sums, which the next
// binning's tiles_count adds into (its last reader, the previous
// binning's tiles_scatter, has finished).
//
// Prepended by gl_stages.c: #version, BIN_THREADS, BIN_GROUPS, BIN_SPAN,
// BIN_SPANS, MASK_WORDS, DS_TILES_MAX, DS_TILES_COMMAND_WORDS.

layout(local_size_x = BIN_THREADS) in;

layout(location = 0) uniform uint count;
layout(location = 1) uniform int tiles;
layout(location = 2) uniform int columns;
layout(location = 3) uniform bool use_visible;
layout(location = 4) uniform uint parity;
layout(location = 5) uniform bool entry_indices; // entries are a triangle's
                                                 // three indices, else a number
layout(location = 6) uniform int words_per_tile;
layout(location = 7) uniform uint half_index;
layout(location = 8) uniform uint saturated;
layout(location = 9) uniform uint command_word;
layout(location = 10) uniform uint vertices;    // 3 a triangle, 1 a point
layout(location = 11) uniform int value_shift;  // tile codes in the values (0: none)

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer Values { uint order[]; };
layout(std430, binding = 4) writeonly buffer Elements { uint elements[]; };
// binding 5: State (stage_state.glsl)
layout(std430, binding = 6) readonly buffer PrimitiveRects { uint primitive_rects[]; };
layout(std430, binding = 7) readonly buffer Rects { uint rects[]; };

// The rounds' masks; before them, the scan's scratch.
shared uint masks[MASK_WORDS];
shared uint cursor[DS_TILES_MAX];      // this round's first entry, per tile
shared uint next_cursor[DS_TILES_MAX]; // the next round's; first each total

// Tiles per invocation in the tiles' scan.
const int TILES_PER_INVOCATION = (DS_TILES_MAX + BIN_THREADS - 1) / BIN_THREADS;

uint add_saturated(uint a, uint b)  // a <= saturated
{
    return b >= saturated - a ? saturated : a + b;
}

// The exclusive prefix of `value` over the workgroup (invocation order)
// and, in .y, the saturating sum of `value_saturated` over all of it;
// Hillis and Steele's scan in masks[], ping-ponging between two pairs of
// BIN_THREADS words.
uvec2 exclusive_sum(uint value, uint value_saturated)
{
    uint local = gl_LocalInvocationIndex, source = 0u;
    masks[local] = value;
    masks[2u * BIN_THREADS + local] = value_saturated;
    barrier();
    for (uint offset = 1u; offset < uint(BIN_THREADS); offset <<= 1) {
        uint plain = masks[source + local], sum = masks[2u * BIN_THREADS + source + local];
        if (local >= offset) {
            plain += masks[source + local - offset];
            sum = add_saturated(sum, masks[2u * BIN_THREADS + source + local - offset]);
        }
        source ^= uint(BIN_THREADS);
        masks[source + local] = plain;
        masks[2u * BIN_THREADS + source + local] = sum;
        barrier();
    }
    uvec2 result = uvec2(masks[source + local] - value,
                         masks[2u * BIN_THREADS + source + BIN_THREADS - 1u]);
    barrier();
    return result;
}

// ds_tiles_command
void write_command(int t, uint first, uint entries)
{
    uint at = command_word + uint(t) * uint(DS_TILES_COMMAND_WORDS);
    elements[at] = vertices * entries;
    elements[at + 1u] = 1u;
    elements[at + 2u] = vertices * first;
    elements[at + 3u] = 0u;
    elements[at + 4u] = 0u;
}

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

    // Per tile: the total into next_cursor, the entries before this
    // chunk into cursor. Row r < BIN_SPANS is span r's sums (before this
    // chunk if r < span); after those, the table rows of the count
    // workgroups before this one in its span. Four loads in flight.
    for (int t = int(local); t < tiles; t += BIN_THREADS) {
        cursor[t] = 0u;
        next_cursor[t] = 0u;
    }
    barrier();
    uint span = group / uint(BIN_SPAN);
    uint spans_row = half_index * uint(BIN_SPANS * DS_TILES_MAX);
    uint table_row = (span * uint(BIN_SPAN) - uint(BIN_SPANS)) * uint(DS_TILES_MAX);
    uint tile_count = uint(tiles);
    uint items = tile_count * (uint(BIN_SPANS) + group % uint(BIN_SPAN));
    for (uint first = local; first < items; first += 4u * uint(BIN_THREADS)) {
        uint loaded[4];
        for (uint u = 0u; u < 4u; u++) {
            uint i = first + u * uint(BIN_THREADS), row = i / tile_count;
            uint tile = i - row * tile_count;
            loaded[u] = i >= items                ? 0u
                        : row < uint(BIN_SPANS) ? state.span_sums[spans_row + row * uint(DS_TILES_MAX) + tile]
                                                : state.table[table_row + row * uint(DS_TILES_MAX) + tile];
        }
        for (uint u = 0u; u < 4u; u++) {
            uint i = first + u * uint(BIN_THREADS), row = i / tile_count;
            uint tile = i - row * tile_count;
            if (i >= items || loaded[u] == 0u)
                continue;
            if (row < uint(BIN_SPANS))
                atomicAdd(next_cursor[tile], loaded[u]);
            if (row < span || row >= uint(BIN_SPANS))
                atomicAdd(cursor[tile], loaded[u]);
        }
    }
    // The zeroed half for the next binning.
    for (uint word = group * uint(BIN_THREADS) + local; word < uint(BIN_SPANS * DS_TILES_MAX);
         word += uint(BIN_GROUPS * BIN_THREADS))
        state.span_sums[(1u - half_index) * uint(BIN_SPANS * DS_TILES_MAX) + word] = 0u;
    barrier();

    // The tiles' first entries (invocation j owns tiles
    // j * TILES_PER_INVOCATION ...), and whether the entries fit.
    int owned_first = int(local) * TILES_PER_INVOCATION;
    uint own = 0u, own_saturated = 0u;
    for (int k = 0; k < TILES_PER_INVOCATION && owned_first + k < tiles; k++) {
        uint entries = next_cursor[owned_first + k];
        own += entries;
        own_saturated = add_saturated(own_saturated, min(entries, saturated));
    }
    uvec2 scanned = exclusive_sum(own, own_saturated);
    bool overflow = scanned.y >= saturated;
    uint tile_start = scanned.x;
    for (int k = 0; k < TILES_PER_INVOCATION && owned_first + k < tiles; k++) {
        int t = owned_first + k;
        uint entries = next_cursor[t];
        cursor[t] += tile_start;
        if (group == 0u)
            write_command(t, tile_start, overflow ? 0u : entries);
        tile_start += entries;
    }
    if (group == 0u && local == 0u)
        write_command(tiles, 0u, overflow ? n : 0u);
    if (overflow) {
        // The plain sorted list, entry i at i.
        for (uint i = begin + local; i < end; i += uint(BIN_THREADS))
            write_entry(i, tiles_value_primitive(order[i], value_shift));
        return;
    }
    for (uint word = local; word < uint(MASK_WORDS); word += uint(BIN_THREADS))
        masks[word] = 0u;
    barrier();
    uint round_size = 32u * uint(words_per_tile);
    int word = int(local >> 5);
    uint bit = 1u << (local & 31u), below = bit - 1u;
    for (uint first = begin; first < end; first += round_size) {
        uint i = first + local;
        bool owned = local < round_size && i < end;
        // The rectangle: from the tile code, else the keys pass's (the
        // several code), or tiles_count's copy without codes.
        uint value = owned ? order[i] : 0u, r = DS_TILES_EMPTY;
        if (owned && value_shift == 0)
            r = rects[i];
        else if (owned && !tiles_code_rect(value, columns, value_shift, r))
            r = primitive_rects[tiles_value_primitive(value, value_shift)];
        uint primitive = tiles_value_primitive(value, value_shift);
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
