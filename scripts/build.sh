#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build.sh BUILD_DIR [cmake args...] — configure (once) and build.
set -euo pipefail
dir=${1:?usage: build.sh BUILD_DIR [cmake args...]}
shift
cd "$(dirname "$0")/.."
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
