#!/usr/bin/env bash
# ISHMEM_CHECK=full over several nodes: a collective whose members on different nodes disagree
# (nelems, root, element type, barrier against sync, team split arguments, the size of a malloc,
# the block a free gets) ends the job with the message that names both PEs and both values, as on
# one node, and PEs that wait in collectives on different teams are reported as a cycle of waits,
# on 2 and 3 PEs each a node of its own (ISHMEM_NODE_SPLIT=pe under mpirun); a correct program
# passes in full mode. Every run is under `timeout`. Exit 77 (skipped) without mpirun.
# usage: check_full_nodes.sh MPIRUN CHECKED
set -u
mpirun=$1 checked=$2
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2054  # (commas inside the values)
args=(--oversubscribe --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any
      -x ISHMEM_NODE_SPLIT=pe -x ISHMEM_CHECK=full -x UCX_TLS=tcp,self)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)

# expect NAME WANT_STATUS NP MODE REGEX: a line of the output must match REGEX.
expect() {
  local name=$1 want=$2 np=$3 mode=$4 re=$5
  timeout 120 "$mpirun" "${args[@]}" -n "$np" "$checked" "$mode" >"$tmp/out" 2>&1; local st=$?
  local ok=1
  if [ "$want" = nonzero ]; then [ "$st" != 0 ] && [ "$st" != 124 ] || ok=0; else [ "$st" = "$want" ] || ok=0; fi
  grep -Eq -- "$re" "$tmp/out" || { ok=0; echo "  no line matches: $re"; }
  if [ $ok = 1 ]; then echo "ok   $name"; else
    echo "FAIL $name: status $st (want $want), output:"; sed 's/^/    /' "$tmp/out" | tail -30; fails=$((fails + 1)); fi
}

for np in 2 3; do
  expect "correct program, $np nodes" 0 $np ok "checked ok: done"
  expect "nelems mismatch, $np nodes" nonzero $np nelems \
    "ishmem: PE 1: ishmem_int_sum_reduce: nelems is 8 here but 16 on PE [02] \(ISHMEM_CHECK=full\)|ishmem: PE [02]: ishmem_int_sum_reduce: nelems is 16 here but 8 on PE 1 \(ISHMEM_CHECK=full\)"
done
expect "root mismatch, 2 nodes" nonzero 2 root \
  "ishmem: PE 1: ishmem_int_broadcast: PE_root is 0 here but 1 on PE 0 \(ISHMEM_CHECK=full\)|ishmem: PE 0: ishmem_int_broadcast: PE_root is 1 here but 0 on PE 1 \(ISHMEM_CHECK=full\)"
expect "element type mismatch, 2 nodes" nonzero 2 type \
  "ishmem: PE [01]: ishmem_(int|long)_sum_reduce: the element type is (int \(4|long \(8) bytes\) here but (long \(8|int \(4) bytes\) on PE [01] \(ISHMEM_CHECK=full\)"
expect "barrier_all vs sync_all, 2 nodes" nonzero 2 barrier_vs_sync \
  "ishmem: PE [01]: ishmem_(barrier|sync)_all: collective [0-9]+ on team 0 is ishmem_(barrier|sync)_all here but ishmem_(sync|barrier)_all on PE [01] \(ISHMEM_CHECK=full\)"
expect "split arguments, 2 nodes" nonzero 2 split_args \
  "ishmem: PE [01]: ishmem_team_split_strided: the arguments are start [01], stride 1, size 1 here but start [01], stride 1, size 1 on PE [01] \(ISHMEM_CHECK=full\)"
expect "malloc sizes, 2 nodes" nonzero 2 malloc_size \
  "ishmem: PE [01]: ishmem_malloc: the arguments are size (64|128) here but size (128|64) on PE [01] \(ISHMEM_CHECK=full\)"
expect "freed blocks, 2 nodes" nonzero 2 free_other \
  "ishmem: PE [01]: ishmem_free: the arguments are ptr at heap offset [0-9]+ here but ptr at heap offset [0-9]+ on PE [01] \(ISHMEM_CHECK=full\)"
for np in 2 3; do  # PE 1 in a sync on a team of PEs 0 and 1, the others in a barrier: a cycle of waits
  expect "collectives on different teams, $np nodes" nonzero $np other_team \
    "ishmem: PE [01]: ishmem_(barrier_all|team_sync): the PEs call different collectives: ishmem_(barrier_all|team_sync) \(team [0-9]+\) here, but PE [01] is in ishmem_(team_sync|barrier_all) \(team [0-9]+\) and waits for this PE \(ISHMEM_CHECK=full\)"
done
[ $fails = 0 ] && echo "check_full_nodes: all passed" || echo "check_full_nodes: $fails failed"
exit $((fails > 0))
