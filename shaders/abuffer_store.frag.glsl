// SPDX-License-Identifier: MIT
// abuffer_store.frag.glsl — the A-buffer's gather (per-pixel linked lists,
// Yang, Hensley, Grün and Thibieroz 2010, "Real-time concurrent linked list
// construction on the GPU"): every fragment of the surface (ds_surface(),
// the sorted draw's shading) takes a node of the pool with one atomic add,
// links it in front of its pixel's list with one atomic exchange on the
// head image, and stores {straight-alpha RGBA8, depth bits, primitive,
// next}. A node at or beyond the capacity is not stored but still counted:
// the renderer reads the count after the pass, grows the pool to hold it
// and draws the frame again, so no list is ever cut short.
//
// The pass has no depth attachment, so nothing can be tested early: the
// fragments are those the sorted draw blends (its depth test passes every
// fragment, since nothing writes depth). A fragment of alpha 0 changes
// nothing under "over" and takes no node. The primitive is gl_PrimitiveID:
// the renderer draws the mesh in its own order in one draw, so it is the
// mesh's triangle (or point) number whatever order the sorts choose.
layout(binding = 0, r32ui) uniform coherent uimage2D heads;
layout(std430, binding = 4) buffer ABufferCounter { uint node_count; uint max_fragments; };
layout(std430, binding = 5) writeonly buffer ABufferNodes { uvec4 nodes[]; };
layout(location = 8) uniform uint capacity;

void main()
{
    vec4 color = ds_surface();
    uint rgba8 = packUnorm4x8(color);
    // Helper invocations (the quad's uncovered pixels) must store nothing;
    // GL ignores their side effects, but not every rasteriser does.
    if ((rgba8 >> 24) == 0u || gl_HelperInvocation)
        discard;
    uint node = atomicAdd(node_count, 1u);
    if (node >= capacity)
        return;
    uint next = imageAtomicExchange(heads, ivec2(gl_FragCoord.xy), node);
    nodes[node] = uvec4(rgba8, floatBitsToUint(gl_FragCoord.z), uint(gl_PrimitiveID), next);
}
