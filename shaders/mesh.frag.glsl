// mesh.frag.glsl — a translucent surface under the headlight (shade.glsl),
// lit on both sides: ds_surface() is the fragment's straight-alpha colour.
// Every technique compiles this file, then its own main: blend.frag.glsl
// (the sorted and unsorted draws, blended by GL), abuffer_store, peel or
// wboit_accumulate — so they all shade a fragment the same way.
in vec4 vertex_color;
in vec3 vertex_normal;
in vec3 to_eye;

vec4 ds_surface()
{
    // |n·v| of the unnormalised pair: one inverse square root.
    float cosine = abs(dot(vertex_normal, to_eye)) *
                   inversesqrt(dot(vertex_normal, vertex_normal) * dot(to_eye, to_eye));
    return ds_shade(vertex_color, min(cosine, 1.0));
}
