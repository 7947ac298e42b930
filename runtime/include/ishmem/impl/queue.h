// _on_queue machinery: an operation runs as a task of the user's queue.
#pragma once

#include <utility>
#include <vector>

#include "ishmem/host/exec.h"

namespace ishmemi::impl {

// Runs fn() on q after deps and after the work submitted to q before; the event completes when fn
// has returned (local completion; remote completion still needs a quiet). fn should capture its
// arguments by value: it runs later, on the queue's thread. What fn throws, event.wait() rethrows.
template <class F>
ishmem::event enqueue(const ishmem::queue& q, const std::vector<ishmem::event>& deps, F&& fn) {
    return q.single_task(deps, std::forward<F>(fn));
}

}  // namespace ishmemi::impl
