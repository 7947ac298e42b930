// A device-side call with a bad argument must stop the PE with the runtime's one-line error
// "ishmem: PE <n>: <routine>: <reason>" (printed by the host side of the PE) and a nonzero exit.
// check_device_error.sh runs it under ishmrun and checks the line.
//
// usage: device_error bad_pe | bad_addr | bad_cmp | g_bad_pe | g_bad_addr | bad_pe_on_last | two_callers |
//                     two_callers_medium
//   bad_pe              ishmem_int_p(dest, 1, 99) in a kernel
//   bad_addr            ishmem_int_p(<cudaMalloc'd, not symmetric>, 1, 0) in a kernel
//   bad_cmp             ishmem_int_wait_until(dest, 99, 0) in a kernel
//   g_bad_pe            ishmem_int_g(dest, 99) in a kernel: a load whose peer address would fault
//   g_bad_addr          ishmem_int_g(16, 0) in a kernel: the check must stop it before the load
//   bad_pe_on_last      only the last PE makes the bad_pe call; the others wait in a barrier
//   two_callers         two blocks of one kernel broadcast 8 bytes on the world at the same time,
//                       over and over (a PE may have one caller in a team's collectives at a time)
//   two_callers_medium  the same with 64 KiB, which goes through the medium stage
// When the kernel ends and nothing stopped the process, it says so and exits 0 (the check fails).
#include <cuda_runtime.h>
#include <ishmem.h>
#include <ishmemx.h>
#include <unistd.h>

#include <cooperative_groups.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

__global__ void bad_call(int mode, int* dest, int* outside) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    switch (mode) {
        case 0:
            ishmem_int_p(dest, 1, 99);
            break;
        case 1:
            ishmem_int_p(outside, 1, 0);
            break;
        case 2:
            ishmem_int_wait_until(dest, 99, 0);
            break;
        case 5:
            *dest = ishmem_int_g(dest, 99);
            break;
        case 6:
            *dest = ishmem_int_g(reinterpret_cast<const int*>(uintptr_t{16}), 0);
            break;
    }
}

// Both blocks call at once, many times: the second caller inside must be caught.
__global__ void two_callers(char* dest, const char* source, size_t bytes) {
    const auto block = cooperative_groups::this_thread_block();
    for (int i = 0; i < 100000; ++i) ishmemx_broadcastmem_work_group(dest, source, bytes, 0, block);
}

}  // namespace

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "";
    int mode = -1;
    bool only_last = false;
    if (!std::strcmp(what, "bad_pe"))
        mode = 0;
    else if (!std::strcmp(what, "bad_addr"))
        mode = 1;
    else if (!std::strcmp(what, "bad_cmp"))
        mode = 2;
    else if (!std::strcmp(what, "g_bad_pe"))
        mode = 5;
    else if (!std::strcmp(what, "g_bad_addr"))
        mode = 6;
    else if (!std::strcmp(what, "bad_pe_on_last"))
        mode = 0, only_last = true;
    else if (!std::strcmp(what, "two_callers"))
        mode = 3;
    else if (!std::strcmp(what, "two_callers_medium"))
        mode = 4;
    if (mode < 0) {
        std::fprintf(stderr,
                     "usage: device_error bad_pe | bad_addr | bad_cmp | g_bad_pe | g_bad_addr | bad_pe_on_last | "
                     "two_callers | two_callers_medium\n");
        return 2;
    }
    ishmem_init();
    int* dest = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    const size_t bytes = mode == 4 ? size_t{64} << 10 : 8;
    char* bcast = static_cast<char*>(ishmem_calloc(2, bytes));
    int* outside = nullptr;
    if (cudaMalloc(&outside, 64) != cudaSuccess) {
        std::fprintf(stderr, "device_error: cudaMalloc failed\n");
        return 3;
    }
    ishmem_barrier_all();
    const int me = ishmem_my_pe();
    if (!only_last || me == ishmem_n_pes() - 1) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (mode == 3 || mode == 4)
            two_callers<<<2, 128, 0, s>>>(bcast, bcast + bytes, bytes);
        else
            bad_call<<<1, 32, 0, s>>>(mode, dest, outside);
        // The runtime should end this process while (or soon after) the kernel runs. Wait up to 60 s
        // for the kernel, then 10 s more for a late report, without blocking in a CUDA call.
        const auto start = std::chrono::steady_clock::now();
        cudaError_t err;
        while ((err = cudaStreamQuery(s)) == cudaErrorNotReady &&
               std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::seconds(10));
        std::fprintf(stderr, "device_error: PE %d: %s: the kernel ended (%s) and the process was not stopped\n", me,
                     what, cudaGetErrorName(err));
        std::fflush(stderr);
        _exit(0);
    }
    ishmem_barrier_all();  // the other PEs wait here until the launcher stops them
    ishmem_finalize();
    std::fprintf(stderr, "device_error: PE %d: %s: passed a barrier that the failing PE never reached\n", me, what);
    return 0;
}
