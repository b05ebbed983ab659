#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-sample-model.py — builds assets/bunny.ply from the Stanford bunny.

    python3 scripts/make-sample-model.py path/to/bun_zipper.ply assets/bunny.ply

Reads the Stanford Bunny (bun_zipper.ply, ASCII PLY, 35,947 vertices) and
reduces it by vertex clustering (Rossignac & Borrel, "Multi-resolution 3D
approximations for rendering complex scenes", 1993): the bounding box is cut
into cubic cells, every vertex moves to the mean of its cell's vertices,
triangles whose corners fall into fewer than three cells are dropped, and so
are repeated triangles and both sides of a fold (a triangle kept with its
reverse). Writes binary little-endian PLY with float x y z and
`list uchar uint vertex_indices`. Python's standard library only.
"""
import struct
import sys

CELLS_ACROSS = 56  # cells along the longest axis: about 12k triangles remain


def read_ascii_ply(path):
    with open(path, "r", encoding="ascii") as f:
        if f.readline().strip() != "ply":
            sys.exit(f"{path}: not a PLY file")
        vertex_count = face_count = 0
        vertex_props = []
        element = None
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "format" and words[1] != "ascii":
                sys.exit(f"{path}: expected an ASCII PLY")
            if words[0] == "element":
                element = words[1]
                if element == "vertex":
                    vertex_count = int(words[2])
                elif element == "face":
                    face_count = int(words[2])
            elif words[0] == "property" and element == "vertex":
                vertex_props.append(words[-1])
            elif words[0] == "end_header":
                break
        ix, iy, iz = (vertex_props.index(a) for a in ("x", "y", "z"))
        vertices = []
        for _ in range(vertex_count):
            v = f.readline().split()
            vertices.append((float(v[ix]), float(v[iy]), float(v[iz])))
        faces = []
        for _ in range(face_count):
            w = [int(x) for x in f.readline().split()]
            n = w[0]
            for k in range(1, n - 1):  # fan-triangulate polygons
                faces.append((w[1], w[1 + k], w[2 + k]))
    return vertices, faces


def rotation_min(t):
    """The triangle's smallest rotation: one name for its three rotations."""
    return min((t[0], t[1], t[2]), (t[1], t[2], t[0]), (t[2], t[0], t[1]))


def cluster(vertices, faces, cells_across):
    lo = [min(v[a] for v in vertices) for a in range(3)]
    hi = [max(v[a] for v in vertices) for a in range(3)]
    cell = max(h - l for h, l in zip(hi, lo)) / cells_across
    cell_of = {}
    sums = []
    vertex_cell = []
    for v in vertices:
        key = tuple(min(int((v[a] - lo[a]) / cell), cells_across - 1) for a in range(3))
        index = cell_of.get(key)
        if index is None:
            index = cell_of[key] = len(sums)
            sums.append([0.0, 0.0, 0.0, 0])
        s = sums[index]
        s[0] += v[0]
        s[1] += v[1]
        s[2] += v[2]
        s[3] += 1
        vertex_cell.append(index)
    seen = set()
    kept = []
    for a, b, c in faces:
        t = (vertex_cell[a], vertex_cell[b], vertex_cell[c])
        if len(set(t)) < 3:
            continue
        canonical = rotation_min(t)
        if canonical in seen:
            continue
        seen.add(canonical)
        kept.append(t)
    # A triangle kept with its reverse is a fold the clustering flattened
    # to zero volume: its two sides would blend twice at one place, and
    # their normals cancel at its corners. Both sides go.
    kept = [t for t in kept if rotation_min((t[0], t[2], t[1])) not in seen]
    # Keep only the cells a triangle uses, renumbered in first-use order.
    renumber = {}
    out_faces = []
    for t in kept:
        out_faces.append(tuple(renumber.setdefault(i, len(renumber)) for i in t))
    out_vertices = [None] * len(renumber)
    for old, new in renumber.items():
        s = sums[old]
        out_vertices[new] = (s[0] / s[3], s[1] / s[3], s[2] / s[3])
    return out_vertices, out_faces


def write_binary_ply(path, vertices, faces, source):
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        "comment Stanford Bunny, Stanford Computer Graphics Laboratory\n"
        f"comment reduced from {source} by scripts/make-sample-model.py\n"
        f"element vertex {len(vertices)}\n"
        "property float x\nproperty float y\nproperty float z\n"
        f"element face {len(faces)}\n"
        "property list uchar uint vertex_indices\nend_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        for v in vertices:
            f.write(struct.pack("<3f", *v))
        for t in faces:
            f.write(struct.pack("<B3I", 3, *t))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make-sample-model.py BUN_ZIPPER_PLY OUTPUT_PLY")
    vertices, faces = read_ascii_ply(sys.argv[1])
    out_vertices, out_faces = cluster(vertices, faces, CELLS_ACROSS)
    write_binary_ply(sys.argv[2], out_vertices, out_faces, "bun_zipper.ply")
    print(f"{sys.argv[2]}: {len(out_vertices)} vertices, {len(out_faces)} triangles "
          f"(from {len(vertices)} and {len(faces)})")


if __name__ == "__main__":
    main()
