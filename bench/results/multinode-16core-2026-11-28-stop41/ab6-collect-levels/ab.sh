#!/bin/bash
# Stop 41 call d: (1) collects on two levels from 128 KiB in all (base) or from 512 KiB (lv512:
# ISHMEM_X_COLLECT_LEVELS_MIN_K=512) on 1-2-1; (2) a broadcast root's own copy into dest while the
# data goes (base), before it (before) or after it (after: ISHMEM_X_BCAST_ROOT_COPY) on 1-1, 1-1-1.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-420}
R=build-host/${RDIR:-r41d}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r41d}.tgz -C build-host ${RDIR:-r41d}; }
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
for round in 1 2 3 4 5 6 7 8; do
  vs="base lv512"; [ $(( round % 2 )) = 0 ] && vs="lv512 base"
  for v in $vs; do
    e=X=1; [ $v = lv512 ] && e=ISHMEM_X_COLLECT_LEVELS_MIN_K=512
    one collect $round 1,2,1 $v $e -- --ops collectmem,fcollectmem --sizes 16K,32K,64K,128K || break 2
  done
done
VS=(base before after)
for round in 1 2 3 4 5 6; do
  for layout in 1,1 1,1,1; do
    for ((i=0;i<3;i++)); do
      v=${VS[$(( (i+round) % 3 ))]}; e=X=1; [ $v != base ] && e=ISHMEM_X_BCAST_ROOT_COPY=$v
      one bcast $round $layout $v $e -- --ops broadcastmem --sizes 32K,256K,512K,1M,4M || break 3
    done
  done
done
echo "end $(el) s"
