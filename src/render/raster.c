/* SPDX-License-Identifier: MIT */
/* raster.c — the raster path table (raster_registry.h) and the calls
 * through it (raster.h). */
#include "raster.h"

#include <stdlib.h>

static const ds_raster_backend *const backends[DS_RASTER_PATH_COUNT] = {
#define DS_RASTER_ROW(ID, name, file, summary) [DS_RASTER_##ID] = &ds_raster_##file,
    DS_RASTER_REGISTRY(DS_RASTER_ROW)
#undef DS_RASTER_ROW
};

const ds_raster_backend *ds_render_raster_backend(ds_raster_path path)
{
    return (unsigned)path < DS_RASTER_PATH_COUNT ? backends[path] : NULL;
}

ds_status ds_render_raster_create(ds_renderer *renderer)
{
    const ds_raster_backend *backend = ds_render_raster_backend(renderer->settings.raster);
    if (!backend)
        return ds_fail(DS_ERR_INVALID_ARG, "render: raster path %d is not in the registry",
                       (int)renderer->settings.raster);
    void **state = &renderer->raster_state[renderer->settings.raster];
    if (*state)
        return DS_OK;
    if (!(*state = calloc(1, backend->state_size ? backend->state_size : 1)))
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    return backend->create(renderer, *state);
}

ds_status ds_render_raster_draw(ds_renderer *renderer, const frame_plan *plan,
                                frame_record *record)
{
    /* The compute technique draws with the compute path whatever the
     * renderer's path (its state is made when the technique is chosen). */
    ds_raster_path path = plan->compute ? DS_RASTER_COMPUTE : renderer->settings.raster;
    if (!renderer->raster_state[path])
        return ds_fail(DS_ERR_INVALID_ARG, "render: the %s raster path was not made",
                       ds_raster_path_name(path));
    return backends[path]->draw(renderer, renderer->raster_state[path], plan, record);
}

ds_status ds_render_rasters_resize(ds_renderer *renderer)
{
    for (int r = 0; r < DS_RASTER_PATH_COUNT; r++) {
        ds_status status = renderer->raster_state[r] && backends[r]->resize
                               ? backends[r]->resize(renderer, renderer->raster_state[r])
                               : DS_OK;
        if (status)
            return status;
    }
    return DS_OK;
}

void ds_render_rasters_free(ds_renderer *renderer)
{
    for (int r = 0; r < DS_RASTER_PATH_COUNT; r++) {
        if (renderer->raster_state[r] && backends[r]->free)
            backends[r]->free(renderer, renderer->raster_state[r]);
        free(renderer->raster_state[r]);
        renderer->raster_state[r] = NULL;
    }
}
