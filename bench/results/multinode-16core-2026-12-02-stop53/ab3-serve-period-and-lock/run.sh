#!/usr/bin/env bash
# stop 53 device call 4: single-PE nodes, the wait loop's serving period (s16, s1k: every 16th /
# 1024th poll in place of every 4th) and its lock held over 3 polls at a time (lk)
set -u
A=bench/multinode/ab_rounds.sh
mkdir -p /tmp/ab
$A --build --out /tmp/ab/serve --rounds 4 --layout 1,1 --layout 1,1,1,1 \
  --variant base --variant 's16 ISHMEM_K_SERVE=16' --variant 's1k ISHMEM_K_SERVE=1024' --variant 'lk ISHMEM_K_LK=1' \
  --job-timeout 60 --limit 420 -- --batches 11 --ops broadcastmem,int64_sum_inscan,fcollectmem,alltoallmem,barrier_all,int64_sum_reduce --sizes 8,64,1K,4K
python3 bench/multinode/ab_medians.py /tmp/ab/serve base,s16,s1k,lk --times > /tmp/ab/serve/medians.txt 2>&1
cat /tmp/ab/serve/medians.txt
tar czf $OUT/ab.tgz -C /tmp ab
