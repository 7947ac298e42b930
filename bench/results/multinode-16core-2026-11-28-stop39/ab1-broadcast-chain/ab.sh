#!/bin/bash
# Stop 39 A/B: large broadcasts across nodes, MPI_Ibcast (base) against broadcast_chain with
# segments of 32 KiB, 60 KiB, 256 KiB (ISHMEM_X_BCHAIN_N=2: from 2 members on).
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-540}
R=build-host/${RDIR:-r39a}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r39a.tgz -C build-host ${RDIR:-r39a}; }
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
  [ $(left) -gt 25 ] || { echo "out of time at $round $layout $name"; return 1; }
  local f=$R/coll-$round-${layout//,/-}-$name
  [ -f $f.txt ] && return 0
  env "$@" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
    --batches ${BATCHES:-15} --sizes $sizes --ops $ops --csv $f.csv > $f.txt 2>&1
  echo "$round $layout $name rc $? $(el) s"
}
O=broadcastmem; S=${SIZES:-128K,256K,512K,1M,2M,4M}
for round in 1 2 3 4 5 6; do for layout in 1,2,1 1,1,1 1,1; do
  one $round $layout base $O $S || break 2
  one $round $layout s32 $O $S ISHMEM_X_BCHAIN_N=2 ISHMEM_X_BSEG=32768 || break 2
  one $round $layout s60 $O $S ISHMEM_X_BCHAIN_N=2 ISHMEM_X_BSEG=61440 || break 2
  one $round $layout s256 $O $S ISHMEM_X_BCHAIN_N=2 ISHMEM_X_BSEG=262144 || break 2
done; done
echo "end $(el) s"
