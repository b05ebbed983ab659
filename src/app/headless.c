/* headless.c — the headless frame-timing runner: an EGL context without a
 * window, a scripted camera orbit of opts->frames frames per selected sort,
 * per-frame stage timings from the renderer, a table per algorithm (median,
 * p95, min) on stdout, and optional CSV, JSON, a screenshot and a per-frame
 * order check against the CPU reference. Holds no algorithm: the renderer
 * does the work. */
#include "headless.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "clock.h"
#include "egl_context.h"
#include "image_write.h"
#include "mesh.h"
#include "renderer.h"
#include "setup.h"

/* Frames rendered, untimed, after each switch of sort: first-use costs
 * (lazy allocations in drivers, cold caches) stay out of the statistics. */
#define WARMUP_FRAMES 5
/* The orbit looks down on the model from this pitch (radians). */
#define ORBIT_PITCH 0.35f

enum { STAGE_DISTANCES, STAGE_KEYS, STAGE_SHUFFLE, STAGE_SORT, STAGE_SCATTER,
       STAGE_INTEROP, STAGE_DRAW, STAGE_FRAME, STAGE_COUNT };
static const char *const stage_names[STAGE_COUNT] = {
    "distances", "keys", "shuffle", "sort", "scatter", "interop", "draw", "frame"};

/* The built-in git commit (cmake/embed.cmake), "unknown" outside git. */
extern const char ds_build_commit[];

typedef struct algo_run {
    ds_sort_algo algo;
    ds_frame_timings *frames; /* opts->frames entries */
    size_t frame_count;
    double wall_ms;           /* host time for the timed frames, finished */
    float median[STAGE_COUNT], p95[STAGE_COUNT], min[STAGE_COUNT];
    float drawn_median;       /* triangles (points) drawn per frame */
} algo_run;

static float stage_of(const ds_frame_timings *t, int stage)
{
    const float values[STAGE_COUNT] = {t->distances_ms, t->keys_ms, t->shuffle_ms,
                                       t->sort_ms, t->scatter_ms, t->interop_ms,
                                       t->draw_ms, t->frame_ms};
    return values[stage];
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median, 95th percentile (nearest rank) and minimum of every stage. The
 * first frame has no previous frame, so its frame time is left out. */
static void summarise(algo_run *run, float *scratch)
{
    for (size_t i = 0; i < run->frame_count; i++)
        scratch[i] = (float)run->frames[i].drawn;
    qsort(scratch, run->frame_count, sizeof *scratch, compare_floats);
    run->drawn_median = run->frame_count ? scratch[run->frame_count / 2] : 0.0f;
    for (int s = 0; s < STAGE_COUNT; s++) {
        size_t n = 0;
        for (size_t i = 0; i < run->frame_count; i++)
            if (s != STAGE_FRAME || run->frames[i].frame_ms > 0.0f)
                scratch[n++] = stage_of(&run->frames[i], s);
        if (n == 0) {
            run->median[s] = run->p95[s] = run->min[s] = 0.0f;
            continue;
        }
        qsort(scratch, n, sizeof *scratch, compare_floats);
        run->median[s] = n % 2 ? scratch[n / 2] : 0.5f * (scratch[n / 2 - 1] + scratch[n / 2]);
        size_t rank = (size_t)ceil(0.95 * (double)n);
        run->p95[s] = scratch[rank ? rank - 1 : 0];
        run->min[s] = scratch[0];
    }
}

/* The sorts to time: one by name, or with "all" every algorithm that
 * runs where the renderer runs (GPU sorts on the CUDA path, cpu otherwise). */
static int select_algos(const char *name, int cpu_path, ds_sort_algo *dest)
{
    int count = 0;
    if (name && strcmp(name, "all") == 0) {
        for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
            if (ds_sort_algo_on_host((ds_sort_algo)a) == cpu_path)
                dest[count++] = (ds_sort_algo)a;
        return count;
    }
    ds_sort_algo algo = ds_sort_algo_from_name(name ? name : "cub");
    if (algo == DS_SORT_ALGO_COUNT) {
        ds_fail(DS_ERR_INVALID_ARG, "headless: unknown sort '%s'", name);
        return -1;
    }
    dest[0] = cpu_path ? DS_SORT_CPU : algo;
    return 1;
}

static void camera_at(ds_camera *camera, float start_yaw, float orbit_degrees,
                      int frame, int frames)
{
    camera->yaw = start_yaw + orbit_degrees * ((float)M_PI / 180.0f) *
                                  (float)frame / (float)(frames > 0 ? frames : 1);
}

/* Renders WARMUP_FRAMES, then opts->frames timed frames (checked when
 * --verify), collecting every frame's timings. */
static ds_status run_algo(ds_renderer *renderer, const ds_options *opts,
                          ds_camera *camera, float start_yaw, algo_run *run)
{
    ds_status status;
    ds_frame_timings t;
    int frames = opts->frames;
    for (int i = 0; i < WARMUP_FRAMES; i++) {
        camera_at(camera, start_yaw, opts->orbit_degrees, i, frames);
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
        camera_at(camera, start_yaw, opts->orbit_degrees, i, frames);
        if ((status = ds_renderer_frame(renderer, camera, DS_RENDERER_OWN_FRAMEBUFFER)))
            return status;
        if (opts->verify && (status = ds_renderer_verify(renderer)))
            return status;
        while (run->frame_count < (size_t)frames && ds_renderer_next_timings(renderer, &t))
            run->frames[run->frame_count++] = t;
    }
    if ((status = ds_renderer_finish(renderer)))
        return status;
    run->wall_ms = ds_now_ms() - start;
    while (run->frame_count < (size_t)frames && ds_renderer_next_timings(renderer, &t))
        run->frames[run->frame_count++] = t;
    return DS_OK;
}

/* What the table, the CSV and the JSON say about the run besides its
 * timings. */
typedef struct run_setup {
    const char *gpu;
    const char *label;     /* the model file or scene */
    const ds_mesh *mesh;
    size_t sorted;         /* triangles or points sorted per frame */
    const char *primitive; /* "triangles" or "points" */
    const char *interop;
    const char *draw;      /* "indexed", "pull" or "points" */
    int tiles;             /* the primitive was binned by screen tile */
    const ds_options *opts;
} run_setup;

static void print_table(const algo_run *runs, int run_count, const run_setup *setup)
{
    const ds_options *opts = setup->opts;
    size_t sorted = setup->sorted;
    printf("\ndepthsort headless: %s, %s, %zu vertices, %zu triangles, %zu sorted, %dx%d, "
           "interop %s, key bits %d, draw %s, cull %s, tiles %s, commit %s\n",
           setup->gpu, setup->label, setup->mesh->vertex_count, setup->mesh->triangle_count,
           sorted, opts->width, opts->height, setup->interop, opts->key_bits ? opts->key_bits : 32,
           setup->draw, opts->cull == DS_CULL_OFF ? "off" : "on", setup->tiles ? "on" : "off",
           ds_build_commit);
    for (int r = 0; r < run_count; r++) {
        const algo_run *run = &runs[r];
        printf("\nsort %s%s: %zu frames, %.1f fps wall, %.1f fps GPU (median frame), "
               "%.0f of %zu drawn (median)\n",
               ds_sort_algo_name(run->algo), opts->shuffle ? " + shuffle" : "",
               run->frame_count,
               run->wall_ms > 0.0 ? 1000.0 * (double)run->frame_count / run->wall_ms : 0.0,
               run->median[STAGE_FRAME] > 0.0f ? 1000.0 / run->median[STAGE_FRAME] : 0.0,
               (double)run->drawn_median, sorted);
        printf("  %-10s %10s %10s %10s\n", "stage (ms)", "median", "p95", "min");
        for (int s = 0; s < STAGE_COUNT; s++)
            printf("  %-10s %10.4f %10.4f %10.4f\n", stage_names[s], run->median[s],
                   run->p95[s], run->min[s]);
        float pipeline = run->median[STAGE_DISTANCES] + run->median[STAGE_KEYS] +
                         run->median[STAGE_SHUFFLE] + run->median[STAGE_SORT] +
                         run->median[STAGE_SCATTER];
        printf("  %-10s %10.4f   (distances + keys + shuffle + sort + scatter)\n",
               "sum", pipeline);
    }
}


/* Closes a file written with stdio: a failed write anywhere (a full disk)
 * or a failed close is an error naming the file. */
static ds_status close_written(FILE *file, const char *path)
{
    int failed = ferror(file);
    if (fclose(file) != 0 || failed)
        return ds_fail(DS_ERR_IO, "%s: write failed", path);
    return DS_OK;
}

static ds_status write_csv(const char *path, const algo_run *runs, int run_count,
                           const run_setup *setup)
{
    const ds_options *opts = setup->opts;
    FILE *file = fopen(path, "w");
    if (!file)
        return ds_fail(DS_ERR_IO, "%s: cannot open for writing", path);
    fprintf(file, "gpu,model,vertices,triangles,sorted,primitive,width,height,commit,"
                  "interop,sort,shuffle,frame,drawn");
    for (int s = 0; s < STAGE_COUNT; s++)
        fprintf(file, ",%s_ms", stage_names[s]);
    fprintf(file, "\n");
    for (int r = 0; r < run_count; r++)
        for (size_t i = 0; i < runs[r].frame_count; i++) {
            const ds_frame_timings *t = &runs[r].frames[i];
            fprintf(file, "\"%s\",\"%s\",%zu,%zu,%zu,%s,%d,%d,%s,%s,%s,%d,%llu,%u",
                    setup->gpu, setup->label, setup->mesh->vertex_count,
                    setup->mesh->triangle_count, setup->sorted, setup->primitive,
                    opts->width, opts->height, ds_build_commit, setup->interop,
                    ds_sort_algo_name(runs[r].algo), opts->shuffle ? 1 : 0,
                    (unsigned long long)i, (unsigned)t->drawn);
            for (int s = 0; s < STAGE_COUNT; s++)
                fprintf(file, ",%.5f", stage_of(t, s));
            fprintf(file, "\n");
        }
    return close_written(file, path);
}

static ds_status write_json(const char *path, const algo_run *runs, int run_count,
                            const run_setup *setup)
{
    const ds_options *opts = setup->opts;
    FILE *file = fopen(path, "w");
    if (!file)
        return ds_fail(DS_ERR_IO, "%s: cannot open for writing", path);
    fprintf(file,
            "{\n  \"gpu\": \"%s\",\n  \"model\": \"%s\",\n  \"vertices\": %zu,\n"
            "  \"triangles\": %zu,\n  \"sorted\": %zu,\n  \"primitive\": \"%s\",\n"
            "  \"width\": %d,\n  \"height\": %d,\n  \"commit\": \"%s\",\n"
            "  \"interop\": \"%s\",\n  \"shuffle\": %s,\n  \"draw\": \"%s\",\n"
            "  \"cull\": %s,\n  \"tiles\": %s,\n  \"key_bits\": %d,\n  \"runs\": [\n",
            setup->gpu, setup->label, setup->mesh->vertex_count, setup->mesh->triangle_count,
            setup->sorted, setup->primitive, opts->width, opts->height, ds_build_commit,
            setup->interop, opts->shuffle ? "true" : "false", setup->draw,
            opts->cull == DS_CULL_OFF ? "false" : "true", setup->tiles ? "true" : "false",
            opts->key_bits ? opts->key_bits : 32);
    for (int r = 0; r < run_count; r++) {
        const algo_run *run = &runs[r];
        fprintf(file, "    {\"sort\": \"%s\", \"frames\": %zu, \"wall_fps\": %.2f, "
                      "\"drawn_median\": %.0f",
                ds_sort_algo_name(run->algo), run->frame_count,
                run->wall_ms > 0.0 ? 1000.0 * (double)run->frame_count / run->wall_ms : 0.0,
                (double)run->drawn_median);
        for (int s = 0; s < STAGE_COUNT; s++)
            fprintf(file, ",\n     \"%s_ms\": {\"median\": %.5f, \"p95\": %.5f, \"min\": %.5f}",
                    stage_names[s], run->median[s], run->p95[s], run->min[s]);
        fprintf(file, "}%s\n", r + 1 < run_count ? "," : "");
    }
    fprintf(file, "  ]\n}\n");
    return close_written(file, path);
}

int ds_headless_run(const ds_options *opts)
{
    ds_status status = DS_OK;
    ds_mesh mesh = {0};
    ds_egl_context *context = NULL;
    ds_renderer *renderer = NULL;
    algo_run runs[DS_SORT_ALGO_COUNT];
    ds_sort_algo algos[DS_SORT_ALGO_COUNT];
    float *scratch = NULL;
    uint8_t *pixels = NULL;
    int run_count = 0, exit_code = 1;
    char label[256];
    memset(runs, 0, sizeof runs);

    if (opts->frames <= 0 || opts->width <= 0 || opts->height <= 0) {
        ds_fail(DS_ERR_INVALID_ARG, "headless: need --frames > 0 and a positive --size");
        return 2;
    }
    if ((status = ds_app_build_mesh(opts, &mesh)))
        goto done;
    if (opts->model_path) {
        const char *base = strrchr(opts->model_path, '/');
        snprintf(label, sizeof label, "%s", base ? base + 1 : opts->model_path);
    } else {
        snprintf(label, sizeof label, "scene:%s", ds_app_scene_spec(opts));
    }
    if ((status = ds_egl_context_create(0, &context)))
        goto done;

    ds_renderer_desc desc;
    if ((status = ds_app_renderer_desc(opts, &mesh, &desc)))
        goto done;
    desc.background[0] = desc.background[1] = desc.background[2] = 0.08f;
    desc.background[3] = 1.0f;
    if ((status = ds_renderer_create(&desc, &renderer)))
        goto done;
    int cpu_path = ds_renderer_interop(renderer) == DS_INTEROP_NONE;
    run_count = select_algos(opts->sort, cpu_path, algos);
    if (run_count <= 0) {
        if (run_count == 0)
            ds_fail(DS_ERR_INVALID_ARG, "headless: no sort runs on this path");
        status = DS_ERR_INVALID_ARG;
        run_count = 0;
        goto done;
    }
    size_t sorted = ds_renderer_sorted_count(renderer);
    const char *interop = ds_interop_mode_name(ds_renderer_interop(renderer));
    const char *primitive = ds_renderer_primitive(renderer) == DS_PRIMITIVE_POINTS ? "points" : "triangles";
    fprintf(stderr, "depthsort: headless on %s (EGL %s, interop %s), %s: %zu %s to sort\n",
            ds_renderer_gpu_name(renderer), ds_egl_context_platform(context), interop,
            label, sorted, primitive);

    ds_camera camera = {0};
    camera.pitch = ORBIT_PITCH;
    ds_camera_frame(&camera, mesh.center, mesh.radius, (float)opts->width / (float)opts->height);
    float start_yaw = camera.yaw;
    scratch = malloc((size_t)opts->frames * sizeof *scratch);
    if (!scratch) {
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
        goto done;
    }
    for (int r = 0; r < run_count; r++) {
        runs[r].algo = algos[r];
        runs[r].frames = calloc((size_t)opts->frames, sizeof *runs[r].frames);
        if (!runs[r].frames) {
            status = ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
            goto done;
        }
        if ((status = ds_renderer_set_sort(renderer, algos[r])))
            goto done;
        if ((status = run_algo(renderer, opts, &camera, start_yaw, &runs[r])))
            goto done;
        summarise(&runs[r], scratch);
    }
    const char *draw = ds_renderer_primitive(renderer) == DS_PRIMITIVE_POINTS ? "points"
                       : ds_renderer_draw_form(renderer) == DS_DRAW_PULL   ? "pull"
                                                                           : "indexed";
    const run_setup setup = {.gpu = ds_renderer_gpu_name(renderer), .label = label, .mesh = &mesh,
                             .sorted = sorted, .primitive = primitive, .interop = interop,
                             .draw = draw, .tiles = ds_renderer_tiles(renderer), .opts = opts};
    print_table(runs, run_count, &setup);
    if (opts->csv_path && (status = write_csv(opts->csv_path, runs, run_count, &setup)))
        goto done;
    if (opts->json_path && (status = write_json(opts->json_path, runs, run_count, &setup)))
        goto done;
    if (opts->screenshot_path) {
        pixels = malloc((size_t)opts->width * (size_t)opts->height * 4);
        if (!pixels) {
            status = ds_fail(DS_ERR_OUT_OF_MEMORY, "headless: out of host memory");
            goto done;
        }
        if ((status = ds_renderer_read_pixels(renderer, pixels)) ||
            (status = ds_write_png(opts->screenshot_path, opts->width, opts->height, pixels)))
            goto done;
    }
    if (ds_renderer_gl_errors(renderer)) {
        status = ds_fail(DS_ERR_GL, "headless: %u GL errors during the run",
                         ds_renderer_gl_errors(renderer));
        goto done;
    }
    exit_code = 0;
done:
    if (status == DS_ERR_INVALID_ARG && exit_code)
        exit_code = 2;
    for (int r = 0; r < DS_SORT_ALGO_COUNT; r++)
        free(runs[r].frames);
    free(scratch);
    free(pixels);
    ds_renderer_destroy(renderer);
    ds_egl_context_destroy(context);
    ds_mesh_free(&mesh);
    return exit_code;
}
