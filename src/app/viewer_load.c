/* SPDX-License-Identifier: MIT */
/* viewer_load.c — building the viewer's model and putting it in a
 * renderer (viewer_internal.h): the mesh built from the options with a
 * progress line on the terminal, a new renderer at the window's size that
 * replaces the old one only once it works, and reloads (R, Y's next up
 * axis, a dropped file) with the current settings. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "setup.h"
#include "viewer_internal.h"

/* ---- terminal progress while loading ----------------------------------- */

/* A phase ("loading dragon.ply") with a moving bar and elapsed seconds on a
 * terminal, redrawn by a ticker thread while the main thread works; off a
 * terminal, one line when the phase ends. The loaders have no progress
 * callback, so the bar shows that work goes on, not how much is left. */
typedef struct progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int running;       /* ticker thread started */
    int stop;          /* guarded by lock */
    const char *phase; /* constant during a phase */
    double start_ms;
} progress;

static double seconds_since(double start_ms)
{
    return 1e-3 * (ds_now_ms() - start_ms);
}

static void draw_progress(const progress *p, int tick)
{
    char bar[21];
    int position = tick % 32;
    if (position >= 16)
        position = 31 - position; /* bounce */
    for (int i = 0; i < 20; i++)
        bar[i] = (i >= position && i < position + 4) ? '=' : ' ';
    bar[20] = '\0';
    /* Clear the line, draw, and return to column 0 so that an error line
     * printed meanwhile starts on a clean line. */
    fprintf(stderr, "\r\033[2Kdepthsort: %s [%s] %.1f s\r", p->phase, bar,
            seconds_since(p->start_ms));
    fflush(stderr);
}

static void *progress_ticker(void *arg)
{
    progress *p = arg;
    int tick = 0;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += PROGRESS_TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stop)
            draw_progress(p, tick++);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void progress_begin(progress *p, const char *phase)
{
    memset(p, 0, sizeof *p);
    p->phase = phase;
    p->start_ms = ds_now_ms();
    if (!isatty(fileno(stderr)))
        return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->running = pthread_create(&p->thread, NULL, progress_ticker, p) == 0;
    if (!p->running) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
    }
}

/* Ends the phase with one line: "depthsort: <phase>: <result> (1.2 s)". */
static void progress_end(progress *p, const char *result)
{
    if (p->running) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        fprintf(stderr, "\r\033[2K");
    }
    fprintf(stderr, "depthsort: %s: %s (%.2f s)\n", p->phase, result, seconds_since(p->start_ms));
}

/* ---- loading ------------------------------------------------------------ */

/* The options with the viewer's current settings, for re-creating the
 * renderer on a reload: what the keys changed carries over, except the
 * colour mode and point size for another model (flags RELOAD_NEW_MODEL),
 * which start again from the command line's. */
static void current_options(const ds_viewer *v, int flags, ds_options *dest)
{
    *dest = v->opts;
    dest->sort = ds_sort_algo_name(v->settings.sort);
    dest->stages = v->settings.stages;
    dest->shuffle = v->settings.shuffle;
    dest->primitive = v->settings.primitive;
    dest->triangle_key = v->settings.triangle_key;
    dest->no_sort = !v->settings.sorting;
    dest->alpha = v->settings.alpha;
    dest->color_mode = v->settings.color_mode;
    dest->opacity = v->settings.opacity;
    dest->msaa = v->settings.msaa;
    dest->tiles = ds_renderer_tiles(v->renderer) ? DS_TILES_ON : DS_TILES_OFF;
    dest->point_size = ds_renderer_point_size(v->renderer);
    if (flags & RELOAD_NEW_MODEL) {
        dest->color_mode = v->opts.color_mode;
        dest->point_size = v->opts.point_size;
    }
}

/* Builds the mesh that `opts` names, with a progress line on the terminal.
 * *dest is the caller's to free. */
ds_status ds_viewer_build_mesh(const ds_options *opts, ds_mesh *dest)
{
    progress phase;
    char phase_name[DS_SCRIPT_MAX_LINE + 64], result[256];
    const char *input = opts->model_path ? opts->model_path : ds_app_scene_spec(opts);
    snprintf(phase_name, sizeof phase_name, "%s %s", opts->model_path ? "loading" : "building",
             input);
    progress_begin(&phase, phase_name);
    ds_status status = ds_app_build_mesh(opts, dest);
    if (status != DS_OK) {
        progress_end(&phase, "failed");
        return status;
    }
    /* The counts, and the bytes and rate of the whole load. */
    ds_app_describe_load(opts, dest, ds_now_ms() - phase.start_ms, result, sizeof result);
    progress_end(&phase, result);
    return DS_OK;
}

/* Creates a renderer for `mesh` as `opts` ask, at the window's framebuffer
 * size, and makes it the viewer's (destroying the one before only once the
 * new one works); then reads back what the renderer chose (the cpu sort on
 * the CPU path, points for a mesh without triangles, the colour mode). */
ds_status ds_viewer_install_mesh(ds_viewer *v, const ds_options *opts, const ds_mesh *mesh)
{
    ds_renderer_desc desc;
    ds_renderer *renderer = NULL;
    progress phase;
    char result[512];
    ds_status status = ds_app_renderer_desc(opts, mesh, &desc);
    if (status != DS_OK)
        return status;
    desc.width = v->fb_width > 0 ? v->fb_width : 1;
    desc.height = v->fb_height > 0 ? v->fb_height : 1;
    desc.verify = 0; /* the viewer never checks a frame's order */
    progress_begin(&phase, "uploading to the GPU");
    status = ds_renderer_create(&desc, &renderer);
    if (status != DS_OK) {
        /* Device memory runs out as a CUDA or GL error; say what it means. */
        if (status == DS_ERR_CUDA || status == DS_ERR_GL || status == DS_ERR_OUT_OF_MEMORY)
            snprintf(result, sizeof result,
                     "failed (%s): the model may not fit in GPU memory", ds_status_str(status));
        else
            snprintf(result, sizeof result, "failed (%s)", ds_status_str(status));
        progress_end(&phase, result);
        return status;
    }
    /* The first renderer says which sort the defaults chose, and why. */
    char default_sort[256];
    ds_app_describe_default_sort(opts, renderer, default_sort, sizeof default_sort);
    snprintf(result, sizeof result, "%s%s%s", ds_renderer_gpu_name(renderer),
             *default_sort ? "; " : "", default_sort);
    progress_end(&phase, result);
    ds_renderer_destroy(v->renderer);
    v->renderer = renderer;
    ds_renderer_set_background(renderer, v->settings.background);
    v->settings.sort = ds_renderer_sort(renderer);
    v->settings.stages = ds_renderer_stages(renderer);
    v->settings.primitive = ds_renderer_primitive(renderer);
    v->settings.color_mode = ds_renderer_color_mode(renderer);
    v->settings.opacity = ds_renderer_opacity_mode(renderer);
    v->settings.msaa = ds_renderer_msaa(renderer);
    v->has_colors = mesh->has_colors;
    memcpy(v->model_center, mesh->center, sizeof v->model_center);
    v->model_radius = mesh->radius;
    /* The technique carries over (the sorted or unsorted draw came with
     * the options). */
    if (v->settings.technique != ds_renderer_technique(renderer))
        ds_viewer_select_technique(v, v->settings.technique);
    v->settings.technique = ds_renderer_technique(renderer);
    /* Timings restart with the new renderer's frame numbers. */
    v->timings.frames_rendered = 0;
    ds_viewer_forget_reference_frames(v);
    ds_viewer_reset_timings(v);
    return DS_OK;
}

void ds_viewer_set_title(ds_viewer *v)
{
    char title[DS_SCRIPT_MAX_LINE + 32];
    const char *input = v->opts.model_path ? v->opts.model_path : ds_app_scene_spec(&v->opts);
    snprintf(title, sizeof title, "depthsort — %s", input);
    glfwSetWindowTitle(v->window, title);
}

/* R, Y and a dropped file: the model built again from v->opts with the
 * current settings; on failure the current model stays and the error shows
 * in the overlay. RELOAD_FRAME: frame the new model (else the camera
 * stays). */
ds_status ds_viewer_reload_model(ds_viewer *v, const char *what, int flags)
{
    ds_options opts;
    ds_mesh mesh = {0};
    current_options(v, flags, &opts);
    ds_status status = ds_viewer_build_mesh(&opts, &mesh);
    if (status == DS_OK)
        status = ds_viewer_install_mesh(v, &opts, &mesh);
    ds_mesh_free(&mesh);
    if (status != DS_OK) {
        ds_viewer_show_error(v, what);
        return status;
    }
    ds_viewer_set_title(v);
    if (flags & RELOAD_FRAME)
        ds_viewer_frame_to_fit(v);
    else
        ds_camera_enclose(&v->camera, v->model_center, v->model_radius);
    return DS_OK;
}

/* Y cycles the up axis in this order: the common ones first. */
static const ds_up_axis up_cycle[DS_UP_COUNT] = {DS_UP_POS_Y, DS_UP_POS_Z, DS_UP_POS_X,
                                                 DS_UP_NEG_Y, DS_UP_NEG_Z, DS_UP_NEG_X};

/* Y: the next up axis; the model is rebuilt turned, and framed. */
void ds_viewer_cycle_up(ds_viewer *v)
{
    int at = 0;
    while (at < DS_UP_COUNT && up_cycle[at] != v->settings.up)
        at++;
    ds_up_axis previous = v->settings.up;
    v->settings.up = up_cycle[(at + 1) % DS_UP_COUNT];
    v->opts.up = v->settings.up;
    if (ds_viewer_reload_model(v, "up", RELOAD_FRAME) != DS_OK) {
        v->settings.up = previous;
        v->opts.up = previous;
    }
}
