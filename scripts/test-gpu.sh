#!/usr/bin/env bash
# Builds ishmem with the CUDA backend in build-gpu and runs the GPU tests, on a machine with NVIDIA
# GPUs, nvcc, cmake and Open MPI, without network: GoogleTest is built from a local source copy
# when its CMake package is missing. Never hangs: every ctest run has a timeout, and every test has
# its own (tests/gpu/CMakeLists.txt).
#
# usage: scripts/test-gpu.sh [options] [REGEX...]
#   REGEX              a ctest -R selection, run as its own ctest invocation (repeatable)
#   --cuda REGEX       a selection run with ISHMEM_BACKEND=cuda exported (repeatable)
#   --no-build         reuse build-gpu as it is (no configure, no build)
#   --build-only       configure and build, run nothing
#   --quick            build only what the GPU tests need (ishmem_gpu_tests, gpu_count, device_error,
#                      ishmrun, gpu_mpi_ring); the default selection then leaves out the host suite
#   --handwritten      as --quick, with the hand-written GPU tests alone (ishmem_gpu_handwritten_tests,
#                      ctests ishmem_gpu_handwritten[_staged,_direct]_np<K>) in place of
#                      ishmem_gpu_tests: no generated cases, a build some minutes shorter
#   --no-host-suite    the default selection without ishmem_tests on the CUDA backend
#   -h, --help         this text
# Default selection (no REGEX given): the GPU tests (ishmem_gpu_tests_np<K>,
# ishmem_gpu_tests_staged_np<K> and ishmem_gpu_tests_direct_np<K> for each K of
# ISHMEM_GPU_TEST_COUNTS that this machine's GPU count allows, or their ishmem_gpu_handwritten
# counterparts with --handwritten; gpu_device_error_line, gpu_mpirun_ring, gpu_nodes_np2 (GPU PEs on
# nodes of their own) and gpu_nodes_np4 (two nodes of two PEs)), then
# ishmem_tests_np1 and _np2 with ISHMEM_BACKEND=cuda (as far as there are GPUs for them).
# gpu_netns_np2 and gpu_netns_np4 (the nodes as network namespaces, root only) run when a REGEX
# names them.
#
# Environment:
#   OUT                     when set, the full log (with ctest's LastTest.log of every run, i.e. the
#                           output of every PE) goes to $OUT/test-gpu.log; else build-gpu/test-gpu.log
#   GTEST_SRC               GoogleTest sources to build when its package is missing (default
#                           .deps/googletest, then /usr/src/googletest); installed in .deps/gtest-install
#   CUDA_ARCH               CMAKE_CUDA_ARCHITECTURES (default 90)
#   TEST_GPU_CTEST_TIMEOUT  ctest --timeout for tests without their own (default 300 s)
#   TEST_GPU_BUDGET         seconds for all ctest runs together (default: no limit); a run past it
#                           is stopped and reported
#   JOBS                    build parallelism (default: all cores)
# The summary (passed / failed / skipped per test) comes last. Exit status: 0 when nothing failed
# and something passed (skipped tests are listed as skipped, never counted as passed), 1 when
# something failed, 3 when every selected test was skipped, 2 for a usage error.

export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1

set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
build=$root/build-gpu

usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; }

selections=()   # "plain<TAB>regex" or "cuda<TAB>regex"
do_build=1 run_tests=1 quick=0 host_suite=1
handwritten=OFF             # --handwritten: ISHMEM_GPU_HANDWRITTEN_CTESTS, and these two follow it
gpu_tests=ishmem_gpu_tests  # the test binary's target
gpu_ctests=ishmem_gpu_tests # the name its ctests start with
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) do_build=0 ;;
    --build-only) run_tests=0 ;;
    --quick) quick=1 host_suite=0 ;;
    --handwritten) quick=1 host_suite=0 handwritten=ON gpu_tests=ishmem_gpu_handwritten_tests gpu_ctests=ishmem_gpu_handwritten ;;
    --no-host-suite) host_suite=0 ;;
    --cuda)
      [ $# -ge 2 ] || { echo "test-gpu.sh: --cuda needs a regex" >&2; exit 2; }
      selections+=("cuda"$'\t'"$2"); shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "test-gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) selections+=("plain"$'\t'"$1") ;;
  esac
  shift
done

if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; log=$OUT/test-gpu.log; else mkdir -p "$build"; log=$build/test-gpu.log; fi
: >"$log"
results=$(mktemp)   # one line per test: section<TAB>status<TAB>name<TAB>seconds
trap 'rm -f "$results"' EXIT

jobs=${JOBS:-$(nproc)}
ctest_timeout=${TEST_GPU_CTEST_TIMEOUT:-300}
start_time=$(date +%s)
problems=()     # steps that failed outside the per-test results

say() { printf '== %s\n' "$*"; }

# --- GoogleTest ----------------------------------------------------------------------------------
# Prints the -DCMAKE_PREFIX_PATH=... argument to use, or nothing when a system package is there.
gtest_prefix_arg() {
  local inst=$root/.deps/gtest-install d
  if ls "$inst"/lib*/cmake/GTest/GTestConfig.cmake >/dev/null 2>&1; then
    echo "-DCMAKE_PREFIX_PATH=$inst"; return 0
  fi
  for d in /usr/lib/*/cmake/GTest /usr/lib/cmake/GTest /usr/lib64/cmake/GTest /usr/local/lib/cmake/GTest \
           /usr/local/lib64/cmake/GTest /usr/local/lib/*/cmake/GTest; do
    [ -f "$d/GTestConfig.cmake" ] && return 0
  done
  if [ -f /usr/include/gtest/gtest.h ] && ls /usr/lib/*/libgtest.* /usr/lib/libgtest.* /usr/lib64/libgtest.* >/dev/null 2>&1; then
    return 0
  fi
  local src=${GTEST_SRC:-}
  if [ -z "$src" ]; then
    for d in "$root/.deps/googletest" /usr/src/googletest; do
      if [ -f "$d/CMakeLists.txt" ]; then src=$d; break; fi
    done
  fi
  if [ -z "$src" ] || [ ! -f "$src/CMakeLists.txt" ]; then
    echo "test-gpu.sh: GoogleTest not found, and no sources to build it from (set GTEST_SRC, or copy /usr/src/googletest to .deps/googletest)" >&2
    return 1
  fi
  say "building GoogleTest from $src into $inst" >&2
  if cmake -S "$src" -B "$root/.deps/gtest-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$inst" \
       -DBUILD_GMOCK=OFF -DINSTALL_GTEST=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON >&2 &&
     cmake --build "$root/.deps/gtest-build" -j"$jobs" >&2 &&
     cmake --install "$root/.deps/gtest-build" >&2; then
    echo "-DCMAKE_PREFIX_PATH=$inst"; return 0
  fi
  echo "test-gpu.sh: building GoogleTest from $src failed" >&2
  return 1
}

# --- configure and build -------------------------------------------------------------------------
configure_and_build() {
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
  local prefix
  prefix=$(gtest_prefix_arg) || return 1
  say "configure $build"
  # The CUDA20 options: CMake before 3.26 knows no C++20 flag for nvcc (no effect where it does).
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_BENCH=OFF \
    -DISHMEM_BUILD_TESTS=ON -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 \
    -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20 ${prefix:+"$prefix"} \
    -DISHMEM_GPU_HANDWRITTEN_CTESTS=$handwritten || return 1
  if [ $quick = 1 ]; then
    say "build (quick: $gpu_tests and the other GPU test targets) with $jobs jobs"
    local targets=("$gpu_tests" gpu_count device_error ishmrun)
    # The mpirun ring exists when the MPI bootstrap is built.
    # (grep reads the whole list: with -q it would stop early, and pipefail would see cmake's SIGPIPE.)
    if cmake --build "$build" --target help 2>/dev/null | grep -c ' gpu_mpi_ring$' >/dev/null; then targets+=(gpu_mpi_ring); fi
    cmake --build "$build" -j"$jobs" --target "${targets[@]}" || return 1
  else
    say "build with $jobs jobs"
    cmake --build "$build" -j"$jobs" || return 1
  fi
}

# --- running -------------------------------------------------------------------------------------
# run_ctest SECTION ENV REGEX: one ctest run; its per-test results go to $results, and its full
# output (Testing/Temporary/LastTest.log) to the log only, so that the console stays short.
run_ctest() {
  local section=$1 env=$2 regex=$3 limit=()
  if [ -n "${TEST_GPU_BUDGET:-}" ]; then
    local left=$((TEST_GPU_BUDGET - ($(date +%s) - start_time)))
    if [ $left -le 5 ]; then
      echo "TEST_GPU_BUDGET spent: '$regex' not run"
      problems+=("$section: not run (TEST_GPU_BUDGET spent)")
      return
    fi
    limit=(timeout -k 10 "$left")
  fi
  say "$section: ctest -R '$regex'${env:+ with $env}"
  local out st
  out=$(mktemp)
  (
    if [ -n "$env" ]; then export "${env?}"; fi
    cd "$build" && ${limit[@]+"${limit[@]}"} ctest --output-on-failure --no-tests=error --timeout "$ctest_timeout" -R "$regex"
  ) 2>&1 | tee "$out"
  st=${PIPESTATUS[0]}
  sed -nE 's/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: +([^ ]+) +\.* *(\*\*\*)?(.*[^ ]) +([0-9.]+) sec.*$/\3\t\1\t\4/p' "$out" |
    while IFS=$'\t' read -r status name secs; do
      printf '%s\t%s\t%s\t%s\n' "$section" "$status" "$name" "$secs"
    done >>"$results"
  if [ "$st" = 124 ] || [ "$st" = 137 ]; then
    problems+=("$section: stopped when TEST_GPU_BUDGET ran out")
  elif ! grep -Eq '^ *[0-9]+/[0-9]+ +Test +#' "$out"; then
    problems+=("$section: ctest ran no test for '$regex' (status $st)")
  fi
  {
    echo "---------------- $section: Testing/Temporary/LastTest.log ----------------"
    cat "$build/Testing/Temporary/LastTest.log" 2>/dev/null
    echo "---------------- end of $section ----------------"
  } >>"$log"
  rm -f "$out"
}

gpu_count() {
  local n=""
  [ -x "$build/tests/gpu/gpu_count" ] && n=$("$build/tests/gpu/gpu_count" 2>/dev/null | tail -n 1)
  case "$n" in ''|*[!0-9]*) n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') ;; esac
  echo "${n:-0}"
}

# The PE counts of ishmem_gpu_tests that this build registers (ISHMEM_GPU_TEST_COUNTS).
registered_counts() {
  sed -n 's/^ISHMEM_GPU_TEST_COUNTS:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null | tr ';' ' '
}

summary() {
  local p s f step
  echo
  echo "=============================== test-gpu summary ==============================="
  echo "$(gpu_count) CUDA device(s); $(date -u +%FT%TZ); $(($(date +%s) - start_time)) s in all"
  if [ -s "$results" ]; then
    awk -F'\t' '{ st = $2; if (st != "Passed" && st != "Skipped") st = "FAILED (" st ")";
                  printf "  %-44s %-22s %8s s   [%s]\n", $3, st, $4, $1 }' "$results"
  fi
  p=$(awk -F'\t' '$2 == "Passed"' "$results" | wc -l)
  s=$(awk -F'\t' '$2 == "Skipped"' "$results" | wc -l)
  f=$(awk -F'\t' '$2 != "Passed" && $2 != "Skipped"' "$results" | wc -l)
  for step in "${problems[@]+"${problems[@]}"}"; do echo "  !! $step"; done
  echo "passed $p, failed $f, skipped $s (a skip says why in the log: too few GPUs)"
  echo "full log: $log"
  if [ "$f" != 0 ] || [ ${#problems[@]} != 0 ]; then return 1; fi
  if [ "$p" = 0 ]; then
    echo "NOTHING PASSED: every selected test was skipped (no GPU visible?)"
    return 3
  fi
  return 0
}

main() {
  say "ishmem test-gpu: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "no git") in $root"
  { nvidia-smi -L 2>/dev/null || echo "(nvidia-smi: not available)"; } | sed 's/^/   /'
  { nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null; } | tail -n 1 | sed 's/^/   /'
  cmake --version | head -n 1 | sed 's/^/   /'

  if [ $do_build = 1 ] && ! configure_and_build; then
    problems+=("configure or build failed (see above)")
    summary
    return 1
  fi
  if [ $run_tests = 0 ]; then
    echo "--build-only: built, nothing run"
    return 0
  fi
  local gpus
  gpus=$(gpu_count)
  say "$gpus CUDA device(s) visible"

  if [ ${#selections[@]} = 0 ]; then
    local counts="" not="" k hc
    for k in $(registered_counts); do
      if [ "$k" -le "$gpus" ]; then counts="${counts:+$counts|}$k"; else not="$not ${gpu_ctests}_np$k"; fi
    done
    # With no GPU at all, np1 still runs, to show the skip.
    [ -z "$counts" ] && not=${not/ ${gpu_ctests}_np1/}
    [ -n "$not" ] && echo "not selected, more PEs than GPUs:$not"
    selections+=("plain"$'\t'"^(${gpu_ctests}_(direct_|staged_)?np(${counts:-1})|gpu_device_error_line|gpu_mpirun_ring|gpu_nodes_np[24])\$")
    if [ $host_suite = 1 ] && [ "$gpus" -ge 1 ]; then
      hc=1
      [ "$gpus" -ge 2 ] && hc="1|2"
      selections+=("cuda"$'\t'"^ishmem_tests_np($hc)\$")
    fi
  fi

  local sel kind regex
  for sel in "${selections[@]}"; do
    kind=${sel%%$'\t'*} regex=${sel#*$'\t'}
    if [ "$kind" = cuda ]; then
      run_ctest "cuda backend" "ISHMEM_BACKEND=cuda" "$regex"
    else
      run_ctest "selection" "" "$regex"
    fi
  done
  summary
}

main 2>&1 | tee -a "$log"
exit "${PIPESTATUS[0]}"
