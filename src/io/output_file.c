/* SPDX-License-Identifier: MIT */
/* output_file.c — write beside, then rename (see output_file.h). */
#define _GNU_SOURCE
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the written file goes: `path`, or the file a symbolic link at
 * `path` points to (the link stays a link); and its temporary name,
 * ".NAME.tmpPID" in that folder. 0 when they do not fit. */
static int output_names(const char *path, char *final, char *temp, size_t capacity)
{
    struct stat link;
    char *resolved = NULL;
    if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode))
        resolved = realpath(path, NULL);
    if (resolved)
        path = resolved;
    const char *slash = strrchr(path, '/');
    int folder = slash ? (int)(slash - path + 1) : 0;
    int written = snprintf(temp, capacity, "%.*s.%s.tmp%ld", folder, path, slash ? slash + 1 : path,
                           (long)getpid());
    int fits = written > 0 && (size_t)written < capacity && strlen(path) < capacity;
    if (fits)
        strcpy(final, path);
    free(resolved);
    return fits;
}

FILE *ds_output_open(const char *path, const char *failure)
{
    char temp[4096], final[4096];
    struct stat info;
    if (!path || !*path) {
        ds_fail(DS_ERR_IO, "(empty): %s: no file name", failure);
        return NULL;
    }
    int exists = stat(path, &info) == 0;
    if (exists && S_ISDIR(info.st_mode)) {
        ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(EISDIR));
        return NULL;
    }
    if (exists && access(path, W_OK) != 0) {
        ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(errno));
        return NULL;
    }
    if (exists && !S_ISREG(info.st_mode)) {
        /* A device or a pipe (/dev/stdout, a process substitution) is
         * written as it is: renaming over it would replace it. */
        FILE *file = fopen(path, "wb");
        if (!file)
            ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(errno));
        return file;
    }
    if (!output_names(path, final, temp, sizeof temp)) {
        ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(ENAMETOOLONG));
        return NULL;
    }
    /* 0666 less the umask, as fopen would create it; an existing target
     * keeps its own mode. */
    int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(errno));
        return NULL;
    }
    if (exists && S_ISREG(info.st_mode))
        (void)fchmod(fd, info.st_mode & 07777);
    FILE *file = fdopen(fd, "wb");
    if (!file) {
        int error = errno;
        close(fd);
        unlink(temp);
        ds_fail(DS_ERR_IO, "%s: %s: %s", path, failure, strerror(error));
    }
    return file;
}

ds_status ds_output_commit(FILE *file, const char *path)
{
    char temp[4096], final[4096];
    int failed = ferror(file);
    errno = 0;
    if (fclose(file) != 0)
        failed = 1;
    int error = errno;
    if (!output_names(path, final, temp, sizeof temp))
        return ds_fail(DS_ERR_IO, "%s: write failed: %s", path, strerror(ENAMETOOLONG));
    struct stat written;
    if (lstat(temp, &written) != 0) { /* written directly: a device or a pipe */
        if (failed)
            return ds_fail(DS_ERR_IO, "%s: write failed%s%s", path, error ? ": " : "",
                           error ? strerror(error) : "");
        return DS_OK;
    }
    if (failed) {
        unlink(temp);
        return ds_fail(DS_ERR_IO, "%s: write failed%s%s", path, error ? ": " : "",
                       error ? strerror(error) : "");
    }
    if (rename(temp, final) != 0) {
        error = errno;
        unlink(temp);
        return ds_fail(DS_ERR_IO, "%s: cannot replace it with the written file: %s", path,
                       strerror(error));
    }
    return DS_OK;
}

void ds_output_discard(FILE *file, const char *path)
{
    char temp[4096], final[4096];
    if (!file)
        return;
    fclose(file);
    if (output_names(path, final, temp, sizeof temp))
        unlink(temp);
}
