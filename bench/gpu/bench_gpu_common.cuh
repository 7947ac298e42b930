// bench_gpu_common.cuh: the measurements of bench_gpu (ishmem's CUDA backend) and bench_gpu_nvshmem
// (NVSHMEM, the peer). Both programs run the same kernels, the same iteration counts, the same
// timing and the same checks; they differ only in the API layer each passes to run<Api>(): a
// struct of static functions that wrap one library's calls (bench_gpu.cu, bench_gpu_nvshmem.cu).
// This header includes neither library, so that it compiles against both.
//
// What an Api struct provides (device functions are __device__ static, the rest host static):
//   device: int_p, int_g, quiet, uint64_atomic_fetch_add, uint64_atomic_set, uint64_p,
//           uint64_wait_ge, uint64_put_signal_set, signal_wait_ge, putmem, getmem,
//           putmem_warp, getmem_warp (cg::thread_block_tile<32>), putmem_block, getmem_block
//           (cg::thread_block)
//   host:   name, option (extra command-line options), extra_usage, init, my_pe, n_pes,
//           malloc, free, barrier_all, host_putmem, host_quiet, attach_stream, stream_putmem,
//           stream_quiet_wait, finalize
//   and the collectives' (bench_gpu_coll.cuh, run after the rest)
//
// Header-only, one program per translation unit (C++17: the NVSHMEM peer is built with -std=c++17).
#ifndef ISHMEM_BENCH_GPU_COMMON_CUH
#define ISHMEM_BENCH_GPU_COMMON_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {

namespace cg = cooperative_groups;
using clock_type = std::chrono::steady_clock;

// ---- errors ---------------------------------------------------------------------------------------
inline const char* g_program = "bench_gpu";
inline int g_pe = -1;  // known after init; messages then name the PE

[[gnu::format(printf, 1, 2)]] [[noreturn]] inline void die(const char* fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g_pe >= 0)
        fprintf(stderr, "%s: PE %d: %s\n", g_program, g_pe, msg);
    else
        fprintf(stderr, "%s: %s\n", g_program, msg);
    fflush(stderr);
    fflush(stdout);
    _exit(1);  // no static destructors: the libraries may be mid-operation
}

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess) die("%s:%d: %s: %s", file, line, what, cudaGetErrorString(e));
}
#define GB_CUDA(call) ::gpubench::check_cuda((call), #call, __FILE__, __LINE__)

// ---- options --------------------------------------------------------------------------------------
struct options {
    bool quick = false;
    std::string csv;
    int reps = 7;               // timed repetitions per point (after one warm-up); odd keeps the median a sample
    long lat_iters = 10000;     // operations per latency repetition
    long max_bw_iters = 10000;  // most operations per bandwidth repetition
    int budget_shift = 0;       // bandwidth byte budgets are divided by 2^budget_shift (--quick: 3)
    std::vector<size_t> sizes;
    std::vector<std::string> only;  // run the measurements whose name contains one of these
    int watchdog_s = 60;
    bool help = false;
    std::string bad;
};

// "64K" -> 65536; K, M, G are powers of 1024. 0 on a malformed number.
inline size_t parse_size(const std::string& s) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(s.c_str(), &end, 10);
    if (errno || end == s.c_str()) return 0;
    std::string suffix(end);
    if (suffix == "K" || suffix == "k")
        v <<= 10;
    else if (suffix == "M" || suffix == "m")
        v <<= 20;
    else if (suffix == "G" || suffix == "g")
        v <<= 30;
    else if (!suffix.empty())
        return 0;
    return static_cast<size_t>(v);
}

inline std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(sep, start);
        if (end == std::string::npos) end = s.size();
        if (end > start) out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// Default sizes: 8 B, then powers of 4 from 64 B to 64 MiB (1 MiB and 64 MiB included).
inline std::vector<size_t> default_sizes(bool quick) {
    if (quick) return {8, 4096, 1u << 20, 16u << 20};
    std::vector<size_t> s{8};
    for (size_t n = 64; n <= (64u << 20); n *= 4) s.push_back(n);
    return s;
}

// Parses argv into o; extra(a, i) is asked first about each argument (the API's own options, e.g.
// the NVSHMEM peer's --rank) and returns true when it took it, advancing i past any value.
template <class Extra> void parse_options(options& o, int argc, char** argv, Extra extra) {
    bool reps_set = false, iters_set = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        bool has_value = i + 1 < argc;
        if (extra(a, i)) continue;
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--csv" && has_value) {
            o.csv = argv[++i];
        } else if (a == "--reps" && has_value) {
            o.reps = std::max(1, atoi(argv[++i]));
            reps_set = true;
        } else if (a == "--iters" && has_value) {
            o.lat_iters = std::max(1L, atol(argv[++i]));
            iters_set = true;
        } else if (a == "--sizes" && has_value) {
            for (const std::string& s : split(argv[++i], ',')) {
                size_t n = parse_size(s);
                if (n == 0 || n % 8 != 0) {
                    o.bad = "--sizes " + s + " (sizes are positive multiples of 8 bytes)";
                    break;
                }
                o.sizes.push_back(n);
            }
        } else if (a == "--only" && has_value) {
            o.only = split(argv[++i], ',');
        } else if (a == "--watchdog" && has_value) {
            o.watchdog_s = std::max(1, atoi(argv[++i]));
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (o.bad.empty()) {
            o.bad = a;
        }
    }
    if (o.quick) {
        if (!reps_set) o.reps = 3;
        if (!iters_set) o.lat_iters = 1000;
        o.max_bw_iters = 1000;
        o.budget_shift = 3;
    }
    if (o.sizes.empty()) o.sizes = default_sizes(o.quick);
    std::sort(o.sizes.begin(), o.sizes.end());
    o.sizes.erase(std::unique(o.sizes.begin(), o.sizes.end()), o.sizes.end());
}

inline void print_usage(FILE* to, const char* argv0, const char* launch, const char* extra) {
    fprintf(to,
            "Usage: %s %s [options]\n"
            "Device-initiated operations between 2 PEs on 2 GPUs (PE 0 initiates, PE 1 is the target), and\n"
            "the collectives; on more than 2 PEs (one per GPU) the collectives alone.\n"
            "CSV name,bytes,metric,value on stdout (metric us or GBps).\n"
            "  --quick          3 reps, 1000 latency iterations, sizes 8 B, 4 KiB, 1 MiB, 16 MiB\n"
            "  --csv FILE       also write the CSV (header and rows) to FILE\n"
            "  --reps N         timed repetitions per point, median reported (default 7)\n"
            "  --iters N        operations per latency repetition (default 10000)\n"
            "  --sizes LIST     bandwidth sizes, e.g. 8,64K,1M (multiples of 8; default 8 B, 64 B .. 64 MiB by 4x)\n"
            "  --only LIST      only the measurements whose name contains one of these, e.g. putmem/,int_g\n"
            "  --watchdog S     give up (exit 3) after S seconds without progress (default 60)\n"
            "%s",
            argv0, launch, extra);
}

// ---- the watchdog ---------------------------------------------------------------------------------
// A thread, not SIGALRM: a signal would interrupt the libraries' socket calls (NVSHMEM's bootstrap
// does not retry poll() on EINTR). Every finished repetition counts as progress; when none happens
// for the limit, the thread writes what was running and ends the process with status 3 (ishmrun and
// run.sh then stop the other PE). A hung kernel is the usual cause.
inline std::atomic<unsigned long> g_progress{0};
inline char g_doing[2][192] = {"start-up", ""};
inline std::atomic<int> g_doing_slot{0};

inline void progress() { g_progress.fetch_add(1, std::memory_order_relaxed); }

[[gnu::format(printf, 1, 2)]] inline void set_doing(const char* fmt, ...) {
    int slot = g_doing_slot.load(std::memory_order_relaxed) ^ 1;  // write the copy not shown
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_doing[slot], sizeof g_doing[slot], fmt, ap);
    va_end(ap);
    g_doing_slot.store(slot, std::memory_order_release);
    progress();
}

inline void start_watchdog(int limit_s) {
    std::thread([limit_s] {
        unsigned long last = g_progress.load();
        int stalled = 0;
        for (;;) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            unsigned long now = g_progress.load();
            if (now != last) {
                last = now;
                stalled = 0;
                continue;
            }
            if (++stalled < limit_s) continue;
            fprintf(stderr, "%s: PE %d: no progress for %d s in %s (a hung kernel or wait?); giving up\n", g_program,
                    g_pe, limit_s, g_doing[g_doing_slot.load(std::memory_order_acquire)]);
            fflush(stderr);
            fflush(stdout);
            _exit(3);
        }
    }).detach();
}

// ---- the peers' bootstrap: rank 0 leaves a unique id in a file for the others ----------------------
// Written through a rename, so that a reader never sees half of it; readers wait up to 60 s for it.
inline void write_id_file(const std::string& path, const void* id, size_t size) {
    std::string tmp = path + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f || fwrite(id, size, 1, f) != 1 || fclose(f) != 0) die("cannot write %s: %s", tmp.c_str(), strerror(errno));
    if (rename(tmp.c_str(), path.c_str()) != 0) die("cannot rename %s: %s", tmp.c_str(), strerror(errno));
}
inline void read_id_file(const std::string& path, void* id, size_t size) {
    for (int waited_ms = 0;; waited_ms += 10) {
        if (FILE* f = fopen(path.c_str(), "rb")) {
            size_t got = fread(id, size, 1, f);
            fclose(f);
            if (got != 1) die("%s: shorter than a unique id (%zu bytes)", path.c_str(), size);
            return;
        }
        if (waited_ms >= 60000) die("rank 0 wrote no unique id to %s in 60 s", path.c_str());
        progress();  // waiting for rank 0 is not a hang (yet)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// A wrong result, on stderr: "<program>: PE <me>: WRONG: <message>".
inline void vprint_wrong(int me, const char* fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "%s: PE %d: WRONG: %s\n", g_program, me, msg);
    fflush(stderr);
}
[[gnu::format(printf, 2, 3)]] inline void print_wrong(int me, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprint_wrong(me, fmt, ap);
    va_end(ap);
}

// ---- statistics and output ------------------------------------------------------------------------
inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// CSV lines go to stdout at once (a run cut short keeps its lines) and to --csv FILE; "# " lines
// (the set-up, the end) go to stdout only. Only PE 0 writes.
class csv_writer {
  public:
    csv_writer(const std::string& path, bool enabled) : enabled_(enabled) {
        if (enabled_ && !path.empty() && !(file_ = fopen(path.c_str(), "w")))
            die("cannot write %s: %s", path.c_str(), strerror(errno));
        row("name,bytes,metric,value");
    }
    ~csv_writer() {
        if (file_) fclose(file_);
    }
    csv_writer(const csv_writer&) = delete;
    csv_writer& operator=(const csv_writer&) = delete;

    void add(const std::string& name, size_t bytes, const char* metric, double value) {
        char line[256];
        snprintf(line, sizeof line, "%s,%zu,%s,%.6g", name.c_str(), bytes, metric, value);
        row(line);
    }
    [[gnu::format(printf, 2, 3)]] void note(const char* fmt, ...) {
        if (!enabled_) return;
        va_list ap;
        va_start(ap, fmt);
        fputs("# ", stdout);
        vfprintf(stdout, fmt, ap);
        fputc('\n', stdout);
        va_end(ap);
        fflush(stdout);
    }

  private:
    void row(const char* s) {
        if (!enabled_) return;
        printf("%s\n", s);
        fflush(stdout);
        if (file_) {
            fprintf(file_, "%s\n", s);
            fflush(file_);
        }
    }
    bool enabled_;
    FILE* file_ = nullptr;
};

// ---- device helpers -------------------------------------------------------------------------------
// %globaltimer: nanoseconds, one clock for every SM of the GPU (so that the blocks of a grid can be
// compared); the "memory" clobber keeps loads and stores from moving across the reading.
__device__ __forceinline__ uint64_t now_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// The data of a bandwidth point: 32-bit words that differ per point (stamp) and per word, never 0
// (the destination is zeroed before the point, so stale or missing data shows).
__host__ __device__ inline uint32_t pattern(uint32_t stamp, size_t word) {
    uint32_t x = stamp * 0x9E3779B1u ^ static_cast<uint32_t>(word) * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 13;
    return x ? x : 1u;
}

__global__ void k_fill_pattern(uint32_t* p, size_t words, uint32_t stamp) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
        p[i] = pattern(stamp, i);
}

// The g chain: line k (128 bytes, 32 ints) holds k + 1, the last line 0, so that each g's address
// depends on the value of the one before (a latency, not a throughput of independent loads).
constexpr int line_ints = 32;
__global__ void k_fill_chain(int* chain, int lines) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < lines; k += gridDim.x * blockDim.x)
        chain[size_t(k) * line_ints] = (k + 1) % lines;
}

// ---- latency kernels (one thread of PE 0; PE 1's memory is the target) ---------------------------
constexpr int warm_ops = 8;  // untimed operations at the start of every latency kernel

template <class Api> __global__ void k_int_p_quiet(int* target, int base, long iters, int pe, uint64_t* times) {
    for (int i = 0; i < warm_ops; ++i) {
        Api::int_p(target, base, pe);
        Api::quiet();
    }
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i) {
        Api::int_p(target, base + static_cast<int>(i), pe);
        Api::quiet();
    }
    times[1] = now_ns();
    times[0] = t0;
}

template <class Api> __global__ void k_int_g_chain(const int* chain, int start, int lines, long iters, int pe,
                                                   uint64_t* times, unsigned long long* errors) {
    int idx = start;
    for (int i = 0; i < warm_ops; ++i) idx = Api::int_g(chain + size_t(idx) * line_ints, pe);
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i) idx = Api::int_g(chain + size_t(idx) * line_ints, pe);
    times[1] = now_ns();
    times[0] = t0;
    if (idx != static_cast<int>((start + warm_ops + iters) % lines)) atomicAdd(errors, 1ull);
}

// Each add's operand depends on the value the one before returned (v >> 63 is 0 here, but the
// compiler cannot know), so the adds cannot overlap; each must return its predecessor's value + 1.
template <class Api>
__global__ void k_fetch_add(uint64_t* counter, long iters, int pe, uint64_t* times, unsigned long long* errors) {
    uint64_t prev = Api::uint64_atomic_fetch_add(counter, 1, pe);
    for (int i = 1; i < warm_ops; ++i) prev = Api::uint64_atomic_fetch_add(counter, 1 + (prev >> 63), pe);
    unsigned long long bad = 0;
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i) {
        uint64_t v = Api::uint64_atomic_fetch_add(counter, 1 + (prev >> 63), pe);
        bad += v != prev + 1;
        prev = v;
    }
    times[1] = now_ns();
    times[0] = t0;
    if (bad) atomicAdd(errors, bad);
}

// ---- ping-pong (one thread on each PE) ------------------------------------------------------------
// PE 0 sends s and waits for s to come back; PE 1 waits for s and sends it back. Values only grow
// (the host hands every kernel a fresh range), so flags are never reset. The first round trip is
// untimed: it waits for the other PE's kernel to start.
enum class handover { put_signal, atomic_set, p_quiet };

template <class Api, handover H>
__device__ __forceinline__ void send(uint64_t* flag, uint64_t* data, uint64_t* src, uint64_t v, int peer) {
    if constexpr (H == handover::put_signal) {
        *src = v;  // the payload: 8 bytes that travel with the signal
        Api::uint64_put_signal_set(data, src, flag, v, peer);
    } else if constexpr (H == handover::atomic_set) {
        Api::uint64_atomic_set(flag, v, peer);
    } else {
        Api::uint64_p(flag, v, peer);
        Api::quiet();
    }
}

template <class Api, handover H>
__device__ __forceinline__ unsigned long long await(uint64_t* flag, const uint64_t* data, uint64_t v) {
    if constexpr (H == handover::put_signal) {
        uint64_t s = Api::signal_wait_ge(flag, v);
        // The payload was put before the signal: it must be visible once the signal is.
        return (s < v) + (*static_cast<const volatile uint64_t*>(data) != v);
    } else {
        Api::uint64_wait_ge(flag, v);
        return *static_cast<const volatile uint64_t*>(flag) < v;
    }
}

template <class Api, handover H> __global__ void k_pingpong(uint64_t* flag, uint64_t* data, uint64_t* src,
                                                            uint64_t first, long iters, int me, uint64_t* times,
                                                            unsigned long long* errors) {
    const int peer = 1 - me;
    unsigned long long bad = 0;
    uint64_t t0 = 0;
    for (long k = 0; k <= iters; ++k) {
        if (k == 1) t0 = now_ns();
        uint64_t v = first + static_cast<uint64_t>(k);
        if (me == 0) {
            send<Api, H>(flag, data, src, v, peer);
            bad += await<Api, H>(flag, data, v);
        } else {
            bad += await<Api, H>(flag, data, v);
            send<Api, H>(flag, data, src, v, peer);
        }
    }
    if (me == 0) {
        times[1] = now_ns();
        times[0] = t0;
    }
    if (bad) atomicAdd(errors, bad);
}

// ---- bandwidth kernel -----------------------------------------------------------------------------
// iters times: the block's slice of n bytes (grid: slice bytes per block; else all n) put or got
// with the scope's form; then every thread calls quiet (completing its own puts) and the block
// syncs. Thread 0 of each block records its start and end; the host takes the grid's span.
enum class scope { thread, warp, block, grid };

template <class Api, scope S, bool Put> __global__ void __launch_bounds__(1024)
    k_bandwidth(char* dst, const char* src, size_t n, size_t slice, long iters, int pe, uint64_t* times) {
    const size_t off = size_t(blockIdx.x) * slice;
    const size_t len = off >= n ? 0 : n - off < slice ? n - off : slice;
    char* d = dst + off;
    const char* s = src + off;
    cg::thread_block block = cg::this_thread_block();
    block.sync();
    const uint64_t t0 = now_ns();
    if (len) {
        if constexpr (S == scope::thread) {
            for (long i = 0; i < iters; ++i) {
                if constexpr (Put)
                    Api::putmem(d, s, len, pe);
                else
                    Api::getmem(d, s, len, pe);
            }
        } else if constexpr (S == scope::warp) {
            cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
            for (long i = 0; i < iters; ++i) {
                if constexpr (Put)
                    Api::putmem_warp(d, s, len, pe, warp);
                else
                    Api::getmem_warp(d, s, len, pe, warp);
            }
        } else {
            for (long i = 0; i < iters; ++i) {
                if constexpr (Put)
                    Api::putmem_block(d, s, len, pe, block);
                else
                    Api::getmem_block(d, s, len, pe, block);
            }
        }
    }
    Api::quiet();
    block.sync();
    if (threadIdx.x == 0) {
        times[2 * blockIdx.x] = t0;
        times[2 * blockIdx.x + 1] = now_ns();
    }
}

template <class Api> __global__ void k_read_peer_int(const int* word, int pe, int* out) { *out = Api::int_g(word, pe); }

// ---- the run --------------------------------------------------------------------------------------
// Symmetric words of the latency tests, each on its own 128-byte line.
enum word_slot : int {
    slot_p_target,
    slot_fadd_counter,
    slot_sig_flag,
    slot_sig_data,
    slot_sig_src,
    slot_set_flag,
    slot_pq_flag,
    slot_gpu_id,
    slot_count
};
constexpr size_t guard_bytes = 4096;  // past the largest size: stays zero, catches overruns
constexpr int max_blocks = 1024;

template <class Api> struct bench {
    options opt;
    int me = -1, peer = -1;
    int sms = 0;
    cudaStream_t stream = nullptr;
    uint64_t* d_times = nullptr;             // 2 per block
    unsigned long long* d_errors = nullptr;  // in-kernel check failures
    int* d_int = nullptr;                    // a kernel's int result
    char* src = nullptr;                     // symmetric, max size + guard
    char* dst = nullptr;
    int* chain = nullptr;  // symmetric, chain_lines lines
    int chain_lines = 0;
    uint64_t* words = nullptr;    // symmetric, slot_count lines
    uint64_t seq[3] = {0, 0, 0};  // next ping-pong value per handover
    uint32_t stamp = 0;
    long wrong = 0;
    int points = 0;
    csv_writer* out = nullptr;

    uint64_t* word(int slot) const { return words + size_t(slot) * 16; }
    bool wanted(const std::string& name) const {
        if (opt.only.empty()) return true;
        for (const std::string& s : opt.only)
            if (name.find(s) != std::string::npos) return true;
        return false;
    }
    void sync() { GB_CUDA(cudaStreamSynchronize(stream)); }
    void barrier() {
        sync();
        Api::barrier_all();
    }
    void launched() { GB_CUDA(cudaGetLastError()); }

    [[gnu::format(printf, 2, 3)]] void report_wrong(const char* fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vprint_wrong(me, fmt, ap);
        va_end(ap);
        ++wrong;
    }
    // Reports (and clears) what the kernels of a point counted as wrong.
    void check_kernel_errors(const std::string& name) {
        unsigned long long e = 0;
        sync();
        GB_CUDA(cudaMemcpy(&e, d_errors, sizeof e, cudaMemcpyDeviceToHost));
        if (e) {
            report_wrong("%s: %llu wrong values seen in the kernel", name.c_str(), e);
            GB_CUDA(cudaMemsetAsync(d_errors, 0, sizeof e, stream));
        }
    }
    template <class T> T read_back(const T* p) {
        T v{};
        sync();
        GB_CUDA(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
        return v;
    }
    // The time per operation of a kernel that recorded [t0, t1] for each of its blocks, in us.
    double kernel_us(int blocks, long ops) {
        std::vector<uint64_t> t(2 * size_t(blocks));
        sync();
        GB_CUDA(cudaMemcpy(t.data(), d_times, t.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int b = 0; b < blocks; ++b) {
            lo = std::min(lo, t[2 * b]);
            hi = std::max(hi, t[2 * b + 1]);
        }
        if (hi <= lo) hi = lo + 1;  // below the timer's resolution
        return double(hi - lo) * 1e-3 / double(ops);
    }

    // One point: a warm-up and opt.reps timed repetitions of rep() between barriers (rep returns
    // the time per operation in us on PE 0; other PEs' values are ignored). Reports the median: as
    // us, and with bytes_per_op > 0 also as GB/s.
    template <class Rep> void point(const std::string& name, size_t bytes, size_t bytes_per_op, Rep&& rep) {
        std::vector<double> us;
        for (int r = -1; r < opt.reps; ++r) {
            set_doing("%s, %zu bytes, repetition %d", name.c_str(), bytes, r + 1);
            barrier();
            double t = rep(r);
            if (r >= 0) us.push_back(t);
        }
        barrier();
        ++points;
        double m = median(us);
        out->add(name, bytes, "us", m);
        if (bytes_per_op) out->add(name, bytes, "GBps", double(bytes_per_op) / (m * 1e3));
    }

    // ---- latency ----
    void latency() {
        const long n = opt.lat_iters;
        if (wanted("int_p+quiet")) {
            int* target = reinterpret_cast<int*>(word(slot_p_target));
            int base = 0;
            point("int_p+quiet", sizeof(int), 0, [&](int r) {
                base = 1000003 * (r + 2);
                if (me != 0) return 0.0;
                k_int_p_quiet<Api><<<1, 1, 0, stream>>>(target, base, n, peer, d_times);
                launched();
                return kernel_us(1, n);
            });
            if (me == 1 && read_back(target) != base + static_cast<int>(n) - 1)
                report_wrong("int_p+quiet: the target holds %d, expected %d", read_back(target),
                             base + static_cast<int>(n) - 1);
        }
        if (wanted("int_g")) {
            point("int_g", sizeof(int), 0, [&](int r) {
                if (me != 0) return 0.0;
                int start = static_cast<int>((size_t(r + 1) * 7919u * 64u) % size_t(chain_lines));
                k_int_g_chain<Api><<<1, 1, 0, stream>>>(chain, start, chain_lines, n, peer, d_times, d_errors);
                launched();
                return kernel_us(1, n);
            });
            check_kernel_errors("int_g");
        }
        if (wanted("uint64_atomic_fetch_add")) {
            uint64_t* counter = word(slot_fadd_counter);
            uint64_t before = me == 1 ? read_back(counter) : 0;
            point("uint64_atomic_fetch_add", sizeof(uint64_t), 0, [&](int) {
                if (me != 0) return 0.0;
                k_fetch_add<Api><<<1, 1, 0, stream>>>(counter, n, peer, d_times, d_errors);
                launched();
                return kernel_us(1, n);
            });
            check_kernel_errors("uint64_atomic_fetch_add");
            uint64_t expect = before + uint64_t(opt.reps + 1) * uint64_t(n + warm_ops);
            if (me == 1 && read_back(counter) != expect)
                report_wrong("uint64_atomic_fetch_add: the counter holds %llu, expected %llu",
                             static_cast<unsigned long long>(read_back(counter)),
                             static_cast<unsigned long long>(expect));
        }
        pingpong<handover::put_signal>("uint64_put_signal+signal_wait_until", slot_sig_flag);
        pingpong<handover::atomic_set>("uint64_atomic_set+wait_until", slot_set_flag);
        pingpong<handover::p_quiet>("uint64_p+quiet+wait_until", slot_pq_flag);
    }

    // One-way latency: half a round trip.
    template <handover H> void pingpong(const char* name, int flag_slot) {
        if (!wanted(name)) return;
        const long n = opt.lat_iters;
        uint64_t& next = seq[static_cast<int>(H)];
        point(name, sizeof(uint64_t), 0, [&](int) {
            uint64_t first = next + 1;
            next += uint64_t(n) + 1;
            k_pingpong<Api, H><<<1, 1, 0, stream>>>(word(flag_slot), word(slot_sig_data), word(slot_sig_src), first, n,
                                                    me, d_times, d_errors);
            launched();
            sync();
            return me == 0 ? kernel_us(1, 2 * n) : 0.0;
        });
        check_kernel_errors(name);
    }

    // ---- bandwidth ----
    struct mode {
        std::string label;
        scope s;
        int blocks, threads;
        size_t budget;  // bytes per repetition (before --quick's shift)
    };
    std::vector<mode> modes() const {
        std::vector<mode> m{{"thread", scope::thread, 1, 1, size_t(8) << 20},
                            {"warp", scope::warp, 1, 32, size_t(32) << 20},
                            {"block", scope::block, 1, 1024, size_t(128) << 20},
                            {"32blocks", scope::grid, 32, 1024, size_t(1) << 30}};
        if (sms != 32) m.push_back({std::to_string(sms) + "blocks", scope::grid, sms, 1024, size_t(1) << 30});
        return m;
    }
    long iters_for(size_t budget, size_t n, long cap) const {
        return std::clamp<long>(static_cast<long>((budget >> opt.budget_shift) / n), 1, cap);
    }

    // Before a point: the source's owner writes the point's pattern, the destination's owner zeroes
    // the destination and the guard after it.
    void prepare(int src_owner, int dst_owner, size_t n) {
        ++stamp;
        if (me == src_owner) {
            k_fill_pattern<<<256, 256, 0, stream>>>(reinterpret_cast<uint32_t*>(src), n / 4, stamp);
            launched();
        }
        if (me == dst_owner) GB_CUDA(cudaMemsetAsync(dst, 0, n + guard_bytes, stream));
        barrier();
    }
    // After it: the destination's owner compares the first, middle and last 256 bytes with the
    // pattern, and checks that the guard is still zero.
    void verify(int dst_owner, size_t n, const std::string& name) {
        if (me != dst_owner) return;
        const size_t w = 64;  // words per window
        const size_t words = n / 4;
        size_t starts[3] = {0, words / 2 > w / 2 ? words / 2 - w / 2 : 0, words > w ? words - w : 0};
        std::vector<uint32_t> got(w);
        for (size_t st : starts) {
            size_t cnt = std::min(w, words - st);
            sync();
            GB_CUDA(cudaMemcpy(got.data(), dst + st * 4, cnt * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < cnt; ++i)
                if (got[i] != pattern(stamp, st + i)) {
                    report_wrong("%s, %zu bytes: destination byte %zu holds word 0x%08x, expected 0x%08x", name.c_str(),
                                 n, (st + i) * 4, got[i], pattern(stamp, st + i));
                    return;
                }
        }
        GB_CUDA(cudaMemcpy(got.data(), dst + n, w * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < w; ++i)
            if (got[i] != 0) {
                report_wrong("%s, %zu bytes: byte %zu past the end was written", name.c_str(), n, n + i * 4);
                return;
            }
    }

    template <scope S, bool Put> void bandwidth_point(const mode& m, size_t n) {
        const std::string name = std::string(Put ? "putmem/" : "getmem/") + m.label;
        if (!wanted(name)) return;
        const long iters = iters_for(m.budget, n, opt.max_bw_iters);
        // Grid: equal slices, multiples of 256 bytes (aligned for every copy path); small sizes
        // leave the later blocks without work.
        const size_t slice = S == scope::grid ? (n + size_t(m.blocks) * 256 - 1) / (size_t(m.blocks) * 256) * 256 : n;
        const int src_owner = Put ? 0 : 1, dst_owner = Put ? 1 : 0;
        prepare(src_owner, dst_owner, n);
        point(name, n, n, [&](int) {
            if (me != 0) return 0.0;
            k_bandwidth<Api, S, Put><<<m.blocks, m.threads, 0, stream>>>(dst, src, n, slice, iters, peer, d_times);
            launched();
            return kernel_us(m.blocks, iters);
        });
        verify(dst_owner, n, name);
    }

    template <scope S> void bandwidth_mode(const mode& m) {
        for (size_t n : opt.sizes) bandwidth_point<S, true>(m, n);
        for (size_t n : opt.sizes) bandwidth_point<S, false>(m, n);
    }

    void bandwidth() {
        for (const mode& m : modes()) {
            switch (m.s) {
                case scope::thread:
                    bandwidth_mode<scope::thread>(m);
                    break;
                case scope::warp:
                    bandwidth_mode<scope::warp>(m);
                    break;
                case scope::block:
                    bandwidth_mode<scope::block>(m);
                    break;
                case scope::grid:
                    bandwidth_mode<scope::grid>(m);
                    break;
            }
        }
    }

    // Puts issued from the host: on a stream (ishmem: _on_queue; NVSHMEM: _on_stream) from 64 KiB,
    // and the plain host call at every size. Timed on the host, from the first call to the return
    // of the completing quiet.
    template <class Issue> void host_point(const std::string& name, size_t n, long iters, Issue&& issue) {
        prepare(0, 1, n);
        point(name, n, n, [&](int) {
            if (me != 0) return 0.0;
            sync();
            auto t0 = clock_type::now();
            issue(iters);
            auto t1 = clock_type::now();
            return std::chrono::duration<double, std::micro>(t1 - t0).count() / double(iters);
        });
        verify(1, n, name);
    }

    void host_initiated() {
        if (wanted("putmem_on_queue")) {
            Api::attach_stream(stream);
            for (size_t n : opt.sizes) {
                if (n < (64u << 10)) continue;
                host_point("putmem_on_queue", n, iters_for(size_t(1) << 30, n, 1000), [&](long iters) {
                    for (long i = 0; i < iters; ++i) Api::stream_putmem(dst, src, n, peer);
                    Api::stream_quiet_wait();
                });
            }
        }
        if (wanted("putmem_host")) {
            for (size_t n : opt.sizes)
                host_point("putmem_host", n, iters_for(size_t(256) << 20, n, opt.quick ? 100 : 1000), [&](long iters) {
                    for (long i = 0; i < iters; ++i) Api::host_putmem(dst, src, n, peer);
                    Api::host_quiet();
                });
        }
    }

    // ---- set-up ----
    // The PEs must sit on different GPUs: PE 0 reads PE 1's PCI address with g (the first device
    // operation of the run, so a broken g shows here too).
    // PE 0 reads every PE's GPU (PCI id, through int_g) and names them; two PEs on one GPU stop the run.
    void describe_and_check_gpus() {
        int dev = 0;
        GB_CUDA(cudaGetDevice(&dev));
        cudaDeviceProp p{};
        GB_CUDA(cudaGetDeviceProperties(&p, dev));
        sms = std::min(p.multiProcessorCount, max_blocks);
        int id = (p.pciDomainID << 16) | (p.pciBusID << 8) | p.pciDeviceID;
        int* slot = reinterpret_cast<int*>(word(slot_gpu_id));
        GB_CUDA(cudaMemcpyAsync(slot, &id, sizeof id, cudaMemcpyHostToDevice, stream));
        barrier();
        if (me == 0) {
            std::vector<int> ids{id};
            std::string others;
            for (int pe = 1; pe < Api::n_pes(); ++pe) {
                set_doing("reading PE %d's GPU id with int_g", pe);
                k_read_peer_int<Api><<<1, 1, 0, stream>>>(slot, pe, d_int);
                launched();
                const int peer_id = read_back(d_int);
                char text[64];
                snprintf(text, sizeof text, ", PE %d on PCI %04x:%02x:%02x", pe, peer_id >> 16, (peer_id >> 8) & 0xff,
                         peer_id & 0xff);
                others += text;
                for (int seen : ids)
                    if (seen == peer_id)
                        die("two PEs use the same GPU (PCI %04x:%02x:%02x); each PE needs its own", peer_id >> 16,
                            (peer_id >> 8) & 0xff, peer_id & 0xff);
                ids.push_back(peer_id);
            }
            out->note("%s; PE 0 on GPU %d: %s (%d SMs, PCI %04x:%02x:%02x)%s", Api::name(), dev, p.name,
                      p.multiProcessorCount, id >> 16, (id >> 8) & 0xff, id & 0xff, others.c_str());
        }
        barrier();
    }

    void allocate() {
        const size_t buf = opt.sizes.back() + guard_bytes;
        chain_lines = static_cast<int>(std::max<long>(16384, (opt.lat_iters + warm_ops + 1023) / 1024 * 1024));
        src = static_cast<char*>(Api::malloc(buf));
        dst = static_cast<char*>(Api::malloc(buf));
        chain = static_cast<int*>(Api::malloc(size_t(chain_lines) * line_ints * sizeof(int)));
        words = static_cast<uint64_t*>(Api::malloc(slot_count * 128));
        if (!src || !dst || !chain || !words)
            die("the symmetric heap cannot hold 2 x %zu bytes + %zu (raise its size, or give smaller --sizes)", buf,
                size_t(chain_lines) * 128);
        // The kernels run on this program's current device; the heap must be there.
        int dev = 0;
        GB_CUDA(cudaGetDevice(&dev));
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, src) != cudaSuccess) {
            cudaGetLastError();
            fprintf(stderr, "%s: PE %d: warning: cannot tell on which GPU the symmetric heap is\n", g_program, me);
        } else if (a.type == cudaMemoryTypeDevice && a.device != dev) {
            die("the symmetric heap is on GPU %d, but this program runs its kernels on GPU %d", a.device, dev);
        }
        GB_CUDA(cudaMemset(src, 0, buf));
        GB_CUDA(cudaMemset(dst, 0, buf));
        GB_CUDA(cudaMemset(words, 0, slot_count * 128));
        k_fill_chain<<<64, 256, 0, stream>>>(chain, chain_lines);
        launched();
        GB_CUDA(cudaMalloc(&d_times, 2 * max_blocks * sizeof(uint64_t)));
        GB_CUDA(cudaMalloc(&d_errors, sizeof(unsigned long long)));
        GB_CUDA(cudaMalloc(&d_int, sizeof(int)));
        GB_CUDA(cudaMemset(d_errors, 0, sizeof(unsigned long long)));
        GB_CUDA(cudaDeviceSynchronize());
        barrier();
    }

    void release() {
        barrier();
        Api::free(words);
        Api::free(chain);
        Api::free(dst);
        Api::free(src);
        GB_CUDA(cudaFree(d_times));
        GB_CUDA(cudaFree(d_errors));
        GB_CUDA(cudaFree(d_int));
    }
};

}  // namespace gpubench

#include "bench_gpu_coll.cuh"

namespace gpubench {

// The program: bench_gpu.cu and bench_gpu_nvshmem.cu call this from main with their Api.
template <class Api> int run(int argc, char** argv, const char* launch_usage) {
    bench<Api> b;
    parse_options(b.opt, argc, argv, [&](const std::string& a, int& i) { return Api::option(a, i, argc, argv); });
    if (b.opt.help || !b.opt.bad.empty()) {
        if (!b.opt.bad.empty())
            fprintf(stderr, "%s: unknown or incomplete option '%s'\n", g_program, b.opt.bad.c_str());
        print_usage(b.opt.help ? stdout : stderr, argv[0], launch_usage, Api::extra_usage());
        return b.opt.help ? 0 : 2;
    }
    start_watchdog(b.opt.watchdog_s);
    set_doing("initialization");
    Api::init();
    b.me = Api::my_pe();
    g_pe = b.me;
    // The point-to-point measurements pair PE 0 with PE 1; with more PEs only the collectives run.
    const bool pair = Api::n_pes() == 2;
    if (Api::n_pes() < 2) die("runs on 2 or more PEs, not %d", Api::n_pes());
    b.peer = pair ? 1 - b.me : -1;
    GB_CUDA(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    csv_writer out(b.me == 0 ? b.opt.csv : std::string(), b.me == 0);
    b.out = &out;
    set_doing("allocation");
    b.allocate();
    b.describe_and_check_gpus();
    out.note("%s run: %d reps (median), %ld ops per latency repetition, %zu sizes %zu..%zu bytes",
             b.opt.quick ? "quick" : "full", b.opt.reps, b.opt.lat_iters, b.opt.sizes.size(), b.opt.sizes.front(),
             b.opt.sizes.back());
    if (pair) {
        b.latency();
        b.bandwidth();
        b.host_initiated();
    } else {
        out.note("%d PEs: the point-to-point measurements need exactly 2 and are left out; collectives only",
                 Api::n_pes());
    }
    coll_run coll{b.opt, out, b.stream, b.src, b.dst, b.opt.sizes.back(), b.me, Api::n_pes()};
    run_collectives<Api>(coll);
    b.points += coll.points;
    b.wrong += coll.wrong;
    set_doing("the end");
    b.release();
    out.note("%d points, %ld wrong results on PE 0 (the other PEs report their own on stderr)", b.points, b.wrong);
    GB_CUDA(cudaStreamDestroy(b.stream));
    Api::finalize();
    return b.wrong ? 1 : 0;
}

}  // namespace gpubench

#endif  // ISHMEM_BENCH_GPU_COMMON_CUH
