/* SPDX-License-Identifier: MIT */
/* timeline.h — the renderer's event timeline (renderer.h,
 * ds_renderer_timeline_start): host clock readings around every wait and
 * submit of a frame, GL timestamp queries and CUDA events, all put on the
 * host clock afterwards. Only src/render includes it; the hooks below cost
 * one NULL test when no timeline is being recorded. */
#ifndef DS_TIMELINE_H
#define DS_TIMELINE_H

typedef struct ds_timeline ds_timeline;

/* Out of line: records the host clock now under `name` (a string literal)
 * if the current frame is in the window. */
void ds_timeline_host_now(ds_timeline *timeline, const char *name);

/* The host clock now, under `name`, when a timeline is recording. */
#define DS_TIMELINE_HOST(timeline, name)                                       \
    do {                                                                       \
        if (timeline)                                                          \
            ds_timeline_host_now((timeline), (name));                          \
    } while (0)

#endif
