// Device barriers: the team barrier, barrier_all, sync_all and team_sync.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"
#include "ishmem/cuda/teams.cuh"

namespace ishmemi::dev {

// A system-scope fence first (what the caller stored or put before is complete and visible), then
// one release increment per round at the partner and an acquire wait on my own counter: what any
// member did before its call is visible to every member after the barrier (causality is transitive
// through the rounds).
__device__ inline void team_barrier(const ishmemi::cuda::device_team& t, int slot) {
    __threadfence_system();
    // Members on other nodes: what this PE posted to the proxy completes first, and a round's
    // signal to such a member is a posted store at its copy of my counter's address.
    const bool spans = t.spans_nodes != 0;
    if (spans) remote_quiet();
    ishmemi::cuda::gpu_sync_slot* mine = sync_slot(dstate.my_pe, slot);
    const unsigned long long epoch = ++mine->epoch.value;  // only this PE's caller touches it
    for (int r = 0, dist = 1; dist < t.size; ++r, dist <<= 1) {
        const int to = t.start + ((t.my_index + dist) % t.size) * t.stride;
        // Round 0 follows the entry fence, which orders what came before; later rounds pass on what
        // the last round acquired (release). A release is a system fence of its own. This PE is the
        // only one that signals `to` in round r, so a store of the epoch does (an atomic add would
        // wait for its answer over the link).
        if (spans && is_remote(to))
            remote_amo_post(ishmemi::proxy::rmw_store, &mine->arrived[r].value, epoch, to);
        else
            sys_ref(&sync_slot(to, slot)->arrived[r].value)
                .store(epoch, r == 0 ? ::cuda::std::memory_order_relaxed : ::cuda::std::memory_order_release);
        auto in = sys_ref(&mine->arrived[r].value);
        while (in.load(::cuda::std::memory_order_acquire) < epoch) {}
    }
}

__device__ inline void barrier_all() { team_barrier(dstate.teams[ISHMEM_TEAM_WORLD], ISHMEM_TEAM_WORLD); }
// Device puts, AMOs and signals are stores and atomics that the barrier's entry fence completes,
// so sync_all is the same barrier as barrier_all here.
__device__ inline void sync_all() { barrier_all(); }
__device__ inline int team_sync(int team) {
    team_barrier(*find_team(team), team);  // checked by the entry point
    return 0;
}
template <class G> __device__ inline void barrier_all_work_group(const G& g) {
    group_then_leader(g, [] { barrier_all(); });
}
template <class G> __device__ inline void sync_all_work_group(const G& g) {
    group_then_leader(g, [] { sync_all(); });
}
template <class G> __device__ inline void team_sync_work_group(int team, const G& g) {
    group_then_leader(g, [&] { team_sync(team); });
}

}  // namespace ishmemi::dev
