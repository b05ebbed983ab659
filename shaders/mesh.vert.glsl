// SPDX-License-Identifier: MIT
// mesh.vert.glsl — translucent triangles, indexed: clip position, the
// colour of the mode (shade.glsl, with the straight alpha: vertex alpha
// times the global alpha) lit by the headlight at this vertex
// (shade.glsl: per-vertex lighting and why).
layout(location = 0) in vec3 position;
// RGBA8 colour, then the normal as signed 10:10:10:2 (renderer.c)
layout(location = 1) in uvec2 attributes;

out vec4 vertex_color;

void main()
{
    vec4 color;
    vec3 normal;
    ds_vertex_words(attributes, color, normal);
    gl_Position = view_projection * vec4(position, 1.0);
    vec4 base = vec4(ds_base_color(color.rgb, normal, position), color.a * alpha);
    vertex_color = ds_shade(base, ds_view_cosine(normal, position));
}
