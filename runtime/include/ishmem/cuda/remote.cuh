// Device operations on PEs of other nodes (docs/design.rst, 'Scale-out'): a GPU thread cannot call
// the transport, so it posts each operation into its PE's proxy ring (impl/proxy_ring.h, in mapped
// pinned host memory), and the PE's proxy thread performs it through the same transport as the
// host's calls (runtime/src/proxy.cpp). Requests of one thread reach the transport in the order
// posted; fence posts the transport's fence, quiet a waited quiet. Blocking puts wait for the proxy
// to have read their source, gets and fetching atomics for the answer.
//
// On a job of one node dstate.pe_remote and dstate.proxy are null: is_remote is one load from
// constant memory and a compare, and the NVLink paths stay as they were.
#pragma once

#if !defined(__CUDACC__)
#error "ishmem/cuda/remote.cuh is for nvcc"
#endif

#include <stddef.h>
#include <stdint.h>

#include "ishmem/cuda/device_state.h"
#include "ishmem/cuda/proxy_post.cuh"

namespace ishmemi::dev {

// True when pe's heap is not mapped here (a PE of another node).
__device__ inline bool is_remote(int pe) { return dstate.pe_remote != nullptr && dstate.pe_remote[pe] != 0; }
// True when the job spans nodes: fence and quiet then also order and complete proxied operations.
__device__ inline bool has_remote_pes() { return dstate.proxy != nullptr; }

__device__ inline uint64_t remote_addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

__device__ inline ishmemi::proxy::request remote_request(uint8_t op, int pe) {
    ishmemi::proxy::request q{};
    q.op = op;
    q.pe = pe;
    return q;
}

__device__ inline uint64_t remote_call(const ishmemi::proxy::request& q) {
    return proxy_call(dstate.proxy, dstate.proxy_tickets, q);
}

// The bits of a value of up to 8 bytes, and back: AMO operands and inline data travel as words.
template <class T> __device__ inline uint64_t to_word(T v) {
    static_assert(sizeof(T) <= 8, "a word holds at most 8 bytes");
    uint64_t w = 0;
    memcpy(&w, &v, sizeof v);
    return w;
}
template <class T> __device__ inline T from_word(uint64_t w) {
    T v;
    memcpy(&v, &w, sizeof v);
    return v;
}

// ---- ordering -----------------------------------------------------------------------------------------

__device__ inline void remote_fence() { remote_call(remote_request(ishmemi::proxy::req_fence, -1)); }
__device__ inline void remote_quiet() { remote_call(remote_request(ishmemi::proxy::req_quiet, -1)); }

// ---- RMA ------------------------------------------------------------------------------------------

// Local, shared and constant memory (a thread's stack, __shared__ arrays) have addresses only inside
// the GPU, which the proxy thread cannot read or write. Data there travels in the requests
// themselves, 8 bytes per request (flag_inline, as p and g), so a user's put from a stack array or
// get into a __shared__ buffer works on any PE; global memory (the heap, cudaMalloc'ed or mapped
// host memory) travels by address.
__device__ inline bool proxy_reaches(const void* p) { return __isGlobal(p) != 0; }

// One word (up to 8 bytes) in the request itself (flag_inline): a posted put, complete at quiet like
// a store over NVLink, and a get whose data comes back as the answer. p, g and the word loops below.
__device__ inline void remote_put_word(void* dest, uint64_t word, size_t n, int pe) {
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_put, pe);
    q.dest = remote_addr(dest), q.bytes = n, q.value = word;
    q.flags = ishmemi::proxy::flag_inline | ishmemi::proxy::flag_nbi;
    remote_call(q);
}
__device__ inline uint64_t remote_get_word(const void* source, size_t n, int pe) {
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_get, pe);
    q.source = remote_addr(source), q.bytes = n, q.flags = ishmemi::proxy::flag_inline;
    return remote_call(q);
}

// `bytes` from or into memory the proxy cannot reach, a word per request.
__device__ inline void remote_put_words(void* dest, const void* source, size_t bytes, int pe) {
    for (size_t at = 0; at < bytes; at += 8) {
        const size_t n = bytes - at < 8 ? bytes - at : 8;
        uint64_t w = 0;
        memcpy(&w, static_cast<const char*>(source) + at, n);
        remote_put_word(static_cast<char*>(dest) + at, w, n, pe);
    }
}
__device__ inline void remote_get_words(void* dest, const void* source, size_t bytes, int pe) {
    for (size_t at = 0; at < bytes; at += 8) {
        const size_t n = bytes - at < 8 ? bytes - at : 8;
        const uint64_t w = remote_get_word(static_cast<const char*>(source) + at, n, pe);
        memcpy(static_cast<char*>(dest) + at, &w, n);
    }
}

// source is read by the proxy: a blocking put waits until it has been (the caller may reuse it at
// once), an nbi one returns when posted (complete at quiet, as the spec allows).
__device__ inline void remote_put(void* dest, const void* source, size_t bytes, int pe, bool nbi) {
    if (bytes == 0) return;
    if (!proxy_reaches(source)) return remote_put_words(dest, source, bytes, pe);
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_put, pe);
    q.dest = remote_addr(dest), q.source = remote_addr(source), q.bytes = bytes;
    q.flags = nbi ? ishmemi::proxy::flag_nbi : 0;
    remote_call(q);
}
__device__ inline void remote_get(void* dest, const void* source, size_t bytes, int pe) {
    if (bytes == 0) return;
    if (!proxy_reaches(dest)) return remote_get_words(dest, source, bytes, pe);
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_get, pe);
    q.dest = remote_addr(dest), q.source = remote_addr(source), q.bytes = bytes;
    remote_call(q);
}
// p and g: the value travels in the request and the answer (a register has no address the proxy
// can reach).
template <class T> __device__ inline void remote_p(T* dest, T value, int pe) {
    remote_put_word(dest, to_word(value), sizeof(T), pe);
}
template <class T> __device__ inline T remote_g(const T* source, int pe) {
    return from_word<T>(remote_get_word(source, sizeof(T), pe));
}
// count elements of elem bytes, element k between dest + k * dstride and source + k * sstride
// (strides in bytes); blocking.
__device__ inline void remote_strided(bool put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                                      size_t elem, size_t count, int pe) {
    if (count == 0) return;
    if (!proxy_reaches(put ? source : dest)) {  // element by element, in words
        for (size_t k = 0; k < count; ++k) {
            char* d = static_cast<char*>(dest) + static_cast<ptrdiff_t>(k) * dstride;
            const char* s = static_cast<const char*>(source) + static_cast<ptrdiff_t>(k) * sstride;
            if (put)
                remote_put_words(d, s, elem, pe);
            else
                remote_get_words(d, s, elem, pe);
        }
        return;
    }
    ishmemi::proxy::request q =
        remote_request(put ? ishmemi::proxy::req_put_strided : ishmemi::proxy::req_get_strided, pe);
    q.dest = remote_addr(dest), q.source = remote_addr(source), q.bytes = elem, q.value = count;
    q.cond = static_cast<uint64_t>(dstride), q.sig_addr = static_cast<uint64_t>(sstride);
    remote_call(q);
}

// The strided forms in elements: element k between dest + k * dst and source + k * sst.
template <class T> __device__ inline void remote_strided_elems(bool put, T* dest, ptrdiff_t dst, const T* source,
                                                               ptrdiff_t sst, size_t nelems, int pe) {
    remote_strided(put, dest, dst * static_cast<ptrdiff_t>(sizeof(T)), source, sst * static_cast<ptrdiff_t>(sizeof(T)),
                   sizeof(T), nelems, pe);
}
// The blocked forms: nblocks contiguous transfers of bsize elements, block b between dest + b * dst
// and source + b * sst (blocking, as the strided ones).
template <class T> __device__ inline void remote_blocks(bool put, T* dest, ptrdiff_t dst, const T* source,
                                                        ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) {
    for (size_t b = 0; b < nblocks; ++b) {
        T* d = dest + static_cast<ptrdiff_t>(b) * dst;
        const T* s = source + static_cast<ptrdiff_t>(b) * sst;
        if (put)
            remote_put(d, s, bsize * sizeof(T), pe, false);
        else
            remote_get(d, s, bsize * sizeof(T), pe);
    }
}

// ---- AMOs and signals -------------------------------------------------------------------------------

// A fetching atomic (op: an ishmemi::proxy::rmw_code), done by the target's node so that it is atomic
// with the atomics of that node's GPUs; returns the old value.
template <class T> __device__ inline T remote_amo(uint8_t op, T* dest, T value, T cond, int pe) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "remote atomics are on words of 4 or 8 bytes");
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_amo, pe);
    q.rmw = op, q.size = sizeof(T), q.dest = remote_addr(dest), q.value = to_word(value), q.cond = to_word(cond);
    return from_word<T>(remote_call(q));
}
// A non-fetching one: posted, complete at quiet.
template <class T> __device__ inline void remote_amo_post(uint8_t op, T* dest, T value, int pe) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "remote atomics are on words of 4 or 8 bytes");
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_amo_post, pe);
    q.rmw = op, q.size = sizeof(T), q.dest = remote_addr(dest), q.value = to_word(value);
    remote_call(q);
}
// The data, then the signal (set, or add when add), as one request: the target sees the signal
// only after the data. Blocking unless nbi, as remote_put.
__device__ inline void remote_put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                         uint64_t signal, bool add, int pe, bool nbi) {
    if (bytes != 0 && !proxy_reaches(source)) {  // the words, a fence, then the signal
        remote_put_words(dest, source, bytes, pe);
        remote_fence();
        return remote_amo_post(add ? ishmemi::proxy::rmw_add : ishmemi::proxy::rmw_store, sig_addr, signal, pe);
    }
    ishmemi::proxy::request q = remote_request(ishmemi::proxy::req_put_signal, pe);
    q.dest = remote_addr(dest), q.source = remote_addr(source), q.bytes = bytes;
    q.sig_addr = remote_addr(sig_addr), q.value = signal;
    q.flags = static_cast<uint8_t>((add ? ishmemi::proxy::flag_add : 0) | (nbi ? ishmemi::proxy::flag_nbi : 0));
    remote_call(q);
}

}  // namespace ishmemi::dev
