// Tests of the host execution model (ishmem/host/exec.h) and the queue and work-group helpers built
// on it. A plain gtest binary: no PEs involved.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <vector>

#include "ishmem/host/exec.h"
#include "ishmem/impl/queue.h"
#include "ishmem/impl/work_group.h"

namespace {

using namespace std::chrono_literals;

// A gate a task can block on until the test opens it.
struct gate {
    std::atomic<bool> open{false};
    void wait() const {
        while (!open.load()) std::this_thread::sleep_for(1ms);
    }
};

// ---------------------------------------------------------------------------------------------
// Index spaces

TEST(NdRange, RejectsGlobalNotMultipleOfLocal) {
    EXPECT_THROW(ishmem::nd_range<1>(10, 3), std::invalid_argument);
    EXPECT_THROW(ishmem::nd_range<1>(10, 0), std::invalid_argument);
    ishmem::nd_range<1> r(12, 4);
    EXPECT_EQ(r.get_global_range().size(), 12u);
    EXPECT_EQ(r.get_local_range().size(), 4u);
    EXPECT_EQ(r.get_group_range().size(), 3u);
    ishmem::nd_range deduced{ishmem::range{8}, ishmem::range{8}};
    EXPECT_EQ(deduced.get_group_range().size(), 1u);
}

TEST(NdRange, RejectsWorkGroupLargerThanLimit) {
    ishmem::queue q;
    const size_t too_big = ishmem::max_work_group_size * 2;
    EXPECT_THROW(q.parallel_for(ishmem::nd_range<1>{too_big, too_big}, [](ishmem::nd_item<1>) {}),
                 std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Events and queue ordering

TEST(Event, DefaultIsComplete) {
    ishmem::event e;
    EXPECT_TRUE(e.is_complete());
    e.wait();
    e.wait_and_throw();
    ishmem::event::wait({e, ishmem::event{}});
}

TEST(Queue, RunsTasksInSubmissionOrder) {
    ishmem::queue q;
    std::vector<int> order;  // only the worker touches it until wait()
    for (int i = 0; i < 1000; ++i) q.single_task([&order, i] { order.push_back(i); });
    q.wait();
    ASSERT_EQ(order.size(), 1000u);
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[i], i);
}

TEST(Queue, EventCompletesWhenTaskReturned) {
    ishmem::queue q;
    gate g;
    std::atomic<bool> ran{false};
    ishmem::event e = q.single_task([&] {
        g.wait();
        ran = true;
    });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(e.is_complete());
    g.open = true;
    e.wait();
    EXPECT_TRUE(e.is_complete());
    EXPECT_TRUE(ran);
}

TEST(Queue, SubmissionFromManyThreadsKeepsEachThreadsOrder) {
    ishmem::queue q;
    constexpr int threads = 4, per_thread = 300;
    std::vector<std::pair<int, int>> log;  // (thread, sequence), appended by the worker only
    std::vector<std::thread> submitters;
    for (int t = 0; t < threads; ++t)
        submitters.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) q.single_task([&log, t, i] { log.emplace_back(t, i); });
        });
    for (auto& s : submitters) s.join();
    q.wait();
    ASSERT_EQ(log.size(), size_t(threads * per_thread));
    std::vector<int> next(threads, 0);
    for (auto [t, i] : log) EXPECT_EQ(i, next[t]++) << "thread " << t;
}

TEST(Queue, TaskRunsAfterDepsOnAnotherQueue) {
    ishmem::queue a, b;
    gate g;
    std::atomic<bool> a_done{false};
    std::atomic<bool> b_saw_a_done{false};
    ishmem::event ea = a.single_task([&] {
        g.wait();
        a_done = true;
    });
    ishmem::event eb = b.single_task({ea}, [&] { b_saw_a_done = a_done.load(); });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(eb.is_complete());
    g.open = true;
    eb.wait();
    EXPECT_TRUE(b_saw_a_done);
}

TEST(Queue, FailedDependencyStillReleasesTheDependent) {
    ishmem::queue a, b;
    ishmem::event ea = a.single_task([] { throw std::runtime_error("dep failed"); });
    std::atomic<bool> ran{false};
    ishmem::event eb = b.single_task({ea}, [&] { ran = true; });
    EXPECT_NO_THROW(eb.wait());
    EXPECT_TRUE(ran);
    EXPECT_THROW(ea.wait(), std::runtime_error);
    EXPECT_THROW(a.wait(), std::runtime_error);
}

TEST(Queue, ExceptionGoesToEventAndLaterTasksStillRun) {
    ishmem::queue q;
    ishmem::event bad = q.single_task([] { throw std::runtime_error("boom"); });
    std::atomic<bool> later{false};
    ishmem::event good = q.single_task([&] { later = true; });
    EXPECT_THROW(bad.wait(), std::runtime_error);
    EXPECT_THROW(bad.wait_and_throw(), std::runtime_error);  // every wait rethrows
    EXPECT_NO_THROW(good.wait());
    EXPECT_TRUE(later);
    EXPECT_THROW(ishmem::event::wait({good, bad}), std::runtime_error);
}

TEST(Queue, WaitReportsEachTaskExceptionOnce) {
    ishmem::queue q;
    q.single_task([] { throw std::runtime_error("first"); });
    q.single_task([] { throw std::logic_error("second"); });
    try {
        q.wait();
        FAIL() << "queue::wait did not rethrow";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "first");
    }
    EXPECT_NO_THROW(q.wait());
}

TEST(Queue, WaitInsideOwnTaskThrowsInsteadOfHanging) {
    ishmem::queue q;
    ishmem::event e = q.single_task([q] { q.wait(); });
    EXPECT_THROW(e.wait(), std::logic_error);
}

TEST(Queue, DestructorWaitsForOutstandingWork) {
    std::atomic<bool> done{false};
    {
        ishmem::queue q;
        q.single_task([&] {
            std::this_thread::sleep_for(30ms);
            done = true;
        });
    }
    EXPECT_TRUE(done);
}

TEST(Queue, CopiesShareOneQueue) {
    ishmem::queue q;
    ishmem::queue copy = q;
    EXPECT_TRUE(copy == q);
    EXPECT_FALSE(ishmem::queue{} == q);
    std::vector<int> order;
    q.single_task([&] { order.push_back(1); });
    copy.single_task([&] { order.push_back(2); });
    q.wait();
    EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(Queue, LastHandleDroppedInsideItsOwnTask) {
    ishmem::event e;
    {
        ishmem::queue q;
        gate g;
        e = q.single_task([q, &g] { g.wait(); });  // the task owns a handle
        q = ishmem::queue{};                       // ... and now the only one
        g.open = true;
        e.wait();  // the handle died on the worker: no self-join, no hang
    }
    EXPECT_TRUE(e.is_complete());
}

TEST(Queue, MoveOnlyTaskBody) {
    ishmem::queue q;
    auto p = std::make_unique<int>(7);
    int seen = 0;
    q.single_task([p = std::move(p), &seen]() mutable { seen = *p; }).wait();
    EXPECT_EQ(seen, 7);
}

TEST(Queue, UsableInAForkedChild) {
    ishmem::queue q;
    q.single_task([] {}).wait();  // the parent's worker exists now
    EXPECT_EXIT(
        {
            int x = 0;
            q.single_task([&] { x = 42; }).wait();
            _exit(x == 42 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// parallel_for

class ParallelFor : public ::testing::TestWithParam<size_t> {};

TEST_P(ParallelFor, EveryWorkItemOnceWithConsistentIds) {
    const size_t local = GetParam(), groups = 5, global = local * groups;
    std::vector<std::atomic<int>> seen(global);
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{global, local}, [&](ishmem::nd_item<1> it) {
         const size_t gid = it.get_global_linear_id();
         ishmem::group<> g = it.get_group();
         seen[gid]++;
         if (it.get_local_linear_id() != gid % local || it.get_group_linear_id() != gid / local ||
             g.get_local_linear_id() != it.get_local_linear_id() || g.get_local_linear_range() != local ||
             g.get_group_linear_id() != gid / local || g.get_group_linear_range() != groups ||
             it.get_global_range().size() != global || it.get_local_range().size() != local)
             bad++;
     }).wait();
    EXPECT_EQ(bad.load(), 0);
    for (size_t i = 0; i < global; ++i) EXPECT_EQ(seen[i].load(), 1) << "work-item " << i;
}

// Each phase: every work-item writes its cell, barrier, checks all cells of its group, barrier.
// Passes only if the group's work-items are concurrent and the barrier orders memory.
TEST_P(ParallelFor, GroupBarrierSeparatesPhases) {
    const size_t local = GetParam(), groups = 3, phases = 50;
    std::vector<size_t> cells(local * groups);  // plain memory: the barrier must order it
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{local * groups, local}, [&](ishmem::nd_item<1> it) {
         auto g = it.get_group();
         const size_t base = g.get_group_linear_id() * local;
         for (size_t p = 1; p <= phases; ++p) {
             cells[it.get_global_linear_id()] = p;
             ishmem::group_barrier(g);
             for (size_t i = 0; i < local; ++i)
                 if (cells[base + i] != p) bad++;
             ishmem::group_barrier(g);
         }
     }).wait();
    EXPECT_EQ(bad.load(), 0);
}

TEST_P(ParallelFor, BroadcastFromLeaderAndFromOther) {
    const size_t local = GetParam();
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{local * 2, local}, [&](ishmem::nd_item<1> it) {
         auto g = it.get_group();
         const size_t me = g.get_local_linear_id();
         for (int round = 0; round < 10; ++round) {
             double v = ishmem::group_broadcast(g, 1000.0 * g.get_group_linear_id() + round + me);
             if (v != 1000.0 * g.get_group_linear_id() + round) bad++;
             size_t from = local - 1;
             size_t w = ishmem::group_broadcast(g, me * 3, from);
             if (w != from * 3) bad++;
         }
     }).wait();
    EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(GroupSizes, ParallelFor, ::testing::Values(1, 7, 64));

TEST(ParallelForLimits, LargestWorkGroup) {
    const size_t local = ishmem::max_work_group_size;
    std::atomic<size_t> after_barrier{0};
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{local, local}, [&](ishmem::nd_item<1> it) {
         ishmem::group_barrier(it.get_group());
         after_barrier++;
         ishmem::group_barrier(it.get_group());
         if (after_barrier.load() != local) bad++;
     }).wait();
    EXPECT_EQ(bad.load(), 0);
}

// More work-items than run at once: groups go in waves, each group still concurrent.
TEST(ParallelForLimits, MoreGroupsThanRunConcurrently) {
    const size_t local = 64, groups = 3 * ishmem::max_concurrent_work_items / local + 1;
    std::vector<std::atomic<int>> seen(local * groups);
    std::vector<std::atomic<int>> arrived(groups);
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{local * groups, local}, [&](ishmem::nd_item<1> it) {
         const size_t g = it.get_group_linear_id();
         seen[it.get_global_linear_id()]++;
         arrived[g]++;
         ishmem::group_barrier(it.get_group());
         if (arrived[g].load() != int(local)) bad++;
     }).wait();
    EXPECT_EQ(bad.load(), 0);
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
}

TEST(ParallelForLimits, EmptyLaunch) {
    ishmem::queue q;
    std::atomic<int> calls{0};
    q.parallel_for(ishmem::nd_range<1>{0, 4}, [&](ishmem::nd_item<1>) { calls++; }).wait();
    q.parallel_for(0, [&](size_t) { calls++; }).wait();
    EXPECT_EQ(calls.load(), 0);
}

TEST(ParallelForErrors, ThrowingWorkItemReleasesTheOthersFromTheBarrier) {
    ishmem::queue q;
    for (size_t groups : {1, 40}) {
        ishmem::event e = q.parallel_for(ishmem::nd_range<1>{16 * groups, 16}, [](ishmem::nd_item<1> it) {
            if (it.get_global_linear_id() == 5) throw std::out_of_range("work-item 5");
            ishmem::group_barrier(it.get_group());  // work-item 5 never arrives
            ishmem::group_barrier(it.get_group());
        });
        EXPECT_THROW(e.wait(), std::out_of_range);
    }
    EXPECT_THROW(q.wait(), std::out_of_range);
    EXPECT_NO_THROW(q.parallel_for(ishmem::nd_range<1>{8, 8}, [](ishmem::nd_item<1>) {}).wait());
}

TEST(ParallelForRange, ThrowingKernel) {
    ishmem::queue q;
    ishmem::event e = q.parallel_for(100, [](size_t i) {
        if (i == 50) throw std::runtime_error("item 50");
    });
    EXPECT_THROW(e.wait(), std::runtime_error);
}

TEST(ParallelForRange, KernelsTakeItemOrSizeT) {
    ishmem::queue q;
    std::vector<std::atomic<int>> seen(1000);
    q.parallel_for(ishmem::range<1>{1000}, [&](ishmem::item<1> it) {
        if (it.get_range().size() == 1000) seen[it.get_linear_id()]++;
    });
    q.parallel_for(1000, [&](size_t i) { seen[i]++; });
    q.wait();
    for (auto& s : seen) EXPECT_EQ(s.load(), 2);
}

TEST(ParallelForQueue, OrderedWithOtherTasksAndDeps) {
    ishmem::queue q, other;
    std::vector<int> data(256, 0);
    ishmem::event fill = other.parallel_for(ishmem::nd_range<1>{256, 32},
                                            [&](ishmem::nd_item<1> it) { data[it.get_global_linear_id()] = 1; });
    q.parallel_for(ishmem::nd_range<1>{256, 64}, {fill},
                   [&](ishmem::nd_item<1> it) { data[it.get_global_linear_id()] += 1; });
    int sum = 0;
    q.single_task([&] {
        for (int v : data) sum += v;
    });
    q.wait();
    EXPECT_EQ(sum, 512);
}

TEST(ParallelForQueue, ManySmallLaunches) {
    ishmem::queue q;
    std::atomic<int> total{0};
    for (int i = 0; i < 200; ++i)
        q.parallel_for(ishmem::nd_range<1>{16, 8}, [&](ishmem::nd_item<1> it) {
            ishmem::group_barrier(it.get_group());
            total++;
        });
    q.wait();
    EXPECT_EQ(total.load(), 200 * 16);
}

// ---------------------------------------------------------------------------------------------
// ishmemi::impl::enqueue

TEST(Enqueue, RunsAfterDepsAndEarlierWork) {
    ishmem::queue q, other;
    gate g;
    std::vector<int> order;
    std::mutex m;
    auto log = [&](int v) {
        std::lock_guard lock(m);
        order.push_back(v);
    };
    ishmem::event dep = other.single_task([&] {
        g.wait();
        log(1);
    });
    q.single_task([&] { log(2); });
    ishmem::event e = ishmemi::impl::enqueue(q, {dep}, [&] { log(3); });
    const ishmem::queue& cq = q;  // some seed signatures take the queue by const reference
    ishmem::event e2 = ishmemi::impl::enqueue(cq, {}, [&] { log(4); });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(e.is_complete());
    g.open = true;
    e2.wait();
    EXPECT_EQ(order, (std::vector<int>{2, 1, 3, 4}));
}

TEST(Enqueue, ExceptionReachesEvent) {
    ishmem::queue q;
    ishmem::event e = ishmemi::impl::enqueue(q, {}, [] { throw std::runtime_error("op failed"); });
    EXPECT_THROW(e.wait(), std::runtime_error);
}

// ---------------------------------------------------------------------------------------------
// ishmem/impl/work_group.h

// A group without threads, to test the generic templates on their own.
struct fake_group {
    size_t id, size;
    size_t get_local_linear_id() const { return id; }
    size_t get_local_linear_range() const { return size; }
};

TEST(GroupChunk, CoversRangeOnceBalancedAndInOrder) {
    for (size_t size : {1, 2, 7, 64})
        for (size_t n : {0, 1, 6, 7, 8, 63, 64, 65, 1000}) {
            size_t expect_begin = 0;
            for (size_t r = 0; r < size; ++r) {
                auto [b, e] = ishmemi::impl::group_chunk(fake_group{r, size}, n);
                EXPECT_EQ(b, expect_begin) << "size " << size << " n " << n << " rank " << r;
                EXPECT_LE(b, e);
                EXPECT_TRUE(e - b == n / size || e - b == n / size + 1);
                expect_begin = e;
            }
            EXPECT_EQ(expect_begin, n) << "size " << size << " n " << n;
        }
}

TEST(GroupChunk, NoOverflowNearSizeMax) {
    const size_t n = SIZE_MAX - 3;
    auto [b, e] = ishmemi::impl::group_chunk(fake_group{6, 7}, n);
    EXPECT_EQ(e, n);
    EXPECT_EQ(e - b, n / 7);
}

class WorkGroupHelpers : public ::testing::TestWithParam<size_t> {};

TEST_P(WorkGroupHelpers, RankSizeSyncBroadcastChunk) {
    const size_t local = GetParam(), n = 1001;
    struct wide {  // larger than a word, as uint128 values are
        uint64_t lo, hi;
    };
    std::vector<int> hits(n, 0);  // written in chunks, read after group_sync
    std::atomic<int> bad{0};
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range<1>{local, local}, [&](ishmem::nd_item<1> it) {
         auto g = it.get_group();
         using namespace ishmemi::impl;
         if (group_rank(g) != it.get_local_linear_id() || group_size(g) != local) bad++;
         auto [b, e] = group_chunk(g, n);
         for (size_t i = b; i < e; ++i) hits[i]++;
         group_sync(g);
         for (size_t i = 0; i < n; ++i)
             if (hits[i] != 1) bad++;
         wide w = group_broadcast_from_leader(g, wide{group_rank(g) + 10, 99});
         if (w.lo != 10 || w.hi != 99) bad++;
         char c = group_broadcast_from_leader(g, char('a' + group_rank(g)));
         if (c != 'a') bad++;
     }).wait();
    EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(GroupSizes, WorkGroupHelpers, ::testing::Values(1, 7, 64));

}  // namespace
