// Patterns for symmetric memory management: malloc, align, calloc, free. The routine under test
// allocates (or frees); the others are used around it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ishmemx.h"
#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace memory_detail {

inline std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Offset of p in the calling PE's symmetric heap.
inline std::uint64_t heap_offset(const void* p) { return addr(p) - addr(ishmemi::state.heap_base); }

// A block is usable and symmetric: inside the heap, aligned, at the same heap offset on every PE
// (collective), and a put to the neighbour's copy of its last byte lands in the neighbour's block.
inline void expect_symmetric_block(void* p, std::size_t size, std::size_t alignment, const std::string& what) {
    const world w;
    EXPECT_EQ(addr(p) % alignment, 0u) << what << ": " << p << " is not aligned to " << alignment;
    EXPECT_TRUE(addr(p) >= addr(ishmemi::state.heap_base) && heap_offset(p) + size <= ishmemi::state.heap_size)
        << what << ": " << p << " + " << size << " is outside the symmetric heap";
    const std::vector<std::uint64_t> offsets = allgather(std::vector<std::uint64_t>{heap_offset(p)});
    for (int pe = 0; pe < w.n; ++pe)
        EXPECT_EQ(offsets[pe], offsets[0]) << what << ": heap offset on " << on_pe(pe) << " differs from PE 0's";
    auto* bytes = static_cast<unsigned char*>(p);
    const unsigned char mark = static_cast<unsigned char>(0xA0 + w.me);
    ishmem_putmem(bytes + size - 1, &mark, 1, w.right);
    ishmem_barrier_all();
    EXPECT_EQ(sym_load(bytes + size - 1), static_cast<unsigned char>(0xA0 + w.left))
        << what << ": a put by " << on_pe(w.left) << " to the block's last byte did not land there";
    ishmem_barrier_all();
}

// Blocks that are alive together do not overlap: each is filled with its own byte, then checked.
inline void expect_disjoint(const std::vector<std::pair<void*, std::size_t>>& blocks, const std::string& what) {
    for (std::size_t b = 0; b < blocks.size(); ++b)
        sym_fill(static_cast<unsigned char*>(blocks[b].first), blocks[b].second, static_cast<unsigned char>(0x10 + b));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto* bytes = static_cast<const unsigned char*>(blocks[b].first);
        expect_elements(
            sym_read(bytes, blocks[b].second), [&](std::size_t) { return static_cast<unsigned char>(0x10 + b); },
            what + ": block " + std::to_string(b) + " (overlaps another?)");
    }
}

}  // namespace memory_detail

// malloc: blocks of several sizes are non-null, 64-byte aligned, symmetric, disjoint; size 0 gives
// null; a request larger than the heap gives null (on every PE) and the heap still works.
template <class Malloc> void memory_malloc(Malloc malloc_) {
    using namespace memory_detail;
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (std::size_t size :
         {std::size_t{1}, std::size_t{8}, std::size_t{100}, std::size_t{4096}, std::size_t{1} << 20}) {
        void* p = malloc_(size);
        EXPECT_NE(p, nullptr) << "ishmem_malloc(" << size << ")";
        if (!p) continue;  // the same on every PE
        blocks.emplace_back(p, size);
        expect_symmetric_block(p, size, 64, "ishmem_malloc(" + std::to_string(size) + ")");
    }
    expect_disjoint(blocks, "ishmem_malloc");
    EXPECT_EQ(malloc_(0), nullptr) << "ishmem_malloc(0)";
    EXPECT_EQ(malloc_(ishmemi::state.heap_size + 64), nullptr) << "ishmem_malloc of more than the heap";
    void* after = malloc_(256);
    EXPECT_NE(after, nullptr) << "ishmem_malloc after a failed one";
    blocks.emplace_back(after, 256);
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) ishmem_free(it->first);
}

// align: alignments 1 .. 64 KiB (below 64 give 64), each after a small block that leaves the next
// free offset unaligned; the blocks are symmetric and disjoint; size 0 gives null.
template <class Align> void memory_align(Align align) {
    using namespace memory_detail;
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (std::size_t alignment : {1, 2, 8, 64, 128, 256, 4096, 65536}) {
        void* small = ishmem_malloc(24);
        EXPECT_NE(small, nullptr);
        if (small) blocks.emplace_back(small, 24);
        void* p = align(alignment, 100);
        EXPECT_NE(p, nullptr) << "ishmem_align(" << alignment << ", 100)";
        if (!p) continue;
        blocks.emplace_back(p, 100);
        expect_symmetric_block(p, 100, std::max<std::size_t>(alignment, 64),
                               "ishmem_align(" + std::to_string(alignment) + ", 100)");
    }
    expect_disjoint(blocks, "ishmem_align");
    EXPECT_EQ(align(64, 0), nullptr) << "ishmem_align(64, 0)";
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) ishmem_free(it->first);
}

// calloc: zero-filled even where freed memory was dirty; zeroed before the closing barrier (a put
// right after calloc returns survives); symmetric; count or size 0 gives null.
template <class Calloc> void memory_calloc(Calloc calloc_) {
    using namespace memory_detail;
    const world w;
    constexpr std::size_t dirty_bytes = std::size_t{1} << 16;
    void* dirty = ishmem_malloc(dirty_bytes);
    ASSERT_NE(dirty, nullptr);
    sym_fill(static_cast<unsigned char*>(dirty), dirty_bytes, static_cast<unsigned char>(0xAB));
    ishmem_free(dirty);

    std::vector<std::pair<void*, std::size_t>> blocks;
    for (auto [count, size] : {std::pair<std::size_t, std::size_t>{1000, 8}, {3, 1}, {1, 4096}, {5000, 12}}) {
        const std::string what = "ishmem_calloc(" + std::to_string(count) + ", " + std::to_string(size) + ")";
        auto* p = static_cast<unsigned char*>(calloc_(count, size));
        EXPECT_NE(p, nullptr) << what;
        if (!p) continue;
        const std::size_t bytes = count * size;
        blocks.emplace_back(p, bytes);
        const unsigned char mark = static_cast<unsigned char>(0xC0 + w.me);
        ishmem_putmem(p, &mark, 1, w.right);  // right after return: the neighbour's zero fill is done
        ishmem_barrier_all();
        EXPECT_EQ(sym_load(p), static_cast<unsigned char>(0xC0 + w.left))
            << what << ": a put right after it returned was lost";
        expect_elements(
            sym_read(p + 1, bytes - 1), [](std::size_t) { return static_cast<unsigned char>(0); },
            what + ": zero fill");
        expect_symmetric_block(p, bytes, 64, what);
    }
    expect_disjoint(blocks, "ishmem_calloc");
    EXPECT_EQ(calloc_(0, 8), nullptr) << "ishmem_calloc(0, 8)";
    EXPECT_EQ(calloc_(8, 0), nullptr) << "ishmem_calloc(8, 0)";
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) ishmem_free(it->first);
}

// free: a freed block is reused by the next allocation of its size; null is ignored; big blocks
// freed and allocated again do not leak; adjacent freed blocks merge into one big enough for a
// request that none of them could hold alone.
template <class Free> void memory_free(Free free_) {
    using namespace memory_detail;
    void* p = ishmem_malloc(4096);
    ASSERT_NE(p, nullptr);
    free_(p);
    void* q = ishmem_malloc(4096);
    EXPECT_EQ(q, p) << "ishmem_malloc after ishmem_free of a block of the same size did not reuse it";
    free_(q);
    free_(nullptr);

    const std::size_t heap = ishmemi::state.heap_size;
    for (int i = 0; i < 4; ++i) {
        void* big = ishmem_malloc(heap / 5 * 2);
        EXPECT_NE(big, nullptr) << "allocation " << i << " of 40% of the heap, each freed: freed memory leaks";
        if (big) free_(big);
    }

    void* parts[3];
    for (void*& part : parts) part = ishmem_malloc(heap / 10 * 3);
    if (!(parts[0] && parts[1] && parts[2])) {  // the same on every PE
        for (void* part : parts) ishmem_free(part);
        FAIL() << "could not allocate three blocks of 30% of the heap";
    }
    free_(parts[1]);
    free_(parts[0]);
    free_(parts[2]);
    void* merged = ishmem_malloc(heap / 10 * 8);
    EXPECT_NE(merged, nullptr) << "80% of the heap after freeing three adjacent 30% blocks: free blocks do not merge";
    free_(merged);
}

// malloc_with_hints: every valid hint gives a usable symmetric block (the target of atomics from
// every PE, for the atomics hint); size 0 gives null; bits outside the hints give null on every
// PE without allocating.
template <class MallocWithHints> void memory_malloc_with_hints(MallocWithHints malloc_with_hints) {
    using namespace memory_detail;
    const world w;
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (long hints : {0L, ISHMEMX_MALLOC_ATOMICS_REMOTE, ISHMEMX_MALLOC_SIGNAL_REMOTE,
                       ISHMEMX_MALLOC_ATOMICS_REMOTE | ISHMEMX_MALLOC_SIGNAL_REMOTE}) {
        const std::string what = "ishmemx_malloc_with_hints(4096, " + std::to_string(hints) + ")";
        auto* p = static_cast<long*>(malloc_with_hints(4096, hints));
        EXPECT_NE(p, nullptr) << what;
        if (!p) continue;
        blocks.emplace_back(p, 4096);
        expect_symmetric_block(p, 4096, 64, what);
        sym_store(p, 0L);
        ishmem_barrier_all();
        for (int pe = 0; pe < w.n; ++pe) ishmem_long_atomic_add(p, w.me + 1, pe);
        ishmem_barrier_all();
        EXPECT_EQ(sym_load(p), static_cast<long>(w.n) * (w.n + 1) / 2) << what << ": atomics from every PE";
        ishmem_barrier_all();
    }
    expect_disjoint(blocks, "ishmemx_malloc_with_hints");
    EXPECT_EQ(malloc_with_hints(0, 0L), nullptr) << "ishmemx_malloc_with_hints(0, 0)";
    void* before = ishmem_malloc(64);
    EXPECT_EQ(malloc_with_hints(64, 1L << 12), nullptr) << "ishmemx_malloc_with_hints with an unknown hint";
    void* after = ishmem_malloc(64);
    EXPECT_EQ(static_cast<char*>(after), static_cast<char*>(before) + 64) << "a refused hint still allocated";
    ishmem_free(after);
    ishmem_free(before);
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) ishmem_free(it->first);
}

// realloc: growing and shrinking keep each PE's own bytes up to the smaller size, and the result
// is a symmetric block; the old block is freed; null reallocates as malloc and size 0 frees; a size past the heap gives
// null on every PE and leaves the block as it was.
template <class Realloc> void memory_realloc(Realloc realloc_) {
    using namespace memory_detail;
    const world w;
    auto* p = static_cast<long*>(ishmem_malloc(100 * sizeof(long)));
    ASSERT_NE(p, nullptr);
    const std::vector<long> mine = pe_values<long>(w.me, 100);
    sym_write(p, mine.data(), 100);
    auto* grown = static_cast<long*>(realloc_(p, 5000 * sizeof(long)));
    ASSERT_NE(grown, nullptr) << "ishmemx_realloc to 5000 longs";
    expect_symmetric_block(grown, 5000 * sizeof(long), 64, "ishmemx_realloc grown");
    expect_elements(
        sym_read(grown, 100), [&](std::size_t i) { return make_value<long>(w.me, i); },
        "ishmemx_realloc grown: the 100 longs kept");
    void* again = ishmem_malloc(100 * sizeof(long));  // first fit: where p was, if realloc freed it
    EXPECT_EQ(again, static_cast<void*>(p)) << "ishmemx_realloc did not free the old block";
    ishmem_free(again);
    auto* shrunk = static_cast<long*>(realloc_(grown, 40 * sizeof(long)));
    ASSERT_NE(shrunk, nullptr) << "ishmemx_realloc to 40 longs";
    expect_elements(
        sym_read(shrunk, 40), [&](std::size_t i) { return make_value<long>(w.me, i); },
        "ishmemx_realloc shrunk: the first 40 longs kept");

    EXPECT_EQ(realloc_(shrunk, ishmemi::state.heap_size + 64), nullptr) << "ishmemx_realloc past the heap";
    expect_elements(
        sym_read(shrunk, 40), [&](std::size_t i) { return make_value<long>(w.me, i); },
        "the block after a failed ishmemx_realloc");

    void* fresh = realloc_(nullptr, 256);
    EXPECT_NE(fresh, nullptr) << "ishmemx_realloc(NULL, 256)";
    if (fresh) expect_symmetric_block(fresh, 256, 64, "ishmemx_realloc(NULL, 256)");
    EXPECT_EQ(realloc_(fresh, 0), nullptr) << "ishmemx_realloc(ptr, 0)";
    void* reuse = ishmem_malloc(256);
    EXPECT_EQ(reuse, fresh) << "ishmemx_realloc(ptr, 0) did not free the block";
    ishmem_free(reuse);
    ishmem_free(shrunk);
}

}  // namespace ishmem_testing::patterns
