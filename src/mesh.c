/* mesh.c — placeholder until the foundation issue lands. */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

void ds_mesh_free(ds_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->colors);
    free(mesh->indices);
    memset(mesh, 0, sizeof *mesh);
}
ds_status ds_mesh_finish(ds_mesh *mesh) { (void)mesh; return ds_fail(DS_ERR_NOT_BUILT, "mesh: not built yet"); }
void ds_mesh_compute_bounds(ds_mesh *mesh) { (void)mesh; }
ds_status ds_mesh_grid(const ds_mesh *src, int nx, int ny, ds_mesh *dest) { (void)src; (void)nx; (void)ny; (void)dest; return ds_fail(DS_ERR_NOT_BUILT, "grid: not built yet"); }
