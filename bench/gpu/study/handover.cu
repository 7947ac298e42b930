// Study: what each part of a device-side handover (data, ordering, flag; poll, acquire) costs over
// NVLink between two GPUs. One thread per PE ping-pongs; variants differ only in the fences and
// memory orders. Run: ISHMEM_BACKEND=cuda ishmrun -n 2 build/bench/gpu/handover_study (results from 2 x H200:
// bench/results/handover-study-2gpu.txt).
#include <cuda/atomic>
#include <cstdio>
#include <cstdint>
#include <ishmem.h>

__device__ __forceinline__ uint64_t now_ns() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
using ref = cuda::atomic_ref<uint64_t, cuda::thread_scope_system>;

enum { RAW = 0, OURS, NOFENCE_WAIT, RELEASE_ACQUIRE, ACQREL_FENCE, NVSHMEM_LIKE, ACQ_POLL, NV };
__device__ __forceinline__ void send(int v, uint64_t* rflag, uint64_t* rdata, uint64_t val) {
    switch (v) {
        case RAW: *(volatile uint64_t*)rflag = val; break;
        case OURS: case NOFENCE_WAIT: case ACQ_POLL:
            *(volatile uint64_t*)rdata = val; __threadfence_system(); ref(*rflag).store(val, cuda::memory_order_relaxed); break;
        case RELEASE_ACQUIRE:
            *(volatile uint64_t*)rdata = val; ref(*rflag).store(val, cuda::memory_order_release); break;
        case ACQREL_FENCE:
            *(volatile uint64_t*)rdata = val; cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
            ref(*rflag).store(val, cuda::memory_order_relaxed); break;
        case NVSHMEM_LIKE:
            *(volatile uint64_t*)rdata = val; __threadfence_system(); *(volatile uint64_t*)rflag = val; break;
    }
}
__device__ __forceinline__ int await(int v, uint64_t* flag, uint64_t* data, uint64_t val) {
    switch (v) {
        case RAW: while (*(volatile uint64_t*)flag < val) {} return 0;
        case OURS: case RELEASE_ACQUIRE: case ACQREL_FENCE:
            while (ref(*flag).load(cuda::memory_order_relaxed) < val) {}
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
            break;
        case ACQ_POLL: while (ref(*flag).load(cuda::memory_order_acquire) < val) {} break;
        case NOFENCE_WAIT: while (ref(*flag).load(cuda::memory_order_relaxed) < val) {} break;
        case NVSHMEM_LIKE: while (*(volatile uint64_t*)flag < val) {} break;
    }
    return *(volatile uint64_t*)data != val;
}
__global__ void k(int v, uint64_t* flag, uint64_t* data, uint64_t* rflag, uint64_t* rdata, uint64_t first, long iters, int me, uint64_t* out) {
    uint64_t t0 = 0; unsigned bad = 0;
    for (long i = 0; i <= iters; ++i) {
        if (i == 1) t0 = now_ns();
        uint64_t val = first + i;
        if (me == 0) { send(v, rflag, rdata, val); bad += await(v, flag, data, val); }
        else { bad += await(v, flag, data, val); send(v, rflag, rdata, val); }
    }
    out[0] = now_ns() - t0; out[1] = bad;
}
int main() {
    ishmem_init();
    int me = ishmem_my_pe();
    uint64_t* buf = (uint64_t*)ishmem_calloc(64, sizeof(uint64_t));
    uint64_t* flag = buf; uint64_t* data = buf + 32;
    uint64_t* rflag = (uint64_t*)ishmem_ptr(flag, 1 - me); uint64_t* rdata = (uint64_t*)ishmem_ptr(data, 1 - me);
    uint64_t* out; cudaMallocHost(&out, 16);
    const char* names[] = {"raw flag (volatile st, volatile poll)", "ours: st; fence.sc.sys; relaxed st | relaxed poll; acquire fence",
                           "ours without waiter fence", "release st | relaxed poll; acquire fence", "acq_rel fence; relaxed st | relaxed poll; acquire fence",
                           "nvshmem-like: st; fence.sc; volatile st | volatile poll", "ours sender | acquire poll"};
    long iters = 20000; uint64_t first = 1;
    for (int rep = 0; rep < 2; ++rep)
    for (int v = 0; v < 7; ++v) {
        ishmem_barrier_all();
        k<<<1,1>>>(v, flag, data, rflag, rdata, first, iters, me, out);
        cudaDeviceSynchronize();
        first += iters + 1;
        if (me == 0) printf("%-70s %.3f us one-way  bad=%llu\n", names[v], out[0] / 1e3 / iters / 2, (unsigned long long)out[1]);
    }
    ishmem_barrier_all();
    ishmem_finalize();
}
