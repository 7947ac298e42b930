#!/bin/bash
# Stop 40: full cross-node bench_coll runs, the MPI peer with ishmem's progress thread held (held,
# the new default) and running beside it (beside: --mpi-beside-thread, as before), interleaved.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-500}
R=build-host/${RDIR:-r40c}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r40c.tgz -C build-host ${RDIR:-r40c}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
for round in 1 2 3 4; do
  for layout in 1,1 2,2 1,2,1; do
    vs="held beside"; [ $(( round % 2 )) = 0 ] && vs="beside held"
    for v in $vs; do
      [ $(left) -gt 28 ] || { echo "out of time at $round $layout $v"; break 3; }
      f=$R/coll-$round-${layout//,/-}-$v; extra=(); [ $v = beside ] && extra=(--mpi-beside-thread)
      timeout 100 tests/multinode/netns_mpirun.sh --layout $layout --timeout 95 -- build-host/bench/bench_coll \
        --batches 15 --sizes ${SIZES:-8,64,1K,8K,32K,64K,128K,256K,1M,4M} "${extra[@]}" --csv $f.csv > $f.txt 2>&1
      echo "$round $layout $v rc $? $(el) s: $(grep -m1 '^# target' $f.txt | cut -c60-150)"
    done
  done
done
echo "end $(el) s"
