// SPDX-License-Identifier: MIT
// stage_keys.comp.glsl — the GL stages' keys pass (gl_stages.c): the sort
// key of each point (its camera distance) or triangle (farthest, mean or
// centroid distance of distance_math.h, quantised for 16-bit keys), with
// the small-triangle cull and its visible count folded in, and, for a
// binned frame, each primitive's tile rectangle (tiles.h), so that the
// binning after the sort gathers one word a primitive instead of its
// vertices, and in its sort value the tile code (stage_state.glsl), so
// that it gathers only the rectangles of primitives on several tiles.
// The arithmetic is distance.cu's and tiles.cu's, operation for operation
// as nvcc compiles them (fused where nvcc fuses, correctly rounded square
// root and division), so that the keys, the culled set and the rectangles
// are the CUDA path's to the bit: the same image.
//
// Prepended by gl_stages.c: #version, POINTS or TRIANGLES, FMA_FUSED, KEYS_THREADS,
// the DS_* constants of distance_math.h and tiles.h.
// A workgroup strides over the primitives (grid-stride loop, a grid capped
// by gl_stages.c); invocation i owns primitive i, i + grid, ... With the
// cull, each workgroup adds its visible count with one atomic, and the last
// workgroup to finish writes the count for the timings, the culled draw
// command (untiled frames) and zeroes the other frame parity's counter.
//
// The key is written as the bitwise complement of the float's bits: keys
// are non-negative, so ascending complements are descending distances, far
// first, and a culled triangle's key 0 sorts last. When the frame's keys
// are narrowed (distance_math.h, ds_key_narrow), the complement is of the
// narrowed bits, and the sort compares their low 24 or 16 bits.

layout(local_size_x = KEYS_THREADS) in;

layout(location = 0) uniform uint count;          // primitives
layout(location = 1) uniform vec3 eye;
layout(location = 2) uniform uint triangle_key;   // ds_triangle_key
layout(location = 3) uniform vec2 key_range;      // ds_key_range lo, scale
layout(location = 4) uniform bool cull;
layout(location = 5) uniform bool tiled;          // write primitive_rects
layout(location = 6) uniform bool keep_keys;      // write verify_keys
layout(location = 7) uniform bool write_command;  // the culled draw command
layout(location = 8) uniform bool indexed;        // its DrawElements form
layout(location = 9) uniform uint command_word;
layout(location = 10) uniform uint parity;        // the frame's counter
// ds_cull_view: the rows giving window x * w, window y * w, clip z, clip w
layout(location = 11) uniform vec4 view_x;
layout(location = 12) uniform vec4 view_y;
layout(location = 13) uniform vec4 view_z;
layout(location = 14) uniform vec4 view_w;
layout(location = 15) uniform vec2 viewport;      // width, height (pixels)
layout(location = 16) uniform ivec2 grid;         // columns, rows
layout(location = 17) uniform vec2 to_tile;       // columns / width, rows / height
layout(location = 18) uniform float point_scale;
layout(location = 19) uniform uvec2 narrow;       // ds_key_narrow base, top
layout(location = 20) uniform int value_shift;    // tile codes in the values (0: none)

layout(std430, binding = 0) readonly buffer Positions { float positions[]; };
layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 3) writeonly buffer Values { uint values[]; };
layout(std430, binding = 4) buffer Elements { uint elements[]; };
// binding 5: State (stage_state.glsl)
layout(std430, binding = 6) writeonly buffer PrimitiveRects { uint primitive_rects[]; };
layout(std430, binding = 8) writeonly buffer VerifyKeys { uint verify_keys[]; };
layout(std430, binding = 9) writeonly buffer Drawn { uint drawn; };

shared uint group_drawn;

const float THIRD = uintBitsToFloat(0x3EAAAAABu);      // 1.0f / 3.0f
const float FLT_MIN_NORMAL = uintBitsToFloat(0x00800000u);
const float FLT_MAX_FINITE = uintBitsToFloat(0x7F7FFFFFu);

// ---- fused multiply-add, correctly rounded square root and division ------
// nvcc contracts a * b + c into one fma; GLSL's fma() is fused where the
// hardware has it (NVIDIA), but some implementations (Mesa's llvmpipe)
// compute it as a multiply and an add. gl_stages.c tests which at create
// (FMA_FUSED); without, the product is formed exactly in double (24-bit
// significands: 48 bits) and the sum rounded once to double, then to
// float: the fma, except where that double rounding lands on a float
// midpoint (about one input in 2^24, and only when c is much smaller than
// a b).
#if FMA_FUSED
float fma_rn(float a, float b, float c)
{
    precise float r = fma(a, b, c);
    return r;
}
#else
float fma_rn(float a, float b, float c)
{
    precise double r = double(a) * double(b) + double(c);
    return float(r);
}
#endif

// CUDA's sqrtf and '/' (and __frcp_rn) round correctly; GLSL's need not
// (NVIDIA's float forms can be a few ulps off, and its double sqrt and
// division are slow sequences). Each starts from GLSL's float result and
// moves it by an ulp while an exact test in double says the true value
// lies beyond the midpoint to that neighbour, stopping when neither does:
// up to MEND_STEPS ulps of error are mended, usually in none or one step.
// Products of two floats, and of a float and a midpoint (25 bits), are
// exact in double, so the tests are exact comparisons; no
// input lies on a midpoint (below), so there are no ties to break.

// Well above the few ulps GLSL's float sqrt and division are off by.
#define MEND_STEPS 8

float next_up(float v)    // finite, nonzero
{
    uint bits = floatBitsToUint(v);
    return uintBitsToFloat(v > 0.0 ? bits + 1u : bits - 1u);
}

float next_down(float v)  // finite, nonzero
{
    uint bits = floatBitsToUint(v);
    return uintBitsToFloat(v > 0.0 ? bits - 1u : bits + 1u);
}

// sqrt(a) rounded to nearest. With s and its upper neighbour u, the
// midpoint m = (s + u) / 2 has m^2 = s u + (u - s)^2 / 4, and a is a
// multiple of (u - s)^2 (a's ulp is at least that), so a > m^2 exactly
// when a > s u; likewise sqrt(a) lies below the midpoint to the lower
// neighbour d exactly when a <= d s.
float sqrt_rn(float a)
{
    precise float s = sqrt(a);
    if (!(a > 0.0 && a <= FLT_MAX_FINITE && s > 0.0))
        return s;
    for (int mend = 0; mend < MEND_STEPS; mend++) {
        float up = next_up(s), down = next_down(s);
        precise double above = double(s) * double(up);
        precise double below = double(down) * double(s);
        if (double(a) > above)
            s = up;
        else if (double(a) <= below)
            s = down;
        else
            break;
    }
    return s;
}

// x / w rounded to nearest, for w > 0: the quotient lies beyond the
// midpoint m to a neighbour exactly when x is beyond m w. (A quotient of
// floats is never a midpoint: m w would need more bits than x has, unless
// w is a power of two, and then the quotient is exact.)
float div_rn(float x, float w)
{
    precise float q = x / w;
    if (!(abs(q) > 0.0 && abs(q) <= FLT_MAX_FINITE))
        return q;
    for (int mend = 0; mend < MEND_STEPS; mend++) {
        float up = next_up(q), down = next_down(q);
        precise double to_up = (double(q) + double(up)) * 0.5 * double(w);
        precise double to_down = (double(q) + double(down)) * 0.5 * double(w);
        if (double(x) > to_up)
            q = up;
        else if (double(x) < to_down)
            q = down;
        else
            break;
    }
    return q;
}

// ---- distance_math.h ------------------------------------------------------

vec3 position(uint v)
{
    return vec3(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
}

// ds_point_distance: nvcc contracts dx * dx + dy * dy + dz * dz into
// fma(dz, dz, fma(dx, dx, dy * dy)).
float point_distance_squared(vec3 p)
{
    precise float dx = p.x - eye.x;
    precise float dy = p.y - eye.y;
    precise float dz = p.z - eye.z;
    precise float squared = fma_rn(dz, dz, fma_rn(dx, dx, dy * dy));
    return squared;
}

float point_distance(vec3 p)
{
    return sqrt_rn(point_distance_squared(p));
}

// ds_triangle_distances: the vertex distances triangle_key_of() reads,
// with one square root for the farthest (of the largest square) and none
// for the centroid.
void triangle_distances(vec3 pa, vec3 pb, vec3 pc, out float da, out float db, out float dc)
{
    if (triangle_key == DS_TRIANGLE_KEY_MEAN) {
        da = point_distance(pa);
        db = point_distance(pb);
        dc = point_distance(pc);
    } else if (triangle_key == DS_TRIANGLE_KEY_CENTROID) {
        da = 0.0;
        db = 0.0;
        dc = 0.0;
    } else {
        float a = point_distance_squared(pa);
        float b = point_distance_squared(pb);
        float c = point_distance_squared(pc);
        float largest = a > b ? a : b;
        da = sqrt_rn(largest > c ? largest : c);
        db = da;
        dc = da;
    }
}

// ds_quantise_key; the float-to-unsigned conversion saturates as CUDA's.
float quantise_key(float key)
{
    precise float place = (key - key_range.x) * key_range.y * float(DS_QUANTISED_LEVELS - 1u);
    uint step = place > 0.0 ? (place >= float(DS_QUANTISED_LEVELS - 1u)
                                   ? DS_QUANTISED_LEVELS - 1u : uint(place))
                            : 0u;
    return uintBitsToFloat((step + DS_QUANTISED_FIRST) << 16);
}

// ds_triangle_key_of. The centroid's (sum * 1/3) - eye per coordinate:
// nvcc emits a multiply and a subtraction without a rounding mode, which
// ptxas contracts into one fma.
float triangle_key_of(float da, float db, float dc, vec3 pa, vec3 pb, vec3 pc)
{
    if (triangle_key == DS_TRIANGLE_KEY_MEAN) {
        precise float mean = (da + db + dc) * THIRD;
        return mean;
    }
    if (triangle_key == DS_TRIANGLE_KEY_CENTROID) {
        precise vec3 sum = pa + pb + pc;
        precise float dx = fma_rn(sum.x, THIRD, -eye.x);
        precise float dy = fma_rn(sum.y, THIRD, -eye.y);
        precise float dz = fma_rn(sum.z, THIRD, -eye.z);
        precise float squared = fma_rn(dz, dz, fma_rn(dx, dx, dy * dy));
        return sqrt_rn(squared);
    }
    float farthest = da > db ? da : db;
    return farthest > dc ? farthest : dc;
}

// ds_cull_view_apply: window x * w, window y * w, clip z, clip w; nvcc
// contracts r0 p0 + r1 p1 + r2 p2 + r3 into fma(r2, p2, fma(r0, p0, r1 p1)) + r3.
vec4 view_apply(vec3 p)
{
    precise vec4 clip;
    clip.x = fma_rn(view_x.z, p.z, fma_rn(view_x.x, p.x, view_x.y * p.y)) + view_x.w;
    clip.y = fma_rn(view_y.z, p.z, fma_rn(view_y.x, p.x, view_y.y * p.y)) + view_y.w;
    clip.z = fma_rn(view_z.z, p.z, fma_rn(view_z.x, p.x, view_z.y * p.y)) + view_z.w;
    clip.w = fma_rn(view_w.z, p.z, fma_rn(view_w.x, p.x, view_w.y * p.y)) + view_w.w;
    return clip;
}

// distance_math.h's ds_triangle_project on the three vertices'
// view_apply(): PROJECT_ANYWHERE, PROJECT_BEYOND, or PROJECT_ON with the
// window positions in sx, sy.
#define PROJECT_ON 0
#define PROJECT_ANYWHERE 1
#define PROJECT_BEYOND 2
int triangle_project(vec4 clip[3], out float sx[3], out float sy[3])
{
    int beyond_near = 0, beyond_far = 0;
    for (int k = 0; k < 3; k++) {
        precise float w = clip[k].w;
        sx[k] = 0.0;
        sy[k] = 0.0;
        if (!(w > 0.0))
            return PROJECT_ANYWHERE;
        precise float near_w = w * -1.0001;
        precise float far_w = w * 1.0001;
        beyond_near += clip[k].z < near_w ? 1 : 0;
        beyond_far += clip[k].z > far_w ? 1 : 0;
        precise float rw = div_rn(1.0, w); // __frcp_rn
        precise float x = clip[k].x * rw, y = clip[k].y * rw;
        sx[k] = x;
        sy[k] = y;
        if (!(abs(x) < DS_CULL_FAR_PIXELS && abs(y) < DS_CULL_FAR_PIXELS))
            return PROJECT_ANYWHERE;
    }
    return beyond_near == 3 || beyond_far == 3 ? PROJECT_BEYOND : PROJECT_ON;
}

// ds_triangle_misses_projected. The margin's products and the edge
// functions stay unfused, as nvcc leaves them (a test that only ever
// keeps more than it must).
bool triangle_misses_projected(int where, float sx[3], float sy[3])
{
    if (where != PROJECT_ON)
        return where == PROJECT_BEYOND;
    const float e = DS_CULL_MARGIN;
    precise float x0 = min(sx[0], min(sx[1], sx[2])) - e;
    precise float x1 = max(sx[0], max(sx[1], sx[2])) + e;
    precise float y0 = min(sy[0], min(sy[1], sy[2])) - e;
    precise float y1 = max(sy[0], max(sy[1], sy[2])) + e;
    precise float ax_f = ceil(x0 - 0.5), bx_f = floor(x1 - 0.5);
    precise float ay_f = ceil(y0 - 0.5), by_f = floor(y1 - 0.5);
    int ax = max(int(ax_f), 0), bx = min(int(bx_f), int(viewport.x) - 1);
    int ay = max(int(ay_f), 0), by = min(int(by_f), int(viewport.y) - 1);
    if (ax > bx || ay > by)
        return true;
    if ((bx - ax + 1) * (by - ay + 1) > DS_CULL_MAX_SAMPLES)
        return false;
    precise float area2 = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    precise float s = area2 >= 0.0 ? 1.0 : -1.0;
    precise float ex[3], ey[3], slack2[3];
    for (int k = 0; k < 3; k++) {
        int next = k == 2 ? 0 : k + 1;
        ex[k] = s * (sx[next] - sx[k]);
        ey[k] = s * (sy[next] - sy[k]);
        slack2[k] = fma_rn(ex[k], ex[k], ey[k] * ey[k]) * (e * e);
    }
    for (int y = ay; y <= by; y++)
        for (int x = ax; x <= bx; x++) {
            precise float cx = float(x) + 0.5, cy = float(y) + 0.5;
            bool inside = true;
            for (int k = 0; k < 3; k++) {
                precise float f = ex[k] * (cy - sy[k]) - ey[k] * (cx - sx[k]);
                precise float f2 = f * f;
                inside = inside && (f >= 0.0 || f2 <= slack2[k]);
            }
            if (inside)
                return false;
        }
    return true;
}

// ---- tiles.h ---------------------------------------------------------------

uint tiles_pack(int c0, int c1, int r0, int r1)
{
    return uint(c0) | uint(c1) << 8 | uint(r0) << 16 | uint(r1) << 24;
}

int tiles_clamp(float v, int last)
{
    if (!(v > 0.0))
        return 0;
    return v >= float(last) ? last : int(v);
}

// ds_tiles_of_box.
uint tiles_of_box(float x0, float x1, float y0, float y1)
{
    if (x1 < 0.0 || y1 < 0.0 || x0 > viewport.x || y0 > viewport.y)
        return DS_TILES_EMPTY;
    precise float c0 = x0 * to_tile.x, c1 = x1 * to_tile.x;
    precise float r0 = y0 * to_tile.y, r1 = y1 * to_tile.y;
    return tiles_pack(tiles_clamp(c0, grid.x - 1), tiles_clamp(c1, grid.x - 1),
                      tiles_clamp(r0, grid.y - 1), tiles_clamp(r1, grid.y - 1));
}

// ds_triangle_tiles_projected.
uint triangle_tiles_projected(int where, float sx[3], float sy[3])
{
    if (where == PROJECT_ANYWHERE)
        return tiles_pack(0, grid.x - 1, 0, grid.y - 1);
    if (where == PROJECT_BEYOND)
        return DS_TILES_EMPTY;
    precise float x0 = min(sx[0], min(sx[1], sx[2])), x1 = max(sx[0], max(sx[1], sx[2]));
    precise float y0 = min(sy[0], min(sy[1], sy[2])), y1 = max(sy[0], max(sy[1], sy[2]));
    precise float left = x0 - DS_TILES_MARGIN, right = x1 + DS_TILES_MARGIN;
    precise float bottom = y0 - DS_TILES_MARGIN, top = y1 + DS_TILES_MARGIN;
    return tiles_of_box(left, right, bottom, top);
}

// ds_point_tiles; the splat's half size 0.5 max(scale / w, 1) + margin is
// one fma, as nvcc makes it.
uint point_tiles(vec3 p)
{
    precise vec4 clip = view_apply(p);
    precise float w = clip.w;
    precise float near_w = w * -1.0001;
    precise float far_w = w * 1.0001;
    if (!(w > 0.0) || clip.z < near_w || clip.z > far_w)
        return DS_TILES_EMPTY;
    precise float sx = div_rn(clip.x, w), sy = div_rn(clip.y, w);
    precise float half_size = fma_rn(max(div_rn(point_scale, w), 1.0), 0.5, DS_TILES_MARGIN);
    if (!(abs(sx) < DS_CULL_FAR_PIXELS && abs(sy) < DS_CULL_FAR_PIXELS &&
          half_size < DS_CULL_FAR_PIXELS))
        return tiles_pack(0, grid.x - 1, 0, grid.y - 1);
    precise float left = sx - half_size, right = sx + half_size;
    precise float bottom = sy - half_size, top = sy + half_size;
    return tiles_of_box(left, right, bottom, top);
}

// ---- the pass --------------------------------------------------------------

// ds_narrow_key on the key's bits. The sort compares the low bits of the
// complement alone (gl_stages.c), so the high ones may stay set.
uint narrow_key(uint bits)
{
    if (narrow.y == 0u || bits == 0u)
        return bits;
    return bits > narrow.x ? min(bits - narrow.x, narrow.y) : 1u;
}

// The sort's key and value (with the tile code of `rect` when the frame's
// values carry codes), and for verification the full key.
void write_key(uint i, float key, uint rect)
{
    uint bits = floatBitsToUint(key);
    keys[i] = ~narrow_key(bits);
    values[i] = tiles_code_value(i, rect, grid.x, value_shift);
    if (keep_keys)
        verify_keys[i] = ~bits;
}

void main()
{
    uint drawn_here = 0u;
    if (gl_LocalInvocationIndex == 0u)
        group_drawn = 0u;
    uint stride = gl_NumWorkGroups.x * uint(KEYS_THREADS);
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
#ifdef POINTS
        vec3 p = position(i);
        float key = point_distance(p);
        if (key_range.y != 0.0)
            key = quantise_key(key);
        uint rect = tiled ? point_tiles(p) : DS_TILES_EMPTY;
        write_key(i, key, rect);
        if (tiled)
            primitive_rects[i] = rect;
#else
        vec3 pa = position(indices[3u * i]);
        vec3 pb = position(indices[3u * i + 1u]);
        vec3 pc = position(indices[3u * i + 2u]);
        float da, db, dc;
        triangle_distances(pa, pb, pc, da, db, dc);
        float key = triangle_key_of(da, db, dc, pa, pb, pc);
        if (key_range.y != 0.0)
            key = quantise_key(key);
        bool kept = true;
        // One projection for the cull and the tiles, as distance.cu.
        int where = PROJECT_ON;
        float sx[3], sy[3];
        if (cull || tiled) {
            vec4 clip[3];
            clip[0] = view_apply(pa);
            clip[1] = view_apply(pb);
            clip[2] = view_apply(pc);
            where = triangle_project(clip, sx, sy);
        }
        if (cull) {
            kept = !triangle_misses_projected(where, sx, sy);
            key = kept ? max(key, FLT_MIN_NORMAL) : 0.0;
        }
        uint rect = tiled && kept ? triangle_tiles_projected(where, sx, sy) : DS_TILES_EMPTY;
        write_key(i, key, rect);
        if (tiled)
            primitive_rects[i] = rect;
        drawn_here += kept ? 1u : 0u;
#endif
    }
    if (!cull)
        return;
    barrier();
    if (drawn_here != 0u)
        atomicAdd(group_drawn, drawn_here);
    barrier();
    if (gl_LocalInvocationIndex != 0u)
        return;
    atomicAdd(state.visible[parity], group_drawn);
    // The count's atomic lands before this workgroup is counted done, so
    // the last one sees every workgroup's count.
    memoryBarrierBuffer();
    if (atomicAdd(state.keys_done, 1u) != gl_NumWorkGroups.x - 1u)
        return;
    uint visible = atomicAdd(state.visible[parity], 0u);
    drawn = visible;
    if (write_command) {
        // ds_cull_draw_command
        elements[command_word] = 3u * visible;
        elements[command_word + 1u] = 1u;
        elements[command_word + 2u] = 0u;
        elements[command_word + 3u] = 0u;
        if (indexed)
            elements[command_word + 4u] = 0u;
    }
    state.keys_done = 0u;
    // The next frame adds into the other counter (this frame's binning
    // still reads this one).
    state.visible[parity ^ 1u] = 0u;
}
