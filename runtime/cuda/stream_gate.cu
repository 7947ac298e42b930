// Stream order for ishmem::queue over a CUDA stream (see stream_gate_ops in ishmem/host/exec.h):
// at submission the stream records an event (its earlier work) and then runs a one-thread kernel
// that holds it until the host task, which waits for that event, has run and sets a flag in mapped
// host memory. Any operation, host path included, thereby runs in stream order, with no kernel of
// its own; the copy engine still does the data movement of the RMA forms.
#include <atomic>
#include <deque>
#include <mutex>

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

// Events of gates and of operations that run on the stream itself, pooled: creating a CUDA event
// costs about as much as a small copy. First in, first out: the event taken again is the one given
// back longest ago, most likely passed already (a program that drops the returned events of calls in
// a row would otherwise re-record the one event still pending). Never destroyed: events held by
// static objects may come back after static destruction began.
std::mutex& pool_mutex = *new std::mutex;
std::deque<cudaEvent_t>& pool = *new std::deque<cudaEvent_t>;

CUevent_st* record(CUstream_st* s) {
    ensure_device();
    cudaEvent_t e = nullptr;
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        if (!pool.empty()) {
            e = pool.front();
            pool.pop_front();
        }
    }
    if (!e) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), routine, "cudaEventCreate");
    check(cudaEventRecord(e, s), routine, "cudaEventRecord");
    return e;
}

void release(CUevent_st* e) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool.push_back(e);  // a later record() re-records it; CUDA allows that while the old point is pending
}

void event_wait(CUevent_st* e) {
    ensure_device();
    check(cudaEventSynchronize(e), routine, "cudaEventSynchronize");
}

bool event_done(CUevent_st* e) {
    ensure_device();
    cudaError_t r = cudaEventQuery(e);
    if (r == cudaErrorNotReady) return false;
    check(r, routine, "cudaEventQuery");
    return true;
}

void stream_wait(CUstream_st* s, CUevent_st* e) {
    ensure_device();
    check(cudaStreamWaitEvent(s, e, 0), routine, "cudaStreamWaitEvent");
}

void* open(CUstream_st* s) {
    ensure_device();
    auto* g = new gate;
    g->flag = flags() + next_flag.fetch_add(1) % ring;
    __atomic_store_n(g->flag, 0u, __ATOMIC_RELEASE);
    g->ready = record(s);
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
    release(g->ready);
    delete g;
}

void sync(CUstream_st* s) {
    ensure_device();
    check(cudaStreamSynchronize(s), routine, "cudaStreamSynchronize");
}

const ishmem::detail::stream_gate_ops ops{open,    wait_ready, close,      sync,       record,
                                          release, event_wait, event_done, stream_wait};
[[maybe_unused]] const bool installed = (ishmem::detail::stream_gates = &ops, true);

}  // namespace

void stream_gates_init() {
    flags();
    cudaFuncAttributes a;  // loads the kernel now, not while another gate is holding a stream
    check(cudaFuncGetAttributes(&a, hold), "ishmem_init", "loading the library's kernels");
}

}  // namespace ishmemi::cuda
