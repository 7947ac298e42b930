// fence and quiet. Every put and AMO on shared memory is complete when it returns, so ordering and
// completion both reduce to a full memory fence (which also orders plain stores to the heap); puts to
// PEs of other nodes are ordered and completed by the transport.
#pragma once

#include <atomic>

#include "ishmem/impl/queue.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi::impl {

inline void fence() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (__builtin_expect(remote != nullptr, 0)) remote->fence();
}

inline void quiet() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (__builtin_expect(remote != nullptr, 0)) remote->quiet();
}

// On a CUDA stream the stream's earlier copies are complete when it gets here: only a mark.
inline ishmem::event quiet_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return enqueue_mark(q, deps, [] { quiet(); });
}

template <typename Group> inline void fence_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) fence();
    group_sync(group);
}

template <typename Group> inline void quiet_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) quiet();
    group_sync(group);
}

}  // namespace ishmemi::impl
