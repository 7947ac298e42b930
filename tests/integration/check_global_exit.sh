#!/usr/bin/env bash
# ishmem_global_exit: one PE ends the job while the others wait (wait_until, barrier, ishmem_init) or
# compute; ishmrun (or mpirun) exits with the status, in time, names the calling PE in one line and
# reports no failure; no process and no /dev/shm file is left behind. Also a lone process.
# usage: check_global_exit.sh ISHMRUN PROGRAM [MPIRUN PROGRAM_MPI]
set -u
ishmrun=$1 prog=$2 mpirun=${3:-} prog_mpi=${4:-}
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
shm_before=$(ls /dev/shm | sort)
crash='exited with status|killed by signal|protocol error|NOT STOPPED|closed its connection'

# expect NAME WANT_STATUS REGEX -- command...: status, a line matching REGEX (if any), no crash report.
expect() {
  local name=$1 want=$2 regex=$3; shift 4
  local start=$SECONDS
  timeout 30 "$@" >"$tmp/out" 2>&1; local st=$?
  if [ "$st" != "$want" ] || { [ -n "$regex" ] && ! grep -Eq "$regex" "$tmp/out"; } || grep -Eq "$crash" "$tmp/out"; then
    echo "FAIL $name: status $st (want $want), output:"; sed 's/^/    /' "$tmp/out"; fails=$((fails + 1))
  else
    echo "ok   $name ($((SECONDS - start)) s)"
  fi
  no_leftovers "$name"
}
no_leftovers() {
  sleep 0.3
  local p
  for p in "$prog" ${prog_mpi:+"$prog_mpi"}; do
    # anchored: the PEs' command lines start with the program, this script's does not
    if pgrep -f "^$p" >/dev/null; then
      echo "FAIL $1: processes left behind:"; pgrep -af "^$p"; fails=$((fails + 1)); pkill -9 -f "^$p"
    fi
  done
}
line() { echo "ishmrun: PE $1 \(pid [0-9]+\) called ishmem_global_exit\($2\); stopping the job"; }

expect "4 PEs, PE 1 exits 7 (PE 0 in wait_until, 2-3 in a barrier)" 7 "$(line 1 7)" -- "$ishmrun" -n 4 "$prog" 1 7
expect "4 PEs, from a second thread of PE 1" 7 "$(line 1 7)" -- "$ishmrun" -n 4 "$prog" 1 7 thread
expect "4 PEs, PE 3 exits 0" 0 "$(line 3 0)" -- "$ishmrun" -n 4 "$prog" 3 0
expect "3 PEs, PE 2 before ishmem_init" 5 "$(line 2 5)" -- "$ishmrun" -n 3 "$prog" 2 5 before_init
expect "2 PEs, PE 0 exits 7 (PE 1 in a barrier)" 7 "$(line 0 7)" -- "$ishmrun" -n 2 "$prog" 0 7
expect "1 PE under ishmrun" 7 "$(line 0 7)" -- "$ishmrun" -n 1 "$prog" 0 7
expect "1 PE under ishmrun, status 0" 0 "$(line 0 0)" -- "$ishmrun" -n 1 "$prog" 0 0
expect "lone process" 7 "" -- "$prog" 0 7
expect "lone process, status 0" 0 "" -- "$prog" 0 0
# The status is 8 bits, as exit's.
expect "status 300 is 44" 44 "$(line 1 44)" -- "$ishmrun" -n 2 "$prog" 1 300

if [ -n "$mpirun" ] && [ -n "$prog_mpi" ] && command -v "$mpirun" >/dev/null 2>&1; then
  args=(--oversubscribe)
  [ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
  export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
  expect "mpirun, 4 PEs, PE 1 exits 7" 7 "PE 1 called ishmem_global_exit\(7\)" -- "$mpirun" "${args[@]}" -n 4 "$prog_mpi" 1 7
else
  echo "note: no mpirun; the MPI_Abort case is left out"
fi

if [ "$(ls /dev/shm | sort)" != "$shm_before" ]; then
  echo "FAIL: /dev/shm changed:"; diff <(echo "$shm_before") <(ls /dev/shm | sort); fails=$((fails + 1))
fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
