// bench_common.h: what bench_rma, bench_p2p and bench_coll share. The three programs follow one
// method (variants in rounds of one batch each, medians and quartiles of per-round ratios, a CSV
// on stdout, a "# " summary with verdicts), so the pieces of that method live here once: a change
// to how a ratio, a quartile or a verdict is computed then reaches every benchmark alike, and the
// numbers of the three stay comparable. What differs (the variants, the calibration rules that
// suit each, the columns and the summaries) stays in each program.
//
// Header-only, one program per translation unit: the globals are C++17 inline variables.
#ifndef ISHMEM_BENCH_COMMON_H
#define ISHMEM_BENCH_COMMON_H

#include <mpi.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ishmem.h"
#include "ishmem/impl/transport.h"  // ishmemi::remote: holding its progress thread for an MPI peer
#include "ishmemx.h"

namespace bench {

using clock_type = std::chrono::steady_clock;

// ---- identity and errors ------------------------------------------------------------------------
// Every message starts with the program's name, and (once it is known) the rank, so that the
// lines of several PEs on one stderr can be told apart. bench_rma reports from PE 0 only and
// leaves g_rank at -1: its messages carry no rank.
inline const char* g_program = "bench";
inline int g_rank = -1;

[[noreturn]] inline void die(const char* msg) {
    if (g_rank >= 0)
        fprintf(stderr, "%s: rank %d: %s\n", g_program, g_rank, msg);
    else
        fprintf(stderr, "%s: %s\n", g_program, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

// ---- options --------------------------------------------------------------------------------------
// The options every benchmark takes; a program derives its own struct from this one for the rest
// (bench_rma and bench_p2p: --mpi-osc; bench_coll: --sizes). The usage text stays in each program.
struct options {
    bool quick = false;
    std::string csv;
    int batches = 31;        // rounds per point (one batch of each variant)
    double batch_us = 5000;  // target duration of one batch
    std::string bad;         // an option that could not be parsed
    bool help = false;
    // --mpi-beside-thread: across nodes, ishmem's progress thread runs on during the MPI peer's
    // batches (peer_batch below says why it is held by default).
    bool mpi_beside_thread = false;
};

// Parses argv into o. extra(a, i) is asked first about each argument a = argv[i]: it returns true
// when it took the option (advancing i past any value). The first argument nobody takes goes to
// o.bad. --quick lowers the batch count and length unless they were given. Safe before MPI_Init
// (nothing is printed; the caller reports o.bad after it, from rank 0).
template <class Extra> void parse_options(options& o, int argc, char** argv, Extra extra) {
    bool batches_set = false, batch_set = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (extra(a, i)) continue;
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
        } else if (a == "--mpi-beside-thread") {
            o.mpi_beside_thread = true;
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
}

// bench_rma and bench_p2p compare with MPI's one-sided operations, and also take --mpi-osc NAME.
struct osc_options : options {
    // Open MPI's one-sided component: "auto" (sm on one node, ucx across nodes: choose_mpi_osc),
    // a name, or "default" (Open MPI's own choice).
    std::string osc = "auto";
    // The peer's window: from MPI_Win_allocate (default: MPI at its best; on one host osc/ucx then
    // gives it shared memory), or with --mpi-win create from MPI_Win_create over memory of the
    // program's own, as ishmem's transport makes its windows over its heap.
    bool win_create = false;
};

// Takes --mpi-osc NAME and --mpi-win allocate|create at argv[i]; false for any other argument.
inline bool take_osc_option(osc_options& o, const std::string& a, int& i, int argc, char** argv) {
    if (a == "--mpi-osc" && i + 1 < argc) {
        o.osc = argv[++i];
    } else if (a == "--mpi-win" && i + 1 < argc) {
        const std::string v = argv[++i];
        if (v == "allocate" || v == "create")
            o.win_create = v == "create";
        else if (o.bad.empty())
            o.bad = a + " " + v;
    } else {
        return false;
    }
    return true;
}

// Parsed before MPI_Init (the one-sided component must be chosen before it); errors are reported
// after it, by rank 0 only.
inline osc_options parse_osc_options(int argc, char** argv) {
    osc_options o;
    parse_options(o, argc, argv, [&](const std::string& a, int& i) { return take_osc_option(o, a, i, argc, argv); });
    return o;
}

// The MPI peer's window of bytes on every rank of comm (osc_options::win_create says how it is
// made); returns its base. free_peer_window frees both.
inline void* make_peer_window(const osc_options& o, size_t bytes, int disp_unit, MPI_Comm comm, MPI_Win* win) {
    void* base = nullptr;
    if (o.win_create) {
        base = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
        if (!base) die("out of memory");
        MPI_Win_create(base, static_cast<MPI_Aint>(bytes), disp_unit, MPI_INFO_NULL, comm, win);
    } else {
        MPI_Win_allocate(static_cast<MPI_Aint>(bytes), disp_unit, MPI_INFO_NULL, comm, &base, win);
    }
    return base;
}

inline void free_peer_window(const osc_options& o, void* base, MPI_Win* win) {
    MPI_Win_free(win);
    if (o.win_create) free(base);
}

inline const char* peer_window_kind(const osc_options& o) {
    return o.win_create ? "MPI_Win_create over aligned_alloc memory" : "MPI_Win_allocate";
}

// For as long as it lives, an MPI peer's batch: where PEs reach others through ishmem's MPI
// transport, that transport's progress thread is held (makes no MPI call), unless beside. The
// thread wakes every millisecond and calls MPI_Test, which drives all of Open MPI's progress, also
// inside the peer's calls in the same process: something no program without ishmem has (it sped
// Open MPI's 32 KiB scans across 3 nodes up by a fifth, and slowed other points). The
// PE's own waits still serve the transport, so nothing ishmem waits for hangs on the hold.
class peer_batch {
  public:
    peer_batch(bool is_peer, bool beside) : held_(is_peer && !beside && ishmemi::remote != nullptr) {
        if (held_) ishmemi::remote->hold_progress_thread(true);
    }
    ~peer_batch() {
        if (held_) ishmemi::remote->hold_progress_thread(false);
    }
    peer_batch(const peer_batch&) = delete;
    peer_batch& operator=(const peer_batch&) = delete;

  private:
    bool held_;
};

// The summary's words for where the MPI peer ran.
inline const char* peer_thread_note(bool beside) {
    if (!ishmemi::remote) return "";
    return beside ? "; ishmem's progress thread running beside the MPI peer (--mpi-beside-thread)"
                  : "; ishmem's progress thread held through the MPI peer's batches";
}

// ---- one node or several --------------------------------------------------------------------------
// On one node ishmem reaches every PE with loads and stores; across nodes (docs/design.rst, 'Scale-out') it
// reaches the PEs of other nodes through its MPI transport, which needs MPI_THREAD_MULTIPLE (it has
// a progress thread) and uses Open MPI's one-sided component on windows over the heap. The thread
// level and the component are fixed in MPI_Init, so the benchmarks decide before it, from the
// environment, and check after it (job_layout) that the guess was right.

// The value of an environment variable as a number, or -1 where it is unset or not a number.
inline long env_long(const char* name) {
    const char* v = getenv(name);
    if (!v || !*v) return -1;
    char* end = nullptr;
    long n = strtol(v, &end, 10);
    return *end ? -1 : n;
}

// Before MPI_Init: whether ishmem will find this job's PEs on several nodes. ISHMEM_NODE_SPLIT=pe
// makes every PE a node of its own, and =K or =cyclic:K nodes of K PEs (several nodes once there
// are more PEs than K: assumed, since the size is only known later); otherwise the launcher says
// how many ranks share this node:
// Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE against OMPI_COMM_WORLD_SIZE (MPICH's Hydra:
// MPI_LOCALNRANKS against PMI_SIZE).
inline bool spans_nodes_from_env() {
    long size = env_long("OMPI_COMM_WORLD_SIZE"), local = env_long("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (size < 0) size = env_long("PMI_SIZE"), local = env_long("MPI_LOCALNRANKS");
    const char* split = getenv("ISHMEM_NODE_SPLIT");
    if (split && strcmp(split, "hostname") != 0) return size != 1;  // unknown size: assume several PEs
    return size > 0 && local > 0 && local < size;
}

// The nodes of the job as ishmem sees them (by host name, or a node per PE with
// ISHMEM_NODE_SPLIT=pe), found after MPI_Init. Every rank holds the same.
struct job_layout {
    int nodes = 1;
    bool node_per_pe = false;
    std::vector<int> node_of;  // by rank: the node's number (nodes in order of their lowest rank)
    std::string text;          // "2 nodes: ishm-node0 (rank 0), ishm-node1 (rank 1)"
    bool spans() const { return nodes > 1; }
};

inline job_layout find_layout(MPI_Comm world) {
    int rank = 0, size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    constexpr int len = 64;
    char host[len] = {};
    gethostname(host, len - 1);
    std::vector<char> all(static_cast<size_t>(size) * len);
    MPI_Allgather(host, len, MPI_CHAR, all.data(), len, MPI_CHAR, world);
    job_layout l;
    const char* split = getenv("ISHMEM_NODE_SPLIT");
    l.node_per_pe = split && strcmp(split, "pe") == 0;
    std::vector<std::string> names;  // by node
    std::vector<std::string> ranks;  // by node: "0" or "1-2" or "0,3"
    for (int r = 0; r < size; ++r) {
        std::string name(&all[static_cast<size_t>(r) * len]);
        if (l.node_per_pe) name += "/pe" + std::to_string(r);
        size_t n = std::find(names.begin(), names.end(), name) - names.begin();
        if (n == names.size()) names.push_back(name), ranks.emplace_back();
        ranks[n] += (ranks[n].empty() ? "" : ",") + std::to_string(r);
        l.node_of.push_back(static_cast<int>(n));
    }
    l.nodes = static_cast<int>(names.size());
    l.text = std::to_string(l.nodes) + (l.nodes == 1 ? " node:" : " nodes:");
    for (size_t n = 0; n < names.size(); ++n)
        l.text += (n ? ", " : " ") + names[n] + " (rank" + (ranks[n].find(',') == std::string::npos ? " " : "s ") +
                  ranks[n] + ")";
    if (l.node_per_pe) l.text += " [ISHMEM_NODE_SPLIT=pe]";
    return l;
}

inline job_layout g_layout;  // set by init_mpi

// MPI_THREAD_SINGLE on one node: the benchmarks are single-threaded, and MPI gets its cheapest
// mode. Across nodes MPI_THREAD_MULTIPLE, which ishmem's MPI transport needs (both libraries then
// run on the same MPI in the same mode). Sets rank and size in MPI_COMM_WORLD, and g_layout.
inline void init_mpi(int* argc, char*** argv, int* rank, int* size) {
    int provided = 0;
    const int wanted = spans_nodes_from_env() ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, wanted, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    g_layout = find_layout(MPI_COMM_WORLD);
    if (g_layout.spans() && provided < MPI_THREAD_MULTIPLE) {
        if (*rank == 0)
            fprintf(stderr,
                    "%s: the PEs are on %s, but %s: ishmem's MPI transport needs MPI_THREAD_MULTIPLE. "
                    "Start the job with Open MPI's mpirun (which tells each rank how many ranks share its node) "
                    "or set ISHMEM_NODE_SPLIT=pe\n",
                    g_program, g_layout.text.c_str(),
                    wanted == MPI_THREAD_MULTIPLE ? "MPI did not provide MPI_THREAD_MULTIPLE"
                                                  : "the environment did not say so before MPI_Init");
        MPI_Finalize();
        exit(2);
    }
}

// After MPI_Init: -1 when the run goes on; else --help or a bad option was given, rank 0 has
// printed the complaint and the usage, MPI is finalized, and the value is the exit status.
inline int finish_if_help(const options& o, int rank, void (*usage)(const char*), const char* argv0) {
    if (!o.help && o.bad.empty()) return -1;
    if (rank == 0) {
        if (!o.bad.empty()) fprintf(stderr, "%s: unknown or incomplete option '%s'\n", g_program, o.bad.c_str());
        usage(argv0);
    }
    MPI_Finalize();
    return o.help ? 0 : 2;
}

// The one-sided component of the MPI peer, "auto" by default. On one node Open MPI picks osc/rdma
// (over the vader BTL) for MPI_Win_allocate; osc/sm, a window in shared memory, is the faster peer
// there. Across nodes: osc/ucx, the component that ishmem's transport gets (the only one of Open
// MPI 4.1 that takes MPI_THREAD_MULTIPLE), so that the peer and ishmem go over the same component
// (the MCA parameter holds for every window of the process, ishmem's included). An osc given to
// mpirun (OMPI_MCA_osc in the environment) wins. Call before MPI_Init (the component is chosen in it).
inline void choose_mpi_osc(const std::string& osc) {
#ifdef OPEN_MPI
    const std::string name = osc == "auto" ? (spans_nodes_from_env() ? "ucx" : "sm") : osc;
    if (name != "default") setenv("OMPI_MCA_osc", name.c_str(), 0);
#else
    (void)osc;
#endif
}

// Starts ishmem over the already initialized MPI on world, and checks that its PEs are the MPI
// ranks (every benchmark compares ishmem with MPI over the same processes). Returns ishmem's PE.
inline int start_ishmem(MPI_Comm* world, int rank, int size) {
    ishmemx_attr_t attr;
    attr.runtime = ISHMEMX_RUNTIME_MPI;
    attr.initialize_runtime = false;  // initialized by the caller
    attr.mpi_comm = world;
    ishmemx_init_attr(&attr);
    const int me = ishmem_my_pe();
    if (ishmem_n_pes() != size) die("ishmem did not start over MPI (is libishmem_mpi linked, with --no-as-needed?)");
    if (me != rank) die("ishmem's PE numbers differ from the MPI ranks");
    return me;
}

// ---- statistics -----------------------------------------------------------------------------------
// Times are medians over the rounds; a ratio is the median over the rounds of the ratio of two
// batches of one round (they ran within milliseconds of each other, so the machine's drift
// cancels), shown with its quartiles to show the noise.

// The q-quantile (0..1) of v, interpolated between neighbours; the median is quantile(v, 0.5).
inline double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    double pos = q * static_cast<double>(v.size() - 1);
    size_t i = static_cast<size_t>(pos);
    if (i + 1 >= v.size()) return v.back();
    return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

inline double median(const std::vector<double>& v) { return quantile(v, 0.5); }

struct ratio {
    double median, lo, hi;  // median and quartiles over the rounds of num[b] / den[b]
};

inline ratio paired(const std::vector<double>& num, const std::vector<double>& den) {
    std::vector<double> q;
    for (size_t b = 0; b < num.size(); ++b) q.push_back(num[b] / den[b]);
    return {median(q), quantile(q, 0.25), quantile(q, 0.75)};
}

// Per-round times of variants that each have their own batch length (bench_p2p, bench_coll):
// t[k][b] is the time of variant k in round b, n[k] its calls (or round trips) per batch.
struct timings {
    std::vector<std::vector<double>> t;
    std::vector<long> n;
};

// All orders of nv variants: round b runs them in order b % size, so that no variant always
// follows the same other one (which would hand it that one's cache state).
inline std::vector<std::vector<size_t>> permutations(size_t nv) {
    std::vector<std::vector<size_t>> orders;
    std::vector<size_t> order(nv);
    for (size_t k = 0; k < nv; ++k) order[k] = k;
    do orders.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
    return orders;
}

// ---- calibration ----------------------------------------------------------------------------------
// The first step of every benchmark's calibration: double the batch length n until a batch
// (batch_total_us(n): the duration of a whole batch of n, in us) fills an eighth of the target.
template <class F> long grow_batch(long n, double target_us, F&& batch_total_us) {
    while (batch_total_us(n) < target_us / 8 && n < (1L << 30)) n *= 2;
    return n;
}

// Scales a batch of n that lasted total_us (the best of a few tries, so that one slow batch, a page
// fault or a preemption, does not shrink the batches) to the target duration; at least 1.
inline long scale_batch(long n, double target_us, double total_us) {
    return std::max(1L, static_cast<long>(static_cast<double>(n) * target_us / std::max(total_us, 1e-3)));
}

// ---- verdicts -------------------------------------------------------------------------------------
// "ok" or a miss by the median ratio against limit; "(noisy)" where the quartiles lie on both sides
// of it. strict: the target is ratio < limit, else ratio <= limit.
struct verdict_words {
    const char *ok, *ok_noisy, *missed, *missed_noisy;
};
inline constexpr verdict_words missed_words{"ok", "ok (noisy)", "MISSED", "MISSED (noisy)"};
inline constexpr verdict_words behind_words{"ok", "ok (noisy)", "BEHIND", "BEHIND (noisy)"};

inline const char* verdict(const ratio& r, double limit, bool strict = false, const verdict_words& w = missed_words) {
    bool ok = strict ? r.median < limit : r.median <= limit;
    bool noisy = strict ? (r.lo < limit && r.hi >= limit) : (r.lo <= limit && r.hi > limit);
    if (ok) return noisy ? w.ok_noisy : w.ok;
    return noisy ? w.missed_noisy : w.missed;
}

// ---- the machine, for the summary -----------------------------------------------------------------

// The 1-minute load average, or -1 where /proc/loadavg is not readable.
inline double load_average() {
    double l = -1;
    if (FILE* f = fopen("/proc/loadavg", "r")) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

// The note the summaries append to the load averages: a warning when other work competed.
inline const char* load_note(double load_before, double load_after, long cpus) {
    return std::max(load_before, load_after) > static_cast<double>(cpus) + 0.5
               ? ": other work competed for the CPUs, so expect noise (wide quartiles)"
               : "";
}

// The first line of the MPI library's version (the peer in every comparison).
inline std::string mpi_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string v(text, static_cast<size_t>(len));
    size_t cut = v.find_first_of(",\n");
    return cut == std::string::npos ? v : v.substr(0, cut);
}

// ---- CSV output -----------------------------------------------------------------------------------
// Each CSV line goes to stdout at once (flushed, so that a run cut short keeps its lines) and, with
// --csv FILE, to FILE too. A writer that is not enabled (bench_coll's PEs other than 0) drops them.
class csv_writer {
  public:
    csv_writer(const std::string& path, const char* header, bool enabled = true) : enabled_(enabled) {
        if (enabled_ && !path.empty()) {
            file_ = fopen(path.c_str(), "w");
            if (!file_) {
                char buf[512];
                snprintf(buf, sizeof buf, "cannot write %s: %s", path.c_str(), strerror(errno));
                die(buf);
            }
        }
        line(header);
    }
    ~csv_writer() {
        if (file_) fclose(file_);
    }
    csv_writer(const csv_writer&) = delete;
    csv_writer& operator=(const csv_writer&) = delete;

    [[gnu::format(printf, 2, 3)]] void add(const char* fmt, ...) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        line(buf);
    }

  private:
    void line(const char* s) {
        if (!enabled_) return;
        fputs(s, stdout);
        fflush(stdout);
        if (file_) fputs(s, file_);
    }
    bool enabled_;
    FILE* file_ = nullptr;
};

// ---- the watchdog ---------------------------------------------------------------------------------
// Blocking ishmem and MPI calls (waits, collectives, MPI_Recv, MPI_Barrier) are where no guard of
// ours can go: a SIGALRM every second checks that g_progress moved (the program counts calls, round
// trips and batch boundaries with progress()); after the limit without progress it writes what was
// running (g_doing) and ends the process with status 3, and mpirun ends the others. Only the main
// thread takes SIGALRM: block_alarm(SIG_BLOCK) before MPI_Init, so that the threads MPI starts
// inherit the block; start_watchdog() unblocks it on the main thread.
inline std::atomic<unsigned long> g_progress{0};
inline std::atomic<const char*> g_doing{"start-up"};

inline void progress() { g_progress.store(g_progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

// Sets g_doing to a formatted text; writes the buffer the handler is not pointed at, then points
// it there (the handler may read g_doing at any time). A literal can go straight to g_doing.
[[gnu::format(printf, 1, 2)]] inline void set_doing(const char* fmt, ...) {
    static char buf[2][256];
    static int next = 0;
    char* b = buf[next];
    next ^= 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    g_doing.store(b, std::memory_order_relaxed);
}

namespace detail {
inline int watchdog_limit_s = 0;
inline char watchdog_head[160];  // "<program>: rank <r>: <...>no progress for <s> s in "
inline char watchdog_tail[96];   // " (<what> that never returned); giving up\n"

// Async-signal-safe: only write(2) and atomics.
inline void write_str(const char* s) {
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

inline void on_alarm(int) {
    static unsigned long last = ~0UL;
    static int stalled = 0;
    unsigned long now = g_progress.load(std::memory_order_relaxed);
    if (now != last) {
        last = now;
        stalled = 0;
        return;
    }
    if (++stalled < watchdog_limit_s) return;
    write_str(watchdog_head);
    write_str(g_doing.load(std::memory_order_relaxed));
    write_str(watchdog_tail);
    _exit(3);
}
}  // namespace detail

inline void block_alarm(int how) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(how, &set, nullptr);
}

// limit_s: seconds without progress before giving up; label: text before "no progress" (bench_coll:
// "HANG: "); what: what hung ("a wait", "a call"). The message is composed here, not in the handler.
inline void start_watchdog(int limit_s, const char* label, const char* what) {
    detail::watchdog_limit_s = limit_s;
    snprintf(detail::watchdog_head, sizeof detail::watchdog_head, "%s: rank %d: %sno progress for %d s in ", g_program,
             g_rank, label, limit_s);
    snprintf(detail::watchdog_tail, sizeof detail::watchdog_tail, " (%s that never returned); giving up\n", what);
    struct sigaction sa {};
    sa.sa_handler = detail::on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    block_alarm(SIG_UNBLOCK);
    itimerval t{};
    t.it_interval.tv_sec = 1;
    t.it_value.tv_sec = 1;
    setitimer(ITIMER_REAL, &t, nullptr);
}

inline void stop_watchdog() {
    itimerval t{};
    setitimer(ITIMER_REAL, &t, nullptr);
    block_alarm(SIG_BLOCK);
}

}  // namespace bench

#endif  // ISHMEM_BENCH_COMMON_H
