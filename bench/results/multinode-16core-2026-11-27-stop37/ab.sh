#!/bin/bash
# Stop 37's A/Bs, one job per plan (bash ab.sh knobs|hand-on|heap|pieces|whole), run from a copy of
# this file in .deps/ on a 16-core device machine: one build, the variants are settings of it
# (ISHMEM_X_* were temporary knobs in the working tree of those runs, not in main). The five
# scripts that ran were this one with one plan each (and LIMIT 560, 450 for whole).
cd "$(dirname "$0")/.." || exit 1
plan=${1:?plan}
LIMIT=${LIMIT:-560}
R=build-host/${RDIR:-r37-$plan}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r37-$plan.tgz -C build-host ${RDIR:-r37-$plan}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores" | tee -a $R/calls.log
. bench/multinode/ip_from_debs.sh  # `ip` where iproute2 is missing
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
one() {  # one <round> <layout> <variant> <ops> <sizes> [env...]; $EXTRA: more bench options
  local round=$1 layout=$2 name=$3 ops=$4 sizes=$5; shift 5
  [ $(left) -gt 25 ] || { echo "out of time at $round $layout $name"; return 1; }
  local f=$R/coll-$round-${layout//,/-}-$name
  [ -f $f.txt ] && return 0
  env "$@" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
    --batches 15 --sizes $sizes --ops $ops $EXTRA --csv $f.csv > $f.txt 2>&1
  echo "$round $layout $name rc $? $(el) s: $(grep -m1 '^# target' $f.txt | cut -c60-150)"
}
case $plan in
knobs)  # ab1: 4 rounds
  for round in 1 2 3 4; do for layout in 1,1 1,2,1; do
    O=broadcastmem,int64_sum_exscan,int64_sum_inscan,collectmem,barrier_all; S=8,64,1K,8K,64K,1M
    one $round $layout base $O $S || break 2
    one $round $layout SERVE16 $O $S ISHMEM_X_SERVE=16 || break 2
    one $round $layout SERVE0 $O $S ISHMEM_X_SERVE=0 || break 2
    one $round $layout SPIN2000 $O $S ISHMEM_X_SPIN=2000 || break 2
    one $round $layout BCAST_MAX2097152 $O $S ISHMEM_X_BCAST_MAX=2097152 || break 2
    one $round $layout PIECES1 $O $S ISHMEM_X_PIECES=1 || break 2
  done; done ;;
hand-on)  # ab2
  B=broadcastmem; BS=64K,256K,512K,1M,2M; C=collectmem,int64_sum_exscan; CS=16K,32K,64K,128K,256K
  for round in 1 2 3 4 5; do
    for layout in 1,2,1 2,2; do
      one $round $layout base $B $BS || break 2
      one $round $layout p128k $B $BS ISHMEM_X_BPIECE=131072 || break 2
      one $round $layout p512k $B $BS ISHMEM_X_BPIECE=524288 || break 2
      one $round $layout whole $B $BS ISHMEM_X_BPIECE=1073741824 || break 2
    done
    one $round 1,1 base $C $CS || break
    one $round 1,1 late $C $CS ISHMEM_X_COPY_EARLY=1073741824 || break
  done ;;
heap)  # ab3
  cat /sys/kernel/mm/transparent_hugepage/shmem_enabled /sys/kernel/mm/transparent_hugepage/enabled | tee -a $R/calls.log
  O=int64_sum_exscan,int64_sum_inscan,broadcastmem,collectmem,fcollectmem; S=8,1K,16K,32K,64K,256K,1M,4M
  for round in 1 2 3 4 5 6; do
    EXTRA= one $round 1,1 priv $O $S || break
    EXTRA=--mpi-on-heap one $round 1,1 heap $O $S || break
    EXTRA= one $round 1,2,1 priv broadcastmem,fcollectmem 256K,1M,4M || break
    EXTRA=--mpi-on-heap one $round 1,2,1 heap broadcastmem,fcollectmem 256K,1M,4M || break
  done ;;
pieces)  # ab4
  O=broadcastmem,int64_sum_exscan,int64_sum_inscan,collectmem,fcollectmem,int64_sum_reduce; S=8K,16K,32K,48K,64K,128K,256K
  for round in 1 2 3 4 5; do for layout in 1,1 1,2,1; do
    one $round $layout base $O $S || break 2
    one $round $layout p16 $O $S ISHMEM_X_PIECE=16384 ISHMEM_X_PMAX=8 || break 2
    one $round $layout p16m4 $O $S ISHMEM_X_PIECE=16384 ISHMEM_X_PMAX=4 || break 2
    one $round $layout p8 $O $S ISHMEM_X_PIECE=8192 ISHMEM_X_PMAX=8 || break 2
  done; done ;;
whole)  # ab5
  O=broadcastmem,int64_sum_exscan,int64_sum_inscan,collectmem,fcollectmem,int64_sum_reduce; S=32K,40K,48K,56K,64K,96K,128K
  for round in 1 2 3 4 5 6; do for layout in 1,1 1,2,1; do
    one $round $layout base $O $S || break 2
    one $round $layout s48 $O $S ISHMEM_X_SINGLE=49152 || break 2
    one $round $layout s60 $O $S ISHMEM_X_SINGLE=61440 || break 2
  done; done ;;
esac
echo "end $(el) s"
