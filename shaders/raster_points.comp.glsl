// SPDX-License-Identifier: MIT
// raster_points.comp.glsl — the compute raster's fragment passes for points
// (compute_raster.c; docs/algorithms/compute-raster.md), after shade.glsl,
// raster_setup.glsl (its buffers, viewport and order) and
// raster_slots.glsl, in four programs by EMIT and LARGE, as
// raster_fragments.comp.glsl's for triangles, with whose bindings, slots
// and keys they write the same fragments: the frame's fragments do not
// know what made them.
//
// A point is the splat the hardware draws with points.vert.glsl and
// points.frag.glsl:
//   - GL passes a point only where its position lies in the clip volume
//     (OpenGL 4.6, 13.7): one beside the screen, behind the near plane or
//     beyond the far one is dropped whole, however large its splat. A
//     driver that clips wide points against a guard band instead draws
//     the on-screen part of a splat centred beside the screen;
//     compute_raster.c asks the driver which (point_clip_xy), and beside
//     the screen the raster then keeps points within raster_setup's guard
//     band;
//   - its size is points.vert's, clamped to GL_POINT_SIZE_RANGE as GL
//     clamps gl_PointSize;
//   - it covers the pixel centres inside the square of that side centred
//     on its window position (14.4: point sprites, the only points of a
//     core context), here snapped to 1/256 pixel with the left and bottom
//     edges in and the others out (the rasterisers' fill rule) ...
//   - ... less those points.frag discards: at gl_PointCoord
//     s = 1/2 + (x + 1/2 - xw) / S, t = 1/2 - (y + 1/2 - yw) / S
//     (the upper-left origin), p = 2 (s, t) - 1 outside the unit disc.
//     GL's S is the size; a driver may compute the coordinates from the
//     size floored to a step (NVIDIA's: 1/32 pixel) while covering the
//     exact size's square, so S = floor(size * steps) / steps, steps the
//     steps a pixel that compute_raster.c's probe of the driver found (0:
//     S = size). The disc (radius S / 2) lies inside the square, so the
//     square's edges decide nothing but the pixels to visit;
//   - each covered pixel is a fragment of the point's window depth and
//     of points.frag's colour: the vertex colour shaded with the sphere's
//     cosine sqrt(1 - |p|^2).
//
//   LARGE 0: one invocation per point (invocation i visits point i, or the
//     i-th sorted one in point order); a splat whose box holds at most
//     RASTER_SMALL_PIXELS centres is walked here, any other listed.
//   LARGE 1: a workgroup per listed point (RASTER_LARGE_GROUPS workgroups
//     striding over the list), its invocations taking the box's pixels
//     RASTER_THREADS at a time. A point's fragments share one depth and
//     never a pixel, so no order of the frame depends on theirs among
//     themselves: each takes the next of its point's slots by an atomic.
//     The large count's last workgroup to finish runs the frame's plan
//     (raster_plan.glsl), as for triangles.

layout(location = 16) uniform vec2 point_size_range; // GL_POINT_SIZE_RANGE
layout(location = 17) uniform bool point_clip_xy;    // centres beside the screen dropped
layout(location = 18) uniform float point_coord_steps; // gl_PointCoord's size steps a pixel; 0: exact

// A point ready to test pixels.
struct RasterPoint {
    vec2 window;   // window position, gl_PointCoord's centre
    float size;    // diameter in pixels: the square covered
    float coord_size; // the size gl_PointCoord is computed from
    float depth;   // window depth, every fragment's
    float inv_w;   // 1 / w, every fragment's (their order key)
    vec4 color;    // points.vert.glsl's vertex_color
    ivec4 box;     // the centres in the square, within the viewport
};

// Point i (or the i-th sorted one) set up; false if GL drops it or its
// square holds no pixel centre of the viewport.
bool point_setup(uint i, out RasterPoint point)
{
    point.window = vec2(0.0);
    point.size = 1.0;
    point.coord_size = 1.0;
    point.depth = 0.0;
    point.color = vec4(0.0);
    point.box = ivec4(0, 0, -1, -1);
    uint v = by_order ? sorted_triangles[i] : i;
    vec3 position = vec3(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
    uvec2 words = normals_only != 0 ? uvec2(attribute_words[v], 0u)
                                    : uvec2(attribute_words[2u * v], attribute_words[2u * v + 1u]);
    vec4 color;
    vec3 normal;
    ds_vertex_words(words, color, normal);
    precise vec4 clip = view_projection * vec4(position, 1.0);
    // -w <= z <= w, and the same for x and y, or within the guard band
    // (false for w < 0 and for NaN)
    float reach = point_clip_xy ? 1.0 : GUARD;
    if (!(abs(clip.z) <= clip.w && all(lessThanEqual(abs(clip.xy), vec2(reach * clip.w)))))
        return false;
    precise float size = clamp(max(point_scale / max(clip.w, 1e-6), 1.0), point_size_range.x,
                               point_size_range.y);
    // 1 / w, then products: as raster_setup.glsl's project() and as
    // llvmpipe's viewport transform, so that depths round alike.
    precise float r = 1.0 / clip.w;
    precise vec3 ndc = clip.xyz * r;
    precise vec2 window = (ndc.xy * 0.5 + 0.5) * vec2(viewport);
    precise float depth = ndc.z * 0.5 + 0.5;
    point.window = window;
    point.size = size;
    // steps is a power of two: the product and the quotient are exact
    precise float coord_size =
        point_coord_steps > 0.0 ? floor(size * point_coord_steps) / point_coord_steps : size;
    point.coord_size = coord_size;
    point.depth = depth;
    point.inv_w = r;
    point.color = vec4(ds_base_color(color.rgb, normal, position), color.a * alpha);
    // The square [lo, hi) in 1/256 pixel: window positions lie within the
    // guard band and sizes within GL's range, so all of it fits an int.
    ivec2 centre = ivec2(round(window * float(SUBPIXELS)));
    int side = max(int(round(size * float(SUBPIXELS))), SUBPIXELS);
    ivec2 lo = centre - side / 2, hi = lo + side;
    // Pixels whose centres x * 256 + 128 lie in [lo, hi).
    ivec2 first = max((lo - HALF_PIXEL + (SUBPIXELS - 1)) >> SUBPIXEL_BITS, ivec2(0));
    ivec2 last = min((hi - HALF_PIXEL - 1) >> SUBPIXEL_BITS, viewport - 1);
    point.box = ivec4(first, last);
    return all(lessThanEqual(first, last));
}

uint point_box_pixels(RasterPoint point)
{
    return uint(point.box.z - point.box.x + 1) * uint(point.box.w - point.box.y + 1);
}

// 1 if points.frag.glsl keeps the fragment at pixel q of the square;
// |p|^2 into r2. The count and the emit, different programs, must decide
// alike: all of it `precise`.
bool point_covers(RasterPoint point, ivec2 q, out float r2)
{
    precise vec2 offset = (vec2(q) + 0.5 - point.window) / point.coord_size;
    precise vec2 coord = vec2(0.5 + offset.x, 0.5 - offset.y);
    precise vec2 p = coord * 2.0 - 1.0;
    precise float r = dot(p, p);
    r2 = r;
    return r <= 1.0;
}

// points.frag.glsl's colour where |p|^2 is r2, as RGBA8.
uint point_color(RasterPoint point, float r2)
{
    return packUnorm4x8(ds_shade(point.color, sqrt(1.0 - r2)));
}

#if !LARGE

void main()
{
    uint local = gl_LocalInvocationID.x;
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = chunk * RASTER_THREADS + local;
    // Every invocation reaches the workgroup's barriers; those past the
    // last point own nothing.
    bool valid = i < triangle_count;
#if EMIT
    uint base = small_first_slot(chunk, i, valid);
#else
    count_chunk_begin();
#endif
    if (valid) {
        RasterPoint point;
        bool any = point_setup(i, point);
        bool small = !any || point_box_pixels(point) <= RASTER_SMALL_PIXELS;
#if !EMIT
        if (!small) {
            uint slot = atomicAdd(state[STATE_LARGE], 1u);
            state[STATE_LIST + slot] = i;
        }
#endif
        uint covered = 0u;
        if (small && any) {
            for (int y = point.box.y; y <= point.box.w; y++)
                for (int x = point.box.x; x <= point.box.z; x++) {
                    float r2;
                    if (!point_covers(point, ivec2(x, y), r2))
                        continue;
#if EMIT
                    emit(base + covered, ivec2(x, y), point.inv_w, point_color(point, r2), i);
#endif
                    covered++;
                }
        }
#if !EMIT
        triangle_fragments[i] = covered;
        count_chunk_add(covered);
#endif
    }
#if !EMIT
    count_chunk_end(chunk);
#endif
}

#else

shared uint point_fragments;

void main()
{
    uint local = gl_LocalInvocationID.x;
    for (uint j = gl_WorkGroupID.x; j < state[STATE_LARGE]; j += gl_NumWorkGroups.x) {
        uint i = state[STATE_LIST + j];
        RasterPoint point;
        bool any = point_setup(i, point); // true: only such points are listed
#if EMIT
        uint base = large_first_slot(i);
#endif
        if (local == 0u)
            point_fragments = 0u;
        barrier();
        uint width = uint(point.box.z - point.box.x + 1);
        uint pixels = any ? point_box_pixels(point) : 0u;
        for (uint p = local; p < pixels; p += RASTER_THREADS) {
            ivec2 q = ivec2(point.box.x + int(p % width), point.box.y + int(p / width));
            float r2;
            if (!point_covers(point, q, r2))
                continue;
            uint k = atomicAdd(point_fragments, 1u);
#if EMIT
            emit(base + k, q, point.inv_w, point_color(point, r2), i);
#endif
        }
        barrier();
#if !EMIT
        if (local == 0u) {
            triangle_fragments[i] = point_fragments;
            add_to_sums(i, point_fragments);
        }
#endif
        barrier();
    }
#if !EMIT
    // Every workgroup ends here; the last one to finish plans the frame.
    plan_if_last_group();
#endif
}

#endif
