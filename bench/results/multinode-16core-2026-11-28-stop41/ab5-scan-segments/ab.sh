#!/bin/bash
# Stop 41 call c: scans down the chain in segments (seg, as it would land) against the chain of
# whole arrays (whole: ISHMEM_X_SCAN_SEG=0, temporary), interleaved, on 1-1, 1-1-1, 1-2-1, 2-2.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-450}
R=build-host/${RDIR:-r41c}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r41c}.tgz -C build-host ${RDIR:-r41c}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
for round in 1 2 3 4 5 6 7 8; do
  for layout in 1,2,1 2,2 1,1,1 1,1; do
    vs="seg whole"; [ $(( round % 2 )) = 0 ] && vs="whole seg"
    for v in $vs; do
      [ $(left) -gt 15 ] || { echo "out of time at $round $layout $v"; break 3; }
      e=(X=1); [ $v = whole ] && e=(ISHMEM_X_SCAN_SEG=0)
      f=$R/coll-$round-${layout//,/-}-$v
      env "${e[@]}" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
        --batches 15 --ops int64_sum_inscan,int64_sum_exscan --sizes 64K,128K,256K,1M,4M --csv $f.csv > $f.txt 2>&1
      echo "$round $layout $v rc $? $(el) s"
    done
  done
done
echo "end $(el) s"
