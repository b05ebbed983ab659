/* SPDX-License-Identifier: MIT */
/* kernels_none.c — the launchers of kernels/render (distance.h, tiles.h)
 * in a build without CUDA (src/CMakeLists.txt builds it in place of the
 * .cu files). Only the renderer's CUDA path calls them, and without CUDA
 * no device drives GL, so that path never runs: each says so and fails. */
#include "distance.h"
#include "tiles.h"

static ds_status no_cuda(const char *kernel)
{
    return ds_fail(DS_ERR_NO_DEVICE, "render: %s: this build has no CUDA", kernel);
}

ds_status ds_point_keys(const float *positions, size_t vertex_count, const float eye[3],
                        ds_key_range range, ds_key_narrow narrow, const ds_keys_tiles *tiles,
                        float *keys, float *full_keys, uint32_t *values, ds_stream stream)
{
    (void)positions; (void)vertex_count; (void)eye; (void)range; (void)narrow; (void)tiles;
    (void)keys; (void)full_keys; (void)values; (void)stream;
    return no_cuda("point keys");
}

ds_status ds_triangle_keys(const uint32_t *indices, size_t triangle_count,
                           const float *positions, const float eye[3], ds_triangle_key key,
                           ds_key_range range, ds_key_narrow narrow, const ds_cull_view *cull,
                           const ds_keys_tiles *tiles, int sm_count, uint32_t *visible,
                           float *keys, float *full_keys, uint32_t *values, ds_stream stream)
{
    (void)indices; (void)triangle_count; (void)positions; (void)eye; (void)key; (void)range;
    (void)narrow; (void)cull; (void)tiles; (void)sm_count; (void)visible; (void)keys;
    (void)full_keys; (void)values; (void)stream;
    return no_cuda("triangle keys");
}

ds_status ds_draw_command(const uint32_t *visible, int indexed, uint32_t *command,
                          ds_stream stream)
{
    (void)visible; (void)indexed; (void)command; (void)stream;
    return no_cuda("draw command");
}

ds_status ds_scatter_indices(const uint32_t *order, size_t count, const uint32_t *indices,
                             int per, uint32_t *elements, ds_stream stream)
{
    (void)order; (void)count; (void)indices; (void)per; (void)elements; (void)stream;
    return no_cuda("scatter");
}

size_t ds_tiles_scratch_bytes(void)
{
    return 0;
}

ds_status ds_tiles_bin(const uint32_t *order, const uint32_t *visible, size_t count,
                       const ds_tiles_source *source, const ds_tile_grid *grid,
                       uint32_t *rects, void *scratch, uint32_t *elements, size_t capacity,
                       uint32_t *commands, ds_stream stream)
{
    (void)order; (void)visible; (void)count; (void)source; (void)grid; (void)rects;
    (void)scratch; (void)elements; (void)capacity; (void)commands; (void)stream;
    return no_cuda("tile binning");
}
