#!/bin/sh
# Builds the OpenSHMEM programs of the OSU micro-benchmarks, unchanged, with this library's oshcc,
# runs each on NP PEs (default 2) with oshrun, and (given a second OpenSHMEM installation) does the
# same with that one; prints one CSV line per benchmark point:
#
#   benchmark,point,ours,peer,ratio
#
# ours and peer are microseconds (put_mr: messages per second), ratio is ours/peer for times and
# peer/ours for put_mr, so that below 1 means this library is faster. The OSU source is not part
# of this repository: pass the directory that holds openshmem/osu_oshm_*.c (an OSU release, or a
# mirror such as forresti/osu-micro-benchmarks).
#
#   bench/osu/run.sh OSU_DIR OUR_PREFIX [PEER_PREFIX]
#
#   OUR_PREFIX   where `cmake --install build --prefix OUR_PREFIX` put ishmem (bin/oshcc, bin/oshrun)
#   PEER_PREFIX  another OpenSHMEM with bin/oshcc and bin/oshrun (e.g. Sandia OpenSHMEM)
# Environment: NP, the PEs of each run (2); PROGRAMS, a subset of the nine names (get and put
# need exactly 2 PEs); PEER_RUN overrides the peer's launch command (default
# "PEER_PREFIX/bin/oshrun -n NP"); WORK (default a temporary directory) keeps the binaries and raw
# outputs; TIMEOUT per run (600 s).
set -eu

[ $# -ge 2 ] || { sed -n '2,20p' "$0"; exit 2; }
osu=$1/openshmem
ours=$2
peer=${3:-}
[ -f "$osu/osu_oshm_put.c" ] || { echo "run.sh: no $osu/osu_oshm_put.c" >&2; exit 2; }
work=${WORK:-$(mktemp -d)}
timeout=${TIMEOUT:-600}
np=${NP:-2}
programs=${PROGRAMS:-get put put_mr atomics barrier broadcast collect fcollect reduce}
count=$(echo "$programs" | wc -w)
# The point-to-point programs take the buffer kind as their argument.
args_of() { case $1 in get|put|put_mr|atomics) echo heap ;; *) echo "" ;; esac; }

# build_and_run NAME OSHCC LAUNCH: binaries and outputs under $work/NAME; counts on stderr.
build_and_run() {
    name=$1 cc=$2 launch=$3 built=0 ran=0
    mkdir -p "$work/$name"
    for p in $programs; do
        exe=$work/$name/osu_oshm_$p
        if "$cc" -O2 -w -I"$osu" "$osu/osu_oshm_$p.c" "$osu/osu_common.c" -o "$exe" >"$exe.build.log" 2>&1; then
            built=$((built + 1))
            # shellcheck disable=SC2046
            if timeout "$timeout" $launch "$exe" $(args_of "$p") >"$exe.out" 2>"$exe.err"; then
                ran=$((ran + 1))
            else
                echo "run.sh: $name: osu_oshm_$p failed (see $exe.err)" >&2
            fi
        else
            echo "run.sh: $name: osu_oshm_$p does not build (see $exe.build.log)" >&2
        fi
    done
    echo "run.sh: $name: $built of $count built, $ran of $count ran on $np PEs" >&2
}

# points NAME PROGRAM: "point value" lines of one output (atomics: operation and latency; barrier:
# the one average).
points() {
    f=$work/$1/osu_oshm_$2.out
    [ -f "$f" ] || return 0
    case $2 in
        atomics) awk '/^shmem_/ && NF >= 3 { print $1, $NF }' "$f" ;;
        barrier) awk '/^[ \t]*[0-9.]+[ \t]*$/ { print "all", $1 }' "$f" ;;
        *) awk '/^[0-9]+[ \t]+[0-9.]+/ { print $1, $2 }' "$f" ;;
    esac
}

build_and_run ours "$ours/bin/oshcc" "$ours/bin/oshrun -n $np"
if [ -n "$peer" ]; then
    build_and_run peer "$peer/bin/oshcc" "${PEER_RUN:-$peer/bin/oshrun -n $np}"
fi

echo "benchmark,point,ours,peer,ratio"
for p in $programs; do
    points ours "$p" >"$work/ours.$p.pts"
    if [ -n "$peer" ]; then points peer "$p" >"$work/peer.$p.pts"; else : >"$work/peer.$p.pts"; fi
    awk -v b="$p" 'FILENAME == ARGV[1] { peer[$1] = $2; next }
        { v = peer[$1]; r = "";
          if (v != "" && v + 0 > 0 && $2 + 0 > 0) r = sprintf("%.2f", b == "put_mr" ? v / $2 : $2 / v);
          print b "," $1 "," $2 "," v "," r }' "$work/peer.$p.pts" "$work/ours.$p.pts"
done
echo "run.sh: outputs in $work" >&2
