// Patterns for distributed locks: set_lock, test_lock, clear_lock. The routine under test takes
// (or releases) the lock; the other two are the library's own.
//
// Every critical section checks mutual exclusion twice: it swaps its PE into a holder word on PE 0
// (which must have been empty) and back out, and it increments a counter on PE 0 with a get and a
// put, not an atomic, so that two PEs inside at once lose an increment. The FIFO test reads the lock
// word's ticket counter (its high 32 bits, runtime/src/locks.cpp) to line the PEs up in a known
// order.
#pragma once

#include <string>
#include <vector>

#include "ishmemx.h"
#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace lock_detail {

inline constexpr int rounds = 40;

// The symmetric words of one test: the lock (zero on every PE, as the API asks), then the holder,
// the counter, the next log index and the log of PEs in order of entry (all used on PE 0).
struct lock_words {
    sym_array<long> words;
    explicit lock_words(int n) : words(4 + static_cast<std::size_t>(n) * rounds) {}
    long* lock() const { return words.get(); }
    long* holder() const { return words.get() + 1; }
    long* counter() const { return words.get() + 2; }
    long* log_index() const { return words.get() + 3; }
    long* log() const { return words.get() + 4; }
};

// The body of a critical section: checks that nobody else is inside, counts, and logs the entry.
inline bool critical_section(const lock_words& lw, int me, const std::string& what) {
    bool ok = true;
    const long before = ishmem_long_atomic_swap(lw.holder(), me + 1, 0);
    if (before != 0) {
        ADD_FAILURE() << what << ": " << on_pe(me) << " entered while " << on_pe(static_cast<int>(before - 1))
                      << " held the lock";
        ok = false;
    }
    const long c = ishmem_long_g(lw.counter(), 0);
    ishmem_long_p(lw.counter(), c + 1, 0);
    const long at = ishmem_long_atomic_fetch_inc(lw.log_index(), 0);
    ishmem_long_p(lw.log() + at, me, 0);
    const long after = ishmem_long_atomic_swap(lw.holder(), 0, 0);
    if (after != me + 1) {
        ADD_FAILURE() << what << ": another PE entered while " << on_pe(me) << " held the lock";
        ok = false;
    }
    return ok;
}

inline void expect_count(const lock_words& lw, long expected, const std::string& what) {
    ishmem_barrier_all();
    if (ishmem_my_pe() == 0)
        EXPECT_EQ(lw.words.load(2), expected) << what << ": increments made under the lock were lost";
    ishmem_barrier_all();
}

// Every PE takes the lock `rounds` times with set_ and releases it with clear_.
template <class Set, class Clear> void contend(Set set_, Clear clear_, const std::string& what) {
    const world w;
    lock_words lw(w.n);
    ASSERT_TRUE(lw.words);
    for (int r = 0; r < rounds; ++r) {
        set_(lw.lock());
        const bool ok = critical_section(lw, w.me, what);
        clear_(lw.lock());
        if (!ok) break;
    }
    expect_count(lw, static_cast<long>(w.n) * rounds, what);
}

}  // namespace lock_detail

// set_lock: under contention from every PE the critical sections never overlap; and waiters are
// served in the order they asked: PE 0 holds the lock while PEs 1, 2, ... draw their tickets one
// after the other, and then they enter in that order.
template <class SetLock> void lock_set(SetLock set_lock) {
    using namespace lock_detail;
    contend(
        set_lock, [](long* lock) { ishmemx_clear_lock(lock); }, "ishmemx_set_lock under contention");

    const world w;
    lock_words lw(w.n);
    ASSERT_TRUE(lw.words);
    if (w.me == 0) set_lock(lw.lock());
    ishmem_barrier_all();
    if (w.me > 0) {
        // my turn to queue once PEs 0..me-1 hold tickets
        const bool queued = wait_for([&] { return (ishmem_long_atomic_fetch(lw.lock(), 0) >> 32) == w.me; },
                                     wait_timeout_ms, "the lock's tickets of PEs 0.." + std::to_string(w.me - 1));
        if (queued) {
            set_lock(lw.lock());
            critical_section(lw, w.me, "ishmemx_set_lock in ticket order");
            ishmemx_clear_lock(lw.lock());
        }
    } else {
        critical_section(lw, 0, "ishmemx_set_lock in ticket order");
        // release once every other PE waits in the queue
        wait_for([&] { return (ishmem_long_atomic_fetch(lw.lock(), 0) >> 32) == w.n; }, wait_timeout_ms,
                 "every PE to wait for the lock");
        ishmemx_clear_lock(lw.lock());
    }
    ishmem_barrier_all();
    if (w.me == 0) {
        const std::vector<long> log = lw.words.read(4, static_cast<std::size_t>(w.n));
        expect_elements(
            log, [](std::size_t i) { return static_cast<long>(i); }, "order in which PEs entered (PE i queued i-th)");
    }
    ishmem_barrier_all();
}

// test_lock: 0 and the lock when it is free, 1 without waiting when another PE holds it; PEs that
// take the lock only through test_lock (retrying) still exclude each other.
template <class TestLock> void lock_test(TestLock test_lock) {
    using namespace lock_detail;
    const world w;
    lock_words lw(w.n);
    ASSERT_TRUE(lw.words);
    if (w.me == 0) EXPECT_EQ(test_lock(lw.lock()), 0) << "ishmemx_test_lock on a free lock";
    ishmem_barrier_all();
    if (w.me != 0) EXPECT_EQ(test_lock(lw.lock()), 1) << "ishmemx_test_lock while PE 0 holds the lock";
    if (w.me == 0) EXPECT_EQ(test_lock(lw.lock()), 1) << "ishmemx_test_lock by the holder itself";
    ishmem_barrier_all();
    if (w.me == 0) ishmemx_clear_lock(lw.lock());
    ishmem_barrier_all();
    if (w.me != 0) EXPECT_EQ(lw.words.load(0), 0) << "only PE 0's copy of the lock word is used";

    for (int r = 0; r < rounds; ++r) {
        // test_lock keeps no place in a queue: allow for losing many races on a loaded machine
        if (!wait_for([&] { return test_lock(lw.lock()) == 0; }, 4 * wait_timeout_ms,
                      "ishmemx_test_lock to take the lock"))
            break;
        const bool ok = critical_section(lw, w.me, "ishmemx_test_lock under contention");
        ishmemx_clear_lock(lw.lock());
        if (!ok) break;
    }
    // rounds that timed out add a failure above; the count says whether any section overlapped
    expect_count(lw, static_cast<long>(w.n) * rounds, "ishmemx_test_lock under contention");
}

// clear_lock: hands the lock on under contention, and what the holder put before releasing is
// visible to the next holder (the critical section's counter is a get and a put).
template <class ClearLock> void lock_clear(ClearLock clear_lock) {
    using namespace lock_detail;
    contend([](long* lock) { ishmemx_set_lock(lock); }, clear_lock, "ishmemx_clear_lock under contention");
}

}  // namespace ishmem_testing::patterns
