#!/usr/bin/env bash
# run.sh: bench_gpu (ishmem), bench_gpu_nvshmem (NVSHMEM) and bench_gpu_nccl (NCCL: the stream
# collectives only) on two (--np N: N) GPUs of this machine, one after the other; merges ours with NVSHMEM's into
# one CSV (name,bytes,metric,ours,nvshmem,ratio; ratio = ours / nvshmem, so < 1 is better for ishmem
# in us rows and > 1 in GBps rows), ours with NCCL's into a second (FILE-nccl.csv, column nccl), and
# prints the summaries last.
#
#   bench/gpu/run.sh [BUILD_DIR] [--np N] [--out FILE] [--plot DIR] [--no-nvshmem] [bench options]
#
#   BUILD_DIR     ishmem's CMake build with the CUDA backend (default: build); bench_gpu and ishmrun
#                 are (re)built there first
#   --np N        processes, one per GPU (default 2); with more than 2 only the collectives run (the
#                 point-to-point measurements pair PE 0 with PE 1)
#   --out FILE    the merged CSV (default: bench/results/gpu/gpu-2gpu.csv, the reference set's file)
#   --plot DIR    also draw PNGs into DIR with plot_gpu.py (needs matplotlib)
#   --no-nvshmem  do not run NVSHMEM
#   --no-nccl     do not run NCCL
#   --no-build    use BUILD_DIR/bench/gpu/bench_gpu and BUILD_DIR/launcher/ishmrun as they are (e.g.
#                 built on another machine: then set LD_LIBRARY_PATH to their libishmem.so)
#   bench options go to both programs: --quick, --reps N, --iters N, --sizes LIST, --only LIST,
#                 --watchdog S (see bench_gpu --help)
#
# NVSHMEM comes from $NVSHMEM_HOME (default: the wheel in /opt/torch/.venv); the peer is compiled with
# $NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) for sm_$CUDA_ARCH (default 90). Without
# the wheel, only ishmem runs. NCCL comes from $NCCL_HOME (default: the wheel's nvidia/nccl next to
# NVSHMEM's). Exit status: 0 when every run passed its checks (whether or not the
# targets hold), 1 when a run failed (its output is kept and named), 2 on a usage error.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$top/build
out=$top/bench/results/gpu/gpu-2gpu.csv
plot_dir=
use_nvshmem=1
use_nccl=1
np=2
do_build=1
args=()

die() { echo "run.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

positional=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --np) [ $# -ge 2 ] || { usage >&2; exit 2; }
      case $2 in ''|*[!0-9]*|0|1) echo "run.sh: --np takes a number of 2 or more, not '$2'" >&2; exit 2 ;; esac
      np=$2; shift 2 ;;
    --plot) [ $# -ge 2 ] || { usage >&2; exit 2; }; plot_dir=$2; shift 2 ;;
    --no-nvshmem) use_nvshmem=0; shift ;;
    --no-nccl) use_nccl=0; shift ;;
    --no-build) do_build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --csv) echo "run.sh: the CSVs are run.sh's own; give --out FILE for the merged one" >&2; exit 2 ;;
    --reps|--iters|--sizes|--only|--watchdog)
      [ $# -ge 2 ] || { usage >&2; exit 2; }; args+=("$1" "$2"); shift 2 ;;
    -*) args+=("$1"); shift ;;
    *) [ $positional -eq 0 ] || { echo "run.sh: one build directory only ('$1')" >&2; exit 2; }
       build=$1; positional=1; shift ;;
  esac
done

[ -d "$build" ] || die "no build directory $build (configure one: cmake -S . -B build)"
build=$(cd "$build" && pwd)
case $out in /*) ;; *) out=$PWD/$out ;; esac
py=/usr/bin/python3
[ -x "$py" ] || py=python3

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_gpu.XXXXXX") || die "cannot make a temporary directory"
keep_work() { echo "run.sh: the runs' output is kept in $work" >&2; }

# ---- ours ----
[ $do_build -eq 1 ] && echo "run.sh: building bench_gpu and ishmrun in $build"
if [ $do_build -eq 1 ] && ! cmake --build "$build" -j "$(nproc)" --target bench_gpu ishmrun >"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  keep_work
  die "cannot build bench_gpu in $build (is it configured with the CUDA backend, ISHMEM_ENABLE_CUDA?)"
fi
ours=$build/bench/gpu/bench_gpu
ishmrun=$build/launcher/ishmrun

# ---- the NVSHMEM peer ----
nv=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
peer=$build/bench/gpu/bench_gpu_nvshmem
if [ $use_nvshmem -eq 1 ]; then
  if [ -f "$nv/include/nvshmem.h" ] && [ -f "$nv/lib/libnvshmem_device.a" ] &&
     [ -e "$nv/lib/libnvshmem_host.so.3" ]; then
    if [ ! -x "$peer" ] || [ "$here/bench_gpu_nvshmem.cu" -nt "$peer" ] ||
       [ "$here/bench_gpu_common.cuh" -nt "$peer" ]; then
      nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
      echo "run.sh: building $peer against $nv"
      mkdir -p "$(dirname "$peer")"
      # -rdc and the static device library: NVSHMEM's device state lives there. nvcc takes no
      # .so.3 as an input, so the host library goes to the linker by name.
      "$nvcc" -O2 -std=c++17 -rdc=true -arch="sm_${CUDA_ARCH:-90}" -I"$nv/include" \
        "$here/bench_gpu_nvshmem.cu" "$nv/lib/libnvshmem_device.a" \
        -L"$nv/lib" -Xlinker -l:libnvshmem_host.so.3 -Xlinker -rpath -Xlinker "$nv/lib" -o "$peer" ||
        { rm -rf "$work"; die "cannot build the NVSHMEM peer (run with --no-nvshmem to measure ishmem alone)"; }
    fi
  else
    echo "run.sh: no NVSHMEM wheel at $nv (set NVSHMEM_HOME); running ishmem only"
    use_nvshmem=0
  fi
fi

# ---- the NCCL peer (stream collectives) ----
nccl=${NCCL_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl}
nccl_peer=$build/bench/gpu/bench_gpu_nccl
if [ $use_nccl -eq 1 ]; then
  if [ -f "$nccl/include/nccl.h" ] && [ -e "$nccl/lib/libnccl.so.2" ]; then
    if [ ! -x "$nccl_peer" ] || [ "$here/bench_gpu_nccl.cu" -nt "$nccl_peer" ] ||
       [ "$here/bench_gpu_common.cuh" -nt "$nccl_peer" ] || [ "$here/bench_gpu_coll.cuh" -nt "$nccl_peer" ]; then
      nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
      echo "run.sh: building $nccl_peer against $nccl"
      mkdir -p "$(dirname "$nccl_peer")"
      "$nvcc" -O2 -std=c++17 -arch="sm_${CUDA_ARCH:-90}" -I"$nccl/include" "$here/bench_gpu_nccl.cu" \
        -L"$nccl/lib" -Xlinker -l:libnccl.so.2 -Xlinker -rpath -Xlinker "$nccl/lib" -o "$nccl_peer" ||
        { rm -rf "$work"; die "cannot build the NCCL peer (run with --no-nccl to leave it out)"; }
    fi
  else
    echo "run.sh: no NCCL at $nccl (set NCCL_HOME); no NCCL numbers"
    use_nccl=0
  fi
fi

# ---- run ours: one PE per GPU under ishmrun ----
echo "run.sh: ishmem: $ishmrun -n $np $ours ${args[*]}"
"$ishmrun" -n "$np" "$ours" --csv "$work/ours.csv" "${args[@]}" |
  tee "$work/ours.out"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  keep_work
  die "bench_gpu failed (exit status $rc; see ishmrun's message above: a PE's status 3 means its watchdog saw a hang)"
fi

# ---- run the peer: np processes, bootstrapped through a unique-id file ----
# Both start at once; when one fails, the other is stopped (it would wait for its peer forever, or
# until its own watchdog fires).
# run_peer BINARY NAME LIBDIR: ranks 0 to np - 1 of a peer; rank 0's CSV goes to $work/NAME.csv.
run_peer() {
  local bin=$1 name=$2 uid=$work/$2.uid pids=() rc=0 i pid alive st why
  rm -f "$uid" "$uid.tmp"
  export LD_LIBRARY_PATH="$3${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
  "$bin" --rank 0 --nranks "$np" --uid-file "$uid" --csv "$work/$name.csv" "${args[@]}" >"$work/$name.out" &
  pids+=($!)
  tail -n +1 -f --pid="${pids[0]}" "$work/$name.out" &  # rank 0's lines as they come
  for ((i = 1; i < np; ++i)); do
    "$bin" --rank "$i" --nranks "$np" --uid-file "$uid" "${args[@]}" &
    pids+=($!)
  done
  while :; do
    alive=0
    for ((i = 0; i < np; ++i)); do
      pid=${pids[$i]}
      [ -n "$pid" ] || continue
      if kill -0 "$pid" 2>/dev/null; then alive=1; continue; fi
      wait "$pid"; st=$?
      pids[i]=
      if [ $st -ne 0 ] && [ $rc -eq 0 ]; then
        rc=$st
        why=; [ $st -eq 3 ] && why=": its watchdog saw a hang"
        echo "run.sh: $name rank $i failed (exit status $st$why); stopping the others" >&2
        for pid in "${pids[@]}"; do [ -z "$pid" ] || kill "$pid" 2>/dev/null; done
      fi
    done
    [ $alive -eq 1 ] || break
    sleep 0.2
  done
  wait  # the tail
  return $rc
}

if [ $use_nvshmem -eq 1 ]; then
  echo "run.sh: NVSHMEM: $peer ${args[*]} (ranks 0 to $((np - 1)))"
  if ! (run_peer "$peer" nvshmem "$nv/lib"); then
    keep_work
    die "bench_gpu_nvshmem failed"
  fi
fi
if [ $use_nccl -eq 1 ]; then
  echo "run.sh: NCCL: $nccl_peer ${args[*]} (ranks 0 to $((np - 1)))"
  if ! (run_peer "$nccl_peer" nccl "$nccl/lib"); then
    keep_work
    die "bench_gpu_nccl failed"
  fi
fi

# ---- merge, plot, summary ----
notes=(--note "run $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), bench options: ${args[*]:-(none)}")
while IFS= read -r l; do notes+=(--note "ishmem run: ${l#\# }"); done < <(grep '^# ' "$work/ours.out")
peer_csv=()
if [ $use_nvshmem -eq 1 ]; then
  peer_csv=("$work/nvshmem.csv")
  while IFS= read -r l; do notes+=(--note "NVSHMEM run: ${l#\# }"); done < <(grep '^# ' "$work/nvshmem.out")
fi
mkdir -p "$(dirname "$out")"
"$py" "$here/merge_gpu.py" "$work/ours.csv" "${peer_csv[@]}" --out "$out" "${notes[@]}" >"$work/summary.txt" ||
  { keep_work; die "merging the CSVs failed"; }
if [ $use_nccl -eq 1 ]; then
  "$py" "$here/merge_gpu.py" "$work/ours.csv" "$work/nccl.csv" --peer-name nccl --out "${out%.csv}-nccl.csv" \
    "${notes[@]}" >>"$work/summary.txt" || { keep_work; die "merging the NCCL CSV failed"; }
fi
if [ -n "$plot_dir" ]; then
  if "$py" -c 'import matplotlib' 2>/dev/null; then
    "$py" "$here/plot_gpu.py" "$out" --out "$plot_dir" || echo "run.sh: plotting failed" >&2
  else
    echo "run.sh: no matplotlib for $py: no plots (python3 bench/gpu/plot_gpu.py $out --out $plot_dir elsewhere)" >&2
  fi
fi
echo
cat "$work/summary.txt"
rm -rf "$work"
