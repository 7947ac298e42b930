// Device teams: the team table, team queries and the teams' sync slots.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- teams and barriers --------------------------------------------------------------------------
// The team table is this PE's view (device_state.h), kept by the host at split and destroy, so a
// team is usable in kernels as soon as the split returns. Barriers are dissemination barriers over
// counters in the members' GPU sync regions (NVLink atomics; the polled word is local). One thread
// (or group) of a PE at a time per team, as on the host.

__device__ inline const ishmemi::cuda::device_team* find_team(int team) {
    if (team < 0 || team >= dstate.teams_max || dstate.teams == nullptr) return nullptr;
    const ishmemi::cuda::device_team* t = dstate.teams + team;
    return t->size > 0 ? t : nullptr;
}
__device__ inline int team_my_pe(int team) {
    const auto* t = find_team(team);
    return t ? t->my_index : -1;
}
__device__ inline int team_n_pes(int team) {
    const auto* t = find_team(team);
    return t ? t->size : -1;
}
__device__ inline int team_translate_pe(int src_team, int src_pe, int dest_team) {
    const auto *s = find_team(src_team), *d = find_team(dest_team);
    if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
    const int pe = s->start + src_pe * s->stride - d->start;
    if (pe < 0 || pe % d->stride != 0 || pe / d->stride >= d->size) return -1;
    return pe / d->stride;
}

// The soft team check of the generated entry points: a line (CUDA printf, seen at the next
// synchronization) and false, so that the routine returns nonzero as on the host.
__device__ inline bool check_team(const char* fn, int team) {
    if (__builtin_expect(find_team(team) != nullptr, 1)) return true;
    if (fn) printf("ishmem: PE %d: %s: team %d is not a valid team on this PE (device code)\n", dstate.my_pe, fn, team);
    return false;
}

__device__ inline ishmemi::cuda::gpu_sync_slot* sync_slot(int pe, int slot) {
    return reinterpret_cast<ishmemi::cuda::gpu_sync_slot*>(
               dstate.sync_base + static_cast<long long>(pe - dstate.my_pe) * dstate.peer_stride) +
           slot;
}

}  // namespace ishmemi::dev
