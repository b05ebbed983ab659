/* SPDX-License-Identifier: MIT */
/* fuzz_check.h — the invariants every successfully loaded mesh must hold;
 * a fuzz target aborts (a finding) when one is broken. */
#ifndef DS_FUZZ_CHECK_H
#define DS_FUZZ_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    /* mesh.h: normals are unit length after ds_mesh_finish. */
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        const float *n = mesh->normals + 3 * v;
        double length_sq = (double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2];
        if (fabs(length_sq - 1.0) > 1e-4)
            abort();
    }
    /* The loader names the format it parsed (--info prints it). */
    if (!mesh->format ||
        (strcmp(mesh->format, "ply-ascii") && strcmp(mesh->format, "ply-binary-le") &&
         strcmp(mesh->format, "ply-binary-be") && strcmp(mesh->format, "obj")))
        abort();
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        if (mesh->indices[i] >= mesh->vertex_count)
            abort();
}

#endif
