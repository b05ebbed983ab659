/* SPDX-License-Identifier: MIT */
/* output_file.c — write beside, unnamed where the file system allows,
 * then rename (see output_file.h). */
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
     * keeps its own mode. The file has no name until it is committed
     * (O_TMPFILE), so a run killed while writing leaves nothing behind;
     * where the file system cannot, it is written under the temporary
     * name. */
    char folder[4096];
    const char *slash = strrchr(final, '/');
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - final) + 1 : 1, slash ? final : ".");
    int fd = open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0)
        fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
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

/* Gives the unnamed file `fd` (O_TMPFILE) the name `temp`, replacing a
 * stale file of that name; errno is set on failure. */
static int name_file(int fd, const char *temp)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 2; attempt++) {
        if (linkat(AT_FDCWD, self, AT_FDCWD, temp, AT_SYMLINK_FOLLOW) == 0 ||
            linkat(fd, "", AT_FDCWD, temp, AT_EMPTY_PATH) == 0)
            return 0;
        if (errno != EEXIST || unlink(temp) != 0)
            return -1;
    }
    return -1;
}

ds_status ds_output_commit(FILE *file, const char *path)
{
    char temp[4096], final[4096];
    int names = output_names(path, final, temp, sizeof temp);
    struct stat opened;
    int regular = fstat(fileno(file), &opened) == 0 && S_ISREG(opened.st_mode);
    int failed = fflush(file) != 0 || ferror(file);
    int error = failed ? errno : 0;
    /* An unnamed file gets its temporary name before it is closed. */
    int unnamed = regular && opened.st_nlink == 0;
    if (!failed && unnamed && (!names || name_file(fileno(file), temp) != 0)) {
        error = names ? errno : ENAMETOOLONG;
        fclose(file);
        return ds_fail(DS_ERR_IO, "%s: cannot replace it with the written file: %s", path,
                       strerror(error));
    }
    errno = 0;
    if (fclose(file) != 0 && !failed) {
        failed = 1;
        error = errno;
    }
    if (!regular) { /* written directly: a device or a pipe */
        if (failed)
            return ds_fail(DS_ERR_IO, "%s: write failed%s%s", path, error ? ": " : "",
                           error ? strerror(error) : "");
        return DS_OK;
    }
    if (!names)
        return ds_fail(DS_ERR_IO, "%s: write failed: %s", path, strerror(ENAMETOOLONG));
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
