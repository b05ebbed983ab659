#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_layers.sh SOURCE_DIR [LAYER=OBJECT[,OBJECT...]]... — the files of each layer
# form a DAG (docs/architecture.md, "The files of each layer"):
#   1. includes: the #include "NAME" lines of src/LAYER/ and kernels/LAYER/
#      that name a file of the same layer, file to file;
#   2. references: object A of the layer uses a symbol (a function, or a
#      table such as a registry's) that object B of the same layer defines
#      (nm on the built objects or library, LAYER=FILE arguments);
# no two files depend on each other, directly or around a loop. And no
# getenv in kernels/ or src/sort: the libraries take settings from their
# callers, tests included (tuning structs, ds_sorter_desc.tuning).
# Prints each loop found and exits 1; 0 when there is none.
set -u
source_dir=${1:?usage: check_layers.sh SOURCE_DIR [LAYER=OBJECT...]}
shift
report=$(mktemp)
trap 'rm -f "$report" "$report.defined"' EXIT

# Writes tsort's loops for the edges on stdin ("FROM TO" lines) to the
# report.
loops() {
    local what=$1 out
    out=$(tsort 2>&1 >/dev/null) || true
    if [ -n "$out" ]; then
        echo "$what:"
        echo "$out" | sed 's/^tsort: /  /'
    fi >> "$report"
}

# 1. includes, layer by layer.
for dir in "$source_dir"/src/*/; do
    layer=$(basename "$dir")
    files=$(cd "$source_dir" && ls src/"$layer"/*.[ch] kernels/"$layer"/*.cu \
            kernels/"$layer"/*.cuh kernels/"$layer"/*.h 2>/dev/null)
    # FILE NAME for each include of a file of the layer, then FROM TO.
    (cd "$source_dir" &&
        awk '/^[[:space:]]*#[[:space:]]*include[[:space:]]+"/ {
                 name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
                 sub(/.*\//, "", name); print FILENAME, name }' $files) |
        awk -v files="$files" '
            BEGIN { n = split(files, list, /[[:space:]]+/)
                    for (i = 1; i <= n; i++) { base = list[i]; sub(/.*\//, "", base); path[base] = list[i] } }
            ($2 in path) && path[$2] != $1 { print $1, path[$2] }' |
        loops "include loop in layer $layer"
done

# 2. references, from nm: strong global symbols defined by exactly one
# object of the layer.
for pair in "$@"; do
    layer=${pair%%=*}
    objects=${pair#*=}
    objects=${objects//,/ }
    # nm -A: "FILE:SYMBOL_LINE" for objects, "ARCHIVE:MEMBER:LINE" for a
    # library; the object is the field before the symbol line.
    nm -A --defined-only $objects 2>/dev/null |
        awk '{n = split($1, f, ":"); if ($2 ~ /^[TDBR]$/) print f[n-1], $3}' |
        awk '{count[$2]++; owner[$2] = $1} END {for (s in count) if (count[s] == 1) print s, owner[s]}' \
        > "$report.defined"
    nm -A -u $objects 2>/dev/null | awk '{n = split($1, f, ":"); print f[n-1], $NF}' |
        awk -v defined="$report.defined" '
            BEGIN { while ((getline line < defined) > 0) { split(line, w, " "); owner[w[1]] = w[2] } }
            ($2 in owner) && owner[$2] != $1 { print $1, owner[$2] }' |
        sort -u | loops "reference loop in layer $layer (object -> object it uses)"
done

# 3. no getenv in the libraries below the app.
if grep -rnE '\bgetenv[[:space:]]*\(' "$source_dir"/kernels "$source_dir"/src/sort >> "$report"; then
    echo "getenv in kernels/ or src/sort (above): take the setting from the caller" >> "$report"
fi
if [ -s "$report" ]; then
    cat "$report"
    exit 1
fi
echo "every layer's files form a DAG (includes and references); no getenv in kernels/ or src/sort"
