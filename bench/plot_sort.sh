#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# plot_sort.sh CSV [OUT_PREFIX] [DIST] — rate (G pairs/s) vs n, one line per
# algorithm, from bench_sort --csv, as OUT_PREFIX.png and OUT_PREFIX.svg
# (gnuplot from Debian). DIST picks one distribution (default: the first in
# the file). Shuffle rows (shuffle-*) are left out.
set -euo pipefail
csv=${1:?usage: plot_sort.sh CSV [OUT_PREFIX] [DIST]}
prefix=${2:-${csv%.csv}}
dist=${3:-$(awk -F, 'NR == 2 {print $3}' "$csv")}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

# One data file per algorithm: n rate, sorted by n.
awk -F, -v dist="$dist" -v dir="$data" '
    NR == 1 || $3 != dist || $5 ~ /^shuffle-/ || $13 == "WRONG" { next }
    { file = dir "/" $5 ".dat"; print $4, $11 > file; algos[$5] = 1; gpu = $1; commit = $2 }
    END { printf "%s|%s\n", gpu, commit > (dir "/title") }' "$csv"
ls "$data"/*.dat >/dev/null 2>&1 || { echo "plot_sort.sh: no rows for '$dist'" >&2; exit 1; }
for f in "$data"/*.dat; do sort -n -o "$f" "$f"; done
IFS='|' read -r gpu commit <"$data/title"

plot=""
for f in "$data"/*.dat; do
    name=$(basename "$f" .dat)
    plot+="${plot:+, }'$f' using 1:2 with linespoints title '$name'"
done
for term in png svg; do
    case $term in
    png) setterm="set terminal pngcairo size 1000,650 noenhanced" ;;
    svg) setterm="set terminal svg size 1000,650 noenhanced" ;;
    esac
    gnuplot <<EOF
$setterm
set output '$prefix.$term'
set title 'Sort rate vs n ($dist keys, uint32 values) - $gpu, commit $commit'
set xlabel 'pairs (n)'
set ylabel 'G pairs / s (median)'
set logscale x 2
set format x '2^{%L}'
set format x '%.0s%c'
set grid
set key left top
plot $plot
EOF
done
echo "wrote $prefix.png $prefix.svg"
