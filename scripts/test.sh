#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh — Quick start (2): set up, build with sanitizers, and run every
# test (GPU tests skip cleanly without a CUDA device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build-test -DDS_SANITIZE=ON
cd build-test
ctest --output-on-failure -j "$(nproc)" "$@"
