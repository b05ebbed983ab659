// SPDX-License-Identifier: MIT
// points.vert.glsl — splats whose on-screen diameter is a world-space size
// under the perspective projection (nearer points are larger), coloured
// as mesh.vert.glsl colours vertices.
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
    gl_PointSize = max(point_scale / max(gl_Position.w, 1e-6), 1.0);
    vertex_color = vec4(ds_base_color(color.rgb, normal, position), color.a * alpha);
}
