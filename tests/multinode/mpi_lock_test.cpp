// The MPI transport's lock (runtime/mpi/mpi_lock.h): mutual exclusion among threads that take it
// at once, try_lock while it is held and after, and a holder that stays past the spinning phase
// (the MPI_Comm_split case) still lets the waiter in once it leaves.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "mpi_lock.h"

namespace {

using ishmemi::mpi::mpi_lock;

TEST(MpiLock, ThreadsTakingItAtOnceNeverOverlap) {
    mpi_lock l;
    long counter = 0;  // not atomic: only the lock keeps the increments whole
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    constexpr int threads = 4, rounds = 100000;
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < rounds; ++i) {
                std::lock_guard<mpi_lock> g(l);
                if (inside.fetch_add(1) != 0) overlapped = true;
                ++counter;
                inside.fetch_sub(1);
            }
        });
    for (auto& t : ts) t.join();
    EXPECT_EQ(counter, long{threads} * rounds);
    EXPECT_FALSE(overlapped.load()) << "two threads were inside the lock at once";
}

TEST(MpiLock, TryLockFailsWhileHeldAndSucceedsAfter) {
    mpi_lock l;
    ASSERT_TRUE(l.try_lock());
    bool other = true;
    std::thread([&] { other = l.try_lock(); }).join();
    EXPECT_FALSE(other) << "try_lock took a lock another thread holds";
    l.unlock();
    std::thread([&] {
        other = l.try_lock();
        if (other) l.unlock();
    }).join();
    EXPECT_TRUE(other) << "try_lock failed on a free lock";
}

TEST(MpiLock, AWaiterGetsInAfterALongHold) {
    mpi_lock l;
    l.lock();
    std::atomic<bool> got{false};
    std::thread waiter([&] {
        std::lock_guard<mpi_lock> g(l);
        got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the spinning, into yields
    EXPECT_FALSE(got.load()) << "the waiter got in while the lock was held";
    l.unlock();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!got.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    EXPECT_TRUE(got.load()) << "the waiter did not get the lock within 10 s of its release";
    waiter.join();
}

}  // namespace
