// The reductions and the scans in device code: one chunk per member, through the ring, the medium
// stage or direct.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/medium.cuh"
#include "ishmem/cuda/coll/nodes.cuh"
#include "ishmem/cuda/coll/ring.cuh"

namespace ishmemi::dev {
namespace coll {

// Reductions (Scan no_scan) and scans over chunk me() of the array: the elements are read from
// every member before any of their results is stored.

// N elements of T that move as one load or store: 16 bytes (int4) when the arrays allow it.
template <class T, int N> struct alignas(N * sizeof(T)) lanes { T e[N]; };
template <class T, int N> __device__ inline lanes<T, N> load_lanes(const T* p) {
    if constexpr (N == 1) {
        return {load_fresh(p)};
    } else {
        static_assert(N * sizeof(T) == 16, "vector lanes are 16 bytes");
        return ::cuda::std::bit_cast<lanes<T, N>>(__ldcg(reinterpret_cast<const int4*>(p)));
    }
}
template <class T, int N> __device__ inline void store_lanes(T* p, const lanes<T, N>& v) {
    if constexpr (N == 1)
        *p = v.e[0];
    else
        *reinterpret_cast<int4*>(p) = ::cuda::std::bit_cast<int4>(v);
}
template <int Op, class T, int N> __device__ inline lanes<T, N> combine_lanes(lanes<T, N> a, const lanes<T, N>& b) {
#pragma unroll
    for (int i = 0; i < N; ++i) a.e[i] = combine<Op>(a.e[i], b.e[i]);
    return a;
}

// U units of N elements per thread, at units j, j + stride, ...: the U loads of one member are in
// flight together (a load from a peer takes about a microsecond; one at a time, a block would move
// a few GB/s).
template <int Op, int Scan, int N, int U, class T, class G>
__device__ inline void combine_units(const call<G>& k, T* dest, const T* source, size_t j, size_t stride) {
    using L = lanes<T, N>;
    L acc[U], v[U];
    if constexpr (Scan == no_scan) {
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] = load_lanes<T, N>(k.at(source, 0) + (j + u * stride) * N);
        for (int m = 1; m < k.size(); ++m) {
            const T* s = k.at(source, m);
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load_lanes<T, N>(s + (j + u * stride) * N);
#pragma unroll
            for (int u = 0; u < U; ++u) acc[u] = combine_lanes<Op>(acc[u], v[u]);
        }
        for (int m = 0; m < k.size(); ++m) {
            T* d = k.at(dest, m);
#pragma unroll
            for (int u = 0; u < U; ++u) store_lanes(d + (j + u * stride) * N, acc[u]);
        }
    } else {
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] = L{};
        for (int m = 0; m < k.size(); ++m) {
            const T* s = k.at(source, m);
            T* d = k.at(dest, m);
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load_lanes<T, N>(s + (j + u * stride) * N);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if constexpr (Scan == exclusive) store_lanes(d + (j + u * stride) * N, acc[u]);
                acc[u] = combine_lanes<Op>(acc[u], v[u]);
                if constexpr (Scan == inclusive) store_lanes(d + (j + u * stride) * N, acc[u]);
            }
        }
    }
}

// Units [b, e) of N elements, shared by the group's threads.
template <int Op, int Scan, int N, class T, class G>
__device__ inline void combine_range(const call<G>& k, T* dest, const T* source, size_t b, size_t e) {
    constexpr int U = 4;
    const size_t stride = k.threads();
    size_t j = b + k.rank();
    for (; j + (U - 1) * stride < e; j += U * stride) combine_units<Op, Scan, N, U>(k, dest, source, j, stride);
    for (; j < e; j += stride) combine_units<Op, Scan, N, 1>(k, dest, source, j, stride);
}

// The reductions and scans through the stage: every member puts its source into the half of each
// member that needs it, and each combines, in team order, its own source and what it received over
// its ranges (units of N elements, [from, to)), so results are bit-identical on every PE. In place,
// a thread reads each unit before it writes it.
template <int Op, int Scan, int N, class T, class B>
__device__ inline void combine_received(const medium_call<B>& k, T* dest, const T* source, size_t from, size_t to) {
    using L = lanes<T, N>;
    auto at = [&](int j, size_t u) {
        return load_lanes<T, N>((j == k.me() ? source : reinterpret_cast<const T*>(k.received(j))) + u * N);
    };
    for (size_t u = from + k.rank(); u < to; u += k.threads()) {
        if constexpr (Scan == no_scan) {
            L v = at(0, u);
            for (int j = 1; j < k.size(); ++j) v = combine_lanes<Op>(v, at(j, u));
            store_lanes(dest + u * N, v);
        } else {
            L acc{};
            const int last = Scan == inclusive ? k.me() : k.me() - 1;
            for (int j = 0; j <= last; ++j) acc = combine_lanes<Op>(acc, at(j, u));
            store_lanes(dest + u * N, acc);
        }
    }
}
template <int Op, int Scan, class T, class B>
__device__ inline void combine_medium(const medium_call<B>& k, T* dest, const T* source) {
    auto needs = [&](int m, int j) {  // member m combines member j's source
        return Scan == no_scan || (Scan == inclusive ? j <= m : j < m);
    };
    for (int i = 1; i < k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        if (needs(m, k.me())) k.put(m, k.me() * k.stride(), source);
    }
    k.flag([&](int m) { return needs(m, k.me()); });
    k.await([&](int j) { return needs(k.me(), j); });
    constexpr int V = 16 / sizeof(T);
    const bool vec = ((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) & 15) == 0;
    k.each_range([&](size_t b, size_t e) {  // b is a multiple of 16 bytes
        const size_t lo = b / sizeof(T), hi = e / sizeof(T);
        if (vec) {
            const size_t units = (hi - lo) / V;
            combine_received<Op, Scan, V>(k, dest, source, lo / V, lo / V + units);
            combine_received<Op, Scan, 1>(k, dest, source, lo + units * V, hi);
        } else {
            combine_received<Op, Scan, 1>(k, dest, source, lo, hi);
        }
    });
    k.ack();
}

template <int Op, int Scan, class T, class G>
__device__ inline int combine_chunks(const G& g, int team, T* dest, const T* source, size_t n, const char* routine) {
    if (n == 0) return 0;
    if (over_nodes(team)) return combine_nodes<Op, Scan>(g, team, dest, source, n, routine);
    if (via_medium(g, team, dstate.medium_reduce_limit, true, n * sizeof(T), routine,
                   [&](const auto& k) { combine_medium<Op, Scan>(k, dest, source); }))
        return 0;
    call<G> k(g, team, routine);
    if (through_ring<G>(n * sizeof(T) * k.size())) {
        // Every member's whole source comes to every member, which combines in team order (so the
        // results are bit-identical everywhere); in place, each element is read before it is written.
        exchange_ring(
            k, n * sizeof(T), [&](int) { return source; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                auto at = [&](int j, size_t i) {
                    return j == k.me() ? source[i] : ring_element<T>(ring + j * words, i, tag);
                };
                for (size_t i = k.rank(); i < n; i += k.threads()) {
                    if constexpr (Scan == no_scan) {
                        T v = at(0, i);
                        for (int j = 1; j < k.size(); ++j) v = combine<Op>(v, at(j, i));
                        dest[i] = v;
                    } else {
                        T acc{};
                        const int last = Scan == inclusive ? k.me() : k.me() - 1;
                        for (int j = 0; j <= last; ++j) acc = combine<Op>(acc, at(j, i));
                        dest[i] = acc;
                    }
                }
            });
        return 0;
    }
    if (k.leader()) {
        k.tell_others(ready);
        k.await_others(ready);
    }
    k.sync();
    // Chunks of whole 16-byte units when both arrays are 16-byte aligned (the same on every PE:
    // the heap is symmetric); the elements past the last whole unit go to the last member.
    constexpr int V = 16 / sizeof(T);
    const bool vec = ((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) & 15) == 0;
    const size_t unit = vec ? V : 1, units = n / unit;
    const size_t b = units * k.me() / k.size(), e = units * (k.me() + 1) / k.size();
    if (vec) {
        combine_range<Op, Scan, V>(k, dest, source, b, e);
        if (k.me() == k.size() - 1) combine_range<Op, Scan, 1>(k, dest, source, units * V, n);
    } else {
        combine_range<Op, Scan, 1>(k, dest, source, b, e);
    }
    k.signal_done();
    if (k.leader()) k.await_others(done);
    k.finish();
    return 0;
}

}  // namespace coll

// ---- what the generated entry points call ------------------------------------------------------

#define ISHMEMI_DEVICE_REDUCTION(OP)                                                                               \
    template <class T> __device__ inline int OP##_reduce(int team, T* dest, const T* source, size_t nreduce) {     \
        return coll::combine_chunks<coll::op_##OP, coll::no_scan>(single_thread{}, team, dest, source, nreduce,    \
                                                                  "ishmem_" #OP "_reduce");                        \
    }                                                                                                              \
    template <class T, class G>                                                                                    \
    __device__ inline int OP##_reduce_work_group(int team, T* dest, const T* source, size_t nreduce, const G& g) { \
        return coll::combine_chunks<coll::op_##OP, coll::no_scan>(g, team, dest, source, nreduce,                  \
                                                                  "ishmemx_" #OP "_reduce_work_group");            \
    }
ISHMEMI_DEVICE_REDUCTION(and)
ISHMEMI_DEVICE_REDUCTION(or)
ISHMEMI_DEVICE_REDUCTION(xor)
ISHMEMI_DEVICE_REDUCTION(max)
ISHMEMI_DEVICE_REDUCTION(min)
ISHMEMI_DEVICE_REDUCTION(sum)
ISHMEMI_DEVICE_REDUCTION(prod)
#undef ISHMEMI_DEVICE_REDUCTION

template <class T> __device__ inline int sum_inscan(int team, T* dest, const T* source, size_t nelems) {
    return coll::combine_chunks<coll::op_sum, coll::inclusive>(single_thread{}, team, dest, source, nelems,
                                                               "ishmem_sum_inscan");
}
template <class T> __device__ inline int sum_exscan(int team, T* dest, const T* source, size_t nelems) {
    return coll::combine_chunks<coll::op_sum, coll::exclusive>(single_thread{}, team, dest, source, nelems,
                                                               "ishmem_sum_exscan");
}

}  // namespace ishmemi::dev
