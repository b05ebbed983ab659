// SPDX-License-Identifier: MIT
// raster_fragments.comp.glsl — the compute raster's fragment passes
// (raster_compute.c), after shade.glsl, raster_setup.glsl and
// raster_slots.glsl, in four programs by the defines EMIT (0: count, 1:
// emit) and LARGE:
//
//   LARGE 0: one invocation per triangle (invocation i visits triangle i,
//     or the i-th sorted one in triangle order), a workgroup per chunk of
//     RASTER_THREADS triangles. A small triangle (no corner outside the
//     near plane or the guard band, a box of at most SMALL_PIXELS centres,
//     corners within 64 pixels of each other) is walked here, its edge
//     values 32-bit integers stepped from pixel to pixel (exact: below
//     2^29); any other is put on the large list for the LARGE passes,
//     which evaluate them in double.
//   LARGE 1: a workgroup per large triangle (RASTER_LARGE_GROUPS
//     workgroups striding over the list), its invocations taking the box's
//     pixels RASTER_THREADS at a time, row by row. The large count's last
//     workgroup to finish then runs the frame's plan (raster_plan.glsl).
//
// The count passes write each triangle's covered pixels and add them to
// its chunk's and block's sums; the emit passes find each triangle's first
// slot from them (raster_slots.glsl). They write fragment k
// of triangle i (k in row order within each triangle of the fan, fans in
// order) at slot offset(i) + k: its pixel and RGBA8 colour, its order key
// and its own number as the sort's value, and count it on its pixel. In
// fragment order the key is made from the fragment's 1 / w, which orders
// as its depth (raster_slots.glsl's emit), and the slots run backwards,
// fragment f = total - 1 - slot, so that a stable sort leaves equal
// depths with the higher triangle number first: farther, as the A-buffer
// orders them. In triangle order the key is the triangle's sorted
// position.

#if !LARGE

// Small triangles: up to this many pixel centres in the box are tested by
// one invocation (the dragon's triangles at 1080p cover about one pixel).
const uint SMALL_PIXELS = RASTER_SMALL_PIXELS;

void main()
{
    uint local = gl_LocalInvocationID.x;
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = chunk * RASTER_THREADS + local;
    // Every invocation reaches the workgroup's barriers; those past the
    // last triangle own nothing.
    bool valid = i < triangle_count;
#if EMIT
    uint base = small_first_slot(chunk, i, valid);
#else
    count_chunk_begin();
#endif
    uint covered = 0u;
    if (valid) {
        // The three corners in registers; a triangle that needs clipping
        // is left to the large passes (which keep its polygon in an
        // array).
        uint t = by_order ? sorted_triangles[i] : i;
        Corner a = ds_raster_corner(indices[3u * t]);
        Corner b = ds_raster_corner(indices[3u * t + 1u]);
        Corner c = ds_raster_corner(indices[3u * t + 2u]);
        bool small = ds_raster_inside(a.clip) && ds_raster_inside(b.clip) &&
                     ds_raster_inside(c.clip);
        RasterTriangle tri;
        tri.box = ivec4(0, 0, -1, -1);
        bool any = small && ds_raster_setup3(a, b, c, tri);
        if (any)
            small = ds_raster_box_pixels(tri) <= SMALL_PIXELS && ds_raster_small_extent(tri);
        // A triangle wholly behind the near plane or beside the guard
        // band is listed too; the large pass finds nothing left of it.
#if !EMIT
        if (!small) {
            uint slot = atomicAdd(state[STATE_LARGE], 1u);
            state[STATE_LIST + slot] = i;
        }
#endif
        if (small && any) {
            ivec2 d0 = tri.p1 - tri.p0, d1 = tri.p2 - tri.p1, d2 = tri.p0 - tri.p2;
            ivec3 step_x = -ivec3(d0.y, d1.y, d2.y) * SUBPIXELS;
            ivec3 step_y = ivec3(d0.x, d1.x, d2.x) * SUBPIXELS;
            ivec3 row = ds_raster_edges_small(tri, tri.box.xy);
            for (int y = tri.box.y; y <= tri.box.w; y++, row += step_y) {
                ivec3 e = row;
                for (int x = tri.box.x; x <= tri.box.z; x++, e += step_x) {
                    float depth;
                    if (!ds_raster_covers_small(tri, e, depth))
                        continue;
#if EMIT
                    emit(base + covered, ivec2(x, y), ds_raster_inv_w(tri, vec3(e)),
                         ds_raster_color(tri, vec3(e)), i);
#endif
                    covered++;
                }
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

#if !EMIT
shared uint group_sum;
#endif

void main()
{
    uint local = gl_LocalInvocationID.x;
    for (uint j = gl_WorkGroupID.x; j < state[STATE_LARGE]; j += gl_NumWorkGroups.x) {
        uint i = state[STATE_LIST + j];
        Corner polygon[MAX_POLYGON];
        int n = ds_raster_polygon(i, polygon);
#if EMIT
        // The triangle's first slot, and its fragments the rounds before
        // emitted (the same in every invocation).
        uint base = large_first_slot(i);
        uint emitted = 0u;
#else
        if (local == 0u)
            group_sum = 0u;
        barrier();
#endif
        for (int k = 1; k + 1 < n; k++) {
            RasterTriangle tri;
            if (!ds_raster_setup(polygon, k, tri))
                continue; // the same for every invocation
            uint width = uint(tri.box.z - tri.box.x + 1);
            uint pixels = ds_raster_box_pixels(tri);
            for (uint start = 0u; start < pixels; start += RASTER_THREADS) {
                uint p = start + local;
                ivec2 q = ivec2(tri.box.x + int(p % width), tri.box.y + int(p / width));
                float depth = 0.0;
                dvec3 e = ds_raster_edges(tri, q);
                bool hit = p < pixels && ds_raster_covers_at(tri, e, depth);
#if !EMIT
                if (hit)
                    atomicAdd(group_sum, 1u);
#else
                // The rank of this pixel among the covered ones of the
                // round, and the round's covered pixels
                // (radix_workgroup_scan.glsl).
                uint round_hits;
                uint rank = workgroup_exclusive_scan(hit ? 1u : 0u, round_hits);
                if (hit)
                    emit(base + emitted + rank, q, ds_raster_inv_w(tri, vec3(e)),
                         ds_raster_color(tri, vec3(e)), i);
                emitted += round_hits;
#endif
            }
        }
        barrier();
#if !EMIT
        if (local == 0u) {
            triangle_fragments[i] = group_sum;
            add_to_sums(i, group_sum);
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
