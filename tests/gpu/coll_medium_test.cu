// Medium data collectives on the CUDA backend: calls too large for the ring and within the medium
// limits (ISHMEM_GPU_MEDIUM_BYTES for broadcast, _REDUCE_BYTES and _GATHER_BYTES: 256 KiB by
// default, and in the staged suite run, ishmem_gpu_tests_staged_np<K>, with the ring off) go through the
// team's stage (device_state.h, gpu_medium_slot) on the world and the first teams, and through the
// direct form on later teams and above the limits.
// Rounds cycle through a cut into one part of 16 KiB, one into 16 parts of 15 KiB, and calls larger
// than a stage half (about 800 KB: the direct form, between stage calls on the same team and
// buffers), so each stage half is reused under another cut; every round's values differ, so stale
// stage data shows.
// In kernels from a thread, a warp and a block (one kernel, every round: stale L1 lines would show);
// on streams (the library's kernel then runs a block per part) and from the host; and with some PEs
// on a stream while the others call from a block, which cut the same call differently.
#include <string>
#include <vector>

#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;
namespace cg = cooperative_groups;

class GpuCollMedium : public GpuTest {};

constexpr int untouched = -7;

// PE pe's element i in round r (positive; a sum over four PEs stays in int).
__host__ __device__ inline int mval(int pe, int r, long long i) { return pattern(pe, r, i) % 100000 + 1; }

// Elements of a broadcast's or reduction's array, and of a gather's block per member, in round r:
// 4099 ints (just past the ring's 16 KiB), close to the stage half's 256 KiB, or about 800 KB in all
// (past every medium limit).
__host__ __device__ inline size_t array_n(int r) { return r % 3 == 1 ? 4099 : r % 3 == 2 ? 60001 : 200001; }
__host__ __device__ inline size_t block_n(int r, int n_t) {
    return r % 3 == 1 ? 4099 : r % 3 == 2 ? 65536 / n_t - 5 : 200000 / n_t - 3;
}
constexpr size_t extent = 200001 + 64;  // of src and dst: every result plus a margin that must stay untouched

// Group kinds of the device forms: a thread (base forms), a warp tile, a block.
enum kind : int { k_thread, k_warp, k_block };

template <int Kind, class G>
__device__ int dev_broadcast(const G& g, ishmem_team_t t, int* d, const int* s, size_t n, int root) {
    if constexpr (Kind == k_thread)
        return ishmem_int_broadcast(t, d, s, n, root);
    else
        return ishmemx_int_broadcast_work_group(t, d, s, n, root, g);
}
template <int Kind, class G> __device__ int dev_fcollect(const G& g, ishmem_team_t t, int* d, const int* s, size_t n) {
    if constexpr (Kind == k_thread)
        return ishmem_int_fcollect(t, d, s, n);
    else
        return ishmemx_int_fcollect_work_group(t, d, s, n, g);
}
template <int Kind, class G> __device__ int dev_alltoall(const G& g, ishmem_team_t t, int* d, const int* s, size_t n) {
    if constexpr (Kind == k_thread)
        return ishmem_int_alltoall(t, d, s, n);
    else
        return ishmemx_int_alltoall_work_group(t, d, s, n, g);
}
template <int Kind, class G> __device__ int dev_sum(const G& g, ishmem_team_t t, int* d, const int* s, size_t n) {
    if constexpr (Kind == k_thread)
        return ishmem_int_sum_reduce(t, d, s, n);
    else
        return ishmemx_int_sum_reduce_work_group(t, d, s, n, g);
}
template <int Kind, class G> __device__ int dev_max(const G& g, ishmem_team_t t, int* d, const int* s, size_t n) {
    if constexpr (Kind == k_thread)
        return ishmem_int_max_reduce(t, d, s, n);
    else
        return ishmemx_int_max_reduce_work_group(t, d, s, n, g);
}

// Checks dst[0, count) against want(i) and dst[count, extent) against untouched, then refills dst.
template <class G, class Want>
__device__ void check_and_reset(const G& g, int* dst, size_t count, Want want, report_data* rep, long long tag) {
    for (size_t i = g.thread_rank(); i < extent; i += g.num_threads()) {
        DEV_EXPECT_EQ(rep, dst[i], i < count ? want(i) : untouched, tag * 1000000 + static_cast<long long>(i));
    }
    g.sync();
    for (size_t i = g.thread_rank(); i < extent; i += g.num_threads()) dst[i] = untouched;
    g.sync();
}

// `rounds` rounds of broadcast (root r % n_t), fcollect, alltoall, sum_reduce, then an in-place
// max_reduce, or with `scans` an inclusive and an exclusive sum scan (base forms: one thread), each
// result checked before the next call. pes: the team's world PEs.
template <int Kind, class G> __device__ void medium_rounds(const G& g, ishmem_team_t team, int* src, int* dst,
                                                           int rounds, int me_t, int n_t, const int* pes, bool scans,
                                                           report_data* rep, int* ret) {
    int bad = 0;
    for (size_t i = g.thread_rank(); i < extent; i += g.num_threads()) dst[i] = untouched;
    for (int r = 1; r <= rounds; ++r) {
        const size_t an = array_n(r), bn = block_n(r, n_t);
        auto fill = [&] {
            for (size_t i = g.thread_rank(); i < extent; i += g.num_threads()) src[i] = mval(pes[me_t], r, i);
            g.sync();
        };
        fill();
        const int root = r % n_t;
        bad |= dev_broadcast<Kind>(g, team, dst, src, an, root);
        check_and_reset(
            g, dst, an, [&](size_t i) { return mval(pes[root], r, i); }, rep, r * 10 + 1);
        bad |= dev_fcollect<Kind>(g, team, dst, src, bn);
        check_and_reset(
            g, dst, bn * n_t, [&](size_t i) { return mval(pes[i / bn], r, i % bn); }, rep, r * 10 + 2);
        bad |= dev_alltoall<Kind>(g, team, dst, src, bn);
        check_and_reset(
            g, dst, bn * n_t, [&](size_t i) { return mval(pes[i / bn], r, me_t * bn + i % bn); }, rep, r * 10 + 3);
        bad |= dev_sum<Kind>(g, team, dst, src, an);
        check_and_reset(
            g, dst, an,
            [&](size_t i) {
                int s = 0;
                for (int j = 0; j < n_t; ++j) s += mval(pes[j], r, i);
                return s;
            },
            rep, r * 10 + 4);
        if (scans) {
            for (int inclusive = 1; inclusive >= 0; --inclusive) {
                if (g.thread_rank() == 0)
                    bad |= inclusive ? ishmem_int_sum_inscan(team, dst, src, an)
                                     : ishmem_int_sum_exscan(team, dst, src, an);
                g.sync();
                check_and_reset(
                    g, dst, an,
                    [&](size_t i) {
                        int s = 0;
                        for (int j = 0; j < me_t + inclusive; ++j) s += mval(pes[j], r, i);
                        return s;
                    },
                    rep, r * 10 + 6 + inclusive);
            }
            continue;
        }
        bad |= dev_max<Kind>(g, team, src, src, an);
        for (size_t i = g.thread_rank(); i < an; i += g.num_threads()) {
            int m = 0;
            for (int j = 0; j < n_t; ++j) m = max(m, mval(pes[j], r, i));
            DEV_EXPECT_EQ(rep, src[i], m, (r * 10 + 5) * 1000000 + static_cast<long long>(i));
        }
        g.sync();
    }
    g.sync();
    if (g.thread_rank() == 0) *ret = bad;  // the leader's own and the scans' (thread 0's) return values
}

template <int Kind> __global__ void medium_kernel(ishmem_team_t team, int* src, int* dst, int rounds, int me_t, int n_t,
                                                  const int* pes, bool scans, report_data* rep, int* ret) {
    auto block = cg::this_thread_block();
    if constexpr (Kind == k_warp)
        medium_rounds<Kind>(cg::tiled_partition<32>(block), team, src, dst, rounds, me_t, n_t, pes, scans, rep, ret);
    else
        medium_rounds<Kind>(block, team, src, dst, rounds, me_t, n_t, pes, scans, rep, ret);
}

// The teams of these tests: the world, the even PEs, and a team of every PE made after enough
// others that its slot has no stage (direct form). Split and destroyed collectively.
struct medium_teams {
    std::vector<ishmem_team_t> fillers;
    ishmem_team_t even = ISHMEM_TEAM_INVALID, late = ISHMEM_TEAM_INVALID;
    explicit medium_teams(int n) {
        EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even), 0);
        for (;;) {
            ishmem_team_t t = ISHMEM_TEAM_INVALID;
            EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
            if (t == ISHMEM_TEAM_INVALID) break;
            if (t >= 8) {  // medium_slots: this one has no stage
                late = t;
                break;
            }
            fillers.push_back(t);
        }
    }
    ~medium_teams() {
        ishmem_team_destroy(late);
        for (ishmem_team_t t : fillers) ishmem_team_destroy(t);
        ishmem_team_destroy(even);
    }
    std::vector<std::pair<ishmem_team_t, std::string>> all() const {
        return {{ISHMEM_TEAM_WORLD, "the world"}, {even, "the even PEs"}, {late, "a team past the staged slots"}};
    }
};

// The team's world PEs into pes (managed memory of n_pes entries), for kernels.
void world_pes_of(ishmem_team_t team, managed<int>& pes) {
    for (int k = 0; k < ishmem_team_n_pes(team); ++k) pes[k] = ishmem_team_translate_pe(team, k, ISHMEM_TEAM_WORLD);
}

TEST_F(GpuCollMedium, InKernelsFromAThreadAWarpAndABlock) {
    gpu_sym<int> src(extent), dst(extent);
    ASSERT_TRUE(src && dst);
    medium_teams teams(n);
    ASSERT_NE(teams.late, ISHMEM_TEAM_INVALID);
    for (const auto& [team, name] : teams.all()) {
        const int tme = ishmem_team_my_pe(team), tn = ishmem_team_n_pes(team);
        managed<int> pes(n);
        world_pes_of(team, pes);
        for (int k : {k_thread, k_warp, k_block}) {
            SCOPED_TRACE(name + (k == k_thread ? ", a thread" : k == k_warp ? ", a warp" : ", a block"));
            ishmem_barrier_all();
            if (tme < 0) continue;
            dev_report rep;
            managed<int> ret(1);
            ret[0] = -1;
            stream st;
            // (a lone thread moves 800 KB slowly)
            const int rounds = sized_for_layout(k == k_thread ? 3 : 6, k == k_thread ? 1 : 2);
            if (k == k_thread)
                medium_kernel<k_thread>
                    <<<1, 1, 0, st>>>(team, src.get(), dst.get(), rounds, tme, tn, pes.get(), false, rep, ret.get());
            else if (k == k_warp)
                medium_kernel<k_warp>
                    <<<1, 32, 0, st>>>(team, src.get(), dst.get(), rounds, tme, tn, pes.get(), false, rep, ret.get());
            else
                medium_kernel<k_block>
                    <<<1, 256, 0, st>>>(team, src.get(), dst.get(), rounds, tme, tn, pes.get(), false, rep, ret.get());
            GPU_LAUNCHED("medium_kernel");
            sync(st, "medium collectives in a kernel");
            rep.expect_clean("broadcast, fcollect, alltoall, sum_reduce, max_reduce in place, round after round");
            EXPECT_EQ(ret[0], 0) << "the return values";
        }
        ishmem_barrier_all();
    }
}

// One round of the host-called (on_stream false) or stream forms, every result checked on the host.
void host_round(ishmem_team_t team, const std::vector<int>& pes, int tme, int r, bool on_stream, gpu_sym<int>& src,
                gpu_sym<int>& dst) {
    const int tn = static_cast<int>(pes.size());
    const size_t an = array_n(r), bn = block_n(r, tn);
    std::vector<int> s(extent);
    for (size_t i = 0; i < extent; ++i) s[i] = mval(pes[tme], r, static_cast<long long>(i));
    src.write(s);
    auto check = [&](const char* what, size_t count, auto want) {
        const std::vector<int> got = dst.read();
        expect_elements(
            got, [&](size_t i) { return i < count ? want(i) : untouched; },
            std::string(what) + (on_stream ? " on a stream" : " from the host") + ", round " + std::to_string(r));
        dst.fill(untouched);
    };
    stream st;
    ishmem::queue q(st.get());
    managed<int> ret(1);
    auto run = [&](const char* what, auto host_call, auto queue_call) {
        ret[0] = -1;
        if (on_stream) {
            queue_call().wait();
            EXPECT_EQ(ret[0], 0) << what << ": ret";
        } else {
            EXPECT_EQ(host_call(), 0) << what;
        }
    };
    const int root = r % tn;
    run(
        "broadcast", [&] { return ishmem_int_broadcast(team, dst.get(), src.get(), an, root); },
        [&] { return ishmemx_int_broadcast_on_queue(team, dst.get(), src.get(), an, root, &ret[0], q); });
    check("broadcast", an, [&](size_t i) { return mval(pes[root], r, i); });
    run(
        "fcollect", [&] { return ishmem_int_fcollect(team, dst.get(), src.get(), bn); },
        [&] { return ishmemx_int_fcollect_on_queue(team, dst.get(), src.get(), bn, &ret[0], q); });
    check("fcollect", bn * tn, [&](size_t i) { return mval(pes[i / bn], r, i % bn); });
    run(
        "alltoall", [&] { return ishmem_int_alltoall(team, dst.get(), src.get(), bn); },
        [&] { return ishmemx_int_alltoall_on_queue(team, dst.get(), src.get(), bn, &ret[0], q); });
    check("alltoall", bn * tn, [&](size_t i) { return mval(pes[i / bn], r, tme * bn + i % bn); });
    run(
        "sum_reduce", [&] { return ishmem_int_sum_reduce(team, dst.get(), src.get(), an); },
        [&] { return ishmemx_int_sum_reduce_on_queue(team, dst.get(), src.get(), an, &ret[0], q); });
    check("sum_reduce", an, [&](size_t i) {
        int t = 0;
        for (int pe : pes) t += mval(pe, r, i);
        return t;
    });
    for (bool inclusive : {true, false}) {
        run(
            inclusive ? "sum_inscan" : "sum_exscan",
            [&] {
                return inclusive ? ishmem_int_sum_inscan(team, dst.get(), src.get(), an)
                                 : ishmem_int_sum_exscan(team, dst.get(), src.get(), an);
            },
            [&] {
                return inclusive ? ishmemx_int_sum_inscan_on_queue(team, dst.get(), src.get(), an, &ret[0], q)
                                 : ishmemx_int_sum_exscan_on_queue(team, dst.get(), src.get(), an, &ret[0], q);
            });
        check(inclusive ? "sum_inscan" : "sum_exscan", an, [&](size_t i) {
            int t = 0;
            for (int k = 0; k < (inclusive ? tme + 1 : tme); ++k) t += mval(pes[k], r, i);
            return t;
        });
    }
}

TEST_F(GpuCollMedium, OnStreamsAndFromTheHost) {
    gpu_sym<int> src(extent), dst(extent);
    ASSERT_TRUE(src && dst);
    dst.fill(untouched);
    medium_teams teams(n);
    ASSERT_NE(teams.late, ISHMEM_TEAM_INVALID);
    for (const auto& [team, name] : teams.all()) {
        SCOPED_TRACE(name);
        const int tme = ishmem_team_my_pe(team), tn = ishmem_team_n_pes(team);
        std::vector<int> pes;
        for (int k = 0; k < tn; ++k) pes.push_back(ishmem_team_translate_pe(team, k, ISHMEM_TEAM_WORLD));
        ishmem_barrier_all();
        const int rounds = sized_for_layout(6, 2);  // the first half from the host, the rest on a stream
        if (tme >= 0)
            for (int r = 1; r <= rounds; ++r) host_round(team, pes, tme, r, r > rounds / 2, src, dst);
        ishmem_barrier_all();
        if (tme < 0)
            expect_elements(
                dst.read(), [](size_t) { return untouched; }, "dest of a PE outside the team");
    }
}

// The same calls, the even PEs on a stream (the library's kernel: a block per part) and the odd ones
// from one block of their own kernel (all parts in one group): broadcast, fcollect, alltoall,
// sum_reduce, sum_inscan and sum_exscan, round after round.
TEST_F(GpuCollMedium, SomePEsOnAStreamOthersInABlock) {
    gpu_sym<int> src(extent), dst(extent);
    ASSERT_TRUE(src && dst);
    dst.fill(untouched);
    managed<int> pes(n);
    world_pes_of(ISHMEM_TEAM_WORLD, pes);
    std::vector<int> world(pes.get(), pes.get() + n);
    const int rounds = sized_for_layout(6, 2);
    ishmem_barrier_all();
    if (me % 2 == 0) {
        for (int r = 1; r <= rounds; ++r) host_round(ISHMEM_TEAM_WORLD, world, me, r, true, src, dst);
    } else {
        dev_report rep;
        managed<int> ret(1);
        ret[0] = -1;
        stream st;
        medium_kernel<k_block><<<1, 256, 0, st>>>(ISHMEM_TEAM_WORLD, src.get(), dst.get(), rounds, me, n, pes.get(),
                                                  true, rep, ret.get());
        GPU_LAUNCHED("medium_kernel");
        sync(st, "medium collectives in a block, against peers on streams");
        rep.expect_clean("broadcast, fcollect, alltoall, sum_reduce, sum_inscan, sum_exscan in a block");
        EXPECT_EQ(ret[0], 0) << "the return values";
    }
    ishmem_barrier_all();
}

}  // namespace
