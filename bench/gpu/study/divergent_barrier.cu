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
//
// Build and run (one GPU; a few seconds each):
//   nvcc -G -std=c++17 -arch=sm_90 bench/gpu/study/divergent_barrier.cu -o /tmp/divergent_barrier_G
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/study/divergent_barrier.cu -o /tmp/divergent_barrier_O3
//   /tmp/divergent_barrier_G && /tmp/divergent_barrier_O3
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>

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

int main() {
    unsigned* wrong = nullptr;
    CK(cudaMalloc(&wrong, sizeof *wrong));
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
    CK(cudaFree(wrong));
    std::printf("# %s\n", failed ? "some barrier let a thread read before thread 0's store" : "every value right");
    return failed ? 1 : 0;
}
