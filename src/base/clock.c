/* SPDX-License-Identifier: MIT */
/* clock.c — ds_now_ms() on CLOCK_MONOTONIC. */
#include "clock.h"

#include <time.h>

double ds_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
