#!/usr/bin/env bash
# The GPU ring (examples/cuda_ring.cu) started by mpirun instead of ishmrun: the MPI bootstrap, the
# CUDA backend, one PE per GPU, on 1 PE and on every larger count up to the GPUs visible (at most 4).
# Each PE must print "ring ok". Exit 77 (skipped) without a GPU or without mpirun.
#   check_mpirun_gpu.sh GPU_COUNT MPIRUN PROGRAM
set -u
probe=$1 mpirun=$2 prog=$3
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in ''|*[!0-9]*) gpus=0 ;; esac
[ "$gpus" -ge 1 ] || { echo "skipped: no CUDA device visible"; exit 77; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
args=()
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
export ISHMEM_BACKEND=cuda
fail=0
max=$(( gpus < 4 ? gpus : 4 ))
for np in $(seq 1 "$max"); do
  out=$(timeout 120 "$mpirun" "${args[@]}" -n "$np" "$prog" 2>&1)
  rc=$?
  ok=$(grep -c "ring ok" <<<"$out")
  if [ $rc -eq 0 ] && [ "$ok" = "$np" ]; then
    echo "ok: mpirun -n $np: $ok of $np PEs report ring ok"
  else
    echo "FAILED: mpirun -n $np (exit status $rc, $ok of $np PEs report ring ok)"; echo "$out" | tail -20; fail=1
  fi
done
exit $fail
