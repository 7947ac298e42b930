#!/usr/bin/env bash
# stop 52 device call 3: the landed rules (new) against the old ones (ISHMEM_K_OLD=1): chain broadcasts
# on 4+ members, recursive-doubling barrier on 2^k, fcollect p2p to 64 KiB, collect p2p to 128 KiB
set -u
A=bench/multinode/ab_rounds.sh
D=$OUT/ab/k3
$A --build --out $D --rounds 4 --layout 1,1 --layout 1,1,1,1 --layout 1,1,1,1,1,1,1,1 --layout 2,2,2,2 --layout 1,2,1 --layout 2,2 \
  --variant new --variant 'old ISHMEM_K_OLD=1' \
  --job-timeout 90 --limit 430 -- --batches 11 --ops broadcastmem,barrier_all,fcollectmem,collectmem --sizes 8,1K,4K,16K,64K,128K
python3 bench/multinode/ab_medians.py $D new,old --times > $D/medians.txt 2>&1
cat $D/medians.txt
cd $OUT && tar czf ab3.tgz ab && rm -rf ab
