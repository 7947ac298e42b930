#!/bin/bash
# Enter fake node <i> of netns_mpirun.sh and run a command there; mpirun uses
# this as its "ssh" (plm_rsh_agent) to start orted on nodes 1.., and
# netns_mpirun.sh uses it to start mpirun itself on node 0.
#   netns_rsh.sh 10.231.0.<i+1> <command words...>
# Like ssh, the command words are joined and re-parsed by a shell: Open MPI
# quotes orted's arguments (e.g. its contact URI) for a remote shell.
#
# A node = its network namespace + a new UTS namespace (hostname ishm-node<i>)
# + its own /proc/sys/kernel/random/boot_id. UCX decides that a peer is on the
# same host (and shared memory reaches it) by comparing boot ids, so without
# this all "nodes" would talk shared memory instead of TCP. The bind mount is
# private: `ip netns exec` runs us in a fresh mount namespace.
set -eu
: "${NETNS_MPIRUN_PREFIX:?netns_rsh.sh: only usable under netns_mpirun.sh}"
: "${NETNS_MPIRUN_DIR:?netns_rsh.sh: only usable under netns_mpirun.sh}"
host=$1
shift
i=$(( ${host##*.} - 1 ))
bootid=$(printf %q "$NETNS_MPIRUN_DIR/boot_id$i")
# As after ssh, nodes 1.. start from a login-like environment, not mpirun's:
# variables reach the ranks there only via mpirun -x, as on a real cluster.
clean=()
# netns_mpirun.sh checks afterwards that a daemon was started on every node but 0.
[ "$i" -gt 0 ] && : >"$NETNS_MPIRUN_DIR/daemon$i"
[ "$i" -gt 0 ] && clean=(env -i PATH="$PATH" HOME="${HOME:-/}" ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="$LD_LIBRARY_PATH"})
exec "${clean[@]}" ip netns exec "$NETNS_MPIRUN_PREFIX-n$i" unshare --uts bash -c "
    hostname ishm-node$i &&
    mount --bind $bootid /proc/sys/kernel/random/boot_id &&
    { $*; }"
