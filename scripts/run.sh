#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh [depthsort args...] — Quick start (1): set up, build, and run the
# main job: the viewer on the built-in default scene when a display is
# available, otherwise the headless timing run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
exec build/depthsort "$@"
