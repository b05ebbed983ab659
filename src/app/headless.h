/* SPDX-License-Identifier: MIT */
/* headless.h — the headless frame-timing runner (EGL, no window). */
#ifndef DS_HEADLESS_H
#define DS_HEADLESS_H

#include <stdio.h>

#include "camera.h"
#include "cli.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The orbit looks down on the model from this pitch (radians). */
#define DS_HEADLESS_ORBIT_PITCH 0.35f

/* Runs the scripted orbit for opts->frames frames per selected sort and
 * prints/writes the timing tables. Returns the process exit status. */
int ds_headless_run(const ds_options *opts);

/* Frame `frame` of `frames` of the orbit: the yaw turns from start_yaw by
 * orbit_degrees in all, about the camera's target; near and far enclose
 * the mesh. The --compare runner orbits the same way. */
void ds_headless_orbit_camera(ds_camera *camera, const ds_mesh *mesh, float start_yaw,
                              float orbit_degrees, int frame, int frames);

/* A JSON object's member whose value is a string. */
typedef struct ds_json_member {
    const char *name, *value;
} ds_json_member;

/* Output helpers the --compare runner shares: a CSV field in quotes (RFC
 * 4180); `count` of them with commas between (none before the first or
 * after the last); a JSON string with escapes; `count` members, each on a
 * line of its own, indented two spaces and ending with a comma; and the
 * close of a written file that reports a failed write or close as
 * DS_ERR_IO naming `path`. */
void ds_headless_csv_string(FILE *file, const char *text);
void ds_headless_csv_strings(FILE *file, const char *const *texts, size_t count);
void ds_headless_json_string(FILE *file, const char *text);
void ds_headless_json_strings(FILE *file, const ds_json_member *members, size_t count);
ds_status ds_headless_close_written(FILE *file, const char *path);

#ifdef __cplusplus
}
#endif
#endif
