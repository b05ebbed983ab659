/* SPDX-License-Identifier: MIT */
/* headless.c — the headless frame-timing runner: an EGL context without a
 * window, a scripted camera orbit of opts->frames frames per selected sort
 * (the GL stages or a sort of the registry; from --camera when given),
 * per-frame stage timings from the renderer, a
 * table per algorithm (median, p95, min) on stdout, and optional CSV, JSON,
 * a screenshot, a per-frame order check against the CPU reference and a
 * timeline of the last frames (--timeline). The
 * table, the CSV and the JSON each state the whole run's state (what was
 * drawn, how, where and when), so that a number can be traced to its
 * settings. Output paths are checked before anything is loaded. Holds no
 * algorithm: the renderer does the work. */
#include "headless.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glad/gl.h>

#include "camera.h"
#include "clock.h"
#include "egl_context.h"
#include "mesh.h"
#include "output_file.h"
#include "plot.h"
#include "progress.h"
#include "renderer.h"
#include "screenshot.h"
#include "setup.h"

/* Frames rendered, untimed, after each switch of sort: first-use costs
 * (lazy allocations in drivers, cold caches) stay out of the statistics. */
#define WARMUP_FRAMES 5
/* Frames of --timeline: the last timed ones of the last sort's run. */
#define TIMELINE_FRAMES 8

enum { STAGE_DISTANCES, STAGE_KEYS, STAGE_SHUFFLE, STAGE_SORT, STAGE_SCATTER,
       STAGE_INTEROP, STAGE_HANDOVER, STAGE_DRAW, STAGE_FRAME, STAGE_COUNT };
static const char *const stage_names[STAGE_COUNT] = {
    "distances", "keys", "shuffle", "sort", "scatter", "interop", "handover", "draw", "frame"};
/* What the handover stage is, for the table and the JSON. */
#define HANDOVER_NOTE                                                                        \
    "handover: GPU time (GL timestamps) from the frame's start to its draw that no stage " \
    "accounts for"
/* Runs at most: the GL stages, then every sort of the registry. */
#define MAX_RUNS (1 + DS_SORT_ALGO_COUNT)

/* The built-in git commit (cmake/embed.cmake), "unknown" outside git. */
extern const char ds_build_commit[];

typedef struct algo_run {
    ds_stages_mode stages;    /* asked for: GL, SORTER, or AUTO (no --sort);
                                 then where the timed frames' stages ran */
    ds_sort_algo algo;        /* the sorter (with GL, the shuffle's) */
    ds_frame_timings *frames; /* opts->frames entries */
    size_t frame_count;
    double wall_ms;           /* host time for the timed frames, finished */
    float median[STAGE_COUNT], p95[STAGE_COUNT], min[STAGE_COUNT];
    float mean[STAGE_COUNT], sd[STAGE_COUNT]; /* sd: the sample standard
                                 deviation (n - 1) */
    int ran[STAGE_COUNT];     /* the stage has a time in some frame: one
                                 that reads 0 in every frame did not run
                                 (renderer.h), and its CSV and JSON cells
                                 are empty */
    float drawn_median;       /* triangles (points) drawn per frame */
    int bits_least, bits_most; /* the key bits the frames' sorts compared */
} algo_run;

static float stage_of(const ds_frame_timings *t, int stage)
{
    const float values[STAGE_COUNT] = {t->distances_ms, t->keys_ms, t->shuffle_ms,
                                       t->sort_ms, t->scatter_ms, t->interop_ms,
                                       t->handover_ms, t->draw_ms, t->frame_ms};
    return values[stage];
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median, 95th percentile (nearest rank) and minimum of every stage. The
 * first frame has no previous frame, so its frame and hand-over times are
 * left out. Then where the frames' stages ran: GL if all of them did. */
static void summarise(algo_run *run, float *scratch)
{
    int all_gl = run->frame_count > 0;
    for (size_t i = 0; i < run->frame_count; i++)
        all_gl &= run->frames[i].stages == DS_STAGES_GL;
    run->stages = all_gl ? DS_STAGES_GL : DS_STAGES_SORTER;
    for (size_t i = 0; i < run->frame_count; i++)
        scratch[i] = (float)run->frames[i].drawn;
    qsort(scratch, run->frame_count, sizeof *scratch, compare_floats);
    run->drawn_median = run->frame_count ? scratch[run->frame_count / 2] : 0.0f;
    run->bits_least = run->bits_most = run->frame_count ? run->frames[0].sorted_bits : 0;
    for (size_t i = 1; i < run->frame_count; i++) {
        int bits = run->frames[i].sorted_bits;
        run->bits_least = bits < run->bits_least ? bits : run->bits_least;
        run->bits_most = bits > run->bits_most ? bits : run->bits_most;
    }
    for (int s = 0; s < STAGE_COUNT; s++) {
        size_t n = 0;
        double sum = 0.0, squares = 0.0;
        run->ran[s] = 0;
        for (size_t i = 0; i < run->frame_count; i++)
            if ((s != STAGE_FRAME && s != STAGE_HANDOVER) || run->frames[i].frame_ms > 0.0f) {
                float value = stage_of(&run->frames[i], s);
                scratch[n++] = value;
                sum += value;
                run->ran[s] |= value != 0.0f;
            }
        if (n == 0) {
            run->median[s] = run->p95[s] = run->min[s] = run->mean[s] = run->sd[s] = 0.0f;
            continue;
        }
        double mean = sum / (double)n;
        for (size_t i = 0; i < n; i++)
            squares += ((double)scratch[i] - mean) * ((double)scratch[i] - mean);
        run->mean[s] = (float)mean;
        run->sd[s] = n > 1 ? (float)sqrt(squares / (double)(n - 1)) : 0.0f;
        qsort(scratch, n, sizeof *scratch, compare_floats);
        run->median[s] = n % 2 ? scratch[n / 2] : 0.5f * (scratch[n / 2 - 1] + scratch[n / 2]);
        size_t rank = (size_t)ceil(0.95 * (double)n);
        run->p95[s] = scratch[rank ? rank - 1 : 0];
        run->min[s] = scratch[0];
    }
}

/* A sort that --sort all leaves out, and why (for the table and JSON). */
typedef struct skipped_run {
    const char *name;
    char why[160];
} skipped_run;

/* The runs to time, into dest (MAX_RUNS): --sort gl or a NAME, one run;
 * all, the GL stages first (unless they cannot run here, or --shuffle
 * is on, which they do not do), then every registry sort that runs where
 * the renderer runs (GPU sorts on the CUDA path, cpu otherwise), each
 * one left out named in skipped (MAX_RUNS) with its reason; no --sort,
 * what the renderer chose. Returns the count, or -1 (logged). */
static int select_runs(const ds_options *opts, ds_renderer *renderer, algo_run *dest,
                       skipped_run *skipped, int *skipped_count)
{
    int count = 0;
    int cpu_path = ds_renderer_interop(renderer) == DS_INTEROP_NONE;
    *skipped_count = 0;
    if (opts->sort && strcmp(opts->sort, "all") == 0) {
        if (opts->shuffle) {
            ds_warn("--sort all: the GL stages do not shuffle; with --shuffle, %s is left out",
                    DS_SORT_GL_NAME);
            skipped[*skipped_count].name = DS_SORT_GL_NAME;
            snprintf(skipped[(*skipped_count)++].why, sizeof skipped->why,
                     "the GL stages do not shuffle (--shuffle)");
        } else {
            /* A probe: the GL stages make their objects now or say why
             * they cannot run on this GL. */
            ds_log_set_quiet(1);
            ds_status probe = ds_renderer_set_stages(renderer, DS_STAGES_GL);
            ds_log_set_quiet(0);
            if (probe == DS_OK) {
                dest[count++] = (algo_run){.stages = DS_STAGES_GL, .algo = ds_renderer_sort(renderer)};
            } else {
                ds_warn("--sort all: %s is left out: %s", DS_SORT_GL_NAME, ds_last_error());
                skipped[*skipped_count].name = DS_SORT_GL_NAME;
                snprintf(skipped[(*skipped_count)++].why, sizeof skipped->why, "%s",
                         ds_last_error());
            }
        }
        for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
            ds_sort_algo algo = (ds_sort_algo)a;
            const char *why = !ds_sort_algo_built(algo)
                                  ? "not in this build (built without CUDA)"
                              : ds_sort_algo_on_host(algo) == cpu_path ? NULL
                              : cpu_path ? "no CUDA device drives this GL context"
                                         : "a host sort: runs on the CPU path (--interop none)";
            if (!why) {
                dest[count++] = (algo_run){.stages = DS_STAGES_SORTER, .algo = algo};
                continue;
            }
            skipped[*skipped_count].name = ds_sort_algo_name(algo);
            snprintf(skipped[(*skipped_count)++].why, sizeof skipped->why, "%s", why);
        }
        return count;
    }
    if (opts->stages != DS_STAGES_SORTER) { /* gl, or no --sort */
        dest[0] = (algo_run){.stages = opts->stages, .algo = ds_renderer_sort(renderer)};
        return 1;
    }
    ds_sort_algo algo = ds_sort_algo_from_name(opts->sort);
    if (algo == DS_SORT_ALGO_COUNT) {
        ds_fail(DS_ERR_INVALID_ARG, "headless: unknown sort '%s'", opts->sort);
        return -1;
    }
    dest[0] = (algo_run){.stages = DS_STAGES_SORTER, .algo = cpu_path ? DS_SORT_CPU : algo};
    return 1;
}

/* The orbit turns the yaw about the camera's target; near and far follow
 * the eye, since a --camera target need not be the model's centre. */
void ds_headless_orbit_camera(ds_camera *camera, const ds_mesh *mesh, float start_yaw,
                              float orbit_degrees, int frame, int frames)
{
    camera->yaw = start_yaw + orbit_degrees * ((float)M_PI / 180.0f) *
                                  (float)frame / (float)(frames > 0 ? frames : 1);
    ds_camera_enclose(camera, mesh->center, mesh->radius);
}

/* Renders WARMUP_FRAMES, then opts->frames timed frames (each checked when
 * `verify`), collecting every frame's timings; with `timeline`, the renderer
 * records the last TIMELINE_FRAMES of them on its timeline. The run is
 * number `index` of `count`, named `name` on the progress line. */
static ds_status run_algo(ds_renderer *renderer, const ds_options *opts, const ds_mesh *mesh,
                          int verify, int timeline, ds_camera *camera, float start_yaw,
                          algo_run *run, ds_progress *progress, int index, int count,
                          const char *name)
{
    ds_status status;
    ds_frame_timings t;
    int frames = opts->frames;
    double per_run = WARMUP_FRAMES + frames;
    char what[160];
    int timeline_frames = frames < TIMELINE_FRAMES ? frames : TIMELINE_FRAMES;
    for (int i = 0; i < WARMUP_FRAMES; i++) {
        ds_headless_orbit_camera(camera, mesh, start_yaw, opts->orbit_degrees, i, frames);
        if ((status = ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER)))
            return status;
    }
    if ((status = ds_renderer_finish(renderer)))
        return status;
    while (ds_renderer_next_timings(renderer, &t))
        ; /* drop the warm-up frames */
    run->frame_count = 0;
    double start = ds_now_ms();
    for (int i = 0; i < frames; i++) {
        if (timeline && i == frames - timeline_frames &&
            (status = ds_renderer_timeline_start(renderer, timeline_frames)))
            return status;
        ds_headless_orbit_camera(camera, mesh, start_yaw, opts->orbit_degrees, i, frames);
        if ((status = ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER)))
            return status;
        if (verify && (status = ds_renderer_verify(renderer)))
            return status;
        while (run->frame_count < (size_t)frames && ds_renderer_next_timings(renderer, &t))
            run->frames[run->frame_count++] = t;
        snprintf(what, sizeof what, "%s %d of %d (%s): frame %d of %d",
                 count > 1 ? "sort" : "run", index + 1, count, name, i + 1, frames);
        ds_progress_update(progress, index * per_run + WARMUP_FRAMES + i + 1, count * per_run,
                           what);
    }
    if ((status = ds_renderer_finish(renderer)))
        return status;
    run->wall_ms = ds_now_ms() - start;
    while (run->frame_count < (size_t)frames && ds_renderer_next_timings(renderer, &t))
        run->frames[run->frame_count++] = t;
    return DS_OK;
}

/* What the table, the CSV and the JSON say about the run besides its
 * timings: every setting that changes what is drawn or how fast, as the
 * renderer resolved it (effective culling, tiles, draw form, colour mode),
 * and where and when it ran. */
typedef struct run_setup {
    const char *gpu;
    const char *driver;    /* GL_VERSION: the GL version and, on NVIDIA and
                              Mesa, the driver's version */
    const char *label;     /* the model file or scene */
    const char *timestamp; /* start of the run, ISO 8601 UTC */
    const char *camera;    /* the start view, a --camera line */
    const char *cpu, *os;  /* the host (ds_app_host_info) */
    const char *command;   /* the command line, shell-quoted */
    const skipped_run *skipped; /* --sort all's sorts left out */
    int skipped_count;
    const ds_mesh *mesh;
    size_t elements;       /* triangles or points sorted (or drawn
                              unsorted) per frame */
    const char *primitive; /* "triangles" or "points" */
    const char *interop;
    const char *draw;      /* "indexed", "pull" or "points" */
    const char *key;       /* triangle key, or "vertex" for points */
    const char *color;     /* resolved colour mode */
    const char *opacity;
    const char *up;
    int sorting;           /* 0: --no-sort */
    int shuffle;           /* shuffled before each sort */
    int key_bits;
    int cull;              /* culling in effect (ds_renderer_culling()) */
    int tiles;             /* binned by screen tile */
    int msaa;
    const char *raster;    /* "hw", or the compute raster's order as its
                              technique: "compute" or "compute-exact" */
    float alpha;
    float point_size;      /* points: splat diameter in model units */
    int width, height;
} run_setup;

/* The run's name: what sorted its frames (after summarise()). */
static const char *run_name(const algo_run *run, const run_setup *setup)
{
    return setup->sorting ? ds_app_sort_name(run->stages, run->algo) : "unsorted";
}

/* One frame's: "gl" where its stages ran as GL compute. */
static const char *frame_sort_name(const algo_run *run, const ds_frame_timings *t,
                                   const run_setup *setup)
{
    return setup->sorting ? ds_app_sort_name(t->stages, run->algo) : "unsorted";
}

static const char *on_off(int on) { return on ? "on" : "off"; }

/* The medians of keys + sort + binning: the stages before the draw. */
static float stages_median(const algo_run *run)
{
    return run->median[STAGE_DISTANCES] + run->median[STAGE_KEYS] + run->median[STAGE_SHUFFLE] +
           run->median[STAGE_SORT] + run->median[STAGE_SCATTER];
}

/* Several runs side by side, one row each, and the sorts left out. */
static void print_summary(const algo_run *runs, int run_count, const run_setup *setup)
{
    if (run_count > 1) {
        const algo_run *first = &runs[0];
        printf("\nsummary: GPU frame time (median over the frames, with its mean and standard "
               "deviation), frames per second, the frame time over the first row's\n");
        printf("  %-10s %10s %10s %10s %9s %8s %10s %10s\n", "sort", "frame ms", "mean ms",
               "sd ms", "fps", "x first", "stages ms", "draw ms");
        for (int r = 0; r < run_count; r++) {
            const algo_run *run = &runs[r];
            double frame = run->median[STAGE_FRAME];
            printf("  %-10s %10.4f %10.4f %10.4f %9.1f %8.2f %10.4f %10.4f\n", run_name(run, setup),
                   frame, (double)run->mean[STAGE_FRAME], (double)run->sd[STAGE_FRAME],
                   frame > 0.0 ? 1000.0 / frame : 0.0,
                   first->median[STAGE_FRAME] > 0.0f ? frame / first->median[STAGE_FRAME] : 0.0,
                   (double)stages_median(run), (double)run->median[STAGE_DRAW]);
        }
        printf("  stages: distances + keys + shuffle + sort + scatter (medians)\n");
    }
    /* One line per reason: "skipped cub, radix: not in this build". */
    for (int k = 0; k < setup->skipped_count; k++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= !strcmp(setup->skipped[j].why, setup->skipped[k].why);
        if (seen)
            continue;
        printf("%sskipped %s", k ? "" : "\n", setup->skipped[k].name);
        for (int j = k + 1; j < setup->skipped_count; j++)
            if (!strcmp(setup->skipped[j].why, setup->skipped[k].why))
                printf(", %s", setup->skipped[j].name);
        printf(": %s\n", setup->skipped[k].why);
    }
}

/* Which size the compute raster's points take gl_PointCoord from, and
 * whether the driver was asked (renderer.h, ds_raster_stats). */
static void print_point_coord_rule(const ds_raster_stats *raster)
{
    char step[48] = "the exact size";
    if (raster->point_coord_quantum > 0.0f)
        snprintf(step, sizeof step, "the size floored to 1/%.0f pixel",
                 1.0 / (double)raster->point_coord_quantum);
    if (!raster->point_coord_probed)
        printf("compute raster points: gl_PointCoord from %s (asked for)\n", step);
    else if (raster->point_coord_explained)
        printf("compute raster points: gl_PointCoord from %s, as the driver's sprites (within "
               "%.4f pixels)\n", step, (double)raster->point_coord_residual);
    else
        printf("compute raster points: gl_PointCoord from %s; the driver's sprites follow no "
               "step tried (%.4f pixels off)\n", step, (double)raster->point_coord_residual);
}

static void print_table(const algo_run *runs, int run_count, const run_setup *setup)
{
    printf("\ndepthsort headless: %s, driver %s, %s, %zu vertices, %zu triangles, %zu %s %s, "
           "%dx%d, interop %s, commit %s, %s\n",
           setup->gpu, setup->driver, setup->label, setup->mesh->vertex_count,
           setup->mesh->triangle_count, setup->elements, setup->primitive,
           setup->sorting ? "sorted" : "drawn unsorted", setup->width, setup->height,
           setup->interop, ds_build_commit, setup->timestamp);
    printf("  state: sort %s, key %s, key bits %d, alpha %.3g, shuffle %s, primitive %s, "
           "draw %s, cull %s, tiles %s, color %s, opacity %s, msaa %d, raster %s, up %s",
           run_count == 1 ? run_name(&runs[0], setup) : "all", setup->key, setup->key_bits,
           (double)setup->alpha, on_off(setup->shuffle), setup->primitive, setup->draw,
           on_off(setup->cull), on_off(setup->tiles), setup->color, setup->opacity, setup->msaa,
           setup->raster, setup->up);
    if (strcmp(setup->primitive, "points") == 0)
        printf(", point size %.4g", (double)setup->point_size);
    printf("\n  camera: %s\n  host: %s; %s\n  command: %s\n  %s\n", setup->camera, setup->cpu,
           setup->os, setup->command, HANDOVER_NOTE);
    if (strstr(setup->gpu, "llvmpipe"))
        printf("  llvmpipe: a CPU rasteriser, whose GL timestamps mark when it ran the "
               "commands on the host: its stage times and GPU fps are no GPU's\n");
    for (int r = 0; r < run_count; r++) {
        const algo_run *run = &runs[r];
        printf("\n%s%s%s: %zu frames, %.1f fps wall, %.1f fps GPU (median frame), "
               "%.0f of %zu drawn (median)",
               setup->sorting ? "sort " : "", run_name(run, setup),
               setup->shuffle ? " + shuffle" : "", run->frame_count,
               run->wall_ms > 0.0 ? 1000.0 * (double)run->frame_count / run->wall_ms : 0.0,
               run->median[STAGE_FRAME] > 0.0f ? 1000.0 / run->median[STAGE_FRAME] : 0.0,
               (double)run->drawn_median, setup->elements);
        /* Narrowed keys (renderer.h, full_width_keys) sort fewer bits. */
        if (run->bits_least == run->bits_most && run->bits_most)
            printf(", keys sorted on %d bits", run->bits_most);
        else if (run->bits_most)
            printf(", keys sorted on %d to %d bits", run->bits_least, run->bits_most);
        printf("\n");
        printf("  %-10s %10s %10s %10s %10s %10s\n", "stage (ms)", "median", "p95", "min",
               "mean", "sd");
        for (int s = 0; s < STAGE_COUNT; s++) {
            /* None in any frame: a stage that did not run, or no hand-over
             * (renderer.h: they read 0). */
            if (!run->ran[s])
                printf("  %-10s %10s %10s %10s %10s %10s   (none)\n", stage_names[s], "-", "-",
                       "-", "-", "-");
            else
                printf("  %-10s %10.4f %10.4f %10.4f %10.4f %10.4f\n", stage_names[s],
                       run->median[s], run->p95[s], run->min[s], run->mean[s], run->sd[s]);
        }
        float pipeline = run->median[STAGE_DISTANCES] + run->median[STAGE_KEYS] +
                         run->median[STAGE_SHUFFLE] + run->median[STAGE_SORT] +
                         run->median[STAGE_SCATTER];
        printf("  %-10s %10.4f   (distances + keys + shuffle + sort + scatter)\n",
               "sum", pipeline);
        printf("  %-10s %10.4f   (sum + handover + draw: about the frame when the GPU is busy)\n",
               "total", pipeline + run->median[STAGE_HANDOVER] + run->median[STAGE_DRAW]);
    }
    print_summary(runs, run_count, setup);
}

/* --plot: every frame's GPU frame time, one line per run. */
static ds_status plot_frame_times(const char *dir, const algo_run *runs, int run_count,
                                  const run_setup *setup)
{
    ds_status status = DS_OK;
    ds_plot_series series[MAX_RUNS];
    double *values[MAX_RUNS] = {0};
    for (int r = 0; r < run_count; r++) {
        values[r] = malloc((runs[r].frame_count ? runs[r].frame_count : 1) * sizeof(double));
        if (!values[r]) {
            status = ds_fail(DS_ERR_OUT_OF_MEMORY, "--plot: out of host memory");
            goto done;
        }
        /* The first frame has no previous one: no frame time (NaN). */
        for (size_t i = 0; i < runs[r].frame_count; i++)
            values[r][i] = runs[r].frames[i].frame_ms > 0.0f ? runs[r].frames[i].frame_ms : NAN;
        series[r] = (ds_plot_series){run_name(&runs[r], setup), values[r], runs[r].frame_count};
    }
    char title[512];
    snprintf(title, sizeof title, "%s, %zu %s, %dx%d: GPU frame time on %s", setup->label,
             setup->elements, setup->primitive, setup->width, setup->height, setup->gpu);
    int missing = 0;
    const ds_plot_desc desc = {.name = "frame-times", .title = title,
                               .x_label = "frame of the orbit",
                               .y_label = "GPU frame time (ms)", .series = series,
                               .series_count = run_count};
    status = ds_plot_write(dir, &desc, &missing);
done:
    for (int r = 0; r < run_count; r++)
        free(values[r]);
    return status;
}

/* Closes a file opened with ds_output_open() and puts it in place: a
 * failed write anywhere (a full disk), close or rename is an error naming
 * the file, which is then left as it was. */
ds_status ds_headless_close_written(FILE *file, const char *path)
{
    return ds_output_commit(file, path);
}

/* A CSV field in quotes, inner quotes doubled (RFC 4180). */
void ds_headless_csv_string(FILE *file, const char *text)
{
    fputc('"', file);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', file);
        fputc(*text, file);
    }
    fputc('"', file);
}

void ds_headless_csv_strings(FILE *file, const char *const *texts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (i)
            fputc(',', file);
        ds_headless_csv_string(file, texts[i]);
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
void ds_headless_json_string(FILE *file, const char *text)
{
    fputc('"', file);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(file, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(file, "\\u%04x", *c);
        else
            fputc(*c, file);
    }
    fputc('"', file);
}

void ds_headless_json_strings(FILE *file, const ds_json_member *members, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fprintf(file, "  \"%s\": ", members[i].name);
        ds_headless_json_string(file, members[i].value);
        fprintf(file, ",\n");
    }
}

/* One row per timed frame; every row repeats the run's state, so that rows
 * of several runs can be concatenated and still be told apart. */
static ds_status write_csv(FILE *file, const char *path, const algo_run *runs, int run_count,
                           const run_setup *setup)
{
    fprintf(file, "gpu,driver,cpu,os,command,model,vertices,triangles,elements,primitive,width,"
                  "height,commit,timestamp,interop,sort,sorting,key,key_bits,alpha,shuffle,draw,"
                  "cull,tiles,color,opacity,msaa,raster,up,point_size,camera,frame,drawn,sorted_bits");
    for (int s = 0; s < STAGE_COUNT; s++)
        fprintf(file, ",%s_ms", stage_names[s]);
    fprintf(file, "\n");
    for (int r = 0; r < run_count; r++)
        for (size_t i = 0; i < runs[r].frame_count; i++) {
            const ds_frame_timings *t = &runs[r].frames[i];
            const char *const texts[] = {setup->gpu, setup->driver,  setup->cpu,
                                         setup->os,  setup->command, setup->label};
            ds_headless_csv_strings(file, texts, sizeof texts / sizeof texts[0]);
            fprintf(file, ",%zu,%zu,%zu,%s,%d,%d,%s,%s,%s,%s,%d,%s,%d,%.4g,%d,%s,%d,%d,%s,%s,%d,%s,%s,"
                          "%.6g,",
                    setup->mesh->vertex_count, setup->mesh->triangle_count, setup->elements,
                    setup->primitive, setup->width, setup->height, ds_build_commit,
                    setup->timestamp, setup->interop, frame_sort_name(&runs[r], t, setup), setup->sorting,
                    setup->key, setup->key_bits, (double)setup->alpha, setup->shuffle, setup->draw,
                    setup->cull, setup->tiles, setup->color, setup->opacity, setup->msaa,
                    setup->raster, setup->up, (double)setup->point_size);
            ds_headless_csv_string(file, setup->camera);
            fprintf(file, ",%llu,%u,%d", (unsigned long long)i, (unsigned)t->drawn,
                    t->sorted_bits);
            /* Empty where the run's stage did not run (the table's "-");
             * the first frame has no frame time or hand-over. */
            for (int s = 0; s < STAGE_COUNT; s++)
                if (!runs[r].ran[s] ||
                    ((s == STAGE_FRAME || s == STAGE_HANDOVER) && t->frame_ms <= 0.0f))
                    fprintf(file, ",");
                else
                    fprintf(file, ",%.5f", stage_of(t, s));
            fprintf(file, "\n");
        }
    return ds_headless_close_written(file, path);
}

/* The renderer's timeline as CSV: one event per row, sorted by time, in
 * milliseconds after the first; the header lines say what was run and
 * how well the GPU clocks were aligned with the host's. */
static ds_status write_timeline(FILE *file, const char *path, ds_renderer *renderer,
                                const run_setup *setup, const char *sort)
{
    static const char *const sources[] = {"host", "gl", "cuda"};
    const ds_timeline_event *events = NULL;
    size_t count = 0;
    ds_timeline_alignment alignment;
    ds_status status = ds_renderer_timeline_read(renderer, &events, &count, &alignment);
    if (status) {
        fclose(file);
        return status;
    }
    fprintf(file, "# depthsort timeline: %s, %zu %s, %dx%d, sort %s, interop %s, draw %s, "
                  "cull %d, tiles %d, on %s (%s), commit %s\n",
            setup->label, setup->elements, setup->primitive, setup->width, setup->height,
            setup->sorting ? sort : "off",
            setup->interop, setup->draw,
            setup->cull, setup->tiles, setup->gpu, setup->driver, ds_build_commit);
    fprintf(file, "# t_ms: host clock (ds_now_ms, monotonic) after the first event. host: "
                  "clock readings around each wait and submit; gl: GL_TIMESTAMP queries, "
                  "aligned by a glGetInteger64v(GL_TIMESTAMP) between two host readings "
                  "after the frames, +-%.4f ms; cuda: events, aligned by an event on the idle "
                  "stream between two host readings after the frames, ", alignment.gl_error_ms);
    if (isnan(alignment.cuda_error_ms))
        fprintf(file, "none on this path\n");
    else
        fprintf(file, "+-%.4f ms\n", alignment.cuda_error_ms);
    fprintf(file, "frame,source,event,t_ms\n");
    for (size_t i = 0; i < count; i++)
        fprintf(file, "%llu,%s,%s,%.4f\n", (unsigned long long)events[i].frame,
                sources[events[i].source], events[i].name, events[i].t_ms - events[0].t_ms);
    return ds_headless_close_written(file, path);
}

static const char *json_bool(int value) { return value ? "true" : "false"; }

static ds_status write_json(FILE *file, const char *path, const algo_run *runs, int run_count,
                            const run_setup *setup)
{
    const ds_json_member strings[] = {
        {"gpu", setup->gpu},           {"driver", setup->driver},   {"model", setup->label},
        {"cpu", setup->cpu},           {"os", setup->os},           {"command", setup->command},
        {"commit", ds_build_commit},   {"timestamp", setup->timestamp},
        {"primitive", setup->primitive}, {"interop", setup->interop}, {"key", setup->key},
        {"draw", setup->draw},         {"color", setup->color},     {"opacity", setup->opacity},
        {"up", setup->up},             {"camera", setup->camera},   {"raster", setup->raster},
        {"timing", "GPU times in ms (GL timestamps and CUDA events; the cpu sort: host clock); "
                   HANDOVER_NOTE},
    };
    fprintf(file, "{\n");
    ds_headless_json_strings(file, strings, sizeof strings / sizeof strings[0]);
    fprintf(file,
            "  \"vertices\": %zu,\n  \"triangles\": %zu,\n  \"elements\": %zu,\n"
            "  \"width\": %d,\n  \"height\": %d,\n  \"sorting\": %s,\n  \"shuffle\": %s,\n"
            "  \"key_bits\": %d,\n  \"alpha\": %.4g,\n  \"cull\": %s,\n  \"tiles\": %s,\n"
            "  \"msaa\": %d,\n  \"point_size\": %.6g,\n  \"runs\": [\n",
            setup->mesh->vertex_count, setup->mesh->triangle_count, setup->elements,
            setup->width, setup->height, json_bool(setup->sorting), json_bool(setup->shuffle),
            setup->key_bits, (double)setup->alpha, json_bool(setup->cull),
            json_bool(setup->tiles), setup->msaa, (double)setup->point_size);
    for (int r = 0; r < run_count; r++) {
        const algo_run *run = &runs[r];
        double frame = run->median[STAGE_FRAME];
        float sum = stages_median(run);
        fprintf(file, "    {\"sort\": \"%s\", \"frames\": %zu, \"wall_fps\": %.2f, "
                      "\"gpu_fps\": %.2f, \"frame_over_first\": %.4f, "
                      "\"drawn_median\": %.0f, \"sorted_bits_least\": %d, "
                      "\"sorted_bits_most\": %d, \"sum_ms\": %.5f, \"total_ms\": %.5f",
                run_name(run, setup), run->frame_count,
                run->wall_ms > 0.0 ? 1000.0 * (double)run->frame_count / run->wall_ms : 0.0,
                frame > 0.0 ? 1000.0 / frame : 0.0,
                runs[0].median[STAGE_FRAME] > 0.0f ? frame / runs[0].median[STAGE_FRAME] : 0.0,
                (double)run->drawn_median, run->bits_least, run->bits_most, (double)sum,
                (double)(sum + run->median[STAGE_HANDOVER] + run->median[STAGE_DRAW]));
        /* A stage that did not run is null, as the table's "-". */
        for (int s = 0; s < STAGE_COUNT; s++)
            if (run->ran[s])
                fprintf(file, ",\n     \"%s_ms\": {\"median\": %.5f, \"p95\": %.5f, "
                              "\"min\": %.5f, \"mean\": %.5f, \"sd\": %.5f}",
                        stage_names[s], run->median[s], run->p95[s], run->min[s], run->mean[s],
                        run->sd[s]);
            else
                fprintf(file, ",\n     \"%s_ms\": null", stage_names[s]);
        fprintf(file, "}%s\n", r + 1 < run_count ? "," : "");
    }
    fprintf(file, "  ],\n  \"skipped\": [");
    for (int k = 0; k < setup->skipped_count; k++) {
        fprintf(file, "%s\n    {\"name\": ", k ? "," : "");
        ds_headless_json_string(file, setup->skipped[k].name);
        fprintf(file, ", \"why\": ");
        ds_headless_json_string(file, setup->skipped[k].why);
        fprintf(file, "}");
    }
    fprintf(file, "%s]\n}\n", setup->skipped_count ? "\n  " : "");
    return ds_headless_close_written(file, path);
}

/* Opens --csv, --json and --timeline for writing (under temporary names
 * beside them: output_file.h) and checks that --screenshot
 * can be written (its folder, then the file itself: opened without
 * truncating, or created and removed again; a FIFO or a device: its
 * permission, unopened): a bad path fails with one
 * line naming it before anything is loaded or drawn, not after the last
 * frame. */
static ds_status open_outputs(const ds_options *opts, FILE **csv, FILE **json, FILE **timeline)
{
    const char *const paths[3] = {opts->csv_path, opts->json_path, opts->timeline_path};
    FILE **const files[3] = {csv, json, timeline};
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        *files[i] = ds_output_open(paths[i], "cannot open for writing");
        if (!*files[i])
            return DS_ERR_IO;
    }
    /* A name template is known only after the run. */
    const char *png = opts->screenshot_path;
    if (png && !strchr(png, '{')) {
        char folder[4096];
        const char *slash = strrchr(png, '/');
        size_t length = slash ? (size_t)(slash - png) : 1;
        if (length >= sizeof folder)
            return ds_fail(DS_ERR_IO, "%s: path too long", png);
        if (slash)
            memcpy(folder, png, length);
        else
            folder[0] = '.';
        folder[length] = '\0';
        if (slash && length == 0)
            snprintf(folder, sizeof folder, "/");
        struct stat info;
        if (stat(folder, &info) != 0)
            return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: %s: %s", png, folder,
                           strerror(errno));
        if (!S_ISDIR(info.st_mode))
            return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: %s is not a folder", png,
                           folder);
        if (access(folder, W_OK | X_OK) != 0)
            return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: %s: %s", png, folder,
                           strerror(errno));
        int exists = stat(png, &info) == 0;
        if (exists && S_ISDIR(info.st_mode))
            return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: it is a folder", png);
        /* A FIFO or a device is written as it is (output_file.h) and not
         * opened now: a probe would wait for a FIFO's reader, then close,
         * which ends the reader's input before the image is written. */
        if (exists && !S_ISREG(info.st_mode)) {
            if (access(png, W_OK) != 0)
                return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: %s", png,
                               strerror(errno));
            return DS_OK;
        }
        int probe = exists ? open(png, O_WRONLY) : open(png, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (probe < 0)
            return ds_fail(DS_ERR_IO, "%s: cannot write the screenshot: %s", png, strerror(errno));
        close(probe);
        if (!exists)
            unlink(png);
    }
    return DS_OK;
}

/* The runs of --sort (select_runs, with those it leaves out), or one
 * unsorted run; the count, or 0 (or less) after the error line. */
static int choose_runs(const ds_options *opts, ds_renderer *renderer, algo_run *runs,
                       skipped_run *skipped, int *skipped_count)
{
    if (!opts->no_sort)
        return select_runs(opts, renderer, runs, skipped, skipped_count);
    /* Nothing is sorted: one run, whatever --sort says. */
    if (opts->sort && strcmp(opts->sort, "all") == 0)
        ds_warn("--sort all: nothing is sorted with --no-sort; one unsorted run");
    runs[0] = (algo_run){.stages = ds_renderer_stages(renderer), .algo = ds_renderer_sort(renderer)};
    return 1;
}

/* Every run's frames, each run's stages and sort set first; *verified
 * counts the frames --verify checked. The timeline, if asked, records the
 * last run. */
static ds_status time_runs(ds_renderer *renderer, const ds_options *opts, const ds_mesh *mesh,
                           int verify, int timeline, ds_camera *camera, float start_yaw,
                           ds_progress *progress, algo_run *runs, int run_count, size_t *verified)
{
    ds_status status = DS_OK;
    int sorting = !opts->no_sort;
    float *scratch = malloc((size_t)opts->frames * sizeof *scratch);
    if (!scratch)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
    *verified = 0;
    for (int r = 0; r < run_count; r++) {
        runs[r].frames = calloc((size_t)opts->frames, sizeof *runs[r].frames);
        if (!runs[r].frames) {
            status = ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
            break;
        }
        /* Where the stages run, then (around the sorter) which sort. */
        if (sorting && (status = ds_renderer_set_stages(renderer, runs[r].stages)))
            break;
        if (sorting && runs[r].stages == DS_STAGES_SORTER &&
            (status = ds_renderer_set_sort(renderer, runs[r].algo)))
            break;
        if ((status = run_algo(renderer, opts, mesh, verify, timeline && r == run_count - 1,
                               camera, start_yaw, &runs[r], progress, r, run_count,
                               sorting ? ds_app_sort_name(runs[r].stages, runs[r].algo)
                                       : "unsorted")))
            break;
        summarise(&runs[r], scratch);
        *verified += verify ? (size_t)opts->frames : 0;
    }
    free(scratch);
    return status;
}

/* --screenshot: the last frame's view, drawn again at --supersample times
 * the size and averaged down, over black and white for --screenshot-alpha
 * (screenshot.h), or without either the last timed frame as it is; the
 * model, technique, sort, size, camera, version and commit in its text
 * chunks, and its name expanded from the template. */
static ds_status write_screenshot(const ds_options *opts, ds_renderer *renderer,
                                  const ds_camera *camera, const algo_run *runs, int run_count,
                                  const run_setup *setup)
{
    int scale = opts->supersample > 1 ? opts->supersample : 1;
    int alpha = opts->screenshot_alpha;
    size_t count = (size_t)opts->width * (size_t)opts->height;
    uint8_t *pixels = malloc(count * 4);
    ds_status status = DS_OK;
    if (!pixels)
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
    else if (scale == 1 && !alpha) {
        status = ds_renderer_read_pixels(renderer, pixels); /* the last timed frame */
        for (size_t i = 0; i < count; i++)
            pixels[4 * i + 3] = 255;
    } else {
        status = ds_screenshot_draw(renderer, camera, opts->width, opts->height, scale, alpha,
                                    pixels);
    }
    if (!status) {
        char date[32] = "unknown", name[4096], size[64];
        time_t now = time(NULL);
        struct tm utc;
        if (gmtime_r(&now, &utc))
            strftime(date, sizeof date, "%Y%m%d-%H%M%S", &utc);
        const char *sort = run_name(&runs[run_count - 1], setup);
        const char *technique = ds_technique_name(ds_renderer_technique(renderer));
        char model[512];
        ds_screenshot_model(opts->model_path, ds_app_scene_spec(opts), model, sizeof model);
        ds_screenshot_keys keys = {.model = model, .technique = technique,
                                   .sort = sort, .date = date, .frame = opts->frames};
        ds_screenshot_name(opts->screenshot_path, &keys, name, sizeof name, NULL, 0);
        snprintf(size, sizeof size, "%dx%d, supersample %d%s", opts->width, opts->height, scale,
                 alpha ? ", transparent" : "");
        const ds_screenshot_info info = {.model = setup->label, .technique = technique,
                                         .sort = sort, .size = size, .camera = setup->camera};
        status = ds_screenshot_write(name, opts->width, opts->height, pixels, &info);
        if (!status && strcmp(name, opts->screenshot_path) != 0)
            printf("screenshot: %s\n", name);
    }
    free(pixels);
    return status;
}

/* The run's files: --csv, --json (each closed here, and the caller's
 * pointer cleared), --plot, --timeline, and --screenshot's picture of the
 * last frame. */
static ds_status write_outputs(const ds_options *opts, ds_renderer *renderer,
                               const ds_camera *camera, const algo_run *runs, int run_count,
                               const run_setup *setup, FILE **csv, FILE **json, FILE **timeline)
{
    ds_status status = DS_OK;
    if (*csv) {
        status = write_csv(*csv, opts->csv_path, runs, run_count, setup);
        *csv = NULL; /* closed */
        if (status)
            return status;
    }
    if (*json) {
        status = write_json(*json, opts->json_path, runs, run_count, setup);
        *json = NULL;
        if (status)
            return status;
    }
    if (opts->plot_dir && (status = plot_frame_times(opts->plot_dir, runs, run_count, setup)))
        return status;
    if (*timeline) {
        status = write_timeline(*timeline, opts->timeline_path, renderer, setup,
                                run_name(&runs[run_count - 1], setup));
        *timeline = NULL; /* closed */
        if (status)
            return status;
    }
    if (opts->screenshot_path)
        status = write_screenshot(opts, renderer, camera, runs, run_count, setup);
    return status;
}

/* The output files opened (beside their targets, output_file.h) and
 * --plot's folder checked before any work; the viewer's options noted as
 * ignored. */
static ds_status prepare_outputs(const ds_options *opts, FILE **csv, FILE **json, FILE **timeline)
{
    ds_status status;
    if ((status = open_outputs(opts, csv, json, timeline)) ||
        (opts->plot_dir && (status = ds_plot_check_dir("--plot", opts->plot_dir))))
        return status;
    if (opts->script_path)
        ds_warn("--script %s: a script drives the viewer; --headless ignores it", opts->script_path);
    if (opts->overlay != DS_OVERLAY_START_AUTO)
        ds_warn("--overlay: the viewer's panel; --headless ignores it");
    if (opts->gl_window != DS_GL_WINDOW_AUTO)
        ds_warn("--gl-window: the viewer's window; --headless draws with EGL and ignores it");
    if (opts->screenshot_overlay)
        ds_warn("--screenshot-overlay: the viewer's panel; --headless ignores it");
    if ((opts->supersample > 1 || opts->screenshot_alpha) && !opts->screenshot_path)
        ds_warn("--supersample, --screenshot-alpha: shape --screenshot's picture; without it "
                "they do nothing");
    return DS_OK;
}

/* After the table, where the compute raster drew: its last frame's
 * fragments, buffers and pass times (and, for points, the coordinate rule). */
static void print_raster_stats(ds_renderer *renderer, const ds_options *opts, int points)
{
    ds_raster_stats raster;
    if (!ds_renderer_compute_raster(renderer) || ds_renderer_raster_info(renderer, &raster) != DS_OK)
        return;
    printf("compute raster, last frame: %zu fragments (%.3f a pixel), buffers for %zu (%.1f "
           "MiB), %u grows; passes (ms): count and plan %.4f, total read %.4f, emit %.4f, "
           "sort %.4f, by pixel %.4f, resolve %.4f; %u GL dispatches in %u dependent steps a "
           "frame%s",
           raster.fragments, (double)raster.fragments / ((double)opts->width * opts->height),
           raster.capacity, (double)raster.bytes / (1024.0 * 1024.0), raster.grow_count,
           (double)raster.pass_ms[0], (double)raster.pass_ms[1], (double)raster.pass_ms[2],
           (double)raster.pass_ms[3], (double)raster.pass_ms[4], (double)raster.pass_ms[5],
           raster.dispatches, raster.steps,
           raster.key_bits == 24   ? "; fragment keys on 24 bits"
           : raster.key_bits == 16 ? "; fragment keys on 16 bits"
                                   : "");
    /* Warm-up frames included: the GL sort's frames since the raster was made. */
    if (raster.sorted_frames)
        printf(" (narrowed in %lu of %lu frames)", raster.narrowed_frames, raster.sorted_frames);
    printf("\n");
    if (points)
        print_point_coord_rule(&raster);
}

/* The start view: the orbit's framing, or --camera / --camera-file
 * (checked before any GL work); its line for the outputs into camera_line. */
static ds_status start_camera(const ds_options *opts, const ds_mesh *mesh, ds_camera *camera,
                              char *camera_line, size_t capacity)
{
    camera->pitch = DS_HEADLESS_ORBIT_PITCH;
    ds_camera_frame(camera, mesh->center, mesh->radius, (float)opts->width / (float)opts->height);
    ds_status status = ds_app_start_camera_measured(opts, mesh, camera);
    if (status)
        return status;
    ds_camera_format(camera, camera_line, capacity);
    return DS_OK;
}

/* The outputs' names for the draw form, the sort key and the raster path. */
static const char *draw_name(ds_renderer *renderer, int points, int sorting)
{
    /* Unsorted frames draw indexed in either form (renderer.h). */
    return points                                                        ? "points"
           : sorting && ds_renderer_draw_form(renderer) == DS_DRAW_PULL ? "pull"
                                                                         : "indexed";
}

static const char *key_name(ds_triangle_key key, int points)
{
    static const char *const key_names[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
    return points ? "vertex" : (unsigned)key < DS_TRIANGLE_KEY_COUNT ? key_names[key] : "unknown";
}

static const char *raster_name(ds_renderer *renderer)
{
    return !ds_renderer_compute_raster(renderer)                           ? "hw"
           : ds_renderer_technique(renderer) == DS_TECHNIQUE_COMPUTE_EXACT ? "compute-exact"
                                                                           : "compute";
}

int ds_headless_run(const ds_options *opts)
{
    ds_status status = DS_OK;
    ds_mesh mesh = {0};
    ds_egl_context *context = NULL;
    ds_renderer *renderer = NULL;
    algo_run runs[MAX_RUNS];
    skipped_run skipped[MAX_RUNS];
    ds_progress progress = {0};
    int skipped_count = 0;
    char cpu[320], os[320], command[2048];
    FILE *csv = NULL, *json = NULL, *timeline = NULL;
    int run_count = 0, exit_code = 1;
    char label[256], timestamp[32], camera_line[DS_CAMERA_LINE_MAX], driver[160];
    memset(runs, 0, sizeof runs);

    if (opts->frames <= 0 || opts->width <= 0 || opts->height <= 0) {
        ds_fail(DS_ERR_INVALID_ARG, "headless: need --frames > 0 and a positive --size");
        return 2;
    }
    if ((status = prepare_outputs(opts, &csv, &json, &timeline)))
        goto done;
    ds_app_timestamp(timestamp, sizeof timestamp);

    if ((status = ds_app_load_mesh(opts, &progress, &mesh)))
        goto done;
    ds_app_input_label(opts, label, sizeof label);
    ds_camera camera = {0};
    if ((status = start_camera(opts, &mesh, &camera, camera_line, sizeof camera_line)))
        goto done;
    float start_yaw = camera.yaw;

    if ((status = ds_egl_context_create(0, &context)))
        goto done;
    const GLubyte *gl_version = glGetString(GL_VERSION);
    snprintf(driver, sizeof driver, "%s", gl_version ? (const char *)gl_version : "unknown");

    ds_renderer_desc desc;
    if ((status = ds_app_renderer_desc(opts, &mesh, &desc)))
        goto done;
    /* The compute raster's pass times, reported after the table. */
    desc.raster_time_passes = 1;
    if ((status = ds_renderer_create(&desc, &renderer)))
        goto done;
    /* Before --sort all's probe names the stages. */
    char default_sort[256];
    ds_app_describe_default_sort(opts, renderer, default_sort, sizeof default_sort);
    int sorting = !opts->no_sort;
    run_count = choose_runs(opts, renderer, runs, skipped, &skipped_count);
    if (run_count <= 0) {
        if (run_count == 0)
            ds_fail(DS_ERR_INVALID_ARG, "headless: no sort runs on this path");
        status = DS_ERR_INVALID_ARG;
        run_count = 0;
        goto done;
    }
    int verify = opts->verify && sorting;
    if (opts->verify && !sorting)
        ds_warn("--verify: nothing is sorted with --no-sort; no order to check");
    ds_app_warn_ignored(opts, &mesh, renderer);
    size_t elements = ds_renderer_sorted_count(renderer);
    int points = ds_renderer_primitive(renderer) == DS_PRIMITIVE_POINTS;
    const char *primitive = points ? "points" : "triangles";
    const char *interop = ds_interop_mode_name(ds_renderer_interop(renderer));
    fprintf(stderr, "depthsort: headless on %s (EGL %s, interop %s), %s: %zu %s to %s%s%s\n",
            ds_renderer_gpu_name(renderer), ds_egl_context_platform(context), interop, label,
            elements, primitive, sorting ? "sort" : "draw unsorted", *default_sort ? "; " : "",
            default_sort);
    ds_app_note_missing_sorts();

    size_t verified = 0;
    if ((status = time_runs(renderer, opts, &mesh, verify, timeline != NULL, &camera, start_yaw,
                            &progress, runs, run_count, &verified)))
        goto done;
    ds_app_host_info(cpu, sizeof cpu, os, sizeof os);
    ds_app_command_line(opts, command, sizeof command);
    const run_setup setup = {
        .gpu = ds_renderer_gpu_name(renderer), .driver = driver, .label = label,
        .timestamp = timestamp, .camera = camera_line, .cpu = cpu, .os = os, .command = command,
        .skipped = skipped, .skipped_count = skipped_count, .mesh = &mesh, .elements = elements,
        .primitive = primitive, .interop = interop,
        .draw = draw_name(renderer, points, sorting), .key = key_name(opts->triangle_key, points),
        .color = ds_color_mode_name(ds_renderer_color_mode(renderer)),
        .opacity = ds_opacity_mode_name(ds_renderer_opacity_mode(renderer)),
        .up = ds_up_axis_name(opts->up), .sorting = sorting, .shuffle = sorting && opts->shuffle,
        .key_bits = opts->key_bits ? opts->key_bits : 32, .cull = ds_renderer_culling(renderer),
        .tiles = sorting && ds_renderer_tiles(renderer), .msaa = ds_renderer_msaa(renderer),
        .raster = raster_name(renderer), .alpha = opts->alpha, .point_size = points ? ds_renderer_point_size(renderer) : 0.0f,
        .width = opts->width, .height = opts->height};
    ds_progress_finish(&progress);
    print_table(runs, run_count, &setup);
    if (verify)
        printf("verify: %zu frames OK\n", verified);
    print_raster_stats(renderer, opts, points);
    if ((status = write_outputs(opts, renderer, &camera, runs, run_count, &setup, &csv, &json,
                                &timeline)))
        goto done;
    if (ds_renderer_gl_errors(renderer)) {
        status = ds_fail(DS_ERR_GL, "headless: %u GL errors during the run",
                         ds_renderer_gl_errors(renderer));
        goto done;
    }
    exit_code = 0;
done:
    ds_progress_finish(&progress);
    if (status == DS_ERR_INVALID_ARG && exit_code)
        exit_code = 2;
    /* A failed run leaves existing outputs as they were. */
    ds_output_discard(csv, opts->csv_path);
    ds_output_discard(json, opts->json_path);
    ds_output_discard(timeline, opts->timeline_path);
    for (int r = 0; r < MAX_RUNS; r++)
        free(runs[r].frames);
    ds_renderer_destroy(renderer);
    ds_egl_context_destroy(context);
    ds_mesh_free(&mesh);
    return exit_code;
}
