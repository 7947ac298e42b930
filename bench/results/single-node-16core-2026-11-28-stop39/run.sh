#!/bin/bash
# Stop 39: full bench_coll runs on one node with the final defaults of stop 38 (and this stop's
# code), 8, 4 and 2 PEs, as the issue's target asks.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-340}
R=build-host/${RDIR:-r39d}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r39d}.tgz -C build-host ${RDIR:-r39d}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
cfg="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF"
(cmake -S . -B build-host $cfg > $R/cfg.log 2>&1 && cmake --build build-host -j16 --target bench_coll > $R/build.log 2>&1) || { echo "build failed"; tail -5 $R/build.log; exit 0; }
echo "built $(el) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 8 4 2; do
  [ $(left) -gt 45 ] || { echo "out of time at np $np"; break; }
  f=$R/full-np$np
  timeout 100 mpirun --bind-to core --map-by core -n $np build-host/bench/bench_coll --batches 11 --csv $f.csv > $f.txt 2>&1
  echo "$f rc $? $(el) s: $(grep -m1 '^# target' $f.txt | cut -c1-150)"
done
echo "end $(el) s"
