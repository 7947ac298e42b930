// Device signals and put-with-signal.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"
#include "ishmem/cuda/rma.cuh"

namespace ishmemi::dev {

// ---- signals -------------------------------------------------------------------------------------

// The signal is written after a system-scope fence: a PE that sees it also sees the data before it.
__device__ inline void signal_update(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
    if (is_remote(pe))  // after this thread's earlier requests to pe, which the target serves in order
        return remote_amo_post(sig_op == ISHMEM_SIGNAL_ADD ? ishmemi::proxy::rmw_add : ishmemi::proxy::rmw_store,
                               sig_addr, signal, pe);
    __threadfence_system();
    auto r = sys_ref(peer_ptr(sig_addr, pe));
    if (sig_op == ISHMEM_SIGNAL_ADD)
        r.fetch_add(signal, ::cuda::std::memory_order_relaxed);
    else
        r.store(signal, ::cuda::std::memory_order_relaxed);
}
__device__ inline void signal_set(uint64_t* sig_addr, uint64_t signal, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_store, sig_addr, signal, pe);
    sys_ref(peer_ptr(sig_addr, pe)).store(signal, ::cuda::std::memory_order_release);
}
__device__ inline void signal_add(uint64_t* sig_addr, uint64_t signal, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_add, sig_addr, signal, pe);
    sys_ref(peer_ptr(sig_addr, pe)).fetch_add(signal, ::cuda::std::memory_order_release);
}
__device__ inline uint64_t signal_fetch(uint64_t* sig_addr) {
    return sys_ref(sig_addr).load(::cuda::std::memory_order_acquire);
}

template <class T> __device__ inline void put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                                     uint64_t signal, int sig_op, int pe) {
    if (is_remote(pe))
        return remote_put_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op == ISHMEM_SIGNAL_ADD, pe,
                                 false);
    put(dest, source, nelems, pe);
    signal_update(sig_addr, signal, sig_op, pe);
}
template <class T> __device__ inline void put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                                         uint64_t signal, int sig_op, int pe) {
    if (is_remote(pe))
        return remote_put_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op == ISHMEM_SIGNAL_ADD, pe,
                                 true);
    put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
// The group copies, meets, and its leader signals; the others need not wait for the signal.
template <class T, class G> __device__ inline void put_signal_work_group(T* dest, const T* source, size_t nelems,
                                                                         uint64_t* sig_addr, uint64_t signal,
                                                                         int sig_op, int pe, const G& g) {
    if (is_remote(pe))
        return group_then_leader(g, [&] {
            remote_put_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op == ISHMEM_SIGNAL_ADD, pe,
                              false);
        });
    put_group(dest, source, nelems, pe, g);
    sync_group(g);
    if (rank_in(g) == 0) signal_update(sig_addr, signal, sig_op, pe);
}
template <class T, class G> __device__ inline void put_signal_nbi_work_group(T* dest, const T* source, size_t nelems,
                                                                             uint64_t* sig_addr, uint64_t signal,
                                                                             int sig_op, int pe, const G& g) {
    put_signal_work_group(dest, source, nelems, sig_addr, signal, sig_op, pe, g);
}

}  // namespace ishmemi::dev
