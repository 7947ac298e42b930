// The MPI transport (docs/design.rst, 'Scale-out'; impl/transport.h): how a PE reaches the PEs of other nodes.
//
// - RMA: MPI-3 one-sided operations on two windows over the symmetric memory, locked once for the
//   job (passive target, MPI_Win_lock_all): one over the internal region and the heap, one over the
//   executable's symmetric globals. A get is MPI_Get + MPI_Win_flush; the nbi forms are completed by
//   quiet (MPI_Win_flush_all). A blocking put of up to bounce_max bytes is copied into a ring of the
//   transport's own and put from there, so it returns at once, like a put of MPI's own whose buffer
//   the program leaves alone (osc/ucx's MPI_Win_flush_local waits for the target: a round trip);
//   a strided one of up to bounce_max bytes in all is packed there.
//   The ring is reused after a quiet, or after MPI_Win_flush_local_all when it is full. Larger
//   blocking puts are MPI_Put + MPI_Win_flush_local.
// - AMOs: an MPI window's atomics are atomic only with respect to other MPI atomics, not to the CPU
//   atomics that the PEs of the target's node use on the same word. So an AMO on a remote PE is a
//   request message to that PE, which does it with the same CPU atomic that a PE of its node would
//   use and replies with the old value. Every AMO on a word, from whichever node, is then a CPU
//   atomic on the memory that holds it. A non-fetching AMO (set, add, and, or, xor, signal
//   updates) is sent and not awaited, and not answered (amo_post). MPI keeps one sender's messages
//   to one target in order, so the target does a PE's atomics in the order they were issued;
//   quiet, fence and gets complete them with one fetching request to each PE they went to, whose
//   answer comes after them. A put-with-signal of up to am_data_max bytes is such a request with
//   its data in the message (the target stores the data, then the signal); a larger one completes
//   its data at the target (MPI_Win_flush) before it sends the signal.
// - Progress: a PE serves the requests sent to it from every waiting loop (progress(), called by
//   backoff::pause), and a progress thread serves them while the PE computes or blocks inside MPI
//   (a collective, a communicator split). Its polls also drive MPI's own progress, which the
//   one-sided components that emulate RMA over TCP need at the target. The thread polls for a while
//   after each request and then sleeps, doubling up to ISHMEM_MPI_PROGRESS_SLEEP_US. While held
//   (hold_progress_thread) it only sleeps.
// - One thread at a time in MPI (mpi_lock_, a spin lock: mpi_lock.h; held for one call or one
//   short sequence, never across a wait loop): Open MPI's osc/ucx drives its UCX worker in
//   single-thread mode whatever the thread level (open-mpi/ompi#13347), so our threads must not be
//   inside MPI together. The progress thread only tries the lock, and starts once ishmem_init has
//   passed its last barrier (the bootstrap's, which calls MPI outside this lock). The one blocking
//   collective, MPI_Comm_split, runs under the lock too, after a barrier that serves requests: once
//   every member of the parent is past it, none needs another's answer before it joins the split.
//   (The lost puts once blamed on threads were UCX's shared-memory transports on one machine:
//   tests/multinode/CMakeLists.txt.)
// - Teams with members on several nodes: one MPI communicator per team (split from the parent's at
//   team creation). Barriers, collects and the collectives of up to some size are our own
//   point-to-point messages on it (coll_p2p.h); larger ones are MPI's non-blocking collectives.
//   Both wait like every other wait, serving requests.
#include "transport_mpi.h"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ishmem/impl/collectives.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/teams.h"
#include "ishmem/impl/transport.h"
#include "coll_p2p.h"
#include "mpi_check.h"

namespace ishmemi {

namespace {

using mpi::as_count;
using mpi::check;
using mpi::routine;

// MPI counts are ints: transfers of more bytes go in slices of this many.
constexpr size_t slice_bytes = size_t{1} << 30;

// A request for an AMO on the receiving PE; it answers with the old value on reply_tag. A small
// put-with-signal is one too: its data_bytes of data follow it in the message, and the receiver
// stores them at data_disp of data_region before it updates the signal.
struct am_request {
    uint8_t op, size, region, silent;  // silent: posted (amo_post), no answer
    int32_t reply_tag;
    uint64_t disp, value, cond;
    uint32_t data_bytes;
    uint8_t data_region, pad[3];
    uint64_t data_disp;
};
// The most data a put-with-signal carries in its request; a larger one is a put, a flush, a signal.
constexpr size_t am_data_max = 4096;
struct am_message {
    am_request r;
    unsigned char data[am_data_max];
};
constexpr int tag_request = 1;
constexpr int tag_reply_first = 2, tag_replies = 30000;  // reply tags stay below MPI's minimum MPI_TAG_UB

template <class W> uint64_t rmw_word(rmw_op op, W* p, W v, W c) {
    switch (op) {
        case op_load:
            return __atomic_load_n(p, __ATOMIC_ACQUIRE);
        case op_store:
            __atomic_store_n(p, v, __ATOMIC_RELEASE);
            return 0;
        case op_swap:
            return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
        case op_cswap:
            __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            return c;  // the old value, whether or not it matched
        case op_add:
            return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
        case op_and:
            return __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL);
        case op_or:
            return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL);
        case op_xor:
            return __atomic_fetch_xor(p, v, __ATOMIC_ACQ_REL);
    }
    return 0;
}

MPI_Datatype mpi_type(elem_kind k) {
    switch (k) {
        case elem_i8:
            return MPI_INT8_T;
        case elem_i16:
            return MPI_INT16_T;
        case elem_i32:
            return MPI_INT32_T;
        case elem_i64:
            return MPI_INT64_T;
        case elem_u8:
            return MPI_UINT8_T;
        case elem_u16:
            return MPI_UINT16_T;
        case elem_u32:
            return MPI_UINT32_T;
        case elem_u64:
            return MPI_UINT64_T;
        case elem_f32:
            return MPI_FLOAT;
        case elem_f64:
            return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

size_t elem_size(elem_kind k) {
    switch (k) {
        case elem_i8:
        case elem_u8:
            return 1;
        case elem_i16:
        case elem_u16:
            return 2;
        case elem_i32:
        case elem_u32:
        case elem_f32:
            return 4;
        default:
            return 8;
    }
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

class mpi_transport final : public transport {
  public:
    mpi_transport(MPI_Comm world, long max_sleep_us) : max_sleep_us_(max_sleep_us) {
        int level = MPI_THREAD_SINGLE;
        MPI_Query_thread(&level);
        if (level < MPI_THREAD_MULTIPLE)
            fatal("ishmem_init",
                  "a job over several nodes needs MPI_THREAD_MULTIPLE (MPI was initialized with level "
                  "%d): let ishmem initialize MPI, or call MPI_Init_thread with MPI_THREAD_MULTIPLE",
                  level);
        check(MPI_Comm_dup(world, &am_comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(am_comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(am_comm_, &me_);
        int world_size = 0;
        MPI_Comm_size(am_comm_, &world_size);
        posted_to_.assign(static_cast<size_t>(world_size), 0);
        comms_.assign(team_slots_max, MPI_COMM_NULL);
        check(MPI_Comm_dup(world, &comms_[ISHMEM_TEAM_WORLD]), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comms_[ISHMEM_TEAM_WORLD], MPI_ERRORS_RETURN);

        heap_lo_ = state.heap_base - internal_size;
        heap_bytes_ = internal_size + state.heap_size;
        heap_win_ = make_window(heap_lo_, heap_bytes_);
        globals_win_ = make_window(state.globals_base, state.globals_size);  // size 0 where there are none

        check(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, tag_request, am_comm_, &inbox_req_),
              "MPI_Irecv");
    }

    ~mpi_transport() override {
        complete_posts();
        stop_.store(true, std::memory_order_release);
        if (thread_.joinable()) thread_.join();
        MPI_Cancel(&inbox_req_);
        MPI_Wait(&inbox_req_, MPI_STATUS_IGNORE);
        for (MPI_Win* w : {&heap_win_, &globals_win_}) {
            MPI_Win_unlock_all(*w);
            MPI_Win_free(w);
        }
        for (MPI_Comm& c : comms_)
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        MPI_Comm_free(&am_comm_);
    }

    // ---- RMA ----------------------------------------------------------------------------------

    void put(void* dest, const void* source, size_t bytes, int pe, bool nbi) override {
        const target t = locate(dest);
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        if (!nbi && bytes <= bounce_max) {
            const char* copy = bounce(source, bytes);
            check(
                MPI_Put(copy, static_cast<int>(bytes), MPI_BYTE, pe, t.disp, static_cast<int>(bytes), MPI_BYTE, t.win),
                "MPI_Put", pe);
            dirty_.store(true, std::memory_order_relaxed);
            return;
        }
        for (size_t off = 0; off < bytes; off += slice_bytes) {
            const int n = static_cast<int>(std::min(slice_bytes, bytes - off));
            check(MPI_Put(static_cast<const char*>(source) + off, n, MPI_BYTE, pe, t.disp + MPI_Aint(off), n, MPI_BYTE,
                          t.win),
                  "MPI_Put", pe);
        }
        dirty_.store(true, std::memory_order_relaxed);
        if (!nbi) check(MPI_Win_flush_local(pe, t.win), "MPI_Win_flush_local", pe);
    }

    void get(void* dest, const void* source, size_t bytes, int pe, bool nbi) override {
        complete_posts();  // a get sees this PE's earlier atomics
        const target t = locate(source);
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        for (size_t off = 0; off < bytes; off += slice_bytes) {
            const int n = static_cast<int>(std::min(slice_bytes, bytes - off));
            check(MPI_Get(static_cast<char*>(dest) + off, n, MPI_BYTE, pe, t.disp + MPI_Aint(off), n, MPI_BYTE, t.win),
                  "MPI_Get", pe);
        }
        if (nbi)
            dirty_.store(true, std::memory_order_relaxed);
        else
            check(MPI_Win_flush(pe, t.win), "MPI_Win_flush", pe);
    }

    void put_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override {
        strided(true, dest, dstride, source, sstride, elem, count, pe);
    }

    void get_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override {
        strided(false, dest, dstride, source, sstride, elem, count, pe);
    }

    // ---- AMOs ---------------------------------------------------------------------------------

    uint64_t amo(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond, int pe) override {
        const am_request r = request(op, dest, size, value, cond);
        uint64_t old = 0;
        MPI_Request rq[2];
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            send_fetching(r, &old, pe, rq);
        }
        // Serve others meanwhile (backoff::pause calls progress()): two PEs may be waiting for each
        // other's answer. It yields the core like every wait, for PEs and threads that outnumber cores.
        for (backoff b{wait_spin_limit, 0};; b.pause()) {
            int done = 0;
            {
                std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
                check(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall", pe);
            }
            if (done) return old;
        }
    }

    // The request goes out from a slot of posts_, which holds it until MPI is done sending it; with
    // every slot in use it first waits for the oldest. The target sends no answer: a later fetching
    // request to it is answered after this one is done (complete_posts).
    void amo_post(rmw_op op, void* dest, unsigned size, uint64_t value, int pe) override {
        post(request(op, dest, size, value, 0), nullptr, pe);
    }

    // Up to am_data_max bytes: the data travels in the signal's request, and the target stores it
    // before the signal, so nothing waits for the data to land first.
    bool put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, bool add,
                    int pe) override {
        if (bytes == 0 || bytes > am_data_max) return false;
        am_request r = request(add ? op_add : op_store, sig_addr, 8, signal, 0);
        const target d = locate(dest);
        r.data_bytes = static_cast<uint32_t>(bytes);
        r.data_region = d.region;
        r.data_disp = static_cast<uint64_t>(d.disp);
        post(r, source, pe);
        return true;
    }

    // Sends r (and data_bytes of data) from a slot of posts_, with no answer (see amo_post).
    void post(am_request r, const void* data, int pe) {
        r.silent = 1;
        for (backoff b{wait_spin_limit, 0};; b.pause()) {
            {
                std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
                retire_posts();
                if (posts_n_ < posts_max) {
                    posted_amo& a = posts_[(posts_head_ + posts_n_) % posts_max];
                    a.m.r = r;
                    if (data) std::memcpy(a.m.data, data, r.data_bytes);  // (none with amo_post)
                    check(MPI_Isend(&a.m, static_cast<int>(sizeof a.m.r + r.data_bytes), MPI_BYTE, pe, tag_request,
                                    am_comm_, &a.rq),
                          "MPI_Isend", pe);
                    a.pe = pe;
                    ++posts_n_;
                    if (!posted_to_[pe]) posted_to_[pe] = 1, posted_pes_.push_back(pe);
                    posts_out_.store(true, std::memory_order_release);
                    return;
                }
            }
        }
    }

    // ---- ordering and progress ----------------------------------------------------------------

    // Puts only: a put-with-signal's data before its signal (posted atomics need no completion
    // there: they are messages in order, and a signal's data waits only for the puts).
    void flush(int pe) override {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        check(MPI_Win_flush(pe, heap_win_), "MPI_Win_flush", pe);
        check(MPI_Win_flush(pe, globals_win_), "MPI_Win_flush", pe);
    }

    // MPI has no cheaper ordering than completion on these windows: fence completes too.
    void fence() override { quiet(); }

    void quiet() override {
        complete_posts();
        if (!dirty_.exchange(false, std::memory_order_relaxed)) return;
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        check(MPI_Win_flush_all(heap_win_), "MPI_Win_flush_all");
        check(MPI_Win_flush_all(globals_win_), "MPI_Win_flush_all");
        bounce_used_ = 0;  // every put from the ring has completed
    }

    void progress() override { serve(); }

    void start_progress_thread() override {
        if (!thread_.joinable()) thread_ = std::thread([this] { progress_loop(); });
    }

    // Returns once no poll of the thread is under way: a poll holds the MPI lock and looks at held_
    // under it (serve(true)), so every poll after this lock sees the hold.
    void hold_progress_thread(bool held) override {
        held_.store(held, std::memory_order_release);
        if (held) {
            std::lock_guard<mpi::mpi_lock> wait_out(mpi_lock_);
        }
    }

    // ---- teams and collectives ----------------------------------------------------------------

    void team_split(int parent_slot, int slot, int color, int key) override {
        barrier(parent_slot, false);  // (see the top of this file: then the split may hold the lock)
        MPI_Comm c = MPI_COMM_NULL;
        check(locked([&] { return MPI_Comm_split(comm(parent_slot), color < 0 ? MPI_UNDEFINED : color, key, &c); }),
              "MPI_Comm_split");
        if (c == MPI_COMM_NULL) return;
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        team_destroy(slot);  // a slot left by a team of a parent that did not span nodes
        comms_[slot] = c;
        collect_largest_[static_cast<size_t>(slot)] = 0;
    }

    void team_destroy(int slot) override {
        if (comms_[slot] != MPI_COMM_NULL && slot != ISHMEM_TEAM_WORLD)
            locked([&] { return MPI_Comm_free(&comms_[slot]); });
    }

    size_t collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) override {
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

    void broadcast_chain(int team, void* dest, const void* source, size_t bytes, int root) override {
        MPI_Comm c = comm(team);
        int n = 0, rank = 0;
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &rank);
        broadcast(c, n, rank, dest, source, bytes, root, true, false);
    }

    void collect_known(int team, void* dest, const void* source, const size_t* bytes_of) override {
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
    int collect_rounds(size_t members) const override {
        return members <= static_cast<size_t>(mpi::p2p_collectives::direct_max) ? 1 : coll::rounds_of(members);
    }

    void exchange_blocks(int team, void* in, const size_t* in_at, const size_t* in_bytes, const void* out,
                         const size_t* out_at, const size_t* out_bytes) override {
        p2p_.alltoallv(comm(team), static_cast<char*>(in), in_at, in_bytes, static_cast<const char*>(out), out_at,
                       out_bytes);
    }

    void send_to_member(int team, int to, const void* buf, size_t bytes) override {
        p2p_.send_one(comm(team), to, buf, bytes);
    }
    void receive_from_member(int team, int from, void* buf, size_t bytes) override {
        p2p_.receive_one(comm(team), from, buf, bytes);
    }

    void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source, size_t nelems) override {
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

    void barrier(int team, bool completing) override {
        if (completing) quiet();
        p2p_.barrier(comm(team));
    }

  private:
    struct target {
        MPI_Win win;
        MPI_Aint disp;
        uint8_t region;  // 0: internal region and heap, 1: globals
    };

    MPI_Win make_window(void* base, size_t bytes) {
        MPI_Win w = MPI_WIN_NULL;
        const int rc = MPI_Win_create(bytes ? base : nullptr, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL,
                                      comms_[ISHMEM_TEAM_WORLD], &w);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, text, &len);
            fatal("ishmem_init",
                  "the MPI transport cannot make a window over the symmetric memory (MPI_Win_create: %.*s). It "
                  "needs a one-sided component that allows MPI_THREAD_MULTIPLE: with Open MPI 4, osc/ucx "
                  "(mpirun --mca osc ucx, in an Open MPI built with UCX); osc/pt2pt refuses that thread level. Where "
                  "UCX has no RDMA transport (TCP only), Open MPI 4.1.6's osc/ucx declines it unless given "
                  "--mca opal_common_ucx_tls any --mca opal_common_ucx_devices any",
                  len, text);
        }
        MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
        check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w), "MPI_Win_lock_all");
        return w;
    }

    am_request request(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond) {
        const target t = locate(dest);
        am_request r{};  // no data, answered: put_signal and post() change that
        r.op = static_cast<uint8_t>(op);
        r.size = static_cast<uint8_t>(size);
        r.region = t.region;
        r.reply_tag =
            tag_reply_first + static_cast<int32_t>(next_tag_.fetch_add(1, std::memory_order_relaxed) % tag_replies);
        r.disp = static_cast<uint64_t>(t.disp);
        r.value = value;
        r.cond = cond;
        return r;
    }

    // Sends a request that is answered: rq[0] receives the old value into *answer, rq[1] sends r
    // (which must live until rq[1] is done). Under mpi_lock_.
    void send_fetching(const am_request& r, uint64_t* answer, int pe, MPI_Request rq[2]) {
        check(MPI_Irecv(answer, 1, MPI_UINT64_T, pe, r.reply_tag, am_comm_, &rq[0]), "MPI_Irecv", pe);
        check(MPI_Isend(&r, sizeof r, MPI_BYTE, pe, tag_request, am_comm_, &rq[1]), "MPI_Isend", pe);
    }

    // count blocks of elem bytes, stride bytes apart, as a committed MPI type (MPI_Type_free it).
    static MPI_Datatype blocks_type(size_t count, size_t elem, ptrdiff_t stride) {
        MPI_Datatype t;
        check(
            MPI_Type_create_hvector(static_cast<int>(count), as_count(elem, "a strided element"), stride, MPI_BYTE, &t),
            "MPI_Type_create_hvector");
        MPI_Type_commit(&t);
        return t;
    }

    // Frees the slots of posted atomics that MPI is done sending, oldest first. Under mpi_lock_.
    void retire_posts() {
        while (posts_n_ > 0) {
            posted_amo& a = posts_[posts_head_];
            int done = 0;
            check(MPI_Test(&a.rq, &done, MPI_STATUS_IGNORE), "MPI_Test", a.pe);
            if (!done) return;
            posts_head_ = (posts_head_ + 1) % posts_max;
            --posts_n_;
        }
    }

    // Waits until every posted atomic is done at its target: one fetching request (a load of a word
    // of the internal region) to each PE that has posts, answered after them (MPI keeps one
    // sender's messages to one target in order, and the target serves them in turn). Serves
    // requests meanwhile.
    // One thread at a time (completing_): another thread's quiet waits for this one's loads too.
    void complete_posts() {
        if (!posts_out_.load(std::memory_order_acquire)) return;
        std::lock_guard<std::mutex> one_at_a_time(completing_);
        std::vector<int> pes;
        std::vector<am_request> loads;
        std::vector<uint64_t> answers;
        std::vector<MPI_Request> rq;
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            if (posted_pes_.empty()) {  // another thread completed them
                posts_out_.store(false, std::memory_order_release);
                return;
            }
            pes.swap(posted_pes_);
            for (int pe : pes) posted_to_[pe] = 0;
            loads.reserve(pes.size()), answers.assign(pes.size(), 0), rq.resize(2 * pes.size());
            for (size_t k = 0; k < pes.size(); ++k) {
                loads.push_back(request(op_load, heap_lo_, 8, 0, 0));
                send_fetching(loads[k], &answers[k], pes[k], &rq[2 * k]);
            }
        }
        for (backoff b{wait_spin_limit, 0};; b.pause()) {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            retire_posts();
            int done = 0;
            check(MPI_Testall(static_cast<int>(rq.size()), rq.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
            if (!done) continue;
            if (posted_pes_.empty()) posts_out_.store(false, std::memory_order_release);
            return;
        }
    }

    // Room for a blocking put's source in the ring (a copy of source, unless that is null), from which
    // MPI may read until the put completes locally. A full ring is made free by completing its puts
    // locally. Under mpi_lock_.
    char* bounce(const void* source, size_t bytes) {
        const size_t span = (bytes + 15) & ~size_t{15};
        if (bounce_used_ + span > bounce_bytes) {
            check(MPI_Win_flush_local_all(heap_win_), "MPI_Win_flush_local_all");
            check(MPI_Win_flush_local_all(globals_win_), "MPI_Win_flush_local_all");
            bounce_used_ = 0;
        }
        char* copy = bounce_ring_.get() + bounce_used_;
        if (source) memcpy(copy, source, bytes);  // (none: the caller packs it)
        bounce_used_ += span;
        return copy;
    }

    // The window and displacement of a symmetric address (the entry points checked that it is one).
    target locate(const void* addr) {
        const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
        const uintptr_t h = a - reinterpret_cast<uintptr_t>(heap_lo_);
        if (h < heap_bytes_) return {heap_win_, static_cast<MPI_Aint>(h), 0};
        const uintptr_t g = a - reinterpret_cast<uintptr_t>(state.globals_base);
        if (g < state.globals_size) {
            dirty_.store(true, std::memory_order_relaxed);
            return {globals_win_, static_cast<MPI_Aint>(g), 1};
        }
        fatal(routine, "address %p is not symmetric", addr);
    }

    // ---- collectives ---------------------------------------------------------------------------
    // Up to these sizes (a member's bytes; alltoall: a block) the collectives are point-to-point
    // messages (coll_p2p.h: Open MPI 4.1's non-blocking collectives were slower than its blocking
    // ones), and barriers always. Larger ones are MPI's non-blocking collectives.
    // Reductions and scans are our own up to p2p_reduce_max (their messages stay in MPI's counts).
    // Broadcasts above p2p_bcast_max and up to p2p_chain_max go down a chain in eager segments,
    // which beat MPI_Ibcast there; from 512 KiB the chain is slower on most layouts, so the callers
    // ask for the long chain (broadcast_chain) only where it pays (broadcast_on_one_chain in
    // collectives.h: a node in the middle, or 3-4 single-PE nodes). The limits and the benchmarks
    // that chose them: docs/guide/tuning.rst.
    static constexpr size_t p2p_chain_max = size_t{256} << 10;
    // On 3 members or more, broadcasts below chain_short_max go down the chain as one message:
    // the root sends once a call where the binomial tree has it send to log2 n others, and calls
    // in a row overlap along the chain (Open MPI's own choice for the smallest messages on fewer
    // than 4 ranks). Where 4 or more members are the leaders of two levels, a call's node step
    // beyond its 512-byte inboxes keeps calls in a row from overlapping, so the chain's extra hops
    // count in full: there the chain only below leaders_chain_max. Only up to chain_members_max
    // members: a lone call waits for n - 1 hops where the tree takes log2 n, so larger teams keep
    // the tree. (With more PEs than cores the middle member must be scheduled to pass each message
    // on, and the chain loses.)
    // On 2 members from pair_whole_min to pair_whole_max a broadcast is one message (a
    // rendezvous), steadier than the chain's eager segments at those sizes and faster than
    // MPI_Ibcast; larger ones stay with MPI_Ibcast. Evidence for each limit: docs/guide/tuning.rst.
    static constexpr int chain_members_max = 8;
    static constexpr size_t chain_short_max = size_t{32} << 10, leaders_chain_max = 2048,
                            pair_whole_min = size_t{192} << 10, pair_whole_max = size_t{4} << 20;
    // fcollects go as messages up to p2p_coll_max a member and collects up to p2p_collect_max a
    // block (collect_as_messages); above them MPI_Iallgather(v) wins (docs/guide/tuning.rst).
    static constexpr size_t p2p_coll_max = size_t{64} << 10, p2p_bcast_max = size_t{64} << 10,
                            p2p_alltoall_max = size_t{64} << 10, p2p_collect_max = size_t{128} << 10,
                            p2p_reduce_max = size_t{1} << 30;

    // Whether a collect over n members whose largest block is `largest` bytes goes as the blocks'
    // messages (p2p_collectives::collect), else as the lengths first and MPI_Iallgatherv straight
    // into dest, which pays for large blocks where Bruck's copies cost more than a round trip. On
    // up to direct_max members the messages go straight to every member at any size, which beat
    // both on 2 and 3 members (docs/guide/tuning.rst).
    static bool collect_as_messages(int n, size_t largest) {
        return n <= mpi::p2p_collectives::direct_max || largest <= p2p_collect_max;
    }

    // The size below which a broadcast over n members goes down the chain as one message (0: never).
    static size_t short_chain_limit(int n, bool leaders) {
        if (n < 3 || n > chain_members_max) return 0;
        return leaders && n >= 4 ? leaders_chain_max : chain_short_max;
    }

    // A broadcast of bytes from member root's source into every member's dest: down the chain in
    // long segments where the caller asks for it, else by size. A root that keeps source apart
    // from dest sends from source and copies it into its dest while the data goes, with the
    // progress thread driving MPI meanwhile. leaders: the members are the leaders of two levels
    // (a node part's slot).
    void broadcast(MPI_Comm c, int n, int rank, void* dest, const void* source, size_t bytes, int root, bool long_chain,
                   bool leaders) {
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
                [&](MPI_Request* r) { return MPI_Ibcast(const_cast<void*>(from), count, MPI_BYTE, root, c, r); },
                copy_own);
        }
    }

    // The blocks of lengths[i] bytes (every member's alike) by MPI_Iallgatherv straight into dest;
    // a source inside dest goes through a copy. Returns the largest block and the total.
    mpi::p2p_collectives::collected allgatherv(MPI_Comm c, int rank, void* dest, const void* source,
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
            return MPI_Iallgatherv(source, counts[static_cast<size_t>(rank)], MPI_BYTE, dest, counts.data(),
                                   displs.data(), MPI_BYTE, c, r);
        });
        return {largest, at};
    }

    // Starts a non-blocking collective (start(&request), one MPI call) under the lock, calls
    // meanwhile (if any), and waits for it like every wait of the library.
    template <class F> void run_collective(const char* what, F&& start, const std::function<void()>& meanwhile = {}) {
        MPI_Request r = MPI_REQUEST_NULL;
        check(locked([&] { return start(&r); }), what);
        if (meanwhile) meanwhile();
        p2p_.wait_all(&r, 1, what);  // serves requests meanwhile (backoff::pause calls progress())
    }

    // p2p_collectives::alongside's call for help: the progress thread polls MPI without pause
    // while on (progress_loop), woken from its nap if it is in one.
    void help(bool on) {
        if (!thread_.joinable()) return;  // (none yet: before ishmem_init's last barrier)
        if (!on) {
            helping_.fetch_sub(1);
            return;
        }
        if (helping_.fetch_add(1) == 0 && napping_.load()) {
            std::lock_guard<std::mutex> l(nap_mu_);
            nap_cv_.notify_one();
        }
    }

    // f() (one MPI call) with the MPI lock held.
    template <class F> int locked(F&& f) {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        return f();
    }

    char* region_base(uint8_t region) { return region == 0 ? heap_lo_ : state.globals_base; }

    MPI_Comm comm(int team) {
        if (comms_[team] == MPI_COMM_NULL) fatal(routine, "team %d has no communicator on this PE", team);
        return comms_[team];
    }

    void strided(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                 size_t count, int pe) {
        if (!count || !elem) return;
        if (!is_put) complete_posts();
        const void* remote_addr = is_put ? static_cast<const void*>(dest) : source;
        const target t = locate(remote_addr);
        const ptrdiff_t local_stride = is_put ? sstride : dstride, remote_stride = is_put ? dstride : sstride;
        const size_t chunk = static_cast<size_t>(INT_MAX);
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        if (is_put && count <= bounce_max && elem <= bounce_max && elem * count <= bounce_max) {
            // Packed into the ring, like a small contiguous put: no wait for local completion.
            char* copy = bounce(nullptr, elem * count);
            for (size_t i = 0; i < count; ++i)
                std::memcpy(copy + i * elem, static_cast<const char*>(source) + static_cast<ptrdiff_t>(i) * sstride,
                            elem);
            MPI_Datatype remote_type = blocks_type(count, elem, remote_stride);
            check(MPI_Put(copy, static_cast<int>(elem * count), MPI_BYTE, pe, t.disp, 1, remote_type, t.win), "MPI_Put",
                  pe);
            MPI_Type_free(&remote_type);
            dirty_.store(true, std::memory_order_relaxed);
            return;
        }
        for (size_t first = 0; first < count; first += chunk) {
            const int n = static_cast<int>(std::min(chunk, count - first));
            MPI_Datatype local_type = blocks_type(static_cast<size_t>(n), elem, local_stride),
                         remote_type = blocks_type(static_cast<size_t>(n), elem, remote_stride);
            const MPI_Aint disp = t.disp + static_cast<MPI_Aint>(first) * remote_stride;
            if (is_put) {
                const char* src = static_cast<const char*>(source) + static_cast<ptrdiff_t>(first) * sstride;
                check(MPI_Put(src, 1, local_type, pe, disp, 1, remote_type, t.win), "MPI_Put", pe);
            } else {
                char* dst = static_cast<char*>(dest) + static_cast<ptrdiff_t>(first) * dstride;
                check(MPI_Get(dst, 1, local_type, pe, disp, 1, remote_type, t.win), "MPI_Get", pe);
            }
            MPI_Type_free(&local_type);
            MPI_Type_free(&remote_type);
        }
        if (is_put) {
            dirty_.store(true, std::memory_order_relaxed);
            check(MPI_Win_flush_local(pe, t.win), "MPI_Win_flush_local", pe);
        } else {
            check(MPI_Win_flush(pe, t.win), "MPI_Win_flush", pe);
        }
    }

    // Answers the requests that have come in; false when there were none (or another thread serves,
    // or this is the progress thread, held).
    bool serve(bool by_thread = false) {
        std::unique_lock<mpi::mpi_lock> lock(mpi_lock_, std::try_to_lock);
        if (!lock.owns_lock() || (by_thread && held_.load(std::memory_order_acquire))) return false;
        bool any = false;
        for (int k = 0; k < 64; ++k) {
            int flag = 0;
            MPI_Status st;
            check(MPI_Test(&inbox_req_, &flag, &st), "MPI_Test");
            if (!flag) break;
            any = true;
            const am_request r = inbox_.r;
            if (r.data_bytes)  // a put-with-signal: the data, then (a release) the signal
                std::memcpy(region_base(r.data_region) + r.data_disp, inbox_.data, r.data_bytes);
            check(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, tag_request, am_comm_, &inbox_req_),
                  "MPI_Irecv");
            char* p = region_base(r.region) + r.disp;
            const rmw_op op = static_cast<rmw_op>(r.op);
            const uint64_t old = r.size == 4
                                     ? rmw_word<uint32_t>(op, reinterpret_cast<uint32_t*>(p),
                                                          static_cast<uint32_t>(r.value), static_cast<uint32_t>(r.cond))
                                     : rmw_word<uint64_t>(op, reinterpret_cast<uint64_t*>(p), r.value, r.cond);
            if (!r.silent)
                check(MPI_Send(&old, 1, MPI_UINT64_T, st.MPI_SOURCE, r.reply_tag, am_comm_), "MPI_Send", st.MPI_SOURCE);
        }
        return any;
    }

    void progress_loop() {
        unsigned idle = 0;
        long sleep_us = 1;
        while (!stop_.load(std::memory_order_acquire)) {
            if (held_.load(std::memory_order_acquire)) {  // (hold_progress_thread) no MPI call until released
                std::unique_lock<std::mutex> l(nap_mu_);
                nap_cv_.wait_for(l, std::chrono::microseconds(std::max(max_sleep_us_, 100L)));
                continue;
            }
            if (serve(true)) {
                idle = 0;
                sleep_us = 1;
                continue;
            }
            if (helping_.load(std::memory_order_relaxed) > 0) {
                // Poll through the help (serve's MPI_Test drives MPI), then nap again as before:
                // polling on would contend for the MPI lock with the wait that follows the help.
                while (helping_.load(std::memory_order_relaxed) > 0 && !serve(true)) {}
                continue;
            }
            if (++idle < 256 || max_sleep_us_ == 0) {
                sched_yield();
                continue;
            }
            // A nap that help() ends early: napping_ is set before helping_ is read, and
            // helping_ raised before napping_ is read (both sequentially consistent), so one of the
            // two threads sees the other.
            std::unique_lock<std::mutex> l(nap_mu_);
            napping_.store(true);
            nap_cv_.wait_for(l, std::chrono::microseconds(sleep_us), [&] { return helping_.load() > 0; });
            napping_.store(false);
            sleep_us = std::min(sleep_us * 2, max_sleep_us_);
        }
    }

    MPI_Comm am_comm_ = MPI_COMM_NULL;
    std::vector<MPI_Comm> comms_;  // by team slot
    int me_ = 0;
    char* heap_lo_ = nullptr;  // my internal region, then my heap
    size_t heap_bytes_ = 0;
    MPI_Win heap_win_ = MPI_WIN_NULL, globals_win_ = MPI_WIN_NULL;
    std::atomic<bool> dirty_{false};  // puts or nbi gets that a quiet has yet to complete
    // Blocking puts of up to bounce_max bytes go out from copies in this ring (see the top).
    static constexpr size_t bounce_max = 4096, bounce_bytes = size_t{256} << 10;
    std::unique_ptr<char[]> bounce_ring_{new char[bounce_bytes]};
    size_t bounce_used_ = 0;  // under mpi_lock_

    // Non-fetching atomics in flight (amo_post): a ring of their messages until MPI has sent them,
    // and the PEs they went to since the last complete_posts, all under mpi_lock_; posts_out_: there
    // are such PEs (read without the lock).
    struct posted_amo {
        am_message m;
        MPI_Request rq;
        int pe;
    };
    static constexpr int posts_max = 64;
    posted_amo posts_[posts_max];
    int posts_head_ = 0, posts_n_ = 0;
    std::vector<uint8_t> posted_to_;  // by PE
    std::vector<int> posted_pes_;
    std::atomic<bool> posts_out_{false};
    std::mutex completing_;  // one complete_posts at a time

    mpi::mpi_lock mpi_lock_;  // one thread at a time in MPI (see the top of this file)
    mpi::p2p_collectives p2p_{mpi_lock_, [this](bool on) { help(on); }};
    std::vector<size_t> collect_largest_ = std::vector<size_t>(team_slots_max, 0);  // by team slot
    am_message inbox_{};
    MPI_Request inbox_req_ = MPI_REQUEST_NULL;
    std::atomic<uint32_t> next_tag_{0};
    std::atomic<bool> stop_{false};
    std::atomic<bool> held_{false};  // hold_progress_thread
    long max_sleep_us_;
    std::thread thread_;
    // help()'s calls on the progress thread: local work under way, and the thread's nap.
    std::atomic<int> helping_{0};
    std::atomic<bool> napping_{false};
    std::mutex nap_mu_;
    std::condition_variable nap_cv_;
};

}  // namespace

std::unique_ptr<transport> make_mpi_transport(MPI_Comm world, long progress_sleep_us) {
    return std::make_unique<mpi_transport>(world, progress_sleep_us);
}

}  // namespace ishmemi
