// Device fence and quiet.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- ordering ------------------------------------------------------------------------------------

__device__ inline void fence() { __threadfence_system(); }
__device__ inline void quiet() { __threadfence_system(); }
template <class G> __device__ inline void fence_work_group(const G& g) {
    group_then_leader(g, [] { fence(); });
}
template <class G> __device__ inline void quiet_work_group(const G& g) {
    group_then_leader(g, [] { quiet(); });
}

}  // namespace ishmemi::dev
