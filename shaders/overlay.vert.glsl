// SPDX-License-Identifier: MIT
#version 450 core
// overlay.vert.glsl — the viewer's 2D overlay: pixel positions with a
// top-left origin to clip space; colour passed through (straight alpha).

layout(location = 0) in vec2 position; // pixels
layout(location = 1) in vec4 color;    // normalised RGBA8

uniform vec2 viewport; // framebuffer width, height in pixels

out vec4 v_color;

void main()
{
    vec2 ndc = position / viewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    v_color = color;
}
