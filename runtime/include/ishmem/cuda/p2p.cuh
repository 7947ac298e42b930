// Device point-to-point synchronization: waits and tests on symmetric variables.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- point-to-point synchronization --------------------------------------------------------------

// compare(cmp, value, cmp_value) is the host's (impl/p2p.h), compiled for both.

// Polls are acquire loads at system scope (the variable is written over NVLink): what the writer
// ordered before its write is visible once the load sees it. An acquire load per poll is cheaper
// than relaxed polls ended by an acquire fence, which waits like a system-scope one
// (docs/guide/tuning.rst).
template <class T> __device__ inline T load_acquire(const T* p) {
    return sys_ref(const_cast<T*>(p)).load(::cuda::std::memory_order_acquire);
}

template <class T> struct same_value {
    T value;
    __device__ T operator()(size_t) const { return value; }
};
template <class T> struct value_per_element {
    const T* values;
    __device__ T operator()(size_t i) const { return values[i]; }
};
template <class T> __device__ inline same_value<T> values_of(T v) { return {v}; }
template <class T> __device__ inline value_per_element<T> values_of(const T* v) { return {v}; }

// Where the next _any scan of a set starts (see the host's any_scan_start in impl/p2p.h): a table of
// 64 slots in GPU memory, hashed by the set's address and whether the call blocks.
__device__ inline unsigned long long* any_scan_start(const void* ivars, bool blocking) {
    const unsigned long long h = (reinterpret_cast<uintptr_t>(ivars) * 2 + (blocking ? 1 : 0)) * 0x9E3779B97F4A7C15ull;
    return dstate.any_starts + (h >> 58);
}

template <class T, class V> struct sync_set {
    T* ivars;
    size_t nelems;
    const int* status;
    int cmp;
    V value_of;

    __device__ bool in_set(size_t i) const { return status == nullptr || status[i] == 0; }
    __device__ bool satisfied(size_t i) const { return compare(cmp, load_acquire(ivars + i), value_of(i)); }
    __device__ bool empty() const {
        for (size_t i = 0; i < nelems; ++i)
            if (in_set(i)) return false;
        return true;
    }
    __device__ void wait_all(size_t begin, size_t end, size_t step) const {
        for (size_t i = begin; i < end; i += step)
            if (in_set(i))
                while (!satisfied(i)) {}
    }
    __device__ int test_all() const {
        for (size_t i = 0; i < nelems; ++i)
            if (in_set(i) && !satisfied(i)) return 0;
        return 1;
    }
    __device__ size_t test_any(bool blocking) const {
        if (nelems == 0) return SIZE_MAX;
        unsigned long long* start = any_scan_start(ivars, blocking);
        const size_t s = static_cast<size_t>(sys_ref(start).load(::cuda::std::memory_order_relaxed) % nelems);
        for (size_t k = 0; k < nelems; ++k) {
            const size_t i = s + k < nelems ? s + k : s + k - nelems;
            if (in_set(i) && satisfied(i)) {
                sys_ref(start).store(i + 1, ::cuda::std::memory_order_relaxed);
                return i;
            }
        }
        return SIZE_MAX;
    }
    __device__ size_t test_some(size_t* indices) const {
        size_t count = 0;
        for (size_t i = 0; i < nelems; ++i)
            if (in_set(i) && satisfied(i)) indices[count++] = i;
        return count;
    }
    __device__ size_t wait_any() const {
        if (empty()) return SIZE_MAX;
        for (;;)
            if (size_t i = test_any(true); i != SIZE_MAX) return i;
    }
    __device__ size_t wait_some(size_t* indices) const {
        if (empty()) return 0;
        for (;;)
            if (size_t n = test_some(indices); n != 0) return n;
    }
};

template <class T, class V> __device__ inline sync_set<T, decltype(values_of(V{}))> make_set(T* ivars, size_t nelems,
                                                                                             const int* status, int cmp,
                                                                                             V v) {
    return {ivars, nelems, status, cmp, values_of(v)};
}

template <class T> __device__ inline void wait_until(T* ivar, int cmp, T cmp_value) {
    while (!compare(cmp, load_acquire(ivar), cmp_value)) {}
}
template <class T> __device__ inline int test(T* ivar, int cmp, T cmp_value) {
    return compare(cmp, load_acquire(ivar), cmp_value) ? 1 : 0;
}
template <class T> __device__ inline void wait(T* ivar, T cmp_value) { wait_until(ivar, ISHMEM_CMP_NE, cmp_value); }
__device__ inline uint64_t signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
    for (;;) {
        const uint64_t v = load_acquire(sig_addr);
        if (compare(cmp, v, cmp_value)) return v;
    }
}

template <class T, class V>
__device__ inline void wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    make_set(ivars, nelems, status, cmp, v).wait_all(0, nelems, 1);
}
template <class T, class V>
__device__ inline size_t wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    return make_set(ivars, nelems, status, cmp, v).wait_any();
}
template <class T, class V>
__device__ inline size_t wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, V v) {
    return make_set(ivars, nelems, status, cmp, v).wait_some(indices);
}
template <class T, class V> __device__ inline int test_all(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    return make_set(ivars, nelems, status, cmp, v).test_all();
}
template <class T, class V>
__device__ inline size_t test_any(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    return make_set(ivars, nelems, status, cmp, v).test_any(false);
}
template <class T, class V>
__device__ inline size_t test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, V v) {
    return make_set(ivars, nelems, status, cmp, v).test_some(indices);
}

// Group forms: the leader polls and the others get its result (wait_until_all splits the set).
template <class G, class F> __device__ inline auto leader_then_share(const G& g, F&& f) {
    using R = decltype(f());
    if constexpr (::cuda::std::is_void_v<R>) {
        if (rank_in(g) == 0) f();
        sync_group(g);
    } else {
        R r{};
        if (rank_in(g) == 0) r = f();
        return from_leader(g, r);
    }
}

template <class T, class G> __device__ inline void wait_until_work_group(T* ivar, int cmp, T v, const G& g) {
    leader_then_share(g, [&] { wait_until<T>(ivar, cmp, v); });
}
template <class T, class G> __device__ inline int test_work_group(T* ivar, int cmp, T v, const G& g) {
    return leader_then_share(g, [&] { return test<T>(ivar, cmp, v); });
}
template <class T, class G> __device__ inline void wait_work_group(T* ivar, T v, const G& g) {
    leader_then_share(g, [&] { wait<T>(ivar, v); });
}
template <class G>
__device__ inline uint64_t signal_wait_until_work_group(uint64_t* sig_addr, int cmp, uint64_t v, const G& g) {
    return leader_then_share(g, [&] { return signal_wait_until(sig_addr, cmp, v); });
}
template <class T, class V, class G>
__device__ inline void wait_until_all_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const G& g) {
    make_set(ivars, nelems, status, cmp, v).wait_all(rank_in(g), nelems, threads_of(g));
    sync_group(g);
}
template <class T, class V, class G> __device__ inline size_t wait_until_any_work_group(T* ivars, size_t nelems,
                                                                                        const int* status, int cmp, V v,
                                                                                        const G& g) {
    return leader_then_share(g, [&] { return wait_until_any<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class G>
__device__ inline size_t wait_until_some_work_group(T* ivars, size_t nelems, size_t* indices, const int* status,
                                                    int cmp, V v, const G& g) {
    return leader_then_share(g, [&] { return wait_until_some<T>(ivars, nelems, indices, status, cmp, v); });
}
template <class T, class V, class G>
__device__ inline int test_all_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const G& g) {
    return leader_then_share(g, [&] { return test_all<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class G>
__device__ inline size_t test_any_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const G& g) {
    return leader_then_share(g, [&] { return test_any<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class G> __device__ inline size_t test_some_work_group(T* ivars, size_t nelems,
                                                                                   size_t* indices, const int* status,
                                                                                   int cmp, V v, const G& g) {
    return leader_then_share(g, [&] { return test_some<T>(ivars, nelems, indices, status, cmp, v); });
}

}  // namespace ishmemi::dev
