#!/bin/bash
# Stop 42 call d: reductions on 3 and 5 members (not a power of two): the ring above 64 KiB (base)
# or above 16 / 32 KiB (r16, r32: ISHMEM_X_RING_MIN_K), else the pairs' fold; on 1-1-1, 1-1-1-1-1
# and 1-2-1 (whose 3 leaders reduce on two levels below 512 KiB).
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-420}
R=build-host/${RDIR:-r42d}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r42d}.tgz -C build-host ${RDIR:-r42d}; }
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
VS=(base r16 r32)
for round in 1 2 3 4 5 6; do
  for layout in 1,1,1 1,2,1 1,1,1,1,1; do
    for ((i=0;i<3;i++)); do
      v=${VS[$(( (i+round) % 3 ))]}; e=X=1
      [ $v = r16 ] && e=ISHMEM_X_RING_MIN_K=16; [ $v = r32 ] && e=ISHMEM_X_RING_MIN_K=32
      one ring $round $layout $v $e -- --ops int64_sum_reduce,double_sum_reduce --sizes 16K,32K,64K,128K || break 3
    done
  done
done
echo "end $(el) s"
