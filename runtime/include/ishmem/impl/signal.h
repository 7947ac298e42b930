// Put-with-signal and the signal word routines. A signal update is a release operation, so a PE
// that sees it with an acquire load (signal_fetch, signal_wait_until) also sees the data. To a PE of
// another node the data goes first and is complete there before the signal is sent; up to 4 KiB
// of it travel with the signal in one message instead, stored by the target before the signal.
#pragma once

#include <cstdint>

#include "ishmem/impl/amo.h"
#include "ishmem/impl/rma.h"
#include "ishmem/impl/runtime.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi::impl {

inline void signal_set(uint64_t* sig_addr, uint64_t signal, int pe) {
    amo_nofetch(op_store, sig_addr, pe, signal, [&](auto r) {
        r.store(signal, std::memory_order_release);
        return uint64_t{};
    });
}

inline void signal_add(uint64_t* sig_addr, uint64_t signal, int pe) {
    amo_nofetch(op_add, sig_addr, pe, signal, [&](auto r) { return r.fetch_add(signal, std::memory_order_release); });
}

// sig_op is ISHMEM_SIGNAL_SET or ISHMEM_SIGNAL_ADD (checked by the caller).
inline void signal_update(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
    if (sig_op == ISHMEM_SIGNAL_ADD)
        signal_add(sig_addr, signal, pe);
    else
        signal_set(sig_addr, signal, pe);
}

// The signal of a put-with-signal, after the data: to a PE of another node the data is completed
// there first (on this node the release store orders it).
inline void signal_after_data(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
    if (__builtin_expect(is_remote(pe), 0)) remote->flush(pe);
    signal_update(sig_addr, signal, sig_op, pe);
}

inline uint64_t signal_fetch(uint64_t* sig_addr) {
    if (heap_on_gpu()) return gpu_rmw(op_load, sig_addr);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

template <typename T> inline void put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                             uint64_t signal, int sig_op, int pe) {
    // To a PE of another node a small one is a single message: the target stores data, then signal.
    if (__builtin_expect(is_remote(pe), 0) &&
        remote->put_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op == ISHMEM_SIGNAL_ADD, pe))
        return;
    put(dest, source, nelems, pe);
    signal_after_data(sig_addr, signal, sig_op, pe);
}

template <typename T> inline void put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                                 uint64_t signal, int sig_op, int pe) {
    put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);
}

// On a CUDA stream: the copy, then a one-thread kernel that updates the signal (impl/queue.h).
template <typename T> inline ishmem::event put_signal_on_queue(const ishmem::queue& q,
                                                               const std::vector<ishmem::event>& deps, T* dest,
                                                               const T* source, size_t nelems, uint64_t* sig_addr,
                                                               uint64_t signal, int sig_op, int pe) {
    if (__builtin_expect(is_remote(pe), 0))  // (see put_on_queue)
        return enqueue(q, deps, [=] { put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe); });
    return enqueue_copy(q, deps, translate(dest, pe), source, nelems * sizeof(T), source,
                        [=] { put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe); },
                        {translate(sig_addr, pe), signal, sig_op == ISHMEM_SIGNAL_ADD});
}

template <typename T> inline ishmem::event put_signal_nbi_on_queue(const ishmem::queue& q,
                                                                   const std::vector<ishmem::event>& deps, T* dest,
                                                                   const T* source, size_t nelems, uint64_t* sig_addr,
                                                                   uint64_t signal, int sig_op, int pe) {
    return put_signal_on_queue(q, deps, dest, source, nelems, sig_addr, signal, sig_op, pe);
}

// Every thread copies its share; once all shares are in, one thread signals; all return after it.
template <typename T, typename Group> inline void put_signal_work_group(T* dest, const T* source, size_t nelems,
                                                                        uint64_t* sig_addr, uint64_t signal, int sig_op,
                                                                        int pe, const Group& group) {
    put_work_group(dest, source, nelems, pe, group);
    if (group_rank(group) == 0) signal_after_data(sig_addr, signal, sig_op, pe);
    group_sync(group);
}

template <typename T, typename Group> inline void put_signal_nbi_work_group(T* dest, const T* source, size_t nelems,
                                                                            uint64_t* sig_addr, uint64_t signal,
                                                                            int sig_op, int pe, const Group& group) {
    put_signal_work_group(dest, source, nelems, sig_addr, signal, sig_op, pe, group);
}

}  // namespace ishmemi::impl
