// What every chapter of the device half uses: errors, addresses, prints, groups and copies.
// Included by device.cuh.
#pragma once

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda/std/type_traits>
#include <stddef.h>
#include <stdint.h>

#include "ishmem/cuda/device_state.h"
#include "ishmem/cuda/remote.cuh"
#include "ishmem/generated/constants.h"
#include "ishmem/impl/print.h"

// Device-side argument checks cost a few compares per call; a build that measures without them
// defines ISHMEM_DEVICE_CHECKS=0.
#ifndef ISHMEM_DEVICE_CHECKS
#define ISHMEM_DEVICE_CHECKS 1
#endif

namespace ishmemi::dev {

namespace cg = cooperative_groups;

template <class T> __device__ inline ::cuda::atomic_ref<T, ::cuda::thread_scope_system> sys_ref(T* p) {
    return ::cuda::atomic_ref<T, ::cuda::thread_scope_system>(*p);
}

// ---- errors --------------------------------------------------------------------------------------

// Leaves the error for the host's watcher (which prints it and ends the process), gives it time to
// do so, then stops the kernel. Never returns, and says so: a branch to it needs no point where the
// warp's threads meet again, which costs every checked g time (docs/guide/tuning.rst).
[[noreturn]] __device__ __noinline__ inline void fail(int code, const char* routine, const char* param, long long a,
                                                      long long b, long long c) {
    ishmemi::cuda::error_mailbox* mb = dstate.mailbox;
    if (mb == nullptr) {
        printf("ishmem: PE ?: %s: called %s (device code)\n", routine,
               dstate.finalized ? "after ishmem_finalize" : "before ishmem_init");
        __trap();
        __builtin_unreachable();
    }
    if (atomicCAS(&mb->state, 0u, 1u) == 0u) {
        int i = 0;
        for (; routine && routine[i] && i < int(sizeof mb->routine) - 1; ++i) mb->routine[i] = routine[i];
        mb->routine[i] = 0;
        i = 0;
        for (; param && param[i] && i < int(sizeof mb->param) - 1; ++i) mb->param[i] = param[i];
        mb->param[i] = 0;
        mb->code = code;
        mb->a = a;
        mb->b = b;
        mb->c = c;
        mb->block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        mb->thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        __threadfence_system();
        atomicExch(&mb->state, 2u);
    }
    // About a second for the watcher (it polls every millisecond) before the kernel traps anyway.
    for (int i = 0; i < 10000; ++i) __nanosleep(100000);
    __trap();
    __builtin_unreachable();
}

// Each check is a predicate (ok_*: true when the argument is good) and a report (check_*: the line
// and the trap when it is not). Entry points test all their predicates at once and call the reports
// only when one fails (generator/targets.py, fused_checks). ISHMEM_DEVICE_CHECKS=0 makes every
// predicate true, so that the compiler drops both.
inline constexpr bool device_checks_on = ISHMEM_DEVICE_CHECKS != 0;
__device__ inline bool ok_init() { return !device_checks_on || dstate.initialized; }
__device__ inline bool ok_pe(int pe) {
    return !device_checks_on || static_cast<unsigned>(pe) < static_cast<unsigned>(dstate.n_pes);
}
// [addr, addr + bytes) inside this PE's heap: see ishmemi::cuda::in_heap.
__device__ inline bool ok_symmetric(const void* addr, size_t bytes) {
    return !device_checks_on || ishmemi::cuda::in_heap(reinterpret_cast<uintptr_t>(addr), bytes,
                                                       reinterpret_cast<uintptr_t>(dstate.heap_base), dstate.heap_size);
}
__device__ inline bool ok_nonnull(const void* p, size_t count) {
    return !device_checks_on || ((p != nullptr) | (count == 0));
}
__device__ inline bool ok_sig_op(int sig_op) {
    return !device_checks_on || ((sig_op == ISHMEM_SIGNAL_SET) | (sig_op == ISHMEM_SIGNAL_ADD));
}
__device__ inline bool ok_cmp(int cmp) {
    return !device_checks_on ||
           static_cast<unsigned>(cmp) - unsigned(ISHMEM_CMP_EQ) <= unsigned(ISHMEM_CMP_LE - ISHMEM_CMP_EQ);
}
__device__ inline bool ok_positive(ptrdiff_t v) { return !device_checks_on || v > 0; }
__device__ inline bool ok_power_of_two(size_t v) { return !device_checks_on || ((v != 0) & ((v & (v - 1)) == 0)); }
// A mask test: see ishmemi::check_aligned. A misaligned atomic would fault the kernel without a word.
__device__ inline bool ok_aligned(const void* addr, size_t align) {
    return !device_checks_on || (reinterpret_cast<uintptr_t>(addr) & (align - 1)) == 0;
}

__device__ inline void check_init(const char* fn) {
    if (__builtin_expect(!ok_init(), 0)) fail(ishmemi::cuda::err_init, fn, nullptr, 0, 0, 0);
}
__device__ inline void check_pe(const char* fn, int pe) {
    if (__builtin_expect(!ok_pe(pe), 0)) fail(ishmemi::cuda::err_pe, fn, nullptr, pe, dstate.n_pes, 0);
}
__device__ inline void check_symmetric(const char* fn, const char* param, const void* addr, size_t bytes) {
    if (__builtin_expect(!ok_symmetric(addr, bytes), 0))
        fail(ishmemi::cuda::err_symmetric, fn, param, static_cast<long long>(reinterpret_cast<uintptr_t>(addr)),
             static_cast<long long>(bytes), 0);
}
__device__ inline void check_nonnull(const char* fn, const char* param, const void* p, size_t count) {
    if (__builtin_expect(!ok_nonnull(p, count), 0))
        fail(ishmemi::cuda::err_nonnull, fn, param, static_cast<long long>(count), 0, 0);
}
__device__ inline void check_sig_op(const char* fn, int sig_op) {
    if (__builtin_expect(!ok_sig_op(sig_op), 0)) fail(ishmemi::cuda::err_sig_op, fn, nullptr, sig_op, 0, 0);
}
__device__ inline void check_cmp(const char* fn, int cmp) {
    if (__builtin_expect(!ok_cmp(cmp), 0)) fail(ishmemi::cuda::err_cmp, fn, nullptr, cmp, 0, 0);
}
__device__ inline void check_positive(const char* fn, const char* param, ptrdiff_t v) {
    if (__builtin_expect(!ok_positive(v), 0)) fail(ishmemi::cuda::err_positive, fn, param, v, 0, 0);
}
__device__ inline void check_power_of_two(const char* fn, const char* param, size_t v) {
    if (__builtin_expect(!ok_power_of_two(v), 0))
        fail(ishmemi::cuda::err_power_of_two, fn, param, static_cast<long long>(v), 0, 0);
}
__device__ inline void check_aligned(const char* fn, const char* param, const void* addr, size_t align) {
    if (__builtin_expect(!ok_aligned(addr, align), 0))
        fail(ishmemi::cuda::err_aligned, fn, param, static_cast<long long>(reinterpret_cast<uintptr_t>(addr)),
             static_cast<long long>(align), 0);
}
// The end of an entry point's failed-check branch, after the reports: one of them has stopped the
// kernel, since each report tests its predicate's own twin. Reached only if that pairing breaks; it
// makes the branch one that never returns.
[[noreturn]] __device__ inline void fail_unreported(const char* fn) {
    fail(ishmemi::cuda::err_unreported, fn, nullptr, 0, 0, 0);
}

// The host's mul_size, strided_extent and blocked_extent (runtime.h): SIZE_MAX where a size overflows.
__device__ inline size_t mul_size(size_t a, size_t b) { return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b; }
__device__ inline size_t strided_extent(size_t nelems, ptrdiff_t stride) {
    if (nelems == 0) return 0;
    const size_t s = stride < 0 ? size_t{0} - static_cast<size_t>(stride) : static_cast<size_t>(stride);
    const size_t span = mul_size(nelems - 1, s);
    return span == SIZE_MAX ? SIZE_MAX : span + 1;
}
__device__ inline size_t blocked_extent(size_t bsize, size_t nblocks, ptrdiff_t stride) {
    if (nblocks == 0 || bsize == 0) return 0;
    const size_t s = stride < 0 ? size_t{0} - static_cast<size_t>(stride) : static_cast<size_t>(stride);
    const size_t span = mul_size(nblocks - 1, s);
    return span > SIZE_MAX - bsize ? SIZE_MAX : span + bsize;
}

// ---- addresses -----------------------------------------------------------------------------------

template <class T> __device__ inline T* peer_ptr(T* addr, int pe) {
    using B = ::cuda::std::conditional_t<::cuda::std::is_const_v<T>, const char, char>;
    return reinterpret_cast<T*>(reinterpret_cast<B*>(addr) +
                                static_cast<long long>(pe - dstate.my_pe) * dstate.peer_stride);
}

__device__ inline int my_pe() { return dstate.my_pe; }
__device__ inline int n_pes() { return dstate.n_pes; }

__device__ inline void* ptr(const void* dest, int pe) {
    uintptr_t off = reinterpret_cast<uintptr_t>(dest) - reinterpret_cast<uintptr_t>(dstate.heap_base);
    if (!dstate.initialized || off >= dstate.heap_size ||
        static_cast<unsigned>(pe) >= static_cast<unsigned>(dstate.n_pes) || is_remote(pe))
        return nullptr;
    return const_cast<void*>(static_cast<const void*>(peer_ptr(static_cast<const char*>(dest), pe)));
}

__device__ inline void info_get_version(int* major, int* minor) {
    *major = ISHMEM_MAJOR_VERSION;
    *minor = ISHMEM_MINOR_VERSION;
}
__device__ inline void info_get_name(char* name) {
    const char* v = ISHMEM_VENDOR_STRING;
    int i = 0;
    for (; v[i] && i < ISHMEM_MAX_NAME_LEN - 1; ++i) name[i] = v[i];
    name[i] = 0;
}

// ---- prints --------------------------------------------------------------------------------------

// ishmemx_print: the message goes to the host through the PE's print ring (print_ring in
// device_state.h), whose watcher prints it as a host call would. A full ring makes the thread wait
// for the host, never drops or overwrites a message. Before ishmem_init and after ishmem_finalize
// there is no ring, and CUDA's printf (standard output, shown at the next synchronization) stands in.
__device__ inline void copy_cut(char* dst, unsigned cap, const char* src, bool keep_end) {
    unsigned n = 0;
    while (src && src[n]) ++n;
    const unsigned from = keep_end && n >= cap ? n - (cap - 1) : 0;
    unsigned i = 0;
    for (; i < cap - 1 && from + i < n; ++i) dst[i] = src[from + i];
    dst[i] = 0;
}

__device__ __noinline__ inline void print(const char* file, long line, const char* func, const char* out, int type) {
    ishmemi::cuda::print_ring* ring = dstate.prints;
    if (ring == nullptr) {
        unsigned n = 0;
        while (out[n]) ++n;
        if (n > 0 && out[n - 1] == '\n')
            printf("%s", out);
        else
            printf("%s\n", out);
        return;
    }
    if (type == ishmemi::print_type_debug && !sys_ref(&ring->debug).load(::cuda::std::memory_order_relaxed)) return;
    const unsigned long long ticket = atomicAdd(dstate.print_tickets, 1ull);
    // The slot is free once the host has printed the message print_slots tickets before this one.
    for (unsigned ns = 32;
         ticket >= sys_ref(&ring->consumed).load(::cuda::std::memory_order_acquire) + ishmemi::cuda::print_slots;
         ns = ns < 8192 ? 2 * ns : ns)
        __nanosleep(ns);
    ishmemi::cuda::print_slot& s = ring->slots[ticket % ishmemi::cuda::print_slots];
    s.line = line;
    s.type = type;
    s.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    s.thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    copy_cut(s.file, sizeof s.file, file, true);
    copy_cut(s.func, sizeof s.func, func, false);
    copy_cut(s.text, sizeof s.text, out, false);
    sys_ref(&s.seq).store(ticket + 1, ::cuda::std::memory_order_release);
}
__device__ inline void print(const char* out, int type) { print(nullptr, 0, nullptr, out, type); }
__device__ inline void print(const char* out) { print(out, ishmemi::print_type_debug); }

// ---- groups --------------------------------------------------------------------------------------

// The calling thread alone: the group of the plain (thread) forms.
struct single_thread {
    __device__ unsigned long long thread_rank() const { return 0; }
    __device__ unsigned long long num_threads() const { return 1; }
    __device__ void sync() const {}
};

template <class G> __device__ inline unsigned rank_in(const G& g) { return static_cast<unsigned>(g.thread_rank()); }
// Whether the calling thread leads g: the one that reports a _work_group form's failed status check.
template <class G> __device__ inline bool group_leads(const G& g) { return g.thread_rank() == 0; }
template <class G> __device__ inline unsigned threads_of(const G& g) { return static_cast<unsigned>(g.num_threads()); }
template <class G> __device__ inline void sync_group(const G& g) { g.sync(); }

// Every thread of g gets the leader's (rank 0's) v.
template <class T> __device__ inline T from_leader(const single_thread&, T v) { return v; }
template <class T> __device__ inline T from_leader(const cg::thread_block& g, T v) {
    __shared__ T slot;
    if (g.thread_rank() == 0) slot = v;
    g.sync();
    T out = slot;
    g.sync();  // nobody overwrites the slot before everyone has read it
    return out;
}
template <class T, unsigned N, class P> __device__ inline T from_leader(const cg::thread_block_tile<N, P>& g, T v) {
    static_assert(N <= 32, "ishmem _work_group forms take tiles of at most 32 threads");
    g.sync();  // orders what the leader wrote to memory (e.g. _some's indices) before the others read it
    return g.shfl(v, 0);
}

// The group's earlier work first (a group barrier), then f on the leader alone, then the group goes
// on once f is done: the shape of the group forms of fence, quiet and the barriers.
template <class G, class F> __device__ inline void group_then_leader(const G& g, F&& f) {
    sync_group(g);
    if (rank_in(g) == 0) f();
    sync_group(g);
}

// ---- copies --------------------------------------------------------------------------------------

// The next narrower word of the copies (see copy_words' tail).
template <class W> struct narrower_word;
template <> struct narrower_word<int4> { using type = unsigned long long; };
template <> struct narrower_word<unsigned long long> { using type = unsigned; };
template <> struct narrower_word<unsigned> { using type = unsigned short; };
template <> struct narrower_word<unsigned short> { using type = unsigned char; };

// A load of a copy. Fresh: it goes past this SM's L1 cache (the source is memory that peers store
// into while one kernel runs).
template <bool Fresh, class T> __device__ inline T copy_load(const T* p) {
    if constexpr (Fresh)
        return __ldcg(p);
    else
        return *p;
}

// A lone thread's tail of a copy: n < sizeof(W) bytes between ends aligned to W, in at most one
// word of each narrower width (8 bytes between 16-byte-aligned ends: one store, not eight). Not
// the full copy loop at each width: inlined four times over, that raised a block-wide put's
// kernel from 56 to 96 registers, too many for a block of 1024 threads.
template <class W, bool Fresh> __device__ inline void copy_tail(char* d, const char* s, size_t n) {
    using N = typename narrower_word<W>::type;
    if (n >= sizeof(N)) {
        *reinterpret_cast<N*>(d) = copy_load<Fresh>(reinterpret_cast<const N*>(s));
        d += sizeof(N), s += sizeof(N), n -= sizeof(N);
    }
    if constexpr (sizeof(N) > 1) copy_tail<N, Fresh>(d, s, n);
}

// Copies n bytes between ends aligned to W, the threads of a group striding over W words with four
// independent loads in flight per thread (Fresh: see copy_load).
// The tail (n not a multiple of W): a lone thread copies it in ever narrower words (copy_tail); a
// group's threads take a byte each, which measured faster for groups than one thread storing
// narrower words.
template <class W, bool Fresh = false>
__device__ inline void copy_words(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    W* dw = reinterpret_cast<W*>(d);
    const W* sw = reinterpret_cast<const W*>(s);
    auto ld = [](const auto* p) { return copy_load<Fresh>(p); };
    const size_t nw = n / sizeof(W);
    size_t i = rank;
    for (; i + 3 * size < nw; i += 4 * size) {
        W a = ld(sw + i), b = ld(sw + i + size), c = ld(sw + i + 2 * size), e = ld(sw + i + 3 * size);
        dw[i] = a;
        dw[i + size] = b;
        dw[i + 2 * size] = c;
        dw[i + 3 * size] = e;
    }
    // Not unrolled: a group's small copy (fewer than 4 words per thread, e.g. a warp's 64 B-1 KiB)
    // spends its time here, and an unrolled loop's trip-count arithmetic sits before its first load.
#pragma unroll 1
    for (; i < nw; i += size) dw[i] = ld(sw + i);
    const size_t done = nw * sizeof(W);
    if constexpr (sizeof(W) > 1) {
        if (size == 1) {
            if (done < n) copy_tail<W, Fresh>(d + done, s + done, n - done);
            return;
        }
    }
    for (size_t j = done + rank; j < n; j += size) d[j] = ld(s + j);
}

// Calls f with a value of the widest word type (16, 8 or 4 bytes, else 1) to which every address
// or-ed into `bits` is aligned.
template <class F> __device__ inline void with_widest_word(uintptr_t bits, F&& f) {
    if ((bits & 15) == 0)
        f(int4{});
    else if ((bits & 7) == 0)
        f(0ull);
    else if ((bits & 3) == 0)
        f(0u);
    else
        f(static_cast<unsigned char>(0));
}

template <bool Fresh = false>
__device__ inline void copy_bytes(void* dst, const void* src, size_t n, unsigned rank, unsigned size) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    with_widest_word(reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s),
                     [&](auto w) { copy_words<decltype(w), Fresh>(d, s, n, rank, size); });
}

// A PE of another node (cuda/remote.cuh): the group's leader posts the whole transfer to the
// proxy once the group has met, and the group goes on when it is done.
template <class T, class G>
__device__ inline void put_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    if (is_remote(pe)) return group_then_leader(g, [&] { remote_put(dest, source, nelems * sizeof(T), pe, false); });
    copy_bytes(peer_ptr(dest, pe), source, nelems * sizeof(T), rank_in(g), threads_of(g));
}
template <class T, class G>
__device__ inline void get_group(T* dest, const T* source, size_t nelems, int pe, const G& g) {
    if (is_remote(pe)) return group_then_leader(g, [&] { remote_get(dest, source, nelems * sizeof(T), pe); });
    copy_bytes(dest, peer_ptr(source, pe), nelems * sizeof(T), rank_in(g), threads_of(g));
}

// Element k of nelems: dest[k * dst] = source[k * sst] (one of the two on PE pe).
template <class T, class G>
__device__ inline void strided_group(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, const G& g) {
    for (size_t k = rank_in(g); k < nelems; k += threads_of(g))
        d[static_cast<ptrdiff_t>(k) * dst] = s[static_cast<ptrdiff_t>(k) * sst];
}
// Block b of nblocks blocks of bsize elements: dest + b * dst <- source + b * sst; the group's
// threads stride over all elements of all blocks.
template <class T, class G> __device__ inline void blocked_group(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,
                                                                 size_t bsize, size_t nblocks, const G& g) {
    const size_t total = bsize * nblocks;
    for (size_t k = rank_in(g); k < total; k += threads_of(g)) {
        const size_t b = k / bsize, e = k % bsize;
        d[static_cast<ptrdiff_t>(b) * dst + static_cast<ptrdiff_t>(e)] =
            s[static_cast<ptrdiff_t>(b) * sst + static_cast<ptrdiff_t>(e)];
    }
}

}  // namespace ishmemi::dev
