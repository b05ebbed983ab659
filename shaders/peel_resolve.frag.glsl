// SPDX-License-Identifier: MIT
// peel_resolve.frag.glsl — the peels' front-to-back sum onto the
// background: what shows through all layers (1 - A) of the background,
//     rgb = sum.rgb + (1 - A) bg.rgb,   alpha = A + (1 - A) bg.alpha,
// the same result as "over" back to front.
layout(binding = 4, rgba32f) uniform readonly image2D accumulated;
layout(location = 9) uniform vec4 background;
out vec4 fragment_color;

void main()
{
    vec4 sum = imageLoad(accumulated, ivec2(gl_FragCoord.xy));
    fragment_color = vec4(sum.rgb + (1.0 - sum.a) * background.rgb,
                          sum.a + (1.0 - sum.a) * background.a);
}
