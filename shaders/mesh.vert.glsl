#version 450 core
// mesh.vert.glsl — translucent triangles: clip position and straight-alpha
// colour (vertex colour alpha times the global alpha).
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;

layout(location = 0) uniform mat4 view_projection;
layout(location = 1) uniform float alpha;

out vec4 vertex_color;

void main()
{
    gl_Position = view_projection * vec4(position, 1.0);
    vertex_color = vec4(color.rgb, color.a * alpha);
}
