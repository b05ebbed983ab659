/* SPDX-License-Identifier: MIT */
/* bench_load.c — loader throughput and peak memory (a benchmark, never a
 * timed test).
 *
 *   bench_load [--repeat N] FILE...        parse MB/s and load MB/s per file
 *   bench_load --memory FILE               peak memory of one ds_load_mesh
 *   bench_load --write-binary IN OUT [le|be]
 *                                          writes IN's mesh as binary PLY
 *                                          (float x y z, uchar/int faces)
 *
 * "parse" times the parser alone (ds_parse_ply / ds_parse_obj) on a mapping
 * that was touched once beforehand, i.e. from the page cache; "load" adds
 * ds_mesh_finish() (bounds, normals, colours), which is the mesh module's
 * cost, not the parser's. Both report the median of the repeats, timed
 * as the loading thread's CPU time (page faults included) so that other
 * jobs on a shared machine do not distort the numbers.
 * --memory runs in a fresh process and compares the peak resident set added
 * by ds_load_mesh() (which reads the file into its own buffer and frees it
 * before finishing the mesh) with the file's size, which bounds it twice
 * over for the loaders' valid files (loading.md).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "load.h"
#include "load_private.h"

#define DEFAULT_REPEATS 9

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return values[count / 2];
}

static const void *map_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0 || info.st_size == 0) {
        fprintf(stderr, "bench_load: cannot open %s\n", path);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *size = (size_t)info.st_size;
    void *data = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    return data == MAP_FAILED ? NULL : data;
}

static size_t mesh_bytes(const ds_mesh *mesh)
{
    return mesh->vertex_count * (3 * sizeof(float) * 2 + 4) + mesh->triangle_count * 3 * sizeof(uint32_t);
}

static int bench_file(const char *path, int repeats)
{
    size_t size = 0;
    const void *data = map_file(path, &size);
    if (!data)
        return 1;
    int is_ply = size >= 3 && memcmp(data, "ply", 3) == 0;
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < size; i += 4096) /* fault the pages in once */
        sink ^= ((const unsigned char *)data)[i];
    (void)sink;

    double *parse_times = malloc((size_t)repeats * sizeof(double));
    double *load_times = malloc((size_t)repeats * sizeof(double));
    if (!parse_times || !load_times)
        return 1;
    ds_mesh mesh;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_seconds();
        ds_status status = is_ply ? ds_parse_ply(data, size, path, NULL, &mesh) : ds_parse_obj(data, size, path, NULL, &mesh);
        double t1 = now_seconds();
        if (status != DS_OK)
            return 1;
        ds_mesh_free(&mesh);
        double t2 = now_seconds();
        status = is_ply ? ds_load_ply_memory(data, size, path, &mesh) : ds_load_obj_memory(data, size, path, &mesh);
        double t3 = now_seconds();
        if (status != DS_OK)
            return 1;
        parse_times[r] = t1 - t0;
        load_times[r] = t3 - t2;
        if (r + 1 < repeats)
            ds_mesh_free(&mesh);
    }
    double parse = median(parse_times, repeats), load = median(load_times, repeats);
    const char *slash = strrchr(path, '/');
    printf("%-28s %8.1f MB %9zu v %9zu t  parse %7.1f ms %7.0f MB/s   load %7.1f ms %7.0f MB/s\n",
           slash ? slash + 1 : path, (double)size / 1e6, mesh.vertex_count, mesh.triangle_count,
           parse * 1e3, (double)size / 1e6 / parse, load * 1e3, (double)size / 1e6 / load);
    ds_mesh_free(&mesh);
    free(parse_times);
    free(load_times);
    munmap((void *)data, size);
    return 0;
}

static long peak_rss_kib(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

static int bench_memory(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0)
        return 1;
    long before = peak_rss_kib();
    ds_mesh mesh;
    if (ds_load_mesh(path, &mesh) != DS_OK)
        return 1;
    long after = peak_rss_kib();
    double added = (double)(after - before) * 1024.0;
    double file = (double)info.st_size, bytes = (double)mesh_bytes(&mesh);
    printf("%s: peak RSS +%.1f MB = %.2f x the file (%.1f MB); the finished mesh holds %.1f MB\n",
           path, added / 1e6, added / file, file / 1e6, bytes / 1e6);
    ds_mesh_free(&mesh);
    return 0;
}

static void put_u32(unsigned char *dest, uint32_t value, int big_endian)
{
    for (int i = 0; i < 4; i++)
        dest[i] = (unsigned char)(value >> (big_endian ? 24 - 8 * i : 8 * i));
}

static int write_binary(const char *in, const char *out, int big_endian)
{
    ds_mesh mesh;
    if (ds_load_mesh(in, &mesh) != DS_OK)
        return 1;
    FILE *file = fopen(out, "wb");
    if (!file) {
        fprintf(stderr, "bench_load: cannot write %s\n", out);
        return 1;
    }
    fprintf(file,
            "ply\nformat %s 1.0\ncomment written by bench_load from %s\nelement vertex %zu\n"
            "property float x\nproperty float y\nproperty float z\nelement face %zu\n"
            "property list uchar int vertex_indices\nend_header\n",
            big_endian ? "binary_big_endian" : "binary_little_endian", in, mesh.vertex_count,
            mesh.triangle_count);
    for (size_t v = 0; v < mesh.vertex_count; v++) {
        unsigned char bytes[12];
        for (int k = 0; k < 3; k++) {
            uint32_t bits;
            memcpy(&bits, &mesh.positions[3 * v + (size_t)k], 4);
            put_u32(bytes + 4 * k, bits, big_endian);
        }
        fwrite(bytes, 1, sizeof bytes, file);
    }
    for (size_t t = 0; t < mesh.triangle_count; t++) {
        unsigned char bytes[13] = {3};
        for (int k = 0; k < 3; k++)
            put_u32(bytes + 1 + 4 * k, mesh.indices[3 * t + (size_t)k], big_endian);
        fwrite(bytes, 1, sizeof bytes, file);
    }
    int failed = fclose(file) != 0;
    ds_mesh_free(&mesh);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--write-binary") == 0)
        return write_binary(argv[2], argv[3], argc >= 5 && strcmp(argv[4], "be") == 0);
    if (argc == 3 && strcmp(argv[1], "--memory") == 0)
        return bench_memory(argv[2]);
    int first = 1, repeats = DEFAULT_REPEATS;
    if (argc >= 3 && strcmp(argv[1], "--repeat") == 0) {
        repeats = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || repeats < 1) {
        fprintf(stderr, "usage: bench_load [--repeat N] FILE... | --memory FILE | "
                        "--write-binary IN OUT [le|be]\n");
        return 2;
    }
    int failed = 0;
    for (int i = first; i < argc; i++)
        failed |= bench_file(argv[i], repeats);
    return failed;
}
