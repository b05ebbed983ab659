/* SPDX-License-Identifier: MIT */
/* load.c — checks a model path, reads the file into memory the loader owns
 * and hands the bytes to the PLY or OBJ parser (see load.h for the dispatch
 * rule); the memory budget shared by both parsers.
 *
 * Why read rather than map: a mapped file that shrinks under the parser
 * (an exporter still writing it, a file truncated in place) raises SIGBUS
 * on the first page past its new end. Read into owned memory, the same
 * event is a short read or a size that differs after reading: one error
 * line. The path is classified with stat() before open(), because opening
 * a FIFO for reading blocks until a writer appears; the open itself is
 * non-blocking and its fstat() must show the same regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "host_memory.h"
#include "load.h"
#include "load_private.h"

/* Reads of at most this size after the first LOAD_HEADER_BYTES, which
 * decide the format (and hold a PLY's header); an OBJ's text check runs on
 * each before the next is read, so a large binary file named .obj fails
 * after its first bytes. */
#define READ_CHUNK_BYTES (1u << 20)

/* statfs magic numbers (linux/magic.h). */
#define PROC_SUPER_MAGIC_NUMBER 0x9fa0
#define SYSFS_MAGIC_NUMBER 0x62656572

static bool has_extension(const char *path, const char *extension)
{
    size_t length = strlen(path), ext_length = strlen(extension);
    return length >= ext_length && strcasecmp(path + length - ext_length, extension) == 0;
}

/* Refuses every kind of path but a regular file, saying what it is. */
static ds_status check_kind(const char *path, const struct stat *info)
{
    const char *kind = NULL;
    if (S_ISDIR(info->st_mode))
        kind = "is a directory";
    else if (S_ISFIFO(info->st_mode))
        kind = "is a FIFO (named pipe)";
    else if (S_ISCHR(info->st_mode))
        kind = "is a character device";
    else if (S_ISBLK(info->st_mode))
        kind = "is a block device";
    else if (S_ISSOCK(info->st_mode))
        kind = "is a socket";
    else if (!S_ISREG(info->st_mode))
        kind = "is not a regular file";
    if (kind)
        return ds_fail(DS_ERR_IO, "%s: %s, not a model file", path, kind);
    return DS_OK;
}

/* What the first bytes say the file is (see load.h for the rule). */
typedef enum file_kind { KIND_PLY, KIND_OBJ, KIND_UNKNOWN } file_kind;

static file_kind kind_of(const char *path, const char *data, size_t size)
{
    size_t skip = starts_with_bom(data, size) ? 3 : 0;
    if (size >= skip + 3 && memcmp(data + skip, "ply", 3) == 0)
        return KIND_PLY; /* the parser names a mark before "ply" */
    if (has_extension(path, ".obj"))
        return KIND_OBJ;
    if (has_extension(path, ".ply"))
        return KIND_PLY; /* reports "not a PLY file" */
    return KIND_UNKNOWN;
}

/* Decides on the first LOAD_HEADER_BYTES (or the whole of a smaller file)
 * whether the rest is worth reading: a PLY header must parse and its
 * counts fit the budget; a file of neither format fails here. */
static ds_status check_start(const char *path, const char *data, size_t size, file_kind kind,
                             const ds_load_budget *budget)
{
    if (kind == KIND_PLY)
        return ds_check_ply_header(data, size, path, budget);
    if (kind == KIND_UNKNOWN)
        return ds_fail(DS_ERR_PARSE, "%s: unknown format: the file does not start with \"ply\" "
                                     "and its name does not end in .obj",
                       path);
    return DS_OK;
}

/* Reads exactly `size` bytes into dest, or fails naming what happened. */
static ds_status read_exactly(int fd, const char *path, char *dest, size_t size, size_t offset,
                              size_t file_size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, dest + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return ds_fail(DS_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        if (got == 0)
            return ds_fail(DS_ERR_IO, "%s: the file changed while it was read: it held %zu bytes, "
                                      "then ended after %zu (is it still being written?)",
                           path, file_size, offset + done);
        done += (size_t)got;
    }
    return DS_OK;
}

static ds_status check_text(const char *path, const char *data, size_t size, size_t offset)
{
    size_t bad = first_non_text_byte(data, size);
    if (bad < size)
        return ds_fail(DS_ERR_PARSE, "%s: byte %zu: 0x%02x cannot be text (a binary file, not an OBJ)",
                       path, offset + bad, (unsigned char)data[bad]);
    return DS_OK;
}

/* The file's bytes into a buffer of its size (plus one, so that a size of
 * zero never means a zero-size malloc); `info` is the fstat() taken after
 * opening. The start is read into a small buffer and checked before the
 * whole is allocated and the rest read; an OBJ's text is checked as each
 * chunk arrives. */
static ds_status read_file(int fd, const char *path, const struct stat *info,
                           const ds_load_budget *budget, file_kind *kind, char **dest)
{
    size_t size = (size_t)info->st_size;
    size_t start = size < LOAD_HEADER_BYTES ? size : LOAD_HEADER_BYTES;
    *dest = NULL;
    char *head = malloc(start);
    if (!head)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    ds_status status = read_exactly(fd, path, head, start, 0, size);
    if (status == DS_OK) {
        *kind = kind_of(path, head, start);
        status = check_start(path, head, size, *kind, budget);
    }
    if (status == DS_OK && *kind == KIND_OBJ)
        status = check_text(path, head, start, 0);
    uint64_t available = status == DS_OK ? ds_host_memory_available() : 0;
    if (available && size > available) {
        char need[32], have[32];
        ds_format_bytes(size, need, sizeof need);
        ds_format_bytes(available, have, sizeof have);
        status = ds_fail(DS_ERR_TOO_LARGE, "%s: the file takes %s to read; %s of host memory is "
                                           "available",
                         path, need, have);
    }
    char *data = status == DS_OK ? malloc(size + 1) : NULL;
    if (status == DS_OK && !data)
        status = ds_fail(DS_ERR_OUT_OF_MEMORY, "%s: out of memory for the file's %zu bytes", path, size);
    if (status == DS_OK)
        memcpy(data, head, start);
    free(head);
    for (size_t done = start; status == DS_OK && done < size;) {
        size_t want = size - done < READ_CHUNK_BYTES ? size - done : READ_CHUNK_BYTES;
        status = read_exactly(fd, path, data + done, want, done, size);
        if (status == DS_OK && *kind == KIND_OBJ)
            status = check_text(path, data + done, want, done);
        done += want;
    }
    /* Grown, cut or rewritten during the read: the bytes may mix two
     * versions of the file. */
    struct stat after = *info;
    char probe;
    if (status == DS_OK &&
        (fstat(fd, &after) != 0 || read(fd, &probe, 1) != 0 || after.st_size != info->st_size ||
         after.st_mtim.tv_sec != info->st_mtim.tv_sec || after.st_mtim.tv_nsec != info->st_mtim.tv_nsec))
        status = ds_fail(DS_ERR_IO, "%s: the file changed while it was read (%zu bytes before, %lld "
                                    "after; is it still being written?)",
                         path, size, (long long)after.st_size);
    if (status != DS_OK) {
        free(data);
        return status;
    }
    *dest = data;
    return DS_OK;
}

const char *ds_pseudo_file_system(int fd)
{
    struct statfs volume;
    if (fstatfs(fd, &volume) != 0)
        return NULL;
    if (volume.f_type == PROC_SUPER_MAGIC_NUMBER)
        return "procfs";
    if (volume.f_type == SYSFS_MAGIC_NUMBER)
        return "sysfs";
    return NULL;
}

ds_status ds_load_mesh(const char *path, ds_mesh *dest)
{
    return ds_load_mesh_budget(path, NULL, dest);
}

ds_status ds_load_mesh_budget(const char *path, const ds_load_budget *budget, ds_mesh *dest)
{
    if (!path || !dest)
        return ds_fail(DS_ERR_INVALID_ARG, "ds_load_mesh: %s is NULL", path ? "dest" : "path");
    memset(dest, 0, sizeof *dest);

    /* What the path is, before an open() that could block (a FIFO). */
    struct stat info;
    if (stat(path, &info) != 0)
        return ds_fail(DS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    ds_status status = check_kind(path, &info);
    if (status != DS_OK)
        return status;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return ds_fail(DS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat opened;
    if (fstat(fd, &opened) != 0) {
        int error = errno;
        close(fd);
        return ds_fail(DS_ERR_IO, "%s: cannot stat: %s", path, strerror(error));
    }
    if ((status = check_kind(path, &opened)) != DS_OK) { /* replaced since stat() */
        close(fd);
        return status;
    }
    const char *pseudo = ds_pseudo_file_system(fd);
    if (pseudo) {
        close(fd);
        if (opened.st_size == 0 && strcmp(pseudo, "procfs") == 0)
            return ds_fail(DS_ERR_IO, "%s: is not a regular file (procfs reports size 0)", path);
        return ds_fail(DS_ERR_IO, "%s: is a %s file, not a model file", path, pseudo);
    }
    if (opened.st_size == 0) {
        close(fd);
        return ds_fail(DS_ERR_PARSE, "%s: empty file", path);
    }
    if ((uint64_t)opened.st_size > SIZE_MAX - 1) {
        close(fd);
        return ds_fail(DS_ERR_TOO_LARGE, "%s: %lld bytes do not fit in this process's memory", path,
                       (long long)opened.st_size);
    }
    char *data = NULL;
    file_kind kind = KIND_UNKNOWN;
    status = read_file(fd, path, &opened, budget, &kind, &data);
    close(fd);
    if (status != DS_OK)
        return status;

    size_t size = (size_t)opened.st_size;
    if (kind == KIND_PLY)
        status = ds_parse_ply(data, size, path, budget, dest);
    else
        status = ds_parse_obj(data, size, path, budget, dest);
    /* The file's bytes go before the mesh grows its normals and colours. */
    free(data);
    if (status == DS_OK) {
        status = ds_mesh_finish(dest);
        if (status != DS_OK)
            ds_mesh_free(dest);
    }
    return status;
}

/* Both formats: parse, then complete the mesh; a mesh that cannot be
 * finished is freed so that *dest is empty on every failure. */
static ds_status parse_and_finish(ds_status (*parse)(const void *, size_t, const char *,
                                                     const ds_load_budget *, ds_mesh *),
                                  const void *data, size_t size, const char *name, ds_mesh *dest)
{
    ds_status status = parse(data, size, name, NULL, dest);
    if (status == DS_OK) {
        status = ds_mesh_finish(dest);
        if (status != DS_OK)
            ds_mesh_free(dest);
    }
    return status;
}

ds_status ds_load_ply_memory(const void *data, size_t size, const char *name, ds_mesh *dest)
{
    return parse_and_finish(ds_parse_ply, data, size, name, dest);
}

ds_status ds_load_obj_memory(const void *data, size_t size, const char *name, ds_mesh *dest)
{
    return parse_and_finish(ds_parse_obj, data, size, name, dest);
}
