// points.vert.glsl — splats whose on-screen diameter is a world-space size
// under the perspective projection (nearer points are larger), coloured
// as mesh.vert.glsl colours vertices.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 2) in vec4 normal;

out vec4 vertex_color;

void main()
{
    gl_Position = view_projection * vec4(position, 1.0);
    gl_PointSize = max(point_scale / max(gl_Position.w, 1e-6), 1.0);
    vertex_color = vec4(ds_base_color(color.rgb, normal.xyz, position), color.a * alpha);
}
