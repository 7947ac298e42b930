// bench_rma: latency and bandwidth of ishmem's RMA and AMO routines, next to Open MPI's one-sided
// operations and a plain memcpy, in one launch:
//
//     mpirun -n 2 bench_rma [--quick] [--csv FILE] [--batches N] [--batch-ms MS] [--mpi-osc NAME]
//
// PE 0 drives every operation towards PE 1, which waits in MPI_Barrier meanwhile (so that an MPI
// one-sided component that needs the target's progress gets it). For each point the variants run
// in rounds of one batch each, back to back (ours, the peer's, ... in an order that changes every
// round), so that drift of the machine hits all of them alike. Times are medians over the rounds of
// the time of one operation; ratios are medians over the rounds of the ratio within a round. When
// PE 1 is on another node (a job over several nodes, or ISHMEM_NODE_SPLIT=pe), ishmem reaches it
// through its MPI transport, the MPI peer uses the same one-sided component (osc/ucx unless told),
// and the memcpy peer, which needs a mapping of PE 1's heap, is left out. See bench/README.md for
// the columns and the latest numbers.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "ishmem.h"
#include "ishmemx.h"

namespace {

using bench::clock_type;
using bench::die;
using bench::load_average;
using bench::median;
using bench::mpi_version;

// The shared options, with --mpi-osc (bench_common.h), and where PE 1 waits.
struct options : bench::osc_options {
    // Where PE 1 waits while PE 0 measures (only matters across nodes): in MPI_Barrier (default);
    // in an ishmem wait loop (ishmem_long_wait_until), which serves the requests of ishmem's MPI
    // transport itself instead of leaving them to its progress thread; or in a loop of plain loads
    // that calls no library (a PE that computes: only ishmem's progress thread serves anything).
    enum class target_wait { mpi, ishmem, compute } target = target_wait::mpi;
    bool latency_only = false;                           // leave out the bandwidth sweep
    size_t min_bytes = 8, max_bytes = size_t(16) << 20;  // the bandwidth sweep's sizes (powers of two)
};

// A size in bytes, with an optional suffix K or M (KiB, MiB); false if it is not one.
bool parse_size(const std::string& s, size_t* out) {
    char* end = nullptr;
    const unsigned long long v = strtoull(s.c_str(), &end, 10);
    if (end == s.c_str()) return false;
    const std::string suffix(end);
    const size_t unit = suffix == "K" ? size_t(1) << 10 : suffix == "M" ? size_t(1) << 20 : suffix.empty() ? 1 : 0;
    *out = static_cast<size_t>(v) * unit;
    return *out != 0;
}

options parse(int argc, char** argv) {
    options o;
    bench::parse_options(o, argc, argv, [&](const std::string& a, int& i) {
        if (bench::take_osc_option(o, a, i, argc, argv)) {
            // --mpi-osc, --mpi-win
        } else if (a == "--target-wait" && i + 1 < argc) {
            const std::string v = argv[++i];
            if (v == "mpi")
                o.target = options::target_wait::mpi;
            else if (v == "ishmem")
                o.target = options::target_wait::ishmem;
            else if (v == "compute")
                o.target = options::target_wait::compute;
            else if (o.bad.empty())
                o.bad = a + " " + v;
        } else if (a == "--latency-only") {
            o.latency_only = true;
        } else if ((a == "--min-bytes" || a == "--max-bytes") && i + 1 < argc) {
            const std::string v = argv[++i];
            if (!parse_size(v, a == "--min-bytes" ? &o.min_bytes : &o.max_bytes) && o.bad.empty()) o.bad = a + " " + v;
        } else {
            return false;
        }
        return true;
    });
    return o;
}

void usage(const char* argv0) {
    fprintf(stderr,
            "usage: mpirun -n 2 %s [--quick] [--csv FILE] [--batches N] [--batch-ms MS] [--mpi-osc NAME]\n"
            "       [--mpi-win allocate|create] [--target-wait mpi|ishmem|compute] [--latency-only]\n"
            "       [--min-bytes SIZE] [--max-bytes SIZE]\n"
            "  --quick          few, short batches and fewer sizes (a smoke test; numbers are rough)\n"
            "  --csv FILE       also write the CSV lines to FILE\n"
            "  --batches N      rounds per point, one batch of each variant (default 31, quick 3)\n"
            "  --batch-ms MS    target duration of one batch in ms (default 5, quick 0.2)\n"
            "  --mpi-osc NAME   Open MPI one-sided component for the peer: auto (default: sm on one node,\n"
            "                   ucx when PE 1 is on another node), sm, rdma, ucx, ... or 'default' for Open\n"
            "                   MPI's own choice; OMPI_MCA_osc in the environment (mpirun --mca osc NAME)\n"
            "                   takes precedence\n"
            "  --mpi-win KIND   the peer's window: allocate (MPI_Win_allocate, default) or create\n"
            "                   (MPI_Win_create over the program's memory, as ishmem's transport does)\n"
            "  --mpi-beside-thread  across nodes, ishmem's progress thread runs on during the MPI peer's batches\n"
            "                   (by default PE 0 holds it then: MPI as in a program without ishmem)\n"
            "  --target-wait W  where PE 1 waits while PE 0 measures: mpi (MPI_Barrier, default), ishmem\n"
            "                   (ishmem_long_wait_until, whose loop serves the MPI transport's requests) or\n"
            "                   compute (a loop of plain loads: no library call; only matters across nodes)\n"
            "  --latency-only   the 8-byte latencies only, no bandwidth sweep\n"
            "  --min-bytes SIZE, --max-bytes SIZE  the bandwidth sweep's range (default 8 to 16M; suffixes K, M)\n",
            argv0);
}

// Keeps the compiler from merging or dropping repeated copies to the same place.
inline void clobber() { asm volatile("" ::: "memory"); }

// Time of one call of f, in microseconds, over a batch of n calls. f(i, n) is call i of n.
template <class F> double time_batch(F& f, long n) {
    auto t0 = clock_type::now();
    for (long i = 0; i < n; ++i) f(i, n);
    auto t1 = clock_type::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n);
}

template <size_t N> struct result {
    std::array<double, N> us;                  // per variant: median over the rounds of the time of one call
    std::array<double, N> ratio;               // per variant k: median over the rounds of time(variant 0) / time(k)
    std::array<double, N> ratio_lo, ratio_hi;  // the quartiles of the same, to show the noise
};

// Runs the variants f... in rounds (one batch of each, back to back, all of the same length) and
// returns, per variant, the median time of one call (us) and its paired ratio to variant 0: the
// ratio of two batches of one round, which ran within milliseconds of each other, cancels the
// machine's drift (other processes, neighbours' use of the shared cache and memory) that the
// ratio of two medians does not. The calibration that picks the batch length is also the warm-up.
// Batch b runs the variants in order b of all their permutations, so that no variant always
// follows the same other one (which would hand it that one's cache state), and each timed batch
// starts after one untimed call of its own, so that it starts from its own steady state.
template <class... F> result<sizeof...(F)> measure(const options& o, F&... f) {
    constexpr size_t nv = sizeof...(F);
    auto batch = [&](size_t k, long n) {
        const bench::peer_batch peer(k != 0, o.mpi_beside_thread);  // every variant after ishmem's is a peer
        double r = 0;
        size_t i = 0;
        ((i++ == k ? (void)(r = time_batch(f, n)) : (void)0), ...);
        return r;
    };
    auto once = [&](size_t k) {
        const bench::peer_batch peer(k != 0, o.mpi_beside_thread);
        size_t i = 0;
        ((i++ == k ? f(0L, 1L) : (void)0), ...);
    };
    // Calibrate: grow the batch until the slowest variant fills an eighth of the target, then scale
    // by the best of three tries per variant (one slow first call, a page fault or a preemption
    // must not shrink the batches).
    auto slowest = [&](long n, int tries) {
        double w = 0;
        for (size_t k = 0; k < nv; ++k) {
            double best = batch(k, n);
            for (int t = 1; t < tries; ++t) best = std::min(best, batch(k, n));
            w = std::max(w, best * static_cast<double>(n));
        }
        return w;
    };
    long n = bench::grow_batch(1, o.batch_us, [&](long m) { return slowest(m, 1); });
    n = bench::scale_batch(n, o.batch_us, slowest(n, 3));
    for (size_t k = 0; k < nv; ++k) batch(k, n);  // warm-up at the final length

    const std::vector<std::vector<size_t>> orders = bench::permutations(nv);
    std::array<std::vector<double>, nv> t;
    for (int b = 0; b < o.batches; ++b)
        for (size_t k : orders[static_cast<size_t>(b) % orders.size()]) {
            once(k);
            t[k].push_back(batch(k, n));
        }
    result<nv> r{};
    for (size_t k = 0; k < nv; ++k) {
        r.us[k] = median(t[k]);
        const bench::ratio q = bench::paired(t[0], t[k]);
        r.ratio[k] = q.median;
        r.ratio_lo[k] = q.lo;
        r.ratio_hi[k] = q.hi;
    }
    return r;
}

struct row {
    std::string op;
    size_t bytes;
    double ours;
    std::string peer;
    double theirs;
    double ratio;  // paired: see measure()
    double ratio_lo, ratio_hi;
};

// The rows, kept for the summary, each also written as a CSV line as it comes.
class report {
  public:
    explicit report(const options& o) : out_(o.csv, "op,bytes,ishmem_us,peer,peer_us,ratio\n") {}
    void add(const row& r) {
        rows_.push_back(r);
        out_.add("%s,%zu,%.4f,%s,%.4f,%.3f\n", r.op.c_str(), r.bytes, r.ours, r.peer.c_str(), r.theirs, r.ratio);
    }
    // One row per peer variant of a measure() result: variant k (1, 2, ...) is peers[k - 1].
    template <size_t N>
    void add_all(const char* op, size_t bytes, const result<N>& r, std::initializer_list<const char*> peers) {
        size_t k = 1;
        for (const char* peer : peers) {
            add({op, bytes, r.us[0], peer, r.us[k], r.ratio[k], r.ratio_lo[k], r.ratio_hi[k]});
            ++k;
        }
    }
    const std::vector<row>& rows() const { return rows_; }

  private:
    bench::csv_writer out_;
    std::vector<row> rows_;
};

// The summary: does each target hold? Lines start with "# ".
const char* verdict(const row& r, double limit) { return bench::verdict({r.ratio, r.ratio_lo, r.ratio_hi}, limit); }

// Across nodes there is no memcpy peer: the target is every operation within 10% of Open MPI's
// over the same one-sided component.
void summarize_across_nodes(const report& rep) {
    constexpr double limit = 1.10;
    const row* worst = nullptr;
    int n = 0, ok = 0;
    for (const row& r : rep.rows()) {
        if (r.peer != "mpi") continue;
        ++n;
        ok += r.ratio <= limit;
        if (!worst || r.ratio > worst->ratio) worst = &r;
    }
    if (!worst) return;
    printf(
        "# target every operation within 10%% of Open MPI over the same component (ratio <= 1.10): %s - %d of %d "
        "points meet it; worst %s %zu B ratio %.3f\n",
        ok == n ? "HOLDS" : "MISSED", ok, n, worst->op.c_str(), worst->bytes, worst->ratio);
    for (const row& r : rep.rows())
        if (r.op.rfind("long_", 0) == 0)
            printf("#   %-22s %9.3f us vs %-15s %9.3f us  ratio %6.3f [%.3f-%.3f]  %s\n", r.op.c_str(), r.ours,
                   r.peer == "mpi" ? "MPI" : r.peer.c_str(), r.theirs, r.ratio, r.ratio_lo, r.ratio_hi,
                   r.peer == "mpi" ? verdict(r, limit) : "(information)");
    for (const row& r : rep.rows())
        if (r.op.rfind("long_", 0) != 0)
            printf("#   %-13s %9zu B  %8.3f GB/s vs MPI %8.3f GB/s  ratio %6.3f [%.3f-%.3f]  %s\n", r.op.c_str(),
                   r.bytes, static_cast<double>(r.bytes) / r.ours / 1e3, static_cast<double>(r.bytes) / r.theirs / 1e3,
                   r.ratio, r.ratio_lo, r.ratio_hi, verdict(r, limit));
}

void summarize(const report& rep, const options& o, double load_before) {
    constexpr size_t mib = size_t(1) << 20;
    const row* worst_bw = nullptr;
    const row* worst_lat = nullptr;
    int bw_n = 0, bw_ok = 0, lat_n = 0, lat_ok = 0;
    for (const row& r : rep.rows()) {
        if (r.peer == "memcpy" && r.bytes >= mib) {
            ++bw_n;
            bw_ok += r.ratio <= 1.10;
            if (!worst_bw || r.ratio > worst_bw->ratio) worst_bw = &r;
        }
        if (r.peer == "mpi" && r.op.rfind("long_", 0) == 0) {
            ++lat_n;
            lat_ok += r.ratio <= 1.0;
            if (!worst_lat || r.ratio > worst_lat->ratio) worst_lat = &r;
        }
    }
    const char* osc = getenv("OMPI_MCA_osc");
    printf(
        "\n# summary: %s run, %d rounds of ~%.1f ms batches per point (times: medians; ratios: medians of "
        "ratios within a round); peer %s, osc %s, window from %s%s\n",
        o.quick ? "quick (rough numbers)" : "full", o.batches, o.batch_us / 1000.0, mpi_version().c_str(),
        osc ? osc : "chosen by the MPI library", bench::peer_window_kind(o),
        bench::peer_thread_note(o.mpi_beside_thread));
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const double load_after = load_average();
    printf(
        "# ratio [a-b]: the quartiles of the ratios within a round; (noisy): they lie on both sides of the "
        "limit. Load average %.2f before, %.2f after, on %ld "
        "CPUs%s\n",
        load_before, load_after, cpus, bench::load_note(load_before, load_after, cpus));
    if (bench::g_layout.spans()) {
        printf(
            "# PE 1 is on another node (%s): ishmem reaches it through its MPI transport; ishmem_ptr gives "
            "no mapping of its heap, so the memcpy peer is left out. PE 1 waits in %s meanwhile; "
            "ISHMEM_MPI_PROGRESS_SLEEP_US=%s\n",
            bench::g_layout.text.c_str(),
            o.target == options::target_wait::mpi      ? "MPI_Barrier"
            : o.target == options::target_wait::ishmem ? "ishmem_long_wait_until"
                                                       : "a loop of plain loads (no library call)",
            getenv("ISHMEM_MPI_PROGRESS_SLEEP_US") ? getenv("ISHMEM_MPI_PROGRESS_SLEEP_US") : "(default)");
        summarize_across_nodes(rep);
        fflush(stdout);
        return;
    }
    if (worst_bw)
        printf(
            "# target put/get bandwidth >= 1 MiB within 10%% of memcpy (ratio <= 1.10): %s - %d of %d points "
            "meet it; worst %s %zu B ratio %.3f\n",
            bw_ok == bw_n ? "HOLDS" : "MISSED", bw_ok, bw_n, worst_bw->op.c_str(), worst_bw->bytes, worst_bw->ratio);
    if (worst_lat)
        printf(
            "# target latency at or below Open MPI (ratio <= 1.00): %s - %d of %d ops meet it; worst %s ratio %.3f\n",
            lat_ok == lat_n ? "HOLDS" : "MISSED", lat_ok, lat_n, worst_lat->op.c_str(), worst_lat->ratio);
    for (const row& r : rep.rows())
        if (r.peer == "mpi" && r.op.rfind("long_", 0) == 0)
            printf("#   %-22s %8.4f us vs MPI %8.4f us  ratio %6.3f [%.3f-%.3f]  %s\n", r.op.c_str(), r.ours, r.theirs,
                   r.ratio, r.ratio_lo, r.ratio_hi, verdict(r, 1.0));
    for (const row& r : rep.rows())
        if (r.peer == "memcpy" && r.bytes >= mib)
            printf("#   %-13s %9zu B  %7.2f GB/s vs memcpy %7.2f GB/s  ratio %6.3f [%.3f-%.3f]  %s\n", r.op.c_str(),
                   r.bytes, static_cast<double>(r.bytes) / r.ours / 1e3, static_cast<double>(r.bytes) / r.theirs / 1e3,
                   r.ratio, r.ratio_lo, r.ratio_hi, verdict(r, 1.10));
    fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    bench::g_program = "bench_rma";  // messages carry no rank: only PE 0 reports
    options o = parse(argc, argv);
    bench::choose_mpi_osc(o.osc);
    int rank = 0, size = 0;
    bench::init_mpi(&argc, &argv, &rank, &size);
    MPI_Comm world = MPI_COMM_WORLD;
    if (int rc = bench::finish_if_help(o, rank, usage, argv[0]); rc >= 0) return rc;
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "bench_rma: run it on 2 processes (mpirun -n 2 bench_rma), not %d\n", size);
        MPI_Finalize();
        return 2;
    }

    const int me = bench::start_ishmem(&world, rank, size);
    const int peer = 1;

    const size_t max_bytes = o.max_bytes;
    // Symmetric buffers: the put target and the get source on PE 1, and a word for the latencies.
    char* sym_dst = static_cast<char*>(ishmem_malloc(max_bytes));
    char* sym_src = static_cast<char*>(ishmem_malloc(max_bytes));
    long* word = static_cast<long*>(ishmem_malloc(64));
    long* done = static_cast<long*>(ishmem_calloc(1, 64));  // --target-wait ishmem: PE 0 sets it at the end
    // Private buffers on PE 0: the put source and the get destination.
    char* local_src = static_cast<char*>(aligned_alloc(4096, max_bytes));
    char* local_dst = static_cast<char*>(aligned_alloc(4096, max_bytes));
    if (!sym_dst || !sym_src || !word || !done || !local_src || !local_dst) die("out of memory");
    // Every PE touches its own memory first, so that no page fault lands in a measurement.
    memset(sym_dst, 1, max_bytes);
    memset(sym_src, 2, max_bytes);
    memset(word, 0, 64);
    memset(local_src, 3, max_bytes);
    memset(local_dst, 4, max_bytes);

    // Open MPI's peer: a window of the same size, passive target, locked once.
    MPI_Win win;
    char* win_base = static_cast<char*>(bench::make_peer_window(o, 2 * max_bytes, 1, world, &win));
    memset(win_base, 5, 2 * max_bytes);
    const MPI_Aint win_put = 0, win_get = static_cast<MPI_Aint>(max_bytes), win_word = 0;
    MPI_Win_lock_all(0, win);
    MPI_Barrier(world);

    // On one node PE 0 maps PE 1's heap (the memcpy peer copies through the mapping); across nodes
    // there is none, and the memcpy peer is left out.
    char* peer_dst = static_cast<char*>(ishmem_ptr(sym_dst, peer));
    char* peer_src = static_cast<char*>(ishmem_ptr(sym_src, peer));
    const bool same_node = bench::g_layout.node_of[0] == bench::g_layout.node_of[1];
    if (me == 0 && same_node && (!peer_dst || !peer_src)) die("ishmem_ptr gives no mapping of PE 1's heap");
    if (me == 0 && !same_node && (peer_dst || peer_src))
        die("ishmem_ptr maps the heap of PE 1, which is on another node");
    const bool with_memcpy = same_node;

    if (me == 0) {
        const double load_before = load_average();
        report rep(o);
        long one = 1, result = 0;
        volatile long sink = 0;

        // ---- latency (8 bytes) ----------------------------------------------------------------
        // "op": n operations, one completion (quiet / flush) at the end of the batch.
        // "op+quiet": every operation completed before the next (MPI: flush after each).
        // The origin buffer of MPI_Put must stay valid until the flush: a variable of this scope.
        auto mpi_put_batch = [&](long i, long n) {
            MPI_Put(&one, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, win);
            if (i == n - 1) MPI_Win_flush(peer, win);
        };
        auto mpi_put_flush = [&](long, long) {
            MPI_Put(&one, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, win);
            MPI_Win_flush(peer, win);
        };
        auto mpi_acc_batch = [&](long i, long n) {
            MPI_Accumulate(&one, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, MPI_SUM, win);
            if (i == n - 1) MPI_Win_flush(peer, win);
        };
        auto mpi_acc_flush = [&](long, long) {
            MPI_Accumulate(&one, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(peer, win);
        };
        {
            auto ours = [&](long i, long n) {
                ishmem_long_p(word, i, peer);
                if (i == n - 1) ishmem_quiet();
            };
            if (with_memcpy) {
                auto r = measure(o, ours, mpi_put_batch);
                rep.add_all("long_p", 8, r, {"mpi"});
            } else {
                // Across nodes, also against MPI_Put + MPI_Win_flush_local after each put: what a
                // blocking put through MPI (source reusable on return) costs there. Not a target.
                auto mpi_put_flush_local = [&](long, long) {
                    MPI_Put(&one, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, win);
                    MPI_Win_flush_local(peer, win);
                };
                auto r = measure(o, ours, mpi_put_batch, mpi_put_flush_local);
                rep.add_all("long_p", 8, r, {"mpi", "mpi_flush_local"});
            }
        }
        {
            auto ours = [&](long i, long) {
                ishmem_long_p(word, i, peer);
                ishmem_quiet();
            };
            auto r = measure(o, ours, mpi_put_flush);
            rep.add_all("long_p+quiet", 8, r, {"mpi"});
        }
        {
            auto ours = [&](long, long) { sink = ishmem_long_g(word, peer); };
            auto theirs = [&](long, long) {
                MPI_Get(&result, 1, MPI_LONG, peer, win_word, 1, MPI_LONG, win);
                MPI_Win_flush(peer, win);
                sink = result;
            };
            auto r = measure(o, ours, theirs);
            rep.add_all("long_g", 8, r, {"mpi"});
        }
        {
            auto ours = [&](long, long) { sink = ishmem_long_atomic_fetch_add(word, 1, peer); };
            auto theirs = [&](long, long) {
                MPI_Fetch_and_op(&one, &result, MPI_LONG, peer, win_word, MPI_SUM, win);
                MPI_Win_flush(peer, win);
                sink = result;
            };
            auto r = measure(o, ours, theirs);
            rep.add_all("long_atomic_fetch_add", 8, r, {"mpi"});
        }
        {
            auto ours = [&](long i, long n) {
                ishmem_long_atomic_add(word, 1, peer);
                if (i == n - 1) ishmem_quiet();
            };
            auto r = measure(o, ours, mpi_acc_batch);
            rep.add_all("long_atomic_add", 8, r, {"mpi"});
        }
        {
            auto ours = [&](long, long) {
                ishmem_long_atomic_add(word, 1, peer);
                ishmem_quiet();
            };
            auto r = measure(o, ours, mpi_acc_flush);
            rep.add_all("long_atomic_add+quiet", 8, r, {"mpi"});
        }
        (void)sink;

        // ---- bandwidth: put and get, each completed --------------------------------------------
        // Against MPI, and on one node also against a plain copy between the mappings.
        auto measure_bandwidth = [&](const char* name, size_t bytes, auto& ours, auto& mpi, auto& copy) {
            if (with_memcpy)
                rep.add_all(name, bytes, measure(o, ours, mpi, copy), {"mpi", "memcpy"});
            else
                rep.add_all(name, bytes, measure(o, ours, mpi), {"mpi"});
        };
        // Quick runs take every eighth power of two; full runs every power of two.
        const int step = o.quick ? 3 : 1;
        for (size_t bytes = o.min_bytes; bytes <= max_bytes && !o.latency_only; bytes <<= step) {
            const int count = static_cast<int>(bytes);
            auto put_ours = [&](long, long) {
                ishmem_putmem(sym_dst, local_src, bytes, peer);
                ishmem_quiet();
            };
            auto put_mpi = [&](long, long) {
                MPI_Put(local_src, count, MPI_BYTE, peer, win_put, count, MPI_BYTE, win);
                MPI_Win_flush(peer, win);
            };
            auto put_memcpy = [&](long, long) {
                memcpy(peer_dst, local_src, bytes);
                clobber();
            };
            measure_bandwidth("putmem+quiet", bytes, put_ours, put_mpi, put_memcpy);

            auto get_ours = [&](long, long) {
                ishmem_getmem(local_dst, sym_src, bytes, peer);
                ishmem_quiet();
                clobber();
            };
            auto get_mpi = [&](long, long) {
                MPI_Get(local_dst, count, MPI_BYTE, peer, win_get, count, MPI_BYTE, win);
                MPI_Win_flush(peer, win);
                clobber();
            };
            auto get_memcpy = [&](long, long) {
                memcpy(local_dst, peer_src, bytes);
                clobber();
            };
            measure_bandwidth("getmem+quiet", bytes, get_ours, get_mpi, get_memcpy);
        }
        // ---- strided: 32 KiB in blocks of 8 B to 4 KiB, 2 blocks apart at both ends, completed ----
        // Ours: ishmemx_uint8_ibput / ibget (op ibputB+quiet, ibgetB+quiet for blocks of B bytes);
        // MPI: one MPI_Put / MPI_Get of a vector type at both ends; memcpy: a copy per block.
        constexpr size_t strided_bytes = size_t(32) << 10;
        for (size_t block : {size_t(8), size_t(64), size_t(512), size_t(4096)}) {
            if (o.latency_only || 2 * strided_bytes > max_bytes) break;
            const size_t nblocks = strided_bytes / block;
            const auto stride = static_cast<ptrdiff_t>(2 * block);
            MPI_Datatype vec;
            MPI_Type_vector(static_cast<int>(nblocks), static_cast<int>(block), static_cast<int>(stride), MPI_BYTE,
                            &vec);
            MPI_Type_commit(&vec);
            auto* dst = reinterpret_cast<uint8_t*>(sym_dst);
            auto* src = reinterpret_cast<uint8_t*>(sym_src);
            auto put_ours = [&](long, long) {
                ishmemx_uint8_ibput(dst, reinterpret_cast<const uint8_t*>(local_src), stride, stride, block, nblocks,
                                    peer);
                ishmem_quiet();
            };
            auto put_mpi = [&](long, long) {
                MPI_Put(local_src, 1, vec, peer, win_put, 1, vec, win);
                MPI_Win_flush(peer, win);
            };
            auto put_memcpy = [&](long, long) {
                for (size_t b = 0; b < nblocks; ++b) memcpy(peer_dst + b * 2 * block, local_src + b * 2 * block, block);
                clobber();
            };
            const std::string put_name = "ibput" + std::to_string(block) + "+quiet";
            measure_bandwidth(put_name.c_str(), strided_bytes, put_ours, put_mpi, put_memcpy);
            auto get_ours = [&](long, long) {
                ishmemx_uint8_ibget(reinterpret_cast<uint8_t*>(local_dst), src, stride, stride, block, nblocks, peer);
                clobber();
            };
            auto get_mpi = [&](long, long) {
                MPI_Get(local_dst, 1, vec, peer, win_get, 1, vec, win);
                MPI_Win_flush(peer, win);
                clobber();
            };
            auto get_memcpy = [&](long, long) {
                for (size_t b = 0; b < nblocks; ++b) memcpy(local_dst + b * 2 * block, peer_src + b * 2 * block, block);
                clobber();
            };
            const std::string get_name = "ibget" + std::to_string(block);
            measure_bandwidth(get_name.c_str(), strided_bytes, get_ours, get_mpi, get_memcpy);
            MPI_Type_free(&vec);
        }
        summarize(rep, o, load_before);
        if (o.target != options::target_wait::mpi) ishmem_long_atomic_set(done, 1, peer);
    } else if (o.target == options::target_wait::ishmem) {
        // PE 1 waits in ishmem: the wait loop serves the transport's requests and drives MPI's
        // progress (for the MPI peer's window too).
        ishmem_long_wait_until(done, ISHMEM_CMP_NE, 0);
    } else if (o.target == options::target_wait::compute) {
        // PE 1 "computes": plain loads, no library call. Only ishmem's progress thread (whose
        // MPI_Test also drives MPI's progress) serves requests, the final atomic_set included.
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) == 0)
            for (int i = 0; i < 64; ++i) asm volatile("" ::: "memory");
    }
    // PE 1 waits here while PE 0 measures; MPI_Barrier also drives MPI's progress for the window.
    MPI_Barrier(world);

    MPI_Win_unlock_all(win);
    bench::free_peer_window(o, win_base, &win);
    ishmem_free(done);
    ishmem_free(word);
    ishmem_free(sym_src);
    ishmem_free(sym_dst);
    free(local_src);
    free(local_dst);
    ishmem_finalize();
    MPI_Finalize();
    return 0;
}
