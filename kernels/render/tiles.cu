/* SPDX-License-Identifier: MIT */
/* tiles.cu — the GPU binning of tiles.h: the sorted triangles into per-tile
 * lists that keep the sorted order, and the per-tile indirect draw
 * commands, in four kernels and no host round trip:
 *   count:   a fixed grid of BIN_BLOCKS blocks, block b owning a contiguous
 *            chunk of the sorted positions; each position's tiles come
 *            from its sort value's tile code or, for a primitive of
 *            several tiles (or values without codes), from the keys pass's
 *            per-primitive rectangles (one word gathered, not the
 *            primitive's vertices in sorted, i.e. scattered, order), and
 *            the block counts its entries per tile in shared memory;
 *   scan:    a block per tile sums its blocks' counts (each block's first
 *            entry within the tile), then one block sums the tiles' (each
 *            tile's first entry) and writes the commands (or, when the
 *            entries would not fit, the overflow form of tiles.h);
 *   scatter: each block walks its chunk again in rounds of BIN_THREADS x
 *            BIN_ITEMS positions, each warp a contiguous run of them. A
 *            round first counts each warp's entries per tile (shared
 *            atomics into the warp's own row: order does not matter for a
 *            count), turns the rows into each warp's first entry per tile
 *            (the block's cursor plus the warps before), then each warp
 *            writes its entries 32 positions at a time, a lane's rank in a
 *            tile being the number of lanes below it holding that tile
 *            (rank_step()), and moves its row on: the same (stable) order
 *            as ds_tiles_bin_host().
 * The visible count is read on the device, so the chunks follow it. */
#include "tiles.h"

#include <cub/block/block_scan.cuh>

#include "cuda_check.h"
#include "warp_reduce.cuh"

/* ---- tuning --------------------------------------------------------------- */
#define BIN_THREADS 256
#define BIN_WARPS (BIN_THREADS / 32)
/* Blocks of the count and scatter kernels: a fixed grid, so the per-tile
 * table is DS_TILES_MAX x BIN_BLOCKS words; also the threads of the
 * per-tile scan, one block's count each. 512: four blocks an SM keep the
 * scatter's gathers in flight (docs/performance.md). */
#define BIN_BLOCKS 512
/* Sorted positions a thread loads at once in the count and the scatter:
 * their loads in flight together, and a scatter round's two block
 * barriers shared by BIN_THREADS x BIN_ITEMS positions. */
#define BIN_ITEMS 8
#define TILE_SCAN_THREADS 1024 /* >= DS_TILES_MAX: one tile each */
static_assert(TILE_SCAN_THREADS >= DS_TILES_MAX, "one thread per tile");

typedef struct tiles_scratch {
    uint32_t table[DS_TILES_MAX * BIN_BLOCKS]; /* tile-major counts, then
                                                  firsts within the tile */
    uint32_t tile_total[DS_TILES_MAX];
    uint32_t tile_first[DS_TILES_MAX];
    uint32_t overflow;
} tiles_scratch;

extern "C" size_t ds_tiles_scratch_bytes(void)
{
    return sizeof(tiles_scratch);
}

__device__ __forceinline__ void chunk_of(const uint32_t *visible, size_t count,
                                         size_t *begin, size_t *end)
{
    size_t n = visible ? *visible : count;
    if (n > count)
        n = count;
    size_t chunk = (n + BIN_BLOCKS - 1) / BIN_BLOCKS;
    *begin = chunk * blockIdx.x;
    *end = *begin + chunk < n ? *begin + chunk : n;
    if (*begin > *end)
        *begin = *end;
}

#define NO_TILE 0xFFFFFFFFu

/* A sorted value's primitive (tiles.h: without codes, the value). */
__device__ __forceinline__ uint32_t value_primitive(uint32_t value, int shift)
{
    return shift ? value & ((1u << shift) - 1u) : value;
}

/* The one tile a sorted value's code names, or NO_TILE when the
 * primitive's rectangle must be gathered (several tiles or none, or no
 * codes). */
__device__ __forceinline__ uint32_t value_tile(uint32_t value, int shift)
{
    if (!shift)
        return NO_TILE;
    uint32_t code = value >> shift;
    return code == DS_TILES_SEVERAL >> shift ? NO_TILE : code;
}

/* Calls visit(tile) for each tile of packed rectangle r, row by row. */
template <typename Visit>
__device__ __forceinline__ void each_tile(uint32_t r, int columns, Visit visit)
{
    int c0 = r & 0xFF, c1 = r >> 8 & 0xFF, r0 = r >> 16 & 0xFF, r1 = r >> 24;
    for (int row = r0; row <= r1; row++)
        for (int column = c0; column <= c1; column++)
            visit((uint32_t)(row * columns + column));
}

/* Thread j's BIN_ITEMS sorted positions of a round, at[k] (at or past
 * `end`: nothing to load): the primitive and its one tile (NO_TILE:
 * rect[k] holds its gathered rectangle). With `all_rects`, every
 * rectangle is gathered, to be stored for ds_renderer_verify(). */
__device__ __forceinline__ void load_items(const uint32_t *__restrict__ order, int shift,
                                           const uint32_t *__restrict__ primitive_rects,
                                           const size_t at[BIN_ITEMS], size_t end, int all_rects,
                                           uint32_t primitive[BIN_ITEMS], uint32_t tile[BIN_ITEMS],
                                           uint32_t rect[BIN_ITEMS])
{
    uint32_t value[BIN_ITEMS];
#pragma unroll
    for (int k = 0; k < BIN_ITEMS; k++)
        value[k] = at[k] < end ? order[at[k]] : DS_TILES_SEVERAL;
#pragma unroll
    for (int k = 0; k < BIN_ITEMS; k++) {
        primitive[k] = value_primitive(value[k], shift);
        tile[k] = value_tile(value[k], shift);
        rect[k] = DS_TILES_EMPTY;
        if (at[k] < end && (tile[k] == NO_TILE || all_rects))
            rect[k] = primitive_rects[primitive[k]];
    }
}

/* Block b: its count per tile into table[tile * BIN_BLOCKS + b]; with
 * `rects` non-NULL, also the rectangles of its chunk's positions
 * (rects[i] = primitive_rects[primitive of order[i]]). */
__global__ void __launch_bounds__(BIN_THREADS)
k_tiles_count(const uint32_t *__restrict__ order, const uint32_t *__restrict__ visible,
              size_t count, int shift, const uint32_t *__restrict__ primitive_rects,
              ds_tile_grid grid, uint32_t *__restrict__ rects, tiles_scratch *__restrict__ scratch)
{
    __shared__ uint32_t per_tile[DS_TILES_MAX];
    int tiles = grid.columns * grid.rows;
    for (int t = threadIdx.x; t < tiles; t += BIN_THREADS)
        per_tile[t] = 0;
    __syncthreads();
    size_t begin, end;
    chunk_of(visible, count, &begin, &end);
    for (size_t round = begin; round < end; round += BIN_THREADS * BIN_ITEMS) {
        size_t at[BIN_ITEMS];
        uint32_t primitive[BIN_ITEMS], tile[BIN_ITEMS], rect[BIN_ITEMS];
#pragma unroll
        for (int k = 0; k < BIN_ITEMS; k++)
            at[k] = round + (size_t)k * BIN_THREADS + threadIdx.x;
        load_items(order, shift, primitive_rects, at, end, rects != NULL, primitive, tile, rect);
#pragma unroll
        for (int k = 0; k < BIN_ITEMS; k++) {
            if (at[k] >= end)
                continue;
            if (rects)
                rects[at[k]] = rect[k];
            if (tile[k] != NO_TILE)
                atomicAdd(&per_tile[tile[k]], 1u);
            else
                each_tile(rect[k], grid.columns,
                          [&](uint32_t t) { atomicAdd(&per_tile[t], 1u); });
        }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < tiles; t += BIN_THREADS)
        scratch->table[(size_t)t * BIN_BLOCKS + blockIdx.x] = per_tile[t];
}

/* Block t, thread b: block b's first entry within tile t; the tile's total. */
__global__ void __launch_bounds__(BIN_BLOCKS)
k_tiles_scan_blocks(tiles_scratch *__restrict__ scratch)
{
    typedef cub::BlockScan<uint32_t, BIN_BLOCKS> scan;
    __shared__ typename scan::TempStorage scan_storage;
    uint32_t *row = scratch->table + (size_t)blockIdx.x * BIN_BLOCKS;
    uint32_t first, total;
    scan(scan_storage).ExclusiveSum(row[threadIdx.x], first, total);
    row[threadIdx.x] = first;
    if (threadIdx.x == 0)
        scratch->tile_total[blockIdx.x] = total;
}

/* One block, thread t: tile t's first entry and its command; the overflow
 * command. */
__global__ void __launch_bounds__(TILE_SCAN_THREADS)
k_tiles_scan_tiles(const uint32_t *__restrict__ visible, size_t count, int tiles, int per,
                   int vertices, size_t capacity, tiles_scratch *__restrict__ scratch,
                   uint32_t *__restrict__ commands)
{
    typedef cub::BlockScan<uint32_t, TILE_SCAN_THREADS> scan;
    __shared__ typename scan::TempStorage scan_storage;
    int t = threadIdx.x;
    uint32_t n = t < tiles ? scratch->tile_total[t] : 0u, first, total;
    scan(scan_storage).ExclusiveSum(n, first, total);
    int overflow = (size_t)total * (size_t)per > capacity;
    if (t < tiles) {
        scratch->tile_first[t] = first;
        ds_tiles_command(commands, t, first, overflow ? 0u : n, vertices);
    }
    if (t == 0) {
        size_t drawn = visible ? *visible : count;
        ds_tiles_command(commands, tiles, 0,
                         overflow ? (uint32_t)(drawn < count ? drawn : count) : 0u, vertices);
        scratch->overflow = (uint32_t)overflow;
    }
}

/* INDEXED: the entry is the triangle's three indices; else its number. */
template <bool INDEXED>
__device__ __forceinline__ void write_entry(uint32_t *elements, size_t at, uint32_t triangle,
                                            const uint32_t *indices)
{
    if (INDEXED) {
        const uint32_t *v = indices + 3 * (size_t)triangle;
        elements[3 * at] = v[0];
        elements[3 * at + 1] = v[1];
        elements[3 * at + 2] = v[2];
    } else {
        elements[at] = triangle;
    }
}

/* The scatter's per-warp rows, each warp's next entry per tile (declared
 * here so that rank_step() addresses shared memory directly). */
__shared__ uint32_t s_warp_row[BIN_WARPS][DS_TILES_MAX];

/* A lane's entries in one step of the scatter: one tile (single), the
 * tiles of a rectangle (several), or none. `tile` is its first tile, or
 * NO_TILE for none. */
struct lane_rect {
    int c0, c1, r0, r1;
    int several;
    uint32_t tile;
};

__device__ __forceinline__ lane_rect lane_rect_of(uint32_t tile, uint32_t r, int columns)
{
    lane_rect l;
    l.c0 = r & 0xFF;
    l.c1 = r >> 8 & 0xFF;
    l.r0 = r >> 16 & 0xFF;
    l.r1 = r >> 24;
    if (tile != NO_TILE) {
        l.several = 0;
        l.tile = tile;
        return l;
    }
    int any = l.c0 <= l.c1 && l.r0 <= l.r1;
    l.several = any && (l.c0 != l.c1 || l.r0 != l.r1);
    l.tile = any ? (uint32_t)(l.r0 * columns + l.c0) : NO_TILE;
    return l;
}

/* One step of a warp's writes, 32 consecutive sorted positions: each
 * entry goes to row[tile] (the warp's next entry in that tile) plus the
 * number of lanes below it holding the tile, emit(tile, at) writes it,
 * and row moves past the step's entries. A lane's first tile is its
 * primary one; a lane of several tiles has the others as secondary ones.
 * The tiles some lane holds as secondary are visited first, in
 * increasing order and warp-uniformly (the smallest any lane still has
 * next), with a ballot of all their holders, primary or secondary; the
 * lanes whose primary tile no lane holds as secondary then find the
 * others of their tile by __match_any_sync. All lanes call it together. */
template <typename Emit>
__device__ __forceinline__ void rank_step(const lane_rect &l, int columns, int warp, Emit emit)
{
    uint32_t *row = s_warp_row[warp];
    int lane = threadIdx.x & 31;
    uint32_t lower_lanes = (1u << lane) - 1u;
    int placed = l.tile == NO_TILE;
    /* The secondary tiles, from the one after the first, row by row. */
    int tile_row = l.r0, column = l.c0 + 1;
    if (column > l.c1) {
        column = l.c0;
        tile_row++;
    }
    uint32_t next = l.several ? (uint32_t)(tile_row * columns + column) : NO_TILE;
    for (;;) {
        uint32_t tile = warp_min_u32(next);
        if (tile == NO_TILE)
            break;
        int holds = next == tile || l.tile == tile;
        uint32_t holders = __ballot_sync(0xFFFFFFFFu, holds);
        uint32_t first = row[tile];
        if (holds)
            emit(tile, first + (uint32_t)__popc(holders & lower_lanes));
        /* Every holder has read row[tile] before its lowest moves it. */
        __syncwarp();
        if (lane == __ffs(holders) - 1)
            row[tile] = first + (uint32_t)__popc(holders);
        __syncwarp(); /* the move is seen by the next read of row[] */
        if (l.tile == tile)
            placed = 1;
        if (next == tile) {
            if (++column > l.c1) {
                column = l.c0;
                tile_row++;
            }
            next = tile_row <= l.r1 ? (uint32_t)(tile_row * columns + column) : NO_TILE;
        }
    }
    uint32_t same = __match_any_sync(0xFFFFFFFFu, placed ? 0x80000000u | (uint32_t)lane : l.tile);
    uint32_t first = 0;
    if (!placed) {
        first = row[l.tile];
        emit(l.tile, first + (uint32_t)__popc(same & lower_lanes));
    }
    /* As above: the reads of row[] before the moves. */
    __syncwarp();
    if (!placed && (same & lower_lanes) == 0)
        row[l.tile] = first + (uint32_t)__popc(same);
    __syncwarp(); /* and the moves before the next step's reads */
}

/* Block b writes the entries of its chunk, in rounds of BIN_THREADS x
 * BIN_ITEMS positions; warp w owns the round's w-th run of 32 x BIN_ITEMS
 * of them, step k its k-th 32. Per round: each warp counts its entries
 * per tile into its row; the rows become each warp's first entry per
 * tile (the block's cursor, then the warps before); each warp writes its
 * entries step by step (rank_step()) and clears its row. */
template <bool INDEXED>
__global__ void __launch_bounds__(BIN_THREADS)
k_tiles_scatter(const uint32_t *__restrict__ order, const uint32_t *__restrict__ visible,
                size_t count, int shift, const uint32_t *__restrict__ primitive_rects,
                const uint32_t *__restrict__ indices, ds_tile_grid grid,
                const tiles_scratch *__restrict__ scratch, uint32_t *__restrict__ elements)
{
    __shared__ uint32_t cursor[DS_TILES_MAX]; /* the block's next entry per tile */
    size_t begin, end;
    chunk_of(visible, count, &begin, &end);
    if (scratch->overflow) {
        /* The plain sorted list, entry i at i. */
        for (size_t i = begin + threadIdx.x; i < end; i += BIN_THREADS)
            write_entry<INDEXED>(elements, i, value_primitive(order[i], shift), indices);
        return;
    }
    int tiles = grid.columns * grid.rows, columns = grid.columns;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    uint32_t *row = s_warp_row[warp];
    for (int t = threadIdx.x; t < tiles; t += BIN_THREADS) {
        cursor[t] = scratch->tile_first[t] + scratch->table[(size_t)t * BIN_BLOCKS + blockIdx.x];
        for (int w = 0; w < BIN_WARPS; w++)
            s_warp_row[w][t] = 0;
    }
    __syncthreads();
    for (size_t round = begin; round < end; round += BIN_THREADS * BIN_ITEMS) {
        size_t at[BIN_ITEMS];
        uint32_t primitive[BIN_ITEMS], tile[BIN_ITEMS], rect[BIN_ITEMS];
#pragma unroll
        for (int k = 0; k < BIN_ITEMS; k++)
            at[k] = round + ((size_t)warp * BIN_ITEMS + (size_t)k) * 32 + (size_t)lane;
        load_items(order, shift, primitive_rects, at, end, 0, primitive, tile, rect);
        /* The warp's entries per tile: its own row, any order. */
#pragma unroll
        for (int k = 0; k < BIN_ITEMS; k++) {
            if (tile[k] != NO_TILE)
                atomicAdd(&row[tile[k]], 1u);
            else if (at[k] < end)
                each_tile(rect[k], columns, [&](uint32_t t) { atomicAdd(&row[t], 1u); });
        }
        /* Every warp's counts are in before they are summed. */
        __syncthreads();
        for (int t = threadIdx.x; t < tiles; t += BIN_THREADS) {
            uint32_t first = cursor[t];
            for (int w = 0; w < BIN_WARPS; w++) {
                uint32_t n = s_warp_row[w][t];
                s_warp_row[w][t] = first;
                first += n;
            }
            cursor[t] = first;
        }
        /* Every row holds its warp's firsts before the warps write. */
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BIN_ITEMS; k++) {
            lane_rect l = lane_rect_of(tile[k], rect[k], columns);
            uint32_t entry = primitive[k];
            rank_step(l, columns, warp, [&](uint32_t, uint32_t place) {
                write_entry<INDEXED>(elements, place, entry, indices);
            });
        }
        /* The row is this warp's alone until the next round's sums, which
         * come after a block barrier. */
        for (int t = lane; t < tiles; t += 32)
            row[t] = 0;
        __syncwarp();
    }
}

extern "C" ds_status ds_tiles_bin(const uint32_t *order, const uint32_t *visible, size_t count,
                                  const ds_tiles_source *source, const ds_tile_grid *grid,
                                  uint32_t *rects, void *scratch, uint32_t *elements,
                                  size_t capacity, uint32_t *commands, ds_stream stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    int tiles = grid->columns * grid->rows;
    if (tiles < 1 || tiles > DS_TILES_MAX)
        return ds_fail(DS_ERR_INVALID_ARG, "tiles: %d tiles (at most %d)", tiles, DS_TILES_MAX);
    int shift = source->value_shift;
    if (shift < 0 || shift > 31 || (shift && (uint32_t)tiles > DS_TILES_SEVERAL >> shift))
        return ds_fail(DS_ERR_INVALID_ARG, "tiles: tile codes at bit %d cannot name %d tiles",
                       shift, tiles);
    tiles_scratch *table = (tiles_scratch *)scratch;
    /* Entries: a triangle's indices, or a number (pulled triangle, point). */
    const uint32_t *entry_indices = source->entry_is_number ? NULL : source->indices;
    int vertices = source->indices ? 3 : 1;
    k_tiles_count<<<BIN_BLOCKS, BIN_THREADS, 0, s>>>(order, visible, count, shift,
                                                     source->primitive_rects, *grid, rects,
                                                     table);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_count");
    k_tiles_scan_blocks<<<tiles, BIN_BLOCKS, 0, s>>>(table);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scan_blocks");
    k_tiles_scan_tiles<<<1, TILE_SCAN_THREADS, 0, s>>>(visible, count, tiles,
                                                       entry_indices ? 3 : 1, vertices, capacity,
                                                       table, commands);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scan_tiles");
    if (entry_indices)
        k_tiles_scatter<true><<<BIN_BLOCKS, BIN_THREADS, 0, s>>>(
            order, visible, count, shift, source->primitive_rects, entry_indices, *grid, table,
            elements);
    else
        k_tiles_scatter<false><<<BIN_BLOCKS, BIN_THREADS, 0, s>>>(
            order, visible, count, shift, source->primitive_rects, NULL, *grid, table, elements);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scatter");
    return DS_OK;
}
