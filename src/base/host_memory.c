/* SPDX-License-Identifier: MIT */
/* host_memory.c — available host memory from /proc/meminfo, the cgroup v2
 * limit and RLIMIT_DATA (see host_memory.h). */
#include "host_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The number after "KEY" and `separator` on a line of `path` (a
 * /proc/meminfo or a cgroup memory.stat line); 0 if absent. */
static uint64_t keyed_number(const char *path, const char *key, char separator)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    char line[256];
    size_t key_length = strlen(key);
    uint64_t value = 0;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, key, key_length) == 0 && line[key_length] == separator) {
            value = strtoull(line + key_length + 1, NULL, 10);
            break;
        }
    }
    fclose(file);
    return value;
}

/* The value of "Key:  N kB" in /proc/meminfo, in bytes; 0 if absent. */
static uint64_t meminfo_bytes(const char *key)
{
    return keyed_number("/proc/meminfo", key, ':') * 1024u;
}

/* A cgroup v2 file holding one number ("max" reads as 0: no limit). */
static uint64_t cgroup_number(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    char text[64] = "";
    int got = fgets(text, sizeof text, file) != NULL;
    fclose(file);
    if (!got || strncmp(text, "max", 3) == 0)
        return 0;
    return strtoull(text, NULL, 10);
}

uint64_t ds_host_memory_available(void)
{
    uint64_t available = meminfo_bytes("MemAvailable");
    /* A container's own limit (the usual cgroup v2 mount point; the tests
     * point DS_TEST_CGROUP_DIR at files of their own). memory.current
     * counts the page cache too, which the kernel reclaims before it
     * kills: reading a model fills it by the file's size. Its inactive
     * part is not counted as used (as MemAvailable does not count it). */
    const char *dir = getenv("DS_TEST_CGROUP_DIR");
    if (!dir || !*dir)
        dir = "/sys/fs/cgroup";
    char path[512];
    snprintf(path, sizeof path, "%s/memory.max", dir);
    uint64_t limit = cgroup_number(path);
    if (limit) {
        snprintf(path, sizeof path, "%s/memory.current", dir);
        uint64_t used = cgroup_number(path);
        snprintf(path, sizeof path, "%s/memory.stat", dir);
        uint64_t cache = keyed_number(path, "inactive_file", ' ');
        used = used > cache ? used - cache : 0;
        uint64_t left = limit > used ? limit - used : 0;
        if (!available || left < available)
            available = left;
    }
    struct rlimit data;
    if (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY) {
        if (!available || (uint64_t)data.rlim_cur < available)
            available = (uint64_t)data.rlim_cur;
    }
    return available;
}

void ds_format_bytes(uint64_t bytes, char *dest, unsigned capacity)
{
    const double kib = 1024.0, mib = kib * kib, gib = mib * kib;
    if (bytes >= (uint64_t)gib)
        snprintf(dest, capacity, "%.1f GiB", (double)bytes / gib);
    else if (bytes >= (uint64_t)mib)
        snprintf(dest, capacity, "%.1f MiB", (double)bytes / mib);
    else
        snprintf(dest, capacity, "%llu bytes", (unsigned long long)bytes);
}
