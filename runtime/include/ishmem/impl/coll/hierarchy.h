// Collectives on teams with members on several nodes: in two levels (the node, then the leaders
// of the nodes) or on rails where the team has node groups, else over the transport.
#pragma once

#include "ishmem/impl/coll/broadcast.h"
#include "ishmem/impl/coll/collect.h"
#include "ishmem/impl/coll/common.h"
#include "ishmem/impl/coll/reduce.h"
#include "ishmem/impl/tuning.h"

namespace ishmemi {

namespace coll {

// With node groups (teams.h), in two levels: the members of each node combine through shared memory
// on their group's team (the shared-memory collectives of coll/), the groups' leaders through the
// transport, and each leader hands the result on in its node. So the transport carries one
// operation among one PE per node instead of one among all members, and each node's share once.
// Every PE gets its leader's copy of the result, so floating-point reductions agree on all PEs.

// The rounds of an exchange among `members` by recursive doubling: ceil(log2 members).
inline int rounds_of(size_t members) {
    int r = 0;
    while ((size_t{1} << r) < members) ++r;
    return r;
}
// Whether the leaders' exchange of a team with node groups g takes fewer rounds than its members'
// would, with `rounds` the rounds of the exchange among so many (by recursive doubling: 2 x 2 PEs
// 1, not 2; 1 + 2 + 1: 2 either way).
inline bool levels_save_rounds(const node_groups& g, int members, int (*rounds)(size_t) = rounds_of) {
    return rounds(g.count.size()) < rounds(static_cast<size_t>(members));
}

// Whether a reduction of `bytes` per member over a team with node groups g runs on two levels.
// Where the leaders' exchange saves rounds (2 x 2 PEs: 1, not 2), always. Where it does not
// (1 + 2 + 1 and 1 + 1 + 2: 2 either way) only below reduce_flat_min: from there the node's own
// passes over the whole array (its reduction, the leader's hand-on) cost more than they save,
// where the transport's halving or ring among all members gives each its share
// (docs/guide/tuning.rst).
inline constexpr size_t reduce_flat_min = tuning::reduce_flat_min.value;
inline bool reduce_on_levels(const node_groups& g, int members, size_t bytes) {
    return g.part >= 0 && (levels_save_rounds(g, members) || bytes < reduce_flat_min);
}

// Whether a reduction of `bytes` per member over a team with node groups g runs on its rails
// (node_groups::rail), from reduce_rails_min; below it two levels keep a little ahead
// (docs/guide/tuning.rst).
inline constexpr size_t reduce_rails_min = tuning::reduce_rails_min.value;
inline bool reduce_on_rails(const node_groups& g, size_t bytes) { return g.rail >= 0 && bytes >= reduce_rails_min; }

// A reduction on the rails of a team whose node groups all have k members: member i of each group
// reduces slice i of the array (its chunk_of the group's team) over its group through shared
// memory, reduces that over the other nodes with the members of index i there (its rail) through
// the transport, and writes the result into the dest of every member of its group.
// So k members of each node move the node's share at once, each a k-th, where two levels left it
// to the leader alone. Only member i touches slice i anywhere in its group (dest may be source),
// and every member of a rail ends with the same bits, which its group then copies.
template <int Op, class T>
void reduce_on_rails_of(const node_groups& g, T* dest, const T* source, size_t nreduce, const char* routine) {
    const team_t& part = teams[g.part];
    const auto [lo, hi] = chunk_of(part, nreduce);
    barrier(alone{}, part, g.part, routine);  // every source of the group ready, every dest free
    T acc[chunk_block<T>];
    for (size_t b = lo; b < hi; b += chunk_block<T>) {
        const size_t m = std::min(chunk_block<T>, hi - b);
        reduce_range<Op>(part, source, 0, part.size, b, b + m, acc);
        std::memcpy(dest + b, acc, m * sizeof(T));
    }
    if (hi > lo) {  // (alike on the whole rail: its members have the same slice)
        remote->reduction(Op, 0, elem_kind_of<T>(), g.rail, dest + lo, dest + lo, hi - lo);
        for (int j = 0; j < part.size; ++j)
            if (j != part.my_index)
                std::memcpy(translate(dest, part.world_pe(j)) + lo, dest + lo, (hi - lo) * sizeof(T));
    }
    barrier(alone{}, part, g.part, routine);  // every slice in every dest
}

template <int Op, class T>
void reduce_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nreduce, const char* routine) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    if (reduce_on_rails(g, nreduce * sizeof(T))) return reduce_on_rails_of<Op>(g, dest, source, nreduce, routine);
    if (!reduce_on_levels(g, teams[team].size, nreduce * sizeof(T)))
        return remote->reduction(Op, 0, elem_kind_of<T>(), team, dest, source, nreduce);
    reduce<Op>(alone{}, g.part, dest, source, nreduce, routine);
    if (teams[g.part].my_index == 0) remote->reduction(Op, 0, elem_kind_of<T>(), g.part, dest, dest, nreduce);
    broadcast(alone{}, g.part, dest, dest, nreduce, 0);
}

// Whether a broadcast from member root of a team with node groups g goes down one chain of all
// members in long segments (the transport's broadcast_chain) instead of two levels or the
// transport's choice (which takes a chain of one message itself for short broadcasts on 3
// members), from chain_through_min bytes:
// - on a team without node groups (one member per node, or ISHMEM_HIERARCHICAL=0) of 3 or 4
//   members, where MPI_Ibcast's root would send the whole message to every member in turn
//   (libnbc's linear algorithm on up to 4) while on the chain each link carries it once (on 2
//   members, one link, the chain loses);
// - where every group is a run of consecutive members and the chain (members in order from the
//   root, wrapping) passes through a node of two or more members, neither the first nor the last
//   it visits. There one member of that node receives each segment from the node before while
//   another sends the one before on to the node after; on two levels one leader does both, or
//   MPI_Ibcast's root sends to every leader in turn. Where no node lies in the middle (2 x 2
//   PEs), two levels win. (docs/guide/tuning.rst.)
inline constexpr size_t chain_through_min = tuning::chain_through_min.value;
inline bool broadcast_on_one_chain(const node_groups& g, int members, int root, size_t bytes) {
    if (bytes < chain_through_min) return false;
    if (g.part < 0) return members == 3 || members == 4;
    if (!g.contiguous) return false;
    const int first = g.group_of[static_cast<size_t>(root)];
    const int last = g.group_of[static_cast<size_t>((root - 1 + members) % members)];
    for (size_t k = 0; k < g.count.size(); ++k)
        if (static_cast<int>(k) != first && static_cast<int>(k) != last && g.count[k] >= 2) return true;
    return false;
}

// The root's node first, then the leaders from the root's leader, then the other nodes.
template <class T> void broadcast_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    if (broadcast_on_one_chain(g, teams[team].size, root, nelems * sizeof(T))) {
        remote->broadcast_chain(team, dest, source, nelems * sizeof(T), root);
        return;
    }
    if (g.part < 0) {
        remote->collective(coll_broadcast, team, dest, source, nelems * sizeof(T), root);
        return;
    }
    const int root_group = g.group_of[static_cast<size_t>(root)];
    if (g.my_group == root_group) broadcast(alone{}, g.part, dest, source, nelems, g.index_in_group(root));
    if (teams[g.part].my_index == 0)
        remote->collective(coll_broadcast, g.part, dest, dest, nelems * sizeof(T), root_group);
    if (g.my_group != root_group) broadcast(alone{}, g.part, dest, dest, nelems, 0);
}

// Whether a collect or fcollect of `total` bytes in all over a team with node groups g runs on two
// levels (each node's blocks to its leader, the leaders' exchange, each leader's hand-on of dest
// in its node): where the leaders' exchange takes fewer rounds than the members' would
// (transport::collect_rounds: 2 x 2 PEs 1, not 2; 1 + 2 + 1, 1 + 1 + 2 and 2 + 1 + 1: 1, not 2,
// since the MPI transport's collect sends each of three leaders' blocks straight to the other
// two; its fcollect over three nodes of equal size does so up to 64 KiB a leader, then
// MPI_Iallgather).
// From collect_levels_min bytes sending each node's blocks once pays for the node's steps anyway.
// From collect_member_max bytes a member on average flat again: the hand-on copies the whole dest
// after the exchange, where MPI delivers each member's data straight. The limit is a member's
// share, not the total: with more members on a node the flat path's MPI collective over all of
// them costs more. A collect goes by the average of its last call's blocks, which may differ.
// (docs/guide/tuning.rst.)
inline constexpr size_t collect_levels_min = tuning::collect_levels_min.value,
                        collect_member_max = tuning::collect_member_max.value;
inline bool collect_on_levels(const node_groups& g, int members, size_t total) {
    if (g.part < 0 || !g.contiguous || total > collect_member_max * static_cast<size_t>(members)) return false;
    return levels_save_rounds(g, members, [](size_t n) { return remote->collect_rounds(n); }) ||
           total >= collect_levels_min;
}

// Where every group is a run of consecutive members, whose blocks are then one run of dest: each
// node gathers its run, the leaders exchange the runs (whose lengths all know), each leader hands
// the whole dest on.
template <class T> void fcollect_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    const size_t n = static_cast<size_t>(teams[team].size), bytes = nelems * sizeof(T);
    if (!collect_on_levels(g, teams[team].size, n * bytes)) {
        remote->collective(coll_fcollect, team, dest, source, bytes, -1);
        return;
    }
    const size_t k = static_cast<size_t>(g.my_group);
    T* run = dest + static_cast<size_t>(g.first[k]) * nelems;
    fcollect(alone{}, g.part, run, source, nelems);
    if (teams[g.part].my_index == 0) {
        if (g.uniform) {
            remote->collective(coll_fcollect, g.part, dest, run, static_cast<size_t>(g.count[k]) * bytes, -1);
        } else {
            std::vector<size_t> runs(g.count.size());
            for (size_t i = 0; i < runs.size(); ++i) runs[i] = static_cast<size_t>(g.count[i]) * bytes;
            remote->collect_known(g.part, dest, run, runs.data());
        }
    }
    broadcast(alone{}, g.part, dest, dest, nelems * n, 0);
}

// The leader of a node group (member 0 of team part) hands its `bytes` of dest on to the others,
// who cannot know how many there are: one eager message that carries the length, and the data
// when it fits an inbox; a larger dest the others copy from the leader's, which waits for them.
// Returns the length, on every member.
inline size_t hand_on_from_leader(ishmem_team_t part, void* dest, size_t bytes, const char* routine) {
    team_t& t = teams[part];
    const int leader_pe = t.world_pe(0);
    if (!eager::usable(part, 0)) {  // no inboxes: the length in the leader's slot, with its ready flag
        exchange ex(alone{}, part, routine);
        if (t.my_index == 0) {
            __atomic_store_n(&team_slot_of(state.my_pe, part)->published, bytes, __ATOMIC_RELAXED);
            ex.publish();
            ex.wait_acks(t.size - 1);
            return bytes;
        }
        ex.wait_ready(0);
        bytes = __atomic_load_n(&team_slot_of(leader_pe, part)->published, __ATOMIC_RELAXED);
        std::memcpy(dest, translate(dest, leader_pe), bytes);
        ex.ack(0);
        return bytes;
    }
    eager ea(part, routine);
    if (t.my_index == 0) {
        ea.send_to_others(dest, bytes);
        ea.finish();
        if (bytes > eager_bytes) wait_reads_done(t, part, t.size - 1, routine);
        return bytes;
    }
    const eager_box* box = ea.receive_box(0);
    bytes = box->bytes;
    std::memcpy(dest, bytes <= eager_bytes ? static_cast<const void*>(box->payload(bytes)) : translate(dest, leader_pe),
                bytes);
    if (bytes > eager_bytes) read_done(part, leader_pe);
    ea.finish();
    return bytes;
}

// Where every group is a run of consecutive members: each node collects its members' blocks at the
// front of dest, the leaders collect the runs into dest (the transport copies its source first),
// and each leader hands dest on in its node: the leaders' rounds instead of all members', each
// node's blocks sent once. Where collect_on_levels says so for the total of the team's last
// collect (which every member knows alike; their counts in this one may differ).
template <class T> void collect_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    team_t& t = teams[team];
    if (!collect_on_levels(g, t.size, t.collect_total)) {
        t.collect_total = remote->collective(coll_collect, team, dest, source, nelems * sizeof(T), -1);
        return;
    }
    size_t run = 0;
    collect(alone{}, g.part, dest, source, nelems, &run);
    size_t total = 0;
    if (teams[g.part].my_index == 0) total = remote->collective(coll_collect, g.part, dest, dest, run * sizeof(T), -1);
    t.collect_total = hand_on_from_leader(g.part, dest, total, "ishmem_collect");
}

// Whether an alltoall of `bytes` a block over a team with node groups g runs on two levels: where
// the team has a node part (every group an arithmetic run of members), up to alltoall_levels_max,
// and source and dest apart (alike on every member: the arrays are symmetric). Each node's leader
// then sends one message to each other node's leader, with every block from its node to that
// node's members, where the transport's alltoall sends one message per pair of members on
// different nodes (2 x 2 PEs: 2 instead of 8) and one per pair on the same node through MPI's
// shared memory. Above alltoall_levels_max the one leader carrying all of its node's data on
// one connection loses to the members' own messages moving at once. Members spaced out (cyclic
// placements) send the same messages. (docs/guide/tuning.rst.)
inline constexpr size_t alltoall_levels_max = tuning::alltoall_levels_max.value;
inline bool alltoall_on_levels(const node_groups& g, int members, const void* dest, const void* source, size_t bytes) {
    const size_t all = bytes * static_cast<size_t>(members);
    return g.part >= 0 && bytes <= alltoall_levels_max && !overlap_at_all(dest, all, source, all);
}

// The two levels of alltoall_on_levels. Every member of a node publishes that its source may be
// read and its dest written, and waits for its leader; the leader copies the blocks among its
// node's members itself, packs those for each other node (ordered by receiver, then sender),
// exchanges them with the other leaders (transport::exchange_blocks; the leaders' communicator
// is ordered as the groups), writes what came into its members' dests and lets them go.
template <class T> void alltoall_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    const size_t b = nelems * sizeof(T);
    if (!alltoall_on_levels(g, teams[team].size, dest, source, b)) {
        remote->collective(coll_alltoall, team, dest, source, b, -1);
        return;
    }
    const team_t& part = teams[g.part];
    exchange ex(alone{}, g.part, "ishmem_alltoall");
    ex.publish();
    if (part.my_index != 0) return ex.wait_acks(1);
    const size_t groups = g.count.size(), k = static_cast<size_t>(g.my_group), mine = static_cast<size_t>(g.count[k]);
    for (size_t j = 1; j < mine; ++j) ex.wait_ready(static_cast<int>(j));
    // Where block i of an array begins: i is the team index of member m of group l.
    auto block = [&](size_t l, size_t m) {
        return (static_cast<size_t>(g.first[l]) + m * static_cast<size_t>(g.step[l])) * b;
    };
    auto src = [&](size_t s) {
        return reinterpret_cast<const char*>(translate(source, part.world_pe(static_cast<int>(s))));
    };
    auto dst = [&](size_t d) { return reinterpret_cast<char*>(translate(dest, part.world_pe(static_cast<int>(d)))); };
    for (size_t s = 0; s < mine; ++s)
        for (size_t d = 0; d < mine; ++d) std::memcpy(dst(d) + block(k, s), src(s) + block(k, d), b);
    // What goes to group l and what comes from it have the same length and place in out and in.
    thread_local std::vector<char> out, in;
    thread_local std::vector<size_t> at, len;  // by group
    at.assign(groups, 0);
    len.assign(groups, 0);
    size_t total = 0;
    for (size_t l = 0; l < groups; ++l) {
        if (l == k) continue;
        at[l] = total;
        len[l] = static_cast<size_t>(g.count[l]) * mine * b;
        total += len[l];
    }
    out.resize(total);
    in.resize(total);
    for (size_t l = 0; l < groups; ++l) {
        char* o = out.data() + at[l];
        for (size_t d = 0; l != k && d < static_cast<size_t>(g.count[l]); ++d)
            for (size_t s = 0; s < mine; ++s, o += b) std::memcpy(o, src(s) + block(l, d), b);
    }
    remote->exchange_blocks(g.part, in.data(), at.data(), len.data(), out.data(), at.data(), len.data());
    for (size_t l = 0; l < groups; ++l) {
        const char* i = in.data() + at[l];
        for (size_t d = 0; l != k && d < mine; ++d)
            for (size_t s = 0; s < static_cast<size_t>(g.count[l]); ++s, i += b)
                std::memcpy(dst(d) + block(l, s), i, b);
    }
    for (size_t j = 1; j < mine; ++j) ex.ack(static_cast<int>(j));
}

// Whether a scan of `bytes` over a team with node groups g goes along the chain of its members
// with every hop between two members of one node through inboxes of the node's part, and only the
// hops between nodes through the transport, whose scan is the same chain all through MPI (its
// shared-memory path on one node): up to scan_node_hops_max, where every part has inboxes (alike
// on every member). Above it an inbox's pieces cost more than MPI's one message
// (docs/guide/tuning.rst).
inline constexpr size_t scan_node_hops_max = tuning::scan_node_hops_max.value;
inline bool scan_chain_over_nodes(const node_groups& g, size_t bytes) {
    return g.part >= 0 && g.part < eager_slots && bytes <= scan_node_hops_max &&
           *std::max_element(g.count.begin(), g.count.end()) <= eager_members;
}

// Member i adds its source to the sum of the members below it, which comes from i - 1, and passes
// the result on to i + 1. A neighbour on this node (then the next or last member of this PE's
// group, whose members are consecutive) takes it through the part's inboxes, in pieces of one
// inbox each, one eager operation a piece, which every member of the part takes alike; one on
// another node through the transport, whole: the sum from below arrives before the first piece,
// the sum up to me leaves after the last.
template <class T>
void scan_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems, bool inclusive, const char* routine) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    const size_t bytes = nelems * sizeof(T);
    if (!scan_chain_over_nodes(g, bytes))
        return remote->reduction(op_sum, inclusive ? 1 : 2, elem_kind_of<T>(), team, dest, source, nelems);
    const team_t& t = teams[team];
    const int me = t.my_index, at = g.index_in_group(me);
    const bool first = me == 0, last = me + 1 == t.size;
    const bool near_below = !first && g.group_of[static_cast<size_t>(me - 1)] == g.my_group;
    const bool near_above = !last && g.group_of[static_cast<size_t>(me + 1)] == g.my_group;
    const bool far_below = !first && !near_below, far_above = !last && !near_above;
    thread_local std::vector<T> from_far, to_far;
    if (far_below) {
        from_far.resize(nelems);
        remote->receive_from_member(team, me - 1, from_far.data(), bytes);
    }
    if (far_above && first)
        remote->send_to_member(team, me + 1, source, bytes);  // before dest: in place, dest is source
    if (far_above && !first) to_far.resize(nelems);
    constexpr size_t per = eager_bytes / sizeof(T);
    T upto[per + 1];
    size_t lo = 0;
    do {
        const size_t m = std::min(per, nelems - lo), piece = m * sizeof(T);
        eager ea(g.part, routine);
        const T* below = near_below  ? static_cast<const T*>(ea.receive(at - 1, true))
                         : far_below ? from_far.data() + lo
                                     : nullptr;
        const T* sum = source + lo;  // the sum up to and with me
        if (!first && (inclusive || !last)) {
            T* into = far_above ? to_far.data() + lo : upto;
            for (size_t i = 0; i < m; ++i) into[i] = combine<op_sum>(below[i], source[lo + i]);
            sum = into;
        }
        if (near_above) ea.send(at + 1, sum, piece, true);  // before dest: in place, dest is source
        scan_dest(dest + lo, sum, below, piece, inclusive, first);
        ea.finish();
        lo += m;
    } while (lo < nelems);
    if (far_above && !first) remote->send_to_member(team, me + 1, to_far.data(), bytes);
}

}  // namespace coll
}  // namespace ishmemi
