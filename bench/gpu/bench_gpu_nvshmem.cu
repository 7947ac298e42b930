// bench_gpu_nvshmem: the measurements of bench_gpu (bench_gpu_common.cuh) on NVSHMEM, the peer that
// bench/gpu/run.sh runs next to ishmem. Not built by CMake: NVSHMEM comes as a Python wheel on the
// GPU machine, without a CMake config, and needs -rdc; run.sh builds it:
//
//     nvcc -O2 -std=c++17 -rdc=true -arch=sm_90 -I$NV/include bench_gpu_nvshmem.cu
//          $NV/lib/libnvshmem_device.a -Xlinker -l:libnvshmem_host.so.3 -L$NV/lib -o bench_gpu_nvshmem
//
// No launcher: run.sh starts both processes, bootstrapped with NVSHMEM's unique-id plugin. PE 0 gets
// the id and writes it to --uid-file (through a rename, so that PE 1 never reads half of it); PE 1
// waits for the file. Each process takes the GPU numbered by its rank.
//
//     bench_gpu_nvshmem --rank R --nranks N --uid-file F [options]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <nvshmem.h>
#include <nvshmemx.h>

#include "bench_gpu_common.cuh"

namespace {

namespace cg = cooperative_groups;
using gpubench::die;

struct nvshmem_api {
    // ---- device ----
    __device__ static void int_p(int* dest, int value, int pe) { nvshmem_int_p(dest, value, pe); }
    __device__ static int int_g(const int* source, int pe) { return nvshmem_int_g(source, pe); }
    __device__ static void quiet() { nvshmem_quiet(); }
    __device__ static uint64_t uint64_atomic_fetch_add(uint64_t* dest, uint64_t value, int pe) {
        return nvshmem_uint64_atomic_fetch_add(dest, value, pe);
    }
    __device__ static void uint64_atomic_set(uint64_t* dest, uint64_t value, int pe) {
        nvshmem_uint64_atomic_set(dest, value, pe);
    }
    __device__ static void uint64_p(uint64_t* dest, uint64_t value, int pe) { nvshmem_uint64_p(dest, value, pe); }
    __device__ static void uint64_wait_ge(uint64_t* ivar, uint64_t value) {
        nvshmem_uint64_wait_until(ivar, NVSHMEM_CMP_GE, value);
    }
    __device__ static void uint64_put_signal_set(uint64_t* dest, const uint64_t* source, uint64_t* sig_addr,
                                                 uint64_t signal, int pe) {
        nvshmem_uint64_put_signal(dest, source, 1, sig_addr, signal, NVSHMEM_SIGNAL_SET, pe);
    }
    __device__ static uint64_t signal_wait_ge(uint64_t* sig_addr, uint64_t value) {
        return nvshmem_signal_wait_until(sig_addr, NVSHMEM_CMP_GE, value);
    }
    __device__ static void putmem(void* dest, const void* source, size_t nbytes, int pe) {
        nvshmem_putmem(dest, source, nbytes, pe);
    }
    __device__ static void getmem(void* dest, const void* source, size_t nbytes, int pe) {
        nvshmem_getmem(dest, source, nbytes, pe);
    }
    __device__ static void putmem_warp(void* dest, const void* source, size_t nbytes, int pe,
                                       const cg::thread_block_tile<32>&) {
        nvshmemx_putmem_warp(dest, source, nbytes, pe);
    }
    __device__ static void getmem_warp(void* dest, const void* source, size_t nbytes, int pe,
                                       const cg::thread_block_tile<32>&) {
        nvshmemx_getmem_warp(dest, source, nbytes, pe);
    }
    __device__ static void putmem_block(void* dest, const void* source, size_t nbytes, int pe,
                                        const cg::thread_block&) {
        nvshmemx_putmem_block(dest, source, nbytes, pe);
    }
    __device__ static void getmem_block(void* dest, const void* source, size_t nbytes, int pe,
                                        const cg::thread_block&) {
        nvshmemx_getmem_block(dest, source, nbytes, pe);
    }

    // ---- collectives (bench_gpu_coll.cuh): the float forms over the world team; device
    // collectives need a collective (cooperative) launch ----
    static constexpr bool has_barrier = true, has_device_coll = true;
    __device__ static void block_barrier_all(const cg::thread_block&) { nvshmemx_barrier_all_block(); }
    __device__ static void block_broadcast(void* dst, const void* src, size_t bytes, int root,
                                           const cg::thread_block&) {
        nvshmemx_float_broadcast_block(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                       bytes / 4, root);
    }
    __device__ static void block_fcollect(void* dst, const void* src, size_t bytes, const cg::thread_block&) {
        nvshmemx_float_fcollect_block(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                      bytes / 4);
    }
    __device__ static void block_alltoall(void* dst, const void* src, size_t bytes, const cg::thread_block&) {
        nvshmemx_float_alltoall_block(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                      bytes / 4);
    }
    __device__ static void block_sum_reduce(float* dst, const float* src, size_t n, const cg::thread_block&) {
        nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, n);
    }
    static void launch_block_coll(const void* kernel, void** args, unsigned threads, cudaStream_t s) {
        if (nvshmemx_collective_launch(kernel, dim3(1), dim3(threads), args, 0, s) != 0)
            die("nvshmemx_collective_launch failed");
    }
    static void stream_barrier_all(cudaStream_t s) { nvshmemx_barrier_all_on_stream(s); }
    static void stream_broadcast(void* dst, const void* src, size_t bytes, int root, cudaStream_t s) {
        nvshmemx_float_broadcast_on_stream(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                           bytes / 4, root, s);
    }
    static void stream_fcollect(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        nvshmemx_float_fcollect_on_stream(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                          bytes / 4, s);
    }
    static void stream_alltoall(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        nvshmemx_float_alltoall_on_stream(NVSHMEM_TEAM_WORLD, static_cast<float*>(dst), static_cast<const float*>(src),
                                          bytes / 4, s);
    }
    static void stream_sum_reduce(float* dst, const float* src, size_t n, cudaStream_t s) {
        nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, n, s);
    }

    // ---- host ----
    static const char* name() {
        static char text[96];
        int major = 0, minor = 0, patch = 0;
        nvshmemx_vendor_get_version_info(&major, &minor, &patch);
        snprintf(text, sizeof text, "NVSHMEM %d.%d.%d", major, minor, patch);
        return text;
    }

    // The bootstrap: --rank R --nranks N --uid-file F.
    static inline int rank = -1, nranks = 0;
    static inline std::string uid_file;
    static bool option(const std::string& a, int& i, int argc, char** argv) {
        if (i + 1 >= argc) return false;
        if (a == "--rank")
            rank = atoi(argv[++i]);
        else if (a == "--nranks")
            nranks = atoi(argv[++i]);
        else if (a == "--uid-file")
            uid_file = argv[++i];
        else
            return false;
        return true;
    }
    static const char* extra_usage() {
        return "  --rank R         this process's rank (required; also its GPU)\n"
               "  --nranks N       the number of processes (required: 2, or more for the collectives alone)\n"
               "  --uid-file F     where rank 0 leaves NVSHMEM's unique id for the others (required; must not exist)\n";
    }

    static void init() {
        if (rank < 0 || nranks < 1 || rank >= nranks || uid_file.empty())
            die("needs --rank R --nranks N --uid-file F (0 <= R < N)");
        gpubench::g_pe = rank;
        int devices = 0;
        GB_CUDA(cudaGetDeviceCount(&devices));
        GB_CUDA(cudaSetDevice(rank % devices));
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        if (rank == 0) {
            if (nvshmemx_get_uniqueid(&id) != 0) die("nvshmemx_get_uniqueid failed");
            gpubench::write_id_file(uid_file, &id, sizeof id);
        } else {
            gpubench::read_id_file(uid_file, &id, sizeof id);
        }
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        if (nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr) != 0)
            die("nvshmemx_set_attr_uniqueid_args failed");
        if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) die("nvshmemx_init_attr failed");
        if (rank == 0) unlink(uid_file.c_str());  // every rank is in: the id is used up
    }
    static int my_pe() { return nvshmem_my_pe(); }
    static int n_pes() { return nvshmem_n_pes(); }
    static void* malloc(size_t n) { return nvshmem_malloc(n); }
    static void free(void* p) { nvshmem_free(p); }
    static void barrier_all() { nvshmem_barrier_all(); }
    static void host_putmem(void* dest, const void* source, size_t nbytes, int pe) {
        nvshmem_putmem(dest, source, nbytes, pe);
    }
    static void host_quiet() { nvshmem_quiet(); }

    static inline cudaStream_t stream = nullptr;
    static void attach_stream(cudaStream_t s) { stream = s; }
    static void stream_putmem(void* dest, const void* source, size_t nbytes, int pe) {
        nvshmemx_putmem_on_stream(dest, source, nbytes, pe, stream);
    }
    static void stream_quiet_wait() {
        nvshmemx_quiet_on_stream(stream);
        GB_CUDA(cudaStreamSynchronize(stream));
    }

    static void finalize() { nvshmem_finalize(); }
};

}  // namespace

int main(int argc, char** argv) {
    gpubench::g_program = "bench_gpu_nvshmem";
    return gpubench::run<nvshmem_api>(argc, argv, "--rank R --nranks N --uid-file F");
}
