#!/bin/bash
# Stop 41 call a: large cross-node broadcasts (base: two levels, MPI_Ibcast among the leaders; flat60 /
# flat256: a chain over all members in segments of 60 / 256 KiB; hier60: a chain among the leaders),
# and bench_p2p / bench_rma with the MPI peer held vs beside ishmem's progress thread.
cd "$(dirname "$0")/.." || exit 1
LIMIT=${LIMIT:-540}
R=build-host/${RDIR:-r41a}; mkdir -p $R
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }; left() { echo $(( LIMIT - $(el) )); }
fin() { tar czf $OUT/${RDIR:-r41a}.tgz -C build-host ${RDIR:-r41a}; }
trap fin EXIT
echo "call at $(date -u +%T): $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo)" | tee -a $R/calls.log
command -v ip >/dev/null || . bench/multinode/ip_from_debs.sh
if [ ! -f $R/built ]; then
  cmake -S . -B build-host -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISHMEM_ENABLE_CUDA=OFF -DISHMEM_BUILD_BENCH=ON \
    -DISHMEM_BUILD_DOCS=OFF -DISHMEM_BUILD_TESTS=OFF > $R/cfg.log 2>&1 &&
  cmake --build build-host -j$(nproc) --target bench_coll bench_rma bench_p2p ishmrun ishmem_mpi > $R/build.log 2>&1 || { echo "build failed"; tail -20 $R/build.log; exit 0; }
  touch $R/built; echo "built $(el) s"
fi
run() {  # name layout timeout cmd...
  local f=$1 l=$2 t=$3; shift 3
  timeout $((t+5)) tests/multinode/netns_mpirun.sh --layout $l --timeout $t -- "$@" > $f.txt 2>&1
  echo "$(basename $f) rc $? $(el) s"
}
for v in held beside; do
  extra=(); [ $v = beside ] && extra=(--mpi-beside-thread)
  run $R/p2p-1-1-$v 1,1 60 build-host/bench/bench_p2p --batches 15 "${extra[@]}" --csv $R/p2p-1-1-$v.csv
  run $R/rma-1-1-$v 1,1 90 build-host/bench/bench_rma --batches 15 --latency-only "${extra[@]}" --csv $R/rma-1-1-$v.csv
done
VS=(base flat60 flat256 hier60)
for round in 1 2 3 4 5 6 7 8; do
  for layout in 1,2,1 2,2; do
    n=${#VS[@]}; for ((i=0;i<n;i++)); do
      v=${VS[$(( (i+round) % n ))]}
      [ $(left) -gt 20 ] || { echo "out of time at $round $layout $v"; break 3; }
      env=(); case $v in flat60) env=(ISHMEM_X_BCAST_BIG_FLAT=1 ISHMEM_X_BCAST_BIG_SEG_K=60);; flat256) env=(ISHMEM_X_BCAST_BIG_FLAT=1 ISHMEM_X_BCAST_BIG_SEG_K=256);; hier60) env=(ISHMEM_X_BCAST_BIG_SEG_K=60);; esac
      f=$R/coll-$round-${layout//,/-}-$v
      env "${env[@]}" timeout 60 tests/multinode/netns_mpirun.sh --layout $layout --timeout 55 -- build-host/bench/bench_coll \
        --batches 15 --ops broadcastmem --sizes 512K,1M,4M --csv $f.csv > $f.txt 2>&1
      echo "$round $layout $v rc $? $(el) s"
    done
  done
done
echo "end $(el) s"
