// SPDX-License-Identifier: MIT
// mesh_pull.vert.glsl — translucent triangles by vertex pulling: vertex
// gl_VertexID is corner gl_VertexID % 3 of the triangle at sorted position
// gl_VertexID / 3, so a plain glDrawArrays of 3 x triangles draws them in
// the sorted order with no index buffer to write. The same outputs as
// mesh.vert.glsl, from the same attribute buffer.
layout(std430, binding = 0) readonly buffer SortedTriangles { uint sorted_triangles[]; };
layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Positions { float positions[]; };
// Per vertex the RGBA8 colour, then the normal as signed 10:10:10:2; with
// normals_only the normal alone (renderer.c)
layout(std430, binding = 3) readonly buffer Attributes { uint attribute_words[]; };

out vec4 vertex_color;


void main()
{
    uint triangle = sorted_triangles[gl_VertexID / 3];
    uint v = indices[3u * triangle + uint(gl_VertexID % 3)];
    vec3 position = vec3(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
    uvec2 words = normals_only != 0 ? uvec2(attribute_words[v], 0u)
                                    : uvec2(attribute_words[2u * v], attribute_words[2u * v + 1u]);
    vec4 color;
    vec3 normal;
    ds_vertex_words(words, color, normal);
    gl_Position = view_projection * vec4(position, 1.0);
    vec4 base = vec4(ds_base_color(color.rgb, normal, position), color.a * alpha);
    vertex_color = ds_shade(base, ds_view_cosine(normal, position));
}
