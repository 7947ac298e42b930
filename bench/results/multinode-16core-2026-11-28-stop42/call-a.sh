#!/bin/bash
# Stop 42 call a: (1) scans: source copied while below is on its way (base) or after (late:
# ISHMEM_X_SCAN_COPY_LATE), exscan's member 0 not zeroing (nozero: ISHMEM_X_SCAN_NO_ZERO, a control)
# on 1-2-1, 1-1; (2) broadcasts over 256 KiB on 1-1, 1-1-1: MPI_Ibcast (base), a chain in 256 KiB
# segments (chain) or one message (whole) (ISHMEM_X_BCAST_LONG_CHAIN), no root copy (nocopy: control);
# (3) 1-2-1 reductions and collects, ISHMEM_HIERARCHICAL=1 (base) or 0 (flat).
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-560}
R=build-host/${RDIR:-r42a}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r42a}.tgz -C build-host ${RDIR:-r42a}; }
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
VS=(base late nozero)
for round in 1 2 3 4 5 6; do
  for layout in 1,2,1 1,1; do
    for ((i=0;i<3;i++)); do
      v=${VS[$(( (i+round) % 3 ))]}; e=X=1
      [ $v = late ] && e=ISHMEM_X_SCAN_COPY_LATE=1; [ $v = nozero ] && e=ISHMEM_X_SCAN_NO_ZERO=1
      one scan $round $layout $v $e -- --ops int64_sum_inscan,int64_sum_exscan --sizes 32K,128K,1M || break 3
    done
  done
done
VB=(base chain whole nocopy)
for round in 1 2 3 4 5; do
  for layout in 1,1 1,1,1; do
    for ((i=0;i<4;i++)); do
      v=${VB[$(( (i+round) % 4 ))]}; e=X=1
      [ $v = chain ] && e=ISHMEM_X_BCAST_LONG_CHAIN=1; [ $v = whole ] && e=ISHMEM_X_BCAST_LONG_CHAIN=whole
      [ $v = nocopy ] && e=ISHMEM_X_BCAST_NO_COPY=1
      one bcast $round $layout $v $e -- --ops broadcastmem --sizes 256K,512K,1M,4M || break 3
    done
  done
done
for round in 1 2 3 4 5; do
  vs="base flat"; [ $(( round % 2 )) = 0 ] && vs="flat base"
  for v in $vs; do
    e=ISHMEM_HIERARCHICAL=1; [ $v = flat ] && e=ISHMEM_HIERARCHICAL=0
    one hier $round 1,2,1 $v $e -- --ops int64_sum_reduce,double_sum_reduce,collectmem,fcollectmem --sizes 64K,128K,1M,4M || break 2
  done
done
echo "end $(el) s"
