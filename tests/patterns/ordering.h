// Patterns for memory ordering: fence and quiet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace ordering_detail {
inline constexpr std::size_t data_elems = 4096;
inline constexpr uint64_t rounds = 4;
}  // namespace ordering_detail

// fence: each round, every PE starts a non-blocking put of data to its right neighbour, fences,
// then sets a flag there. The receiver waits for the flag and must then see the whole round's data.
template <class Fence> void ordering_fence(Fence fence) {
    using namespace ordering_detail;
    const world w;
    sym_array<uint64_t> data(data_elems), flag(1);
    ASSERT_TRUE(data && flag);
    ishmem_barrier_all();
    for (uint64_t r = 1; r <= rounds; ++r) {
        std::vector<uint64_t> src(data_elems);
        for (std::size_t i = 0; i < data_elems; ++i) src[i] = make_value<uint64_t>(w.me, i + r);
        ishmem_uint64_put_nbi(data.get(), src.data(), data_elems, w.right);
        fence();
        ishmem_uint64_atomic_set(flag.get(), r, w.right);
        const std::string what = "round " + std::to_string(r) + ": data put before a fence, flag after, from " +
                                 on_pe(w.left) + " to " + on_pe(w.me);
        if (wait_equal(flag.get(), r, what + ": flag"))
            expect_elements(
                data.read(0, data_elems), [&](std::size_t i) { return make_value<uint64_t>(w.left, i + r); },
                what + " (data seen after the flag)");
        ishmem_quiet();        // src may go now
        ishmem_barrier_all();  // the receiver has checked before the next round's data comes
    }
}

// quiet: after quiet, a non-blocking put is complete at its target (a flag set afterwards, without
// a fence, finds the data there), a non-blocking get has filled its local buffer, and a
// non-blocking fetching atomic has delivered its value.
template <class Quiet> void ordering_quiet(Quiet quiet) {
    using namespace ordering_detail;
    const world w;
    sym_array<uint64_t> data(data_elems), flag(2);
    ASSERT_TRUE(data && flag);
    ishmem_barrier_all();
    for (uint64_t r = 1; r <= rounds; ++r) {
        const std::string round = "round " + std::to_string(r) + ": ";
        std::vector<uint64_t> src(data_elems);
        for (std::size_t i = 0; i < data_elems; ++i) src[i] = make_value<uint64_t>(w.me, i + r);
        ishmem_uint64_put_nbi(data.get(), src.data(), data_elems, w.right);
        quiet();
        ishmem_uint64_atomic_set(flag.get(), r, w.right);
        const std::string what = round + "put_nbi, quiet, flag from " + on_pe(w.left) + " to " + on_pe(w.me);
        if (wait_equal(flag.get(), r, what + ": flag"))
            expect_elements(
                data.read(0, data_elems), [&](std::size_t i) { return make_value<uint64_t>(w.left, i + r); },
                what + " (data seen after the flag)");
        ishmem_barrier_all();  // every PE's data is in place and checked

        // Non-blocking get of the right neighbour's data (what this PE put there) and fetch of its flag.
        std::vector<uint64_t> got(data_elems, sentinel<uint64_t>());
        uint64_t fetched = 0;
        ishmem_uint64_get_nbi(got.data(), data.get(), data_elems, w.right);
        ishmem_uint64_atomic_fetch_nbi(&fetched, flag.get(), w.right);
        quiet();
        expect_elements(
            got.data(), data_elems, [&](std::size_t i) { return make_value<uint64_t>(w.me, i + r); },
            round + "get_nbi from " + on_pe(w.right) + " completed by quiet");
        EXPECT_EQ(fetched, r) << round << "atomic_fetch_nbi from " << on_pe(w.right) << " completed by quiet";
        ishmem_barrier_all();
    }
}

}  // namespace ishmem_testing::patterns
