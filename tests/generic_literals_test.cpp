// The generic C++ templates take literals of another type than the element: T comes from the
// pointer arguments alone, and a value argument (comparison value, AMO operand, the value of a p)
// converts to T. Every call below passes an int literal (or int expression) for a long, unsigned or
// double element; that it compiles is half of the test, the values checked are the other half.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <cstddef>
#include <cstdint>

#include "harness/harness.h"
#include "patterns/common.h"

namespace {

using ishmem_testing::patterns::load_acquire;
using ishmem_testing::patterns::sym_array;
using ishmem_testing::patterns::world;

// The rule itself, checked at compile time (as concepts: a requires-expression outside a template
// may not test an ill-formed call).
template <class P, class V>
concept waits_with = requires(P p, V v) {
    ishmem_wait_until(p, ISHMEM_CMP_EQ, v);
};
template <class P, class V>
concept tests_with = requires(P p, V v) {
    ishmem_test(p, ISHMEM_CMP_NE, v);
};
template <class P, class V>
concept p_with = requires(P p, V v) {
    ishmem_p(p, v, 0);
};
template <class P, class V>
concept adds_with = requires(P p, V v) {
    ishmem_atomic_add(p, v, 0);
};
template <class P, class A>
concept waits_all_vector_with = requires(P p, A values) {
    ishmem_wait_until_all_vector(p, 1, static_cast<const int*>(nullptr), ISHMEM_CMP_EQ, values);
};
template <class P, class S>
concept puts_from = requires(P p, S s) {
    ishmem_put(p, s, 1, 0);
};

static_assert(waits_with<long*, int> && waits_with<unsigned long*, int> && waits_with<long long*, char>);
static_assert(tests_with<long*, int> && tests_with<std::size_t*, int>);
static_assert(p_with<double*, int> && p_with<float*, double> && p_with<short*, int>);
static_assert(adds_with<unsigned*, int> && adds_with<long*, int>);
static_assert(waits_all_vector_with<long*, const long*>);
// The pointers still decide: a pointer of another type is no match (no long* from an int*), and
// neither is a value alone (T is not deduced from it).
static_assert(!waits_all_vector_with<long*, const int*>);
static_assert(!puts_from<long*, const int*>);
static_assert(!waits_with<void*, int>);

TEST(GenericLiterals, RmaValuesConvert) {
    const world w;
    sym_array<long> l(1);
    sym_array<double> d(1);
    sym_array<unsigned> u(1);
    sym_array<std::size_t> s(1);
    ASSERT_TRUE(l && d && u && s);
    ishmem_p(l.get(), 1, w.right);
    ishmem_p(d.get(), 2, w.right);
    ishmem_p(u.get(), 3 + w.me, w.right);  // an int expression for an unsigned element
    ishmem_p(s.get(), 4, w.right);
    ishmem_barrier_all();
    EXPECT_EQ(l[0], 1L);
    EXPECT_EQ(d[0], 2.0);
    EXPECT_EQ(u[0], static_cast<unsigned>(3 + w.left));
    EXPECT_EQ(s[0], 4u);
    EXPECT_EQ(ishmem_g(d.get(), w.right), 2.0);
    ishmem_barrier_all();
}

TEST(GenericLiterals, AmoOperandsConvert) {
    const world w;
    sym_array<long> a(1);
    sym_array<unsigned> u(1);
    sym_array<double> d(1);
    sym_array<long> nbi(1);
    ASSERT_TRUE(a && u && d && nbi);
    // Each PE works on its right neighbour's words; each word has one writer (the left neighbour).
    const int pe = w.right;
    ishmem_atomic_set(a.get(), 10, pe);
    ishmem_atomic_add(a.get(), 5, pe);                                // 15
    EXPECT_EQ(ishmem_atomic_fetch_add(a.get(), 1, pe), 15L);          // 16
    EXPECT_EQ(ishmem_atomic_compare_swap(a.get(), 16, 20, pe), 16L);  // 20
    EXPECT_EQ(ishmem_atomic_compare_swap(a.get(), 0, 99, pe), 20L);   // no swap
    EXPECT_EQ(ishmem_atomic_swap(a.get(), 30, pe), 20L);              // 30
    ishmem_atomic_inc(a.get(), pe);                                   // 31
    EXPECT_EQ(ishmem_atomic_fetch(a.get(), pe), 31L);

    ishmem_atomic_set(u.get(), 0xF0, pe);
    ishmem_atomic_or(u.get(), 0x0F, pe);                           // 0xFF
    ishmem_atomic_and(u.get(), 0x3C, pe);                          // 0x3C
    ishmem_atomic_xor(u.get(), 0x0C, pe);                          // 0x30
    EXPECT_EQ(ishmem_atomic_fetch_or(u.get(), 1, pe), 0x30u);      // 0x31
    EXPECT_EQ(ishmem_atomic_fetch_and(u.get(), 0x11, pe), 0x31u);  // 0x11
    EXPECT_EQ(ishmem_atomic_fetch_xor(u.get(), 0x10, pe), 0x11u);  // 0x01

    ishmem_atomic_set(d.get(), 1, pe);
    EXPECT_EQ(ishmem_atomic_swap(d.get(), 2, pe), 1.0);  // 2.0

    // The _nbi forms: the fetch buffer is local; values arrive after quiet.
    long fetched[6] = {};
    ishmem_atomic_set(nbi.get(), 1, pe);
    ishmem_atomic_fetch_add_nbi(&fetched[0], nbi.get(), 2, pe);  // 1 -> 3
    ishmem_quiet();
    ishmem_atomic_compare_swap_nbi(&fetched[1], nbi.get(), 3, 7, pe);  // 3 -> 7
    ishmem_quiet();
    ishmem_atomic_swap_nbi(&fetched[2], nbi.get(), 6, pe);  // 7 -> 6
    ishmem_quiet();
    ishmem_atomic_fetch_or_nbi(&fetched[3], nbi.get(), 1, pe);  // 6 -> 7
    ishmem_quiet();
    ishmem_atomic_fetch_xor_nbi(&fetched[4], nbi.get(), 2, pe);  // 7 -> 5
    ishmem_quiet();
    ishmem_atomic_fetch_and_nbi(&fetched[5], nbi.get(), 4, pe);  // 5 -> 4
    ishmem_quiet();
    EXPECT_EQ(fetched[0], 1L);
    EXPECT_EQ(fetched[1], 3L);
    EXPECT_EQ(fetched[2], 7L);
    EXPECT_EQ(fetched[3], 6L);
    EXPECT_EQ(fetched[4], 7L);
    EXPECT_EQ(fetched[5], 5L);
    ishmem_barrier_all();
    EXPECT_EQ(load_acquire(a.get()), 31L);
    EXPECT_EQ(load_acquire(u.get()), 0x01u);
    EXPECT_EQ(load_acquire(d.get()), 2.0);
    EXPECT_EQ(load_acquire(nbi.get()), 4L);
    ishmem_barrier_all();
}

TEST(GenericLiterals, WaitAndTestComparisonValuesConvert) {
    const world w;
    sym_array<long> flag(1);
    sym_array<unsigned> uflag(1);
    sym_array<long> ivars(3);
    ASSERT_TRUE(flag && uflag && ivars);
    // The left neighbour sets this PE's words; the waits below see them.
    for (int i = 0; i < 3; ++i) ishmem_atomic_set(ivars.get() + i, i + 1, w.right);  // {1, 2, 3}
    ishmem_fence();
    ishmem_atomic_set(uflag.get(), 2, w.right);
    ishmem_p(flag.get(), 1, w.right);

    ishmem_wait_until(flag.get(), ISHMEM_CMP_EQ, 1);
    ishmem_wait_until(uflag.get(), ISHMEM_CMP_GE, 2);
    EXPECT_EQ(ishmem_test(flag.get(), ISHMEM_CMP_NE, 0), 1);
    EXPECT_EQ(ishmem_test(uflag.get(), ISHMEM_CMP_LT, 2), 0);
    ishmemx_wait(flag.get(), 0);

    long* iv = ivars.get();
    std::size_t idx[3] = {};
    ishmem_wait_until_all(iv, 3, nullptr, ISHMEM_CMP_GT, 0);
    EXPECT_EQ(ishmem_wait_until_any(iv, 3, nullptr, ISHMEM_CMP_EQ, 2), 1u);
    EXPECT_EQ(ishmem_wait_until_some(iv, 3, idx, nullptr, ISHMEM_CMP_GE, 2), 2u);
    EXPECT_EQ(ishmem_test_all(iv, 3, nullptr, ISHMEM_CMP_LT, 4), 1);
    EXPECT_EQ(ishmem_test_any(iv, 3, nullptr, ISHMEM_CMP_EQ, 3), 2u);
    EXPECT_EQ(ishmem_test_some(iv, 3, idx, nullptr, ISHMEM_CMP_NE, 0), 3u);

    // _vector forms: the mask (int) and the values (the element type) keep their types.
    const int status[3] = {0, 0, 1};
    const long values[3] = {1, 2, 99};
    ishmem_wait_until_all_vector(iv, 3, status, ISHMEM_CMP_EQ, values);
    EXPECT_EQ(ishmem_test_all_vector(iv, 3, status, ISHMEM_CMP_EQ, values), 1);
    EXPECT_LT(ishmem_wait_until_any_vector(iv, 3, status, ISHMEM_CMP_EQ, values), 2u);
    EXPECT_EQ(ishmem_test_some_vector(iv, 3, idx, status, ISHMEM_CMP_EQ, values), 2u);

    // _on_queue forms.
    ishmem::queue& q = ishmem_testing::test_queue();
    ishmemx_wait_until_on_queue(flag.get(), ISHMEM_CMP_EQ, 1, q).wait();
    ishmemx_wait_on_queue(flag.get(), 0, q).wait();
    ishmemx_wait_until_all_on_queue(iv, 3, nullptr, ISHMEM_CMP_GE, 1, q).wait();
    std::size_t ret = 99;
    ishmemx_wait_until_any_on_queue(iv, 3, nullptr, ISHMEM_CMP_EQ, 3, &ret, q).wait();
    EXPECT_EQ(ret, 2u);
    ishmemx_wait_until_some_on_queue(iv, 3, idx, nullptr, ISHMEM_CMP_LE, 2, &ret, q).wait();
    EXPECT_EQ(ret, 2u);

    // _work_group forms: every thread of the group gets the same answer.
    ishmem_testing::run_in_group(7, [&](const auto& g) {
        ishmemx_wait_until_work_group(flag.get(), ISHMEM_CMP_EQ, 1, g);
        ishmemx_wait_work_group(flag.get(), 0, g);
        ishmemx_wait_until_all_work_group(iv, 3, nullptr, ISHMEM_CMP_GT, 0, g);
    });
    EXPECT_EQ(ishmem_testing::run_in_group_returning(
                  7, [&](const auto& g) { return ishmemx_test_work_group(uflag.get(), ISHMEM_CMP_EQ, 2, g); }),
              1);
    EXPECT_EQ(
        ishmem_testing::run_in_group_returning(
            7, [&](const auto& g) { return ishmemx_wait_until_any_work_group(iv, 3, nullptr, ISHMEM_CMP_EQ, 1, g); }),
        0u);
    EXPECT_EQ(ishmem_testing::run_in_group_returning(
                  7, [&](const auto& g) { return ishmemx_test_all_work_group(iv, 3, nullptr, ISHMEM_CMP_NE, 0, g); }),
              1);
    EXPECT_EQ(ishmem_testing::run_in_group_returning(
                  7, [&](const auto& g) { return ishmemx_test_any_work_group(iv, 3, nullptr, ISHMEM_CMP_GT, 2, g); }),
              2u);
    // The _some forms write the indices from one thread; every thread returns the count.
    std::size_t wg_idx[3] = {};
    EXPECT_EQ(ishmem_testing::run_in_group_returning(7,
                                                     [&](const auto& g) {
                                                         return ishmemx_wait_until_some_work_group(
                                                             iv, 3, wg_idx, nullptr, ISHMEM_CMP_GE, 3, g);
                                                     }),
              1u);
    EXPECT_EQ(wg_idx[0], 2u);
    EXPECT_EQ(
        ishmem_testing::run_in_group_returning(
            7,
            [&](const auto& g) { return ishmemx_test_some_work_group(iv, 3, wg_idx, nullptr, ISHMEM_CMP_LT, 3, g); }),
        2u);
    ishmem_barrier_all();  // nobody frees (or rewrites) the words while a neighbour still waits
}

// Reductions and broadcast deduce T from dest and source (a non-const source pointer is fine).
TEST(GenericLiterals, CollectivesDeduceFromPointers) {
    const world w;
    sym_array<long> src(2), dst(2);
    sym_array<double> dsrc(1), ddst(1);
    ASSERT_TRUE(src && dst && dsrc && ddst);
    src[0] = w.me + 1;
    src[1] = 2;
    dsrc[0] = 0.5;
    ishmem_barrier_all();
    EXPECT_EQ(ishmem_sum_reduce(dst.get(), src.get(), 2), 0);
    EXPECT_EQ(dst[0], static_cast<long>(w.n) * (w.n + 1) / 2);
    EXPECT_EQ(dst[1], 2L * w.n);
    EXPECT_EQ(ishmem_max_reduce(ISHMEM_TEAM_WORLD, ddst.get(), dsrc.get(), 1), 0);
    EXPECT_EQ(ddst[0], 0.5);
    EXPECT_EQ(ishmem_broadcast(dst.get(), src.get(), 2, 0), 0);
    EXPECT_EQ(dst[0], 1L);
    ishmem_barrier_all();
}

}  // namespace
