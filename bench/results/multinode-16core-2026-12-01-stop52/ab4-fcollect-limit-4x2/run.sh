#!/usr/bin/env bash
# stop 52 device call 4: on 4 x 2, is the fcollect limit what moved fcollect 16 KiB and broadcast 4 KiB?
set -u
A=bench/multinode/ab_rounds.sh
D=$OUT/ab/k4
$A --build --out $D --rounds 4 --layout 2,2,2,2 --layout 1,1,1,1 \
  --variant new --variant 'old ISHMEM_K_OLD=1' --variant 'fo ISHMEM_K_FCOLD=1' \
  --job-timeout 60 --limit 330 -- --batches 11 --ops broadcastmem,fcollectmem --sizes 4K,16K,32K,64K
python3 bench/multinode/ab_medians.py $D new,old,fo --times > $D/medians.txt 2>&1
cat $D/medians.txt
cd $OUT && tar czf ab4.tgz ab && rm -rf ab
