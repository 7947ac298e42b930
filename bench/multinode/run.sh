#!/usr/bin/env bash
# Cross-node benchmarks: bench_rma, bench_p2p and bench_coll with their PEs on several nodes, ishmem
# (through its MPI transport) next to the same operations written in MPI, in the same jobs.
#
#   bench/multinode/run.sh [BUILD_DIR] [--quick] [--sets netns,split,blocks] [--only rma,p2p,coll]
#                          [--with-nb] [--blocks NP:K] [--out DIR] [--timeout SEC] [--no-plots]
#                          [-- BENCH_ARGS...]
#
# BUILD_DIR (default build) must hold bench/bench_rma, bench_p2p and bench_coll: nothing is built.
# Two data sets:
#   netns  every node a network namespace with its own host name and boot id
#          (tests/multinode/netns_mpirun.sh; needs root): MPI and UCX reach the other nodes over TCP
#          on veth links. bench_rma (twice: PE 1 waiting in MPI_Barrier, then in an ishmem wait
#          loop) and bench_p2p on 2 nodes x 1 PE, the MPI peer's window from MPI_Win_create as the
#          transport's (--mpi-win create); bench_coll on 2 x 1, 2 x 2 and 3 nodes of 1, 2, 1.
#   split  one machine, no namespaces, ISHMEM_NODE_SPLIT=pe (every PE a node of its own, reached
#          through the transport; MPI and UCX then use shared memory): the same bench_rma and
#          bench_p2p runs on 2 PEs, with the MPI peer's window from MPI_Win_create like the
#          transport's (--mpi-win create: MPI_Win_allocate would get a shared-memory window there),
#          bench_coll on 2 and 4 PEs (2 x 2 and 1,2,1 are both 4 nodes of one PE here).
#   blocks one machine, ISHMEM_NODE_SPLIT=K: nodes of K consecutive PEs (default 8 PEs, 4 a node:
#          --blocks 8:4). bench_coll twice, with the two-level collectives (ISHMEM_HIERARCHICAL=1)
#          and without (0), and the ratio of ishmem's times (compare_levels.py). Only with
#          --sets blocks (not a default set: it needs NP cores to mean anything).
# The netns set's bench_coll on 2 x 2 runs again with ISHMEM_HIERARCHICAL=0 (…-coll-2x2-flat), and
# compare_levels.py prints the two-level form's time over the one-level form's.
# Every run uses osc/ucx (the one-sided component of ishmem's transport, and of the MPI peer); the
# one-machine sets (split, blocks) make UCX use TCP: over its shared-memory transports (Open MPI
# 4.1.4, UCX 1.13) a flush returned before large puts had landed (tests/multinode/CMakeLists.txt).
# --with-nb: bench_coll also runs again with --mpi-nb (MPI's non-blocking collectives + MPI_Wait as
# the peer: the form the transport calls), into ...-coll-<layout>-nb.csv. BENCH_ARGS (after --) go
# to every benchmark (e.g. -- --batches 11).
# Writes DIR/multinode-<set>-<bench>[-<layout>].csv (the CSV) and .txt (the whole output with the
# summary), then the plots into DIR/plots/<set>/ (bench/plot_rma.py, bench/plot_coll.py; they
# need matplotlib: apt-get install -y python3-matplotlib). DIR defaults to bench/results/multinode,
# the folder of the reference set (bench/multinode/reference.sh regenerates the whole set).
# Exit status: 0 when every run exited 0; else 1 (a failed run is reported and the others go on).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=build sets=netns,split only=rma,p2p,coll out=$root/bench/results/multinode timeout=1800 plots=1 nb=0 blocks=8:4
extra=()
while [ $# -gt 0 ]; do
    case $1 in
        --quick) extra+=(--quick); shift ;;
        --sets) sets=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --no-plots) plots=0; shift ;;
        --with-nb) nb=1; shift ;;
        --blocks) blocks=$2; shift 2 ;;
        --) shift; extra+=("$@"); break ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) build=$1; shift ;;
    esac
done
case $build in /*) ;; *) build=$root/$build ;; esac
bin=$build/bench
for b in bench_rma bench_p2p bench_coll; do
    [ -x "$bin/$b" ] || { echo "run.sh: $bin/$b not found: build it first (cmake --build $build --target bench_rma bench_p2p bench_coll)" >&2; exit 2; }
done
mkdir -p "$out" || exit 2
has() { [[ ,$1, == *,$2,* ]]; }

failed=()
# run NAME LAUNCHER... -- PROGRAM ARGS: runs it, output to $out/multinode-NAME.txt, CSV to .csv.
run() {
    local name=$1; shift
    local txt=$out/multinode-$name.txt csv=$out/multinode-$name.csv
    echo "== $name: $*" >&2
    local t0=$SECONDS
    "$@" --csv "$csv" "${extra[@]}" >"$txt" 2>&1
    local rc=$?
    echo "   exit $rc after $((SECONDS - t0)) s; $(grep -m1 '^# target' "$txt" | cut -c1-150)" >&2
    if [ $rc != 0 ]; then
        failed+=("$name (exit $rc)")
        tail -5 "$txt" >&2
    fi
}

netns() {  # netns LAYOUT PROGRAM ARGS
    local layout=$1; shift
    "$root/tests/multinode/netns_mpirun.sh" --layout "$layout" --timeout "$timeout" -- "$@"
}

flat() {  # flat LAUNCHER...: the same run with one-level collectives over several nodes
    ISHMEM_HIERARCHICAL=0 "$@"
}

levels() {  # levels NAME: two-level over one-level times of bench_coll, from NAME.csv and NAME-flat.csv
    /usr/bin/python3 "$here/compare_levels.py" "$out/multinode-$1.csv" "$out/multinode-$1-flat.csv" \
        >"$out/multinode-$1-levels.txt" 2>&1 || failed+=("compare_levels $1")
}

# Open MPI 4.1.6's osc/ucx declines a UCX that has no RDMA transport (TCP only) unless told "any".
ucx_any="--mca opal_common_ucx_tls any --mca opal_common_ucx_devices any"

blocks_of() {  # blocks_of NP K PROGRAM ARGS
    local np=$1 k=$2; shift 2
    local asroot=()
    [ "$(id -u)" = 0 ] && asroot=(--allow-run-as-root)
    timeout -k 10 "$timeout" mpirun "${asroot[@]}" --oversubscribe --bind-to none -np "$np" \
        -x ISHMEM_NODE_SPLIT="$k" -x ISHMEM_HIERARCHICAL="${ISHMEM_HIERARCHICAL:-1}" -x UCX_TLS=tcp,self \
        --mca osc ucx $ucx_any "$@"
}

split() {  # split NP PROGRAM ARGS
    local np=$1; shift
    local asroot=()
    [ "$(id -u)" = 0 ] && asroot=(--allow-run-as-root)
    timeout -k 10 "$timeout" mpirun "${asroot[@]}" --oversubscribe --bind-to none -np "$np" \
        -x ISHMEM_NODE_SPLIT=pe -x UCX_TLS=tcp,self --mca osc ucx $ucx_any "$@"
}

if has "$sets" netns; then
    if [ "$(id -u)" != 0 ]; then
        echo "run.sh: the netns data set needs root (network namespaces); skipped" >&2
    else
        # The MPI peer's window from MPI_Win_create, like the transport's: between namespaces
        # Open MPI 4.1.6's osc/ucx failed MPI_Win_allocate (MPI_ERR_WIN, on the GPU machines), and
        # over TCP the two kinds measured alike on Open MPI 4.1.4 (bench/README.md, Across nodes).
        if has "$only" rma; then
            run netns-rma netns 1,1 "$bin/bench_rma" --mpi-win create
            run netns-rma-target-ishmem netns 1,1 "$bin/bench_rma" --mpi-win create --target-wait ishmem
        fi
        has "$only" p2p && run netns-p2p netns 1,1 "$bin/bench_p2p" --mpi-win create
        if has "$only" coll; then
            run netns-coll-2x1 netns 1,1 "$bin/bench_coll"
            run netns-coll-2x2 netns 2,2 "$bin/bench_coll"
            run netns-coll-2x2-flat flat netns 2,2 "$bin/bench_coll"
            levels netns-coll-2x2
            run netns-coll-1-2-1 netns 1,2,1 "$bin/bench_coll"
            if [ $nb = 1 ]; then
                run netns-coll-2x1-nb netns 1,1 "$bin/bench_coll" --mpi-nb
                run netns-coll-2x2-nb netns 2,2 "$bin/bench_coll" --mpi-nb
                run netns-coll-1-2-1-nb netns 1,2,1 "$bin/bench_coll" --mpi-nb
            fi
        fi
    fi
fi

if has "$sets" split; then
    # The MPI peer's window from MPI_Win_create, like the transport's: on one host MPI_Win_allocate
    # would give it shared memory (osc/ucx maps it), which windows over existing memory do not get.
    if has "$only" rma; then
        run split-rma split 2 "$bin/bench_rma" --mpi-win create
        run split-rma-target-ishmem split 2 "$bin/bench_rma" --mpi-win create --target-wait ishmem
    fi
    has "$only" p2p && run split-p2p split 2 "$bin/bench_p2p" --mpi-win create
    if has "$only" coll; then
        run split-coll-2 split 2 "$bin/bench_coll"
        run split-coll-4 split 4 "$bin/bench_coll"
        if [ $nb = 1 ]; then
            run split-coll-2-nb split 2 "$bin/bench_coll" --mpi-nb
            run split-coll-4-nb split 4 "$bin/bench_coll" --mpi-nb
        fi
    fi
fi

if has "$sets" blocks && has "$only" coll; then
    np=${blocks%%:*} k=${blocks##*:}
    run "blocks-coll-$np-$k" blocks_of "$np" "$k" "$bin/bench_coll"
    run "blocks-coll-$np-$k-flat" flat blocks_of "$np" "$k" "$bin/bench_coll"
    levels "blocks-coll-$np-$k"
fi

if [ $plots = 1 ]; then
    py=/usr/bin/python3
    if ! $py -c 'import matplotlib' 2>/dev/null; then
        echo "run.sh: no matplotlib for $py (apt-get install -y python3-matplotlib): no plots" >&2
    else
        for set in netns split; do
            has "$sets" "$set" || continue
            dir=$out/plots/$set
            rma=() rma_labels=() coll=() labels=()
            for f in "$out/multinode-$set-rma.csv" "$out/multinode-$set-rma-target-ishmem.csv"; do
                [ -s "$f" ] || continue
                rma+=("$f")
                case $f in *target-ishmem*) rma_labels+=("PE 1 in ishmem wait") ;; *) rma_labels+=("PE 1 in MPI_Barrier") ;; esac
            done
            for l in 2x1 2x2 1-2-1 2 4; do
                f=$out/multinode-$set-coll-$l.csv
                [ -s "$f" ] || continue
                coll+=("$f")
                case $l in 2x1) labels+=("2 nodes x 1") ;; 2x2) labels+=("2 nodes x 2") ;;
                    1-2-1) labels+=("3 nodes 1+2+1") ;; *) labels+=("$l nodes x 1") ;; esac
            done
            mkdir -p "$dir"
            title="across nodes ($set)"
            [ $set = netns ] && title="across nodes (namespaces, TCP)"
            [ $set = split ] && title="across nodes (ISHMEM_NODE_SPLIT=pe, one machine)"
            if [ ${#rma[@]} -gt 0 ]; then
                $py "$root/bench/plot_rma.py" "${rma[@]}" --labels "$(IFS=,; echo "${rma_labels[*]}")" \
                    --out "$dir" --title "$title" >&2 ||
                    failed+=("plot_rma $set")
            fi
            if [ ${#coll[@]} -gt 0 ]; then
                $py "$root/bench/plot_coll.py" "${coll[@]}" --labels "$(IFS=,; echo "${labels[*]}")" \
                    --title "$title" --out "$dir" >&2 || failed+=("plot_coll $set")
            fi
        done
    fi
fi

if [ ${#failed[@]} -gt 0 ]; then
    printf 'run.sh: failed: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "run.sh: done; results in $out/multinode-*.{csv,txt}" >&2
