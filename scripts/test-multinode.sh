#!/usr/bin/env bash
# The whole test suite on several nodes, faked on this machine (as root): network namespaces as
# nodes (tests/multinode/netns_mpirun.sh), 2 nodes of 2 PEs and 3 nodes of 1, 2 and 1 PEs; then
# with every PE a node of its own (ISHMEM_NODE_SPLIT=pe) on 2, 3 and 4 PEs. ctest runs a slice of
# the namespace runs (multinode_netns_*); this runs all of it. Builds build/ first if needed.
# usage: scripts/test-multinode.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/tests/ishmem_tests" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build "$build" -j"$(nproc)"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A test's wait for a remote update: 30 s, not 5 (see tests/multinode/CMakeLists.txt); forwarded to
# the ranks by netns_mpirun.sh (ISHMEM_*) and by -x below.
export ISHMEM_TEST_WAIT_MS=${ISHMEM_TEST_WAIT_MS:-30000}
fails=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
# Runs "$@", prints gtest's summary and failures, and counts a nonzero status as a failure.
run() {
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\[  (PASSED|FAILED)|^\[PE|TIMEOUT|skipped' || true
  [ $rc -eq 0 ] || { echo "status $rc"; fails=1; }
}
for layout in 2,2 1,2,1; do
  echo "== $layout nodes (network namespaces)"
  run tests/multinode/netns_mpirun.sh --layout "$layout" --timeout 3000 -- "$build/tests/ishmem_tests"
done
# On one machine over TCP, as tests/multinode/CMakeLists.txt says why (UCX's shared-memory
# transports lost the order of puts and later atomics).
export UCX_TLS=tcp,self
for np in 2 3 4; do
  echo "== $np PEs, every PE a node (ISHMEM_NODE_SPLIT=pe)"
  run mpirun --oversubscribe -n "$np" --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any -x ISHMEM_NODE_SPLIT=pe -x ISHMEM_TEST_WAIT_MS -x UCX_TLS "$build/tests/ishmem_tests"
done
for split in 2 cyclic:2; do
  echo "== 4 PEs, nodes by ISHMEM_NODE_SPLIT=$split"
  run mpirun --oversubscribe -n 4 --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any -x ISHMEM_NODE_SPLIT=$split -x ISHMEM_TEST_WAIT_MS -x UCX_TLS "$build/tests/ishmem_tests"
done
exit $fails
