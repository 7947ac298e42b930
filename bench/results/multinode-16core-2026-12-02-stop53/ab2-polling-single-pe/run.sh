#!/usr/bin/env bash
# stop 53 device call 2: (a) 2 x 2 / 4 x 2 small scans, node hops (base) or all through MPI (hops0);
# (b) single-PE nodes: MPI peer polled like ours (p2p), no progress thread (nt), the thread off MPI
# while a wait polls (qt), polls without pause (hot)
set -u
A=bench/multinode/ab_rounds.sh
mkdir -p /tmp/ab
$A --build --out /tmp/ab/scan --rounds 3 --layout 2,2 --layout 2,2,2,2 \
  --variant base --variant 'hops0 ISHMEM_K_SCANHOPS=0' \
  --job-timeout 60 --limit 230 -- --batches 11 --ops int64_sum_inscan,int64_sum_exscan --sizes 8,16,64,1K,4K
python3 bench/multinode/ab_medians.py /tmp/ab/scan base,hops0 --times > /tmp/ab/scan/medians.txt 2>&1
cat /tmp/ab/scan/medians.txt
$A --out /tmp/ab/poll --rounds 4 --layout 1,1 --layout 1,1,1,1 \
  --variant base --variant 'p2p --mpi-p2p' --variant 'nt ISHMEM_K_NOTHREAD=1' --variant 'qt ISHMEM_K_QT=1' --variant 'hot ISHMEM_K_HOT=1' \
  --job-timeout 60 --limit 340 -- --batches 11 --ops broadcastmem,int64_sum_inscan,fcollectmem,alltoallmem,barrier_all,int64_sum_reduce --sizes 8,64,1K,4K
python3 bench/multinode/ab_medians.py /tmp/ab/poll base,p2p,nt,qt,hot --times > /tmp/ab/poll/medians.txt 2>&1
cat /tmp/ab/poll/medians.txt
tar czf $OUT/ab.tgz -C /tmp ab
