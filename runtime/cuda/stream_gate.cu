// Stream order for ishmem::queue over a CUDA stream (see stream_gate_ops in ishmem/host/exec.h):
// at submission the stream records an event (its earlier work) and then runs a one-thread kernel
// that holds it until the host task, which waits for that event, has run and sets a flag in mapped
// host memory. Any operation, host path included, thereby runs in stream order, with no kernel of
// its own; the copy engine still does the data movement of the RMA forms.
#include <atomic>

#include "cuda_call.h"
#include "ishmem/host/exec.h"

namespace ishmemi::cuda {

namespace {

const char* const routine = "ishmem (queue over a CUDA stream)";
constexpr unsigned ring = 4096;  // gates that may be open at once

struct gate {
    cudaEvent_t ready;
    unsigned* flag;
};

__global__ void hold(const volatile unsigned* flag) {
    while (*flag == 0) __nanosleep(256);
}

unsigned* flags() {  // mapped pinned words, used round-robin
    static unsigned* f = [] {
        unsigned* p = nullptr;
        check(cudaHostAlloc(reinterpret_cast<void**>(&p), ring * sizeof(unsigned), cudaHostAllocMapped), routine,
              "cudaHostAlloc");
        return p;
    }();
    return f;
}
std::atomic<unsigned> next_flag{0};

void* open(CUstream_st* s) {
    ensure_device();
    auto* g = new gate;
    g->flag = flags() + next_flag.fetch_add(1) % ring;
    __atomic_store_n(g->flag, 0u, __ATOMIC_RELEASE);
    check(cudaEventCreateWithFlags(&g->ready, cudaEventDisableTiming), routine, "cudaEventCreate");
    check(cudaEventRecord(g->ready, s), routine, "cudaEventRecord");
    unsigned* dflag = nullptr;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dflag), g->flag, 0), routine, "cudaHostGetDevicePointer");
    hold<<<1, 1, 0, s>>>(dflag);
    check(cudaGetLastError(), routine, "launching the stream gate");
    return g;
}

void wait_ready(void* p) {
    ensure_device();
    auto* g = static_cast<gate*>(p);
    check(cudaEventSynchronize(g->ready), routine, "waiting for the stream's earlier work");
}

void close(void* p) {
    auto* g = static_cast<gate*>(p);
    __atomic_store_n(g->flag, 1u, __ATOMIC_RELEASE);
    cudaEventDestroy(g->ready);
    delete g;
}

void sync(CUstream_st* s) {
    ensure_device();
    check(cudaStreamSynchronize(s), routine, "cudaStreamSynchronize");
}

const ishmem::detail::stream_gate_ops ops{open, wait_ready, close, sync};
[[maybe_unused]] const bool installed = (ishmem::detail::stream_gates = &ops, true);

}  // namespace

void stream_gates_init() {
    flags();
    cudaFuncAttributes a;  // loads the kernel now, not while another gate is holding a stream
    check(cudaFuncGetAttributes(&a, hold), "ishmem_init", "loading the library's kernels");
}

}  // namespace ishmemi::cuda
