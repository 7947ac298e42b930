// Helpers for the GPU tests (tests/gpu/*_test.cu): every PE of `ishmrun -n N ishmem_gpu_tests` runs
// them, one PE per GPU, with the CUDA backend (run_if_gpus.sh sets ISHMEM_BACKEND=cuda).
//
// Rules these helpers keep, on top of the ones of tests/harness (collectives in the same order on all
// PEs; EXPECT_* rather than ASSERT_* where PEs could take different branches):
//  - Symmetric memory is GPU memory: the host reads and writes it with cudaMemcpy (gpu_sym::read,
//    write, fill), never by dereferencing.
//  - Every kernel runs on a non-blocking stream, and the host waits for it with sync() (a bounded poll
//    of cudaStreamQuery). A kernel still running after GPU_TEST_KERNEL_TIMEOUT seconds (default 30,
//    under the harness' ISHMEM_TEST_TIMEOUT of 60) ends this PE with "[PE k] TIMEOUT: ..." and status
//    3, like the harness watchdog; the launcher then stops the other PEs. A device-side wait is
//    unbounded by the API, so this is what turns a lost signal into a failure instead of a hang.
//  - A failed CUDA call ends this PE with "[PE k] CUDA error: ..." and status 4: after a sticky device
//    error nothing else in the process can be trusted, and returning early would leave the other PEs
//    waiting in the next collective.
//  - Kernels report mismatches into a dev_report (first mismatch and a count); the host checks it
//    with EXPECT_*.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness/harness.h"
#include "ishmem/impl/runtime.h"

namespace ishmem_gpu_testing {

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------------------------
// Ending the PE with a message (used where continuing would hang or lie)

[[noreturn]] inline void die(int status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] inline void die(int status, const char* fmt, ...) {
    char line[1024];
    int n = std::snprintf(line, sizeof line, "[PE %d] ", ishmem_my_pe());
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "%s\n", line);
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(status);
}

inline void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
    if (err != cudaSuccess)
        die(4, "CUDA error: %s: %s (%s) at %s:%d", what, cudaGetErrorName(err), cudaGetErrorString(err), file, line);
}
#define GPU_CHECK(expr) ::ishmem_gpu_testing::check_cuda((expr), #expr, __FILE__, __LINE__)

// ---------------------------------------------------------------------------------------------
// Which backend runs: the one place that knows how to ask the runtime.

namespace detail {
// The runtime's own answer when its state says which backend it runs (ishmemi::state.backend) ...
template <class S> auto backend_is_cuda(const S& s, int) -> decltype(s.backend == decltype(s.backend)::cuda, bool()) {
    return s.backend == decltype(s.backend)::cuda;
}
// ... else: symmetric memory is GPU memory.
template <class S> bool backend_is_cuda(const S&, long) {
    void* p = ishmem_malloc(64);  // collective; every PE of the job calls on_cuda_backend() once, first
    cudaPointerAttributes a{};
    const bool device = p && cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice;
    cudaGetLastError();
    ishmem_free(p);
    return device;
}
}  // namespace detail

// True when ishmem_init picked the CUDA backend. Cached: the first call may be collective.
inline bool on_cuda_backend() {
    static const bool cuda = detail::backend_is_cuda(ishmemi::state, 0);
    return cuda;
}

// Base of every GPU test: fails (does not skip) when the job does not run the CUDA backend, since
// run_if_gpus.sh asked for it. Every PE takes the same branch.
class GpuTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(on_cuda_backend()) << "ishmem_init did not pick the CUDA backend (run with ISHMEM_BACKEND=cuda "
                                          "under ishmrun, one PE per GPU)";
        me = ishmem_my_pe();
        n = ishmem_n_pes();
        right = (me + 1) % n;
        left = (me - 1 + n) % n;
    }
    int me = 0, n = 1, right = 0, left = 0;
};

// True when some PE reaches others only through the proxy (a job over several nodes): the same on
// every PE.
inline bool job_spans_nodes() { return ishmem_team_n_pes(ISHMEMX_TEAM_NODE) < ishmem_n_pes(); }

// How much of a repeated load a test puts through: `full` where every PE reaches the others by load
// and store, `over_nodes` in a job over several nodes, whose requests the target's node serves one
// at a time, each with a copy or atomic on its GPU (on a machine with one GPU, in turns with the
// other nodes' PEs: a time slice per turn, so thousands of small requests take minutes there).
inline int sized_for_layout(int full, int over_nodes) { return job_spans_nodes() ? over_nodes : full; }

// Blocks of a kernel whose threads all contend on one PE's words: `full` (enough to fill the GPU), or
// 2 over nodes (see sized_for_layout).
inline int contending_blocks(int full) { return sized_for_layout(full, 2); }

// ---------------------------------------------------------------------------------------------
// Waiting for the GPU, bounded

inline int kernel_timeout_s() {
    static const int t = [] {
        const char* s = std::getenv("GPU_TEST_KERNEL_TIMEOUT");
        if (!s || !*s) return 30;
        const int v = std::atoi(s);
        return v > 0 ? v : 30;
    }();
    return t;
}

// Waits until everything submitted to s has finished, or ends the PE after kernel_timeout_s().
inline void sync(cudaStream_t s, const char* what) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + std::chrono::seconds(kernel_timeout_s());
    for (unsigned polls = 0;; ++polls) {
        const cudaError_t err = cudaStreamQuery(s);
        if (err == cudaSuccess) return;
        if (err != cudaErrorNotReady) check_cuda(err, what, __FILE__, __LINE__);
        const auto now = clock::now();
        if (now >= deadline)
            die(3,
                "TIMEOUT: %s did not finish within %d s (a device-side wait never satisfied?); set "
                "GPU_TEST_KERNEL_TIMEOUT to wait longer",
                what, kernel_timeout_s());
        if (polls < 64) continue;
        std::this_thread::sleep_for(now - start < std::chrono::milliseconds(10) ? std::chrono::microseconds(10)
                                                                                : std::chrono::microseconds(200));
    }
}

// Launch check: a bad configuration fails at once, not at the next sync.
#define GPU_LAUNCHED(what) ::ishmem_gpu_testing::check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)

// A non-blocking stream (no implicit ordering with the legacy default stream, so that a cudaMemcpy
// of the host never waits for a kernel that spins), destroyed at scope exit after a bounded sync.
class stream {
  public:
    stream() { GPU_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~stream() {
        sync(s_, "work left on a test stream");
        cudaStreamDestroy(s_);
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    operator cudaStream_t() const { return s_; }
    cudaStream_t get() const { return s_; }

  private:
    cudaStream_t s_{};
};

// ---------------------------------------------------------------------------------------------
// Memory

// cudaMemcpy from pageable host memory to the GPU may return before the data has landed, and
// cudaMemset is asynchronous: wait for the legacy default stream that both run on before anything
// on another stream (or another PE) may rely on the data. Seen with two PEs time-sharing one GPU.
inline void settle_default_stream() { GPU_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); }

// A zero-filled symmetric array of n elements in the GPU heap, freed (collectively) at scope exit.
template <class T> class gpu_sym {
  public:
    explicit gpu_sym(std::size_t n) : n_(n ? n : 1), p_(static_cast<T*>(ishmem_calloc(n_, sizeof(T)))) {}
    ~gpu_sym() { ishmem_free(p_); }
    gpu_sym(const gpu_sym&) = delete;
    gpu_sym& operator=(const gpu_sym&) = delete;
    explicit operator bool() const { return p_ != nullptr; }
    T* get() const { return p_; }
    T* operator+(std::size_t i) const { return p_ + i; }
    std::size_t size() const { return n_; }
    // This PE's copy, through cudaMemcpy.
    std::vector<T> read() const { return read(0, n_); }
    std::vector<T> read(std::size_t first, std::size_t count) const {
        std::vector<T> v(count);
        GPU_CHECK(cudaMemcpy(v.data(), p_ + first, count * sizeof(T), cudaMemcpyDefault));
        return v;
    }
    T read_one(std::size_t i) const { return read(i, 1)[0]; }
    void write(const std::vector<T>& v, std::size_t first = 0) const {
        GPU_CHECK(cudaMemcpy(p_ + first, v.data(), v.size() * sizeof(T), cudaMemcpyDefault));
        settle_default_stream();
    }
    void fill(const T& value) const { write(std::vector<T>(n_, value)); }

  private:
    std::size_t n_;
    T* p_;
};

// Local (not symmetric) device memory, zero-filled.
template <class T> class dev_array {
  public:
    explicit dev_array(std::size_t n) : n_(n ? n : 1) {
        GPU_CHECK(cudaMalloc(&p_, n_ * sizeof(T)));
        GPU_CHECK(cudaMemset(p_, 0, n_ * sizeof(T)));
        settle_default_stream();
    }
    explicit dev_array(const std::vector<T>& v) : dev_array(v.size()) { write(v); }
    ~dev_array() { cudaFree(p_); }
    dev_array(const dev_array&) = delete;
    dev_array& operator=(const dev_array&) = delete;
    T* get() const { return p_; }
    std::size_t size() const { return n_; }
    std::vector<T> read() const {
        std::vector<T> v(n_);
        GPU_CHECK(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDefault));
        return v;
    }
    void write(const std::vector<T>& v) const {
        GPU_CHECK(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyDefault));
        settle_default_stream();
    }

  private:
    std::size_t n_;
    T* p_ = nullptr;
};

// Managed memory (host and device may both touch it, not at the same time): for _on_queue `ret`.
template <class T> class managed {
  public:
    explicit managed(std::size_t n = 1) {
        GPU_CHECK(cudaMallocManaged(&p_, (n ? n : 1) * sizeof(T)));
        for (std::size_t i = 0; i < (n ? n : 1); ++i) p_[i] = T{};
    }
    ~managed() { cudaFree(p_); }
    managed(const managed&) = delete;
    managed& operator=(const managed&) = delete;
    T* get() const { return p_; }
    T& operator[](std::size_t i) const { return p_[i]; }

  private:
    T* p_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Device-side checks

// Mismatches found by a kernel: how many, and the first one (where, got, want, source line).
struct report_data {
    unsigned long long errors;
    long long where, got, want;
    int line;
};

__device__ inline void report_mismatch(report_data* r, long long where, long long got, long long want, int line) {
    if (atomicAdd(&r->errors, 1ull) == 0) {
        r->where = where;
        r->got = got;
        r->want = want;
        r->line = line;
    }
}
// In a kernel: DEV_EXPECT_EQ(report, got, want, where): counts a mismatch, keeps the first.
#define DEV_EXPECT_EQ(rep, got_, want_, where_)                                                               \
    do {                                                                                                      \
        const long long dev_got_ = static_cast<long long>(got_), dev_want_ = static_cast<long long>(want_);   \
        if (dev_got_ != dev_want_)                                                                            \
            ::ishmem_gpu_testing::report_mismatch((rep), static_cast<long long>(where_), dev_got_, dev_want_, \
                                                  __LINE__);                                                  \
    } while (0)
#define DEV_EXPECT_TRUE(rep, cond, where_) DEV_EXPECT_EQ(rep, (cond) ? 1 : 0, 1, where_)

// Owns a report_data in device memory; expect_clean() checks it on the host.
class dev_report {
  public:
    dev_report() {
        GPU_CHECK(cudaMalloc(&p_, sizeof(report_data)));
        reset();
    }
    ~dev_report() { cudaFree(p_); }
    dev_report(const dev_report&) = delete;
    dev_report& operator=(const dev_report&) = delete;
    report_data* get() const { return p_; }
    operator report_data*() const { return p_; }
    void reset() const {
        GPU_CHECK(cudaMemset(p_, 0, sizeof(report_data)));
        settle_default_stream();
    }
    report_data read() const {
        report_data r{};
        GPU_CHECK(cudaMemcpy(&r, p_, sizeof r, cudaMemcpyDeviceToHost));
        return r;
    }
    // EXPECTs no mismatch; what names the check in the failure message. Returns the count.
    unsigned long long expect_clean(const std::string& what) const {
        const report_data r = read();
        EXPECT_EQ(r.errors, 0u) << what << ": " << r.errors << " mismatch(es) on the device; first at " << r.where
                                << " (line " << r.line << "): got " << r.got << ", expected " << r.want;
        return r.errors;
    }

  private:
    report_data* p_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Device utilities

// Nanoseconds of the GPU's global timer.
__device__ inline unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Sleeps the calling thread about ns nanoseconds (to make a waiter really wait).
__device__ inline void sleep_ns(unsigned long long ns) {
    const unsigned long long end = global_ns() + ns;
    while (global_ns() < end) __nanosleep(1000);
}

// A relaxed system-scope load for words that another PE changes while we read them.
template <class T> __device__ inline T load_volatile(const T* p) { return *static_cast<const volatile T*>(p); }

// The value PE pe writes at element i of stream s (round, channel...): nonzero and distinct enough
// that a misplaced or stale element shows.
__host__ __device__ inline int pattern(int pe, int s, long long i) {
    return static_cast<int>(1 + pe * 1000003 + s * 7919 + (i * 31) % 1000000007);
}

// ---------------------------------------------------------------------------------------------
// Host utilities

// Checks got[i] == want(i) for all i; reports the count and the first mismatch, not each one.
template <class T, class Want> bool expect_elements(const std::vector<T>& got, Want&& want, const std::string& what) {
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != static_cast<T>(want(i)) && bad++ == 0) first = i;
    if (bad)
        ADD_FAILURE() << what << ": " << bad << " of " << got.size() << " elements wrong; first at [" << first
                      << "]: got " << +got[first] << ", expected " << +static_cast<T>(want(first));
    return bad == 0;
}

}  // namespace ishmem_gpu_testing
