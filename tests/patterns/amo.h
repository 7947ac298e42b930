// Patterns for atomic memory operations. Each pattern has two parts:
//  - contended: every PE hits one word on PE 0; the final value is exact, and for fetching forms
//    the returned old values must fit one order of the operations (expect_linearizable);
//  - neighbour: each PE hits a word on its right neighbour that nobody else touches, so the
//    returned values and the final value are deterministic.
// Fetching _nbi forms reach the pattern through an adapter that quiets and returns the value.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace amo_detail {

inline constexpr std::size_t ops_per_pe = 5;  // contended operations per PE

// Words of the pattern's symmetric array.
enum : std::size_t { contended = 0, neighbour = 1, extra = 2, words = 4 };

// Collects (returned, operand) of every PE's operations on PE 0's word, PE 0's first.
template <class T>
std::vector<std::pair<T, T>> gather_ops(const std::vector<T>& returned, const std::vector<T>& operands) {
    const std::vector<T> r = allgather(returned), o = allgather(operands);
    std::vector<std::pair<T, T>> ops(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) ops[i] = {r[i], o[i]};
    return ops;
}

// Reads PE 0's contended word (after a barrier). The host API reaches it wherever it lives.
template <class T> T read_pe0(const T* word) {
    T v;
    ishmem_getmem(&v, word, sizeof v, 0);
    return v;
}

// Disjoint bit masks for the bitwise operations: PE pe's op k sets bit 2*pe+k and a bit counted
// from the top, so that both halves of the word are exercised (the sign bit of signed types too).
template <class T> T bit_mask(int pe, std::size_t k) {
    using U = std::make_unsigned_t<T>;
    constexpr unsigned bits = 8 * sizeof(T);
    const unsigned b = 2 * static_cast<unsigned>(pe) + static_cast<unsigned>(k);
    return static_cast<T>(static_cast<U>(U{1} << b) | static_cast<U>(U{1} << (bits - 1 - b)));
}
template <class T> bool masks_fit(int n) { return 4 * static_cast<unsigned>(n) <= 8 * sizeof(T); }

enum class bitop { and_, or_, xor_ };
template <class T> T apply(bitop op, T a, T b) {
    switch (op) {
        case bitop::and_:
            return static_cast<T>(a & b);
        case bitop::or_:
            return static_cast<T>(a | b);
        default:
            return static_cast<T>(a ^ b);
    }
}
inline const char* name(bitop op) { return op == bitop::and_ ? "and" : op == bitop::or_ ? "or" : "xor"; }

// The operand PE pe uses for its k-th contended bitwise op, and the word's initial value:
// and clears the PE's bits in an all-ones word; or sets them in 0; xor flips them in a pattern.
template <class T> T bit_operand(bitop op, int pe, std::size_t k) {
    const T m = bit_mask<T>(pe, k);
    return op == bitop::and_ ? static_cast<T>(~m) : m;
}
template <class T> T bit_init(bitop op) {
    return op == bitop::and_ ? static_cast<T>(~T{0}) : op == bitop::or_ ? T{0} : static_cast<T>(0x5A5A5A5A5A5A5A5Aull);
}

// The bitwise patterns, with fetch (returns the old value) or without.
template <class T, bool Fetching, class Op> void bitwise(bitop op, Op amo) {
    const world w;
    if (!masks_fit<T>(w.n)) GTEST_SKIP() << "too many PEs for disjoint bit masks in " << 8 * sizeof(T) << " bits";
    sym_array<T> x(words);
    ASSERT_TRUE(x);
    x.store(contended, bit_init<T>(op));
    x.store(neighbour, make_value<T>(w.me, 5));
    ishmem_barrier_all();

    std::vector<T> returned, operands;
    for (std::size_t k = 0; k < 2; ++k) {
        const T v = bit_operand<T>(op, w.me, k);
        operands.push_back(v);
        if constexpr (Fetching)
            returned.push_back(amo(x.get() + contended, v, 0));
        else
            amo(x.get() + contended, v, 0);
    }
    const T nv = make_value<T>(w.me, 6);
    if constexpr (Fetching) {
        const T old = amo(x.get() + neighbour, nv, w.right);
        EXPECT_TRUE(equal(old, make_value<T>(w.right, 5)))
            << "fetch_" << name(op) << " on " << on_pe(w.right) << " by " << on_pe(w.me) << " returned " << show(old)
            << ", expected " << show(make_value<T>(w.right, 5));
    } else {
        amo(x.get() + neighbour, nv, w.right);
    }
    ishmem_quiet();
    ishmem_barrier_all();

    T final_value = bit_init<T>(op);
    for (int pe = 0; pe < w.n; ++pe)
        for (std::size_t k = 0; k < 2; ++k) final_value = apply(op, final_value, bit_operand<T>(op, pe, k));
    const T got = read_pe0(x.get() + contended);
    EXPECT_TRUE(equal(got, final_value)) << name(op) << " by all PEs on PE 0: got " << show(got) << ", expected "
                                         << show(final_value);
    const T want = apply(op, make_value<T>(w.me, 5), make_value<T>(w.left, 6));
    const T here = x.load(neighbour);
    EXPECT_TRUE(equal(here, want)) << name(op) << " on " << on_pe(w.me) << " by " << on_pe(w.left) << ": got "
                                   << show(here) << ", expected " << show(want);
    if constexpr (Fetching)
        expect_linearizable(
            bit_init<T>(op), gather_ops(returned, operands), got, [op](T a, T b) { return apply(op, a, b); },
            std::string("fetch_") + name(op) + " by all PEs on PE 0");
}

// fetch_add / add (Fetching false) and fetch_inc / inc (Inc true: the operand is 1).
// Contended: PE pe adds pe + 1 (or 1) ops_per_pe times to PE 0's word, which starts at 0.
// Neighbour: adds 5 then 1000 (or -7 for signed types) to a word that starts at make_value(right, 0),
// or increments it ops_per_pe times.
template <class T, bool Fetching, bool Inc, class Op> void additive(Op amo) {
    const world w;
    sym_array<T> x(words);
    ASSERT_TRUE(x);
    x.store(neighbour, make_value<T>(w.me, 0));
    ishmem_barrier_all();

    const char* what = Inc ? (Fetching ? "fetch_inc" : "inc") : (Fetching ? "fetch_add" : "add");
    auto call = [&](T* word, T v, int pe) {
        if constexpr (Inc)
            return amo(word, pe);
        else
            return amo(word, v, pe);
    };
    const T mine = Inc ? T{1} : static_cast<T>(w.me + 1);
    std::vector<T> returned, operands(ops_per_pe, mine);
    for (std::size_t k = 0; k < ops_per_pe; ++k) {
        if constexpr (Fetching)
            returned.push_back(call(x.get() + contended, mine, 0));
        else
            call(x.get() + contended, mine, 0);
    }
    for (std::size_t k = 1; k < returned.size(); ++k) {
        EXPECT_TRUE(returned[k - 1] < returned[k])
            << what << " on PE 0 by " << on_pe(w.me) << ": op " << k << " returned " << show(returned[k]) << " after "
            << show(returned[k - 1]);
    }

    // Neighbour word.
    const T init = make_value<T>(w.right, 0);
    const std::vector<T> steps = Inc ? std::vector<T>(ops_per_pe, T{1})
                                     : std::vector<T>{T{5}, std::is_signed_v<T> ? static_cast<T>(-7) : T{1000}};
    T expect_old = init;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        if constexpr (Fetching) {
            const T old = call(x.get() + neighbour, steps[k], w.right);
            EXPECT_TRUE(equal(old, expect_old))
                << what << " #" << k << " on " << on_pe(w.right) << " by " << on_pe(w.me) << " returned " << show(old)
                << ", expected " << show(expect_old);
        } else {
            call(x.get() + neighbour, steps[k], w.right);
        }
        expect_old = static_cast<T>(expect_old + steps[k]);
    }
    ishmem_quiet();
    ishmem_barrier_all();

    T total{0};
    for (int pe = 0; pe < w.n; ++pe) total = static_cast<T>(total + ops_per_pe * (Inc ? 1 : pe + 1));
    const T got = read_pe0(x.get() + contended);
    EXPECT_TRUE(equal(got, total)) << what << " by all PEs on PE 0: got " << show(got) << ", expected " << show(total);
    T want = make_value<T>(w.me, 0);
    for (const T s : steps) want = static_cast<T>(want + s);
    const T here = x.load(neighbour);
    EXPECT_TRUE(equal(here, want)) << what << " on " << on_pe(w.me) << " by " << on_pe(w.left) << ": got " << show(here)
                                   << ", expected " << show(want);
    if constexpr (Fetching)
        expect_linearizable(
            T{0}, gather_ops(returned, operands), got, [](T a, T b) { return static_cast<T>(a + b); },
            std::string(what) + " by all PEs on PE 0");
}

}  // namespace amo_detail

// fetch: each PE reads two words of every PE (itself included), one positive and one negative
// (for signed and floating types), and checks their exact values.
template <class T, class Fetch> void amo_fetch(Fetch fetch) {
    const world w;
    sym_array<T> x(2);
    ASSERT_TRUE(x);
    x.store(0, make_value<T>(w.me, 0));
    x.store(1, make_value<T>(w.me, 1));
    ishmem_barrier_all();
    for (int pe = 0; pe < w.n; ++pe) {
        T got[2] = {fetch(x.get(), pe), fetch(x.get() + 1, pe)};
        expect_elements(
            got, 2, [&](std::size_t i) { return make_value<T>(pe, i); },
            "fetch from " + on_pe(pe) + " by " + on_pe(w.me));
    }
    ishmem_barrier_all();
}

// set: each PE sets word [me] on every PE; afterwards word [j] holds PE j's value for this PE.
// Then all PEs set one word on PE 0 at once: it ends as one of their values, whole.
template <class T, class Set> void amo_set(Set set) {
    const world w;
    sym_array<T> x(w.n + 1);
    ASSERT_TRUE(x);
    ishmem_barrier_all();
    for (int k = 0; k < w.n; ++k) {
        const int pe = (w.me + k) % w.n;
        set(x.get() + w.me, make_value<T>(w.me, pe), pe);
    }
    set(x.get() + w.n, make_value<T>(w.me, 100), 0);
    ishmem_quiet();
    ishmem_barrier_all();
    expect_elements(
        x.read(0, w.n), [&](std::size_t j) { return make_value<T>(static_cast<int>(j), w.me); },
        "set of word [j] by PE j, read on " + on_pe(w.me));
    const T last = amo_detail::read_pe0(x.get() + w.n);
    bool found = false;
    for (int pe = 0; pe < w.n; ++pe) found = found || equal(last, make_value<T>(pe, 100));
    EXPECT_TRUE(found) << "set by all PEs on PE 0 left " << show(last) << ", which no PE set";
}

// swap: all PEs swap ops_per_pe distinct values into one word on PE 0 (the returned values must
// chain from the initial value to the final one); and each PE swaps a value into a word of its
// right neighbour and gets that word's initial value back.
template <class T, class Swap> void amo_swap(Swap swap) {
    using namespace amo_detail;
    const world w;
    sym_array<T> x(words);
    ASSERT_TRUE(x);
    const T init = make_value<T>(0, 1000);
    x.store(contended, init);
    x.store(neighbour, make_value<T>(w.me, 20));
    ishmem_barrier_all();
    std::vector<T> returned, operands;
    for (std::size_t k = 0; k < ops_per_pe; ++k) {
        operands.push_back(make_value<T>(w.me, 10 + k));
        returned.push_back(swap(x.get() + contended, operands.back(), 0));
    }
    const T old = swap(x.get() + neighbour, make_value<T>(w.me, 21), w.right);
    EXPECT_TRUE(equal(old, make_value<T>(w.right, 20)))
        << "swap on " << on_pe(w.right) << " by " << on_pe(w.me) << " returned " << show(old) << ", expected "
        << show(make_value<T>(w.right, 20));
    ishmem_quiet();
    ishmem_barrier_all();
    const T here = x.load(neighbour);
    EXPECT_TRUE(equal(here, make_value<T>(w.left, 21)))
        << "swap on " << on_pe(w.me) << " by " << on_pe(w.left) << " left " << show(here) << ", expected "
        << show(make_value<T>(w.left, 21));
    const T got = read_pe0(x.get() + contended);
    expect_linearizable(
        init, gather_ops(returned, operands), got, [](T, T b) { return b; }, "swap by all PEs on PE 0");
}

// compare_swap: all PEs try to swap 0 -> me + 1 on one word of PE 0: exactly one wins (gets 0 back),
// the others get the winner's value, which stays. On the neighbour's word: a swap with a wrong
// condition changes nothing and returns the current value; one with the right condition succeeds.
template <class T, class Cas> void amo_compare_swap(Cas cas) {
    using namespace amo_detail;
    const world w;
    sym_array<T> x(words);
    ASSERT_TRUE(x);
    x.store(neighbour, make_value<T>(w.me, 3));
    ishmem_barrier_all();

    const T mine = static_cast<T>(w.me + 1);
    const T r = cas(x.get() + contended, T{0}, mine, 0);

    const T init = make_value<T>(w.right, 3);
    const T miss = cas(x.get() + neighbour, static_cast<T>(init + 1), make_value<T>(w.me, 7), w.right);
    EXPECT_TRUE(equal(miss, init)) << "compare_swap with a wrong condition on " << on_pe(w.right) << " returned "
                                   << show(miss) << ", expected the current value " << show(init);
    const T hit = cas(x.get() + neighbour, init, make_value<T>(w.me, 4), w.right);
    EXPECT_TRUE(equal(hit, init)) << "compare_swap with the right condition on " << on_pe(w.right) << " returned "
                                  << show(hit) << ", expected " << show(init);
    ishmem_quiet();
    ishmem_barrier_all();

    const T here = x.load(neighbour);
    EXPECT_TRUE(equal(here, make_value<T>(w.left, 4)))
        << "compare_swap on " << on_pe(w.me) << " by " << on_pe(w.left) << " left " << show(here) << ", expected "
        << show(make_value<T>(w.left, 4));
    const std::vector<T> all = allgather(std::vector<T>{r});
    int winners = 0, winner = -1;
    for (int pe = 0; pe < w.n; ++pe)
        if (equal(all[pe], T{0})) ++winners, winner = pe;
    ASSERT_EQ(winners, 1) << "compare_swap by all PEs on PE 0: " << winners << " PEs saw the initial value";
    const T final_value = read_pe0(x.get() + contended);
    EXPECT_TRUE(equal(final_value, static_cast<T>(winner + 1)))
        << "compare_swap on PE 0 won by " << on_pe(winner) << " left " << show(final_value);
    for (int pe = 0; pe < w.n; ++pe) {
        if (pe == winner) continue;
        EXPECT_TRUE(equal(all[pe], static_cast<T>(winner + 1)))
            << "compare_swap on PE 0: losing " << on_pe(pe) << " got " << show(all[pe]) << ", expected the winner's "
            << show(static_cast<T>(winner + 1));
    }
}

template <class T, class Op> void amo_fetch_inc(Op op) { amo_detail::additive<T, true, true>(op); }
template <class T, class Op> void amo_inc(Op op) { amo_detail::additive<T, false, true>(op); }
template <class T, class Op> void amo_fetch_add(Op op) { amo_detail::additive<T, true, false>(op); }
template <class T, class Op> void amo_add(Op op) { amo_detail::additive<T, false, false>(op); }

template <class T, class Op> void amo_fetch_and(Op op) { amo_detail::bitwise<T, true>(amo_detail::bitop::and_, op); }
template <class T, class Op> void amo_fetch_or(Op op) { amo_detail::bitwise<T, true>(amo_detail::bitop::or_, op); }
template <class T, class Op> void amo_fetch_xor(Op op) { amo_detail::bitwise<T, true>(amo_detail::bitop::xor_, op); }
template <class T, class Op> void amo_and(Op op) { amo_detail::bitwise<T, false>(amo_detail::bitop::and_, op); }
template <class T, class Op> void amo_or(Op op) { amo_detail::bitwise<T, false>(amo_detail::bitop::or_, op); }
template <class T, class Op> void amo_xor(Op op) { amo_detail::bitwise<T, false>(amo_detail::bitop::xor_, op); }

}  // namespace ishmem_testing::patterns
