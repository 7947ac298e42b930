// GPU threads' side of the proxy's request ring (impl/proxy_ring.h): the memory policy and the
// wait with which device code posts requests into a ring in mapped pinned host memory, which the
// proxy thread of its PE serves. A request is published with a system-scope release, so the host
// sees it whole once it sees its sequence word; an answer is read after a system-scope acquire.
#pragma once

#if !defined(__CUDACC__)
#error "ishmem/cuda/proxy_post.cuh is for nvcc"
#endif

#include <cuda/atomic>
#include <stdint.h>

#include "ishmem/impl/proxy_ring.h"

namespace ishmemi::dev {

struct proxy_device_mem {
    __device__ static ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_system> ref(const uint64_t* p) {
        return ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_system>(*const_cast<uint64_t*>(p));
    }
    __device__ static uint64_t load_acquire(const uint64_t* p) {
        return ref(p).load(::cuda::std::memory_order_acquire);
    }
    __device__ static void store_release(uint64_t* p, uint64_t v) {
        ref(p).store(v, ::cuda::std::memory_order_release);
    }
};

// Backs off up to a few microseconds between polls: the proxy answers across PCIe in about that.
struct proxy_device_wait {
    unsigned ns = 32;
    __device__ void pause() {
        __nanosleep(ns);
        ns = ns < 4096 ? 2 * ns : ns;
    }
};

// Posts q from this thread; for a waited request, waits for the proxy and returns its answer.
// tickets: the ring's ticket counter, in GPU memory (every poster of the ring is a thread of this
// GPU): a device atomic on it is atomic among them, which one on mapped host memory need not be.
__device__ inline uint64_t proxy_call_alone(ishmemi::proxy::ring_header* ring, unsigned long long* tickets,
                                            const ishmemi::proxy::request& q) {
    const uint64_t t = atomicAdd(tickets, 1ull);
    ishmemi::proxy::post_ticket<proxy_device_mem>(ring, t, q, proxy_device_wait{});
    return ishmemi::proxy::waited(q) ? ishmemi::proxy::wait_answer<proxy_device_mem>(ring, t, proxy_device_wait{}) : 0;
}

// The same, one lane of the calling lanes of a warp after another. A poster waits for the cell of
// ticket t - slots, which the poster of that ticket frees once it has read its answer; if that is
// a lane of the same warp, the two must not depend on the warp's scheduling of its diverged lanes
// (kernel threads of one warp posting at once, more than the ring's cells, did not finish).
__device__ inline uint64_t proxy_call(ishmemi::proxy::ring_header* ring, unsigned long long* tickets,
                                      const ishmemi::proxy::request& q) {
    const unsigned mask = __activemask();
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    uint64_t answer = 0;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
        if (lane == static_cast<unsigned>(__ffs(rest) - 1)) answer = proxy_call_alone(ring, tickets, q);
        __syncwarp(mask);
    }
    return answer;
}

}  // namespace ishmemi::dev
