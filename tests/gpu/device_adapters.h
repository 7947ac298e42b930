// What the generated GPU cases (generated/tests/gpu/*_cases.cu) need to run a pattern of
// tests/patterns/ on the CUDA backend:
//  - runners that make an entry point's call in a kernel - on one thread (on_thread), on a thread
//    block of three warps (on_block) or on one warp tile (on_warp) - wait for it with the bounded
//    sync() of gpu_testing.h, and return what every thread of the group returned (they must agree);
//  - the stream that kernels and _on_queue forms of the cases run on (test_stream);
//  - the patterns' memory hooks: the host reads and writes symmetric (GPU) memory with cudaMemcpy,
//    and local buffers handed to adapters are pinned host memory, which kernels reach by address
//    (installed by pattern_memory_hooks.cu for the whole suite).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpu_testing.h"
#include "patterns/common.h"

namespace ishmem_gpu_testing {

// Threads of the group forms: a block of three warps (so that group-wide syncs cross warps) and a
// full warp tile.
inline constexpr unsigned block_threads = 96;
inline constexpr unsigned warp_threads = 32;

// The GPU this PE's heap lives on; every thread of the test selects it before touching GPU memory
// (a new thread's current device is 0).
inline int pe_device() {
    static const int device = [] {
        cudaPointerAttributes a{};
        GPU_CHECK(cudaPointerGetAttributes(&a, ishmemi::state.heap_base));
        return a.device;
    }();
    return device;
}
inline void use_pe_device() {
    thread_local bool set = false;
    if (!set) {
        GPU_CHECK(cudaSetDevice(pe_device()));
        set = true;
    }
}

// The cases' stream: non-blocking, so that the hooks' cudaMemcpy never waits for a spinning kernel.
// Never destroyed: it lives until the process ends, after ishmem_finalize.
inline cudaStream_t test_stream() {
    static const cudaStream_t s = [] {
        use_pe_device();
        cudaStream_t st{};
        GPU_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        return st;
    }();
    return s;
}

namespace detail {

// Pinned host memory for what the threads of a kernel return (one slot per thread).
inline void* result_slots() {
    static void* p = [] {
        void* q = nullptr;
        GPU_CHECK(cudaMallocHost(&q, block_threads * 64));
        return q;
    }();
    return p;
}

template <class R, class F, class G> __device__ void run_and_store(F& f, const G& group, R* out, unsigned rank) {
    if constexpr (std::is_void_v<R>) {
        f(group);
    } else {
        out[rank] = f(group);
    }
}

template <class R, class F> __global__ void thread_kernel(F f, R* out) {
    if constexpr (std::is_void_v<R>)
        f();
    else
        *out = f();
}
template <class R, class F> __global__ void block_kernel(F f, R* out) {
    const auto block = cooperative_groups::this_thread_block();
    run_and_store<R>(f, block, out, block.thread_rank());
}
template <class R, class F> __global__ void warp_kernel(F f, R* out) {
    const auto tile = cooperative_groups::tiled_partition<warp_threads>(cooperative_groups::this_thread_block());
    run_and_store<R>(f, tile, out, tile.thread_rank());
}

// The result slots as an array of R (char for void: the kernels then store nothing).
template <class R> auto* slots() {
    return static_cast<std::conditional_t<std::is_void_v<R>, char, R>*>(result_slots());
}

// Waits for the kernel; returns thread 0's value after checking that all nthreads returned it.
template <class R> R finish(const char* what, unsigned nthreads) {
    GPU_LAUNCHED(what);
    sync(test_stream(), what);
    if constexpr (!std::is_void_v<R>) {
        static_assert(sizeof(R) <= 64, "result slots hold 64 bytes");
        const R* out = static_cast<const R*>(result_slots());
        for (unsigned t = 1; t < nthreads; ++t)
            EXPECT_EQ(std::memcmp(&out[t], &out[0], sizeof(R)), 0)
                << what << ": thread " << t << " of " << nthreads << " returned another value than thread 0";
        return out[0];
    }
}

}  // namespace detail

// f() runs on one GPU thread; returns its value.
template <class R, class F> R on_thread(F f) {
    use_pe_device();
    detail::thread_kernel<R><<<1, 1, 0, test_stream()>>>(f, detail::slots<R>());
    return detail::finish<R>("a kernel of one thread", 1);
}

// f(group) runs on every thread of one thread block; returns their common value.
template <class R, class F> R on_block(F f) {
    use_pe_device();
    detail::block_kernel<R><<<1, block_threads, 0, test_stream()>>>(f, detail::slots<R>());
    return detail::finish<R>("a kernel of one thread block", block_threads);
}

// f(tile) runs on every thread of one warp tile; returns their common value.
template <class R, class F> R on_warp(F f) {
    use_pe_device();
    detail::warp_kernel<R><<<1, warp_threads, 0, test_stream()>>>(f, detail::slots<R>());
    return detail::finish<R>("a kernel of one warp tile", warp_threads);
}

namespace detail {

// Pinned host memory for the patterns' local buffers, kept for reuse: the suite makes some 20,000
// of them per PE, and cudaMallocHost pins pages on every call. Blocks come in power-of-two sizes.
class pinned_blocks {
  public:
    void* take(std::size_t bytes) {
        const unsigned cls = size_class(bytes);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!free_[cls].empty()) {
                void* p = free_[cls].back();
                free_[cls].pop_back();
                return p;
            }
        }
        use_pe_device();
        void* p = nullptr;
        GPU_CHECK(cudaMallocHost(&p, std::size_t{1} << cls));
        std::lock_guard<std::mutex> lock(mutex_);
        class_of_[p] = cls;
        return p;
    }
    void give_back(void* p) {
        std::lock_guard<std::mutex> lock(mutex_);
        free_[class_of_.at(p)].push_back(p);
    }

  private:
    static unsigned size_class(std::size_t bytes) {
        unsigned c = 6;  // 64 bytes at least
        while ((std::size_t{1} << c) < bytes) ++c;
        return c;
    }
    std::mutex mutex_;
    std::vector<void*> free_[64];
    std::unordered_map<void*, unsigned> class_of_;
};
inline pinned_blocks& pinned_pool() {
    static auto* pool = new pinned_blocks;  // never destroyed: buffers may be freed during exit
    return *pool;
}

}  // namespace detail

// Installs the patterns' memory hooks (once, before any test runs; see patterns/common.h):
// pattern_memory_hooks.cu calls it from a static initializer of the GPU suite.
inline bool install_pattern_memory_hooks() {
    using namespace ishmem_testing::patterns;
    sym_hooks.read = [](void* dst, const void* sym, std::size_t bytes) {
        use_pe_device();
        GPU_CHECK(cudaMemcpy(dst, sym, bytes, cudaMemcpyDefault));
    };
    sym_hooks.write = [](void* sym, const void* src, std::size_t bytes) {
        use_pe_device();
        GPU_CHECK(cudaMemcpy(sym, src, bytes, cudaMemcpyDefault));
        settle_default_stream();  // a pageable source: the copy may still be in flight
    };
    local_hooks.alloc = [](std::size_t bytes) { return detail::pinned_pool().take(bytes); };
    local_hooks.free = [](void* p) { detail::pinned_pool().give_back(p); };
    return true;
}

}  // namespace ishmem_gpu_testing
