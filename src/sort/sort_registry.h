/* SPDX-License-Identifier: MIT */
/* sort_registry.h — the one list of sort algorithms.
 *
 * Every other list comes from this one: the ds_sort_algo enum and the names
 * (sort.h), the backend table and its extern declarations (sort.c,
 * sort_backend.h), the viewer's hotkeys and help, the command line's usage,
 * the test and benchmark algorithm lists, and the CMake source list (which
 * reads the FILE column). Adding an algorithm is one file plus one line
 * here; docs/sort-library.md has the steps.
 *
 * Columns: X(ID, name, FILE, hotkey, summary)
 *   ID       enum suffix: DS_SORT_<ID>
 *   name     what a user types (--sort name); the backend object is
 *            ds_sort_backend_<name>
 *   FILE     the source file's stem: kernels/sort/sort_<FILE>.cu, or
 *            src/sort/sort_<FILE>.c for a host backend
 *   hotkey   the viewer key that selects it ('1'..'9', '0'), or 0 for none;
 *            fixed per algorithm so that a new line never moves another's
 *   summary  one line for --help and the viewer's help panel
 *
 * The order is the enum's, the Tab order and the --sort all order.
 */
#ifndef DS_SORT_REGISTRY_H
#define DS_SORT_REGISTRY_H

/* clang-format off */
#define DS_SORT_REGISTRY(X)                                                      \
    X(CUB,      cub,      cub,     '1', "CUB DeviceRadixSort (the baseline)")    \
    X(RADIX,    radix,    radix,   '2', "LSD radix sort, Merrill & Grimshaw")    \
    X(HYBRID,   hybrid,   hybrid,  '3', "bucket + merge sort, Sintorn & Assarsson") \
    X(QUICK,    quick,    quick,   '4', "GPU quicksort, Cederman & Tsigas")      \
    X(BITONIC0, bitonic0, bitonic, '5', "bitonic, one launch per step")          \
    X(BITONIC1, bitonic1, bitonic, '6', "bitonic, low steps fused per block")    \
    X(BITONIC2, bitonic2, bitonic, '7', "bitonic, merged passes in shared memory") \
    X(CPU,      cpu,      cpu,     '8', "host LSD radix sort (reference, no GPU)")
/* clang-format on */

#endif
