// Helpers for _work_group routines: every work-item of a group calls the routine with the same
// arguments; these let the work-items find their share of the work and agree on a result.
//
// They are written against the SYCL-style group interface (get_local_linear_id,
// get_local_linear_range, and group_barrier / group_broadcast found by argument-dependent lookup), so
// they serve ishmem::group and sycl::group alike; a backend with another group type (e.g. CUDA
// cooperative groups) adds overloads.
#pragma once

#include <cstddef>
#include <utility>

#include "ishmem/host/exec.h"

namespace ishmemi::impl {

template <class Group> std::size_t group_rank(const Group& g) { return g.get_local_linear_id(); }

template <class Group> std::size_t group_size(const Group& g) { return g.get_local_linear_range(); }

// Whether the calling work-item leads g (rank 0): the one that reports a _work_group form's failed
// status check, so that one bad call prints one line.
template <class Group> bool group_leads(const Group& g) { return group_rank(g) == 0; }

// A barrier among the work-items of g; also orders their memory accesses (release/acquire).
template <class Group> void group_sync(const Group& g) { group_barrier(g); }

// Every work-item gets the value passed by the leader (rank 0). Ends with a barrier, so it also
// serves as a group_sync.
template <class T, class Group> T group_broadcast_from_leader(const Group& g, T value_on_leader) {
    return group_broadcast(g, value_on_leader);
}

// The calling work-item's share [begin, end) of [0, n): contiguous, balanced (sizes differ by at
// most one), in rank order, covering [0, n) exactly once over the group.
template <class Group> std::pair<std::size_t, std::size_t> group_chunk(const Group& g, std::size_t n) {
    const std::size_t size = group_size(g), rank = group_rank(g);
    const std::size_t base = n / size, extra = n % size;
    const std::size_t begin = rank * base + (rank < extra ? rank : extra);
    return {begin, begin + base + (rank < extra ? 1 : 0)};
}

}  // namespace ishmemi::impl
