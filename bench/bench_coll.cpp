// bench_coll: latency of ishmem's collectives on the world team next to Open MPI's equivalents, in
// one launch, on any number of processes (2 and 4 are the ones we report):
//
//     mpirun -n P bench_coll [--quick] [--csv FILE] [--sizes LIST] [--batches N] [--batch-ms MS]
//
// Every PE takes part in every batch. For each op and size the variants (ishmem's and MPI's) run in
// rounds of one batch each, back to back, in an order that changes every round; a timed iteration is
// one collective call. Before each batch the PEs meet in MPI_Barrier and make one untimed call of the
// variant; the time of a batch is the slowest PE's. Times are medians over the rounds of the time of
// one call; ratios are medians over the rounds of the ratio ishmem / MPI within a round, with their
// quartiles. Each ishmem collective's answer is checked once per size before the timed calls and
// again after them (and MPI's once, which checks the checker); a wrong answer is reported and makes
// the exit status 1. No wait can hang the run: a watchdog ends the process, naming the collective,
// the size and the variant, when no call has completed for 20 s. When the PEs are on several nodes
// (or ISHMEM_NODE_SPLIT=pe), the world team spans nodes and every ishmem collective goes through
// ishmem's MPI transport (MPI's collectives on a communicator of its own); MPI is then initialized
// with MPI_THREAD_MULTIPLE, which the transport needs, for both, and the transport's progress
// thread is held through MPI's batches (--mpi-beside-thread says why). See bench/README.md.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "bench_common.h"
#include "mpi_p2p_peer.h"
#include "ishmem.h"
#include "ishmemx.h"

namespace {

using bench::clock_type;
using bench::die;
using bench::median;
using bench::progress;
using bench::set_doing;
using bench::timings;

// Sizes: 8 B, then 16 B to 16 MiB in powers of 4; --quick: three small ones.
const std::vector<size_t> default_sizes = {8,        16,       64,        256,     1024,    4096,
                                           16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
const std::vector<size_t> quick_sizes = {8, 1024, 64 << 10};

// The shared options (bench_common.h) and the message sizes.
struct options : bench::options {
    std::vector<size_t> sizes;  // empty: the defaults for the mode
    // --mpi-nb: the MPI peer is the non-blocking form of each collective + MPI_Wait (MPI_Ibarrier,
    // MPI_Ibcast, ...), the form ishmem's MPI transport calls across nodes: tells the cost of the
    // non-blocking algorithms from that of ishmem's own wait loop.
    bool mpi_nb = false;
    // --mpi-on-heap: the MPI peer's buffers are symmetric too (ishmem_malloc) instead of private
    // memory: tells the cost of the memory (the heap is a shared mapping) from that of the library.
    bool mpi_on_heap = false;
    // --mpi-whole-answer: the MPI peer also leaves what ishmem's call leaves and MPI's collective
    // does not: the root's dest in broadcasts (a copy of its source before MPI_Bcast, where by
    // default MPI_Bcast works in place on the root's data) and rank 0's zeroed dest in exscans
    // (MPI_Exscan leaves it undefined). The same answer, written directly in MPI.
    bool mpi_whole_answer = false;
    // --mpi-p2p: the MPI peer of broadcastmem and the scans is those collectives written as MPI
    // point-to-point messages and a polled MPI_Testall (mpi_p2p_peer.h), the way ishmem's transport
    // uses MPI across nodes: tells the cost of that use of MPI from that of ishmem's code around it.
    bool mpi_p2p = false;
    // --ops: the ops to run (names as in the CSV; any barrier's name runs all three); empty: every
    // op. asked: every name the driver has asked about, so that a name in --ops that is no op's
    // shows at the end (unknown_ops).
    std::vector<std::string> ops;
    mutable std::set<std::string> asked;
    bool wants(const char* name) const {
        asked.insert(name);
        if (ops.empty()) return true;
        for (const std::string& n : ops)
            if (n == name) return true;
        return false;
    }
    bool wants_any(std::initializer_list<const char*> names) const {
        bool any = false;
        for (const char* n : names) any = wants(n) || any;  // (asks about every name)
        return any;
    }
    std::vector<std::string> unknown_ops() const {
        std::vector<std::string> unknown;
        for (const std::string& n : ops)
            if (!asked.count(n)) unknown.push_back(n);
        return unknown;
    }
};

// "a, b, c".
template <class Names> std::string joined(const Names& names) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return list;
}

void usage(const char* argv0) {
    fprintf(stderr,
            "usage: mpirun -n P %s [--quick] [--csv FILE] [--sizes LIST] [--batches N] [--batch-ms MS] [--mpi-nb] "
            "[--mpi-on-heap] [--mpi-whole-answer] [--mpi-p2p] [--mpi-beside-thread] [--ops LIST]\n"
            "  Every ishmem collective on the world team next to Open MPI's equivalent, on all P processes.\n"
            "  --quick          few, short batches and three small sizes (a smoke test; numbers are rough)\n"
            "  --csv FILE       also write the CSV lines to FILE\n"
            "  --sizes LIST     message sizes in bytes, comma-separated, suffixes K, M allowed\n"
            "                   (default 8,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M; quick 8,1K,64K)\n"
            "  --batches N      rounds per point, one batch of each variant (default 31, quick 3)\n"
            "  --batch-ms MS    target duration of one batch in ms (default 5, quick 0.2)\n"
            "  --mpi-nb         the MPI peer is each collective's non-blocking form + MPI_Wait\n"
            "  --mpi-on-heap    the MPI peer's buffers come from ishmem_malloc too (the same kind of memory)\n"
            "  --mpi-whole-answer  the MPI peer leaves ishmem's answer: its broadcast root copies source into dest\n"
            "                   first (MPI_Bcast+copy), its exscan zeroes rank 0's dest (MPI_Exscan+zero)\n"
            "  --mpi-p2p        the MPI peer of broadcastmem and the scans is MPI_Isend/MPI_Irecv with a polled\n"
            "                   MPI_Testall (a binomial tree, a chain: p2p_bcast, p2p_scan, p2p_exscan), as ishmem's\n"
            "                   transport uses MPI across nodes; the other ops keep their MPI collectives\n"
            "  --mpi-beside-thread  ishmem's progress thread runs on during the MPI peer's batches (by default it is\n"
            "                   held then: MPI as in a program without ishmem)\n"
            "  --ops LIST       only these ops, comma-separated, named as in the CSV (e.g. int64_sum_inscan;\n"
            "                   barrier_all, team_sync or sync_all runs the three barriers); a name that is no\n"
            "                   op's ends the run with status 2 and the list of ops\n",
            argv0);
}

// "64K" -> 65536; false for anything that is not a positive size.
bool parse_size(const std::string& s, size_t* out) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(s.c_str(), &end, 10);
    if (errno || end == s.c_str()) return false;
    std::string suffix(end);
    if (suffix == "K" || suffix == "k" || suffix == "KiB")
        v <<= 10;
    else if (suffix == "M" || suffix == "m" || suffix == "MiB")
        v <<= 20;
    else if (!suffix.empty() && suffix != "B")
        return false;
    if (v == 0 || v > (size_t(1) << 30)) return false;
    *out = static_cast<size_t>(v);
    return true;
}

// "a,b,,c" -> {"a", "b", "", "c"}.
std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> items;
    for (size_t pos = 0; pos <= list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        items.push_back(list.substr(pos, comma - pos));
        pos = comma + 1;
    }
    return items;
}

options parse(int argc, char** argv) {
    options o;
    bench::parse_options(o, argc, argv, [&](const std::string& a, int& i) {
        if (a == "--mpi-nb") return o.mpi_nb = true;
        if (a == "--mpi-on-heap") return o.mpi_on_heap = true;
        if (a == "--mpi-whole-answer") return o.mpi_whole_answer = true;
        if (a == "--mpi-p2p") return o.mpi_p2p = true;
        if (a == "--ops" && i + 1 < argc) {
            for (const std::string& op : split_commas(argv[++i]))
                if (!op.empty()) o.ops.push_back(op);
            return true;
        }
        if (a != "--sizes" || i + 1 >= argc) return false;
        const std::string list = argv[++i];
        for (const std::string& item : split_commas(list)) {
            size_t v = 0;
            if (!parse_size(item, &v)) {
                if (o.bad.empty()) o.bad = "--sizes " + list;
                break;
            }
            o.sizes.push_back(v);
        }
        return true;
    });
    if (o.mpi_p2p && o.mpi_nb && o.bad.empty()) o.bad = "--mpi-p2p with --mpi-nb (one peer form at a time)";
    if (o.sizes.empty()) o.sizes = o.quick ? quick_sizes : default_sizes;
    std::sort(o.sizes.begin(), o.sizes.end());
    o.sizes.erase(std::unique(o.sizes.begin(), o.sizes.end()), o.sizes.end());
    return o;
}

// "8 B", "64 KiB", "16 MiB".
std::string human(size_t bytes) {
    char buf[32];
    if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0)
        snprintf(buf, sizeof buf, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, sizeof buf, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, sizeof buf, "%zu B", bytes);
    return buf;
}

// ---- the watchdog -------------------------------------------------------------------------------
// Collectives block in the library, where no guard of ours can go: the watchdog of bench_common.h
// (progress() counts calls and batch boundaries; set_doing() names the op, size and variant) ends
// the process after watchdog_s seconds without progress.
constexpr int watchdog_s = 20;

// ---- the driver -------------------------------------------------------------------------------------

// One variant: a name and a function that makes n calls of it (on every PE).
struct variant {
    const char* name;
    std::function<void(long)> run;
    bool peer = false;  // MPI's: ishmem's progress thread is held through its batches (bench::peer_batch)
};

// bench::timings: t[k][b] is the time of one call of variant k in round b (us, the slowest PE's);
// n[k] the calls per batch.

// One batch of variant v on every PE: meet in MPI_Barrier, one untimed call (the variant's own cache
// state, and a second meeting for the collectives that synchronize), then n timed calls. Returns the
// time of one call in us on the slowest PE: MPI_Allreduce(MAX) gives every PE the same value, so
// that every decision taken on it (the calibrated batch length) is the same everywhere. The MPI
// peer's batches hold ishmem's progress thread, unless --mpi-beside-thread.
double batch(const options& o, const char* context, const variant& v, long n) {
    set_doing("%s, variant %s, batch of %ld calls", context, v.name, n);
    const bench::peer_batch peer(v.peer, o.mpi_beside_thread);
    progress();
    MPI_Barrier(MPI_COMM_WORLD);
    progress();
    v.run(1);
    auto t0 = clock_type::now();
    v.run(n);
    auto t1 = clock_type::now();
    progress();
    double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n), slowest = 0;
    MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

// Runs the variants in rounds, one batch of each per round, on every PE in the same order. Each
// variant gets its own batch length, calibrated to about the target time (ishmem's and MPI's calls
// may differ by 10x); batches never go below one call, so from a few MiB on a batch is one call.
// Round b runs the variants in order b of all their permutations, so that no variant always
// follows the same one. The calibration and one batch per variant at the final length are the
// warm-up.
timings measure(const options& o, const char* context, const std::vector<variant>& vs) {
    const size_t nv = vs.size();
    timings r;
    r.n.assign(nv, 1);
    for (size_t k = 0; k < nv; ++k) {
        // Grow the batch until it fills an eighth of the target, then try three more times at that
        // length, and scale by the fastest call time seen in all of these batches: a slow batch (a
        // page fault, a preemption, which on a loaded or oversubscribed machine last milliseconds)
        // must not shrink the batches.
        double best = 1e300;
        r.n[k] = bench::grow_batch(r.n[k], o.batch_us, [&](long n) {
            double us = batch(o, context, vs[k], n);
            best = std::min(best, us);
            return us * static_cast<double>(n);
        });
        for (int t = 0; t < 3; ++t) best = std::min(best, batch(o, context, vs[k], r.n[k]));
        r.n[k] = std::max(1L, std::min(1L << 30, static_cast<long>(o.batch_us / std::max(best, 1e-4))));
    }
    for (size_t k = 0; k < nv; ++k) batch(o, context, vs[k], r.n[k]);  // warm-up at the final lengths

    const std::vector<std::vector<size_t>> orders = bench::permutations(nv);
    r.t.assign(nv, {});
    for (int b = 0; b < o.batches; ++b)
        for (size_t k : orders[static_cast<size_t>(b) % orders.size()])
            r.t[k].push_back(batch(o, context, vs[k], r.n[k]));
    return r;
}

// ---- patterns and checks ------------------------------------------------------------------------------

// A 64-bit hash of (a, b, w): the contents of word w of block (a, b). Blocks of different PEs, ops
// and destinations differ, so a block in the wrong place or from the wrong PE does not pass.
inline uint64_t mix(uint64_t a, uint64_t b, uint64_t w) {
    uint64_t x = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (w * 0xD6E8FEB86659FD93ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return x;
}

inline uint8_t pattern_byte(uint64_t a, uint64_t b, size_t i) {
    return static_cast<uint8_t>(mix(a, b, i / 8) >> (8 * (i % 8)));
}

void fill_pattern(void* dst, size_t n, uint64_t a, uint64_t b) {
    auto* p = static_cast<unsigned char*>(dst);
    size_t w = 0;
    for (; (w + 1) * 8 <= n; ++w) {
        uint64_t v = mix(a, b, w);
        memcpy(p + w * 8, &v, 8);
    }
    for (size_t i = w * 8; i < n; ++i) p[i] = pattern_byte(a, b, i);
}

// The first byte of p[0..n) that differs from the pattern (a, b), or SIZE_MAX.
size_t pattern_mismatch(const void* src, size_t n, uint64_t a, uint64_t b) {
    const auto* p = static_cast<const unsigned char*>(src);
    size_t w = 0;
    for (; (w + 1) * 8 <= n; ++w) {
        uint64_t v;
        memcpy(&v, p + w * 8, 8);
        if (v != mix(a, b, w)) break;
    }
    for (size_t i = w * 8; i < n; ++i)
        if (p[i] != pattern_byte(a, b, i)) return i;
    return SIZE_MAX;
}

constexpr unsigned char sentinel = 0xEE;
constexpr size_t guard_bytes = 64;  // past the result: must keep the sentinel

// "" when bytes [0, guard_bytes) of p hold the sentinel, else a description.
std::string guard_check(const void* p, size_t at) {
    const auto* g = static_cast<const unsigned char*>(p) + at;
    for (size_t i = 0; i < guard_bytes; ++i)
        if (g[i] != sentinel) {
            char buf[160];
            snprintf(buf, sizeof buf, "dest byte %zu, past the end of the result, was overwritten (0x%02x)", at + i,
                     g[i]);
            return buf;
        }
    return "";
}

// "" when p[0..n) holds the pattern (a, b), else a description naming what (e.g. "block 2").
std::string block_check(const void* p, size_t n, uint64_t a, uint64_t b, const char* what, size_t base) {
    size_t i = pattern_mismatch(p, n, a, b);
    if (i == SIZE_MAX) return "";
    char buf[200];
    snprintf(buf, sizeof buf, "%s: dest byte %zu is 0x%02x, expected 0x%02x", what, base + i,
             static_cast<const unsigned char*>(p)[i], pattern_byte(a, b, i));
    return buf;
}

// Values of the reductions and scans: exact in int64 and in double (small integers), whatever the
// order of the additions, so that every result can be compared for equality.
inline int64_t value_i64(uint64_t tag, int pe, size_t k) {
    return static_cast<int64_t>(mix(tag, static_cast<uint64_t>(pe) + 1, k) >> 24) - (int64_t(1) << 39);
}
inline double value_dbl(uint64_t tag, int pe, size_t k) {
    return static_cast<double>(static_cast<int64_t>(mix(tag, static_cast<uint64_t>(pe) + 1, k) >> 42) -
                               (int64_t(1) << 21));
}

// ---- output ---------------------------------------------------------------------------------------------

struct row {
    std::string op;
    size_t bytes;
    int npes;
    double ours, theirs;   // us per call
    double ratio, q1, q3;  // ishmem / MPI: median and quartiles over the rounds of the paired ratio
    long n_ours, n_theirs;
    std::string mpi_name;
};

// The rows, kept on every PE for the summary; only the writer (PE 0) prints the CSV lines.
class report {
  public:
    explicit report(const options& o, bool writer)
        : out_(o.csv, "op,bytes,npes,ishmem_us,mpi_us,ratio,q1,q3\n", writer) {}
    void add(const row& r) {
        rows_.push_back(r);
        out_.add("%s,%zu,%d,%.4f,%.4f,%.3f,%.3f,%.3f\n", r.op.c_str(), r.bytes, r.npes, r.ours, r.theirs, r.ratio, r.q1,
                 r.q3);
    }
    const std::vector<row>& rows() const { return rows_; }

  private:
    bench::csv_writer out_;
    std::vector<row> rows_;
};

// ---- the run ------------------------------------------------------------------------------------------

struct wrong_answer {
    std::string op;
    size_t bytes;
    std::string phase;
    int pes_wrong;  // how many PEs saw a wrong answer
};

class coll_bench {
  public:
    coll_bench(const options& o, int me, int npes) : o_(o), me_(me), npes_(npes), rep_(o, me == 0) {}

    const options& o_;
    const int me_, npes_;
    report rep_;
    std::vector<wrong_answer> wrong_;

    // Gathers the verdict of one check from every PE: each PE that found a wrong answer has printed
    // it (err non-empty); PE 0 records how many did. mpi: the check was of MPI's answer (which only
    // validates the checker: a failure there is the benchmark's bug, also reported).
    void verdict(const char* op, size_t bytes, const char* phase, const std::string& err) {
        if (!err.empty()) {
            fprintf(stderr, "bench_coll: rank %d: WRONG ANSWER from %s, %s on %d PEs (%s): %s\n", me_, op,
                    human(bytes).c_str(), npes_, phase, err.c_str());
            fflush(stderr);
        }
        int bad = err.empty() ? 0 : 1, total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (total > 0 && me_ == 0) wrong_.push_back({op, bytes, phase, total});
    }

    // One op at one size: check ishmem's and MPI's answers, time both, check ishmem's answer again.
    // prepare() fills the sources of both and the dests with the sentinel; ours() makes one ishmem
    // call and returns its status; theirs() one MPI call; check(dest, mpi) checks a dest ("" = right).
    template <class Prepare, class Ours, class Theirs, class Check> void op(const char* name, size_t bytes,
                                                                            const char* mpi_name, Prepare prepare,
                                                                            Ours ours, Theirs theirs, Check check) {
        if (!o_.wants(name)) return;
        char context[160];
        snprintf(context, sizeof context, "%s, %s on %d PEs", name, human(bytes).c_str(), npes_);
        set_doing("%s, checking the answers", context);
        prepare();
        ishmem_barrier_all();  // every source is written and every dest ready, on every PE
        progress();
        int rc = ours();
        progress();
        std::string err;
        if (rc != 0) {
            err = "returned " + std::to_string(rc);
        } else {
            err = check(false);
        }
        theirs();
        progress();
        std::string mpi_err = check(true);
        verdict(name, bytes, "first call", err);
        if (!mpi_err.empty()) mpi_err = "(" + std::string(mpi_name) + ", the benchmark's own check) " + mpi_err;
        verdict(mpi_name, bytes, "first call", mpi_err);

        int rc_timed = 0;
        std::vector<variant> vs = {
            {"ishmem",
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     rc_timed |= ours();
                     progress();
                 }
             }},
            {mpi_name,
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     theirs();
                     progress();
                 }
             },
             true},
        };
        timings t = measure(o_, context, vs);

        // Every PE is done with every call; the last ishmem call left its answer in dest (the timed
        // calls read the same sources as the checked one).
        set_doing("%s, checking the answer after the timed calls", context);
        MPI_Barrier(MPI_COMM_WORLD);
        err = rc_timed != 0 ? "a timed call returned " + std::to_string(rc_timed) : check(false);
        verdict(name, bytes, "after the timed calls", err);
        add_rows(name, bytes, t, {0}, 1, mpi_name);
    }

    void add_rows(const char* name, size_t bytes, const timings& t, std::vector<size_t> ours, size_t theirs,
                  const char* mpi_name) {
        for (size_t k : ours) {
            const bench::ratio q = bench::paired(t.t[k], t.t[theirs]);
            row r;
            r.op = name;
            r.bytes = bytes;
            r.npes = npes_;
            r.ours = median(t.t[k]);
            r.theirs = median(t.t[theirs]);
            r.ratio = q.median;
            r.q1 = q.lo;
            r.q3 = q.hi;
            r.n_ours = t.n[k];
            r.n_theirs = t.n[theirs];
            r.mpi_name = mpi_name;
            rep_.add(r);
        }
    }
};

const char* verdict_word(const row& r) {
    return bench::verdict({r.ratio, r.q1, r.q3}, 1.0, false, bench::behind_words);
}

void summarize(const coll_bench& b, const options& o, double load_before, double seconds) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const double load_after = bench::load_average();
    printf(
        "\n# summary: %s run on %d PEs (%ld CPUs%s), %d rounds of ~%.1f ms batches per variant, %.1f s; "
        "times: medians of the slowest PE's time per call; ratios ishmem/MPI: medians of the ratios within a "
        "round [quartiles]; peer %s%s%s%s%s\n",
        o.quick ? "quick (rough numbers)" : "full", b.npes_, cpus, b.npes_ > cpus ? ", oversubscribed" : "", o.batches,
        o.batch_us / 1000.0, seconds, bench::mpi_version().c_str(),
        o.mpi_on_heap ? ", its buffers on the symmetric heap (--mpi-on-heap)" : "",
        o.mpi_whole_answer ? ", leaving ishmem's whole answer (--mpi-whole-answer)" : "",
        o.mpi_p2p ? ", broadcasts and scans as polled point-to-point messages (--mpi-p2p)" : "",
        bench::peer_thread_note(o.mpi_beside_thread));
    printf("# load average %.2f before, %.2f after%s\n", load_before, load_after,
           bench::load_note(load_before, load_after, cpus));
    if (bench::g_layout.spans())
        printf("# the PEs are on %s: ishmem's collectives on the world team go through its MPI transport\n",
               bench::g_layout.text.c_str());
    printf("# %-18s %9s %4s %11s %11s  %-24s %-15s %s\n", "op", "bytes", "PEs", "ishmem_us", "mpi_us", "ratio [q1-q3]",
           "verdict", "calls/batch ishmem, mpi (peer)");
    for (const row& r : b.rep_.rows()) {
        char ratio[64];
        snprintf(ratio, sizeof ratio, "%6.3f [%.3f-%.3f]", r.ratio, r.q1, r.q3);
        printf("# %-18s %9s %4d %11.4f %11.4f  %-24s %-15s %ld, %ld (%s)\n", r.op.c_str(), human(r.bytes).c_str(),
               r.npes, r.ours, r.theirs, ratio, verdict_word(r), r.n_ours, r.n_theirs, r.mpi_name.c_str());
    }
    int ok = 0, n = 0;
    const row* worst = nullptr;
    for (const row& r : b.rep_.rows()) {
        ++n;
        ok += r.ratio <= 1.0;
        if (!worst || r.ratio > worst->ratio) worst = &r;
    }
    printf("# target at or below Open MPI at every size (ratio <= 1.00): %s - %d of %d points",
           ok == n ? "HOLDS" : "MISSED", ok, n);
    if (worst) printf("; worst %s %s ratio %.3f", worst->op.c_str(), human(worst->bytes).c_str(), worst->ratio);
    printf("\n# behind Open MPI (ratio > 1.00), per op:\n");
    std::vector<std::string> ops;
    for (const row& r : b.rep_.rows())
        if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
    for (const std::string& op : ops) {
        std::string list;
        for (const row& r : b.rep_.rows())
            if (r.op == op && r.ratio > 1.0) {
                char buf[96];
                snprintf(buf, sizeof buf, "%s%s %.2f [%.2f-%.2f]%s", list.empty() ? "" : ", ", human(r.bytes).c_str(),
                         r.ratio, r.q1, r.q3, r.q1 <= 1.0 ? " (noisy)" : "");
                list += buf;
            }
        printf("#   %-18s %s\n", op.c_str(), list.empty() ? "none" : list.c_str());
    }
    if (b.wrong_.empty()) {
        printf(
            "# answers: every ishmem collective gave the right answer at every size (checked before and after "
            "the timed calls)\n");
    } else {
        printf("# answers: WRONG in %zu checks (details on stderr, one line per PE):\n", b.wrong_.size());
        for (const wrong_answer& w : b.wrong_)
            printf("#   %-18s %9s on %d PEs, %s: wrong on %d of %d PEs\n", w.op.c_str(), human(w.bytes).c_str(),
                   b.npes_, w.phase.c_str(), w.pes_wrong, b.npes_);
    }
    fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    bench::g_program = "bench_coll";
    options o = parse(argc, argv);
    bench::block_alarm(SIG_BLOCK);  // before MPI_Init: the threads MPI starts inherit the block
    // Across nodes ishmem's transport makes windows over the heap: the one-sided component it gets
    // is that of bench_rma and bench_p2p there (osc/ucx unless told). One node: Open MPI's choice
    // (no window is made).
    if (bench::spans_nodes_from_env()) bench::choose_mpi_osc("auto");
    int rank = 0, size = 0;
    bench::init_mpi(&argc, &argv, &rank, &size);
    MPI_Comm world = MPI_COMM_WORLD;
    bench::g_rank = rank;
    if (int rc = bench::finish_if_help(o, rank, usage, argv[0]); rc >= 0) return rc;

    const int me = bench::start_ishmem(&world, rank, size);
    const int npes = size;

    // Buffers: a source and a dest for each library, each large enough for npes blocks of the largest
    // size (alltoall, fcollect), collect's extra 8 bytes per odd PE, and the guard.
    const size_t max_bytes = *std::max_element(o.sizes.begin(), o.sizes.end());
    const size_t cap = static_cast<size_t>(npes) * (max_bytes + 8) + guard_bytes + 4096;
    auto* sym_src = static_cast<unsigned char*>(ishmem_malloc(cap));
    auto* sym_dst = static_cast<unsigned char*>(ishmem_malloc(cap));
    auto* bar = static_cast<long*>(ishmem_align(64, 4 * 64));  // barrier checks: 2 words, own lines
    if (!sym_src || !sym_dst || !bar) {
        char buf[256];
        snprintf(buf, sizeof buf,
                 "ishmem_malloc of 2 x %zu bytes failed: raise ISHMEM_SYMMETRIC_SIZE or give smaller --sizes", cap);
        die(buf);
    }
    const size_t mpi_cap = (cap + 4095) / 4096 * 4096;
    auto* mpi_src =
        static_cast<unsigned char*>(o.mpi_on_heap ? ishmem_align(4096, mpi_cap) : aligned_alloc(4096, mpi_cap));
    auto* mpi_dst =
        static_cast<unsigned char*>(o.mpi_on_heap ? ishmem_align(4096, mpi_cap) : aligned_alloc(4096, mpi_cap));
    if (!mpi_src || !mpi_dst) die("out of memory");
    std::vector<int64_t> scan_scratch(o.mpi_p2p ? cap / 8 : 0);  // (--mpi-p2p's scans)
    // Every PE touches its own memory first, so that no page fault lands in a measurement.
    memset(sym_src, 0, cap);
    memset(sym_dst, 0, cap);
    memset(bar, 0, 4 * 64);
    memset(mpi_src, 0, cap);
    memset(mpi_dst, 0, cap);
    MPI_Barrier(world);
    ishmem_barrier_all();

    const double load_before = bench::load_average();
    const auto t_start = clock_type::now();
    bench::start_watchdog(watchdog_s, "HANG: ", "a call");
    coll_bench b(o, me, npes);
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    // ---- barrier_all, team_sync, sync_all against MPI_Barrier (no size: bytes 0) ------------------
    if (o.wants_any({"barrier_all", "team_sync", "sync_all"})) {
        // Checks: barrier_all completes puts (each PE puts into its right neighbour's word, then reads
        // the word its left neighbour put into); team_sync and sync_all order local stores (each PE
        // stores into its own word, then gets its left neighbour's). Two words, used in turn, so that
        // a word is rewritten only after a barrier that follows its last read.
        set_doing("barrier_all / team_sync / sync_all, checking the answers");
        std::string e_bar, e_team, e_sync;
        auto expect = [&](long got, long want, std::string& err) {
            if (got != want && err.empty()) {
                char buf[128];
                snprintf(buf, sizeof buf, "read %ld after the barrier, expected %ld", got, want);
                err = buf;
            }
        };
        long* word[2] = {bar, bar + 8};
        int rc_team = 0;
        for (long r = 1; r <= 6; ++r) {
            long* w = word[r % 2];
            ishmem_long_p(w, r * 1000 + me, right);
            ishmem_barrier_all();
            expect(__atomic_load_n(w, __ATOMIC_ACQUIRE), r * 1000 + left, e_bar);
            progress();
        }
        ishmem_barrier_all();
        for (long r = 1; r <= 6; ++r) {
            long* w = word[r % 2];
            __atomic_store_n(w, 2000000 + r * 1000 + me, __ATOMIC_RELAXED);
            rc_team |= ishmem_team_sync(ISHMEM_TEAM_WORLD);
            expect(ishmem_long_g(w, left), 2000000 + r * 1000 + left, e_team);
            progress();
        }
        ishmem_barrier_all();
        for (long r = 1; r <= 6; ++r) {
            long* w = word[r % 2];
            __atomic_store_n(w, 3000000 + r * 1000 + me, __ATOMIC_RELAXED);
            ishmem_sync_all();
            expect(ishmem_long_g(w, left), 3000000 + r * 1000 + left, e_sync);
            progress();
        }
        if (rc_team != 0 && e_team.empty()) e_team = "returned " + std::to_string(rc_team);
        ishmem_barrier_all();
        b.verdict("barrier_all", 0, "first calls", e_bar);
        b.verdict("team_sync", 0, "first calls", e_team);
        b.verdict("sync_all", 0, "first calls", e_sync);

        int rc_timed = 0;
        std::vector<variant> vs = {
            {"barrier_all",
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     ishmem_barrier_all();
                     progress();
                 }
             }},
            {"team_sync",
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     rc_timed |= ishmem_team_sync(ISHMEM_TEAM_WORLD);
                     progress();
                 }
             }},
            {"sync_all",
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     ishmem_sync_all();
                     progress();
                 }
             }},
            {o.mpi_nb ? "MPI_Ibarrier+MPI_Wait" : "MPI_Barrier",
             [&](long n) {
                 for (long i = 0; i < n; ++i) {
                     if (o.mpi_nb) {
                         MPI_Request r;
                         MPI_Ibarrier(world, &r);
                         MPI_Wait(&r, MPI_STATUS_IGNORE);
                     } else {
                         MPI_Barrier(world);
                     }
                     progress();
                 }
             },
             true},
        };
        char context[96];
        snprintf(context, sizeof context, "barriers on %d PEs", npes);
        timings t = measure(o, context, vs);
        b.verdict("team_sync", 0, "timed calls",
                  rc_timed != 0 ? "a timed call returned " + std::to_string(rc_timed) : std::string());
        b.add_rows("barrier_all", 0, t, {0}, 3, vs[3].name);
        b.add_rows("team_sync", 0, t, {1}, 3, vs[3].name);
        b.add_rows("sync_all", 0, t, {2}, 3, vs[3].name);
    }

    // Tags keep the data of different ops apart (a stale answer of the previous op does not pass).
    enum : uint64_t { T_BCAST = 1, T_A2A, T_FCOLLECT, T_COLLECT, T_RED_I64, T_RED_DBL, T_INSCAN, T_EXSCAN };
    auto tag = [](uint64_t t, int pe) { return (t << 32) | static_cast<uint64_t>(pe); };
    auto sentinel_fill = [](void* p, size_t n) { memset(p, sentinel, n + guard_bytes); };
    auto dst_of = [&](bool mpi) { return mpi ? mpi_dst : sym_dst; };
    const int root = 0;
    // The MPI peer's name: "MPI_Bcast", or with --mpi-nb "MPI_Ibcast+MPI_Wait", and with `extra`
    // (what --mpi-whole-answer adds) "MPI_Bcast+copy" (names that live as long as the run: the rows
    // keep them, so a deque, whose elements stay put).
    std::deque<std::string> peer_names;
    auto peer_name = [&](const char* blocking, const char* extra = nullptr) -> const char* {
        if (!o.mpi_nb && !extra) return blocking;
        std::string n =
            o.mpi_nb ? std::string("MPI_I") + static_cast<char>(tolower(blocking[4])) + (blocking + 5) + "+MPI_Wait"
                     : std::string(blocking);
        if (extra) n += extra;
        for (const std::string& k : peer_names)
            if (k == n) return k.c_str();
        peer_names.push_back(n);
        return peer_names.back().c_str();
    };
    auto allreduce = [&](const void* src, void* dst, int n, MPI_Datatype type) {
        if (!o.mpi_nb) return (void)MPI_Allreduce(src, dst, n, type, MPI_SUM, world);
        MPI_Request r;
        MPI_Iallreduce(src, dst, n, type, MPI_SUM, world, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    };

    for (size_t bytes : o.sizes) {
        const int count = static_cast<int>(bytes);

        // ---- broadcastmem vs MPI_Bcast: PE 0's bytes to every PE -------------------------------
        // MPI_Bcast works in place (the root's buffer is the source); ishmem copies source to dest on
        // every PE, the root included. Every PE's source differs, so a copy from the wrong PE fails.
        b.op(
            "broadcastmem", bytes,
            peer_name(o.mpi_p2p ? "p2p_bcast" : "MPI_Bcast", o.mpi_whole_answer ? "+copy" : nullptr),
            [&] {
                fill_pattern(sym_src, bytes, tag(T_BCAST, me), 0);
                sentinel_fill(sym_dst, bytes);
                sentinel_fill(mpi_dst, bytes);
                if (o.mpi_whole_answer)
                    fill_pattern(mpi_src, bytes, tag(T_BCAST, me), 0);
                else if (me == root)
                    fill_pattern(mpi_dst, bytes, tag(T_BCAST, root), 0);
            },
            [&] { return ishmem_broadcastmem(sym_dst, sym_src, bytes, root); },
            [&] {
                if (o.mpi_whole_answer && me == root) memcpy(mpi_dst, mpi_src, bytes);
                if (o.mpi_p2p) return bench::p2p_peer::broadcast(mpi_dst, count, root, world);
                if (!o.mpi_nb) return (void)MPI_Bcast(mpi_dst, count, MPI_BYTE, root, world);
                MPI_Request r;
                MPI_Ibcast(mpi_dst, count, MPI_BYTE, root, world, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            },
            [&](bool mpi) {
                std::string e = block_check(dst_of(mpi), bytes, tag(T_BCAST, root), 0, "root's data", 0);
                return e.empty() ? guard_check(dst_of(mpi), bytes) : e;
            });

        // ---- alltoallmem vs MPI_Alltoall: block j of PE i's source to block i of PE j's dest --------
        const size_t all = bytes * static_cast<size_t>(npes);
        b.op(
            "alltoallmem", bytes, peer_name("MPI_Alltoall"),
            [&] {
                for (int j = 0; j < npes; ++j) {
                    fill_pattern(sym_src + bytes * j, bytes, tag(T_A2A, me), static_cast<uint64_t>(j));
                    fill_pattern(mpi_src + bytes * j, bytes, tag(T_A2A, me), static_cast<uint64_t>(j));
                }
                sentinel_fill(sym_dst, all);
                sentinel_fill(mpi_dst, all);
            },
            [&] { return ishmem_alltoallmem(sym_dst, sym_src, bytes); },
            [&] {
                if (!o.mpi_nb) return (void)MPI_Alltoall(mpi_src, count, MPI_BYTE, mpi_dst, count, MPI_BYTE, world);
                MPI_Request r;
                MPI_Ialltoall(mpi_src, count, MPI_BYTE, mpi_dst, count, MPI_BYTE, world, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            },
            [&](bool mpi) {
                for (int i = 0; i < npes; ++i) {
                    std::string what = "block from PE " + std::to_string(i);
                    std::string e = block_check(dst_of(mpi) + bytes * i, bytes, tag(T_A2A, i),
                                                static_cast<uint64_t>(me), what.c_str(), bytes * i);
                    if (!e.empty()) return e;
                }
                return guard_check(dst_of(mpi), all);
            });

        // ---- fcollectmem vs MPI_Allgather: every PE's bytes, in PE order, on every PE --------------
        b.op(
            "fcollectmem", bytes, peer_name("MPI_Allgather"),
            [&] {
                fill_pattern(sym_src, bytes, tag(T_FCOLLECT, me), 0);
                fill_pattern(mpi_src, bytes, tag(T_FCOLLECT, me), 0);
                sentinel_fill(sym_dst, all);
                sentinel_fill(mpi_dst, all);
            },
            [&] { return ishmem_fcollectmem(sym_dst, sym_src, bytes); },
            [&] {
                if (!o.mpi_nb) return (void)MPI_Allgather(mpi_src, count, MPI_BYTE, mpi_dst, count, MPI_BYTE, world);
                MPI_Request r;
                MPI_Iallgather(mpi_src, count, MPI_BYTE, mpi_dst, count, MPI_BYTE, world, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            },
            [&](bool mpi) {
                for (int i = 0; i < npes; ++i) {
                    std::string what = "block from PE " + std::to_string(i);
                    std::string e =
                        block_check(dst_of(mpi) + bytes * i, bytes, tag(T_FCOLLECT, i), 0, what.c_str(), bytes * i);
                    if (!e.empty()) return e;
                }
                return guard_check(dst_of(mpi), all);
            });

        // ---- collectmem vs MPI_Allgatherv: as fcollect, but odd PEs contribute 8 bytes more ---------
        std::vector<int> counts(npes), displs(npes);
        size_t total = 0;
        for (int i = 0; i < npes; ++i) {
            counts[i] = count + (i % 2) * 8;
            displs[i] = static_cast<int>(total);
            total += static_cast<size_t>(counts[i]);
        }
        const size_t mine = static_cast<size_t>(counts[me]);
        b.op(
            "collectmem", bytes, peer_name("MPI_Allgatherv"),
            [&] {
                fill_pattern(sym_src, mine, tag(T_COLLECT, me), 0);
                fill_pattern(mpi_src, mine, tag(T_COLLECT, me), 0);
                sentinel_fill(sym_dst, total);
                sentinel_fill(mpi_dst, total);
            },
            [&] { return ishmem_collectmem(sym_dst, sym_src, mine); },
            [&] {
                if (!o.mpi_nb) {
                    MPI_Allgatherv(mpi_src, counts[me], MPI_BYTE, mpi_dst, counts.data(), displs.data(), MPI_BYTE,
                                   world);
                    return;
                }
                MPI_Request r;
                MPI_Iallgatherv(mpi_src, counts[me], MPI_BYTE, mpi_dst, counts.data(), displs.data(), MPI_BYTE, world,
                                &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            },
            [&](bool mpi) {
                for (int i = 0; i < npes; ++i) {
                    std::string what = "block from PE " + std::to_string(i);
                    std::string e = block_check(dst_of(mpi) + displs[i], static_cast<size_t>(counts[i]),
                                                tag(T_COLLECT, i), 0, what.c_str(), static_cast<size_t>(displs[i]));
                    if (!e.empty()) return e;
                }
                return guard_check(dst_of(mpi), total);
            });

        // ---- reductions and scans: nreduce = bytes / 8 elements --------------------------------------
        const size_t nelems = std::max<size_t>(1, bytes / 8);
        const size_t nbytes = nelems * 8;
        const int ncount = static_cast<int>(nelems);
        // Checks element k of an int64 dest against the sum of value_i64 over PEs [lo, hi).
        auto check_i64 = [&](const unsigned char* d, uint64_t t, int lo, int hi) -> std::string {
            const auto* v = reinterpret_cast<const int64_t*>(d);
            for (size_t k = 0; k < nelems; ++k) {
                int64_t want = 0;
                for (int q = lo; q < hi; ++q) want += value_i64(t, q, k);
                if (v[k] != want) {
                    char buf[160];
                    snprintf(buf, sizeof buf, "dest[%zu] is %" PRId64 ", expected %" PRId64, k, v[k], want);
                    return buf;
                }
            }
            return guard_check(d, nbytes);
        };
        auto fill_i64 = [&](uint64_t t) {
            auto* s = reinterpret_cast<int64_t*>(sym_src);
            auto* m = reinterpret_cast<int64_t*>(mpi_src);
            for (size_t k = 0; k < nelems; ++k) s[k] = m[k] = value_i64(t, me, k);
            sentinel_fill(sym_dst, nbytes);
            sentinel_fill(mpi_dst, nbytes);
        };
        auto* s64 = reinterpret_cast<int64_t*>(sym_src);
        auto* d64 = reinterpret_cast<int64_t*>(sym_dst);

        b.op(
            "int64_sum_reduce", nbytes, peer_name("MPI_Allreduce"), [&] { fill_i64(T_RED_I64); },
            [&] { return ishmem_int64_sum_reduce(d64, s64, nelems); },
            [&] { allreduce(mpi_src, mpi_dst, ncount, MPI_INT64_T); },
            [&](bool mpi) { return check_i64(dst_of(mpi), T_RED_I64, 0, npes); });

        b.op(
            "double_sum_reduce", nbytes, peer_name("MPI_Allreduce"),
            [&] {
                auto* s = reinterpret_cast<double*>(sym_src);
                auto* m = reinterpret_cast<double*>(mpi_src);
                for (size_t k = 0; k < nelems; ++k) s[k] = m[k] = value_dbl(T_RED_DBL, me, k);
                sentinel_fill(sym_dst, nbytes);
                sentinel_fill(mpi_dst, nbytes);
            },
            [&] {
                return ishmem_double_sum_reduce(reinterpret_cast<double*>(sym_dst),
                                                reinterpret_cast<const double*>(sym_src), nelems);
            },
            [&] { allreduce(mpi_src, mpi_dst, ncount, MPI_DOUBLE); },
            [&](bool mpi) -> std::string {
                const auto* v = reinterpret_cast<const double*>(dst_of(mpi));
                for (size_t k = 0; k < nelems; ++k) {
                    double want = 0;
                    for (int q = 0; q < npes; ++q) want += value_dbl(T_RED_DBL, q, k);
                    if (v[k] != want) {  // small integers: exact in any order
                        char buf[160];
                        snprintf(buf, sizeof buf, "dest[%zu] is %.17g, expected %.17g", k, v[k], want);
                        return buf;
                    }
                }
                return guard_check(dst_of(mpi), nbytes);
            });

        b.op(
            "int64_sum_inscan", nbytes, peer_name(o.mpi_p2p ? "p2p_scan" : "MPI_Scan"), [&] { fill_i64(T_INSCAN); },
            [&] { return ishmem_int64_sum_inscan(d64, s64, nelems); },
            [&] {
                if (o.mpi_p2p)
                    return bench::p2p_peer::scan(reinterpret_cast<const int64_t*>(mpi_src),
                                                 reinterpret_cast<int64_t*>(mpi_dst), ncount, true, scan_scratch.data(),
                                                 world);
                if (!o.mpi_nb) return (void)MPI_Scan(mpi_src, mpi_dst, ncount, MPI_INT64_T, MPI_SUM, world);
                MPI_Request r;
                MPI_Iscan(mpi_src, mpi_dst, ncount, MPI_INT64_T, MPI_SUM, world, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            },
            [&](bool mpi) { return check_i64(dst_of(mpi), T_INSCAN, 0, me + 1); });

        // MPI_Exscan leaves rank 0's dest undefined; ishmem's exscan gives zeros there.
        b.op(
            "int64_sum_exscan", nbytes,
            peer_name(o.mpi_p2p ? "p2p_exscan" : "MPI_Exscan", o.mpi_whole_answer ? "+zero" : nullptr),
            [&] { fill_i64(T_EXSCAN); }, [&] { return ishmem_int64_sum_exscan(d64, s64, nelems); },
            [&] {
                if (o.mpi_p2p) {
                    bench::p2p_peer::scan(reinterpret_cast<const int64_t*>(mpi_src),
                                          reinterpret_cast<int64_t*>(mpi_dst), ncount, false, scan_scratch.data(),
                                          world);
                } else if (!o.mpi_nb) {
                    MPI_Exscan(mpi_src, mpi_dst, ncount, MPI_INT64_T, MPI_SUM, world);
                } else {
                    MPI_Request r;
                    MPI_Iexscan(mpi_src, mpi_dst, ncount, MPI_INT64_T, MPI_SUM, world, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                }
                if (o.mpi_whole_answer && me == 0) memset(mpi_dst, 0, nbytes);
            },
            [&](bool mpi) {
                if (mpi && me == 0 && !o.mpi_whole_answer) return std::string();
                return check_i64(dst_of(mpi), T_EXSCAN, 0, me);
            });
    }

    const double seconds = std::chrono::duration<double>(clock_type::now() - t_start).count();
    if (me == 0) summarize(b, o, load_before, seconds);
    const bool all_right = b.wrong_.empty();
    int status = all_right ? 0 : 1;
    if (const std::vector<std::string> unknown = o.unknown_ops(); !unknown.empty()) {
        if (me == 0)
            fprintf(stderr, "bench_coll: --ops names no op of bench_coll: %s (its ops: %s)\n", joined(unknown).c_str(),
                    joined(o.asked).c_str());
        status = 2;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, world);

    set_doing("the final barrier");
    progress();
    MPI_Barrier(world);
    bench::stop_watchdog();

    ishmem_free(bar);
    ishmem_free(sym_dst);
    ishmem_free(sym_src);
    if (o.mpi_on_heap) {
        ishmem_free(mpi_dst);
        ishmem_free(mpi_src);
    } else {
        free(mpi_src);
        free(mpi_dst);
    }
    ishmem_finalize();
    MPI_Finalize();
    return status;
}
