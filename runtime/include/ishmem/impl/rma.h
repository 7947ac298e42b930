// Remote memory access on mapped peers: loads, stores and memcpy through translate().
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

// Element types that the CPU loads and stores in one access: p/g use them atomically (relaxed), so
// that a concurrent reader or writer never sees a torn value.
template <typename T>
inline constexpr bool single_access_v =
    std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) &&
    alignof(T) >= sizeof(T);

namespace impl {

template <typename T>
inline void put(T* dest, const T* source, size_t nelems, int pe) {
    if (nelems) memcpy(translate(dest, pe), source, nelems * sizeof(T));
}

template <typename T>
inline void get(T* dest, const T* source, size_t nelems, int pe) {
    if (nelems) memcpy(dest, translate(source, pe), nelems * sizeof(T));
}

// On shared memory an operation is complete when the copy returns: nbi is the blocking form.
template <typename T>
inline void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
    put(dest, source, nelems, pe);
}

template <typename T>
inline void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
    get(dest, source, nelems, pe);
}

// Strides count elements: dest[i * dst] = source[i * sst].
template <typename T>
inline void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    T* d = translate(dest, pe);
    for (size_t i = 0; i < nelems; ++i) d[static_cast<ptrdiff_t>(i) * dst] = source[static_cast<ptrdiff_t>(i) * sst];
}

template <typename T>
inline void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    const T* s = translate(source, pe);
    for (size_t i = 0; i < nelems; ++i) dest[static_cast<ptrdiff_t>(i) * dst] = s[static_cast<ptrdiff_t>(i) * sst];
}

// nblocks blocks of bsize contiguous elements; block b starts at b * dst in dest, b * sst in source.
template <typename T>
inline void ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) {
    if (bsize == 0) return;
    T* d = translate(dest, pe);
    for (size_t b = 0; b < nblocks; ++b)
        memcpy(d + static_cast<ptrdiff_t>(b) * dst, source + static_cast<ptrdiff_t>(b) * sst, bsize * sizeof(T));
}

template <typename T>
inline void ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) {
    if (bsize == 0) return;
    const T* s = translate(source, pe);
    for (size_t b = 0; b < nblocks; ++b)
        memcpy(dest + static_cast<ptrdiff_t>(b) * dst, s + static_cast<ptrdiff_t>(b) * sst, bsize * sizeof(T));
}

template <typename T>
inline void p(T* dest, T value, int pe) {
    T* d = translate(dest, pe);
    if constexpr (single_access_v<T>)
        __atomic_store(d, &value, __ATOMIC_RELAXED);
    else
        memcpy(d, &value, sizeof(T));
}

template <typename T>
inline T g(const T* source, int pe) {
    const T* s = translate(source, pe);
    T value;
    if constexpr (single_access_v<T>)
        __atomic_load(s, &value, __ATOMIC_RELAXED);
    else
        memcpy(&value, s, sizeof(T));
    return value;
}

// ---- work_group: the threads of the group share the elements (or blocks), then meet so that every
// thread returns after the whole transfer is complete.

// Runs part(first, count) on this thread's share of [0, n), then waits for the rest of the group.
template <typename Group, typename Part>
inline void share_work(const Group& group, size_t n, Part&& part) {
    auto [lo, hi] = group_chunk(group, n);
    part(static_cast<ptrdiff_t>(lo), hi - lo);
    group_sync(group);
}

template <typename T, typename Group>
inline void put_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    share_work(group, nelems, [&](ptrdiff_t lo, size_t n) { put(dest + lo, source + lo, n, pe); });
}

template <typename T, typename Group>
inline void get_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    share_work(group, nelems, [&](ptrdiff_t lo, size_t n) { get(dest + lo, source + lo, n, pe); });
}

template <typename T, typename Group>
inline void put_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    put_work_group(dest, source, nelems, pe, group);
}

template <typename T, typename Group>
inline void get_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group) {
    get_work_group(dest, source, nelems, pe, group);
}

template <typename T, typename Group>
inline void iput_work_group(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                            const Group& group) {
    share_work(group, nelems, [&](ptrdiff_t lo, size_t n) { iput(dest + lo * dst, source + lo * sst, dst, sst, n, pe); });
}

template <typename T, typename Group>
inline void iget_work_group(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                            const Group& group) {
    share_work(group, nelems, [&](ptrdiff_t lo, size_t n) { iget(dest + lo * dst, source + lo * sst, dst, sst, n, pe); });
}

template <typename T, typename Group>
inline void ibput_work_group(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                             int pe, const Group& group) {
    share_work(group, nblocks,
               [&](ptrdiff_t lo, size_t n) { ibput(dest + lo * dst, source + lo * sst, dst, sst, bsize, n, pe); });
}

template <typename T, typename Group>
inline void ibget_work_group(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                             int pe, const Group& group) {
    share_work(group, nblocks,
               [&](ptrdiff_t lo, size_t n) { ibget(dest + lo * dst, source + lo * sst, dst, sst, bsize, n, pe); });
}

}  // namespace impl
}  // namespace ishmemi
