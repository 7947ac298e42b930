#!/usr/bin/env bash
# Run an MPI program as a multi-node job on one Linux box: every "node" is a
# network namespace with its own veth address and its own UTS hostname, so
# Open MPI (and UCX) treat the ranks on different nodes as remote and talk TCP.
#
#   netns_mpirun.sh [--layout 2,2] [--timeout SEC] -- <program> [args...]
#
# --layout N0,N1,...  ranks per node (default 2,2); node i is 10.231.0.<i+1>,
#                     hostname ishm-node<i>.  --timeout: kill after SEC seconds
#                     (default 300, exit 124).  Exit status = the program's;
#                     1 also when mpirun started no daemon on a node but 0.
#                     77 = skipped (not root, no netns support, no mpirun).
# ISHMEM_* variables are forwarded to every rank; so are caller-set UCX_TLS /
# UCX_NET_DEVICES (they override the defaults below). OMPI_MCA_* variables
# reach mpirun as usual.
set -u

layout=2,2 timeout=300
while [ $# -gt 0 ]; do
    case $1 in
        --layout)  layout=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--layout 2,2] [--timeout SEC] -- <program> [args...]" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "netns_mpirun: no program given" >&2; exit 2; }
[[ $layout =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "netns_mpirun: bad --layout '$layout'" >&2; exit 2; }

skip() { echo "netns_mpirun: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for ip netns"
command -v mpirun >/dev/null || skip "mpirun not found"
command -v ip >/dev/null || skip "ip (iproute2) not found"

here=$(cd "$(dirname "$0")" && pwd)
# Namespace names carry our PID, so parallel runs never collide. Addresses can
# repeat across runs: each run's links live only inside its own namespaces.
export NETNS_MPIRUN_PREFIX=ishm$$
IFS=, read -ra counts <<<"$layout"
made=() child='' NETNS_MPIRUN_DIR=''

# shellcheck disable=SC2317  # (only reached through the trap)
cleanup() {
    local rc=$? ns pids
    trap - EXIT
    trap "" INT TERM  # a second signal must not cut the cleanup short
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
    # Whatever still runs in a namespace (orted, ranks) would keep it alive: TERM, then KILL.
    for sig in TERM KILL; do
        pids=$(for ns in "${made[@]}"; do ip netns pids "$ns" 2>/dev/null; done)
        [ -z "$pids" ] && break
        # shellcheck disable=SC2086  # $pids: a list, split on purpose
        kill -"$sig" $pids 2>/dev/null
        [ "$sig" = TERM ] && sleep 1
    done
    [ -n "$child" ] && wait "$child" 2>/dev/null
    # Deleting a namespace deletes its veth ends and the bridge with it.
    for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done
    [ -n "$NETNS_MPIRUN_DIR" ] && rm -rf "$NETNS_MPIRUN_DIR"
    exit "$rc"
}
trap cleanup EXIT
trap 'echo "netns_mpirun: interrupted" >&2; exit 130' INT
trap 'echo "netns_mpirun: terminated" >&2; exit 143' TERM

# A bridge in its own namespace joins the nodes; nothing touches the host's interfaces.
br=$NETNS_MPIRUN_PREFIX-br
err=$(ip netns add "$br" 2>&1) || skip "ip netns add failed: $err"
made+=("$br")
ip -n "$br" link set lo up
ip -n "$br" link add br0 type bridge
ip -n "$br" link set br0 up
# Per-node boot ids, read by netns_rsh.sh (see there why).
export NETNS_MPIRUN_DIR
NETNS_MPIRUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/netns_mpirun.XXXXXX") || exit 1
hosts=() np=0
for i in "${!counts[@]}"; do
    ns=$NETNS_MPIRUN_PREFIX-n$i addr=10.231.0.$((i + 1))
    ip netns add "$ns" || exit 1
    made+=("$ns")
    # Same interface name (ishm0) on every node, so one *_if_include / UCX_NET_DEVICES fits all.
    ip -n "$ns" link add ishm0 type veth peer name "v$i" netns "$br" || exit 1
    ip -n "$br" link set "v$i" master br0 up
    ip -n "$ns" addr add "$addr/24" dev ishm0
    ip -n "$ns" link set ishm0 up
    ip -n "$ns" link set lo up
    cat /proc/sys/kernel/random/uuid >"$NETNS_MPIRUN_DIR/boot_id$i"
    hosts+=("$addr:${counts[$i]}") np=$((np + counts[i]))
done

fwd=()
for v in $(compgen -e); do [[ $v == ISHMEM_* ]] && fwd+=(-x "$v"); done

# Why each setting:
#  plm rsh              the launcher that uses the agent below, whatever the machine's own
#                       settings choose (a machine without ssh may set plm=isolated, which starts
#                       every rank on node 0: see the daemon check at the end);
#  plm_rsh_agent        starts orted on nodes 1.. inside their namespaces (netns_rsh.sh);
#  plm_rsh_no_tree_spawn  every orted is launched from node 0, not from other orteds;
#  *_if_include ishm0   pin OOB/BTL to the veth, the only link between the nodes;
#  pml ob1, btl tcp     pin two-sided traffic to ob1 over TCP (vader within a node);
#  osc ucx              the only one-sided component that accepts MPI_THREAD_MULTIPLE;
#  opal_common_ucx_tls/devices any  Open MPI 4.1.6's osc/ucx declines UCX with no RDMA transport
#                       (only tcp here): "any" lets it run over TCP;
#  UCX_TLS, UCX_NET_DEVICES  UCX reaches other nodes over TCP on the veth, same-node ranks
#                       over shared memory (node = boot id, see netns_rsh.sh);
#  bind-to none         the fake nodes share the same 2 cores.
# shellcheck disable=SC2054  # commas inside MCA values
cmd=(mpirun --allow-run-as-root --oversubscribe --bind-to none
    -np "$np" --host "$(IFS=,; echo "${hosts[*]}")"
    --mca plm rsh --mca plm_rsh_agent "$here/netns_rsh.sh" --mca plm_rsh_no_tree_spawn 1
    --mca oob_tcp_if_include ishm0
    --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include ishm0
    --mca osc ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any
    -x "UCX_TLS=${UCX_TLS:-tcp,self,sm}" -x "UCX_NET_DEVICES=${UCX_NET_DEVICES:-ishm0}"
    "${fwd[@]}" "$@")
[ -n "${NETNS_MPIRUN_VERBOSE:-}" ] && echo "netns_mpirun: ${cmd[*]}" >&2

# mpirun runs on node 0 (its address is local there, so mpirun starts no orted for it).
# Run in the background and wait, so a TERM/INT to us is handled at once.
timeout -k 10 "$timeout" "$here/netns_rsh.sh" 10.231.0.1 "exec $(printf '%q ' "${cmd[@]}")" &
child=$!
wait "$child"
rc=$? child=''
[ $rc = 124 ] && echo "netns_mpirun: timed out after ${timeout}s, killed" >&2
# A run whose ranks all stayed on node 0 (mpirun started no daemon through netns_rsh.sh, e.g.
# because settings of the machine override --host) would pass as a one-node job: fail it instead.
if [ $rc = 0 ]; then
    for ((i = 1; i < ${#counts[@]}; i++)); do
        [ -e "$NETNS_MPIRUN_DIR/daemon$i" ] && continue
        echo "netns_mpirun: mpirun started no daemon on node $i (10.231.0.$((i + 1)), ishm-node$i): its" \
             "${counts[$i]} rank(s) ran elsewhere, so this was not a multi-node job;" \
             "mpirun is $(command -v mpirun) ($(mpirun --version 2>&1 | head -1));" \
             "launcher settings here: $(env | grep -E '^(OMPI_MCA_|SLURM_JOB|PBS_JOB)' | tr '\n' ' ')" \
             "$(f=$(ompi_info --path sysconfdir 2>/dev/null | awk '{print $NF}')/openmpi-mca-params.conf;
                [ -r "$f" ] && echo "$f:" $(grep -v '^#' "$f"))" >&2
        rc=1
    done
fi
exit $rc
