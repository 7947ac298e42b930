// Study: does a block barrier order one thread's store before the others' loads when they reach
// it while their warp is diverged (its thread 0 still working alone)? That is the shape of every
// block-wide GPU test that fails when device code is built without optimization (-G or
// -Xcicc -O0) and passes when optimized (bench/results/gpu-suite-1gpu-2026-11-29-stop46.txt):
// thread 0 alone makes some calls, then the whole block calls a routine in which thread 0
// stores its result into __shared__ memory before a block barrier and every thread reads it
// after (from_leader in runtime/include/ishmem/cuda/device.cuh). No ishmem here: if this fails
// under -G, the compiler's output does it, not the library.
//
// Variants (a kernel each; every round, thread 0 spins alone for a while and then every thread
// checks the value thread 0 shared; the counts are of wrong values over all threads and rounds):
//   syncthreads  the barriers are __syncthreads()
//   cg           the barriers are cooperative_groups::this_thread_block().sync() (the library's)
//   syncwarp     __syncwarp() before each __syncthreads() (the warp meets before the block)
//   inline       as cg, the sharing function inlined (the optimized library's shape)
//   lib          tests/gpu/p2p_test.cu's empty_sets over a copy of device.cuh's code (sync_set,
//                leader_then_share, from_leader, the entry points' fused checks; its polls bounded):
//                thread 0 alone, inside `if (block.thread_rank() == 0)`, makes the twelve calls on
//                the test's three sets (empty, empty, four elements all masked; round r takes
//                r % 3), then every thread makes the three _work_group calls: wait_until_any
//                (SIZE_MAX) and test_some_vector (0), whose from_leader<size_t> shares one
//                __shared__ slot, then wait_until_all (a part each, one barrier). 3 rounds are the
//                test's; 300 show what follows. Under -G this fails as the test does: lanes 1-31 of
//                warp 0 get 0 from wait_until_any on the masked set. The trigger is thread 0's
//                test_any on that set (the part after `nelems == 0`: the libcu++ system-scope
//                atomic_ref load of the scan start); without the atomic_ref it passed
//   lib_warp_in, lib_warp_read  as lib, with a candidate mitigation in the group forms: the
//                warp meets (__syncwarp) as leader_then_share starts, before its leader works alone
//                (in), or after from_leader's first block barrier, before the slot is read (read)
//   lib_early    as lib, plus a check after the `if`: lanes 1-31 of warp 0 that are past it before
//                thread 0 has finished its calls (counted, not a failure: nothing promises that a
//                warp reconverges there). That check alone makes every value right again
// A lib kernel that does not finish within 20 s is reported as hung and ends the program (exit 3).
//
// Build and run (one GPU; a few seconds each):
//   nvcc -G -std=c++17 -arch=sm_90 bench/gpu/study/divergent_barrier.cu -o /tmp/divergent_barrier_G
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/study/divergent_barrier.cu -o /tmp/divergent_barrier_O3
//   /tmp/divergent_barrier_G && /tmp/divergent_barrier_O3
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "check.h"

namespace cg = cooperative_groups;

enum variant : int { v_syncthreads, v_cg, v_syncwarp, v_inline };
constexpr const char* variant_names[] = {"syncthreads", "cg", "syncwarp", "inline"};

template <int V> __device__ inline void block_barrier() {
    if constexpr (V == v_syncthreads) {
        __syncthreads();
    } else if constexpr (V == v_syncwarp) {
        __syncwarp();
        __syncthreads();
    } else {
        cg::this_thread_block().sync();
    }
}

// Thread 0's work alone: a spin of `cycles` clock ticks, then its value for round r.
__device__ __noinline__ int work_alone(int r, long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    return r * 7 + 1;
}

// Thread 0's v to every thread of the block, as the library's from_leader does it.
template <int V> __device__ inline int share_body(int v) {
    __shared__ int slot;
    if (threadIdx.x == 0) slot = v;
    block_barrier<V>();
    const int out = slot;
    block_barrier<V>();  // nobody overwrites the slot before everyone has read it
    return out;
}
template <int V> __device__ __noinline__ int share_called(int v) { return share_body<V>(v); }

template <int V> __global__ void rounds_kernel(int rounds, long long cycles, unsigned* wrong) {
    unsigned mine = 0;
    for (int r = 1; r <= rounds; ++r) {
        int v = 0;
        if (threadIdx.x == 0) v = work_alone(r, cycles);
        const int got = V == v_inline ? share_body<V>(v) : share_called<V>(v);
        if (got != r * 7 + 1) ++mine;
    }
    atomicAdd(wrong, mine);
}

template <int V> unsigned run(int threads, int rounds, long long cycles, unsigned* wrong) {
    CK(cudaMemset(wrong, 0, sizeof *wrong));
    rounds_kernel<V><<<1, threads>>>(rounds, cycles, wrong);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned h = 0;
    CK(cudaMemcpy(&h, wrong, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

// ---- lib, lib_nospin: the failing test's shape (no ishmem; names after device.cuh's) --------------

__device__ int lib_ivars[4];                             // all 0: no element equals 1
__device__ const int lib_all_masked[4] = {1, 2, -1, 7};  // every element masked out
__device__ const int lib_vals[4] = {1, 1, 1, 1};
__device__ unsigned long long lib_any_starts[64];  // device.cuh's any_scan_start table
__device__ unsigned lib_failed_code;

// The library's fail(): a report, then a trap (never reached here: every argument is good).
__device__ __noinline__ void lib_fail(unsigned code) {
    atomicExch(&lib_failed_code, code);
    __trap();
    __builtin_unreachable();
}
__device__ inline bool lib_ok_nonnull(const void* p, size_t n) { return (p != nullptr) | (n == 0); }
__device__ inline bool lib_ok_cmp(int cmp) { return static_cast<unsigned>(cmp) <= 5u; }
__device__ inline void lib_check_nonnull(const void* p, size_t n) {
    if (__builtin_expect(!lib_ok_nonnull(p, n), 0)) lib_fail(1);
}
// An entry point's fused checks: the reports only when a predicate fails (generator/model.py).
__device__ inline void lib_entry_checks(const void* p, size_t n, int cmp) {
    if (__builtin_expect(!(lib_ok_nonnull(p, n) & lib_ok_cmp(cmp)), 0)) {
        lib_check_nonnull(p, n);
        lib_fail(2);
    }
}

// device.cuh's sys_ref: a system-scope atomic_ref (libcu++), as test_any's start index is read.
template <class T> __device__ inline cuda::atomic_ref<T, cuda::thread_scope_system> lib_sys_ref(T* p) {
    return cuda::atomic_ref<T, cuda::thread_scope_system>(*p);
}
template <class T> __device__ inline T lib_load_acquire(const T* p) {
    T v = *(volatile const T*)p;
    __threadfence();
    return v;
}
template <class T> struct lib_same_value {
    T value;
    __device__ T operator()(size_t) const { return value; }
};
template <class T> struct lib_value_per_element {
    const T* values;
    __device__ T operator()(size_t i) const { return values[i]; }
};
template <class T> __device__ inline lib_same_value<T> lib_values_of(T v) { return {v}; }
template <class T> __device__ inline lib_value_per_element<T> lib_values_of(const T* v) { return {v}; }

// device.cuh's sync_set, its polls bounded (masked elements are skipped: every call ends at once).
constexpr int lib_polls = 1 << 20;
template <class T, class V> struct lib_set {
    T* ivars;
    size_t nelems;
    const int* status;
    int cmp;
    V value_of;

    __device__ bool in_set(size_t i) const { return status == nullptr || status[i] == 0; }
    __device__ bool satisfied(size_t i) const { return (cmp == 0) == (lib_load_acquire(ivars + i) == value_of(i)); }
    __device__ bool empty() const {
        for (size_t i = 0; i < nelems; ++i)
            if (in_set(i)) return false;
        return true;
    }
    // The bound inside a call, so that the loops nest as device.cuh's `while (!satisfied(i)) {}`
    // (an `&&` in the loop's condition is one more level and moves the registers BSSY uses).
    __device__ bool settled(size_t i, int t) const { return t >= lib_polls || satisfied(i); }
    __device__ void wait_all(size_t begin, size_t end, size_t step) const {
        for (size_t i = begin; i < end; i += step)
            if (in_set(i))
                for (int t = 0; !settled(i, t); ++t) {
                }
    }
    __device__ int test_all() const {
        for (size_t i = 0; i < nelems; ++i)
            if (in_set(i) && !satisfied(i)) return 0;
        return 1;
    }
    __device__ size_t test_any(bool blocking) const {
        if (nelems == 0) return SIZE_MAX;
        unsigned long long* start = lib_any_starts + ((reinterpret_cast<uintptr_t>(ivars) * 2 + blocking) % 64);
        const size_t s = static_cast<size_t>(lib_sys_ref(start).load(cuda::std::memory_order_relaxed) % nelems);
        for (size_t k = 0; k < nelems; ++k) {
            const size_t i = s + k < nelems ? s + k : s + k - nelems;
            if (in_set(i) && satisfied(i)) {
                lib_sys_ref(start).store(i + 1, cuda::std::memory_order_relaxed);
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
        for (int t = 0; t < lib_polls; ++t)
            if (size_t i = test_any(true); i != SIZE_MAX) return i;
        return SIZE_MAX;
    }
    __device__ size_t wait_some(size_t* indices) const {
        if (empty()) return 0;
        for (int t = 0; t < lib_polls; ++t)
            if (size_t n = test_some(indices); n != 0) return n;
        return 0;
    }
};
template <class T, class V>
__device__ inline lib_set<T, decltype(lib_values_of(V{}))> lib_make_set(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    return {ivars, nelems, status, cmp, lib_values_of(v)};
}

// from_leader and leader_then_share as in device.cuh.
// Fix (candidate mitigations, see the header): 1 the warp meets (__syncwarp) as the group form
// starts, before the leader works alone; 2 it meets after the first block barrier, before the read.
template <int Fix, class T> __device__ inline T lib_from_leader(const cg::thread_block& g, T v) {
    __shared__ T slot;
    if (g.thread_rank() == 0) slot = v;
    g.sync();
    if constexpr (Fix == 2) __syncwarp();
    T out = slot;
    g.sync();  // nobody overwrites the slot before everyone has read it
    return out;
}
template <int Fix, class F> __device__ inline auto lib_leader_then_share(const cg::thread_block& g, F&& f) {
    if constexpr (Fix == 1) __syncwarp();
    using R = decltype(f());
    if constexpr (std::is_void_v<R>) {
        if (g.thread_rank() == 0) f();
        g.sync();
    } else {
        R r{};
        if (g.thread_rank() == 0) r = f();
        return lib_from_leader<Fix>(g, r);
    }
}

// The entry points that empty_sets calls: thread 0's twelve, then the three _work_group forms.
template <class V> __device__ inline void lib_wait_until_all(int* iv, size_t n, const int* st, V v) {
    lib_entry_checks(iv, n, 0);
    lib_make_set(iv, n, st, 0, v).wait_all(0, n, 1);
}
template <class V> __device__ inline size_t lib_wait_until_any(int* iv, size_t n, const int* st, V v) {
    lib_entry_checks(iv, n, 0);
    return lib_make_set(iv, n, st, 0, v).wait_any();
}
template <class V> __device__ inline size_t lib_wait_until_some(int* iv, size_t n, size_t* idx, const int* st, V v) {
    lib_entry_checks(iv, n, 0);
    return lib_make_set(iv, n, st, 0, v).wait_some(idx);
}
__device__ inline int lib_test_all(int* iv, size_t n, const int* st, int v) {
    lib_entry_checks(iv, n, 0);
    return lib_make_set(iv, n, st, 0, v).test_all();
}
__device__ inline size_t lib_test_any(int* iv, size_t n, const int* st, int v) {
    lib_entry_checks(iv, n, 0);
    return lib_make_set(iv, n, st, 0, v).test_any(false);
}
__device__ inline size_t lib_test_some(int* iv, size_t n, size_t* idx, const int* st, int v) {
    lib_entry_checks(iv, n, 0);
    return lib_make_set(iv, n, st, 0, v).test_some(idx);
}
template <int Fix>
__device__ inline size_t lib_wait_until_any_work_group(int* iv, size_t n, const int* st, int v, const cg::thread_block& g) {
    lib_entry_checks(iv, n, 0);
    return lib_leader_then_share<Fix>(g, [&] { return lib_make_set(iv, n, st, 0, v).wait_any(); });
}
template <int Fix>
__device__ inline size_t lib_test_some_vector_work_group(int* iv, size_t n, size_t* idx, const int* st, const int* v,
                                                         const cg::thread_block& g) {
    lib_entry_checks(iv, n, 0);
    return lib_leader_then_share<Fix>(g, [&] { return lib_make_set(iv, n, st, 0, v).test_some(idx); });
}
__device__ inline void lib_wait_until_all_work_group(int* iv, size_t n, const int* st, int v, const cg::thread_block& g) {
    lib_entry_checks(iv, n, 0);
    lib_make_set(iv, n, st, 0, v).wait_all(g.thread_rank(), n, g.num_threads());
    g.sync();
}

// DEV_EXPECT_EQ's report: a count (the caller's) and an atomic only on a mismatch.
__device__ __noinline__ void lib_report(unsigned* count) { atomicAdd(count, 1u); }
#define LIB_EXPECT(got, want, count)                                           \
    do {                                                                       \
        if (static_cast<long long>(got) != static_cast<long long>(want)) lib_report(count); \
    } while (0)

// wrong[0]: wrong values in warp 0's lanes 1-31; wrong[1]: in thread 0 and the other warps;
// wrong[2]: rounds in which a thread of warp 0 other than 0 was past `if (thread 0)` before
// thread 0 had finished its calls (so the warp did not reconverge there).
template <bool Early, int Fix> __global__ void lib_kernel(int rounds, unsigned* wrong) {
    cg::thread_block block = cg::this_thread_block();
    const unsigned me = block.thread_rank();
    __shared__ size_t shared_idx[4];
    __shared__ volatile int solo_done;
    if (Early) {
        if (me == 0) solo_done = -1;
        block.sync();
    }
    size_t idx[4] = {99, 99, 99, 99};
    struct set_arg {
        int* iv;
        size_t n;
        const int* status;
    };
    const set_arg sets[3] = {{nullptr, 0, nullptr}, {lib_ivars, 0, nullptr}, {lib_ivars, 4, lib_all_masked}};
    unsigned* const count = &wrong[me >= 1 && me < 32 ? 0 : 1];
    for (int r = 0; r < rounds; ++r) {
        const set_arg& a = sets[r % 3];
        if (block.thread_rank() == 0) {
            lib_wait_until_all(a.iv, a.n, a.status, 1);
            lib_wait_until_all(a.iv, a.n, a.status, lib_vals);
            LIB_EXPECT(lib_wait_until_any(a.iv, a.n, a.status, 1), SIZE_MAX, count);
            LIB_EXPECT(lib_wait_until_any(a.iv, a.n, a.status, lib_vals), SIZE_MAX, count);
            LIB_EXPECT(lib_wait_until_some(a.iv, a.n, idx, a.status, 1), 0, count);
            LIB_EXPECT(lib_wait_until_some(a.iv, a.n, idx, a.status, lib_vals), 0, count);
            LIB_EXPECT(lib_test_all(a.iv, a.n, a.status, 1), 1, count);
            LIB_EXPECT(lib_test_any(a.iv, a.n, a.status, 1), SIZE_MAX, count);
            LIB_EXPECT(lib_test_some(a.iv, a.n, idx, a.status, 1), 0, count);
            LIB_EXPECT(idx[0], 99, count);
            if (Early) solo_done = r;
        }
        if (Early && me != 0 && me < 32 && solo_done != r) atomicAdd(&wrong[2], 1u);
        const size_t any = lib_wait_until_any_work_group<Fix>(a.iv, a.n, a.status, 1, block);
        LIB_EXPECT(any, SIZE_MAX, count);
        const size_t some = lib_test_some_vector_work_group<Fix>(a.iv, a.n, shared_idx, a.status, lib_vals, block);
        LIB_EXPECT(some, 0, count);
        lib_wait_until_all_work_group(a.iv, a.n, a.status, 1, block);
    }
}

// Launches lib_kernel<Early, Fix>; its three counts, or exit 3 if it has not finished within 20 s.
template <bool Early, int Fix> void run_lib(const char* name, int threads, int rounds, unsigned* wrong, unsigned out[3]) {
    CK(cudaMemset(wrong, 0, 3 * sizeof *wrong));
    lib_kernel<Early, Fix><<<1, threads>>>(rounds, wrong);
    CK(cudaGetLastError());
    const auto t0 = std::chrono::steady_clock::now();
    cudaError_t e;
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(20)) {
            std::printf("%s %d: hung (not finished in 20 s)\n", name, threads);
            std::fflush(stdout);
            std::_Exit(3);
        }
    }
    CK(e);
    CK(cudaMemcpy(out, wrong, 3 * sizeof *wrong, cudaMemcpyDeviceToHost));
}

int main() {
    unsigned* wrong = nullptr;
    CK(cudaMalloc(&wrong, 3 * sizeof *wrong));
    constexpr int rounds = 200;
    constexpr long long cycles = 20000;
#ifdef __CUDACC_DEBUG__
    std::printf("# divergent_barrier: device code built with -G\n");
#else
    std::printf("# divergent_barrier: device code optimized\n");
#endif
    std::printf("# variant, threads, wrong values of %d rounds x threads\n", rounds);
    int failed = 0;
    for (int threads : {64, 256, 512}) {
        const unsigned w[] = {run<v_syncthreads>(threads, rounds, cycles, wrong), run<v_cg>(threads, rounds, cycles, wrong),
                              run<v_syncwarp>(threads, rounds, cycles, wrong), run<v_inline>(threads, rounds, cycles, wrong)};
        for (int k = 0; k < 4; ++k) {
            std::printf("%-12s %4d %8u\n", variant_names[k], threads, w[k]);
            failed += w[k] != 0;
        }
    }
    // The test's three rounds (one of each set), then 300; wrong values of lanes 1-31 of warp 0, of the
    // other threads, and (lib_early) how many of lanes 1-31 were past the `if` too early.
    std::printf("# variant, threads, rounds, wrong values: warp 0 lanes 1-31, the others; lanes past the if early\n");
    for (int threads : {64, 256}) {
        for (int lib_rounds : {3, 300}) {
            constexpr const char* names[] = {"lib", "lib_early", "lib_warp_in", "lib_warp_read"};
            unsigned w[4][3];
            run_lib<false, 0>(names[0], threads, lib_rounds, wrong, w[0]);
            run_lib<true, 0>(names[1], threads, lib_rounds, wrong, w[1]);
            run_lib<false, 1>(names[2], threads, lib_rounds, wrong, w[2]);
            run_lib<false, 2>(names[3], threads, lib_rounds, wrong, w[3]);
            for (int k = 0; k < 4; ++k) {
                std::printf("%-13s %4d %4d %8u %8u %8u\n", names[k], threads, lib_rounds, w[k][0], w[k][1], w[k][2]);
                failed += w[k][0] + w[k][1] != 0;  // lanes early: allowed (no reconvergence is promised)
            }
        }
    }
    CK(cudaFree(wrong));
    std::printf("# %s\n", failed ? "some barrier let a thread read before thread 0's store" : "every value right");
    return failed ? 1 : 0;
}
