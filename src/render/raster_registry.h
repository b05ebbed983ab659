/* SPDX-License-Identifier: MIT */
/* raster_registry.h — the one list of raster paths: what turns a sorted
 * frame's primitives into pixels.
 *
 * Every other list comes from this one: the ds_raster_path enum and the
 * names (render_types.h), the backend table and its extern declarations
 * (raster.c, raster.h), and the CMake source list (which reads the FILE
 * column). Adding a raster path is one file plus one line here;
 * docs/architecture.md has the steps.
 *
 * Columns: X(ID, name, FILE, summary)
 *   ID       enum suffix: DS_RASTER_<ID>
 *   name     what a user types and the tables print
 *   FILE     the source file's stem: src/render/raster_<FILE>.c, whose
 *            ds_raster_backend object is ds_raster_<FILE> (raster.h)
 *   summary  one line: how it draws
 *
 * The order is the enum's; the first is the default.
 */
#ifndef DS_RASTER_REGISTRY_H
#define DS_RASTER_REGISTRY_H

/* clang-format off */
#define DS_RASTER_REGISTRY(X)                                                     \
    X(HW, hw, hw, "the GPU's rasteriser: GL draws of the sorted elements")          \
    X(COMPUTE, compute, compute,                                                  \
      "compute shaders on every SM: the sorted triangles' fragments, exact coverage")
/* clang-format on */

#endif
