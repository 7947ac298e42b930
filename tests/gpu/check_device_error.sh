#!/usr/bin/env bash
# A bad argument in device code stops the job with the runtime's one-line error naming the PE and
# the routine: "ishmem: PE <n>: <routine>: <reason>". The regexes are strict about the PE and the
# routine, loose about the reason text.
# usage: check_device_error.sh GPU_COUNT ISHMRUN DEVICE_ERROR
# Exit status: 0 all cases passed, 1 a case failed, 77 (skip) without a CUDA device.
set -u
probe=$1 ishmrun=$2 prog=$3
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in ''|*[!0-9]*) gpus=0 ;; esac
if [ "$gpus" -lt 1 ]; then
  echo "skipped: $gpus CUDA device(s), this run needs 1"
  exit 77
fi
export ISHMEM_BACKEND=cuda
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# expect NAME NP REGEX [REGEX2] -- args: the job must exit nonzero and print lines matching each regex.
expect() {
  local name=$1 np=$2 regex=$3 regex2=${4:-}
  timeout -k 5 120 "$ishmrun" -n "$np" -t 100 "$prog" "$name" >"$tmp/out" 2>&1; local st=$?
  local ok=1
  [ "$st" -ne 0 ] || ok=0
  grep -Eq "$regex" "$tmp/out" || ok=0
  if [ -n "$regex2" ]; then grep -Eq "$regex2" "$tmp/out" || ok=0; fi
  if [ $ok = 1 ]; then
    echo "ok   $name on $np PE(s) (status $st): $(grep -E "$regex" "$tmp/out" | head -n 1)"
  else
    echo "FAIL $name on $np PE(s): status $st (want nonzero), want a line matching: $regex${regex2:+ and $regex2}; output:"
    sed 's/^/    /' "$tmp/out"
    fails=$((fails + 1))
  fi
}

expect bad_pe 1 'ishmem: PE 0: ishmem_int_p[^:]*: .*PE 99'
expect bad_addr 1 'ishmem: PE 0: ishmem_int_p[^:]*: .*(heap|symmetric)'
expect bad_cmp 1 'ishmem: PE 0: ishmem_int_wait_until[^:]*: .*99'
# A g whose load would fault: the check must name it first.
expect g_bad_pe 1 'ishmem: PE 0: ishmem_int_g[^:]*: .*PE 99'
expect g_bad_addr 1 'ishmem: PE 0: ishmem_int_g[^:]*: .*(heap|symmetric)'
# Two callers of one PE inside a collective on one team at once, through the ring and the stage.
expect two_callers 1 'ishmem: PE 0: ishmem_broadcast[^:]*: another thread or group of this PE is inside a collective on team 0'
expect two_callers_medium 1 'ishmem: PE 0: ishmem_broadcast[^:]*: another thread or group of this PE is inside a collective on team 0'
if [ "$gpus" -ge 2 ]; then
  # Only PE 1 fails; the launcher names it and stops PE 0 (which waits in a barrier).
  expect bad_pe_on_last 2 'ishmem: PE 1: ishmem_int_p[^:]*: .*PE 99' 'PE 1 \(pid [0-9]+\) (exited with status [1-9]|killed by signal)'
else
  echo "skip bad_pe_on_last on 2 PEs: $gpus CUDA device(s)"
fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
