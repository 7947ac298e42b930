// The host's access to a heap in GPU memory (the gpu:: calls of impl/runtime.h): copies on the
// library's non-blocking stream, and atomics done by a one-thread kernel, because a CPU atomic on
// GPU memory is not atomic with respect to the GPU's own atomics.
#include <cuda/atomic>

#include <atomic>
#include <mutex>

#include "cuda_call.h"

namespace ishmemi::gpu {

namespace {

const char* const routine = "ishmem (host access to GPU memory)";

// Host threads reach GPU memory through lanes: a stream, a mapped result word and a lock each, all
// made at init (inside a queue task a synchronizing call such as cudaHostAlloc would wait for the
// kernel that holds the stream for that task). A thread keeps its lane, so threads that poll GPU
// memory (a host wait) and threads that update it (the atomic that ends the wait) do not queue
// behind one lock and one stream: measured on 2 x H200, one shared lane made a host wait_until_all
// on GPU memory take up to a second while another thread of the PE satisfied it.
constexpr int lane_count = 32;
struct lane {
    std::mutex mutex;
    cudaStream_t stream{};
    uint64_t* result = nullptr;
};
lane lanes[lane_count];

lane& my_lane() {
    static std::atomic<unsigned> next{0};
    thread_local lane* mine = &lanes[next.fetch_add(1, std::memory_order_relaxed) % lane_count];
    return *mine;
}

template <class T> __device__ T apply(rmw_op op, T* p, T v, T c) {
    ::cuda::atomic_ref<T, ::cuda::thread_scope_system> r(*p);
    switch (op) {
        case op_load:
            return r.load(::cuda::std::memory_order_acquire);
        case op_store: {
            T old = r.load(::cuda::std::memory_order_relaxed);
            r.store(v, ::cuda::std::memory_order_release);
            return old;
        }
        case op_swap:
            return r.exchange(v, ::cuda::std::memory_order_acq_rel);
        case op_cswap:
            r.compare_exchange_strong(c, v, ::cuda::std::memory_order_acq_rel);
            return c;
        case op_add:
            return r.fetch_add(v, ::cuda::std::memory_order_acq_rel);
        case op_and:
            return r.fetch_and(v, ::cuda::std::memory_order_acq_rel);
        case op_or:
            return r.fetch_or(v, ::cuda::std::memory_order_acq_rel);
        default:
            return r.fetch_xor(v, ::cuda::std::memory_order_acq_rel);
    }
}

// One atomic; the old value goes to *out unless out is null (a signal update queued on a stream).
__global__ void rmw_kernel(rmw_op op, void* p, unsigned size, uint64_t v, uint64_t c, uint64_t* out) {
    uint64_t old;
    if (size == 4)
        old = apply<unsigned int>(op, static_cast<unsigned int*>(p), static_cast<unsigned int>(v),
                                  static_cast<unsigned int>(c));
    else
        old = apply<unsigned long long>(op, static_cast<unsigned long long*>(p), v, c);
    if (out) *out = old;
    __threadfence_system();
}

void finish(const lane& l, const char* what) { cuda::check(cudaStreamSynchronize(l.stream), routine, what); }

}  // namespace

void copy(void* dst, const void* src, size_t bytes) {
    if (bytes == 0) return;
    cuda::ensure_device();
    lane& l = my_lane();
    std::lock_guard<std::mutex> lock(l.mutex);
    cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, l.stream), routine, "cudaMemcpyAsync");
    finish(l, "a copy to or from GPU memory");
}

bool copy_async(CUstream_st* s, void* dst, const void* src, size_t bytes, const void* local) {
    cuda::ensure_device();
    auto off = reinterpret_cast<uintptr_t>(local) - reinterpret_cast<uintptr_t>(state.heap_base);
    if (off >= state.heap_size) {  // outside my heap: ask CUDA what it is (pinned, managed, device...)
        cudaPointerAttributes a{};
        cudaError_t r = cudaPointerGetAttributes(&a, local);
        if (r != cudaSuccess) {
            cudaGetLastError();  // clear it: an unknown pointer is host memory to CUDA
            return false;
        }
        if (a.type == cudaMemoryTypeUnregistered) return false;
    }
    if (bytes) cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), routine, "cudaMemcpyAsync");
    return true;
}

void signal_async(CUstream_st* s, uint64_t* p, uint64_t value, bool add) {
    cuda::ensure_device();
    rmw_kernel<<<1, 1, 0, s>>>(add ? op_add : op_store, p, 8, value, 0, nullptr);
    cuda::check(cudaGetLastError(), routine, "launching a signal update on a stream");
}

void copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t block, size_t n) {
    if (block == 0 || n == 0) return;
    cuda::ensure_device();
    lane& l = my_lane();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (dst_pitch >= block && src_pitch >= block) {
        cuda::check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, block, n, cudaMemcpyDefault, l.stream), routine,
                    "cudaMemcpy2DAsync");
    } else {  // overlapping source blocks (pitch < block): one copy per block
        for (size_t b = 0; b < n; ++b)
            cuda::check(
                cudaMemcpyAsync(static_cast<char*>(dst) + b * dst_pitch, static_cast<const char*>(src) + b * src_pitch,
                                block, cudaMemcpyDefault, l.stream),
                routine, "cudaMemcpyAsync");
    }
    finish(l, "a strided copy to or from GPU memory");
}

void fill_zero(void* dst, size_t bytes) {
    if (bytes == 0) return;
    cuda::ensure_device();
    lane& l = my_lane();
    std::lock_guard<std::mutex> lock(l.mutex);
    cuda::check(cudaMemsetAsync(dst, 0, bytes, l.stream), routine, "cudaMemsetAsync");
    finish(l, "zeroing GPU memory");
}

uint64_t rmw(rmw_op op, void* p, unsigned size, uint64_t value, uint64_t cond) {
    cuda::ensure_device();
    lane& l = my_lane();
    std::lock_guard<std::mutex> lock(l.mutex);
    rmw_kernel<<<1, 1, 0, l.stream>>>(op, p, size, value, cond, l.result);
    cuda::check(cudaGetLastError(), routine, "launching an atomic on GPU memory");
    finish(l, "an atomic on GPU memory");
    return *static_cast<volatile uint64_t*>(l.result);
}

}  // namespace ishmemi::gpu

namespace ishmemi::cuda {
void host_ops_init() {
    static bool made = false;  // once per process: a later ishmem_init reuses the lanes
    if (made) return;
    made = true;
    uint64_t* words = nullptr;
    check(cudaHostAlloc(reinterpret_cast<void**>(&words), gpu::lane_count * 64, cudaHostAllocMapped), "ishmem_init",
          "cudaHostAlloc");
    for (int i = 0; i < gpu::lane_count; ++i) {
        gpu::lanes[i].result = words + i * 8;  // a cache line each
        check(cudaStreamCreateWithFlags(&gpu::lanes[i].stream, cudaStreamNonBlocking), "ishmem_init",
              "cudaStreamCreateWithFlags");
    }
    cudaFuncAttributes a;  // loads the kernel now, not inside a queue task (see gpu_backend_usable)
    check(cudaFuncGetAttributes(&a, gpu::rmw_kernel), "ishmem_init", "loading the library's kernels");
}
}  // namespace ishmemi::cuda
