// Helpers shared by the patterns (tests/patterns/*.h).
//
// Every pattern runs on every PE of the job, and the PEs must call the collectives (barrier, malloc,
// free) in the same order: so patterns check with EXPECT_* (which never returns early), and return
// early only where every PE takes the same branch (an allocation failure is the same on all PEs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/harness.h"
#include "ishmem.h"
#include "patterns/values.h"

namespace ishmem_testing::patterns {

// How long a PE waits for a word that another PE updates before the test fails.
inline constexpr int wait_timeout_ms = 5000;

struct world {
    int me = ishmem_my_pe();
    int n = ishmem_n_pes();
    int right = (me + 1) % n;      // where this PE sends
    int left = (me - 1 + n) % n;   // who sends to this PE
};

inline std::string on_pe(int pe) { return "PE " + std::to_string(pe); }

// A zero-filled symmetric array of n elements, freed when it goes out of scope (ishmem_free is
// collective: all PEs leave the scope in the same order). At least one element is allocated.
template <class T> class sym_array {
  public:
    explicit sym_array(std::size_t n) : n_(n), p_(static_cast<T*>(ishmem_calloc(n ? n : 1, sizeof(T)))) {}
    ~sym_array() { ishmem_free(p_); }
    sym_array(const sym_array&) = delete;
    sym_array& operator=(const sym_array&) = delete;
    T* get() const { return p_; }
    T& operator[](std::size_t i) const { return p_[i]; }
    explicit operator bool() const { return p_ != nullptr; }
    void fill(const T& v) const { std::fill(p_, p_ + (n_ ? n_ : 1), v); }

  private:
    std::size_t n_;
    T* p_;
};

// Atomic (acquire) read of a word that other PEs update: for polling loops.
template <class T> T load_acquire(T* p) { return std::atomic_ref<T>(*p).load(std::memory_order_acquire); }

// Polls until *word == expected; fails the test (without hanging) after timeout_ms.
template <class T> bool wait_equal(T* word, T expected, const std::string& what, int timeout_ms = wait_timeout_ms) {
    const bool ok = ishmem_testing::wait_for([&] { return load_acquire(word) == expected; }, timeout_ms, what);
    if (!ok) ADD_FAILURE() << what << ": last value " << show(load_acquire(word)) << ", expected " << show(expected);
    return ok;
}

// Checks got[i] == expected(i) for i < n; reports how many differ and the first one (not each).
template <class T, class Expected>
bool expect_elements(const T* got, std::size_t n, Expected&& expected, const std::string& what) {
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!equal(got[i], static_cast<T>(expected(i))) && bad++ == 0) first = i;
    if (bad)
        ADD_FAILURE() << what << ": " << bad << " of " << n << " elements wrong; first at [" << first
                      << "]: got " << show(got[first]) << ", expected " << show(static_cast<T>(expected(first)));
    return bad == 0;
}

// Checks that got[i] holds the sentinel for i < n (memory the operation must not touch).
template <class T> bool expect_untouched(const T* got, std::size_t n, const std::string& what) {
    return expect_elements(got, n, [](std::size_t) { return sentinel<T>(); }, what + " (must be untouched)");
}

// Every PE contributes mine (the same size on every PE); returns the n * mine.size() values,
// PE 0's first. Uses putmem + barrier; collective.
template <class T> std::vector<T> allgather(const std::vector<T>& mine) {
    const world w;
    const std::size_t k = mine.size();
    std::vector<T> all(k * w.n);
    sym_array<T> buf(k * w.n);
    if (!buf) {
        ADD_FAILURE() << "allgather: ishmem_calloc failed";
        return all;
    }
    for (int pe = 0; pe < w.n; ++pe) ishmem_putmem(buf.get() + k * w.me, mine.data(), k * sizeof(T), pe);
    ishmem_barrier_all();
    std::copy(buf.get(), buf.get() + k * w.n, all.begin());
    return all;  // buf's ishmem_free waits for every PE to have copied
}

// Checks that a set of atomic read-modify-writes on one word can be put in one order: starting
// from init, each op (returned old value, operand) returned the value the previous ones left,
// and after all of them the word holds final_value. Needs ops whose old values are all distinct
// (strictly increasing adds, disjoint bit masks, distinct swapped values).
template <class T, class Apply>
void expect_linearizable(T init, const std::vector<std::pair<T, T>>& ops, T final_value, Apply apply,
                         const std::string& what) {
    std::vector<bool> used(ops.size(), false);
    T cur = init;
    for (std::size_t step = 0; step < ops.size(); ++step) {
        std::size_t j = 0;
        while (j < ops.size() && (used[j] || !equal(ops[j].first, cur))) ++j;
        if (j == ops.size()) {
            std::string returned;
            for (const auto& op : ops) returned += " " + show(op.first);
            ADD_FAILURE() << what << ": after " << step << " of " << ops.size()
                          << " operations the word should hold " << show(cur)
                          << ", but no remaining operation returned it; returned values:" << returned;
            return;
        }
        used[j] = true;
        cur = apply(cur, ops[j].second);
    }
    EXPECT_TRUE(equal(cur, final_value)) << what << ": final value " << show(final_value) << ", expected "
                                         << show(cur);
}

}  // namespace ishmem_testing::patterns
