// SPDX-License-Identifier: MIT
// wboit_accumulate.frag.glsl — weighted blended order-independent
// transparency (McGuire and Bavoil 2013, "Weighted Blended Order-Independent
// Transparency", JCGT 2(2)), the accumulation pass. Target 0 (RGBA16F,
// blend ONE, ONE) sums the premultiplied colour times a weight, target 1
// (R16F, blend ZERO, ONE_MINUS_SRC_COLOR) multiplies the revealage
// prod(1 - a). The weight is the paper's equation (10), on the window
// depth z = gl_FragCoord.z (so it needs no scene scale):
//     w(z, a) = a · max(10^-2, 3·10^3 · (1 - z)^3)
layout(location = 0) out vec4 accumulation;
layout(location = 1) out float revealage;

void main()
{
    vec4 color = ds_surface();
    float weight = color.a * max(1e-2, 3e3 * pow(1.0 - gl_FragCoord.z, 3.0));
    accumulation = vec4(color.rgb * color.a, color.a) * weight;
    revealage = color.a;
}
