/* SPDX-License-Identifier: MIT */
/* test_load_robust.c — the loaders against hostile paths and files: FIFOs,
 * devices, procfs files and directories refused before any blocking open;
 * a file truncated by another thread while it loads (one error line or the
 * whole mesh, never a signal); the memory budget refusing a uchar-list PLY
 * that expands to many triangles, naming the estimate and the limit, and
 * counting a PLY's own bytes before they are read; a
 * UTF-8 byte order mark (skipped in OBJ, named in PLY); binary junk named
 * .obj refused at its first byte without reading the rest; a 23-digit OBJ
 * index quoted as written. And the other direction: output files written
 * beside their target and renamed only when complete, leaving nothing
 * behind when the writer dies first (output_file.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_memory.h"
#include "load.h"
#include "output_file.h"
#include "read_text.h"

static char work_dir[256];

static const char *temp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", work_dir, name);
    return path;
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/ds_load_robust_XXXXXX");
    assert_non_null(mkdtemp(work_dir));
    ds_log_set_quiet(1);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
    return system(command) == 0 ? 0 : -1;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(data, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

static void expect_error(ds_status status, ds_status expected, const char *fragment)
{
    if (status != expected || !strstr(ds_last_error(), fragment))
        fail_msg("expected status %d with \"%s\", got %d: \"%s\"", (int)expected, fragment,
                 (int)status, ds_last_error());
}

/* A load that would block (the old loader opened before it checked) must
 * not hang the test: SIGALRM ends it as a failure. */
static void on_alarm(int signal_number)
{
    (void)signal_number;
    static const char message[] = "test_load_robust: a load blocked (FIFO opened for reading?)\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(1);
}

static void test_fifo_refused_without_blocking(void **state)
{
    (void)state;
    const char *path = temp_path("pipe.ply");
    assert_int_equal(mkfifo(path, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(10);
    ds_mesh mesh;
    expect_error(ds_load_mesh(path, &mesh), DS_ERR_IO, "pipe.ply: is a FIFO");
    alarm(0);
    assert_null(mesh.positions);
    unlink(path);
}

static void test_devices_procfs_and_directories(void **state)
{
    (void)state;
    ds_mesh mesh;
    expect_error(ds_load_mesh("/dev/null", &mesh), DS_ERR_IO, "/dev/null: is a character device");
    expect_error(ds_load_mesh("/proc/self/status", &mesh), DS_ERR_IO,
                 "/proc/self/status: is not a regular file (procfs reports size 0)");
    expect_error(ds_load_mesh(work_dir, &mesh), DS_ERR_IO, "is a directory");
    expect_error(ds_load_mesh(temp_path("missing.obj"), &mesh), DS_ERR_IO, "cannot open");
}

/* ---- a file truncated while it loads -------------------------------------- */

typedef struct truncator {
    const char *path;
    long delay_ns;
    off_t size;
} truncator;

static void *truncate_later(void *arg)
{
    const truncator *t = arg;
    struct timespec delay = {t->delay_ns / 1000000000L, t->delay_ns % 1000000000L};
    nanosleep(&delay, NULL);
    if (truncate(t->path, t->size / 3) != 0)
        perror("truncate");
    return NULL;
}

/* An ascii PLY grid of n × n vertices, large enough that loading it takes
 * tens of milliseconds: a truncation lands while the file is parsed. */
static size_t write_grid_ply(const char *path, int n)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    fprintf(file, "ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
                  "property float z\nelement face %d\nproperty list uchar int vertex_indices\n"
                  "end_header\n",
            n * n, 2 * (n - 1) * (n - 1));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            fprintf(file, "%.6f %.6f %.6f\n", i * 0.01, 0.001 * ((i * 7 + j * 13) % 17), j * 0.01);
    for (int j = 0; j + 1 < n; j++)
        for (int i = 0; i + 1 < n; i++) {
            int a = j * n + i;
            fprintf(file, "3 %d %d %d\n3 %d %d %d\n", a, a + 1, a + n, a + 1, a + n + 1, a + n);
        }
    long size = ftell(file);
    assert_int_equal(fclose(file), 0);
    return (size_t)size;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

/* A mapped loader dies of SIGBUS here: the other thread cuts the file to a
 * third at points spread over the load's duration. Every load must give
 * the whole mesh or one error line saying that the file changed. */
static void test_truncated_while_loading(void **state)
{
    (void)state;
    const int n = 700;
    const char *path = temp_path("shrinking.ply");
    size_t size = write_grid_ply(path, n);
    ds_mesh mesh;
    double start = now_ns();
    assert_int_equal(ds_load_mesh(path, &mesh), DS_OK);
    double load_ns = now_ns() - start;
    assert_int_equal(mesh.vertex_count, (size_t)n * n);
    ds_mesh_free(&mesh);
    int failed = 0, loaded = 0;
    for (int round = 0; round < 10; round++) {
        if (round > 0)
            assert_int_equal(write_grid_ply(path, n), size);
        truncator t = {path, (long)(load_ns * round / 10.0), (off_t)size};
        pthread_t thread;
        assert_int_equal(pthread_create(&thread, NULL, truncate_later, &t), 0);
        ds_status status = ds_load_mesh(path, &mesh);
        assert_int_equal(pthread_join(thread, NULL), 0);
        if (status == DS_OK) {
            assert_int_equal(mesh.vertex_count, (size_t)n * n);
            assert_int_equal(mesh.triangle_count, (size_t)2 * (n - 1) * (n - 1));
            loaded++;
        } else {
            /* Cut before the read: a truncated PLY; during it: changed. */
            if (!strstr(ds_last_error(), "changed while it was read") &&
                !strstr(ds_last_error(), "truncated") &&
                !strstr(ds_last_error(), "more than the"))
                fail_msg("round %d: unexpected error \"%s\"", round, ds_last_error());
            assert_null(mesh.positions);
            failed++;
        }
        ds_mesh_free(&mesh);
    }
    print_message("truncation rounds: %d loaded whole, %d refused (load %.1f ms)\n", loaded,
                  failed, load_ns / 1e6);
    assert_int_equal(loaded + failed, 10);
}

/* ---- the memory budget ---------------------------------------------------- */

/* A binary PLY of 256 vertices whose faces are uchar lists of 255 uchar
 * indices: 253 triangles from every 256 bytes, where the header counts one
 * face. */
static size_t write_uchar_list_ply(const char *path, int faces)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    fprintf(file, "ply\nformat binary_little_endian 1.0\nelement vertex 256\nproperty float x\n"
                  "property float y\nproperty float z\nelement face %d\n"
                  "property list uchar uchar vertex_indices\nend_header\n",
            faces);
    for (int v = 0; v < 256; v++) {
        float xyz[3] = {(float)(v % 16), (float)((v * 7) % 5), (float)(v / 16)};
        fwrite(xyz, sizeof xyz, 1, file);
    }
    unsigned char face[256];
    face[0] = 255;
    for (int k = 0; k < 255; k++)
        face[1 + k] = (unsigned char)k;
    for (int f = 0; f < faces; f++)
        fwrite(face, sizeof face, 1, file);
    long size = ftell(file);
    assert_int_equal(fclose(file), 0);
    return (size_t)size;
}

typedef struct seen_counts {
    uint64_t vertices, triangles, mesh_bytes;
    int calls;
} seen_counts;

static ds_status record_counts(void *context, const char *name, uint64_t vertices,
                               uint64_t triangles, uint64_t mesh_bytes)
{
    (void)name;
    seen_counts *seen = context;
    seen->vertices = vertices;
    seen->triangles = triangles;
    seen->mesh_bytes = mesh_bytes;
    seen->calls++;
    return DS_OK;
}

static void test_uchar_lists_checked_against_budget(void **state)
{
    (void)state;
    const char *path = temp_path("lists.ply");
    const int faces = 4000; /* 1 MB: 1,012,000 triangles, 12 MB of indices */
    size_t size = write_uchar_list_ply(path, faces);
    ds_mesh mesh;

    /* A limit of 4 MiB: the indices alone are three times that. The
     * refusal names the triangles the file holds (its lists all have one
     * length), not a growing array's capacity. */
    ds_load_budget tight = {.host_bytes = 4u << 20};
    expect_error(ds_load_mesh_budget(path, &tight, &mesh), DS_ERR_TOO_LARGE,
                 "lists.ply: 256 vertices and 1012000 triangles need about 11.6 MiB of host "
                 "memory to load; 4.0 MiB is available");
    assert_null(mesh.positions);
    assert_null(mesh.indices);

    /* Within the budget it loads, and the caller's check saw the counts
     * that grew past the header's face count: the file's, exactly. */
    seen_counts seen = {0};
    ds_load_budget roomy = {.host_bytes = 64u << 20, .check = record_counts, .context = &seen};
    assert_int_equal(ds_load_mesh_budget(path, &roomy, &mesh), DS_OK);
    assert_int_equal(mesh.triangle_count, (size_t)faces * 253);
    assert_true(seen.calls >= 2);
    assert_int_equal(seen.vertices, 256);
    assert_int_equal(seen.triangles, (uint64_t)faces * 253);
    assert_int_equal(seen.mesh_bytes, 256 * 28 + seen.triangles * 12);
    print_message("uchar-list PLY: %zu bytes, %zu triangles\n", size, mesh.triangle_count);
    ds_mesh_free(&mesh);

    /* 12 MiB holds the mesh (11.6 MiB) but not a capacity grown by half
     * again past it, which the budget was once asked about: it loads. */
    ds_load_budget close = {.host_bytes = 12u << 20};
    assert_int_equal(ds_load_mesh_budget(path, &close, &mesh), DS_OK);
    assert_int_equal(mesh.triangle_count, (size_t)faces * 253);
    ds_mesh_free(&mesh);

    /* One long list first, then triangles: the estimate stays within what
     * the rest of the file can hold (a 1,000-corner polygon is not taken
     * for a thousand of them). */
    const char *mixed_path = temp_path("mixed_lists.ply");
    FILE *file = fopen(mixed_path, "wb");
    assert_non_null(file);
    fprintf(file, "ply\nformat binary_little_endian 1.0\nelement vertex 1000\nproperty float x\n"
                  "property float y\nproperty float z\nelement face 1001\n"
                  "property list uchar int vertex_indices\nend_header\n");
    for (int v = 0; v < 1000; v++) {
        float xyz[3] = {(float)(v % 10), (float)((v / 10) % 10), (float)(v / 100)};
        fwrite(xyz, sizeof xyz, 1, file);
    }
    unsigned char count = 250; /* four fans of 250 corners: 992 triangles */
    for (int f = 0; f < 4; f++) {
        fwrite(&count, 1, 1, file);
        for (int32_t k = 0; k < 250; k++) {
            int32_t index = 250 * f + k;
            fwrite(&index, sizeof index, 1, file);
        }
    }
    for (int f = 0; f < 997; f++) {
        unsigned char three = 3;
        int32_t tri[3] = {f, f + 1, f + 2};
        fwrite(&three, 1, 1, file);
        fwrite(tri, sizeof tri, 1, file);
    }
    assert_int_equal(fclose(file), 0);
    seen = (seen_counts){0};
    ds_load_budget watched = {.check = record_counts, .context = &seen};
    assert_int_equal(ds_load_mesh_budget(mixed_path, &watched, &mesh), DS_OK);
    assert_int_equal(mesh.triangle_count, 992 + 997);
    /* The rest of the file holds at most its bytes over 4 in indices. */
    assert_true(seen.triangles <= 992 + 997 * 13 / 4 + 1);
    ds_mesh_free(&mesh);
}

/* Before the body is read, the buffer that will hold the file counts: a
 * PLY whose mesh fits the limit but not beside its own bytes is refused
 * then, naming the estimate, instead of failing to allocate (or being
 * killed for memory) after the whole file was read. */
static void test_budget_counts_the_file(void **state)
{
    (void)state;
    const char *path = temp_path("grid_budget.ply");
    size_t size = write_grid_ply(path, 100); /* 10,000 vertices, 19,602 triangles */
    uint64_t mesh = 10000u * 28u + 19602u * 12u, finish = 10000u * 24u;
    assert_true(size > finish);
    ds_mesh loaded;
    ds_load_budget roomy = {.host_bytes = mesh + size};
    assert_int_equal(ds_load_mesh_budget(path, &roomy, &loaded), DS_OK);
    ds_mesh_free(&loaded);
    ds_load_budget tight = {.host_bytes = mesh + (size + finish) / 2};
    expect_error(ds_load_mesh_budget(path, &tight, &loaded), DS_ERR_TOO_LARGE,
                 "grid_budget.ply: 10000 vertices and 19602 triangles need about");
    assert_null(loaded.positions);
}

/* The caller's check refuses: its status comes back, nothing is kept. */
static ds_status refuse_counts(void *context, const char *name, uint64_t vertices,
                               uint64_t triangles, uint64_t mesh_bytes)
{
    (void)context;
    (void)mesh_bytes;
    return ds_fail(DS_ERR_INVALID_ARG, "%s: refused %llu/%llu", name, (unsigned long long)vertices,
                   (unsigned long long)triangles);
}

static void test_budget_check_before_body(void **state)
{
    (void)state;
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n";
    const char *path = temp_path("small.obj");
    write_file(path, obj, sizeof obj - 1);
    ds_load_budget refuse = {.check = refuse_counts};
    ds_mesh mesh;
    expect_error(ds_load_mesh_budget(path, &refuse, &mesh), DS_ERR_INVALID_ARG,
                 "small.obj: refused 3/1");
    assert_null(mesh.positions);
}

/* A container's limit: memory.current counts the page cache, which reading
 * a model fills by the file's size and the kernel reclaims before it
 * kills; its inactive part is not memory in use. */
static void test_cgroup_page_cache_is_available(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s", temp_path("cgroup"));
    assert_int_equal(mkdir(dir, 0700), 0);
    /* No limit here: MemAvailable (and RLIMIT_DATA) alone. */
    setenv("DS_TEST_CGROUP_DIR", dir, 1);
    uint64_t machine = ds_host_memory_available();
    const uint64_t mib = 1u << 20;
    snprintf(path, sizeof path, "%s/memory.max", dir);
    write_file(path, "1073741824\n", 11); /* 1 GiB */
    snprintf(path, sizeof path, "%s/memory.current", dir);
    write_file(path, "943718400\n", 10); /* 900 MiB, 600 of them inactive cache */
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    static const char stat[] = "anon 314572800\nfile 629145600\nactive_file 0\n"
                               "inactive_file 629145600\n";
    write_file(path, stat, sizeof stat - 1);
    uint64_t available = ds_host_memory_available();
    unsetenv("DS_TEST_CGROUP_DIR");
    print_message("cgroup: %llu MiB available (the machine: %llu MiB)\n",
                  (unsigned long long)(available / mib), (unsigned long long)(machine / mib));
    if (machine > 724 * mib) /* the cgroup's limit is the smaller */
        assert_int_equal(available, 724 * mib);
    else
        assert_int_equal(available, machine);
}

/* ---- byte order marks, binary junk, long indices -------------------------- */

static void test_bom_obj_loads_the_same_mesh(void **state)
{
    (void)state;
    static const char plain[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n";
    char marked[sizeof plain + 3];
    memcpy(marked, "\xEF\xBB\xBF", 3);
    memcpy(marked + 3, plain, sizeof plain);
    write_file(temp_path("plain.obj"), plain, sizeof plain - 1);
    write_file(temp_path("marked.obj"), marked, sizeof marked - 1);
    ds_mesh a, b;
    assert_int_equal(ds_load_mesh(temp_path("plain.obj"), &a), DS_OK);
    assert_int_equal(ds_load_mesh(temp_path("marked.obj"), &b), DS_OK);
    assert_int_equal(b.vertex_count, 4);
    assert_int_equal(b.triangle_count, 2);
    assert_memory_equal(a.positions, b.positions, 12 * sizeof(float));
    assert_memory_equal(a.indices, b.indices, 6 * sizeof(uint32_t));
    ds_mesh_free(&a);
    ds_mesh_free(&b);
    /* The first statement after the mark is a face: it must still count. */
    static const char face_first[] = "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    assert_int_equal(ds_load_obj_memory(face_first, sizeof face_first - 1, "m.obj", &a), DS_OK);
    assert_int_equal(a.vertex_count, 3);
    ds_mesh_free(&a);
}

static void test_bom_ply_named(void **state)
{
    (void)state;
    static const char marked[] = "\xEF\xBB\xBFply\nformat ascii 1.0\nelement vertex 1\n"
                                 "property float x\nproperty float y\nproperty float z\n"
                                 "end_header\n0 0 0\n";
    const char *path = temp_path("marked.ply");
    write_file(path, marked, sizeof marked - 1);
    ds_mesh mesh;
    expect_error(ds_load_mesh(path, &mesh), DS_ERR_PARSE, "UTF-8 byte order mark");
    /* Named .dat, it is still recognised as a PLY by its content. */
    write_file(temp_path("marked.dat"), marked, sizeof marked - 1);
    expect_error(ds_load_mesh(temp_path("marked.dat"), &mesh), DS_ERR_PARSE,
                 "UTF-8 byte order mark");
}

static long page_faults(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt + usage.ru_majflt;
}

static void test_binary_obj_refused_at_first_byte(void **state)
{
    (void)state;
    /* 1 GiB of NUL bytes (a sparse file): refused at byte 0, after the
     * first 64 KiB and with a few page faults; the old loader scanned it
     * whole. */
    const char *path = temp_path("zeros.obj");
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)1 << 30), 0);
    close(fd);
    ds_mesh mesh;
    long faults = page_faults();
    expect_error(ds_load_mesh(path, &mesh), DS_ERR_PARSE,
                 "zeros.obj: byte 0: 0x00 cannot be text");
    faults = page_faults() - faults;
    unlink(path);
    /* Read whole, the file would fault in 262,144 pages. */
    print_message("zeros.obj: refused with %ld page faults\n", faults);
    if (faults > 256)
        fail_msg("zeros.obj: %ld page faults to refuse it", faults);

    /* In memory, past a valid start: the offset of the first bad byte. */
    static const char mixed[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\n\x01\x02junk\nf 1 2 3\n";
    expect_error(ds_load_obj_memory(mixed, sizeof mixed - 1, "mixed.obj", &mesh), DS_ERR_PARSE,
                 "mixed.obj: byte 24: 0x01 cannot be text");
    /* Tabs, CR, form feed and bytes above 0x7f (UTF-8 comments) are text. */
    static const char spaced[] = "# caf\xC3\xA9\r\nv\t0 0 0\f\nv 1 0 0\r\nv 0 1 0\nf 1 2 3\n";
    assert_int_equal(ds_load_obj_memory(spaced, sizeof spaced - 1, "spaced.obj", &mesh), DS_OK);
    ds_mesh_free(&mesh);
}

static void test_long_index_quoted(void **state)
{
    (void)state;
    static const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 12345678901234567890123\n";
    ds_mesh mesh;
    expect_error(ds_load_obj_memory(text, sizeof text - 1, "long.obj", &mesh), DS_ERR_PARSE,
                 "face refers to vertex 12345678901234567890123 but only 3 are defined");
    static const char normal[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//-99999999999999999999\n";
    expect_error(ds_load_obj_memory(normal, sizeof normal - 1, "n.obj", &mesh), DS_ERR_PARSE,
                 "face refers to normal -99999999999999999999 but only 1 are defined");
}

/* ---- outputs: beside, then renamed --------------------------------------- */

/* Files in the work folder whose name holds ".tmp". */
static int count_temporary_files(void)
{
    DIR *dir = opendir(work_dir);
    assert_non_null(dir);
    int count = 0;
    for (struct dirent *entry; (entry = readdir(dir));)
        count += strstr(entry->d_name, ".tmp") != NULL;
    closedir(dir);
    return count;
}

static void test_output_replaced_only_when_complete(void **state)
{
    (void)state;
    char path[512], text[64];
    snprintf(path, sizeof path, "%s", temp_path("out.csv"));
    write_file(path, "old\n", 4);
    chmod(path, 0640);

    /* Discarded: the old file as it was. */
    FILE *file = ds_output_open(path, "cannot open for writing");
    assert_non_null(file);
    fputs("half", file);
    fflush(file);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "old\n");
    ds_output_discard(file, path);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "old\n");

    /* Committed: the new content, the old file's mode. */
    file = ds_output_open(path, "cannot open for writing");
    assert_non_null(file);
    fputs("new\n", file);
    assert_int_equal(ds_output_commit(file, path), DS_OK);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "new\n");
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    assert_int_equal(info.st_mode & 0777, 0640);

    /* Through a symbolic link: the link stays, its target is replaced. */
    char link_path[512];
    snprintf(link_path, sizeof link_path, "%s", temp_path("link.csv"));
    assert_int_equal(symlink(path, link_path), 0);
    file = ds_output_open(link_path, "cannot open for writing");
    assert_non_null(file);
    fputs("linked\n", file);
    assert_int_equal(ds_output_commit(file, link_path), DS_OK);
    assert_int_equal(lstat(link_path, &info), 0);
    assert_true(S_ISLNK(info.st_mode));
    read_text(path, text, sizeof text);
    assert_string_equal(text, "linked\n");

    /* A device is written as it is, never renamed over. */
    file = ds_output_open("/dev/null", "cannot open for writing");
    assert_non_null(file);
    fputs("nothing\n", file);
    assert_int_equal(ds_output_commit(file, "/dev/null"), DS_OK);
    assert_int_equal(stat("/dev/null", &info), 0);
    assert_true(S_ISCHR(info.st_mode));
    file = ds_output_open("/dev/full", "cannot open for writing");
    assert_non_null(file);
    fputs("full\n", file);
    expect_error(ds_output_commit(file, "/dev/full"), DS_ERR_IO, "/dev/full: write failed");
    assert_int_equal(stat("/dev/full", &info), 0);
    assert_true(S_ISCHR(info.st_mode));

    /* Killed while writing (a child that exits without committing): the
     * old file as it was, and no temporary file left in the folder. */
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        FILE *half = ds_output_open(path, "cannot open for writing");
        if (!half)
            _exit(2);
        fputs("half", half);
        fflush(half);
        _exit(0);
    }
    int child_status = 0;
    assert_int_equal(waitpid(child, &child_status, 0), child);
    assert_true(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "linked\n");
    int unnamed_here = open(work_dir, O_TMPFILE | O_WRONLY, 0600);
    if (unnamed_here >= 0) { /* the file system has O_TMPFILE */
        close(unnamed_here);
        assert_int_equal(count_temporary_files(), 0);
    } else {
        print_message("no O_TMPFILE here: a killed run leaves its temporary file\n");
    }

    /* Refused up front: a folder, a missing folder. */
    assert_null(ds_output_open(work_dir, "cannot open for writing"));
    assert_non_null(strstr(ds_last_error(), "cannot open for writing: Is a directory"));
    assert_null(ds_output_open("/nonexistent/x.csv", "cannot open for writing"));
    assert_non_null(strstr(ds_last_error(), "/nonexistent/x.csv: cannot open for writing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_refused_without_blocking),
        cmocka_unit_test(test_devices_procfs_and_directories),
        cmocka_unit_test(test_truncated_while_loading),
        cmocka_unit_test(test_uchar_lists_checked_against_budget),
        cmocka_unit_test(test_budget_check_before_body),
        cmocka_unit_test(test_budget_counts_the_file),
        cmocka_unit_test(test_cgroup_page_cache_is_available),
        cmocka_unit_test(test_bom_obj_loads_the_same_mesh),
        cmocka_unit_test(test_bom_ply_named),
        cmocka_unit_test(test_binary_obj_refused_at_first_byte),
        cmocka_unit_test(test_long_index_quoted),
        cmocka_unit_test(test_output_replaced_only_when_complete),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
