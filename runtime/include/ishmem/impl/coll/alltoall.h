// alltoall and the strided alltoalls over a team (the protocol: impl/collectives.h).
#pragma once

#include "ishmem/impl/coll/common.h"

namespace ishmemi {

namespace coll {

template <class T, class W> int alltoall(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    watched_call wc(w, team, "ishmem_alltoall", -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_alltoall, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { alltoall_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_alltoall");
            const team_t& t = ea.team();
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) ea.send(j, source + j * nelems, nelems * sizeof(T));
            std::memmove(dest + t.my_index * nelems, source + t.my_index * nelems, nelems * sizeof(T));
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) std::memcpy(dest + j * nelems, ea.receive(j), nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_alltoall");
    const team_t& t = ex.team();
    read_all_members(w, ex, [&](int j) {
        copy(w, dest + j * nelems, translate(source, t.world_pe(j)) + t.my_index * nelems, nelems * sizeof(T));
    });
    return 0;
}

}  // namespace coll

namespace impl {

template <class T> int alltoall(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::alltoall(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int alltoall_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::alltoall(coll::in_group<G>{g}, team, dest, source, nelems);
}
// The strided all-to-all, written with the RMA primitives so that it runs on every backend: after a
// barrier (every member's dest is free), each member puts its block for j into j's dest with one
// strided put, starting at the next member so that the members do not all write to one PE at once;
// a quiet and a barrier complete the exchange.
template <class T>
int alltoalls(ishmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
    coll::watched_call wc(coll::alone{}, team, "ishmemx_alltoalls", -1, nelems, sizeof(T), type_name<T>());
    const team_t& t = teams[team];
    team_barrier(t, team, "ishmemx_alltoalls");
    const ptrdiff_t n = static_cast<ptrdiff_t>(nelems);
    for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_index + k) % t.size;
        iput(dest + t.my_index * n * dst, source + j * n * sst, dst, sst, nelems, t.world_pe(j));
    }
    quiet();
    team_barrier(t, team, "ishmemx_alltoalls");
    return 0;
}

ISHMEMI_BYTES_ON_QUEUE(alltoall, coll_alltoall)

}  // namespace impl
}  // namespace ishmemi
