/* tiles.cu — the GPU binning of tiles.h: the sorted triangles into per-tile
 * lists that keep the sorted order, and the per-tile indirect draw
 * commands, in three kernels and no host round trip:
 *   count:   a fixed grid of BIN_BLOCKS blocks, block b owning a contiguous
 *            chunk of the sorted positions; each position's tile rectangle
 *            is gathered from the keys pass's per-primitive ones (one word
 *            a position, not the primitive's vertices in sorted, i.e.
 *            scattered, order) and stored, and the block counts its
 *            entries per tile in shared memory;
 *   scan:    a block per tile sums its blocks' counts (each block's first
 *            entry within the tile), then one block sums the tiles' (each
 *            tile's first entry) and writes the commands (or, when the
 *            entries would not fit, the overflow form of tiles.h);
 *   scatter: each block walks its chunk again in rounds of BIN_THREADS
 *            positions; within a warp a lane's rank in a tile is the
 *            number of lanes below it holding that tile (lane_ranks()); across warps
 *            a shared table of per-warp counts adds the warps before, and a
 *            per-tile cursor carries the block from round to round: the
 *            same (stable) order as ds_tiles_bin_host().
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

/* Block b: the rectangles of its chunk's positions (rects[i] =
 * primitive_rects[order[i]]), and its count per tile into
 * table[tile * BIN_BLOCKS + b]. */
__global__ void __launch_bounds__(BIN_THREADS)
k_tiles_count(const uint32_t *__restrict__ order, const uint32_t *__restrict__ visible,
              size_t count, const uint32_t *__restrict__ primitive_rects, ds_tile_grid grid,
              uint32_t *__restrict__ rects, tiles_scratch *__restrict__ scratch)
{
    __shared__ uint32_t per_tile[DS_TILES_MAX];
    int tiles = grid.columns * grid.rows;
    for (int t = threadIdx.x; t < tiles; t += BIN_THREADS)
        per_tile[t] = 0;
    __syncthreads();
    size_t begin, end;
    chunk_of(visible, count, &begin, &end);
    for (size_t i = begin + threadIdx.x; i < end; i += BIN_THREADS) {
        uint32_t r = primitive_rects[order[i]];
        rects[i] = r;
        int c0 = r & 0xFF, c1 = r >> 8 & 0xFF, r0 = r >> 16 & 0xFF, r1 = r >> 24;
        for (int row = r0; row <= r1; row++)
            for (int column = c0; column <= c1; column++)
                atomicAdd(&per_tile[row * grid.columns + column], 1u);
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

/* `indices` NULL: the entry is the primitive's number; else its three
 * indices. */
__device__ __forceinline__ void write_entry(uint32_t *elements, size_t at, uint32_t triangle,
                                            const uint32_t *indices)
{
    if (indices) {
        const uint32_t *v = indices + 3 * (size_t)triangle;
        elements[3 * at] = v[0];
        elements[3 * at + 1] = v[1];
        elements[3 * at + 2] = v[2];
    } else {
        elements[at] = triangle;
    }
}

#define NO_TILE 0xFFFFFFFFu

/* The ranks of one round, for a lane whose rectangle r is one tile (most
 * lanes) or several. Lanes of one tile find the others of the same tile
 * by __match_any_sync; the tiles of the lanes of several are visited in
 * increasing order, warp-uniformly (the smallest any such lane still has
 * next; then every such lane holding it has it next), with a ballot of the
 * holders each. visit(tile, below, all) runs for each tile of a lane of
 * several, and lane_ranks() leaves a one-tile lane's (tile, below, all):
 * below and all count the lanes of the warp holding that tile, below this
 * lane and in all. All lanes call it together. */
struct lane_rect {
    int c0, c1, r0, r1;
    int single, several;
    uint32_t tile; /* a one-tile lane's tile, else NO_TILE */
};

__device__ __forceinline__ lane_rect lane_rect_of(uint32_t r, int columns)
{
    lane_rect l;
    l.c0 = r & 0xFF;
    l.c1 = r >> 8 & 0xFF;
    l.r0 = r >> 16 & 0xFF;
    l.r1 = r >> 24;
    l.single = l.c0 == l.c1 && l.r0 == l.r1;
    l.several = !l.single && l.c0 <= l.c1 && l.r0 <= l.r1;
    l.tile = l.single ? (uint32_t)(l.r0 * columns + l.c0) : NO_TILE;
    return l;
}

template <typename Visit>
__device__ __forceinline__ void lane_ranks(const lane_rect &l, int columns, int *below,
                                           int *all, Visit visit)
{
    int lane = threadIdx.x & 31;
    uint32_t lower_lanes = (1u << lane) - 1u;
    uint32_t same = __match_any_sync(0xFFFFFFFFu, l.single ? l.tile : 0x80000000u | (uint32_t)lane);
    *below = __popc(same & lower_lanes);
    *all = __popc(same);
    int row = l.r0, column = l.c0;
    uint32_t next = l.several ? (uint32_t)(row * columns + column) : NO_TILE;
    for (;;) {
        uint32_t tile = warp_min_u32(next);
        if (tile == NO_TILE)
            break;
        uint32_t several_holders = __ballot_sync(0xFFFFFFFFu, next == tile);
        uint32_t single_holders = __ballot_sync(0xFFFFFFFFu, l.tile == tile);
        if (l.tile == tile) {
            *below += __popc(several_holders & lower_lanes);
            *all += __popc(several_holders);
        }
        if (next == tile) {
            uint32_t holders = several_holders | single_holders;
            visit(tile, __popc(holders & lower_lanes), __popc(holders));
            if (++column > l.c1) {
                column = l.c0;
                row++;
            }
            next = row <= l.r1 ? (uint32_t)(row * columns + column) : NO_TILE;
        }
    }
}

/* Block b writes the entries of its chunk: thread j of a round owns sorted
 * position round + j, and one entry per tile of its rectangle. Per round:
 * the warps' counts per tile (from the lowest lane holding it) and the
 * next round's cursors; then every entry at cursor + the warps before +
 * its rank; then the cursors move on. */
__global__ void __launch_bounds__(BIN_THREADS)
k_tiles_scatter(const uint32_t *__restrict__ order, const uint32_t *__restrict__ visible,
                size_t count, const uint32_t *__restrict__ indices, ds_tile_grid grid, const uint32_t *__restrict__ rects,
                const tiles_scratch *__restrict__ scratch, uint32_t *__restrict__ elements)
{
    __shared__ uint32_t cursor[DS_TILES_MAX];      /* this round's first entry */
    __shared__ uint32_t next_cursor[DS_TILES_MAX]; /* the next round's */
    __shared__ uint32_t warp_count[BIN_WARPS][DS_TILES_MAX];
    size_t begin, end;
    chunk_of(visible, count, &begin, &end);
    if (scratch->overflow) {
        /* The plain sorted list, entry i at i. */
        for (size_t i = begin + threadIdx.x; i < end; i += BIN_THREADS)
            write_entry(elements, i, order[i], indices);
        return;
    }
    int tiles = grid.columns * grid.rows, columns = grid.columns;
    int warp = threadIdx.x >> 5;
    for (int t = threadIdx.x; t < tiles; t += BIN_THREADS) {
        cursor[t] = scratch->tile_first[t] + scratch->table[(size_t)t * BIN_BLOCKS + blockIdx.x];
        next_cursor[t] = cursor[t];
        for (int w = 0; w < BIN_WARPS; w++)
            warp_count[w][t] = 0;
    }
    __syncthreads();
    for (size_t round = begin; round < end; round += BIN_THREADS) {
        size_t i = round + threadIdx.x;
        lane_rect l = lane_rect_of(i < end ? rects[i] : DS_TILES_EMPTY, columns);
        uint32_t triangle = i < end ? order[i] : 0u;
        int below, all;
        auto count_tile = [&](uint32_t tile, int tile_below, int tile_all) {
            if (tile_below == 0) {
                warp_count[warp][tile] = (uint32_t)tile_all;
                atomicAdd(&next_cursor[tile], (uint32_t)tile_all);
            }
        };
        lane_ranks(l, columns, &below, &all, count_tile);
        if (l.single)
            count_tile(l.tile, below, all);
        __syncthreads();
        auto write_tile = [&](uint32_t tile, int tile_below, int) {
            uint32_t at = cursor[tile] + (uint32_t)tile_below;
            for (int w = 0; w < warp; w++)
                at += warp_count[w][tile];
            write_entry(elements, at, triangle, indices);
        };
        int again_below, again_all; /* the same as below, all */
        lane_ranks(l, columns, &again_below, &again_all, write_tile);
        if (l.single)
            write_tile(l.tile, below, all);
        __syncthreads();
        for (int t = threadIdx.x; t < tiles; t += BIN_THREADS) {
            cursor[t] = next_cursor[t];
            for (int w = 0; w < BIN_WARPS; w++)
                warp_count[w][t] = 0;
        }
        __syncthreads();
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
    tiles_scratch *table = (tiles_scratch *)scratch;
    /* Entries: a triangle's indices, or a number (pulled triangle, point). */
    const uint32_t *entry_indices = source->entry_is_number ? NULL : source->indices;
    int vertices = source->indices ? 3 : 1;
    k_tiles_count<<<BIN_BLOCKS, BIN_THREADS, 0, s>>>(order, visible, count,
                                                     source->primitive_rects, *grid, rects,
                                                     table);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_count");
    k_tiles_scan_blocks<<<tiles, BIN_BLOCKS, 0, s>>>(table);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scan_blocks");
    k_tiles_scan_tiles<<<1, TILE_SCAN_THREADS, 0, s>>>(visible, count, tiles,
                                                       entry_indices ? 3 : 1, vertices, capacity,
                                                       table, commands);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scan_tiles");
    k_tiles_scatter<<<BIN_BLOCKS, BIN_THREADS, 0, s>>>(order, visible, count, entry_indices,
                                                       *grid, rects, table, elements);
    DS_CUDA_TRY_LAUNCH("tiles", "k_tiles_scatter");
    return DS_OK;
}
