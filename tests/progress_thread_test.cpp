// The MPI transport's progress thread held and released (transport::hold_progress_thread, which
// bench_coll uses to time its MPI peer without the thread's polls): held, it answers no other
// PE's atomics while its PE computes, yet the PE's own waiting loops still answer them; released,
// it answers them again. Runs where some PE is on another node (the multinode ctests).
#include <gtest/gtest.h>
#include <ishmem.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "harness/harness.h"
#include "ishmem/impl/transport.h"
#include "patterns/common.h"

namespace {

using ishmem_testing::wait_for;
using ishmem_testing::patterns::wait_timeout_ms;

long seen(long* word) { return std::atomic_ref<long>(*word).load(std::memory_order_acquire); }

// PE 0 is the target; every PE that reaches PE 0 through the transport adds 1 to its word, twice.
TEST(ProgressThread, HeldAnswersNothingWaitsStillServeReleasedAnswersAgain) {
    if (ishmemi::remote == nullptr) GTEST_SKIP() << "every PE on one node: there is no transport";
    // PE 0's go to the adders must complete without its serving their adds; a put to a heap reached
    // by messages is a request whose completion PE 0's quiet waits for, serving meanwhile.
    if (ishmemi::remote_heap_by_messages())
        GTEST_SKIP() << "ISHMEM_MPI_RMA=messages: PE 0's quiet serves while it completes its puts";
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    auto* word = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    auto* go = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    long adders = 0;  // (PE 0's count: the PEs whose heap it does not map)
    for (int pe = 1; pe < n; ++pe) adders += ishmem_ptr(word, pe) == nullptr;
    const bool adder = me != 0 && ishmem_ptr(word, 0) == nullptr;
    // Round k: PE 0 tells the adders (a put of k) that it computes; they wait for that, then add.
    auto send_go = [&](long k) {
        for (int pe = 1; pe < n; ++pe)
            if (ishmem_ptr(word, pe) == nullptr) ishmem_long_p(go, k, pe);
        ishmem_quiet();  // (completes the puts; answers no atomic)
    };
    auto add_after_go = [&](long k, const char* what) {
        wait_for([&] { return ishmem_long_test(go, ISHMEM_CMP_EQ, k) != 0; }, wait_timeout_ms, what);
        ishmem_long_atomic_add(word, 1, 0);
    };
    if (me == 0) ishmemi::remote->hold_progress_thread(true);
    ishmem_barrier_all();

    // Held: the adds reach PE 0 while it computes (no call of ishmem: only the thread could answer
    // them); then a loop of ishmem_long_test answers them. The adders add only once PE 0 tells them
    // that it computes (PE 0's own waits, in the barrier above too, rightly answer adds). Their
    // barrier below waits for PE 0's answer (its quiet completes their adds).
    if (me == 0) {
        send_go(1);
        long most = 0;
        for (auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
             std::chrono::steady_clock::now() < end;)
            most = std::max(most, seen(word));
        EXPECT_EQ(most, 0) << "the held progress thread answered an add while PE 0 computed";
        wait_for([&] { return ishmem_long_test(word, ISHMEM_CMP_EQ, adders) != 0; }, wait_timeout_ms,
                 "the adds, answered by PE 0's loop of ishmem_long_test");
        EXPECT_EQ(*word, adders);
        ishmemi::remote->hold_progress_thread(false);
    }
    if (adder) add_after_go(1, "PE 0's go");
    ishmem_barrier_all();

    // Released: PE 0 computes again (after its second go), and only the thread can answer the
    // second adds.
    if (me == 0) {
        send_go(2);
        wait_for([&] { return seen(word) == 2 * adders; }, wait_timeout_ms,
                 "the second adds, answered by the released progress thread while PE 0 computes");
    }
    if (adder) add_after_go(2, "PE 0's second go");
    ishmem_barrier_all();
    if (me == 0) EXPECT_EQ(*word, 2 * adders);
    ishmem_barrier_all();
    ishmem_free(go);
    ishmem_free(word);
}

}  // namespace
