// SPDX-License-Identifier: MIT
// stage_scatter.comp.glsl — the GL stages' scatter (gl_stages.c), as
// distance.cu's k_distance_scatter: the sorted triangles' three indices
// into the element buffer for the indexed draw, every sorted position (the
// culled ones too, after the drawn ones), so the buffer holds the CUDA
// path's words.
//
// Prepended by gl_stages.c: #version, SCATTER_THREADS.
// Invocation i owns sorted positions i, i + grid, ... (a grid-stride loop
// over a grid capped by gl_stages.c).

layout(local_size_x = SCATTER_THREADS) in;

layout(location = 0) uniform uint count;

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer Values { uint order[]; };
layout(std430, binding = 4) writeonly buffer Elements { uint elements[]; };

void main()
{
    uint stride = gl_NumWorkGroups.x * uint(SCATTER_THREADS);
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        uint triangle = order[i];
        elements[3u * i] = indices[3u * triangle];
        elements[3u * i + 1u] = indices[3u * triangle + 1u];
        elements[3u * i + 2u] = indices[3u * triangle + 2u];
    }
}
