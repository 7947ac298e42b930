// Collectives called many times in a row with no barrier between the calls, each with new source
// values, each result checked as soon as the call returns: a late write of one call into the dest
// of the next, a source read after its call returned, or messages of two calls mixed up show as
// wrong values. Across nodes these are alltoalls around the turn from two levels (each node's
// leader exchanges its node's blocks with the other leaders) to the transport's own exchange, and
// the small scans' chain, whose hops go through a node's inboxes or the transport by where the
// neighbours are, and collects and fcollects whose sizes cross the turns of their two levels from
// call to call. On the world team, the strided test team and the team of all PEs but PE 0
// (whose node groups differ in size where the world's are alike).
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "harness/harness.h"
#include "patterns/collectives.h"

namespace {

using ishmem_testing::patterns::strided_test_team;
using ishmem_testing::patterns::sym_array;

// The teams these tests run on; the caller destroys the last one (ISHMEM_TEAM_INVALID on 1 or 2 PEs).
std::vector<ishmem_team_t> teams_to_test(ishmem_team_t* all_but_first) {
    *all_but_first = ISHMEM_TEAM_INVALID;
    const int n = ishmem_n_pes();
    if (n >= 3) {
        EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, all_but_first), 0);
    }
    std::vector<ishmem_team_t> out{ISHMEM_TEAM_WORLD, strided_test_team()};
    if (n >= 3) out.push_back(*all_but_first);
    return out;
}

// Element e of the block that world PE `from` sends to team PE `to` in call c.
int64_t block_value(int from, int to, std::size_t e, int c) {
    return static_cast<int64_t>(from) * 1000003 + to * 10007 + static_cast<int64_t>(e) * 31 + c * 7;
}

void check_alltoalls_in_a_row(ishmem_team_t team, std::size_t nelems, int calls) {
    const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team), me_world = ishmem_my_pe();
    const std::size_t all = nelems * static_cast<std::size_t>(ishmem_n_pes());
    sym_array<int64_t> src(all ? all : 1), dst(all ? all : 1);
    ASSERT_TRUE(src && dst);
    ishmem_barrier_all();
    if (me < 0) return;
    for (int c = 0; c < calls; ++c) {
        for (int j = 0; j < n; ++j)
            for (std::size_t e = 0; e < nelems; ++e) src[j * nelems + e] = block_value(me_world, j, e, c);
        for (std::size_t i = 0; i < nelems * n; ++i) dst[i] = -1;
        ASSERT_EQ(ishmem_int64_alltoall(team, dst.get(), src.get(), nelems), 0);
        std::size_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const int from = ishmem_team_translate_pe(team, i, ISHMEM_TEAM_WORLD);
            for (std::size_t e = 0; e < nelems; ++e) {
                const int64_t want = block_value(from, me, e, c);
                if (dst[i * nelems + e] != want && bad++ == 0)
                    ADD_FAILURE() << "alltoall of " << nelems << " int64 a block, call " << c << " of " << calls
                                  << ", team PE " << me << " of " << n << ", block from team PE " << i << ", element "
                                  << e << ": " << dst[i * nelems + e] << " != " << want;
            }
        }
        ASSERT_EQ(bad, 0u);
    }
}

// Blocks of 1 to 4097 int64 (8 B to 32 KiB: the two levels' turn is at 16 KiB a block).
TEST(CollInARow, AlltoallsAroundTheLevelsTurn) {
    ishmem_team_t all_but_first;
    for (ishmem_team_t team : teams_to_test(&all_but_first))
        for (std::size_t nelems : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{2047},
                                   std::size_t{2048}, std::size_t{2049}, std::size_t{4097}})
            check_alltoalls_in_a_row(team, nelems, 6);
    ishmem_barrier_all();
    if (all_but_first != ISHMEM_TEAM_INVALID) ishmem_team_destroy(all_but_first);
}

// Element i of world PE pe's source in call c.
int64_t scan_value(int pe, std::size_t i, int c) {
    return static_cast<int64_t>(pe + 1) * 100 + static_cast<int64_t>(i) * 3 + c;
}

// Inclusive on even calls, exclusive on odd ones; in place on every third.
TEST(CollInARow, SmallScansWhoseChainCrossesNodes) {
    constexpr int calls = 24;
    constexpr std::size_t most = 65;  // 520 B: just over one inbox (the node hops' limit)
    sym_array<int64_t> src(most), dst(most);
    ASSERT_TRUE(src && dst);
    const int me_world = ishmem_my_pe();
    ishmem_team_t all_but_first;
    for (ishmem_team_t team : teams_to_test(&all_but_first)) {
        const int me = ishmem_team_my_pe(team);
        ishmem_barrier_all();
        if (me < 0) continue;
        for (std::size_t nelems : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{64}, most}) {
            for (int c = 0; c < calls; ++c) {
                const bool inclusive = c % 2 == 0, in_place = c % 3 == 0;
                for (std::size_t i = 0; i < most; ++i) {
                    src[i] = scan_value(me_world, i, c);
                    dst[i] = -9;
                }
                int64_t* out = in_place ? src.get() : dst.get();
                ASSERT_EQ(inclusive ? ishmem_int64_sum_inscan(team, out, src.get(), nelems)
                                    : ishmem_int64_sum_exscan(team, out, src.get(), nelems),
                          0);
                std::size_t bad = 0;
                for (std::size_t i = 0; i < most; ++i) {
                    int64_t want = in_place ? scan_value(me_world, i, c) : -9;  // past nelems: untouched
                    if (i < nelems) {
                        want = 0;
                        for (int j = 0; j < me + (inclusive ? 1 : 0); ++j)
                            want += scan_value(ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD), i, c);
                    }
                    if (out[i] != want && bad++ == 0)
                        ADD_FAILURE() << (inclusive ? "inscan" : "exscan") << (in_place ? " in place" : "") << " of "
                                      << nelems << " int64, call " << c << ", team PE " << me << ", element " << i
                                      << ": " << out[i] << " != " << want;
                }
                ASSERT_EQ(bad, 0u);
            }
        }
    }
    ishmem_barrier_all();
    if (all_but_first != ISHMEM_TEAM_INVALID) ishmem_team_destroy(all_but_first);
}

// Element i of world PE pe's block in collect or fcollect call c.
int64_t collect_value(int pe, std::size_t i, int c) {
    return static_cast<int64_t>(pe) * 1000003 + static_cast<int64_t>(i) * 5 + c * 11;
}

// Collects and fcollects whose sizes cross the turns of their two levels across nodes from call to
// call: 192 KiB a member on average (24576 int64; above it flat), 256 KiB in all, and tiny calls
// between. A collect goes by the size of the team's last call, so members whose calls take
// different paths, or a path chosen from a stale size, show as wrong values; so would a dest
// written past its end. Collect blocks differ by member (base + 0, 1 or 2 elements).
TEST(CollInARow, CollectsAroundTheLevelsTurns) {
    const std::size_t bases[] = {24575, 24577, 3, 24576, 24000, 25000, 1, 32769, 24575, 0, 24577};
    constexpr std::size_t spread = 2, past = 8;
    const std::size_t most = *std::max_element(std::begin(bases), std::end(bases)) + spread;
    const int me_world = ishmem_my_pe();
    const std::size_t room = most * static_cast<std::size_t>(ishmem_n_pes()) + past;
    sym_array<int64_t> src(most), dst(room);
    ASSERT_TRUE(src && dst);
    ishmem_team_t all_but_first;
    for (ishmem_team_t team : teams_to_test(&all_but_first)) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        ishmem_barrier_all();
        if (me < 0) continue;
        for (int fixed = 0; fixed < 2; ++fixed) {
            int c = 0;
            for (std::size_t base : bases) {
                ++c;
                auto count = [&](int member) { return fixed ? base : base + static_cast<std::size_t>(member % 3); };
                for (std::size_t i = 0; i < count(me); ++i) src[i] = collect_value(me_world, i, c);
                for (std::size_t i = 0; i < room; ++i) dst[i] = -7;
                ASSERT_EQ(fixed ? ishmem_int64_fcollect(team, dst.get(), src.get(), base)
                                : ishmem_int64_collect(team, dst.get(), src.get(), count(me)),
                          0);
                std::size_t at = 0, bad = 0;
                for (int j = 0; j < n; ++j) {
                    const int pe = ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD);
                    for (std::size_t i = 0; i < count(j); ++i, ++at)
                        if (dst[at] != collect_value(pe, i, c) && bad++ == 0)
                            ADD_FAILURE()
                                << (fixed ? "fcollect" : "collect") << " call " << c << " (" << base
                                << " int64 a member), team PE " << me << " of " << n << ", block of team PE " << j
                                << ", element " << i << ": " << dst[at] << " != " << collect_value(pe, i, c);
                }
                for (std::size_t i = at; i < at + past; ++i)
                    if (dst[i] != -7 && bad++ == 0)
                        ADD_FAILURE() << (fixed ? "fcollect" : "collect") << " call " << c << ": dest past its " << at
                                      << " elements was written";
                ASSERT_EQ(bad, 0u);
            }
        }
    }
    ishmem_barrier_all();
    if (all_but_first != ISHMEM_TEAM_INVALID) ishmem_team_destroy(all_but_first);
}

}  // namespace
