/* SPDX-License-Identifier: MIT */
/* output_file.h — files a run writes (CSV, JSON, timelines, PNGs, the
 * camera file) are written under a temporary name beside their target and
 * renamed over it only when complete: a run that fails, or is killed,
 * leaves an existing file as it was, never empty or half written.
 *
 * The file is written in the target's folder (a symbolic link's target's
 * folder) without a name (O_TMPFILE), so that a run killed or interrupted
 * while writing leaves no file behind; at the commit it is linked as
 * ".NAME.tmpPID" there and renamed over the target, atomically within the
 * folder. Where the file system has no O_TMPFILE, it is written under
 * that name from the start. The name is a pure function of the target and
 * the process, so the FILE * is all a caller keeps. A target that exists
 * and is not a regular file (a device such as /dev/stdout, a pipe) is
 * written directly. */
#ifndef DS_OUTPUT_FILE_H
#define DS_OUTPUT_FILE_H

#include <stdio.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the file that will replace `path` for writing ("wb"). The target is
 * checked first: a folder, or an existing file this user may not write,
 * is refused as opening it would be. Returns NULL after logging one line
 * "PATH: FAILURE: WHY" (DS_ERR_IO), FAILURE being e.g. "cannot open for
 * writing". */
FILE *ds_output_open(const char *path, const char *failure);

/* Closes `file` (from ds_output_open(path)) and renames it over `path`.
 * A failed write anywhere (a full disk), close or rename is DS_ERR_IO
 * naming `path`, and the temporary file is removed. */
ds_status ds_output_commit(FILE *file, const char *path);

/* Closes `file` and removes the temporary file; `path` is untouched.
 * NULL file: nothing. */
void ds_output_discard(FILE *file, const char *path);

#ifdef __cplusplus
}
#endif
#endif
