// SPDX-License-Identifier: MIT
// abuffer_resolve.frag.glsl — the A-buffer's resolve, once per pixel: the
// pixel's fragments ordered far to near by (depth, primitive) — at equal
// depth the higher primitive number is farther, so the order is unique
// (one primitive covers a pixel centre once) — and composited with the
// sorted draw's blending, straight alpha "over" onto the background:
//     rgb = a src.rgb + (1 - a) dst.rgb,   alpha = a + (1 - a) dst.alpha
// in float, rounded once when written. Two forms of the sort: an insertion
// sort bounded by the list's length, and, where the renderer defines
// DS_ABUFFER_FIXED_LOOPS (Mesa's llvmpipe, whose compiler dropped
// iterations of such loops), a rank-and-scatter sort whose every loop runs
// LOCAL_FRAGMENTS times. A pixel of up to LOCAL_FRAGMENTS
// fragments is sorted here; a longer list leaves the background and
// raises max_fragments beyond LOCAL_FRAGMENTS, and the renderer then
// draws the frame by depth peeling instead (the same fragments in the
// same order): slower, never truncated.
layout(binding = 0, r32ui) uniform readonly uimage2D heads;
layout(std430, binding = 4) buffer ABufferCounter { uint node_count; uint max_fragments; };
layout(std430, binding = 5) readonly buffer ABufferNodes { uint node_words[]; };
layout(location = 9) uniform vec4 background;
out vec4 fragment_color;

const uint END = 0xFFFFFFFFu;      // the head image's clear value: no node
const int LOCAL_FRAGMENTS = 32;   // renderer.h's DS_ABUFFER_SORTED_FRAGMENTS

// (depth bits, primitive): depths are non-negative, so their bits order
// as the floats do.
bool farther(uvec2 a, uvec2 b)
{
    return a.x > b.x || (a.x == b.x && a.y > b.y);
}

// Node n: {RGBA8, depth bits, primitive, next}, read word by word.
uvec4 load_node(uint n)
{
    uint w = 4u * n;
    return uvec4(node_words[w], node_words[w + 1u], node_words[w + 2u], node_words[w + 3u]);
}

vec4 over(vec4 dst, uint rgba8)
{
    vec4 src = unpackUnorm4x8(rgba8);
    return vec4(src.a * src.rgb + (1.0 - src.a) * dst.rgb, src.a + (1.0 - src.a) * dst.a);
}

void main()
{
    uint head = imageLoad(heads, ivec2(gl_FragCoord.xy)).x;
    uint count = 0u;
    uint n = head;
    for (int i = 0; i <= LOCAL_FRAGMENTS; i++)
        if (n != END) {
            n = node_words[4u * n + 3u];
            count++;
        }
    if (n != END)
        for (; n != END; n = node_words[4u * n + 3u])
            count++;
    // The racy read first spares most pixels the atomic on one address.
    if (count > max_fragments)
        atomicMax(max_fragments, count);
    vec4 dst = background;
#ifndef DS_ABUFFER_FIXED_LOOPS
    // An insertion sort of the pixel's list, far first, in loops bounded by
    // its length: most pixels hold a few fragments or none.
    if (count > 0u && count <= uint(LOCAL_FRAGMENTS)) {
        uint colors[LOCAL_FRAGMENTS];
        uvec2 keys[LOCAL_FRAGMENTS];
        n = head;
        for (uint i = 0u; i < count; i++) {
            uvec4 node = load_node(n);
            int j = int(i);
            while (j > 0 && farther(node.yz, keys[j - 1])) {
                keys[j] = keys[j - 1];
                colors[j] = colors[j - 1];
                j--;
            }
            keys[j] = node.yz;
            colors[j] = node.x;
            n = node.w;
        }
        for (uint i = 0u; i < count; i++)
            dst = over(dst, colors[i]);
    }
#else
    if (count <= uint(LOCAL_FRAGMENTS)) {
        // Every loop here runs LOCAL_FRAGMENTS times, and the sort is by
        // rank and scatter, not by swaps: llvmpipe (Mesa 22.3) skipped
        // iterations of this shader's loops bounded by the list length
        // and of an insertion sort's, and composited too few fragments.
        uint colors[LOCAL_FRAGMENTS];
        uvec2 keys[LOCAL_FRAGMENTS];
        n = head;
        for (int i = 0; i < LOCAL_FRAGMENTS; i++) {
            uvec4 node = n != END ? load_node(n) : uvec4(0u, 0u, 0u, END);
            colors[i] = node.x;
            keys[i] = node.yz;
            n = node.w;
        }
        // Each fragment's rank, far first: how many are farther. Keys are
        // unique, so the ranks of the stored fragments are 0 .. count - 1;
        // empty slots (alpha 0) go to the last slot, past them.
        int ranks[LOCAL_FRAGMENTS];
        for (int i = 0; i < LOCAL_FRAGMENTS; i++) {
            int rank = 0;
            for (int j = 0; j < LOCAL_FRAGMENTS; j++)
                rank += farther(keys[j], keys[i]) ? 1 : 0;
            ranks[i] = rank;
        }
        uint ordered[LOCAL_FRAGMENTS];
        for (int i = 0; i < LOCAL_FRAGMENTS; i++)
            ordered[i] = 0u;
        for (int i = 0; i < LOCAL_FRAGMENTS; i++)
            ordered[i < int(count) ? ranks[i] : LOCAL_FRAGMENTS - 1] = colors[i];
        for (int i = 0; i < LOCAL_FRAGMENTS; i++)
            dst = over(dst, ordered[i]);
    }
#endif
    fragment_color = dst;
}
