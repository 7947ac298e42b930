#!/bin/bash
# Stop 40 A/B: why cross-node scans of 32 KiB (and other mid-size one-way collectives) trail MPI.
# Variants (temporary knobs in the working tree): base; tight (wait_all polls MPI_Testall with no
# pause and no serving); spare (a scan receives into scratch, not dest); nozero (member 0 of an
# exscan leaves dest alone: answers wrong, time only); nothread (no progress thread); bindnone
# (mpirun --bind-to none); onheap (the MPI peer's buffers from ishmem_malloc).
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-540}
R=build-host/${RDIR:-r40a}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/r40a.tgz -C build-host ${RDIR:-r40a}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
one() {  # one <round> <layout> <variant> [env...]
  local round=$1 layout=$2 name=$3; shift 3
  [ $(left) -gt 20 ] || { echo "out of time at $round $layout $name"; return 1; }
  local f=$R/coll-$round-${layout//,/-}-$name extra=()
  [ -f $f.txt ] && return 0
  [ $name = onheap ] && extra=(--mpi-on-heap)
  env "$@" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
    --batches ${BATCHES:-15} --sizes ${SIZES:-8,8K,32K,128K} --ops ${OPS:-int64_sum_exscan,int64_sum_inscan,broadcastmem,collectmem} \
    "${extra[@]}" --csv $f.csv > $f.txt 2>&1
  echo "$round $layout $name rc $? $(el) s"
}
V=(base tight spare nozero nothread bindnone onheap)
envof() { case $1 in tight) echo ISHMEM_X_TIGHT=1;; spare) echo ISHMEM_X_SPARE=1;; nozero) echo ISHMEM_X_NOZERO=1;;
  nothread) echo ISHMEM_X_NO_THREAD=1;; bindnone) echo OMPI_MCA_hwloc_base_binding_policy=none;; *) echo X=1;; esac; }
for round in 1 2 3 4 5 6; do for layout in 1,1 1,2,1; do
  for i in 0 1 2 3 4 5 6; do v=${V[$(( (i + round) % 7 ))]}; one $round $layout $v $(envof $v) || break 3; done
done; done
echo "end $(el) s"
