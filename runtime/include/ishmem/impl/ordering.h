// fence and quiet. Every put and AMO on shared memory is complete when it returns, so ordering and
// completion both reduce to a full memory fence (which also orders plain stores to the heap).
#pragma once

#include <atomic>

#include "ishmem/impl/queue.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi::impl {

inline void fence() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

inline void quiet() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// On a CUDA stream the stream's earlier copies are complete when it gets here: only a mark.
inline ishmem::event quiet_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return enqueue_mark(q, deps, [] { quiet(); });
}

template <typename Group>
inline void fence_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) fence();
    group_sync(group);
}

template <typename Group>
inline void quiet_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) quiet();
    group_sync(group);
}

}  // namespace ishmemi::impl
