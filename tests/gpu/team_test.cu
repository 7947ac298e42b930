// Teams and barriers in kernels (CUDA backend): a team made on the host is usable by device code as
// soon as the split returns and unusable after destroy; device barrier_all / team_sync order puts
// and stores of every member, round after round, from a thread, a block and a warp; a slot reused
// by a new team starts its barrier counters afresh.
#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;

class GpuTeams : public GpuTest {};

// What the device says about team: [my_pe, n_pes, translate(0 -> world), translate(my_pe -> world),
// translate(world me -> team)].
__global__ void team_view(ishmem_team_t team, int world_me, int* out) {
    out[0] = ishmem_team_my_pe(team);
    out[1] = ishmem_team_n_pes(team);
    out[2] = ishmem_team_translate_pe(team, 0, ISHMEM_TEAM_WORLD);
    out[3] = ishmem_team_translate_pe(team, out[0], ISHMEM_TEAM_WORLD);
    out[4] = ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, world_me, team);
}

std::vector<int> device_view(ishmem_team_t team, int world_me) {
    managed<int> out(5);
    stream s;
    team_view<<<1, 1, 0, s>>>(team, world_me, out.get());
    GPU_LAUNCHED("team_view");
    sync(s, "team_view");
    return {out[0], out[1], out[2], out[3], out[4]};
}

std::vector<int> host_view(ishmem_team_t team, int world_me) {
    const int my = ishmem_team_my_pe(team);
    return {my, ishmem_team_n_pes(team), ishmem_team_translate_pe(team, 0, ISHMEM_TEAM_WORLD),
            ishmem_team_translate_pe(team, my, ISHMEM_TEAM_WORLD),
            ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, world_me, team)};
}

TEST_F(GpuTeams, DeviceSeesTeamsAsTheHostDoes) {
    EXPECT_EQ(device_view(ISHMEM_TEAM_WORLD, me), host_view(ISHMEM_TEAM_WORLD, me)) << "world team";
    EXPECT_EQ(device_view(ISHMEM_TEAM_SHARED, me), host_view(ISHMEM_TEAM_SHARED, me)) << "shared team";
    EXPECT_EQ(device_view(ISHMEM_TEAM_INVALID, me), (std::vector<int>{-1, -1, -1, -1, -1})) << "ISHMEM_TEAM_INVALID";
    // Odd PEs of the world (none with one PE): members see their numbers; others see -1.
    ishmem_team_t odd = ISHMEM_TEAM_INVALID;
    ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1, nullptr, 0, &odd), 0);
    const bool member = n > 1 ? me % 2 == 1 : true;
    EXPECT_EQ(odd != ISHMEM_TEAM_INVALID, member);
    if (member) {
        const std::vector<int> dv = device_view(odd, me), hv = host_view(odd, me);
        EXPECT_EQ(dv, hv) << "the odd team right after the split";
        EXPECT_EQ(dv[0], n > 1 ? me / 2 : 0);
    }
    ishmem_team_t kept = odd;
    ishmem_team_destroy(odd);
    if (member) EXPECT_EQ(device_view(kept, me)[1], -1) << "a destroyed team's size on the device";
    ishmem_barrier_all();
}

// Each round, every thread of the caller's group puts its element to the right neighbour, the group
// takes the barrier, and checks what the left neighbour put; the second barrier keeps the next
// round's puts out until everyone has checked.
template <class Barrier> __device__ void put_barrier_rounds(int* buf, int elems, int me, int n, int rounds,
                                                            report_data* rep, Barrier barrier, unsigned rank,
                                                            unsigned size) {
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 1; r <= rounds; ++r) {
        for (int i = static_cast<int>(rank); i < elems; i += static_cast<int>(size))
            ishmem_int_p(buf + i, pattern(me, r, i), right);
        barrier();
        for (int i = static_cast<int>(rank); i < elems; i += static_cast<int>(size))
            DEV_EXPECT_EQ(rep, load_volatile(buf + i), pattern(left, r, i), r * 100000 + i);
        barrier();
    }
}

__global__ void rounds_thread(int* buf, int elems, int me, int n, int rounds, report_data* rep) {
    put_barrier_rounds(
        buf, elems, me, n, rounds, rep, [] { ishmem_barrier_all(); }, 0, 1);
}
__global__ void rounds_block(int* buf, int elems, int me, int n, int rounds, report_data* rep) {
    auto block = cooperative_groups::this_thread_block();
    put_barrier_rounds(
        buf, elems, me, n, rounds, rep, [&] { ishmemx_barrier_all_work_group(block); }, block.thread_rank(),
        block.num_threads());
}
__global__ void rounds_warp_sync(int* buf, int elems, int me, int n, int rounds, report_data* rep) {
    auto warp = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
    // sync_all orders stores; in device code p is a store through the peer mapping.
    put_barrier_rounds(
        buf, elems, me, n, rounds, rep, [&] { ishmemx_sync_all_work_group(warp); }, warp.thread_rank(),
        warp.num_threads());
}

TEST_F(GpuTeams, DeviceBarriersOrderEveryMembersPuts) {
    const int elems = sized_for_layout(512, 64), rounds = sized_for_layout(20, 4);  // (over nodes: a request per p)
    gpu_sym<int> buf(elems);
    ASSERT_TRUE(buf);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    rounds_thread<<<1, 1, 0, s>>>(buf.get(), elems, me, n, rounds, rep);
    GPU_LAUNCHED("rounds_thread");
    sync(s, "barrier_all rounds from one thread");
    rep.expect_clean("barrier_all from one thread");
    rounds_block<<<1, 128, 0, s>>>(buf.get(), elems, me, n, rounds, rep);
    GPU_LAUNCHED("rounds_block");
    sync(s, "barrier_all_work_group rounds from a block");
    rep.expect_clean("barrier_all_work_group over a block");
    rounds_warp_sync<<<1, 32, 0, s>>>(buf.get(), elems, me, n, rounds, rep);
    GPU_LAUNCHED("rounds_warp_sync");
    sync(s, "sync_all_work_group rounds from a warp");
    rep.expect_clean("sync_all_work_group over a warp");
    ishmem_barrier_all();
}

// team_sync on a team of every other PE; members add to a counter at every member and check the
// total after each sync. The team is made and destroyed repeatedly, so slots are reused.
__global__ void team_rounds(ishmem_team_t team, int* counter, int rounds, report_data* rep, int* status) {
    const int tn = ishmem_team_n_pes(team);
    if (tn < 0) {  // not a team: only the return value is checked
        status[0] |= ishmem_team_sync(team);
        return;
    }
    for (int r = 1; r <= rounds; ++r) {
        for (int k = 0; k < tn; ++k)
            ishmem_int_atomic_add(counter, 1, ishmem_team_translate_pe(team, k, ISHMEM_TEAM_WORLD));
        ishmem_quiet();
        status[0] |= ishmem_team_sync(team);
        DEV_EXPECT_EQ(rep, load_volatile(counter), tn * r, r);
        status[0] |= ishmem_team_sync(team);
    }
}

TEST_F(GpuTeams, TeamSyncOnRepeatedlyMadeTeams) {
    gpu_sym<int> counter(1);
    ASSERT_TRUE(counter);
    dev_report rep;
    managed<int> status(1);
    stream s;
    for (int round = 0; round < 6; ++round) {
        // Alternate between the even PEs and every PE from 1 (all PEs when there is one).
        const int start = (round % 2 == 1 && n > 1) ? 1 : 0, stride = round % 2 == 0 ? 2 : 1;
        const int size = round % 2 == 0 ? (n + 1) / 2 : n - start;
        ishmem_team_t team = ISHMEM_TEAM_INVALID;
        ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &team), 0);
        counter.fill(0);
        ishmem_barrier_all();
        if (team != ISHMEM_TEAM_INVALID) {
            team_rounds<<<1, 1, 0, s>>>(team, counter.get(), 5, rep, status.get());
            GPU_LAUNCHED("team_rounds");
            sync(s, "team_sync rounds");
            rep.expect_clean("counter after team_sync, team made in round " + std::to_string(round));
            EXPECT_EQ(status[0], 0) << "team_sync's return";
        }
        ishmem_barrier_all();
        ishmem_team_destroy(team);
    }
    // A bad team handle: team_sync returns nonzero from device code, with a line.
    status[0] = 0;
    team_rounds<<<1, 1, 0, s>>>(ISHMEM_TEAM_INVALID, counter.get(), 1, rep, status.get());
    GPU_LAUNCHED("team_rounds (invalid team)");
    sync(s, "team_sync on an invalid team");
    EXPECT_NE(status[0], 0) << "team_sync on ISHMEM_TEAM_INVALID in device code";
    ishmem_barrier_all();
}

}  // namespace
