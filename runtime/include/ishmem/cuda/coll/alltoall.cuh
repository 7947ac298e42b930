// alltoall in device code.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/medium.cuh"
#include "ishmem/cuda/coll/nodes.cuh"
#include "ishmem/cuda/coll/ring.cuh"

namespace ishmemi::dev {
namespace coll {

template <class G> __device__ inline int alltoall(const G& g, int team, void* dest, const void* source, size_t bytes) {
    if (bytes == 0) return 0;
    const char* src = static_cast<const char*>(source);
    if (over_nodes(team))
        return gather_nodes(
            g, team, dest, bytes, [&](int m) { return src + m * bytes; }, false, "ishmem_alltoall");
    if (via_medium(g, team, dstate.medium_gather_limit, true, bytes, "ishmem_alltoall", [&](const auto& k) {
            gather_medium(k, static_cast<char*>(dest), bytes, src + k.me() * bytes,
                          [&](int m) { return src + m * bytes; });
        }))
        return 0;
    call<G> k(g, team, "ishmem_alltoall");
    if (through_ring<G>(bytes * k.size())) {
        exchange_ring(
            k, bytes, [&](int m) { return src + m * bytes; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                take_blocks(k, static_cast<char*>(dest), src + k.me() * bytes, bytes, ring, words, tag);
            });
        return 0;
    }
    exchange_all(k, [&] {
        push_to_all(k, static_cast<char*>(dest), k.me() * bytes, bytes,
                    [&](int m) { return static_cast<const char*>(source) + m * bytes; });
    });
    return 0;
}

}  // namespace coll

// ---- what the generated entry points call ------------------------------------------------------

template <class T> __device__ inline int alltoall(int team, T* dest, const T* source, size_t nelems) {
    return coll::alltoall(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int alltoall_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::alltoall(g, team, dest, source, nelems * sizeof(T));
}
}  // namespace ishmemi::dev
