// mesh.vert.glsl — translucent triangles, indexed: clip position, the
// colour of the mode (shade.glsl, with the straight alpha: vertex alpha
// times the global alpha), and for the headlight the normal and the
// direction to the eye.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 2) in vec4 normal;

out vec4 vertex_color;
out vec3 vertex_normal;
out vec3 to_eye;

void main()
{
    gl_Position = view_projection * vec4(position, 1.0);
    vertex_normal = normal.xyz;
    to_eye = eye - position;
    vertex_color = vec4(ds_base_color(color.rgb, normal.xyz, position), color.a * alpha);
}
