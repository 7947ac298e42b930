// The MPI transport's progress (overview: transport_mpi.cpp): the target side of the requests (serve),
// the progress thread and its naps.
#include "mpi_transport.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace ishmemi::mpi {

namespace {

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

}  // namespace

void mpi_transport::progress() { serve(); }

void mpi_transport::start_progress_thread() {
    if (!thread_.joinable()) thread_ = std::thread([this] { progress_loop(); });
}

// Returns once no poll of the thread is under way: a poll holds the MPI lock and looks at held_
// under it (serve(true)), so every poll after this lock sees the hold.
void mpi_transport::hold_progress_thread(bool held) {
    held_.store(held, std::memory_order_release);
    if (held) {
        std::lock_guard<mpi::mpi_lock> wait_out(mpi_lock_);
    }
}

// p2p_collectives::alongside's call for help: the progress thread polls MPI without pause
// while on (progress_loop), woken from its nap if it is in one.
void mpi_transport::help(bool on) {
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

// Answers the requests that have come in; false when there were none (or another thread serves,
// or this is the progress thread, held).
bool mpi_transport::serve(bool by_thread) {
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
        if (r.data_bytes) {  // a put-with-signal, am_put or am_put_strided: the data, then (a release) the signal
            char* to = region_base(r.data_region) + r.data_disp;
            if (r.op == am_put_strided)  // (a GPU heap is never a window: copy_heap_strided picks the copy)
                copy_heap_strided(to, static_cast<size_t>(r.cond), inbox_.data, static_cast<size_t>(r.value),
                                  static_cast<size_t>(r.value), r.data_bytes / r.value);
            else if (r.data_region == region_messages)
                copy_heap(to, inbox_.data, r.data_bytes);
            else
                std::memcpy(to, inbox_.data, r.data_bytes);
        }
        check(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, tag_request, am_comm_, &inbox_req_),
              "MPI_Irecv");
        if (r.op == am_put || r.op == am_put_strided) continue;
        if (r.op == am_put_whole || r.op == am_put_whole_strided) {
            serve_put_whole(r, st.MPI_SOURCE);
            continue;
        }
        if (r.op == am_get) {
            serve_get(r, st.MPI_SOURCE);
            continue;
        }
        if (r.op == am_get_strided) {
            serve_get_strided(r, st.MPI_SOURCE);
            continue;
        }
        char* p = region_base(r.region) + r.disp;
        const rmw_op op = static_cast<rmw_op>(r.op);
        uint64_t old;
        if (r.region == region_messages && heap_on_gpu())  // atomic with the GPUs of this node
            old = gpu::rmw(op, p, r.size, r.value, r.cond);
        else
            old = r.size == 4 ? rmw_word<uint32_t>(op, reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(r.value),
                                                   static_cast<uint32_t>(r.cond))
                              : rmw_word<uint64_t>(op, reinterpret_cast<uint64_t*>(p), r.value, r.cond);
        if (!r.silent)
            check(MPI_Send(&old, 1, MPI_UINT64_T, st.MPI_SOURCE, r.reply_tag, am_comm_), "MPI_Send", st.MPI_SOURCE);
    }
    return any;
}

void mpi_transport::progress_loop() {
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

}  // namespace ishmemi::mpi
