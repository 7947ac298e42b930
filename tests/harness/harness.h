// Helpers for tests that every PE of an `ishmrun -n N` job runs (see main.cpp for the job's rules).
#pragma once

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>

#include <chrono>
#include <cstddef>
#include <source_location>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ishmem.h"
#include "ishmem/host/exec.h"

namespace ishmem_testing {

// A deterministic test value for element i on PE pe. Always in [1, 31]: exact in every arithmetic
// type (char and float included), nonzero, and a sum over up to 4 PEs still fits in int8_t.
template <class T> T value(int pe, std::size_t i) {
    static_assert(std::is_arithmetic_v<T>, "ishmem_testing::value needs an arithmetic type");
    return static_cast<T>(1 + (static_cast<std::size_t>(pe) * 13 + i * 5) % 31);
}

// Polls pred() until it is true or timeout_ms pass; on timeout records a test failure that says
// what was awaited and returns false, so that a lost message fails the test instead of hanging the
// job. Backs off from spinning to sched_yield to short sleeps, so that more PEs than cores progress.
template <class Pred> bool wait_for(Pred&& pred, int timeout_ms, std::string_view what,
                                    std::source_location where = std::source_location::current()) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + std::chrono::milliseconds(timeout_ms);
    for (unsigned polls = 0;; ++polls) {
        if (pred()) return true;
        const auto now = clock::now();
        if (now >= deadline) break;
        if (polls < 64) continue;
        if (now - start < std::chrono::milliseconds(10))
            sched_yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    ADD_FAILURE_AT(where.file_name(), where.line()) << "timed out after " << timeout_ms << " ms waiting for " << what;
    return false;
}

// A queue shared by the tests of this process (its worker thread stays once it has run a task).
inline ishmem::queue& test_queue() {
    static ishmem::queue q;
    return q;
}

// Runs kernel on nthreads threads forming one work-group, waits, and rethrows what a work-item
// threw. kernel(ishmem::group<1>) is preferred (a generic lambda gets the group); else
// kernel(ishmem::nd_item<1>). Use EXPECT_* inside: an ASSERT_* returns from one work-item only,
// and the others may then wait for it at a barrier. Each call uses its own queue, so no thread
// outlives it (death tests fork, and warn when other threads exist).
template <class K> void run_in_group(std::size_t nthreads, K&& kernel) {
    using F = std::decay_t<K>;
    const ishmem::nd_range<1> r{nthreads, nthreads};
    ishmem::queue q;
    if constexpr (std::is_invocable_v<const F&, ishmem::group<1>>) {
        q.parallel_for(r, [k = F(std::forward<K>(kernel))](ishmem::nd_item<1> it) { k(it.get_group()); }).wait();
    } else {
        static_assert(std::is_invocable_v<const F&, ishmem::nd_item<1>>,
                      "run_in_group: kernel must take ishmem::group<1> or ishmem::nd_item<1>");
        q.parallel_for(r, std::forward<K>(kernel)).wait();
    }
}

// Like run_in_group for a kernel(group) that returns a value: every work-item must return the same
// one (a _work_group routine's contract); a work-item that differs fails the test. Returns the
// value of work-item 0.
template <class K> auto run_in_group_returning(std::size_t nthreads, K&& kernel) {
    using R = std::decay_t<decltype(kernel(std::declval<ishmem::group<1>>()))>;
    std::vector<R> results(nthreads);
    run_in_group(nthreads, [&results, &kernel](ishmem::group<1> g) { results[g.get_local_linear_id()] = kernel(g); });
    for (std::size_t i = 1; i < nthreads; ++i)
        EXPECT_EQ(results[i], results[0])
            << "work-item " << i << " of a group of " << nthreads << " returned another value than work-item 0";
    return results[0];
}

// pe is on this PE's node: ishmem_ptr maps its memory (PEs of other nodes are reached through the
// transport). Teams.PredefinedTeams checks TEAM_SHARED against the host names.
inline bool same_node(int pe) { return ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, pe, ISHMEM_TEAM_SHARED) >= 0; }

// For EXPECT_ISHMEM_ERROR: the process ended by exit with a nonzero status (not by a signal).
inline bool exited_with_error(int status) { return WIFEXITED(status) && WEXITSTATUS(status) != 0; }

// The runtime's error line, "ishmem: PE <n>: <routine>: <reason>", whose routine and reason match
// `what` (a POSIX extended regex).
inline std::string error_line(const std::string& what) { return "ishmem: PE [0-9?]+: [^\n]*" + what; }

}  // namespace ishmem_testing

// Expects `statement` to stop the process with the runtime's one-line error matching `regex`.
// A death test: the statement runs in a fork()ed copy of this PE ("fast" style, set by main.cpp);
// the "threadsafe" style would re-execute the binary, which would then try to join the job as a new
// PE. So the statement must not need the other PEs: it should fail in its argument checks.
#define EXPECT_ISHMEM_ERROR(statement, regex) \
    EXPECT_EXIT(statement, ::ishmem_testing::exited_with_error, ::ishmem_testing::error_line(regex))
#define ASSERT_ISHMEM_ERROR(statement, regex) \
    ASSERT_EXIT(statement, ::ishmem_testing::exited_with_error, ::ishmem_testing::error_line(regex))
