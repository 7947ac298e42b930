// The proxy transport: remote operations posted into a request ring (impl/proxy_ring.h) and
// performed, in order, by a thread of this PE through the transport underneath. The path that GPU
// kernels take to PEs of other nodes; ISHMEM_REMOTE_PROXY=1 sends the host backend's remote
// operations through it too, so that it is tested without a GPU.
#pragma once

#include <cstdint>
#include <memory>

#include "ishmem/impl/api.h"
#include "ishmem/impl/transport.h"

namespace ishmemi {

// A transport whose RMA, AMO, signal and ordering operations go through a ring of `slots` cells
// (at least 4) to a proxy thread that calls `inner`; team operations and collectives go to inner
// directly, once every request posted before them has reached it. The thread starts with
// start_progress_thread and stops when the transport is destroyed. The transport's calls post into
// a ring of its own memory. With device_ring_memory (proxy::ring_bytes(slots) bytes, 64-byte
// aligned, mapped pinned memory that outlives the transport) the thread also serves a second ring
// there, which GPU threads post into with tickets of their own (cuda/proxy_post.cuh): atomics of
// GPU threads and host threads on one counter in host memory would not be atomic with each other.
ISHMEM_API std::unique_ptr<transport> make_proxy_transport(std::unique_ptr<transport> inner, uint64_t slots,
                                                           void* device_ring_memory = nullptr);

}  // namespace ishmemi
