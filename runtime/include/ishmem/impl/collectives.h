// Collectives over a team: team_sync, alltoall, broadcast, collect, fcollect, reductions and scans.
//
// Every PE of the host backend maps every peer's heap, so members pull data straight from the
// peers' symmetric buffers. Instead of full barriers, members exchange flags in the team's slot:
//   - ready: a member publishes the call number once its buffers may be read in that call;
//   - acks: a reader adds one to a member's count once it has finished reading that member's
//     buffers; the member returns (and may reuse its buffers) only when all its readers have.
// So a member waits only for the members it reads and for those that read it: in a broadcast the
// non-roots wait for the root alone and the root for its readers; a scan waits for the lower
// members. Reductions and scans of at least ISHMEM_REDUCE_SCATTER_MIN bytes on 2 or more PEs are
// chunked (by_chunks): member k reduces or scans the k-th chunk over all sources and writes it into
// every member's dest, between two team barriers, reading the array about once per PE instead of up
// to n times. Every member combines the PEs in the same order, so floating-point results agree on
// all PEs. Messages of at most eager_bytes go through inboxes instead (class eager); small scans and
// broadcasts then pass along a chain of the members (ISHMEM_CHAIN_MIN). A team with members on
// several nodes runs through the transport, in two levels where it has node groups (end of file).
//
// The _work_group forms split every copy and reduction loop across the group's threads; one thread
// exchanges the flags and takes the barriers, fenced by group barriers.
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

// Member k of n's chunk of an array of nelems: elements [nelems k / n, nelems (k + 1) / n).
inline std::pair<size_t, size_t> chunk_of(const team_t& t, size_t nelems) {
    const size_t n = static_cast<size_t>(t.size), k = static_cast<size_t>(t.my_index);
    return {nelems * k / n, nelems * (k + 1) / n};
}

// The chunked form of large reductions and scans: member k of n works on elements
// [nelems k / n, nelems (k + 1) / n) of every member's source and dest, calling f(first, count)
// on blocks of at most `block` elements (the group's threads share the chunk), between two team
// barriers: before them every source is ready and every dest free, after them every dest written.
// Only member k touches chunk k, so dest may be source if f reads a block's sources before it
// writes that block's dests. Each PE reads and writes the array about once.
template <class W, class F> void by_chunks(const W& w, const team_t& t, ishmem_team_t team, const char* routine,
                                           size_t nelems, size_t block, F&& f) {
    barrier(w, t, team, routine);
    const auto [cb, ce] = chunk_of(t, nelems);
    const auto [b, e] = share(w, ce - cb, 64);
    for (size_t lo = cb + b; lo < cb + e; lo += block) f(lo, std::min(block, cb + e - lo));
    barrier(w, t, team, routine);
}

// Elements of T in a block of by_chunks: 8 KiB, so that the running results stay in L1.
template <class T> inline constexpr size_t chunk_block = 8192 / sizeof(T) ? 8192 / sizeof(T) : 1;

enum op_kind : int { op_and, op_or, op_xor, op_max, op_min, op_sum, op_prod };

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

// Whether a scan of `bytes` on the team runs as a chain of eager messages (alike on every member:
// the settings agree, and a scan's size is the same on all).
inline bool chains_scan(ishmem_team_t team, size_t bytes) {
    return teams[team].size >= chain_min && eager::usable(team, std::min(bytes, eager_bytes)) &&
           bytes <= std::max(eager_bytes, scan_chain_max);
}

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

// Teams with members on several nodes (end of this file): in two levels where the team has node
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

// Host and device: the device collectives (cuda/collectives.cuh) combine with it too.
template <int Op, class T> ISHMEM_HD inline T combine(T a, T b) {
    if constexpr (Op == op_and)
        return static_cast<T>(a & b);
    else if constexpr (Op == op_or)
        return static_cast<T>(a | b);
    else if constexpr (Op == op_xor)
        return static_cast<T>(a ^ b);
    else if constexpr (Op == op_max)
        return a < b ? b : a;
    else if constexpr (Op == op_min)
        return b < a ? b : a;
    else if constexpr (Op == op_sum)
        return static_cast<T>(a + b);
    else
        return static_cast<T>(a * b);
}

// out[i - b] = source_0[i] op source_1[i] op ... over the team members first..last-1 (PE order),
// for i in [b, e); the identity (0) when the range of members is empty (exscan on member 0).
template <int Op, class T>
void reduce_range(const team_t& t, const T* source, int first, int last, size_t b, size_t e, T* out) {
    if (first >= last) {
        for (size_t i = b; i < e; ++i) out[i - b] = T{};
        return;
    }
    const T* s0 = translate(source, t.world_pe(first));
    for (size_t i = b; i < e; ++i) out[i - b] = s0[i];
    for (int j = first + 1; j < last; ++j) {
        const T* sj = translate(source, t.world_pe(j));
        for (size_t i = b; i < e; ++i) out[i - b] = combine<Op>(out[i - b], sj[i]);
    }
}

template <class T, class W> int alltoall(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    watched_call wc(w, team, "ishmem_alltoall", -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_alltoall, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { alltoall_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_alltoall");
            const team_t& t = ea.team();
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) ea.send(j, source + j * nelems, nelems * sizeof(T));
            std::memmove(dest + t.my_index * nelems, source + t.my_index * nelems, nelems * sizeof(T));
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) std::memcpy(dest + j * nelems, ea.receive(j), nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_alltoall");
    const team_t& t = ex.team();
    read_all_members(w, ex, [&](int j) {
        copy(w, dest + j * nelems, translate(source, t.world_pe(j)) + t.my_index * nelems, nelems * sizeof(T));
    });
    return 0;
}

// Non-roots wait for the root only and return once they have copied; the root waits for them.
template <class T, class W>
int broadcast(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    watched_call wc(w, team, "ishmem_broadcast", root, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_broadcast, team, dest, source, nelems * sizeof(T), root, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { broadcast_over_nodes(team, dest, source, nelems, root); });
    if (eager::usable(team, nelems * sizeof(T)) && teams[team].size >= chain_min) {
        // A chain from the root: each member takes the message from the one before it and passes
        // it on, so that no member sends more than one message and calls in a row overlap.
        leader(w, [&] {
            eager ea(team, "ishmem_broadcast");
            const team_t& t = ea.team();
            const int n = t.size, at = (t.my_index - root + n) % n;  // my place along the chain
            const void* data = at == 0 ? source : ea.receive((t.my_index + n - 1) % n);
            if (at + 1 < n) ea.send((t.my_index + 1) % n, data, nelems * sizeof(T));
            if (dest != data) move_bytes(dest, data, nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_broadcast");
            const team_t& t = ea.team();
            if (t.my_index == root) {
                ea.send_to_others(source, nelems * sizeof(T));
                if (dest != source) move_bytes(dest, source, nelems * sizeof(T));
            } else {
                move_bytes(dest, ea.receive(root), nelems * sizeof(T));
            }
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_broadcast");
    const team_t& t = ex.team();
    if (t.my_index == root) {
        leader(w, [&] { ex.publish(); });
        copy(w, dest, source, nelems * sizeof(T));
        w.sync();
        leader(w, [&] { ex.wait_acks(t.size - 1); });
    } else {
        leader(w, [&] { ex.wait_ready(root); });
        copy(w, dest, translate(source, t.world_pe(root)), nelems * sizeof(T));
        w.sync();
        leader(w, [&] { ex.ack(root); });
    }
    return 0;
}

template <class T, class W> int fcollect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    watched_call wc(w, team, "ishmem_fcollect", -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_fcollect, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { fcollect_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_fcollect");
            const team_t& t = ea.team();
            ea.send_to_others(source, nelems * sizeof(T));
            std::memmove(dest + t.my_index * nelems, source, nelems * sizeof(T));
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) std::memcpy(dest + j * nelems, ea.receive(j), nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_fcollect");
    const team_t& t = ex.team();
    read_all_members(w, ex,
                     [&](int j) { copy(w, dest + j * nelems, translate(source, t.world_pe(j)), nelems * sizeof(T)); });
    return 0;
}

// collect on a team with inboxes (every call, whatever the counts: members cannot know each
// other's before the call). Each member sends every other its count, with its block when that fits
// an inbox, and goes on; a larger block stays in the member's source: its readers copy it from
// there and acknowledge, and the member waits for them before it returns. A reader places each
// block once the counts before it have arrived. One hand-over per message for small blocks, as in
// fcollect, instead of ready flags, copies and acknowledgements.
template <class T, class W>
void collect_eager(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, size_t* total) {
    team_t& t = teams[team];
    const size_t mine = nelems * sizeof(T);
    leader(w, [&] {
        eager ea(team, "ishmem_collect");
        ea.send_to_others(source, mine);
        for (int j = 0; j < t.size; ++j)
            if (j != t.my_index) ea.receive_box(j);  // every count (and small block) is in
    });
    // The leader's receives (acquire) and the group barrier make the inboxes readable by the group.
    const uint64_t op = t.eager_ops;
    size_t offset = 0;
    for (int j = 0; j < t.size; ++j) {
        const eager_box* box = j == t.my_index ? nullptr : eager_inbox(state.my_pe, team, op, j);
        const size_t bytes = box ? box->bytes : mine;
        const void* from = !box                   ? static_cast<const void*>(source)
                           : bytes <= eager_bytes ? static_cast<const void*>(box->payload(bytes))
                                                  : translate(source, t.world_pe(j));
        copy(w, reinterpret_cast<char*>(dest) + offset, from, bytes);
        offset += bytes;
    }
    if (total) *total = offset / sizeof(T);
    w.sync();
    leader(w, [&] {
        for (int j = 0; j < t.size; ++j)
            if (j != t.my_index && eager_inbox(state.my_pe, team, op, j)->bytes > eager_bytes)
                read_done(team, t.world_pe(j));
        eager::finish(team, op);
        // My source is read in place: wait for every reader.
        if (mine > eager_bytes && t.size > 1) wait_reads_done(t, team, t.size - 1, "ishmem_collect");
    });
}

// Counts differ per PE: on teams with inboxes they come with the data (collect_eager); on others each
// publishes its own in the team's slot with its ready flag. total (where given): the elements
// collected, on a team within one node.
template <class T, class W>
int collect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, size_t* total = nullptr) {
    watched_call wc(w, team, "ishmem_collect", -1, nelems, sizeof(T), type_name<T>(), true);
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_collect, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { collect_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, 0)) {
        collect_eager(w, team, dest, source, nelems, total);
        return 0;
    }
    exchange ex(w, team, "ishmem_collect");
    const team_t& t = ex.team();
    if (w.rank() == 0) __atomic_store_n(&team_slot_of(state.my_pe, team)->published, nelems, __ATOMIC_RELAXED);
    // Offsets need every count first: wait for all members, then copy.
    leader(w, [&] { ex.publish_and_wait_all(); });
    size_t offset = 0;
    for (int j = 0; j < t.size; ++j) {
        const int pe = t.world_pe(j);
        const size_t n = __atomic_load_n(&team_slot_of(pe, team)->published, __ATOMIC_RELAXED);
        copy(w, dest + offset, translate(source, pe), n * sizeof(T));
        offset += n;
    }
    if (total) *total = offset;
    w.sync();
    leader(w, [&] { ex.ack_all_and_wait(); });  // also: nobody republishes its count before all have read it
    return 0;
}

template <int Op, class T, class W>
int reduce(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nreduce, const char* routine) {
    watched_call wc(w, team, routine, -1, nreduce, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(w,
                         [&] { gpu::reduction(Op, 0, gpu::elem_kind_of<T>(), team, dest, source, nreduce, nullptr); });
    if (teams[team].spans_nodes)
        return by_leader(w, [&] { reduce_over_nodes<Op>(team, dest, source, nreduce, routine); });
    const team_t& t = teams[team];
    if (t.size >= 2 && nreduce * sizeof(T) >= reduce_scatter_min) {
        // Member k reduces chunk k over all members, then writes it into every member's dest.
        T acc[chunk_block<T>];
        by_chunks(w, t, team, routine, nreduce, chunk_block<T>, [&](size_t lo, size_t m) {
            reduce_range<Op>(t, source, 0, t.size, lo, lo + m, acc);
            for (int j = 0; j < t.size; ++j) std::memcpy(translate(dest, t.world_pe(j)) + lo, acc, m * sizeof(T));
        });
        return 0;
    }
    if (eager::usable(team, nreduce * sizeof(T))) {
        // Every member sends its source to every other and reduces the messages, in member order.
        leader(w, [&] {
            eager ea(team, routine);
            ea.send_to_others(source, nreduce * sizeof(T));
            T out[eager_bytes / sizeof(T) + 1];
            auto from = [&](int j) { return j == t.my_index ? source : static_cast<const T*>(ea.receive(j)); };
            move_bytes(out, from(0), nreduce * sizeof(T));
            for (int j = 1; j < t.size; ++j) {  // a loop without a branch in it: the compiler vectorizes it
                const T* s = from(j);
                for (size_t i = 0; i < nreduce; ++i) out[i] = combine<Op>(out[i], s[i]);
            }
            move_bytes(dest, out, nreduce * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    // Every member reduces the whole array into a private buffer, and writes dest (which may be
    // its source) once every reader of its source is done.
    exchange ex(w, team, routine);
    const auto [b, e] = share(w, nreduce, 64);
    std::vector<T> out(e - b);
    leader(w, [&] { ex.publish_and_wait_all(); });
    reduce_range<Op>(t, source, 0, t.size, b, e, out.data());
    w.sync();
    leader(w, [&] { ex.ack_all_and_wait(); });
    if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
    w.sync();
    return 0;
}

// A piece of a scan's chain, on one member: its dest gets the sum up to and with it (inclusive),
// or zeros on the first member and the sum of the members below it on the others (exclusive).
template <class T> void scan_dest(T* dest, const T* sum, const T* below, size_t bytes, bool inclusive, bool first) {
    if (inclusive) {
        if (dest != sum) move_bytes(dest, sum, bytes);
    } else if (first) {
        zero_bytes(dest, bytes);
    } else {
        move_bytes(dest, below, bytes);
    }
}

// Member i reads the members below it (and itself for the inclusive scan); it waits for those
// members' flags only, and for the acks of the members above it, which read its source.
template <class T, class W>
int scan(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, bool inclusive, const char* routine) {
    watched_call wc(w, team, routine, -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(w, [&] {
            gpu::reduction(op_sum, inclusive ? 1 : 2, gpu::elem_kind_of<T>(), team, dest, source, nelems, nullptr);
        });
    if (teams[team].spans_nodes)
        return by_leader(w, [&] { scan_over_nodes(team, dest, source, nelems, inclusive, routine); });
    if (chains_scan(team, nelems * sizeof(T))) {
        // A chain: member i adds its source to the partial sum of the members below it (from i - 1)
        // and passes the result on to i + 1. One message in and one out per member, so that calls
        // in a row overlap along the chain, as MPI's scans do. A scan of more than an inbox holds
        // goes along the chain in pieces, one eager operation each (every member cuts alike).
        // Member 0 sends its source as it is; the others read the sum below them in the inbox
        // (valid until finish) and send the sum up to them from a local array. A call of a few
        // words costs a few tens of ns here, so nothing is copied or zeroed that need not be.
        leader(w, [&] {
            constexpr size_t per = eager_bytes / sizeof(T);
            T upto[per + 1];
            size_t lo = 0;
            do {
                const size_t m = std::min(per, nelems - lo), bytes = m * sizeof(T);
                eager ea(team, routine);
                const team_t& t = ea.team();
                const bool first = t.my_index == 0, last = t.my_index + 1 == t.size;
                const T* below = first ? nullptr : static_cast<const T*>(ea.receive(t.my_index - 1, true));
                const T* sum = source + lo;  // the sum up to and with me
                if (!first && (inclusive || !last)) {
                    for (size_t i = 0; i < m; ++i) upto[i] = combine<op_sum>(below[i], source[lo + i]);
                    sum = upto;
                }
                if (!last) ea.send(t.my_index + 1, sum, bytes, true);  // before dest: in place, dest is source
                scan_dest(dest + lo, sum, below, bytes, inclusive, first);
                ea.finish();
                lo += m;
            } while (lo < nelems);
        });
        return 0;
    }
    if (eager::usable(team, nelems * sizeof(T))) {
        // Member i sends its source to the members above it and adds up what those below sent.
        leader(w, [&] {
            eager ea(team, routine);
            const team_t& t = ea.team();
            for (int j = t.my_index + 1; j < t.size; ++j) ea.send(j, source, nelems * sizeof(T));
            T out[eager_bytes / sizeof(T) + 1];
            std::fill_n(out, nelems, T{});
            for (int j = 0; j < t.my_index; ++j) {
                const T* s = static_cast<const T*>(ea.receive(j));
                for (size_t i = 0; i < nelems; ++i) out[i] = combine<op_sum>(out[i], s[i]);
            }
            if (inclusive)
                for (size_t i = 0; i < nelems; ++i) out[i] = combine<op_sum>(out[i], source[i]);
            std::memcpy(dest, out, nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    const team_t& tm = teams[team];
    if (tm.size >= 2 && nelems * sizeof(T) >= reduce_scatter_min) {
        // Member k scans chunk k over all members, writing each member's chunk k of dest as it goes.
        T acc[chunk_block<T>];
        by_chunks(w, tm, team, routine, nelems, chunk_block<T>, [&](size_t lo, size_t m) {
            const size_t bytes = m * sizeof(T);
            for (int j = 0; j < tm.size; ++j) {
                const T* sj = translate(source, tm.world_pe(j)) + lo;
                T* dj = translate(dest, tm.world_pe(j)) + lo;
                if (j == 0) {  // acc = s_0; dest_0 = s_0 (inclusive) or zeros
                    std::memcpy(acc, sj, bytes);
                    if (inclusive)
                        std::memmove(dj, sj, bytes);
                    else
                        std::memset(dj, 0, bytes);
                } else if (inclusive) {
                    for (size_t i = 0; i < m; ++i) dj[i] = acc[i] = combine<op_sum>(acc[i], sj[i]);
                } else if (j + 1 == tm.size) {  // the last member's source is in no exclusive sum
                    std::memcpy(dj, acc, bytes);
                } else {
                    for (size_t i = 0; i < m; ++i) {
                        const T x = sj[i];  // read before dj[i] is written: in place they are one word
                        dj[i] = acc[i];
                        acc[i] = combine<op_sum>(acc[i], x);
                    }
                }
            }
        });
        return 0;
    }
    exchange ex(w, team, routine);
    const team_t& t = ex.team();
    const auto [b, e] = share(w, nelems, 64);
    std::vector<T> out(e - b);
    leader(w, [&] {
        ex.publish();
        for (int j = 0; j < t.my_index; ++j) ex.wait_ready(j);
    });
    reduce_range<op_sum>(t, source, 0, t.my_index + (inclusive ? 1 : 0), b, e, out.data());
    w.sync();
    leader(w, [&] {
        for (int j = 0; j < t.my_index; ++j) ex.ack(j);
        ex.wait_acks(t.size - 1 - t.my_index);
    });
    if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
    w.sync();
    return 0;
}

// ---- Teams with members on several nodes ------------------------------------------------------
// With node groups (teams.h), in two levels: the members of each node combine through shared memory
// on their group's team (the shared-memory collectives above), the groups' leaders through the
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
inline constexpr size_t reduce_flat_min = size_t{512} << 10;
inline bool reduce_on_levels(const node_groups& g, int members, size_t bytes) {
    return g.part >= 0 && (levels_save_rounds(g, members) || bytes < reduce_flat_min);
}

// Whether a reduction of `bytes` per member over a team with node groups g runs on its rails
// (node_groups::rail), from reduce_rails_min; below it two levels keep a little ahead
// (docs/guide/tuning.rst).
inline constexpr size_t reduce_rails_min = size_t{1} << 10;
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
inline constexpr size_t chain_through_min = size_t{512} << 10;
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
inline constexpr size_t collect_levels_min = size_t{256} << 10, collect_member_max = size_t{192} << 10;
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
inline constexpr size_t alltoall_levels_max = size_t{8} << 10;
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
inline constexpr size_t scan_node_hops_max = size_t{4} << 10;
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

namespace impl {

inline int team_sync(ishmem_team_t team) {
    coll::watched_call wc(coll::alone{}, team, "ishmem_team_sync", -1, UINT64_MAX, 0, nullptr);
    team_barrier(teams[team], team, "ishmem_team_sync");
    return 0;
}
template <class Group> void team_sync_work_group(ishmem_team_t team, const Group& group) {
    coll::watched_call wc(coll::in_group<Group>{group}, team, "ishmemx_team_sync_work_group", -1, UINT64_MAX, 0,
                          nullptr);
    coll::barrier(coll::in_group<Group>{group}, teams[team], team, "ishmemx_team_sync_work_group");
}

template <class T> int alltoall(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::alltoall(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int alltoall_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::alltoall(coll::in_group<G>{g}, team, dest, source, nelems);
}
// The strided all-to-all, written with the RMA primitives so that it runs on every backend: after a
// barrier (every member's dest is free), each member puts its block for j into j's dest with one
// strided put, starting at the next member so that the members do not all write to one PE at once;
// a quiet and a barrier complete the exchange.
template <class T>
int alltoalls(ishmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
    coll::watched_call wc(coll::alone{}, team, "ishmemx_alltoalls", -1, nelems, sizeof(T), type_name<T>());
    const team_t& t = teams[team];
    team_barrier(t, team, "ishmemx_alltoalls");
    const ptrdiff_t n = static_cast<ptrdiff_t>(nelems);
    for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_index + k) % t.size;
        iput(dest + t.my_index * n * dst, source + j * n * sst, dst, sst, nelems, t.world_pe(j));
    }
    quiet();
    team_barrier(t, team, "ishmemx_alltoalls");
    return 0;
}

template <class T> int broadcast(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    return coll::broadcast(coll::alone{}, team, dest, source, nelems, root);
}
template <class T, class G>
int broadcast_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root, const G& g) {
    return coll::broadcast(coll::in_group<G>{g}, team, dest, source, nelems, root);
}
template <class T> int collect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::collect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int collect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::collect(coll::in_group<G>{g}, team, dest, source, nelems);
}
template <class T> int fcollect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::fcollect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int fcollect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::fcollect(coll::in_group<G>{g}, team, dest, source, nelems);
}

#define ISHMEMI_REDUCTION(OP)                                                                                    \
    template <class T> int OP##_reduce(ishmem_team_t team, T* dest, const T* source, size_t nreduce) {           \
        return coll::reduce<coll::op_##OP>(coll::alone{}, team, dest, source, nreduce, "ishmem_" #OP "_reduce"); \
    }                                                                                                            \
    template <class T, class G>                                                                                  \
    int OP##_reduce_work_group(ishmem_team_t team, T* dest, const T* source, size_t nreduce, const G& g) {       \
        return coll::reduce<coll::op_##OP>(coll::in_group<G>{g}, team, dest, source, nreduce,                    \
                                           "ishmemx_" #OP "_reduce_work_group");                                 \
    }
ISHMEMI_REDUCTION(and)
ISHMEMI_REDUCTION(or)
ISHMEMI_REDUCTION(xor)
ISHMEMI_REDUCTION(max)
ISHMEMI_REDUCTION(min)
ISHMEMI_REDUCTION(sum)
ISHMEMI_REDUCTION(prod)
#undef ISHMEMI_REDUCTION

template <class T> int sum_inscan(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::scan(coll::alone{}, team, dest, source, nelems, true, "ishmem_sum_inscan");
}
template <class T> int sum_exscan(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::scan(coll::alone{}, team, dest, source, nelems, false, "ishmem_sum_exscan");
}

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
ISHMEMI_BYTES_ON_QUEUE(alltoall, coll_alltoall)
ISHMEMI_BYTES_ON_QUEUE(collect, coll_collect)
ISHMEMI_BYTES_ON_QUEUE(fcollect, coll_fcollect)
#undef ISHMEMI_BYTES_ON_QUEUE

template <class T> ishmem::event broadcast_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                    int* ret, ishmem_team_t team, T* dest, const T* source,
                                                    size_t nelems, int root) {
    return collective_on_queue(
        q, deps, ret,
        [&](CUstream_st* s) { gpu::collective(gpu::coll_broadcast, team, dest, source, nelems * sizeof(T), root, s); },
        [=] { return broadcast<T>(team, dest, source, nelems, root); });
}

#define ISHMEMI_COMBINE_ON_QUEUE(NAME, OP, SCAN)                                                                      \
    template <class T> ishmem::event NAME##_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,  \
                                                     int* ret, ishmem_team_t team, T* dest, const T* source,          \
                                                     size_t nelems) {                                                 \
        return collective_on_queue(                                                                                   \
            q, deps, ret,                                                                                             \
            [&](CUstream_st* s) { gpu::reduction(OP, SCAN, gpu::elem_kind_of<T>(), team, dest, source, nelems, s); }, \
            [=] { return NAME<T>(team, dest, source, nelems); });                                                     \
    }
ISHMEMI_COMBINE_ON_QUEUE(and_reduce, coll::op_and, 0)
ISHMEMI_COMBINE_ON_QUEUE(or_reduce, coll::op_or, 0)
ISHMEMI_COMBINE_ON_QUEUE(xor_reduce, coll::op_xor, 0)
ISHMEMI_COMBINE_ON_QUEUE(max_reduce, coll::op_max, 0)
ISHMEMI_COMBINE_ON_QUEUE(min_reduce, coll::op_min, 0)
ISHMEMI_COMBINE_ON_QUEUE(sum_reduce, coll::op_sum, 0)
ISHMEMI_COMBINE_ON_QUEUE(prod_reduce, coll::op_prod, 0)
ISHMEMI_COMBINE_ON_QUEUE(sum_inscan, coll::op_sum, 1)
ISHMEMI_COMBINE_ON_QUEUE(sum_exscan, coll::op_sum, 2)
#undef ISHMEMI_COMBINE_ON_QUEUE

// Barriers on a queue over the GPU heap take a device barrier (gpu::barrier), queued on the stream
// or, on the task path, run by the task: so every PE uses the same counters whichever path its call
// takes. Under ISHMEM_CHECK=full or ISHMEM_HANG_TIMEOUT (and on the host backend) the host form runs
// as a task. Earlier work of the stream is complete when the barrier kernel runs, and host-issued
// operations on the GPU heap complete before they return, so the device barrier's fence suffices
// for barrier_all too.
template <class Host> ishmem::event barrier_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                     ishmem_team_t team, Host host) {
    if (!watch_calls && heap_on_gpu()) {
        if (on_stream_after(q, deps)) {
            gpu::barrier(team, stream_of(q));
            return ishmem::detail::stream_order::mark(q);
        }
        return enqueue(q, deps, [=] { gpu::barrier(team, nullptr); });
    }
    return enqueue(q, deps, host);
}
inline ishmem::event barrier_all_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return barrier_on_queue(q, deps, ISHMEM_TEAM_WORLD, [] { barrier_all(); });
}
inline ishmem::event sync_all_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return barrier_on_queue(q, deps, ISHMEM_TEAM_WORLD, [] { sync_all(); });
}
inline ishmem::event team_sync_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps, int* ret,
                                        ishmem_team_t team) {
    *ret = 0;  // the team was checked at submission; only the host form can report later
    return barrier_on_queue(q, deps, team, [=] { *ret = team_sync(team); });
}

}  // namespace impl
}  // namespace ishmemi
