// The MPI transport (docs/design.rst, 'Scale-out'; impl/transport.h): how a PE reaches the PEs of other nodes.
//
// - RMA: MPI-3 one-sided operations on two windows over the symmetric memory, locked once for the
//   job (passive target, MPI_Win_lock_all): one over the internal region and the heap, one over the
//   executable's symmetric globals. A get is MPI_Get + MPI_Win_flush; the nbi forms are completed by
//   quiet (MPI_Win_flush_all). A blocking put of up to bounce_max bytes is copied into a ring of the
//   transport's own and put from there, so it returns at once, like a put of MPI's own whose buffer
//   the program leaves alone (osc/ucx's MPI_Win_flush_local waits for the target: a round trip);
//   a strided one of up to bounce_max bytes in all is packed there, unless its elements are small
//   enough (strided_pack_max) to go packed in messages that the target unpacks, as on a heap reached
//   by messages (MPI moves a derived datatype one element at a time).
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

#include <memory>

#include "mpi_transport.h"

namespace ishmemi {

namespace mpi {

mpi_transport::mpi_transport(MPI_Comm world, long max_sleep_us) : max_sleep_us_(max_sleep_us) {
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

    // The window covers the internal region, and the heap after it unless the heap is reached by
    // messages (a GPU heap, which MPI need not be able to reach: transport_mpi_messages.cpp).
    heap_lo_ = internal_base(state.my_pe);
    heap_bytes_ = internal_size;
    if (remote_heap_by_messages()) {
        msg_lo_ = state.heap_base;
        msg_bytes_ = heap_on_gpu() ? gpu::heap_span() : state.heap_size;
    } else {
        heap_bytes_ += state.heap_size;  // (the host heap follows its internal region)
    }
    heap_win_ = make_window(heap_lo_, heap_bytes_);
    globals_win_ = make_window(state.globals_base, state.globals_size);  // size 0 where there are none

    check(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, tag_request, am_comm_, &inbox_req_), "MPI_Irecv");
}

mpi_transport::~mpi_transport() {
    complete_posts();
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
    for (std::vector<MPI_Request>* rq : {&origin_rq_[0], &origin_rq_[1], &data_sends_})  // (landed: complete_posts)
        MPI_Waitall(static_cast<int>(rq->size()), rq->data(), MPI_STATUSES_IGNORE);
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

MPI_Win mpi_transport::make_window(void* base, size_t bytes) {
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

// The window and displacement of a symmetric address (the entry points checked that it is one).
mpi_transport::target mpi_transport::locate(const void* addr) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    const uintptr_t m = a - reinterpret_cast<uintptr_t>(msg_lo_);
    if (m < msg_bytes_) return {MPI_WIN_NULL, static_cast<MPI_Aint>(m), region_messages};
    const uintptr_t h = a - reinterpret_cast<uintptr_t>(heap_lo_);
    if (h < heap_bytes_) return {heap_win_, static_cast<MPI_Aint>(h), region_window};
    const uintptr_t g = a - reinterpret_cast<uintptr_t>(state.globals_base);
    if (g < state.globals_size) {
        dirty_.store(true, std::memory_order_relaxed);
        return {globals_win_, static_cast<MPI_Aint>(g), region_globals};
    }
    fatal(routine, "address %p is not symmetric", addr);
}

char* mpi_transport::region_base(uint8_t region) {
    return region == region_window ? heap_lo_ : region == region_globals ? state.globals_base : msg_lo_;
}

MPI_Comm mpi_transport::comm(int team) {
    if (comms_[team] == MPI_COMM_NULL) fatal(routine, "team %d has no communicator on this PE", team);
    return comms_[team];
}

}  // namespace mpi

std::unique_ptr<transport> make_mpi_transport(MPI_Comm world, long progress_sleep_us) {
    return std::make_unique<mpi::mpi_transport>(world, progress_sleep_us);
}

}  // namespace ishmemi
