#version 450 core
// mesh_pull.vert.glsl — translucent triangles by vertex pulling: vertex
// gl_VertexID is corner gl_VertexID % 3 of the triangle at sorted position
// gl_VertexID / 3, so a plain glDrawArrays of 3 x triangles draws them in
// the sorted order with no index buffer to write. The same clip position
// and straight-alpha colour as mesh.vert.glsl.
layout(std430, binding = 0) readonly buffer SortedTriangles { uint sorted_triangles[]; };
layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Positions { float positions[]; };
layout(std430, binding = 3) readonly buffer Colors { uint colors[]; }; // RGBA8

layout(location = 0) uniform mat4 view_projection;
layout(location = 1) uniform float alpha;

out vec4 vertex_color;

void main()
{
    uint triangle = sorted_triangles[gl_VertexID / 3];
    uint v = indices[3u * triangle + uint(gl_VertexID % 3)];
    vec3 position = vec3(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
    vec4 color = unpackUnorm4x8(colors[v]);
    gl_Position = view_projection * vec4(position, 1.0);
    vertex_color = vec4(color.rgb, color.a * alpha);
}
