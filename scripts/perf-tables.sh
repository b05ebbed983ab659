#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf-tables.sh — the measurements behind docs/performance.md, in one go,
# written out as that page's markdown tables: every sort by size, key
# distributions, the issues' goals, real data, frames by scene and path,
# draw forms and screen tiles, loading; and the README's headline blocks.
# Each table is headed by the GPU and driver (nvidia-smi), the commit
# (BINDIR/COMMIT) and the command that made it (its shape, where a table
# takes several runs), so that it can replace the page's table as it
# stands. The numbers come from the tools' CSV output (bench_sort --csv,
# depthsort --headless --csv), reduced with awk; bench_load prints one
# line a file, which is read field by field.
#
#   scripts/perf-tables.sh [--smoke] BINDIR OUTDIR
#   scripts/perf-tables.sh --update TABLES_MD FILE...
#
# BINDIR holds depthsort, bench_sort, bench_load, COMMIT and the models
# dragon_vrip.ply, bun_zipper.ply, dragon_100k_binary_le.ply and
# stanford-bunny.obj (what device-all.sh unpacks into /tmp/ds-bin; its
# --parts tables runs this). Writes OUTDIR/tables.md and
# OUTDIR/tables-raw.tar.gz (every CSV and log), and prints tables.md. Each
# table sits in a block marked "<!-- perf-tables NAME -->" ...
# "<!-- /perf-tables -->", as in docs/performance.md and README.md, and
# --update puts tables.md's blocks in place of theirs.
# A tool or model that is missing, or a run that fails, costs its table
# (one line says why); the other tables are still made.
# --smoke: small sizes, few frames and 320x180, to check the script and
# its parsing where there is no GPU (depthsort runs on llvmpipe; bench_sort
# exits 77 there). Its numbers mean nothing. KEEP_RAW=1 keeps the raw
# folder (/tmp/perf-tables.*) after the run.
# Sized (frame counts, sizes) for about 5 minutes on an H100-class GPU
# (an estimate: not yet timed there); device-all.sh stops it at 560 s.
set -uo pipefail

# --update TABLES_MD FILE...: replace each marked block of FILE
# ("<!-- perf-tables NAME -->" to "<!-- /perf-tables -->") by the block of
# the same name in TABLES_MD; blocks TABLES_MD lacks stay as they are.
if [[ ${1:-} == --update ]]; then
    tables=${2:?usage: perf-tables.sh --update TABLES_MD FILE...}
    shift 2
    for file in "$@"; do
        awk 'FNR == NR {
                 if ($0 ~ /^<!-- perf-tables [a-z-]+ -->$/) { name = $3; copying = 1; block[name] = "" }
                 if (copying) block[name] = block[name] $0 "\n"
                 if ($0 == "<!-- /perf-tables -->") copying = 0
                 next
             }
             $0 ~ /^<!-- perf-tables [a-z-]+ -->$/ && ($3 in block) {
                 printf "%s", block[$3]; skipping = 1; done = done " " $3; next
             }
             skipping { if ($0 == "<!-- /perf-tables -->") skipping = 0; next }
             { print }
             END { print "perf-tables: " FILENAME ": replaced" (done == "" ? " nothing" : done) >"/dev/stderr" }' \
            "$tables" "$file" >"$file.new" && mv "$file.new" "$file"
    done
    exit 0
fi

smoke=0
[[ ${1:-} == --smoke ]] && { smoke=1; shift; }
bin=$(cd "${1:?usage: perf-tables.sh [--smoke] BINDIR OUTDIR}" && pwd)
out=${2:?usage: perf-tables.sh [--smoke] BINDIR OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$(mktemp -d /tmp/perf-tables.XXXXXX)
md=$out/tables.md
: >"$md"

commit=$(cat "$bin/COMMIT" 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
if [[ -n $gpu ]]; then
    gpu_line="${gpu%%,*}, driver ${gpu##*, }, commit $commit"
else
    gpu_line="no nvidia-smi here (the GPU the tools name is in each CSV), commit $commit"
fi

# Sizes and frame counts: the real run, or --smoke's.
if ((smoke)); then
    size=320x180 small=240x135 sort_sizes=4096,65536 dist_sizes=65536 runs=3
    frames=6 frames_big=3 big=gyroid:20k mid=gyroid:10k gyroid_forms="gyroid:5k"
    gyroid_stages="gyroid:8k"
    repeat=3
else
    size=1920x1080 small=1280x720 sort_sizes=4096,65536,871414,1048576,4194304,16777216,67108864
    dist_sizes=1048576,16777216 runs=20
    frames=200 frames_big=60 big=gyroid:10M mid=gyroid:1M
    gyroid_forms="gyroid:300k gyroid:500k gyroid:1M gyroid:2M"
    gyroid_stages="gyroid:3M gyroid:4M gyroid:5M gyroid:6M" # where gl and cub break even
    repeat=15
fi

# ---- running ---------------------------------------------------------------

# have TOOL...: every tool is in BINDIR, or one line says which is not.
have() {
    local t
    for t in "$@"; do
        [[ -x $bin/$t || -f $bin/$t ]] && continue
        echo "perf-tables: $bin/$t missing: its table is left out" | tee -a "$raw/errors.log" >&2
        return 1
    done
}

# run LOG TIMEOUT TOOL ARGS...: runs BINDIR/TOOL, logs the command (as the
# table shows it: without BINDIR) and its output into raw/LOG.log; a failed
# run says so in one line and returns its status.
run() {
    local log=$raw/$1.log limit=$2 tool=$3
    shift 3
    local shown="$tool $*"
    shown=${shown//$bin\//}
    shown=${shown//$raw\//}
    echo "\$ $shown" >>"$log"
    timeout -k 5 "$limit" "$bin/$tool" "$@" >>"$log" 2>&1
    local rc=$?
    if ((rc != 0)); then
        echo "perf-tables: '$shown' failed (exit $rc; $(basename "$log"))" | tee -a "$raw/errors.log" >&2
    fi
    return $rc
}

# The commands of one table, as run, for its header.
commands() {
    sed -n 's/^\$ \(.*\)/\1/p' "$@" 2>/dev/null | sed 's/ --csv [^ ]*//; s/ --commit [^ ]*//' |
        awk '!seen[$0]++ { print "`" $0 "`" }'
}

# begin NAME TITLE LOG [TEMPLATE]: a section's title, then the start of
# its block (what --update replaces) with the GPU, driver, commit and the
# command (the one run; or TEMPLATE, the shape of several runs, whose exact
# lines are in the raw logs). end closes the block.
begin() {
    local name=$1 title=$2 log=$3 template=${4:-}
    {
        echo "## $title"
        echo
        echo "<!-- perf-tables $name -->"
        echo "$gpu_line:"
        if [[ -n $template ]]; then echo "\`$template\`"; else commands "$log"; fi
        echo
    } >>"$md"
}
end() { printf '%s\n\n' "<!-- /perf-tables -->" >>"$md"; }

# ---- awk: CSV fields, medians, numbers -----------------------------------

read -r -d '' AWK_LIB <<'EOF'
# One CSV line into f[1..n] (RFC 4180 quotes); returns n.
function csvsplit(line, f,    n, i, c, field, q, len) {
    n = 0; field = ""; q = 0; len = length(line)
    for (i = 1; i <= len; i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else q = 0
            } else field = field c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}
# Median of the space-separated numbers in s (as the headless table's).
function median(s,    a, n, i, j, t) {
    n = split(s, a, " ")
    if (n == 0) return 0
    for (i = 2; i <= n; i++) {
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ms(v) {
    if (v == "" || v + 0 == 0) return "–"
    v += 0
    return v < 0.1 ? sprintf("%.4f", v) : v < 10 ? sprintf("%.3f", v) : sprintf("%.2f", v)
}
function ratio(v) { return v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
function commas(n,    s, r) {
    s = sprintf("%d", n); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}
EOF

# bench_sort CSVs -> "| n | cub-raw | cub | ... |" with a "× cub-raw" row
# under each size (the algorithm's median over cub-raw's, same run).
read -r -d '' AWK_SORT_SIZES <<'EOF'
BEGIN { FS = "," }
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    a = $col["algo"]; n = $col["n"] + 0
    if (!(a in seen)) { seen[a] = 1; algos[++na] = a }
    if (!(n in seen_n)) { seen_n[n] = 1; sizes[++ns] = n }
    t[n, a] = $col["median_ms"]; ok[n, a] = $col["check"]
}
END {
    if (!na) exit 1
    line = "| n |"; rule = "|---:|"
    for (i = 1; i <= na; i++) { line = line " " algos[i] " |"; rule = rule "---:|" }
    print line; print rule
    for (s = 1; s <= ns; s++) {
        n = sizes[s]; line = "| " commas(n) " |"; rl = "| × cub-raw |"
        for (i = 1; i <= na; i++) {
            a = algos[i]
            if (!((n, a) in t)) { line = line " |"; rl = rl " |"; continue }
            line = line " " ms(t[n, a]) (ok[n, a] == "ok" || ok[n, a] == "-" ? "" : " " ok[n, a]) " |"
            r = t[n, "cub-raw"] > 0 ? t[n, a] / t[n, "cub-raw"] : 0
            rl = rl " " (r > 0 ? ratio(r) : "") " |"
        }
        print line; print rl
    }
}
EOF

# bench_sort --dist all CSV -> per algorithm and size the worst
# distribution's time over uniform's.
read -r -d '' AWK_DISTS <<'EOF'
BEGIN { FS = "," }
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    a = $col["algo"]; n = $col["n"] + 0; d = $col["dist"]
    if (!(a in seen)) { seen[a] = 1; algos[++na] = a }
    if (!(n in seen_n)) { seen_n[n] = 1; sizes[++ns] = n }
    t[n, a, d] = $col["median_ms"]
    if ($col["check"] != "ok" && $col["check"] != "-") bad[a] = bad[a] " " d "@" n
    dists[d] = 1
}
END {
    if (!na) exit 1
    line = "| algorithm |"; rule = "|---|"
    for (s = 1; s <= ns; s++) { line = line " " commas(sizes[s]) ": worst ÷ uniform |"; rule = rule "---|" }
    print line; print rule
    for (i = 1; i <= na; i++) {
        a = algos[i]; line = "| " a " |"
        for (s = 1; s <= ns; s++) {
            n = sizes[s]; u = t[n, a, "uniform"]; worst = 0; where = ""
            for (d in dists)
                if (d != "uniform" && (n, a, d) in t && u > 0 && t[n, a, d] / u > worst) {
                    worst = t[n, a, d] / u; where = d
                }
            line = line " " (worst > 0 ? ratio(worst) " (" where ")" : "") " |"
        }
        if (a in bad) sub(/^\| [^|]*\|/, "| " a " (WRONG:" bad[a] ") |", line)
        print line
    }
}
EOF

# bench_sort --model CSVs, one per input (-v labels="a|b|..." in file
# order) -> one row per input.
read -r -d '' AWK_REAL <<'EOF'
BEGIN { FS = ","; split(labels, label, "|") }
FNR == 1 { file++; for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    a = $col["algo"]
    if (!(a in seen)) { seen[a] = 1; algos[++na] = a }
    t[file, a] = $col["median_ms"]; pairs[file] = $col["n"]
    if ($col["check"] != "ok" && $col["check"] != "-") t[file, a] = t[file, a] " " $col["check"]
}
END {
    if (!na) exit 1
    line = "| input | pairs |"; rule = "|---|---:|"
    for (i = 1; i <= na; i++) { line = line " " algos[i] " |"; rule = rule "---:|" }
    print line; print rule
    for (f = 1; f <= file; f++) {
        line = "| " label[f] " | " commas(pairs[f]) " |"
        for (i = 1; i <= na; i++) line = line " " ((f, algos[i]) in t ? ms(t[f, algos[i]]) : "") " |"
        print line
    }
}
EOF

# depthsort --headless CSVs -> one tab-separated summary line per run and
# sort: label, sort, elements, WxH, draw form, tiles, then the medians of
# keys (with the points' distances), sort, scatter (binning), handover,
# draw and frame. As the headless
# table does, the frame and hand-over leave out frames without a frame
# time (the first).
read -r -d '' AWK_HEADLESS <<'EOF'
FNR == 1 { n = csvsplit($0, h); delete col; for (i = 1; i <= n; i++) col[h[i]] = i; next }
{
    csvsplit($0, f)
    s = f[col["sort"]]
    k = FILENAME SUBSEP s
    if (!(k in seen)) {
        seen[k] = 1; keys[++nk] = k
        meta[k] = label "\t" s "\t" f[col["elements"]] "\t" f[col["width"]] "x" f[col["height"]] \
                  "\t" f[col["draw"]] "\t" f[col["tiles"]]
    }
    frame = f[col["frame_ms"]] + 0
    v[k, "keys"] = v[k, "keys"] " " (f[col["distances_ms"]] + f[col["keys_ms"]])
    v[k, "sort"] = v[k, "sort"] " " f[col["sort_ms"]]
    v[k, "scatter"] = v[k, "scatter"] " " f[col["scatter_ms"]]
    v[k, "draw"] = v[k, "draw"] " " f[col["draw_ms"]]
    if (frame > 0) {
        v[k, "handover"] = v[k, "handover"] " " f[col["handover_ms"]]
        v[k, "frame"] = v[k, "frame"] " " frame
    }
}
END {
    for (i = 1; i <= nk; i++) {
        k = keys[i]
        printf "%s\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\n", meta[k], median(v[k, "keys"]),
               median(v[k, "sort"]), median(v[k, "scatter"]), median(v[k, "handover"]),
               median(v[k, "draw"]), median(v[k, "frame"])
    }
}
EOF

# Summary lines -> frames by scene and path, the rows of one scene
# together, scenes in the order they first ran.
read -r -d '' AWK_FRAMES <<'EOF'
BEGIN { FS = "\t" }
{
    if (!($1 in rows)) scenes[++ns] = $1
    fr = $12 + 0
    rows[$1] = rows[$1] sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, commas($3), $2,
           ms($7), ms($8), ms($9), ms($10), ms($11), ms(fr - $11), ms(fr), (fr > 0 ? sprintf("%.0f", 1000 / fr) : "–"))
}
END {
    print "| scene | elements | sort | keys | sort | binning | hand-over | draw | frame − draw | frame | fps |"
    print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ns; i++) printf "%s", rows[scenes[i]]
}
EOF

# Summary lines -> draw forms: one row per scene, size and tiles setting,
# the indexed and the pulled form side by side.
read -r -d '' AWK_FORMS <<'EOF'
BEGIN {
    FS = "\t"
    print "| scene | triangles | size | tiles | sort | indexed: draw | frame | pulled: draw | frame | pulled ÷ indexed |"
    print "|---|---:|---|---|---|---:|---:|---:|---:|---:|"
}
{
    k = $1 SUBSEP $4 SUBSEP $6
    if (!(k in seen)) { seen[k] = 1; rows[++nr] = k; tri[k] = $3; sorts[k] = $2 }
    draw[k, $5] = $11; frame[k, $5] = $12
}
END {
    for (i = 1; i <= nr; i++) {
        k = rows[i]; split(k, p, SUBSEP)
        r = frame[k, "indexed"] > 0 && frame[k, "pull"] > 0 ? ratio(frame[k, "pull"] / frame[k, "indexed"]) : ""
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], commas(tri[k]), p[2],
               p[3] == 1 ? "on" : "off", sorts[k], ms(draw[k, "indexed"]), ms(frame[k, "indexed"]),
               ms(draw[k, "pull"]), ms(frame[k, "pull"]), r
    }
}
EOF

# bench_load lines ("NAME SIZE MB V v T t  parse MS ms RATE MB/s   load MS
# ms RATE MB/s") and --memory lines ("PATH: peak RSS +X MB = Z x the file
# (Y MB); the finished mesh holds W MB") -> the loading table.
read -r -d '' AWK_LOAD <<'EOF'
$1 ~ /:$/ && $2 == "peak" && $8 == "x" {
    p = $1; sub(/:$/, "", p); sub(/.*\//, "", p); m = $4; sub(/^\+/, "", m)
    mem[p] = m " MB (" $7 " × file)"; next
}
$3 == "MB" && $5 == "v" && $7 == "t" && $8 == "parse" {
    names[++n] = $1; mb[$1] = $2; vs[$1] = $4; ts[$1] = $6; parse[$1] = $9; load[$1] = $14
}
END {
    if (!n) exit 1
    print "| file | size | vertices | triangles | parse (ms) | load (ms) | peak memory added |"
    print "|---|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
        f = names[i]
        printf "| %s | %s MB | %s | %s | %s | %s | %s |\n", f, mb[f], commas(vs[f]), commas(ts[f]),
               parse[f], load[f], (f in mem ? mem[f] : "")
    }
}
EOF

# The 16M row of the sizes CSV and the distributions CSV -> the issues'
# goals for each algorithm, met or not.
read -r -d '' AWK_GOALS <<'EOF'
BEGIN { FS = "," }
FNR == 1 { file++; delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
file == 1 && $col["n"] == 16777216 { t[$col["algo"]] = $col["median_ms"] }
file == 2 {
    a = $col["algo"]; n = $col["n"]; d = $col["dist"]
    dt[a, n, d] = $col["median_ms"]; ns[n] = 1; ds[d] = 1
}
function worst(a,    n, d, w, u) {
    w = 0
    for (n in ns) {
        u = dt[a, n, "uniform"]
        if (u > 0) for (d in ds) if (d != "uniform" && (a, n, d) in dt && dt[a, n, d] / u > w) w = dt[a, n, d] / u
    }
    return w
}
function row(a, goal, limit, dist_limit,    r, rc, w, v, m) {
    if (!(t[a] > 0)) return
    r = t[a] / raw; rc = t[a] / cub; w = worst(a)
    v = r <= limit ? "met" : rc <= limit ? "met against `cub`" : "not met"
    m = sprintf("%.2f× cub-raw, %.2f× `cub`", r, rc)
    if (dist_limit) {
        m = m "; worst " (w > 0 ? sprintf("%.2f×", w) : "not measured")
        if (w > dist_limit) v = "not met"
    }
    printf "| %s | %s | %s | %s |\n", a, goal, m, v
}
END {
    raw = t["cub-raw"]; cub = t["cub"]
    if (!(raw > 0 && cub > 0)) exit 1
    print "| algorithm | goal at 16M uniform pairs | measured | |"
    print "|---|---|---|---|"
    if (t["radix"] > 0)
        printf "| radix | ≥ 0.8× CUB's throughput | %.2f× cub-raw's, %.2f× `cub`'s | %s |\n", raw / t["radix"],
               cub / t["radix"], (raw / t["radix"] >= 0.8 ? "met" : cub / t["radix"] >= 0.8 ? "met against `cub`" : "not met")
    row("bitonic2", "≤ 4× CUB's time", 4, 0)
    row("hybrid", "≤ 2× CUB's time; every distribution ≤ 3× its uniform time", 2, 3)
    row("quick", "≤ 3× CUB's time; every distribution ≤ 2× its uniform time", 3, 2)
}
EOF

# csv_awk PROGRAM [-v NAME=VALUE]... FILE...: PROGRAM with the functions above.
csv_awk() {
    local prog=$1 opts=()
    shift
    while [[ ${1:-} == -v ]]; do opts+=(-v "$2"); shift 2; done
    awk "${opts[@]}" "$AWK_LIB"$'\n'"$prog" "$@"
}

# hl TABLE LABEL TIMEOUT ARGS...: one headless run into raw/TABLE-N.csv,
# its summary lines appended to raw/TABLE.tsv.
declare -A hl_count
hl() {
    local table=$1 label=$2 limit=$3
    shift 3
    local i=$((${hl_count[$table]:-0} + 1))
    hl_count[$table]=$i
    local csv=$raw/$table-$i.csv
    run "$table" "$limit" depthsort --headless "$@" --csv "$csv" || return
    csv_awk "$AWK_HEADLESS" -v "label=$label" "$csv" >>"$raw/$table.tsv" 2>>"$raw/errors.log"
}

# ---- 1. every sort by size -------------------------------------------------
if have bench_sort; then
    if run sizes 150 bench_sort --algo all --runs "$runs" --sizes "$sort_sizes" \
        --commit "$commit" --csv "$raw/sizes.csv"; then
        begin sizes "Every sort by size" "$raw/sizes.log"
        csv_awk "$AWK_SORT_SIZES" "$raw/sizes.csv" >>"$md" 2>>"$raw/errors.log"
        end
    fi
fi

# ---- 2. distributions --------------------------------------------------------
if have bench_sort; then
    if run dists 120 bench_sort --algo all --dist all --runs 10 --sizes "$dist_sizes" \
        --commit "$commit" --csv "$raw/dists.csv"; then
        begin dists "Key distributions" "$raw/dists.log"
        csv_awk "$AWK_DISTS" "$raw/dists.csv" >>"$md" 2>>"$raw/errors.log"
        end
    fi
fi

# The issues' goals, from both (16M: the real run only).
if [[ -s $raw/sizes.csv ]] && grep -q ",16777216," "$raw/sizes.csv"; then
    {
        echo "## Goals"
        echo
        echo "<!-- perf-tables goals -->"
        echo "$gpu_line: the two tables above."
        echo
        dists=$raw/dists.csv
        [[ -s $dists ]] || dists=/dev/null
        csv_awk "$AWK_GOALS" "$raw/sizes.csv" "$dists" 2>>"$raw/errors.log"
    } >>"$md"
    end
fi

# ---- 3. real data -------------------------------------------------------------
if have bench_sort bun_zipper.ply dragon_vrip.ply; then
    labels="" files=()
    real() { # real LABEL ARGS...
        local label=$1 i=$((${#files[@]} + 1))
        shift
        run real 90 bench_sort --algo all --runs "$runs" --commit "$commit" "$@" \
            --csv "$raw/real-$i.csv" || return
        files+=("$raw/real-$i.csv")
        labels+="${labels:+|}$label"
    }
    real "bunny, eye at the origin" --model "$bin/bun_zipper.ply" --eye 0,0,0
    real "dragon, eye at the origin" --model "$bin/dragon_vrip.ply" --eye 0,0,0
    real "dragon, eye off the model" --model "$bin/dragon_vrip.ply"
    real "dragon 4×4, eye off the model" --model "$bin/dragon_vrip.ply" --grid 4x4
    real "$mid's vertices, eye off the model" --scene "$mid"
    if ((${#files[@]})); then
        begin real "Real data" "$raw/real.log" \
            "bench_sort --algo all --runs $runs (--model MODEL [--eye 0,0,0] [--grid 4x4] | --scene $mid)"
        csv_awk "$AWK_REAL" -v "labels=$labels" "${files[@]}" >>"$md" 2>>"$raw/errors.log"
        end
    fi
fi

# ---- 4. frames by scene and path ------------------------------------------------
if have depthsort dragon_vrip.ply bun_zipper.ply; then
    H=(--size "$size")
    hl frames dragon 150 "$bin/dragon_vrip.ply" "${H[@]}" --frames "$frames" --sort all
    for s in gl cub; do
        hl frames "dragon, points" 90 "$bin/dragon_vrip.ply" "${H[@]}" --frames "$frames" \
            --primitive points --sort $s
        hl frames bunny 90 "$bin/bun_zipper.ply" "${H[@]}" --frames "$frames" --sort $s
        hl frames "$mid" 90 --scene "$mid" "${H[@]}" --frames "$frames" --sort $s
    done
    for g in $gyroid_stages; do
        for s in gl cub; do
            hl frames "$g" 90 --scene "$g" "${H[@]}" --frames "$frames_big" --sort $s
        done
    done
    for s in cub radix gl; do
        hl frames "$big" 120 --scene "$big" "${H[@]}" --frames "$frames_big" --sort $s
    done
    if [[ -s $raw/frames.tsv ]]; then
        begin frames "Frames by scene and path" "$raw/frames.log" \
            "depthsort --headless --size $size (MODEL | --scene S) --frames $frames ($frames_big for the gyroids from 3M) --sort S [--primitive points]"
        csv_awk "$AWK_FRAMES" "$raw/frames.tsv" >>"$md"
        end
    fi
fi

# ---- the README's headline blocks ----------------------------------------------------
if grep -q ",16777216," "$raw/sizes.csv" 2>/dev/null || [[ -s $raw/frames.tsv ]]; then
    printf '%s\n\n' "## README headline blocks" >>"$md"
fi
if grep -q ",16777216," "$raw/sizes.csv" 2>/dev/null; then
    {
        echo "<!-- perf-tables readme-sort -->"
        echo "$gpu_line (\`bench_sort --algo all --runs $runs\`):"
        echo "16,777,216 pairs, uniform float keys, ascending, median of $runs runs; cub-raw is plain"
        echo "\`cub::DeviceRadixSort::SortPairs\`, the others keep the full sort semantics (NaN last,"
        echo "−0 = +0, in place):"
        echo
        csv_awk "$AWK_SORT_SIZES" "$raw/sizes.csv" |
            awk -v n="16,777,216" 'NR <= 2 || next_too || index($0, "| " n " |") == 1 {
                print; next_too = index($0, "| " n " |") == 1 }' | sed 's/^| n |/| n, ms |/'
    } >>"$md"
    end
fi
if [[ -s $raw/frames.tsv ]]; then
    {
        echo "<!-- perf-tables readme-frames -->"
        echo "$gpu_line (\`depthsort --headless --size"
        echo "$size dragon_vrip.ply --frames $frames --sort all\`): the Stanford dragon (871,414 triangles) with the"
        echo "defaults (culling, screen tiles, pulled triangles, narrowed keys), medians of the frames:"
        echo
        echo "| stages | keys + sort + binning | hand-over | draw | frame − draw | frame | fps |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
        csv_awk '
            BEGIN { FS = "\t" }
            $1 == "dragon" && ($2 == "gl" || $2 == "cub") {
                name = $2 == "gl" ? "`gl` (default): GL compute, one context" : "`cub` in CUDA, through interop"
                printf "| %s | %s ms | %s ms | %s ms | %s ms | %s ms | %.0f |\n", name, ms($7 + $8 + $9),
                       ms($10), ms($11), ms($12 - $11), ms($12), ($12 > 0 ? 1000 / $12 : 0)
            }' "$raw/frames.tsv"
    } >>"$md"
    end
fi

# ---- 5. loading --------------------------------------------------------------------
if have bench_load dragon_vrip.ply bun_zipper.ply; then
    run load 60 bench_load --write-binary "$bin/dragon_vrip.ply" "$raw/dragon_le.ply" le &&
        run load 60 bench_load --write-binary "$bin/dragon_vrip.ply" "$raw/dragon_be.ply" be
    files=()
    for f in "$bin/dragon_vrip.ply" "$raw/dragon_le.ply" "$raw/dragon_be.ply" "$bin/bun_zipper.ply" \
        "$bin/stanford-bunny.obj" "$bin/bunny.ply"; do
        [[ -f $f ]] && files+=("$f")
    done
    run load 150 bench_load --repeat "$repeat" "${files[@]}"
    for f in "$bin/dragon_vrip.ply" "$raw/dragon_le.ply" "$bin/stanford-bunny.obj"; do
        [[ -f $f ]] && run load 30 bench_load --memory "$f"
    done
    if grep -q " parse " "$raw/load.log"; then
        cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
        begin load "Loading" "$raw/load.log" \
            "bench_load --repeat $repeat FILE...; bench_load --memory FILE; bench_load --write-binary dragon_vrip.ply OUT le|be"
        echo "The host's CPU: $cpu, $(nproc) threads." >>"$md"
        echo >>"$md"
        csv_awk "$AWK_LOAD" "$raw/load.log" >>"$md" 2>>"$raw/errors.log"
        end
    fi
fi

# ---- 6. draw forms and screen tiles (the most runs: last, so that a run
# cut short by a timeout loses the least) ----------------------------------------------
if have depthsort dragon_vrip.ply bun_zipper.ply dragon_100k_binary_le.ply; then
    forms() { # forms LABEL SIZE FRAMES [--tiles off] SOURCE...
        local label=$1 sz=$2 n=$3 form
        shift 3
        for form in indexed pull; do
            hl forms "$label" 120 "$@" --size "$sz" --frames "$n" --draw $form
        done
    }
    forms bunny "$size" "$frames" "$bin/bun_zipper.ply"
    forms "dragon 100k" "$size" "$frames" "$bin/dragon_100k_binary_le.ply"
    for g in $gyroid_forms; do forms "$g" "$size" "$frames_big" --scene "$g"; done
    forms dragon "$size" "$frames" "$bin/dragon_vrip.ply"
    forms dragon "$size" "$frames" "$bin/dragon_vrip.ply" --tiles off
    forms "$big" "$size" "$frames_big" --scene "$big"
    forms "$big" "$size" "$frames_big" --scene "$big" --tiles off
    forms bunny "$small" "$frames" "$bin/bun_zipper.ply"
    forms dragon "$small" "$frames" "$bin/dragon_vrip.ply"
    if [[ -s $raw/forms.tsv ]]; then
        begin forms "Draw forms and screen tiles" "$raw/forms.log" \
            "depthsort --headless (MODEL | --scene S) --size WxH --frames $frames ($frames_big for the gyroids) --draw indexed|pull [--tiles off]"
        csv_awk "$AWK_FORMS" "$raw/forms.tsv" >>"$md"
        end
    fi
fi

[[ -s $raw/errors.log ]] && { echo "## Errors"; echo; sed 's/^/    /' "$raw/errors.log"; } >>"$md"
tar -C "$raw" --exclude="*.ply" -czf "$out/tables-raw.tar.gz" . 2>/dev/null
cat "$md"
[[ -n ${KEEP_RAW:-} ]] || rm -rf "$raw"
exit 0
