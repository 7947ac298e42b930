// The MPI transport's teams and collectives (overview: transport_mpi.cpp): one communicator per team;
// our own point-to-point collectives (coll_p2p.h) up to the limits in mpi_transport.h, MPI's
// non-blocking ones above.
#include "mpi_transport.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ishmem/impl/collectives.h"

namespace ishmemi::mpi {

namespace {

MPI_Datatype mpi_type(elem_kind k) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    with_elem_kind(k, [&](auto v) {
        using T = decltype(v);
        constexpr size_t n = sizeof(T);
        if constexpr (std::is_floating_point_v<T>)
            t = n == 4 ? MPI_FLOAT : MPI_DOUBLE;
        else if constexpr (std::is_signed_v<T>)
            t = n == 1 ? MPI_INT8_T : n == 2 ? MPI_INT16_T : n == 4 ? MPI_INT32_T : MPI_INT64_T;
        else
            t = n == 1 ? MPI_UINT8_T : n == 2 ? MPI_UINT16_T : n == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    });
    return t;
}

size_t elem_size(elem_kind k) {
    size_t n = 0;
    with_elem_kind(k, [&](auto v) { n = sizeof v; });
    return n;
}

MPI_Op mpi_op(int op) {
    switch (op) {
        case coll::op_and:
            return MPI_BAND;
        case coll::op_or:
            return MPI_BOR;
        case coll::op_xor:
            return MPI_BXOR;
        case coll::op_max:
            return MPI_MAX;
        case coll::op_min:
            return MPI_MIN;
        case coll::op_sum:
            return MPI_SUM;
        default:
            return MPI_PROD;
    }
}

}  // namespace

void mpi_transport::team_split(int parent_slot, int slot, int color, int key) {
    barrier(parent_slot, false);  // (see the top of transport_mpi.cpp: then the split may hold the lock)
    MPI_Comm c = MPI_COMM_NULL;
    check(locked([&] { return MPI_Comm_split(comm(parent_slot), color < 0 ? MPI_UNDEFINED : color, key, &c); }),
          "MPI_Comm_split");
    if (c == MPI_COMM_NULL) return;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    team_destroy(slot);  // a slot left by a team of a parent that did not span nodes
    comms_[slot] = c;
    collect_largest_[static_cast<size_t>(slot)] = 0;
}

void mpi_transport::team_destroy(int slot) {
    if (comms_[slot] != MPI_COMM_NULL && slot != ISHMEM_TEAM_WORLD)
        locked([&] { return MPI_Comm_free(&comms_[slot]); });
}

size_t mpi_transport::collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) {
    MPI_Comm c = comm(team);
    int n = 0, rank = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &rank);
    // bytes: per member (alltoall: the block for each member).
    const int count = as_count(bytes, "a collective");
    // MPI's buffers must not overlap: a source inside dest goes through a copy (a collect
    // copies its source before it writes dest).
    std::vector<char> copy;
    const size_t dest_bytes = kind == coll_broadcast ? bytes : bytes * static_cast<size_t>(n);
    const size_t source_bytes = kind == coll_alltoall ? dest_bytes : bytes;
    if (kind != coll_broadcast && kind != coll_collect && overlap_at_all(dest, dest_bytes, source, source_bytes)) {
        copy.assign(static_cast<const char*>(source), static_cast<const char*>(source) + source_bytes);
        source = copy.data();
    }
    switch (kind) {
        case coll_alltoall:
            if (bytes <= p2p_alltoall_max)
                p2p_.alltoall(c, dest, source, bytes);
            else
                run_collective("MPI_Ialltoall", [&](MPI_Request* r) {
                    return MPI_Ialltoall(source, count, MPI_BYTE, dest, count, MPI_BYTE, c, r);
                });
            return dest_bytes;
        case coll_fcollect:
            if (bytes <= p2p_coll_max)
                p2p_.fcollect(c, dest, source, bytes);
            else
                run_collective("MPI_Iallgather", [&](MPI_Request* r) {
                    return MPI_Iallgather(source, count, MPI_BYTE, dest, count, MPI_BYTE, c, r);
                });
            return dest_bytes;
        case coll_broadcast:
            broadcast(c, n, rank, dest, source, bytes, root, false, is_node_part_slot(team));
            return bytes;
        case coll_collect: {
            // The path follows the largest block of the team's last collect, which every
            // member knows alike (collect_as_messages).
            size_t& largest = collect_largest_[static_cast<size_t>(team)];
            if (collect_as_messages(n, largest)) {
                const mpi::p2p_collectives::collected got = p2p_.collect(c, dest, source, bytes);
                largest = got.largest;
                return got.total;
            }
            std::vector<size_t> lengths(static_cast<size_t>(n));
            const size_t mine = bytes;
            p2p_.fcollect(c, lengths.data(), &mine, sizeof mine);
            const mpi::p2p_collectives::collected got = allgatherv(c, rank, dest, source, lengths);
            largest = got.largest;
            return got.total;
        }
    }
    return 0;
}

void mpi_transport::broadcast_chain(int team, void* dest, const void* source, size_t bytes, int root) {
    MPI_Comm c = comm(team);
    int n = 0, rank = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &rank);
    broadcast(c, n, rank, dest, source, bytes, root, true, false);
}

void mpi_transport::collect_known(int team, void* dest, const void* source, const size_t* bytes_of) {
    MPI_Comm c = comm(team);
    int n = 0, rank = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &rank);
    const std::vector<size_t> lengths(bytes_of, bytes_of + n);
    if (collect_as_messages(n, *std::max_element(lengths.begin(), lengths.end())))  // (the lengths come with them)
        p2p_.collect(c, dest, source, lengths[static_cast<size_t>(rank)]);
    else
        allgatherv(c, rank, dest, source, lengths);
}

// One on up to direct_max members (every block straight to every other: collect_as_messages),
// else ceil(log2) (Bruck's algorithm, or MPI_Iallgatherv's recursive exchange).
int mpi_transport::collect_rounds(size_t members) const {
    return members <= static_cast<size_t>(mpi::p2p_collectives::direct_max) ? 1 : coll::rounds_of(members);
}

void mpi_transport::exchange_blocks(int team, void* in, const size_t* in_at, const size_t* in_bytes, const void* out,
                                    const size_t* out_at, const size_t* out_bytes) {
    p2p_.alltoallv(comm(team), static_cast<char*>(in), in_at, in_bytes, static_cast<const char*>(out), out_at,
                   out_bytes);
}

void mpi_transport::send_to_member(int team, int to, const void* buf, size_t bytes) {
    p2p_.send_one(comm(team), to, buf, bytes);
}

void mpi_transport::receive_from_member(int team, int from, void* buf, size_t bytes) {
    p2p_.receive_one(comm(team), from, buf, bytes);
}

void mpi_transport::reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source,
                              size_t nelems) {
    MPI_Comm c = comm(team);
    const int count = as_count(nelems, "a reduction");
    const size_t bytes = nelems * elem_size(type);
    if (scan != 0 && bytes <= p2p_reduce_max)
        return p2p_.scan(c, scan == 1, mpi_type(type), dest, source, bytes, count);
    if (scan == 0 && bytes <= p2p_reduce_max)
        return p2p_.allreduce(c, mpi_type(type), mpi_op(op), dest, source, bytes, count);
    const void* in = source == dest ? MPI_IN_PLACE : source;
    if (scan == 0)
        return run_collective("MPI_Iallreduce", [&](MPI_Request* r) {
            return MPI_Iallreduce(in, dest, count, mpi_type(type), mpi_op(op), c, r);
        });
    if (scan == 1)
        return run_collective(
            "MPI_Iscan", [&](MPI_Request* r) { return MPI_Iscan(in, dest, count, mpi_type(type), MPI_SUM, c, r); });
    run_collective("MPI_Iexscan",
                   [&](MPI_Request* r) { return MPI_Iexscan(in, dest, count, mpi_type(type), MPI_SUM, c, r); });
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    if (rank == 0) memset(dest, 0, bytes);  // MPI leaves it undefined
}

void mpi_transport::barrier(int team, bool completing) {
    if (completing) quiet();
    p2p_.barrier(comm(team));
}

// Whether a collect over n members whose largest block is `largest` bytes goes as the blocks'
// messages (p2p_collectives::collect), else as the lengths first and MPI_Iallgatherv straight
// into dest, which pays for large blocks where Bruck's copies cost more than a round trip. On
// up to direct_max members the messages go straight to every member at any size, which beat
// both on 2 and 3 members (docs/guide/tuning.rst).
bool mpi_transport::collect_as_messages(int n, size_t largest) {
    return n <= mpi::p2p_collectives::direct_max || largest <= p2p_collect_max;
}

// The size below which a broadcast over n members goes down the chain as one message (0: never).
size_t mpi_transport::short_chain_limit(int n, bool leaders) {
    if (n < 3 || n > chain_members_max) return 0;
    return leaders && n >= 4 ? leaders_chain_max : chain_short_max;
}

// A broadcast of bytes from member root's source into every member's dest: down the chain in
// long segments where the caller asks for it, else by size. A root that keeps source apart
// from dest sends from source and copies it into its dest while the data goes, with the
// progress thread driving MPI meanwhile. leaders: the members are the leaders of two levels
// (a node part's slot).
void mpi_transport::broadcast(MPI_Comm c, int n, int rank, void* dest, const void* source, size_t bytes, int root,
                              bool long_chain, bool leaders) {
    const bool apart = rank == root && dest != source && !overlap_partly(dest, source, bytes);
    if (rank == root && dest != source && !apart) memmove(dest, source, bytes);
    const void* from = apart ? source : dest;
    // copy_own holds a reference to the copy, which std::function keeps without allocating (the
    // lambda itself, four references, would be allocated and freed every call); left empty
    // where there is nothing to copy.
    const auto copy = [&] { p2p_.alongside(bytes, [&] { std::memcpy(dest, source, bytes); }); };
    std::function<void()> copy_own;
    if (apart) copy_own = std::cref(copy);
    if (long_chain)
        p2p_.broadcast_chain(c, dest, bytes, root, from, copy_own, mpi::p2p_collectives::long_segments);
    else if (bytes < short_chain_limit(n, leaders))
        p2p_.broadcast_chain(c, dest, bytes, root, from, copy_own);
    else if (bytes <= p2p_bcast_max)
        p2p_.broadcast(c, dest, bytes, root, from, copy_own);
    else if (n == 2 && bytes >= pair_whole_min && bytes <= pair_whole_max)
        p2p_.broadcast_chain(c, dest, bytes, root, from, copy_own, {bytes, 1});
    else if (bytes <= p2p_chain_max)
        p2p_.broadcast_chain(c, dest, bytes, root, from, copy_own);
    else {
        const int count = as_count(bytes, "a broadcast");
        run_collective(
            "MPI_Ibcast",
            [&](MPI_Request* r) { return MPI_Ibcast(const_cast<void*>(from), count, MPI_BYTE, root, c, r); }, copy_own);
    }
}

// The blocks of lengths[i] bytes (every member's alike) by MPI_Iallgatherv straight into dest;
// a source inside dest goes through a copy. Returns the largest block and the total.
mpi::p2p_collectives::collected mpi_transport::allgatherv(MPI_Comm c, int rank, void* dest, const void* source,
                                                          const std::vector<size_t>& lengths) {
    std::vector<int> counts(lengths.size()), displs(lengths.size());
    size_t at = 0, largest = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        displs[i] = as_count(at, "a collect");
        counts[i] = as_count(lengths[i], "a collect");
        at += lengths[i];
        largest = std::max(largest, lengths[i]);
    }
    const size_t bytes = lengths[static_cast<size_t>(rank)];
    std::vector<char> copy;
    if (overlap_at_all(dest, at, source, bytes)) {
        copy.assign(static_cast<const char*>(source), static_cast<const char*>(source) + bytes);
        source = copy.data();
    }
    run_collective("MPI_Iallgatherv", [&](MPI_Request* r) {
        return MPI_Iallgatherv(source, counts[static_cast<size_t>(rank)], MPI_BYTE, dest, counts.data(), displs.data(),
                               MPI_BYTE, c, r);
    });
    return {largest, at};
}

}  // namespace ishmemi::mpi
