#!/bin/sh
# The OSU OpenSHMEM programs against Sandia OpenSHMEM (SOS) on one machine, with no network access:
# builds SOS from a source tarball whose configure script is already generated (no autotools
# needed) over UCX or libfabric into a temporary prefix, then runs bench/osu/run.sh with both
# libraries on 2 PEs and, where the machine has the cores, 4 and 8, and prints one CSV:
#
#   pes,benchmark,point,ours,sos,ratio
#
# (microseconds; messages per second for put_mr; ratio below 1: this library is faster).
#
#   bench/osu/compare.sh SOS_TARBALL OSU OUR_PREFIX
#
#   SOS_TARBALL  SOS's source tree after autogen.sh, as .tar.gz (its tests-sos submodule included);
#                "-" with SOS_PREFIX set to an installed SOS
#   OSU          the OSU micro-benchmarks: a directory holding openshmem/, or a .tar.gz of one
#   OUR_PREFIX   where `cmake --install build --prefix OUR_PREFIX` put ishmem
# Environment:
#   SOS_TRANSPORT  ucx or ofi (default: ucx where UCX's headers are found, else ofi: of Debian 12's
#                  libfabric providers only sockets starts SOS on one host, and it is slow)
#   SOS_CONFIGURE  more arguments for SOS's configure (default none)
#   SOS_ENV        environment of the SOS runs (default FI_PROVIDER=sockets over ofi: libfabric's
#                  shm and tcp providers have aborted in SOS's start-up on one host)
#   SOS_PREFIX     an SOS already installed (its bin/oshcc): skips the build and the header check
#   PES            the PE counts (default: 2 4 8, those above the core count left out)
#   WORK           keeps the build, binaries and raw outputs (default a temporary directory)
#   TIMEOUT        per run, seconds (default 600); JOBS for make (default the core count)
# Needs: a C compiler, make, Open MPI (mpicc and mpirun start SOS through its MPI-based PMI), and
# libfabric or UCX with development headers (not with SOS_PREFIX).
set -eu

[ $# -eq 3 ] || { sed -n '2,28p' "$0"; exit 2; }
sos_tarball=$1 osu=$2 ours=$3
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cores=$(nproc)
jobs=${JOBS:-$cores}
log() { echo "compare.sh: $*" >&2; }

[ -x "$ours/bin/oshcc" ] || { log "no $ours/bin/oshcc (install ishmem there first)"; exit 2; }
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then log "mpicc and mpirun are needed"; exit 2; fi

# The OSU source: a directory, or a tarball unpacked under $work.
if [ -f "$osu" ]; then
    mkdir -p "$work/osu"
    tar xzf "$osu" -C "$work/osu"
    osu=$(dirname "$(find "$work/osu" -path '*/openshmem/osu_oshm_put.c' | head -n 1)")/..
fi
[ -f "$osu/openshmem/osu_oshm_put.c" ] || { log "no openshmem/osu_oshm_put.c under $osu"; exit 2; }

# SOS, built once into $work/sos (or installed at SOS_PREFIX: then only its transport's name matters,
# for the default SOS_ENV, and it need not have headers here).
sos=${SOS_PREFIX:-$work/sos}
transport=${SOS_TRANSPORT:-}
if [ -z "$transport" ] && [ -x "$sos/bin/oshcc" ]; then
    transport=ucx
    ldd "$sos"/lib/libsma.so* 2>/dev/null | grep -q libfabric && transport=ofi
fi
if [ -z "$transport" ]; then
    if [ -f /usr/include/ucp/api/ucp.h ] || pkg-config --exists ucx 2>/dev/null; then
        transport=ucx
    elif [ -f /usr/include/rdma/fabric.h ] || pkg-config --exists libfabric 2>/dev/null; then
        transport=ofi
    else
        log "neither libfabric nor UCX headers found (Debian: apt-get install libfabric-dev or libucx-dev)"
        exit 2
    fi
fi
if [ ! -x "$sos/bin/oshcc" ]; then
    [ -f "$sos_tarball" ] || { log "no SOS at $sos and no SOS tarball ($sos_tarball)"; exit 2; }
    mkdir -p "$work/sos-build"
    tar xzf "$sos_tarball" -C "$work/sos-build"
    src=$(dirname "$(find "$work/sos-build" -maxdepth 2 -name configure | head -n 1)")
    log "building SOS over $transport in $src (log: $work/sos-build.log)"
    # shellcheck disable=SC2086
    (cd "$src" && ./configure --prefix="$sos" --with-$transport --enable-pmi-mpi CC=mpicc \
        --disable-fortran ${SOS_CONFIGURE:-} && make -j"$jobs" && make install) >"$work/sos-build.log" 2>&1 || {
        log "the SOS build failed; the end of its log:"
        tail -n 30 "$work/sos-build.log" >&2
        exit 1
    }
fi
if [ "$transport" = ofi ]; then sos_env=${SOS_ENV:-FI_PROVIDER=sockets}; else sos_env=${SOS_ENV:-}; fi

# mpirun as root needs its consent; more PEs than cores need --oversubscribe.
mpirun_args="--oversubscribe"
[ "$(id -u)" != 0 ] || mpirun_args="$mpirun_args --allow-run-as-root"

echo "pes,benchmark,point,ours,sos,ratio"
for np in ${PES:-2 4 8}; do
    if [ "$np" -gt "$cores" ]; then log "$np PEs: skipped ($cores cores)"; continue; fi
    # get and put measure one pair: the OSU programs run them on 2 PEs only.
    if [ "$np" -eq 2 ]; then programs="get put put_mr atomics barrier broadcast collect fcollect reduce"
    else programs="put_mr atomics barrier broadcast collect fcollect reduce"; fi
    WORK=$work/np$np NP=$np PROGRAMS=$programs \
        PEER_RUN="env $sos_env mpirun $mpirun_args -np $np" \
        sh "$here/run.sh" "$osu" "$ours" "$sos" | awk -v np="$np" 'NR > 1 { print np "," $0 }'
done
log "outputs in $work"
