#!/bin/bash
# Stop 35, A/B in one job on a 16-core machine (netns over TCP): old = fea028c (core + runtime/mpi
# from .deps/old), new = the working tree.
# One build, then libishmem + libishmem_mpi per variant, swapped in between runs. Resumable.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-570}
ROUNDS=${ROUNDS:-"1 2 3"}
VARIANTS=${VARIANTS:-"old new"}
R=build-host/r35b; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r35b.tgz --exclude=lib --exclude=src-new --exclude="*.keep" -C build-host r35b; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores" | tee -a $R/calls.log
. bench/multinode/ip_from_debs.sh  # `ip` where iproute2 is missing
core=build-host/runtime/libishmem.so.1.5.1
mpil=build-host/runtime/mpi/libishmem_mpi.so.1.5.1
save() { mkdir -p $R/lib/$1; cp $core $mpil $R/lib/$1/; }
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  save new; echo "new built $(el) s"
  mkdir -p $R/src-new; (cd .deps/old && find . -type f) | while read f; do mkdir -p $R/src-new/$(dirname $f); cp $f $R/src-new/$f; cp .deps/old/$f $f; done
  cmake --build build-host -j$(nproc) --target ishmem ishmem_mpi >> $R/build.log 2>&1 && save old || echo "old build failed"
  (cd $R/src-new && find . -type f) | while read f; do cp $R/src-new/$f $f; done
  echo "old built $(el) s"
  ls -la $R/lib/*; touch $R/built; echo "built $(el) s"
fi
for round in $ROUNDS; do
  for layout in 1,1 2,2 1,2,1; do
    for v in $VARIANTS; do
      [ $(left) -gt 30 ] || { echo "out of time at $round $layout $v"; break 3; }
      f=$R/coll-$round-${layout//,/-}-$v
      [ -f $f.txt ] && continue
      cp $R/lib/$v/libishmem_mpi.so.1.5.1 $mpil; cp $R/lib/$v/libishmem.so.1.5.1 $core
      timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
        --batches 15 --sizes 8,64,1K,8K,64K,256K,1M --csv $f.csv > $f.txt 2>&1
      echo "$round $layout $v rc $? $(el) s: $(grep -m1 '^# target' $f.txt | cut -c60-150)"
    done
  done
done
cp $R/lib/new/libishmem_mpi.so.1.5.1 $mpil; cp $R/lib/new/libishmem.so.1.5.1 $core
echo "end $(el) s"
