#!/bin/bash
# Stop 39 A/B: broadcasts of 96-384 KiB across nodes, chain of eager segments up to 256 KiB (new)
# against MPI_Ibcast above 64 KiB (ibcast, ISHMEM_X_CHAIN_MAX=0): one build.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-540}
R=build-host/${RDIR:-r39c}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r39c.tgz -C build-host ${RDIR:-r39c}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
one() {  # one <round> <layout> <variant> <ops> <sizes> [env...]
  local round=$1 layout=$2 name=$3 ops=$4 sizes=$5; shift 5
  [ $(left) -gt 20 ] || { echo "out of time at $round $layout $name"; return 1; }
  local f=$R/coll-$round-${layout//,/-}-$name
  [ -f $f.txt ] && return 0
  env "$@" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
    --batches 15 --sizes $sizes --ops $ops --csv $f.csv > $f.txt 2>&1
  echo "$round $layout $name rc $? $(el) s"
}
O=broadcastmem; S=96K,128K,192K,256K,384K
for round in 1 2 3 4 5 6 7 8 9 10 11 12; do for layout in 2,2 1,2,1 1,1 1,1,1; do
  if [ $((round % 2)) = 1 ]; then
    one $round $layout new $O $S || break 2; one $round $layout ibcast $O $S ISHMEM_X_CHAIN_MAX=0 || break 2
  else
    one $round $layout ibcast $O $S ISHMEM_X_CHAIN_MAX=0 || break 2; one $round $layout new $O $S || break 2
  fi
done; done
echo "end $(el) s"
