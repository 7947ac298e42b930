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
expect "exit status named" 1 "PE 2 \(pid [0-9]+\) exited with status 3" -- "$ishmrun" -n 4 "$faulty" exit 2 3
no_leftovers "exit status named"
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

if [ "$(ls /dev/shm | sort)" != "$shm_before" ]; then echo "FAIL: /dev/shm changed"; fails=$((fails + 1)); fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
