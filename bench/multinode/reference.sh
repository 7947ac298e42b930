#!/usr/bin/env bash
# Regenerates the multinode reference set (bench/results/multinode/): the PEs in network namespaces
# of one machine, MPI and UCX over TCP between them (tests/multinode/netns_mpirun.sh; needs root).
#  - bench_rma and bench_p2p on 2 nodes x 1 PE (run.sh --sets netns --only rma,p2p) into DIR;
#  - bench_coll against the same answer written in MPI (--mpi-whole-answer) on six layouts, one run
#    each (ab_rounds.sh with one variant), into DIR/coll, and ab_medians.py's table of them into
#    DIR/coll/medians.txt.
#
#   bench/multinode/reference.sh [BUILD_DIR] [--out DIR]
#
# BUILD_DIR (default build-host) is configured and built for the host backend first. DIR defaults
# to bench/results/multinode. Exit status 0 when every run exited 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=build-host out=$root/bench/results/multinode
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "reference.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
cd "$root" || exit 1
status=0
"$here/ab_rounds.sh" --build --build-dir "$build" --out "$out/coll" --rounds 1 --limit 7200 --job-timeout 150 \
  --layout 1,1,1,1,1,1,1,1 --layout 1,1,1,1 --layout 2,2,2,2 --layout 2,2 --layout 1,2,1 --layout 1,1 \
  --variant 'same --mpi-whole-answer' -- --batches 15 || status=1
/usr/bin/python3 "$here/ab_medians.py" "$out/coll" same --times >"$out/coll/medians.txt" 2>&1 || status=1
cmake --build "$build" -j"$(nproc)" --target bench_rma bench_p2p >/dev/null || exit 1
"$here/run.sh" "$build" --sets netns --only rma,p2p --no-plots --out "$out" -- --batches 9 || status=1
exit $status
