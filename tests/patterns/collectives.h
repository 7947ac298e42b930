// Patterns for the collective synchronization routines: barrier_all and sync_all (all variants).
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

// sync_barrier: each round, every PE increments a counter on every PE (one PE, changing with the
// round, after a short delay, so that a barrier that does not wait is caught), quiets (sync_all
// does not complete remote operations; barrier_all does, and a quiet before it is harmless), and
// calls the routine under test. After it the local counter must be exactly n * round; a second
// call keeps the next round's increments out until everybody has checked.
template <class Barrier> void sync_barrier(Barrier barrier) {
    const world w;
    sym_array<int> counter(1);
    ASSERT_TRUE(counter);
    ishmem_barrier_all();
    constexpr int rounds = 4;
    for (int r = 1; r <= rounds; ++r) {
        if (w.me == r % w.n) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (int k = 0; k < w.n; ++k) ishmem_int_atomic_inc(counter.get(), (w.me + k) % w.n);
        ishmem_quiet();
        barrier();
        EXPECT_EQ(load_acquire(counter.get()), w.n * r)
            << "round " << r << ": after the barrier " << on_pe(w.me) << " has seen only part of the "
            << w.n << " increments of every round";
        barrier();
    }
}

}  // namespace ishmem_testing::patterns
