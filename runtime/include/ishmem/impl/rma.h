// Remote memory access: loads, stores and memcpy through translate() on the peers of this node, the
// transport (impl/transport.h) for PEs of other nodes.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "ishmem/impl/queue.h"
#include "ishmem/impl/runtime.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

// Element types that the CPU loads and stores in one access: p/g use them atomically (relaxed), so
// that a concurrent reader or writer never sees a torn value.
template <typename T>
inline constexpr bool single_access_v = std::is_trivially_copyable_v<T> &&
                                        (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) &&
                                        alignof(T) >= sizeof(T);

namespace impl {

// A copy between a peer's heap and local memory: memcpy on shared host memory, a GPU copy when the
// heap is GPU memory.
inline void copy_bytes(void* dst, const void* src, size_t bytes) {
    if (heap_on_gpu())
        gpu::copy(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

// count elements of `elem` bytes each, element k from src + k * sstride to dst + k * dstride (strides
// in bytes): the strided and blocked transfers.
inline void copy_strided(char* dst, ptrdiff_t dstride, const char* src, ptrdiff_t sstride, size_t elem, size_t count) {
    if (count == 0 || elem == 0) return;
    if (heap_on_gpu()) {
        gpu::copy_2d(dst, static_cast<size_t>(dstride), src, static_cast<size_t>(sstride), elem, count);
        return;
    }
    for (size_t k = 0; k < count; ++k)
        memcpy(dst + static_cast<ptrdiff_t>(k) * dstride, src + static_cast<ptrdiff_t>(k) * sstride, elem);
}

template <typename T> inline void put(T* dest, const T* source, size_t nelems, int pe) {
    if (!nelems) return;
    if (__builtin_expect(is_remote(pe), 0)) return remote->put(dest, source, nelems * sizeof(T), pe, false);
    copy_bytes(translate(dest, pe), source, nelems * sizeof(T));
}

template <typename T> inline void get(T* dest, const T* source, size_t nelems, int pe) {
    if (!nelems) return;
    if (__builtin_expect(is_remote(pe), 0)) return remote->get(dest, source, nelems * sizeof(T), pe, false);
    copy_bytes(dest, translate(source, pe), nelems * sizeof(T));
}

// On shared memory an operation is complete when the copy returns: nbi is the blocking form there.
template <typename T> inline void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
    if (nelems && __builtin_expect(is_remote(pe), 0)) return remote->put(dest, source, nelems * sizeof(T), pe, true);
    put(dest, source, nelems, pe);
}

template <typename T> inline void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
    if (nelems && __builtin_expect(is_remote(pe), 0)) return remote->get(dest, source, nelems * sizeof(T), pe, true);
    get(dest, source, nelems, pe);
}

// The _on_queue forms: copies that a CUDA stream queues itself (impl/queue.h). The nbi forms are the
// same: a stream copy is complete when the stream passes it.
template <typename T> inline ishmem::event put_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                        T* dest, const T* source, size_t nelems, int pe) {
    // A PE of another node has no mapping a stream could copy through: the queue's task calls put.
    if (__builtin_expect(is_remote(pe), 0)) return enqueue(q, deps, [=] { put(dest, source, nelems, pe); });
    return enqueue_copy(q, deps, translate(dest, pe), source, nelems * sizeof(T), source,
                        [=] { put(dest, source, nelems, pe); });
}

template <typename T> inline ishmem::event get_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                        T* dest, const T* source, size_t nelems, int pe) {
    if (__builtin_expect(is_remote(pe), 0)) return enqueue(q, deps, [=] { get(dest, source, nelems, pe); });
    return enqueue_copy(q, deps, dest, translate(source, pe), nelems * sizeof(T), dest,
                        [=] { get(dest, source, nelems, pe); });
}

template <typename T> inline ishmem::event put_nbi_on_queue(const ishmem::queue& q,
                                                            const std::vector<ishmem::event>& deps, T* dest,
                                                            const T* source, size_t nelems, int pe) {
    return put_on_queue(q, deps, dest, source, nelems, pe);
}

template <typename T> inline ishmem::event get_nbi_on_queue(const ishmem::queue& q,
                                                            const std::vector<ishmem::event>& deps, T* dest,
                                                            const T* source, size_t nelems, int pe) {
    return get_on_queue(q, deps, dest, source, nelems, pe);
}

// Strides count elements: dest[i * dst] = source[i * sst].
template <typename T> inline void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    if (__builtin_expect(is_remote(pe), 0))
        return remote->put_strided(dest, dst * ptrdiff_t(sizeof(T)), source, sst * ptrdiff_t(sizeof(T)), sizeof(T),
                                   nelems, pe);
    T* d = translate(dest, pe);
    if (heap_on_gpu()) {
        copy_strided(reinterpret_cast<char*>(d), dst * ptrdiff_t(sizeof(T)), reinterpret_cast<const char*>(source),
                     sst * ptrdiff_t(sizeof(T)), sizeof(T), nelems);
        return;
    }
    for (size_t i = 0; i < nelems; ++i) d[static_cast<ptrdiff_t>(i) * dst] = source[static_cast<ptrdiff_t>(i) * sst];
}

template <typename T> inline void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    if (__builtin_expect(is_remote(pe), 0))
        return remote->get_strided(dest, dst * ptrdiff_t(sizeof(T)), source, sst * ptrdiff_t(sizeof(T)), sizeof(T),
                                   nelems, pe);
    const T* s = translate(source, pe);
    if (heap_on_gpu()) {
        copy_strided(reinterpret_cast<char*>(dest), dst * ptrdiff_t(sizeof(T)), reinterpret_cast<const char*>(s),
                     sst * ptrdiff_t(sizeof(T)), sizeof(T), nelems);
        return;
    }
    for (size_t i = 0; i < nelems; ++i) dest[static_cast<ptrdiff_t>(i) * dst] = s[static_cast<ptrdiff_t>(i) * sst];
}

// nblocks blocks of bsize contiguous elements; block b starts at b * dst in dest, b * sst in source.
template <typename T>
inline void ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) {
    if (__builtin_expect(is_remote(pe), 0))
        return remote->put_strided(dest, dst * ptrdiff_t(sizeof(T)), source, sst * ptrdiff_t(sizeof(T)),
                                   bsize * sizeof(T), nblocks, pe);
    copy_strided(reinterpret_cast<char*>(translate(dest, pe)), dst * ptrdiff_t(sizeof(T)),
                 reinterpret_cast<const char*>(source), sst * ptrdiff_t(sizeof(T)), bsize * sizeof(T), nblocks);
}

template <typename T>
inline void ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) {
    if (__builtin_expect(is_remote(pe), 0))
        return remote->get_strided(dest, dst * ptrdiff_t(sizeof(T)), source, sst * ptrdiff_t(sizeof(T)),
                                   bsize * sizeof(T), nblocks, pe);
    copy_strided(reinterpret_cast<char*>(dest), dst * ptrdiff_t(sizeof(T)),
                 reinterpret_cast<const char*>(translate(source, pe)), sst * ptrdiff_t(sizeof(T)), bsize * sizeof(T),
                 nblocks);
}

template <typename T> inline void p(T* dest, T value, int pe) {
    if (__builtin_expect(is_remote(pe), 0)) return remote->put(dest, &value, sizeof(T), pe, false);
    T* d = translate(dest, pe);
    if (heap_on_gpu())
        gpu::copy(d, &value, sizeof(T));
    else if constexpr (single_access_v<T>)
        __atomic_store(d, &value, __ATOMIC_RELAXED);
    else
        memcpy(d, &value, sizeof(T));
}

template <typename T> inline T g(const T* source, int pe) {
    T value;
    if (__builtin_expect(is_remote(pe), 0)) {
        remote->get(&value, source, sizeof(T), pe, false);
        return value;
    }
    const T* s = translate(source, pe);
    if (heap_on_gpu())
        gpu::copy(&value, s, sizeof(T));
    else if constexpr (single_access_v<T>)
        __atomic_load(s, &value, __ATOMIC_RELAXED);
    else
        memcpy(&value, s, sizeof(T));
    return value;
}

// ---- work_group: the threads of the group share the elements (or blocks), then meet so that every
// thread returns after the whole transfer is complete.

// Runs part(first, count) on this thread's share of [0, n), then waits for the rest of the group.
// For a PE of another node the group's first thread moves all of [0, n) in one transport
// operation: one MPI transfer of the whole, not one per thread, which would only queue the
// threads on MPI's locks (64 threads sharing a 78 KiB put took 20 s over TCP that way).
template <typename Group, typename Part> inline void share_work(const Group& group, size_t n, int pe, Part&& part) {
    if (__builtin_expect(is_remote(pe), 0)) {
        if (group_rank(group) == 0) part(ptrdiff_t{0}, n);
    } else {
        auto [lo, hi] = group_chunk(group, n);
        part(static_cast<ptrdiff_t>(lo), hi - lo);
    }
    group_sync(group);
}

template <typename T, typename Group>
inline void put_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    share_work(group, nelems, pe, [&](ptrdiff_t lo, size_t n) { put(dest + lo, source + lo, n, pe); });
}

template <typename T, typename Group>
inline void get_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    share_work(group, nelems, pe, [&](ptrdiff_t lo, size_t n) { get(dest + lo, source + lo, n, pe); });
}

template <typename T, typename Group>
inline void put_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    put_work_group(dest, source, nelems, pe, group);
}

template <typename T, typename Group>
inline void get_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    get_work_group(dest, source, nelems, pe, group);
}

template <typename T, typename Group> inline void iput_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                  ptrdiff_t sst, size_t nelems, int pe,
                                                                  const Group& group) {
    share_work(group, nelems, pe,
               [&](ptrdiff_t lo, size_t n) { iput(dest + lo * dst, source + lo * sst, dst, sst, n, pe); });
}

template <typename T, typename Group> inline void iget_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                  ptrdiff_t sst, size_t nelems, int pe,
                                                                  const Group& group) {
    share_work(group, nelems, pe,
               [&](ptrdiff_t lo, size_t n) { iget(dest + lo * dst, source + lo * sst, dst, sst, n, pe); });
}

template <typename T, typename Group> inline void ibput_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                   ptrdiff_t sst, size_t bsize, size_t nblocks, int pe,
                                                                   const Group& group) {
    share_work(group, nblocks, pe,
               [&](ptrdiff_t lo, size_t n) { ibput(dest + lo * dst, source + lo * sst, dst, sst, bsize, n, pe); });
}

template <typename T, typename Group> inline void ibget_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                   ptrdiff_t sst, size_t bsize, size_t nblocks, int pe,
                                                                   const Group& group) {
    share_work(group, nblocks, pe,
               [&](ptrdiff_t lo, size_t n) { ibget(dest + lo * dst, source + lo * sst, dst, sst, bsize, n, pe); });
}

}  // namespace impl
}  // namespace ishmemi
