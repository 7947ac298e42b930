// Device atomic memory operations.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- AMO -----------------------------------------------------------------------------------------

template <class T> __device__ inline T atomic_fetch(T* source, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_load, source, T(0), T(0), pe);
    return sys_ref(peer_ptr(source, pe)).load(::cuda::std::memory_order_acquire);
}
// Relaxed, like the other non-fetching AMOs: a release here would cost a system-scope fence (a
// round trip over NVLink) on every set; a program that publishes data with a set fences first.
template <class T> __device__ inline void atomic_set(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_store, dest, value, pe);
    sys_ref(peer_ptr(dest, pe)).store(value, ::cuda::std::memory_order_relaxed);
}
template <class T> __device__ inline T atomic_swap(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_swap, dest, value, T(0), pe);
    return sys_ref(peer_ptr(dest, pe)).exchange(value, ::cuda::std::memory_order_relaxed);
}
template <class T> __device__ inline T atomic_compare_swap(T* dest, T cond, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_cswap, dest, value, cond, pe);
    sys_ref(peer_ptr(dest, pe)).compare_exchange_strong(cond, value, ::cuda::std::memory_order_relaxed);
    return cond;  // the old value, whether or not it matched
}
template <class T> __device__ inline T atomic_fetch_add(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_add, dest, value, T(0), pe);
    return sys_ref(peer_ptr(dest, pe)).fetch_add(value, ::cuda::std::memory_order_relaxed);
}
// The non-fetching forms to another node are posted, not waited (complete at quiet).
template <class T> __device__ inline void atomic_add(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_add, dest, value, pe);
    atomic_fetch_add(dest, value, pe);
}
template <class T> __device__ inline T atomic_fetch_inc(T* dest, int pe) { return atomic_fetch_add(dest, T(1), pe); }
template <class T> __device__ inline void atomic_inc(T* dest, int pe) { atomic_add(dest, T(1), pe); }
template <class T> __device__ inline T atomic_fetch_and(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_and, dest, value, T(0), pe);
    return sys_ref(peer_ptr(dest, pe)).fetch_and(value, ::cuda::std::memory_order_relaxed);
}
template <class T> __device__ inline void atomic_and(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_and, dest, value, pe);
    atomic_fetch_and(dest, value, pe);
}
template <class T> __device__ inline T atomic_fetch_or(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_or, dest, value, T(0), pe);
    return sys_ref(peer_ptr(dest, pe)).fetch_or(value, ::cuda::std::memory_order_relaxed);
}
template <class T> __device__ inline void atomic_or(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_or, dest, value, pe);
    atomic_fetch_or(dest, value, pe);
}
template <class T> __device__ inline T atomic_fetch_xor(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo(ishmemi::proxy::rmw_xor, dest, value, T(0), pe);
    return sys_ref(peer_ptr(dest, pe)).fetch_xor(value, ::cuda::std::memory_order_relaxed);
}
template <class T> __device__ inline void atomic_xor(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_amo_post(ishmemi::proxy::rmw_xor, dest, value, pe);
    atomic_fetch_xor(dest, value, pe);
}

// Non-blocking fetching forms: the result lands in *fetch (valid after quiet).
template <class T> __device__ inline void atomic_fetch_nbi(T* fetch, T* source, int pe) {
    *fetch = atomic_fetch(source, pe);
}
template <class T> __device__ inline void atomic_swap_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_swap(dest, value, pe);
}
template <class T> __device__ inline void atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) {
    *fetch = atomic_compare_swap(dest, cond, value, pe);
}
template <class T> __device__ inline void atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) {
    *fetch = atomic_fetch_inc(dest, pe);
}
template <class T> __device__ inline void atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_add(dest, value, pe);
}
template <class T> __device__ inline void atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_and(dest, value, pe);
}
template <class T> __device__ inline void atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_or(dest, value, pe);
}
template <class T> __device__ inline void atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_xor(dest, value, pe);
}

}  // namespace ishmemi::dev
