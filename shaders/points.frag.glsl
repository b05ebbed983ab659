#version 450 core
// points.frag.glsl — cuts the square point sprite to a disc.
in vec4 vertex_color;
out vec4 fragment_color;

void main()
{
    vec2 from_centre = gl_PointCoord * 2.0 - 1.0;
    if (dot(from_centre, from_centre) > 1.0)
        discard;
    fragment_color = vertex_color;
}
