// SPDX-License-Identifier: MIT
// mesh.frag.glsl — a translucent surface under the headlight (shade.glsl),
// lit on both sides per vertex: ds_surface() is the fragment's
// straight-alpha colour, the vertex stage's interpolated.
// Every technique compiles this file, then its own main: blend.frag.glsl
// (the sorted and unsorted draws, blended by GL), abuffer_store, peel or
// wboit_accumulate — so they all shade a fragment the same way.
in vec4 vertex_color;

vec4 ds_surface()
{
    return vertex_color;
}
