// Symmetric allocation: same offsets everywhere, alignment, zero fill, reuse after free, exhaustion.
#include <gtest/gtest.h>
#include <ishmem.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/harness.h"

namespace {

// Every PE got the same offset: PE 0 collects everyone's offsets and compares.
void expect_symmetric(void* p) {
    auto* offs = static_cast<intptr_t*>(ishmem_calloc(ishmem_n_pes(), sizeof(intptr_t)));
    const intptr_t mine = reinterpret_cast<intptr_t>(p) - reinterpret_cast<intptr_t>(offs);
    ishmem_long_p(reinterpret_cast<long*>(offs) + ishmem_my_pe(), mine, 0);
    ishmem_barrier_all();
    if (ishmem_my_pe() == 0)
        for (int pe = 0; pe < ishmem_n_pes(); ++pe) EXPECT_EQ(offs[pe], mine) << "PE " << pe;
    ishmem_free(offs);
}

TEST(Memory, FreedMemoryIsReused) {
    void* a = ishmem_malloc(1000);
    ASSERT_NE(a, nullptr);
    expect_symmetric(a);
    ishmem_free(a);
    void* b = ishmem_malloc(1000);
    EXPECT_EQ(a, b);
    void* c = ishmem_malloc(1 << 20);
    ishmem_free(b);
    void* d = ishmem_malloc(500);  // fits in the hole b left
    EXPECT_EQ(d, a);
    ishmem_free(c);
    ishmem_free(d);
}

TEST(Memory, MallocZeroIsNull) { EXPECT_EQ(ishmem_malloc(0), nullptr); }

TEST(Memory, AlignHonoursAlignment) {
    for (size_t align : {size_t{64}, size_t{256}, size_t{4096}, size_t{1} << 16}) {
        void* small = ishmem_malloc(8);  // shifts the next block off any natural alignment
        void* p = ishmem_align(align, 100);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << align;
        expect_symmetric(p);
        ishmem_free(p);
        ishmem_free(small);
    }
}

TEST(Memory, CallocZeroesReusedMemory) {
    constexpr size_t n = 1 << 16;
    auto* dirty = static_cast<unsigned char*>(ishmem_malloc(n));
    std::memset(dirty, 0xAB, n);
    ishmem_free(dirty);
    auto* clean = static_cast<unsigned char*>(ishmem_calloc(n, 1));
    ASSERT_EQ(static_cast<void*>(clean), static_cast<void*>(dirty));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(clean[i], 0) << i;
    ishmem_free(clean);
}

// Asking for more than is left gives null on every PE and a message; the heap stays usable.
TEST(Memory, ExhaustionReturnsNullAndSaysSo) {
    testing::internal::CaptureStderr();
    void* huge = ishmem_malloc(size_t{1} << 50);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(huge, nullptr);
    EXPECT_NE(err.find("ishmem_malloc"), std::string::npos) << err;
    EXPECT_NE(err.find("left"), std::string::npos) << err;
    void* ok = ishmem_malloc(64);
    EXPECT_NE(ok, nullptr);
    ishmem_free(ok);
}

// Fill the heap with blocks, free them all, and allocate one block of the whole freed size:
// coalescing must give it back.
TEST(Memory, FreedBlocksCoalesce) {
    std::vector<void*> blocks;
    for (int i = 0; i < 64; ++i) blocks.push_back(ishmem_malloc(1 << 20));
    for (void* b : blocks) ASSERT_NE(b, nullptr);
    for (void* b : blocks) ishmem_free(b);
    void* big = ishmem_malloc(size_t{64} << 20);
    EXPECT_EQ(big, blocks.front());
    ishmem_free(big);
}

}  // namespace
