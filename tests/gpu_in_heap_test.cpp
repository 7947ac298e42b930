// The device's address check (ishmem/cuda/device_state.h, in_heap; cuda/common.cuh's ok_symmetric calls
// it): [a, a + bytes) must lie in the heap [lo, lo + size). Its bounds are written to keep the
// address off a subtraction, so the edges are checked here on the host, where any machine runs them.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "ishmem/cuda/device_state.h"

namespace {

using ishmemi::cuda::in_heap;

constexpr uintptr_t lo = uintptr_t{1} << 40;
constexpr size_t size = size_t{1} << 30;

TEST(GpuInHeap, RangesInsideTheHeapPass) {
    EXPECT_TRUE(in_heap(lo, 1, lo, size));
    EXPECT_TRUE(in_heap(lo, size, lo, size)) << "the whole heap";
    EXPECT_TRUE(in_heap(lo + size - 4, 4, lo, size)) << "the last word";
    EXPECT_TRUE(in_heap(lo + size, 0, lo, size)) << "no bytes at the end";
    EXPECT_TRUE(in_heap(lo + 12345, 0, lo, size));
    EXPECT_TRUE(in_heap(0, 0, lo, size)) << "a null address with no bytes";
}

TEST(GpuInHeap, RangesReachingOutsideFail) {
    EXPECT_FALSE(in_heap(lo - 1, 1, lo, size)) << "one byte before the heap";
    EXPECT_FALSE(in_heap(lo - 1, 0, lo, size)) << "before the heap, even with no bytes";
    EXPECT_FALSE(in_heap(lo + size - 3, 4, lo, size)) << "a word over the end";
    EXPECT_FALSE(in_heap(lo + size + 1, 0, lo, size)) << "past the end";
    EXPECT_FALSE(in_heap(lo, size + 1, lo, size)) << "more bytes than the heap";
    EXPECT_FALSE(in_heap(lo + 8, SIZE_MAX - 4, lo, size)) << "a size that would wrap an end";
    EXPECT_FALSE(in_heap(0, 4, lo, size)) << "null with bytes";
    EXPECT_FALSE(in_heap(UINTPTR_MAX, 1, lo, size));
    EXPECT_FALSE(in_heap(lo, 1, lo, 0)) << "an empty heap holds nothing";
}

// Every (address, bytes) pair near the heap's ends against the plain definition.
TEST(GpuInHeap, AgreesWithTheDefinitionNearTheEnds) {
    constexpr uintptr_t small_lo = 4096;
    constexpr size_t small_size = 64;
    for (uintptr_t a = small_lo - 20; a < small_lo + small_size + 20; ++a) {
        for (size_t bytes = 0; bytes < small_size + 20; ++bytes) {
            const bool want = (a >= small_lo && a + bytes <= small_lo + small_size);
            EXPECT_EQ(in_heap(a, bytes, small_lo, small_size), want) << "a " << a << ", bytes " << bytes;
        }
    }
}

}  // namespace
