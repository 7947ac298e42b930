#!/usr/bin/env bash
# A translation unit that includes ishmem.h and is compiled with -G (device debug code, which the
# CUDA guide says is not supported) gets ishmem's compiler warning; compiled without -G, none.
# Preprocessing alone shows it (nvcc -E runs the device pass's preprocessor), so no GPU is needed.
# usage: check_debug_warning.sh NVCC INCLUDE_DIR...
# Exit status: 0 both cases right, 1 otherwise.
set -u
nvcc=$1
shift
incs=()
for d in "$@"; do incs+=(-I"$d"); done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include <ishmem.h>\n__global__ void k(int* p) { ishmem_int_p(p, 1, 0); }\n' > "$tmp/app.cu"
flags=(-std=c++20 -arch=compute_90 --expt-relaxed-constexpr "${incs[@]}" -E "$tmp/app.cu" -o /dev/null)
want='ishmem: device code built with -G is not supported'
fails=0
"$nvcc" -G "${flags[@]}" > "$tmp/g.txt" 2>&1 || { echo "FAIL: nvcc -E -G failed:"; cat "$tmp/g.txt"; exit 1; }
if grep -q "$want" "$tmp/g.txt"; then echo "ok: -G warns"; else
  echo "FAIL: -G gave no warning containing '$want':"; cat "$tmp/g.txt"; fails=1
fi
"$nvcc" "${flags[@]}" > "$tmp/o.txt" 2>&1 || { echo "FAIL: nvcc -E failed:"; cat "$tmp/o.txt"; exit 1; }
if grep -q "$want" "$tmp/o.txt"; then echo "FAIL: warned without -G:"; cat "$tmp/o.txt"; fails=1; else
  echo "ok: no warning without -G"; fi
exit $fails
