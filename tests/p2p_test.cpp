// Point-to-point synchronization, the semantics the generated per-entry-point cases do not reach:
// empty and fully masked sets, a mask hiding the only satisfied element, fairness of _any/_some,
// _vector with mixed per-element outcomes, updates from a second thread and from kernels,
// _on_queue chained with deps, _work_group from groups of 1, 7 and 64 threads, and bad input.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness/harness.h"
#include "patterns/common.h"

namespace {

using ishmem_testing::patterns::load_acquire;
using ishmem_testing::patterns::sym_array;
using ishmem_testing::patterns::wait_timeout_ms;
using ishmem_testing::patterns::world;

constexpr std::size_t group_sizes[] = {1, 7, 64};

// nelems == 0 (ivars may then be null) and a mask that leaves nothing in: every form returns at
// once with the empty-set result, whatever the variables hold.
TEST(P2p, EmptyAndFullyMaskedSetsReturnAtOnce) {
    sym_array<int> ivars(4);
    ASSERT_TRUE(ivars);
    for (int i = 0; i < 4; ++i) ivars[i] = 0;  // none equals 1
    const int all_masked[4] = {1, 2, -1, 7};
    const int values[4] = {1, 1, 1, 1};
    std::size_t idx[4] = {99, 99, 99, 99};
    struct set_arg {
        int* ivars;
        std::size_t n;
        const int* status;
        const char* what;
    };
    for (const set_arg& s :
         {set_arg{nullptr, 0, nullptr, "nelems 0, null ivars"}, set_arg{ivars.get(), 0, nullptr, "nelems 0"},
          set_arg{ivars.get(), 4, all_masked, "every element masked"}}) {
        SCOPED_TRACE(s.what);
        ishmem_int_wait_until_all(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1);
        ishmem_int_wait_until_all_vector(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, values);
        EXPECT_EQ(ishmem_int_wait_until_any(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1), SIZE_MAX);
        EXPECT_EQ(ishmem_int_wait_until_any_vector(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, values), SIZE_MAX);
        EXPECT_EQ(ishmem_int_wait_until_some(s.ivars, s.n, idx, s.status, ISHMEM_CMP_EQ, 1), 0u);
        EXPECT_EQ(ishmem_int_wait_until_some_vector(s.ivars, s.n, idx, s.status, ISHMEM_CMP_EQ, values), 0u);
        EXPECT_EQ(ishmem_int_test_all(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1), 1);
        EXPECT_EQ(ishmem_int_test_all_vector(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, values), 1);
        EXPECT_EQ(ishmem_int_test_any(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1), SIZE_MAX);
        EXPECT_EQ(ishmem_int_test_some(s.ivars, s.n, idx, s.status, ISHMEM_CMP_EQ, 1), 0u);
        EXPECT_EQ(idx[0], 99u) << "an empty set wrote an index";
        // _on_queue: ret holds the empty-set result once the event completes.
        std::size_t ret = 12345;
        ishmemx_int_wait_until_any_on_queue(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1, &ret,
                                            ishmem_testing::test_queue())
            .wait();
        EXPECT_EQ(ret, SIZE_MAX);
        ret = 12345;
        ishmemx_int_wait_until_some_on_queue(s.ivars, s.n, idx, s.status, ISHMEM_CMP_EQ, 1, &ret,
                                             ishmem_testing::test_queue())
            .wait();
        EXPECT_EQ(ret, 0u);
        ishmemx_int_wait_until_all_on_queue(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1, ishmem_testing::test_queue())
            .wait();
        // _work_group: every thread gets the empty-set result.
        EXPECT_EQ(ishmem_testing::run_in_group_returning(7,
                                                         [&](const auto& g) {
                                                             return ishmemx_int_wait_until_any_work_group(
                                                                 s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1, g);
                                                         }),
                  SIZE_MAX);
        EXPECT_EQ(ishmem_testing::run_in_group_returning(7,
                                                         [&](const auto& g) {
                                                             return ishmemx_int_test_some_work_group(
                                                                 s.ivars, s.n, idx, s.status, ISHMEM_CMP_EQ, 1, g);
                                                         }),
                  0u);
        ishmem_testing::run_in_group(7, [&](const auto& g) {
            ishmemx_int_wait_until_all_work_group(s.ivars, s.n, s.status, ISHMEM_CMP_EQ, 1, g);
        });
    }
}

// The mask hides the one satisfied element: the tests report nothing; unmasked, they report it.
TEST(P2p, MaskHidingTheOnlySatisfiedElement) {
    sym_array<long> ivars(5);
    ASSERT_TRUE(ivars);
    for (int i = 0; i < 5; ++i) ivars[i] = 0;
    ivars[3] = 9;
    int status[5] = {0, 0, 0, 1, 0};
    std::size_t idx[5];
    EXPECT_EQ(ishmem_long_test_any(ivars.get(), 5, status, ISHMEM_CMP_EQ, 9), SIZE_MAX);
    EXPECT_EQ(ishmem_long_test_some(ivars.get(), 5, idx, status, ISHMEM_CMP_EQ, 9), 0u);
    EXPECT_EQ(ishmem_long_test_all(ivars.get(), 5, status, ISHMEM_CMP_NE, 9), 1) << "the others all differ from 9";
    EXPECT_EQ(ishmem_long_test_all(ivars.get(), 5, nullptr, ISHMEM_CMP_NE, 9), 0) << "element 3 equals 9";
    EXPECT_EQ(ishmem_long_test_any(ivars.get(), 5, nullptr, ISHMEM_CMP_EQ, 9), 3u);
    ASSERT_EQ(ishmem_long_test_some(ivars.get(), 5, idx, nullptr, ISHMEM_CMP_EQ, 9), 1u);
    EXPECT_EQ(idx[0], 3u);
    EXPECT_EQ(ishmem_long_wait_until_any(ivars.get(), 5, nullptr, ISHMEM_CMP_EQ, 9), 3u);
    // Blocking with the mask: returns only when another element becomes satisfied (element 1,
    // set by a second thread of this PE).
    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ishmem_long_atomic_set(&ivars[1], 9, ishmem_my_pe());
    });
    EXPECT_EQ(ishmem_long_wait_until_any(ivars.get(), 5, status, ISHMEM_CMP_EQ, 9), 1u);
    setter.join();
}

// With every element satisfied, successive _any calls visit every index (none starves), and
// _some reports all of them each time.
TEST(P2p, AnyAndSomeDoNotStarveAnElement) {
    constexpr std::size_t n = 64;
    sym_array<uint64_t> ivars(n);
    ASSERT_TRUE(ivars);
    for (std::size_t i = 0; i < n; ++i) ivars[i] = 5;
    std::set<std::size_t> seen_test, seen_wait, seen_wg;
    for (std::size_t call = 0; call < 2 * n; ++call) {
        seen_test.insert(ishmem_uint64_test_any(ivars.get(), n, nullptr, ISHMEM_CMP_GE, 5));
        seen_wait.insert(ishmem_uint64_wait_until_any(ivars.get(), n, nullptr, ISHMEM_CMP_GE, 5));
    }
    for (std::size_t call = 0; call < 2 * n; ++call)
        seen_wg.insert(ishmem_testing::run_in_group_returning(7, [&](const auto& g) {
            return ishmemx_uint64_test_any_work_group(ivars.get(), n, nullptr, ISHMEM_CMP_GE, uint64_t{5}, g);
        }));
    EXPECT_EQ(seen_test.size(), n) << "test_any over " << 2 * n << " calls reported only " << seen_test.size()
                                   << " indices";
    EXPECT_EQ(seen_wait.size(), n) << "wait_until_any over " << 2 * n << " calls reported only " << seen_wait.size()
                                   << " indices";
    EXPECT_EQ(seen_wg.size(), n) << "test_any_work_group reported only " << seen_wg.size() << " indices";
    // A mask leaves even elements out: only odd indices, all of them.
    std::vector<int> status(n);
    for (std::size_t i = 0; i < n; ++i) status[i] = i % 2 == 0;
    std::set<std::size_t> odd;
    for (std::size_t call = 0; call < n; ++call) {
        const std::size_t i = ishmem_uint64_wait_until_any(ivars.get(), n, status.data(), ISHMEM_CMP_EQ, 5);
        EXPECT_EQ(i % 2, 1u) << "a masked index was reported";
        odd.insert(i);
    }
    EXPECT_EQ(odd.size(), n / 2);
    std::vector<std::size_t> idx(n);
    ASSERT_EQ(ishmem_uint64_wait_until_some(ivars.get(), n, idx.data(), nullptr, ISHMEM_CMP_EQ, 5), n);
    EXPECT_EQ(std::set<std::size_t>(idx.begin(), idx.end()).size(), n) << "wait_until_some repeated an index";
}

// _vector: element i compared with cmp_values[i]; with mixed values some elements satisfy and
// some do not, for every operator.
TEST(P2p, VectorComparesEachElementWithItsOwnValue) {
    constexpr std::size_t n = 6;
    sym_array<int> ivars(n);
    ASSERT_TRUE(ivars);
    const int held[n] = {5, 5, 5, -3, 7, 0};
    const int values[n] = {5, 4, 6, -3, 8, -1};
    for (std::size_t i = 0; i < n; ++i) ivars[i] = held[i];
    struct expectation {
        int cmp;
        std::set<std::size_t> satisfied;
    };
    const expectation cases[] = {{ISHMEM_CMP_EQ, {0, 3}}, {ISHMEM_CMP_NE, {1, 2, 4, 5}},
                                 {ISHMEM_CMP_GT, {1, 5}}, {ISHMEM_CMP_GE, {0, 1, 3, 5}},
                                 {ISHMEM_CMP_LT, {2, 4}}, {ISHMEM_CMP_LE, {0, 2, 3, 4}}};
    for (const expectation& e : cases) {
        SCOPED_TRACE("cmp " + std::to_string(e.cmp));
        std::size_t idx[n];
        const std::size_t count = ishmem_int_test_some_vector(ivars.get(), n, idx, nullptr, e.cmp, values);
        EXPECT_EQ(std::set<std::size_t>(idx, idx + count), e.satisfied);
        const std::size_t wcount = ishmem_int_wait_until_some_vector(ivars.get(), n, idx, nullptr, e.cmp, values);
        EXPECT_EQ(std::set<std::size_t>(idx, idx + wcount), e.satisfied);
        EXPECT_TRUE(e.satisfied.count(ishmem_int_test_any_vector(ivars.get(), n, nullptr, e.cmp, values)));
        EXPECT_EQ(ishmem_int_test_all_vector(ivars.get(), n, nullptr, e.cmp, values), 0);
        // Masking the unsatisfied elements makes _all true.
        int status[n];
        for (std::size_t i = 0; i < n; ++i) status[i] = e.satisfied.count(i) ? 0 : 1;
        EXPECT_EQ(ishmem_int_test_all_vector(ivars.get(), n, status, e.cmp, values), 1);
        ishmem_int_wait_until_all_vector(ivars.get(), n, status, e.cmp, values);
    }
}

// Device-side updates while the host waits, and a device-side wait while the host updates.
TEST(P2p, UpdatesBetweenKernelsAndTheHost) {
    sym_array<int> flags(2);
    ASSERT_TRUE(flags);
    const int me = ishmem_my_pe();
    int* f = flags.get();
    ishmem::queue q;
    // A kernel of 32 work-items; each adds 1 to flags[0]; the host waits for all 32.
    ishmem::event e =
        q.parallel_for(ishmem::nd_range<1>{32, 8}, [=](ishmem::nd_item<1>) { ishmem_int_atomic_add(f, 1, me); });
    ishmem_int_wait_until(flags.get(), ISHMEM_CMP_EQ, 32);
    e.wait();
    // A kernel's work-group waits for the host's update of flags[1], then reports through flags[0].
    ishmem::event w = q.parallel_for(ishmem::nd_range<1>{16, 16}, [=](ishmem::nd_item<1> it) {
        ishmemx_int_wait_until_work_group(f + 1, ISHMEM_CMP_EQ, 77, it.get_group());
        if (it.get_local_linear_id() == 0) ishmem_int_atomic_set(f, -1, me);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_EQ(load_acquire(flags.get()), 32) << "the kernel returned from its wait before the update";
    ishmem_int_atomic_set(flags.get() + 1, 77, me);
    ishmem_int_wait_until(flags.get(), ISHMEM_CMP_EQ, -1);
    w.wait();
}

// _on_queue: the wait runs after deps; work that depends on its event runs after the wait is
// satisfied and sees ret.
TEST(P2p, OnQueueChainedWithDeps) {
    const world w;
    sym_array<uint64_t> ivars(3);
    sym_array<uint64_t> sig(1);
    ASSERT_TRUE(ivars && sig);
    ishmem_barrier_all();
    ishmem::queue a, b, c;
    std::atomic<int> step{0};
    ishmem::event first = a.single_task([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        step = 1;
    });
    std::size_t ret = 999;
    ishmem::event waited =
        ishmemx_uint64_wait_until_any_on_queue(ivars.get(), 3, nullptr, ISHMEM_CMP_GT, 100, &ret, b, {first});
    std::size_t seen_ret = 0;
    int seen_step = 0;
    ishmem::event after = c.single_task({waited}, [&] {
        seen_ret = ret;
        seen_step = step;
    });
    uint64_t sig_ret = 0;
    ishmem::event sig_waited = ishmemx_signal_wait_until_on_queue(sig.get(), ISHMEM_CMP_GE, 40, &sig_ret, b);
    // The left neighbour satisfies element 2 of ours and then signals 41.
    ishmem_uint64_atomic_set(&ivars[2], 101, w.right);
    ishmemx_signal_set(sig.get(), 41, w.right);
    after.wait();
    sig_waited.wait();
    EXPECT_EQ(seen_step, 1) << "the wait started before its dependency";
    EXPECT_EQ(seen_ret, 2u) << "ret was not set when the dependent task ran";
    EXPECT_EQ(sig_ret, 41u);
    ishmem_barrier_all();
}

// _work_group with 1, 7 and 64 threads: wait_until_all splits the set (each element satisfied by a
// different update), _any/_some return the same value in every thread.
TEST(P2p, WorkGroupSizes) {
    const world w;
    constexpr std::size_t n = 100;
    sym_array<int> ivars(n);
    ASSERT_TRUE(ivars);
    for (std::size_t threads : group_sizes) {
        SCOPED_TRACE("group of " + std::to_string(threads));
        ivars.fill(0);
        ishmem_barrier_all();
        std::thread updater([&] {
            for (std::size_t i = n; i-- > 0;) ishmem_int_atomic_set(&ivars[i], static_cast<int>(i) + 1, w.right);
        });
        ishmem_testing::run_in_group(threads, [&](const auto& g) {
            ishmemx_int_wait_until_all_work_group(ivars.get(), n, nullptr, ISHMEM_CMP_GT, 0, g);
        });
        for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(load_acquire(&ivars[i]), static_cast<int>(i) + 1) << i;
        updater.join();
        EXPECT_EQ(ishmem_testing::run_in_group_returning(threads,
                                                         [&](const auto& g) {
                                                             return ishmemx_int_wait_until_any_work_group(
                                                                 ivars.get(), n, nullptr, ISHMEM_CMP_EQ, 42, g);
                                                         }),
                  41u);
        std::vector<std::size_t> idx(n, SIZE_MAX);
        EXPECT_EQ(ishmem_testing::run_in_group_returning(threads,
                                                         [&](const auto& g) {
                                                             return ishmemx_int_wait_until_some_work_group(
                                                                 ivars.get(), n, idx.data(), nullptr, ISHMEM_CMP_GT, 90,
                                                                 g);
                                                         }),
                  10u);
        EXPECT_EQ(std::set<std::size_t>(idx.begin(), idx.begin() + 10),
                  (std::set<std::size_t>{90, 91, 92, 93, 94, 95, 96, 97, 98, 99}));
        EXPECT_EQ(ishmem_testing::run_in_group_returning(threads,
                                                         [&](const auto& g) {
                                                             return ishmemx_signal_wait_until_work_group(
                                                                 reinterpret_cast<uint64_t*>(ivars.get()),
                                                                 ISHMEM_CMP_NE, 0, g);
                                                         }),
                  uint64_t{2} << 32 | 1u);
        ishmem_barrier_all();
    }
}

// Bad input: an unknown operator, variables outside the symmetric heap, null arrays with nelems > 0.
TEST(P2p, BadInput) {
    sym_array<int> ivars(4);
    ASSERT_TRUE(ivars);
    int local = 0;
    std::size_t idx[4];
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until(ivars.get(), 0, 1),
                        "ishmem_int_wait_until: cmp 0 is not a comparison operator");
    EXPECT_ISHMEM_ERROR(ishmem_int_test(ivars.get(), 7, 1), "ishmem_int_test: cmp 7 is not a comparison operator");
    EXPECT_ISHMEM_ERROR(ishmem_int_test_any(ivars.get(), 4, nullptr, -1, 1), "ishmem_int_test_any: cmp -1");
    EXPECT_ISHMEM_ERROR(ishmem_signal_wait_until(reinterpret_cast<uint64_t*>(ivars.get()), 99, 0),
                        "ishmem_signal_wait_until: cmp 99");
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until(&local, ISHMEM_CMP_EQ, 1),
                        "ishmem_int_wait_until: ivar .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_wait_until(&local, ISHMEM_CMP_EQ, 1),
                        "ishmem_wait_until: ivar .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_test_all(&local, 1, nullptr, ISHMEM_CMP_EQ, 1),
                        "ishmem_int_test_all: ivars .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until_all(ivars.get(), size_t{1} << 40, nullptr, ISHMEM_CMP_EQ, 1),
                        "ishmem_int_wait_until_all: ivars .* runs past the end of the symmetric heap");
    uint64_t local_sig = 0;
    EXPECT_ISHMEM_ERROR(ishmem_signal_wait_until(&local_sig, ISHMEM_CMP_EQ, 0),
                        "ishmem_signal_wait_until: sig_addr .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until_any(nullptr, 3, nullptr, ISHMEM_CMP_EQ, 1),
                        "ishmem_int_wait_until_any: ivars is null with 3 elements");
    EXPECT_ISHMEM_ERROR(ishmem_int_test_some(ivars.get(), 4, nullptr, nullptr, ISHMEM_CMP_EQ, 1),
                        "ishmem_int_test_some: indices is null");
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until_all_vector(ivars.get(), 4, nullptr, ISHMEM_CMP_EQ, nullptr),
                        "ishmem_int_wait_until_all_vector: cmp_values is null");
    EXPECT_ISHMEM_ERROR(ishmemx_int_wait_until_any_on_queue(ivars.get(), 4, nullptr, ISHMEM_CMP_EQ, 1, nullptr,
                                                            ishmem_testing::test_queue()),
                        "ishmemx_int_wait_until_any_on_queue: ret is null");
    EXPECT_ISHMEM_ERROR(ishmemx_int_wait_until_some_on_queue(ivars.get(), 4, idx, nullptr, 12, 1, &idx[0],
                                                             ishmem_testing::test_queue()),
                        "ishmemx_int_wait_until_some_on_queue: cmp 12");
    EXPECT_ISHMEM_ERROR(ishmemx_int_wait(&local, 0), "ishmemx_int_wait: ivar .* outside the symmetric heap");
}

}  // namespace
