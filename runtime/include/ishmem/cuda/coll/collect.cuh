// collect and fcollect in device code.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/medium.cuh"
#include "ishmem/cuda/coll/nodes.cuh"
#include "ishmem/cuda/coll/ring.cuh"

namespace ishmemi::dev {
namespace coll {

template <class G> __device__ inline int fcollect(const G& g, int team, void* dest, const void* source, size_t bytes) {
    if (bytes == 0) return 0;
    if (over_nodes(team))
        return gather_nodes(
            g, team, dest, bytes, [&](int) { return static_cast<const char*>(source); }, true, "ishmem_fcollect");
    if (via_medium(g, team, dstate.medium_gather_limit, true, bytes, "ishmem_fcollect", [&](const auto& k) {
            gather_medium(k, static_cast<char*>(dest), bytes, source, [&](int) { return source; });
        }))
        return 0;
    call<G> k(g, team, "ishmem_fcollect");
    if (through_ring<G>(bytes * k.size())) {
        exchange_ring(
            k, bytes, [&](int) { return source; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                take_blocks(k, static_cast<char*>(dest), source, bytes, ring, words, tag);
            });
        return 0;
    }
    exchange_all(k, [&] { push_same_to_all(k, static_cast<char*>(dest), k.me() * bytes, source, bytes); });
    return 0;
}

// Counts differ per member (0 included), so every member takes part whatever its count.
template <class G> __device__ inline int collect(const G& g, int team, void* dest, const void* source, size_t bytes) {
    if (over_nodes(team)) return collect_nodes(g, team, dest, source, bytes);
    call<G> k(g, team, "ishmem_collect");
    if (k.leader()) k.publish_count(bytes);
    exchange_all(k, [&] {
        size_t offset = 0;
        for (int m = 0; m < k.me(); ++m) offset += k.count_of(m);
        push_same_to_all(k, static_cast<char*>(dest), offset, source, bytes);
    });
    return 0;
}

}  // namespace coll

// ---- what the generated entry points call ------------------------------------------------------

template <class T> __device__ inline int collect(int team, T* dest, const T* source, size_t nelems) {
    return coll::collect(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int collect_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::collect(g, team, dest, source, nelems * sizeof(T));
}
template <class T> __device__ inline int fcollect(int team, T* dest, const T* source, size_t nelems) {
    return coll::fcollect(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int fcollect_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::fcollect(g, team, dest, source, nelems * sizeof(T));
}

}  // namespace ishmemi::dev
