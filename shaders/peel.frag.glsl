// SPDX-License-Identifier: MIT
// peel.frag.glsl — depth peeling (Everitt 2001, "Interactive
// order-independent transparency"), front to back, exact under ties. A
// fragment's key is (depth bits, primitive), unique per pixel; peel k
// finds, per pixel, the smallest key greater than the key peel k - 1 took
// (peeled_*), in three passes over the mesh with the same fragments:
//   pass 0: imageAtomicMin of the depth bits among the qualifying
//           fragments (an occlusion query counts them: none, and the
//           frame is done);
//   pass 1: imageAtomicMin of the primitive among those at that depth;
//   pass 2: the one fragment with both composites itself "under" what
//           the earlier peels accumulated (premultiplied, front to back):
//               rgb += (1 - A) a src.rgb,   A += (1 - A) a
//           by plain load and store, as it is alone in its pixel.
// The colour is rounded to RGBA8 as the A-buffer stores it, and a
// fragment of alpha 0 is left out as there, so the two exact methods
// composite the same values. The primitive is gl_PrimitiveID, the mesh's
// own number (abuffer_store.frag.glsl says why).
layout(binding = 0, r32ui) uniform coherent uimage2D nearest_depth;
layout(binding = 1, r32ui) uniform coherent uimage2D nearest_primitive;
layout(binding = 2, r32ui) uniform readonly uimage2D peeled_depth;
layout(binding = 3, r32ui) uniform readonly uimage2D peeled_primitive;
layout(binding = 4, rgba32f) uniform coherent image2D accumulated;
layout(location = 8) uniform int peel_pass;   // 0, 1 or 2 as above
layout(location = 9) uniform int first_peel;  // nothing peeled yet

void main()
{
    uint rgba8 = packUnorm4x8(ds_surface());
    if ((rgba8 >> 24) == 0u)
        discard;
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    uvec2 key = uvec2(floatBitsToUint(gl_FragCoord.z), uint(gl_PrimitiveID));
    if (first_peel == 0) {
        uvec2 last = uvec2(imageLoad(peeled_depth, pixel).x, imageLoad(peeled_primitive, pixel).x);
        if (!(key.x > last.x || (key.x == last.x && key.y > last.y)))
            discard;
    }
    if (peel_pass == 0) {
        imageAtomicMin(nearest_depth, pixel, key.x);
        return;
    }
    if (key.x != imageLoad(nearest_depth, pixel).x)
        discard;
    if (peel_pass == 1) {
        imageAtomicMin(nearest_primitive, pixel, key.y);
        return;
    }
    if (key.y != imageLoad(nearest_primitive, pixel).x)
        discard;
    vec4 src = unpackUnorm4x8(rgba8);
    vec4 sum = imageLoad(accumulated, pixel);
    float through = 1.0 - sum.a;
    imageStore(accumulated, pixel, vec4(sum.rgb + through * src.a * src.rgb, sum.a + through * src.a));
}
