/* SPDX-License-Identifier: MIT */
/* setup.c — the options turned into a mesh, a renderer description and a
 * starting camera, for --info (main.c), the headless runner and the viewer
 * alike; and the one warning per option that a run ignores. */
#include "setup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "host_memory.h"
#include "progress.h"
#include "interop.h"
#include "load.h"
#include "scene.h"

const char *ds_app_scene_spec(const ds_options *opts)
{
    if (opts->model_path)
        return NULL;
    return opts->scene ? opts->scene : DS_SCENE_DEFAULT;
}

/* What error lines call the input: the model file or the scene. */
static const char *input_name(const ds_options *opts)
{
    return opts->model_path ? opts->model_path : ds_app_scene_spec(opts);
}

/* Whether the renderer will take its CPU path, asked before any GL
 * context exists: no CUDA device, or --interop none. */
static int cpu_path(const ds_options *opts)
{
    return opts->interop == DS_INTEROP_NONE || !ds_interop_cuda_available();
}

/* Refuses a --grid whose counts exceed what the mesh holds (uint32 indices,
 * DS_MESH_MAX_ELEMENTS) or, unless only --info is asked for, what the
 * renderer and the chosen sort can take (ds_renderer_check_fits()): from
 * the single copy's counts, before the grid allocates anything. A --grid
 * that makes too much is a usage error (DS_ERR_INVALID_ARG, exit 2). */
static ds_status check_grid_fits(const ds_options *opts, const ds_mesh *single, int nx, int ny)
{
    size_t cells = (size_t)nx * (size_t)ny;
    size_t nv = single->vertex_count, nt = single->triangle_count;
    if ((nv && cells > DS_MESH_MAX_ELEMENTS / nv) || (nt && cells > DS_MESH_MAX_ELEMENTS / nt))
        return ds_fail(DS_ERR_INVALID_ARG,
                       "%s: --grid %dx%d makes %.0f vertices and %.0f triangles; a mesh holds at "
                       "most %u of each (uint32 indices)",
                       input_name(opts), nx, ny, (double)cells * (double)nv,
                       (double)cells * (double)nt, DS_MESH_MAX_ELEMENTS);
    if (opts->info)
        return DS_OK; /* --info draws nothing */
    ds_renderer_desc desc;
    ds_status status = ds_app_renderer_desc(opts, single, &desc);
    if (status == DS_OK)
        status = ds_renderer_check_fits(&desc, cells * nv, cells * nt);
    if (status == DS_ERR_TOO_LARGE && cells > 1)
        status = DS_ERR_INVALID_ARG; /* the line names the counts --grid made */
    return status;
}

typedef struct load_plan {
    const ds_options *opts;
    int nx, ny;
    int gpu_asked, gpu_found; /* gpu_memory() asks once per load */
    uint64_t gpu_free;
    char gpu_name[256];
} load_plan;

/* The free memory and name of the CUDA device the run will draw on, asked
 * before any GL context exists (interop.h; a build without CUDA has none).
 * DS_TEST_GPU_FREE_BYTES stands in for the device's answer, so that the
 * refusal below is tested on machines without a GPU. */
static int gpu_memory(load_plan *plan)
{
    if (plan->gpu_asked)
        return plan->gpu_found;
    plan->gpu_asked = 1;
    const char *fake = getenv("DS_TEST_GPU_FREE_BYTES");
    if (fake && *fake) {
        plan->gpu_free = strtoull(fake, NULL, 10);
        snprintf(plan->gpu_name, sizeof plan->gpu_name, "test GPU (DS_TEST_GPU_FREE_BYTES)");
        plan->gpu_found = 1;
    } else {
        plan->gpu_found =
            ds_interop_cuda_memory(&plan->gpu_free, plan->gpu_name, sizeof plan->gpu_name);
    }
    return plan->gpu_found;
}

/* The GPU path's check in check_load(): the renderer's device buffers
 * (ds_renderer_buffer_bytes) for the grid's counts against the device's
 * free memory, as ds_renderer_check_fits() does once GL exists, but
 * before the body is read. */
static ds_status check_gpu_memory(load_plan *plan, const char *name, uint64_t vertices,
                                  uint64_t triangles, uint64_t cells)
{
    const ds_options *opts = plan->opts;
    if (opts->info || opts->interop == DS_INTEROP_NONE || !gpu_memory(plan))
        return DS_OK;
    ds_mesh shape = {.vertex_count = (size_t)vertices, .triangle_count = (size_t)triangles};
    ds_renderer_desc desc;
    ds_status status = ds_app_renderer_desc(opts, &shape, &desc);
    if (status != DS_OK)
        return status;
    uint64_t one = ds_renderer_buffer_bytes(&desc, (size_t)vertices, (size_t)triangles);
    uint64_t all = ds_renderer_buffer_bytes(&desc, (size_t)(cells * vertices),
                                            (size_t)(cells * triangles));
    if (all <= plan->gpu_free)
        return DS_OK;
    char need[32], have[32], single[32];
    ds_format_bytes(all, need, sizeof need);
    ds_format_bytes(plan->gpu_free, have, sizeof have);
    ds_format_bytes(one, single, sizeof single);
    const char *sort = ds_app_sort_name(opts->stages, desc.sort_algo);
    if (cells > 1 && one <= plan->gpu_free)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "%s: --grid %dx%d: %llu copies of %llu vertices and %llu triangles need about "
                       "%s of GPU memory with the %s sort; the %s has %s free (one copy needs %s)",
                       name, plan->nx, plan->ny, (unsigned long long)cells,
                       (unsigned long long)vertices, (unsigned long long)triangles, need, sort,
                       plan->gpu_name, have, single);
    return ds_fail(DS_ERR_TOO_LARGE,
                   "%s: %llu vertices and %llu triangles need about %s of GPU memory with the %s "
                   "sort; the %s has %s free",
                   name, (unsigned long long)vertices, (unsigned long long)triangles, single, sort,
                   plan->gpu_name, have);
}

/* The loader's budget check (ds_load_budget.check), on the header's counts
 * before the body is parsed: the grid's counts against the mesh's limits,
 * the host memory of the mesh, its grid copies and, on the CPU path, the
 * renderer's buffers against what is available, and on the GPU path the
 * renderer's device buffers against the GPU's free memory. */
static ds_status check_load(void *context, const char *name, uint64_t vertices,
                            uint64_t triangles, uint64_t mesh_bytes)
{
    load_plan *plan = context;
    const ds_options *opts = plan->opts;
    uint64_t cells = (uint64_t)plan->nx * (uint64_t)plan->ny;
    if ((vertices && cells > DS_MESH_MAX_ELEMENTS / vertices) ||
        (triangles && cells > DS_MESH_MAX_ELEMENTS / triangles))
        return ds_fail(DS_ERR_INVALID_ARG,
                       "%s: --grid %dx%d makes %.0f vertices and %.0f triangles; a mesh holds at "
                       "most %u of each (uint32 indices)",
                       name, plan->nx, plan->ny, (double)cells * (double)vertices,
                       (double)cells * (double)triangles, DS_MESH_MAX_ELEMENTS);
    uint64_t one = mesh_bytes, all = mesh_bytes + (cells > 1 ? cells * mesh_bytes : 0);
    if (!opts->info && cpu_path(opts)) {
        ds_mesh shape = {.vertex_count = (size_t)vertices, .triangle_count = (size_t)triangles};
        ds_renderer_desc desc;
        ds_status status = ds_app_renderer_desc(opts, &shape, &desc);
        if (status != DS_OK)
            return status;
        one += ds_renderer_host_bytes(&desc, (size_t)vertices, (size_t)triangles);
        all += ds_renderer_host_bytes(&desc, (size_t)(cells * vertices), (size_t)(cells * triangles));
    }
    uint64_t available = ds_host_memory_available();
    if (!available || all <= available)
        return check_gpu_memory(plan, name, vertices, triangles, cells);
    char need[32], have[32], single[32];
    ds_format_bytes(all, need, sizeof need);
    ds_format_bytes(available, have, sizeof have);
    ds_format_bytes(one, single, sizeof single);
    const char *what = opts->info ? "" : cpu_path(opts) ? " with the renderer's buffers" : "";
    if (cells > 1 && one <= available)
        return ds_fail(DS_ERR_INVALID_ARG,
                       "%s: --grid %dx%d: %llu copies of %llu vertices and %llu triangles need about "
                       "%s of host memory%s; %s is available (one copy needs %s)",
                       name, plan->nx, plan->ny, (unsigned long long)cells,
                       (unsigned long long)vertices, (unsigned long long)triangles, need, what, have,
                       single);
    return ds_fail(DS_ERR_TOO_LARGE,
                   "%s: %llu vertices and %llu triangles need about %s of host memory%s; %s is "
                   "available",
                   name, (unsigned long long)vertices, (unsigned long long)triangles, single, what,
                   have);
}

/* Brings coordinates that the camera's float arithmetic cannot hold into
 * range (ds_mesh_fit_range), saying so in one line. --info reports the
 * file's own coordinates and draws nothing, so it is left alone. */
static void fit_range(const ds_options *opts, ds_mesh *mesh)
{
    float old_min[3], old_max[3];
    memcpy(old_min, mesh->bounds_min, sizeof old_min);
    memcpy(old_max, mesh->bounds_max, sizeof old_max);
    double offset[3], scale;
    if (opts->info || !ds_mesh_fit_range(mesh, offset, &scale))
        return;
    ds_warn("%s: bounds %.3g,%.3g,%.3g to %.3g,%.3g,%.3g are beyond what the camera's float "
            "arithmetic holds (a radius of %g to %g, a centre within %g radii and %g of the "
            "origin); drawn moved by %.3g,%.3g,%.3g and scaled by %.3g",
            input_name(opts), (double)old_min[0], (double)old_min[1], (double)old_min[2],
            (double)old_max[0], (double)old_max[1], (double)old_max[2], DS_MESH_MIN_RADIUS,
            DS_MESH_MAX_RADIUS, DS_MESH_MAX_CENTER_RADII, DS_MESH_MAX_RADIUS, -offset[0],
            -offset[1], -offset[2], scale);
}

ds_status ds_app_build_mesh(const ds_options *opts, ds_mesh *dest)
{
    ds_mesh single = {0};
    ds_status status;
    memset(dest, 0, sizeof *dest);
    int nx = opts->grid_x > 0 ? opts->grid_x : 1, ny = opts->grid_y > 0 ? opts->grid_y : 1;
    if (opts->model_path) {
        load_plan plan = {.opts = opts, .nx = nx, .ny = ny};
        ds_load_budget budget = {.check = check_load, .context = &plan};
        status = ds_load_mesh_budget(opts->model_path, &budget, &single);
    } else {
        char name[64];
        size_t triangles = 0;
        status = ds_scene_parse(ds_app_scene_spec(opts), name, sizeof name, &triangles);
        if (status == DS_OK)
            status = ds_scene_build(name, triangles, &single);
    }
    if (status != DS_OK)
        return status;
    /* Upright first: the grid lays its copies out in the XZ plane of the
     * turned model. */
    ds_mesh_set_up(&single, opts->up);
    fit_range(opts, &single);
    if ((status = check_grid_fits(opts, &single, nx, ny))) {
        ds_mesh_free(&single);
        return status;
    }
    if (nx == 1 && ny == 1) {
        *dest = single;
        return DS_OK;
    }
    status = ds_mesh_grid(&single, nx, ny, dest);
    ds_mesh_free(&single);
    if (status == DS_OK)
        fit_range(opts, dest); /* the copies span nx by ny of it */
    return status;
}

const char *ds_app_sort_name(ds_stages_mode stages, ds_sort_algo algo)
{
    return stages == DS_STAGES_GL ? DS_SORT_GL_NAME : ds_sort_algo_name(algo);
}

ds_sort_algo ds_app_first_sort(const char *sort)
{
    if (sort && strcmp(sort, "all") != 0 && strcmp(sort, DS_SORT_GL_NAME) != 0) {
        ds_sort_algo algo = ds_sort_algo_from_name(sort);
        /* A sort this build lacks: the host sort (ds_app_renderer_desc()
         * says so when --sort named it). */
        return algo == DS_SORT_ALGO_COUNT || ds_sort_algo_built(algo) ? algo : DS_SORT_CPU;
    }
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++)
        if (ds_sort_algo_built((ds_sort_algo)a) && !ds_sort_algo_on_host((ds_sort_algo)a))
            return (ds_sort_algo)a;
    return DS_SORT_CPU; /* a build without CUDA */
}

void ds_app_describe_default_sort(const ds_options *opts, const ds_renderer *renderer,
                                  char *dest, size_t capacity)
{
    const char *why = ds_renderer_stages_why(renderer);
    int named = opts->stages != DS_STAGES_AUTO || (opts->sort && !strcmp(opts->sort, "all"));
    if (named || opts->no_sort || !*why)
        snprintf(dest, capacity, "%s", "");
    else
        snprintf(dest, capacity, "sort %s (%s)",
                 ds_app_sort_name(ds_renderer_stages(renderer), ds_renderer_sort(renderer)), why);
}

void ds_app_note_missing_sorts(void)
{
    char missing[256];
    if (ds_app_missing_sorts(missing, sizeof missing))
        fprintf(stderr, "depthsort: this build has no CUDA (configured without the toolkit): "
                "the gl and cpu sorts run; %s are not in it\n", missing);
}

int ds_app_missing_sorts(char *dest, size_t capacity)
{
    int missing = 0;
    size_t used = 0;
    if (capacity)
        dest[0] = '\0';
    for (int a = 0; a < DS_SORT_ALGO_COUNT; a++) {
        if (ds_sort_algo_built((ds_sort_algo)a))
            continue;
        int n = snprintf(dest + used, capacity > used ? capacity - used : 0, "%s%s",
                         missing ? ", " : "", ds_sort_algo_name((ds_sort_algo)a));
        if (n > 0 && used + (size_t)n < capacity)
            used += (size_t)n;
        missing++;
    }
    return missing;
}

ds_status ds_app_renderer_desc(const ds_options *opts, const ds_mesh *mesh, ds_renderer_desc *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->sort_algo = ds_app_first_sort(opts->sort);
    if (dest->sort_algo == DS_SORT_ALGO_COUNT)
        return ds_fail(DS_ERR_INVALID_ARG, "unknown sort '%s'", opts->sort);

    dest->stages = opts->stages;
    dest->mesh = mesh;
    dest->width = opts->width;
    dest->height = opts->height;
    dest->shuffle = opts->shuffle;
    dest->primitive = mesh->triangle_count ? opts->primitive : DS_PRIMITIVE_POINTS;
    dest->triangle_key = opts->triangle_key;
    dest->interop = opts->interop;
    dest->alpha = opts->alpha;
    dest->key_bits = opts->key_bits; /* 0 means 32 */
    dest->no_sort = opts->no_sort;
    dest->full_width_keys = opts->full_width_keys;
    dest->cull = opts->cull;
    dest->tiles = opts->tiles;
    dest->tile_pixels = opts->tile_pixels;
    dest->draw_form = opts->draw_form;
    dest->verify = opts->verify;
    dest->color_mode = opts->color_mode;
    memcpy(dest->tint, opts->tint, sizeof dest->tint);
    dest->opacity = opts->opacity;
    dest->msaa = opts->msaa;
    dest->raster = opts->raster;
    dest->raster_auto = opts->raster_auto;
    dest->raster_order = opts->raster_order;
    dest->point_size = opts->point_size;
    if (opts->background_given) {
        memcpy(dest->background, opts->background, sizeof opts->background);
        dest->background[3] = 1.0f;
    } else {
        ds_app_default_background(dest->background);
    }
    return DS_OK;
}

/* The first line of --camera-file into dest (without its line end).
 * Returns DS_OK with *found 0 when the file does not exist. Anything but a
 * regular file is refused before it is opened (opening a FIFO for reading
 * would wait for a writer), and procfs and sysfs files before they are
 * read. */
static ds_status read_camera_line(const char *path, char *dest, size_t capacity, int *found)
{
    *found = 0;
    struct stat info;
    if (stat(path, &info) != 0) {
        if (errno == ENOENT)
            return DS_OK;
        return ds_fail(DS_ERR_IO, "%s: cannot read the camera file: %s", path, strerror(errno));
    }
    if (!S_ISREG(info.st_mode))
        return ds_fail(DS_ERR_IO, "%s: the camera file %s, not a regular file", path,
                       S_ISDIR(info.st_mode)    ? "is a directory"
                       : S_ISFIFO(info.st_mode) ? "is a FIFO (named pipe)"
                       : S_ISCHR(info.st_mode)  ? "is a character device"
                                                : "is a special file");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *file = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!file) {
        int error = errno;
        if (fd >= 0)
            close(fd);
        return ds_fail(DS_ERR_IO, "%s: cannot read the camera file: %s", path, strerror(error));
    }
    struct stat opened;
    if (fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) { /* replaced since stat() */
        fclose(file);
        return ds_fail(DS_ERR_IO, "%s: the camera file is not a regular file", path);
    }
    /* procfs and sysfs files are made as they are read (reading
     * /proc/kmsg takes the kernel's messages away): never a camera line. */
    const char *pseudo = ds_pseudo_file_system(fd);
    if (pseudo) {
        fclose(file);
        return ds_fail(DS_ERR_IO, "%s: the camera file is a %s file, not a regular file", path,
                       pseudo);
    }
    errno = 0;
    int got = fgets(dest, (int)capacity, file) != NULL;
    int failed = ferror(file), error = errno;
    fclose(file);
    if (failed)
        return ds_fail(DS_ERR_IO, "%s: cannot read the camera file: %s", path,
                       strerror(error ? error : EIO));
    if (!got)
        return ds_fail(DS_ERR_PARSE, "%s: empty; expected a camera line \"eye=X,Y,Z target=X,Y,Z\"",
                       path);
    size_t length = strlen(dest);
    if (length + 1 == capacity && dest[length - 1] != '\n')
        return ds_fail(DS_ERR_PARSE, "%s: the first line is longer than a camera line (%zu characters)",
                       path, capacity - 2);
    dest[strcspn(dest, "\r\n")] = '\0';
    *found = 1;
    return DS_OK;
}

ds_status ds_app_start_camera(const ds_options *opts, const ds_mesh *mesh, ds_camera *camera,
                              const char **from)
{
    const char *source = NULL;
    ds_status status = DS_OK;
    if (opts->camera) {
        status = ds_camera_parse(opts->camera, "--camera", camera);
        source = "--camera";
    } else if (opts->camera_file) {
        char line[2 * DS_CAMERA_LINE_MAX];
        int found = 0;
        status = read_camera_line(opts->camera_file, line, sizeof line, &found);
        if (status == DS_OK && found) {
            status = ds_camera_parse(line, opts->camera_file, camera);
            source = opts->camera_file;
        }
    }
    if (status != DS_OK)
        return status;
    if (source)
        ds_camera_enclose(camera, mesh->center, mesh->radius);
    if (from)
        *from = source;
    return DS_OK;
}

ds_status ds_app_start_camera_measured(const ds_options *opts, const ds_mesh *mesh,
                                       ds_camera *camera)
{
    int from_file = !opts->camera && opts->camera_file;
    ds_log_set_quiet(from_file);
    ds_status status = ds_app_start_camera(opts, mesh, camera, NULL);
    ds_log_set_quiet(0);
    if (!from_file || status == DS_OK)
        return status;
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", ds_last_error()); /* ds_fail() overwrites it */
    if (status != DS_ERR_PARSE)
        return ds_fail(status, "%s", reason);
    return ds_fail(status, "%s; refused: a headless run measures from the view the file names, "
                   "never another (fix the file, or remove it for the framed view)",
                   reason);
}

void ds_app_default_background(float dest[4])
{
    dest[0] = 0.93f;
    dest[1] = 0.93f;
    dest[2] = 0.91f;
    dest[3] = 1.0f;
}

/* How much larger than the Y extent a Z extent must be to read as Z-up. */
#define Z_UP_RATIO 1.5f

/* A model file read as Y-up whose Z extent is the largest and well above
 * its Y extent stands on its Z axis (scans such as lucy are stored so):
 * it would lie on its side, so say which option stands it up. */
static void warn_z_up(const ds_options *opts, const ds_mesh *mesh)
{
    if (!opts->model_path || opts->up != DS_UP_POS_Y || opts->grid_x * opts->grid_y > 1)
        return;
    float x = mesh->bounds_max[0] - mesh->bounds_min[0];
    float y = mesh->bounds_max[1] - mesh->bounds_min[1];
    float z = mesh->bounds_max[2] - mesh->bounds_min[2];
    if (y > 0.0f && z > Z_UP_RATIO * y && z >= x)
        ds_warn("%s: model looks Z-up (its Z extent %.3g is %.1f times its Y extent %.3g); "
                "try --up z",
                opts->model_path, (double)z, (double)(z / y), (double)y);
}

void ds_app_warn_ignored(const ds_options *opts, const ds_mesh *mesh, const ds_renderer *renderer)
{
    warn_z_up(opts, mesh);
    /* A sort the build lacks ran as cpu (ds_app_first_sort()), as a CUDA
     * build on a machine without a device does. */
    if (opts->stages == DS_STAGES_SORTER && !ds_sort_algo_built(ds_sort_algo_from_name(opts->sort)))
        ds_warn("--sort %s: not in this build (built without CUDA); using the cpu sort",
                opts->sort);
    static const char *const key_names[DS_TRIANGLE_KEY_COUNT] = {"farthest", "mean", "centroid"};
    int points = ds_renderer_primitive(renderer) == DS_PRIMITIVE_POINTS;
    if (opts->primitive_given && opts->primitive == DS_PRIMITIVE_TRIANGLES && points &&
        mesh->triangle_count == 0)
        ds_warn("--primitive triangles: %s has no triangles; drawing its points", input_name(opts));
    if (points && opts->triangle_key != DS_TRIANGLE_KEY_FARTHEST &&
        (unsigned)opts->triangle_key < DS_TRIANGLE_KEY_COUNT)
        ds_warn("--key %s: points are sorted by their own distance; the triangle key does not apply",
                key_names[opts->triangle_key]);
    if (points && opts->draw_form != DS_DRAW_AUTO)
        ds_warn("--draw %s: applies to triangles; points are drawn as splats",
                opts->draw_form == DS_DRAW_PULL ? "pull" : "indexed");
    if (!points && opts->point_size > 0.0f)
        ds_warn("--point-size: applies to points; this run draws triangles");
    if (opts->shuffle && !opts->no_sort && opts->stages == DS_STAGES_GL)
        ds_warn("--shuffle: the GL stages do not shuffle; with the shuffle on the frames run the "
                "sorter path (%s)", ds_sort_algo_name(ds_renderer_sort(renderer)));
    if (opts->no_sort) {
        if (opts->shuffle)
            ds_warn("--shuffle: nothing is sorted with --no-sort");
        if (!points && opts->triangle_key != DS_TRIANGLE_KEY_FARTHEST &&
            (unsigned)opts->triangle_key < DS_TRIANGLE_KEY_COUNT)
            ds_warn("--key %s: nothing is sorted with --no-sort", key_names[opts->triangle_key]);
        if (opts->key_bits && opts->key_bits != 32)
            ds_warn("--key-bits %d: nothing is sorted with --no-sort", opts->key_bits);
        if (!points && opts->draw_form == DS_DRAW_PULL)
            ds_warn("--draw pull: unsorted frames draw indexed in mesh order");
    }
    if (opts->cull == DS_CULL_ON && !ds_renderer_culling(renderer))
        ds_warn("--cull on: culling needs triangles, sorting and one sample per pixel; it is off in "
                "this run");
    int tiles = ds_renderer_tiles(renderer) && !opts->no_sort; /* tiles bin the sorted list */
    if (opts->tiles == DS_TILES_ON && !tiles)
        ds_warn("--tiles on: tiles need sorting; they are off in this run");
    if (opts->tile_pixels && !tiles && opts->tiles != DS_TILES_ON)
        ds_warn("--tile-pixels %d: tiles are off in this run", opts->tile_pixels);
    if (!points && opts->draw_form == DS_DRAW_PULL && ds_renderer_draw_form(renderer) != DS_DRAW_PULL)
        ds_warn("--draw pull: this GL lacks the vertex-stage storage blocks it needs; drawing indexed");
    ds_color_mode color = ds_renderer_color_mode(renderer);
    if (opts->color_mode != DS_COLOR_AUTO && color != opts->color_mode)
        ds_warn("--color %s: %s has no colours; using %s", ds_color_mode_name(opts->color_mode),
                input_name(opts), ds_color_mode_name(color));
    if ((opts->tint[0] > 0.0f || opts->tint[1] > 0.0f || opts->tint[2] > 0.0f) && color != DS_COLOR_TINT)
        ds_warn("--tint: applies to --color tint; colouring by %s", ds_color_mode_name(color));
}

/* The value of the first line of `path` that starts with `key`, after
 * its separator (':' or '='), unquoted and trimmed; 0 if none. */
static int read_field(const char *path, const char *key, char *dest, size_t capacity)
{
    FILE *file = fopen(path, "r");
    char line[512];
    int found = 0;
    if (!file)
        return 0;
    size_t key_length = strlen(key);
    while (!found && fgets(line, sizeof line, file)) {
        if (strncmp(line, key, key_length) != 0)
            continue;
        char *value = line + key_length;
        while (*value == ' ' || *value == '\t')
            value++;
        if (*value != ':' && *value != '=')
            continue;
        value++;
        while (*value == ' ' || *value == '"')
            value++;
        size_t n = strcspn(value, "\"\n");
        snprintf(dest, capacity, "%.*s", (int)n, value);
        found = n > 0;
    }
    fclose(file);
    return found;
}

void ds_app_host_info(char *cpu, size_t cpu_capacity, char *os, size_t os_capacity)
{
    char model[256];
    if (!read_field("/proc/cpuinfo", "model name", model, sizeof model))
        snprintf(model, sizeof model, "unknown CPU");
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(cpu, cpu_capacity, "%s, %ld threads", model, threads > 0 ? threads : 1);
    char distribution[256];
    struct utsname name;
    if (!read_field("/etc/os-release", "PRETTY_NAME", distribution, sizeof distribution))
        distribution[0] = '\0';
    if (uname(&name) == 0)
        snprintf(os, os_capacity, "%s%s%s %s %s", distribution, distribution[0] ? ", " : "",
                 name.sysname, name.release, name.machine);
    else
        snprintf(os, os_capacity, "%s", distribution[0] ? distribution : "unknown OS");
}

void ds_app_command_line(const ds_options *opts, char *dest, size_t capacity)
{
    size_t used = 0;
    if (capacity)
        dest[0] = '\0';
    for (int i = 0; i < opts->argc && opts->argv; i++) {
        const char *arg = opts->argv[i];
        /* Quoted for a POSIX shell where it would not stand alone. */
        int plain = *arg != '\0';
        for (const char *c = arg; *c; c++)
            plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                            "-_./:=,+@%", *c) != NULL;
        char word[1024];
        if (plain) {
            snprintf(word, sizeof word, "%s", arg);
        } else {
            size_t w = 0;
            word[w++] = '\'';
            for (const char *c = arg; *c && w + 5 < sizeof word; c++) {
                if (*c == '\'') {
                    memcpy(word + w, "'\\''", 4);
                    w += 4;
                } else {
                    word[w++] = *c;
                }
            }
            word[w++] = '\'';
            word[w] = '\0';
        }
        int n = snprintf(dest + used, capacity > used ? capacity - used : 0, "%s%s",
                         i ? " " : "", word);
        if (n < 0 || used + (size_t)n >= capacity)
            break;
        used += (size_t)n;
    }
}

void ds_app_format_count(size_t n, char *dest, size_t capacity)
{
    char digits[32];
    int length = snprintf(digits, sizeof digits, "%zu", n);
    size_t out = 0;
    for (int i = 0; i < length && out + 2 < capacity; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            dest[out++] = ',';
        dest[out++] = digits[i];
    }
    dest[out] = '\0';
}

void ds_app_describe_load(const ds_options *opts, const ds_mesh *mesh, double load_ms,
                          char *dest, size_t capacity)
{
    char vertices[32], triangles[32], size[32];
    ds_app_format_count(mesh->vertex_count, vertices, sizeof vertices);
    ds_app_format_count(mesh->triangle_count, triangles, sizeof triangles);
    struct stat info;
    double seconds = load_ms / 1000.0;
    if (opts->model_path && stat(opts->model_path, &info) == 0 && S_ISREG(info.st_mode)) {
        ds_progress_format_bytes((double)info.st_size, size, sizeof size);
        snprintf(dest, capacity, "%s vertices, %s triangles, %s at %.1f MB/s", vertices,
                 triangles, size, seconds > 0.0 ? (double)info.st_size / 1e6 / seconds : 0.0);
    } else {
        snprintf(dest, capacity, "%s vertices, %s triangles", vertices, triangles);
    }
}

ds_status ds_app_load_mesh(const ds_options *opts, ds_progress *progress, ds_mesh *dest)
{
    ds_progress_start(progress, opts->progress);
    double load_start = ds_now_ms();
    ds_status status = ds_app_build_mesh(opts, dest);
    if (status)
        return status;
    if (ds_progress_enabled(progress)) {
        char loaded[256];
        ds_app_describe_load(opts, dest, ds_now_ms() - load_start, loaded, sizeof loaded);
        fprintf(stderr, "depthsort: %s %s: %s (%.2f s)\n", opts->model_path ? "loaded" : "built",
                opts->model_path ? opts->model_path : ds_app_scene_spec(opts), loaded,
                (ds_now_ms() - load_start) / 1000.0);
    }
    return DS_OK;
}

void ds_app_input_label(const ds_options *opts, char *dest, size_t capacity)
{
    if (opts->model_path) {
        const char *base = strrchr(opts->model_path, '/');
        snprintf(dest, capacity, "%s", base ? base + 1 : opts->model_path);
    } else {
        snprintf(dest, capacity, "scene:%s", ds_app_scene_spec(opts));
    }
}

void ds_app_timestamp(char *dest, size_t capacity)
{
    time_t now = time(NULL);
    struct tm utc;
    if (!gmtime_r(&now, &utc) || !strftime(dest, capacity, "%Y-%m-%dT%H:%M:%SZ", &utc))
        snprintf(dest, capacity, "unknown");
}
