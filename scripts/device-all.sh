#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# device-all.sh — the whole GPU check in one device call: the sort suite
# (tests, memcheck, racecheck, benchmark, via gpu-suite.sh), the papers'
# real-data experiments, and headless frame timings with --verify.
#
# Prepare here (a release build for sm_90; binaries are xz-compressed so that they
# and the models fit the 64 MiB the device tool carries):
#   scripts/device-all.sh --prepare BUILD_DIR .dev/all
#   scripts/device-all.sh --prepare BUILD_DIR .dev/before --no-models
#     (a second pack, binaries only, for the compare part's baseline)
# Run on the GPU host (carry [".dev/all", ".rt"], and the baseline pack):
#   bash scripts/device-all.sh [--parts suite,dists,realdata,headless,stages,
#        screens,compare,compare-bench,lab,tables]
#        [--baseline .dev/before] [--lab-frames N] .dev/all
# tables runs scripts/perf-tables.sh: the measurements behind
# docs/performance.md, written as its tables (GPU, driver, commit and
# command above each) into $OUT/tables.md, printed last; the raw CSVs and
# logs in $OUT/tables-raw.tar.gz. About 5 minutes: run it alone in a call.
# screens writes headless screenshots (bunny, dragon, points, the default
# scene; sorted and unsorted; each colour mode) into $OUT/screens.tar.
# stages checks the GL stages (tests, --verify over the draw forms, the
# same image as cub's) and times them against cub in CUDA (and the
# baseline's gl and cub; a baseline without gl prints its error) into
# stages.log and stages-time.log.
# lab runs scripts/transparency-lab.sh (every transparency technique's
# frame time and error against the exact A-buffer, the shared models and
# the scenes, 1920x1080, 60 frames or --lab-frames) into $OUT/lab.tar,
# tables.md printed.
# compare-bench and compare (only with --baseline) time the baseline's and
# this pack's bench_sort (compare-bench) and headless frames (compare)
# alternately, rounds interleaved, so that a change can show "within
# noise" on one machine in one call.
# Writes at most 8 files under $OUT and prints a summary last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ ${1:-} == --prepare ]]; then
    build=${2:?usage: device-all.sh --prepare BUILD_DIR DEST}
    dest=${3:?usage: device-all.sh --prepare BUILD_DIR DEST}
    mkdir -p "$dest"
    "$root/scripts/gpu-suite.sh" --prepare "$build" "$dest" >/dev/null
    # depthsort's shared libraries the bare host lacks beyond the GL
    # runtime (.rt): Debian's stb.
    cp -L "$(ldconfig -p | awk '$1 == "libstb.so.0" {print $NF; exit}')" "$dest/lib/"
    for f in test_sort_gpu bench_sort; do xz -T2 -f "$dest/$f"; done
    xz -T2 -c "$build/depthsort" >"$dest/depthsort.xz"
    [[ -x $build/bench/bench_load ]] && xz -T2 -c "$build/bench/bench_load" >"$dest/bench_load.xz"
    [[ -x $build/bench/radix_timeline ]] &&
        xz -T2 -c "$build/bench/radix_timeline" >"$dest/radix_timeline.xz"
    for t in test_render test_tiles_gpu test_gl_sort test_gl_stages; do
        [[ -x $build/tests/$t ]] && xz -T2 -c "$build/tests/$t" >"$dest/$t.xz"
    done
    [[ ${4:-} == --no-models ]] && { du -sh "$dest"; exit 0; }
    # The shared models travel gzipped (34 MB of ASCII dragon -> 10 MB).
    models=$root/../shared/models
    for m in dragon_vrip.ply bun_zipper.ply stanford-bunny.obj; do
        gzip -c "$models/$m" >"$dest/$m.gz"
    done
    cp "$models/dragon_100k_binary_le.ply" "$dest/"
    du -sh "$dest"
    exit 0
fi

parts=suite,dists,realdata,headless
baseline=""
lab_frames=60
while [[ ${1:-} == --* ]]; do
    case $1 in
    --parts) parts=$2 ;;
    --baseline) baseline=$(cd "$2" && pwd) ;;
    --lab-frames) lab_frames=$2 ;;
    *) echo "device-all.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
want() { [[ ,$parts, == *,$1,* ]]; }
pack=$(cd "${1:?usage: device-all.sh [--parts LIST] BINDIR}" && pwd)
out=${OUT:-/tmp/device-all-out}
mkdir -p "$out"
bin=/tmp/ds-bin
rm -rf "$bin" # only this pack's files: nothing left from an earlier run
mkdir -p "$bin/lib"

# GL runtime the bare host lacks (see shared/gpu-host/collect-runtime-debs.sh).
for f in "$root"/.rt/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
for f in "$root"/.rt/extra/*.deb; do dpkg -x "$f" /opt/ds-rt; done
export LD_LIBRARY_PATH=/opt/ds-rt/usr/lib/x86_64-linux-gnu:$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
vendor=$(find /usr /etc /opt -name 10_nvidia.json 2>/dev/null | head -1)
[[ -n $vendor ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
export PATH=/usr/local/cuda/bin:$PATH

cp "$pack"/lib/* "$bin/lib/"
cp "$pack/COMMIT" "$bin/" || echo unknown >"$bin/COMMIT"
# What the pack lacks is named once here; a part that needs it says so
# in one line (need, below) and the other parts still run.
for f in test_sort_gpu bench_sort bench_load depthsort test_render test_tiles_gpu test_gl_sort \
    test_gl_stages radix_timeline; do
    if [[ -f $pack/$f.xz ]]; then xz -dc "$pack/$f.xz" >"$bin/$f" && chmod +x "$bin/$f"
    else echo "device-all.sh: $f not in the pack"; fi
done
for m in dragon_vrip.ply bun_zipper.ply stanford-bunny.obj; do
    if [[ -f $pack/$m.gz ]]; then gunzip -c "$pack/$m.gz" >"$bin/$m"
    else echo "device-all.sh: $m not in the pack"; fi
done
cp "$pack/dragon_100k_binary_le.ply" "$bin/" 2>/dev/null ||
    echo "device-all.sh: dragon_100k_binary_le.ply not in the pack"
cp "$root/assets/bunny.ply" "$bin/bunny.ply"
commit=$(cat "$bin/COMMIT")
# same_pixels A.png B.png: the two PNGs are the same but for their tEXt
# chunks (which name the sort and the commit), byte for byte otherwise.
same_pixels() {
    command -v python3 >/dev/null || { cmp -s "$1" "$2"; return; }
    python3 - "$1" "$2" <<'PY'
import struct, sys
def body(path):
    data, out, at = open(path, "rb").read(), [], 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind != b"tEXt":
            out.append(data[at:at + 12 + length])
        at += 12 + length
    return b"".join(out)
sys.exit(0 if body(sys.argv[1]) == body(sys.argv[2]) else 1)
PY
}
# need PART FILE...: the part's files are here, or one line says which is not.
need() {
    local part=$1 f
    shift
    for f in "$@"; do
        [[ -f $bin/$f ]] || { echo "device-all.sh: part $part skipped: $f missing"; return 1; }
    done
}

# 1. The sort suite. Budgets keep the whole call inside 10 minutes.
mkdir -p /tmp/suite
want suite && need suite test_sort_gpu bench_sort && OUT=/tmp/suite bash "$root/scripts/gpu-suite.sh" \
    --test-args "--max-size 1048577" \
    --san-max-size 4099 --mem-sizes 8193 --race-sizes 1,33,8193 --san-dists uniform \
    --budget-tests 150 --budget-san 50 --budget-bench 110 \
    --bench-args "--sizes 1024,2048,4096,8192,16384,32768,65536,69451,131072,262144,524288,871414,1048576,2097152,4194304,5000000,8388608,14027872,16777216,28055742,33554432,67108864" \
    "$bin" >/tmp/suite/summary.txt 2>&1
want suite && cp /tmp/suite/bench.csv "$out/bench.csv" 2>/dev/null
want suite && [[ -f /tmp/suite/summary.txt ]] &&
    { cat /tmp/suite/summary.txt; for f in /tmp/suite/*.log; do echo "##### $f"; tail -n 40 "$f"; done; } >"$out/suite.log"

# 2. Every distribution against uniform, for the hybrid (<= 3x) and quick
# (<= 2x) claims.
want dists && need dists bench_sort && timeout 100 "$bin/bench_sort" --algo hybrid,quick,radix --dist all \
    --sizes 65536,1048576,16777216 --commit "$commit" >"$out/dists.log" 2>&1

# 3. Real-data experiments: the hybrid paper's Fig. 10 (distances from a
# viewpoint off the model, with and without shuffle) and the quicksort
# paper's (viewer at the origin).
B="timeout 60 $bin/bench_sort --runs 20 --commit $commit"
want realdata && need realdata bench_sort dragon_vrip.ply && {
    for src in "--model $bin/dragon_vrip.ply" "--model $bin/dragon_vrip.ply --grid 4x4" "--scene gyroid:5M"; do
        echo "=== fig10 $src"; $B $src
        echo "=== fig10 $src --shuffle"; $B $src --shuffle --algo hybrid,radix,cub --phases
    done
    for src in bun_zipper.ply dragon_100k_binary_le.ply dragon_vrip.ply; do
        echo "=== origin $src"; $B --model "$bin/$src" --eye 0,0,0
    done
    echo "=== origin dragon_vrip 4x4"; $B --model "$bin/dragon_vrip.ply" --grid 4x4 --eye 0,0,0
} >"$out/realdata.log" 2>&1

# 4. Headless frames, verified, then timed.
H="timeout 90 $bin/depthsort --headless --size 1920x1080"
want headless && need headless depthsort dragon_vrip.ply && {
    echo "=== test_render"; timeout 60 "$bin/test_render"; echo "rc=$?"
    echo "=== test_tiles_gpu"; timeout 120 "$bin/test_tiles_gpu"; echo "rc=$?"
    echo "=== dragon verify, every sort"; $H "$bin/dragon_vrip.ply" --frames 4 --sort all --verify; echo "rc=$?"
    echo "=== dragon timing"; $H "$bin/dragon_vrip.ply" --frames 200 --sort all --screenshot "$out/dragon.png"; echo "rc=$?"
    echo "=== dragon map interop"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --interop map; echo "rc=$?"
    echo "=== dragon without culling"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --no-cull --screenshot /tmp/no-cull.png; echo "rc=$?"
    echo "=== dragon culled, the same frame"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --screenshot /tmp/cull.png >/dev/null; echo "rc=$?"
    cmp /tmp/cull.png /tmp/no-cull.png && echo "culled and unculled screenshots identical"
    echo "=== dragon without screen tiles"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --tiles off --screenshot /tmp/no-tiles.png; echo "rc=$?"
    cmp /tmp/cull.png /tmp/no-tiles.png && echo "tiled and untiled screenshots identical"
    echo "=== dragon points"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --primitive points --screenshot /tmp/points.png; echo "rc=$?"
    echo "=== dragon points without screen tiles"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --primitive points --tiles off --screenshot /tmp/points-no-tiles.png; echo "rc=$?"
    cmp /tmp/points.png /tmp/points-no-tiles.png && echo "points: tiled and untiled screenshots identical"
    echo "=== dragon 16-bit keys"; $H "$bin/dragon_vrip.ply" --frames 200 --sort cub --key-bits 16; echo "rc=$?"
    echo "=== gyroid 10M verify"; $H --scene gyroid:10M --frames 2 --sort cub --verify; echo "rc=$?"
    echo "=== gyroid 10M timing, cub"; $H --scene gyroid:10M --frames 60 --sort cub --json "$out/gyroid.json"; echo "rc=$?"
    echo "=== gyroid 10M timing, radix"; $H --scene gyroid:10M --frames 60 --sort radix; echo "rc=$?"
    echo "=== gyroid 10M timing, cub, no culling"; $H --scene gyroid:10M --frames 60 --sort cub --no-cull; echo "rc=$?"
    echo "=== gyroid 10M timing, cub, no culling, no tiles"; $H --scene gyroid:10M --frames 60 --sort cub --no-cull --tiles off; echo "rc=$?"
} >"$out/headless.log" 2>&1

# 4b. The GL stages (issue 19): their tests on this GPU, --verify over the
# forms, the same image as the CUDA path's byte for byte, and the frame
# rates against the CUDA path (and the baseline pack, if given), rounds
# interleaved.
if want stages && need stages depthsort dragon_vrip.ply; then
    {
        for t in test_gl_sort test_gl_stages test_render; do
            echo "=== $t"; timeout 120 "$bin/$t"; echo "rc=$?"
        done
        for v in "" "--tiles off" "--draw pull" "--draw pull --tiles off" "--key-bits 16" \
                 "--key-bits 24" "--key mean" "--key centroid" "--no-cull" \
                 "--primitive points" "--primitive points --tiles off"; do
            echo "=== verify gl, dragon $v"
            $H "$bin/dragon_vrip.ply" --frames 4 --sort gl --verify $v; echo "rc=$?"
            # The last of 12 orbit frames, GL stages against cub.
            $H "$bin/dragon_vrip.ply" --frames 12 --sort gl $v --screenshot /tmp/gl.png >/dev/null 2>&1
            $H "$bin/dragon_vrip.ply" --frames 12 --sort cub $v --screenshot /tmp/cub.png >/dev/null 2>&1
            same_pixels /tmp/gl.png /tmp/cub.png && echo "SAME IMAGE gl cub dragon $v" ||
                echo "DIFFERENT IMAGE gl cub dragon $v"
        done
        for sc in gyroid:1M shells:1M planes:1M; do
            $H --scene $sc --frames 3 --sort gl --verify; echo "rc=$?"
            $H --scene $sc --frames 3 --sort gl --screenshot /tmp/gl.png >/dev/null 2>&1
            $H --scene $sc --frames 3 --sort cub --screenshot /tmp/cub.png >/dev/null 2>&1
            same_pixels /tmp/gl.png /tmp/cub.png && echo "SAME IMAGE gl cub $sc" ||
                echo "DIFFERENT IMAGE gl cub $sc"
        done
        echo "=== gyroid 10M verify gl"; $H --scene gyroid:10M --frames 2 --sort gl --verify; echo "rc=$?"
        echo "=== dragon gl timeline"
        $H "$bin/dragon_vrip.ply" --frames 200 --sort gl --timeline "$out/timeline-gl.csv"; echo "rc=$?"
    } >"$out/stages.log" 2>&1
    base=""
    if [[ -n $baseline ]]; then
        base=/tmp/ds-base && mkdir -p $base && xz -dc "$baseline/depthsort.xz" >$base/depthsort &&
            chmod +x $base/depthsort
    fi
    for round in 1 2 3; do
        for run in base-gl base-cub gl cub radix; do
            dir=$bin sort=$run
            [[ $run == base-* ]] && { [[ -n $base ]] || continue; dir=$base sort=${run#base-}; }
            echo "=== $run round $round dragon"
            timeout 120 "$dir/depthsort" --headless --size 1920x1080 \
                "$bin/dragon_vrip.ply" --frames 300 --sort $sort
            [[ $run == radix ]] && continue
            echo "=== $run round $round gyroid"
            timeout 120 "$dir/depthsort" --headless --size 1920x1080 \
                --scene gyroid:10M --frames 60 --sort $sort
        done
    done >"$out/stages-time.log" 2>&1
fi

# 5. Screenshots, one tar (the device tool returns at most 8 files).
if want screens && need screens depthsort dragon_vrip.ply; then
    shots=/tmp/screens
    mkdir -p "$shots"
    S="timeout 60 $bin/depthsort --headless --size 1920x1080 --frames 1 --orbit 0"
    {
        $S "$bin/bunny.ply" --screenshot "$shots/bunny.png"
        $S "$bin/bunny.ply" --no-sort --screenshot "$shots/bunny-unsorted.png"
        $S "$bin/dragon_vrip.ply" --screenshot "$shots/dragon.png"
        $S "$bin/dragon_vrip.ply" --no-sort --screenshot "$shots/dragon-unsorted.png"
        $S "$bin/dragon_vrip.ply" --primitive points --screenshot "$shots/dragon-points.png"
        $S --screenshot "$shots/default.png"
        $S --no-sort --screenshot "$shots/default-unsorted.png"
        for c in normal tint height; do
            $S "$bin/dragon_vrip.ply" --color $c --screenshot "$shots/dragon-$c.png"
        done
        $S "$bin/dragon_vrip.ply" --opacity view --screenshot "$shots/dragon-glass.png"
    } >"$shots/log.txt" 2>&1
    tar -C /tmp -cf "$out/screens.tar" screens
fi

# 5b. The transparency lab (docs/transparency.md's H100 tables), one tar.
if want lab && need lab depthsort; then
    rm -rf /tmp/lab
    timeout 540 bash "$root/scripts/transparency-lab.sh" "$bin" --models "$bin" \
        --size 1920x1080 --frames "$lab_frames" --out /tmp/lab >/tmp/lab-run.log 2>&1
    echo "rc=$?" >>/tmp/lab-run.log
    mkdir -p /tmp/lab && cp /tmp/lab-run.log /tmp/lab/run.log
    # The heatmaps compress to little; the 1080p frames do not: left out.
    tar -C /tmp --exclude='*frame-*.png' -cf "$out/lab.tar" lab
fi

# 5c. The tables of docs/performance.md (scripts/perf-tables.sh).
if want tables; then
    timeout 560 bash "$root/scripts/perf-tables.sh" "$bin" "$out" >/tmp/tables-run.log 2>&1
    echo "rc=$?" >>/tmp/tables-run.log
fi

# 6. Baseline against this pack, interleaved: bench_sort rounds, then
# headless rounds (dragon every sort, gyroid 10M cub), median of medians.
if { want compare || want compare-bench; } && [[ -n $baseline ]]; then
    base=/tmp/ds-base
    mkdir -p "$base"
    for f in test_sort_gpu bench_sort depthsort test_render; do
        xz -dc "$baseline/$f.xz" >"$base/$f"
    done
    chmod +x "$base"/*
    want compare-bench && for round in 1 2 3; do
        for side in base new; do
            dir=$bin; [[ $side == base ]] && dir=$base
            timeout 100 "$dir/bench_sort" --algo all --runs 20 \
                --sizes 65536,871414,1048576,4194304,16777216 \
                --commit "$side" >>"$out/compare-bench.log" 2>&1
        done
    done
    want compare && for round in 1 2 3; do
        for side in base new; do
            dir=$bin; [[ $side == base ]] && dir=$base
            echo "=== $side round $round dragon" >>"$out/compare-headless.log"
            timeout 120 "$dir/depthsort" --headless --size 1920x1080 \
                "$bin/dragon_vrip.ply" --frames 200 --sort all >>"$out/compare-headless.log" 2>&1
            echo "=== $side round $round gyroid" >>"$out/compare-headless.log"
            timeout 120 "$dir/depthsort" --headless --size 1920x1080 \
                --scene gyroid:10M --frames 60 --sort cub >>"$out/compare-headless.log" 2>&1
        done
    done
fi

want suite && [[ -f /tmp/suite/summary.txt ]] && { echo "==== suite ===="; tail -n 40 /tmp/suite/summary.txt; }
if want compare-bench && [[ -n $baseline ]]; then
    echo "==== compare: bench_sort ms, median over rounds (base -> new) ===="
    awk '/^# .*commit (base|new),/ { side = ($0 ~ /commit base,/) ? "base" : "new" }
         !/^#/ && $4 ~ /^[0-9.]+$/ { key = $1 " " $2 " " $3; v[side, key] = v[side, key] " " $4; keys[key] = 1 }
         function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return n ? a[int((n + 1) / 2)] : -1 }
         END { for (k in keys) { b = med(v["base", k]); n = med(v["new", k]); printf "%-40s %9.4f %9.4f %6.3f\n", k, b, n, (b > 0 ? n / b : 0) } }' \
        "$out/compare-bench.log" | sort -k2,2n -k3
fi
if want compare && [[ -n $baseline ]]; then
    echo "==== compare: headless (sort, fps wall, fps GPU) ===="
    grep -E "^=== |^sort [a-z0-9]+:" "$out/compare-headless.log"
fi
want lab && { echo "==== transparency lab ===="; tail -n 3 /tmp/lab/run.log; cat /tmp/lab/tables.md 2>/dev/null; }
want dists && [[ -f $out/dists.log ]] && { echo "==== distributions ===="; grep -v "^#" "$out/dists.log" | awk '{print $1, $2, $3, $4, $6, $7}'; }
want stages && [[ -f $out/stages.log ]] && {
    echo "==== stages (rc, images) ===="
    grep -E "^===|^rc=|IMAGE|PASSED|FAILED|verify:|error" "$out/stages.log" | head -120
    echo "==== stages timing ===="
    grep -E "^=== |^sort |fps|handover" "$out/stages-time.log" | head -150
}
want headless && [[ -f $out/headless.log ]] && { echo "==== headless (rc lines) ===="; grep -E "^===|^rc=|fps|frame |sum |identical|PASSED|FAIL" "$out/headless.log" | head -130; }
want tables && {
    echo "==== tables (scripts/perf-tables.sh: $out/tables.md) ===="
    grep "^rc=" /tmp/tables-run.log
    cat "$out/tables.md" 2>/dev/null || { echo "no tables.md; the run's last lines:"; tail -n 20 /tmp/tables-run.log; }
}
exit 0
