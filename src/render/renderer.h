/* SPDX-License-Identifier: MIT */
/* renderer.h — the transparency renderer: per frame, on the GPU, a key
 * per triangle from its vertices' camera distances (or per vertex in
 * points mode), an optional shuffle, the selected sort (far first) whose values land in
 * the GL element buffer, and one draw, back to front: for large meshes the
 * vertex shader pulls triangle i's vertices through sorted triangle i (no
 * scatter pass); for smaller ones a scatter writes the sorted triangles'
 * indices and the draw is indexed (see ds_draw_form). Sorted triangles are
 * by default binned by screen tile and drawn tile by tile, each tile in
 * sorted order under a scissor (the same image, drawn faster; see desc
 * tiles).
 * The viewer and the headless runner only drive it.
 *
 * Step by step:
 *   // A GL 4.5 core context is current and GL is loaded through glad
 *   // (gladLoadGL(glfwGetProcAddress) or ds_egl_context_create()).
 *   ds_renderer_desc desc = {0};          // zero means default
 *   desc.mesh = &mesh;                    // copied to GL/CUDA at create
 *   desc.width = 1920; desc.height = 1080;
 *   desc.sort_algo = DS_SORT_CUB;         // DS_SORT_CPU without a GPU
 *   ds_renderer *renderer;
 *   if (ds_renderer_create(&desc, &renderer) != DS_OK) ...;
 *   for (each frame) {
 *       ds_renderer_frame(renderer, &camera, DS_RENDERER_OWN_FRAMEBUFFER);
 *       ds_frame_timings t;
 *       if (ds_renderer_timings(renderer, &t)) ... // a frame or two behind
 *   }
 *   ds_renderer_destroy(renderer);        // in the same context
 *
 * Blending: straight (non-premultiplied) alpha, "over" operator,
 *   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA) — every fragment has
 *   the global alpha (desc.alpha) times the vertex colour's alpha, and is
 *   drawn back to front with the depth test on and depth writes off.
 * Shading (shaders/shade.glsl, one source compiled into every draw form):
 *   the colour mode's colour under a headlight (a light at the eye), two-
 *   sided: with c = |n.v|, rgb = base (0.3 + 0.7 c) + 0.25 c^64 / alpha
 *   (the highlight adds light rather than covering, clamped to 1).
 *   DS_OPACITY_VIEW: a layer crossed at an angle of cosine c is 1/c times
 *   as thick (Beer-Lambert), alpha' = 1 - (1 - alpha)^(1 / max(c, 0.05)).
 *   Points are sphere impostors: the sprite's disc shaded with the
 *   sphere's normal. A file alpha of 0 draws nothing in any mode.
 * Triangle key: DS_TRIANGLE_KEY_FARTHEST by default — the farthest of the
 *   three vertex distances (the painter's classic choice: a triangle that
 *   reaches further back is drawn earlier).
 * Interop: DS_INTEROP_AUTO uses CUDA-allocated memory imported into GL
 *   (GL_EXT_memory_object_fd) where the driver allows it, else registered
 *   GL buffers mapped each frame, else (no CUDA device, Mesa) the CPU path:
 *   the cpu sort on host copies and glNamedBufferSubData uploads — the same
 *   image. ds_renderer_interop() tells which one is in use.
 * Threading: one thread, the one whose GL context was current at create;
 *   every call below needs that context current.
 * GL state: ds_renderer_frame() sets everything it relies on (program,
 *   vertex array, blend, depth, viewport, framebuffer) and does not restore
 *   it; callers drawing overlays afterwards set their own state.
 */
#ifndef DS_RENDERER_H
#define DS_RENDERER_H

#include <stddef.h>
#include <stdint.h>

#include "render_types.h"
#include "mesh.h"
#include "camera.h"
#include "sort.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pass as `framebuffer` to draw into the renderer's own off-screen
 * framebuffer (RGBA8 + depth, desc.width × desc.height). */
#define DS_RENDERER_OWN_FRAMEBUFFER 0xFFFFFFFFu

/* How triangles are drawn in sorted order; both give the same image.
 * DS_DRAW_AUTO pulls from DS_RENDERER_PULL_TILED_MIN_TRIANGLES triangles
 * on when the renderer starts with screen tiles on (the default on a
 * GPU), else from DS_RENDERER_PULL_MIN_TRIANGLES on, and draws smaller
 * meshes indexed. Drawn tile by tile, a large mesh draws faster pulled
 * and its binning moves one word an entry instead of three; a small one
 * draws as fast or faster indexed, whose post-transform cache finds the
 * fans that share a farthest vertex. Drawn as one list, only very large
 * meshes gain from pulling, and on a CPU rasteriser (which starts
 * untiled) pulling is the slower form (docs/performance.md). The form is
 * chosen at create. Unsorted frames draw indexed in mesh order in either
 * form. Pull needs four shader storage blocks in the vertex stage within
 * the block size limit; without them every form draws indexed. */
typedef enum ds_draw_form {
    DS_DRAW_AUTO = 0,
    DS_DRAW_PULL,    /* glDrawArrays; mesh_pull.vert.glsl reads the sorted
                        triangle numbers and the mesh's indices */
    DS_DRAW_INDEXED  /* scatter of the sorted triangles' indices into the
                        element buffer, glDrawElements */
} ds_draw_form;
#define DS_RENDERER_PULL_MIN_TRIANGLES 3000000 /* untiled (llvmpipe, --tiles
                                  off): set between two sizes before tiles */
#define DS_RENDERER_PULL_TILED_MIN_TRIANGLES 250000 /* tiled: between the
                                  200k and 300k measured (middle, rounded) */

/* DS_STAGES_AUTO takes the GL stages up to this many sorted primitives
 * and the CUDA path above: the GL stages save the GPU's two context
 * switches a frame, the CUDA sorts cost less per primitive, and the two
 * break even about here (docs/performance.md). */
#define DS_RENDERER_GL_STAGES_AUTO_MAX 4500000

/* What DS_STAGES_AUTO weighs when a renderer is made (a pure function of
 * these, so that it is tested without the GPUs it decides for). */
typedef struct ds_stages_facts {
    int cuda_built;          /* the build has the CUDA sorts and interop */
    int cuda_device;         /* a CUDA device drives the GL context */
    int interop_none;        /* desc.interop NONE: the CPU path asked for */
    const char *gl_renderer; /* GL_RENDERER; NULL when unknown */
    int gl_stages_supported; /* GL 4.3 compute, GL_ARB_shader_ballot and the
                                storage blocks the GL stages bind */
    size_t sorted_count;     /* primitives a frame sorts */
} ds_stages_facts;

/* DS_STAGES_AUTO's choice, the fastest path that runs here: with a CUDA
 * device, GL up to DS_RENDERER_GL_STAGES_AUTO_MAX primitives and SORTER
 * (the CUDA sorts) above or where the GL cannot; without one (no CUDA in
 * the build, no device, --interop none), GL on a GPU's GL that can run
 * the GL stages, and SORTER (the host sort) on a software rasteriser
 * (ds_gl_renderer_is_software()), where the host sort costs less than
 * llvmpipe's compute shaders, or on a GL that lacks what the GL stages
 * need; --interop none keeps the CPU path it names. Returns DS_STAGES_GL
 * or DS_STAGES_SORTER, and the reason in a few words into why ("no CUDA
 * in this build"; truncated to capacity). */
ds_stages_mode ds_renderer_choose_stages(const ds_stages_facts *facts, char *why,
                                         size_t capacity);

/* Whether a GL_RENDERER string names a software rasteriser (Mesa's
 * llvmpipe, softpipe and swrast, lavapipe under zink, SwiftShader), case
 * blind; NULL and "" count as software (nothing says it is a GPU). When
 * one is, *name (may be NULL) is set to the name matched. */
int ds_gl_renderer_is_software(const char *gl_renderer, const char **name);

/* ds_renderer_desc.tile_pixels: 0, or a tile side in this range. Tiles too
 * small for tiles.h's DS_TILES_MAX are coarsened to fit; the largest makes
 * one tile of any usual viewport, and keeps the grid arithmetic in int. */
#define DS_RENDERER_TILE_PIXELS_MIN 1
#define DS_RENDERER_TILE_PIXELS_MAX 16384

/* The largest mesh the renderer draws: indices are uint32, and a plain
 * draw passes its count of indices (3 per triangle) or points as a
 * GLsizei (2^31 - 1). */
#define DS_RENDERER_MAX_VERTICES 0x7FFFFFFFu
#define DS_RENDERER_MAX_TRIANGLES (0x7FFFFFFFu / 3u)

/* Zero-initialise, then fill what you need; zero means default. */
typedef struct ds_renderer_desc {
    const ds_mesh *mesh;          /* required; not kept after create */
    int width, height;            /* size of the own framebuffer and viewport */
    ds_sort_algo sort_algo;       /* default DS_SORT_CUB; forced to
                                     DS_SORT_CPU on the CPU path */
    int shuffle;                  /* shuffle before each sort */
    ds_primitive primitive;       /* forced to points when the mesh has no
                                     triangles */
    ds_triangle_key triangle_key; /* default farthest */
    ds_interop_mode interop;      /* default DS_INTEROP_AUTO */
    float alpha;                  /* 0: 0.45 */
    float background[4];          /* straight RGBA clear colour; all zero:
                                     black, transparent */
    float point_size;             /* points mode: splat diameter in world
                                     units; 0: from the mesh's spacing */
    int no_sort;                  /* nonzero: draw in mesh order (unsorted) */
    int verify;                   /* nonzero: keep the keys of each frame so
                                     that ds_renderer_verify() can check it */
    int key_bits;                 /* 0 or 32: sort on full float keys; 24:
                                     on the top 24 bits of their order-
                                     preserving transform (relative depth
                                     resolution 2^-15, one radix pass less);
                                     16: keys quantised to 32512 steps of
                                     the depth range the model's bounding
                                     sphere spans (two passes less) */
    int full_width_keys;          /* nonzero: never narrow the keys. By
                                     default, a GPU frame with full keys
                                     whose every possible key (the model's
                                     box seen from the eye) spans fewer
                                     than 2^24 float steps sorts them as
                                     the steps above the nearest (exact:
                                     the same order and image) on 24 or 16
                                     bits, one or two radix passes less
                                     (distance_math.h, ds_key_narrow) */
    ds_draw_form draw_form;       /* default DS_DRAW_AUTO */
    ds_cull_mode cull;            /* ON: triangles that cover no pixel
                                     centre (ds_triangle_misses_samples(),
                                     in distance_math.h) sort last and are
                                     left out of the draw, an indirect one
                                     whose count the keys pass writes; the
                                     image is the same. Only in triangles
                                     mode, sorting, into a single-sampled
                                     framebuffer. OFF: draw every triangle.
                                     AUTO (default): on where the stages
                                     run on a GPU (CUDA, or GL on a GPU's
                                     GL), off on the host and a software
                                     GL */
    ds_tiles_mode tiles;          /* while sorting, the sorted primitives
                                     binned by screen tile (kernels/
                                     tiles.h), each tile's list in sorted
                                     order, and drawn tile by tile with a
                                     scissor: the same image to the bit,
                                     drawn faster on a GPU. Default AUTO:
                                     as cull's;
                                     ON; OFF: one draw of the sorted list */
    int tile_pixels;              /* tile side in pixels, about (the grid
                                     divides the viewport evenly); 0:
                                     DS_TILE_PIXELS (128, tiles.h); else
                                     DS_RENDERER_TILE_PIXELS_MIN to _MAX,
                                     others are DS_ERR_INVALID_ARG */
    ds_color_mode color_mode;     /* default DS_COLOR_AUTO: FILE for a
                                     mesh with file colours, else NORMAL
                                     (HEIGHT for a point cloud) */
    float tint[3];                /* DS_COLOR_TINT's RGB in [0, 1]; all
                                     zero: the default tint */
    ds_opacity_mode opacity;      /* default DS_OPACITY_CONSTANT */
    int msaa;                     /* samples per pixel of the own
                                     framebuffer: 0 or 1 single-sampled,
                                     2, 4 or 8 (culling then turns off: its
                                     pixel-centre test is exact only for one
                                     sample). With samples, every frame is
                                     drawn into the own framebuffer and
                                     resolved into the framebuffer given to
                                     ds_renderer_frame() (same size), or
                                     when the own one is read. At most
                                     GL_MAX_SAMPLES (DS_ERR_UNSUPPORTED) */
    ds_stages_mode stages;        /* where a sorted frame's keys, sort and
                                     binning run (render_types.h). GL:
                                     compute shaders in this context, with
                                     the GL radix sort (stable, far first,
                                     the same order as every stable sort
                                     of the sorter path), so the GPU never
                                     switches to a CUDA context in a frame;
                                     desc.sort_algo's sorter then serves
                                     only the shuffle, which the GL stages
                                     do not do (a frame with the shuffle on
                                     runs the sorter path). GL needs GL 4.3
                                     compute shaders and
                                     GL_ARB_shader_ballot
                                     (DS_ERR_UNSUPPORTED without). Default
                                     AUTO: ds_renderer_choose_stages() (GL
                                     on a GPU that can, up to DS_RENDERER_
                                     GL_STAGES_AUTO_MAX primitives where a
                                     CUDA device drives GL; SORTER on a
                                     software GL); ds_renderer_stages_why()
                                     says why */
    size_t abuffer_initial_nodes; /* DS_TECHNIQUE_ABUFFER: nodes of the
                                     first pool; 0: DS_ABUFFER_NODES_PER_
                                     PIXEL per pixel. A testing and tuning
                                     knob: the pool grows to what a frame
                                     needs either way (a tiny one forces
                                     a grow) */
    ds_raster_path raster;        /* what draws a sorted frame's
                                     primitives (raster_registry.h);
                                     default (0) DS_RASTER_HW. COMPUTE:
                                     the compute raster, and with
                                     raster_order FRAGMENT (the default)
                                     the renderer starts in technique
                                     compute-exact; DS_ERR_UNSUPPORTED
                                     where it cannot take the frames
                                     (points, MSAA above 1, a context
                                     without GL 4.3 compute shaders or
                                     GL_ARB_shader_ballot) unless
                                     raster_auto, which then keeps HW */
    int raster_auto;
    ds_raster_order raster_order;
    size_t raster_initial_fragments; /* the compute raster's fragment
                                     buffers at first; 0:
                                     DS_COMPUTE_RASTER_FRAGMENTS_PER_PIXEL
                                     per pixel. A testing knob like the
                                     A-buffer's: a frame grows them to
                                     what it needs */
    int raster_time_passes;       /* the compute raster records a GL
                                     timestamp after each pass
                                     (ds_renderer_raster_info) */
    int raster_no_subgroups;      /* the compute raster's scans and GL
                                     sort without GL_KHR_shader_subgroup
                                     (compute_raster.h's no_subgroups) */
    float raster_point_coord_quantum; /* the compute raster's points take
                                     gl_PointCoord from the size floored
                                     to this step (pixels), as the
                                     hardware's sprites may: 0 (default)
                                     asks the driver at the first frame
                                     of points; 1/2 to 1/256 (a power of
                                     two) forces that step, below 0 the
                                     exact size (testing knobs); others
                                     are DS_ERR_INVALID_ARG */
} ds_renderer_desc;

/* The A-buffer's first pool, per pixel of the viewport, unless desc sets
 * it: 64 bytes a pixel of nodes, 133 MB at 1080p, which a GPU holds
 * many times over and which rarely has to grow. */
#define DS_ABUFFER_NODES_PER_PIXEL 4
/* Bytes of one A-buffer node: straight-alpha RGBA8, depth, primitive,
 * next. */
#define DS_ABUFFER_NODE_BYTES 16

/* The A-buffer's memory and load (ds_renderer_abuffer_info). */
typedef struct ds_abuffer_info {
    size_t node_capacity;    /* nodes the pool holds now */
    size_t nodes_used;       /* fragments the last A-buffer frame stored */
    size_t bytes;            /* the pool, the head image (4 bytes a pixel)
                                and the counter */
    double bytes_per_pixel;  /* bytes / (width x height) */
    uint32_t max_fragments;  /* the longest pixel list of the last frame */
    unsigned grow_count;     /* times the pool grew since create */
    unsigned peeled_frames;  /* frames with a pixel deeper than
                                DS_ABUFFER_SORTED_FRAGMENTS, drawn by
                                depth peeling instead, since create */
} ds_abuffer_info;
/* The longest pixel list the A-buffer's resolve sorts. */
#define DS_ABUFFER_SORTED_FRAGMENTS 32

/* GPU times of one completed frame, milliseconds. Stages that did not run
 * (the sort of an unsorted frame, shuffle off, distances in triangles mode
 * and keys in points mode on the GPU, interop on the CPU path) are 0. On
 * the CPU path the stages are host wall times. */
typedef struct ds_frame_timings {
    uint64_t frame;       /* 0-based frame number since create */
    float distances_ms;   /* points mode: the per-vertex key kernel; on the
                             CPU path, the per-vertex distances (both
                             modes); 0 for triangles on the GPU */
    float keys_ms;        /* per-triangle key kernel (triangles mode) */
    float shuffle_ms;     /* optional shuffle before the sort */
    float sort_ms;        /* the sort itself (without the shuffle) */
    float scatter_ms;     /* sorted indices into the element buffer
                             (indexed draw), or the binning by screen
                             tile; else ~0 (two events) */
    float interop_ms;     /* map + unmap, or the GL/CUDA hand-over waits;
                             on the CPU path the buffer upload */
    float draw_ms;        /* clear + indexed draw (GL timer query) */
    uint32_t drawn;       /* triangles (points) drawn: sorted ones that
                             culling kept, or all */
    float frame_ms;       /* GPU time from the end of the previous frame's
                             draw to the end of this one (GL timestamps):
                             the frame time in a busy pipeline */
    float handover_ms;    /* GPU time between this frame's start
                             (ds_renderer_frame) and its draw (GL
                             timestamps) that no stage of this frame
                             accounts for: on the CUDA path
                             the GPU's two switches between the GL and the
                             CUDA context, on the GL path the gaps between
                             its compute passes; 0 on the CPU path and for
                             the first frame. In a busy pipeline frame_ms
                             is about the stages + handover_ms + draw_ms;
                             what the caller draws between frames (the
                             viewer's panels, its window copy) adds to
                             frame_ms only */
    ds_stages_mode stages; /* where this frame's stages ran: GL or SORTER
                             (never AUTO) */
    int sorted_bits;      /* the key bits its sort compared: 32, 24 or 16
                             (narrowed or --key-bits keys); 0 unsorted */
} ds_frame_timings;

typedef struct ds_renderer ds_renderer;

/* Creates the renderer in the current GL context: uploads the mesh, builds
 * the shaders, the framebuffer, the interop buffers and the sorter (all
 * per-frame storage is made here). Installs a KHR_debug callback that counts
 * GL errors (ds_renderer_gl_errors()). Errors: DS_ERR_INVALID_ARG,
 * DS_ERR_GL, DS_ERR_CUDA, DS_ERR_NO_DEVICE,
 * DS_ERR_UNSUPPORTED (interop mode explicitly asked for but refused),
 * DS_ERR_OUT_OF_MEMORY. *dest is NULL on failure. */
ds_status ds_renderer_create(const ds_renderer_desc *desc, ds_renderer **dest);

/* Frees everything (waits for the GPU first); NULL is allowed. The same GL
 * context must be current. */
void ds_renderer_destroy(ds_renderer *renderer);

/* Renders one frame seen by `camera` into `framebuffer` (a GL framebuffer
 * name, 0 for the window, or DS_RENDERER_OWN_FRAMEBUFFER), viewport
 * 0,0,width,height. Does not wait for the GPU. Errors: DS_ERR_CUDA,
 * DS_ERR_GL, DS_ERR_INVALID_ARG. */
ds_status ds_renderer_frame(ds_renderer *renderer, const ds_camera *camera,
                            uint32_t framebuffer);

/* Resizes the viewport and the own framebuffer. Errors: DS_ERR_GL,
 * DS_ERR_INVALID_ARG (non-positive size). */
ds_status ds_renderer_resize(ds_renderer *renderer, int width, int height);

/* Changing the sort recreates the sorter (allocation: not a per-frame call).
 * Errors as ds_sorter_create(); on error the previous sort stays. On the CPU
 * path only DS_SORT_CPU is accepted (DS_ERR_NO_DEVICE otherwise). */
ds_status ds_renderer_set_sort(ds_renderer *renderer, ds_sort_algo algo);
void ds_renderer_set_shuffle(ds_renderer *renderer, int shuffle);
/* Where the stages run from the next frame (desc.stages); the first switch
 * to GL makes its programs and buffers (allocation: not a per-frame call).
 * Errors: DS_ERR_UNSUPPORTED (GL asked for, the context cannot),
 * DS_ERR_GL, DS_ERR_OUT_OF_MEMORY; on error the mode stays.
 * ds_renderer_stages() tells the mode in use, GL or SORTER (a frame with
 * the shuffle on runs the sorter path whatever this says). */
ds_status ds_renderer_set_stages(ds_renderer *renderer, ds_stages_mode mode);
ds_stages_mode ds_renderer_stages(const ds_renderer *renderer);
/* Why DS_STAGES_AUTO chose the stages in use (ds_renderer_choose_stages()),
 * or "" when they were asked for by name. */
const char *ds_renderer_stages_why(const ds_renderer *renderer);
/* DS_ERR_INVALID_ARG for triangles on a point cloud. */
ds_status ds_renderer_set_primitive(ds_renderer *renderer, ds_primitive primitive);
void ds_renderer_set_triangle_key(ds_renderer *renderer, ds_triangle_key key);
void ds_renderer_set_alpha(ds_renderer *renderer, float alpha);
/* sorting 0: draw in mesh order (the "wrong" order, for comparison). */
void ds_renderer_set_sorting(ds_renderer *renderer, int sorting);
/* Screen tiles on or off from the next frame (the same image either way);
 * they stay off for a renderer created with DS_TILES_OFF, which has no
 * room for them. */
void ds_renderer_set_tiles(ds_renderer *renderer, int tiles);
int ds_renderer_tiles(const ds_renderer *renderer);
void ds_renderer_set_background(ds_renderer *renderer, const float rgba[4]);
void ds_renderer_set_point_size(ds_renderer *renderer, float world_size);
/* The splat diameter in world units now in use. */
float ds_renderer_point_size(const ds_renderer *renderer);

/* Colour and opacity modes (render_types.h); take effect next frame.
 * ds_renderer_color_mode() reports the resolved mode, never AUTO. */
void ds_renderer_set_color_mode(ds_renderer *renderer, ds_color_mode mode);
ds_color_mode ds_renderer_color_mode(const ds_renderer *renderer);
void ds_renderer_set_tint(ds_renderer *renderer, const float rgb[3]);
void ds_renderer_set_opacity_mode(ds_renderer *renderer, ds_opacity_mode mode);
ds_opacity_mode ds_renderer_opacity_mode(const ds_renderer *renderer);

/* Multisampling of the own framebuffer: 1 (off), 2, 4 or 8 samples, as
 * the GL implementation allows. Re-creates the framebuffer; the frame
 * after is drawn with it. Errors: DS_ERR_INVALID_ARG (another count),
 * DS_ERR_UNSUPPORTED (beyond GL_MAX_SAMPLES), DS_ERR_GL. */
ds_status ds_renderer_set_msaa(ds_renderer *renderer, int samples);
int ds_renderer_msaa(const ds_renderer *renderer);

/* The transparency technique (render_types.h) from the next frame on.
 *   SORTED, UNSORTED: the per-primitive sort on or off (as
 *     ds_renderer_set_sorting(); that call also switches between the two
 *     while one of them is in use).
 *   ABUFFER: exact. One pass over the mesh in its own order stores every
 *     fragment — shaded as the sorted draw shades it, colour rounded to
 *     RGBA8 — in per-pixel linked lists (an r32ui head image, an atomic
 *     node counter, a pool of DS_ABUFFER_NODE_BYTES nodes); a full-screen
 *     pass sorts each pixel's list by (depth, primitive number) and
 *     composites it back to front onto the background with the sorted
 *     draw's "over", in float. A frame where some pixel holds more than
 *     DS_ABUFFER_SORTED_FRAGMENTS fragments is drawn again by PEEL (the
 *     same image, much slower; counted in ds_abuffer_info). Fragments
 *     at equal depth are ordered by
 *     the mesh's primitive number (the nearer is the lower), so the image
 *     does not depend on any draw order. After the pass the renderer reads
 *     the counter (4 bytes: the frame waits for the GPU there); if the
 *     pool was too small it grows to the count plus a quarter, once, and
 *     the frame is drawn again: never a truncated list. A pool beyond
 *     GL_MAX_SHADER_STORAGE_BLOCK_SIZE or 2^32 - 1 nodes is
 *     DS_ERR_TOO_LARGE, one GL cannot allocate DS_ERR_OUT_OF_MEMORY, each
 *     with one line, and the frame fails.
 *   PEEL: exact and slow, to check the A-buffer: front-to-back peels,
 *     three passes over the mesh each (nearest depth, then nearest
 *     primitive at that depth, then composite "under"), until an
 *     occlusion query finds no fragment left (a wait per peel). The same
 *     fragments, colours and order as the A-buffer: the two agree within
 *     float rounding.
 *   WBOIT: McGuire and Bavoil's weighted blended OIT (JCGT 2013) with
 *     their depth weight of equation (10): RGBA16F accumulation and R16F
 *     revealage, then a composite onto the background. An approximation.
 * The order-independent three sort nothing (the frame's sort stages do
 * not run; the stage times are 0 and draw_ms is all their passes), draw
 * triangles and points alike, and sample each pixel once at its centre
 * whatever the MSAA: the resolved image is written to every sample. The
 * first switch to one makes its GL objects (programs, images, pool);
 * resize re-makes the images; no frame allocates, except the A-buffer's
 * grow. Errors: DS_ERR_INVALID_ARG (not a technique), DS_ERR_GL,
 * DS_ERR_OUT_OF_MEMORY; on error the technique stays as it was. */
ds_status ds_renderer_set_technique(ds_renderer *renderer, ds_technique technique);
ds_technique ds_renderer_technique(const ds_renderer *renderer);

/* The raster path of sorted frames (desc.raster). */
ds_raster_path ds_renderer_raster(const ds_renderer *renderer);

/* The GL name of a single-sampled GL_TEXTURE_2D, GL_RGBA8, width x
 * height, that holds the last frame's image whatever the technique and
 * MSAA (straight into it, or resolved or copied on this call) — for
 * ds_image_metrics to read without a host round trip. When the frame went
 * to another framebuffer, call this before that framebuffer changes (before
 * a swap). The texture is the own framebuffer's: the next frame, resize
 * or ds_renderer_set_msaa() changes or replaces it. 0 before any frame. */
unsigned ds_renderer_color_texture(ds_renderer *renderer);

/* The compute raster's memory and its last frame (ds_renderer_raster_info). */
typedef struct ds_raster_stats {
    size_t fragments;        /* the last compute frame's */
    size_t capacity;         /* fragments the buffers hold now */
    size_t bytes;            /* GPU memory the raster holds */
    unsigned grow_count;     /* frames that grew the buffers */
    /* with desc.raster_time_passes, the last frame's passes (ms): set-up
     * and count with the plan, the host's read of the total (a CUDA sort),
     * emit, fragment sort, by-pixel pass, resolve */
    float pass_ms[6];
    unsigned dispatches;     /* the last frame's GL compute dispatches */
    unsigned steps;          /* and dependent steps (dispatches that wait
                                at a memory barrier for the ones before) */
    /* Points: the step (pixels) of the size gl_PointCoord is computed
     * from, 0 for the exact size; point_coord_probed 1 when the driver
     * was asked (else desc forced it, or no frame of points yet), with
     * its coordinates' largest distance from that rule (pixels) and
     * point_coord_explained 0 when no step tried explained them. */
    float point_coord_quantum;
    float point_coord_residual;
    int point_coord_probed;
    int point_coord_explained;
    unsigned key_bits;       /* the bits of the fragments' keys the GL sort
                                ordered (32, or 24 or 16 narrowed); 0: no
                                GL sort (triangle order, a CUDA sort) */
    unsigned long sorted_frames;   /* frames since the raster was made whose
                                      fragments the GL sort ordered */
    unsigned long narrowed_frames; /* of those, on 24 or 16 bits */
} ds_raster_stats;

/* Waits for the GPU, then the compute raster's facts. Errors:
 * DS_ERR_INVALID_ARG (no frame drawn by the compute raster yet). */
ds_status ds_renderer_raster_info(ds_renderer *renderer, ds_raster_stats *dest);

/* 1 if the next frame is rasterised in compute (a compute technique or
 * raster path, triangles, one sample a pixel, a context that can). */
int ds_renderer_compute_raster(ds_renderer *renderer);

/* The A-buffer's pool and the last A-buffer frame's load (it reads a few
 * bytes from the GPU, waiting for it). Errors: DS_ERR_INVALID_ARG (no
 * A-buffer made yet: the technique was never ABUFFER). */
ds_status ds_renderer_abuffer_info(const ds_renderer *renderer, ds_abuffer_info *dest);

/* 1 if the next frame culls (cull mode, primitive, sorting and sample
 * count allow it), else 0. */
int ds_renderer_culling(const ds_renderer *renderer);

/* Bytes of the buffers a renderer for these counts allocates (a
 * conservative per-pair estimate for desc->sort_algo's sorter): device
 * memory on the CUDA path, host memory on the CPU path. */
uint64_t ds_renderer_buffer_bytes(const ds_renderer_desc *desc, size_t vertex_count,
                                  size_t triangle_count);

/* Bytes of host memory the CPU path holds for these counts: its host
 * arrays, the GL buffers that Mesa keeps in host memory, the cpu sort's
 * scratch and the driver's own (measured on llvmpipe: a base, and what an
 * indexed draw of a large mesh holds while it runs). llvmpipe's
 * storage-block limit decides whether the draw pulls (no GL is asked, so
 * that it can be called before a context exists). */
uint64_t ds_renderer_host_bytes(const ds_renderer_desc *desc, size_t vertex_count,
                                size_t triangle_count);

/* Checks, before anything is built or uploaded, that a mesh of these
 * counts fits what desc asks for: the index format (DS_RENDERER_MAX_*),
 * and ds_renderer_buffer_bytes() against cudaMemGetInfo's free memory on
 * the CUDA path (a GL context with a CUDA device behind it is current,
 * desc->interop not NONE), else against ds_host_memory_available().
 * desc->mesh is not read. ds_renderer_create() runs it too.
 * Errors: DS_ERR_TOO_LARGE with one line saying what is needed and what
 * the GPU (or the index format) allows. */
ds_status ds_renderer_check_fits(const ds_renderer_desc *desc, size_t vertex_count,
                                 size_t triangle_count);

/* Timings of the latest frame whose GPU results are available, read without
 * stalling (usually one or two frames behind). Returns 1 and writes *dest,
 * or 0 when no frame has completed yet. */
int ds_renderer_timings(ds_renderer *renderer, ds_frame_timings *dest);

/* Pops the oldest completed frame's timings not popped yet, so that a
 * runner sees every frame exactly once (a backlog of up to 256 frames is
 * kept; older ones are dropped). Returns 1 and writes *dest, or 0. */
int ds_renderer_next_timings(ds_renderer *renderer, ds_frame_timings *dest);

/* Waits until every frame rendered so far has completed on the GPU and its
 * timings are collected (end of a run, before read-back). */
ds_status ds_renderer_finish(ds_renderer *renderer);

/* Tells the renderer that the caller's own GL work after a frame (its
 * panels, a read-back for a window) has been issued: a GL timestamp,
 * flushed, after which the next frame's hand-over starts where that
 * frame's stages run in GL and the GPU is still busy when it starts
 * (timing.c). */
void ds_renderer_between_frames(ds_renderer *renderer);

/* A timeline of a few frames on one clock, to see where a frame's time
 * goes between the host, GL and CUDA. Each event is one of
 *   host: ds_now_ms() at the start and end of ds_renderer_frame() and
 *         around each wait and submit in it (timing collection, interop
 *         waits and map/unmap, the CUDA launches, the GL draw's submission,
 *         the fence and flush after it);
 *   gl:   a GL_TIMESTAMP query (glQueryCounter) before and after the draw;
 *   cuda: an event before the interop hand-over, at each stage boundary
 *         (the timing ring's events) and after the hand-back;
 * with every time in host milliseconds (ds_now_ms). */
typedef enum ds_timeline_source {
    DS_TIMELINE_HOST = 0,
    DS_TIMELINE_GL,
    DS_TIMELINE_CUDA
} ds_timeline_source;

typedef struct ds_timeline_event {
    uint64_t frame;            /* the renderer's 0-based frame number */
    ds_timeline_source source;
    const char *name;          /* static: "frame_begin", "draw_end", ... */
    double t_ms;               /* on the host clock (ds_now_ms) */
} ds_timeline_event;

/* How the GPU clocks were put on the host clock: each was read once, after
 * the recorded frames had completed, between two host clock readings;
 * the error is half that interval (NAN for a clock not used: CUDA on the
 * CPU path). */
typedef struct ds_timeline_alignment {
    double gl_error_ms;
    double cuda_error_ms;
} ds_timeline_alignment;

/* Starts recording the next `frames` frames (1..DS_TIMELINE_MAX_FRAMES),
 * dropping any earlier timeline. Allocates the queries and events here;
 * the frames recorded allocate nothing and add no waits. Without a
 * timeline the frame path makes no extra query or event. Errors:
 * DS_ERR_INVALID_ARG, DS_ERR_OUT_OF_MEMORY, DS_ERR_GL, DS_ERR_CUDA. */
#define DS_TIMELINE_MAX_FRAMES 64
ds_status ds_renderer_timeline_start(ds_renderer *renderer, int frames);

/* Waits for the GPU (ds_renderer_finish), reads the clocks and returns the
 * recorded events sorted by time (ties in recording order): *events stays
 * valid until the next start or destroy. Errors: DS_ERR_INVALID_ARG (no
 * timeline started), DS_ERR_GL, DS_ERR_CUDA. */
ds_status ds_renderer_timeline_read(ds_renderer *renderer, const ds_timeline_event **events,
                                    size_t *count, ds_timeline_alignment *alignment);

/* Checks the last frame's sorted order against the CPU reference sort of
 * the same keys (desc.verify must have been set; a host round trip, so not
 * for timed runs). Returns DS_OK, or DS_ERR_MISMATCH after logging the
 * frame number and the first wrong position. Errors also DS_ERR_CUDA,
 * DS_ERR_INVALID_ARG (verify not enabled, or sorting off). */
ds_status ds_renderer_verify(ds_renderer *renderer);

/* Reads the own framebuffer's colour (after waiting for the GPU) into dest:
 * width * height * 4 bytes RGBA8, top row first (ready for a PNG).
 * Errors: DS_ERR_GL. */
ds_status ds_renderer_read_pixels(ds_renderer *renderer, uint8_t *dest);

/* Facts for reports and overlays; the strings live as long as the renderer. */
const char *ds_renderer_gpu_name(const ds_renderer *renderer); /* CUDA device
                                   name, or GL_RENDERER on the CPU path */
ds_interop_mode ds_renderer_interop(const ds_renderer *renderer); /* MAP,
                                   EXTERNAL or NONE: the path in use */
const char *ds_interop_mode_name(ds_interop_mode mode); /* "map", ... */
ds_sort_algo ds_renderer_sort(const ds_renderer *renderer);
ds_primitive ds_renderer_primitive(const ds_renderer *renderer);
ds_draw_form ds_renderer_draw_form(const ds_renderer *renderer); /* PULL or
                                   INDEXED: the form in use for triangles */
size_t ds_renderer_sorted_count(const ds_renderer *renderer); /* triangles
                                   or vertices sorted per frame */
/* GL errors reported through KHR_debug since create (tests fail on > 0). */
unsigned ds_renderer_gl_errors(const ds_renderer *renderer);

#ifdef __cplusplus
}
#endif
#endif
