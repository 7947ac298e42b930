#!/bin/bash
# Stop 42 call b: (1) reductions on 1-2-1 and 1-1-2: two levels (base) or flat (ISHMEM_HIERARCHICAL=0);
# (2) broadcasts on 1-1-1-1 and 1-1-1: one chain from 512 KiB (base) or MPI_Ibcast (linear:
# ISHMEM_X_BCAST_LINEAR).
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-560}
R=build-host/${RDIR:-r42b}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r42b}.tgz -C build-host ${RDIR:-r42b}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
one() {  # dir round layout variant env -- args
  local d=$1 round=$2 layout=$3 v=$4 e=$5; shift 6
  [ $(left) -gt 12 ] || { echo "out of time at $d $round $layout $v"; return 1; }
  mkdir -p $R/$d; local f=$R/$d/coll-$round-${layout//,/-}-$v
  env $e timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
    --batches 15 "$@" --csv $f.csv > $f.txt 2>&1
  echo "$d $round $layout $v rc $? $(el) s"
}
for round in 1 2 3 4 5; do
  for layout in 1,1,1,1 1,1,1; do
    vs="base linear"; [ $(( round % 2 )) = 0 ] && vs="linear base"
    for v in $vs; do
      e=X=1; [ $v = linear ] && e=ISHMEM_X_BCAST_LINEAR=1
      one bcast $round $layout $v $e -- --ops broadcastmem --sizes 256K,512K,1M,4M || break 3
    done
  done
done
for round in 1 2 3 4 5 6; do
  for layout in 1,2,1 1,1,2; do
    vs="base flat"; [ $(( round % 2 )) = 0 ] && vs="flat base"
    for v in $vs; do
      e=ISHMEM_HIERARCHICAL=1; [ $v = flat ] && e=ISHMEM_HIERARCHICAL=0
      one red $round $layout $v $e -- --ops int64_sum_reduce,double_sum_reduce --sizes 8,1K,8K,32K,64K,128K,256K,512K,1M,4M || break 3
    done
  done
done
echo "end $(el) s"
