#!/usr/bin/env bash
# Multi-node checks on one machine, through netns_mpirun.sh (network namespaces as nodes): a program
# on a layout of nodes passes, and a PE that fails on another node ends the job with mpirun's
# message naming it, leaving no namespace behind. Exits 77 (skipped) where namespaces cannot be made.
# usage: check_multinode.sh LAYOUT FAULTY PROGRAM [ARGS...]
#   LAYOUT   PEs per node, e.g. 2,2 or 1,2,1
#   FAULTY   tests/integration/faulty (its "exit PE CODE" mode)
#   PROGRAM  run on the layout, must exit 0 (e.g. ishmem_tests with a --gtest_filter)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
layout=$1 faulty=$2
shift 2
leftovers() { ip netns list 2>/dev/null | grep -c '^ishm' || true; }
before=$(leftovers)

"$here/netns_mpirun.sh" --layout "$layout" --timeout 500 -- "$@"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && { echo "check_multinode: $* on layout $layout failed with status $rc"; exit 1; }

# The last PE (on the last node) exits with status 5 while the others wait in a barrier.
npes=$(( $(tr ',' '+' <<<"$layout") ))
last=$((npes - 1))
out=$("$here/netns_mpirun.sh" --layout "$layout" --timeout 120 -- "$faulty" exit "$last" 5 2>&1)
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
  echo "check_multinode: PE $last exiting with 5 on another node gave status $rc (want a failure, not a hang)"; echo "$out"; exit 1
fi
# Open MPI names it as "rank 3", "process rank 3" or, when the rank exited on its own, by its process
# name "[[JOBID,1],3]" (what mpirun prints depends on which daemon saw the exit first).
grep -qE "rank $last\b|process rank $last |Process name: \[\[[0-9]+,[0-9]+\],$last\]" <<<"$out" ||
  { echo "check_multinode: mpirun did not name rank $last:"; echo "$out"; exit 1; }
[ "$(leftovers)" -eq "$before" ] || { echo "check_multinode: namespaces left behind:"; ip netns list; exit 1; }
echo "check_multinode: layout $layout: program passed; a failing PE on node $(( $(tr ',' '\n' <<<"$layout" | wc -l) - 1 )) ended the job (status $rc, rank $last named); nothing left behind"
