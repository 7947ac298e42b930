// What the host collectives share (the protocol: impl/collectives.h): who shares the work of one PE,
// the flag exchange and the eager inboxes between members, the watch of a call, the hand-over to
// another agent (a GPU kernel, the transport), and the _on_queue frame.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "ishmem/impl/ordering.h"
#include "ishmem/impl/queue.h"
#include "ishmem/impl/rma.h"
#include "ishmem/impl/short_copy.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/teams.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

// Bytes from which reductions and scans on 2 or more PEs are chunked (ISHMEM_REDUCE_SCATTER_MIN).
extern ISHMEM_API size_t reduce_scatter_min;
// Team size from which small scans and broadcasts pass along a chain of the members (ISHMEM_CHAIN_MIN).
extern ISHMEM_API int chain_min;
// Bytes up to which scans on such teams pass along the chain, in pieces of an inbox each (ISHMEM_SCAN_CHAIN_MAX).
extern ISHMEM_API size_t scan_chain_max;

namespace coll {

// Who shares the work of one PE's part: the calling thread alone, or the threads of a group.
struct alone {
    size_t rank() const { return 0; }
    size_t size() const { return 1; }
    void sync() const {}
};
template <class Group> struct in_group {
    const Group& g;
    size_t rank() const { return impl::group_rank(g); }
    size_t size() const { return impl::group_size(g); }
    void sync() const { impl::group_sync(g); }
};

// This worker's share [begin, end) of n items, cut at multiples of `align` items.
template <class W> std::pair<size_t, size_t> share(const W& w, size_t n, size_t align = 1) {
    const size_t units = (n + align - 1) / align, size = w.size(), rank = w.rank();
    const size_t base = units / size, extra = units % size;
    const size_t b = (rank * base + (rank < extra ? rank : extra)) * align;
    const size_t e = b + (base + (rank < extra ? 1 : 0)) * align;
    return {b < n ? b : n, e < n ? e : n};
}

template <class W> void copy(const W& w, void* dest, const void* source, size_t bytes) {
    const auto [b, e] = share(w, bytes, 256);
    if (e > b && dest != source)
        std::memmove(static_cast<char*>(dest) + b, static_cast<const char*>(source) + b, e - b);
}

// A team barrier taken by one thread of the group; the group barriers around it hand the ordering on.
template <class W> void barrier(const W& w, const team_t& t, ishmem_team_t team, const char* routine) {
    w.sync();
    if (w.rank() == 0) team_barrier(t, team, routine);
    w.sync();
}

// Reads of a PE's buffers in place (flag-exchange collectives, and collect's large blocks): the
// reader adds one to the owner's count when it is done, and the owner, before it reuses them,
// waits until `readers` more reads have finished (counts only grow: nothing to reset).
inline void read_done(ishmem_team_t team, int owner_pe) {
    __atomic_fetch_add(&team_slot_of(owner_pe, team)->acks, 1, __ATOMIC_RELEASE);
}
inline void wait_reads_done(team_t& t, ishmem_team_t team, int readers, const char* routine) {
    t.acks_expected += static_cast<uint64_t>(readers);
    wait_at_least(&team_slot_of(state.my_pe, team)->acks, t.acks_expected, -1, routine);
}

// One call of a flag-exchange collective on a team, as seen by one PE (one thread per PE).
class exchange {
  public:
    // Every thread of a group constructs it; only the leader counts the call and uses the flags.
    template <class W> exchange(const W& w, ishmem_team_t team, const char* routine)
        : t_(teams[team]), team_(team), call_(w.rank() == 0 ? ++teams[team].calls : 0), routine_(routine) {}
    const team_t& team() const { return t_; }
    // My buffers may be read in this call (release: my earlier stores come with it).
    void publish() const { __atomic_store_n(&team_slot_of(state.my_pe, team_)->ready, call_, __ATOMIC_RELEASE); }
    // Waits until member's buffers may be read in this call.
    void wait_ready(int member) const {
        const int pe = t_.world_pe(member);
        wait_at_least(&team_slot_of(pe, team_)->ready, call_, pe, routine_);
    }
    // I have finished reading member's buffers.
    void ack(int member) const { read_done(team_, t_.world_pe(member)); }
    // Waits until `readers` more reads of my buffers have finished.
    void wait_acks(int readers) const { wait_reads_done(t_, team_, readers, routine_); }
    // The common shape where every member reads every other: publish, then wait for all the others.
    void publish_and_wait_all() const {
        publish();
        for (int j = 0; j < t_.size; ++j)
            if (j != t_.my_index) wait_ready(j);
    }
    // Done reading all the others; wait until all of them are done reading mine.
    void ack_all_and_wait() const {
        for (int j = 0; j < t_.size; ++j)
            if (j != t_.my_index) ack(j);
        wait_acks(t_.size - 1);
    }

  private:
    team_t& t_;
    ishmem_team_t team_;
    uint64_t call_;
    const char* routine_;
};

// An eager collective: each message of at most eager_bytes goes into an inbox of its reader (see
// eager_box), and the sender goes on without waiting for the reader, as MPI's eager protocol does.
// A sender waits only when the reader is eager_depth operations behind, and then until it has
// eager_credit inboxes free, so that it reads the reader's word (and takes that line from the
// reader's core) at most once every eager_credit operations. All members count the team's eager
// operations alike, since all decide alike whether a call is eager (usable()).
//
// Streams (stream = true): in the scans' chain a member takes one message from the same member in
// every call, and the sender runs ahead. There the reader fetches its next inbox while it works on this
// one, and the sender takes its next inbox at the reader for writing as soon as the reader is done
// with it, so that in the next call neither waits for a line to come from the other's core. Where
// the members wait for each other in every call (reductions, collects, alltoall) the next message
// is not written yet when these would run, and the early fetches measured slower; so did they in
// the broadcasts' chain.
class eager {
  public:
    eager(ishmem_team_t team, const char* routine)
        : t_(teams[team]), team_(team), op_(++teams[team].eager_ops), routine_(routine) {}
    static bool usable(ishmem_team_t team, size_t bytes) {
        return team < eager_slots && teams[team].size <= eager_members && bytes <= eager_bytes;
    }
    const team_t& team() const { return t_; }
    // The message carries its size, and its data when that fits (only collect sends more).
    void send(int to, const void* data, size_t bytes, bool stream = false) const {
        const int pe = t_.world_pe(to);
        if (op_ > eager_depth && t_.eager_done_seen[to] < op_ - eager_depth) {
            uint64_t* done = &team_slot_of(pe, team_)->eager_done;
            wait_at_least(done, op_ - eager_depth + (eager_credit - 1), pe, routine_);
            // acquire: the reader's reads of every operation up to this value are over
            t_.eager_done_seen[to] = __atomic_load_n(done, __ATOMIC_ACQUIRE);
        }
        eager_box* box = eager_inbox(pe, team_, op_, t_.my_index);
        box->bytes = bytes;
        if (bytes <= eager_box::head_bytes)
            move_short(box->head, data, bytes);
        else if (bytes <= eager_bytes)
            std::memcpy(box->data, data, bytes);
        __atomic_store_n(&box->seq, op_, __ATOMIC_RELEASE);
        if (stream && t_.eager_done_seen[to] + eager_depth > op_)  // the next inbox is free
            fetch_lines(eager_inbox(pe, team_, op_ + 1, t_.my_index), bytes, true);
    }
    void send_to_others(const void* data, size_t bytes) const {
        for (int j = 0; j < t_.size; ++j)
            if (j != t_.my_index) send(j, data, bytes);
    }
    // Member from's message in this operation; valid until finish().
    const void* receive(int from, bool stream = false) const {
        const eager_box* box = receive_box(from, stream);
        return box->payload(box->bytes);
    }
    const eager_box* receive_box(int from, bool stream = false) const {
        eager_box* box = eager_inbox(state.my_pe, team_, op_, from);
        wait_at_least(&box->seq, op_, t_.world_pe(from), routine_);
        if (stream) fetch_lines(eager_inbox(state.my_pe, team_, op_ + 1, from), box->bytes, false);
        return box;
    }
    void finish() const { finish(team_, op_); }
    // This PE has read its inboxes of operation op on the team: senders may reuse them.
    static void finish(ishmem_team_t team, uint64_t op) {
        __atomic_store_n(&team_slot_of(state.my_pe, team)->eager_done, op, __ATOMIC_RELEASE);
    }

  private:
    // Prefetches the lines of an inbox that a message of `bytes` uses.
    static void fetch_lines(const eager_box* box, size_t bytes, bool for_write) {
        auto fetch = [for_write](const void* line) {
            if (!for_write) return __builtin_prefetch(line);
#if defined(__x86_64__) || defined(__i386__)
            asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(line)));  // GCC emits it only with -mprfchw
#else
            __builtin_prefetch(line, 1);
#endif
        };
        fetch(box);
        if (bytes > eager_box::head_bytes && bytes <= eager_bytes)
            for (size_t off = 0; off < bytes; off += 64) fetch(box->data + off);
    }
    team_t& t_;  // its eager_done_seen changes as the sends go
    ishmem_team_t team_;
    uint64_t op_;
    const char* routine_;
};

// Runs f on the group's leader only (f exchanges flags), then lets the group go on.
template <class W, class F> void leader(const W& w, F&& f) {
    if (w.rank() == 0) f();
    w.sync();
}

// The watch and the agreement of one collective call (ISHMEM_CHECK=full, ISHMEM_HANG_TIMEOUT);
// otherwise one test of watch_calls. Every thread of a group constructs it; the leader agrees.
class watched_call {
  public:
    template <class W> watched_call(const W& w, ishmem_team_t team, const char* routine, int root, uint64_t nelems,
                                    unsigned elem_size, const char* type, bool nelems_may_differ = false,
                                    const char* args = nullptr) {
        if (__builtin_expect(watch_calls, 0))
            begin(w, team, routine, root, nelems, elem_size, type, nelems_may_differ, args);
    }
    ~watched_call() {
        if (on_) call_leave(ci_);
    }
    watched_call(const watched_call&) = delete;
    watched_call& operator=(const watched_call&) = delete;

  private:
    template <class W> void begin(const W& w, ishmem_team_t team, const char* routine, int root, uint64_t nelems,
                                  unsigned elem_size, const char* type, bool nelems_may_differ, const char* args) {
        ci_ = call_info{};
        ci_.routine = routine;
        ci_.team = team;
        ci_.root = root;
        ci_.cmp = -1;
        ci_.nelems = nelems;
        ci_.nelems_may_differ = nelems_may_differ;
        ci_.elem_size = elem_size;
        ci_.type = type;
        ci_.args = args;
        on_ = true;
        call_enter(ci_);
        if (state.check_full) leader(w, [&] { agree_on_call(team, ci_); });
    }
    bool on_ = false;
    call_info ci_;
};

// Teams with members on several nodes (hierarchy.h): in two levels where the team has node
// groups, else over the transport.
template <int Op, class T>
void reduce_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nreduce, const char* routine);
template <class T> void broadcast_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root);
template <class T> void fcollect_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems);
template <class T> void collect_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems);
template <class T> void alltoall_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems);
template <class T>
void scan_over_nodes(ishmem_team_t team, T* dest, const T* source, size_t nelems, bool inclusive, const char* routine);

// Where another agent runs the whole collective, the group's leader asks it: on a heap in GPU memory
// a GPU kernel (gpu::collective, gpu::reduction, which use the same flags as calls from device
// code); on a team with members on other nodes, the transport.
template <class W, class F> int by_leader(const W& w, F&& launch) {
    leader(w, launch);
    return 0;
}

// Members read by this PE: all others; each wait_ready precedes reading that member, the acks
// follow all reads; then this PE waits for the others' reads of its own buffers.
template <class W, class Read> void read_all_members(const W& w, exchange& ex, Read&& read) {
    const team_t& t = ex.team();
    leader(w, [&] { ex.publish(); });
    for (int j = 0; j < t.size; ++j) {
        if (j != t.my_index) leader(w, [&] { ex.wait_ready(j); });
        read(j);
    }
    w.sync();
    leader(w, [&] { ex.ack_all_and_wait(); });
}

}  // namespace coll

namespace impl {

// The _on_queue forms. On a queue over a CUDA stream, with the heap in GPU memory, the collective's
// kernel is queued on the stream itself: the arguments were checked at submission, so ret is set
// then. Otherwise (and under ISHMEM_CHECK=full or ISHMEM_HANG_TIMEOUT, whose checks run on the
// host) the host form runs as a task of the queue.
template <class Launch, class Host> ishmem::event collective_on_queue(const ishmem::queue& q,
                                                                      const std::vector<ishmem::event>& deps, int* ret,
                                                                      Launch&& launch, Host host) {
    if (!watch_calls && on_stream_after(q, deps)) {
        launch(stream_of(q));
        *ret = 0;
        return ishmem::detail::stream_order::mark(q);
    }
    return enqueue(q, deps, [=] { *ret = host(); });
}

#define ISHMEMI_BYTES_ON_QUEUE(NAME, KIND)                                                                           \
    template <class T> ishmem::event NAME##_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps, \
                                                     int* ret, ishmem_team_t team, T* dest, const T* source,         \
                                                     size_t nelems) {                                                \
        return collective_on_queue(                                                                                  \
            q, deps, ret,                                                                                            \
            [&](CUstream_st* s) { gpu::collective(gpu::KIND, team, dest, source, nelems * sizeof(T), -1, s); },      \
            [=] { return NAME<T>(team, dest, source, nelems); });                                                    \
    }

}  // namespace impl
}  // namespace ishmemi
