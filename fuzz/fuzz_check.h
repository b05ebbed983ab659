/* fuzz_check.h — the invariants every successfully loaded mesh must hold;
 * a fuzz target aborts (a finding) when one is broken. */
#ifndef DS_FUZZ_CHECK_H
#define DS_FUZZ_CHECK_H

#include <math.h>
#include <stdlib.h>

#include "load.h"

static void check_loaded_mesh(ds_status status, const ds_mesh *mesh)
{
    if (status != DS_OK) {
        /* Failure leaves the mesh empty and a message behind. */
        if (mesh->positions || mesh->indices || mesh->vertex_count || ds_last_error()[0] == '\0')
            abort();
        return;
    }
    if (mesh->vertex_count == 0 || !mesh->positions || !mesh->normals || !mesh->colors)
        abort();
    if (mesh->triangle_count > 0 && !mesh->indices)
        abort();
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        if (!isfinite(mesh->positions[i]) || !isfinite(mesh->normals[i]))
            abort();
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        if (mesh->indices[i] >= mesh->vertex_count)
            abort();
}

#endif
