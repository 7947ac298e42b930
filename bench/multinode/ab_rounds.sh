#!/usr/bin/env bash
# An A/B of variants of the runtime (environment settings) in bench_coll runs across network
# namespaces: ROUNDS rounds, in each every layout, in each every variant once, the variants'
# order rotating from round to round so that none always runs first. Each run writes
# OUT/coll-ROUND-LAYOUT-VARIANT.csv and .txt, the names bench/multinode/ab_medians.py reads.
#
#   bench/multinode/ab_rounds.sh --out DIR [--rounds N] [--layout L]... [--variant 'NAME [VAR=VALUE]...']...
#                                [--build-dir DIR] [--build] [--limit SEC] [--job-timeout SEC]
#                                -- BENCH_COLL_ARGS...
#
# --layout  PEs per node as tests/multinode/netns_mpirun.sh takes it (1,2,1); repeat for more
#           (default 1,1).
# --variant a name and the settings its runs get (e.g. ISHMEM_HIERARCHICAL=0) and bench_coll
#           options of its own (words that start with -, e.g. 'samepeer --mpi-whole-answer');
#           repeat for each (default: one variant, base, with no settings).
# --build   configure and build bench_coll, ishmrun and the MPI transport into --build-dir first
#           (host backend only; default build-host). Without it the build must be there.
# --limit   start no further run once this many seconds have gone by since the start (default
#           540); what ran is kept. --job-timeout: one run's limit (60).
# BENCH_COLL_ARGS go to every run (e.g. --batches 15 --ops broadcastmem --sizes 512K,1M).
# Needs root (namespaces). A machine without `ip` gets it from .deps/debs (ip_from_debs.sh).
# Prints a line a run (its exit status and the seconds since the start); exits 0 when every run
# exited 0, 77 where namespaces cannot be made (no root, mpirun or ip), else 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="" rounds=6 build_dir=build-host build=0 limit=540 job_timeout=60
layouts=() variants=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --layout) layouts+=("$2"); shift 2 ;;
    --variant) variants+=("$2"); shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --build) build=1; shift ;;
    --limit) limit=$2; shift 2 ;;
    --job-timeout) job_timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "ab_rounds: unknown option '$1' (see the head of $0)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "ab_rounds: --out DIR is required" >&2; exit 2; }
[ ${#layouts[@]} -gt 0 ] || layouts=(1,1)
[ ${#variants[@]} -gt 0 ] || variants=(base)
cd "$root" || exit 1
mkdir -p "$out"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
echo "ab_rounds at $(date -u +%T): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" | tee -a "$out/calls.log"
command -v ip >/dev/null || . "$here/ip_from_debs.sh"
if [ $build = 1 ]; then
  { cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
      -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF &&
    cmake --build "$build_dir" -j"$(nproc)" --target bench_coll ishmrun ishmem_mpi; } > "$out/build.log" 2>&1 ||
    { echo "ab_rounds: the build failed ($out/build.log):"; tail -20 "$out/build.log"; exit 1; }
  echo "built in $(elapsed) s"
fi
[ -x "$build_dir/bench/bench_coll" ] || { echo "ab_rounds: no $build_dir/bench/bench_coll (--build builds it)" >&2; exit 2; }
failed=0
for ((round = 1; round <= rounds; ++round)); do
  for layout in "${layouts[@]}"; do
    for ((i = 0; i < ${#variants[@]}; ++i)); do
      read -ra v <<<"${variants[$(( (i + round) % ${#variants[@]} ))]}"
      settings=() args=()
      for w in "${v[@]:1}"; do
        case $w in -*) args+=("$w") ;; *) settings+=("$w") ;; esac
      done
      if [ $(( limit - $(elapsed) )) -lt $(( job_timeout / 4 + 5 )) ]; then
        echo "out of time before round $round, $layout, ${v[0]}"
        exit $(( failed > 0 ))
      fi
      f="$out/coll-$round-${layout//,/-}-${v[0]}"
      env "${settings[@]}" timeout $(( job_timeout + 5 )) tests/multinode/netns_mpirun.sh --layout "$layout" \
        --timeout "$job_timeout" -- "$build_dir/bench/bench_coll" "$@" "${args[@]}" --csv "$f.csv" > "$f.txt" 2>&1
      rc=$?
      if [ $rc = 77 ]; then  # (no root, mpirun or ip: netns_mpirun.sh says which)
        cat "$f.txt"
        exit 77
      fi
      [ $rc = 0 ] || failed=$(( failed + 1 ))
      echo "round $round $layout ${v[0]} rc $rc $(elapsed) s"
    done
  done
done
exit $(( failed > 0 ))
