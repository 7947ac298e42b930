// Patterns for signaling: put_signal (also _nbi, _on_queue, _work_group, sized, mem),
// signal_fetch, signal_add and signal_set.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

// put_signal: in each round every PE puts data and a signal (SET or ADD) to its right neighbour.
// The receiver waits for the signal value it expects (with a timeout), and then, without any
// barrier in between, the data must be there: the signal follows the data. The SET and ADD rounds
// interleave, so an ADD adds to the value the last SET left. Each round's data
// differs from the last one's, so stale data shows.
template <class T, class PutSignal> void put_signal(PutSignal put_signal) {
    struct round {
        std::size_t nelems;
        int sig_op;
    };
    static constexpr round rounds[] = {{1, ISHMEM_SIGNAL_SET},    {7, ISHMEM_SIGNAL_ADD},  {0, ISHMEM_SIGNAL_ADD},
                                       {2049, ISHMEM_SIGNAL_SET}, {64, ISHMEM_SIGNAL_ADD}, {300, ISHMEM_SIGNAL_ADD}};
    constexpr std::size_t max_elems = 2049, guard = 3;
    const world w;
    sym_array<T> dest(max_elems + guard);
    sym_array<uint64_t> sig(1);
    ASSERT_TRUE(dest && sig);
    // The value PE pe sends in round r: SET values use the high half too; ADD values are small.
    auto signal_value = [](int pe, std::size_t r, int op) -> uint64_t {
        return op == ISHMEM_SIGNAL_SET ? ((uint64_t(r) + 1) << 40 | uint64_t(pe) << 8 | r) : 3 * r + uint64_t(pe) + 1;
    };
    uint64_t expected = 0;
    int timeout_ms = wait_timeout_ms;
    for (std::size_t r = 0; r < std::size(rounds); ++r) {
        const auto [nelems, op] = rounds[r];
        const std::string what = std::string("put_signal ") + (op == ISHMEM_SIGNAL_SET ? "SET" : "ADD") + " of " +
                                 std::to_string(nelems) + " elements from " + on_pe(w.left) + " to " + on_pe(w.me);
        dest.fill(sentinel<T>());
        const auto src = pe_values<T, local_vector<T>>(w.me, nelems, r);
        ishmem_barrier_all();

        const uint64_t v = signal_value(w.left, r, op);
        expected = op == ISHMEM_SIGNAL_SET ? v : expected + v;
        // The receiver polls on its own thread while this PE sends, so that it watches the left
        // neighbour's put_signal as it happens.
        std::thread receiver([&, nelems = nelems] {
            if (wait_equal(sig.get(), expected, what + ": signal", timeout_ms)) {
                const std::vector<T> got = dest.read(0, nelems + guard);
                expect_elements(
                    got.data(), nelems, [&](std::size_t i) { return make_value<T>(w.left, i + r); },
                    what + " (data seen after its signal)");
                expect_untouched(got.data() + nelems, guard, what + ", after the range");
            } else {
                timeout_ms = 100;  // one lost signal is enough: do not wait the full time in every round
            }
        });
        put_signal(dest.get(), nelems ? src.data() : nullptr, nelems, sig.get(), signal_value(w.me, r, op), op,
                   w.right);
        ishmem_quiet();  // completes the _nbi forms; the receiver does not depend on it
        receiver.join();
        ishmem_barrier_all();  // nobody overwrites dest or sig before its receiver is done
    }
}

// signal_fetch: returns the local signal word, written locally and remotely; while the left
// neighbour adds to it one step at a time, the fetched values never go down and reach the end.
template <class Fetch> void signal_fetch(Fetch fetch) {
    const world w;
    sym_array<uint64_t> sig(2);
    ASSERT_TRUE(sig);
    const uint64_t base = uint64_t(w.me + 1) << 40 | 0x1234;
    sig.store(0, base);
    EXPECT_EQ(fetch(sig.get()), base) << "signal_fetch of a locally stored value on " << on_pe(w.me);
    EXPECT_EQ(fetch(sig.get() + 1), 0u) << "signal_fetch of a zeroed word on " << on_pe(w.me);
    ishmem_barrier_all();

    constexpr uint64_t steps = 200;
    for (uint64_t k = 0; k < steps; ++k) ishmem_uint64_atomic_add(sig.get(), 1, w.right);
    ishmem_quiet();
    uint64_t last = base;
    bool monotonic = true;
    ishmem_testing::wait_for(
        [&] {
            const uint64_t v = fetch(sig.get());
            monotonic = monotonic && v >= last;
            last = v;
            return v == base + steps;
        },
        wait_timeout_ms, "signal_fetch to see " + std::to_string(steps) + " adds from " + on_pe(w.left));
    EXPECT_TRUE(monotonic) << "signal_fetch on " << on_pe(w.me) << " went down while the word only grew";
    EXPECT_EQ(last, base + steps);
    ishmem_barrier_all();
}

// signal_add: all PEs add to one word on PE 0 (exact sum), and each PE adds values that use the
// high half to a word of its right neighbour, which waits for the sum.
template <class Add> void signal_add(Add add) {
    const world w;
    sym_array<uint64_t> sig(2);
    ASSERT_TRUE(sig);
    ishmem_barrier_all();
    constexpr int k = 3;
    for (int i = 0; i < k; ++i) add(sig.get(), (uint64_t(w.me + 1) << 32) + 1, 0);
    add(sig.get() + 1, 5, w.right);
    add(sig.get() + 1, uint64_t(1) << 40, w.right);
    ishmem_quiet();
    wait_equal(sig.get() + 1, (uint64_t(1) << 40) + 5, "signal_add from " + on_pe(w.left) + " on " + on_pe(w.me));
    ishmem_barrier_all();
    uint64_t want = 0;
    for (int pe = 0; pe < w.n; ++pe) want += k * ((uint64_t(pe + 1) << 32) + 1);
    uint64_t got = 0;
    ishmem_getmem(&got, sig.get(), sizeof got, 0);
    EXPECT_EQ(got, want) << "signal_add by all PEs on PE 0";
}

// signal_set: each PE sets word [me] on every PE (64-bit values); each word then holds what its PE
// set, and a later set overwrites an earlier one.
template <class Set> void signal_set(Set set) {
    const world w;
    sym_array<uint64_t> sig(w.n + 1);
    ASSERT_TRUE(sig);
    ishmem_barrier_all();
    auto value = [](int from, int to, uint64_t round) { return round << 56 | uint64_t(from + 1) << 36 | uint64_t(to); };
    for (uint64_t round = 1; round <= 2; ++round)
        for (int k = 0; k < w.n; ++k) set(sig.get() + w.me, value(w.me, (w.me + k) % w.n, round), (w.me + k) % w.n);
    ishmem_quiet();
    wait_equal(sig.get() + w.left, value(w.left, w.me, 2), "signal_set from " + on_pe(w.left) + " on " + on_pe(w.me));
    ishmem_barrier_all();
    expect_elements(
        sig.read(0, w.n), [&](std::size_t j) { return value(static_cast<int>(j), w.me, 2); },
        "signal_set of word [j] by PE j, read on " + on_pe(w.me));
    EXPECT_EQ(sig.load(w.n), 0u) << "signal_set touched the word after the last PE's";
}

}  // namespace ishmem_testing::patterns
