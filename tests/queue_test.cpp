// _on_queue semantics: queue order, deps across queues, quiet/barrier on a queue.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <chrono>
#include <thread>
#include <vector>

#include "harness/harness.h"

namespace {

int right() { return (ishmem_my_pe() + 1) % ishmem_n_pes(); }
int left() { return (ishmem_my_pe() + ishmem_n_pes() - 1) % ishmem_n_pes(); }

// Puts to one location on one queue land in submission order: the last one wins, every time.
TEST(OnQueue, InOrderOnOneQueue) {
    auto* x = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    ishmem::queue q;
    std::vector<int> values(100);
    for (int i = 0; i < 100; ++i) values[i] = i + 1;
    ishmem::event last;
    for (int i = 0; i < 100; ++i) last = ishmemx_int_put_on_queue(x, &values[i], 1, right(), q);
    last.wait();
    ishmemx_quiet_on_queue(q).wait();
    ishmemx_barrier_all_on_queue(q).wait();
    EXPECT_EQ(*x, 100);
    ishmem_barrier_all();
    ishmem_free(x);
}

// A put on queue B that depends on a slow task of queue A reads the source after A wrote it.
TEST(OnQueue, DepsAcrossQueues) {
    constexpr size_t n = 1000;
    auto* dest = static_cast<long*>(ishmem_calloc(n, sizeof(long)));
    std::vector<long> src(n, 0);
    ishmem::queue a, b;
    ishmem::event filled = a.single_task([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        for (size_t i = 0; i < n; ++i) src[i] = 7 + static_cast<long>(i) + ishmem_my_pe();
    });
    ishmem::event put = ishmemx_long_put_on_queue(dest, src.data(), n, right(), b, {filled});
    ishmem::event done = ishmemx_quiet_on_queue(b, {put});
    done.wait();
    EXPECT_TRUE(filled.is_complete());
    ishmem_barrier_all();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dest[i], 7 + static_cast<long>(i) + left()) << i;
    ishmem_barrier_all();
    ishmem_free(dest);
}

// A work_group routine inside a kernel on the queue, then a barrier on the same queue.
TEST(OnQueue, KernelThenBarrierOnQueue) {
    constexpr size_t n = 4096;
    auto* dest = static_cast<unsigned*>(ishmem_calloc(n, sizeof(unsigned)));
    std::vector<unsigned> src(n);
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned>(i * 3 + ishmem_my_pe());
    ishmem::queue q;
    unsigned* s = src.data();
    const int to = right();
    q.parallel_for(ishmem::nd_range<1>{64, 16}, [=](ishmem::nd_item<1> it) {
        // four groups of 16 threads each copy a quarter
        const size_t quarter = n / 4, g = it.get_group_linear_id();
        ishmemx_uint_put_work_group(dest + g * quarter, s + g * quarter, quarter, to, it.get_group());
    });
    ishmemx_barrier_all_on_queue(q).wait();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dest[i], static_cast<unsigned>(i * 3 + left())) << i;
    ishmem_barrier_all();
    ishmem_free(dest);
}

// sync_all on a queue and in a work-group lets every PE pass only when all arrived.
TEST(OnQueue, SyncAllVariants) {
    auto* arrived = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    ishmem::queue q;
    for (int round = 1; round <= 3; ++round) {
        ishmem_int_atomic_add(arrived, 1, 0);
        ishmem_quiet();
        if (round == 1) ishmemx_sync_all_on_queue(q).wait();
        if (round == 2) ishmem_testing::run_in_group(7, [](const auto& g) { ishmemx_sync_all_work_group(g); });
        if (round == 3) ishmem_testing::run_in_group(7, [](const auto& g) { ishmemx_barrier_all_work_group(g); });
        EXPECT_GE(ishmem_int_atomic_fetch(arrived, 0), round * ishmem_n_pes());
        ishmem_barrier_all();
    }
    ishmem_free(arrived);
}

}  // namespace
