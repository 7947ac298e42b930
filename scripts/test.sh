#!/usr/bin/env bash
# Installs what is needed, checks the sources' format, builds everything and runs every test: the
# C++ suite on 1, 2, 3 and 4 PEs, the launcher and example checks, the generator's pytest suite and
# freshness check, the docs build and the install + consumer builds; then the sanitizer builds
# (scripts/test-sanitizers.sh: ASan + UBSan on 1, 2 and 4 PEs, TSan on the threaded tests).
# On a machine without a GPU the CUDA code is compiled but not assembled (see below).
# .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The hand-written C, C++ and CUDA sources follow .clang-format (a file that differs fails at once).
scripts/check-format.sh --list
# Without a GPU the GPU tests are only built (each reports that no CUDA device exists and counts as
# skipped), so their device code is compiled to PTX without optimization and not assembled for the
# GPU (no ptxas): every C++ and device front-end error still fails the build, in about half the
# compile time; the 40 files of generated GPU cases compile as 4 units (ISHMEM_GPU_TESTS_UNITY, in
# tests/gpu/CMakeLists.txt: 40% of their time). scripts/test-gpu.sh builds and runs the real
# thing on a machine with GPUs.
cuda_args=()
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  cuda_args=(-DCMAKE_CUDA_ARCHITECTURES=90-virtual "-DCMAKE_CUDA_FLAGS=-Xcicc -O0" -DISHMEM_GPU_TESTS_UNITY=ON)
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}"
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure -j1 "$@"
cd ..
scripts/test-sanitizers.sh
