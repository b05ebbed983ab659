// SPDX-License-Identifier: MIT
// raster_setup.glsl — the compute raster's triangle set-up and coverage
// (raster_compute.c; docs/algorithms/compute-raster.md), shared by its
// fragment passes, which raster_compute.c compiles after shade.glsl.
//
// Each vertex is shaded once a frame as mesh_pull.vert.glsl shades it (the
// same colour modes, headlight and view opacity, lit per vertex) by the
// vertex pass (raster_shade.comp.glsl), its RGBA kept as floats so that
// a corner's colour is the one shading it in place would give. A
// triangle's three vertices are fetched with their shaded colours,
// clipped in clip space where they need it, projected to window
// coordinates snapped to 1/256 pixel as GL's rasterisers snap them, and
// split into a fan of at most MAX_POLYGON - 2 triangles. Coverage is
// exact: edge functions of the snapped integer coordinates at pixel
// centres with a top-left rule, so that two triangles sharing an edge
// cover each pixel on it once. They are evaluated in double: the
// coordinates stay within 2^24 units (the guard band below), so each
// product is below 2^48 and every edge value is an integer a double
// holds exactly (below 2^53), on every GL 4 implementation.
//
// Everything a coverage decision depends on is `precise`: the count pass
// and the emit pass, compiled as different programs, must reach the same
// decisions for every pixel, or the offsets the count gave would not hold
// what the emit writes.

layout(std430, binding = 0) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 1) readonly buffer Positions { float positions[]; };
// Per vertex the RGBA8 colour, then the normal as signed 10:10:10:2; with
// normals_only the normal alone (renderer.c)
layout(std430, binding = 2) readonly buffer Attributes { uint attribute_words[]; };
// Triangle order: the sorted triangles, far first (the renderer's stages).
layout(std430, binding = 3) readonly buffer Order { uint sorted_triangles[]; };
// Each vertex's shaded colour, this frame's (the vertex pass writes it).
layout(std430, binding = 11) buffer VertexColors { vec4 vertex_colors[]; };

layout(location = 8) uniform ivec2 viewport;      // width, height in pixels
layout(location = 9) uniform uint triangle_count; // the triangles visited
layout(location = 10) uniform bool by_order;     // thread i visits sorted_triangles[i]

// The guard band: clip space is cut at |x|, |y| <= GUARD w, so that the
// snapped window coordinates of a triangle larger than the screen stay
// within 2^24 (GUARD 4, 16,384 pixels wide at most) and the edge
// functions exact in double.
const float GUARD = 4.0;
const int SUBPIXEL_BITS = 8;            // GL_SUBPIXEL_BITS of NVIDIA and llvmpipe
const int SUBPIXELS = 1 << SUBPIXEL_BITS;
const int HALF_PIXEL = SUBPIXELS / 2;
// A triangle clipped by the near plane and the four guard planes has at
// most 3 + 5 corners.
const int MAX_POLYGON = 8;

// A corner in clip space with its shaded colour.
struct Corner {
    vec4 clip;
    vec4 color;
};

// One triangle of the fan, ready to test pixels: snapped window corners,
// window depths, 1 / w and colour / w for the perspective-correct colour,
// the twice-area, each edge's bias (0: a centre on it is covered, the
// top-left rule; -1: not) and the pixel box [x0, x1] x [y0, y1]. Plain
// fields, no arrays, so that the small-triangle path keeps it all in
// registers (NVIDIA's compiler also failed on arrays of 64-bit values).
struct RasterTriangle {
    ivec2 p0, p1, p2;
    vec3 z;
    vec3 inv_w;
    vec4 color_w0, color_w1, color_w2;
    double area;
    ivec3 bias;
    ivec4 box;
};

vec3 vertex_position(uint v)
{
    return vec3(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
}

// Vertex v's colour, shaded (the vertex pass's).
vec4 ds_raster_shade_vertex(uint v)
{
    vec3 position = vertex_position(v);
    uvec2 words = normals_only != 0 ? uvec2(attribute_words[v], 0u)
                                    : uvec2(attribute_words[2u * v], attribute_words[2u * v + 1u]);
    vec4 color;
    vec3 normal;
    ds_vertex_words(words, color, normal);
    vec4 base = vec4(ds_base_color(color.rgb, normal, position), color.a * alpha);
    return ds_shade(base, ds_view_cosine(normal, position));
}

// Vertex v as a triangle's corner: in clip space, with the vertex pass's
// colour (read by the emits; the counts use none).
Corner ds_raster_corner(uint v)
{
    Corner corner;
    precise vec4 clip = view_projection * vec4(vertex_position(v), 1.0);
    corner.clip = clip;
    corner.color = vertex_colors[v];
    return corner;
}

// The signed distance of a clip-space point to plane k: near (z >= -w),
// then the four guard planes.
float plane_distance(vec4 c, int k)
{
    precise float d;
    if (k == 0)
        d = c.z + c.w;
    else if (k == 1)
        d = GUARD * c.w - c.x;
    else if (k == 2)
        d = GUARD * c.w + c.x;
    else if (k == 3)
        d = GUARD * c.w - c.y;
    else
        d = GUARD * c.w + c.y;
    return d;
}

// 1 if the corner is inside the near plane and the guard band.
bool ds_raster_inside(vec4 c)
{
    bool inside = true;
    for (int plane = 0; plane < 5; plane++)
        inside = inside && plane_distance(c, plane) >= 0.0;
    return inside;
}

// The triangle's corners after clipping (Sutherland and Hodgman, plane by
// plane, attributes interpolated linearly in clip space as GL's clipper
// does); returns their count, 0 if nothing is left.
int ds_raster_polygon(uint triangle, out Corner polygon[MAX_POLYGON])
{
    uint t = by_order ? sorted_triangles[triangle] : triangle;
    for (int k = 0; k < 3; k++)
        polygon[k] = ds_raster_corner(indices[3u * t + uint(k)]);
    // Usually nothing is cut: every corner inside every plane.
    if (ds_raster_inside(polygon[0].clip) && ds_raster_inside(polygon[1].clip) &&
        ds_raster_inside(polygon[2].clip))
        return 3;
    int n = 3;
    Corner next[MAX_POLYGON];
    for (int plane = 0; plane < 5 && n > 0; plane++) {
        int m = 0;
        for (int k = 0; k < n; k++) {
            Corner a = polygon[k], b = polygon[(k + 1) % n];
            precise float da = plane_distance(a.clip, plane);
            precise float db = plane_distance(b.clip, plane);
            if (da >= 0.0 && m < MAX_POLYGON)
                next[m++] = a;
            if ((da >= 0.0) != (db >= 0.0) && m < MAX_POLYGON) {
                precise float s = da / (da - db);
                precise vec4 clip = mix(a.clip, b.clip, s);
                Corner c;
                c.clip = clip;
                c.color = mix(a.color, b.color, s);
                next[m++] = c;
            }
        }
        n = m;
        for (int k = 0; k < n; k++)
            polygon[k] = next[k];
    }
    return n;
}

// A corner projected: its snapped window position, depth, 1 / w and
// colour / w.
void project(Corner c, out ivec2 p, out float z, out float inv_w, out vec4 color_w)
{
    precise float r = 1.0 / c.clip.w;
    precise vec3 ndc = c.clip.xyz * r;
    precise vec2 window = (ndc.xy * 0.5 + 0.5) * vec2(viewport);
    p = ivec2(round(window * float(SUBPIXELS)));
    precise float depth = ndc.z * 0.5 + 0.5;
    z = depth;
    inv_w = r;
    color_w = c.color * r;
}

// The triangle of corners a, b, c set up; false if it is degenerate after
// snapping or covers no pixel centre of the viewport box.
bool ds_raster_setup3(Corner a, Corner b, Corner c, out RasterTriangle tri)
{
    tri.bias = ivec3(0);
    tri.box = ivec4(0, 0, -1, -1);
    project(a, tri.p0, tri.z.x, tri.inv_w.x, tri.color_w0);
    project(b, tri.p1, tri.z.y, tri.inv_w.y, tri.color_w1);
    project(c, tri.p2, tri.z.z, tri.inv_w.z, tri.color_w2);
    ivec2 e1 = tri.p1 - tri.p0, e2 = tri.p2 - tri.p0;
    tri.area = double(e1.x) * double(e2.y) - double(e1.y) * double(e2.x);
    if (tri.area == 0.0lf)
        return false;
    if (tri.area < 0.0lf) {
        // Counter-clockwise in GL's y-up window: the inside is left of
        // every edge (culling is off; both faces are drawn).
        ivec2 p = tri.p1; tri.p1 = tri.p2; tri.p2 = p;
        tri.z = tri.z.xzy;
        tri.inv_w = tri.inv_w.xzy;
        vec4 w = tri.color_w1; tri.color_w1 = tri.color_w2; tri.color_w2 = w;
        tri.area = -tri.area;
    }
    // Top-left: on a left edge (going down) or a top edge (horizontal,
    // going left) a centre counts; on the others not. A shared edge is
    // walked both ways, so exactly one of its two triangles owns it.
    ivec2 d0 = tri.p1 - tri.p0, d1 = tri.p2 - tri.p1, d2 = tri.p0 - tri.p2;
    tri.bias = ivec3(d0.y < 0 || (d0.y == 0 && d0.x < 0) ? 0 : -1,
                     d1.y < 0 || (d1.y == 0 && d1.x < 0) ? 0 : -1,
                     d2.y < 0 || (d2.y == 0 && d2.x < 0) ? 0 : -1);
    ivec2 lo = min(tri.p0, min(tri.p1, tri.p2));
    ivec2 hi = max(tri.p0, max(tri.p1, tri.p2));
    // Pixels whose centres x * 256 + 128 lie within [lo, hi].
    ivec2 first = (lo - HALF_PIXEL + (SUBPIXELS - 1)) >> SUBPIXEL_BITS;
    ivec2 last = (hi - HALF_PIXEL) >> SUBPIXEL_BITS;
    first = max(first, ivec2(0));
    last = min(last, viewport - 1);
    tri.box = ivec4(first, last);
    return all(lessThanEqual(first, last));
}

// Triangle (0, k, k + 1) of the clipped polygon's fan, set up.
bool ds_raster_setup(Corner polygon[MAX_POLYGON], int k, out RasterTriangle tri)
{
    return ds_raster_setup3(polygon[0], polygon[k], polygon[k + 1], tri);
}

// Pixel centres in the triangle's box.
uint ds_raster_box_pixels(RasterTriangle tri)
{
    return uint(tri.box.z - tri.box.x + 1) * uint(tri.box.w - tri.box.y + 1);
}

// The edge function of corner a to corner b at the centre of pixel q:
// positive on the inside, an exact integer.
double edge_at(ivec2 a, ivec2 b, ivec2 q)
{
    ivec2 centre = q * SUBPIXELS + HALF_PIXEL;
    return double(b.x - a.x) * double(centre.y - a.y) - double(b.y - a.y) * double(centre.x - a.x);
}

// The three edge functions at pixel q: edge i runs from corner i to
// corner i + 1, and is corner i + 2's weight.
dvec3 ds_raster_edges(RasterTriangle tri, ivec2 q)
{
    return dvec3(edge_at(tri.p0, tri.p1, q), edge_at(tri.p1, tri.p2, q),
                 edge_at(tri.p2, tri.p0, q));
}

// A quantity given at the corners and linear in the window, at a covered
// centre with edge values e.
float ds_raster_linear(RasterTriangle tri, vec3 e, vec3 corners)
{
    // Corner i's weight is the edge opposite it: edge i + 1. The edge
    // values are integers, rounded to float the same from int or double.
    precise float inv_area = 1.0 / float(tri.area);
    precise float b0 = e.y * inv_area;
    precise float b1 = e.z * inv_area;
    precise float b2 = e.x * inv_area;
    precise float value = b0 * corners.x + b1 * corners.y + b2 * corners.z;
    return value;
}

// The window depth, as gl_FragCoord.z. Fragments beyond the far plane are
// not drawn (GL clips them; this clipper cut only the near plane).
float ds_raster_depth(RasterTriangle tri, vec3 e)
{
    return ds_raster_linear(tri, e, tri.z);
}

// 1 / w, which GL interpolates linearly in the window too. Under the
// camera's perspective projection the window depth is a decreasing affine
// function of 1 / w, so the two order fragments alike (the farther, the
// smaller 1 / w); the order keys are made from this one (raster_slots.glsl's
// emit), whose floats span few binades (the ratio of the farthest to the
// nearest view depth) where the window depth's reach towards 0 near the
// near plane.
float ds_raster_inv_w(RasterTriangle tri, vec3 e)
{
    return ds_raster_linear(tri, e, tri.inv_w);
}

// Coverage of a centre whose edge values are e: inside by the fill rule
// and within [0, 1] depth; writes its depth.
bool ds_raster_covers_at(RasterTriangle tri, dvec3 e, out float depth)
{
    depth = 0.0;
    dvec3 biased = e + dvec3(tri.bias);
    if (biased.x < 0.0lf || biased.y < 0.0lf || biased.z < 0.0lf)
        return false;
    depth = ds_raster_depth(tri, vec3(e));
    return depth >= 0.0 && depth <= 1.0;
}

// The same with the edge values as 32-bit integers: a small triangle's,
// whose corners lie within SMALL_EXTENT units of each other, so that
// every edge value at a centre of its box is below 2^29.
bool ds_raster_covers_small(RasterTriangle tri, ivec3 e, out float depth)
{
    depth = 0.0;
    ivec3 biased = e + tri.bias;
    if (biased.x < 0 || biased.y < 0 || biased.z < 0)
        return false;
    depth = ds_raster_depth(tri, vec3(e));
    return depth >= 0.0 && depth <= 1.0;
}

const int SMALL_EXTENT = 1 << 14; // 64 pixels in 1/256 units

// 1 if the triangle's corners lie within SMALL_EXTENT units in x and y.
bool ds_raster_small_extent(RasterTriangle tri)
{
    ivec2 lo = min(tri.p0, min(tri.p1, tri.p2)), hi = max(tri.p0, max(tri.p1, tri.p2));
    return all(lessThan(hi - lo, ivec2(SMALL_EXTENT)));
}

// Edge values and their steps as integers (ds_raster_covers_small).
ivec3 ds_raster_edges_small(RasterTriangle tri, ivec2 q)
{
    ivec2 centre = q * SUBPIXELS + HALF_PIXEL;
    ivec2 d0 = tri.p1 - tri.p0, d1 = tri.p2 - tri.p1, d2 = tri.p0 - tri.p2;
    ivec2 r0 = centre - tri.p0, r1 = centre - tri.p1, r2 = centre - tri.p2;
    return ivec3(d0.x * r0.y - d0.y * r0.x, d1.x * r1.y - d1.y * r1.x, d2.x * r2.y - d2.y * r2.x);
}

// The same for pixel q.
bool ds_raster_covers(RasterTriangle tri, ivec2 q, out float depth)
{
    return ds_raster_covers_at(tri, ds_raster_edges(tri, q), depth);
}

// The perspective-correct colour at a covered centre of edge values e
// (GL's interpolation: colour / w and 1 / w linear in the window), as
// RGBA8.
uint ds_raster_color(RasterTriangle tri, vec3 e)
{
    float b0 = e.y, b1 = e.z, b2 = e.x;
    vec4 numerator = b0 * tri.color_w0 + b1 * tri.color_w1 + b2 * tri.color_w2;
    float denominator = b0 * tri.inv_w.x + b1 * tri.inv_w.y + b2 * tri.inv_w.z;
    return packUnorm4x8(numerator / denominator);
}
