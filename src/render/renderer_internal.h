/* SPDX-License-Identifier: MIT */
/* renderer_internal.h — the renderer's state and the seams between its
 * files; only the .c files of src/render include it. One frame runs as
 *
 *   frame.c         plan: every mode decision of the frame, made once
 *   technique.c     then the technique's frame (technique.h); the sorted
 *                   draw's (technique_sorted.c) runs
 *   gl_stages.c     the stages (keys, sort, binning) as GL compute in the
 *                   draw's context, with gl_sort.c's sort
 *   stages_cuda.c   or in CUDA around the sorter (interop, keys, sort,
 *                   binning)
 *   stages_cpu.c    or the same stages on the host (no CUDA behind GL)
 *   raster.c        the raster path's draw of the sorted elements
 *                   (raster.h; raster_hw.c: the GL draw in its forms)
 *   timing.c        the ring of per-frame timer results
 *   timeline.c      a few frames' events on one clock (on request)
 *   verify.c        the off-line check of the last frame
 *
 * while the other techniques (technique_wboit.c, technique_peel.c,
 * technique_abuffer.c, with oit_common.c) draw the mesh in its own order
 * with no stage; renderer.c creates, destroys and sets. */
#ifndef DS_RENDERER_INTERNAL_H
#define DS_RENDERER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <glad/gl.h>

#include <cuda_runtime.h>

#include "distance.h"
#include "distance_math.h"
#include "interop.h"
#include "renderer.h"
#include "tiles.h"
#include "timeline.h"

/* Frames whose timer results may be outstanding at once; the oldest is read
 * (waiting if it must) before its slot is reused. Four covers the driver's
 * usual two or three frames of queue. */
#define TIMING_RING 4
/* Completed frames kept for ds_renderer_next_timings(). */
#define TIMINGS_BACKLOG 256
/* A DrawElementsIndirectCommand (five words; the arrays form uses four). */
#define DRAW_COMMAND_WORDS 5

/* CUDA events of one frame, in stream order; on the CPU path the same
 * indices name the host stage times. */
enum { EV_START, EV_DISTANCES, EV_KEYS, EV_SHUFFLE, EV_SORT, EV_SCATTER, EV_COUNT };

/* What one frame decides, computed once by ds_render_plan() before any
 * stage runs. The stages, the draw and ds_renderer_verify() (which reads
 * the last frame's) take their modes from here and derive none again. */
typedef struct frame_plan {
    uint64_t frame;          /* 0-based frame number */
    int slot;                /* element buffer and vertex array in use
                                (the interop slot; 0 on the CPU path) */
    GLuint target;           /* the framebuffer drawn into */
    int resolve;             /* multisampled: the own framebuffer is drawn
                                into and resolved into resolve_target */
    GLuint resolve_target;
    int points;              /* sorting points (else triangles) */
    size_t count;            /* elements sorted: vertices or triangles */
    int sorting;             /* sort (else the mesh's order) */
    int shuffle;             /* shuffle before the sort */
    int keep_keys;           /* verify: keep the keys before the sort */
    int pull;                /* triangles drawn by vertex pulling */
    int tiled;               /* sorted primitives binned by screen tile */
    int in_place;            /* the sort permutes the element buffer itself
                                (points or pulled triangles, one list):
                                it ends up holding the sorted order, one
                                entry per element, and no scatter runs */
    int cull;                /* triangles covering no pixel centre sort
                                last and are left out of the draw */
    int gl;                  /* the stages run as GL compute (gl_stages.c),
                                not around the sorter */
    float eye[3];
    float view_projection[16];
    float near_plane;        /* the camera's: the view depth (clip w) of
                                the near plane */
    float point_scale;       /* points.vert.glsl's splat scale */
    ds_key_range range;      /* 16-bit keys' depth range; scale 0 else */
    ds_key_narrow narrow;    /* the keys narrowed to their frame's depth
                                range (distance_math.h); top 0: not */
    ds_cull_view view;       /* the window transform: culling and tiles */
    ds_tile_grid grid;       /* the screen tiles (used when tiled) */
    int value_shift;         /* a binned GPU frame's sort values carry
                                tile codes at this bit (tiles.h); 0: the
                                values are the primitives' numbers */
    int compute;             /* rasterised by the compute raster
                                (raster_compute.h): a compute technique's
                                frame, or a sorted one with the compute
                                path, that it can take */
} frame_plan;

/* The view culling tests against, or NULL when the frame does not cull. */
static inline const ds_cull_view *plan_cull(const frame_plan *plan)
{
    return plan->cull ? &plan->view : (const ds_cull_view *)0;
}

/* One frame's timer state, reused every TIMING_RING frames. */
typedef struct frame_record {
    int pending;         /* issued, results not collected yet */
    uint64_t frame;
    cudaEvent_t events[EV_COUNT];
    GLuint draw_query;   /* GL_TIME_ELAPSED of clear + draw */
    GLuint entry_query;  /* GL_TIMESTAMP as ds_renderer_frame starts */
    int after_idle;      /* the frame before was done on the GPU when
                            this one started (its results collected) */
    GLuint caller_query; /* GL_TIMESTAMP after the caller's work before
                            this frame (ds_renderer_between_frames) */
    int caller_marked;   /* caller_query was issued */
    GLuint begin_query;  /* GL_TIMESTAMP before the clear */
    GLuint end_query;    /* GL_TIMESTAMP after the draw */
    int gl;              /* the stages ran as GL compute: stage_queries
                            hold their times, not events */
    GLuint stage_queries[EV_COUNT]; /* GL path: GL_TIMESTAMP at each
                            stage boundary, as the events' indices */
    float host_interop_ms;
    float host_stage_ms[EV_COUNT]; /* CPU path: the stages on the host */
    int culled;          /* drawn by the indirect command of the visible */
    uint32_t drawn;      /* CPU path, or no culling: the count drawn */
    int sorted_bits;     /* the key bits the sort compared; 0 unsorted */
    int points;          /* points mode: the distances stage ran, the
                            keys stage did not (triangles: the other way) */
    int shuffled;        /* the shuffle ran */
    int sort_gl;         /* compute-exact's fragments were sorted by the
                            GL radix sort (the frame's sort is "gl") */
    int oit;             /* an order-independent technique's frame: no
                            stage ran, no CUDA event was recorded */
} frame_record;

/* The settings: what the desc and the setters chose, resolved (renderer.c
 * sets them; every file reads them). */
typedef struct render_settings {
    int width, height;
    ds_primitive primitive;
    ds_triangle_key triangle_key;
    float alpha;
    float background[4];
    float point_size;
    int sorting, shuffle, verify;
    int key_bits;
    int pull;             /* triangles by vertex pulling (else indexed) */
    int cull;             /* leave out triangles that cover no sample */
    int tiles;            /* room to bin by screen tile (not DS_TILES_OFF) */
    int tiles_on;         /* binning on (ds_renderer_set_tiles) */
    int tile_pixels;      /* tile size; 0: DS_TILE_PIXELS */
    int narrow_keys;      /* full keys narrowed to their frame's range */
    ds_color_mode color_mode;     /* resolved: never AUTO */
    float tint[3];
    ds_opacity_mode opacity;
    int msaa;             /* samples of the own framebuffer; 1: off */
    ds_technique technique; /* SORTED stands for both sorted and
                             unsorted (`sorting` tells which) */
    size_t abuffer_initial_nodes;
    ds_raster_path raster;       /* the raster path of sorted frames */
    size_t raster_initial_fragments; /* the compute raster's (desc) */
    int raster_time_passes;
    int raster_no_subgroups;
    float raster_point_coord_quantum;
    ds_stages_mode stages;       /* asked for: AUTO, SORTER or GL */
    int stages_gl;               /* resolved: the stages run in GL */
    ds_sort_algo algo;
    int cpu_path;                /* no CUDA device behind GL: the host
                                    stages (stages_cpu.c) */
    ds_stages_facts stages_facts; /* what AUTO weighs (choose_path) */
    char stages_why[160];        /* why AUTO chose; "" when asked by name */
} render_settings;

/* What the renderer keeps of the mesh. Each element buffer holds
 * element_capacity words: the list (command_word words: the sorted
 * elements, or tiles.h's binned entries), then the indirect draw command
 * of culling, or the tiles' commands. */
typedef struct render_mesh {
    size_t vertex_count, triangle_count, element_capacity, command_word;
    float center[3], radius;     /* depth range of 16-bit keys */
    float min[3], max[3];        /* the box every key's point lies in */
    float height_lo, height_inv; /* DS_COLOR_HEIGHT: y to [0, 1] */
    int has_colors;              /* the mesh's colours came from its file */
    int point_cloud;             /* the mesh has no triangles */
    int normals_only;            /* a triangle mesh without file colours:
                                    its colour is the normal's (shade.glsl),
                                    so the draw fetches 4 bytes a vertex,
                                    not 8 */
} render_mesh;

/* The renderer's own GL objects (renderer.c), and the GL stages' (made by
 * gl_stages.c on their first use). */
typedef struct render_gl {
    GLuint attribute_buffer;  /* per vertex: RGBA8 colour, then the normal
                                 packed as signed 10:10:10:2 (8 bytes);
                                 with normals_only the normal alone */
    GLuint index_buffer;      /* the mesh's indices: pulled triangles and
                                 the techniques drawing the mesh's order */
    /* the own framebuffer: a colour texture when single-sampled, else a
     * multisampled colour renderbuffer */
    GLuint framebuffer, color_texture, color_renderbuffer, depth_renderbuffer;
    /* msaa > 1: the single-sampled copy the own framebuffer resolves into
     * for read-back and ds_renderer_color_texture() */
    GLuint resolve_framebuffer, resolve_texture;
    GLuint last_output;   /* the framebuffer holding the last frame's image;
                             DS_RENDERER_OWN_FRAMEBUFFER stands for the
                             window's (0), and 0 for none yet */
    uint32_t sampled_target; /* the framebuffer last checked for samples */
    int target_samples;   /* its GL_SAMPLES, -1 before the first check */
    unsigned errors;      /* GL errors the debug callback counted */
    int debug_installed;
    struct gl_stages *stages; /* gl_stages.c's objects, made on the first
                                 use of the GL stages */
    int compute_raster;   /* the context can run the compute raster
                             (raster_compute.c); -1 before the first ask */
} render_gl;

/* The CUDA path's stream, interop and device buffers (renderer.c makes
 * them; stages_cuda.c uses them). */
typedef struct render_cuda {
    ds_interop *interop;
    cudaStream_t stream;
    int sm_count;            /* the device's multiprocessors */
    float *keys;
    uint32_t *values, *indices;
    float *alt_keys;         /* the sort's second pair (ds_sorter_sort_pingpong) */
    uint32_t *alt_values;
    uint32_t *sorted_values; /* where the last frame's sorted order ended:
                                values or alt_values (not in place); a
                                binned CUDA frame's carry tile codes
                                (frame_plan.value_shift) */
    float *shuffle_keys;
    uint32_t *shuffle_values;
    float *verify_keys;      /* verify: the keys before the sort */
    uint32_t *visible;       /* device: triangles the keys pass kept */
    uint32_t *tile_rects;    /* device, with verify: tiles of each sorted
                                position */
    uint32_t *primitive_rects; /* device: tiles of each primitive (keys pass) */
    void *tile_scratch;      /* device: ds_tiles_bin()'s */
    uint32_t *host_visible;  /* pinned: one per timing record */
} render_cuda;

/* The CPU path's host copies and scratch (renderer.c makes them;
 * stages_cpu.c uses them); indices and the tile arrays serve verify.c
 * too. */
typedef struct render_cpu {
    float *positions, *distances, *keys;
    uint32_t *indices, *values, *elements;
    uint32_t *tile_rects, *tile_scratch;
    GLuint position_buffer, element_buffer;
} render_cpu;

/* verify.c's: the last frame's pre-sort keys and state. */
typedef struct render_verification {
    float *keys;
    uint32_t *values, *elements;
    uint8_t *seen;
    GLuint copy_buffer;       /* GL's view of the element buffer, copied */
    frame_plan last_plan;     /* the plan of the last frame whose stages ran */
    ds_sorter *reference_sorter; /* the cpu sort */
    int last_exact;           /* the last frame was compute-exact's in
                                 compute: 2 sorted by the GL radix sort
                                 (stable), 1 by a CUDA sort; 0 other */
} render_verification;

/* timing.c's: the ring of frame records, the finished frames, the
 * timeline. */
typedef struct render_timing {
    uint64_t frame_count, next_collect;
    frame_record records[TIMING_RING];
    int caller_marked;   /* ds_renderer_between_frames since the last frame */
    GLuint64 last_end_timestamp;
    int have_last_end;
    ds_frame_timings latest;
    int have_latest;
    ds_frame_timings backlog[TIMINGS_BACKLOG];
    size_t backlog_head, backlog_count;
    ds_timeline *timeline;  /* NULL unless ds_renderer_timeline_start() */
} render_timing;

/* The renderer: one struct per concern, each commented with its owner. */
struct ds_renderer {
    render_settings settings;
    render_mesh mesh;
    render_gl gl;
    render_cuda cuda;
    render_cpu cpu;
    render_verification verification;
    render_timing timing;
    ds_sorter *sorter;           /* desc.sort_algo's (cpu on the CPU path) */
    char gpu_name[256];
    void *technique_state[DS_TECHNIQUE_COUNT]; /* each technique's own
                                    (technique.h), made on its first use */
    void *raster_state[DS_RASTER_PATH_COUNT]; /* each raster path's own
                                    (raster.h), made on its first use */
};

/* calloc of count (at least 1) elements; on failure sets *status (if
 * still DS_OK) to DS_ERR_OUT_OF_MEMORY with one line, and returns NULL. */
static inline void *ds_render_host_alloc(size_t count, size_t size, ds_status *status)
{
    void *p = calloc(count ? count : 1, size);
    if (!p && *status == DS_OK)
        *status = ds_fail(DS_ERR_OUT_OF_MEMORY, "render: out of host memory");
    return p;
}

/* A sorter of `algo` for up to `count` keys of `key_bits`: every key is a
 * distance (or a quantised one), +0 up to +Inf, never NaN, since the
 * loaders refuse non-finite positions. */
static inline ds_status ds_render_make_sorter(ds_sort_algo algo, size_t count, int key_bits,
                                              ds_sorter **dest)
{
    ds_sorter_desc desc = {0};
    desc.algo = algo;
    desc.max_count = count;
    desc.key_bits = key_bits;
    desc.keys_nonnegative = 1;
    return ds_sorter_create(&desc, dest);
}

/* Each concern's objects, made and freed by the file that owns them:
 * stages_cuda.c the CUDA path's (after cudaSetDevice(device)), stages_cpu.c
 * the CPU path's, verify.c the verification's (for up to `most` sorted
 * elements), timing.c the timer ring's queries and events. A free undoes
 * a partial create. */
ds_status ds_render_cuda_create(ds_renderer *renderer, const ds_mesh *mesh,
                                ds_interop_mode mode, int device);
void ds_render_cuda_free(ds_renderer *renderer);
ds_status ds_render_cpu_create(ds_renderer *renderer, const ds_mesh *mesh);
void ds_render_cpu_free(ds_renderer *renderer);
ds_status ds_render_verification_create(ds_renderer *renderer, size_t most);
void ds_render_verification_free(ds_renderer *renderer);
ds_status ds_render_timing_create(ds_renderer *renderer);
void ds_render_timing_free(ds_renderer *renderer);

/* frame.c: the plan of the frame about to be drawn into `framebuffer`. */
void ds_render_plan(ds_renderer *renderer, const ds_camera *camera, uint32_t framebuffer,
                    frame_plan *dest);

/* frame.c: the narrowing of the keys of `plan` (its eye, sorting and
 * path), as ds_render_plan() sets plan->narrow. */
ds_key_narrow ds_render_key_narrow(const ds_renderer *renderer, const frame_plan *plan);

/* frame.c: the bit of the tile codes in the sort values of `plan` (its
 * count, grid, tiling and path), as ds_render_plan() sets
 * plan->value_shift: a binned frame on the GPU (CUDA or the GL stages). */
int ds_render_value_shift(const ds_renderer *renderer, const frame_plan *plan);

/* gl_stages.c (its read-back and verify.c use it): sorted values with
 * tile codes at plan->value_shift, coded[0 .. count), must be the
 * primitives values[] with the codes of the tiles the keys pass found for
 * them, rects[]. */
ds_status ds_render_check_codes(const frame_plan *plan, const uint32_t *coded,
                                const uint32_t *values, const uint32_t *rects, size_t count);

/* stages_cuda.c: keys, sort and the element buffer's contents on the GPU,
 * between the interop hand-over to CUDA and back to GL. */
ds_status ds_render_cuda_stages(ds_renderer *renderer, const frame_plan *plan,
                                frame_record *record);

/* stages_cpu.c: the same on the host, then the upload. */
ds_status ds_render_cpu_stages(ds_renderer *renderer, const frame_plan *plan,
                               frame_record *record);

/* gl_stages.c: the stages as GL compute shaders in the draw's context
 * (keys, cull count, gl_sort.h's sort, binning or scatter, the culled
 * draw command), the same words in the element buffer as the other
 * paths, each stage boundary a GL_TIMESTAMP into record->stage_queries.
 * supported: the current context has what they need (GL 4.3 compute,
 * GL_ARB_shader_ballot, enough storage blocks). create: programs and
 * buffers for the renderer's mesh and element capacity (once); free:
 * all of it. read_back (verify; waits for GL): the last GL frame's keys
 * before the sort as floats, the sorted values (the primitive numbers,
 * plan->count of them; tile codes checked against the rectangles, with
 * the keys kept, and stripped), the binned frame's tile rectangles of the
 * drawn sorted positions and the count drawn (all of them without
 * culling). */
int ds_render_gl_stages_supported(void);
ds_status ds_render_gl_stages_create(ds_renderer *renderer);
void ds_render_gl_stages_free(ds_renderer *renderer);
ds_status ds_render_gl_stages(ds_renderer *renderer, const frame_plan *plan,
                              frame_record *record);
/* The culled count of a GL frame whose timer results are available. */
uint32_t ds_render_gl_stages_drawn(const ds_renderer *renderer, const frame_record *record);
ds_status ds_render_gl_stages_read_back(ds_renderer *renderer, const frame_plan *plan,
                                        float *keys, uint32_t *values, uint32_t *rects,
                                        uint32_t *drawn);

/* timing.c: the record for the frame about to start (its previous frame's
 * results collected first), and the collection of finished frames:
 * returns 1 if one was collected; with `wait`, waits for the oldest. */
frame_record *ds_render_next_record(ds_renderer *renderer);
int ds_render_collect_timings(ds_renderer *renderer, int wait);

/* timeline.c: the hooks of a recording timeline (timeline.h has the host
 * one); each does nothing outside the window of frames asked for. */
void ds_timeline_frame_begin(ds_timeline *timeline, uint64_t frame);
void ds_timeline_gl_now(ds_timeline *timeline, const char *name);
ds_status ds_timeline_cuda_now(ds_timeline *timeline, const char *name, cudaStream_t stream);
/* The record's stage events, when timing.c collects a frame of the window. */
void ds_timeline_collect(ds_timeline *timeline, const frame_record *record);
/* A timeline of `frames` frames from `first_frame`, with CUDA events on
 * `stream` (NULL on the CPU path); read: every event on the host clock,
 * once the frames are complete and their ring events collected (timing.c
 * drives both, ds_renderer_timeline_start and _read). */
ds_status ds_timeline_create(uint64_t first_frame, int frames, cudaStream_t stream,
                             ds_timeline **dest);
ds_status ds_timeline_read(ds_timeline *timeline, const ds_timeline_event **events,
                           size_t *count, ds_timeline_alignment *alignment);
void ds_timeline_free(ds_timeline *timeline);

/* The element buffer of `slot` as GL names it. */
static inline GLuint ds_render_element_buffer(const ds_renderer *renderer, int slot)
{
    return renderer->settings.cpu_path ? renderer->cpu.element_buffer
                              : ds_interop_element_buffer(renderer->cuda.interop, slot);
}

/* gl_stages.c: the GL stages' own element buffer of `slot`, where they keep
 * one (external-memory interop), else 0. */
GLuint ds_render_gl_stages_elements(const ds_renderer *renderer, int slot);

/* The element buffer the frame of `plan` writes and draws from: the GL
 * stages' own under external-memory interop (GL writing the imported
 * memory that CUDA writes too left GL reading stale words after a switch
 * to the CUDA stages), else the slot's. */
static inline GLuint ds_render_frame_elements(const ds_renderer *renderer,
                                              const frame_plan *plan)
{
    GLuint own = plan->gl ? ds_render_gl_stages_elements(renderer, plan->slot) : 0;
    return own ? own : ds_render_element_buffer(renderer, plan->slot);
}

/* The vertex positions as GL names them. */
static inline GLuint ds_render_position_buffer(const ds_renderer *renderer)
{
    return renderer->settings.cpu_path ? renderer->cpu.position_buffer
                              : ds_interop_position_buffer(renderer->cuda.interop);
}

#endif
