#!/usr/bin/env bash
# GPU PEs on nodes of their own (ISHMEM_NODE_SPLIT=pe under mpirun, one machine): every device and
# host operation on another PE goes through the proxy and the MPI transport, as between machines.
# The GPU ring, then the hand-written GPU tests of the chapters that reach other nodes (RMA, AMOs,
# signals, ordering, point-to-point sync, barriers, host calls), on 2 PEs (sharing the GPU where
# there is one). Exit 77 (skipped) without a GPU or without mpirun.
#   check_gpu_nodes.sh GPU_COUNT MPIRUN RING TESTS
set -u
probe=$1 mpirun=$2 ring=$3 tests=$4
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in '' | *[!0-9]*) gpus=0 ;; esac
[ "$gpus" -ge 1 ] || { echo "skipped: no CUDA device visible"; exit 77; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
args=(--oversubscribe -n 2 --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any
      -x ISHMEM_BACKEND=cuda -x ISHMEM_NODE_SPLIT=pe -x ISHMEM_TEST_WAIT_MS=30000 -x UCX_TLS=tcp,self
      -x NCCL_NVLS_ENABLE=0 -x NVSHMEM_DISABLE_NVLS=1)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
fail=0
out=$(timeout 120 "$mpirun" "${args[@]}" "$ring" 2>&1)
rc=$? ok=$(grep -c "ring ok" <<<"$out")
if [ $rc -eq 0 ] && [ "$ok" = 2 ]; then
  echo "ok: the GPU ring over two nodes: 2 of 2 PEs report ring ok"
else
  echo "FAILED: the GPU ring over two nodes (exit status $rc, $ok of 2 PEs report ring ok)"; echo "$out" | tail -30
  fail=1
fi
filter='GpuRing.*:GpuAmo.*:GpuP2p.*:GpuFence.*:GpuHost.*:GpuMisc.QueriesMatchTheHost:GpuTeams.DeviceBarriersOrderEveryMembersPuts'
timeout 600 "$mpirun" "${args[@]}" "$tests" --gtest_filter="$filter" || { echo "FAILED: GPU tests over two nodes"; fail=1; }
exit $fail
