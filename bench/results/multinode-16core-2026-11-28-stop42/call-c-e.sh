#!/bin/bash
# Stop 42 call c: full bench_coll runs of the runtime as landed this stop on 1-1, 2-2, 1-2-1, 1-1-1.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-560}
R=build-host/${RDIR:-r42c}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r42c}.tgz -C build-host ${RDIR:-r42c}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
coll() {  # file layout env... -- args...
  local f=$1 l=$2; shift 2; local env=(); while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
  env "${env[@]}" timeout 100 tests/multinode/netns_mpirun.sh --layout $l --timeout 95 -- build-host/bench/bench_coll \
    --batches 15 "$@" --csv $f.csv > $f.txt 2>&1
  echo "$(basename $f) rc $? $(el) s"
}
for round in; do
  for layout in 1,2,1 2,2 1,1,1; do
    [ $(left) -gt 300 ] || break 2
    coll $R/bc-$round-${layout//,/-}-new $layout -- --ops broadcastmem --sizes 256K,512K,1M,2M,4M
  done
done
for round in 1 2; do
  for layout in 1,1 2,2 1,2,1 1,1,1; do
    [ $(left) -gt 28 ] || break 2
    coll $R/full-$round-${layout//,/-}-new $layout -- --sizes 8,64,1K,8K,32K,64K,128K,256K,1M,4M
  done
done
echo "end $(el) s"
