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

// The blocking call a PE is in (checks.cpp), written by its owner under a seqlock (gen odd while
// written) and read by any PE for the hang report and the search for wait cycles.
struct where_record {
    alignas(64) uint64_t gen;
    int32_t blocked;                // 1 while in a blocking call
    int32_t agree_team, agree_for;  // blocked in a collective's agreement: for agree_for's record
    uint64_t agree_seq;             // ... number agree_seq on team agree_team
    uint64_t since_ns, left_ns;     // CLOCK_MONOTONIC: when it blocked, when it last left a call
    char routine[48], last[48], detail[192];
};

struct control_block {
    alignas(64) uint64_t status;  // pe_status, written by its owner only
    barrier_slot world_barrier;
    alignas(64) uint64_t report_claim;  // PE 0's only: 1 + the PE that reports a broken job
    where_record where;
    // Team splits this PE called with a parent handle that is no team on it (teams.cpp), and
    // when the last one was (CLOCK_MONOTONIC ns); written by its owner, time first.
    alignas(64) uint64_t bad_splits;
    uint64_t bad_split_ns;
    uint64_t bad_split_claim;  // bad_splits << 16 | 1 + the slot of the parent whose split took it, or
                               // 0xffff: withdrawn by the owner (teams.cpp)
};
static_assert(sizeof(control_block) <= internal_sync_offset - internal_control_offset);

inline constexpr size_t world_barrier_offset = internal_control_offset + offsetof(control_block, world_barrier);

inline control_block* control(int pe) {
    return reinterpret_cast<control_block*>(internal_base(pe) + internal_control_offset);
}

inline void set_my_status(pe_status s) { __atomic_store_n(&control(state.my_pe)->status, s, __ATOMIC_RELEASE); }

inline uint64_t status_of(int pe) { return __atomic_load_n(&control(pe)->status, __ATOMIC_ACQUIRE); }

// The job is being stopped by stop_signal (ishmrun got it): the first PE to claim the report prints
// where every PE is (checks.cpp). Called from the PE's signal handler.
void report_on_stop(int stop_signal);

}  // namespace ishmemi
