// The host's access to a heap in GPU memory (the gpu:: calls of impl/runtime.h): copies on the
// library's non-blocking stream, and atomics done by a one-thread kernel, because a CPU atomic on
// GPU memory is not atomic with respect to the GPU's own atomics.
#include <cuda/atomic>

#include <mutex>

#include "cuda_call.h"

namespace ishmemi::gpu {

namespace {

const char* const routine = "ishmem (host access to GPU memory)";
std::mutex mutex;  // one stream and one result word for all host threads

template <class T>
__device__ T apply(rmw_op op, T* p, T v, T c) {
    ::cuda::atomic_ref<T, ::cuda::thread_scope_system> r(*p);
    switch (op) {
        case op_load: return r.load(::cuda::std::memory_order_acquire);
        case op_store: {
            T old = r.load(::cuda::std::memory_order_relaxed);
            r.store(v, ::cuda::std::memory_order_release);
            return old;
        }
        case op_swap: return r.exchange(v, ::cuda::std::memory_order_acq_rel);
        case op_cswap: r.compare_exchange_strong(c, v, ::cuda::std::memory_order_acq_rel); return c;
        case op_add: return r.fetch_add(v, ::cuda::std::memory_order_acq_rel);
        case op_and: return r.fetch_and(v, ::cuda::std::memory_order_acq_rel);
        case op_or: return r.fetch_or(v, ::cuda::std::memory_order_acq_rel);
        default: return r.fetch_xor(v, ::cuda::std::memory_order_acq_rel);
    }
}

__global__ void rmw_kernel(rmw_op op, void* p, unsigned size, uint64_t v, uint64_t c, uint64_t* out) {
    if (size == 4)
        *out = apply<unsigned int>(op, static_cast<unsigned int*>(p), static_cast<unsigned int>(v), static_cast<unsigned int>(c));
    else
        *out = apply<unsigned long long>(op, static_cast<unsigned long long*>(p), v, c);
    __threadfence_system();
}

uint64_t* result_word() {
    static uint64_t* w = [] {
        uint64_t* p = nullptr;
        cuda::check(cudaHostAlloc(reinterpret_cast<void**>(&p), sizeof *p, cudaHostAllocMapped), routine, "cudaHostAlloc");
        return p;
    }();
    return w;
}

void finish(const char* what) {
    cuda::check(cudaStreamSynchronize(cuda::host_stream()), routine, what);
}

}  // namespace

void copy(void* dst, const void* src, size_t bytes) {
    if (bytes == 0) return;
    cuda::ensure_device();
    std::lock_guard<std::mutex> lock(mutex);
    cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cuda::host_stream()), routine, "cudaMemcpyAsync");
    finish("a copy to or from GPU memory");
}

void copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t block, size_t n) {
    if (block == 0 || n == 0) return;
    cuda::ensure_device();
    std::lock_guard<std::mutex> lock(mutex);
    if (dst_pitch >= block && src_pitch >= block) {
        cuda::check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, block, n, cudaMemcpyDefault, cuda::host_stream()),
                    routine, "cudaMemcpy2DAsync");
    } else {  // overlapping source blocks (pitch < block): one copy per block
        for (size_t b = 0; b < n; ++b)
            cuda::check(cudaMemcpyAsync(static_cast<char*>(dst) + b * dst_pitch,
                                        static_cast<const char*>(src) + b * src_pitch, block, cudaMemcpyDefault,
                                        cuda::host_stream()),
                        routine, "cudaMemcpyAsync");
    }
    finish("a strided copy to or from GPU memory");
}

void fill_zero(void* dst, size_t bytes) {
    if (bytes == 0) return;
    cuda::ensure_device();
    std::lock_guard<std::mutex> lock(mutex);
    cuda::check(cudaMemsetAsync(dst, 0, bytes, cuda::host_stream()), routine, "cudaMemsetAsync");
    finish("zeroing GPU memory");
}

uint64_t rmw(rmw_op op, void* p, unsigned size, uint64_t value, uint64_t cond) {
    cuda::ensure_device();
    std::lock_guard<std::mutex> lock(mutex);
    uint64_t* out = result_word();
    rmw_kernel<<<1, 1, 0, cuda::host_stream()>>>(op, p, size, value, cond, out);
    cuda::check(cudaGetLastError(), routine, "launching an atomic on GPU memory");
    finish("an atomic on GPU memory");
    return *static_cast<volatile uint64_t*>(out);
}

}  // namespace ishmemi::gpu

namespace ishmemi::cuda {
void host_ops_init() {
    gpu::result_word();
    cudaFuncAttributes a;  // loads the kernel now, not inside a queue task (see gpu_backend_usable)
    check(cudaFuncGetAttributes(&a, gpu::rmw_kernel), "ishmem_init", "loading the library's kernels");
}
}  // namespace ishmemi::cuda
