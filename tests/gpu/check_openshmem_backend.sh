#!/usr/bin/env bash
# shmem.h programs are host programs: on a machine with a GPU and a library with CUDA, shmem_init,
# shmem_init_thread and start_pes take the host backend unless ISHMEM_BACKEND=cuda (docs/guide/cuda.rst,
# "Running"). Runs, with ISHMEM_BACKEND unset: the C OpenSHMEM suite (shmem_init_thread; it reads
# and writes its symmetric objects from the host, which GPU memory would not allow), hello_shmem
# (shmem_init) and the deprecated API's program (start_pes) on 2 PEs, each passing and each PE's debug line saying "backend host"; then the suite's
# start-only mode with ISHMEM_BACKEND=cuda, whose debug lines must say "backend cuda".
# usage: check_openshmem_backend.sh GPU_COUNT ISHMRUN OPENSHMEM_TEST HELLO_SHMEM DEPRECATED_TEST
# Exit status: 0 all right, 1 otherwise, 77 (skipped) without a GPU.
set -u
probe=$1 ishmrun=$2 suite=$3 hello=$4 deprecated=$5
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in '' | *[!0-9]*) gpus=0 ;; esac
[ "$gpus" -ge 1 ] || { echo "skipped: no CUDA device visible"; exit 77; }
fails=0
# expect WHAT BACKEND PASS_REGEX COMMAND...: the job exits 0, prints PASS_REGEX, and both PEs' debug
# lines of ishmem_init name BACKEND.
expect() {
  local what=$1 backend=$2 pass=$3
  shift 3
  local out rc
  out=$(ISHMEM_DEBUG=1 timeout 120 "$@" 2>&1)
  rc=$?
  local said
  said=$(grep -c "PEs, bootstrap [a-z]*, backend $backend," <<<"$out")
  if [ $rc -eq 0 ] && [ "$said" -eq 2 ] && grep -qE "$pass" <<<"$out"; then
    echo "ok: $what: backend $backend on 2 PEs"
  else
    echo "FAIL: $what: exit status $rc, $said of 2 PEs say backend $backend, want '$pass':"
    tail -20 <<<"$out"
    fails=1
  fi
}
expect "C OpenSHMEM suite (shmem_init_thread), ISHMEM_BACKEND unset" host "openshmem: OK on 2 PEs" \
  env -u ISHMEM_BACKEND "$ishmrun" -n 2 "$suite"
expect "hello_shmem (shmem_init), ISHMEM_BACKEND unset" host "total 1: OK" \
  env -u ISHMEM_BACKEND "$ishmrun" -n 2 "$hello"
expect "the deprecated API's program (start_pes), ISHMEM_BACKEND unset" host "openshmem_deprecated: OK on 2 PEs" \
  env -u ISHMEM_BACKEND ISHMEM_HANG_TIMEOUT=60 "$ishmrun" -n 2 "$deprecated"
expect "shmem_init_thread with ISHMEM_BACKEND=cuda" cuda "" \
  env ISHMEM_BACKEND=cuda "$ishmrun" -n 2 "$suite" start_only
exit $fails
