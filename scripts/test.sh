#!/usr/bin/env bash
# Installs what is needed, builds everything and runs every test: the C++ suite on 1, 2, 3 and 4 PEs,
# the launcher and example checks, the generator's pytest suite and freshness check, the docs build
# and an install + find_package/pkg-config consumer build; then the sanitizer builds
# (scripts/test-sanitizers.sh: ASan + UBSan on 1, 2 and 4 PEs, TSan on the threaded tests).
# .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure -j1 "$@"
cd ..
scripts/test-sanitizers.sh
