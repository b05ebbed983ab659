// SPDX-License-Identifier: MIT
// blend.frag.glsl — the sorted (and unsorted) draw's main: the surface's
// straight-alpha colour, blended "over" by GL (glBlendFunc(GL_SRC_ALPHA,
// GL_ONE_MINUS_SRC_ALPHA)) in the order the primitives are drawn.
out vec4 fragment_color;

void main()
{
    fragment_color = ds_surface();
}
