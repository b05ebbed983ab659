/* load.c — opens a model file, memory-maps it read-only and hands the bytes
 * to the PLY or OBJ parser (see load.h for the dispatch rule).
 *
 * The mapping is private and read-only; the parsers never read past its
 * size, so no terminating byte is needed. It is unmapped before returning:
 * the mesh owns copies of everything it needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load.h"
#include "load_private.h"

static bool has_extension(const char *path, const char *extension)
{
    size_t length = strlen(path), ext_length = strlen(extension);
    return length >= ext_length && strcasecmp(path + length - ext_length, extension) == 0;
}

ds_status ds_load_mesh(const char *path, ds_mesh *dest)
{
    if (!path || !dest)
        return ds_fail(DS_ERR_INVALID_ARG, "ds_load_mesh: %s is NULL", path ? "dest" : "path");
    memset(dest, 0, sizeof *dest);

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ds_fail(DS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int error = errno;
        close(fd);
        return ds_fail(DS_ERR_IO, "%s: cannot stat: %s", path, strerror(error));
    }
    if (S_ISDIR(info.st_mode)) {
        close(fd);
        return ds_fail(DS_ERR_IO, "%s: is a directory, not a model file", path);
    }
    if (!S_ISREG(info.st_mode)) {
        close(fd);
        return ds_fail(DS_ERR_IO, "%s: not a regular file", path);
    }
    if (info.st_size == 0) {
        close(fd);
        return ds_fail(DS_ERR_PARSE, "%s: empty file", path);
    }
    size_t size = (size_t)info.st_size;
    void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_error = errno;
    close(fd); /* the mapping keeps the file referenced */
    if (data == MAP_FAILED)
        return ds_fail(DS_ERR_IO, "%s: cannot map %zu bytes: %s", path, size, strerror(map_error));
    /* One front-to-back pass: let the kernel read ahead aggressively. */
    madvise(data, size, MADV_SEQUENTIAL);

    ds_status status;
    if (size >= 3 && memcmp(data, "ply", 3) == 0)
        status = ds_load_ply_memory(data, size, path, dest);
    else if (has_extension(path, ".obj"))
        status = ds_load_obj_memory(data, size, path, dest);
    else if (has_extension(path, ".ply"))
        status = ds_load_ply_memory(data, size, path, dest); /* reports "not a PLY file" */
    else
        status = ds_fail(DS_ERR_PARSE, "%s: unknown format: the file does not start with \"ply\" "
                                       "and its name does not end in .obj",
                         path);
    munmap(data, size);
    return status;
}

/* Both formats: parse, then complete the mesh; a mesh that cannot be
 * finished is freed so that *dest is empty on every failure. */
static ds_status parse_and_finish(ds_status (*parse)(const void *, size_t, const char *, ds_mesh *),
                                  const void *data, size_t size, const char *name, ds_mesh *dest)
{
    ds_status status = parse(data, size, name, dest);
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
