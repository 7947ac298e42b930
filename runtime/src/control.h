// The control block at the start of every PE's internal region: what PEs know about each other's
// liveness, and the world barrier's counters.
#pragma once

#include <cstdint>

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/sync.h"

namespace ishmemi {

enum pe_status : uint64_t {
    pe_running = 0,    // the memfd starts zeroed
    pe_finalized = 1,  // called ishmem_finalize
    pe_exited = 2,     // exited without ishmem_finalize
};

struct control_block {
    alignas(64) uint64_t status;  // pe_status, written by its owner only
    barrier_slot world_barrier;
};
static_assert(sizeof(control_block) <= internal_sync_offset - internal_control_offset);

inline constexpr size_t world_barrier_offset = internal_control_offset + offsetof(control_block, world_barrier);

inline control_block* control(int pe) {
    return reinterpret_cast<control_block*>(internal_base(pe) + internal_control_offset);
}

inline void set_my_status(pe_status s) {
    __atomic_store_n(&control(state.my_pe)->status, s, __ATOMIC_RELEASE);
}

inline uint64_t status_of(int pe) {
    return __atomic_load_n(&control(pe)->status, __ATOMIC_ACQUIRE);
}

}  // namespace ishmemi
