// SPDX-License-Identifier: MIT
// wboit_composite.frag.glsl — the paper's composite pass (McGuire and
// Bavoil 2013): the weighted average colour sum(c a w) / sum(a w) covers
// the background by 1 - revealage:
//     rgb = average (1 - r) + bg.rgb r,   alpha = (1 - r) + r bg.alpha
// (their glBlendFunc(GL_ONE_MINUS_SRC_ALPHA, GL_SRC_ALPHA), done here in
// the shader onto the background), with their guard against an
// accumulation that overflowed half floats.
layout(binding = 0) uniform sampler2D accumulation;
layout(binding = 1) uniform sampler2D revealage;
layout(location = 9) uniform vec4 background;
out vec4 fragment_color;

void main()
{
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    float r = texelFetch(revealage, pixel, 0).r;
    vec4 sum = texelFetch(accumulation, pixel, 0);
    if (isinf(max(max(abs(sum.r), abs(sum.g)), abs(sum.b))))
        sum.rgb = vec3(sum.a);
    vec3 average = sum.rgb / clamp(sum.a, 1e-4, 5e4);
    fragment_color = vec4(average * (1.0 - r) + background.rgb * r, (1.0 - r) + r * background.a);
}
