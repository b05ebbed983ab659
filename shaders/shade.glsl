// SPDX-License-Identifier: MIT
// shade.glsl — what every draw form shares: the renderer's uniforms, the
// colour modes and the headlight. renderer.c compiles it after the
// #version line and before each stage's own file (mesh, mesh_pull,
// points, and any other program that must look the same).
//
// Colour (vertex stage, ds_base_color): the mode picks the RGB; the file's
// alpha times the global alpha is the alpha in every mode.
// Shading (ds_shade): a headlight, a light at the eye, so
// the light and view directions coincide and Blinn-Phong's half vector is
// the view vector v: with c = |n·v| (two-sided: the normal turned to the
// viewer), rgb = base (ambient + (1 - ambient) c) + specular c^shininess.
// The highlight is reflected light: it adds to what the surface lets
// through instead of covering it, so in straight alpha it is divided by
// the alpha (and clamped), and a faint surface still shows it.
// View-dependent opacity (DS_OPACITY_VIEW): a layer of thickness d and
// opacity alpha at normal incidence is crossed along d / c at an angle of
// cosine c, and by Beer-Lambert transmits (1 - alpha)^(1 / c):
//     alpha' = 1 - (1 - alpha)^(1 / max(c, 0.05))
// so silhouettes and grazing walls are more opaque, as glass looks.

layout(location = 0) uniform mat4 view_projection;
layout(location = 1) uniform float alpha;
// World diameter times the projection's y scale times half the viewport
// height: dividing by clip w gives a point's diameter in pixels.
layout(location = 2) uniform float point_scale;
layout(location = 3) uniform vec3 eye;           // world space
layout(location = 4) uniform int color_mode;     // ds_color_mode
layout(location = 5) uniform vec3 tint;          // DS_COLOR_TINT's RGB
layout(location = 6) uniform vec2 height_range;  // y of the mesh's bottom, 1 / height
layout(location = 7) uniform int view_opacity;   // DS_OPACITY_VIEW
layout(location = 12) uniform int normals_only;  // no file colours: see below

// ds_color_mode's values (render_types.h); AUTO never reaches a shader.
const int DS_COLOR_NORMAL = 1;
const int DS_COLOR_TINT = 2;
const int DS_COLOR_HEIGHT = 3;
const int DS_COLOR_FILE = 4;

const float DS_AMBIENT = 0.3;    // lights walls seen edge-on
const float DS_SPECULAR = 0.25;  // highlight strength
const float DS_SHININESS = 64.0; // highlight width (Blinn-Phong exponent)
const float DS_MIN_COSINE = 0.05; // caps the view opacity's path at 20x

// Viridis (perceptually uniform, dark blue-violet to yellow) as the
// degree-6 polynomial image_metrics.c fits to 33 samples of it (the same
// coefficients as its heatmap, COLORMAP there; within 4/255 of viridis).
vec3 ds_viridis(float t)
{
    const vec3 c0 = vec3(0.267622, 0.005018, 0.329760);
    const vec3 c1 = vec3(0.219794, 1.412725, 1.399407);
    const vec3 c2 = vec3(-0.778152, 0.116883, 0.424468);
    const vec3 c3 = vec3(-4.395661, -5.526190, -21.822558);
    const vec3 c4 = vec3(8.008415, 13.938556, 63.176315);
    const vec3 c5 = vec3(1.595859, -13.716356, -72.410282);
    const vec3 c6 = vec3(-3.925684, 4.675427, 29.045612);
    return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

// The unit normal from the attribute buffer's GL_INT_2_10_10_10_REV word
// (renderer.c's pack_normal: round(511 c) per component, x lowest).
vec3 ds_unpack_normal(uint word)
{
    int bits = int(word);
    ivec3 q = ivec3(bitfieldExtract(bits, 0, 10), bitfieldExtract(bits, 10, 10),
                    bitfieldExtract(bits, 20, 10));
    return max(vec3(q) / 511.0, -1.0);
}

// A vertex's file colour and unit normal from its attribute words: the
// RGBA8 colour and the packed normal, or (normals_only: a triangle mesh
// without file colours, renderer.c) the normal alone, whose colour is
// then the normal's, opaque, as ds_mesh_finish() would have made it.
void ds_vertex_words(uvec2 words, out vec4 color, out vec3 normal)
{
    if (normals_only != 0) {
        normal = ds_unpack_normal(words.x);
        color = vec4(0.5 + 0.5 * normal, 1.0);
    } else {
        normal = ds_unpack_normal(words.y);
        color = unpackUnorm4x8(words.x);
    }
}

// The surface colour of a vertex before lighting. NORMAL maps the normal
// to RGB as ds_mesh_finish() does; HEIGHT runs the ramp from the mesh's
// lowest y to its highest (started a little above viridis' darkest end,
// which reads as black behind a translucent surface).
vec3 ds_base_color(vec3 file_rgb, vec3 normal, vec3 position)
{
    if (color_mode == DS_COLOR_TINT)
        return tint;
    if (color_mode == DS_COLOR_HEIGHT)
        return ds_viridis(0.15 + 0.85 * clamp((position.y - height_range.x) * height_range.y, 0.0, 1.0));
    if (color_mode == DS_COLOR_FILE)
        return file_rgb;
    return 0.5 + 0.5 * normal;
}

// |n·v| at a vertex: the cosine between its normal and the direction to
// the eye, for either side.
//
// Triangles are lit per vertex (Gouraud): the vertex stage shades and the
// fragment stage passes one interpolated colour through, because a
// fragment stage that reads any second interpolated value doubled the draw
// of a large mesh of tiny triangles on the GPU we measure on
// (docs/performance.md). On
// triangles a few pixels across the two look the same; on large flat
// triangles the highlight is interpolated. Points are lit per fragment
// (points.frag.glsl knows the sphere's normal there).
float ds_view_cosine(vec3 normal, vec3 position)
{
    vec3 to_eye = eye - position;
    return min(abs(dot(normal, to_eye)) *
                   inversesqrt(max(dot(normal, normal) * dot(to_eye, to_eye), 1e-30)),
               1.0);
}

// The straight-alpha fragment of a surface of colour `base` (rgb, alpha)
// whose normal makes cosine `cosine` (>= 0) with the view.
vec4 ds_shade(vec4 base, float cosine)
{
    float a = base.a;
    if (view_opacity != 0)
        a = 1.0 - pow(1.0 - a, 1.0 / max(cosine, DS_MIN_COSINE));
    float specular = DS_SPECULAR * pow(cosine, DS_SHININESS);
    vec3 diffuse = base.rgb * (DS_AMBIENT + (1.0 - DS_AMBIENT) * cosine);
    return vec4(min(diffuse + specular / max(a, 1.0 / 255.0), vec3(1.0)), a);
}
