// Collectives of the MPI transport as point-to-point messages between the members of a team's
// communicator (coll_p2p.cpp). Open MPI 4.1's non-blocking collectives (libnbc), the form the
// transport can wait on while it serves requests, took 1.4-3.3 times as long as its blocking ones
// across nodes; a blocking collective would hold the MPI lock through its wait.
//
// Every call is collective over the communicator. The calls of one communicator come in the same
// order on every member, every algorithm posts its receives from a given member in the order that
// member sends (one message, or the pieces or segments of one, in order), and MPI keeps the order
// of one sender's messages: so one tag serves all of them. One thread at a time
// in MPI: every MPI call here is made under the transport's lock, and every wait goes through
// backoff, so that a member in a collective still serves the requests of other PEs.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>

#include "ishmem/impl/tuning.h"
#include "mpi_lock.h"

namespace ishmemi::mpi {

class p2p_collectives {
  public:
    // help(true) asks the transport's progress thread to poll MPI without pause until help(false).
    p2p_collectives(mpi_lock& lock, std::function<void(bool)> help) : lock_(lock), help_(std::move(help)) {}

    // Runs f, local work on about `bytes` bytes (a copy) while messages of this member are in
    // flight: from assist_min bytes with the progress thread polling MPI meanwhile, so that the
    // messages move (over TCP they move only inside MPI calls) on another core. Shorter work is
    // not worth waking the thread for.
    static constexpr size_t assist_min = tuning::assist_min.value;  // (from 128 KiB it cost time)
    template <class F> void alongside(size_t bytes, F&& f) {
        if (bytes < assist_min) return f();
        help_(true);
        f();
        help_(false);
    }

    // ceil(log2 n) rounds of empty messages: on 2^k members recursive doubling (in each round a
    // member and its partner, rank ^ 2^r, signal each other, as Open MPI's MPI_Barrier on 8-63
    // ranks), else dissemination (a member signals rank + 2^r and waits for rank - 2^r). Recursive
    // doubling is faster with one PE a node: each round's two messages share one connection, and
    // a member waits for the partner it signalled, not for a third member's progress.
    void barrier(MPI_Comm c);
    // Binomial tree from the root. The root sends from `from` (its buf where that is null) and,
    // once its sends are posted, calls meanwhile (the caller's copy of from into buf) before it
    // waits for them.
    void broadcast(MPI_Comm c, void* buf, size_t bytes, int root, const void* from = nullptr,
                   const std::function<void()>& meanwhile = {});
    // How a chain cuts its message: into segments of up to most bytes, of which each member has at
    // most in_flight sends under way at once.
    struct segmenting {
        size_t most, in_flight;
    };
    // A chain from the root (members in rank order from it) in segments (by default of up to
    // whole_max bytes, eager over TCP, all sent at once), every receive posted at once: each
    // member passes a segment on as soon as it has it, so every link carries the message once and
    // the links work at the same time. The transport's callers say for which sizes and segments;
    // from and meanwhile as in broadcast.
    void broadcast_chain(MPI_Comm c, void* buf, size_t bytes, int root, const void* from = nullptr,
                         const std::function<void()>& meanwhile = {}, segmenting cut = {whole_max, SIZE_MAX});
    // The segments of a chain of 512 KiB or more (the transport's broadcast_chain): each a
    // rendezvous, which beats eager segments of whole_max there; and at most 4 of a member's under
    // way, since with all of them at once the first ones share the link with the rest and reach
    // the next member late (docs/guide/tuning.rst).
    static constexpr segmenting long_segments{tuning::long_segment_bytes.value, tuning::long_segments_in_flight.value};
    // Every member's `bytes` (which may differ between members) into dest, in member order. Bruck's
    // algorithm (ceil(log2 n) rounds, any n) on messages that carry each block's length before it,
    // so that no member needs to learn the lengths first: one round trip less than the lengths'
    // allgather + MPI_Allgatherv, for two copies (into a buffer of the blocks, then into dest).
    // Returns the largest block and the total (alike on every member).
    struct collected {
        size_t largest, total;
    };
    collected collect(MPI_Comm c, void* dest, const void* source, size_t bytes);
    // collect on up to direct_max members (collect_direct): every member's block straight to every
    // other at once, in one round, as one message at any size, whose length the receiver takes
    // from its envelope (over TCP also that of a rendezvous). On 2 and 3 members Bruck's algorithm
    // sends a member's own block alone in each round anyway, but on 3 its second round waits for
    // the first; and whole messages beat the length and then pieces, and beyond 64 KiB the lengths
    // first and MPI_Iallgatherv. So the transport takes it on such teams at every size.
    static constexpr int direct_max = tuning::direct_max.value;
    // As collect, every member with the same bytes: recursive doubling straight into dest on 2^k
    // members, collect's algorithm on others.
    void fcollect(MPI_Comm c, void* dest, const void* source, size_t bytes);
    // Block i of source to member i, block j of dest from member j: every message posted at once.
    void alltoall(MPI_Comm c, void* dest, const void* source, size_t bytes);
    // As alltoall with lengths and places of every block given (transport::exchange_blocks): out_bytes[j]
    // bytes at out + out_at[j] to member j, in_bytes[j] at in + in_at[j] from it; none to or from this member.
    void alltoallv(MPI_Comm c, char* in, const size_t* in_at, const size_t* in_bytes, const char* out,
                   const size_t* out_at, const size_t* out_bytes);
    // On n that is not a power of two the first 2 * (n - 2^k) members fold in pairs first, and the
    // folded ones get the result at the end. Recursive doubling on 2 members up to
    // pair_halving_min bytes or on any up to halving_min bytes, else Rabenseifner's
    // reduce-scatter by recursive halving and allgather by recursive doubling; above ring_min on
    // n that is not a power of two, a ring (ring_allreduce).
    // Partners compute (lower member's values) op (higher member's), and every element's result
    // is computed once or alike on both partners, so every member ends with the same bits.
    void allreduce(MPI_Comm c, MPI_Datatype type, MPI_Op op, void* dest, const void* source, size_t bytes, int count);
    // A chain, as Open MPI's scans (sum): member i takes the sum of members 0..i-1 from i - 1, adds its
    // source and passes it on, so that scans in a row overlap along the chain. Messages go from
    // and into source and dest where they can (no copy on member 0, nor into an exclusive dest).
    void scan(MPI_Comm c, bool inclusive, MPI_Datatype type, void* dest, const void* source, size_t bytes, int count);

    // One message to or from a member (transport::send_to_member, receive_from_member), waited for.
    void send_one(MPI_Comm c, int to, const void* buf, size_t bytes);
    void receive_one(MPI_Comm c, int from, void* buf, size_t bytes);

    // Waits for n requests like every wait of the library (backoff, which serves requests).
    void wait_all(MPI_Request* r, int n, const char* what);

  private:
    static constexpr int tag = 0x15c0;
    // A message of up to whole_max bytes goes whole: it fits Open MPI's TCP eager limit (64 KiB)
    // with its headers. A larger one, up to pieces_max * piece_bytes, goes in pieces of
    // piece_bytes, each eager, with no rendezvous round trip (smaller pieces lost everywhere).
    static constexpr size_t whole_max = tuning::whole_max.value, piece_bytes = tuning::piece_bytes.value;
    static constexpr int pieces_max = tuning::pieces_max.value;
    // pair_halving_min: on two members recursive doubling is one exchange of everything and a
    // reduction of everything on both; above this, halving's two exchanges of half each and a
    // reduction of half (as Open MPI's allreduce on two ranks) cost less. ring_min: above it, on a
    // member count that is not a power of two, the ring beats the fold's three transfers one after
    // another. copy_early_min: from this size a collect's own block goes into dest while the
    // messages are in flight. (docs/guide/tuning.rst.)
    static constexpr size_t halving_min = tuning::halving_min.value, ring_min = tuning::ring_min.value,
                            pair_halving_min = tuning::pair_halving_min.value,
                            copy_early_min = tuning::copy_early_min.value;
    static int pieces(size_t bytes);
    collected collect_direct(MPI_Comm c, int n, int rank, void* dest, const void* source, size_t bytes);
    // A collect's messages, whose length only the message tells. One message on tag where it is
    // a single piece; else the length first (8 bytes on tag + 1), then the pieces, which the
    // receiver posts for as soon as it has the length (eager pieces that came before their receive
    // cost a copy). send_told posts them (the length from *told, which must live until they are
    // done; returns how many requests, at most pieces_max + 1); probe waits for the first and
    // returns the whole length (*msg: the message to take, or null where the length came first);
    // take receives the block into `into` and waits for it and for the sends `sent` (ns of them).
    int send_told(const void* buf, size_t bytes, uint64_t* told, int to, MPI_Comm c, MPI_Request* r);
    size_t probe(int from, MPI_Comm c, MPI_Message* msg);
    // post_take only posts the receive (r: room for pieces(bytes) requests) and returns how many
    // requests it posted.
    void take(MPI_Message* msg, void* into, size_t bytes, int from, MPI_Comm c, MPI_Request* sent, int ns);
    int post_take(MPI_Message* msg, void* into, size_t bytes, int from, MPI_Comm c, MPI_Request* r);
    // As recv and send, in pieces(bytes) messages and requests (r has room for them).
    void recv_pieces(void* buf, size_t bytes, int from, MPI_Comm c, MPI_Request* r);
    void send_pieces(const void* buf, size_t bytes, int to, MPI_Comm c, MPI_Request* r);
    // Reduction over n members that are not a power of two, of more than ring_min bytes: a ring
    // reduce-scatter and allgather (every member sends 2 (n - 1) / n of the data, in n - 1 steps
    // each way), instead of the pairs' fold, whose three full transfers follow one another.
    void ring_allreduce(MPI_Comm c, int n, int rank, MPI_Datatype type, MPI_Op op, char* acc, char* in, size_t elem,
                        size_t count);
    // Receives in from `from`, sends out to `to`, and waits for both.
    void exchange_ring(void* in, size_t in_bytes, int from, const void* out, size_t out_bytes, int to, MPI_Comm c,
                       const char* what);
    // Sends out to peer and receives in from it, and waits for both.
    void exchange(void* in, size_t in_bytes, const void* out, size_t out_bytes, int peer, MPI_Comm c, const char* what);
    void recv(void* buf, size_t bytes, int from, MPI_Comm c, MPI_Request* r);
    void send(const void* buf, size_t bytes, int to, MPI_Comm c, MPI_Request* r);
    void reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op);
    template <class F> int locked(F&& f) {
        std::lock_guard<mpi_lock> in_mpi(lock_);
        return f();
    }
    mpi_lock& lock_;
    std::function<void(bool)> help_;
};

}  // namespace ishmemi::mpi
