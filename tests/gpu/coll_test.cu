// Data collectives on the CUDA backend, beyond the generated per-entry-point cases: device calls
// from a thread and from a block over the world, a strided team, and the team of every PE but the
// first (size 3 on four PEs); broadcast from every root; collect with a different count on each PE,
// 0 included; nelems 0; reductions in place and into another buffer; scans; back-to-back calls on
// one team without a barrier between them; teams made and destroyed repeatedly; the host-called
// and stream (_on_queue) forms on large arrays, which the library spreads over many blocks; and
// fcollects from inside their dest, which fail. PEs outside a team find their buffers untouched.
#include <string>
#include <vector>

#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;
namespace cg = cooperative_groups;

class GpuColl : public GpuTest {};

constexpr int untouched = -7;  // every dest starts so; nothing past the result may change

int value(int pe, long long i) { return pattern(pe, 3, i) % 100000; }

// A team and its world PE numbers, or not a member.
struct team_info {
    ishmem_team_t team;
    std::string name;
    int me = -1, size = 0;
    std::vector<int> pes;
    explicit team_info(ishmem_team_t t, std::string what) : team(t), name(std::move(what)) {
        me = ishmem_team_my_pe(t);
        size = ishmem_team_n_pes(t);
        for (int k = 0; k < size; ++k) pes.push_back(ishmem_team_translate_pe(t, k, ISHMEM_TEAM_WORLD));
    }
    bool member() const { return me >= 0; }
};

// Block forms when Block, else the thread forms; each writes its return value to ret.
enum which : int { w_broadcast, w_fcollect, w_collect, w_alltoall, w_sum_in_place, w_max_to_other, w_inscan, w_exscan };

template <bool Block>
__global__ void run(which what, ishmem_team_t team, int* dest, int* src, size_t n, int root, int* ret) {
    int r = 0;
    if constexpr (Block) {
        auto b = cg::this_thread_block();
        switch (what) {
            case w_broadcast:
                r = ishmemx_int_broadcast_work_group(team, dest, src, n, root, b);
                break;
            case w_fcollect:
                r = ishmemx_int_fcollect_work_group(team, dest, src, n, b);
                break;
            case w_collect:
                r = ishmemx_int_collect_work_group(team, dest, src, n, b);
                break;
            case w_alltoall:
                r = ishmemx_int_alltoall_work_group(team, dest, src, n, b);
                break;
            case w_sum_in_place:
                r = ishmemx_int_sum_reduce_work_group(team, src, src, n, b);
                break;
            case w_max_to_other:
                r = ishmemx_int_max_reduce_work_group(team, dest, src, n, b);
                break;
            default:
                r = -100;
                break;  // scans have no _work_group form
        }
        if (b.thread_rank() == 0) *ret = r;
    } else {
        switch (what) {
            case w_broadcast:
                r = ishmem_int_broadcast(team, dest, src, n, root);
                break;
            case w_fcollect:
                r = ishmem_int_fcollect(team, dest, src, n);
                break;
            case w_collect:
                r = ishmem_int_collect(team, dest, src, n);
                break;
            case w_alltoall:
                r = ishmem_int_alltoall(team, dest, src, n);
                break;
            case w_sum_in_place:
                r = ishmem_int_sum_reduce(team, src, src, n);
                break;
            case w_max_to_other:
                r = ishmem_int_max_reduce(team, dest, src, n);
                break;
            case w_inscan:
                r = ishmem_int_sum_inscan(team, dest, src, n);
                break;
            case w_exscan:
                r = ishmem_int_sum_exscan(team, dest, src, n);
                break;
        }
        *ret = r;
    }
}

// One call on every member (non-members only take part in the allocations and barriers, and find
// their buffers untouched), checked against want(i) over dest's first `results` elements (src for
// in place) and `untouched` after them. The buffers have the same size on every PE (symmetric
// allocation), enough for every call of every_collective. Every PE makes the same collective calls
// here, whatever its part: a member that sits out a round (a root past the team's size) passes
// takes_part = false and is checked as a non-member.
template <class Want> void check_call(const team_info& t, bool takes_part, bool block, which what, size_t nelems,
                                      size_t contribution, int root, size_t results, Want want,
                                      const std::string& what_text) {
    SCOPED_TRACE(what_text + " on " + t.name + (block ? " from a block" : " from a thread") + ", nelems " +
                 std::to_string(nelems));
    const int me = ishmem_my_pe();
    const size_t extent = 300 * static_cast<size_t>(ishmem_n_pes()) + 8;
    gpu_sym<int> src(extent + 4), dest(extent + 4);
    ASSERT_TRUE(src && dest);
    std::vector<int> s(extent + 4);
    for (size_t i = 0; i < s.size(); ++i) s[i] = value(me, static_cast<long long>(i));
    src.write(s);
    dest.fill(untouched);
    managed<int> ret(1);
    ret[0] = -1;
    ishmem_barrier_all();
    if (takes_part) {
        stream st;
        if (block)
            run<true><<<1, 128, 0, st>>>(what, t.team, dest.get(), src.get(), contribution, root, ret.get());
        else
            run<false><<<1, 1, 0, st>>>(what, t.team, dest.get(), src.get(), contribution, root, ret.get());
        GPU_LAUNCHED("collective kernel");
        sync(st, "a collective in a kernel");
        EXPECT_EQ(ret[0], 0) << "the return value";
        const bool in_place = what == w_sum_in_place;
        const std::vector<int> got = (in_place ? src : dest).read(0, extent + 4);
        expect_elements(std::vector<int>(got.begin(), got.begin() + results), want, "result");
        if (!in_place)
            expect_elements(
                std::vector<int>(got.begin() + results, got.end()), [](size_t) { return untouched; },
                "past the result");
    }
    ishmem_barrier_all();
    if (!takes_part) {
        expect_elements(
            dest.read(), [](size_t) { return untouched; }, "dest of a PE outside the team or the round");
        expect_elements(
            src.read(), [&](size_t i) { return value(me, static_cast<long long>(i)); },
            "source of a PE outside the team");
    }
    (void)nelems;
}

void every_collective(const team_info& t) {
    for (bool block : {false, true}) {
        for (size_t nelems : {size_t{0}, size_t{1}, size_t{300}}) {
            // Every root; as many rounds on every PE (a team has at most all of them), so that the
            // allocations and barriers match.
            for (int root = 0; root < ishmem_n_pes(); ++root) {
                check_call(
                    t, t.member() && root < t.size, block, w_broadcast, nelems, nelems, root, nelems,
                    [&](size_t i) { return value(t.pes[root], static_cast<long long>(i)); },
                    "broadcast from team PE " + std::to_string(root));
            }
            const size_t all = nelems * static_cast<size_t>(t.size > 0 ? t.size : 1);
            check_call(
                t, t.member(), block, w_fcollect, nelems, nelems, 0, all,
                [&](size_t i) { return value(t.pes[i / nelems], static_cast<long long>(i % nelems)); }, "fcollect");
            check_call(
                t, t.member(), block, w_alltoall, nelems, nelems, 0, all,
                [&](size_t i) { return value(t.pes[i / nelems], static_cast<long long>(t.me * nelems + i % nelems)); },
                "alltoall");
            // Sums and maxima over the members, in place and into another buffer.
            check_call(
                t, t.member(), block, w_sum_in_place, nelems, nelems, 0, nelems,
                [&](size_t i) {
                    int s = 0;
                    for (int pe : t.pes) s += value(pe, static_cast<long long>(i));
                    return s;
                },
                "sum_reduce in place");
            check_call(
                t, t.member(), block, w_max_to_other, nelems, nelems, 0, nelems,
                [&](size_t i) {
                    int m = value(t.pes[0], static_cast<long long>(i));
                    for (int pe : t.pes) m = std::max(m, value(pe, static_cast<long long>(i)));
                    return m;
                },
                "max_reduce");
        }
        // collect: team PE k contributes (k * 5) % 7 elements (team PE 0 none).
        auto count = [](int k) { return static_cast<size_t>((k * 5) % 7); };
        size_t total = 0;
        std::vector<size_t> offset;
        for (int k = 0; k < t.size; ++k) {
            offset.push_back(total);
            total += count(k);
        }
        check_call(
            t, t.member(), block, w_collect, 0, t.member() ? count(t.me) : 0, 0, total,
            [&](size_t i) {
                int k = 0;
                while (k + 1 < t.size && offset[k + 1] <= i) ++k;
                return value(t.pes[k], static_cast<long long>(i - offset[k]));
            },
            "collect with counts (k * 5) % 7");
    }
    for (size_t nelems : {size_t{0}, size_t{5}, size_t{257}})
        for (bool inclusive : {true, false})
            check_call(
                t, t.member(), false, inclusive ? w_inscan : w_exscan, nelems, nelems, 0, nelems,
                [&](size_t i) {
                    int s = 0;
                    for (int k = 0; k < (inclusive ? t.me + 1 : t.me); ++k)
                        s += value(t.pes[k], static_cast<long long>(i));
                    return s;
                },
                inclusive ? "sum_inscan" : "sum_exscan");
}

TEST_F(GpuColl, EveryCollectiveInKernelsOnThreeTeams) {
    every_collective(team_info(ISHMEM_TEAM_WORLD, "the world"));
    // Every other PE from 0; every PE but the first (size 3 with four PEs; the world with one).
    const int others_start = n > 1 ? 1 : 0;
    ishmem_team_t even = ISHMEM_TEAM_INVALID, others = ISHMEM_TEAM_INVALID;
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even), 0);
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, others_start, 1, n - others_start, nullptr, 0, &others), 0);
    every_collective(team_info(even, "the even PEs"));
    every_collective(team_info(others, "every PE but the first"));
    ishmem_team_destroy(even);
    ishmem_team_destroy(others);
}

// Back to back on one team, no barrier between: a fast PE's next call must not disturb a slow PE's
// current one (each call's flags carry its number).
__global__ void back_to_back(ishmem_team_t team, int* a, int* b, int rounds, int me_t, int n_t, report_data* rep,
                             int* ret) {
    auto blk = cg::this_thread_block();
    int bad = 0;
    for (int r = 1; r <= rounds; ++r) {
        for (int i = blk.thread_rank(); i < 64; i += blk.num_threads()) a[i] = r * 1000 + me_t;
        bad |= ishmemx_int_fcollect_work_group(team, b, a, 64, blk);
        for (int k = 0; k < n_t; ++k)
            for (int i = blk.thread_rank(); i < 64; i += blk.num_threads())
                DEV_EXPECT_EQ(rep, b[k * 64 + i], r * 1000 + k, r * 100000 + k * 64 + i);
        bad |= ishmemx_int_sum_reduce_work_group(team, a, a, 64, blk);
        for (int i = blk.thread_rank(); i < 64; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, a[i], n_t * r * 1000 + n_t * (n_t - 1) / 2, r);
        blk.sync();
    }
    if (blk.thread_rank() == 0) *ret = bad;
}

TEST_F(GpuColl, BackToBackAndOnRepeatedlyMadeTeams) {
    gpu_sym<int> a(64), b(64 * 4 + 64);
    ASSERT_TRUE(a && b);
    dev_report rep;
    managed<int> ret(1);
    for (int round = 0; round < 8; ++round) {
        // Alternately the world, and every PE from round % n (as many as fit).
        ishmem_team_t team = ISHMEM_TEAM_WORLD;
        if (round % 2 == 1) {
            const int start = n > 1 ? round % n : 0;
            ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, start, 1, n - start, nullptr, 0, &team), 0);
        }
        const int tme = ishmem_team_my_pe(team), tn = ishmem_team_n_pes(team);
        ishmem_barrier_all();
        if (tme >= 0) {
            stream st;
            ret[0] = -1;
            back_to_back<<<1, 96, 0, st>>>(team, a.get(), b.get(), 25, tme, tn, rep, ret.get());
            GPU_LAUNCHED("back_to_back");
            sync(st, "collectives back to back");
            rep.expect_clean("fcollect and sum_reduce back to back, round " + std::to_string(round));
            EXPECT_EQ(ret[0], 0);
        }
        ishmem_barrier_all();
        if (team != ISHMEM_TEAM_WORLD) ishmem_team_destroy(team);
    }
}

// Broadcasts from every root in turn between fcollect, sum_reduce and alltoall, back to back in one
// kernel: a broadcast's root waits for nobody, so it may run calls ahead of the others, and a small
// call's data waits in the receiver's ring until the receiver takes it; 200 rounds fill the ring
// several times over (each fill ends with a team barrier). Every result is checked before the
// next call.
__global__ void mixed_in_a_row(ishmem_team_t team, int* src, int* dst, int* all, int rounds, int me_t, int n_t,
                               report_data* rep, int* ret) {
    auto blk = cg::this_thread_block();
    int bad = 0;
    for (int r = 1; r <= rounds; ++r) {
        const int v = r * 1000 + me_t;
        for (int i = blk.thread_rank(); i < 64; i += blk.num_threads()) src[i] = v + i * 100000;
        for (int k = 0; k < 2; ++k) {
            const int root = (r + k) % n_t;
            bad |= ishmemx_int_broadcast_work_group(team, dst, src, 64, root, blk);
            for (int i = blk.thread_rank(); i < 64; i += blk.num_threads())
                DEV_EXPECT_EQ(rep, dst[i], r * 1000 + root + i * 100000, r * 10 + k);
        }
        bad |= ishmemx_int_fcollect_work_group(team, all, src, 16, blk);
        for (int i = blk.thread_rank(); i < 16 * n_t; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, all[i], r * 1000 + i / 16 + (i % 16) * 100000, r * 10 + 2);
        bad |= ishmemx_int_sum_reduce_work_group(team, dst, src, 64, blk);
        for (int i = blk.thread_rank(); i < 64; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, dst[i], n_t * (r * 1000 + i * 100000) + n_t * (n_t - 1) / 2, r * 10 + 3);
        bad |= ishmemx_int_alltoall_work_group(team, all, src, 8, blk);  // block m of src: src[8m, 8m + 8)
        for (int i = blk.thread_rank(); i < 8 * n_t; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, all[i], r * 1000 + i / 8 + (me_t * 8 + i % 8) * 100000, r * 10 + 4);
        blk.sync();
    }
    if (blk.thread_rank() == 0) *ret = bad;
}

TEST_F(GpuColl, BroadcastsFromEveryRootAmongOtherCallsInARow) {
    gpu_sym<int> src(64), dst(64), all(64 * 4);
    ASSERT_TRUE(src && dst && all);
    dev_report rep;
    managed<int> ret(1);
    const int others_start = n > 1 ? 1 : 0;
    ishmem_team_t others = ISHMEM_TEAM_INVALID;
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, others_start, 1, n - others_start, nullptr, 0, &others), 0);
    const int rounds = sized_for_layout(200, 40);  // every root many times either way
    for (ishmem_team_t team : {ISHMEM_TEAM_WORLD, others}) {
        const int tme = ishmem_team_my_pe(team), tn = ishmem_team_n_pes(team);
        ishmem_barrier_all();
        if (tme >= 0) {
            stream st;
            ret[0] = -1;
            mixed_in_a_row<<<1, 128, 0, st>>>(team, src.get(), dst.get(), all.get(), rounds, tme, tn, rep, ret.get());
            GPU_LAUNCHED("mixed_in_a_row");
            sync(st, "broadcasts among other collectives in a row");
            rep.expect_clean(std::to_string(rounds) + " rounds of broadcast x2, fcollect, sum_reduce, alltoall on " +
                             (team == ISHMEM_TEAM_WORLD ? "the world" : "every PE but the first"));
            EXPECT_EQ(ret[0], 0);
        }
        ishmem_barrier_all();
    }
    ishmem_team_destroy(others);
}

// Sets this PE's count of data collectives on a team's slot (a fresh team: every member sets the
// same), as if that many calls had been made: the tags of the ring words come from it.
__global__ void set_call_count(ishmem_team_t team, unsigned long long calls) {
    ishmemi::dev::sync_slot(ishmemi::dev::dstate.my_pe, team)->calls.value = calls;
}

// fcollect and a sum of small arrays, round after round, each result checked; values never 0.
__global__ void small_rounds(ishmem_team_t team, int* src, int* all, int* sum, int rounds, int me_t, int n_t,
                             report_data* rep, int* ret) {
    auto blk = cg::this_thread_block();
    int bad = 0;
    for (int r = 1; r <= rounds; ++r) {
        for (int i = blk.thread_rank(); i < 16; i += blk.num_threads()) src[i] = r * 1000 + me_t * 100 + i + 1;
        bad |= ishmemx_int_fcollect_work_group(team, all, src, 16, blk);
        for (int i = blk.thread_rank(); i < 16 * n_t; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, all[i], r * 1000 + (i / 16) * 100 + i % 16 + 1, r * 10);
        bad |= ishmemx_int_sum_reduce_work_group(team, sum, src, 16, blk);
        for (int i = blk.thread_rank(); i < 16; i += blk.num_threads())
            DEV_EXPECT_EQ(rep, sum[i], n_t * (r * 1000 + i + 1) + 100 * n_t * (n_t - 1) / 2, r * 10 + 1);
        blk.sync();
    }
    if (blk.thread_rank() == 0) *ret = bad;
}

// A team's calls are numbered; ring words carry the number cut to 32 bits, and a word still zero
// must never pass for a call's data. Starting a fresh team 20 calls short of 2^32 takes the numbers
// (and the 32-bit tags) past the wrap, where a call's tag would be 0 if cut plainly.
TEST_F(GpuColl, SmallCallsGoOnPastTwoToThe32CallsOnATeam) {
    gpu_sym<int> src(16), all(16 * 4), sum(16);
    ASSERT_TRUE(src && all && sum);
    ishmem_team_t team = ISHMEM_TEAM_INVALID;
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &team), 0);
    const unsigned long long start = (1ull << 32) - 20;
    {
        stream st;
        set_call_count<<<1, 1, 0, st>>>(team, start);
        GPU_LAUNCHED("set_call_count");
        sync(st, "setting the call count");
    }
    ishmem_barrier_all();
    dev_report rep;
    managed<int> ret(1);
    ret[0] = -1;
    {
        stream st;
        small_rounds<<<1, 128, 0, st>>>(team, src.get(), all.get(), sum.get(), 20, me, n, rep, ret.get());
        GPU_LAUNCHED("small_rounds");
        sync(st, "fcollect and sum_reduce across call 2^32");
    }
    rep.expect_clean("20 rounds of fcollect and sum_reduce, calls 2^32 - 19 to 2^32 + 20");
    EXPECT_EQ(ret[0], 0);
    ishmem_barrier_all();
    ishmem_team_destroy(team);
}

// A broadcast from a kernel by one thread, the first warp or the whole block; ret: its return value.
enum caller : int { by_thread, by_warp, by_block, by_host, by_stream };
__global__ void broadcast_by(caller who, ishmem_team_t team, int* dest, const int* src, size_t n, int root, int* ret) {
    auto block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    int r = 0;
    if (who == by_block)
        r = ishmemx_int_broadcast_work_group(team, dest, src, n, root, block);
    else if (who == by_warp && warp.meta_group_rank() == 0)
        r = ishmemx_int_broadcast_work_group(team, dest, src, n, root, warp);
    else if (who == by_thread && block.thread_rank() == 0)
        r = ishmem_int_broadcast(team, dest, src, n, root);
    if (block.thread_rank() == 0) *ret = r;
}

// Broadcasts larger than the stage takes. On three or more members the root hands each piece to
// one other member, which passes it on (ishmem/cuda/coll/broadcast.cuh, broadcast_relayed); on two the root writes
// the whole array. Every root, on the world and on every PE but the first, called from a thread, a
// warp, a block, the host and a stream, in place and not, with an odd element count (the last piece
// shorter, and a tail narrower than the widest words). PEs outside the team or the round find their
// buffers untouched.
TEST_F(GpuColl, LargeBroadcastsFromEveryRootAndEveryCaller) {
    constexpr size_t nelems = 100003;  // 400,012 B: past the stage; in three pieces on four PEs
    gpu_sym<int> src(nelems + 4), dest(nelems + 4);
    ASSERT_TRUE(src && dest);
    std::vector<int> mine(nelems + 4);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = value(me, static_cast<long long>(i));
    const int others_start = n > 1 ? 1 : 0;
    ishmem_team_t others = ISHMEM_TEAM_INVALID;
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, others_start, 1, n - others_start, nullptr, 0, &others), 0);
    const char* caller_names[] = {"a thread", "a warp", "a block", "the host", "a stream"};
    for (const team_info& t :
         {team_info(ISHMEM_TEAM_WORLD, "the world"), team_info(others, "every PE but the first")}) {
        for (caller who : {by_thread, by_warp, by_block, by_host, by_stream}) {
            for (int root = 0; root < n; ++root) {  // as many rounds on every PE
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(std::string(in_place ? "in place, " : "") + "from " + caller_names[who] + " on " +
                                 t.name + ", team root " + std::to_string(root));
                    const bool takes_part = t.member() && root < t.size;
                    src.write(mine);
                    dest.fill(untouched);
                    int* to = in_place ? src.get() : dest.get();
                    ishmem_barrier_all();
                    if (takes_part) {
                        managed<int> ret(1);
                        ret[0] = -1;
                        stream st;
                        if (who == by_host) {
                            ret[0] = ishmem_int_broadcast(t.team, to, src.get(), nelems, root);
                        } else if (who == by_stream) {
                            ishmem::queue q(st.get());
                            ishmemx_int_broadcast_on_queue(t.team, to, src.get(), nelems, root, ret.get(), q).wait();
                        } else {
                            broadcast_by<<<1, 128, 0, st>>>(who, t.team, to, src.get(), nelems, root, ret.get());
                            GPU_LAUNCHED("broadcast_by");
                            sync(st, "a large broadcast in a kernel");
                        }
                        EXPECT_EQ(ret[0], 0) << "the return value";
                        const std::vector<int> got = (in_place ? src : dest).read();
                        expect_elements(
                            std::vector<int>(got.begin(), got.begin() + nelems),
                            [&](size_t i) { return value(t.pes[root], static_cast<long long>(i)); }, "result");
                        expect_elements(
                            std::vector<int>(got.begin() + nelems, got.end()),
                            [&](size_t i) { return in_place ? mine[nelems + i] : untouched; }, "past the result");
                    }
                    ishmem_barrier_all();
                    if (!takes_part) {
                        expect_elements(
                            dest.read(), [](size_t) { return untouched; }, "dest outside the team or round");
                        expect_elements(
                            src.read(), [&](size_t i) { return mine[i]; }, "source outside the team or round");
                    }
                }
            }
        }
    }
    ishmem_team_destroy(others);
}

// fcollects whose source lies inside dest (at its start, at its last element, a mem form one byte
// off): every form returns nonzero (with a line from the device) before it writes anything. Every
// PE finds it alike, so none is left waiting in the collective.
__global__ void fcollects_from_inside_dest(int* d, int n_pes, int* ret) {
    auto blk = cg::this_thread_block();
    const int block_rc = ishmemx_int_fcollect_work_group(ISHMEM_TEAM_WORLD, d, d + 4 * n_pes - 1, 4, blk);
    if (blk.thread_rank() == 0) {
        ret[0] = ishmem_int_fcollect(d, d, 4);
        ret[1] = block_rc;
        ret[2] = ishmem_fcollectmem(ISHMEM_TEAM_WORLD, d, reinterpret_cast<char*>(d) + 3, 16);
    }
}

TEST_F(GpuColl, FcollectFromInsideItsDestFails) {
    gpu_sym<int> d(64);
    ASSERT_TRUE(d);
    d.write(std::vector<int>(64, untouched));
    ishmem_barrier_all();
    managed<int> ret(3);
    ret[0] = ret[1] = ret[2] = 0;
    {
        stream st;
        fcollects_from_inside_dest<<<1, 64, 0, st>>>(d.get(), n, ret.get());
        GPU_LAUNCHED("fcollects_from_inside_dest");
        sync(st, "fcollects from inside dest");
    }
    EXPECT_NE(ret[0], 0) << "ishmem_int_fcollect from a thread, source == dest";
    EXPECT_NE(ret[1], 0) << "ishmemx_int_fcollect_work_group, source at dest's last element";
    EXPECT_NE(ret[2], 0) << "ishmem_fcollectmem from a thread, source 3 bytes into dest";
    EXPECT_NE(ishmem_int_fcollect(ISHMEM_TEAM_WORLD, d.get(), d.get() + 2, 4), 0) << "host-called, source 2 into dest";
    expect_elements(
        d.read(0, 64), [](size_t) { return untouched; }, "dest of the bad fcollects");
    ishmem_barrier_all();
}

// Host-called and stream forms on arrays big enough for many blocks, and nelems 0 there.
TEST_F(GpuColl, LargeArraysFromTheHostAndOnAStream) {
    // 12 MiB of int per PE (3 MiB over nodes, whose data the proxy stages through host memory)
    const size_t big = size_t{3} << sized_for_layout(20, 18);
    gpu_sym<int> src(big), dest(big * static_cast<size_t>(n) / 4 + big);
    ASSERT_TRUE(src && dest);
    std::vector<int> s(big);
    for (size_t i = 0; i < big; ++i) s[i] = value(me, static_cast<long long>(i));
    src.write(s);
    ishmem_barrier_all();

    ASSERT_EQ(ishmem_int_sum_reduce(dest.get(), src.get(), big), 0);
    expect_elements(
        dest.read(0, big),
        [&](size_t i) {
            int t = 0;
            for (int pe = 0; pe < n; ++pe) t += value(pe, static_cast<long long>(i));
            return t;
        },
        "host-called sum_reduce of 3 Mi ints");

    const size_t part = big / 4;
    ASSERT_EQ(ishmem_int_fcollect(dest.get(), src.get(), part), 0);
    expect_elements(
        dest.read(0, part * static_cast<size_t>(n)),
        [&](size_t i) { return value(static_cast<int>(i / part), static_cast<long long>(i % part)); },
        "host-called fcollect of 768 Ki ints per PE");

    {
        stream st;
        ishmem::queue q(st.get());
        managed<int> ret(2);
        ret[0] = ret[1] = -1;
        const int root = n - 1;
        auto e1 = ishmemx_int_broadcast_on_queue(dest.get(), src.get(), big, root, &ret[0], q);
        auto e2 = ishmemx_int_sum_reduce_on_queue(dest.get(), dest.get(), 0, &ret[1], q, {e1});
        e2.wait();
        EXPECT_EQ(ret[0], 0);
        EXPECT_EQ(ret[1], 0);
        expect_elements(
            dest.read(0, big), [&](size_t i) { return value(root, static_cast<long long>(i)); },
            "broadcast_on_queue of 3 Mi ints from the last PE");
    }
    ishmem_barrier_all();
}

}  // namespace
