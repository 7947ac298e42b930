// team_sync, and the barriers and syncs on a queue (the protocol: impl/collectives.h).
#pragma once

#include "ishmem/impl/coll/common.h"

namespace ishmemi {

namespace impl {

inline int team_sync(ishmem_team_t team) {
    coll::watched_call wc(coll::alone{}, team, "ishmem_team_sync", -1, UINT64_MAX, 0, nullptr);
    team_barrier(teams[team], team, "ishmem_team_sync");
    return 0;
}
template <class Group> void team_sync_work_group(ishmem_team_t team, const Group& group) {
    coll::watched_call wc(coll::in_group<Group>{group}, team, "ishmemx_team_sync_work_group", -1, UINT64_MAX, 0,
                          nullptr);
    coll::barrier(coll::in_group<Group>{group}, teams[team], team, "ishmemx_team_sync_work_group");
}

// Barriers on a queue over the GPU heap take a device barrier (gpu::barrier), queued on the stream
// or, on the task path, run by the task: so every PE uses the same counters whichever path its call
// takes. Under ISHMEM_CHECK=full or ISHMEM_HANG_TIMEOUT (and on the host backend) the host form runs
// as a task. Earlier work of the stream is complete when the barrier kernel runs, and host-issued
// operations on the GPU heap complete before they return, so the device barrier's fence suffices
// for barrier_all too.
template <class Host> ishmem::event barrier_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                     ishmem_team_t team, Host host) {
    if (!watch_calls && heap_on_gpu()) {
        if (on_stream_after(q, deps)) {
            gpu::barrier(team, stream_of(q));
            return ishmem::detail::stream_order::mark(q);
        }
        return enqueue(q, deps, [=] { gpu::barrier(team, nullptr); });
    }
    return enqueue(q, deps, host);
}
inline ishmem::event barrier_all_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return barrier_on_queue(q, deps, ISHMEM_TEAM_WORLD, [] { barrier_all(); });
}
inline ishmem::event sync_all_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return barrier_on_queue(q, deps, ISHMEM_TEAM_WORLD, [] { sync_all(); });
}
inline ishmem::event team_sync_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps, int* ret,
                                        ishmem_team_t team) {
    *ret = 0;  // the team was checked at submission; only the host form can report later
    return barrier_on_queue(q, deps, team, [=] { *ret = team_sync(team); });
}

}  // namespace impl
}  // namespace ishmemi
