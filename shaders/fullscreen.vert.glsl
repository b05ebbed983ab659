// SPDX-License-Identifier: MIT
// fullscreen.vert.glsl — one triangle that covers the viewport (vertices
// (-1,-1), (3,-1), (-1,3)), drawn with glDrawArrays(GL_TRIANGLES, 0, 3) and
// no attributes: the resolve and composite passes run once per pixel.
void main()
{
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(2.0 * corner - 1.0, 0.0, 1.0);
}
