/* SPDX-License-Identifier: MIT */
/* host_memory.h — how much host memory this process may still take, for
 * the checks that refuse a model, a grid or a renderer before allocating
 * it (rather than being killed by the kernel's OOM killer halfway). */
#ifndef DS_HOST_MEMORY_H
#define DS_HOST_MEMORY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of host memory available now: /proc/meminfo's MemAvailable,
 * lowered to what the cgroup v2 limit (memory.max less memory.current,
 * whose inactive page cache is not counted as used) and RLIMIT_DATA leave
 * when they are smaller. 0 when none of these can be read (not Linux):
 * the caller then checks nothing. */
uint64_t ds_host_memory_available(void);

/* "1.5 GiB", "12.0 MiB", "700 bytes": a byte count for messages. */
void ds_format_bytes(uint64_t bytes, char *dest, unsigned capacity);

#ifdef __cplusplus
}
#endif
#endif
