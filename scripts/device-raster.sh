#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# device-raster.sh — the compute raster on the GPU host in one device call:
# its tests, --verify of every sort driving compute-exact, and headless
# frames with the hardware draw beside the compute raster (the dragon at
# 1920x1080 and 3840x2160, the gyroid at 10M and 30M triangles), every
# sort driving compute-exact on the dragon, and screenshots.
#
# Prepare here (a release build for sm_90):
#   scripts/device-raster.sh --prepare BUILD_DIR DEST
# Run there (carry [DEST, ".rt"]):
#   bash scripts/device-raster.sh [--quick|--check] DEST
# --quick: the tests, the verify runs and a few frames' timings only.
# --check: the tests and the verify runs only (triangles and points).
set -uo pipefail
root=${DS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}

if [[ ${1:-} == --prepare ]]; then
    build=${2:?usage: device-raster.sh --prepare BUILD_DIR DEST}
    dest=${3:?usage: device-raster.sh --prepare BUILD_DIR DEST}
    mkdir -p "$dest/lib"
    xz -T2 -c "$build/depthsort" >"$dest/depthsort.xz"
    for t in test_raster_compute test_oit; do xz -T2 -c "$build/tests/$t" >"$dest/$t.xz"; done
    for l in libcmocka.so.0 libstb.so.0; do
        cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l {print $NF; exit}')" "$dest/lib/"
    done
    git -C "$root" rev-parse --short HEAD >"$dest/COMMIT"
    gzip -c "$root/../shared/models/dragon_vrip.ply" >"$dest/dragon_vrip.ply.gz"
    du -sh "$dest"
    exit 0
fi

quick=0
check=0
[[ ${1:-} == --quick ]] && { quick=1; shift; }
[[ ${1:-} == --check ]] && { check=1; shift; }
pack=$(cd "${1:?usage: device-raster.sh [--quick] DEST}" && pwd)
out=${OUT:-/tmp/device-raster-out}
mkdir -p "$out"
bin=/tmp/ds-bin
mkdir -p "$bin/lib"
for f in "$root"/.rt/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
for f in "$root"/.rt/extra/*.deb; do dpkg -x "$f" /opt/ds-rt; done
export LD_LIBRARY_PATH=/opt/ds-rt/usr/lib/x86_64-linux-gnu:$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
vendor=$(find /usr /etc /opt -name 10_nvidia.json 2>/dev/null | head -1)
[[ -n $vendor ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
cp "$pack"/lib/* "$bin/lib/"
for f in depthsort test_raster_compute test_oit; do xz -dc "$pack/$f.xz" >"$bin/$f"; done
gunzip -c "$pack/dragon_vrip.ply.gz" >"$bin/dragon.ply"
chmod +x "$bin"/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

D="$bin/dragon.ply"
# One headless run: its label, then the lines that say what ran and how fast.
h() {
    local label=$1
    shift
    echo "=== $label"
    timeout 120 "$bin/depthsort" --headless "$@" 2>&1 |
        grep -E "state:|fps GPU|^  draw |^  frame |^  sort |^  keys |compute raster|verify|rror|rc="
}
{
    echo "=== test_raster_compute"; timeout 120 "$bin/test_raster_compute" 2>&1 | grep -E "vs|fill|overflow|OK|FAIL|PASS"
    echo "=== test_oit"; timeout 120 "$bin/test_oit" 2>&1 | grep -E "PASSED|FAILED"
    h "verify: dragon 1080p compute-exact, every sort" "$D" --frames 3 --raster compute --sort all --verify
    h "verify: dragon 1080p compute (triangle order), gl" "$D" --frames 3 --raster compute --raster-order triangle --verify
    h "verify: dragon 1080p points compute-exact, gl" "$D" --frames 3 --primitive points --raster compute --verify
    if ((check)); then
        for r in hw compute; do
            h "dragon points 1080p $r, gl" "$D" --primitive points --frames 200 --sort gl --raster $r
        done
        "$bin/depthsort" --headless "$D" --frames 2 --raster compute --screenshot "$out/dragon-compute-exact.png" >/dev/null 2>&1
        "$bin/depthsort" --headless "$D" --frames 2 --primitive points --raster compute --screenshot "$out/dragon-points-compute-exact.png" >/dev/null 2>&1
        "$bin/depthsort" --headless "$D" --frames 2 --primitive points --screenshot "$out/dragon-points-hw.png" >/dev/null 2>&1
        exit 0
    fi
    if ((quick)); then
        h "dragon 1080p hw, gl" "$D" --frames 100 --sort gl
        h "dragon 1080p compute-exact, gl" "$D" --frames 100 --sort gl --raster compute
        h "dragon 1080p compute triangle order, gl" "$D" --frames 100 --sort gl --raster compute --raster-order triangle
        h "dragon 4K compute-exact, gl" "$D" --size 3840x2160 --frames 100 --sort gl --raster compute
        h "gyroid 10M compute-exact, gl" --scene gyroid:10M --frames 20 --sort gl --raster compute
        "$bin/depthsort" --headless "$D" --frames 2 --raster compute --screenshot "$out/dragon-compute-exact.png" >/dev/null 2>&1
        exit 0
    fi
    for size in 1920x1080 3840x2160; do
        h "dragon $size hw, gl" "$D" --size $size --frames 200 --sort gl
        h "dragon $size compute triangle order, gl" "$D" --size $size --frames 200 --sort gl --raster compute --raster-order triangle
        h "dragon $size compute-exact, gl" "$D" --size $size --frames 200 --sort gl --raster compute
        h "dragon $size compute-exact, cub" "$D" --size $size --frames 200 --sort cub --raster compute
    done
    echo "=== dragon 1080p compare"
    timeout 150 "$bin/depthsort" --headless "$D" --frames 40 --compare sorted,abuffer,compute,compute-exact 2>&1 | tail -12
    echo "=== dragon 4K compare"
    timeout 150 "$bin/depthsort" --headless "$D" --size 3840x2160 --frames 30 --compare sorted,abuffer,compute-exact 2>&1 | tail -10
    h "dragon 1080p compute-exact, every sort" "$D" --frames 100 --sort all --raster compute
    for g in 10M 30M; do
        h "gyroid $g hw, cub" --scene gyroid:$g --frames 30 --sort cub
        h "gyroid $g compute triangle order, cub" --scene gyroid:$g --frames 30 --sort cub --raster compute --raster-order triangle
        h "gyroid $g compute-exact, gl" --scene gyroid:$g --frames 30 --sort gl --raster compute
        h "gyroid $g compute-exact, cub" --scene gyroid:$g --frames 30 --sort cub --raster compute
    done
    "$bin/depthsort" --headless "$D" --frames 2 --raster compute --screenshot "$out/dragon-compute-exact.png" >/dev/null 2>&1
    "$bin/depthsort" --headless "$D" --frames 2 --screenshot "$out/dragon-hw.png" >/dev/null 2>&1
    "$bin/depthsort" --headless --scene planes --frames 2 --raster compute --screenshot "$out/planes-compute-exact.png" >/dev/null 2>&1
    "$bin/depthsort" --headless --scene planes --frames 2 --screenshot "$out/planes-hw.png" >/dev/null 2>&1
} 2>&1 | tee "$out/raster.log"
