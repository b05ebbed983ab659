// mesh.vert.glsl — translucent triangles, indexed: clip position, the
// colour of the mode (shade.glsl, with the straight alpha: vertex alpha
// times the global alpha) lit by the headlight at this vertex
// (shade.glsl: per-vertex lighting and why).
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 2) in vec4 normal;

out vec4 vertex_color;


void main()
{
    gl_Position = view_projection * vec4(position, 1.0);
    float cosine_ = ds_view_cosine(normal.xyz, position);
    vertex_color = vec4(ds_base_color(color.rgb, normal.xyz, position), color.a * alpha);
    vertex_color = ds_shade(vertex_color, cosine_);
}
