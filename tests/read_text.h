/* SPDX-License-Identifier: MIT */
/* read_text.h — the whole of a small text file into a buffer, for tests
 * that check what a program or a writer left in a file; header-only. */
#ifndef DS_READ_TEXT_H
#define DS_READ_TEXT_H

#include <stdio.h>

/* The whole of a small text file into dest, NUL-terminated and cut at
 * capacity - 1 bytes (empty when unreadable). */
static inline void read_text(const char *path, char *dest, size_t capacity)
{
    dest[0] = '\0';
    FILE *file = fopen(path, "rb");
    if (!file)
        return;
    size_t length = fread(dest, 1, capacity - 1, file);
    dest[length] = '\0';
    fclose(file);
}

#endif
