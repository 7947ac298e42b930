#!/usr/bin/env bash
# Builds the test suite with sanitizers and runs it; exits nonzero on any finding, failure or timeout.
#
#  - build-asan (ISHMEM_SANITIZE=address,undefined): ishmem_sanitizer_tests (the hand-written tests
#    and one generated case per entry-point form) on 1, 2 and 4 PEs, and exec_test.
#  - build-tsan (ISHMEM_SANITIZE=thread): the threaded tests (work-groups, _on_queue, AMOs from many
#    threads, THREAD_MULTIPLE, printing threads) of ishmem_threaded_tests on 1 PE, and
#    exec_test (the host queue and work-group launcher).
#
# Everything is instrumented: the library, ishmrun, the harness and the tests. Host backend only,
# no MPI; generated/ is used as it is (scripts/test.sh has just regenerated and checked it).
# Logs: build-{asan,tsan}/sanitizer-logs/. scripts/test.sh runs this after ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
start=$SECONDS
common=(-DISHMEM_ENABLE_CUDA=OFF -DISHMEM_REGENERATE=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
        -DISHMEM_BUILD_BENCH=OFF -DISHMEM_BUILD_EXAMPLES=OFF -DISHMEM_BUILD_DOCS=OFF
        # -O0: a third of -O1's compile time, which dominates here; -g1: file:line in reports.
        -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1")

# Reports name file and line; a finding ends the program with a nonzero status (UBSan too: the
# build has -fno-sanitize-recover=all). TSan reports every race of a run, then exits with 66.
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=second_deadlock_stack=1:history_size=4
export ISHMEM_TEST_TIMEOUT=120  # the harness' per-test watchdog: instrumented code is slower

failures=()

build() {  # build <dir> <sanitizers> <targets...>
    local dir=$1 san=$2
    shift 2
    echo "test-sanitizers: building $dir (-fsanitize=$san): $*"
    cmake -S . -B "$dir" -DISHMEM_SANITIZE="$san" "${common[@]}" >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; exit 1; }
    rm -f "$dir.configure.log"
    cmake --build "$dir" -j"$jobs" --target "$@" >"$dir/sanitizer-build.log" 2>&1 ||
        { tail -n 60 "$dir/sanitizer-build.log"; echo "test-sanitizers: $dir: build failed"; exit 1; }
}

# run <log> <seconds> <command...>: one run, stopped after <seconds> with a message naming it.
run() {
    local log=$1 limit=$2
    shift 2
    mkdir -p "$(dirname "$log")"
    local t0=$SECONDS rc=0
    timeout -k 10 "$limit" "$@" >"$log" 2>&1 || rc=$?
    local what="$* ($((SECONDS - t0)) s, log $log)"
    if [ "$rc" -eq 0 ] && ! grep -qE "ERROR: (Address|Leak|Thread)Sanitizer|WARNING: ThreadSanitizer|runtime error:" "$log"; then
        echo "test-sanitizers: ok: $what"
        return
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "test-sanitizers: TIMEOUT after $limit s: $what"
    else
        echo "test-sanitizers: FAILED (status $rc): $what"
    fi
    grep -nE -A12 "ERROR: (Address|Leak|Thread)Sanitizer|WARNING: ThreadSanitizer|runtime error:" "$log" | head -n 80 || true
    grep -E "FAILED|TIMEOUT" "$log" | head -n 20 || true
    failures+=("$*")
}

# --- AddressSanitizer + UndefinedBehaviorSanitizer ---------------------------------------------
build build-asan address,undefined ishmrun ishmem_sanitizer_tests exec_test
logs=build-asan/sanitizer-logs
run $logs/exec_test.log 300 build-asan/tests/exec_test
for np in 1 2 4; do
    run $logs/np$np.log 480 build-asan/launcher/ishmrun -n $np build-asan/tests/ishmem_sanitizer_tests
done

# --- ThreadSanitizer ----------------------------------------------------------------------------
# The tests that start threads in one PE. TSan sees the threads of a process, not other processes'
# accesses to the shared heap, so a second PE adds paths (remote peers), not more checking.
# Death tests (BadInput) are left out: they fork, which TSan does not support in a threaded process.
threaded='AmoConcurrent.*:Coll.WorkGroupFormsAgreeAcrossThreads:Coll.OnQueueSetsRet:CollLarge.*'
threaded+=':OnQueue.*:P2p.*:Print.ThreadsPrintingAtOnceNeverMix:Rma.*:Groups/RmaWorkGroup.*'
threaded+=':Spec/Generated_setup.*:-P2p.BadInput'
build build-tsan thread ishmrun ishmem_threaded_tests exec_test
logs=build-tsan/sanitizer-logs
# Queue.UsableInAForkedChild starts a thread in a fork()ed child of a threaded process, which TSan
# cannot follow ("starting new threads after multi-threaded fork is not supported"): ASan runs it.
# The launches of up to 1,024 threads (ManySmallLaunches, ParallelForLimits) take a minute under
# TSan and add no code path: ASan runs them.
run $logs/exec_test.log 300 build-tsan/tests/exec_test \
    --gtest_filter=-Queue.UsableInAForkedChild:ParallelForQueue.ManySmallLaunches:ParallelForLimits.*
# One PE: TSan checks the threads of one process, and every threaded path runs with one PE too (the
# own PE through the same code as a peer); ASan covers 2 and 4 PEs.
run $logs/np1.log 480 build-tsan/launcher/ishmrun -n 1 build-tsan/tests/ishmem_threaded_tests --gtest_filter="$threaded"

echo "test-sanitizers: $((SECONDS - start)) s"
if [ ${#failures[@]} -ne 0 ]; then
    echo "test-sanitizers: ${#failures[@]} run(s) failed:"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
echo "test-sanitizers: no findings"
