// bench_gpu: ishmem's device-initiated operations (and its stream and host puts) between two GPUs,
// with the kernels, timing and checks of bench_gpu_common.cuh. bench_gpu_nvshmem.cu runs the same
// measurements on NVSHMEM; bench/gpu/run.sh runs both and prints the ratios.
//
//     build/launcher/ishmrun -n 2 build/bench/gpu/bench_gpu [--quick] [--csv FILE]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <ishmem.h>
#include <ishmemx.h>

#include "bench_gpu_common.cuh"

namespace {

namespace cg = cooperative_groups;

// ishmem's side of the API layer (see bench_gpu_common.cuh).
struct ishmem_api {
    // ---- device ----
    __device__ static void int_p(int* dest, int value, int pe) { ishmem_int_p(dest, value, pe); }
    __device__ static int int_g(const int* source, int pe) { return ishmem_int_g(source, pe); }
    __device__ static void quiet() { ishmem_quiet(); }
    __device__ static uint64_t uint64_atomic_fetch_add(uint64_t* dest, uint64_t value, int pe) {
        return ishmem_uint64_atomic_fetch_add(dest, value, pe);
    }
    __device__ static void uint64_atomic_set(uint64_t* dest, uint64_t value, int pe) {
        ishmem_uint64_atomic_set(dest, value, pe);
    }
    __device__ static void uint64_p(uint64_t* dest, uint64_t value, int pe) { ishmem_uint64_p(dest, value, pe); }
    __device__ static void uint64_wait_ge(uint64_t* ivar, uint64_t value) {
        ishmem_uint64_wait_until(ivar, ISHMEM_CMP_GE, value);
    }
    __device__ static void uint64_put_signal_set(uint64_t* dest, const uint64_t* source, uint64_t* sig_addr,
                                                 uint64_t signal, int pe) {
        ishmem_uint64_put_signal(dest, source, 1, sig_addr, signal, ISHMEM_SIGNAL_SET, pe);
    }
    __device__ static uint64_t signal_wait_ge(uint64_t* sig_addr, uint64_t value) {
        return ishmem_signal_wait_until(sig_addr, ISHMEM_CMP_GE, value);
    }
    __device__ static void putmem(void* dest, const void* source, size_t nbytes, int pe) {
        ishmem_putmem(dest, source, nbytes, pe);
    }
    __device__ static void getmem(void* dest, const void* source, size_t nbytes, int pe) {
        ishmem_getmem(dest, source, nbytes, pe);
    }
    __device__ static void putmem_warp(void* dest, const void* source, size_t nbytes, int pe,
                                       const cg::thread_block_tile<32>& warp) {
        ishmemx_putmem_work_group(dest, source, nbytes, pe, warp);
    }
    __device__ static void getmem_warp(void* dest, const void* source, size_t nbytes, int pe,
                                       const cg::thread_block_tile<32>& warp) {
        ishmemx_getmem_work_group(dest, source, nbytes, pe, warp);
    }
    __device__ static void putmem_block(void* dest, const void* source, size_t nbytes, int pe,
                                        const cg::thread_block& block) {
        ishmemx_putmem_work_group(dest, source, nbytes, pe, block);
    }
    __device__ static void getmem_block(void* dest, const void* source, size_t nbytes, int pe,
                                        const cg::thread_block& block) {
        ishmemx_getmem_work_group(dest, source, nbytes, pe, block);
    }

    // ---- collectives (bench_gpu_coll.cuh) ----
    static constexpr bool has_barrier = true, has_device_coll = true;
    __device__ static void block_barrier_all(const cg::thread_block& b) { ishmemx_barrier_all_work_group(b); }
    __device__ static void block_broadcast(void* dst, const void* src, size_t bytes, int root,
                                           const cg::thread_block& b) {
        ishmemx_broadcastmem_work_group(dst, src, bytes, root, b);
    }
    __device__ static void block_fcollect(void* dst, const void* src, size_t bytes, const cg::thread_block& b) {
        ishmemx_fcollectmem_work_group(dst, src, bytes, b);
    }
    __device__ static void block_alltoall(void* dst, const void* src, size_t bytes, const cg::thread_block& b) {
        ishmemx_alltoallmem_work_group(dst, src, bytes, b);
    }
    __device__ static void block_sum_reduce(float* dst, const float* src, size_t n, const cg::thread_block& b) {
        ishmemx_float_sum_reduce_work_group(dst, src, n, b);
    }
    static void launch_block_coll(const void* kernel, void** args, unsigned threads, cudaStream_t s) {
        GB_CUDA(cudaLaunchKernel(kernel, dim3(1), dim3(threads), args, 0, s));
    }
    static inline int coll_ret = 0;  // set when a call is queued (every check is made then)
    static ishmem::queue& queue_on(cudaStream_t s) {
        attach_stream(s);
        return *queue;
    }
    static void stream_barrier_all(cudaStream_t s) { ishmemx_barrier_all_on_queue(queue_on(s)); }
    static void stream_broadcast(void* dst, const void* src, size_t bytes, int root, cudaStream_t s) {
        ishmemx_broadcastmem_on_queue(dst, src, bytes, root, &coll_ret, queue_on(s));
    }
    static void stream_fcollect(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        ishmemx_fcollectmem_on_queue(dst, src, bytes, &coll_ret, queue_on(s));
    }
    static void stream_alltoall(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        ishmemx_alltoallmem_on_queue(dst, src, bytes, &coll_ret, queue_on(s));
    }
    static void stream_sum_reduce(float* dst, const float* src, size_t n, cudaStream_t s) {
        ishmemx_float_sum_reduce_on_queue(dst, src, n, &coll_ret, queue_on(s));
    }

    // ---- host ----
    static const char* name() {
        static char text[ISHMEM_MAX_NAME_LEN + 64];
        char vendor[ISHMEM_MAX_NAME_LEN] = "";
        int major = 0, minor = 0;
        ishmem_info_get_name(vendor);
        ishmem_info_get_version(&major, &minor);
        snprintf(text, sizeof text, "ishmem (%s, API %d.%d)", vendor, major, minor);
        return text;
    }
    static bool option(const std::string&, int&, int, char**) { return false; }
    static const char* extra_usage() { return ""; }

    // The GPU backend, whatever ISHMEM_BACKEND=auto would pick; and this program's current device
    // set before init to the GPU the library takes (ISHMEM_DEVICE, else the PE's rank on the node,
    // which under ishmrun on one node is the PE that ishmrun passes in ISHMEMI_PE, modulo the GPUs).
    // The library has its own (static) CUDA runtime; ishmem_init fills this program's copy of the
    // device state through this program's runtime, on its current device, so the two must agree
    // before init. run() checks afterwards that the heap is on this device.
    static void init() {
        setenv("ISHMEM_BACKEND", "cuda", 0);
        int devices = 0;
        GB_CUDA(cudaGetDeviceCount(&devices));
        const char* chosen = getenv("ISHMEM_DEVICE");
        if (chosen && strcmp(chosen, "local") != 0) {
            GB_CUDA(cudaSetDevice(atoi(chosen)));
        } else if (const char* pe = getenv("ISHMEMI_PE")) {
            GB_CUDA(cudaSetDevice(atoi(pe) % devices));
        }
        ishmem_init();
    }
    static int my_pe() { return ishmem_my_pe(); }
    static int n_pes() { return ishmem_n_pes(); }
    static void* malloc(size_t n) { return ishmem_malloc(n); }
    static void free(void* p) { ishmem_free(p); }
    static void barrier_all() { ishmem_barrier_all(); }
    static void host_putmem(void* dest, const void* source, size_t nbytes, int pe) {
        ishmem_putmem(dest, source, nbytes, pe);
    }
    static void host_quiet() { ishmem_quiet(); }

    // _on_queue: a queue over the benchmark's stream, made once (outside the timed loops).
    static inline std::unique_ptr<ishmem::queue> queue;
    static void attach_stream(cudaStream_t stream) {
        if (!queue) queue = std::make_unique<ishmem::queue>(stream);
    }
    static void stream_putmem(void* dest, const void* source, size_t nbytes, int pe) {
        ishmemx_putmem_on_queue(dest, source, nbytes, pe, *queue);
    }
    static void stream_quiet_wait() { ishmemx_quiet_on_queue(*queue).wait(); }

    static void finalize() {
        queue.reset();
        ishmem_finalize();
    }
};

}  // namespace

int main(int argc, char** argv) {
    gpubench::g_program = "bench_gpu";
    return gpubench::run<ishmem_api>(argc, argv, "(under ishmrun -n 2)");
}
