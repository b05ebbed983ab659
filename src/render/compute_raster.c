/* SPDX-License-Identifier: MIT */
/* compute_raster.c — compute_raster.h: the compute raster's passes, in
 * order (docs/algorithms/compute-raster.md):
 *
 *   shade     raster_shade, beside the small count: each vertex's colour,
 *             shaded once, for the emits' corners (triangles only)
 *   count     raster_fragments (EMIT 0): each triangle's covered pixels,
 *             small triangles one invocation each, large ones (clipped,
 *             or a box over RASTER_SMALL_PIXELS) listed, then counted a
 *             workgroup each (points by raster_points alike); the counts
 *             also summed per chunk and block
 *   plan      raster_plan.glsl, in the large count's last workgroup to
 *             finish: the blocks' sums into their first slots and the
 *             frame's total, and the later passes' workgroups from it
 *   emit      raster_fragments (EMIT 1), or raster_points: each
 *             primitive's first slot from its block's and chunk's, then
 *             every fragment's pixel, RGBA8 colour and order key, and a
 *             count per pixel
 *   sort      fragment order: the keys (from 1 / w) with their fragment
 *             numbers, by gl_sort.h's radix sort or the caller's sort;
 *             raster_scan over the pixel counts (each pixel's list start)
 *             rides along the GL sort's dispatches
 *   bin       raster_bin puts each fragment's position in the order into
 *             its pixel's list (after the pixel scan where no GL sort ran)
 *   resolve   raster_resolve: each list in order, composited, stored;
 *             each covered pixel's count zeroed for the next frame's emit
 *
 * Every dispatch after the first waits for the one before at a memory
 * barrier, and on a large GPU each such step costs about as much as a
 * small pass's work, so the passes are arranged to need few of them
 * (ds_compute_raster_info counts a frame's). No pass allocates; the
 * buffers are sized at create and resize and grow only when a frame's
 * total exceeds them. */
#include "compute_raster.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distance_math.h"
#include "gl_compute.h"
#include "gl_sort.h"

extern const char ds_shader_shade[];
extern const char ds_shader_raster_setup[];
extern const char ds_shader_raster_slots[];
extern const char ds_shader_raster_fragments_comp[];
extern const char ds_shader_raster_scan_comp[];
extern const char ds_shader_raster_bin_comp[];
extern const char ds_shader_raster_resolve_comp[];
extern const char ds_shader_raster_plan[];
extern const char ds_shader_raster_plan_comp[];
extern const char ds_shader_radix_workgroup_scan[];
extern const char ds_shader_raster_points_comp[];
extern const char ds_shader_raster_shade_comp[];

/* Invocations per workgroup of the per-triangle and per-fragment passes. */
#define RASTER_THREADS 128
/* A triangle whose box holds more pixel centres than this is walked by a
 * workgroup (RASTER_THREADS pixels a round) instead of one invocation. */
#define RASTER_SMALL_PIXELS 64
/* Workgroups striding over the large triangles; the large count's last
 * one to finish runs the plan, so it always runs, even with no large
 * triangle. */
#define RASTER_LARGE_GROUPS 1024
/* Chunks of RASTER_THREADS triangles in a block: the plan, run by one
 * workgroup at the large count's end, scans one sum a block (about 1,200
 * at 10M triangles), the emit adds at most this many chunks' sums to its
 * block's start, one an invocation (so at most RASTER_THREADS). */
#define RASTER_BLOCK_CHUNKS 64
#define TRIANGLE_BLOCK (RASTER_THREADS * RASTER_BLOCK_CHUNKS)
/* The pixel scan's block: invocations, and words each. */
#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_BLOCK (SCAN_THREADS * SCAN_ITEMS)
/* From this fragment capacity the GL sort gets 8 keys per invocation, the
 * fastest below about 2M keys, where a frame's fragments lie. */
#define SORT_TUNED_FROM 262144
/* GL's guaranteed workgroup count along x. */
#define MAX_GROUPS_X 65535u
/* A buffer grown for a frame gets this much more than it needed. */
#define GROW_HEADROOM 4 /* one quarter */
/* State words before the large list (raster_fragments' STATE_LIST), and
 * those a frame copies for the host (the plan's: total to overflow). */
#define STATE_HEADER 12
#define STATE_READ_WORDS 8
/* Frames whose totals may be outstanding at once. */
#define RING 4

/* Uniform locations (shade.glsl's, then raster_setup's and the passes'). */
enum {
    U_VIEW_PROJECTION = 0, U_ALPHA = 1, U_EYE = 3, U_COLOR_MODE = 4, U_TINT = 5,
    U_HEIGHT_RANGE = 6, U_VIEW_OPACITY = 7, U_VIEWPORT = 8, U_TRIANGLE_COUNT = 9,
    U_BY_ORDER = 10, U_FRAGMENT_ORDER = 11, U_NORMALS_ONLY = 12, U_CAPACITY = 13,
    U_FLOAT_KEYS = 14, U_BLOCKS = 15, U_DEPTH_KEYS = 19,
    U_SORT_BLOCK = 20, /* raster_plan.glsl's: the large count's and the plan's */
    U_VERTEX_COUNT = 21 /* raster_shade's */
};
/* raster_points': shade.glsl's splat scale, GL's range of sizes,
 * whether a point whose centre is beside the screen is dropped, and the
 * steps a pixel of the size gl_PointCoord is computed from (0: exact). */
enum { U_POINT_SCALE = 2, U_POINT_SIZE_RANGE = 16, U_POINT_CLIP_XY = 17, U_POINT_COORD_STEPS = 18 };

/* The raster's programs: the vertex pass, count and emit, small [0] and
 * large [1], the same for points (made by the first frame of points), the
 * pixel scan's three phases, the by-pixel pass, the resolve, and the plan
 * on its own (a frame's runs in its large count; this one after a
 * caller's sort grew the buffers). */
typedef struct raster_programs {
    GLuint shade;
    GLuint count[2], emit[2];
    GLuint point_count[2], point_emit[2];
    GLuint scan[3], bin, resolve, plan;
} raster_programs;

/* What the driver's point sprites do, asked at the first frame of points. */
typedef struct raster_sprites {
    float point_sizes[2];  /* GL_POINT_SIZE_RANGE */
    int point_clip_xy;     /* probe_point_clipping's answer */
    /* gl_PointCoord's size step (probe_point_coord's answer, or desc's:
     * point_coord_forced nonzero), the probe's residual, and whether a
     * step explained the driver's coordinates */
    float point_coord_forced, point_coord_quantum, point_coord_residual;
    int point_coord_probed, point_coord_explained;
} raster_sprites;

/* The GPU memory: per triangle, per fragment, per pixel. */
typedef struct raster_buffers {
    /* per vertex: the shaded colour (4 floats) */
    GLuint vertex_colors;
    /* per triangle: counts; block sums, block starts and chunk sums */
    GLuint triangle_fragments, triangle_sums, state;
    GLuint block_sums;
    size_t block_capacity;
    /* per fragment */
    size_t capacity;
    GLuint keys, values, sorted_keys, sorted_values, fragments, lists;
    ds_gl_sort *sort;
    /* verify: the last fragment-order frame's keys before the sort */
    GLuint verify_keys;
    /* per pixel */
    GLuint pixel_counts, pixel_ends, image;
    /* The pixel counts may be other than zero: just made, or a frame
     * stopped between its emit and its resolve (which zeroes them). */
    int counts_dirty;
    /* The triangles' block sums may be other than zero: just made, or a
     * frame stopped between its count and its emit (which zeroes them). */
    int sums_dirty;
} raster_buffers;

/* What a frame issues: its dispatches and dependent steps (dispatches
 * that wait at a barrier for the ones before) and the last frame's;
 * in_step: a dispatch was issued since the last barrier; the pass
 * queries; the fragment keys' narrowing (depth_narrowing) and the bits the
 * GL sort orders, this frame's and the last drawn frame's. */
typedef struct raster_issued {
    unsigned dispatches, steps, last_dispatches, last_steps;
    int in_step;
    size_t pending_scan; /* the pixel scan issued alongside the GL sort's dispatches */
    GLuint queries[DS_RASTER_PASSES + 1];
    int queried;
    ds_key_narrow narrow;
    unsigned key_bits, last_key_bits;
    unsigned long sorted_frames, narrowed_frames; /* frames the GL sort ordered; narrowed */
} raster_issued;

/* Each frame's total and overflow, read a few frames later, and what an
 * overflow leaves to grow and draw again. */
typedef struct raster_totals {
    GLuint ring;
    GLsync fences[RING];
    uint64_t ring_frame[RING], frames, settled_frame;
    size_t grow_to;       /* an overflowed frame's total, to grow to */
    int last_overflowed;  /* the latest collected frame kept only part */
    size_t last_fragments;
    unsigned grow_count;
    ds_compute_raster_frame last_frame; /* drawn again by settle after an overflow */
    int have_last_frame;
} raster_totals;

struct ds_compute_raster {
    int width, height;
    size_t triangle_count;  /* primitives the buffers are for: triangles or points */
    size_t vertex_count;    /* the mesh's vertices (desc.point_count), shaded a frame */
    int time_passes;
    int verify;
    int no_subgroups;     /* desc's: the scans and the GL sort without KHR subgroups */
    /* The subgroup size the workgroup scans build on (GL_KHR_shader_subgroup's
     * arithmetic, as the GL sort's KHR form found it), 0 for the scan of
     * shared memory alone. */
    unsigned scan_subgroup;
    int verified_frame;   /* a fragment-order frame kept its keys */
    int verified_float;   /* they are for a caller's descending sort */
    raster_programs prog;
    raster_sprites sprite;
    raster_buffers buf;
    raster_issued issued;
    raster_totals totals;
};

int ds_compute_raster_supported(void)
{
    /* Doubles are core GLSL 4.00; compute shaders and the GL sort's
     * ballots are what it needs beyond. */
    return ds_gl_sort_supported();
}

/* What a raster program is compiled from before its own source, in this
 * order: PIECE_SCAN radix_workgroup_scan.glsl (SCAN_THREADS:
 * RASTER_THREADS with the set-up, else the pixel scan's); PIECE_SETUP
 * shade.glsl, raster_setup.glsl and raster_slots.glsl (the fragment
 * passes'); PIECE_PLAN raster_plan.glsl (the large count's and the
 * plan's own). */
enum { PIECE_SETUP = 1, PIECE_SCAN = 2, PIECE_PLAN = 4 };

/* The GL_KHR_shader_subgroup extensions of radix_workgroup_scan.glsl's
 * subgroup scan. */
#define SCAN_EXTENSIONS                                                                            \
    "#extension GL_KHR_shader_subgroup_basic : require\n"                                          \
    "#extension GL_KHR_shader_subgroup_arithmetic : require\n"

/* A compute program of `pieces` and `body`, after `defines`. Its
 * workgroup scan builds on subgroups where the raster has them and the
 * scan's subgroups fit in one (radix_workgroup_scan.glsl). */
static ds_status compile(const ds_compute_raster *raster, const char *name, const char *defines,
                         int pieces, const char *body, GLuint *dest)
{
    unsigned threads = (pieces & PIECE_SETUP) ? RASTER_THREADS : SCAN_THREADS;
    unsigned size = raster->scan_subgroup;
    int subgroups = (pieces & PIECE_SCAN) && size && threads % size == 0 && threads / size <= size;
    char header[768];
    snprintf(header, sizeof header,
             "%s%s"
             "#define RASTER_THREADS %du\n#define RASTER_SMALL_PIXELS %du\n"
             "#define RASTER_BLOCK_CHUNKS %du\n"
             "#define SCAN_THREADS %uu\n#define SCAN_ITEMS %du\n#define SUBGROUP_KHR %d\n"
             "#define SUBGROUP_SIZE %uu\n",
             subgroups ? SCAN_EXTENSIONS : "", defines, RASTER_THREADS, RASTER_SMALL_PIXELS,
             RASTER_BLOCK_CHUNKS, threads, SCAN_ITEMS, subgroups, subgroups ? size : 1u);
    const char *parts[6];
    int count = 0;
    if (pieces & PIECE_SCAN)
        parts[count++] = ds_shader_radix_workgroup_scan;
    if (pieces & PIECE_SETUP) {
        parts[count++] = ds_shader_shade;
        parts[count++] = ds_shader_raster_setup;
        parts[count++] = ds_shader_raster_slots;
    }
    if (pieces & PIECE_PLAN)
        parts[count++] = ds_shader_raster_plan;
    parts[count++] = body;
    size_t length = 1;
    for (int k = 0; k < count; k++)
        length += strlen(parts[k]);
    char *source = malloc(length);
    if (!source)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "raster: out of host memory");
    size_t at = 0;
    for (int k = 0; k < count; k++) {
        size_t n = strlen(parts[k]);
        memcpy(source + at, parts[k], n);
        at += n;
    }
    source[at] = '\0';
    ds_status status = ds_gl_compile_compute("raster", name, header, source, dest);
    free(source);
    return status;
}

static ds_status make_programs(ds_compute_raster *raster)
{
    ds_status status;
    static const char *const scan_defines[3] = {"#define PHASE 1\n", "#define PHASE 2\n",
                                                "#define PHASE 3\n"};
    const int planned = PIECE_SETUP | PIECE_SCAN | PIECE_PLAN;
    /* The emits scan each chunk's counts and each large triangle's
     * covered pixels a round at a time. */
    const int emits = PIECE_SETUP | PIECE_SCAN;
    if ((status = compile(raster, "raster_shade", "#define EMIT 0\n#define LARGE 0\n", PIECE_SETUP,
                          ds_shader_raster_shade_comp, &raster->prog.shade)) ||
        (status = compile(raster, "raster_fragments", "#define EMIT 0\n#define LARGE 0\n", PIECE_SETUP,
                          ds_shader_raster_fragments_comp, &raster->prog.count[0])) ||
        (status = compile(raster, "raster_fragments", "#define EMIT 0\n#define LARGE 1\n", planned,
                          ds_shader_raster_fragments_comp, &raster->prog.count[1])) ||
        (status = compile(raster, "raster_fragments", "#define EMIT 1\n#define LARGE 0\n", emits,
                          ds_shader_raster_fragments_comp, &raster->prog.emit[0])) ||
        (status = compile(raster, "raster_fragments", "#define EMIT 1\n#define LARGE 1\n", emits,
                          ds_shader_raster_fragments_comp, &raster->prog.emit[1])) ||
        (status = compile(raster, "raster_bin", "", 0, ds_shader_raster_bin_comp, &raster->prog.bin)) ||
        (status = compile(raster, "raster_resolve", "", 0, ds_shader_raster_resolve_comp,
                          &raster->prog.resolve)) ||
        (status = compile(raster, "raster_plan", "#define EMIT 0\n#define LARGE 1\n", planned,
                          ds_shader_raster_plan_comp, &raster->prog.plan)))
        return status;
    for (int k = 0; k < 3; k++)
        if ((status = compile(raster, "raster_scan", scan_defines[k], PIECE_SCAN,
                              ds_shader_raster_scan_comp, &raster->prog.scan[k])))
            return status;
    return DS_OK;
}

/* Points drawn by this GL's hardware, read back, for the probes below:
 * point k of `count` at NDC (points[k][0], points[k][1]) of size
 * points[k][2] pixels, into a width x height RGBA32F target cleared to
 * -1, whose pixels then hold (gl_PointCoord, 1, 1) where a point drew;
 * dest gets the target, 4 floats a pixel, the bottom row first. The GL
 * state it changes is put back. Errors: DS_ERR_GL. */
#define PROBE_POINTS 4
static ds_status draw_probe_points(const float (*points)[3], int count, int width, int height,
                                   float *dest)
{
    static const char *const vertex[] = {
        "#version 450 core\n"
        "layout(location = 0) uniform vec3 probe_points[4];\n"
        "void main() {\n"
        "    vec3 p = probe_points[gl_VertexID];\n"
        "    gl_Position = vec4(p.xy, 0.0, 1.0);\n"
        "    gl_PointSize = p.z;\n"
        "}\n"};
    static const char *const fragment[] = {
        "#version 450 core\n"
        "layout(location = 0) out vec4 color;\n"
        "void main() { color = vec4(gl_PointCoord, 1.0, 1.0); }\n"};
    char log[512];
    GLuint shaders[2] = {ds_gl_compile_shader(GL_VERTEX_SHADER, 1, vertex, log, sizeof log),
                         ds_gl_compile_shader(GL_FRAGMENT_SHADER, 1, fragment, log, sizeof log)};
    GLuint program = glCreateProgram();
    int linked = 0;
    if (shaders[0] && shaders[1]) {
        glAttachShader(program, shaders[0]);
        glAttachShader(program, shaders[1]);
        linked = ds_gl_link_program(program, log, sizeof log);
    }
    for (int k = 0; k < 2; k++)
        if (shaders[k])
            glDeleteShader(shaders[k]);
    if (!linked) {
        glDeleteProgram(program);
        return ds_fail(DS_ERR_GL, "raster: the point probe: %s", log);
    }
    GLint draw_framebuffer, read_framebuffer, used_program, vertex_array, pack_buffer, viewport[4];
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_framebuffer);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer);
    glGetIntegerv(GL_CURRENT_PROGRAM, &used_program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
    glGetIntegerv(GL_VIEWPORT, viewport);
    static const GLenum switches[5] = {GL_BLEND, GL_DEPTH_TEST, GL_SCISSOR_TEST,
                                       GL_RASTERIZER_DISCARD, GL_PROGRAM_POINT_SIZE};
    GLboolean was_on[5];
    for (int k = 0; k < 5; k++) {
        was_on[k] = glIsEnabled(switches[k]);
        if (k < 4)
            glDisable(switches[k]);
        else
            glEnable(switches[k]);
    }
    GLuint texture, framebuffer, empty;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    glTextureStorage2D(texture, 1, GL_RGBA32F, width, height);
    glCreateFramebuffers(1, &framebuffer);
    glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, texture, 0);
    glCreateVertexArrays(1, &empty);
    static const float clear[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
    glClearNamedFramebufferfv(framebuffer, GL_COLOR, 0, clear);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, width, height);
    glUseProgram(program);
    glUniform3fv(0, count, &points[0][0]);
    glBindVertexArray(empty);
    glDrawArrays(GL_POINTS, 0, count);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_FLOAT, dest);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buffer);
    glBindVertexArray((GLuint)vertex_array);
    glUseProgram((GLuint)used_program);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_framebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_framebuffer);
    for (int k = 0; k < 5; k++) {
        if (was_on[k])
            glEnable(switches[k]);
        else
            glDisable(switches[k]);
    }
    glDeleteVertexArrays(1, &empty);
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteTextures(1, &texture);
    glDeleteProgram(program);
    return DS_OK;
}

/* Whether this GL drops a point whose centre lies beside the viewport
 * (*dest 1) or draws the part of its splat on screen (0). GL discards a
 * point outside the clip volume (OpenGL 4.6, 13.7), and llvmpipe does;
 * a driver may instead clip wide points against a guard band. One
 * 16-pixel point centred a pixel left of an 8 x 8 target tells which, so
 * that the raster drops or keeps such points as the hardware draw does.
 * Errors: DS_ERR_GL. */
static ds_status probe_point_clipping(int *dest)
{
    static const float point[1][3] = {{-1.25f, 0.0f, 16.0f}};
    float pixels[8 * 8 * 4];
    *dest = 1;
    ds_status status = draw_probe_points(point, 1, 8, 8, pixels);
    if (status)
        return status;
    *dest = !(pixels[4 * (4 * 8 + 0) + 2] > 0.0f);
    return DS_OK;
}

/* The sprite-coordinate probe's points in a 64 x 16 target, one a 16 x 16
 * cell: window centres on the 1/256-pixel grid (so that a driver's
 * snapping of the centre adds nothing to the residual) and sizes whose
 * floors to 1/2, 1/4, ..., 1/256 pixel differ pairwise in at least one
 * of them, most by nearly a whole step (5.499 and 11.49 lie just below a
 * step of every candidate). */
#define COORD_PROBE_WIDTH 64
#define COORD_PROBE_HEIGHT 16
static const float coord_probe[PROBE_POINTS][3] = {
    {8.3125f, 8.6875f, 2.3f}, {24.55078125f, 7.8203125f, 7.9f},
    {40.0390625f, 8.5f, 5.499f}, {56.76171875f, 8.26953125f, 11.49f}};
/* Steps tried: 2^-k pixel for k = 1 .. COORD_STEP_BITS, and the exact size. */
#define COORD_STEP_BITS 8
/* A rule explains the driver's coordinates where none of them is farther
 * than this from it, in pixels (|d gl_PointCoord| x size): half of the
 * 1/64 pixel a wrong step of 1/32 puts them off at the rim, several times
 * a driver's own rounding (docs/algorithms/compute-raster.md). */
#define COORD_TOLERANCE (1.0 / 128.0)

int ds_point_coord_quantum_valid(float quantum)
{
    int exponent;
    return quantum > 0.0f && frexpf(quantum, &exponent) == 0.5f && exponent <= 0 &&
           exponent >= 1 - COORD_STEP_BITS;
}

/* `size` floored to a multiple of `quantum` (0: size itself), as the
 * raster_points shader does (there with steps = 1 / quantum). */
static double floor_size(double size, double quantum)
{
    return quantum > 0.0 ? floor(size / quantum) * quantum : size;
}

/* The largest distance, in pixels, of the probe's gl_PointCoord readings
 * from s = 1/2 + (x + 1/2 - xw) / S, t = 1/2 - (y + 1/2 - yw) / S where S
 * is each point's size floored to `quantum`; -1 if no pixel was drawn. */
static double coord_residual(const float *pixels, double quantum)
{
    double worst = -1.0;
    for (int y = 0; y < COORD_PROBE_HEIGHT; y++)
        for (int x = 0; x < COORD_PROBE_WIDTH; x++) {
            const float *p = pixels + 4 * (y * COORD_PROBE_WIDTH + x);
            if (!(p[2] > 0.0f))
                continue;
            const float *point = coord_probe[x / 16];
            double size = floor_size(point[2], quantum);
            double s = 0.5 + (x + 0.5 - point[0]) / size, t = 0.5 - (y + 0.5 - point[1]) / size;
            double e = fmax(fabs(p[0] - s), fabs(p[1] - t)) * size;
            worst = fmax(worst, e);
        }
    return worst;
}

/* The step to which this GL's point sprites floor the size from which
 * they compute gl_PointCoord (*quantum, 0 for the exact size), how far
 * the driver's coordinates are from that rule (*residual, pixels), and
 * whether a rule tried explains them (*explained). The coverage is the
 * exact size's either way (a driver's fixed-point set-up may keep the
 * size in steps for the interpolation alone). Where the exact rule
 * explains them it is kept; else the step that explains them best; where
 * none does, the exact rule, and a warning. Errors: DS_ERR_GL. */
static ds_status probe_point_coord(float *quantum, float *residual, int *explained)
{
    float points[PROBE_POINTS][3];
    for (int k = 0; k < PROBE_POINTS; k++) {
        points[k][0] = coord_probe[k][0] * (2.0f / COORD_PROBE_WIDTH) - 1.0f;
        points[k][1] = coord_probe[k][1] * (2.0f / COORD_PROBE_HEIGHT) - 1.0f;
        points[k][2] = coord_probe[k][2];
    }
    float pixels[COORD_PROBE_WIDTH * COORD_PROBE_HEIGHT * 4];
    *quantum = 0.0f;
    *residual = 0.0f;
    *explained = 1;
    ds_status status =
        draw_probe_points((const float (*)[3])points, PROBE_POINTS, COORD_PROBE_WIDTH,
                          COORD_PROBE_HEIGHT, pixels);
    if (status)
        return status;
    double exact = coord_residual(pixels, 0.0), best = exact, best_quantum = 0.0;
    if (exact >= 0.0 && exact <= COORD_TOLERANCE) {
        *residual = (float)exact;
        return DS_OK;
    }
    for (int k = 1; k <= COORD_STEP_BITS; k++) {
        double q = ldexp(1.0, -k), r = coord_residual(pixels, q);
        if (r >= 0.0 && (best < 0.0 || r < best)) {
            best = r;
            best_quantum = q;
        }
    }
    if (best >= 0.0 && best <= COORD_TOLERANCE) {
        *quantum = (float)best_quantum;
        *residual = (float)best;
        return DS_OK;
    }
    *explained = 0;
    *residual = (float)exact;
    ds_warn("raster: this GL's gl_PointCoord follows neither the exact point size nor one "
            "floored to 1/2 .. 1/256 pixel (the nearest, %g, is %.4f pixels off); compute "
            "points use the exact size and may differ from the hardware's near their rims",
            best_quantum, best);
    return DS_OK;
}

/* raster_points' four programs, as make_programs' for triangles, and what
 * this GL's sprites do: where a point beside the screen goes, and the
 * size gl_PointCoord is computed from (unless desc forced it). */
static ds_status make_point_programs(ds_compute_raster *raster)
{
    static const char *const defines[4] = {
        "#define EMIT 0\n#define LARGE 0\n", "#define EMIT 0\n#define LARGE 1\n",
        "#define EMIT 1\n#define LARGE 0\n", "#define EMIT 1\n#define LARGE 1\n"};
    /* The large count plans the frame, as the triangles'; the small emit
     * scans its chunk's counts. */
    static const int pieces[4] = {PIECE_SETUP, PIECE_SETUP | PIECE_SCAN | PIECE_PLAN,
                                  PIECE_SETUP | PIECE_SCAN, PIECE_SETUP};
    GLuint *programs[4] = {&raster->prog.point_count[0], &raster->prog.point_count[1],
                           &raster->prog.point_emit[0], &raster->prog.point_emit[1]};
    ds_status status;
    for (int k = 0; k < 4; k++)
        if ((status = compile(raster, "raster_points", defines[k], pieces[k],
                              ds_shader_raster_points_comp, programs[k])))
            return status;
    glGetFloatv(GL_POINT_SIZE_RANGE, raster->sprite.point_sizes);
    if ((status = probe_point_clipping(&raster->sprite.point_clip_xy)))
        return status;
    if (raster->sprite.point_coord_forced) {
        raster->sprite.point_coord_quantum = raster->sprite.point_coord_forced > 0.0f ? raster->sprite.point_coord_forced
                                                                        : 0.0f;
        return DS_OK;
    }
    raster->sprite.point_coord_probed = 1;
    return probe_point_coord(&raster->sprite.point_coord_quantum, &raster->sprite.point_coord_residual,
                             &raster->sprite.point_coord_explained);
}

static void delete_buffer(GLuint *buffer)
{
    if (*buffer)
        glDeleteBuffers(1, buffer);
    *buffer = 0;
}

/* The largest storage block GL binds, in bytes. */
static uint64_t max_block_bytes(void)
{
    GLint64 bytes = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &bytes);
    return bytes > 0 ? (uint64_t)bytes : 0;
}

/* A buffer of `bytes` (at least 4), or DS_ERR_OUT_OF_MEMORY with one line
 * naming `what`. Only the buffers the host writes with glBufferSubData
 * get GL_DYNAMIC_STORAGE_BIT (`host_writes`): the others are the GPU's
 * alone, which leaves the driver no reason to place them anywhere but
 * the GPU's memory. */
static ds_status make_buffer_for(GLuint *dest, size_t bytes, const char *what, int host_writes)
{
    delete_buffer(dest);
    while (glGetError() != GL_NO_ERROR) {
    }
    glCreateBuffers(1, dest);
    glNamedBufferStorage(*dest, (GLsizeiptr)(bytes < 4 ? 4 : bytes), NULL,
                         host_writes ? GL_DYNAMIC_STORAGE_BIT : 0);
    if (glGetError() != GL_NO_ERROR) {
        delete_buffer(dest);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "raster: the %s (%.0f MiB) does not fit in GPU memory",
                       what, (double)bytes / (1024.0 * 1024.0));
    }
    return DS_OK;
}

static ds_status make_buffer(GLuint *dest, size_t bytes, const char *what)
{
    return make_buffer_for(dest, bytes, what, 0);
}

/* The scan's block sums for n words. */
static ds_status ensure_block_sums(ds_compute_raster *raster, size_t n)
{
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    if (blocks <= raster->buf.block_capacity && raster->buf.block_sums)
        return DS_OK;
    raster->buf.block_capacity = blocks;
    return make_buffer(&raster->buf.block_sums, blocks * sizeof(uint32_t), "scan's block sums");
}

/* The per-fragment buffers and the GL sort for `capacity` fragments. */
static ds_status make_fragment_buffers(ds_compute_raster *raster, size_t capacity)
{
    ds_status status;
    uint64_t most = max_block_bytes() / 8;
    if (most > 0xFFFFFFFFu)
        most = 0xFFFFFFFFu;
    if (capacity > most)
        return ds_fail(DS_ERR_TOO_LARGE,
                       "raster: %zu fragments at %dx%d need %.0f MiB; this GL binds at most "
                       "%llu fragments (GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 32-bit numbers)",
                       capacity, raster->width, raster->height,
                       (double)capacity * DS_COMPUTE_RASTER_FRAGMENT_BYTES / (1024.0 * 1024.0),
                       (unsigned long long)most);
    raster->buf.capacity = 0;
    ds_gl_sort_destroy(raster->buf.sort);
    raster->buf.sort = NULL;
    size_t words = capacity * sizeof(uint32_t);
    if ((status = make_buffer(&raster->buf.keys, words, "fragment keys")) ||
        (status = make_buffer(&raster->buf.values, words, "fragment values")) ||
        (status = make_buffer(&raster->buf.sorted_keys, words, "sorted fragment keys")) ||
        (status = make_buffer(&raster->buf.sorted_values, words, "sorted fragment values")) ||
        (status = make_buffer(&raster->buf.fragments, 2 * words, "fragments")) ||
        (status = make_buffer(&raster->buf.lists, 2 * words, "pixel lists")) ||
        (raster->verify &&
         (status = make_buffer(&raster->buf.verify_keys, words, "fragment keys kept to verify"))))
        return status;
    /* The GL sort picks its keys per invocation from its capacity, but a
     * frame's fragments are far fewer than the buffers hold (two a pixel
     * at first). Above SORT_TUNED_FROM fragments of capacity, 8 keys. */
    ds_gl_sort_tuning tuning = {raster->no_subgroups ? DS_GL_SORT_SUBGROUP_ARB
                                                     : DS_GL_SORT_SUBGROUP_AUTO,
                                capacity >= SORT_TUNED_FROM ? 8 : 0};
    if ((status = ds_gl_sort_create_tuned(capacity, &tuning, &raster->buf.sort)))
        return status;
    raster->buf.capacity = capacity;
    return DS_OK;
}

/* The per-pixel buffers and the image. */
static ds_status make_pixel_buffers(ds_compute_raster *raster)
{
    ds_status status;
    size_t pixels = (size_t)raster->width * (size_t)raster->height;
    if ((status = make_buffer(&raster->buf.pixel_counts, pixels * sizeof(uint32_t),
                              "pixel counts")) ||
        (status = make_buffer(&raster->buf.pixel_ends, pixels * sizeof(uint32_t), "pixel lists' ends")) ||
        (status = ensure_block_sums(raster, pixels)))
        return status;
    raster->buf.counts_dirty = 1;
    if (raster->buf.image)
        glDeleteTextures(1, &raster->buf.image);
    glCreateTextures(GL_TEXTURE_2D, 1, &raster->buf.image);
    glTextureStorage2D(raster->buf.image, 1, GL_RGBA8, raster->width, raster->height);
    return DS_OK;
}

ds_status ds_compute_raster_create(const ds_compute_raster_desc *desc, ds_compute_raster **dest)
{
    ds_status status;
    if (!dest)
        return ds_fail(DS_ERR_INVALID_ARG, "raster: NULL destination");
    *dest = NULL;
    if (!desc || desc->width <= 0 || desc->height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "raster: the viewport must be positive");
    if (!ds_compute_raster_supported())
        return ds_fail(DS_ERR_UNSUPPORTED, "raster: the context lacks GL 4.3 compute shaders or "
                       "GL_ARB_shader_ballot");
    float quantum = desc->point_coord_quantum;
    if (!(quantum <= 0.0f) && !ds_point_coord_quantum_valid(quantum))
        return ds_fail(DS_ERR_INVALID_ARG, "raster: a point-coordinate step of %g pixels: "
                       "0, below 0 or 1/2 to 1/%d", (double)quantum, 1 << COORD_STEP_BITS);
    size_t primitives =
        desc->point_count > desc->triangle_count ? desc->point_count : desc->triangle_count;
    if (primitives >= 0xFFFFFFFFu / 2)
        return ds_fail(DS_ERR_TOO_LARGE, "raster: %zu triangles or points: at most 2^31 are "
                       "numbered", primitives);
    if (desc->triangle_count && !desc->point_count)
        return ds_fail(DS_ERR_INVALID_ARG, "raster: %zu triangles of no vertices (desc.point_count "
                       "is the mesh's vertices)", desc->triangle_count);
    /* The vertex pass's colours, 16 bytes a vertex, are bound whole. */
    if ((uint64_t)desc->point_count * 16u > max_block_bytes())
        return ds_fail(DS_ERR_TOO_LARGE, "raster: the shaded colours of %zu vertices need %.0f MiB; "
                       "this GL binds at most %.0f MiB (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
                       desc->point_count, (double)desc->point_count * 16.0 / (1024.0 * 1024.0),
                       (double)max_block_bytes() / (1024.0 * 1024.0));
    ds_compute_raster *raster = calloc(1, sizeof *raster);
    if (!raster)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "raster: out of host memory");
    raster->width = desc->width;
    raster->height = desc->height;
    raster->triangle_count = primitives; /* the per-primitive buffers' */
    raster->vertex_count = desc->point_count;
    raster->time_passes = desc->time_passes;
    raster->verify = desc->verify;
    raster->no_subgroups = desc->no_subgroups;
    raster->sprite.point_coord_forced = desc->point_coord_quantum;
    size_t t = primitives ? primitives : 1;
    size_t blocks = (t + TRIANGLE_BLOCK - 1) / TRIANGLE_BLOCK;
    size_t chunks = (t + RASTER_THREADS - 1) / RASTER_THREADS;
    size_t pixels = (size_t)desc->width * (size_t)desc->height;
    size_t capacity = desc->initial_fragments ? desc->initial_fragments
                                              : DS_COMPUTE_RASTER_FRAGMENTS_PER_PIXEL * pixels;
    /* The GL sort first: the programs' scans use the subgroups its probe
     * found. */
    if ((status = make_fragment_buffers(raster, capacity)))
        goto fail;
    raster->scan_subgroup = ds_gl_sort_khr_subgroup_size(raster->buf.sort);
    if ((status = make_programs(raster)) ||
        (status = make_buffer(&raster->buf.vertex_colors, raster->vertex_count * 4 * sizeof(float),
                              "shaded vertex colours")) ||
        (status = make_buffer(&raster->buf.triangle_fragments, t * sizeof(uint32_t),
                              "triangle counts")) ||
        (status = make_buffer(&raster->buf.triangle_sums, (2 * blocks + chunks) * sizeof(uint32_t),
                              "triangle sums")) ||
        (status = make_buffer_for(&raster->buf.state, (STATE_HEADER + t) * sizeof(uint32_t),
                                  "large-triangle list", 1)) ||
        (status = make_buffer_for(&raster->totals.ring, RING * STATE_READ_WORDS * sizeof(uint32_t),
                                  "frame totals", 1)) ||
        (status = make_pixel_buffers(raster)))
        goto fail;
    raster->buf.sums_dirty = 1;
    if (desc->time_passes)
        glCreateQueries(GL_TIMESTAMP, DS_RASTER_PASSES + 1, raster->issued.queries);
    *dest = raster;
    return DS_OK;
fail:
    ds_compute_raster_destroy(raster);
    return status;
}

ds_status ds_compute_raster_resize(ds_compute_raster *raster, int width, int height)
{
    if (!raster || width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "raster: the viewport must be positive");
    if (width == raster->width && height == raster->height)
        return DS_OK;
    raster->width = width;
    raster->height = height;
    return make_pixel_buffers(raster);
}

GLuint ds_compute_raster_image(const ds_compute_raster *raster)
{
    return raster ? raster->buf.image : 0;
}

void ds_compute_raster_destroy(ds_compute_raster *raster)
{
    if (!raster)
        return;
    GLuint *programs[] = {&raster->prog.shade,
                          &raster->prog.count[0],       &raster->prog.count[1],
                          &raster->prog.emit[0],        &raster->prog.emit[1],
                          &raster->prog.point_count[0], &raster->prog.point_count[1],
                          &raster->prog.point_emit[0],  &raster->prog.point_emit[1],
                          &raster->prog.scan[0],        &raster->prog.scan[1],
                          &raster->prog.scan[2],        &raster->prog.bin,
                          &raster->prog.resolve,        &raster->prog.plan};
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; k++)
        if (*programs[k])
            glDeleteProgram(*programs[k]);
    GLuint *buffers[] = {&raster->buf.vertex_colors, &raster->buf.triangle_fragments, &raster->buf.triangle_sums, &raster->buf.state,
                         &raster->buf.keys, &raster->buf.values, &raster->buf.sorted_keys,
                         &raster->buf.sorted_values, &raster->buf.fragments, &raster->buf.lists,
                         &raster->buf.pixel_counts, &raster->buf.pixel_ends, &raster->buf.block_sums,
                         &raster->buf.verify_keys, &raster->totals.ring};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++)
        delete_buffer(buffers[k]);
    if (raster->buf.image)
        glDeleteTextures(1, &raster->buf.image);
    if (raster->issued.queries[0])
        glDeleteQueries(DS_RASTER_PASSES + 1, raster->issued.queries);
    for (int k = 0; k < RING; k++)
        if (raster->totals.fences[k])
            glDeleteSync(raster->totals.fences[k]);
    ds_gl_sort_destroy(raster->buf.sort);
    free(raster);
}

/* Dispatches and barriers of the frame's, counted: the first dispatch
 * after a barrier starts a step, which waits for the steps before
 * (ds_compute_raster_info). */
static void count_dispatch(ds_compute_raster *raster)
{
    raster->issued.dispatches++;
    raster->issued.steps += !raster->issued.in_step;
    raster->issued.in_step = 1;
}

static void dispatch(ds_compute_raster *raster, GLuint x, GLuint y)
{
    glDispatchCompute(x, y, 1);
    count_dispatch(raster);
}

static void dispatch_indirect(ds_compute_raster *raster, GLintptr offset)
{
    glDispatchComputeIndirect(offset);
    count_dispatch(raster);
}

static void barrier(ds_compute_raster *raster, GLbitfield bits)
{
    glMemoryBarrier(bits);
    raster->issued.in_step = 0;
}

/* A workgroup grid for `n` invocations of `threads`: x up to GL's
 * guaranteed 65,535, then rows (the shaders number groups y * x + x). */
static void dispatch_for(ds_compute_raster *raster, size_t n, unsigned threads)
{
    size_t groups = (n + threads - 1) / threads;
    if (!groups)
        return;
    GLuint x = groups < MAX_GROUPS_X ? (GLuint)groups : MAX_GROUPS_X;
    GLuint y = (GLuint)((groups + x - 1) / x);
    dispatch(raster, x, y);
}

/* Phase `phase` (0 to 2) of the exclusive scan of the n pixel counts into
 * the pixels' list starts, the total into the state's word 2; each phase
 * reads what the one before wrote, so a barrier comes between. */
static void scan_phase(ds_compute_raster *raster, int phase, size_t n)
{
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, raster->buf.pixel_counts);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, raster->buf.pixel_ends);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, raster->buf.block_sums);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, raster->buf.state);
    glUseProgram(raster->prog.scan[phase]);
    glUniform1ui(0, (GLuint)n);
    glUniform1ui(1, 2);
    dispatch(raster, phase == 1 ? 1u : (GLuint)(blocks ? blocks : 1), 1);
}

/* The GL sort's ds_gl_sort_alongside: the pixel scan's phases after its
 * first three dispatches, each finished by the sort's next barrier. The
 * scan reads the pixel counts (the emit's) and writes the list starts,
 * its block sums and the state's word 2, none of which the sort touches
 * (it reads the state's words 3 and 8 to 10). */
static void scan_alongside(void *user, int k)
{
    ds_compute_raster *raster = user;
    if (k < 3 && raster->issued.pending_scan) {
        scan_phase(raster, k, raster->issued.pending_scan);
        if (k == 2)
            raster->issued.pending_scan = 0;
    }
}

/* Relative widening of the bound below, far more than the few float
 * roundings between a corner's 1 / w and a fragment's. */
#define DEPTH_BOUND_SLACK 1e-5

/* The narrowing of a fragment-order frame's keys for the GL sort, as
 * frame.c narrows the triangles' distances. The keys are made from each
 * fragment's 1 / w (raster_slots.glsl), and w, linear over the box,
 * takes its extremes at the box's corners; a fragment's 1 / w lies
 * between its (clipped) triangle's corners' (GL interpolates it linearly
 * in the window), and no fragment is nearer than the near plane. So every
 * fragment's 1 / w lies in [1 / (the farthest corner's w), 1 / (the
 * nearest corner's w, or the near plane's if that is farther)]. Where
 * that range spans fewer than 2^24 float steps, which it does whenever
 * its ends are less than about four times apart, the keys are those
 * steps, in the same order. */
static ds_key_narrow depth_narrowing(const ds_compute_raster_frame *frame)
{
    ds_key_narrow none = {0u, 0u};
    if (!frame->narrow_keys || frame->sort || frame->order != DS_RASTER_FRAGMENT_ORDER)
        return none;
    const float *m = frame->shading.view_projection; /* column-major */
    double nearest = HUGE_VAL, farthest = 0.0;
    for (int c = 0; c < 8; c++) {
        double x = frame->box[c & 1][0], y = frame->box[(c >> 1) & 1][1],
               z = frame->box[(c >> 2) & 1][2];
        double clip_z = m[2] * x + m[6] * y + m[10] * z + m[14];
        double clip_w = m[3] * x + m[7] * y + m[11] * z + m[15];
        /* Without the near plane, a corner before it has no bound. */
        if (!(frame->near_plane > 0.0f) && (!(clip_w > 0.0) || !(clip_z >= -clip_w)))
            return none;
        nearest = fmin(nearest, clip_w);
        farthest = fmax(farthest, clip_w);
    }
    if (frame->near_plane > 0.0f)
        nearest = fmax(nearest, (double)frame->near_plane);
    if (!(nearest > 0.0 && nearest <= farthest && farthest < HUGE_VAL))
        return none; /* nothing in front of the near plane, or no numbers */
    double lo = (1.0 / farthest) * (1.0 - DEPTH_BOUND_SLACK);
    double hi = (1.0 / nearest) * (1.0 + DEPTH_BOUND_SLACK);
    if (!(lo > 0.0 && lo <= hi && hi <= FLT_MAX))
        return none;
    return ds_key_narrow_for((float)lo, (float)hi);
}

static void set_shading(const ds_compute_raster *raster, const ds_compute_raster_frame *frame,
                        GLuint program)
{
    const ds_compute_raster_shading *s = &frame->shading;
    glUseProgram(program);
    glUniformMatrix4fv(U_VIEW_PROJECTION, 1, GL_FALSE, s->view_projection);
    glUniform1f(U_ALPHA, s->alpha);
    glUniform3fv(U_EYE, 1, s->eye);
    glUniform1i(U_COLOR_MODE, s->color_mode);
    glUniform3fv(U_TINT, 1, s->tint);
    glUniform2fv(U_HEIGHT_RANGE, 1, s->height_range);
    glUniform1i(U_VIEW_OPACITY, s->view_opacity);
    glUniform1i(U_NORMALS_ONLY, s->normals_only);
    glUniform2i(U_VIEWPORT, raster->width, raster->height);
    glUniform1ui(U_TRIANGLE_COUNT, (GLuint)frame->triangle_count);
    glUniform1i(U_BY_ORDER, frame->order == DS_RASTER_TRIANGLE_ORDER);
    glUniform1i(U_FRAGMENT_ORDER, frame->order == DS_RASTER_FRAGMENT_ORDER);
    glUniform1ui(U_CAPACITY, (GLuint)raster->buf.capacity);
    glUniform1i(U_FLOAT_KEYS, frame->sort != NULL);
    glUniform2ui(U_DEPTH_KEYS, raster->issued.narrow.base, raster->issued.narrow.top);
    glUniform1ui(U_BLOCKS, (GLuint)((frame->triangle_count + TRIANGLE_BLOCK - 1) / TRIANGLE_BLOCK));
    if (frame->points) {
        glUniform1f(U_POINT_SCALE, frame->point_scale);
        glUniform2fv(U_POINT_SIZE_RANGE, 1, raster->sprite.point_sizes);
        glUniform1i(U_POINT_CLIP_XY, raster->sprite.point_clip_xy);
        glUniform1f(U_POINT_COORD_STEPS,
                    raster->sprite.point_coord_quantum > 0.0f ? 1.0f / raster->sprite.point_coord_quantum : 0.0f);
    }
}

/* Binds the fragment passes' buffers (raster_setup's and
 * raster_slots' bindings). */
static void bind_fragment_passes(const ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    GLuint order = frame->sorted_triangles ? frame->sorted_triangles : frame->indices;
    GLuint buffers[12] = {frame->indices,     frame->positions,         frame->attributes,
                          order,              raster->buf.triangle_fragments,
                          raster->buf.triangle_sums, raster->buf.state,         raster->buf.keys,
                          raster->buf.values,     raster->buf.fragments,        raster->buf.pixel_counts,
                          raster->buf.vertex_colors};
    for (GLuint k = 0; k < 12; k++)
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, k, buffers[k]);
}

static void mark(ds_compute_raster *raster, int pass)
{
    if (raster->time_passes)
        glQueryCounter(raster->issued.queries[pass], GL_TIMESTAMP);
}

/* Grows the fragment buffers for `total` fragments (plus headroom). */
static ds_status grow_for(ds_compute_raster *raster, size_t total)
{
    size_t capacity = total + total / GROW_HEADROOM;
    uint64_t most = max_block_bytes() / 8;
    if (capacity > most && total <= most)
        capacity = (size_t)most;
    ds_status status = make_fragment_buffers(raster, capacity);
    if (status == DS_OK)
        raster->totals.grow_count++;
    return status;
}

/* A finished frame's words from the ring: its total, and whether it
 * overflowed the capacity it was drawn with. */
static void take_slot(ds_compute_raster *raster, int slot)
{
    uint32_t words[STATE_READ_WORDS];
    glGetNamedBufferSubData(raster->totals.ring, (GLintptr)(slot * sizeof words), sizeof words, words);
    glDeleteSync(raster->totals.fences[slot]);
    raster->totals.fences[slot] = 0;
    if (raster->totals.ring_frame[slot] >= raster->totals.settled_frame) {
        raster->totals.settled_frame = raster->totals.ring_frame[slot];
        raster->totals.last_fragments = words[0];
        raster->totals.last_overflowed = words[4] != 0;
    }
    if (words[4])
        raster->totals.grow_to = words[0] > raster->totals.grow_to ? words[0] : raster->totals.grow_to;
}

/* Collects the finished frames (all of them, waiting, with `wait`) and
 * grows the buffers if one overflowed. */
static ds_status collect(ds_compute_raster *raster, int wait)
{
    for (int k = 0; k < RING; k++) {
        int slot = (int)((raster->totals.frames + (uint64_t)k) % RING); /* oldest first */
        if (!raster->totals.fences[slot])
            continue;
        GLenum state = glClientWaitSync(raster->totals.fences[slot], wait ? GL_SYNC_FLUSH_COMMANDS_BIT : 0,
                                        wait ? (GLuint64)10000000000ull : 0);
        if (state == GL_WAIT_FAILED)
            return ds_fail(DS_ERR_GL, "raster: waiting for a frame's fence failed");
        if (state == GL_TIMEOUT_EXPIRED)
            continue;
        take_slot(raster, slot);
    }
    if (raster->totals.grow_to > raster->buf.capacity) {
        ds_status status = grow_for(raster, raster->totals.grow_to);
        if (status)
            return status;
    }
    raster->totals.grow_to = 0;
    return DS_OK;
}

/* The vertex pass and the count passes, and in the large count's last
 * workgroup the plan:
 * the blocks' starts, the total, the fragments kept and the later passes'
 * workgroups. They add into the state's large-triangle count and its
 * count of finished workgroups, zeroed first, and into the blocks' sums,
 * which the last frame's emit zeroed after its plan read them (cleared
 * here only when new, or after a frame that stopped between its count and
 * its emit). The large count runs with no primitive too: it plans the
 * empty frame. */
static void count_fragments(ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    size_t t = frame->triangle_count;
    static const uint32_t zero[STATE_HEADER] = {0};
    glNamedBufferSubData(raster->buf.state, 0, sizeof zero, zero);
    const GLuint *count = frame->points ? raster->prog.point_count : raster->prog.count;
    bind_fragment_passes(raster, frame);
    if (t) {
        if (raster->buf.sums_dirty)
            glClearNamedBufferData(raster->buf.triangle_sums, GL_R32UI, GL_RED_INTEGER,
                                   GL_UNSIGNED_INT, NULL);
        raster->buf.sums_dirty = 1;
        set_shading(raster, frame, count[0]);
        dispatch_for(raster, t, RASTER_THREADS);
        if (!frame->points) {
            /* Each vertex shaded once for the emits' corners, beside the
             * small count, which reads no colour: no step of its own. */
            set_shading(raster, frame, raster->prog.shade);
            glUniform1ui(U_VERTEX_COUNT, (GLuint)raster->vertex_count);
            dispatch_for(raster, raster->vertex_count, RASTER_THREADS);
        }
        /* The large list and the chunk and block sums, for the large count
         * and its plan; the colours, for the emits. */
        barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT);
    }
    set_shading(raster, frame, count[1]);
    glUniform1ui(U_SORT_BLOCK, (GLuint)ds_gl_sort_block_pairs(raster->buf.sort));
    dispatch(raster, RASTER_LARGE_GROUPS, 1);
    /* Every count and sum, and the plan's words, for the emit; those are
     * read as indirect dispatch arguments too. */
    barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
}

/* The plan again, on its own (one workgroup), after a caller's sort grew
 * the buffers: the fragments kept and the later passes' workgroups for
 * the new capacity and sort. */
static void plan_again(ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    glUseProgram(raster->prog.plan);
    glUniform1ui(U_CAPACITY, (GLuint)raster->buf.capacity);
    glUniform1ui(U_BLOCKS, (GLuint)((frame->triangle_count + TRIANGLE_BLOCK - 1) / TRIANGLE_BLOCK));
    glUniform1ui(U_SORT_BLOCK, (GLuint)ds_gl_sort_block_pairs(raster->buf.sort));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, raster->buf.triangle_sums);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, raster->buf.state);
    dispatch(raster, 1, 1);
    /* Read as storage and as indirect dispatch arguments. */
    barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
}

/* Earlier frames' totals, without waiting: a frame that overflowed grows
 * the buffers now. The slot this frame takes must be free: a wait on its
 * fence, then its total. */
static ds_status free_slot(ds_compute_raster *raster, int slot)
{
    ds_status status;
    if ((status = collect(raster, 0)))
        return status;
    if (raster->totals.fences[slot]) {
        GLenum state = glClientWaitSync(raster->totals.fences[slot], GL_SYNC_FLUSH_COMMANDS_BIT,
                                        (GLuint64)10000000000ull);
        if (state == GL_WAIT_FAILED || state == GL_TIMEOUT_EXPIRED)
            return ds_fail(DS_ERR_GL, "raster: a frame's fence did not signal");
        take_slot(raster, slot);
        if ((status = collect(raster, 0)))
            return status;
    }
    return DS_OK;
}

/* A caller's sort takes its count from the host: the total read back (the
 * wait the GL sort's indirect form avoids), the buffers grown to it before
 * any fragment is written, and the plan again (it reads the blocks' sums
 * and writes their starts elsewhere, so it may run twice; the emit, which
 * zeroes the sums, has not run yet). */
static ds_status read_total(ds_compute_raster *raster, const ds_compute_raster_frame *frame,
                            size_t *host_total)
{
    barrier(raster, GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t total = 0;
    glGetNamedBufferSubData(raster->buf.state, 0, sizeof total, &total);
    *host_total = total;
    if (*host_total > raster->buf.capacity) {
        ds_status status = grow_for(raster, *host_total);
        if (status)
            return status;
        plan_again(raster, frame);
    }
    return DS_OK;
}

/* The emit passes. Their atomics count on zeroed pixel counts: the last
 * frame's resolve zeroed each as it read it, so a clear is needed only
 * for new buffers or after a frame that stopped short. */
static void emit_fragments(ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    if (raster->buf.counts_dirty) {
        static const uint32_t zero = 0;
        barrier(raster, GL_BUFFER_UPDATE_BARRIER_BIT);
        glClearNamedBufferData(raster->buf.pixel_counts, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                               &zero);
    }
    raster->buf.counts_dirty = 1;
    if (frame->triangle_count) {
        /* Small and large emits write disjoint slots: no barrier between. */
        const GLuint *emit = frame->points ? raster->prog.point_emit : raster->prog.emit;
        bind_fragment_passes(raster, frame);
        set_shading(raster, frame, emit[0]);
        dispatch_for(raster, frame->triangle_count, RASTER_THREADS);
        set_shading(raster, frame, emit[1]);
        dispatch(raster, RASTER_LARGE_GROUPS, 1);
        raster->buf.sums_dirty = 0;
        /* The sort, the scan and the bin read what the emit wrote; the
         * next frame's count adds into the blocks' sums it zeroed. */
        barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT);
    }
}

/* Fragment order: the keys sorted by the caller's sort (host_total pairs)
 * or by the GL sort, which the pixel scan rides along. */
static ds_status sort_fragments(ds_compute_raster *raster, const ds_compute_raster_frame *frame,
                                size_t host_total)
{
    ds_status status;
    if (frame->sort) {
        status = host_total ? frame->sort(frame->sort_user, raster->buf.keys, raster->buf.values,
                                          raster->buf.sorted_keys, raster->buf.sorted_values,
                                          host_total)
                            : DS_OK;
        if (status)
            return status;
        barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT);
        return DS_OK;
    }
    /* The pixel scan needs only the emit's counts: its three phases share
     * the sort's barriers. */
    const ds_gl_sort_alongside alongside = {scan_alongside, raster};
    raster->issued.in_step = 1; /* the scan's dispatches join the sort's steps */
    status = ds_gl_sort_pairs_indirect(raster->buf.sort, raster->buf.keys, raster->buf.values,
                                       raster->buf.sorted_keys, raster->buf.sorted_values,
                                       raster->buf.state, 3, raster->buf.state,
                                       (GLintptr)(8 * sizeof(uint32_t)), 0,
                                       (int)raster->issued.key_bits, &alongside);
    if (status)
        return status;
    unsigned sort_dispatches, sort_steps;
    ds_gl_sort_issued(raster->buf.sort, &sort_dispatches, &sort_steps);
    raster->issued.dispatches += sort_dispatches;
    raster->issued.steps += sort_steps;
    raster->issued.in_step = 0; /* the sort ends with a barrier */
    return DS_OK;
}

/* raster_bin: each pixel's fragments into its list, in sorted order or
 * as emitted; one indirect dispatch sized by the plan. */
static void bin_fragments(ds_compute_raster *raster, int fragment_order)
{
    glUseProgram(raster->prog.bin);
    glUniform1i(1, fragment_order);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, raster->buf.sorted_values);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, raster->buf.fragments);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, raster->buf.keys);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, raster->buf.pixel_ends);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, raster->buf.lists);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, raster->buf.state);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, raster->buf.state);
    dispatch_indirect(raster, (GLintptr)(5 * sizeof(uint32_t)));
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
    barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT);
}

/* raster_resolve: each pixel's list blended into the image (the frame's,
 * else the raster's own), zeroing the pixel counts as it reads them. */
static void resolve_pixels(ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    glUseProgram(raster->prog.resolve);
    glUniform2i(0, raster->width, raster->height);
    glUniform4fv(1, 1, frame->background);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, raster->buf.pixel_counts);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, raster->buf.pixel_ends);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, raster->buf.lists);
    glBindImageTexture(0, frame->image ? frame->image : raster->buf.image, 0, GL_FALSE, 0,
                       GL_WRITE_ONLY, GL_RGBA8);
    /* raster_resolve's workgroup: 32 x 8 pixels. */
    dispatch(raster, (GLuint)(raster->width + 31) / 32, (GLuint)(raster->height + 7) / 8);
    raster->buf.counts_dirty = 0;
    /* Whoever reads the image next (a blit, a read-back, a texture fetch,
     * the overlay drawn over it) sees the stores; the next frame's emit
     * sees the zeroed counts. */
    barrier(raster, GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                        GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                        GL_SHADER_STORAGE_BARRIER_BIT);
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
}

ds_status ds_compute_raster_draw(ds_compute_raster *raster, const ds_compute_raster_frame *frame)
{
    ds_status status;
    if (!raster || !frame)
        return ds_fail(DS_ERR_INVALID_ARG, "raster: NULL raster or frame");
    if (frame->triangle_count > raster->triangle_count ||
        (frame->order == DS_RASTER_TRIANGLE_ORDER && !frame->sorted_triangles))
        return ds_fail(DS_ERR_INVALID_ARG, "raster: %zu primitives for a raster of %zu, or "
                       "triangle order without the sorted primitives",
                       frame->triangle_count, raster->triangle_count);
    if (frame->points && !raster->prog.point_count[0] && (status = make_point_programs(raster)))
        return status;
    int fragment_order = frame->order == DS_RASTER_FRAGMENT_ORDER;
    size_t pixels = (size_t)raster->width * (size_t)raster->height;
    int slot = (int)(raster->totals.frames % RING);
    if ((status = free_slot(raster, slot)))
        return status;
    raster->totals.last_frame = *frame;
    raster->totals.have_last_frame = 1;
    raster->issued.dispatches = raster->issued.steps = 0;
    raster->issued.in_step = 0;
    raster->issued.narrow = depth_narrowing(frame);
    raster->issued.key_bits = !fragment_order || frame->sort ? 0u
                                                      : (unsigned)ds_key_narrow_bits(raster->issued.narrow);
    mark(raster, 0);
    count_fragments(raster, frame);
    mark(raster, 1);
    size_t host_total = 0;
    if (frame->sort && fragment_order && (status = read_total(raster, frame, &host_total)))
        return status;
    mark(raster, 2);

    emit_fragments(raster, frame);
    mark(raster, 3);
    raster->verified_frame = 0;
    if (fragment_order && raster->verify) {
        /* The keys as the emit wrote them: the sort may overwrite them. */
        glCopyNamedBufferSubData(raster->buf.keys, raster->buf.verify_keys, 0, 0,
                                 (GLsizeiptr)(raster->buf.capacity * sizeof(uint32_t)));
        barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        raster->verified_frame = 1;
        raster->verified_float = frame->sort != NULL;
    }
    raster->issued.pending_scan = pixels;
    if (fragment_order && (status = sort_fragments(raster, frame, host_total)))
        return status;
    mark(raster, 4);
    if (raster->issued.pending_scan) {
        /* No GL sort to ride along: the scan on its own. */
        for (int phase = 0; phase < 3; phase++) {
            scan_phase(raster, phase, pixels);
            barrier(raster, GL_SHADER_STORAGE_BARRIER_BIT);
        }
        raster->issued.pending_scan = 0;
    }
    bin_fragments(raster, fragment_order);
    mark(raster, 5);
    resolve_pixels(raster, frame);
    mark(raster, 6);
    raster->issued.queried = raster->time_passes;
    /* The frame's total and overflow, for collect() a few frames on: a
     * copy on the GPU and a fence, no wait. */
    barrier(raster, GL_BUFFER_UPDATE_BARRIER_BIT);
    glCopyNamedBufferSubData(raster->buf.state, raster->totals.ring, 0,
                             (GLintptr)(slot * STATE_READ_WORDS * sizeof(uint32_t)),
                             STATE_READ_WORDS * sizeof(uint32_t));
    raster->totals.fences[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    raster->totals.ring_frame[slot] = ++raster->totals.frames;
    raster->issued.last_dispatches = raster->issued.dispatches;
    raster->issued.last_steps = raster->issued.steps;
    raster->issued.last_key_bits = raster->issued.key_bits;
    raster->issued.sorted_frames += raster->issued.key_bits != 0u;
    raster->issued.narrowed_frames += raster->issued.key_bits != 0u && raster->issued.key_bits < 32u;
    return DS_OK;
}

ds_status ds_compute_raster_settle(ds_compute_raster *raster, int *redrawn)
{
    if (redrawn)
        *redrawn = 0;
    if (!raster)
        return DS_OK;
    for (int round = 0; round < 3; round++) {
        ds_status status = collect(raster, 1);
        if (status)
            return status;
        if (!raster->totals.last_overflowed || !raster->totals.have_last_frame)
            return DS_OK;
        /* The last frame kept only what fitted; the buffers have grown:
         * the same frame again, into the same image. */
        raster->totals.last_overflowed = 0;
        ds_compute_raster_frame again = raster->totals.last_frame;
        if ((status = ds_compute_raster_draw(raster, &again)))
            return status;
        if (redrawn)
            *redrawn = 1;
    }
    return ds_fail(DS_ERR_GL, "raster: a frame still overflowed after growing three times");
}

void ds_compute_raster_describe(const ds_compute_raster *raster, ds_compute_raster_info *dest)
{
    memset(dest, 0, sizeof *dest);
    if (!raster)
        return;
    size_t pixels = (size_t)raster->width * (size_t)raster->height;
    size_t t = raster->triangle_count ? raster->triangle_count : 1;
    dest->fragments = raster->totals.last_fragments;
    dest->capacity = raster->buf.capacity;
    dest->grow_count = raster->totals.grow_count;
    dest->dispatches = raster->issued.last_dispatches;
    dest->steps = raster->issued.last_steps;
    dest->point_coord_quantum = raster->sprite.point_coord_quantum;
    dest->point_coord_residual = raster->sprite.point_coord_residual;
    dest->point_coord_probed = raster->sprite.point_coord_probed;
    dest->point_coord_explained = raster->sprite.point_coord_explained || !raster->sprite.point_coord_probed;
    dest->key_bits = raster->issued.last_key_bits;
    dest->sorted_frames = raster->issued.sorted_frames;
    dest->narrowed_frames = raster->issued.narrowed_frames;
    size_t sums = 2 * ((t + TRIANGLE_BLOCK - 1) / TRIANGLE_BLOCK) +
                  (t + RASTER_THREADS - 1) / RASTER_THREADS;
    dest->bytes = raster->buf.capacity * DS_COMPUTE_RASTER_FRAGMENT_BYTES + pixels * 12 + t * 8 +
                  raster->vertex_count * 16 +
                  (sums + STATE_HEADER + raster->buf.block_capacity) * 4;
}

void ds_compute_raster_pass_times(ds_compute_raster *raster, float *dest)
{
    for (int k = 0; k < DS_RASTER_PASSES; k++)
        dest[k] = 0.0f;
    if (!raster || !raster->issued.queried)
        return;
    GLuint64 stamps[DS_RASTER_PASSES + 1];
    for (int k = 0; k <= DS_RASTER_PASSES; k++)
        glGetQueryObjectui64v(raster->issued.queries[k], GL_QUERY_RESULT, &stamps[k]);
    for (int k = 0; k < DS_RASTER_PASSES; k++)
        dest[k] = (float)((double)(stamps[k + 1] - stamps[k]) * 1e-6);
}

ds_status ds_compute_raster_verify(ds_compute_raster *raster, int stable)
{
    if (!raster || !raster->verify || !raster->verified_frame)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "raster: verify needs desc.verify and a fragment-order frame");
    ds_status settled = ds_compute_raster_settle(raster, NULL);
    if (settled)
        return settled;
    size_t n = raster->totals.last_fragments;
    uint32_t *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    uint8_t *seen = calloc(n ? n : 1, 1);
    ds_status status = DS_OK;
    if (!keys || !values || !seen) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "raster: out of host memory to verify");
        goto done;
    }
    /* What the frame's passes wrote, read after they finish. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(raster->buf.verify_keys, 0, (GLsizeiptr)(n * sizeof *keys), keys);
    glGetNamedBufferSubData(raster->buf.sorted_values, 0, (GLsizeiptr)(n * sizeof *values), values);
    for (size_t s = 0; s < n; s++) {
        uint32_t f = values[s];
        if (f >= n || seen[f]) {
            status = ds_fail(DS_ERR_MISMATCH, "raster: verify: sorted fragment %zu is %u: %s", s,
                             f, f >= n ? "no fragment" : "a repeat");
            goto done;
        }
        seen[f] = 1;
        if (s == 0)
            continue;
        /* Far first: ascending 1 / w (its bits, or their steps), or a
         * caller's descending mirrored floats (their bits, as they are
         * positive). */
        uint32_t before = keys[values[s - 1]], key = keys[f];
        int wrong = raster->verified_float ? before < key : before > key;
        if (!wrong && stable && before == key && values[s - 1] > f)
            wrong = 1;
        if (wrong) {
            status = ds_fail(DS_ERR_MISMATCH,
                             "raster: verify: sorted fragments %zu and %zu out of order (keys "
                             "0x%08x, 0x%08x; fragments %u, %u)",
                             s - 1, s, before, key, values[s - 1], f);
            goto done;
        }
    }
done:
    free(keys);
    free(values);
    free(seen);
    return status;
}
