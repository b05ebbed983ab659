#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu-suite.sh — the ONE script the team runs on the GPU host (one device
# call, under 5 minutes): nvidia-smi -L, the GPU sort tests, compute-sanitizer
# memcheck and racecheck on the GPU suite at small sizes, and the sort
# benchmark. Logs and the CSV go to $OUT (at most 7 files, as the device tool
# returns 8); a short summary is printed last.
#
# Prepare on the build machine (binaries are self-contained but for
# libcmocka, which is copied along):
#   scripts/gpu-suite.sh --prepare BUILD_DIR .dev/NAME
# Run on the device (carry [".dev/NAME"]):
#   bash scripts/gpu-suite.sh [options] .dev/NAME
# Options (all optional):
#   --algos LIST         comma-separated algorithms for tests and benchmark
#                        (default: every built one)
#   --test-args "ARGS"   extra test_sort_gpu arguments (e.g. "--quick" or
#                        "--max-size 1100000")
#   --san-max-size N     largest size under memcheck (default 8193)
#   --mem-sizes LIST     extra sizes under memcheck, beyond --san-max-size
#                        (large ones reach paths small sizes do not)
#   --race-sizes LIST    sizes under racecheck (default 1,33,4099,8193: it
#                        is slow, about 20 ms per kernel launch)
#   --san-dists LIST     distributions under racecheck (default
#                        uniform,special; memcheck runs them all)
#   --bench-args "ARGS"  bench_sort arguments (default: uniform at
#                        2^10..2^24 and the model counts up to 5,000,000)
#   --skip LIST          any of tests,memcheck,racecheck,bench
#   --budget-tests S / --budget-san S / --budget-bench S   per-step
#                        timeouts in seconds (defaults 150 / 120 each / 100; keep the
#                        sum under the device call's limit)
set -uo pipefail

if [[ ${1:-} == --prepare ]]; then
    build=${2:?usage: gpu-suite.sh --prepare BUILD_DIR DEST}
    dest=${3:?usage: gpu-suite.sh --prepare BUILD_DIR DEST}
    mkdir -p "$dest/lib"
    cp "$build/tests/test_sort_gpu" "$build/bench/bench_sort" "$dest/"
    cp -L "$(ldconfig -p | awk '/libcmocka.so.0 /{print $NF; exit}')" "$dest/lib/"
    git -C "$(dirname "$0")/.." rev-parse --short HEAD >"$dest/COMMIT"
    du -sh "$dest"
    exit 0
fi

algos="" test_args="" san_max=8193 mem_sizes="" race_sizes=1,33,4099,8193 san_dists="uniform,special"
bench_args="--sizes 1024,4096,16384,65536,69451,262144,871414,1048576,4194304,5000000,16777216"
skip="" budget_tests=150 budget_san=120 budget_bench=100
while [[ $# -gt 1 ]]; do
    case $1 in
    --algos) algos=$2 ;;
    --test-args) test_args=$2 ;;
    --san-max-size) san_max=$2 ;;
    --mem-sizes) mem_sizes=$2 ;;
    --race-sizes) race_sizes=$2 ;;
    --san-dists) san_dists=$2 ;;
    --bench-args) bench_args=$2 ;;
    --skip) skip=$2 ;;
    --budget-tests) budget_tests=$2 ;;
    --budget-san) budget_san=$2 ;;
    --budget-bench) budget_bench=$2 ;;
    *) echo "gpu-suite.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
bin=${1:?usage: gpu-suite.sh [options] BINDIR}
out=${OUT:-$PWD/suite-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
commit=$(cat "$bin/COMMIT" 2>/dev/null || echo unknown)

algo_args=() bench_algo_args=()
if [[ -n $algos ]]; then
    IFS=, read -ra list <<<"$algos"
    for a in "${list[@]}"; do algo_args+=(--algo "$a"); done
    bench_algo_args=(--algo "$algos")
fi
san_dist_args=()
IFS=, read -ra dlist <<<"$san_dists"
for d in "${dlist[@]}"; do san_dist_args+=(--dist "$d"); done

declare -a summary
step() { # step NAME BUDGET LOG COMMAND...
    local name=$1 budget=$2 log=$3
    shift 3
    if [[ ,$skip, == *,$name,* ]]; then
        summary+=("$(printf '%-10s skipped' "$name")")
        return
    fi
    local t0=$SECONDS
    timeout -k 5 "$budget" "$@" >"$log" 2>&1
    local rc=$?
    local verdict=PASS
    case $rc in
    0) ;;
    124 | 137) verdict="TIMEOUT after ${budget}s" ;;
    77) verdict="SKIP (no device)" ;;
    *) verdict="FAIL (exit $rc)" ;;
    esac
    summary+=("$(printf '%-10s %-22s %4ds  %s' "$name" "$verdict" $((SECONDS - t0)) "$(basename "$log")")")
}

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; echo "commit $commit"; } >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

step tests "$budget_tests" "$out/test_sort_gpu.log" \
    "$bin/test_sort_gpu" "${algo_args[@]}" $test_args
# --exact: buffers of exactly count elements, so memcheck sees any access
# beyond count; sanitizer errors make the tool exit nonzero.
step memcheck "$budget_san" "$out/memcheck.log" \
    compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    "$bin/test_sort_gpu" "${algo_args[@]}" --exact --max-size "$san_max"
[[ -n $mem_sizes ]] && step memcheck-large "$budget_san" "$out/memcheck-large.log" \
    compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    "$bin/test_sort_gpu" "${algo_args[@]}" --exact --sizes "$mem_sizes"
step racecheck "$budget_san" "$out/racecheck.log" \
    compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 3 \
    --print-limit 20 \
    "$bin/test_sort_gpu" "${algo_args[@]}" "${san_dist_args[@]}" --sizes "$race_sizes"
step bench "$budget_bench" "$out/bench.log" \
    "$bin/bench_sort" "${bench_algo_args[@]}" $bench_args --commit "$commit" \
    --csv "$out/bench.csv"

echo
echo "==== failures (first lines) ===="
grep -h -m 8 -E "^FAIL|ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]|\[  FAILED  \]|WRONG|error" \
    "$out"/test_sort_gpu.log "$out"/memcheck*.log "$out"/racecheck.log "$out"/bench.log 2>/dev/null | head -30
echo "==== sanitizer summaries ===="
grep -H -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out"/memcheck*.log "$out"/racecheck.log 2>/dev/null
echo "==== benchmark ===="
grep -v "^#" "$out/bench.log" 2>/dev/null | tail -n 60
echo "==== summary ($(head -1 "$out/gpu.txt"), commit $commit) ===="
printf '%s\n' "${summary[@]}"
