#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# setup.sh — installs the Debian 12 packages depthsort builds and tests with.
# Idempotent: a no-op when everything is present. Needs root (or sudo) only
# when something is missing. The CUDA 13 toolkit (nvcc in /usr/local/cuda
# or on PATH) is not a Debian package: without it the build leaves out the
# CUDA sorts and interop (CMake's DS_CUDA=AUTO) and everything else runs.
set -euo pipefail

packages=(cmake pkg-config build-essential python3-glad
          libglfw3-dev libx11-dev libxext-dev libcglm-dev libegl-dev libgl-dev libstb-dev libimgui-dev libcmocka-dev
          libegl-mesa0 libgl1-mesa-dri mesa-utils-bin
          gnuplot-nox xvfb xauth xdotool clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: no CUDA toolkit (nvcc on PATH or in /usr/local/cuda): building without" \
       "the CUDA sorts; the gl and cpu sorts, the viewer and the headless runner work" >&2
fi
