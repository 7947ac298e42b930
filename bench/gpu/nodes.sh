#!/usr/bin/env bash
# nodes.sh: bench_gpu's point-to-point measurements between PEs on two nodes (every operation through
# the proxy and the MPI transport: docs/guide/multinode.rst, "GPU jobs over several nodes"), next to
# MPI moving the same bytes between the same two processes' host memory (mpi_host_bw: the link's
# practical limit), in one job; prints ours / MPI for every size.
#
#   bench/gpu/nodes.sh [BUILD_DIR] [--hosts A,B] [--out FILE] [bench options]
#
#   BUILD_DIR   a CUDA build with MPI (default: build); bench_gpu and mpi_host_bw are built there
#   --hosts A,B one PE on each of two machines (mpirun --host A,B); without it, two PEs of this
#               machine, each a node of its own (ISHMEM_NODE_SPLIT=pe): one GPU each where there
#               are two, else they share one (then the figures say little)
#   --out FILE  the merged CSV: name,bytes,metric,ours,mpi,ratio (default: nodes.csv here); GBps rows
#               against MPI's bandwidth at the same size (ratio ours / MPI: the target is >= 0.9 from
#               1 MiB), us rows against MPI's half round trip of 8 bytes (ratio ours / MPI)
#   bench options go to bench_gpu (--quick, --reps N, --sizes LIST, --only LIST; see bench_gpu --help)
# Exit status: 0 when both ran, 1 when one failed, 2 on a usage error.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$top/build out=$PWD/nodes.csv hosts= args=()
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) [ $# -ge 2 ] || exit 2; hosts=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || exit 2; out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --quick|--reps|--iters|--sizes|--only|--watchdog) args+=("$1"); [ "$1" = --quick ] || { args+=("$2"); shift; }; shift ;;
    -*) echo "nodes.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
cmake --build "$build" -j"$(nproc)" --target bench_gpu mpi_host_bw >/dev/null || { echo "nodes.sh: cannot build bench_gpu and mpi_host_bw in $build" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi=(mpirun -n 2 --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any -x ISHMEM_BACKEND=cuda)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
if [ -n "$hosts" ]; then mpi+=(--host "$hosts"); else mpi+=(--oversubscribe -x ISHMEM_NODE_SPLIT=pe); fi
echo "nodes.sh: ${mpi[*]} bench_gpu ${args[*]}"
"${mpi[@]}" "$build/bench/gpu/bench_gpu" --csv "$work/ours.csv" "${args[@]}" >/dev/null || { echo "nodes.sh: bench_gpu failed" >&2; exit 1; }
sizes=$({ echo 8; awk -F, 'NR > 1 && $3 == "GBps" { print $2 }' "$work/ours.csv"; } | sort -nu | paste -sd, -)
"${mpi[@]}" "$build/bench/mpi_host_bw" --sizes "$sizes" >"$work/mpi.csv" || { echo "nodes.sh: mpi_host_bw failed" >&2; exit 1; }
awk -F, -v OFS=, 'FNR == 1 { next }
  FILENAME == ARGV[1] { if ($1 == "mpi_host_bw") bw[$2] = $4; else if ($1 == "mpi_host_latency") lat[$2] = $4; next }
  { peer = $3 == "GBps" ? bw[$2] : lat[8]
    if (peer == "") next
    print $1, $2, $3, $4, peer, sprintf("%.3f", $4 / peer) }' "$work/mpi.csv" "$work/ours.csv" |
  { echo "name,bytes,metric,ours,mpi,ratio"; cat; } >"$out"
echo "nodes.sh: $out"; column -s, -t "$out"
