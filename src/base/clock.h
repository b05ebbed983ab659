/* SPDX-License-Identifier: MIT */
/* clock.h — the one host clock: monotonic milliseconds for timing stages,
 * frames and loads. */
#ifndef DS_CLOCK_H
#define DS_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds on the monotonic clock since an unspecified start; only
 * differences mean anything. */
double ds_now_ms(void);

#ifdef __cplusplus
}
#endif
#endif
