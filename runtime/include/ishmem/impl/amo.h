// Atomic memory operations: std::atomic_ref on the peer's mapping, so they are atomic against every
// PE and thread that uses them on the same object. Fetches acquire, sets release, read-modify-writes
// are acq_rel. On a GPU heap the GPU does them; on a PE of another node that node does them with the
// same CPU atomics (the transport's amo), so they stay atomic against the PEs of that node.
#pragma once

#include <atomic>
#include <cstring>

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/transport.h"

namespace ishmemi {

// The same operation done by the GPU, for a heap in GPU memory (a CPU atomic there is not atomic
// with respect to the GPU's). T has 4 or 8 bytes.
// Calls rmw(op, size, value bits, cond bits) and returns its old-value bits as a T.
template <typename T, class Rmw> inline T rmw_bits(Rmw&& rmw, rmw_op op, T value, T cond) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics done by another agent take 4- or 8-byte words");
    uint64_t v = 0, c = 0, old;
    memcpy(&v, &value, sizeof(T));
    memcpy(&c, &cond, sizeof(T));
    old = rmw(op, unsigned(sizeof(T)), v, c);
    T r;
    memcpy(&r, &old, sizeof(T));
    return r;
}

template <typename T> inline T gpu_rmw(rmw_op op, T* p, T value = T{}, T cond = T{}) {
    return rmw_bits([p](rmw_op o, unsigned size, uint64_t v, uint64_t c) { return gpu::rmw(o, p, size, v, c); }, op,
                    value, cond);
}

// The same operation on dest of PE pe of another node, done there.
template <typename T> inline T remote_rmw(rmw_op op, T* dest, int pe, T value = T{}, T cond = T{}) {
    return rmw_bits(
        [=](rmw_op o, unsigned size, uint64_t v, uint64_t c) { return remote->amo(o, dest, size, v, c, pe); }, op,
        value, cond);
}

// The same non-fetching operation on dest of PE pe of another node: sent, completed by quiet.
template <typename T> inline void remote_post(rmw_op op, T* dest, int pe, T value) {
    rmw_bits(
        [=](rmw_op o, unsigned size, uint64_t v, uint64_t) {
            remote->amo_post(o, dest, size, v, pe);
            return uint64_t{0};
        },
        op, value, T{});
}

}  // namespace ishmemi

namespace ishmemi::impl {

// op on dest of pe: by the GPU on a GPU heap, by pe's node when pe is remote, else cpu(atomic_ref)
// on this PE's mapping of it. Not Fetching: to a PE of another node it is sent and not awaited
// (quiet, fence and gets complete it: the memory-ordering rules of non-fetching atomics), and the
// result is T{}.
template <bool Fetching = true, typename T, class Cpu>
inline T amo(rmw_op op, T* dest, int pe, T value, T cond, Cpu&& cpu) {
    if (__builtin_expect(is_remote(pe), 0)) {
        if constexpr (Fetching) return remote_rmw(op, dest, pe, value, cond);
        remote_post(op, dest, pe, value);
        return T{};
    }
    if (heap_on_gpu()) return gpu_rmw(op, translate(dest, pe), value, cond);
    return cpu(std::atomic_ref<T>(*translate(dest, pe)));
}

template <typename T, class Cpu> inline void amo_nofetch(rmw_op op, T* dest, int pe, T value, Cpu&& cpu) {
    amo<false>(op, dest, pe, value, T{}, cpu);
}

template <typename T> inline T atomic_fetch(T* source, int pe) {
    return amo(op_load, source, pe, T{}, T{}, [](auto r) { return r.load(std::memory_order_acquire); });
}

template <typename T> inline void atomic_set(T* dest, T value, int pe) {
    amo_nofetch(op_store, dest, pe, value, [&](auto r) {
        r.store(value, std::memory_order_release);
        return T{};
    });
}

template <typename T> inline T atomic_swap(T* dest, T value, int pe) {
    return amo(op_swap, dest, pe, value, T{}, [&](auto r) { return r.exchange(value, std::memory_order_acq_rel); });
}

template <typename T> inline T atomic_compare_swap(T* dest, T cond, T value, int pe) {
    return amo(op_cswap, dest, pe, value, cond, [&](auto r) {
        r.compare_exchange_strong(cond, value, std::memory_order_acq_rel, std::memory_order_acquire);
        return cond;  // the old value, whether or not it matched
    });
}

template <typename T> inline T atomic_fetch_add(T* dest, T value, int pe) {
    return amo(op_add, dest, pe, value, T{}, [&](auto r) { return r.fetch_add(value, std::memory_order_acq_rel); });
}

template <typename T> inline T atomic_fetch_inc(T* dest, int pe) { return atomic_fetch_add(dest, T(1), pe); }

template <typename T> inline void atomic_add(T* dest, T value, int pe) {
    amo_nofetch(op_add, dest, pe, value, [&](auto r) { return r.fetch_add(value, std::memory_order_acq_rel); });
}

template <typename T> inline void atomic_inc(T* dest, int pe) { atomic_add(dest, T(1), pe); }

template <typename T> inline T atomic_fetch_and(T* dest, T value, int pe) {
    return amo(op_and, dest, pe, value, T{}, [&](auto r) { return r.fetch_and(value, std::memory_order_acq_rel); });
}

template <typename T> inline void atomic_and(T* dest, T value, int pe) {
    amo_nofetch(op_and, dest, pe, value, [&](auto r) { return r.fetch_and(value, std::memory_order_acq_rel); });
}

template <typename T> inline T atomic_fetch_or(T* dest, T value, int pe) {
    return amo(op_or, dest, pe, value, T{}, [&](auto r) { return r.fetch_or(value, std::memory_order_acq_rel); });
}

template <typename T> inline void atomic_or(T* dest, T value, int pe) {
    amo_nofetch(op_or, dest, pe, value, [&](auto r) { return r.fetch_or(value, std::memory_order_acq_rel); });
}

template <typename T> inline T atomic_fetch_xor(T* dest, T value, int pe) {
    return amo(op_xor, dest, pe, value, T{}, [&](auto r) { return r.fetch_xor(value, std::memory_order_acq_rel); });
}

template <typename T> inline void atomic_xor(T* dest, T value, int pe) {
    amo_nofetch(op_xor, dest, pe, value, [&](auto r) { return r.fetch_xor(value, std::memory_order_acq_rel); });
}

// Non-blocking fetching forms: complete at once on shared memory, the result lands in *fetch.

template <typename T> inline void atomic_fetch_nbi(T* fetch, T* source, int pe) { *fetch = atomic_fetch(source, pe); }

template <typename T> inline void atomic_swap_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_swap(dest, value, pe);
}

template <typename T> inline void atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) {
    *fetch = atomic_compare_swap(dest, cond, value, pe);
}

template <typename T> inline void atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) {
    *fetch = atomic_fetch_inc(dest, pe);
}

template <typename T> inline void atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_add(dest, value, pe);
}

template <typename T> inline void atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_and(dest, value, pe);
}

template <typename T> inline void atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_or(dest, value, pe);
}

template <typename T> inline void atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe) {
    *fetch = atomic_fetch_xor(dest, value, pe);
}

}  // namespace ishmemi::impl
