// SPDX-License-Identifier: MIT
#version 450 core
// overlay.frag.glsl — flat colour for overlay text and rectangles.

in vec4 v_color;

out vec4 frag_color;

void main()
{
    frag_color = v_color;
}
