/* SPDX-License-Identifier: MIT */
/* load_budget.c — the memory budget both parsers check from a header's
 * counts before they allocate (load_private.h, ds_load_check_budget): the
 * peak host memory of the mesh and of ds_mesh_finish() against what the
 * caller's budget or the machine allows. Its own file so that the parsers
 * (ply.c, obj.c) and the loader that calls them (load.c) depend on it, and
 * not on each other both ways. */
#include "host_memory.h"
#include "load.h"
#include "load_private.h"

/* Below this estimate the budget is not asked for (no /proc reads for the
 * small meshes of tests and fuzzers): every machine has that much. */
#define BUDGET_FREE_BYTES (64u << 20)

ds_status ds_load_check_budget(const ds_load_budget *budget, const char *name, uint64_t vertices,
                               uint64_t triangles, uint64_t held_bytes)
{
    uint64_t mesh_bytes = vertices * LOAD_MESH_BYTES_PER_VERTEX + triangles * LOAD_MESH_BYTES_PER_TRIANGLE;
    /* What the parse holds beside the mesh (the file's bytes, an OBJ's
     * normals) is freed before ds_mesh_finish() sums normals: the peak is
     * the larger of the two phases. */
    uint64_t finish_bytes = vertices * LOAD_FINISH_BYTES_PER_VERTEX;
    uint64_t peak = mesh_bytes + (held_bytes > finish_bytes ? held_bytes : finish_bytes);
    uint64_t limit = budget && budget->host_bytes ? budget->host_bytes : 0;
    if (peak > BUDGET_FREE_BYTES || limit) {
        if (!limit)
            limit = ds_host_memory_available();
        if (limit && peak > limit) {
            char need[32], have[32];
            ds_format_bytes(peak, need, sizeof need);
            ds_format_bytes(limit, have, sizeof have);
            return ds_fail(DS_ERR_TOO_LARGE,
                           "%s: %llu vertices and %llu triangles need about %s of host memory to "
                           "load; %s is available",
                           name, (unsigned long long)vertices, (unsigned long long)triangles, need,
                           have);
        }
    }
    if (budget && budget->check)
        return budget->check(budget->context, name, vertices, triangles, mesh_bytes);
    return DS_OK;
}
