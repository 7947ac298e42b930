// Atomic memory operations: std::atomic_ref on the peer's mapping, so they are atomic against every
// PE and thread that uses them on the same object. Fetches acquire, sets release, read-modify-writes
// are acq_rel.
#pragma once

#include <atomic>
#include <cstring>

#include "ishmem/impl/runtime.h"

namespace ishmemi {

// The same operation done by the GPU, for a heap in GPU memory (a CPU atomic there is not atomic
// with respect to the GPU's). T has 4 or 8 bytes.
template <typename T>
inline T gpu_rmw(gpu::rmw_op op, T* p, T value = T{}, T cond = T{}) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "GPU atomics take 4- or 8-byte words");
    uint64_t v = 0, c = 0, old;
    memcpy(&v, &value, sizeof(T));
    memcpy(&c, &cond, sizeof(T));
    old = gpu::rmw(op, p, sizeof(T), v, c);
    T r;
    memcpy(&r, &old, sizeof(T));
    return r;
}

}  // namespace ishmemi

namespace ishmemi::impl {

template <typename T>
inline std::atomic_ref<T> amo_ref(T* dest, int pe) {
    return std::atomic_ref<T>(*translate(dest, pe));
}

template <typename T>
inline T atomic_fetch(T* source, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_load, translate(source, pe));
    return amo_ref(source, pe).load(std::memory_order_acquire);
}

template <typename T>
inline void atomic_set(T* dest, T value, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_store, translate(dest, pe), value);
        return;
    }
    amo_ref(dest, pe).store(value, std::memory_order_release);
}

template <typename T>
inline T atomic_swap(T* dest, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_swap, translate(dest, pe), value);
    return amo_ref(dest, pe).exchange(value, std::memory_order_acq_rel);
}

template <typename T>
inline T atomic_compare_swap(T* dest, T cond, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_cswap, translate(dest, pe), value, cond);
    amo_ref(dest, pe).compare_exchange_strong(cond, value, std::memory_order_acq_rel, std::memory_order_acquire);
    return cond;  // the old value, whether or not it matched
}

template <typename T>
inline T atomic_fetch_inc(T* dest, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_add, translate(dest, pe), T(1));
    return amo_ref(dest, pe).fetch_add(T(1), std::memory_order_acq_rel);
}

template <typename T>
inline void atomic_inc(T* dest, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_add, translate(dest, pe), T(1));
        return;
    }
    amo_ref(dest, pe).fetch_add(T(1), std::memory_order_acq_rel);
}

template <typename T>
inline T atomic_fetch_add(T* dest, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_add, translate(dest, pe), value);
    return amo_ref(dest, pe).fetch_add(value, std::memory_order_acq_rel);
}

template <typename T>
inline void atomic_add(T* dest, T value, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_add, translate(dest, pe), value);
        return;
    }
    amo_ref(dest, pe).fetch_add(value, std::memory_order_acq_rel);
}

template <typename T>
inline T atomic_fetch_and(T* dest, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_and, translate(dest, pe), value);
    return amo_ref(dest, pe).fetch_and(value, std::memory_order_acq_rel);
}

template <typename T>
inline void atomic_and(T* dest, T value, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_and, translate(dest, pe), value);
        return;
    }
    amo_ref(dest, pe).fetch_and(value, std::memory_order_acq_rel);
}

template <typename T>
inline T atomic_fetch_or(T* dest, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_or, translate(dest, pe), value);
    return amo_ref(dest, pe).fetch_or(value, std::memory_order_acq_rel);
}

template <typename T>
inline void atomic_or(T* dest, T value, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_or, translate(dest, pe), value);
        return;
    }
    amo_ref(dest, pe).fetch_or(value, std::memory_order_acq_rel);
}

template <typename T>
inline T atomic_fetch_xor(T* dest, T value, int pe) {
    if (heap_on_gpu()) return gpu_rmw(gpu::op_xor, translate(dest, pe), value);
    return amo_ref(dest, pe).fetch_xor(value, std::memory_order_acq_rel);
}

template <typename T>
inline void atomic_xor(T* dest, T value, int pe) {
    if (heap_on_gpu()) {
        gpu_rmw(gpu::op_xor, translate(dest, pe), value);
        return;
    }
    amo_ref(dest, pe).fetch_xor(value, std::memory_order_acq_rel);
}

// Non-blocking fetching forms: complete at once on shared memory, the result lands in *fetch.

template <typename T>
inline void atomic_fetch_nbi(T* fetch, T* source, int pe) {
    *fetch = atomic_fetch(source, pe);
}

template <typename T>
inline void atomic_swap_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_swap(dest, value, pe);
}

template <typename T>
inline void atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) {
    *fetch = atomic_compare_swap(dest, cond, value, pe);
}

template <typename T>
inline void atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) {
    *fetch = atomic_fetch_inc(dest, pe);
}

template <typename T>
inline void atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_add(dest, value, pe);
}

template <typename T>
inline void atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_and(dest, value, pe);
}

template <typename T>
inline void atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_or(dest, value, pe);
}

template <typename T>
inline void atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_xor(dest, value, pe);
}

}  // namespace ishmemi::impl
