#!/usr/bin/env bash
# Smoke test of the A/B tools: ab_rounds.sh runs two variants (two-level and flat collectives, the
# flat one also with a bench_coll option of its own, --mpi-whole-answer) for two rounds on 2 x 1
# and 1 + 2 PEs in namespaces, and ab_medians.py must find every run of both.
#
#   check_ab_rounds.sh BUILD_DIR OUT_DIR
#
# Exits 77 (skipped) where namespaces cannot be made.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1 out=$2
rm -rf "$out"
"$here/ab_rounds.sh" --out "$out" --build-dir "$build" --rounds 2 --layout 1,1 --layout 1,2 \
  --variant base --variant 'flat ISHMEM_HIERARCHICAL=0 --mpi-whole-answer' --limit 240 --job-timeout 60 \
  -- --batches 2 --ops int64_sum_reduce,broadcastmem --sizes 8,1K
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "check_ab_rounds: ab_rounds.sh exited $rc"; exit 1; }
n=$(ls "$out"/coll-*.csv 2>/dev/null | wc -l)
[ "$n" = 8 ] || { echo "check_ab_rounds: $n CSV files, expected 8 (2 rounds x 2 layouts x 2 variants)"; exit 1; }
# The variant's own option reached its runs alone: their broadcast peer is MPI_Bcast+copy.
for f in "$out"/coll-*.txt; do
  case $f in *-flat.txt) want=1 ;; *) want=0 ;; esac
  got=$(grep -c 'MPI_Bcast+copy' "$f")
  [ $(( got > 0 )) = $want ] || { echo "check_ab_rounds: $f: MPI_Bcast+copy rows $got, wanted them: $want"; exit 1; }
done
summary=$(python3 "$here/ab_medians.py" "$out" base,flat --times) || { echo "check_ab_rounds: ab_medians.py failed"; exit 1; }
echo "$summary"
for layout in 1-1 1-2; do
  for v in base flat; do
    # Each variant's line of the layout: "  base     runs 2  behind ..."
    echo "$summary" | awk -v l="## $layout " -v v="$v" '
      index($0, l) == 1 { on = 1; next } /^## / { on = 0 }
      on && $1 == v && $2 == "runs" && $3 == 2 { found = 1 } END { exit !found }' ||
      { echo "check_ab_rounds: no 2 runs of $v on $layout in the medians"; exit 1; }
  done
done
# Four points a layout (2 ops x 2 sizes), each with both variants' times.
points=$(echo "$summary" | grep -cE '^ +(int64_sum_reduce|broadcastmem) +(8|1024) +base [0-9.]+/[0-9.]+ [0-9.]+ +flat ')
[ "$points" = 8 ] || { echo "check_ab_rounds: $points points with both variants, expected 8"; exit 1; }
echo "check_ab_rounds: ok"
