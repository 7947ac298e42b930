// Strided puts and gets of many elements (several requests' worth where the heap is reached by
// messages: ISHMEM_MPI_RMA=messages, the ctests multinode_messages_*) between every pair of PEs at
// once: every element size of the fixed-size forms, the gaps between elements checked untouched,
// then a put-with-signal behind a fence that must find every element in place, one put and get
// repeated over the same memory, and one put of megabytes of blocks.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/harness.h"
#include "patterns/common.h"

namespace {

using ishmem_testing::patterns::wait_timeout_ms;

using ishmem_testing::patterns::world;

// Byte b of element i of what PE `from` sends in round `round`: never zero, so that an element
// left unwritten shows.
unsigned char byte_of(int from, int round, size_t i, size_t b) {
    return static_cast<unsigned char>(
        1 + (i * 31 + b * 7 + static_cast<size_t>(from) * 59 + static_cast<size_t>(round) * 13) % 251);
}

// The strided forms by element size (1, 2, 4, 8, 16 bytes): ishmem_iput8 ... ishmem_iput128 and
// their gets, indexed by log2 of the size.
using strided_fn = void (*)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
constexpr strided_fn iputs[] = {ishmem_iput8, ishmem_iput16, ishmem_iput32, ishmem_iput64, ishmem_iput128};
constexpr strided_fn igets[] = {ishmem_iget8, ishmem_iget16, ishmem_iget32, ishmem_iget64, ishmem_iget128};
size_t log2_of(size_t elem) { return static_cast<size_t>(__builtin_ctzll(elem)); }

void iput(size_t elem, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
    iputs[log2_of(elem)](dest, source, dst, sst, n, pe);
}
void iget(size_t elem, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
    igets[log2_of(elem)](dest, source, dst, sst, n, pe);
}

constexpr size_t sizes[] = {1, 2, 4, 8, 16};

// Over two 4 KiB requests' worth for every size, and not a multiple of a request's elements.
size_t count_of(size_t elem) { return (size_t{9} << 10) / elem + 37; }

// Bytes the elements of one size take in a shared buffer, rounded up so that the next size starts
// aligned to its element.
size_t span_of(size_t elem, size_t stride) { return (count_of(elem) * stride * elem + 15) / 16 * 16; }

// The first wrong element of n, stride elements apart at p, against PE from's round (with the
// elements between them zero), or n; *what says how it is wrong.
size_t first_wrong(const unsigned char* p, size_t elem, size_t stride, size_t n, int from, int round,
                   const char** what) {
    for (size_t i = 0; i < n; ++i) {
        const unsigned char* e = p + i * stride * elem;
        for (size_t b = 0; b < elem; ++b)
            if (e[b] != byte_of(from, round, i, b)) return *what = "element", i;
        if (i + 1 < n)
            for (size_t b = elem; b < stride * elem; ++b)
                if (e[b] != 0) return *what = "gap after element", i;
    }
    return n;
}

// Every PE puts, strided, into its slot at every other PE at once (dest stride 3, source stride 2),
// overwriting its source as soon as each put returns; then every PE gets its slot back from every
// other PE (source stride 3, dest stride 2), all at once.
TEST(RmaStrided, ManyElementsEveryPairEverySize) {
    const world pes;
    for (size_t elem : sizes) {
        const size_t n = count_of(elem), dst = 3, sst = 2;
        const size_t slot = n * dst * elem;
        auto* heap = static_cast<unsigned char*>(ishmem_calloc(static_cast<size_t>(pes.n), slot));
        ASSERT_NE(heap, nullptr);
        std::vector<unsigned char> src(n * sst * elem);
        for (int k = 1; k < pes.n; ++k) {
            const int to = (pes.me + k) % pes.n;
            for (size_t i = 0; i < n; ++i)
                for (size_t b = 0; b < elem; ++b) src[i * sst * elem + b] = byte_of(pes.me, 0, i, b);
            iput(elem, heap + static_cast<size_t>(pes.me) * slot, src.data(), dst, sst, n, to);
            std::memset(src.data(), 0xee, src.size());  // the source is free once a blocking put returns
        }
        ishmem_quiet();
        ishmem_barrier_all();
        for (int from = 0; from < pes.n; ++from) {
            if (from == pes.me) continue;
            const char* what = "";
            ASSERT_EQ(first_wrong(heap + static_cast<size_t>(from) * slot, elem, dst, n, from, 0, &what), n)
                << what << ", " << elem << "-byte elements from PE " << from;
        }
        std::vector<std::vector<unsigned char>> back(static_cast<size_t>(pes.n));
        for (int k = 1; k < pes.n; ++k) {
            const int from = (pes.me + k) % pes.n;
            std::vector<unsigned char>& b = back[static_cast<size_t>(from)];
            b.assign(n * sst * elem + 1, 0);
            b.back() = 0x5a;
            iget(elem, b.data(), heap + static_cast<size_t>(pes.me) * slot, sst, dst, n, from);
        }
        for (int k = 1; k < pes.n; ++k) {
            const int from = (pes.me + k) % pes.n;
            const std::vector<unsigned char>& b = back[static_cast<size_t>(from)];
            const char* what = "";
            ASSERT_EQ(first_wrong(b.data(), elem, sst, n, pes.me, 0, &what), n)
                << what << ", " << elem << "-byte elements got back from PE " << from;
            ASSERT_EQ(b.back(), 0x5a) << "a strided get wrote past its end";
        }
        ishmem_barrier_all();
        ishmem_free(heap);
    }
}

// Strided puts of every size to the right neighbour, a fence, then a put-with-signal: when the
// neighbour sees the signal, every element of every size is in place. Every PE sends and receives
// at once.
TEST(RmaStrided, FenceThenSignal) {
    const world pes;
    if (pes.n < 2) GTEST_SKIP() << "needs a neighbour";
    constexpr int rounds = 3;
    const size_t dst = 2;
    size_t total = 0;
    for (size_t elem : sizes) total += span_of(elem, dst);
    auto* data = static_cast<unsigned char*>(ishmem_calloc(1, total));
    auto* word = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    ASSERT_TRUE(data && word && sig);
    for (int round = 1; round <= rounds; ++round) {
        size_t at = 0;
        for (size_t elem : sizes) {
            const size_t n = count_of(elem);
            std::vector<unsigned char> src(n * elem);
            for (size_t i = 0; i < n; ++i)
                for (size_t b = 0; b < elem; ++b) src[i * elem + b] = byte_of(pes.me, round, i, b);
            iput(elem, data + at, src.data(), dst, 1, n, pes.right);
            at += span_of(elem, dst);
        }
        ishmem_fence();
        const uint64_t w = static_cast<uint64_t>(round) * 1000 + static_cast<uint64_t>(pes.me);
        ishmem_putmem_signal(word, &w, sizeof w, sig, static_cast<uint64_t>(round), ISHMEM_SIGNAL_SET, pes.right);
        ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_signal_fetch(sig) == static_cast<uint64_t>(round); },
                                             wait_timeout_ms, "the signal"));
        EXPECT_EQ(*word, static_cast<uint64_t>(round) * 1000 + static_cast<uint64_t>(pes.left));
        at = 0;
        for (size_t elem : sizes) {
            const size_t n = count_of(elem);
            const char* what = "";
            ASSERT_EQ(first_wrong(data + at, elem, dst, n, pes.left, round, &what), n)
                << what << ", " << elem << "-byte elements, round " << round;
            at += span_of(elem, dst);
        }
        ishmem_barrier_all();  // every PE has checked before the next round overwrites
    }
    ishmem_free(sig);
    ishmem_free(word);
    ishmem_free(data);
}

// A blocking strided put (then a quiet) and a strided get of 4096 8-byte elements to the next PE,
// ten times over the same memory: every element checked each time. (bench_rma measures their
// speed: its ibput and ibget rows.)
TEST(RmaStrided, RepeatedToTheSameMemory) {
    const world pes;
    if (pes.n < 2) GTEST_SKIP() << "needs a neighbour";
    constexpr size_t n = 4096, stride = 2;
    constexpr int reps = 10;
    auto* heap = static_cast<uint64_t*>(ishmem_calloc(n * stride, sizeof(uint64_t)));
    ASSERT_NE(heap, nullptr);
    std::vector<uint64_t> src(n * stride), got(n * stride);
    ishmem_barrier_all();
    for (int r = 0; r < reps; ++r) {
        for (size_t i = 0; i < n; ++i) src[i * stride] = i * 3 + static_cast<uint64_t>(pes.me + 7 * r);
        ishmem_barrier_all();  // the right neighbour has checked the previous round
        ishmem_iput64(heap, src.data(), stride, stride, n, pes.right);
        ishmem_quiet();
        ishmem_iget64(got.data(), heap, stride, stride, n, pes.right);
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(got[i * stride], i * 3 + static_cast<uint64_t>(pes.me + 7 * r))
                << "element " << i << ", round " << r;
        ishmem_barrier_all();
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(heap[i * stride], i * 3 + static_cast<uint64_t>(pes.left + 7 * r))
                << "element " << i << ", round " << r;
    }
    ishmem_barrier_all();
    ishmem_free(heap);
}

// One blocked strided put of 4.8 MB of elements that are no power of two (blocks of three 8-byte
// words, 8 bytes apart at the target, 16 at the source) to the right neighbour: where the heap is
// reached by messages, more than one chunk of the origin's staging and pieces of whole blocks.
// Then a fence and a put-with-signal, after which the neighbour finds every block in place and
// every gap untouched; then each PE gets the blocks it put back, packed.
TEST(RmaStrided, LargeBlocksThenSignal) {
    const world pes;
    if (pes.n < 2) GTEST_SKIP() << "needs a neighbour";
    constexpr size_t bsize = 3, nblocks = 200000, dst = 4, sst = 5;
    auto value = [](int from, size_t b, size_t j) {
        return static_cast<uint64_t>(from) * 1000000007ull + b * bsize + j + 1;  // never 0
    };
    auto* heap = static_cast<uint64_t*>(ishmem_calloc(nblocks * dst, sizeof(uint64_t)));
    auto* word = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    ASSERT_TRUE(heap && word && sig);
    std::vector<uint64_t> src(nblocks * sst);
    for (size_t b = 0; b < nblocks; ++b)
        for (size_t j = 0; j < bsize; ++j) src[b * sst + j] = value(pes.me, b, j);
    ishmem_barrier_all();
    ishmemx_uint64_ibput(heap, src.data(), dst, sst, bsize, nblocks, pes.right);
    ishmem_fence();
    const uint64_t w = 77;
    ishmem_putmem_signal(word, &w, sizeof w, sig, 1, ISHMEM_SIGNAL_SET, pes.right);
    ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_signal_fetch(sig) == 1; }, wait_timeout_ms, "the signal"));
    EXPECT_EQ(*word, w);
    for (size_t b = 0; b < nblocks; ++b) {
        for (size_t j = 0; j < bsize; ++j)
            ASSERT_EQ(heap[b * dst + j], value(pes.left, b, j)) << "block " << b << ", element " << j;
        ASSERT_EQ(heap[b * dst + bsize], 0u) << "the gap after block " << b;
    }
    ishmem_barrier_all();
    std::vector<uint64_t> back(nblocks * bsize);
    ishmemx_uint64_ibget(back.data(), heap, bsize, dst, bsize, nblocks, pes.right);
    for (size_t b = 0; b < nblocks; ++b)
        for (size_t j = 0; j < bsize; ++j)
            ASSERT_EQ(back[b * bsize + j], value(pes.me, b, j)) << "got back: block " << b << ", element " << j;
    ishmem_barrier_all();
    ishmem_free(sig);
    ishmem_free(word);
    ishmem_free(heap);
}

}  // namespace
