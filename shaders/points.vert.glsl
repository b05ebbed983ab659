#version 450 core
// points.vert.glsl — round splats whose on-screen diameter is a world-space
// size under the perspective projection (nearer points are larger).
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;

layout(location = 0) uniform mat4 view_projection;
layout(location = 1) uniform float alpha;
// World diameter times the projection's y scale times half the viewport
// height: dividing by clip w gives the diameter in pixels.
layout(location = 2) uniform float point_scale;

out vec4 vertex_color;

void main()
{
    gl_Position = view_projection * vec4(position, 1.0);
    gl_PointSize = max(point_scale / max(gl_Position.w, 1e-6), 1.0);
    vertex_color = vec4(color.rgb, color.a * alpha);
}
