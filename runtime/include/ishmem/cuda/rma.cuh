// Device RMA: put, get, p, g, the strided and blocked forms, and their group forms.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- RMA -----------------------------------------------------------------------------------------
// On NVLink a store is issued when it executes: the _nbi forms are the blocking ones, and quiet
// (a system-scope fence) completes both.

template <class T> __device__ inline void put(T* dest, const T* source, size_t nelems, int pe) {
    put_group(dest, source, nelems, pe, single_thread{});
}
template <class T> __device__ inline void get(T* dest, const T* source, size_t nelems, int pe) {
    get_group(dest, source, nelems, pe, single_thread{});
}
template <class T> __device__ inline void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
    if (is_remote(pe)) return remote_put(dest, source, nelems * sizeof(T), pe, true);
    put(dest, source, nelems, pe);
}
template <class T> __device__ inline void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
    get(dest, source, nelems, pe);
}

template <class T>
__device__ inline void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    if (is_remote(pe)) return remote_strided_elems(true, dest, dst, source, sst, nelems, pe);
    strided_group(peer_ptr(dest, pe), source, dst, sst, nelems, single_thread{});
}
template <class T>
__device__ inline void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
    if (is_remote(pe)) return remote_strided_elems(false, dest, dst, source, sst, nelems, pe);
    strided_group(dest, peer_ptr(source, pe), dst, sst, nelems, single_thread{});
}
template <class T> __device__ inline void ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                                                size_t nblocks, int pe) {
    if (is_remote(pe)) return remote_blocks(true, dest, dst, source, sst, bsize, nblocks, pe);
    blocked_group(peer_ptr(dest, pe), source, dst, sst, bsize, nblocks, single_thread{});
}
template <class T> __device__ inline void ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                                                size_t nblocks, int pe) {
    if (is_remote(pe)) return remote_blocks(false, dest, dst, source, sst, bsize, nblocks, pe);
    blocked_group(dest, peer_ptr(source, pe), dst, sst, bsize, nblocks, single_thread{});
}

// p and g: volatile accesses, so that g is never served from a stale cache line.
template <class T> __device__ inline void p(T* dest, T value, int pe) {
    if (is_remote(pe)) return remote_p(dest, value, pe);
    *static_cast<volatile T*>(peer_ptr(dest, pe)) = value;
}
template <class T> __device__ inline T g(const T* source, int pe) {
    if (is_remote(pe)) return remote_g(source, pe);
    return *static_cast<const volatile T*>(peer_ptr(source, pe));
}

// The group forms: the group shares the elements, then meets, so that every thread returns after
// the whole transfer has been issued (get: has arrived).
template <class T, class G>
__device__ inline void put_work_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    put_group(dest, source, nelems, pe, g);
    sync_group(g);
}
template <class T, class G>
__device__ inline void get_work_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    get_group(dest, source, nelems, pe, g);
    sync_group(g);
}
template <class T, class G>
__device__ inline void put_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    put_work_group(dest, source, nelems, pe, g);
}
template <class T, class G>
__device__ inline void get_nbi_work_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    get_work_group(dest, source, nelems, pe, g);
}
template <class T, class G> __device__ inline void iput_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                   ptrdiff_t sst, size_t nelems, int pe, const G& g) {
    if (is_remote(pe))
        return group_then_leader(g, [&] { remote_strided_elems(true, dest, dst, source, sst, nelems, pe); });
    strided_group(peer_ptr(dest, pe), source, dst, sst, nelems, g);
    sync_group(g);
}
template <class T, class G> __device__ inline void iget_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                   ptrdiff_t sst, size_t nelems, int pe, const G& g) {
    if (is_remote(pe))
        return group_then_leader(g, [&] { remote_strided_elems(false, dest, dst, source, sst, nelems, pe); });
    strided_group(dest, peer_ptr(source, pe), dst, sst, nelems, g);
    sync_group(g);
}
template <class T, class G> __device__ inline void ibput_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                    ptrdiff_t sst, size_t bsize, size_t nblocks, int pe,
                                                                    const G& g) {
    if (is_remote(pe))
        return group_then_leader(g, [&] { remote_blocks(true, dest, dst, source, sst, bsize, nblocks, pe); });
    blocked_group(peer_ptr(dest, pe), source, dst, sst, bsize, nblocks, g);
    sync_group(g);
}
template <class T, class G> __device__ inline void ibget_work_group(T* dest, const T* source, ptrdiff_t dst,
                                                                    ptrdiff_t sst, size_t bsize, size_t nblocks, int pe,
                                                                    const G& g) {
    if (is_remote(pe))
        return group_then_leader(g, [&] { remote_blocks(false, dest, dst, source, sst, bsize, nblocks, pe); });
    blocked_group(dest, peer_ptr(source, pe), dst, sst, bsize, nblocks, g);
    sync_group(g);
}

}  // namespace ishmemi::dev
