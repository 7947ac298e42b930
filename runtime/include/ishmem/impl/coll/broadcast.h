// broadcast over a team (the protocol: impl/collectives.h).
#pragma once

#include "ishmem/impl/coll/common.h"

namespace ishmemi {

namespace coll {

// Non-roots wait for the root only and return once they have copied; the root waits for them.
template <class T, class W>
int broadcast(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    watched_call wc(w, team, "ishmem_broadcast", root, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_broadcast, team, dest, source, nelems * sizeof(T), root, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { broadcast_over_nodes(team, dest, source, nelems, root); });
    if (eager::usable(team, nelems * sizeof(T)) && teams[team].size >= chain_min) {
        // A chain from the root: each member takes the message from the one before it and passes
        // it on, so that no member sends more than one message and calls in a row overlap.
        leader(w, [&] {
            eager ea(team, "ishmem_broadcast");
            const team_t& t = ea.team();
            const int n = t.size, at = (t.my_index - root + n) % n;  // my place along the chain
            const void* data = at == 0 ? source : ea.receive((t.my_index + n - 1) % n);
            if (at + 1 < n) ea.send((t.my_index + 1) % n, data, nelems * sizeof(T));
            if (dest != data) move_bytes(dest, data, nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_broadcast");
            const team_t& t = ea.team();
            if (t.my_index == root) {
                ea.send_to_others(source, nelems * sizeof(T));
                if (dest != source) move_bytes(dest, source, nelems * sizeof(T));
            } else {
                move_bytes(dest, ea.receive(root), nelems * sizeof(T));
            }
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_broadcast");
    const team_t& t = ex.team();
    if (t.my_index == root) {
        leader(w, [&] { ex.publish(); });
        copy(w, dest, source, nelems * sizeof(T));
        w.sync();
        leader(w, [&] { ex.wait_acks(t.size - 1); });
    } else {
        leader(w, [&] { ex.wait_ready(root); });
        copy(w, dest, translate(source, t.world_pe(root)), nelems * sizeof(T));
        w.sync();
        leader(w, [&] { ex.ack(root); });
    }
    return 0;
}

}  // namespace coll

namespace impl {

template <class T> int broadcast(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    return coll::broadcast(coll::alone{}, team, dest, source, nelems, root);
}
template <class T, class G>
int broadcast_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root, const G& g) {
    return coll::broadcast(coll::in_group<G>{g}, team, dest, source, nelems, root);
}

template <class T> ishmem::event broadcast_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,
                                                    int* ret, ishmem_team_t team, T* dest, const T* source,
                                                    size_t nelems, int root) {
    return collective_on_queue(
        q, deps, ret,
        [&](CUstream_st* s) { gpu::collective(gpu::coll_broadcast, team, dest, source, nelems * sizeof(T), root, s); },
        [=] { return broadcast<T>(team, dest, source, nelems, root); });
}

}  // namespace impl
}  // namespace ishmemi
