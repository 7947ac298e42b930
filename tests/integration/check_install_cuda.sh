#!/usr/bin/env bash
# A user's CUDA program against the installed package, built outside the source tree from the
# installed prefix only: with CMake (find_package(ishmem), CMAKE_CUDA_STANDARD 20; plain and -rdc)
# and with nvcc + pkg-config (ishmem-cuda.pc, and ishmem.pc with -std=c++20; plain and -rdc).
#   check_install_cuda.sh BUILD_DIR SOURCE_DIR build   every build must succeed
#   check_install_cuda.sh BUILD_DIR SOURCE_DIR run     the builds, then each program on 1 and 2 PEs
#                                                      (one PE a GPU, or both on the one GPU);
#                                                      exit 77 (skipped) without a GPU
# Without a GPU, device code goes to PTX for compute_90 (no ptxas), as in the rest of the suite;
# with one, to the GPU's own architecture.
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") mode=${3:-build}
here=$src/tests/integration/consumer_cuda
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "$mode" = run ] && [ "$gpus" -lt 1 ]; then
  echo "check_install_cuda: no GPU: running skipped"
  exit 77
fi
if [ "$gpus" -gt 0 ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
  cmake_args=(-DCMAKE_CUDA_ARCHITECTURES=$cc) nvcc_arch=(-arch=sm_$cc)
else
  cmake_args=(-DCMAKE_CUDA_ARCHITECTURES=90-virtual "-DCMAKE_CUDA_FLAGS=-Xcicc -O0") nvcc_arch=(-arch=compute_90 -Xcicc -O0)
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/ishmem/cuda/device.cuh include/ishmem/cuda/collectives.cuh lib/pkgconfig/ishmem-cuda.pc lib/cmake/ishmem/ishmemCudaStandard.cmake; do
  [ -e "$prefix/$f" ] || { echo "missing $f in the install"; exit 1; }
done
# Nothing of the build tree or the sources leaks into the installed package's flags.
if grep -rlE "$src|$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  echo "the installed package names the build or source tree (above)"; exit 1
fi
# The consumer project is copied out, so that nothing can reach the source tree's headers.
cp -r "$here" "$tmp/app"
cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$prefix" "${cmake_args[@]}" >/dev/null
cmake --build "$tmp/app/build" -j2 >/dev/null
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
sources=("$tmp/app/main.cu" "$tmp/app/kernels.cu")
nvcc "${nvcc_arch[@]}" "${sources[@]}" $(pkg-config --cflags --libs ishmem-cuda) -o "$tmp/app/pc_cuda"
nvcc "${nvcc_arch[@]}" -rdc=true "${sources[@]}" $(pkg-config --cflags --libs ishmem-cuda) -o "$tmp/app/pc_cuda_rdc"
nvcc -std=c++20 "${nvcc_arch[@]}" "${sources[@]}" $(pkg-config --cflags --libs ishmem) -o "$tmp/app/pc_plain"
programs=(build/app build/app_rdc pc_cuda pc_cuda_rdc pc_plain)
if [ "$mode" != run ]; then
  echo "CUDA consumer builds (CMake plain and -rdc, nvcc + pkg-config ishmem-cuda plain and -rdc, ishmem): ok"
  exit 0
fi
counts=(1 2)  # with one GPU the two PEs share it (they take turns, with a warning)
for program in "${programs[@]}"; do
  for np in "${counts[@]}"; do
    out=$(ISHMEM_BACKEND=cuda timeout 120 "$prefix/bin/ishmrun" -n $np "$tmp/app/$program")
    grep -q "cuda consumer: OK on $np PEs" <<<"$out" || { echo "$program on $np PEs: $out"; exit 1; }
    echo "$program on $np PEs: ok"
  done
done
echo "CUDA consumer built and run on ${counts[*]} PE(s) ($gpus GPUs): ok"
