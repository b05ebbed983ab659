// SPDX-License-Identifier: MIT
// points.frag.glsl — each point as a sphere impostor: the sprite cut to a
// disc, and at sprite position p (unit disc) the sphere's normal
// (p.x, -p.y, sqrt(1 - |p|^2)) in view space. The headlight shines along
// the view axis, so the cosine with the view is the normal's z, and the
// point is shaded as a surface is (shade.glsl): lit in the middle,
// darker and (with view opacity) more opaque at its rim. ds_surface() is
// the fragment's straight-alpha colour; each technique adds its main, as
// for mesh.frag.glsl.
in vec4 vertex_color;

vec4 ds_surface()
{
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0)
        discard;
    return ds_shade(vertex_color, sqrt(1.0 - r2));
}
