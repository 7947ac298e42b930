// Collectives on arrays large enough for the chunked reductions and scans (ISHMEM_REDUCE_SCATTER_MIN,
// 1 KiB by default, on 2 or more PEs) and for the copies to be split across a work-group's threads in many
// pieces; in place and not, on the world team and a strided team.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness/harness.h"
#include "patterns/collectives.h"

namespace {

using ishmem_testing::patterns::strided_test_team;
using ishmem_testing::patterns::sym_array;

constexpr std::size_t big = 40000;  // 320 KB of int64_t or double

int64_t operand(int pe, std::size_t i) { return static_cast<int64_t>((pe + 1) * 1000003 + i * 7 % 1009); }

// What a sum scan gives team PE me at element i: value(world PE, i) summed over team PEs 0..me - 1,
// and me too where inclusive.
template <class T, class F> T scan_want(ishmem_team_t team, int me, bool inclusive, std::size_t i, F value) {
    T want = 0;
    for (int j = 0; j < me + (inclusive ? 1 : 0); ++j)
        want += value(ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD), i);
    return want;
}

// Checks a collect's dest of `room` bytes: team member j's block of bytes_of(j) bytes, byte i being
// byte_of(world PE of j, i), in member order, then 0xee up to room. Returns the bad bytes, and in
// *first the place of the first of them; *end gets where the blocks end.
template <class BytesOf, class ByteOf> std::size_t bad_collected(const unsigned char* dst, std::size_t room,
                                                                 ishmem_team_t team, BytesOf bytes_of, ByteOf byte_of,
                                                                 std::size_t* first, std::size_t* end) {
    std::size_t at = 0, bad = 0;
    *first = 0;
    for (int j = 0; j < ishmem_team_n_pes(team); ++j) {
        const int pe = ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD);
        for (std::size_t i = 0; i < bytes_of(j); ++i, ++at)
            if (dst[at] != byte_of(pe, i) && bad++ == 0) *first = at;
    }
    *end = at;
    for (std::size_t i = at; i < room; ++i)
        if (dst[i] != 0xee && bad++ == 0) *first = i;
    return bad;
}

// Sum, max and xor of int64 and sum of double over `team`, with nreduce = big, through the base and
// the _work_group forms; every element checked.
TEST(CollLarge, ReductionsOverTheChunkedPath) {
    sym_array<int64_t> src(big), dst(big);
    sym_array<double> dsrc(big), ddst(big);
    ASSERT_TRUE(src && dst && dsrc && ddst);
    const int me_world = ishmem_my_pe();
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (int pass = 0; pass < 3; ++pass) {  // 0: out of place, 1: in place, 2: work_group in place
            for (std::size_t i = 0; i < big; ++i) {
                src[i] = operand(me_world, i);
                dsrc[i] = 0.5 * static_cast<double>(operand(me_world, i));
            }
            ishmem_barrier_all();
            if (me >= 0) {
                int64_t* out = pass == 0 ? dst.get() : src.get();
                double* dout = pass == 0 ? ddst.get() : dsrc.get();
                if (pass < 2) {
                    EXPECT_EQ(ishmem_int64_sum_reduce(team, out, src.get(), big), 0);
                    EXPECT_EQ(ishmem_double_sum_reduce(team, dout, dsrc.get(), big), 0);
                } else {
                    EXPECT_EQ(ishmem_testing::run_in_group_returning(7,
                                                                     [&](const auto& g) {
                                                                         return ishmemx_int64_sum_reduce_work_group(
                                                                             team, out, src.get(), big, g);
                                                                     }),
                              0);
                    EXPECT_EQ(ishmem_testing::run_in_group_returning(7,
                                                                     [&](const auto& g) {
                                                                         return ishmemx_double_sum_reduce_work_group(
                                                                             team, dout, dsrc.get(), big, g);
                                                                     }),
                              0);
                }
                std::size_t bad = 0;
                for (std::size_t i = 0; i < big; ++i) {
                    int64_t want = 0;
                    for (int j = 0; j < n; ++j)
                        want += operand(ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD), i);
                    if (out[i] != want && bad++ == 0)
                        ADD_FAILURE() << "int64 sum, pass " << pass << ", element " << i << ": " << out[i]
                                      << " != " << want;
                    if (dout[i] != 0.5 * static_cast<double>(want) && bad++ == 0)
                        ADD_FAILURE() << "double sum, pass " << pass << ", element " << i << ": " << dout[i];
                }
                EXPECT_EQ(bad, 0u) << "over a team of " << n;
            }
            ishmem_barrier_all();
        }
        // max and xor, out of place
        for (std::size_t i = 0; i < big; ++i) src[i] = operand(me_world, i) ^ static_cast<int64_t>(i << 20);
        ishmem_barrier_all();
        if (me >= 0) {
            EXPECT_EQ(ishmem_int64_max_reduce(team, dst.get(), src.get(), big), 0);
            std::vector<int64_t> mx(dst.get(), dst.get() + big);
            EXPECT_EQ(ishmem_int64_xor_reduce(team, dst.get(), src.get(), big), 0);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < big; ++i) {
                int64_t want_max = INT64_MIN, want_xor = 0;
                for (int j = 0; j < n; ++j) {
                    const int64_t v = operand(ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD), i) ^
                                      static_cast<int64_t>(i << 20);
                    want_max = v > want_max ? v : want_max;
                    want_xor ^= v;
                }
                if ((mx[i] != want_max || dst[i] != want_xor) && bad++ == 0)
                    ADD_FAILURE() << "max/xor element " << i << ": " << mx[i] << "/" << dst[i] << " != " << want_max
                                  << "/" << want_xor;
            }
            EXPECT_EQ(bad, 0u);
        }
        ishmem_barrier_all();
    }
}

// Inclusive and exclusive scans of `big` and 2 * `big` int64 (the chunked path: each PE scans one chunk over all
// PEs and writes it into every PE's dest), out of place, in place and on a queue, over the world
// and the strided team; every element checked, and PEs outside the team keep their dest.
TEST(CollLarge, ScansOverTheChunkedPath) {
    sym_array<int64_t> src(2 * big), dst(2 * big);
    ASSERT_TRUE(src && dst);
    const int me_world = ishmem_my_pe();
    constexpr int64_t untouched = -77;
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team);
        for (int pass = 0; pass < 12;
             ++pass) {  // inclusive: pass % 6 < 3; 0/3 out of place, 1/4 in place, 2/5 on a queue
            // big, then twice as many (over 512 KiB: across nodes the first member fills its dest
            // while its sum goes on, with the progress thread polling MPI)
            const std::size_t n = pass < 6 ? big : 2 * big;
            const bool inclusive = pass % 6 < 3, in_place = pass % 3 == 1;
            for (std::size_t i = 0; i < n; ++i) {
                src[i] = operand(me_world, i);
                dst[i] = untouched;
            }
            ishmem_barrier_all();
            int64_t* out = in_place ? src.get() : dst.get();
            if (me >= 0) {
                if (pass % 3 == 2) {
                    int ret = -1;
                    ishmem::queue& q = ishmem_testing::test_queue();
                    (inclusive ? ishmemx_int64_sum_inscan_on_queue(team, out, src.get(), n, &ret, q)
                               : ishmemx_int64_sum_exscan_on_queue(team, out, src.get(), n, &ret, q))
                        .wait();
                    EXPECT_EQ(ret, 0);
                } else {
                    EXPECT_EQ(inclusive ? ishmem_int64_sum_inscan(team, out, src.get(), n)
                                        : ishmem_int64_sum_exscan(team, out, src.get(), n),
                              0);
                }
                std::size_t bad = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const int64_t want = scan_want<int64_t>(team, me, inclusive, i, operand);
                    if (out[i] != want && bad++ == 0)
                        ADD_FAILURE() << (inclusive ? "inscan" : "exscan") << (in_place ? " in place" : "")
                                      << ", team PE " << me << ", element " << i << ": " << out[i] << " != " << want;
                }
                EXPECT_EQ(bad, 0u);
            } else {
                std::size_t touched = 0;
                for (std::size_t i = 0; i < n; ++i) touched += dst[i] != untouched || src[i] != operand(me_world, i);
                EXPECT_EQ(touched, 0u) << "PE " << me_world << " is outside the team, yet its buffers changed";
            }
            ishmem_barrier_all();
        }
    }
}

// Scans of 4-byte elements of lengths that are no multiple of a page or of the MPI transport's
// pieces (61444, 80004 and 800012 bytes: across nodes the chain's messages just over a whole
// message's limit, in three pieces, and whole above the pieces' limit), in place and not, on the
// world and the strided team; the 3 elements beyond the end must stay untouched.
TEST(CollLarge, ScansOfIntsOfOddLengths) {
    constexpr std::size_t most = 200003, guard = 3;
    sym_array<int> src(most + guard), dst(most + guard);
    ASSERT_TRUE(src && dst);
    const int me_world = ishmem_my_pe();
    auto value = [](int pe, std::size_t i) { return static_cast<int>((pe + 3) * 1009 + i % 4099); };
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team);
        for (std::size_t n : {std::size_t{15361}, std::size_t{20001}, most}) {
            for (int pass = 0; pass < 4; ++pass) {  // inclusive: pass < 2; in place: odd passes
                const bool inclusive = pass < 2, in_place = pass % 2 == 1;
                for (std::size_t i = 0; i < most + guard; ++i) {
                    src[i] = value(me_world, i);
                    dst[i] = -5;
                }
                ishmem_barrier_all();
                int* out = in_place ? src.get() : dst.get();
                if (me >= 0) {
                    EXPECT_EQ(inclusive ? ishmem_int_sum_inscan(team, out, src.get(), n)
                                        : ishmem_int_sum_exscan(team, out, src.get(), n),
                              0);
                    std::size_t bad = 0;
                    for (std::size_t i = 0; i < n; ++i) {
                        const int want = scan_want<int>(team, me, inclusive, i, value);
                        if (out[i] != want && bad++ == 0)
                            ADD_FAILURE()
                                << (inclusive ? "inscan" : "exscan") << (in_place ? " in place" : "") << " of " << n
                                << " ints, team PE " << me << ", element " << i << ": " << out[i] << " != " << want;
                    }
                    for (std::size_t i = n; i < n + guard; ++i)
                        if (out[i] != (in_place ? value(me_world, i) : -5) && bad++ == 0)
                            ADD_FAILURE() << "scan of " << n << " ints wrote element " << i << " past the end";
                    EXPECT_EQ(bad, 0u);
                }
                ishmem_barrier_all();
            }
        }
    }
}

// int64 sums (exact) and double sums (which round, and which every member must get bit for bit
// alike) of each of `sizes` elements over the world and the strided team.
void check_sums_alike_on_every_member(std::initializer_list<std::size_t> sizes) {
    const std::size_t most = std::max(sizes);
    sym_array<int64_t> src(most), dst(most);
    sym_array<double> dsrc(most), ddst(most);
    sym_array<uint64_t> digest(1), digests(64);
    ASSERT_TRUE(src && dst && dsrc && ddst && digest && digests);
    ASSERT_LE(ishmem_n_pes(), 64);
    const int me_world = ishmem_my_pe();
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (std::size_t nelems : sizes) {
            for (std::size_t i = 0; i < nelems; ++i) {
                src[i] = operand(me_world, i);
                dsrc[i] = 1.0 / (me_world + 3) + static_cast<double>(i) * 1e-7;
            }
            ishmem_barrier_all();
            if (me >= 0) {
                EXPECT_EQ(ishmem_int64_sum_reduce(team, dst.get(), src.get(), nelems), 0);
                EXPECT_EQ(ishmem_double_sum_reduce(team, ddst.get(), dsrc.get(), nelems), 0);
                std::size_t bad = 0;
                uint64_t h = 0;
                for (std::size_t i = 0; i < nelems; ++i) {
                    int64_t want = 0;
                    double dwant = 0;
                    for (int j = 0; j < n; ++j) {
                        const int pe = ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD);
                        want += operand(pe, i);
                        dwant += 1.0 / (pe + 3) + static_cast<double>(i) * 1e-7;
                    }
                    if (dst[i] != want && bad++ == 0)
                        ADD_FAILURE() << "int64 sum of " << nelems << ", element " << i << ": " << dst[i]
                                      << " != " << want;
                    if (std::abs(ddst[i] - dwant) > 1e-12 * std::abs(dwant) && bad++ == 0)
                        ADD_FAILURE() << "double sum of " << nelems << ", element " << i << ": " << ddst[i]
                                      << " != " << dwant;
                    uint64_t bits = 0;
                    std::memcpy(&bits, &ddst[i], sizeof bits);
                    h = h * 1000003 ^ bits;
                }
                EXPECT_EQ(bad, 0u) << "over a team of " << n;
                digest[0] = h;
                EXPECT_EQ(ishmem_uint64_fcollect(team, digests.get(), digest.get(), 1), 0);
                for (int j = 0; j < n; ++j)
                    EXPECT_EQ(digests[j], h)
                        << "the double sums of " << nelems << " elements differ in their bits between team PE " << j
                        << " and team PE " << me << " (of " << n << ")";
            }
            ishmem_barrier_all();
        }
    }
}

// Reductions of 8 KiB to 256 KiB a member, the sizes that the MPI transport reduces with its own
// messages (recursive doubling; on 3 members one pair folds first).
TEST(CollLarge, MidSizeReductionsSameBitsOnEveryMember) {
    check_sums_alike_on_every_member({1100, 9000, 30000});  // up to 240 KB
}

// Reductions just below, at and above 1 KiB a member, where a team with as many members on every
// node turns from two levels to its rails (reduce_rails_min), and a slice of the rails' that ends
// off a 64-byte line (513).
TEST(CollLarge, ReductionsAroundTheRailsTurnSameBitsOnEveryMember) {
    check_sums_alike_on_every_member({127, 128, 129, 513});
}

// Reductions around 512 KiB a member and above, where a team whose node groups save the transport
// no rounds (1 + 2 + 1 PEs) turns from two levels to one over all members (reduce_flat_min), and
// the transport's halving or ring reduces: just below, at and above the turn, and 1.1 MB.
TEST(CollLarge, LargeReductionsSameBitsOnEveryMember) {
    check_sums_alike_on_every_member({65535, 65536, 65539, 140001});
}

// A collect whose blocks differ by orders of magnitude, the first PE's empty, an odd PE's 1.2 MB,
// then small ones again: over several nodes each member sizes its buffer by its own block and must
// take larger ones as they come, and the path that the last call's sizes chose (two levels or flat,
// messages or MPI's) must be the same on every member. World and strided team; every element and
// the bytes past the end checked.
TEST(CollLarge, CollectOfVeryUnequalBlocks) {
    int round = 0;
    auto count = [&round](int k) -> std::size_t {
        if (round >= 2) return k % 3 == 1 ? 40 + k : 1;
        return k == 0 ? 0 : k % 2 ? 150000 + 1000 * k : 3;
    };
    const int me_world = ishmem_my_pe(), npes = ishmem_n_pes();
    std::size_t total_max = 0, each_max = 1;
    for (round = 0; round < 4; round += 2) {  // the large blocks' and the small ones' sizes
        std::size_t total = 0;
        for (int k = 0; k < npes; ++k) {
            total += count(k);
            each_max = std::max(each_max, count(k));
        }
        total_max = std::max(total_max, total);
    }
    sym_array<int64_t> src(each_max), dst(total_max + 8);
    ASSERT_TRUE(src && dst);
    constexpr int64_t untouched = -5;
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (round = 0; round < 4; ++round) {
            for (std::size_t i = 0; i < total_max + 8; ++i) dst[i] = untouched;
            if (me >= 0)
                for (std::size_t i = 0; i < count(me); ++i)
                    src[i] = static_cast<int64_t>(me_world) * 1000003 + static_cast<int64_t>(i) + round;
            ishmem_barrier_all();
            if (me >= 0) {
                EXPECT_EQ(ishmem_int64_collect(team, dst.get(), src.get(), count(me)), 0);
                std::size_t at = 0, bad = 0;
                for (int j = 0; j < n; ++j) {
                    const int pe = ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD);
                    for (std::size_t i = 0; i < count(j); ++i, ++at)
                        if (dst[at] != static_cast<int64_t>(pe) * 1000003 + static_cast<int64_t>(i) + round &&
                            bad++ == 0)
                            ADD_FAILURE() << "round " << round << ", block of team PE " << j << ", element " << i
                                          << ": " << dst[at];
                }
                for (std::size_t i = at; i < at + 8; ++i)
                    if (dst[i] != untouched && bad++ == 0)
                        ADD_FAILURE() << "dest past the " << at << " collected elements was written";
                EXPECT_EQ(bad, 0u) << "collect over a team of " << n;
            }
            ishmem_barrier_all();
        }
    }
}

// Collects of blocks around the sizes that go as several messages across nodes (above 60 KiB,
// 32 KiB pieces, up to 4 of them, after a message with the length), each member's different in
// each round: exact multiples of a piece, one byte over, the largest whole message and one byte
// over it, one over the pieces' reach, and an empty block among them. World and strided team;
// every byte and the bytes past the end checked.
TEST(CollLarge, CollectOfBlocksInPieces) {
    constexpr std::size_t piece = 32768, whole = 61440;
    const std::size_t sizes[] = {piece,         piece + 1, whole,         whole + 1, 2 * piece,
                                 3 * piece + 5, 4 * piece, 4 * piece + 1, 0,         100};
    constexpr int nsizes = sizeof sizes / sizeof sizes[0];
    const int me_world = ishmem_my_pe(), npes = ishmem_n_pes();
    const std::size_t most = 4 * piece + 1, room = most * static_cast<std::size_t>(npes) + 64;
    sym_array<unsigned char> src(most), dst(room);
    ASSERT_TRUE(src && dst);
    auto byte_of = [](int pe, std::size_t i, int round) {
        // (i >> 15 tells the pieces apart: i * 7 alone repeats every 256 bytes)
        return static_cast<unsigned char>((i ^ (i >> 8) ^ (i >> 15)) * 7 + static_cast<std::size_t>(pe) * 59 +
                                          static_cast<std::size_t>(round) * 3 + 1);
    };
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (int round = 0; round < nsizes; ++round) {  // as many barriers on non-members
            auto bytes_of = [&](int j) { return sizes[(j + round) % nsizes]; };
            std::memset(dst.get(), 0xee, room);
            if (me >= 0)
                for (std::size_t i = 0; i < bytes_of(me); ++i) src[i] = byte_of(me_world, i, round);
            ishmem_barrier_all();
            if (me >= 0) {
                EXPECT_EQ(ishmem_collectmem(team, dst.get(), src.get(), bytes_of(me)), 0);
                std::size_t first = 0, at = 0;
                const std::size_t bad = bad_collected(
                    dst.get(), room, team, bytes_of, [&](int pe, std::size_t i) { return byte_of(pe, i, round); },
                    &first, &at);
                EXPECT_EQ(bad, 0u) << "collectmem round " << round << " over a team of " << n << ": first bad byte "
                                   << first << " of " << at;
            }
            ishmem_barrier_all();
        }
    }
}

// A 1 MiB broadcast and fcollect, through the _work_group form with 64 threads.
TEST(CollLarge, BigCopiesInWorkGroups) {
    constexpr std::size_t bytes = std::size_t{1} << 20;
    const int n = ishmem_n_pes(), me = ishmem_my_pe();
    sym_array<unsigned char> src(bytes), dst(bytes * n);
    ASSERT_TRUE(src && dst);
    for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 31 + me * 7);
    ishmem_barrier_all();
    const int root = n - 1;
    EXPECT_EQ(
        ishmem_testing::run_in_group_returning(
            64, [&](const auto& g) { return ishmemx_broadcastmem_work_group(dst.get(), src.get(), bytes, root, g); }),
        0);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < bytes; ++i)
        if (dst[i] != static_cast<unsigned char>(i * 31 + root * 7)) ++bad;
    EXPECT_EQ(bad, 0u) << "broadcastmem of 1 MiB from PE " << root;
    EXPECT_EQ(ishmem_testing::run_in_group_returning(
                  64, [&](const auto& g) { return ishmemx_fcollectmem_work_group(dst.get(), src.get(), bytes, g); }),
              0);
    bad = 0;
    for (int pe = 0; pe < n; ++pe)
        for (std::size_t i = 0; i < bytes; ++i)
            if (dst[pe * bytes + i] != static_cast<unsigned char>(i * 31 + pe * 7)) ++bad;
    EXPECT_EQ(bad, 0u) << "fcollectmem of 1 MiB per PE";
    ishmem_barrier_all();
}

// Broadcasts of each of `sizes` bytes one after another into the same dest, from every root in
// turn, with no barrier between them, on the world and the strided team. The source changes
// between calls, as a root may change it once its call returns; the 64 bytes past the largest
// size must stay untouched.
void check_broadcasts_in_a_row(std::initializer_list<std::size_t> sizes) {
    const std::size_t most = *std::max_element(sizes.begin(), sizes.end());
    const int me_world = ishmem_my_pe();
    sym_array<unsigned char> src(most), dst(most + 64);
    ASSERT_TRUE(src && dst);
    auto byte_of = [](int pe, std::size_t i, int call) {
        return static_cast<unsigned char>((i >> 12) * 7 + i * 3 + static_cast<std::size_t>(pe) * 53 +
                                          static_cast<std::size_t>(call) * 29);
    };
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        std::memset(dst.get(), 0xee, most + 64);
        ishmem_barrier_all();
        if (me < 0) continue;
        int call = 0;
        for (std::size_t bytes : sizes) {
            for (int root = 0; root < n; ++root, ++call) {
                for (std::size_t i = 0; i < bytes; ++i) src[i] = byte_of(me_world, i, call);
                EXPECT_EQ(ishmem_broadcastmem(team, dst.get(), src.get(), bytes, root), 0);
                const int from = ishmem_team_translate_pe(team, root, ISHMEM_TEAM_WORLD);
                std::size_t bad = 0, first = 0;
                for (std::size_t i = 0; i < bytes; ++i)
                    if (dst[i] != byte_of(from, i, call) && bad++ == 0) first = i;
                for (std::size_t i = most; i < most + 64; ++i)
                    if (dst[i] != 0xee && bad++ == 0) first = i;
                EXPECT_EQ(bad, 0u) << "broadcastmem " << call << " of " << bytes << " bytes from team PE " << root
                                   << " over a team of " << n << ": first bad byte " << first;
            }
        }
    }
    ishmem_barrier_all();
}

// Large ones (across nodes: the node steps and the leaders' broadcast, whose roles change with the
// root, in a row; 200001 and 262144 bytes go down the transport's chain of segments; on 2 members
// everything from 200001 bytes to 4 MiB is one message, 4 MiB + 1 MPI_Ibcast; from 512 KiB one
// chain of all members on 3 or 4 single-PE nodes, whose 256 KiB segments of 1 MiB + 5 and 3 MiB +
// 3 bytes fill the sends under way and go on as they finish; else MPI_Ibcast).
TEST(CollLarge, LargeBroadcastsInARowFromEveryRoot) {
    check_broadcasts_in_a_row({std::size_t{200001}, std::size_t{256} << 10, std::size_t{512} << 10, std::size_t{700001},
                               (std::size_t{1} << 20) + 5, (std::size_t{3} << 20) + 3, std::size_t{4} << 20,
                               (std::size_t{4} << 20) + 1});
}

// Small ones, around the sizes where the transport's broadcast on 3 members (3 single-PE nodes,
// or the leaders of 3 nodes) goes from one chain (below 32 KiB) to its binomial tree, and a
// tree's piece boundaries.
TEST(CollLarge, SmallBroadcastsInARowFromEveryRoot) {
    check_broadcasts_in_a_row({std::size_t{1}, std::size_t{8}, std::size_t{255}, std::size_t{4096}, std::size_t{32767},
                               std::size_t{32768}, std::size_t{32769}, std::size_t{65536}});
}

// Broadcasts of sizes that are no multiple of any piece or page, from every root, and one of over
// 5 MB (across nodes a chain of pieces, more of them than the members keep in flight), on the
// world and the strided team; fcollects around the size where two levels give way to one.
TEST(CollLarge, BroadcastsAndFcollectsOfOddSizes) {
    constexpr std::size_t huge = (std::size_t{5} << 20) + 3;
    const int me_world = ishmem_my_pe(), npes = ishmem_n_pes();
    sym_array<unsigned char> src(huge), dst(huge);
    ASSERT_TRUE(src && dst);
    auto byte_of = [](int pe, std::size_t i, std::size_t bytes) {
        return static_cast<unsigned char>(i * 13 + static_cast<std::size_t>(pe) * 101 + bytes);
    };
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (std::size_t bytes : {std::size_t{65537}, std::size_t{200001}, huge}) {
            for (int root = 0; root < npes; ++root) {  // as many barriers on non-members (n -1 there)
                const bool runs = me >= 0 && root < n && (bytes != huge || root == n - 1);
                for (std::size_t i = 0; i < bytes; ++i) src[i] = byte_of(me_world, i, bytes);
                std::memset(dst.get(), 0xee, huge);
                ishmem_barrier_all();
                if (runs) {
                    EXPECT_EQ(ishmem_broadcastmem(team, dst.get(), src.get(), bytes, root), 0);
                    const int from = ishmem_team_translate_pe(team, root, ISHMEM_TEAM_WORLD);
                    std::size_t bad = 0, first = 0;
                    for (std::size_t i = 0; i < bytes; ++i)
                        if (dst[i] != byte_of(from, i, bytes) && bad++ == 0) first = i;
                    for (std::size_t i = bytes; i < huge; ++i)
                        if (dst[i] != 0xee && bad++ == 0) first = i;
                    EXPECT_EQ(bad, 0u) << "broadcastmem of " << bytes << " bytes from team PE " << root
                                       << " over a team of " << n << ": first bad byte " << first;
                }
                ishmem_barrier_all();
            }
        }
        // Per member: the largest total on two levels, and just over it (one level).
        for (std::size_t total : {std::size_t{512} << 10, (std::size_t{512} << 10) + 4096}) {
            if (me < 0) {
                ishmem_barrier_all();
                continue;
            }
            const std::size_t bytes = total / static_cast<std::size_t>(n);
            for (std::size_t i = 0; i < bytes; ++i) src[i] = byte_of(me_world, i, bytes);
            ishmem_barrier_all();
            EXPECT_EQ(ishmem_fcollectmem(team, dst.get(), src.get(), bytes), 0);
            std::size_t bad = 0;
            for (int j = 0; j < n; ++j) {
                const int pe = ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD);
                for (std::size_t i = 0; i < bytes; ++i)
                    if (dst[static_cast<std::size_t>(j) * bytes + i] != byte_of(pe, i, bytes)) ++bad;
            }
            EXPECT_EQ(bad, 0u) << "fcollectmem of " << bytes << " bytes per member over a team of " << n;
        }
        ishmem_barrier_all();
    }
}

// Fcollects of sizes around the ones where, across nodes, a member's block goes whole (up to 60
// KiB), in 32 KiB pieces, and where the messages give way to MPI_Iallgather (over 64 KiB a
// member); each round's bytes differ from the last's. World and strided team; every byte and the
// bytes past the end checked.
TEST(CollLarge, FcollectsAroundTheMessageLimits) {
    const std::size_t sizes[] = {8193, 32768, 61440, 61441, 65535, 65536, 65537, 8};
    const int me_world = ishmem_my_pe(), npes = ishmem_n_pes();
    constexpr std::size_t most = 65537;
    const std::size_t room = most * static_cast<std::size_t>(npes) + 64;
    sym_array<unsigned char> src(most), dst(room);
    ASSERT_TRUE(src && dst);
    auto byte_of = [](int pe, std::size_t i, std::size_t bytes) {
        return static_cast<unsigned char>((i ^ (i >> 9) ^ (i >> 15)) * 11 + static_cast<std::size_t>(pe) * 37 + bytes);
    };
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, strided_test_team()}) {
        const int me = ishmem_team_my_pe(team), n = ishmem_team_n_pes(team);
        for (std::size_t bytes : sizes) {  // as many barriers on non-members
            std::memset(dst.get(), 0xee, room);
            for (std::size_t i = 0; i < bytes; ++i) src[i] = byte_of(me_world, i, bytes);
            ishmem_barrier_all();
            if (me >= 0) {
                EXPECT_EQ(ishmem_fcollectmem(team, dst.get(), src.get(), bytes), 0);
                std::size_t first = 0, end = 0;
                const std::size_t bad = bad_collected(
                    dst.get(), room, team, [&](int) { return bytes; },
                    [&](int pe, std::size_t i) { return byte_of(pe, i, bytes); }, &first, &end);
                EXPECT_EQ(bad, 0u) << "fcollectmem of " << bytes << " bytes a member over a team of " << n
                                   << ": first bad byte " << first;
            }
            ishmem_barrier_all();
        }
    }
}

}  // namespace
