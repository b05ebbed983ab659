#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# transparency-lab.sh — the tables of docs/transparency.md in one command:
# depthsort --compare all over the shared models and the built-in scenes,
# each technique's frame time and image error against the exact A-buffer.
#
#   scripts/transparency-lab.sh [BUILD_DIR] [--size WxH] [--frames N]
#                               [--out DIR] [--models DIR] [--inputs LIST]
#                               [--scene-size N] [--alpha A]
#                               [--background R,G,B]
#
# BUILD_DIR holds depthsort (default: build). --models is where
# bun_zipper.ply, dragon_100k_binary_le.ply and dragon_vrip.ply are
# (default: ../shared/models beside the repository). --inputs picks some of
# bunny,dragon100k,dragon,planes,shells,gyroid (default: all); --scene-size
# gives the scenes' triangle count (default: each scene's own, about 1M;
# the CPU tables use 100k, as depth peeling on llvmpipe takes seconds a
# frame at 1M). --alpha and --background give the look, which the errors
# depend on (default: alpha 0.35 on the dark grey 0.08, the look the
# doc's tables were measured with, not depthsort's own defaults). Writes into
# --out (default: transparency-lab): per input NAME.json, NAME.csv, NAME.txt
# (the printed table) and NAME/ (--diff-dir: each technique's worst frame,
# its heatmap NAME-heat-0-16.png and the reference); all.csv (every row
# under one header) and tables.md (the doc's tables, markdown).
# The GPU host runs it through scripts/device-all.sh --parts lab
# (1920x1080, 60 frames).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

build=$root/build
size=480x270
frames=8
out=transparency-lab
models=$root/../shared/models
inputs=bunny,dragon100k,dragon,planes,shells,gyroid
scene_size=""
alpha=0.35
background=0.08,0.08,0.08
while [[ $# -gt 0 ]]; do
    case $1 in
    --size) size=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --inputs) inputs=$2; shift 2 ;;
    --scene-size) scene_size=:$2; shift 2 ;;
    --alpha) alpha=$2; shift 2 ;;
    --background) background=$2; shift 2 ;;
    --*) echo "transparency-lab.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
bin=$build/depthsort
[[ -x $bin ]] || { echo "transparency-lab.sh: $bin: not built" >&2; exit 1; }
mkdir -p "$out" || exit 1

# name -> what depthsort reads
declare -A source=(
    [bunny]="$models/bun_zipper.ply"
    [dragon100k]="$models/dragon_100k_binary_le.ply"
    [dragon]="$models/dragon_vrip.ply"
    [planes]="--scene planes$scene_size"
    [shells]="--scene shells$scene_size"
    [gyroid]="--scene gyroid$scene_size"
)
status=0
IFS=, read -ra names <<<"$inputs"
for name in "${names[@]}"; do
    [[ -n ${source[$name]:-} ]] || { echo "transparency-lab.sh: unknown input $name" >&2; exit 2; }
    echo "== $name: depthsort ${source[$name]} --compare all --size $size --frames $frames" \
        "--alpha $alpha --background $background" >&2
    # shellcheck disable=SC2086  # the scene inputs are two words
    if ! "$bin" --headless ${source[$name]} --compare all --size "$size" --frames "$frames" \
        --alpha "$alpha" --background "$background" \
        --json "$out/$name.json" --csv "$out/$name.csv" --diff-dir "$out/$name" \
        >"$out/$name.txt" 2>"$out/$name.log"; then
        echo "transparency-lab.sh: $name failed:" >&2
        tail -n 3 "$out/$name.log" >&2
        status=1
    fi
done

# One CSV, one header.
first=1
: >"$out/all.csv"
for name in "${names[@]}"; do
    [[ -s $out/$name.csv ]] || continue
    if ((first)); then cat "$out/$name.csv"; first=0; else tail -n +2 "$out/$name.csv"; fi
done >>"$out/all.csv"

# The doc's tables: per input, median (worst) of each metric.
{
    for name in "${names[@]}"; do
        [[ -s $out/$name.csv ]] || continue
        head -n 3 "$out/$name.txt" | sed -n '2p;3p' | sed 's/^ *//; s/^/    /'
        awk -F, -v name="$name" '
            function cell(median, worst, percent) {
                if (median == "inf" && worst == "inf") return "inf"
                if (median == "inf") return sprintf("inf (%.4g)", worst)
                if (percent) return sprintf("%.3f (%.3f)", 100 * median, 100 * worst)
                return sprintf("%.4g (%.4g)", median, worst)
            }
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            {
                # The GPU, CPU, OS and command line are quoted and may hold
                # commas: count from the end. Rows of one frame each (a
                # frame number) follow the rows of medians.
                off = NF - 31
                if ($(16 + off) != "") next
                if (!printed) {
                    printf "\n%s, %s, %s frames\n\n", name, $(6 + off) "x" $(7 + off), $(8 + off)
                    print "| technique | frame ms | RMSE | PSNR dB | SSIM | max | bad >2 % | bad >8 % |"
                    print "|---|---:|---:|---:|---:|---:|---:|---:|"
                    printed = 1
                }
                printf "| %s | %.3f | %s | %s | %s | %s | %s | %s |\n", $(15 + off), $(17 + off),
                    cell($(19 + off), $(26 + off)), cell($(20 + off), $(27 + off)),
                    cell($(21 + off), $(28 + off)), cell($(22 + off), $(29 + off)),
                    cell($(23 + off), $(30 + off), 1), cell($(24 + off), $(31 + off), 1)
            }' "$out/$name.csv"
        grep -E "^  (reference|A-buffer):" "$out/$name.txt" | sed 's/^  /\n/'
        echo
    done
} >"$out/tables.md"
echo "transparency-lab.sh: wrote $out/{all.csv,tables.md} and per-input JSON, CSV, PNGs" >&2
exit $status
