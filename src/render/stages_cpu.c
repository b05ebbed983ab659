/* SPDX-License-Identifier: MIT */
/* stages_cpu.c — one frame's stages on the host, for a GL context with no
 * CUDA device behind it (Mesa, CI): the same keys (distance_math.h), the
 * cpu sort, the same element buffer contents (scatter, culled draw
 * command, or tiles.h's host binning), then one glNamedBufferSubData
 * upload. The image is the same as the CUDA path's. Stage times are host
 * wall time. The path's host copies and buffers (render_cpu) are made and
 * freed here too. */
#include "renderer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

ds_status ds_render_cpu_stages(ds_renderer *renderer, const frame_plan *plan,
                               frame_record *record)
{
    ds_status status;
    int points = plan->points;
    size_t n = plan->count;
    const float *p = renderer->cpu.positions;
    const float *eye = plan->eye;
    const ds_cull_view *cull = plan_cull(plan);
    /* Points: the distance is the key, computed straight into the keys. */
    float *distances = points ? renderer->cpu.keys : renderer->cpu.distances;
    double t0 = ds_now_ms();
    for (size_t v = 0; v < renderer->mesh.vertex_count; v++)
        distances[v] = ds_point_distance(p + 3 * v, eye[0], eye[1], eye[2]);
    double t1 = ds_now_ms();
    if (points) {
        for (size_t v = 0; v < n; v++) {
            distances[v] = ds_point_sort_key(distances[v], plan->range);
            renderer->cpu.values[v] = (uint32_t)v;
        }
    } else {
        const uint32_t *idx = renderer->cpu.indices;
        uint32_t visible = 0;
        for (size_t t = 0; t < n; t++) {
            uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
            const float *pa = p + 3 * (size_t)a, *pb = p + 3 * (size_t)b, *pc = p + 3 * (size_t)c;
            int drawn;
            renderer->cpu.keys[t] =
                ds_triangle_sort_key(renderer->settings.triangle_key, distances[a], distances[b],
                                     distances[c], pa, pb, pc, eye[0], eye[1], eye[2],
                                     plan->range, cull, &drawn);
            renderer->cpu.values[t] = (uint32_t)t;
            visible += (uint32_t)drawn;
        }
        if (cull)
            record->drawn = visible;
    }
    double t2 = ds_now_ms();
    if (plan->keep_keys)
        memcpy(renderer->verification.keys, renderer->cpu.keys, n * sizeof(float));
    if (plan->sorting) {
        ds_sorter_set_shuffle(renderer->sorter, plan->shuffle);
        if ((status = ds_sorter_sort(renderer->sorter, renderer->cpu.keys,
                                     renderer->cpu.values, n, DS_SORT_DESCENDING, 0)))
            return status;
    }
    double t3 = ds_now_ms();
    uint32_t *elements = renderer->cpu.elements;
    size_t binned_words = 0;
    if (plan->tiled) {
        /* As tiles.cu: the tiles of each drawn sorted position, binned. */
        size_t count = cull ? record->drawn : n;
        const uint32_t *entry_indices = points || plan->pull ? NULL : renderer->cpu.indices;
        ds_tiles_rects_host(renderer->cpu.values, count, points ? NULL : renderer->cpu.indices,
                            p, &plan->view, &plan->grid, plan->point_scale,
                            renderer->cpu.tile_rects);
        ds_tiles_bin_host(renderer->cpu.values, renderer->cpu.tile_rects, count,
                          entry_indices, points ? 1 : 3, &plan->grid, elements,
                          renderer->mesh.command_word, elements + renderer->mesh.command_word,
                          renderer->cpu.tile_scratch, &binned_words);
    } else if (!plan->in_place) {
        /* As distance.cu's scatter: the sorted triangles' indices. */
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                elements[3 * i + k] =
                    renderer->cpu.indices[3 * (size_t)renderer->cpu.values[i] + k];
    }
    double t4 = ds_now_ms();
    /* The uploads wait, inside GL, for earlier draws still reading the
     * buffer (one element buffer on this path). */
    GLuint buffer = renderer->cpu.element_buffer;
    GLintptr command_offset = (GLintptr)(renderer->mesh.command_word * sizeof(uint32_t));
    if (plan->tiled) {
        size_t command_words =
            (size_t)(plan->grid.columns * plan->grid.rows + 1) * DS_TILES_COMMAND_WORDS;
        glNamedBufferSubData(buffer, 0, (GLsizeiptr)(binned_words * sizeof(uint32_t)), elements);
        glNamedBufferSubData(buffer, command_offset,
                             (GLsizeiptr)(command_words * sizeof(uint32_t)),
                             elements + renderer->mesh.command_word);
    } else {
        int per = plan->in_place ? 1 : 3;
        glNamedBufferSubData(buffer, 0, (GLsizeiptr)(n * per * sizeof(uint32_t)),
                             per == 1 ? renderer->cpu.values : elements);
        if (cull) {
            /* The command distance.cu's ds_draw_command() writes. */
            uint32_t command[DRAW_COMMAND_WORDS] = {0};
            ds_cull_draw_command(record->drawn, !plan->pull, command);
            glNamedBufferSubData(buffer, command_offset, sizeof command, command);
        }
    }
    double t5 = ds_now_ms();
    record->host_stage_ms[EV_DISTANCES] = (float)(t1 - t0);
    record->host_stage_ms[EV_KEYS] = (float)(t2 - t1);
    record->host_stage_ms[EV_SORT] = (float)(t3 - t2);
    record->host_stage_ms[EV_SCATTER] = (float)(t4 - t3);
    record->host_interop_ms = (float)(t5 - t4);
    return DS_OK;
}

/* ---- the path's objects (renderer_internal.h, render_cpu) ----------------- */

ds_status ds_render_cpu_create(ds_renderer *renderer, const ds_mesh *mesh)
{
    ds_status status = DS_OK;
    size_t v = mesh->vertex_count, t = mesh->triangle_count;
    size_t most = v > t ? v : t;
    const GLubyte *name = glGetString(GL_RENDERER);
    snprintf(renderer->gpu_name, sizeof renderer->gpu_name, "%s",
             name ? (const char *)name : "unknown GL renderer");
    renderer->cpu.positions = ds_render_host_alloc(3 * v, sizeof(float), &status);
    renderer->cpu.distances = ds_render_host_alloc(v, sizeof(float), &status);
    renderer->cpu.keys = ds_render_host_alloc(most, sizeof(float), &status);
    renderer->cpu.values = ds_render_host_alloc(most, sizeof(uint32_t), &status);
    renderer->cpu.elements =
        ds_render_host_alloc(renderer->mesh.element_capacity, sizeof(uint32_t), &status);
    if (status)
        return status;
    memcpy(renderer->cpu.positions, mesh->positions, 3 * v * sizeof(float));
    glCreateBuffers(1, &renderer->cpu.position_buffer);
    glNamedBufferStorage(renderer->cpu.position_buffer,
                         (GLsizeiptr)((v ? 3 * v : 1) * sizeof(float)),
                         mesh->positions, 0);
    glCreateBuffers(1, &renderer->cpu.element_buffer);
    glNamedBufferStorage(renderer->cpu.element_buffer,
                         (GLsizeiptr)(renderer->mesh.element_capacity * sizeof(uint32_t)),
                         NULL, GL_DYNAMIC_STORAGE_BIT);
    return DS_OK;
}

void ds_render_cpu_free(ds_renderer *renderer)
{
    render_cpu *cpu = &renderer->cpu;
    if (cpu->position_buffer)
        glDeleteBuffers(1, &cpu->position_buffer);
    if (cpu->element_buffer)
        glDeleteBuffers(1, &cpu->element_buffer);
    free(cpu->indices);
    free(cpu->positions);
    free(cpu->distances);
    free(cpu->keys);
    free(cpu->values);
    free(cpu->elements);
    free(cpu->tile_rects);
    free(cpu->tile_scratch);
    memset(cpu, 0, sizeof *cpu);
}
