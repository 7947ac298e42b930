// Patterns for point-to-point synchronization: wait_until, test, their _all/_any/_some and
// _vector set forms, signal_wait_until and the ishmemx_wait extension.
//
// Each pattern runs one round per comparison operator. In a round every PE sets its own variables
// to values that do not satisfy the condition, then its left neighbour (itself on 1 PE, from a
// second thread) makes them satisfy it, after a delay, with atomics from another thread while this
// PE waits or polls through the adapter. The adapters have the base form's signature; generated
// cases pass one per entry point (base, _on_queue, _work_group; typed and C++ template).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

// One comparison operator with a value that fails it and one that satisfies it, for cmp_value v.
// All values stay in [v - 4, v + 9], so that with v >= 10 they are positive and fit every type.
struct cmp_round {
    int cmp;
    const char* name;
    int before;  // offset from v of the value that fails the condition
    int after;   // offset from v of the value that satisfies it
};
inline constexpr cmp_round cmp_rounds[] = {
    {ISHMEM_CMP_EQ, "ISHMEM_CMP_EQ", -3, 0}, {ISHMEM_CMP_NE, "ISHMEM_CMP_NE", 0, 5},
    {ISHMEM_CMP_GT, "ISHMEM_CMP_GT", 0, 9},  {ISHMEM_CMP_GE, "ISHMEM_CMP_GE", -2, 0},
    {ISHMEM_CMP_LT, "ISHMEM_CMP_LT", 0, -4}, {ISHMEM_CMP_LE, "ISHMEM_CMP_LE", 6, 0},
};

// How long the updating thread sleeps before it makes a variable satisfy its condition: long
// enough that the waiter is usually already waiting, short enough for ~6,000 rounds per run.
inline constexpr auto update_delay = std::chrono::microseconds(200);

// Runs update() on a second thread of this PE (after update_delay) while the caller runs wait(),
// then joins. The PEs run this together, each updating its right neighbour.
template <class Update, class Wait> void while_updated(Update&& update, Wait&& wait) {
    std::thread updater([&] {
        std::this_thread::sleep_for(update_delay);
        update();
    });
    wait();
    updater.join();
}

// ---- one variable -----------------------------------------------------------------------------

// wait_until(ivar, cmp, v): returns once the left neighbour's atomic_set made ivar satisfy cmp; the
// payload it put and fenced before the atomic_set is visible then (acquire). only_ne: just the
// ISHMEM_CMP_NE round (for ishmemx_wait).
template <class T, class WaitUntil> void wait_until_rounds(WaitUntil wait_until, bool only_ne) {
    const world w;
    sym_array<T> ivar(1);
    sym_array<uint64_t> payload(1);
    ASSERT_TRUE(ivar && payload);
    const T v = static_cast<T>(10 + w.me);
    const T right_v = static_cast<T>(10 + w.right);
    for (std::size_t r = 0; r < std::size(cmp_rounds); ++r) {
        const cmp_round& c = cmp_rounds[r];
        if (only_ne && c.cmp != ISHMEM_CMP_NE) continue;
        const std::string what =
            std::string("wait_until ") + c.name + " on " + on_pe(w.me) + ", updated by " + on_pe(w.left);
        ivar.store(0, static_cast<T>(v + c.before));
        payload.store(0, 0);
        ishmem_barrier_all();
        const uint64_t tag = (uint64_t(r) + 1) << 32 | uint64_t(w.me);
        while_updated(
            [&] {
                ishmem_uint64_p(payload.get(), tag, w.right);
                ishmem_fence();
                ishmem_atomic_set<T>(ivar.get(), static_cast<T>(right_v + c.after), w.right);
            },
            [&] { wait_until(ivar.get(), c.cmp, v); });
        EXPECT_EQ(ivar.load(0), static_cast<T>(v + c.after)) << what << ": returned before the update";
        EXPECT_EQ(payload.load(0), (uint64_t(r) + 1) << 32 | uint64_t(w.left))
            << what << ": the data put before the update is not visible after the wait";
        ishmem_barrier_all();
    }
}

template <class T, class WaitUntil> void wait_until(WaitUntil f) { wait_until_rounds<T>(f, false); }

// ishmemx_wait(ivar, v): returns once ivar differs from v: wait_until's NE round.
template <class T, class Wait> void wait(Wait f) {
    wait_until_rounds<T>([&](T* ivar, int, T v) { f(ivar, v); }, true);
}

// test(ivar, cmp, v): 0 before the update, and polling it reaches 1 after.
template <class T, class Test> void test(Test test) {
    const world w;
    sym_array<T> ivar(1);
    ASSERT_TRUE(ivar);
    const T v = static_cast<T>(10 + w.me), right_v = static_cast<T>(10 + w.right);
    for (const cmp_round& c : cmp_rounds) {
        const std::string what = std::string("test ") + c.name + " on " + on_pe(w.me);
        ivar.store(0, static_cast<T>(v + c.before));
        ishmem_barrier_all();
        EXPECT_EQ(test(ivar.get(), c.cmp, v), 0) << what << " before the update";
        ishmem_barrier_all();  // nobody updates before its neighbour has checked the 0
        while_updated(
            [&] { ishmem_atomic_set<T>(ivar.get(), static_cast<T>(right_v + c.after), w.right); },
            [&] { wait_for([&] { return test(ivar.get(), c.cmp, v) == 1; }, wait_timeout_ms, what + " to become 1"); });
        EXPECT_EQ(test(ivar.get(), c.cmp, v), 1) << what << " after the update";
        ishmem_barrier_all();
    }
}

// signal_wait_until(sig, cmp, v): the left neighbour's put_signal (SET) satisfies it; the returned
// value is the signal, and the data put with it is visible.
template <class SignalWaitUntil> void signal_wait_until(SignalWaitUntil signal_wait_until) {
    const world w;
    sym_array<uint64_t> sig(1), data(4);
    ASSERT_TRUE(sig && data);
    const uint64_t v = 1000 + uint64_t(w.me), right_v = 1000 + uint64_t(w.right);
    for (std::size_t r = 0; r < std::size(cmp_rounds); ++r) {
        const cmp_round& c = cmp_rounds[r];
        const std::string what = std::string("signal_wait_until ") + c.name + " on " + on_pe(w.me);
        sig.store(0, v + c.before);
        data.fill(0);
        ishmem_barrier_all();
        uint64_t got = 0;
        std::vector<uint64_t> src(4);
        for (std::size_t i = 0; i < 4; ++i) src[i] = make_value<uint64_t>(w.me, i + r);
        while_updated(
            [&] {
                ishmem_uint64_put_signal(data.get(), src.data(), 4, sig.get(), right_v + c.after, ISHMEM_SIGNAL_SET,
                                         w.right);
            },
            [&] { got = signal_wait_until(sig.get(), c.cmp, v); });
        EXPECT_EQ(got, v + c.after) << what << ": returned value";
        expect_elements(
            data.read(0, 4), [&](std::size_t i) { return make_value<uint64_t>(w.left, i + r); },
            what + ": data of the put_signal");
        ishmem_barrier_all();
    }
}

// ---- sets -------------------------------------------------------------------------------------

// The set every set pattern uses: 6 variables; in rounds with a mask, element `masked` is left out
// (and made to satisfy the condition early, which must not count); other rounds pass a null status.
// With `vector`, element i is compared with its own value.
template <class T> struct set_round {
    static constexpr std::size_t n = 6, masked = 4;
    const cmp_round& c;
    bool use_mask;
    bool vector;
    int pe;                                    // whose variables (their values depend on the PE)
    local_vector<int> mask{0, 0, 0, 0, 1, 0};  // handed to the adapter as status

    T value(std::size_t i) const { return static_cast<T>(10 + 3 * pe + (vector ? 5 * i : 0)); }
    T before(std::size_t i) const { return static_cast<T>(value(i) + c.before); }
    T after(std::size_t i) const { return static_cast<T>(value(i) + c.after); }
    const int* status() const { return use_mask ? mask.data() : nullptr; }
    bool in_set(std::size_t i) const { return !use_mask || mask[i] == 0; }
    local_vector<T> values() const {  // handed to the adapter as cmp_values
        local_vector<T> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = value(i);
        return v;
    }
    std::string what(const char* routine) const {
        return std::string(routine) + (vector ? "_vector " : " ") + c.name +
               (use_mask ? " with a mask" : " without a mask") + " on " + on_pe(pe);
    }
};

// Runs the rounds of a set pattern: per comparison operator, masked and unmasked alternately.
// body(mine, theirs, ivars) runs between two barriers; ivars start at mine's "before" values.
template <class T, class Body> void set_rounds(bool vector, Body&& body) {
    const world w;
    sym_array<T> ivars(set_round<T>::n);
    ASSERT_TRUE(ivars);
    for (std::size_t r = 0; r < std::size(cmp_rounds); ++r) {
        const set_round<T> mine{cmp_rounds[r], r % 2 == 0, vector, w.me};
        const set_round<T> theirs{cmp_rounds[r], r % 2 == 0, vector, w.right};
        for (std::size_t i = 0; i < mine.n; ++i) ivars.store(i, mine.before(i));
        ishmem_barrier_all();
        body(mine, theirs, ivars.get());
        ishmem_barrier_all();
    }
}

// Makes elements `order` of the right neighbour's set satisfy the condition, one at a time with a
// short pause, after first satisfying its masked element when the round masks it and
// satisfy_masked is set (for _any/_some, which must not report it; the _all patterns leave it
// unsatisfied instead, so that an _all that ignores the mask never completes).
template <class T> void satisfy(const set_round<T>& theirs, T* ivars, std::initializer_list<std::size_t> order,
                                bool satisfy_masked = true) {
    const int right = theirs.pe;
    if (theirs.use_mask && satisfy_masked)
        ishmem_atomic_set<T>(ivars + theirs.masked, theirs.after(theirs.masked), right);
    for (std::size_t i : order) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        ishmem_atomic_set<T>(ivars + i, theirs.after(i), right);
    }
}

// Calls f(ivars, nelems, status, cmp, one value or the per-element values).
template <class T, class F> auto call_set(const set_round<T>& s, const local_vector<T>& values, T* ivars, F&& f) {
    if constexpr (std::is_invocable_v<F&, T*, std::size_t, const int*, int, T>)
        return f(ivars, s.n, s.status(), s.c.cmp, values[0]);
    else
        return f(ivars, s.n, s.status(), s.c.cmp, values.data());
}
template <class T, class F>
auto call_set_indices(const set_round<T>& s, const local_vector<T>& values, T* ivars, std::size_t* indices, F&& f) {
    if constexpr (std::is_invocable_v<F&, T*, std::size_t, std::size_t*, const int*, int, T>)
        return f(ivars, s.n, indices, s.status(), s.c.cmp, values[0]);
    else
        return f(ivars, s.n, indices, s.status(), s.c.cmp, values.data());
}

// wait_until_all: returns only once every element of the set is satisfied (they are updated one by
// one, out of order); a masked element that never satisfies does not hold it up.
template <class T, class F> void wait_until_all_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        while_updated(
            [&] {
                satisfy(theirs, ivars, {5, 0, 3, 1, 2}, false);
                if (!theirs.use_mask) satisfy(theirs, ivars, {4});
            },
            [&] { call_set(mine, values, ivars, f); });
        for (std::size_t i = 0; i < mine.n; ++i)
            if (mine.in_set(i))
                EXPECT_EQ(sym_load(ivars + i), mine.after(i))
                    << mine.what("wait_until_all") << ": returned before element " << i << " was satisfied";
    });
}

// wait_until_any: returns the one element of the set that the neighbour satisfies (element 3,
// after the masked one).
template <class T, class F> void wait_until_any_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        std::size_t got = 0;
        while_updated([&] { satisfy(theirs, ivars, {3}); }, [&] { got = call_set(mine, values, ivars, f); });
        EXPECT_EQ(got, 3u) << mine.what("wait_until_any");
    });
}

// wait_until_some: the neighbour satisfies elements 1 and 5; every call reports a nonempty subset of
// them without repeats, and calls until both are seen. A wrong report ends the polling at once.
template <class T, class F> void wait_until_some_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        const std::string what = mine.what("wait_until_some");
        std::set<std::size_t> seen;
        bool wrong = false;
        local_vector<std::size_t> idx(mine.n, SIZE_MAX);
        auto call_and_check = [&] {
            const std::size_t count = call_set_indices(mine, values, ivars, idx.data(), f);
            std::set<std::size_t> once;
            for (std::size_t k = 0; k < count && k < mine.n; ++k) {
                if (idx[k] != 1 && idx[k] != 5)
                    ADD_FAILURE() << what << ": reported index " << idx[k] << ", not a satisfied element";
                else if (!once.insert(idx[k]).second)
                    ADD_FAILURE() << what << ": reported index " << idx[k] << " twice";
                else {
                    seen.insert(idx[k]);
                    continue;
                }
                wrong = true;
            }
            if (count == 0 || count > 2) {
                ADD_FAILURE() << what << ": returned " << count << " (1 or 2 elements are satisfied)";
                wrong = true;
            }
        };
        while_updated([&] { satisfy(theirs, ivars, {5, 1}); }, call_and_check);
        if (!wrong)
            wait_for(
                [&] {
                    call_and_check();
                    return wrong || seen.size() == 2;
                },
                wait_timeout_ms, what + " to report both satisfied elements");
    });
}

// test_all: 0 while any element of the set is unsatisfied, then 1 once all are.
template <class T, class F> void test_all_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        EXPECT_EQ(call_set(mine, values, ivars, f), 0) << mine.what("test_all") << " before the updates";
        ishmem_barrier_all();
        while_updated(
            [&] {
                satisfy(theirs, ivars, {2, 0, 5, 1, 3}, false);
                if (!theirs.use_mask) satisfy(theirs, ivars, {4});
            },
            [&] {
                wait_for([&] { return call_set(mine, values, ivars, f) == 1; }, wait_timeout_ms,
                         mine.what("test_all") + " to become 1");
            });
        for (std::size_t i = 0; i < mine.n; ++i)
            if (mine.in_set(i))
                EXPECT_EQ(sym_load(ivars + i), mine.after(i))
                    << mine.what("test_all") << ": 1 while element " << i << " unsatisfied";
    });
}

// test_any: SIZE_MAX before the update; then the one satisfied element of the set (element 2).
template <class T, class F> void test_any_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        EXPECT_EQ(call_set(mine, values, ivars, f), SIZE_MAX) << mine.what("test_any") << " before the update";
        ishmem_barrier_all();
        std::size_t got = SIZE_MAX;
        while_updated([&] { satisfy(theirs, ivars, {2}); },
                      [&] {
                          wait_for([&] { return (got = call_set(mine, values, ivars, f)) != SIZE_MAX; },
                                   wait_timeout_ms, mine.what("test_any") + " to report an element");
                      });
        EXPECT_EQ(got, 2u) << mine.what("test_any");
    });
}

// test_some: 0 before the updates; then, once elements 0 and 3 are satisfied, exactly those two.
template <class T, class F> void test_some_set(F f, bool vector) {
    set_rounds<T>(vector, [&](const set_round<T>& mine, const set_round<T>& theirs, T* ivars) {
        const auto values = mine.values();
        local_vector<std::size_t> idx(mine.n, SIZE_MAX);
        EXPECT_EQ(call_set_indices(mine, values, ivars, idx.data(), f), 0u)
            << mine.what("test_some") << " before the updates";
        ishmem_barrier_all();
        std::size_t count = 0;
        // Polls until two (or, wrongly, more) indices come back.
        while_updated(
            [&] {
                satisfy(theirs, ivars, {0, 3});
            },
            [&] {
                wait_for([&] { return (count = call_set_indices(mine, values, ivars, idx.data(), f)) >= 2; },
                         wait_timeout_ms, mine.what("test_some") + " to report both elements");
            });
        EXPECT_EQ(count, 2u) << mine.what("test_some") << ": count";
        std::set<std::size_t> got(idx.begin(), idx.begin() + std::min<std::size_t>(count, mine.n));
        EXPECT_EQ(got, (std::set<std::size_t>{0, 3})) << mine.what("test_some") << ": reported indices";
    });
}

// The named patterns the spec refers to.
template <class T, class F> void wait_until_all(F f) { wait_until_all_set<T>(f, false); }
template <class T, class F> void wait_until_all_vector(F f) { wait_until_all_set<T>(f, true); }
template <class T, class F> void wait_until_any(F f) { wait_until_any_set<T>(f, false); }
template <class T, class F> void wait_until_any_vector(F f) { wait_until_any_set<T>(f, true); }
template <class T, class F> void wait_until_some(F f) { wait_until_some_set<T>(f, false); }
template <class T, class F> void wait_until_some_vector(F f) { wait_until_some_set<T>(f, true); }
template <class T, class F> void test_all(F f) { test_all_set<T>(f, false); }
template <class T, class F> void test_all_vector(F f) { test_all_set<T>(f, true); }
template <class T, class F> void test_any(F f) { test_any_set<T>(f, false); }
template <class T, class F> void test_any_vector(F f) { test_any_set<T>(f, true); }
template <class T, class F> void test_some(F f) { test_some_set<T>(f, false); }
template <class T, class F> void test_some_vector(F f) { test_some_set<T>(f, true); }

}  // namespace ishmem_testing::patterns
