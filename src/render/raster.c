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

void ds_render_raster_draw(ds_renderer *renderer, const frame_plan *plan, frame_record *record)
{
    backends[renderer->settings.raster]->draw(
        renderer, renderer->raster_state[renderer->settings.raster], plan, record);
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
