// Patterns for the collectives: barrier_all, sync_all and team_sync, and the data collectives
// (alltoall, broadcast, collect, fcollect, reductions, scans) over the world team and, for the
// team overloads, also over a strided team (every second PE), whose non-members must find their
// buffers untouched.
#pragma once

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "patterns/teams.h"

#include "patterns/common.h"

namespace ishmem_testing::patterns {

// sync_barrier: each round, every PE increments a counter on every PE (one PE, changing with the
// round, after a short delay, so that a barrier that does not wait is caught), quiets (sync_all
// does not complete remote operations; barrier_all does, and a quiet before it is harmless), and
// calls the routine under test. After it the local counter must be exactly n * round; a second
// call keeps the next round's increments out until everybody has checked.
template <class Barrier> void sync_barrier(Barrier barrier) {
    const world w;
    sym_array<int> counter(1);
    ASSERT_TRUE(counter);
    ishmem_barrier_all();
    constexpr int rounds = 4;
    for (int r = 1; r <= rounds; ++r) {
        if (w.me == r % w.n) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (int k = 0; k < w.n; ++k) ishmem_int_atomic_inc(counter.get(), (w.me + k) % w.n);
        ishmem_quiet();
        barrier();
        EXPECT_EQ(counter.load(0), w.n * r) << "round " << r << ": after the barrier " << on_pe(w.me)
                                            << " has seen only part of the " << w.n << " increments of every round";
        barrier();
    }
}

// team_sync: like sync_barrier, with stores through the peers' mappings (what team_sync orders),
// over the world team and the strided test team. The _work_group form returns nothing.
template <class TeamSync> void team_sync(TeamSync sync) {
    const world w;
    sym_array<int> word(1);
    ASSERT_TRUE(word);
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        ishmem_barrier_all();
        if (me < 0) continue;
        auto call = [&] {
            if constexpr (std::is_void_v<decltype(sync(team))>) {
                sync(team);
            } else {  // braces: nvcc's front end rejects EXPECT_EQ as the statement of an else
                EXPECT_EQ(sync(team), 0) << "team_sync's return";
            }
        };
        for (int r = 1; r <= 3; ++r) {
            const int right = ishmem_team_translate_pe(team, (me + 1) % n, ISHMEM_TEAM_WORLD);
            if (me == r % n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (same_node(right)) {
                sym_store(static_cast<int*>(ishmem_ptr(word.get(), right)), 100 * r + me);
            } else {  // another node's PE: a put, completed (team_sync orders stores, not remote puts)
                ishmem_int_p(word.get(), 100 * r + me, right);
                ishmem_quiet();
            }
            call();
            EXPECT_EQ(word.load(0), 100 * r + (me + n - 1) % n)
                << "round " << r << " on " << on_pe(w.me) << ": the store made before team_sync is not visible";
            call();
        }
    }
    ishmem_barrier_all();
}

// Runs body(team) over the world team, and for team overloads (call(team, args...)) over the
// strided test team too. call_on(team, args...) calls the adapter with or without the team.
template <class F, class... A> constexpr bool takes_team_v = std::is_invocable_v<F&, ishmem_team_t, A...>;

template <class F, class... A> auto call_on(F& f, ishmem_team_t team, A... a) {
    if constexpr (takes_team_v<F, A...>)
        return f(team, a...);
    else
        return f(a...);
}

template <class F, class Body> void over_teams(bool team_form, Body&& body) {
    body(ISHMEM_TEAM_WORLD);
    if (team_form) body(strided_test_team());
}

// The team's PE numbers in world terms; empty when the calling PE is not a member.
struct team_view {
    ishmem_team_t team;
    int me, n;
    explicit team_view(ishmem_team_t t) : team(t), me(ishmem_team_my_pe(t)), n(ishmem_team_n_pes(t)) {}
    int world(int i) const { return ishmem_team_translate_pe(team, i, ISHMEM_TEAM_WORLD); }
    std::string name() const { return team == ISHMEM_TEAM_WORLD ? "the world team" : "a strided team"; }
};

// alltoalls: element k of block j of PE i's source (at (j * nelems + k) * sst) goes to element k
// of block i of PE j's dest (at (i * nelems + k) * dst); every other element of dest is untouched.
template <class T, class F> void alltoalls(F f) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::ptrdiff_t, std::ptrdiff_t, std::size_t>;
    const world w;
    using shape = std::tuple<std::size_t, std::ptrdiff_t, std::ptrdiff_t>;  // nelems, dst, sst
    for (auto [nelems, dst, sst] : {shape{1, 1, 1}, shape{5, 2, 3}, shape{16, 3, 1}, shape{0, 2, 2}}) {
        const std::size_t dlen = nelems * w.n * dst + 2, slen = nelems * w.n * sst + 2;
        sym_array<T> src(slen), out(dlen);
        ASSERT_TRUE(src && out);
        const std::string what = "alltoalls(nelems " + std::to_string(nelems) + ", dst " + std::to_string(dst) +
                                 ", sst " + std::to_string(sst) + ")";
        over_teams<F>(team_form, [&](ishmem_team_t team) {
            const team_view t(team);
            out.fill(sentinel<T>());
            src.write(0, pe_values<T>(w.me, slen));
            ishmem_barrier_all();
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, out.get(), static_cast<const T*>(src.get()), dst, sst, nelems), 0);
                const std::vector<T> got = out.read(0, dlen);
                expect_elements(
                    got,
                    [&](std::size_t idx) {
                        const std::size_t q = idx / static_cast<std::size_t>(dst);
                        if (idx % static_cast<std::size_t>(dst) != 0 || q >= nelems * t.n) return sentinel<T>();
                        const std::size_t from = q / nelems, k = q % nelems;  // sender's team index, element
                        return make_value<T>(t.world(static_cast<int>(from)), (t.me * nelems + k) * sst);
                    },
                    what + " over " + t.name());
            } else {
                expect_untouched(out.read(0, dlen), what + " on a PE outside the team");
            }
            ishmem_barrier_all();
        });
    }
}

// alltoall: block j of PE i's source goes to block i of PE j's dest.
template <class T, class F> void alltoall(F f) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::size_t>;
    const world w;
    for (std::size_t nelems : {std::size_t{1}, std::size_t{37}}) {
        sym_array<T> src(nelems * w.n + 2), dst(nelems * w.n + 2);
        ASSERT_TRUE(src && dst);
        over_teams<F>(team_form, [&](ishmem_team_t team) {
            const team_view t(team);
            dst.fill(sentinel<T>());
            src.write(0, pe_values<T>(w.me, nelems * w.n));
            ishmem_barrier_all();
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, dst.get(), static_cast<const T*>(src.get()), nelems), 0);
                const std::vector<T> got = dst.read(0, nelems * w.n + 2);
                for (int j = 0; j < t.n; ++j)
                    expect_elements(
                        got.data() + j * nelems, nelems,
                        [&](std::size_t i) { return make_value<T>(t.world(j), t.me * nelems + i); },
                        "alltoall over " + t.name() + ": block from team PE " + std::to_string(j));
                expect_untouched(got.data() + nelems * t.n, 2, "alltoall: after the blocks");
            } else {
                expect_untouched(dst.read(0, nelems * w.n + 2), "alltoall on a PE outside the team");
            }
            ishmem_barrier_all();
        });
    }
}

// broadcast from every root of the team; the root's dest is written too.
template <class T, class F> void broadcast(F f) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::size_t, int>;
    const world w;
    constexpr std::size_t nelems = 29;
    sym_array<T> src(nelems), dst(nelems + 2);
    ASSERT_TRUE(src && dst);
    over_teams<F>(team_form, [&](ishmem_team_t team) {
        const team_view t(team);
        // As many rounds on every PE (the team has at most w.n PEs), so that the barriers match.
        for (int root = 0; root < w.n; ++root) {
            if (t.me >= 0 && root >= t.n) {
                ishmem_barrier_all();
                ishmem_barrier_all();
                continue;
            }
            dst.fill(sentinel<T>());
            src.write(0, pe_values<T>(w.me, nelems, root));
            ishmem_barrier_all();
            const int root_world = t.n > 0 ? t.world(root) : -1;
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, dst.get(), static_cast<const T*>(src.get()), nelems, root), 0);
                const std::vector<T> got = dst.read(0, nelems + 2);
                expect_elements(
                    got.data(), nelems, [&](std::size_t i) { return make_value<T>(root_world, i + root); },
                    "broadcast over " + t.name() + " from team PE " + std::to_string(root));
                expect_untouched(got.data() + nelems, 2, "broadcast: after dest");
            } else {
                expect_untouched(dst.read(0, nelems + 2), "broadcast on a PE outside the team");
            }
            ishmem_barrier_all();
        }
    });
}

// collect: team PE i contributes (i % 3) * 5 + r elements (0 for PE 0 in round 0).
template <class T, class F> void collect(F f) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::size_t>;
    const world w;
    constexpr std::size_t max_each = 11;
    sym_array<T> src(max_each), dst(max_each * w.n + 2);
    ASSERT_TRUE(src && dst);
    over_teams<F>(team_form, [&](ishmem_team_t team) {
        const team_view t(team);
        for (std::size_t r = 0; r < 2; ++r) {
            auto count = [&](int i) { return static_cast<std::size_t>(i % 3) * 5 + r; };
            dst.fill(sentinel<T>());
            src.write(0, pe_values<T>(w.me, max_each, r));
            ishmem_barrier_all();
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, dst.get(), static_cast<const T*>(src.get()), count(t.me)), 0);
                const std::vector<T> got = dst.read(0, max_each * w.n + 2);
                std::size_t off = 0;
                for (int j = 0; j < t.n; ++j) {
                    expect_elements(
                        got.data() + off, count(j), [&](std::size_t i) { return make_value<T>(t.world(j), i + r); },
                        "collect over " + t.name() + ": part of team PE " + std::to_string(j));
                    off += count(j);
                }
                expect_untouched(got.data() + off, 2, "collect: after the parts");
            } else {
                expect_untouched(dst.read(0, max_each * w.n + 2), "collect on a PE outside the team");
            }
            ishmem_barrier_all();
        }
    });
}

template <class T, class F> void fcollect(F f) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::size_t>;
    const world w;
    for (std::size_t nelems : {std::size_t{0}, std::size_t{13}}) {
        sym_array<T> src(nelems + 1), dst(nelems * w.n + 2);
        ASSERT_TRUE(src && dst);
        over_teams<F>(team_form, [&](ishmem_team_t team) {
            const team_view t(team);
            dst.fill(sentinel<T>());
            src.write(0, pe_values<T>(w.me, nelems));
            ishmem_barrier_all();
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, dst.get(), static_cast<const T*>(src.get()), nelems), 0);
                const std::vector<T> got = dst.read(0, nelems * w.n + 2);
                for (int j = 0; j < t.n; ++j)
                    expect_elements(
                        got.data() + j * nelems, nelems, [&](std::size_t i) { return make_value<T>(t.world(j), i); },
                        "fcollect over " + t.name() + ": part of team PE " + std::to_string(j));
                expect_untouched(got.data() + nelems * t.n, 2, "fcollect: after the parts");
            } else {
                expect_untouched(dst.read(0, nelems * w.n + 2), "fcollect on a PE outside the team");
            }
            ishmem_barrier_all();
        });
    }
}

// Reduction operands: small positive integers, so that sums and products of up to 4 of them are
// exact in every type (the 1-byte types wrap the same way in the expected value).
template <class T> T operand(int pe, std::size_t i) {
    return static_cast<T>((pe * 7 + i * 3) % 5 + 1 + (i % 4 == 3 ? 8 : 0));
}
template <class T> std::vector<T> operands(int pe, std::size_t n) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = operand<T>(pe, i);
    return v;
}

template <class T> bool close_enough(T got, T want) {
    if constexpr (std::is_floating_point_v<T>)
        return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <=
               1e-6 * (1 + std::fabs(static_cast<double>(want)));
    else
        return got == want;
}

// The frame of the reductions and scans: on every team the form takes, out of place and in place,
// nelems operands a PE; want(t, i) is element i of dest on team PE t.me. Checks every element (the
// first wrong one reported), the two elements after dest, and dest on PEs outside the team.
template <class T, class F, class Want> void elementwise(F f, std::size_t nelems, const char* what, Want want) {
    constexpr bool team_form = takes_team_v<F, T*, const T*, std::size_t>;
    const world w;
    sym_array<T> src(nelems + 2), dst(nelems + 2);
    ASSERT_TRUE(src && dst);
    over_teams<F>(team_form, [&](ishmem_team_t team) {
        const team_view t(team);
        for (bool in_place : {false, true}) {
            const sym_array<T>& out = in_place ? src : dst;
            dst.fill(sentinel<T>());
            src.fill(sentinel<T>());
            src.write(0, operands<T>(w.me, nelems));
            ishmem_barrier_all();
            if (t.me >= 0) {
                EXPECT_EQ(call_on(f, team, out.get(), static_cast<const T*>(src.get()), nelems), 0);
                const std::vector<T> got = out.read(0, nelems + 2);
                for (std::size_t i = 0; i < nelems; ++i) {
                    const T expected = want(t, i);
                    if (!close_enough(got[i], expected)) {
                        ADD_FAILURE() << what << (in_place ? " in place" : "") << " over " << t.name() << " on team PE "
                                      << t.me << ": element " << i << " is " << show(got[i]) << ", expected "
                                      << show(expected);
                        break;
                    }
                }
                expect_untouched(got.data() + nelems, 2, std::string(what) + ": after dest");
            } else {
                expect_untouched(dst.read(0, nelems + 2), std::string(what) + " on a PE outside the team");
            }
            ishmem_barrier_all();
        }
    });
}

// A reduction with combine(a, b) over the team's members.
template <class T, class F, class Combine> void reduction(F f, Combine combine, const char* what) {
    elementwise<T>(f, 23, what, [&](const team_view& t, std::size_t i) {
        T want = operand<T>(t.world(0), i);
        for (int j = 1; j < t.n; ++j) want = combine(want, operand<T>(t.world(j), i));
        return want;
    });
}

template <class T, class F> void and_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return static_cast<T>(a & b); }, "and_reduce");
}
template <class T, class F> void or_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return static_cast<T>(a | b); }, "or_reduce");
}
template <class T, class F> void xor_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return static_cast<T>(a ^ b); }, "xor_reduce");
}
template <class T, class F> void max_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return a < b ? b : a; }, "max_reduce");
}
template <class T, class F> void min_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return b < a ? b : a; }, "min_reduce");
}
template <class T, class F> void sum_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return static_cast<T>(a + b); }, "sum_reduce");
}
template <class T, class F> void prod_reduce(F f) {
    reduction<T>(
        f, [](T a, T b) { return static_cast<T>(a * b); }, "prod_reduce");
}

// Prefix sums: team PE i gets the sum over PEs 0..i (inclusive) or 0..i-1 (exclusive; zeros on PE 0).
template <class T, class F> void scan(F f, bool inclusive) {
    elementwise<T>(f, 17, inclusive ? "sum_inscan" : "sum_exscan", [&](const team_view& t, std::size_t i) {
        T want{};
        for (int j = 0; j < t.me + (inclusive ? 1 : 0); ++j) want = static_cast<T>(want + operand<T>(t.world(j), i));
        return want;
    });
}
template <class T, class F> void sum_inscan(F f) { scan<T>(f, true); }
template <class T, class F> void sum_exscan(F f) { scan<T>(f, false); }

}  // namespace ishmem_testing::patterns
