#!/bin/bash
# Stop 39: old = cc581af (stop 37) runtime files from .deps/old, new = the working tree.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-570}
ROUNDS=${ROUNDS:-"1 2 3 4"}
VARIANTS=${VARIANTS:-"old new"}
LAYOUTS=${LAYOUTS:-"1,1 2,2 1,2,1"}
R=build-host/${RDIR:-r39b}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r39b.tgz --exclude=lib --exclude=src-new -C build-host ${RDIR:-r39b}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh  # `ip` where iproute2 is missing
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
  for layout in $LAYOUTS; do
    for v in $VARIANTS; do
      [ $v = flat ] && [ $layout = 1,1 ] && continue
      [ $(left) -gt 30 ] || { echo "out of time at $round $layout $v"; break 3; }
      f=$R/coll-$round-${layout//,/-}-$v
      [ -f $f.txt ] && continue
      lib=$v; [ $v = flat ] && lib=new
      cp $R/lib/$lib/libishmem_mpi.so.1.5.1 $mpil; cp $R/lib/$lib/libishmem.so.1.5.1 $core
      extra=(); envs=()
      [ $v = flat ] && extra=(--ops broadcastmem,collectmem,fcollectmem,int64_sum_reduce) && envs=(env ISHMEM_HIERARCHICAL=0)
      "${envs[@]}" timeout 100 tests/multinode/netns_mpirun.sh --layout $layout --timeout 95 -- build-host/bench/bench_coll \
        --batches 15 --sizes ${SIZES:-8,64,1K,8K,32K,64K,128K,256K,1M,4M} "${extra[@]}" --csv $f.csv > $f.txt 2>&1
      echo "$round $layout $v rc $? $(el) s: $(grep -m1 '^# target' $f.txt | cut -c60-150)"
    done
  done
done
cp $R/lib/new/libishmem_mpi.so.1.5.1 $mpil; cp $R/lib/new/libishmem.so.1.5.1 $core
echo "end $(el) s"
