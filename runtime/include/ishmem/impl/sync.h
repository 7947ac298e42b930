// barrier_all and sync_all (+ work_group), and the polling helpers that every wait loop uses.
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// Polling with backoff: `limit` polls, each followed by 2^min(poll, max_shift) CPU pauses, then one
// sched_yield per poll, so that more PEs than cores still make progress. Barriers use the growing
// pauses (spin_limit, ISHMEM_BARRIER_SPINS); point-to-point waits one pause per poll
// (wait_spin_limit, ISHMEM_WAIT_SPINS), so that a waiter reacts within a pause of the update.
struct backoff {
    unsigned limit = spin_limit;
    unsigned max_shift = 4;
    unsigned polls = 0;
    // Returns true once the loop has started yielding (slow path: a good time for liveness checks).
    bool pause() {
        if (polls < limit) {
            for (unsigned i = 0, n = 1u << (polls < max_shift ? polls : max_shift); i < n; ++i) cpu_relax();
            ++polls;
            return false;
        }
        sched_yield();
        return true;
    }
};

// A set of barrier counters in the internal region of every member PE. Counters only grow, so
// consecutive barriers need no reset; a slot must be all zeros on every member before its first use.
struct barrier_slot {
    static constexpr int max_rounds = 32;
    struct alignas(64) counter {
        uint64_t value;
    };
    counter epoch;                // barriers this PE has completed on the slot (only its owner uses it)
    counter arrived[max_rounds];  // arrived[r]: barriers for which the round-r partner has signalled
};

// Dissemination barrier over the PEs start, start + stride, ..., (size of them, me among them at
// index my_index), using the barrier_slot at slot_offset in every member's internal region. Called
// by one thread per PE at a time. No memory ordering beyond acquire/release of the flags: callers
// that need completion of earlier operations call quiet first. routine names the caller in errors.
ISHMEM_API void barrier_pes(int start, int stride, int size, int my_index, size_t slot_offset,
                            const char* routine);

// Waits (backing off like a barrier) until *word >= target. partner: the PE expected to raise it,
// whose leaving the job turns the wait into an error; negative for none.
ISHMEM_API void wait_at_least(uint64_t* word, uint64_t target, int partner, const char* routine);

namespace impl {

// Quiet, then wait for every PE. One thread per PE at a time.
ISHMEM_API void barrier_all();
// Wait for every PE; orders this PE's stores before the others' later loads. One thread per PE at a time.
ISHMEM_API void sync_all();

template <typename Group>
void barrier_all_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) barrier_all();
    group_sync(group);
}

template <typename Group>
void sync_all_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) sync_all();
    group_sync(group);
}

}  // namespace impl
}  // namespace ishmemi
