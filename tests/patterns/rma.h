// Patterns for remote memory access: put, get (also _nbi, _on_queue, _work_group, sized, mem),
// iput/iget, ibput/ibget, p and g. Each PE writes to (or reads from) its right neighbour,
// (me + 1) % n, itself on 1 PE; values are PE-specific, so data from the wrong PE or the wrong
// element shows; memory around the target holds a sentinel that must stay.
//
// The adapter may be a non-blocking form: every pattern calls ishmem_quiet() after it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace rma_detail {

inline constexpr std::size_t guard = 5;  // sentinel elements after every target range

struct contiguous_case {
    std::size_t nelems, offset;  // offset: first element used in the symmetric buffer
};
inline constexpr contiguous_case contiguous_cases[] = {{0, 0}, {1, 0}, {7, 3}, {3001, 0}, {1000, 1}};
inline constexpr std::size_t contiguous_max = 3001 + 3 + guard;

struct strided_case {
    ptrdiff_t dst, sst;
    std::size_t nelems;
};
// Strides 1, 2 and 3 on both sides, a few sizes, and nelems == 0.
inline constexpr strided_case strided_cases[] = {{1, 1, 33}, {1, 2, 5},   {1, 3, 64}, {2, 1, 17},  {2, 2, 1},
                                                 {2, 3, 40}, {3, 1, 100}, {3, 2, 7},  {3, 3, 300}, {2, 3, 0}};
inline constexpr std::size_t strided_max = 3 * 299 + 1 + guard;  // the largest span, (3, 3, 300)

struct blocked_case {
    ptrdiff_t dst, sst;
    std::size_t bsize, nblocks;
};
// Blocks of 1..64 elements, gaps on either side or none, source blocks that overlap (sst < bsize),
// and the empty cases.
inline constexpr blocked_case blocked_cases[] = {{4, 4, 4, 9},    {5, 3, 3, 4},   {3, 7, 1, 20}, {10, 2, 6, 5},
                                                 {64, 64, 64, 3}, {9, 12, 8, 30}, {4, 4, 0, 3},  {4, 4, 4, 0}};
inline constexpr std::size_t blocked_max = 12 * 29 + 8 + guard;  // the largest span: source of {9, 12, 8, 30}

inline std::size_t span(std::size_t n, ptrdiff_t stride) { return n ? (n - 1) * stride + 1 : 0; }
inline std::size_t span(std::size_t bsize, std::size_t nblocks, ptrdiff_t stride) {
    return nblocks && bsize ? (nblocks - 1) * stride + bsize : 0;
}

// The value an iput/iget/ibput/ibget target holds at index j after the copy, or the sentinel.
// Element k of the copy goes from source[src_index(k)] to dest[dst_index(k)].
template <class T, class DstIndex, class SrcIndex> std::vector<T> expected_scatter(std::size_t len, std::size_t count,
                                                                                   int src_pe, DstIndex dst_index,
                                                                                   SrcIndex src_index) {
    std::vector<T> want(len, sentinel<T>());
    for (std::size_t k = 0; k < count; ++k) want[dst_index(k)] = make_value<T>(src_pe, src_index(k));
    return want;
}

}  // namespace rma_detail

// put / put_nbi: each PE puts PE-specific data to its right neighbour; the receiver checks exactly
// what its left neighbour sent and that the elements after it are untouched.
template <class T, class Put> void rma_put(Put put) {
    using namespace rma_detail;
    const world w;
    sym_array<T> dest(contiguous_max);
    ASSERT_TRUE(dest);
    const auto src = pe_values<T, local_vector<T>>(w.me, contiguous_max);
    for (const auto& c : contiguous_cases) {
        const std::string what = "put of " + std::to_string(c.nelems) + " elements at offset " +
                                 std::to_string(c.offset) + " from " + on_pe(w.left) + " to " + on_pe(w.me);
        dest.fill(sentinel<T>());
        ishmem_barrier_all();
        put(dest.get() + c.offset, c.nelems ? src.data() : nullptr, c.nelems, w.right);
        ishmem_quiet();
        ishmem_barrier_all();
        const std::vector<T> got = dest.read(0, c.offset + c.nelems + guard);
        expect_untouched(got.data(), c.offset, what + ", before the range");
        expect_elements(
            got.data() + c.offset, c.nelems, [&](std::size_t i) { return make_value<T>(w.left, i); }, what);
        expect_untouched(got.data() + c.offset + c.nelems, guard, what + ", after the range");
    }
}

// get / get_nbi: each PE gets its right neighbour's data into a local buffer.
template <class T, class Get> void rma_get(Get get) {
    using namespace rma_detail;
    const world w;
    sym_array<T> src(contiguous_max);
    ASSERT_TRUE(src);
    src.write(0, pe_values<T>(w.me, contiguous_max));
    ishmem_barrier_all();
    for (const auto& c : contiguous_cases) {
        const std::string what = "get of " + std::to_string(c.nelems) + " elements at offset " +
                                 std::to_string(c.offset) + " from " + on_pe(w.right) + " by " + on_pe(w.me);
        local_vector<T> dest(c.nelems + guard, sentinel<T>());
        get(c.nelems ? dest.data() : nullptr, src.get() + c.offset, c.nelems, w.right);
        ishmem_quiet();
        expect_elements(
            dest.data(), c.nelems, [&](std::size_t i) { return make_value<T>(w.right, c.offset + i); }, what);
        expect_untouched(dest.data() + c.nelems, guard, what + ", after the range");
    }
    ishmem_barrier_all();  // the neighbour's reads are done before src is freed or changed
}

// iput: element k of source[k * sst] lands at dest[k * dst] on the right neighbour; every other
// element of the destination keeps the sentinel.
template <class T, class Iput> void rma_iput(Iput iput) {
    using namespace rma_detail;
    const world w;
    sym_array<T> dest(strided_max);
    ASSERT_TRUE(dest);
    const auto src = pe_values<T, local_vector<T>>(w.me, strided_max);
    for (const auto& c : strided_cases) {
        const std::string what = "iput of " + std::to_string(c.nelems) + " elements, dst " + std::to_string(c.dst) +
                                 ", sst " + std::to_string(c.sst) + ", from " + on_pe(w.left) + " to " + on_pe(w.me);
        dest.fill(sentinel<T>());
        ishmem_barrier_all();
        iput(dest.get(), c.nelems ? src.data() : nullptr, c.dst, c.sst, c.nelems, w.right);
        ishmem_quiet();
        ishmem_barrier_all();
        const std::size_t len = span(c.nelems, c.dst) + guard;
        const auto want = expected_scatter<T>(
            len, c.nelems, w.left, [&](std::size_t k) { return k * c.dst; }, [&](std::size_t k) { return k * c.sst; });
        expect_elements(
            dest.read(0, len), [&](std::size_t j) { return want[j]; }, what);
    }
}

// iget: element k of the right neighbour's source[k * sst] lands at local dest[k * dst].
template <class T, class Iget> void rma_iget(Iget iget) {
    using namespace rma_detail;
    const world w;
    sym_array<T> src(strided_max);
    ASSERT_TRUE(src);
    src.write(0, pe_values<T>(w.me, strided_max));
    ishmem_barrier_all();
    for (const auto& c : strided_cases) {
        const std::string what = "iget of " + std::to_string(c.nelems) + " elements, dst " + std::to_string(c.dst) +
                                 ", sst " + std::to_string(c.sst) + ", from " + on_pe(w.right) + " by " + on_pe(w.me);
        const std::size_t len = span(c.nelems, c.dst) + guard;
        local_vector<T> dest(len, sentinel<T>());
        iget(dest.data(), src.get(), c.dst, c.sst, c.nelems, w.right);
        ishmem_quiet();
        const auto want = expected_scatter<T>(
            len, c.nelems, w.right, [&](std::size_t k) { return k * c.dst; }, [&](std::size_t k) { return k * c.sst; });
        expect_elements(
            dest.data(), len, [&](std::size_t j) { return want[j]; }, what);
    }
    ishmem_barrier_all();
}

// ibput: block b (bsize elements at source[b * sst]) lands at dest[b * dst] on the right neighbour;
// the gaps between blocks keep the sentinel.
template <class T, class Ibput> void rma_ibput(Ibput ibput) {
    using namespace rma_detail;
    const world w;
    sym_array<T> dest(blocked_max);
    ASSERT_TRUE(dest);
    const auto src = pe_values<T, local_vector<T>>(w.me, blocked_max);
    for (const auto& c : blocked_cases) {
        const std::string what = "ibput of " + std::to_string(c.nblocks) + " blocks of " + std::to_string(c.bsize) +
                                 ", dst " + std::to_string(c.dst) + ", sst " + std::to_string(c.sst) + ", from " +
                                 on_pe(w.left) + " to " + on_pe(w.me);
        dest.fill(sentinel<T>());
        ishmem_barrier_all();
        ibput(dest.get(), c.nblocks ? src.data() : nullptr, c.dst, c.sst, c.bsize, c.nblocks, w.right);
        ishmem_quiet();
        ishmem_barrier_all();
        const std::size_t len = span(c.bsize, c.nblocks, c.dst) + guard;
        const auto want = expected_scatter<T>(
            len, c.bsize * c.nblocks, w.left, [&](std::size_t k) { return k / c.bsize * c.dst + k % c.bsize; },
            [&](std::size_t k) { return k / c.bsize * c.sst + k % c.bsize; });
        expect_elements(
            dest.read(0, len), [&](std::size_t j) { return want[j]; }, what);
    }
}

// ibget: block b of the right neighbour's source[b * sst] lands at local dest[b * dst].
template <class T, class Ibget> void rma_ibget(Ibget ibget) {
    using namespace rma_detail;
    const world w;
    sym_array<T> src(blocked_max);
    ASSERT_TRUE(src);
    src.write(0, pe_values<T>(w.me, blocked_max));
    ishmem_barrier_all();
    for (const auto& c : blocked_cases) {
        const std::string what = "ibget of " + std::to_string(c.nblocks) + " blocks of " + std::to_string(c.bsize) +
                                 ", dst " + std::to_string(c.dst) + ", sst " + std::to_string(c.sst) + ", from " +
                                 on_pe(w.right) + " by " + on_pe(w.me);
        const std::size_t len = span(c.bsize, c.nblocks, c.dst) + guard;
        local_vector<T> dest(len, sentinel<T>());
        ibget(dest.data(), src.get(), c.dst, c.sst, c.bsize, c.nblocks, w.right);
        ishmem_quiet();
        const auto want = expected_scatter<T>(
            len, c.bsize * c.nblocks, w.right, [&](std::size_t k) { return k / c.bsize * c.dst + k % c.bsize; },
            [&](std::size_t k) { return k / c.bsize * c.sst + k % c.bsize; });
        expect_elements(
            dest.data(), len, [&](std::size_t j) { return want[j]; }, what);
    }
    ishmem_barrier_all();
}

// p: every PE writes one element into slot [me] of every PE (itself included); afterwards slot [j]
// holds PE j's value for this PE, and the slot after the last PE is untouched.
template <class T, class P> void rma_p(P p) {
    const world w;
    sym_array<T> dest(w.n + 1);
    ASSERT_TRUE(dest);
    dest.fill(sentinel<T>());
    ishmem_barrier_all();
    for (int k = 0; k < w.n; ++k) {
        const int pe = (w.me + k) % w.n;
        p(dest.get() + w.me, make_value<T>(w.me, pe), pe);
    }
    ishmem_quiet();
    ishmem_barrier_all();
    const std::vector<T> got = dest.read(0, w.n + 1);
    expect_elements(
        got.data(), w.n, [&](std::size_t j) { return make_value<T>(static_cast<int>(j), w.me); },
        "p into slot [j] by PE j, read on " + on_pe(w.me));
    expect_untouched(got.data() + w.n, 1, "p, slot after the last PE on " + on_pe(w.me));
}

// g: every PE reads a few elements of every PE (itself included) and checks them.
template <class T, class G> void rma_g(G g) {
    const world w;
    constexpr std::size_t k = 4;
    sym_array<T> src(k);
    ASSERT_TRUE(src);
    src.write(0, pe_values<T>(w.me, k));
    ishmem_barrier_all();
    for (int pe = 0; pe < w.n; ++pe) {
        std::vector<T> got(k);
        for (std::size_t i = 0; i < k; ++i) got[i] = g(src.get() + i, pe);
        expect_elements(
            got.data(), k, [&](std::size_t i) { return make_value<T>(pe, i); },
            "g from " + on_pe(pe) + " by " + on_pe(w.me));
    }
    ishmem_barrier_all();
}

}  // namespace ishmem_testing::patterns
