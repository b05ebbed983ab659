/* SPDX-License-Identifier: MIT */
/* compare.c — the headless transparency comparison (compare.h).
 *
 * Three phases over the headless orbit (headless.c's camera path):
 *   1. error: per frame, the exact reference (the A-buffer) is drawn once
 *      and copied into a texture of our own (glCopyImageSubData), then
 *      each technique's frame is drawn and compared with it on the GPU
 *      (ds_image_metrics: no image comes back to the host);
 *   2. time: each technique alone for the orbit's frames after a short
 *      warm-up, so that its frame time (GL timestamps from the end of one
 *      frame to the end of the next: sorting, interop and every pass) is
 *      its own, with nothing of the reference's or the comparison's in it;
 *   3. with --diff-dir, each technique's worst frame (highest RMSE) drawn
 *      again with its reference and written as PNGs: the image, the
 *      heatmap of its error, and the reference.
 * The key bits are fixed when a renderer is made, so bits-16 and bits-24
 * get a renderer of their own (unless --key-bits already asks for them);
 * everything else switches the technique or the triangle key of one
 * renderer, which keeps every shading setting the same for all. Holds no
 * algorithm: the renderer draws, ds_image_metrics measures. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glad/gl.h>

#include "camera.h"
#include "clock.h"
#include "colorbar.h"
#include "egl_context.h"
#include "headless.h"
#include "image_metrics.h"
#include "image_write.h"
#include "output_file.h"
#include "mesh.h"
#include "plot.h"
#include "progress.h"
#include "renderer.h"
#include "setup.h"

/* Untimed frames before each technique's timed ones: the error phase has
 * already made every technique's GL objects, so these only settle the
 * pipeline (and the sorter's first-use costs). */
#define WARMUP_FRAMES 2

extern const char ds_build_commit[];

enum { M_RMSE, M_PSNR, M_SSIM, M_MAX, M_BAD_2, M_BAD_8, METRIC_COUNT };
static const char *const metric_names[METRIC_COUNT] = {"rmse", "psnr", "ssim",
                                                       "max_err", "bad_2", "bad_8"};
/* PSNR and SSIM are worse when lower; the others when higher. */
static int lower_is_worse(int metric) { return metric == M_PSNR || metric == M_SSIM; }

/* The three key widths a renderer can be made with. */
enum { BITS_16, BITS_24, BITS_32, BITS_COUNT };
static const int bits_of[BITS_COUNT] = {16, 24, 32};

typedef struct item_run {
    ds_compare_item item;
    int listed;               /* in --compare (else timed for the summary) */
    double *metric[METRIC_COUNT]; /* per frame */
    double median[METRIC_COUNT], worst[METRIC_COUNT];
    int worst_frame;          /* the frame of the highest RMSE */
    double frame_ms;          /* median GPU frame time (GL timestamps) */
    double frame_mean_ms, frame_sd_ms; /* their mean and sample standard
                                 deviation */
    double *frame_times;      /* per timed frame, in order (NaN: none) */
    double wall_ms;           /* host time per timed frame, finished */
    size_t timed;             /* frames with a frame time */
} item_run;

typedef struct compare_state {
    const ds_options *opts;
    ds_mesh mesh;
    ds_egl_context *context;
    ds_renderer *renderers[BITS_COUNT]; /* by key width; NULL if not needed */
    int main_bits;            /* the index of the --key-bits renderer */
    ds_image_metrics *metrics;
    unsigned reference_texture; /* our copy of the reference frame */
    ds_camera camera;
    float start_yaw;
    item_run runs[DS_COMPARE_ITEM_COUNT + 2]; /* listed, then sorted and
                                                 abuffer if not listed */
    int run_count;
    size_t max_fragments, max_nodes; /* over the reference frames */
    uint8_t *pixels;
    double *scratch;          /* 2 x frames: medians' sorting, frame times */
    ds_progress progress;
} compare_state;

/* Work units of the whole run, for the progress line's estimate: each
 * error-pass frame draws the reference and every listed technique, each
 * timing frame one technique. */
static double listed_count(const compare_state *s)
{
    int listed = 0;
    for (int r = 0; r < s->run_count; r++)
        listed += s->runs[r].listed;
    return listed;
}

static double total_work(const compare_state *s)
{
    double frames = s->opts->frames;
    return frames * (listed_count(s) + 1.0) + s->run_count * (frames + WARMUP_FRAMES);
}

static int bits_index(int key_bits)
{
    return key_bits == 16 ? BITS_16 : key_bits == 24 ? BITS_24 : BITS_32;
}

static ds_renderer *main_renderer(const compare_state *s) { return s->renderers[s->main_bits]; }

static ds_renderer *renderer_of(const compare_state *s, ds_compare_item item)
{
    if (item == DS_COMPARE_BITS_16)
        return s->renderers[BITS_16];
    if (item == DS_COMPARE_BITS_24)
        return s->renderers[BITS_24];
    return main_renderer(s);
}

/* Sets the renderer `item` draws with to draw it; returns that renderer. */
static ds_status configure(compare_state *s, ds_compare_item item, ds_renderer **dest)
{
    ds_renderer *renderer = renderer_of(s, item);
    ds_triangle_key key = s->opts->triangle_key;
    if (item == DS_COMPARE_KEY_FARTHEST)
        key = DS_TRIANGLE_KEY_FARTHEST;
    else if (item == DS_COMPARE_KEY_MEAN)
        key = DS_TRIANGLE_KEY_MEAN;
    else if (item == DS_COMPARE_KEY_CENTROID)
        key = DS_TRIANGLE_KEY_CENTROID;
    ds_renderer_set_triangle_key(renderer, key);
    *dest = renderer;
    return ds_renderer_set_technique(renderer, ds_compare_item_technique(item));
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (scratch holds a sorted copy); +INFINITY sorts
 * last, so an infinite PSNR is a median only when most frames have it. */
static double median_of(const double *values, size_t n, double *scratch)
{
    if (n == 0)
        return 0.0;
    memcpy(scratch, values, n * sizeof *scratch);
    qsort(scratch, n, sizeof *scratch, compare_doubles);
    if (n % 2)
        return scratch[n / 2];
    if (isinf(scratch[n / 2]) || isinf(scratch[n / 2 - 1]))
        return isinf(scratch[n / 2 - 1]) ? scratch[n / 2 - 1] : scratch[n / 2];
    return 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* Checks (and makes, one level) --diff-dir before anything is loaded. */
static ds_status check_diff_dir(const char *dir)
{
    struct stat info;
    if (stat(dir, &info) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0)
            return ds_fail(DS_ERR_IO, "--diff-dir %s: cannot make the folder: %s", dir,
                           strerror(errno));
        return DS_OK;
    }
    if (!S_ISDIR(info.st_mode))
        return ds_fail(DS_ERR_IO, "--diff-dir %s: not a folder", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ds_fail(DS_ERR_IO, "--diff-dir %s: cannot write there: %s", dir, strerror(errno));
    return DS_OK;
}

/* The renderer of key width `bits`, made on first use from the options;
 * where an earlier one fell back to the cpu sort (no CUDA device), with
 * that sort, so that the fallback's warning comes once. */
static ds_status make_renderer(compare_state *s, int index, const ds_renderer_desc *base)
{
    if (s->renderers[index])
        return DS_OK;
    ds_renderer_desc desc = *base;
    desc.key_bits = bits_of[index];
    for (int i = 0; i < BITS_COUNT; i++)
        if (s->renderers[i] && ds_renderer_sort(s->renderers[i]) == DS_SORT_CPU)
            desc.sort_algo = DS_SORT_CPU;
    return ds_renderer_create(&desc, &s->renderers[index]);
}

/* The reference of the current camera into s->reference_texture. */
static ds_status draw_reference(compare_state *s)
{
    ds_renderer *renderer = main_renderer(s);
    ds_status status;
    if ((status = ds_renderer_set_technique(renderer, DS_TECHNIQUE_ABUFFER)) ||
        (status = ds_renderer_frame(renderer, &s->camera, DS_RENDERER_OWN_FRAMEBUFFER)))
        return status;
    unsigned source = ds_renderer_color_texture(renderer);
    /* A GPU-side copy: the next frame of this renderer overwrites its
     * texture, the comparisons after it read ours. */
    glCopyImageSubData(source, GL_TEXTURE_2D, 0, 0, 0, 0, s->reference_texture, GL_TEXTURE_2D, 0,
                       0, 0, 0, s->opts->width, s->opts->height, 1);
    return DS_OK;
}

static void store_error(item_run *run, int frame, const ds_image_error *error)
{
    run->metric[M_RMSE][frame] = error->rmse;
    run->metric[M_PSNR][frame] = error->psnr;
    run->metric[M_SSIM][frame] = error->ssim;
    run->metric[M_MAX][frame] = error->max_error;
    run->metric[M_BAD_2][frame] = error->bad_2;
    run->metric[M_BAD_8][frame] = error->bad_8;
}

/* Phase 1: every listed technique against the reference, frame by frame. */
static ds_status error_phase(compare_state *s)
{
    ds_status status;
    int frames = s->opts->frames;
    for (int f = 0; f < frames; f++) {
        ds_headless_orbit_camera(&s->camera, &s->mesh, s->start_yaw, s->opts->orbit_degrees, f,
                                 frames);
        if ((status = draw_reference(s)))
            return status;
        ds_abuffer_info info;
        if ((status = ds_renderer_abuffer_info(main_renderer(s), &info)))
            return status;
        if (info.max_fragments > s->max_fragments)
            s->max_fragments = info.max_fragments;
        if (info.nodes_used > s->max_nodes)
            s->max_nodes = info.nodes_used;
        for (int r = 0; r < s->run_count; r++) {
            item_run *run = &s->runs[r];
            ds_renderer *renderer;
            ds_image_error error;
            if (!run->listed)
                continue;
            if ((status = configure(s, run->item, &renderer)) ||
                (status = ds_renderer_frame(renderer, &s->camera, DS_RENDERER_OWN_FRAMEBUFFER)) ||
                (status = ds_image_metrics_compare(s->metrics, ds_renderer_color_texture(renderer),
                                                   s->reference_texture, &error)))
                return status;
            store_error(run, f, &error);
        }
        char what[96];
        snprintf(what, sizeof what, "error against the reference: frame %d of %d", f + 1,
                 frames);
        ds_progress_update(&s->progress, (f + 1) * (listed_count(s) + 1.0), total_work(s), what);
    }
    for (int r = 0; r < s->run_count; r++) {
        item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        run->worst_frame = 0;
        for (int m = 0; m < METRIC_COUNT; m++) {
            run->median[m] = median_of(run->metric[m], (size_t)frames, s->scratch);
            run->worst[m] = run->metric[m][0];
            for (int f = 1; f < frames; f++) {
                double value = run->metric[m][f];
                if (lower_is_worse(m) ? value < run->worst[m] : value > run->worst[m])
                    run->worst[m] = value;
            }
        }
        for (int f = 1; f < frames; f++)
            if (run->metric[M_RMSE][f] > run->metric[M_RMSE][run->worst_frame])
                run->worst_frame = f;
    }
    return DS_OK;
}

/* Phase 2: each technique's frames alone. */
static ds_status time_phase(compare_state *s)
{
    ds_status status;
    int frames = s->opts->frames;
    double *times = s->scratch + frames; /* the second half */
    for (int r = 0; r < s->run_count; r++) {
        item_run *run = &s->runs[r];
        ds_renderer *renderer;
        ds_frame_timings t;
        if ((status = configure(s, run->item, &renderer)))
            return status;
        for (int i = 0; i < WARMUP_FRAMES; i++) {
            ds_headless_orbit_camera(&s->camera, &s->mesh, s->start_yaw, s->opts->orbit_degrees,
                                     i, frames);
            if ((status = ds_renderer_frame(renderer, &s->camera, DS_RENDERER_OWN_FRAMEBUFFER)))
                return status;
        }
        if ((status = ds_renderer_finish(renderer)))
            return status;
        while (ds_renderer_next_timings(renderer, &t))
            ; /* the warm-up's, and the error phase's */
        run->timed = 0;
        /* The renderer hands back every frame once, in order, so the k-th
         * timings are the k-th timed frame's. */
        size_t collected = 0;
        for (int f = 0; f < frames; f++)
            run->frame_times[f] = NAN;
        double start = ds_now_ms();
        for (int f = 0; f < frames; f++) {
            ds_headless_orbit_camera(&s->camera, &s->mesh, s->start_yaw, s->opts->orbit_degrees,
                                     f, frames);
            if ((status = ds_renderer_frame(renderer, &s->camera, DS_RENDERER_OWN_FRAMEBUFFER)))
                return status;
            while (collected < (size_t)frames && ds_renderer_next_timings(renderer, &t))
                if ((run->frame_times[collected++] = t.frame_ms > 0.0f ? t.frame_ms : NAN) > 0.0)
                    times[run->timed++] = t.frame_ms;
            char what[128];
            snprintf(what, sizeof what, "timing %d of %d (%s): frame %d of %d", r + 1,
                     s->run_count, ds_compare_item_name(run->item), f + 1, frames);
            ds_progress_update(&s->progress,
                               frames * (listed_count(s) + 1.0) +
                                   r * (double)(frames + WARMUP_FRAMES) + WARMUP_FRAMES + f + 1,
                               total_work(s), what);
        }
        if ((status = ds_renderer_finish(renderer)))
            return status;
        run->wall_ms = (ds_now_ms() - start) / frames;
        while (collected < (size_t)frames && ds_renderer_next_timings(renderer, &t))
            if ((run->frame_times[collected++] = t.frame_ms > 0.0f ? t.frame_ms : NAN) > 0.0)
                times[run->timed++] = t.frame_ms;
        double sum = 0.0, squares = 0.0;
        for (size_t i = 0; i < run->timed; i++)
            sum += times[i];
        run->frame_mean_ms = run->timed ? sum / (double)run->timed : 0.0;
        for (size_t i = 0; i < run->timed; i++)
            squares += (times[i] - run->frame_mean_ms) * (times[i] - run->frame_mean_ms);
        run->frame_sd_ms = run->timed > 1 ? sqrt(squares / (double)(run->timed - 1)) : 0.0;
        run->frame_ms = median_of(times, run->timed, s->scratch);
    }
    return DS_OK;
}

/* Phase 3: the worst frame of each listed technique, as PNGs. */
static ds_status write_diffs(compare_state *s)
{
    ds_status status;
    const char *dir = s->opts->diff_dir;
    int width = s->opts->width, height = s->opts->height;
    char path[4096];
    for (int r = 0; r < s->run_count; r++) {
        item_run *run = &s->runs[r];
        const char *name = ds_compare_item_name(run->item);
        ds_renderer *renderer;
        ds_image_error error;
        if (!run->listed)
            continue;
        ds_headless_orbit_camera(&s->camera, &s->mesh, s->start_yaw, s->opts->orbit_degrees,
                                 run->worst_frame, s->opts->frames);
        if ((status = draw_reference(s)))
            return status;
        snprintf(path, sizeof path, "%s/reference-frame-%d.png", dir, run->worst_frame);
        if (access(path, F_OK) != 0 &&
            ((status = ds_renderer_read_pixels(main_renderer(s), s->pixels)) ||
             (status = ds_write_png(path, width, height, s->pixels))))
            return status;
        if ((status = configure(s, run->item, &renderer)) ||
            (status = ds_renderer_frame(renderer, &s->camera, DS_RENDERER_OWN_FRAMEBUFFER)))
            return status;
        unsigned texture = ds_renderer_color_texture(renderer);
        if ((status = ds_image_metrics_compare(s->metrics, texture, s->reference_texture, &error)))
            return status;
        if (fabs(error.rmse - run->metric[M_RMSE][run->worst_frame]) > 1e-9)
            ds_warn("--diff-dir: %s frame %d drawn again has RMSE %.6f, not %.6f: the technique "
                    "is not deterministic here", name, run->worst_frame, error.rmse,
                    run->metric[M_RMSE][run->worst_frame]);
        if ((status = ds_image_metrics_heatmap(s->metrics, texture, s->reference_texture,
                                               (float)DS_COMPARE_HEAT_LEVELS, 0, s->pixels)))
            return status;
        /* The colours say nothing without their scale and units. */
        ds_colorbar_draw(s->pixels, width, height, DS_COMPARE_HEAT_LEVELS);
        snprintf(path, sizeof path, "%s/%s-heat-0-%d.png", dir, name, DS_COMPARE_HEAT_LEVELS);
        if ((status = ds_write_png(path, width, height, s->pixels)))
            return status;
        snprintf(path, sizeof path, "%s/%s-frame-%d.png", dir, name, run->worst_frame);
        if ((status = ds_renderer_read_pixels(renderer, s->pixels)) ||
            (status = ds_write_png(path, width, height, s->pixels)))
            return status;
    }
    return DS_OK;
}

/* ---- output ------------------------------------------------------------- */

/* What the table, the CSV and the JSON say about the run. */
typedef struct compare_setup {
    const char *gpu, *driver, *label, *timestamp, *camera, *sort, *key, *primitive, *color,
        *opacity, *interop, *cpu, *os, *command;
    ds_abuffer_info abuffer;
    const item_run *reference, *sorted;
} compare_setup;

static void format_metric(char *dest, size_t capacity, int metric, double value)
{
    if (metric == M_PSNR && isinf(value))
        snprintf(dest, capacity, "inf");
    else if (metric == M_MAX)
        snprintf(dest, capacity, "%.0f", value);
    else if (metric == M_BAD_2 || metric == M_BAD_8)
        snprintf(dest, capacity, "%.3f%%", 100.0 * value);
    else if (metric == M_PSNR)
        snprintf(dest, capacity, "%.2f", value);
    else
        snprintf(dest, capacity, "%.4f", value);
}

static void print_table(const compare_state *s, const compare_setup *setup)
{
    const ds_options *o = s->opts;
    printf("\ndepthsort compare: %s, driver %s, %s, %zu vertices, %zu triangles, %s, %dx%d, "
           "%d frames, interop %s, commit %s, %s\n",
           setup->gpu, setup->driver, setup->label, s->mesh.vertex_count, s->mesh.triangle_count,
           setup->primitive, o->width, o->height, o->frames, setup->interop, ds_build_commit,
           setup->timestamp);
    printf("  state: sort %s, key %s, key bits %d, alpha %.3g, color %s, opacity %s, msaa %d\n",
           setup->sort, setup->key, o->key_bits ? o->key_bits : 32, (double)o->alpha,
           setup->color, setup->opacity, ds_renderer_msaa(main_renderer(s)));
    printf("  camera: %s\n  host: %s; %s\n  command: %s\n", setup->camera, setup->cpu,
           setup->os, setup->command);
    printf("  reference: abuffer (exact), %.3f ms a frame; sorted draw %.3f ms a frame "
           "(GPU frame time, median)\n",
           setup->reference->frame_ms, setup->sorted->frame_ms);
    printf("  A-buffer: %.1f bytes a pixel (%zu nodes of %d bytes and the head image), up to %zu "
           "fragments in a pixel and %zu in a frame, pool grown %u times, %u frames drawn by "
           "depth peeling (a pixel deeper than %d)\n",
           setup->abuffer.bytes_per_pixel, setup->abuffer.node_capacity, DS_ABUFFER_NODE_BYTES,
           s->max_fragments, s->max_nodes, setup->abuffer.grow_count,
           setup->abuffer.peeled_frames, DS_ABUFFER_SORTED_FRAGMENTS);
    printf("  error against the reference, median / worst over the frames; worst frame: highest "
           "RMSE\n\n");
    printf("  %-13s %9s %8s %7s %17s %17s %15s %9s %17s %17s %5s\n", "technique", "frame ms",
           "fps", "x first", "rmse", "psnr dB", "ssim", "max", "bad >2", "bad >8", "worst");
    const item_run *first = NULL;
    for (int r = 0; r < s->run_count; r++) {
        const item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        if (!first)
            first = run;
        char cells[METRIC_COUNT][64];
        for (int m = 0; m < METRIC_COUNT; m++) {
            char median[24], worst[24];
            format_metric(median, sizeof median, m, run->median[m]);
            format_metric(worst, sizeof worst, m, run->worst[m]);
            snprintf(cells[m], sizeof cells[m], "%s / %s", median, worst);
        }
        printf("  %-13s %9.3f %8.1f %7.2f %17s %17s %15s %9s %17s %17s %5d\n",
               ds_compare_item_name(run->item), run->frame_ms,
               run->frame_ms > 0.0 ? 1000.0 / run->frame_ms : 0.0,
               first->frame_ms > 0.0 ? run->frame_ms / first->frame_ms : 0.0, cells[M_RMSE],
               cells[M_PSNR], cells[M_SSIM], cells[M_MAX], cells[M_BAD_2], cells[M_BAD_8],
               run->worst_frame);
    }
    printf("\n  frame ms: the technique's own GPU frame time, median over the frames (GL "
           "timestamps); fps: 1000 / frame ms; x first: frame ms over the first row's\n"
           "  rmse: root mean square error of the R, G, B values, in levels of 255 (8-bit "
           "steps); psnr: 20 log10(255 / rmse), in dB, inf for identical images\n"
           "  ssim: structural similarity of the luma, 1 for identical images; max: the "
           "largest error of any channel, in levels of 255\n"
           "  bad >2, bad >8: the share of pixels with some channel off by more than 2 (8) "
           "levels of 255; worst: the frame of the highest rmse\n");
}

/* A metric as JSON: infinite PSNR (identical images) is null. */
static void json_number(FILE *file, double value)
{
    if (isfinite(value))
        fprintf(file, "%.6g", value);
    else
        fprintf(file, "null");
}

static ds_status write_json(FILE *file, const char *path, const compare_state *s,
                            const compare_setup *setup)
{
    const ds_options *o = s->opts;
    const ds_json_member strings[] = {
        {"gpu", setup->gpu}, {"driver", setup->driver}, {"model", setup->label},
        {"commit", ds_build_commit}, {"timestamp", setup->timestamp},
        {"primitive", setup->primitive}, {"interop", setup->interop}, {"sort", setup->sort},
        {"key", setup->key}, {"color", setup->color}, {"opacity", setup->opacity},
        {"up", ds_up_axis_name(o->up)}, {"camera", setup->camera},
        {"reference", "abuffer"}, {"cpu", setup->cpu}, {"os", setup->os},
        {"command", setup->command},
        {"units", "rmse and max_err in levels of 255 (8-bit steps); psnr in dB; bad_2 and bad_8 "
                  "shares of the pixels; times in ms"},
    };
    fprintf(file, "{\n");
    ds_headless_json_strings(file, strings, sizeof strings / sizeof strings[0]);
    fprintf(file,
            "  \"vertices\": %zu,\n  \"triangles\": %zu,\n  \"width\": %d,\n  \"height\": %d,\n"
            "  \"frames\": %d,\n  \"orbit_degrees\": %.6g,\n  \"key_bits\": %d,\n"
            "  \"alpha\": %.4g,\n  \"shuffle\": %s,\n  \"msaa\": %d,\n"
            "  \"heatmap_levels\": %d,\n",
            s->mesh.vertex_count, s->mesh.triangle_count, o->width, o->height, o->frames,
            (double)o->orbit_degrees, o->key_bits ? o->key_bits : 32, (double)o->alpha,
            o->shuffle ? "true" : "false", ds_renderer_msaa(main_renderer(s)),
            DS_COMPARE_HEAT_LEVELS);
    fprintf(file,
            "  \"reference_frame_ms\": %.5f,\n  \"sorted_frame_ms\": %.5f,\n"
            "  \"abuffer\": {\"bytes\": %zu, \"bytes_per_pixel\": %.3f, \"node_capacity\": %zu, "
            "\"node_bytes\": %d, \"max_fragments_per_pixel\": %zu, \"max_nodes_per_frame\": %zu, "
            "\"grow_count\": %u, \"peeled_frames\": %u},\n  \"techniques\": [\n",
            setup->reference->frame_ms, setup->sorted->frame_ms, setup->abuffer.bytes,
            setup->abuffer.bytes_per_pixel, setup->abuffer.node_capacity, DS_ABUFFER_NODE_BYTES,
            s->max_fragments, s->max_nodes, setup->abuffer.grow_count,
            setup->abuffer.peeled_frames);
    int first = 1;
    for (int r = 0; r < s->run_count; r++) {
        const item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        fprintf(file, "%s    {\"name\": \"%s\", \"frame_ms\": %.5f, \"frame_mean_ms\": %.5f, "
                      "\"frame_sd_ms\": %.5f, \"fps\": %.2f, \"wall_ms\": %.5f",
                first ? "" : ",\n", ds_compare_item_name(run->item), run->frame_ms,
                run->frame_mean_ms, run->frame_sd_ms,
                run->frame_ms > 0.0 ? 1000.0 / run->frame_ms : 0.0, run->wall_ms);
        for (int m = 0; m < METRIC_COUNT; m++) {
            fprintf(file, ", \"%s\": ", metric_names[m]);
            json_number(file, run->median[m]);
        }
        fprintf(file, ", \"worst_frame\": %d", run->worst_frame);
        for (int m = 0; m < METRIC_COUNT; m++) {
            fprintf(file, ", \"%s_worst\": ", metric_names[m]);
            json_number(file, run->worst[m]);
        }
        fprintf(file, "}");
        first = 0;
    }
    fprintf(file, "\n  ]\n}\n");
    return ds_headless_close_written(file, path);
}

/* The columns every row of the CSV starts with: the run's settings. */
static void csv_settings(FILE *file, const compare_state *s, const compare_setup *setup,
                         const item_run *run)
{
    const ds_options *o = s->opts;
    const char *const texts[] = {setup->label, setup->gpu, setup->cpu, setup->os, setup->command};
    ds_headless_csv_strings(file, texts, sizeof texts / sizeof texts[0]);
    fprintf(file, ",%d,%d,%d,%s,%s,%s,%d,%.4g,%s,%s", o->width, o->height, o->frames,
            ds_build_commit, setup->sort, setup->key, o->key_bits ? o->key_bits : 32,
            (double)o->alpha, setup->primitive, ds_compare_item_name(run->item));
}

/* One row per technique (frame empty: the medians over the frames, the
 * worst values and frame), then one per technique and frame (that
 * frame's error, and its frame time from the timing phase); each row
 * repeats the run's settings, so that the CSVs of several models
 * concatenate (under one header). */
static ds_status write_csv(FILE *file, const char *path, const compare_state *s,
                           const compare_setup *setup)
{
    fprintf(file, "model,gpu,cpu,os,command,width,height,frames,commit,sort,key,key_bits,alpha,"
                  "primitive,name,frame,frame_ms,wall_ms");
    for (int m = 0; m < METRIC_COUNT; m++)
        fprintf(file, ",%s", metric_names[m]);
    fprintf(file, ",worst_frame");
    for (int m = 0; m < METRIC_COUNT; m++)
        fprintf(file, ",%s_worst", metric_names[m]);
    fprintf(file, "\n");
    for (int r = 0; r < s->run_count; r++) {
        const item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        csv_settings(file, s, setup, run);
        fprintf(file, ",,%.5f,%.5f", run->frame_ms, run->wall_ms);
        for (int m = 0; m < METRIC_COUNT; m++)
            fprintf(file, isinf(run->median[m]) ? ",inf" : ",%.6g", run->median[m]);
        fprintf(file, ",%d", run->worst_frame);
        for (int m = 0; m < METRIC_COUNT; m++)
            fprintf(file, isinf(run->worst[m]) ? ",inf" : ",%.6g", run->worst[m]);
        fprintf(file, "\n");
    }
    for (int r = 0; r < s->run_count; r++) {
        const item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        for (int f = 0; f < s->opts->frames; f++) {
            csv_settings(file, s, setup, run);
            fprintf(file, ",%d,", f);
            if (isfinite(run->frame_times[f]))
                fprintf(file, "%.5f", run->frame_times[f]);
            fprintf(file, ",");
            for (int m = 0; m < METRIC_COUNT; m++)
                fprintf(file, isinf(run->metric[m][f]) ? ",inf" : ",%.6g", run->metric[m][f]);
            fprintf(file, ",");
            for (int m = 0; m < METRIC_COUNT; m++)
                fprintf(file, ",");
            fprintf(file, "\n");
        }
    }
    return ds_headless_close_written(file, path);
}

/* --plot: each listed technique's frame time and RMSE, frame by frame. */
static ds_status plot_compare(const compare_state *s, const compare_setup *setup)
{
    ds_status status;
    ds_plot_series times[DS_COMPARE_ITEM_COUNT + 2], errors[DS_COMPARE_ITEM_COUNT + 2];
    int count = 0, missing = 0;
    size_t frames = (size_t)s->opts->frames;
    for (int r = 0; r < s->run_count; r++) {
        const item_run *run = &s->runs[r];
        if (!run->listed)
            continue;
        const char *name = ds_compare_item_name(run->item);
        times[count] = (ds_plot_series){name, run->frame_times, frames};
        errors[count++] = (ds_plot_series){name, run->metric[M_RMSE], frames};
    }
    char title[512];
    snprintf(title, sizeof title, "%s, %dx%d on %s: each technique's own GPU frame time",
             setup->label, s->opts->width, s->opts->height, setup->gpu);
    const ds_plot_desc time_plot = {.name = "frame-times", .title = title,
                                    .x_label = "frame of the orbit",
                                    .y_label = "GPU frame time (ms)", .series = times,
                                    .series_count = count, .log_y = 1};
    if ((status = ds_plot_write(s->opts->plot_dir, &time_plot, &missing)))
        return status;
    snprintf(title, sizeof title, "%s, %dx%d: error against the exact reference (A-buffer)",
             setup->label, s->opts->width, s->opts->height);
    const ds_plot_desc error_plot = {.name = "errors", .title = title,
                                     .x_label = "frame of the orbit",
                                     .y_label = "RMSE (levels of 255)", .series = errors,
                                     .series_count = count};
    return ds_plot_write(s->opts->plot_dir, &error_plot, &missing);
}

/* ---- the run ------------------------------------------------------------ */

/* The options --compare does not use, each with one warning. */
static void warn_unused(const ds_options *opts)
{
    if (opts->no_sort)
        ds_warn("--no-sort: --compare draws each listed technique; list 'unsorted' for that");
    if (opts->verify)
        ds_warn("--verify: not checked during --compare");
    if (opts->screenshot_path)
        ds_warn("--screenshot %s: --compare writes its images with --diff-dir",
                opts->screenshot_path);
    if (opts->sort && !strcmp(opts->sort, "all"))
        ds_warn("--sort all: --compare sorts with one algorithm, the default one");
    if (opts->script_path)
        ds_warn("--script %s: a script drives the viewer; --compare ignores it", opts->script_path);
    if (opts->overlay != DS_OVERLAY_START_AUTO)
        ds_warn("--overlay: the viewer's panel; --compare ignores it");
}

/* The runs: the listed items (for a point cloud without the key-* ones),
 * then sorted and abuffer when not listed, timed for the summary line. */
static ds_status plan_runs(compare_state *s, int points)
{
    const ds_options *o = s->opts;
    int have_sorted = 0, have_reference = 0;
    for (int i = 0; i < o->compare_count; i++) {
        ds_compare_item item = o->compare_items[i];
        if (points && ds_compare_item_needs_triangles(item)) {
            if (!o->compare_all)
                return ds_fail(DS_ERR_INVALID_ARG, "--compare %s: %s draws points; a triangle "
                               "key does not apply to points (they are sorted by their own "
                               "distance)", ds_compare_item_name(item),
                               o->model_path ? o->model_path : "the scene");
            continue;
        }
        s->runs[s->run_count].item = item;
        s->runs[s->run_count++].listed = 1;
        have_sorted |= item == DS_COMPARE_SORTED;
        have_reference |= item == DS_COMPARE_ABUFFER;
    }
    if (points && o->compare_all)
        fprintf(stderr, "depthsort: --compare all: points have no triangle key; key-farthest, "
                        "key-mean and key-centroid left out\n");
    if (!have_sorted)
        s->runs[s->run_count++].item = DS_COMPARE_SORTED;
    if (!have_reference)
        s->runs[s->run_count++].item = DS_COMPARE_ABUFFER;
    return DS_OK;
}

static const item_run *find_run(const compare_state *s, ds_compare_item item)
{
    for (int r = 0; r < s->run_count; r++)
        if (s->runs[r].item == item)
            return &s->runs[r];
    return NULL;
}

/* The renderers the runs need: the --key-bits one, and a 16- or 24-bit
 * one for bits-16 and bits-24, all sorting, none verifying; then the main
 * one's A-buffer (DS_ABUFFER_NODES_PER_PIXEL nodes a pixel), made before
 * any frame, so that a size whose pool the GL cannot hold fails now with
 * the renderer's one line. A frame with more fragments grows the pool; if
 * that cannot fit, the run stops there with the renderer's line, never
 * with a truncated reference. */
static ds_status make_renderers(compare_state *s)
{
    const ds_options *opts = s->opts;
    ds_status status;
    ds_renderer_desc desc;
    if ((status = ds_app_renderer_desc(opts, &s->mesh, &desc)))
        return status;
    desc.no_sort = 0;
    desc.verify = 0;
    if ((status = make_renderer(s, s->main_bits, &desc)))
        return status;
    for (int r = 0; r < s->run_count; r++) {
        ds_compare_item item = s->runs[r].item;
        if (item == DS_COMPARE_BITS_16 && (status = make_renderer(s, BITS_16, &desc)))
            return status;
        if (item == DS_COMPARE_BITS_24 && (status = make_renderer(s, BITS_24, &desc)))
            return status;
    }
    ds_app_warn_ignored(opts, &s->mesh, main_renderer(s));
    return ds_renderer_set_technique(main_renderer(s), DS_TECHNIQUE_ABUFFER);
}

/* The comparison's GPU metrics, the reference frame's texture, and the
 * host arrays: per-run frame times and metrics, the medians' scratch, a
 * frame's pixels. */
static ds_status make_measures(compare_state *s)
{
    const ds_options *opts = s->opts;
    ds_status status;
    ds_image_metrics_desc metrics_desc = {.width = opts->width, .height = opts->height};
    if ((status = ds_image_metrics_create(&metrics_desc, &s->metrics)))
        return status;
    glCreateTextures(GL_TEXTURE_2D, 1, &s->reference_texture);
    glTextureStorage2D(s->reference_texture, 1, GL_RGBA8, opts->width, opts->height);
    size_t frames = (size_t)opts->frames;
    s->scratch = malloc(2 * frames * sizeof(double));
    s->pixels = malloc((size_t)opts->width * (size_t)opts->height * 4);
    for (int r = 0; r < s->run_count && s->scratch && s->pixels; r++) {
        if (!(s->runs[r].frame_times = calloc(frames, sizeof(double)))) {
            free(s->scratch);
            s->scratch = NULL;
            break;
        }
        for (int m = 0; m < METRIC_COUNT; m++)
            if (!(s->runs[r].metric[m] = calloc(frames, sizeof(double)))) {
                free(s->scratch);
                s->scratch = NULL;
                break;
            }
    }
    if (!s->scratch || !s->pixels)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "compare: out of host memory");
    return DS_OK;
}

/* The table on stdout, then --csv and --json (each closed here, and the
 * caller's pointer cleared) and --plot. */
static ds_status write_tables(compare_state *s, const compare_setup *setup, FILE **csv,
                              FILE **json)
{
    ds_status status;
    print_table(s, setup);
    if (*csv) {
        status = write_csv(*csv, s->opts->csv_path, s, setup);
        *csv = NULL; /* closed */
        if (status)
            return status;
    }
    if (*json) {
        status = write_json(*json, s->opts->json_path, s, setup);
        *json = NULL;
        if (status)
            return status;
    }
    if (s->opts->plot_dir && (status = plot_compare(s, setup)))
        return status;
    return DS_OK;
}

/* The line on stderr that names the GPU, the input, the techniques listed
 * and the frames, then the sorts this build lacks. */
static void announce_run(compare_state *s, const char *label)
{
    const ds_options *opts = s->opts;
    ds_renderer *first = main_renderer(s);
    char default_sort[256];
    ds_app_describe_default_sort(opts, first, default_sort, sizeof default_sort);
    fprintf(stderr, "depthsort: compare on %s (EGL %s, interop %s), %s: %d techniques, %d frames "
            "at %dx%d%s%s\n", ds_renderer_gpu_name(first), ds_egl_context_platform(s->context),
            ds_interop_mode_name(ds_renderer_interop(first)), label,
            s->run_count - (find_run(s, DS_COMPARE_SORTED)->listed ? 0 : 1) -
                (find_run(s, DS_COMPARE_ABUFFER)->listed ? 0 : 1),
            opts->frames, opts->width, opts->height, *default_sort ? "; " : "", default_sort);
    ds_app_note_missing_sorts();
}

/* Everything the run made (GL objects first, while the context lives),
 * then the state itself. */
static void free_state(compare_state *s)
{
    if (s->reference_texture)
        glDeleteTextures(1, &s->reference_texture);
    ds_image_metrics_destroy(s->metrics);
    for (int b = 0; b < BITS_COUNT; b++)
        ds_renderer_destroy(s->renderers[b]);
    ds_egl_context_destroy(s->context);
    for (int r = 0; r < s->run_count; r++) {
        free(s->runs[r].frame_times);
        for (int m = 0; m < METRIC_COUNT; m++)
            free(s->runs[r].metric[m]);
    }
    free(s->scratch);
    free(s->pixels);
    ds_mesh_free(&s->mesh);
    free(s);
}

int ds_compare_run(const ds_options *opts)
{
    compare_state *s = calloc(1, sizeof *s);
    ds_status status = DS_OK;
    FILE *csv = NULL, *json = NULL;
    int exit_code = 1;
    char label[256], timestamp[32], camera_line[DS_CAMERA_LINE_MAX], driver[160];
    if (!s) {
        ds_fail(DS_ERR_OUT_OF_MEMORY, "compare: out of host memory");
        return 1;
    }
    s->opts = opts;
    s->main_bits = bits_index(opts->key_bits);

    /* Everything that can be checked without a model, first. */
    if (opts->width < DS_IMAGE_METRICS_MIN_SIZE || opts->height < DS_IMAGE_METRICS_MIN_SIZE) {
        status = ds_fail(DS_ERR_INVALID_ARG, "--compare: --size %dx%d: the SSIM window needs at "
                         "least %dx%d pixels", opts->width, opts->height,
                         DS_IMAGE_METRICS_MIN_SIZE, DS_IMAGE_METRICS_MIN_SIZE);
        goto done;
    }
    /* Written beside their targets, renamed when complete (output_file.h). */
    if (opts->csv_path && !(csv = ds_output_open(opts->csv_path, "cannot open for writing"))) {
        status = DS_ERR_IO;
        goto done;
    }
    if (opts->json_path && !(json = ds_output_open(opts->json_path, "cannot open for writing"))) {
        status = DS_ERR_IO;
        goto done;
    }
    if ((opts->diff_dir && (status = check_diff_dir(opts->diff_dir))) ||
        (opts->plot_dir && (status = ds_plot_check_dir("--plot", opts->plot_dir))))
        goto done;
    warn_unused(opts);
    ds_app_timestamp(timestamp, sizeof timestamp);

    if ((status = ds_app_load_mesh(opts, &s->progress, &s->mesh)))
        goto done;
    ds_app_input_label(opts, label, sizeof label);
    int points = s->mesh.triangle_count == 0 || opts->primitive == DS_PRIMITIVE_POINTS;
    if ((status = plan_runs(s, points)))
        goto done;
    s->camera.pitch = DS_HEADLESS_ORBIT_PITCH;
    ds_camera_frame(&s->camera, s->mesh.center, s->mesh.radius,
                    (float)opts->width / (float)opts->height);
    if ((status = ds_app_start_camera_measured(opts, &s->mesh, &s->camera)))
        goto done;
    s->start_yaw = s->camera.yaw;
    ds_camera_format(&s->camera, camera_line, sizeof camera_line);

    if ((status = ds_egl_context_create(0, &s->context)))
        goto done;
    const GLubyte *gl_version = glGetString(GL_VERSION);
    snprintf(driver, sizeof driver, "%s", gl_version ? (const char *)gl_version : "unknown");
    if ((status = make_renderers(s)) || (status = make_measures(s)))
        goto done;
    ds_renderer *first = main_renderer(s);
    announce_run(s, label);

    if ((status = error_phase(s)) || (status = time_phase(s)))
        goto done;
    if (opts->diff_dir && (status = write_diffs(s)))
        goto done;

    static const char *const key_names[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
    char cpu[320], os[320], command[2048];
    ds_app_host_info(cpu, sizeof cpu, os, sizeof os);
    ds_app_command_line(opts, command, sizeof command);
    compare_setup setup = {
        .cpu = cpu, .os = os, .command = command,
        .gpu = ds_renderer_gpu_name(first), .driver = driver, .label = label,
        .timestamp = timestamp, .camera = camera_line,
        .sort = ds_app_sort_name(ds_renderer_stages(first), ds_renderer_sort(first)),
        .key = points ? "vertex" : key_names[opts->triangle_key],
        .primitive = points ? "points" : "triangles",
        .color = ds_color_mode_name(ds_renderer_color_mode(first)),
        .opacity = ds_opacity_mode_name(ds_renderer_opacity_mode(first)),
        .interop = ds_interop_mode_name(ds_renderer_interop(first)),
        .reference = find_run(s, DS_COMPARE_ABUFFER), .sorted = find_run(s, DS_COMPARE_SORTED)};
    if ((status = ds_renderer_abuffer_info(first, &setup.abuffer)))
        goto done;
    ds_progress_finish(&s->progress);
    if ((status = write_tables(s, &setup, &csv, &json)))
        goto done;
    for (int b = 0; b < BITS_COUNT; b++)
        if (s->renderers[b] && ds_renderer_gl_errors(s->renderers[b])) {
            status = ds_fail(DS_ERR_GL, "compare: %u GL errors during the run",
                             ds_renderer_gl_errors(s->renderers[b]));
            goto done;
        }
    exit_code = 0;
done:
    ds_progress_finish(&s->progress);
    if (status == DS_ERR_INVALID_ARG && exit_code)
        exit_code = 2;
    ds_output_discard(csv, opts->csv_path);
    ds_output_discard(json, opts->json_path);
    free_state(s);
    return exit_code;
}
