#!/usr/bin/env bash
# ISHMEM_CHECK=full and ISHMEM_HANG_TIMEOUT: each buggy program of checked.cpp ends nonzero with the
# expected line (both PEs and both values for a collective mismatch, exactly one such line), the
# default mode lets the same bounds bug through, and the watchdog ends a stuck job within its
# timeout naming every PE's call. Every run is under `timeout`.
# The same bugs called through shmem.h (CHECKED_SHMEM) are reported under the names it called.
# usage: check_full.sh ISHMRUN CHECKED CHECKED_SHMEM
set -u
ishmrun=$1 checked=$2 checked_shmem=$3
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset ISHMEM_CHECK ISHMEM_HANG_TIMEOUT

# expect NAME WANT_STATUS NP MODE REGEX...: every REGEX must match a line of the output.
expect() {
  local name=$1 want=$2 np=$3 mode=$4; shift 4
  timeout 60 "$ishmrun" -n "$np" "$checked" "$mode" >"$tmp/out" 2>&1; local st=$?
  local ok=1
  if [ "$want" = nonzero ]; then [ "$st" != 0 ] && [ "$st" != 124 ] || ok=0; else [ "$st" = "$want" ] || ok=0; fi
  for re in "$@"; do grep -Eq -- "$re" "$tmp/out" || { ok=0; echo "  no line matches: $re"; }; done
  if [ $ok = 1 ]; then echo "ok   $name"; else
    echo "FAIL $name: status $st (want $want), output:"; sed 's/^/    /' "$tmp/out"; fails=$((fails + 1)); fi
}
# one_line NAME REGEX: exactly one line of the last output matches (one PE reports a mismatch).
one_line() {
  local c; c=$(grep -Ec -- "$2" "$tmp/out")
  if [ "$c" = 1 ]; then echo "ok   $1: one report line"; else echo "FAIL $1: $c lines match $2"; fails=$((fails + 1)); fi
}

# Unknown values stop ishmem_init.
ISHMEM_CHECK=fast expect "unknown ISHMEM_CHECK" nonzero 1 ok "ishmem_init: ISHMEM_CHECK=fast is neither default nor full"
ISHMEM_HANG_TIMEOUT=soon expect "bad ISHMEM_HANG_TIMEOUT" nonzero 1 ok "ishmem_init: ISHMEM_HANG_TIMEOUT=soon is not"

# Correct programs pass in full mode, with the watchdog armed.
for np in 1 2 3 4; do
  ISHMEM_CHECK=full ISHMEM_HANG_TIMEOUT=20 expect "correct program, full mode, $np PEs" 0 $np ok "checked ok: done"
done

# Bounds: inside the heap but past the allocation: silent by default, caught in full mode.
expect "past the allocation, default mode" 0 2 past_allocation "checked past_allocation: done"
ISHMEM_CHECK=full expect "past the allocation, full mode" nonzero 2 past_allocation \
  "ishmem: PE [01]: ishmem_putmem: dest \(0x[0-9a-f]+\) with 40 bytes runs 8 bytes past the end of its allocation \(offset [0-9]+, size 32\), starting 0 bytes into it \(ISHMEM_CHECK=full\)"
ISHMEM_CHECK=full expect "freed block, full mode" nonzero 1 freed \
  "ishmem: PE 0: ishmem_int_p: dest \(0x[0-9a-f]+, heap offset [0-9]+\) is not inside any live allocation"

# Collective agreement: one line naming both PEs and both values.
for np in 2 3; do
  ISHMEM_CHECK=full expect "nelems mismatch, $np PEs" nonzero $np nelems \
    "ishmem: PE 1: ishmem_int_sum_reduce: nelems is 8 here but 16 on PE [02] \(ISHMEM_CHECK=full\)|ishmem: PE [02]: ishmem_int_sum_reduce: nelems is 16 here but 8 on PE 1 \(ISHMEM_CHECK=full\)"
  one_line "nelems mismatch, $np PEs" "ISHMEM_CHECK=full"
done
ISHMEM_CHECK=full expect "root mismatch" nonzero 2 root \
  "ishmem: PE 1: ishmem_int_broadcast: PE_root is 0 here but 1 on PE 0 \(ISHMEM_CHECK=full\)|ishmem: PE 0: ishmem_int_broadcast: PE_root is 1 here but 0 on PE 1 \(ISHMEM_CHECK=full\)"
one_line "root mismatch" "ISHMEM_CHECK=full"
ISHMEM_CHECK=full expect "barrier_all vs sync_all" nonzero 2 barrier_vs_sync \
  "ishmem: PE [01]: ishmem_(barrier|sync)_all: collective [0-9]+ on team 0 is ishmem_(barrier|sync)_all here but ishmem_(sync|barrier)_all on PE [01] \(ISHMEM_CHECK=full\)"
one_line "barrier_all vs sync_all" "ISHMEM_CHECK=full"
ISHMEM_CHECK=full expect "element type mismatch" nonzero 2 type \
  "ishmem: PE [01]: ishmem_(int|long)_sum_reduce: the element type is (int \(4|long \(8) bytes\) here but (long \(8|int \(4) bytes\) on PE [01] \(ISHMEM_CHECK=full\)"
for np in 2 3; do
  ISHMEM_CHECK=full expect "team split arguments, $np PEs" nonzero $np split_args \
    "ishmem: PE 1: ishmem_team_split_strided: the arguments are start 1, stride 1, size 1 here but start 0, stride 1, size 1 on PE [02] \(ISHMEM_CHECK=full\)|ishmem: PE [02]: ishmem_team_split_strided: the arguments are start 0, stride 1, size 1 here but start 1, stride 1, size 1 on PE 1 \(ISHMEM_CHECK=full\)"
  one_line "team split arguments, $np PEs" "ISHMEM_CHECK=full"
done
ISHMEM_CHECK=full expect "split_2d vs split_strided" nonzero 2 split_kind \
  "ishmem: PE [01]: ishmem_team_split_(2d|strided): collective [0-9]+ on team 0 is ishmem_team_split_(2d|strided) here but ishmem_team_split_(strided|2d) on PE [01] \(ISHMEM_CHECK=full\)"
one_line "split_2d vs split_strided" "ISHMEM_CHECK=full"
for np in 2 3; do
  ISHMEM_CHECK=full expect "collectives on different teams, $np PEs" nonzero $np other_team \
    "ishmem: PE [01]: ishmem_(barrier_all|team_sync): the PEs call different collectives: .* here, but PE [01] is in ishmem_(team_sync|barrier_all) \(team [0-9]+.*\) and waits for this PE \(ISHMEM_CHECK=full\)"
  one_line "collectives on different teams, $np PEs" "ISHMEM_CHECK=full"
done

# Sizes that overflow size_t: the usual error in both modes, never a copy of the wrapped size.
for mode in default full; do
  ISHMEM_CHECK=$mode expect "nelems * sizeof overflows, $mode mode" nonzero 2 overflow_put \
    "ishmem: PE [01]: ishmem_long_put: dest \(0x[0-9a-f]+\): the size of the range overflows size_t"
  ISHMEM_CHECK=$mode expect "stride * nelems overflows, $mode mode" nonzero 2 overflow_iput \
    "ishmem: PE [01]: ishmem_long_iput: dest \(0x[0-9a-f]+\): the size of the range overflows size_t"
done
for np in 1 2 4; do
  expect "alltoall nelems * PEs overflows, $np PEs" nonzero $np overflow_alltoall \
    "ishmem: PE [0-3]: ishmem_long_alltoall: (dest|source) \(0x[0-9a-f]+\): the size of the range overflows size_t"
done

# Allocations: PEs that ask for different blocks make the heap asymmetric; full mode names both.
expect "malloc sizes differ, default mode" 0 2 malloc_size "checked malloc_size: done"
for np in 2 3; do
  ISHMEM_CHECK=full expect "malloc sizes differ, $np PEs" nonzero $np malloc_size \
    "ishmem: PE 1: ishmem_malloc: the arguments are size 64 here but size 128 on PE [02] \(ISHMEM_CHECK=full\)|ishmem: PE [02]: ishmem_malloc: the arguments are size 128 here but size 64 on PE 1 \(ISHMEM_CHECK=full\)"
  one_line "malloc sizes differ, $np PEs" "ISHMEM_CHECK=full"
  ISHMEM_CHECK=full expect "free of different blocks, $np PEs" nonzero $np free_other \
    "ishmem: PE [0-2]: ishmem_free: the arguments are ptr at heap offset [0-9]+ here but ptr at heap offset [0-9]+ on PE [0-2] \(ISHMEM_CHECK=full\)"
  one_line "free of different blocks, $np PEs" "ISHMEM_CHECK=full"
done

# A team split with arguments bad on one PE only: every PE returns -1, none waits (default mode;
# full mode stops the job at the differing arguments, above).
for np in 2 3 4; do
  for split in split_one_bad split_2d_one_bad; do
    lines=()
    for ((pe = 0; pe < np; pe++)); do lines+=("checked $split: PE $pe: rc -1, team invalid"); done
    expect "$split, $np PEs" 0 $np $split "${lines[@]}" "ishmem: PE 1: warning: ishmem_team_split_(strided|2d): (start 0, stride 1, size 0 do not fit|xrange 0 is not positive)" \
      "ishmem: PE 0: warning: ishmem_team_split_(strided|2d): the arguments of PE 1 do not fit parent team 0; no team is made on any member"
  done
done

# A team split whose parent handle is bad on one PE only (garbage, or a team destroyed there): every
# PE returns -1 and names the cause, none waits; a split of the same team then works. Default and
# full mode.
for np in 2 3 4; do
  for split in split_bad_parent split_freed_parent; do
    for mode in default full; do
      lines=()
      for ((pe = 0; pe < np; pe++)); do
        lines+=("checked $split: PE $pe: rc -1, team invalid" "checked $split: PE $pe: then a split of the team: ok")
      done
      ISHMEM_CHECK=$mode expect "$split, $mode mode, $np PEs" 0 $np $split "${lines[@]}" \
        "ishmem: PE 1: warning: ishmem_team_split_(strided|2d): parent_team [0-9]+ is (not a team handle|not a valid team on this PE \(destroyed, or made without this PE\)); the other members of the split, which wait in it, fail it too" \
        "ishmem: PE 0: warning: ishmem_team_split_(strided|2d): PE 1 called it with a parent team handle that is no team there \(parent team [0-9]+ here\); no team is made on any member"
    done
  done
done

# The watchdog: PE 1 waits for a flag nobody sets, the others in a barrier. The job must end within
# the timeout (2 s) plus start-up, naming every PE's call.
start=$(date +%s)
ISHMEM_HANG_TIMEOUT=2 expect "hang watchdog, 3 PEs" nonzero 3 stuck \
  "ishmem: PE [0-2]: ishmem_(barrier_all|int_wait_until): blocked for [0-9.]+ s \(.*\) \(ISHMEM_HANG_TIMEOUT=2\); where every PE is:" \
  "ishmem:   PE 0: in ishmem_barrier_all \(team 0\) for [0-9.]+ s" \
  "ishmem:   PE 1: in ishmem_int_wait_until \(ivar 0x[0-9a-f]+, cmp ISHMEM_CMP_EQ, value 42, type int\) for [0-9.]+ s" \
  "ishmem:   PE 2: in ishmem_barrier_all \(team 0\) for [0-9.]+ s"
took=$(( $(date +%s) - start ))
if [ $took -le 15 ]; then echo "ok   hang watchdog ended the job in ${took} s"; else
  echo "FAIL hang watchdog: the job took ${took} s"; fails=$((fails + 1)); fi
# A loop of ishmem_int_test calls that stay false is timed like a wait.
ISHMEM_HANG_TIMEOUT=2 expect "hang watchdog, a test loop" nonzero 2 stuck_test \
  "ishmem: PE [01]: ishmem_(barrier_all|int_test): blocked for [0-9.]+ s .*\(ISHMEM_HANG_TIMEOUT=2\); where every PE is:" \
  "ishmem:   PE 0: in ishmem_barrier_all \(team 0\) for [0-9.]+ s" \
  "ishmem:   PE 1: in ishmem_int_test \(ivar 0x[0-9a-f]+, cmp ISHMEM_CMP_EQ, value 42, type int, false on every call\) for [0-9.]+ s"
# Called through shmem.h: the reports name the shmem_ routines and constants the program called.
ISHMEM_CHECK=full checked=$checked_shmem expect "shmem.h names, free" nonzero 2 free_other \
  "ishmem: PE [01]: shmem_free: the arguments are ptr at heap offset [0-9]+ here but ptr at heap offset [0-9]+ on PE [01] \(ISHMEM_CHECK=full\)"
ISHMEM_CHECK=full checked=$checked_shmem expect "shmem.h names, agreement" nonzero 2 nelems \
  "ishmem: PE [01]: shmem_int_sum_reduce: nelems is (8|16) here but (16|8) on PE [01] \(ISHMEM_CHECK=full\)"
ISHMEM_CHECK=full checked=$checked_shmem expect "shmem.h names, bounds" nonzero 2 past \
  "ishmem: PE [01]: shmem_putmem: dest \(0x[0-9a-f]+\) with 40 bytes runs 8 bytes past the end of its allocation"
ISHMEM_HANG_TIMEOUT=2 checked=$checked_shmem expect "shmem.h names, watchdog" nonzero 3 stuck \
  "ishmem: PE [0-2]: shmem_(barrier_all|int_wait_until): blocked for [0-9.]+ s \(.*\) \(ISHMEM_HANG_TIMEOUT=2\); where every PE is:" \
  "ishmem:   PE 0: in shmem_barrier_all \(team 0\) for [0-9.]+ s" \
  "ishmem:   PE 1: in shmem_int_wait_until \(ivar 0x[0-9a-f]+, cmp SHMEM_CMP_EQ, value 42, type int\) for [0-9.]+ s"
if grep -q "ishmem_" "$tmp/out"; then echo "FAIL shmem.h names: an ishmem_ name in the report"; fails=$((fails + 1)); fi

# Full mode alone does not arm the watchdog; the timeout alone does not check collectives.
ISHMEM_HANG_TIMEOUT=20 expect "timeout alone: no agreement check" 0 1 ok "checked ok: done"

echo "$fails failure(s)"
[ $fails -eq 0 ]
