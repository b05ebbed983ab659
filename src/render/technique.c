/* SPDX-License-Identifier: MIT */
/* technique.c — the technique table (technique_registry.h) and the calls
 * through it (technique.h): each technique's state made on first use,
 * its GL errors counted while it prepares, and the frees. */
#include "technique.h"

#include <stdlib.h>

static const ds_technique_backend *const backends[DS_TECHNIQUE_COUNT] = {
#define DS_TECHNIQUE_ROW(ID, name, file, label, cycle, summary) \
    [DS_TECHNIQUE_##ID] = &ds_technique_##file,
    DS_TECHNIQUE_REGISTRY(DS_TECHNIQUE_ROW)
#undef DS_TECHNIQUE_ROW
};

const ds_technique_backend *ds_render_technique_backend(ds_technique technique)
{
    return (unsigned)technique < DS_TECHNIQUE_COUNT ? backends[technique] : NULL;
}

ds_status ds_render_technique_prepare(ds_renderer *renderer, ds_technique technique)
{
    const ds_technique_backend *backend = ds_render_technique_backend(technique);
    if (!backend)
        return ds_fail(DS_ERR_INVALID_ARG, "render: technique %d is not in the registry",
                       (int)technique);
    void **state = &renderer->technique_state[technique];
    if (!*state && backend->state_size) {
        if (!(*state = calloc(1, backend->state_size)))
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    }
    if (!backend->prepare)
        return DS_OK;
    unsigned errors = renderer->gl.errors;
    ds_status status = backend->prepare(renderer, *state);
    if (status == DS_OK && renderer->gl.errors != errors)
        return ds_fail(DS_ERR_GL, "render: %u GL errors while making the %s technique's objects",
                       renderer->gl.errors - errors, ds_technique_name(technique));
    return status;
}

ds_status ds_render_technique_frame(ds_renderer *renderer, const frame_plan *plan,
                                    frame_record *record)
{
    ds_status status;
    /* Made at set_technique and resize; here only if a resize failed. */
    if ((status = ds_render_technique_prepare(renderer, renderer->settings.technique)))
        return status;
    return backends[renderer->settings.technique]->frame(
        renderer, renderer->technique_state[renderer->settings.technique], plan, record);
}

void ds_render_techniques_free_images(ds_renderer *renderer)
{
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++)
        if (renderer->technique_state[t] && backends[t]->free_images)
            backends[t]->free_images(renderer, renderer->technique_state[t]);
}

void ds_render_techniques_free(ds_renderer *renderer)
{
    for (int t = 0; t < DS_TECHNIQUE_COUNT; t++) {
        if (renderer->technique_state[t] && backends[t]->free)
            backends[t]->free(renderer, renderer->technique_state[t]);
        free(renderer->technique_state[t]);
        renderer->technique_state[t] = NULL;
    }
}
