// Device fence and quiet.
// Included by device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"

namespace ishmemi::dev {

// ---- ordering ------------------------------------------------------------------------------------

// On a job over several nodes they also order (fence) or complete (quiet) what this PE's threads
// posted to the proxy (cuda/remote.cuh).
__device__ inline void fence() {
    __threadfence_system();
    if (has_remote_pes()) remote_fence();
}
__device__ inline void quiet() {
    __threadfence_system();
    if (has_remote_pes()) remote_quiet();
}
template <class G> __device__ inline void fence_work_group(const G& g) {
    group_then_leader(g, [] { fence(); });
}
template <class G> __device__ inline void quiet_work_group(const G& g) {
    group_then_leader(g, [] { quiet(); });
}

}  // namespace ishmemi::dev
