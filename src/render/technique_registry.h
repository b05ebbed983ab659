/* SPDX-License-Identifier: MIT */
/* technique_registry.h — the one list of transparency techniques.
 *
 * Every other list comes from this one: the ds_technique enum and the names
 * (render_types.h), the backend table and its extern declarations
 * (technique.c, technique.h), the CMake source list (which reads the FILE
 * column), --compare's names, its "all" order and its --help line, the
 * viewer's X cycle, its labels and its help line, the JSON and CSV names,
 * and the test lists. Adding a technique is one file plus one line here;
 * docs/architecture.md has the steps.
 *
 * Columns: X(ID, name, FILE, label, cycle, summary)
 *   ID       enum suffix: DS_TECHNIQUE_<ID>
 *   name     what a user types (--compare name) and what the JSON and CSV
 *            call it
 *   FILE     the source file's stem: src/render/technique_<FILE>.c, whose
 *            ds_technique_backend object is ds_technique_<FILE>
 *            (technique.h); two lines may share one (sorted and unsorted
 *            are one draw, with the sort on or off)
 *   label    how the viewer's overlay and help name it
 *   cycle    its place in the viewer's X cycle (1 first), or 0 for none;
 *            fixed per technique so that a new line never moves another's
 *   summary  one line for --help and the viewer's help, at most 56
 *            characters: what it composites and how
 *
 * The order is the enum's and --compare all's.
 */
#ifndef DS_TECHNIQUE_REGISTRY_H
#define DS_TECHNIQUE_REGISTRY_H

/* A build may add lines for itself (the tests add a technique this way,
 * tests/technique_flat.c): DS_TECHNIQUE_REGISTRY_EXTRA names a header
 * that defines DS_TECHNIQUE_REGISTRY_MORE(X). */
#ifdef DS_TECHNIQUE_REGISTRY_EXTRA
#include DS_TECHNIQUE_REGISTRY_EXTRA
#else
#define DS_TECHNIQUE_REGISTRY_MORE(X)
#endif

/* clang-format off */
#define DS_TECHNIQUE_REGISTRY(X)                                                  \
    X(UNSORTED, unsorted, sorted,  "UNSORTED",         2,                        \
      "the mesh's order, \"over\": what wrong blending does")                   \
    X(SORTED,   sorted,   sorted,  "sorted",           1,                        \
      "primitives sorted far first, \"over\"")                                   \
    X(WBOIT,    wboit,    wboit,   "WBOIT",            3,                        \
      "weighted blended OIT (McGuire and Bavoil 2013)")                          \
    X(PEEL,     peel,     peel,    "peel (exact)",     0,                        \
      "depth peeling, front to back, exact")                                     \
    X(ABUFFER,  abuffer,  abuffer, "A-buffer (exact)", 4,                        \
      "per-pixel linked lists, sorted, exact (the reference)")                   \
    X(COMPUTE,  compute,  compute, "compute raster, triangle order", 6,          \
      "compute raster: sorted triangles' fragments, \"over\"")                 \
    X(COMPUTE_EXACT, compute-exact, compute_exact, "compute raster (exact)", 7,  \
      "compute raster: every fragment sorted by depth, exact")                   \
    DS_TECHNIQUE_REGISTRY_MORE(X)
/* clang-format on */

#endif
