#!/usr/bin/env bash
# stop 52 device call 2: broadcasts on 4+ members (binary tree / chain), barrier recursive doubling,
# fcollect and collect p2p limits, on single-PE nodes (4 x 1, 8 x 1) and 4 x 2
set -u
A=bench/multinode/ab_rounds.sh
D=$OUT/ab/k1
$A --build --out $D --rounds 3 --layout 1,1,1,1 --layout 1,1,1,1,1,1,1,1 --layout 2,2,2,2 \
  --variant base \
  --variant 'A ISHMEM_K_BCAST=1 ISHMEM_K_BARRIER_RD=1 ISHMEM_K_FCOLLECT_MAX=65536 ISHMEM_K_COLLECT_MAX=262144' \
  --variant 'B ISHMEM_K_BCAST=2 ISHMEM_K_FCOLLECT_MAX=262144 ISHMEM_K_COLLECT_MAX=1048576' \
  --job-timeout 90 --limit 500 -- --batches 11 --ops broadcastmem,barrier_all,fcollectmem,collectmem --sizes 8,64,1K,4K,16K,64K,256K
python3 bench/multinode/ab_medians.py $D base,A,B --times > $D/medians.txt 2>&1
cat $D/medians.txt
