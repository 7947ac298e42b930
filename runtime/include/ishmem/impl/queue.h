// _on_queue machinery: an operation runs as a task of the user's queue, or, on a queue over a CUDA
// stream, where it can, as work of the stream itself.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ishmem/host/exec.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi::impl {

// Runs fn() on q after deps and after the work submitted to q before; the event completes when fn
// has returned (local completion; remote completion still needs a quiet). fn should capture its
// arguments by value: it runs later, on the queue's thread. What fn throws, event.wait() rethrows.
template <class F> ishmem::event enqueue(const ishmem::queue& q, const std::vector<ishmem::event>& deps, F&& fn) {
    return q.single_task(deps, std::forward<F>(fn));
}

// A copy between the heap and local memory in q's order. On a queue over a CUDA stream it is a
// copy-engine copy queued on the stream from the calling thread: no host task, no gate kernel, no
// round trip through the queue's thread. Otherwise, or when a dep is an
// unfinished host task or the local buffer is pageable memory, fn runs as a task.
// Whether the operation may run on q's CUDA stream itself; if so, the stream now waits for deps.
// (A queue over the null stream qualifies too: see stream_of.)
inline bool on_stream_after(const ishmem::queue& q, const std::vector<ishmem::event>& deps) {
    return heap_on_gpu() && ishmem::detail::stream_order::wait_for(q, deps);
}

// The stream to queue q's work on. A queue made over nullptr means CUDA's legacy default stream,
// which the backend's calls must name explicitly (CU_STREAM_LEGACY): for them a null stream means
// "none given, use your own and wait".
inline CUstream_st* stream_of(const ishmem::queue& q) {
    return q.stream() ? q.stream() : reinterpret_cast<CUstream_st*>(0x1);
}

// With a signal word (the peer's, translated), a one-thread kernel updates it after the copy.
struct stream_signal {
    uint64_t* word = nullptr;
    uint64_t value = 0;
    bool add = false;
};
template <class F> ishmem::event enqueue_copy(const ishmem::queue& q, const std::vector<ishmem::event>& deps, void* dst,
                                              const void* src, size_t bytes, const void* local, F&& fn,
                                              stream_signal sig = {}) {
    if (on_stream_after(q, deps) && gpu::copy_async(stream_of(q), dst, src, bytes, local)) {
        if (sig.word) gpu::signal_async(stream_of(q), sig.word, sig.value, sig.add);
        return ishmem::detail::stream_order::mark(q);
    }
    return enqueue(q, deps, std::forward<F>(fn));
}

// A point in q's order after deps, with nothing to do there: on a CUDA stream, an event.
template <class F> ishmem::event enqueue_mark(const ishmem::queue& q, const std::vector<ishmem::event>& deps, F&& fn) {
    if (on_stream_after(q, deps)) return ishmem::detail::stream_order::mark(q);
    return enqueue(q, deps, std::forward<F>(fn));
}

}  // namespace ishmemi::impl
