// Atomics issued at the same time by many threads of every PE, with exact final values; and the
// order in which one PE's non-fetching atomics become visible to its later operations.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "harness/harness.h"

namespace {

constexpr int threads_per_pe = 6;
constexpr int ops_per_thread = 2000;

template <class F> void on_threads(int n, F&& f) {
    std::vector<std::thread> ts;
    for (int t = 0; t < n; ++t) ts.emplace_back(f, t);
    for (auto& t : ts) t.join();
}

// Every thread of every PE adds to a counter on every PE: each counter ends at the exact total.
TEST(AmoConcurrent, AddFromAllThreadsOfAllPes) {
    const int n = ishmem_n_pes();
    auto* counter = static_cast<unsigned long long*>(ishmem_calloc(1, sizeof(unsigned long long)));
    auto* sum64 = static_cast<int64_t*>(ishmem_calloc(1, sizeof(int64_t)));
    on_threads(threads_per_pe, [&](int t) {
        for (int i = 0; i < ops_per_thread; ++i) {
            const int pe = (i + t) % n;
            ishmem_ulonglong_atomic_inc(counter, pe);
            ishmem_int64_atomic_add(sum64, static_cast<int64_t>(t + 1), pe);
        }
    });
    ishmem_barrier_all();
    // each PE's counter receives threads_per_pe * ops_per_thread / n increments from each PE on average;
    // the exact number: count, over all PEs and threads, the i with (i + t) % n == me
    unsigned long long want_inc = 0;
    int64_t want_sum = 0;
    for (int t = 0; t < threads_per_pe; ++t)
        for (int i = 0; i < ops_per_thread; ++i)
            if ((i + t) % n == ishmem_my_pe()) {
                want_inc += n;
                want_sum += static_cast<int64_t>(n) * (t + 1);
            }
    EXPECT_EQ(*counter, want_inc);
    EXPECT_EQ(*sum64, want_sum);
    ishmem_barrier_all();
    ishmem_free(sum64);
    ishmem_free(counter);
}

// fetch_inc on one counter from all threads of all PEs: the returned tickets are exactly 0..total-1.
TEST(AmoConcurrent, FetchIncHandsOutUniqueTickets) {
    const int n = ishmem_n_pes();
    const int per_pe = threads_per_pe * ops_per_thread;
    auto* counter = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    auto* tickets = static_cast<long*>(ishmem_calloc(static_cast<size_t>(per_pe) * n, sizeof(long)));
    std::vector<long> mine(per_pe);
    on_threads(threads_per_pe, [&](int t) {
        for (int i = 0; i < ops_per_thread; ++i)
            mine[t * ops_per_thread + i] = ishmem_long_atomic_fetch_inc(counter, 0);
    });
    ishmem_long_put(tickets + static_cast<size_t>(per_pe) * ishmem_my_pe(), mine.data(), per_pe, 0);
    ishmem_barrier_all();
    if (ishmem_my_pe() == 0) {
        std::vector<long> all(tickets, tickets + static_cast<size_t>(per_pe) * n);
        std::sort(all.begin(), all.end());
        for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], static_cast<long>(i));
        EXPECT_EQ(*counter, static_cast<long>(all.size()));
    }
    ishmem_barrier_all();
    ishmem_free(tickets);
    ishmem_free(counter);
}

// Bitwise atomics from many threads: each thread owns bits; or sets them, xor twice restores, and clears.
TEST(AmoConcurrent, BitwiseFromAllThreads) {
    const int n = ishmem_n_pes();
    auto* bits = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    on_threads(threads_per_pe, [&](int t) {
        const uint64_t mine = uint64_t{1} << (ishmem_my_pe() * threads_per_pe + t);
        for (int pe = 0; pe < n; ++pe) {
            ishmem_uint64_atomic_or(bits, mine, pe);
            ishmem_uint64_atomic_xor(bits, mine << 32, pe);
            ishmem_uint64_atomic_xor(bits, mine << 32, pe);
        }
    });
    ishmem_barrier_all();
    const uint64_t all = (uint64_t{1} << (n * threads_per_pe)) - 1;
    EXPECT_EQ(*bits, all);
    ishmem_barrier_all();
    on_threads(threads_per_pe, [&](int t) {
        const uint64_t mine = uint64_t{1} << (ishmem_my_pe() * threads_per_pe + t);
        ishmem_uint64_atomic_and(bits, ~mine, (ishmem_my_pe() + 1) % n);
    });
    ishmem_barrier_all();
    const int from = (ishmem_my_pe() + n - 1) % n;  // the PE whose threads cleared my bits
    const uint64_t cleared = ((uint64_t{1} << threads_per_pe) - 1) << (from * threads_per_pe);
    EXPECT_EQ(*bits, all & ~cleared);
    ishmem_barrier_all();
    ishmem_free(bits);
}

// compare_swap as a lock: a counter guarded by it is never torn.
TEST(AmoConcurrent, CompareSwapLock) {
    auto* lock = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    auto* guarded = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    constexpr int rounds = 200;
    on_threads(threads_per_pe, [&](int) {
        for (int i = 0; i < rounds; ++i) {
            while (ishmem_int_atomic_compare_swap(lock, 0, 1, 0) != 0) sched_yield();
            const long v = ishmem_long_g(guarded, 0);  // a plain read-modify-write, made safe by the lock
            ishmem_long_p(guarded, v + 1, 0);
            ishmem_quiet();
            ishmem_int_atomic_set(lock, 0, 0);
        }
    });
    ishmem_barrier_all();
    if (ishmem_my_pe() == 0) EXPECT_EQ(*guarded, static_cast<long>(rounds) * threads_per_pe * ishmem_n_pes());
    ishmem_barrier_all();
    ishmem_free(guarded);
    ishmem_free(lock);
}

// Non-fetching atomics may return before they are done at the target (across nodes they are sent
// and not awaited, more than the transport keeps in flight here); a later fetching atomic, a get and
// a quiet from the same PE still see every one of them, in the order they were issued.
TEST(AmoOrder, LaterFetchesGetsAndQuietSeeEarlierNonFetching) {
    const int to = (ishmem_my_pe() + 1) % ishmem_n_pes();  // each PE's words get updates from one PE
    auto* counter = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    auto* word = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    auto* bits = static_cast<unsigned*>(ishmem_calloc(1, sizeof(unsigned)));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    ishmem_barrier_all();
    constexpr long n = 1000;
    for (long i = 0; i < n; ++i) ishmem_long_atomic_add(counter, 1, to);
    EXPECT_EQ(ishmem_long_atomic_fetch(counter, to), n);
    ishmem_long_atomic_inc(counter, to);
    EXPECT_EQ(ishmem_long_g(counter, to), n + 1);
    for (long v = 1; v <= n; ++v) ishmem_long_atomic_set(word, v, to);
    EXPECT_EQ(ishmem_long_atomic_fetch_add(word, 0, to), n);
    for (unsigned b = 0; b < 32; ++b) ishmem_uint_atomic_or(bits, 1u << b, to);
    ishmem_uint_atomic_and(bits, 0xff00ff00u, to);
    ishmem_uint_atomic_xor(bits, 0x0000ffffu, to);
    EXPECT_EQ(ishmem_uint_g(bits, to), 0xff0000ffu);
    for (int i = 0; i < 100; ++i) ishmemx_signal_add(sig, 2, to);
    ishmem_quiet();
    ishmem_barrier_all();
    EXPECT_EQ(*counter, n + 1);
    EXPECT_EQ(*word, n);
    EXPECT_EQ(*bits, 0xff0000ffu);
    EXPECT_EQ(ishmem_signal_fetch(sig), 200u);
    ishmem_barrier_all();
    ishmem_free(sig);
    ishmem_free(bits);
    ishmem_free(word);
    ishmem_free(counter);
}

}  // namespace
