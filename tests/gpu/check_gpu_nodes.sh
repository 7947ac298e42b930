#!/usr/bin/env bash
# GPU PEs on several nodes (ISHMEM_NODE_SPLIT under mpirun, one machine): every device and host
# operation on a PE of another node goes through the proxy and the MPI transport, as between
# machines. With 2 PEs each PE is a node: the GPU ring, then the hand-written GPU tests of every
# chapter that reaches other nodes (RMA, AMOs, signals, ordering, point-to-point sync, teams and
# barriers, host calls, and the data collectives from kernels, streams and the host). With 4 PEs,
# two nodes of two: the collectives' tests, on teams with members of this node (NVLink) and of the
# other (proxy) at once, in one level, then in two levels (ISHMEM_GPU_NODE_LEVELS=1; without
# namespaces also on ISHMEM_NODE_SPLIT=cyclic:2, nodes of PEs 0, 2 and 1, 3, so that a node's
# members are not consecutive in the team). The PEs share the GPUs there are. Exit 77 (skipped)
# without a GPU or mpirun.
# GPU_NODES_NETNS=1: the nodes are network namespaces with host names of their own instead
# (tests/multinode/netns_mpirun.sh, root only), MPI between them over TCP, as between machines.
#   check_gpu_nodes.sh GPU_COUNT MPIRUN RING TESTS [NP]
set -u
probe=$1 mpirun=$2 ring=$3 tests=$4 np=${5:-2}
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in '' | *[!0-9]*) gpus=0 ;; esac
[ "$gpus" -ge 1 ] || { echo "skipped: no CUDA device visible"; exit 77; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
split=pe
[ "$np" -gt 2 ] && split=$((np / 2))
# shellcheck disable=SC2054  # (commas inside the values)
args=(--oversubscribe -n "$np" --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any
      -x ISHMEM_BACKEND=cuda -x "ISHMEM_NODE_SPLIT=$split" -x ISHMEM_TEST_WAIT_MS=60000 -x GPU_TEST_KERNEL_TIMEOUT=120 -x UCX_TLS=tcp,self
      -x NCCL_NVLS_ENABLE=0 -x NVSHMEM_DISABLE_NVLS=1)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
netns=$(cd "$(dirname "$0")/../multinode" && pwd)/netns_mpirun.sh
layout=1,1
[ "$np" -gt 2 ] && layout=$((np / 2)),$((np - np / 2))
# launch SECONDS PROGRAM [ARGS...]: one job of the NP PEs on the nodes, stopped after SECONDS.
launch() {
  local limit=$1
  shift
  if [ -n "${GPU_NODES_NETNS:-}" ]; then  # (netns_mpirun.sh forwards ISHMEM_* to every rank)
    ISHMEM_BACKEND=cuda ISHMEM_TEST_WAIT_MS=60000 "$netns" --layout "$layout" --timeout "$limit" -- \
      env GPU_TEST_KERNEL_TIMEOUT=120 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 "$@"
  else
    timeout "$limit" "$mpirun" "${args[@]}" "$@"
  fi
}
where="ISHMEM_NODE_SPLIT=$split"
[ -n "${GPU_NODES_NETNS:-}" ] && where="network namespaces, $layout PEs"
fail=0
coll='GpuColl.EveryCollectiveInKernelsOnThreeTeams:GpuColl.BroadcastsFromEveryRootAmongOtherCallsInARow'
coll+=':GpuColl.BackToBackAndOnRepeatedlyMadeTeams:GpuColl.LargeArraysFromTheHostAndOnAStream:GpuColl.FcollectFromInsideItsDestFails'
coll+=':GpuCollMedium.*:GpuCollChain.*'
if [ "$np" -le 2 ]; then
  out=$(launch 120 "$ring" 2>&1)
  rc=$? ok=$(grep -c "ring ok" <<<"$out")
  [ $rc = 77 ] && { echo "$out" | tail -3; exit 77; }  # (no namespaces here)
  if [ $rc -eq 0 ] && [ "$ok" = 2 ]; then
    echo "ok: the GPU ring over two nodes ($where): 2 of 2 PEs report ring ok"
  else
    echo "FAILED: the GPU ring over two nodes (exit status $rc, $ok of 2 PEs report ring ok)"; echo "$out" | tail -30
    fail=1
  fi
  runs=("$coll" "GpuTeams.*" "GpuQueue.*" "GpuRing.*" "GpuAmo.*" "GpuP2p.*" "GpuFence.*" "GpuHost.*"
        "GpuMisc.QueriesMatchTheHost")
else
  runs=("$coll")
fi
# One run per chapter's suite, so that a test that hangs (the harness ends its run after
# ISHMEM_TEST_WAIT_MS) hides no other chapter.
for filter in "${runs[@]}"; do
  echo "== $np PEs, $where: $filter"
  launch 200 "$tests" --gtest_filter="$filter"
  rc=$?
  [ $rc = 77 ] && exit 77  # (no namespaces here)
  [ $rc = 0 ] || { echo "FAILED: GPU tests over two nodes ($np PEs): $filter"; fail=1; }
done
if [ "$np" -gt 2 ]; then
  export ISHMEM_GPU_NODE_LEVELS=1  # (netns_mpirun.sh forwards ISHMEM_* to every rank)
  args+=(-x ISHMEM_GPU_NODE_LEVELS=1)
  echo "== $np PEs, $where, two levels: $coll"
  launch 200 "$tests" --gtest_filter="$coll" || { echo "FAILED: GPU tests over two nodes ($np PEs, two levels)"; fail=1; }
  if [ -z "${GPU_NODES_NETNS:-}" ]; then
    cyclic=cyclic:$((np / 2))
    echo "== $np PEs, ISHMEM_NODE_SPLIT=$cyclic, two levels: $coll"
    args=("${args[@]/#ISHMEM_NODE_SPLIT=*/ISHMEM_NODE_SPLIT=$cyclic}")
    launch 200 "$tests" --gtest_filter="$coll" || { echo "FAILED: GPU tests over two nodes ($np PEs, $cyclic)"; fail=1; }
  fi
fi
exit $fail
