#!/usr/bin/env bash
# Launcher behaviour: exit status and the line naming a failed PE, stopping the others, signal
# forwarding, usage errors, and that nothing (processes, /dev/shm files) is left behind.
# usage: check_launcher.sh ISHMRUN FAULTY
set -u
ishmrun=$1 faulty=$2
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
shm_before=$(ls /dev/shm | sort)

expect() {  # expect NAME WANT_STATUS REGEX -- command...
  local name=$1 want=$2 regex=$3; shift 4
  timeout 60 "$@" >"$tmp/out" 2>&1; local st=$?
  if [ "$st" != "$want" ] || { [ -n "$regex" ] && ! grep -Eq "$regex" "$tmp/out"; }; then
    echo "FAIL $name: status $st (want $want), output:"; sed 's/^/    /' "$tmp/out"; fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}
no_leftovers() {
  sleep 0.3
  # anchored: the PEs' command lines start with the program, this script's does not
  if pgrep -f "^$faulty" >/dev/null; then
    echo "FAIL $1: processes left behind:"; pgrep -af "^$faulty"; fails=$((fails + 1)); pkill -9 -f "^$faulty"
  fi
}

expect "clean run" 0 "" -- "$ishmrun" -n 4 "$faulty" ok
expect "exit status named" 3 "PE 2 \(pid [0-9]+\) exited with status 3" -- "$ishmrun" -n 4 "$faulty" exit 2 3
no_leftovers "exit status named"
# A PE's status passes through as mpirun's does: test harnesses read 77 as "skipped".
for np in 1 2 4; do
  expect "exit status 77 passed through, $np PEs" 77 "PE 0 \(pid [0-9]+\) exited with status 77" -- "$ishmrun" -n $np "$faulty" exit 0 77
done
expect "signal named" 1 "PE 1 \(pid [0-9]+\) killed by signal 11" -- "$ishmrun" -n 3 "$faulty" segv 1
no_leftovers "signal named"
expect "bad argument stops the job" 1 "ishmem: PE 0: ishmem_int_p: PE 1 is out of range \[0, 1\)" -- "$ishmrun" -n 1 "$faulty" bad_pe
expect "bad argument on 4 PEs" 1 "ishmem: PE [0-3]: ishmem_int_p: PE 4 is out of range \[0, 4\)" -- "$ishmrun" -n 4 "$faulty" bad_pe
no_leftovers "bad argument on 4 PEs"
expect "use before init" 1 "ishmem: PE \?: ishmem_malloc: .*before ishmem_init" -- "$faulty" before_init
expect "use after finalize" 1 "ishmem: PE [01]: ishmem_malloc: called after ishmem_finalize" -- "$ishmrun" -n 2 "$faulty" after_finalize
no_leftovers "use after finalize"
ISHMEM_SYMMETRIC_SIZE=12Q expect "malformed heap size" 1 "ishmem_init: .*ISHMEM_SYMMETRIC_SIZE.*12Q" -- "$ishmrun" -n 2 "$faulty" ok
ISHMEM_SYMMETRIC_SIZE=64M expect "heap size with suffix" 0 "" -- "$ishmrun" -n 2 "$faulty" ok
# A setting that chooses how collectives run, different on one PE: ishmem_init stops the job and
# names it (else the PEs would take different forms of a collective and wait for each other).
expect "protocol settings differ" 1 "ishmem: PE [0-2]: ishmem_init: ISHMEM_CHAIN_MIN differs between PEs" \
  -- "$ishmrun" -n 3 sh -c 'if [ "$ISHMEMI_PE" = 1 ]; then export ISHMEM_CHAIN_MIN=5; fi; exec "$0" ok' "$faulty"
no_leftovers "protocol settings differ"
ISHMEM_CHAIN_MIN=5 expect "protocol settings alike" 0 "" -- "$ishmrun" -n 3 "$faulty" ok
ISHMEM_NO_SUCH_VARIABLE=1 expect "unknown variable warned" 0 "ISHMEM_NO_SUCH_VARIABLE" -- "$ishmrun" -n 2 "$faulty" ok
expect "help" 0 "Usage: ishmrun" -- "$ishmrun" --help
expect "missing -n" 2 "ishmrun: " -- "$ishmrun" "$faulty" ok
expect "program not found" 2 "no-such-program" -- "$ishmrun" -n 2 ./no-such-program
expect "bad --bind-to" 2 "bind-to takes core or none" -- "$ishmrun" --bind-to socket -n 2 "$faulty" ok

# Binding: with as many CPUs as PEs, each PE runs on CPUs of its own; --bind-to none leaves every PE
# on the launcher's CPUs.
cpus=$(nproc)
allowed() { grep Cpus_allowed_list /proc/self/status | cut -f2; }
if [ "$cpus" -ge 2 ]; then
  "$ishmrun" -n "$cpus" sh -c 'echo "$ISHMEMI_PE $(grep Cpus_allowed_list /proc/self/status | cut -f2)"' >"$tmp/bound" 2>&1
  if [ "$(cut -d' ' -f2 "$tmp/bound" | sort -u | wc -l)" = "$cpus" ] && ! grep -qF " $(allowed)" "$tmp/bound"; then
    echo "ok   a CPU of its own for each of $cpus PEs"
  else echo "FAIL binding, $cpus PEs on $(allowed):"; sed 's/^/    /' "$tmp/bound"; fails=$((fails + 1)); fi
fi
"$ishmrun" --bind-to none -n 2 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' >"$tmp/unbound" 2>&1
if [ "$(sort -u "$tmp/unbound")" = "$(allowed)" ]; then echo "ok   --bind-to none"
else echo "FAIL --bind-to none, launcher on $(allowed):"; sed 's/^/    /' "$tmp/unbound"; fails=$((fails + 1)); fi

# Ctrl-C (SIGINT to the launcher) reaches every PE and the job ends nonzero.
"$ishmrun" -n 3 "$faulty" hang >"$tmp/hang" 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(grep -c ready "$tmp/hang")" = 3 ] && break; sleep 0.1; done
kill -INT $pid
wait $pid; st=$?
if [ $st -eq 0 ] || [ "$(grep -c ready "$tmp/hang")" != 3 ]; then
  echo "FAIL ctrl-c: status $st"; cat "$tmp/hang"; fails=$((fails + 1))
else echo "ok   ctrl-c forwarded (status $st)"; fi
no_leftovers "ctrl-c"

# A job stopped from outside (a batch system's SIGTERM) while its PEs wait: first the report of
# where every PE is, then the signal, and the status 128 + 15. With ISHMEM_HANG_TIMEOUT set (longer
# than the job) the report names each PE's call; without it, that each still runs.
stopped() {  # stopped NAME NP REGEX...
  local name=$1 np=$2; shift 2
  "$ishmrun" -n "$np" "$faulty" wait >"$tmp/wait" 2>&1 &
  local pid=$! st ok=1
  for _ in $(seq 100); do [ "$(grep -c ready "$tmp/wait")" = "$np" ] && break; sleep 0.1; done
  sleep 1  # the waits reach their yielding phase, where they publish what they wait for
  kill -TERM $pid
  wait $pid; st=$?
  [ $st -eq 143 ] || ok=0
  for re in "$@"; do grep -Eq -- "$re" "$tmp/wait" || { ok=0; echo "  no line matches: $re"; }; done
  if [ $ok = 1 ]; then echo "ok   $name"; else echo "FAIL $name: status $st, output:"; sed 's/^/    /' "$tmp/wait"; fails=$((fails + 1)); fi
  no_leftovers "$name"
}
ISHMEM_HANG_TIMEOUT=600 stopped "SIGTERM: where every PE is, 3 PEs" 3 \
  "ishmem: PE [0-2]: the job is stopped by signal 15 \(Terminated\) to ishmrun; where every PE is:" \
  "ishmem:   PE 0: in ishmem_barrier_all \(team 0\) for [0-9.]+ s" \
  "ishmem:   PE 1: in ishmem_int_wait_until \(ivar 0x[0-9a-f]+, cmp ISHMEM_CMP_EQ, value 42, type int\) for [0-9.]+ s" \
  "ishmem:   PE 2: in ishmem_barrier_all \(team 0\) for [0-9.]+ s"
ISHMEM_HANG_TIMEOUT=600 stopped "SIGTERM: where every PE is, 2 PEs" 2 \
  "ishmem:   PE 1: in ishmem_int_wait_until \(ivar"
stopped "SIGTERM without the watch, 4 PEs" 4 \
  "ishmem: PE [0-3]: the job is stopped by signal 15 \(Terminated\) to ishmrun; where every PE is:" \
  "ishmem:   PE 3: running \(set ISHMEM_HANG_TIMEOUT to record the call it blocks in\)"

if [ "$(ls /dev/shm | sort)" != "$shm_before" ]; then echo "FAIL: /dev/shm changed"; fails=$((fails + 1)); fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
