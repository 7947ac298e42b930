#!/usr/bin/env bash
# Installs what is needed, builds ishmem on the host backend and runs examples/ring on 4 PEs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target ishmrun ring hello
build/launcher/ishmrun -n 4 build/examples/ring
