#!/usr/bin/env bash
# stop 53 device call 5: 2 x 1, the MPI peer's buffers on ishmem's heap (heap) or its own (base)
set -u
A=bench/multinode/ab_rounds.sh
mkdir -p /tmp/ab
$A --build --out /tmp/ab/heap --rounds 3 --layout 1,1 \
  --variant base --variant 'heap --mpi-on-heap' \
  --job-timeout 40 --limit 215 -- --batches 11 --ops broadcastmem,int64_sum_inscan,alltoallmem,fcollectmem --sizes 8,64,1K,4K
python3 bench/multinode/ab_medians.py /tmp/ab/heap base,heap --times > /tmp/ab/heap/medians.txt 2>&1
cat /tmp/ab/heap/medians.txt
tar czf $OUT/ab.tgz -C /tmp ab
