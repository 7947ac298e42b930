// Collectives, the semantics the generated per-entry-point cases do not reach: every collective on
// teams with stride 2 and 3, odd sizes and a single PE; broadcast from every root with the buffers of
// PEs outside the team checked untouched; collect with a different nelems on each PE, 0 included;
// fcollect and alltoall with nelems 0; reductions in place (source == dest) for every C type of the
// reduction table, integers exactly and floats within a tolerance; inclusive and exclusive scans;
// collectives on different teams back to back without a barrier between them; barrier_all completing
// puts, nbi puts and AMOs of every PE; team_sync publishing stores; _work_group from groups of 1, 7
// and 64 threads; _on_queue with ret and deps; and bad input (invalid, destroyed and unknown teams,
// PE_root outside the team, partially overlapping buffers: a message and a nonzero return; buffers
// outside the symmetric heap: a fatal error).
//
// Every helper below is collective over the world: all PEs call it with the same team, and PEs outside
// the team only check that their buffers stay untouched. The expected values are computed from the
// team's world PE numbers, so a team that was split wrong fails here too.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness/harness.h"
#include "patterns/common.h"

namespace {

using ishmem_testing::patterns::allgather;
using ishmem_testing::patterns::expect_elements;
using ishmem_testing::patterns::expect_untouched;
using ishmem_testing::patterns::load_acquire;
using ishmem_testing::patterns::make_value;
using ishmem_testing::patterns::sentinel;
using ishmem_testing::patterns::show;
using ishmem_testing::patterns::sym_array;
using ishmem_testing::patterns::world;

constexpr std::size_t group_sizes[] = {1, 7, 64};
constexpr std::size_t tail = 3;  // elements past the result that must stay untouched

// True on every PE when ok is true on every PE (RMA and barrier_all only, no collective under test).
bool all_agree(bool ok) {
    const std::vector<int> all = allgather(std::vector<int>{ok ? 1 : 0});
    return std::all_of(all.begin(), all.end(), [](int v) { return v == 1; });
}

int index_of(const std::vector<int>& pes, int pe) {
    auto it = std::find(pes.begin(), pes.end(), pe);
    return it == pes.end() ? -1 : static_cast<int>(it - pes.begin());
}

template <class F> std::string stderr_of(F&& stmt) {
    testing::internal::CaptureStderr();
    stmt();
    return testing::internal::GetCapturedStderr();
}

// err holds exactly one line "ishmem: PE <me>: <routine>: <reason>" whose reason matches reason_re
// (case-insensitive ECMAScript regex). The runtime marks a non-fatal message "warning: " before the
// routine (its warn() path); that marker is accepted.
void expect_message(const std::string& err, const std::string& routine, const std::string& reason_re) {
    const std::string pe = "ishmem: PE " + std::to_string(ishmem_my_pe()) + ": ";
    std::string head = pe + routine + ": ";
    std::size_t at = err.find(head);
    if (at == std::string::npos) {
        head = pe + "warning: " + routine + ": ";
        at = err.find(head);
    }
    if (at == std::string::npos) {
        ADD_FAILURE() << "expected a line starting with \"" << pe << "[warning: ]" << routine << ": \"; stderr was: \""
                      << err << "\"";
        return;
    }
    const std::size_t end = err.find('\n', at);
    const std::string reason =
        err.substr(at + head.size(), end == std::string::npos ? std::string::npos : end - at - head.size());
    EXPECT_TRUE(std::regex_search(reason, std::regex(reason_re, std::regex::icase)))
        << "the reason \"" << reason << "\" does not mention /" << reason_re << "/";
    std::size_t lines = 0;
    for (std::size_t p = err.find("ishmem: "); p != std::string::npos; p = err.find("ishmem: ", p + 1)) ++lines;
    EXPECT_EQ(lines, 1u) << "one bad call, one line; stderr was: \"" << err << "\"";
}

// ---------------------------------------------------------------------------------------------
// Teams the tests run over

struct team_info {
    std::string name;
    ishmem_team_t team = ISHMEM_TEAM_INVALID;  // this PE's handle (ISHMEM_TEAM_INVALID outside)
    std::vector<int> pes;                      // world PE numbers in team order
    int me = -1;                               // this PE's number in the team, -1 outside
    bool member() const { return me >= 0; }
    int size() const { return static_cast<int>(pes.size()); }
};

team_info make_info(const std::string& name, ishmem_team_t team, int start, int stride, int size) {
    team_info t;
    t.name = name;
    t.team = team;
    for (int k = 0; k < size; ++k) t.pes.push_back(start + k * stride);
    t.me = index_of(t.pes, ishmem_my_pe());
    return t;
}

// A strided split of the world, destroyed at the end of the scope.
class split_team {
  public:
    split_team(const std::string& name, int start, int stride, int size) {
        const int rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &handle_);
        info_ = make_info(name, handle_, start, stride, size);
        ok_ = all_agree(rc == 0 &&
                        (info_.member() ? ishmem_team_my_pe(handle_) == info_.me && ishmem_team_n_pes(handle_) == size
                                        : handle_ == ISHMEM_TEAM_INVALID));
        if (!ok_)
            ADD_FAILURE() << "split_strided(world, " << start << ", " << stride << ", " << size << ") for " << name
                          << " went wrong";
    }
    ~split_team() {
        if (handle_ != ISHMEM_TEAM_INVALID) ishmem_team_destroy(handle_);
    }
    split_team(const split_team&) = delete;
    split_team& operator=(const split_team&) = delete;
    const team_info& info() const { return info_; }
    bool ok() const { return ok_; }

  private:
    ishmem_team_t handle_ = ISHMEM_TEAM_INVALID;
    team_info info_;
    bool ok_ = false;
};

// The world, and for larger jobs: every other PE from 0 and from 1, every third PE, the last PE alone,
// and the last n - 1 PEs (3 PEs with 4: an odd size that starts at 1).
class team_set {
  public:
    team_set() {
        const world w;
        infos_.push_back(make_info("world", ISHMEM_TEAM_WORLD, 0, 1, w.n));
        add("evens (stride 2)", 0, 2, (w.n + 1) / 2);
        if (w.n >= 2) add("odds (stride 2 from PE 1)", 1, 2, w.n / 2);
        if (w.n >= 4) add("stride 3", 0, 3, (w.n + 2) / 3);
        if (w.n >= 2) add("the last PE alone", w.n - 1, 1, 1);
        if (w.n >= 3) add("PEs 1..n-1", 1, 1, w.n - 1);
    }
    const std::vector<team_info>& all() const { return infos_; }
    bool ok() const { return ok_; }

  private:
    void add(const std::string& name, int start, int stride, int size) {
        splits_.push_back(std::make_unique<split_team>(name, start, stride, size));
        ok_ = ok_ && splits_.back()->ok();
        infos_.push_back(splits_.back()->info());
    }
    std::vector<std::unique_ptr<split_team>> splits_;
    std::vector<team_info> infos_;
    bool ok_ = true;
};

// ---------------------------------------------------------------------------------------------
// Checks, each collective over the world

// broadcast: call(team, dest, source, nelems, root) -> int on the members; dest on every member holds
// the root's source, nothing past nelems is written, and non-members' dest is untouched.
template <class T, class Call>
void check_broadcast(const team_info& t, int root, std::size_t nelems, const std::string& form, Call call) {
    SCOPED_TRACE(form + " on " + t.name + ", root " + std::to_string(root) + ", nelems " + std::to_string(nelems));
    const world w;
    sym_array<T> src(nelems + tail), dest(nelems + tail);
    if (!src || !dest) {
        ADD_FAILURE() << "ishmem_calloc failed";
        return;
    }
    for (std::size_t i = 0; i < nelems + tail; ++i) src[i] = make_value<T>(w.me, i);
    dest.fill(sentinel<T>());
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(call(t.team, dest.get(), src.get(), nelems, root), 0);
        const int root_pe = t.pes[root];
        expect_elements(
            dest.get(), nelems, [&](std::size_t i) { return make_value<T>(root_pe, i); },
            "dest on team PE " + std::to_string(t.me) + " (root is world PE " + std::to_string(root_pe) + ")");
        expect_untouched(dest.get() + nelems, tail, "dest past nelems");
    }
    ishmem_barrier_all();
    if (!t.member())
        expect_untouched(dest.get(), nelems + tail, "dest of world PE " + std::to_string(w.me) + ", outside the team");
}

// collect / fcollect: team PE k contributes count(k) elements; dest is their concatenation in team
// order. call(team, dest, source, my_count) -> int.
template <class T, class Call> void check_collect(const team_info& t, const std::function<std::size_t(int)>& count,
                                                  const std::string& form, Call call) {
    std::string counts;
    std::size_t total = 0, max_count = 0;
    for (int k = 0; k < t.size(); ++k) {
        counts += (k ? "," : "") + std::to_string(count(k));
        total += count(k);
        max_count = std::max(max_count, count(k));
    }
    SCOPED_TRACE(form + " on " + t.name + ", nelems per team PE {" + counts + "}");
    const world w;
    sym_array<T> src(max_count + tail), dest(total + tail);
    if (!src || !dest) {
        ADD_FAILURE() << "ishmem_calloc failed";
        return;
    }
    for (std::size_t i = 0; i < max_count + tail; ++i) src[i] = make_value<T>(w.me, i);
    dest.fill(sentinel<T>());
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(call(t.team, dest.get(), src.get(), count(t.me)), 0);
        std::size_t offset = 0;
        for (int k = 0; k < t.size(); ++k) {
            const int pe = t.pes[k];
            expect_elements(
                dest.get() + offset, count(k), [&](std::size_t i) { return make_value<T>(pe, i); },
                "the block of team PE " + std::to_string(k) + " at dest[" + std::to_string(offset) + "]");
            offset += count(k);
        }
        expect_untouched(dest.get() + total, tail, "dest past the " + std::to_string(total) + " collected elements");
    }
    ishmem_barrier_all();
    if (!t.member()) expect_untouched(dest.get(), total + tail, "dest of a PE outside the team");
}

// alltoall: team PE i sends block j of its source to block i of team PE j's dest.
template <class T, class Call>
void check_alltoall(const team_info& t, std::size_t nelems, const std::string& form, Call call) {
    SCOPED_TRACE(form + " on " + t.name + ", nelems " + std::to_string(nelems));
    const world w;
    const std::size_t all = nelems * t.size();
    sym_array<T> src(all + tail), dest(all + tail);
    if (!src || !dest) {
        ADD_FAILURE() << "ishmem_calloc failed";
        return;
    }
    for (std::size_t i = 0; i < all + tail; ++i) src[i] = make_value<T>(w.me, i);
    dest.fill(sentinel<T>());
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(call(t.team, dest.get(), src.get(), nelems), 0);
        for (int j = 0; j < t.size(); ++j) {
            const int pe = t.pes[j];
            const std::size_t mine = static_cast<std::size_t>(t.me) * nelems;
            expect_elements(
                dest.get() + j * nelems, nelems, [&](std::size_t e) { return make_value<T>(pe, mine + e); },
                "block from team PE " + std::to_string(j));
        }
        expect_untouched(dest.get() + all, tail, "dest past the blocks");
    }
    ishmem_barrier_all();
    if (!t.member()) expect_untouched(dest.get(), all + tail, "dest of a PE outside the team");
}

// ---------------------------------------------------------------------------------------------
// Reductions

enum class op { and_, or_, xor_, max_, min_, sum, prod };
const char* op_name(op o) {
    switch (o) {
        case op::and_:
            return "and";
        case op::or_:
            return "or";
        case op::xor_:
            return "xor";
        case op::max_:
            return "max";
        case op::min_:
            return "min";
        case op::sum:
            return "sum";
        case op::prod:
            return "prod";
    }
    return "?";
}

// Element i of PE pe's contribution to op: exact in T, and results that fit T for up to 4 PEs.
template <class T> T red_value(op o, int pe, std::size_t i) {
    const auto p = static_cast<std::uint64_t>(pe);
    if constexpr (std::is_floating_point_v<T>) {
        switch (o) {
            case op::sum:
                return static_cast<T>(0.1 * (pe + 1) + 0.01 * static_cast<double>(i % 97) - (i % 3 == 1 ? 1.0 : 0.0));
            case op::prod:
                return static_cast<T>(1.0 + 0.1 * static_cast<double>((p + i) % 5) * (i % 2 ? -1 : 1));
            default:
                return make_value<T>(pe, i);  // max, min: exact
        }
    } else {
        switch (o) {
            case op::and_:
            case op::or_:
            case op::xor_: {
                // 7-bit patterns in the low and the high byte (non-negative in signed types).
                const std::uint64_t lo = ((p + 1) * 0x25 + i * 0x13) & 0x7F;
                const std::uint64_t hi = ((p + 3) * 0x1B ^ i * 0x0D) & 0x7F;
                return static_cast<T>(lo | (hi << (8 * (sizeof(T) - 1))));
            }
            case op::sum: {
                const auto v = static_cast<std::int64_t>((p * 3 + i) % 7 + 1);
                return static_cast<T>(std::is_signed_v<T> && i % 3 == 1 ? -v : v);
            }
            case op::prod: {
                const auto v = static_cast<std::int64_t>(1 + (p + i) % 3);
                return static_cast<T>(std::is_signed_v<T> && (p + i) % 4 == 0 ? -v : v);
            }
            default:
                return make_value<T>(pe, i);
        }
    }
}

template <class T> T combine(op o, T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        switch (o) {
            case op::and_:
                return static_cast<T>(a & b);
            case op::or_:
                return static_cast<T>(a | b);
            case op::xor_:
                return static_cast<T>(a ^ b);
            default:
                break;
        }
    }
    switch (o) {
        case op::max_:
            return a < b ? b : a;
        case op::min_:
            return b < a ? b : a;
        case op::sum:
            return static_cast<T>(a + b);
        case op::prod:
            return static_cast<T>(a * b);
        default:
            return a;
    }
}

// The C++ template forms; world_form: the overload without a team (team must be the world).
template <class T> int reduce_tpl(op o, bool world_form, ishmem_team_t team, T* dest, const T* src, std::size_t n) {
    if constexpr (std::is_integral_v<T>) {
        switch (o) {
            case op::and_:
                return world_form ? ishmem_and_reduce(dest, src, n) : ishmem_and_reduce(team, dest, src, n);
            case op::or_:
                return world_form ? ishmem_or_reduce(dest, src, n) : ishmem_or_reduce(team, dest, src, n);
            case op::xor_:
                return world_form ? ishmem_xor_reduce(dest, src, n) : ishmem_xor_reduce(team, dest, src, n);
            default:
                break;
        }
    }
    switch (o) {
        case op::max_:
            return world_form ? ishmem_max_reduce(dest, src, n) : ishmem_max_reduce(team, dest, src, n);
        case op::min_:
            return world_form ? ishmem_min_reduce(dest, src, n) : ishmem_min_reduce(team, dest, src, n);
        case op::sum:
            return world_form ? ishmem_sum_reduce(dest, src, n) : ishmem_sum_reduce(team, dest, src, n);
        case op::prod:
            return world_form ? ishmem_prod_reduce(dest, src, n) : ishmem_prod_reduce(team, dest, src, n);
        default:
            ADD_FAILURE() << "no " << op_name(o) << " for this type";
            return -1;
    }
}

// Compares got with the reduction of the team's contributions: integers and max/min exactly, float
// sums and products within a relative tolerance (the library may add in another order).
template <class T> void expect_reduced(const team_info& t, op o, const T* got, std::size_t n, const std::string& what) {
    std::size_t bad = 0, first = 0;
    T first_expected{};
    for (std::size_t i = 0; i < n; ++i) {
        bool same;
        T expected;
        if constexpr (std::is_floating_point_v<T>) {
            if (o == op::sum || o == op::prod) {
                double e = red_value<T>(o, t.pes[0], i);
                for (int k = 1; k < t.size(); ++k)
                    e = o == op::sum ? e + red_value<T>(o, t.pes[k], i) : e * red_value<T>(o, t.pes[k], i);
                const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-12) * std::max(1.0, std::fabs(e));
                expected = static_cast<T>(e);
                same = std::fabs(static_cast<double>(got[i]) - e) <= tol;
            } else {
                expected = red_value<T>(o, t.pes[0], i);
                for (int k = 1; k < t.size(); ++k) expected = combine(o, expected, red_value<T>(o, t.pes[k], i));
                same = got[i] == expected;
            }
        } else {
            expected = red_value<T>(o, t.pes[0], i);
            for (int k = 1; k < t.size(); ++k) expected = combine(o, expected, red_value<T>(o, t.pes[k], i));
            same = got[i] == expected;
        }
        if (!same && bad++ == 0) {
            first = i;
            first_expected = expected;
        }
    }
    if (bad)
        ADD_FAILURE() << what << ": " << bad << " of " << n << " results wrong; first at [" << first << "]: got "
                      << show(got[first]) << ", expected " << show(first_expected);
}

// In place (source == dest) through call(team, buf, buf, n) on the members. Non-members' buffer
// stays untouched. Every member refills its buffer right after the previous reduction returned
// (source may be reused then); a barrier_all before each call keeps dest ready on every PE.
template <class T, class Call>
void check_reduce_in_place(const team_info& t, op o, std::size_t n, T* buf, const std::string& form, Call call) {
    SCOPED_TRACE(form + " (" + op_name(o) + ") in place on " + t.name + ", nreduce " + std::to_string(n));
    if (t.member()) {
        for (std::size_t i = 0; i < n; ++i) buf[i] = red_value<T>(o, ishmem_my_pe(), i);
        std::fill(buf + n, buf + n + tail, sentinel<T>());
    }
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(call(t.team, buf, static_cast<const T*>(buf), n), 0);
        expect_reduced(t, o, buf, n, "dest on team PE " + std::to_string(t.me));
        expect_untouched(buf + n, tail, "past nreduce");
    }
}

// A symmetric byte buffer that non-members keep at the sentinel (0x7F in every byte) for the whole test.
struct reduce_buffer {
    sym_array<std::uint64_t> raw{8192 + 64};
    explicit reduce_buffer(const team_info& t) : team(t) {
        std::memset(static_cast<void*>(raw.get()), 0x7F, (8192 + 64) * 8);
    }
    template <class T> T* as() const { return reinterpret_cast<T*>(raw.get()); }
    ~reduce_buffer() {
        ishmem_barrier_all();
        if (!team.member())
            expect_untouched(
                raw.get(), 8192 + 64,
                "reduction buffer of world PE " + std::to_string(ishmem_my_pe()) + ", outside " + team.name);
    }
    const team_info& team;
};

template <class T> void reduce_all_ops(const team_info& t, const reduce_buffer& b, std::size_t n, bool bitwise) {
    std::vector<op> ops = {op::max_, op::min_, op::sum, op::prod};
    if (bitwise) ops.insert(ops.begin(), {op::and_, op::or_, op::xor_});
    for (op o : ops) {
        // On the world, alternate the world form and the team overload.
        const bool world_form = t.team == ISHMEM_TEAM_WORLD && (o == op::sum || o == op::and_ || o == op::min_);
        check_reduce_in_place<T>(t, o, n, b.as<T>(),
                                 world_form ? "ishmem_<op>_reduce (world form)" : "ishmem_<op>_reduce(team)",
                                 [&](ishmem_team_t team, T* d, const T* s, std::size_t m) {
                                     return reduce_tpl<T>(o, world_form, team, d, s, m);
                                 });
    }
}

// ---------------------------------------------------------------------------------------------
// Scans

template <class T> T scan_value(int pe, std::size_t i) {
    if constexpr (std::is_floating_point_v<T>)
        return make_value<T>(pe, i);
    else
        return red_value<T>(op::sum, pe, i);
}

// inscan: team PE k gets the sum of team PEs 0..k; exscan: of 0..k-1 (team PE 0: zeros).
template <class T, class Call>
void check_scan(const team_info& t, bool inclusive, std::size_t n, const std::string& form, Call call) {
    SCOPED_TRACE(form + " on " + t.name + ", nelems " + std::to_string(n));
    const world w;
    sym_array<T> src(n + tail), dest(n + tail);
    if (!src || !dest) {
        ADD_FAILURE() << "ishmem_calloc failed";
        return;
    }
    for (std::size_t i = 0; i < n + tail; ++i) src[i] = scan_value<T>(w.me, i);
    dest.fill(sentinel<T>());
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(call(t.team, dest.get(), src.get(), n), 0);
        const int upto = inclusive ? t.me : t.me - 1;
        expect_elements(
            dest.get(), n,
            [&](std::size_t i) {
                T s = T(0);
                for (int k = 0; k <= upto; ++k) s = static_cast<T>(s + scan_value<T>(t.pes[k], i));
                return s;
            },
            std::string(inclusive ? "inscan" : "exscan") + " on team PE " + std::to_string(t.me));
        expect_untouched(dest.get() + n, tail, "dest past nelems");
    }
    ishmem_barrier_all();
    if (!t.member()) expect_untouched(dest.get(), n + tail, "dest of a PE outside the team");
}

// ---------------------------------------------------------------------------------------------

// Every root of every team, the last PE of the strided teams included; typed, template and mem forms;
// the world form on the world; nelems 0 writes nothing.
TEST(Coll, BroadcastFromEveryRoot) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    for (const team_info& t : ts.all()) {
        for (int root = 0; root < t.size(); ++root) {
            // 12 ints fill an inbox's first line (48 bytes, beside its sequence word); 13 do not.
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{12}, std::size_t{13}, std::size_t{37},
                                  std::size_t{3000}}) {
                check_broadcast<int>(t, root, n, "ishmem_int_broadcast(team)",
                                     [](ishmem_team_t team, int* d, const int* s, std::size_t m, int r) {
                                         return ishmem_int_broadcast(team, d, s, m, r);
                                     });
                if (n == 37) {
                    check_broadcast<double>(t, root, n, "ishmem_broadcast<double>(team)",
                                            [](ishmem_team_t team, double* d, const double* s, std::size_t m, int r) {
                                                return ishmem_broadcast(team, d, s, m, r);
                                            });
                    check_broadcast<unsigned char>(
                        t, root, n, "ishmem_broadcastmem(team)",
                        [](ishmem_team_t team, unsigned char* d, const unsigned char* s, std::size_t m, int r) {
                            return ishmem_broadcastmem(team, d, s, m, r);
                        });
                    check_broadcast<int16_t>(t, root, n, "ishmem_int16_broadcast(team)",
                                             [](ishmem_team_t team, int16_t* d, const int16_t* s, std::size_t m,
                                                int r) { return ishmem_int16_broadcast(team, d, s, m, r); });
                }
                if (t.team == ISHMEM_TEAM_WORLD && n != 0)
                    check_broadcast<long>(t, root, n, "ishmem_long_broadcast (world form)",
                                          [](ishmem_team_t, long* d, const long* s, std::size_t m, int r) {
                                              return ishmem_long_broadcast(d, s, m, r);
                                          });
            }
        }
    }
}

// collect with a different nelems on each PE, 0 included (some PEs, all PEs, all but the last).
TEST(Coll, CollectDifferentNelemsIncludingZero) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    const std::vector<std::pair<std::string, std::function<std::size_t(int)>>> patterns = {
        {"k % 3", [](int k) { return static_cast<std::size_t>(k % 3); }},
        {"5 on even k, 0 on odd", [](int k) { return std::size_t(k % 2 == 0 ? 5 : 0); }},
        {"0 everywhere", [](int) { return std::size_t{0}; }},
        {"k + 1", [](int k) { return static_cast<std::size_t>(k + 1); }},
        // Around an inbox (512 bytes: 64 longs): blocks that travel in the message and blocks that
        // stay in the sender's source, in one call.
        {"64, 65, 0, 1000 by k % 4",
         [](int k) {
             return std::size_t{k % 4 == 0 ? 64u : k % 4 == 1 ? 65u : k % 4 == 2 ? 0u : 1000u};
         }},
        {"65 on even k, 64 on odd", [](int k) { return std::size_t(k % 2 == 0 ? 65 : 64); }},
    };
    for (const team_info& t : ts.all()) {
        for (const auto& [name, count] : patterns) {
            SCOPED_TRACE("nelems pattern " + name);
            check_collect<long>(t, count, "ishmem_long_collect(team)",
                                [](ishmem_team_t team, long* d, const long* s, std::size_t m) {
                                    return ishmem_long_collect(team, d, s, m);
                                });
        }
        // Only the last team PE contributes.
        const int last = t.size() - 1;
        const auto only_last = [last](int k) { return std::size_t(k == last ? 4 : 0); };
        check_collect<short>(
            t, only_last, "ishmem_collect<short>(team)",
            [](ishmem_team_t team, short* d, const short* s, std::size_t m) { return ishmem_collect(team, d, s, m); });
        check_collect<unsigned char>(
            t, [](int k) { return static_cast<std::size_t>(3 * k % 5); }, "ishmem_collectmem(team)",
            [](ishmem_team_t team, unsigned char* d, const unsigned char* s, std::size_t m) {
                return ishmem_collectmem(team, d, s, m);
            });
        if (t.team == ISHMEM_TEAM_WORLD)
            check_collect<float>(
                t, [](int k) { return static_cast<std::size_t>((k + 2) % 3); }, "ishmem_float_collect (world form)",
                [](ishmem_team_t, float* d, const float* s, std::size_t m) { return ishmem_float_collect(d, s, m); });
    }
}

// collect calls back to back with no barrier between them, more calls than a sender may run ahead
// of a reader (8), each PE's count changing every call between 0, 1, 6 longs (what an inbox's first
// line holds), 7, 64 (an inbox), 65 and 300: every result is checked, and each PE rewrites its
// source right after each call, so a block that its readers still copied from the source after the
// call returned would show.
TEST(Coll, CollectBackToBackAcrossTheInboxSize) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    const world w;
    constexpr std::size_t counts[] = {0, 1, 6, 7, 64, 65, 300};
    constexpr int rounds = 14;
    for (const team_info& t : ts.all()) {
        SCOPED_TRACE(t.name);
        auto count = [&](int r, int k) { return counts[static_cast<std::size_t>(r + 2 * k) % 7]; };
        auto value = [&](int r, int pe, std::size_t i) { return make_value<long>((pe + 4 * r) % 64, i); };
        std::size_t most = 0;
        for (int r = 0; r < rounds; ++r) {
            std::size_t total = 0;
            for (int k = 0; k < t.size(); ++k) total += count(r, k);
            most = std::max(most, total);
        }
        sym_array<long> src(300), dest(most + tail);
        ASSERT_TRUE(src && dest);
        dest.fill(sentinel<long>());
        for (std::size_t i = 0; i < 300; ++i) src[i] = value(0, w.me, i);
        ishmem_barrier_all();
        if (t.member()) {
            for (int r = 0; r < rounds; ++r) {
                EXPECT_EQ(ishmem_long_collect(t.team, dest.get(), src.get(), count(r, t.me)), 0) << "round " << r;
                for (std::size_t i = 0; i < 300; ++i) src[i] = value(r + 1, w.me, i);  // at once: the next round's
                std::size_t offset = 0;
                for (int k = 0; k < t.size(); ++k) {
                    expect_elements(
                        dest.get() + offset, count(r, k), [&](std::size_t i) { return value(r, t.pes[k], i); },
                        "round " + std::to_string(r) + ", the block of team PE " + std::to_string(k));
                    offset += count(r, k);
                }
            }
        }
        ishmem_barrier_all();
        if (!t.member()) expect_untouched(dest.get(), most + tail, "dest of a PE outside the team");
    }
}

// fcollect with nelems 0 (writes nothing) and with some elements; alltoall with 0 and some.
TEST(Coll, FcollectAndAlltoallIncludingZero) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    for (const team_info& t : ts.all()) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{6}, std::size_t{1000}}) {
            check_collect<int>(
                t, [n](int) { return n; }, "ishmem_int_fcollect(team)",
                [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                    return ishmem_int_fcollect(team, d, s, m);
                });
            check_alltoall<int>(t, n, "ishmem_int_alltoall(team)",
                                [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                    return ishmem_int_alltoall(team, d, s, m);
                                });
        }
        check_collect<double>(
            t, [](int) { return std::size_t{3}; }, "ishmem_fcollect<double>(team)",
            [](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                return ishmem_fcollect(team, d, s, m);
            });
        check_collect<unsigned char>(
            t, [](int) { return std::size_t{0}; }, "ishmem_fcollectmem(team), 0 bytes",
            [](ishmem_team_t team, unsigned char* d, const unsigned char* s, std::size_t m) {
                return ishmem_fcollectmem(team, d, s, m);
            });
        check_alltoall<unsigned char>(t, 5, "ishmem_alltoallmem(team)",
                                      [](ishmem_team_t team, unsigned char* d, const unsigned char* s, std::size_t m) {
                                          return ishmem_alltoallmem(team, d, s, m);
                                      });
        if (t.team == ISHMEM_TEAM_WORLD) {
            check_collect<uint64_t>(
                t, [](int) { return std::size_t{0}; }, "ishmem_uint64_fcollect (world form), nelems 0",
                [](ishmem_team_t, uint64_t* d, const uint64_t* s, std::size_t m) {
                    return ishmem_uint64_fcollect(d, s, m);
                });
            check_alltoall<uint64_t>(t, 0, "ishmem_uint64_alltoall (world form), nelems 0",
                                     [](ishmem_team_t, uint64_t* d, const uint64_t* s, std::size_t m) {
                                         return ishmem_uint64_alltoall(d, s, m);
                                     });
        }
    }
}

// Every op on every distinct C type of the reduction table, in place, on every team.
TEST(Coll, ReductionsInPlaceEveryType) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    for (const team_info& t : ts.all()) {
        reduce_buffer b(t);
        constexpr std::size_t n = 9;
        reduce_all_ops<signed char>(t, b, n, true);         // int8, schar
        reduce_all_ops<unsigned char>(t, b, n, true);       // uchar, uint8
        reduce_all_ops<short>(t, b, n, true);               // short, int16
        reduce_all_ops<unsigned short>(t, b, n, true);      // ushort, uint16
        reduce_all_ops<int>(t, b, n, true);                 // int, int32
        reduce_all_ops<unsigned int>(t, b, n, true);        // uint, uint32
        reduce_all_ops<long>(t, b, n, true);                // long, int64, ptrdiff
        reduce_all_ops<unsigned long>(t, b, n, true);       // ulong, uint64, size
        reduce_all_ops<unsigned long long>(t, b, n, true);  // ulonglong
        reduce_all_ops<long long>(t, b, n, false);          // longlong: no bitwise ops
        reduce_all_ops<char>(t, b, n, false);               // char: no bitwise ops
        reduce_all_ops<float>(t, b, n, false);
        reduce_all_ops<double>(t, b, n, false);
    }
}

// Typed names in place, large nreduce, and source == dest through the world form.
TEST(Coll, ReductionsInPlaceTypedNamesAndLargeCounts) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    for (const team_info& t : ts.all()) {
        reduce_buffer b(t);
        check_reduce_in_place<int8_t>(t, op::xor_, 11, b.as<int8_t>(), "ishmem_int8_xor_reduce",
                                      [](ishmem_team_t team, int8_t* d, const int8_t* s, std::size_t m) {
                                          return ishmem_int8_xor_reduce(team, d, s, m);
                                      });
        check_reduce_in_place<uint64_t>(t, op::and_, 11, b.as<uint64_t>(), "ishmem_uint64_and_reduce",
                                        [](ishmem_team_t team, uint64_t* d, const uint64_t* s, std::size_t m) {
                                            return ishmem_uint64_and_reduce(team, d, s, m);
                                        });
        check_reduce_in_place<size_t>(t, op::or_, 11, b.as<size_t>(), "ishmem_size_or_reduce",
                                      [](ishmem_team_t team, size_t* d, const size_t* s, std::size_t m) {
                                          return ishmem_size_or_reduce(team, d, s, m);
                                      });
        check_reduce_in_place<ptrdiff_t>(t, op::max_, 11, b.as<ptrdiff_t>(), "ishmem_ptrdiff_max_reduce",
                                         [](ishmem_team_t team, ptrdiff_t* d, const ptrdiff_t* s, std::size_t m) {
                                             return ishmem_ptrdiff_max_reduce(team, d, s, m);
                                         });
        check_reduce_in_place<signed char>(t, op::min_, 11, b.as<signed char>(), "ishmem_schar_min_reduce",
                                           [](ishmem_team_t team, signed char* d, const signed char* s, std::size_t m) {
                                               return ishmem_schar_min_reduce(team, d, s, m);
                                           });
        check_reduce_in_place<long long>(t, op::prod, 11, b.as<long long>(), "ishmem_longlong_prod_reduce",
                                         [](ishmem_team_t team, long long* d, const long long* s, std::size_t m) {
                                             return ishmem_longlong_prod_reduce(team, d, s, m);
                                         });
        check_reduce_in_place<float>(t, op::sum, 11, b.as<float>(), "ishmem_float_sum_reduce",
                                     [](ishmem_team_t team, float* d, const float* s, std::size_t m) {
                                         return ishmem_float_sum_reduce(team, d, s, m);
                                     });
        check_reduce_in_place<double>(t, op::prod, 11, b.as<double>(), "ishmem_double_prod_reduce",
                                      [](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                                          return ishmem_double_prod_reduce(team, d, s, m);
                                      });
        check_reduce_in_place<int>(t, op::sum, 16000, b.as<int>(), "ishmem_int_sum_reduce, 16000 elements",
                                   [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                       return ishmem_int_sum_reduce(team, d, s, m);
                                   });
        check_reduce_in_place<double>(t, op::sum, 8000, b.as<double>(), "ishmem_double_sum_reduce, 8000 elements",
                                      [](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                                          return ishmem_double_sum_reduce(team, d, s, m);
                                      });
        check_reduce_in_place<float>(t, op::max_, 5000, b.as<float>(), "ishmem_float_max_reduce, 5000 elements",
                                     [](ishmem_team_t team, float* d, const float* s, std::size_t m) {
                                         return ishmem_float_max_reduce(team, d, s, m);
                                     });
        check_reduce_in_place<int>(t, op::sum, 0, b.as<int>(), "ishmem_int_sum_reduce, nreduce 0",
                                   [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                       return ishmem_int_sum_reduce(team, d, s, m);
                                   });
        if (t.team == ISHMEM_TEAM_WORLD)
            check_reduce_in_place<double>(t, op::min_, 11, b.as<double>(), "ishmem_double_min_reduce (world form)",
                                          [](ishmem_team_t, double* d, const double* s, std::size_t m) {
                                              return ishmem_double_min_reduce(d, s, m);
                                          });
    }
}

// A reduction into a buffer that starts right where the source ends is not an overlap.
TEST(Coll, ReductionIntoTheAdjacentBuffer) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    const team_info& t = ts.all().back();
    sym_array<int> buf(16 + tail);
    ASSERT_TRUE(buf);
    buf.fill(sentinel<int>());
    for (std::size_t i = 0; i < 8; ++i) buf[i] = red_value<int>(op::sum, ishmem_my_pe(), i);
    ishmem_barrier_all();
    if (t.member()) {
        EXPECT_EQ(ishmem_int_sum_reduce(t.team, buf.get() + 8, buf.get(), 8), 0);
        expect_reduced(t, op::sum, buf.get() + 8, 8, "dest adjacent to source on " + t.name);
        expect_elements(
            buf.get(), 8, [](std::size_t i) { return red_value<int>(op::sum, ishmem_my_pe(), i); },
            "source (must be unchanged)");
        expect_untouched(buf.get() + 16, tail, "past dest");
    }
}

// An fcollect whose source lies right before or right after dest (touching, not overlapping) is
// no overlap: the check must let both through, and the results be right.
TEST(Coll, FcollectFromBesideItsDest) {
    const world w;
    const std::size_t k = 5, n = static_cast<std::size_t>(w.n), all = k * n;
    sym_array<int> buf(k + all + k);
    ASSERT_TRUE(buf);
    int* before = buf.get();
    int* dest = buf.get() + k;
    int* after = dest + all;
    for (std::size_t i = 0; i < k; ++i) {
        before[i] = w.me * 100 + static_cast<int>(i);
        after[i] = w.me * 1000 + static_cast<int>(i);
    }
    ishmem_barrier_all();
    EXPECT_EQ(ishmem_int_fcollect(dest, before, k), 0);
    expect_elements(
        dest, all, [&](std::size_t j) { return static_cast<int>(j / k) * 100 + static_cast<int>(j % k); },
        "dest of the fcollect from just before it");
    ishmem_barrier_all();
    EXPECT_EQ(ishmem_fcollectmem(ISHMEM_TEAM_WORLD, dest, after, k * sizeof(int)), 0);
    expect_elements(
        dest, all, [&](std::size_t j) { return static_cast<int>(j / k) * 1000 + static_cast<int>(j % k); },
        "dest of the fcollect from just after it");
    for (std::size_t i = 0; i < k; ++i) {
        EXPECT_EQ(before[i], w.me * 100 + static_cast<int>(i)) << "source before dest, element " << i;
        EXPECT_EQ(after[i], w.me * 1000 + static_cast<int>(i)) << "source after dest, element " << i;
    }
    ishmem_barrier_all();
}

TEST(Coll, InclusiveAndExclusiveScans) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    for (const team_info& t : ts.all()) {
        // 128 ints fill one eager piece, 512 are the most that pass along the chain by default
        // (ISHMEM_SCAN_CHAIN_MAX=2K); past that, and from 256 (1 KiB) where nothing chains, the
        // chunked form (ISHMEM_REDUCE_SCATTER_MIN=1K)
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{6}, std::size_t{129}, std::size_t{256},
                              std::size_t{257}, std::size_t{512}, std::size_t{513}, std::size_t{2000}}) {
            check_scan<int>(t, true, n, "ishmem_int_sum_inscan(team)",
                            [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                return ishmem_int_sum_inscan(team, d, s, m);
                            });
            check_scan<int>(t, false, n, "ishmem_int_sum_exscan(team)",
                            [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                return ishmem_int_sum_exscan(team, d, s, m);
                            });
        }
        check_scan<double>(t, true, 5, "ishmem_sum_inscan<double>(team)",
                           [](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                               return ishmem_sum_inscan(team, d, s, m);
                           });
        check_scan<double>(t, false, 5, "ishmem_sum_exscan<double>(team)",
                           [](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                               return ishmem_sum_exscan(team, d, s, m);
                           });
        check_scan<uint8_t>(t, false, 7, "ishmem_uint8_sum_exscan(team)",
                            [](ishmem_team_t team, uint8_t* d, const uint8_t* s, std::size_t m) {
                                return ishmem_uint8_sum_exscan(team, d, s, m);
                            });
        if (t.team == ISHMEM_TEAM_WORLD) {
            check_scan<long>(
                t, true, 4, "ishmem_long_sum_inscan (world form)",
                [](ishmem_team_t, long* d, const long* s, std::size_t m) { return ishmem_long_sum_inscan(d, s, m); });
            check_scan<long>(
                t, false, 4, "ishmem_long_sum_exscan (world form)",
                [](ishmem_team_t, long* d, const long* s, std::size_t m) { return ishmem_long_sum_exscan(d, s, m); });
        }
    }
}

// Small broadcasts and scans called in a row, with no barrier between them: on the eager path they
// are chains, and a member may run up to 8 calls ahead of the next one along the chain. Each call
// has its own source and dest, so every result can be checked at the end.
TEST(Coll, SmallBroadcastsAndScansInARow) {
    const world w;
    constexpr int calls = 40;
    constexpr std::size_t n = 3;
    auto* src = static_cast<long*>(ishmem_malloc(calls * n * sizeof(long)));
    auto* bcast = static_cast<long*>(ishmem_malloc(calls * n * sizeof(long)));
    auto* in = static_cast<long*>(ishmem_malloc(calls * n * sizeof(long)));
    auto* ex = static_cast<long*>(ishmem_malloc(calls * n * sizeof(long)));
    ASSERT_TRUE(src && bcast && in && ex);
    auto value = [](int call, int pe, std::size_t i) { return 1000L * call + 10L * pe + static_cast<long>(i); };
    for (int c = 0; c < calls; ++c)
        for (std::size_t i = 0; i < n; ++i) {
            src[c * n + i] = value(c, w.me, i);
            bcast[c * n + i] = in[c * n + i] = ex[c * n + i] = -1;
        }
    ishmem_barrier_all();
    for (int c = 0; c < calls; ++c) {
        const int root = (c * 5) % w.n;
        ASSERT_EQ(ishmem_long_broadcast(ISHMEM_TEAM_WORLD, bcast + c * n, src + c * n, n, root), 0);
        ASSERT_EQ(ishmem_long_sum_inscan(ISHMEM_TEAM_WORLD, in + c * n, src + c * n, n), 0);
        ASSERT_EQ(ishmem_long_sum_exscan(ISHMEM_TEAM_WORLD, ex + c * n, src + c * n, n), 0);
    }
    for (int c = 0; c < calls; ++c) {
        const int root = (c * 5) % w.n;
        for (std::size_t i = 0; i < n; ++i) {
            long below = 0;
            for (int pe = 0; pe < w.me; ++pe) below += value(c, pe, i);
            EXPECT_EQ(bcast[c * n + i], value(c, root, i))
                << "broadcast " << c << " from " << root << ", element " << i;
            EXPECT_EQ(in[c * n + i], below + value(c, w.me, i)) << "inscan " << c << ", element " << i;
            EXPECT_EQ(ex[c * n + i], below) << "exscan " << c << ", element " << i;
        }
    }
    ishmem_barrier_all();
    ishmem_free(ex);
    ishmem_free(in);
    ishmem_free(bcast);
    ishmem_free(src);
}

// Scans in a row across the piece size of the chain (64 longs), up to its default limit (256 longs,
// ISHMEM_SCAN_CHAIN_MAX=2K) and past it, with no barrier between them, every third one in place (dest is source):
// chained scans in pieces and the other forms follow each other on the same team.
TEST(Coll, ScansInPiecesInARow) {
    const world w;
    constexpr int calls = 24;
    constexpr std::size_t sizes[] = {64, 65, 300, 256, 257, 1};
    constexpr std::size_t most = 300;
    auto* src = static_cast<long*>(ishmem_malloc(calls * most * sizeof(long)));
    auto* in = static_cast<long*>(ishmem_malloc(calls * most * sizeof(long)));
    auto* ex = static_cast<long*>(ishmem_malloc(calls * most * sizeof(long)));
    ASSERT_TRUE(src && in && ex);
    auto value = [](int call, int pe, std::size_t i) { return 100000L * call + 1000L * pe + static_cast<long>(i); };
    for (int c = 0; c < calls; ++c)
        for (std::size_t i = 0; i < most; ++i) {
            src[c * most + i] = value(c, w.me, i);
            in[c * most + i] = ex[c * most + i] = -1;
        }
    ishmem_barrier_all();
    for (int c = 0; c < calls; ++c) {
        const std::size_t n = sizes[c % 6];
        long* s = src + c * most;
        if (c % 3 == 2) {  // in place: the inclusive scan into a copy of the source, the exclusive onto it
            std::memcpy(in + c * most, s, n * sizeof(long));
            ASSERT_EQ(ishmem_long_sum_inscan(ISHMEM_TEAM_WORLD, in + c * most, in + c * most, n), 0);
            std::memcpy(ex + c * most, s, n * sizeof(long));
            ASSERT_EQ(ishmem_long_sum_exscan(ISHMEM_TEAM_WORLD, ex + c * most, ex + c * most, n), 0);
        } else {
            ASSERT_EQ(ishmem_long_sum_inscan(ISHMEM_TEAM_WORLD, in + c * most, s, n), 0);
            ASSERT_EQ(ishmem_long_sum_exscan(ISHMEM_TEAM_WORLD, ex + c * most, s, n), 0);
        }
    }
    for (int c = 0; c < calls; ++c) {
        const std::size_t n = sizes[c % 6];
        for (std::size_t i = 0; i < most; ++i) {
            long below = 0;
            for (int pe = 0; pe < w.me; ++pe) below += value(c, pe, i);
            if (i < n) {
                ASSERT_EQ(in[c * most + i], below + value(c, w.me, i))
                    << "inscan " << c << " of " << n << ", element " << i;
                ASSERT_EQ(ex[c * most + i], below) << "exscan " << c << " of " << n << ", element " << i;
            } else {
                ASSERT_EQ(in[c * most + i], -1) << "inscan " << c << " of " << n << " wrote past nelems, element " << i;
                ASSERT_EQ(ex[c * most + i], -1) << "exscan " << c << " of " << n << " wrote past nelems, element " << i;
            }
            ASSERT_EQ(src[c * most + i], value(c, w.me, i)) << "source of call " << c << ", element " << i;
        }
    }
    ishmem_barrier_all();
    ishmem_free(ex);
    ishmem_free(in);
    ishmem_free(src);
}

// Every collective on a team of 3 PEs (an odd size; with 4 PEs it starts at world PE 1). With fewer
// than 3 PEs such a team cannot be made: the split must fail, and the collectives run on the world.
TEST(Coll, OddTeamOfThree) {
    const world w;
    std::unique_ptr<split_team> three;
    team_info t;
    if (w.n >= 3) {
        three = std::make_unique<split_team>("3 PEs ending at the last", w.n - 3, 1, 3);
        ASSERT_TRUE(three->ok());
        t = three->info();
    } else {
        ishmem_team_t bad = ISHMEM_TEAM_WORLD;
        int rc = 0;
        const std::string err =
            stderr_of([&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, 3, nullptr, 0, &bad); });
        EXPECT_NE(rc, 0) << "a team of 3 PEs out of " << w.n;
        expect_message(err, "ishmem_team_split_strided", ".");
        EXPECT_EQ(bad, ISHMEM_TEAM_INVALID);
        t = make_info("world (" + std::to_string(w.n) + " PEs)", ISHMEM_TEAM_WORLD, 0, 1, w.n);
    }
    if (t.member()) {
        EXPECT_EQ(ishmem_team_sync(t.team), 0);
    }
    check_alltoall<int>(t, 3, "ishmem_int_alltoall(team)", [](ishmem_team_t team, int* d, const int* s, std::size_t m) {
        return ishmem_int_alltoall(team, d, s, m);
    });
    for (int root = 0; root < t.size(); ++root)
        check_broadcast<long>(t, root, 5, "ishmem_long_broadcast(team)",
                              [](ishmem_team_t team, long* d, const long* s, std::size_t m, int r) {
                                  return ishmem_long_broadcast(team, d, s, m, r);
                              });
    check_collect<int>(
        t, [](int k) { return std::size_t(k == 1 ? 0 : k + 1); }, "ishmem_int_collect(team)",
        [](ishmem_team_t team, int* d, const int* s, std::size_t m) { return ishmem_int_collect(team, d, s, m); });
    check_collect<short>(
        t, [](int) { return std::size_t{5}; }, "ishmem_short_fcollect(team)",
        [](ishmem_team_t team, short* d, const short* s, std::size_t m) {
            return ishmem_short_fcollect(team, d, s, m);
        });
    {
        reduce_buffer b(t);
        reduce_all_ops<int>(t, b, 7, true);
        reduce_all_ops<double>(t, b, 7, false);
    }
    check_scan<int>(
        t, true, 4, "ishmem_int_sum_inscan(team)",
        [](ishmem_team_t team, int* d, const int* s, std::size_t m) { return ishmem_int_sum_inscan(team, d, s, m); });
    check_scan<int>(
        t, false, 4, "ishmem_int_sum_exscan(team)",
        [](ishmem_team_t team, int* d, const int* s, std::size_t m) { return ishmem_int_sum_exscan(team, d, s, m); });
}

// Collectives on different teams back to back, no barrier between them: each half of the world on
// its own team (concurrently), then a copy of the world, then the rows and columns of a 2-D split.
// Only collectives order the rounds: the last of each round (a world reduction) cannot complete on
// any PE before every PE has checked the round's results.
TEST(Coll, BackToBackOnDifferentTeams) {
    const world w;
    split_team evens("evens", 0, 2, (w.n + 1) / 2);
    std::unique_ptr<split_team> odds;
    if (w.n >= 2) odds = std::make_unique<split_team>("odds", 1, 2, w.n / 2);
    split_team copy("copy of the world", 0, 1, w.n);
    ishmem_team_t xh = ISHMEM_TEAM_INVALID, yh = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 2, nullptr, 0, &xh, nullptr, 0, &yh), 0);
    const int xr = std::min(2, w.n);
    const team_info x = make_info("row", xh, (w.me / xr) * xr, 1, std::min(xr, w.n - (w.me / xr) * xr));
    const team_info y = make_info("column", yh, w.me % xr, xr, (w.n - w.me % xr + xr - 1) / xr);
    const bool ok =
        all_agree(evens.ok() && (!odds || odds->ok()) && copy.ok() && ishmem_team_n_pes(xh) == x.size() &&
                  ishmem_team_n_pes(yh) == y.size() && ishmem_team_my_pe(xh) == x.me && ishmem_team_my_pe(yh) == y.me);
    const team_info half = w.me % 2 == 0 ? evens.info() : odds->info();
    const team_info& all = copy.info();
    sym_array<int> s1(1), d1(1), s2(3), d2(3), s3(4), d3(4), s4(2), d4(2 * 4), s5(1), d5(1), d6(1), s6(1);
    sym_array<long> s7(2), d7(2);
    if (ok) {
        for (int r = 0; r < 20; ++r) {
            SCOPED_TRACE("round " + std::to_string(r));
            s1[0] = w.me + r;
            EXPECT_EQ(ishmem_int_sum_reduce(half.team, d1.get(), s1.get(), 1), 0);
            int e = 0;
            for (int pe : half.pes) e += pe + r;
            EXPECT_EQ(d1[0], e) << "sum over " << half.name;

            for (int i = 0; i < 3; ++i) s2[i] = w.me * i + r;
            EXPECT_EQ(ishmem_int_sum_reduce(all.team, d2.get(), s2.get(), 3), 0);
            for (int i = 0; i < 3; ++i)
                EXPECT_EQ(d2[i], i * w.n * (w.n - 1) / 2 + r * w.n) << "sum over the copy, element " << i;

            for (int i = 0; i < 4; ++i) s3[i] = 1000 * w.me + 10 * r + i;
            EXPECT_EQ(ishmem_int_broadcast(x.team, d3.get(), s3.get(), 4, x.size() - 1), 0);
            for (int i = 0; i < 4; ++i) EXPECT_EQ(d3[i], 1000 * x.pes.back() + 10 * r + i) << "broadcast over the row";

            s4[0] = w.me;
            s4[1] = r;
            EXPECT_EQ(ishmem_int_fcollect(y.team, d4.get(), s4.get(), 2), 0);
            for (int k = 0; k < y.size(); ++k) {
                EXPECT_EQ(d4[2 * k], y.pes[k]) << "fcollect over the column";
                EXPECT_EQ(d4[2 * k + 1], r);
            }

            s5[0] = w.me * 7 + r;
            EXPECT_EQ(ishmem_int_max_reduce(x.team, d5.get(), s5.get(), 1), 0);
            EXPECT_EQ(d5[0], x.pes.back() * 7 + r) << "max over the row";
            s7[0] = w.me + 1;
            s7[1] = -(w.me + r);
            EXPECT_EQ(ishmem_long_min_reduce(y.team, d7.get(), s7.get(), 2), 0);
            EXPECT_EQ(d7[0], y.pes.front() + 1) << "min over the column";
            EXPECT_EQ(d7[1], -(y.pes.back() + r)) << "min over the column";

            EXPECT_EQ(ishmem_team_sync(all.team), 0);
            s6[0] = 1;
            EXPECT_EQ(ishmem_int_sum_reduce(d6.get(), s6.get(), 1), 0);
            EXPECT_EQ(d6[0], w.n) << "world sum";
        }
    } else {
        ADD_FAILURE() << "the teams were not made as expected";
    }
    if (yh != ISHMEM_TEAM_INVALID) ishmem_team_destroy(yh);
    if (xh != ISHMEM_TEAM_INVALID) ishmem_team_destroy(xh);
}

// barrier_all completes the puts, nbi puts and AMOs every PE issued before it (no quiet), with a
// different PE arriving late each round.
TEST(Coll, BarrierAllCompletesEarlierPutsAndAmos) {
    const world w;
    sym_array<int> slots(w.n), nbi_slots(w.n * 64);
    sym_array<long> counter(1);
    sym_array<uint64_t> bits(1);
    ASSERT_TRUE(slots && nbi_slots && counter && bits);
    ishmem_barrier_all();
    long expected_counter = 0;
    for (int r = 1; r <= 6; ++r) {
        SCOPED_TRACE("round " + std::to_string(r));
        if (w.me == r % w.n) std::this_thread::sleep_for(std::chrono::milliseconds(3));
        std::vector<int> nbi_src(64);
        for (int i = 0; i < 64; ++i) nbi_src[i] = r * 1000 + w.me * 64 + i;
        const int v = r * 100 + w.me;
        for (int k = 0; k < w.n; ++k) {
            const int pe = (w.me + k) % w.n;
            ishmem_int_p(&slots[w.me], v, pe);
            ishmem_int_put_nbi(nbi_slots.get() + w.me * 64, nbi_src.data(), 64, pe);
            ishmem_long_atomic_add(counter.get(), w.me + 1, pe);
            ishmem_uint64_atomic_xor(bits.get(), uint64_t{1} << (w.me + 8 * (r % 4)), pe);
        }
        ishmem_barrier_all();
        expected_counter += static_cast<long>(w.n) * (w.n + 1) / 2;
        for (int j = 0; j < w.n; ++j) EXPECT_EQ(load_acquire(&slots[j]), r * 100 + j) << "the p from PE " << j;
        for (int j = 0; j < w.n; ++j)
            expect_elements(
                nbi_slots.get() + j * 64, 64, [&](std::size_t i) { return r * 1000 + j * 64 + static_cast<int>(i); },
                "the put_nbi from PE " + std::to_string(j));
        EXPECT_EQ(load_acquire(counter.get()), expected_counter) << "atomic adds of every PE";
        uint64_t expected_bits = 0;
        for (int rr = 1; rr <= r; ++rr)
            for (int j = 0; j < w.n; ++j) expected_bits ^= uint64_t{1} << (j + 8 * (rr % 4));
        EXPECT_EQ(load_acquire(bits.get()), expected_bits) << "atomic xors of every PE";
        ishmem_barrier_all();  // nobody writes the next round before everybody checked this one
    }
}

// team_sync publishes plain stores (through ishmem_ptr) made before it, on every team.
TEST(Coll, TeamSyncPublishesStores) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    sym_array<int> box(1);
    ASSERT_TRUE(box);
    for (const team_info& t : ts.all()) {
        SCOPED_TRACE(t.name);
        box[0] = -1;
        ishmem_barrier_all();
        if (t.member()) {
            for (int r = 0; r < 5; ++r) {
                const int right = t.pes[(t.me + 1) % t.size()];
                const int left_k = (t.me + t.size() - 1) % t.size();
                if (r % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(t.me));
                int* remote = static_cast<int*>(ishmem_ptr(box.get(), right));
                if (remote)
                    std::atomic_ref<int>(*remote).store(r * 10 + t.me, std::memory_order_relaxed);
                else {
                    ishmem_int_p(box.get(), r * 10 + t.me, right);
                    ishmem_quiet();
                }
                EXPECT_EQ(ishmem_team_sync(t.team), 0);
                EXPECT_EQ(load_acquire(box.get()), r * 10 + left_k) << "the store from team PE " << left_k;
                EXPECT_EQ(ishmem_team_sync(t.team), 0);
            }
        }
        ishmem_barrier_all();
    }
}

// _work_group forms from groups of 1, 7 and 64 threads: every thread returns the same value (0), and
// the results are those of the host forms; an invalid team gives every thread the same nonzero value.
TEST(Coll, WorkGroupFormsAgreeAcrossThreads) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    std::vector<const team_info*> teams = {&ts.all()[0], &ts.all()[1]};
    if (ts.all().size() > 2) teams.push_back(&ts.all().back());
    for (std::size_t g : group_sizes) {
        SCOPED_TRACE("group of " + std::to_string(g));
        for (const team_info* tp : teams) {
            const team_info& t = *tp;
            const bool world_team = t.team == ISHMEM_TEAM_WORLD;
            check_broadcast<int>(t, t.size() - 1, 300, "ishmemx_int_broadcast_work_group",
                                 [g, world_team](ishmem_team_t team, int* d, const int* s, std::size_t m, int r) {
                                     return ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                                         return world_team ? ishmemx_int_broadcast_work_group(d, s, m, r, grp)
                                                           : ishmemx_int_broadcast_work_group(team, d, s, m, r, grp);
                                     });
                                 });
            check_broadcast<unsigned char>(
                t, 0, 77, "ishmemx_broadcastmem_work_group(team)",
                [g](ishmem_team_t team, unsigned char* d, const unsigned char* s, std::size_t m, int r) {
                    return ishmem_testing::run_in_group_returning(
                        g, [&](const auto& grp) { return ishmemx_broadcastmem_work_group(team, d, s, m, r, grp); });
                });
            check_collect<long>(
                t, [](int k) { return static_cast<std::size_t>(k % 3 * 50); }, "ishmemx_long_collect_work_group(team)",
                [g](ishmem_team_t team, long* d, const long* s, std::size_t m) {
                    return ishmem_testing::run_in_group_returning(
                        g, [&](const auto& grp) { return ishmemx_long_collect_work_group(team, d, s, m, grp); });
                });
            check_collect<int>(
                t, [](int) { return std::size_t{100}; }, "ishmemx_fcollect_work_group<int>(team)",
                [g](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                    return ishmem_testing::run_in_group_returning(
                        g, [&](const auto& grp) { return ishmemx_fcollect_work_group(team, d, s, m, grp); });
                });
            check_alltoall<double>(t, 20, "ishmemx_double_alltoall_work_group(team)",
                                   [g](ishmem_team_t team, double* d, const double* s, std::size_t m) {
                                       return ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                                           return ishmemx_double_alltoall_work_group(team, d, s, m, grp);
                                       });
                                   });
            {
                reduce_buffer b(t);
                check_reduce_in_place<int>(t, op::sum, 200, b.as<int>(), "ishmemx_sum_reduce_work_group<int>(team)",
                                           [g](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                               return ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                                                   return ishmemx_sum_reduce_work_group(team, d, s, m, grp);
                                               });
                                           });
                check_reduce_in_place<unsigned>(
                    t, op::xor_, 130, b.as<unsigned>(), "ishmemx_uint_xor_reduce_work_group(team)",
                    [g](ishmem_team_t team, unsigned* d, const unsigned* s, std::size_t m) {
                        return ishmem_testing::run_in_group_returning(
                            g, [&](const auto& grp) { return ishmemx_uint_xor_reduce_work_group(team, d, s, m, grp); });
                    });
                check_reduce_in_place<float>(
                    t, op::prod, 65, b.as<float>(), "ishmemx_float_prod_reduce_work_group",
                    [g, world_team](ishmem_team_t team, float* d, const float* s, std::size_t m) {
                        return ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                            return world_team ? ishmemx_float_prod_reduce_work_group(d, s, m, grp)
                                              : ishmemx_float_prod_reduce_work_group(team, d, s, m, grp);
                        });
                    });
            }
            if (t.member())
                ishmem_testing::run_in_group(g, [&](const auto& grp) { ishmemx_team_sync_work_group(t.team, grp); });
            ishmem_testing::run_in_group(g, [](const auto& grp) { ishmemx_barrier_all_work_group(grp); });
        }
        // Bad calls: the same nonzero value in every thread, no hang, and one line from the group
        // (its leader's), however many threads it has.
        sym_array<int> buf(8 * 4 + 8);
        int rc = 0;
        std::string err = stderr_of([&] {
            rc = ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                return ishmemx_int_sum_reduce_work_group(ISHMEM_TEAM_INVALID, buf.get(), buf.get(), 4, grp);
            });
        });
        EXPECT_NE(rc, 0) << "ishmemx_int_sum_reduce_work_group on ISHMEM_TEAM_INVALID";
        expect_message(err, "ishmemx_int_sum_reduce_work_group", "team");
        err = stderr_of([&] {
            rc = ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                return ishmemx_int_broadcast_work_group(ISHMEM_TEAM_WORLD, buf.get(), buf.get() + 4, 4, ishmem_n_pes(),
                                                        grp);
            });
        });
        EXPECT_NE(rc, 0) << "ishmemx_int_broadcast_work_group with PE_root n";
        expect_message(err, "ishmemx_int_broadcast_work_group", "root");
        err = stderr_of([&] {
            rc = ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                return ishmemx_int_max_reduce_work_group(buf.get() + 1, buf.get(), 4, grp);
            });
        });
        EXPECT_NE(rc, 0) << "ishmemx_int_max_reduce_work_group with partially overlapping buffers";
        expect_message(err, "ishmemx_int_max_reduce_work_group", "overlap");
        err = stderr_of([&] {
            rc = ishmem_testing::run_in_group_returning(g, [&](const auto& grp) {
                return ishmemx_fcollect_work_group(ISHMEM_TEAM_WORLD, buf.get(), buf.get() + 1, std::size_t{2}, grp);
            });
        });
        EXPECT_NE(rc, 0) << "ishmemx_fcollect_work_group with source inside dest";
        expect_message(err, "ishmemx_fcollect_work_group", "overlaps dest");
    }
}

// _on_queue: ret is 0 once the event completes, the operation runs after its deps, and a bad call
// sets ret nonzero.
TEST(Coll, OnQueueSetsRet) {
    team_set ts;
    ASSERT_TRUE(ts.ok());
    ishmem::queue q, side;
    for (const team_info& t : {ts.all()[0], ts.all()[1], ts.all().back()}) {
        SCOPED_TRACE(t.name);
        // A dependency fills the root's source late; the broadcast must see what it wrote.
        const int root = t.size() - 1;
        sym_array<int> src(50), dest(50 + tail);
        ASSERT_TRUE(src && dest);
        dest.fill(sentinel<int>());
        ishmem_barrier_all();
        if (t.member()) {
            ishmem::event filled = side.single_task([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(3));
                for (int i = 0; i < 50; ++i) src[i] = 9000 + ishmem_my_pe() * 100 + i;
            });
            int ret = 12345;
            ishmemx_int_broadcast_on_queue(t.team, dest.get(), src.get(), 50, root, &ret, q, {filled}).wait();
            EXPECT_EQ(ret, 0);
            expect_elements(
                dest.get(), 50, [&](std::size_t i) { return 9000 + t.pes[root] * 100 + static_cast<int>(i); },
                "broadcast after its dependency");
            expect_untouched(dest.get() + 50, tail, "past nelems");

            ret = 12345;
            ishmemx_team_sync_on_queue(t.team, &ret, q).wait();
            EXPECT_EQ(ret, 0) << "team_sync_on_queue";
        }
        ishmem_barrier_all();
        if (!t.member()) expect_untouched(dest.get(), 50 + tail, "dest of a PE outside the team");

        check_reduce_in_place<int>(t, op::sum, 10, dest.get(), "ishmemx_int_sum_reduce_on_queue(team)",
                                   [&](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                                       int ret = 12345;
                                       ishmemx_int_sum_reduce_on_queue(team, d, s, m, &ret, q).wait();
                                       return ret;
                                   });
        ishmem_barrier_all();
        check_collect<int>(
            t, [](int k) { return static_cast<std::size_t>(k % 2 * 3); }, "ishmemx_int_collect_on_queue(team)",
            [&](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                int ret = 12345;
                ishmemx_int_collect_on_queue(team, d, s, m, &ret, q).wait();
                return ret;
            });
        check_collect<int>(
            t, [](int) { return std::size_t{0}; }, "ishmemx_int_fcollect_on_queue(team), nelems 0",
            [&](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                int ret = 12345;
                ishmemx_int_fcollect_on_queue(team, d, s, m, &ret, q).wait();
                return ret;
            });
        check_alltoall<long>(t, 2, "ishmemx_alltoall_on_queue<long>(team)",
                             [&](ishmem_team_t team, long* d, const long* s, std::size_t m) {
                                 int ret = 12345;
                                 ishmemx_alltoall_on_queue(team, d, s, m, &ret, q).wait();
                                 return ret;
                             });
        check_scan<int>(t, false, 3, "ishmemx_int_sum_exscan_on_queue(team)",
                        [&](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                            int ret = 12345;
                            ishmemx_int_sum_exscan_on_queue(team, d, s, m, &ret, q).wait();
                            return ret;
                        });
        check_scan<int>(t, true, 3, "ishmemx_int_sum_inscan_on_queue(team)",
                        [&](ishmem_team_t team, int* d, const int* s, std::size_t m) {
                            int ret = 12345;
                            ishmemx_int_sum_inscan_on_queue(team, d, s, m, &ret, q).wait();
                            return ret;
                        });
    }
    // Many collectives queued before any wait (the queue runs them in order), each with its own ret.
    {
        constexpr int k = 8;
        sym_array<int> src(k), dest(k);
        ASSERT_TRUE(src && dest);
        for (int i = 0; i < k; ++i) src[i] = ishmem_my_pe() + i;
        ishmem_barrier_all();
        std::vector<int> rets(k, 12345);
        std::vector<ishmem::event> events;
        for (int i = 0; i < k; ++i)
            events.push_back(ishmemx_int_sum_reduce_on_queue(dest.get() + i, src.get() + i, 1, &rets[i], q));
        ishmem::event::wait(events);
        const int n = ishmem_n_pes();
        for (int i = 0; i < k; ++i) {
            EXPECT_EQ(rets[i], 0) << "queued reduction " << i;
            EXPECT_EQ(dest[i], n * (n - 1) / 2 + n * i) << "queued reduction " << i;
        }
    }
    // World forms: ret 0.
    sym_array<int> buf(4);
    ASSERT_TRUE(buf);
    int ret = 12345;
    ishmemx_int_max_reduce_on_queue(buf.get(), buf.get(), 4, &ret, q).wait();
    EXPECT_EQ(ret, 0);
    // Bad calls: ret nonzero after the event, and a message.
    ret = 0;
    std::string err = stderr_of(
        [&] { ishmemx_int_sum_reduce_on_queue(ISHMEM_TEAM_INVALID, buf.get(), buf.get(), 4, &ret, q).wait(); });
    EXPECT_NE(ret, 0) << "on ISHMEM_TEAM_INVALID";
    expect_message(err, "ishmemx_int_sum_reduce_on_queue", "team");
    ret = 0;
    err = stderr_of([&] { ishmemx_int_broadcast_on_queue(buf.get(), buf.get(), 2, -1, &ret, q).wait(); });
    EXPECT_NE(ret, 0) << "PE_root -1";
    expect_message(err, "ishmemx_int_broadcast_on_queue", "root");
    ret = 0;
    err = stderr_of([&] { ishmemx_int_sum_reduce_on_queue(buf.get(), buf.get() + 1, 3, &ret, q).wait(); });
    EXPECT_NE(ret, 0) << "partially overlapping buffers";
    expect_message(err, "ishmemx_int_sum_reduce_on_queue", "overlap");
    ret = 0;
    err = stderr_of([&] { ishmemx_team_sync_on_queue(ISHMEM_TEAM_INVALID, &ret, q).wait(); });
    EXPECT_NE(ret, 0) << "team_sync_on_queue on ISHMEM_TEAM_INVALID";
    expect_message(err, "ishmemx_team_sync_on_queue", "team");
}

// Bad input that returns nonzero with a one-line message, touching nothing: invalid, destroyed and
// never-made teams, PE_root outside the team, partially overlapping source and dest.
TEST(Coll, BadInputReturnsNonzero) {
    const world w;
    sym_array<int> buf(64);
    sym_array<unsigned char> bytes(64);
    ASSERT_TRUE(buf && bytes);
    ishmem_team_t destroyed = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &destroyed), 0);
    ASSERT_TRUE(all_agree(destroyed != ISHMEM_TEAM_INVALID));
    ishmem_team_destroy(destroyed);

    int* d = buf.get();
    const int* s = buf.get() + 32;
    struct call {
        const char* routine;
        std::function<int(ishmem_team_t)> run;
    };
    const std::vector<call> calls = {
        {"ishmem_team_sync", [](ishmem_team_t t) { return ishmem_team_sync(t); }},
        {"ishmem_int_alltoall", [&](ishmem_team_t t) { return ishmem_int_alltoall(t, d, s, 2); }},
        {"ishmem_alltoallmem",
         [&](ishmem_team_t t) { return ishmem_alltoallmem(t, bytes.get(), bytes.get() + 32, 2); }},
        {"ishmem_int_broadcast", [&](ishmem_team_t t) { return ishmem_int_broadcast(t, d, s, 2, 0); }},
        {"ishmem_broadcastmem",
         [&](ishmem_team_t t) { return ishmem_broadcastmem(t, bytes.get(), bytes.get() + 32, 2, 0); }},
        {"ishmem_int_collect", [&](ishmem_team_t t) { return ishmem_int_collect(t, d, s, 2); }},
        {"ishmem_collectmem", [&](ishmem_team_t t) { return ishmem_collectmem(t, bytes.get(), bytes.get() + 32, 2); }},
        {"ishmem_int_fcollect", [&](ishmem_team_t t) { return ishmem_int_fcollect(t, d, s, 2); }},
        {"ishmem_fcollectmem",
         [&](ishmem_team_t t) { return ishmem_fcollectmem(t, bytes.get(), bytes.get() + 32, 2); }},
        {"ishmem_int32_and_reduce", [&](ishmem_team_t t) { return ishmem_int32_and_reduce(t, d, s, 2); }},
        {"ishmem_int32_or_reduce", [&](ishmem_team_t t) { return ishmem_int32_or_reduce(t, d, s, 2); }},
        {"ishmem_int32_xor_reduce", [&](ishmem_team_t t) { return ishmem_int32_xor_reduce(t, d, s, 2); }},
        {"ishmem_int_max_reduce", [&](ishmem_team_t t) { return ishmem_int_max_reduce(t, d, s, 2); }},
        {"ishmem_int_min_reduce", [&](ishmem_team_t t) { return ishmem_int_min_reduce(t, d, s, 2); }},
        {"ishmem_int_sum_reduce", [&](ishmem_team_t t) { return ishmem_int_sum_reduce(t, d, s, 2); }},
        {"ishmem_int_prod_reduce", [&](ishmem_team_t t) { return ishmem_int_prod_reduce(t, d, s, 2); }},
        {"ishmem_sum_reduce", [&](ishmem_team_t t) { return ishmem_sum_reduce(t, d, s, 2); }},
        {"ishmem_int_sum_inscan", [&](ishmem_team_t t) { return ishmem_int_sum_inscan(t, d, s, 2); }},
        {"ishmem_int_sum_exscan", [&](ishmem_team_t t) { return ishmem_int_sum_exscan(t, d, s, 2); }},
    };
    for (const auto& [name, bad] : std::vector<std::pair<std::string, ishmem_team_t>>{
             {"ISHMEM_TEAM_INVALID", ISHMEM_TEAM_INVALID}, {"a destroyed team", destroyed}, {"handle 12345", 12345}}) {
        for (const call& c : calls) {
            SCOPED_TRACE(std::string(c.routine) + " on " + name);
            buf.fill(sentinel<int>());
            bytes.fill(sentinel<unsigned char>());
            int rc = 0;
            const std::string err = stderr_of([&] { rc = c.run(bad); });
            EXPECT_NE(rc, 0);
            expect_message(err, c.routine, "team");
            expect_untouched(buf.get(), 64, "buffers of the bad call");
            expect_untouched(bytes.get(), 64, "byte buffers of the bad call");
        }
    }

    // PE_root outside the team: the world form and the team overload, on the world and a stride-2 team.
    split_team evens("evens", 0, 2, (w.n + 1) / 2);
    ASSERT_TRUE(evens.ok());
    const team_info& e = evens.info();
    struct root_case {
        std::string what;
        std::function<int()> run;
        bool member;
    };
    const std::vector<root_case> roots = {
        {"world form, PE_root n", [&] { return ishmem_int_broadcast(d, s, 2, w.n); }, true},
        {"world form, PE_root -1", [&] { return ishmem_int_broadcast(d, s, 2, -1); }, true},
        {"world team, PE_root n + 5", [&] { return ishmem_int_broadcast(ISHMEM_TEAM_WORLD, d, s, 2, w.n + 5); }, true},
        {"evens, PE_root = its size", [&] { return ishmem_int_broadcast(e.team, d, s, 2, e.size()); }, e.member()},
        {"evens, PE_root -2", [&] { return ishmem_int_broadcast(e.team, d, s, 2, -2); }, e.member()},
    };
    for (const root_case& rc_case : roots) {
        if (!rc_case.member) continue;
        SCOPED_TRACE(rc_case.what);
        buf.fill(sentinel<int>());
        int rc = 0;
        const std::string err = stderr_of([&] { rc = rc_case.run(); });
        EXPECT_NE(rc, 0);
        expect_message(err, "ishmem_int_broadcast", "root");
        expect_untouched(buf.get(), 64, "buffers of the bad broadcast");
    }
    {
        bytes.fill(sentinel<unsigned char>());
        int rc = 0;
        const std::string err = stderr_of([&] { rc = ishmem_broadcastmem(bytes.get(), bytes.get() + 32, 4, w.n); });
        EXPECT_NE(rc, 0) << "broadcastmem with PE_root n";
        expect_message(err, "ishmem_broadcastmem", "root");
        expect_untouched(bytes.get(), 64, "byte buffers of the bad broadcast");
    }

    // Partially overlapping source and dest (same address and disjoint are fine): every reduction.
    const std::vector<call> overlaps = {
        {"ishmem_int_sum_reduce", [&](ishmem_team_t t) { return ishmem_int_sum_reduce(t, d + 1, d, 4); }},
        {"ishmem_int_max_reduce", [&](ishmem_team_t t) { return ishmem_int_max_reduce(t, d, d + 3, 4); }},
        {"ishmem_int_min_reduce", [&](ishmem_team_t) { return ishmem_int_min_reduce(d + 2, d, 4); }},
        {"ishmem_int_prod_reduce", [&](ishmem_team_t t) { return ishmem_int_prod_reduce(t, d, d + 1, 2); }},
        {"ishmem_int32_and_reduce", [&](ishmem_team_t t) { return ishmem_int32_and_reduce(t, d + 1, d, 2); }},
        {"ishmem_int32_or_reduce", [&](ishmem_team_t) { return ishmem_int32_or_reduce(d, d + 1, 2); }},
        {"ishmem_int32_xor_reduce", [&](ishmem_team_t t) { return ishmem_int32_xor_reduce(t, d + 3, d, 4); }},
        {"ishmem_xor_reduce",
         [&](ishmem_team_t t) {
             return ishmem_xor_reduce(t, reinterpret_cast<unsigned*>(d) + 1, reinterpret_cast<unsigned*>(d), 2);
         }},
        {"ishmem_double_sum_reduce",
         [&](ishmem_team_t t) {
             double* dd = reinterpret_cast<double*>(d);
             return ishmem_double_sum_reduce(t, dd + 1, dd, 2);
         }},
    };
    // fcollect: source anywhere inside dest (its start, in place at this PE's block, its last
    // element), in the typed, generic and mem forms.
    const int two_n = 2 * w.n;
    const int my_block = 2 * w.me;
    const std::vector<call> inside = {
        {"ishmem_int_fcollect", [&](ishmem_team_t t) { return ishmem_int_fcollect(t, d, d, 2); }},
        {"ishmem_int_fcollect", [&](ishmem_team_t) { return ishmem_int_fcollect(d, d + my_block, 2); }},
        {"ishmem_fcollect", [&](ishmem_team_t t) { return ishmem_fcollect(t, d, d + two_n - 1, std::size_t{2}); }},
        {"ishmem_fcollectmem",
         [&](ishmem_team_t t) { return ishmem_fcollectmem(t, d, reinterpret_cast<char*>(d) + 3, 8); }},
    };
    // Each call of the world: nonzero, one line whose reason matches reason, nothing written.
    auto expect_each_fails = [&](const std::vector<call>& bad_calls, const std::string& what, const char* reason) {
        for (const call& c : bad_calls) {
            SCOPED_TRACE(std::string(c.routine) + " " + what);
            buf.fill(sentinel<int>());
            int rc = 0;
            const std::string err = stderr_of([&] { rc = c.run(ISHMEM_TEAM_WORLD); });
            EXPECT_NE(rc, 0);
            expect_message(err, c.routine, reason);
            expect_untouched(buf.get(), 64, "buffers of the bad call");
        }
    };
    expect_each_fails(inside, "with source inside dest", "overlaps dest");
    expect_each_fails(overlaps, "with partially overlapping buffers", "overlap");
}

// Buffers outside the symmetric heap stop the PE with one line (death tests; the check comes before
// any communication, so the forked copy needs no other PE).
TEST(Coll, BuffersOutsideTheHeapAreFatal) {
    sym_array<int> sym(16);
    ASSERT_TRUE(sym);
    int local[16] = {};
    EXPECT_ISHMEM_ERROR(ishmem_int_sum_reduce(local, sym.get(), 4),
                        "ishmem_int_sum_reduce: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, sym.get(), local, 4),
                        "ishmem_int_sum_reduce: source .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_broadcast(ISHMEM_TEAM_WORLD, local, sym.get(), 4, 0),
                        "ishmem_int_broadcast: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_broadcast(sym.get(), local, 4, 0),
                        "ishmem_int_broadcast: source .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_collect(local, sym.get(), 1),
                        "ishmem_int_collect: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_fcollect(ISHMEM_TEAM_WORLD, local, sym.get(), 1),
                        "ishmem_int_fcollect: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_alltoall(local, sym.get(), 1),
                        "ishmem_int_alltoall: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_sum_inscan(local, sym.get(), 1),
                        "ishmem_int_sum_inscan: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_sum_reduce(local, sym.get(), 4),
                        "ishmem_sum_reduce: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_broadcastmem(local, sym.get(), 4, 0),
                        "ishmem_broadcastmem: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_broadcast(sym.get(), sym.get(), std::size_t{1} << 40, 0),
                        "ishmem_int_broadcast: (dest|source) .* runs past the end of the symmetric heap");
    EXPECT_ISHMEM_ERROR(([&] {
                            int ret = 0;
                            ishmem::queue q;
                            ishmemx_int_sum_reduce_on_queue(local, sym.get(), 4, &ret, q).wait();
                        }()),
                        "ishmemx_int_sum_reduce_on_queue: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_testing::run_in_group(
                            7, [&](const auto& g) { ishmemx_int_sum_reduce_work_group(local, sym.get(), 4, g); }),
                        "ishmemx_int_sum_reduce_work_group: dest .* outside the symmetric heap");
}

}  // namespace
