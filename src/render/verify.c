/* SPDX-License-Identifier: MIT */
/* verify.c — ds_renderer_verify(): an off-line check (a host round trip,
 * allocating) that the last frame's element buffer, as GL reads it, holds
 * the right sorted order. The order must be a permutation whose key
 * sequence equals the cpu sort's of the same keys (ties may come in any
 * order); an indexed frame's buffer must hold each sorted triangle's
 * indices, a pulled frame's index buffer the mesh's, a binned frame's
 * buffer what ds_tiles_bin_host() makes of the order (and its sort values
 * the tile codes of the tiles found, tiles.h), and on the CUDA path
 * GL's view of the buffer must match CUDA's. The GL stages' sort is
 * stable, so their order must be the cpu sort's exactly, ties included.
 * Its buffers (render_verification) are made and freed here. */
#include "raster_compute.h"
#include "renderer_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

/* The sort's view of a key: the top `bits` bits of its order-preserving
 * transform, -0 as +0 and every NaN alike (sort.h's semantics). */
static uint32_t sort_key(float key, int bits)
{
    uint32_t u;
    if (isnan(key))
        return UINT32_MAX >> (32 - bits);
    if (key == 0.0f)
        key = 0.0f;
    memcpy(&u, &key, sizeof u);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return u >> (32 - bits);
}

/* GL's view of an element buffer (`gl`, n entries) against CUDA's. */
static ds_status same_as_cuda_view(const uint32_t *gl, const uint32_t *cuda_view, size_t n,
                                   uint64_t frame)
{
    uint32_t *written = malloc(n * sizeof(uint32_t) + 1);
    if (!written)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    ds_status status = DS_OK;
    if (cudaMemcpy(written, cuda_view, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) !=
        cudaSuccess) {
        cudaGetLastError();
        status = ds_fail(DS_ERR_CUDA, "verify: reading CUDA's view of the element buffer failed");
    }
    for (size_t i = 0; status == DS_OK && i < n; i++)
        if (gl[i] != written[i])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: element buffer entry %zu is %u in GL but "
                             "CUDA wrote %u",
                             (unsigned long long)frame, i, gl[i], written[i]);
    free(written);
    return status;
}

/* Pulling: the shader's index buffer must hold the mesh's indices. */
static ds_status check_index_buffer(const ds_renderer *renderer)
{
    size_t count = 3 * renderer->mesh.triangle_count;
    uint32_t *gl = malloc(count * sizeof(uint32_t) + 1);
    if (!gl)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    glGetNamedBufferSubData(renderer->gl.index_buffer, 0, (GLsizeiptr)(count * sizeof(uint32_t)),
                            gl);
    ds_status status = DS_OK;
    for (size_t i = 0; status == DS_OK && i < count; i++)
        if (gl[i] != renderer->cpu.indices[i])
            status = ds_fail(DS_ERR_MISMATCH, "verify: index buffer entry %zu is %u, "
                             "the mesh says %u", i, gl[i], renderer->cpu.indices[i]);
    free(gl);
    return status;
}

/* A binned CUDA frame whose sort values carry tile codes: the sorted
 * values on the device against the primitives values[] and the tiles the
 * keys pass found, rects[], for the first `count`. */
static ds_status check_codes(const ds_renderer *renderer, const frame_plan *plan,
                             const uint32_t *values, const uint32_t *rects, size_t count)
{
    uint32_t *sorted = malloc(count * sizeof(uint32_t) + 1);
    if (!sorted)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    ds_status status = DS_OK;
    if (cudaMemcpy(sorted, renderer->cuda.sorted_values, count * sizeof(uint32_t),
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        status = ds_fail(DS_ERR_CUDA, "verify: reading the sorted values failed");
    }
    if (status == DS_OK)
        status = ds_render_check_codes(plan, sorted, values, rects, count);
    free(sorted);
    return status;
}

/* A binned frame: the element buffer GL read (host_verify_elements) must
 * hold what ds_tiles_bin_host() makes of the sorted order `values` and the
 * tiles the frame found for each sorted position. */
static ds_status check_tiles(ds_renderer *renderer, const frame_plan *plan,
                             const uint32_t *values, uint32_t gl_drawn)
{
    uint64_t frame = plan->frame;
    const frame_record *record = &renderer->timing.records[frame % TIMING_RING];
    size_t count = plan->count;
    uint32_t *rects = renderer->cpu.tile_rects;
    if (plan->gl) {
        /* read back with the keys (ds_renderer_verify) */
        count = gl_drawn < count ? gl_drawn : count;
    } else if (!renderer->settings.cpu_path) {
        uint32_t visible = (uint32_t)count;
        if (record->culled)
            DS_CUDA_TRY("verify", cudaMemcpy(&visible, renderer->cuda.visible, sizeof visible,
                                             cudaMemcpyDeviceToHost));
        count = visible < count ? visible : count;
        DS_CUDA_TRY("verify", cudaMemcpy(rects, renderer->cuda.tile_rects, count * sizeof(uint32_t),
                                         cudaMemcpyDeviceToHost));
        ds_status status;
        if (plan->value_shift && (status = check_codes(renderer, plan, values, rects, count)))
            return status;
    } else if (record->culled) {
        count = record->drawn;
    }
    const ds_tile_grid *grid = &plan->grid;
    size_t command_words = (size_t)(grid->columns * grid->rows + 1) * DS_TILES_COMMAND_WORDS;
    uint32_t *expected = malloc((renderer->mesh.command_word + command_words) * sizeof(uint32_t));
    if (!expected)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    size_t used = 0;
    int points = plan->points;
    const uint32_t *entry_indices = points || plan->pull ? NULL : renderer->cpu.indices;
    ds_tiles_bin_host(values, rects, count, entry_indices, points ? 1 : 3, grid, expected,
                      renderer->mesh.command_word, expected + renderer->mesh.command_word,
                      renderer->cpu.tile_scratch, &used);
    const uint32_t *gl = renderer->verification.elements;
    ds_status status = DS_OK;
    for (size_t i = 0; status == DS_OK && i < used; i++)
        if (gl[i] != expected[i])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: binned element buffer word %zu is %u, "
                             "expected %u", (unsigned long long)frame, i, gl[i], expected[i]);
    for (size_t i = 0; status == DS_OK && i < command_words; i++) {
        size_t at = renderer->mesh.command_word + i;
        if (gl[at] != expected[at])
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu: word %zu of tile %zu's draw command is %u, "
                             "expected %u", (unsigned long long)frame,
                             i % DS_TILES_COMMAND_WORDS, i / DS_TILES_COMMAND_WORDS, gl[at],
                             expected[at]);
    }
    free(expected);
    return status;
}

/* The last frame as GL drew it and as the stages wrote it: the keys
 * before the sort into verification.keys, the sorted order into
 * verification.values (primitive numbers), the element buffer GL read into
 * verification.elements; *gl_drawn the count a GL frame drew, *cuda_view
 * CUDA's pointer to the element buffer (NULL but on the CUDA stages).
 * In-place orders are checked against both views here. */
static ds_status read_frame(ds_renderer *renderer, const frame_plan *plan, uint32_t *gl_drawn,
                            const uint32_t **dest_cuda_view)
{
    ds_status status;
    uint64_t frame = plan->frame;
    int in_place = plan->in_place;
    size_t n = plan->count;
    int per = in_place ? 1 : 3;
    *gl_drawn = (uint32_t)n;
    uint32_t *values = renderer->verification.values;
    if (plan->gl) {
        /* The GL stages' keys before the sort, the sorted order, and the
         * binned frame's tiles, as GL holds them. */
        if ((status = ds_render_gl_stages_read_back(renderer, plan, renderer->verification.keys,
                                                    values, renderer->cpu.tile_rects,
                                                    gl_drawn)))
            return status;
    } else if (!renderer->settings.cpu_path) {
        DS_CUDA_TRY("render", cudaMemcpy(renderer->verification.keys, renderer->cuda.verify_keys,
                                         n * sizeof(float), cudaMemcpyDeviceToHost));
    }
    GLuint element_buffer = ds_render_frame_elements(renderer, plan);
    /* What the draw read: a GPU copy inside GL, then a read-back of the
     * copy. (Reading an element buffer that lives in imported CUDA memory
     * back directly can return data GL cached at an earlier read-back: GL
     * does not know that CUDA wrote it, without a semaphore.) */
    GLsizeiptr element_bytes = (GLsizeiptr)((plan->tiled ? renderer->mesh.element_capacity
                                                                   : n * per) *
                                            sizeof(uint32_t));
    glCopyNamedBufferSubData(element_buffer, renderer->verification.copy_buffer, 0, 0,
                             element_bytes);
    glGetNamedBufferSubData(renderer->verification.copy_buffer, 0, element_bytes,
                            renderer->verification.elements);
    const uint32_t *cuda_view = renderer->settings.cpu_path || plan->gl ? NULL
        : ds_interop_element_pointer(renderer->cuda.interop, plan->slot);
    if (plan->gl) {
        /* The sorted order came with the keys; in place, it must also be
         * what the draw read. */
        for (size_t i = 0; in_place && i < n; i++)
            if (values[i] != renderer->verification.elements[i])
                return ds_fail(DS_ERR_MISMATCH,
                               "verify: frame %llu: element buffer entry %zu is %u in the "
                               "draw's copy but %u in the GL stages' order",
                               (unsigned long long)frame, i, renderer->verification.elements[i],
                               values[i]);
        if (in_place && plan->pull && (status = check_index_buffer(renderer)))
            return status;
    } else if (in_place) {
        /* The element buffer is the sorted order itself: check the order
         * the draw reads, and that CUDA's view of it agrees. */
        memcpy(values, renderer->verification.elements, n * sizeof(uint32_t));
        if (cuda_view && (status = same_as_cuda_view(values, cuda_view, n, frame)))
            return status;
        if (plan->pull && (status = check_index_buffer(renderer)))
            return status;
    } else if (renderer->settings.cpu_path) {
        memcpy(values, renderer->cpu.values, n * sizeof(uint32_t));
    } else {
        DS_CUDA_TRY("render", cudaMemcpy(values, renderer->cuda.sorted_values,
                                         n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        /* The primitives; check_tiles() checks the tile codes. */
        for (size_t i = 0; plan->value_shift && i < n; i++)
            values[i] = ds_tiles_value_primitive(values[i], plan->value_shift);
    }
    *dest_cuda_view = cuda_view;
    return DS_OK;
}

/* The frame's camera must be finite. A NaN or infinite eye or matrix makes
 * the keys NaN, or, where the frame culls, leaves every primitive out
 * (nothing projects onto a pixel centre), so the keys alone cannot show it. */
static ds_status check_camera(const frame_plan *plan)
{
    int finite = 1;
    for (int i = 0; i < 3; i++)
        finite &= isfinite(plan->eye[i]) != 0;
    for (int i = 0; i < 16; i++)
        finite &= isfinite(plan->view_projection[i]) != 0;
    if (!finite)
        return ds_fail(DS_ERR_MISMATCH,
                       "verify: frame %llu: the camera is NaN or infinite (its eye or "
                       "view-projection), so its keys are meaningless",
                       (unsigned long long)plan->frame);
    return DS_OK;
}

/* The order must be a permutation of the elements, and no key NaN. */
static ds_status check_permutation(ds_renderer *renderer, const frame_plan *plan,
                                   const char *sort_name)
{
    uint64_t frame = plan->frame;
    size_t n = plan->count;
    const uint32_t *values = renderer->verification.values;
    const float *keys = renderer->verification.keys;
    /* Distances are never NaN for finite coordinates seen from a finite
     * eye; a NaN key means the camera or the model overflowed float, and
     * the sorts would place it anywhere their semantics allow. */
    for (size_t i = 0; i < n; i++)
        if (isnan(keys[i]))
            return ds_fail(DS_ERR_MISMATCH,
                           "verify: frame %llu: the key of element %zu is NaN (the camera or the "
                           "model's coordinates overflowed float)",
                           (unsigned long long)frame, i);
    memset(renderer->verification.seen, 0, n);
    for (size_t i = 0; i < n; i++) {
        if (values[i] >= n || renderer->verification.seen[values[i]])
            return ds_fail(DS_ERR_MISMATCH,
                           "verify: frame %llu, sort %s: position %zu holds %s value %u",
                           (unsigned long long)frame, sort_name, i,
                           values[i] >= n ? "out-of-range" : "repeated", values[i]);
        renderer->verification.seen[values[i]] = 1;
    }
    return DS_OK;
}

/* The reference: the cpu sort of the same keys. The GPU order must give
 * the same key sequence (ties may come in any order; the GL sort, stable,
 * the very same order), and its indices must be what the element buffer
 * holds. */
static ds_status check_against_reference(ds_renderer *renderer, const frame_plan *plan,
                                         const char *sort_name, const uint32_t *cuda_view)
{
    ds_status status;
    uint64_t frame = plan->frame;
    int in_place = plan->in_place;
    size_t n = plan->count;
    int per = in_place ? 1 : 3;
    const uint32_t *values = renderer->verification.values;
    const float *keys = renderer->verification.keys;
    /* Verification is an off-line check, not the frame path: it may allocate. */
    float *reference_keys = NULL;
    uint32_t *reference_values = NULL;
    reference_keys = malloc(n * sizeof(float) + 1);
    reference_values = malloc(n * sizeof(uint32_t) + 1);
    if (!reference_keys || !reference_values) {
        free(reference_keys);
        free(reference_values);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "verify: out of host memory");
    }
    memcpy(reference_keys, keys, n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        reference_values[i] = (uint32_t)i;
    status = ds_sorter_sort(renderer->verification.reference_sorter, reference_keys,
                            reference_values, n, DS_SORT_DESCENDING, 0);
    for (size_t i = 0; status == DS_OK && i < n; i++) {
        /* The GL sort is stable, as the cpu sort is: the very same order,
         * ties included (what keeps its image the stable sorts' image). */
        if (plan->gl && values[i] != reference_values[i]) {
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu, sort gl: position %zu holds element %u "
                             "(key %.9g) but the stable cpu reference has %u (key %.9g)",
                             (unsigned long long)frame, i, values[i], keys[values[i]],
                             reference_values[i], reference_keys[i]);
            break;
        }
        if (sort_key(keys[values[i]], renderer->settings.key_bits) !=
            sort_key(reference_keys[i], renderer->settings.key_bits)) {
            status = ds_fail(DS_ERR_MISMATCH,
                             "verify: frame %llu, sort %s: position %zu has key %.9g "
                             "(element %u) but the cpu reference has %.9g",
                             (unsigned long long)frame, sort_name, i, keys[values[i]], values[i],
                             reference_keys[i]);
            break;
        }
        for (int k = 0; !in_place && !plan->tiled && k < per; k++) {
            uint32_t want = renderer->cpu.indices[(size_t)values[i] * 3 + k];
            if (renderer->verification.elements[i * per + k] != want) {
                /* Tell a GL visibility problem from a wrong scatter. */
                uint32_t written = want;
                if (cuda_view)
                    cudaMemcpy(&written, cuda_view + i * per + k, sizeof written,
                               cudaMemcpyDeviceToHost);
                status = ds_fail(DS_ERR_MISMATCH,
                                 "verify: frame %llu: element buffer index %zu is %u in GL, "
                                 "expected %u%s",
                                 (unsigned long long)frame, i * per + k,
                                 renderer->verification.elements[i * per + k], want,
                                 cuda_view && written == want ? " (CUDA wrote it right)" : "");
                break;
            }
        }
    }
    free(reference_keys);
    free(reference_values);
    return status;
}

ds_status ds_renderer_verify(ds_renderer *renderer)
{
    ds_status status;
    const frame_plan *plan = &renderer->verification.last_plan;
    if (renderer->settings.verify && renderer->verification.last_exact)
        return ds_render_compute_verify(renderer);
    if (!renderer->settings.verify || renderer->timing.frame_count == 0 || !plan->sorting)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "render: verify needs desc.verify, sorting on and a frame");
    /* Everything the frame enqueued, its CUDA stages and its draw, must
     * have finished before either view of its buffers is read. */
    if ((status = ds_renderer_finish(renderer)) || (status = check_camera(plan)))
        return status;
    uint32_t gl_drawn = 0;
    const uint32_t *cuda_view = NULL;
    if ((status = read_frame(renderer, plan, &gl_drawn, &cuda_view)))
        return status;
    const char *sort_name = plan->gl ? "gl" : ds_sort_algo_name(renderer->settings.algo);
    if ((status = check_permutation(renderer, plan, sort_name)) ||
        (status = check_against_reference(renderer, plan, sort_name, cuda_view)))
        return status;
    if (plan->tiled)
        status = check_tiles(renderer, plan, renderer->verification.values, gl_drawn);
    return status;
}

/* ---- verify.c's objects (renderer_internal.h, render_verification) ------- */

ds_status ds_render_verification_create(ds_renderer *renderer, size_t most)
{
    ds_status status = DS_OK;
    render_verification *check = &renderer->verification;
    check->keys = ds_render_host_alloc(most, sizeof(float), &status);
    check->values = ds_render_host_alloc(most, sizeof(uint32_t), &status);
    check->elements =
        ds_render_host_alloc(renderer->mesh.element_capacity, sizeof(uint32_t), &status);
    check->seen = ds_render_host_alloc(most, 1, &status);
    if (status || (status = ds_render_make_sorter(DS_SORT_CPU, most, renderer->settings.key_bits,
                                                  &check->reference_sorter)))
        return status;
    /* GL's view of the element buffer, copied at verify. */
    glCreateBuffers(1, &check->copy_buffer);
    glNamedBufferStorage(check->copy_buffer,
                         (GLsizeiptr)(renderer->mesh.element_capacity * sizeof(uint32_t)), NULL, 0);
    return DS_OK;
}

void ds_render_verification_free(ds_renderer *renderer)
{
    render_verification *check = &renderer->verification;
    ds_sorter_destroy(check->reference_sorter);
    if (check->copy_buffer)
        glDeleteBuffers(1, &check->copy_buffer);
    free(check->keys);
    free(check->values);
    free(check->elements);
    free(check->seen);
    check->reference_sorter = NULL;
    check->copy_buffer = 0;
    check->keys = NULL;
    check->values = check->elements = NULL;
    check->seen = NULL;
}
