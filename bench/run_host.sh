#!/usr/bin/env bash
# Regenerates the host reference set (bench/results/host/): bench_coll on 8, 4 and 2 PEs of this
# machine, one core per PE, against Open MPI's collectives.
#
#   bench/run_host.sh [BUILD_DIR] [--out DIR] [-- BENCH_COLL_ARGS...]
#
# BUILD_DIR (default build) is configured and bench_coll built there first (host backend,
# RelWithDebInfo). DIR defaults to bench/results/host; each PE count N writes coll-Npe.csv (the
# CSV) and coll-Npe.txt (the whole output with the summary). BENCH_COLL_ARGS default to
# --batches 11, the setting of the reference run. As root, Open MPI's root check is turned off.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=build out=$root/bench/results/host
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --) shift; args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_host.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
[ ${#args[@]} -gt 0 ] || args=(--batches 11)
case $build in /*) ;; *) build=$root/$build ;; esac
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_BUILD_BENCH=ON >/dev/null &&
  cmake --build "$build" -j"$(nproc)" --target bench_coll >/dev/null || { echo "run_host.sh: build failed" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
status=0
for np in 8 4 2; do
  if [ "$(nproc)" -lt $np ]; then
    echo "run_host.sh: $np PEs need $np cores; skipped" >&2
    continue
  fi
  f=$out/coll-${np}pe
  mpirun --bind-to core --map-by core -n $np "$build/bench/bench_coll" "${args[@]}" --csv "$f.csv" >"$f.txt" 2>&1 ||
    { echo "run_host.sh: $np PEs failed ($f.txt)" >&2; status=1; }
  grep -m1 '^# target' "$f.txt"
done
exit $status
