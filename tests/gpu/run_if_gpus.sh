#!/usr/bin/env bash
# Runs a GPU test binary on K PEs (one per GPU) with the CUDA backend, or skips honestly.
# usage: run_if_gpus.sh K GPU_COUNT ISHMRUN BINARY [args...]
#   GPU_COUNT: the gpu_count probe (prints how many CUDA devices this process sees)
# Exit status: the job's, or 77 (ctest's SKIP_RETURN_CODE) with "skipped: N CUDA device(s), this run
# needs K" when fewer than K GPUs are visible. GPU_TEST_JOB_TIMEOUT (seconds, default 280) is passed
# to ishmrun -t, so that a hung job is stopped (and its PEs cleaned up) before ctest's own timeout.
set -u
if [ $# -lt 4 ]; then
  echo "usage: run_if_gpus.sh K GPU_COUNT ISHMRUN BINARY [args...]" >&2
  exit 2
fi
np=$1 probe=$2 ishmrun=$3
shift 3
gpus=$("$probe" 2>/dev/null | tail -n 1)
case "$gpus" in ''|*[!0-9]*) gpus=0 ;; esac
if [ "$gpus" -lt "$np" ]; then
  echo "skipped: $gpus CUDA device(s), this run needs $np"
  exit 77
fi
export ISHMEM_BACKEND=cuda
exec "$ishmrun" -n "$np" -t "${GPU_TEST_JOB_TIMEOUT:-280}" "$@"
