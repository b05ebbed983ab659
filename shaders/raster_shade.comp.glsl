// SPDX-License-Identifier: MIT
// raster_shade.comp.glsl — the compute raster's vertex pass
// (compute_raster.c), after shade.glsl, raster_setup.glsl and
// raster_slots.glsl: each vertex shaded once a frame
// (ds_raster_shade_vertex, mesh_pull.vert.glsl's shading) into
// vertex_colors, from which the emits' triangle corners take their
// colours, instead of shading every corner of every triangle (six
// corners a vertex in a closed mesh). It runs beside the small count,
// which reads no colour; the count's barriers order it before the emits.

layout(location = 21) uniform uint vertex_count;

void main()
{
    uint v = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * RASTER_THREADS +
             gl_LocalInvocationID.x;
    if (v < vertex_count)
        vertex_colors[v] = ds_raster_shade_vertex(v);
}
