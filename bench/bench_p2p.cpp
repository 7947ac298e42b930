// bench_p2p: point-to-point synchronization latency between two PEs, ishmem's wait/test/signal
// routines next to a plain shared-memory ping-pong (the floor) and Open MPI, in one launch:
//
//     mpirun -n 2 bench_p2p [--quick] [--csv FILE] [--batches N] [--batch-ms MS] [--mpi-osc NAME]
//
// Every variant is a ping-pong: PE 0 sends sequence number s to PE 1 and waits for PE 1 to send s
// back; PE 1 waits for s and sends it back. PE 0 times a batch of n round trips; a one-way latency
// is half a round trip. Both PEs run the same batches in the same order: before each batch they meet
// in MPI_Barrier and do one untimed round trip of the variant. As in bench_rma, the variants run in
// rounds of one batch each (in an order that changes every round), times are medians over the
// rounds and ratios medians over the rounds of the ratio within a round. Every wait is bounded: our
// own spin loops give up after 10 s, and a watchdog ends the process when no round trip completes
// for 12 s (a blocking ishmem or MPI call that never returns). See bench/README.md.
#include <mpi.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ishmem.h"
#include "ishmemx.h"

namespace {

struct options {
    bool quick = false;
    std::string csv;
    int batches = 31;        // rounds (one batch of each variant)
    double batch_us = 5000;  // target duration of one batch of the slowest variant
    std::string osc = "sm";  // Open MPI's one-sided component ("default": Open MPI's own choice)
    std::string bad;         // an option that could not be parsed
    bool help = false;
};

void usage(const char* argv0) {
    fprintf(stderr,
            "usage: mpirun -n 2 %s [--quick] [--csv FILE] [--batches N] [--batch-ms MS] [--mpi-osc NAME]\n"
            "  Runs on exactly 2 processes (PE 0 and PE 1 ping-pong).\n"
            "  --quick          few, short batches (a smoke test; numbers are rough)\n"
            "  --csv FILE       also write the CSV lines to FILE\n"
            "  --batches N      rounds, one batch of each variant (default 31, quick 3)\n"
            "  --batch-ms MS    target duration of one batch in ms (default 5, quick 0.2)\n"
            "  --mpi-osc NAME   Open MPI one-sided component for MPI_Put/MPI_Fetch_and_op: sm (default),\n"
            "                   rdma, ... or 'default' for Open MPI's own choice; OMPI_MCA_osc in the\n"
            "                   environment (mpirun --mca osc NAME) takes precedence\n",
            argv0);
}

// Parsed before MPI_Init (the one-sided component must be chosen before it); errors are reported
// after it, by rank 0 only.
options parse(int argc, char** argv) {
    options o;
    bool batches_set = false, batch_set = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--csv" && i + 1 < argc) {
            o.csv = argv[++i];
        } else if (a == "--batches" && i + 1 < argc) {
            o.batches = std::max(1, atoi(argv[++i]));
            batches_set = true;
        } else if (a == "--batch-ms" && i + 1 < argc) {
            o.batch_us = std::max(0.001, atof(argv[++i])) * 1000.0;
            batch_set = true;
        } else if (a == "--mpi-osc" && i + 1 < argc) {
            o.osc = argv[++i];
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (o.bad.empty()) {
            o.bad = a;
        }
    }
    if (o.quick) {
        if (!batches_set) o.batches = 3;
        if (!batch_set) o.batch_us = 200;
    }
    return o;
}

using clock_type = std::chrono::steady_clock;

int g_rank = -1;

[[noreturn]] void die(const char* msg) {
    fprintf(stderr, "bench_p2p: rank %d: %s\n", g_rank, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

// ---- bounded waits ------------------------------------------------------------------------------
// Our own spin loops call spin_guard::tick() once per poll: every 16384 polls it reads the clock,
// and after 10 s without the awaited value it aborts the job with a message. The counter costs one
// increment and a predictable branch per poll, the same in every variant that has it.
constexpr double spin_limit_s = 10.0;

struct spin_guard {
    const char* what;
    uint64_t polls = 0;
    clock_type::time_point start{};
    explicit spin_guard(const char* w) : what(w) {}
    void tick() {
        if (__builtin_expect((++polls & 0x3fff) == 0, 0)) check();
    }
    [[gnu::noinline, gnu::cold]] void check() {
        auto now = clock_type::now();
        if (polls == 0x4000) {
            start = now;
        } else if (std::chrono::duration<double>(now - start).count() > spin_limit_s) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s: the peer's value has not arrived after %.0f s; giving up", what,
                     spin_limit_s);
            die(buf);
        }
    }
};

// The calls we cannot put a guard into (ishmem's blocking waits, MPI_Recv, MPI_Barrier) are covered
// by a watchdog: a SIGALRM every second checks that g_progress moved (it counts round trips and
// batch boundaries); after 12 s without progress it writes which variant hung and ends the process
// (mpirun then ends the other one). Only the main thread takes SIGALRM: it is blocked before
// MPI_Init, so MPI's own threads inherit the block, and unblocked on the main thread after it.
std::atomic<unsigned long> g_progress{0};
std::atomic<const char*> g_doing{"start-up"};
constexpr int watchdog_s = 12;

inline void progress() {
    g_progress.store(g_progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void write_str(const char* s) {
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

void on_alarm(int) {
    static unsigned long last = ~0UL;
    static int stalled = 0;
    unsigned long now = g_progress.load(std::memory_order_relaxed);
    if (now != last) {
        last = now;
        stalled = 0;
        return;
    }
    if (++stalled < watchdog_s) return;
    char rank[16];
    int r = g_rank, i = sizeof rank - 1;
    rank[i] = '\0';
    do rank[--i] = static_cast<char>('0' + r % 10);
    while ((r /= 10) > 0 && i > 0);
    write_str("bench_p2p: rank ");
    write_str(rank + i);
    write_str(": no progress for 12 s in ");
    write_str(g_doing.load(std::memory_order_relaxed));
    write_str(" (a wait that never returned); giving up\n");
    _exit(3);
}

void block_alarm(int how) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(how, &set, nullptr);
}

void start_watchdog() {
    struct sigaction sa {};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    block_alarm(SIG_UNBLOCK);
    itimerval t{};
    t.it_interval.tv_sec = 1;
    t.it_value.tv_sec = 1;
    setitimer(ITIMER_REAL, &t, nullptr);
}

void stop_watchdog() {
    itimerval t{};
    setitimer(ITIMER_REAL, &t, nullptr);
    block_alarm(SIG_BLOCK);
}

// One PAUSE (x86) or YIELD (arm64) hint: the usual body of a spin-wait.
inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// ---- statistics -----------------------------------------------------------------------------------

// The q-quantile (0..1) of v, interpolated between neighbours; the median is quantile(v, 0.5).
double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    double pos = q * static_cast<double>(v.size() - 1);
    size_t i = static_cast<size_t>(pos);
    if (i + 1 >= v.size()) return v.back();
    return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

double median(const std::vector<double>& v) {
    return quantile(v, 0.5);
}

// ---- the ping-pong driver -----------------------------------------------------------------------

// One variant: a name and a function that runs n round trips (called on both PEs, which play their
// part by rank).
struct variant {
    const char* name;
    void (*run)(void* ctx, long n);
    void* ctx;
};

template <class F>
variant make_variant(const char* name, F& f) {
    return {name, [](void* c, long n) { (*static_cast<F*>(c))(n); }, &f};
}

// Per-round times: t[k][b] is the one-way latency (ns) of variant k in round b, as PE 0 saw it.
struct timings {
    std::vector<std::vector<double>> t;
    std::vector<long> n;  // round trips per batch, per variant
};

// One batch of variant v: both PEs meet, do one untimed round trip, then n timed ones. Returns, on
// PE 0, the one-way latency in ns (half the mean round trip); PE 1's return value is not used.
double batch(const variant& v, long n) {
    g_doing.store(v.name, std::memory_order_relaxed);
    progress();
    MPI_Barrier(MPI_COMM_WORLD);
    progress();
    v.run(v.ctx, 1);
    auto t0 = clock_type::now();
    v.run(v.ctx, n);
    auto t1 = clock_type::now();
    progress();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n) / 2.0;
}

// Runs the variants in rounds, one batch of each per round, on both PEs in the same order. Unlike
// bench_rma, every variant gets its own batch length (the variants differ by 100x: wait_until_any
// over 4096 variables against a cache-line ping-pong), each calibrated to about the target time.
// PE 0 takes every decision that depends on a time and broadcasts it, so that both PEs run the
// same batches. The order of the variants is a fresh shuffle every round, from a fixed seed (the
// same on both PEs), so that no variant always follows the same other one; the calibration is
// also the warm-up.
timings measure(const options& o, const std::vector<variant>& vs) {
    const size_t nv = vs.size();
    MPI_Comm world = MPI_COMM_WORLD;
    timings r;
    r.n.assign(nv, 1);
    // Duration (us) of a batch of variant k at its current length: PE 0's view, broadcast. The best
    // of `tries`, so that one slow batch (a page fault, a preemption) does not shrink the batches.
    auto batch_us = [&](size_t k, int tries) {
        double best = batch(vs[k], r.n[k]);
        for (int t = 1; t < tries; ++t) best = std::min(best, batch(vs[k], r.n[k]));
        double w = best * 2.0 * static_cast<double>(r.n[k]) / 1000.0;
        MPI_Bcast(&w, 1, MPI_DOUBLE, 0, world);
        return w;
    };
    for (size_t k = 0; k < nv; ++k) {
        while (batch_us(k, 1) < o.batch_us / 8 && r.n[k] < (1L << 30)) r.n[k] *= 2;
        double w = batch_us(k, 3);
        r.n[k] = std::max(1L, static_cast<long>(static_cast<double>(r.n[k]) * o.batch_us / std::max(w, 1e-3)));
        MPI_Bcast(&r.n[k], 1, MPI_LONG, 0, world);
    }
    for (size_t k = 0; k < nv; ++k) batch(vs[k], r.n[k]);  // warm-up at the final lengths

    r.t.assign(nv, {});
    std::mt19937 rng(20240611u);
    std::vector<size_t> order(nv);
    for (size_t k = 0; k < nv; ++k) order[k] = k;
    for (int b = 0; b < o.batches; ++b) {
        for (size_t i = nv; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
        for (size_t k : order) r.t[k].push_back(batch(vs[k], r.n[k]));
    }
    g_doing.store("the end of the measurement", std::memory_order_relaxed);
    return r;
}

struct ratio {
    double median, lo, hi;  // median and quartiles over the rounds of t[a][b] / t[p][b]
};

ratio paired(const timings& t, size_t a, size_t p) {
    std::vector<double> q;
    for (size_t b = 0; b < t.t[a].size(); ++b) q.push_back(t.t[a][b] / t.t[p][b]);
    return {median(q), quantile(q, 0.25), quantile(q, 0.75)};
}

// ---- output -------------------------------------------------------------------------------------

class csv_out {
  public:
    explicit csv_out(const options& o) {
        if (!o.csv.empty()) {
            file_ = fopen(o.csv.c_str(), "w");
            if (!file_) {
                char buf[512];
                snprintf(buf, sizeof buf, "cannot write %s: %s", o.csv.c_str(), strerror(errno));
                die(buf);
            }
        }
        line("op,one_way_ns,peer,peer_ns,ratio\n");
    }
    ~csv_out() {
        if (file_) fclose(file_);
    }
    void add(const char* op, double ns, const char* peer, double peer_ns, double r) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s,%.1f,%s,%.1f,%.3f\n", op, ns, peer, peer_ns, r);
        line(buf);
    }

  private:
    void line(const char* s) {
        fputs(s, stdout);
        fflush(stdout);
        if (file_) fputs(s, file_);
    }
    FILE* file_ = nullptr;
};

// The 1-minute load average, or -1 where /proc/loadavg is not readable.
double load_average() {
    double l = -1;
    if (FILE* f = fopen("/proc/loadavg", "r")) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

std::string mpi_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string v(text, static_cast<size_t>(len));
    size_t cut = v.find_first_of(",\n");
    return cut == std::string::npos ? v : v.substr(0, cut);
}

// "ok" or "MISSED" by the median ratio; "(noisy)" where the quartiles lie on both sides of the limit.
// strict: the target is ratio < limit (below MPI), else ratio <= limit (within 1.5x of the floor).
const char* verdict(const ratio& r, double limit, bool strict) {
    bool ok = strict ? r.median < limit : r.median <= limit;
    bool noisy = strict ? (r.lo < limit && r.hi >= limit) : (r.lo <= limit && r.hi > limit);
    if (ok) return noisy ? "ok (noisy)" : "ok";
    return noisy ? "MISSED (noisy)" : "MISSED";
}

}  // namespace

int main(int argc, char** argv) {
    options o = parse(argc, argv);
#ifdef OPEN_MPI
    // Open MPI picks osc/rdma (over the vader BTL) for MPI_Win_allocate on one node by default;
    // osc/sm, a window in shared memory, is the faster peer there. An osc given to mpirun wins.
    if (o.osc != "default") setenv("OMPI_MCA_osc", o.osc.c_str(), 0);
#endif
    block_alarm(SIG_BLOCK);  // before MPI_Init: the threads MPI starts inherit the block
    // MPI_THREAD_SINGLE: the benchmark is single-threaded, and MPI gets its cheapest mode.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);

    MPI_Comm world = MPI_COMM_WORLD;
    int rank = 0, size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    g_rank = rank;
    if (o.help || !o.bad.empty()) {
        if (rank == 0) {
            if (!o.bad.empty()) fprintf(stderr, "bench_p2p: unknown or incomplete option '%s'\n", o.bad.c_str());
            usage(argv[0]);
        }
        MPI_Finalize();
        return o.help ? 0 : 2;
    }
    if (size != 2) {
        if (rank == 0) {
            fprintf(stderr, "bench_p2p: a ping-pong between 2 processes: run it with mpirun -n 2, not %d\n", size);
            usage(argv[0]);
        }
        MPI_Finalize();
        return 2;
    }

    ishmemx_attr_t attr;
    attr.runtime = ISHMEMX_RUNTIME_MPI;
    attr.initialize_runtime = false;  // initialized above
    attr.mpi_comm = &world;
    ishmemx_init_attr(&attr);
    const int me = ishmem_my_pe();
    if (ishmem_n_pes() != size) die("ishmem did not start over MPI (is libishmem_mpi linked, with --no-as-needed?)");
    if (me != rank) die("ishmem's PE numbers differ from the MPI ranks");
    const int peer = 1 - me;
    const bool first = me == 0;  // PE 0 sends first in every round trip

    // Symmetric variables, each on its own cache line(s), zero on every PE (touched by their owner).
    auto sym = [](size_t bytes) {
        void* p = ishmem_align(64, bytes);
        if (!p) die("ishmem_align failed (symmetric heap too small?)");
        memset(p, 0, bytes);
        return static_cast<uint64_t*>(p);
    };
    uint64_t* w_floor = sym(64);
    uint64_t* w_wait = sym(64);
    uint64_t* w_test = sym(64);
    uint64_t* w_sig = sym(64);  // w_sig[0]: the signal word; w_sig[1]: the 8 bytes of data
    constexpr std::array<size_t, 3> any_n = {1, 64, 4096};
    std::array<uint64_t*, 3> w_any{};
    for (size_t i = 0; i < any_n.size(); ++i) w_any[i] = sym(any_n[i] * sizeof(uint64_t));
    uint64_t* w_floor_pause = sym(64);
    uint64_t* peer_floor = static_cast<uint64_t*>(ishmem_ptr(w_floor, peer));
    uint64_t* peer_floor_pause = static_cast<uint64_t*>(ishmem_ptr(w_floor_pause, peer));
    if (!peer_floor || !peer_floor_pause) die("ishmem_ptr gives no mapping of the peer's heap");

    // Open MPI's one-sided peer: one word per PE, passive target, locked once.
    uint64_t* win_base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(64, sizeof(uint64_t), MPI_INFO_NULL, world, &win_base, &win);
    memset(win_base, 0, 64);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(world);
    ishmem_barrier_all();

    // ---- the variants -----------------------------------------------------------------------------
    // Each keeps its own sequence number, the same on both PEs (they run the same round trips); the
    // waits compare with >=, and every variable only grows, so a late look never misses a value.
    // A round trip: PE 0 sends s and waits for s; PE 1 waits for s and sends it back.
    auto pingpong = [first](auto& seq, long n, auto send, auto wait) {
        for (long i = 0; i < n; ++i) {
            uint64_t s = ++seq;
            if (first) {
                send(s);
                wait(s);
            } else {
                wait(s);
                send(s);
            }
            progress();
        }
    };

    // The floor: one cache line per PE, release store into the peer's word through its mapping,
    // acquire spin on our own; no library call in the loop.
    uint64_t seq_floor = 0;
    auto v_floor = [&](long n) {
        pingpong(
            seq_floor, n,
            [&](uint64_t s) { std::atomic_ref<uint64_t>(*peer_floor).store(s, std::memory_order_release); },
            [&](uint64_t s) {
                spin_guard g("floor (atomic_ref spin)");
                uint64_t v;
                while ((v = std::atomic_ref<uint64_t>(*w_floor).load(std::memory_order_acquire)) < s) g.tick();
                if (v != s) die("floor: unexpected value");
            });
    };
    // The same with one PAUSE per poll, the usual form of a spin-wait on x86 (on Intel it spares the
    // pipeline flush on leaving the loop and lets the writer take the line sooner): a second floor,
    // to show how much the form of the poll matters on this machine.
    uint64_t seq_floor_pause = 0;
    auto v_floor_pause = [&](long n) {
        pingpong(
            seq_floor_pause, n,
            [&](uint64_t s) { std::atomic_ref<uint64_t>(*peer_floor_pause).store(s, std::memory_order_release); },
            [&](uint64_t s) {
                spin_guard g("floor+pause (atomic_ref spin with pause)");
                uint64_t v;
                while ((v = std::atomic_ref<uint64_t>(*w_floor_pause).load(std::memory_order_acquire)) < s) {
                    cpu_pause();
                    g.tick();
                }
                if (v != s) die("floor+pause: unexpected value");
            });
    };
    uint64_t seq_wait = 0;
    auto v_wait = [&](long n) {
        pingpong(
            seq_wait, n, [&](uint64_t s) { ishmem_uint64_atomic_set(w_wait, s, peer); },
            [&](uint64_t s) { ishmem_uint64_wait_until(w_wait, ISHMEM_CMP_GE, s); });
    };
    uint64_t seq_sig = 0, sig_src = 0;
    auto v_sig = [&](long n) {
        pingpong(
            seq_sig, n,
            [&](uint64_t s) {
                sig_src = s;
                ishmem_putmem_signal(&w_sig[1], &sig_src, sizeof(uint64_t), &w_sig[0], s, ISHMEM_SIGNAL_SET, peer);
            },
            [&](uint64_t s) {
                uint64_t v = ishmem_signal_wait_until(&w_sig[0], ISHMEM_CMP_GE, s);
                if (v != s || w_sig[1] != s) die("putmem_signal: unexpected signal or data");
            });
    };
    uint64_t seq_test = 0;
    auto v_test = [&](long n) {
        pingpong(
            seq_test, n, [&](uint64_t s) { ishmem_uint64_atomic_set(w_test, s, peer); },
            [&](uint64_t s) {
                spin_guard g("atomic_set+test (ishmem_uint64_test loop)");
                while (!ishmem_uint64_test(w_test, ISHMEM_CMP_GE, s)) g.tick();
            });
    };
    // wait_until_any over N variables: the sender sets variable k = s * 7919 mod N (7919 is prime, so
    // k visits every variable); the receiver checks that the routine names k.
    std::array<uint64_t, 3> seq_any{};
    auto any_fn = [&](size_t which) {
        return [&, which](long n) {
            const size_t nv = any_n[which];
            uint64_t* ivars = w_any[which];
            pingpong(
                seq_any[which], n, [&](uint64_t s) { ishmem_uint64_atomic_set(&ivars[(s * 7919) % nv], s, peer); },
                [&](uint64_t s) {
                    size_t k = ishmem_uint64_wait_until_any(ivars, nv, nullptr, ISHMEM_CMP_GE, s);
                    if (k != (s * 7919) % nv) die("wait_until_any: returned the wrong index");
                });
        };
    };
    auto v_any1 = any_fn(0);
    auto v_any64 = any_fn(1);
    auto v_any4096 = any_fn(2);
    // Open MPI two-sided: 8 bytes each way.
    uint64_t seq_mpi_sr = 0;
    auto v_sendrecv = [&](long n) {
        pingpong(
            seq_mpi_sr, n, [&](uint64_t s) { MPI_Send(&s, 1, MPI_UINT64_T, peer, 7, world); },
            [&](uint64_t s) {
                uint64_t v = 0;
                MPI_Recv(&v, 1, MPI_UINT64_T, peer, 7, world, MPI_STATUS_IGNORE);
                if (v != s) die("MPI_Recv: unexpected value");
            });
    };
    // Open MPI one-sided: MPI_Put + flush into the peer's window word; the receiver polls its own word
    // with an atomic read (MPI_Fetch_and_op with MPI_NO_OP) + flush. The origin buffer of MPI_Put
    // must stay valid until the flush: put_src outlives it.
    uint64_t seq_mpi_put = 0, put_src = 0;
    auto v_putpoll = [&](long n) {
        pingpong(
            seq_mpi_put, n,
            [&](uint64_t s) {
                put_src = s;
                MPI_Put(&put_src, 1, MPI_UINT64_T, peer, 0, 1, MPI_UINT64_T, win);
                MPI_Win_flush(peer, win);
            },
            [&](uint64_t s) {
                spin_guard g("mpi_put_poll (MPI_Fetch_and_op poll)");
                uint64_t dummy = 0, v = 0;
                for (;;) {
                    MPI_Fetch_and_op(&dummy, &v, MPI_UINT64_T, me, 0, MPI_NO_OP, win);
                    MPI_Win_flush(me, win);
                    if (v >= s) break;
                    g.tick();
                }
                if (v != s) die("mpi_put_poll: unexpected value");
            });
    };

    enum : size_t { FLOOR, FLOOR_PAUSE, WAIT, SIG, TEST, ANY1, ANY64, ANY4096, SENDRECV, PUTPOLL, NV };
    std::vector<variant> vs(NV);
    vs[FLOOR] = make_variant("floor", v_floor);
    vs[FLOOR_PAUSE] = make_variant("floor+pause", v_floor_pause);
    vs[WAIT] = make_variant("atomic_set+wait_until", v_wait);
    vs[SIG] = make_variant("putmem_signal+signal_wait_until", v_sig);
    vs[TEST] = make_variant("atomic_set+test", v_test);
    vs[ANY1] = make_variant("atomic_set+wait_until_any/1", v_any1);
    vs[ANY64] = make_variant("atomic_set+wait_until_any/64", v_any64);
    vs[ANY4096] = make_variant("atomic_set+wait_until_any/4096", v_any4096);
    vs[SENDRECV] = make_variant("mpi_send_recv", v_sendrecv);
    vs[PUTPOLL] = make_variant("mpi_put_poll", v_putpoll);

    const double load_before = load_average();
    start_watchdog();
    timings t = measure(o, vs);
    progress();

    if (me == 0) {
        csv_out out(o);
        const size_t peers[] = {FLOOR, SENDRECV, PUTPOLL};
        std::array<double, NV> ns{};
        for (size_t k = 0; k < NV; ++k) ns[k] = median(t.t[k]);
        for (size_t k = WAIT; k <= ANY4096; ++k)
            for (size_t p : peers) out.add(vs[k].name, ns[k], vs[p].name, ns[p], paired(t, k, p).median);
        for (size_t k : {FLOOR_PAUSE, SENDRECV, PUTPOLL})
            out.add(vs[k].name, ns[k], vs[FLOOR].name, ns[FLOOR], paired(t, k, FLOOR).median);

        const char* osc = getenv("OMPI_MCA_osc");
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const double load_after = load_average();
        printf("\n# summary: %s run, %d rounds of ~%.1f ms batches per variant; one-way latency = round trip / 2, "
               "median over the rounds; ratios: medians of the ratios within a round [quartiles]; peer %s, "
               "osc %s\n",
               o.quick ? "quick (rough numbers)" : "full", o.batches, o.batch_us / 1000.0,
               mpi_version().c_str(), osc ? osc : "chosen by the MPI library");
        printf("# load average %.2f before, %.2f after, on %ld CPUs%s\n", load_before, load_after, cpus,
               std::max(load_before, load_after) > static_cast<double>(cpus) + 0.5
                   ? ": other work competed for the CPUs, so expect noise (wide quartiles)"
                   : "");
        printf("# %-32s %10s  %-22s  %-22s  %-22s  %s\n", "variant", "one-way", "/ floor", "/ mpi_send_recv",
               "/ mpi_put_poll", "trips/batch");
        for (size_t k = 0; k < NV; ++k) {
            char cols[3][40];
            for (size_t j = 0; j < 3; ++j) {
                ratio r = paired(t, k, peers[j]);
                if (k == peers[j])
                    snprintf(cols[j], sizeof cols[j], "-");
                else
                    snprintf(cols[j], sizeof cols[j], "%6.3f [%.3f-%.3f]", r.median, r.lo, r.hi);
            }
            printf("# %-32s %7.1f ns  %-22s  %-22s  %-22s  %ld\n", vs[k].name, ns[k], cols[0], cols[1], cols[2],
                   t.n[k]);
        }
        int floor_ok = 0, mpi_ok = 0, nk = 0;
        for (size_t k = WAIT; k <= ANY4096; ++k) {
            ++nk;
            floor_ok += paired(t, k, FLOOR).median <= 1.5;
            mpi_ok += paired(t, k, SENDRECV).median < 1.0 && paired(t, k, PUTPOLL).median < 1.0;
        }
        printf("# target one-way within 1.5x of the floor (ratio <= 1.50): %s - %d of %d ishmem variants meet it\n",
               floor_ok == nk ? "HOLDS" : "MISSED", floor_ok, nk);
        printf("# target below both MPI forms (ratios < 1.00): %s - %d of %d ishmem variants meet it\n",
               mpi_ok == nk ? "HOLDS" : "MISSED", mpi_ok, nk);
        for (size_t k = WAIT; k <= ANY4096; ++k)
            printf("#   %-32s floor %-14s send_recv %-14s put_poll %s\n", vs[k].name,
                   verdict(paired(t, k, FLOOR), 1.5, false), verdict(paired(t, k, SENDRECV), 1.0, true),
                   verdict(paired(t, k, PUTPOLL), 1.0, true));
        fflush(stdout);
    }
    g_doing.store("the final barrier", std::memory_order_relaxed);
    progress();
    MPI_Barrier(world);
    stop_watchdog();

    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    for (uint64_t* p : w_any) ishmem_free(p);
    ishmem_free(w_sig);
    ishmem_free(w_test);
    ishmem_free(w_wait);
    ishmem_free(w_floor_pause);
    ishmem_free(w_floor);
    ishmem_finalize();
    MPI_Finalize();
    return 0;
}
