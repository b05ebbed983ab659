#version 450 core
// mesh.frag.glsl — flat translucent colour; blending (straight alpha, back
// to front) is set by the renderer.
in vec4 vertex_color;
out vec4 fragment_color;

void main()
{
    fragment_color = vertex_color;
}
