#!/usr/bin/env bash
# Runs tests/integration/mpi_heap.cpp under mpirun on 1 to 4 PEs: the MPI bootstrap shares the heap
# descriptors over node-local Unix sockets. Then once more with every PE in a PID namespace of its
# own (unshare, root only), where the fallback (pidfd_getfd, /proc/<pid>/fd) cannot work, so only the
# socket exchange can pass. Exit 77 (skipped) when mpirun is missing.
#   check_mpi_heap.sh MPIRUN PROGRAM
set -u
mpirun=$1 prog=$2
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
args=(--oversubscribe)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
# Shared memory between ranks (vader) needs one PID namespace; TCP works in any.
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
fail=0
run() {
  local what=$1; shift
  local out
  out=$(timeout 120 "$mpirun" "${args[@]}" "$@" 2>&1)
  local rc=$?
  if [ $rc -eq 0 ] && grep -q "mpi heap of .* PEs: OK" <<<"$out"; then
    echo "ok: $what"
  else
    echo "FAILED: $what (exit status $rc)"; echo "$out" | tail -20; fail=1
  fi
}
for np in 1 2 3 4; do run "$np PEs" -n "$np" "$prog"; done
if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
  run "3 PEs, one PID namespace each" -n 3 unshare --pid --fork --mount-proc "$prog"
else
  echo "note: not root or no unshare; the run with a PID namespace per PE is left out"
fi
exit $fail
