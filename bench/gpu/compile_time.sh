#!/usr/bin/env bash
# How long nvcc takes to compile a user's kernel that includes ishmem.h, against the same kernel
# written with NVSHMEM's nvshmem.h: a put, a quiet, a wait and a block-wide put-with-signal, one
# translation unit each, compiled to an object (-c) for sm_90, three times each (the median counts).
# ishmem's is timed without and with -rdc (it needs none; NVSHMEM needs it). Prints CSV and the ratio.
#   bench/gpu/compile_time.sh     (the source tree's headers; NVSHMEM from NVSHMEM_HOME or the wheel
#                                  under /opt/torch; CUDA_ARCH, default 90)
#   NVSHMEM_SRC=DIR bench/gpu/compile_time.sh   NVSHMEM's headers from a checkout of its source
#                                  (github NVIDIA/nvshmem at a release tag), where no package is
#                                  installed: the two headers its build generates are made here,
#                                  with every build option off (NVSHMEM_SRC_OPTIONS: ones to turn on)
set -euo pipefail
cd "$(dirname "$0")/../.."
nvshmem=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
arch=${CUDA_ARCH:-90}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -n "${NVSHMEM_SRC:-}" ]; then
  mkdir -p "$tmp/nvshmem"
  cp -r "$NVSHMEM_SRC/src/include" "$tmp/nvshmem/include"
  abi=$tmp/nvshmem/include/non_abi
  sed 's|^#cmakedefine \(.*\)|/* #undef \1 */|' "$abi/nvshmem_build_options.h.in" >"$abi/nvshmem_build_options.h"
  for o in ${NVSHMEM_SRC_OPTIONS:-}; do sed -i "s|/\* #undef $o \*/|#define $o|" "$abi/nvshmem_build_options.h"; done
  IFS=.- read -r major minor patch _ < <(git -C "$NVSHMEM_SRC" describe --tags 2>/dev/null | sed 's/^v//' || echo 0.0.0)
  sed -e "s/@PROJECT_VERSION_MAJOR@/${major:-0}/;s/@PROJECT_VERSION_MINOR@/${minor:-0}/" \
      -e "s/@PROJECT_VERSION_PATCH@/${patch:-0}/;s/@PROJECT_VERSION_TWEAK@/0/" \
      -e 's/@[A-Z_]*VERSION_[A-Z]*@/1/g;s/@INFO_BUILD_VARS@/""/' "$abi/nvshmem_version.h.in" >"$abi/nvshmem_version.h"
  nvshmem=$tmp/nvshmem
fi
cat > "$tmp/ours.cu" <<'CU'
#include <cooperative_groups.h>
#include <ishmem.h>
#include <ishmemx.h>
__global__ void k(int* dest, const int* src, uint64_t* flag, int pe) {
    auto block = cooperative_groups::this_thread_block();
    if (block.thread_rank() == 0) {
        ishmem_int_p(dest, 1, pe);
        ishmem_quiet();
        ishmem_uint64_wait_until(flag, ISHMEM_CMP_GE, 1);
    }
    ishmemx_int_put_signal_work_group(dest, src, 1024, flag, 1, ISHMEM_SIGNAL_ADD, pe, block);
}
CU
cat > "$tmp/theirs.cu" <<'CU'
#include <nvshmem.h>
#include <nvshmemx.h>
__global__ void k(int* dest, const int* src, uint64_t* flag, int pe) {
    if (threadIdx.x == 0) {
        nvshmem_int_p(dest, 1, pe);
        nvshmem_quiet();
        nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, 1);
    }
    nvshmemx_int_put_signal_block(dest, src, 1024, flag, 1, NVSHMEM_SIGNAL_ADD, pe);
}
CU
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
time_it() {  # prints the median of three compile times in seconds
  local t=()
  for _ in 1 2 3; do
    local s=$(date +%s.%N)
    nvcc -std=c++20 -arch=sm_$arch -c "$@" -o "$tmp/out.o"
    t+=("$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')")
  done
  median3 "${t[@]}"
}
ours=$(time_it -Iruntime/include -Igenerated/include "$tmp/ours.cu")
ours_rdc=$(time_it -rdc=true -Iruntime/include -Igenerated/include "$tmp/ours.cu")
[ -f "$nvshmem/include/nvshmem.h" ] || { echo "compile_time: no nvshmem.h under $nvshmem (set NVSHMEM_HOME)" >&2; exit 1; }
theirs=$(time_it -rdc=true -I"$nvshmem/include" "$tmp/theirs.cu")
ratio() { awk -v a="$1" -v b="$theirs" 'BEGIN { printf "%.3f", a / b }'; }
echo "unit,seconds,ratio_to_nvshmem"
echo "ishmem.h,$ours,$(ratio "$ours")"
echo "ishmem.h -rdc,$ours_rdc,$(ratio "$ours_rdc")"
echo "nvshmem.h -rdc,$theirs,1.000"
