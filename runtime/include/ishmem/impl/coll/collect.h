// collect and fcollect over a team (the protocol: impl/collectives.h).
#pragma once

#include "ishmem/impl/coll/common.h"

namespace ishmemi {

namespace coll {

template <class T, class W> int fcollect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    watched_call wc(w, team, "ishmem_fcollect", -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_fcollect, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { fcollect_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, nelems * sizeof(T))) {
        leader(w, [&] {
            eager ea(team, "ishmem_fcollect");
            const team_t& t = ea.team();
            ea.send_to_others(source, nelems * sizeof(T));
            std::memmove(dest + t.my_index * nelems, source, nelems * sizeof(T));
            for (int j = 0; j < t.size; ++j)
                if (j != t.my_index) std::memcpy(dest + j * nelems, ea.receive(j), nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    exchange ex(w, team, "ishmem_fcollect");
    const team_t& t = ex.team();
    read_all_members(w, ex,
                     [&](int j) { copy(w, dest + j * nelems, translate(source, t.world_pe(j)), nelems * sizeof(T)); });
    return 0;
}

// collect on a team with inboxes (every call, whatever the counts: members cannot know each
// other's before the call). Each member sends every other its count, with its block when that fits
// an inbox, and goes on; a larger block stays in the member's source: its readers copy it from
// there and acknowledge, and the member waits for them before it returns. A reader places each
// block once the counts before it have arrived. One hand-over per message for small blocks, as in
// fcollect, instead of ready flags, copies and acknowledgements.
template <class T, class W>
void collect_eager(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, size_t* total) {
    team_t& t = teams[team];
    const size_t mine = nelems * sizeof(T);
    leader(w, [&] {
        eager ea(team, "ishmem_collect");
        ea.send_to_others(source, mine);
        for (int j = 0; j < t.size; ++j)
            if (j != t.my_index) ea.receive_box(j);  // every count (and small block) is in
    });
    // The leader's receives (acquire) and the group barrier make the inboxes readable by the group.
    const uint64_t op = t.eager_ops;
    size_t offset = 0;
    for (int j = 0; j < t.size; ++j) {
        const eager_box* box = j == t.my_index ? nullptr : eager_inbox(state.my_pe, team, op, j);
        const size_t bytes = box ? box->bytes : mine;
        const void* from = !box                   ? static_cast<const void*>(source)
                           : bytes <= eager_bytes ? static_cast<const void*>(box->payload(bytes))
                                                  : translate(source, t.world_pe(j));
        copy(w, reinterpret_cast<char*>(dest) + offset, from, bytes);
        offset += bytes;
    }
    if (total) *total = offset / sizeof(T);
    w.sync();
    leader(w, [&] {
        for (int j = 0; j < t.size; ++j)
            if (j != t.my_index && eager_inbox(state.my_pe, team, op, j)->bytes > eager_bytes)
                read_done(team, t.world_pe(j));
        eager::finish(team, op);
        // My source is read in place: wait for every reader.
        if (mine > eager_bytes && t.size > 1) wait_reads_done(t, team, t.size - 1, "ishmem_collect");
    });
}

// Counts differ per PE: on teams with inboxes they come with the data (collect_eager); on others each
// publishes its own in the team's slot with its ready flag. total (where given): the elements
// collected, on a team within one node.
template <class T, class W>
int collect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, size_t* total = nullptr) {
    watched_call wc(w, team, "ishmem_collect", -1, nelems, sizeof(T), type_name<T>(), true);
    if (heap_on_gpu())
        return by_leader(
            w, [&] { gpu::collective(gpu::coll_collect, team, dest, source, nelems * sizeof(T), -1, nullptr); });
    if (teams[team].spans_nodes) return by_leader(w, [&] { collect_over_nodes(team, dest, source, nelems); });
    if (eager::usable(team, 0)) {
        collect_eager(w, team, dest, source, nelems, total);
        return 0;
    }
    exchange ex(w, team, "ishmem_collect");
    const team_t& t = ex.team();
    if (w.rank() == 0) __atomic_store_n(&team_slot_of(state.my_pe, team)->published, nelems, __ATOMIC_RELAXED);
    // Offsets need every count first: wait for all members, then copy.
    leader(w, [&] { ex.publish_and_wait_all(); });
    size_t offset = 0;
    for (int j = 0; j < t.size; ++j) {
        const int pe = t.world_pe(j);
        const size_t n = __atomic_load_n(&team_slot_of(pe, team)->published, __ATOMIC_RELAXED);
        copy(w, dest + offset, translate(source, pe), n * sizeof(T));
        offset += n;
    }
    if (total) *total = offset;
    w.sync();
    leader(w, [&] { ex.ack_all_and_wait(); });  // also: nobody republishes its count before all have read it
    return 0;
}

}  // namespace coll

namespace impl {

template <class T> int collect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::collect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int collect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::collect(coll::in_group<G>{g}, team, dest, source, nelems);
}
template <class T> int fcollect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::fcollect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G>
int fcollect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::fcollect(coll::in_group<G>{g}, team, dest, source, nelems);
}

ISHMEMI_BYTES_ON_QUEUE(collect, coll_collect)
ISHMEMI_BYTES_ON_QUEUE(fcollect, coll_fcollect)

}  // namespace impl
}  // namespace ishmemi
