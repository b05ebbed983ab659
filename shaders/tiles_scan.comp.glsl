// tiles_scan.comp.glsl — the GL binning's second pass (gl_stages.c):
// tiles.cu's two scans in one dispatch. Workgroup t (one per tile, one
// invocation per count workgroup) turns row t of the table into each
// count workgroup's first entry within the tile and stores the tile's
// total; the last workgroup to finish then scans the tiles' totals (each
// tile's first entry) and writes the per-tile indirect draw commands at
// command_word, or, when the entries would not fit in `capacity` words,
// tiles.h's overflow form (every tile's command empty, the overflow
// command drawing the plain list of the drawn primitives).
//
// Prepended by gl_stages.c: #version, BIN_GROUPS, DS_TILES_MAX,
// DS_TILES_COMMAND_WORDS.
// The prefixes are 32-bit sums, as tiles.cu's; whether the entries fit is
// decided on a second, saturating sum (at `saturated` = capacity / per + 1,
// the first total that does not fit), so a total beyond 2^32 cannot wrap
// into one that fits.

layout(local_size_x = BIN_GROUPS) in;

layout(location = 0) uniform uint count;
layout(location = 1) uniform int tiles;
layout(location = 2) uniform uint vertices;     // 3 a triangle, 1 a point
layout(location = 3) uniform uint saturated;
layout(location = 4) uniform uint command_word;
layout(location = 5) uniform bool use_visible;
layout(location = 6) uniform uint parity;

layout(std430, binding = 4) writeonly buffer Elements { uint elements[]; };
// binding 5: State (stage_state.glsl)

// Tiles per invocation in the tiles' scan.
const int TILES_PER_INVOCATION = (DS_TILES_MAX + BIN_GROUPS - 1) / BIN_GROUPS;

shared uint scan[BIN_GROUPS];
shared bool last_group;

uint add_saturated(uint a, uint b)  // a <= saturated
{
    return b >= saturated - a ? saturated : a + b;
}

// The exclusive prefix of `value` over the workgroup (invocation order);
// *total: the sum of all; both saturating when `saturating`.
uint exclusive_sum(uint value, bool saturating, out uint total)
{
    uint local = gl_LocalInvocationIndex;
    scan[local] = value;
    barrier();
    for (uint offset = 1u; offset < uint(BIN_GROUPS); offset <<= 1) {
        uint before = local >= offset ? scan[local - offset] : 0u;
        barrier();
        scan[local] = saturating ? add_saturated(scan[local], before) : scan[local] + before;
        barrier();
    }
    uint inclusive = scan[local];
    total = scan[BIN_GROUPS - 1];
    barrier();
    return inclusive - value;
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

void main()
{
    uint local = gl_LocalInvocationIndex, t = gl_WorkGroupID.x;
    uint at = t * uint(BIN_GROUPS) + local;
    uint total;
    uint first = exclusive_sum(state.table[at], false, total);
    state.table[at] = first;
    if (local == 0u)
        state.tile_total[t] = total;
    // The total lands before this workgroup is counted done, so the last
    // one reads every tile's.
    memoryBarrierBuffer();
    if (local == 0u)
        last_group = atomicAdd(state.scan_done, 1u) == uint(tiles) - 1u;
    barrier();
    if (!last_group)
        return;

    // The last workgroup: invocation j owns tiles j * TILES_PER_INVOCATION ...
    int begin = int(local) * TILES_PER_INVOCATION;
    uint own = 0u, own_saturated = 0u;
    for (int k = 0; k < TILES_PER_INVOCATION && begin + k < tiles; k++) {
        uint entries = state.tile_total[begin + k];
        own += entries;
        own_saturated = add_saturated(own_saturated, min(entries, saturated));
    }
    uint all_entries;
    exclusive_sum(own_saturated, true, all_entries);
    bool overflow = all_entries >= saturated;
    uint tile_start = exclusive_sum(own, false, all_entries);
    for (int k = 0; k < TILES_PER_INVOCATION && begin + k < tiles; k++) {
        uint entries = state.tile_total[begin + k];
        state.tile_first[begin + k] = tile_start;
        write_command(begin + k, tile_start, overflow ? 0u : entries);
        tile_start += entries;
    }
    if (local == 0u) {
        uint drawn = min(use_visible ? state.visible[parity] : count, count);
        write_command(tiles, 0u, overflow ? drawn : 0u);
        state.overflow = overflow ? 1u : 0u;
        state.scan_done = 0u;
    }
}
