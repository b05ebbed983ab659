#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_spdx.sh ROOT — every source file of the project (C, CUDA, C++,
# GLSL, shell, Python, CMake) carries an SPDX licence line in its first
# three lines; prints each file that lacks one and fails.
set -euo pipefail
cd "${1:?usage: check_spdx.sh ROOT}"
missing=0
while IFS= read -r -d '' f; do
    [[ -s $f ]] || continue
    if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: '; then
        echo "check_spdx: $f: no SPDX-License-Identifier line"
        missing=$((missing + 1))
    fi
done < <(find src kernels shaders tests bench fuzz scripts cmake .ci CMakeLists.txt -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \
       -o -name '*.glsl' -o -name '*.sh' -o -name '*.py' -o -name '*.cmake' \
       -o -name CMakeLists.txt -o -path .ci/run \) -print0)
if ((missing)); then
    echo "check_spdx: $missing files lack an SPDX line (LICENSE: MIT)"
    exit 1
fi
echo "check_spdx: every source file names its licence"
