#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_seeds.sh DIR — writes a small seed corpus for the loader fuzzers into
# DIR/ply and DIR/obj (text and binary PLY variants, OBJ index forms), so
# that no binary blobs live in the repository.
set -euo pipefail
dir=${1:?usage: make_seeds.sh DIR}
mkdir -p "$dir/ply" "$dir/obj"
p=$dir/ply
o=$dir/obj

printf 'ply\nformat ascii 1.0\ncomment cube corner\nobj_info seed\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\nproperty float confidence\nelement face 2\nproperty list uchar int vertex_indices\nproperty uchar flags\nelement edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n0 0 0 0 0 1 255 0 0 255 0.5\n1 0 0 0 0 1 0 255 0 255 0.5\n1 1 0 0 0 1 0 0 255 128 0.5\n0 1 0 0 0 1 9 9 9 9 0.5\n4 0 1 2 3 7\n3 0 2 3 1\n0 1\n' >"$p/ascii_full.ply"

printf 'ply\r\nformat ascii 1.0\r\nelement vertex 4\r\nproperty double x\r\nproperty double y\r\nproperty double z\r\nelement tristrips 1\r\nproperty list int int vertex_indices\r\nend_header\r\n0 0 0\r\n1 0 0\r\n0 1 0\r\n1 1 1e-3\r\n6 0 1 2 3 -1 0\r\n' >"$p/ascii_tristrips_crlf.ply"

printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n-7 8.5e2 9\n' >"$p/ascii_points.ply"

# binary little endian: float xyz, face uchar/int
{
  printf 'ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n'
  printf '\000\000\000\000\000\000\000\000\000\000\000\000'
  printf '\000\000\200\077\000\000\000\000\000\000\000\000'
  printf '\000\000\000\000\000\000\200\077\000\000\000\000'
  printf '\003\000\000\000\000\001\000\000\000\002\000\000\000'
} >"$p/binary_le.ply"

# binary big endian with CRLF header: short xyz, uchar rgb, face ushort/uint, a range_grid element
{
  printf 'ply\r\nformat binary_big_endian 1.0\r\nelement vertex 3\r\nproperty short x\r\nproperty short y\r\nproperty short z\r\nproperty uchar red\r\nproperty uchar green\r\nproperty uchar blue\r\nelement range_grid 2\r\nproperty list uchar int vertex_indices\r\nelement face 1\r\nproperty list ushort uint vertex_indices\r\nend_header\r\n'
  printf '\000\000\000\000\000\000\377\000\000'
  printf '\000\001\000\000\000\000\000\377\000'
  printf '\000\000\000\001\000\000\000\000\377'
  printf '\000\001\000\000\000\002'
  printf '\000\003\000\000\000\000\000\000\000\001\000\000\000\002'
} >"$p/binary_be_crlf.ply"

printf '# seed\nmtllib a.mtl\no thing\nv 0 0 0\nv 1 0 0\nv 1 1 0 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\ng group\ns 1\nusemtl m\nf 1 2 3 4\nf 1/1 2/1 3/1\nf 1//1 2//1 3//1\nf 1/1/1 2/1/1 3/1/1\nf -4 -3 -2\n' >"$o/forms.obj"
printf 'v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nvn 0 0 1\r\nf 1//1 2//1 3//1\r\n' >"$o/crlf.obj"
printf 'v 0 0 0 1\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4 # quad\nl 1 2\n' >"$o/ngon.obj"
