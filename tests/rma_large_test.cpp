// Large puts and gets between every pair of PEs at once, in both directions: odd sizes of several
// MiB at odd offsets, blocking and _nbi, the source reused as soon as a blocking put returns, then
// put-with-signal and fence ordering behind large puts. Across nodes on a heap reached by messages
// (ISHMEM_MPI_RMA=messages, the ctests multinode_messages_*) these are one request and the data by
// rendezvous each, served while the target is itself putting (transport_mpi_messages.cpp).
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

// Not a multiple of any piece or chunk size, so that every transfer ends in a short piece.
constexpr size_t block = (size_t{3} << 20) + 4093;
constexpr size_t skew = 13;  // an odd offset into each slot

// Byte i of the block that PE `from` sends in round `round`.
unsigned char byte_of(int from, int round, size_t i) {
    return static_cast<unsigned char>((i * 131 + static_cast<size_t>(from) * 17 + static_cast<size_t>(round) * 7) >> 1);
}

void fill(std::vector<unsigned char>& v, int from, int round) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = byte_of(from, round, i);
}

// The first wrong byte of [p, p + n) against PE from's block of round `round`, or n.
size_t first_wrong(const unsigned char* p, size_t n, int from, int round) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != byte_of(from, round, i)) return i;
    return n;
}

// Every PE puts its block into its slot of every other PE at once (blocking to half of them, _nbi
// to the others), overwriting its source as soon as each blocking put returns; then every PE gets
// every other PE's block back from it, again all at once.
TEST(RmaLarge, EveryPairBothWays) {
    const world pes;
    const size_t slot = block + 2 * skew;
    auto* heap = static_cast<unsigned char*>(ishmem_calloc(static_cast<size_t>(pes.n), slot));
    ASSERT_NE(heap, nullptr);
    std::vector<unsigned char> src(block);
    std::vector<std::vector<unsigned char>> nbi_src(static_cast<size_t>(pes.n));  // each until the quiet
    for (int round = 0; round < 2; ++round) {
        for (int k = 1; k < pes.n; ++k) {
            const int to = (pes.me + k) % pes.n;
            unsigned char* dest = heap + static_cast<size_t>(pes.me) * slot + skew;
            if ((k + round) % 2) {
                fill(src, pes.me, round);
                ishmem_putmem(dest, src.data(), block, to);
                std::memset(src.data(), 0xee, block);  // the source is free once a blocking put returns
            } else {
                std::vector<unsigned char>& s = nbi_src[static_cast<size_t>(to)];
                s.resize(block);
                fill(s, pes.me, round);
                ishmem_putmem_nbi(dest, s.data(), block, to);
            }
        }
        ishmem_quiet();
        ishmem_barrier_all();
        for (int from = 0; from < pes.n; ++from) {
            if (from == pes.me) continue;
            const unsigned char* got = heap + static_cast<size_t>(from) * slot + skew;
            ASSERT_EQ(first_wrong(got, block, from, round), block) << "block from PE " << from << ", round " << round;
        }
        // Each PE gets back what it put into every other PE (its own slot there), blocking and
        // _nbi, all PEs at once.
        std::vector<std::vector<unsigned char>> back(static_cast<size_t>(pes.n));
        for (int k = 1; k < pes.n; ++k) {
            const int from = (pes.me + k) % pes.n;
            back[static_cast<size_t>(from)].assign(block + 1, 0x5a);
            const unsigned char* source = heap + static_cast<size_t>(pes.me) * slot + skew;
            if (k % 2)
                ishmem_getmem(back[static_cast<size_t>(from)].data(), source, block, from);
            else
                ishmem_getmem_nbi(back[static_cast<size_t>(from)].data(), source, block, from);
        }
        ishmem_quiet();
        for (int k = 1; k < pes.n; ++k) {
            const int from = (pes.me + k) % pes.n;
            const std::vector<unsigned char>& b = back[static_cast<size_t>(from)];
            ASSERT_EQ(first_wrong(b.data(), block, pes.me, round), block) << "got back from PE " << from;
            ASSERT_EQ(b[block], 0x5a) << "a get wrote past its end";
        }
        ishmem_barrier_all();
    }
    ishmem_free(heap);
}

// Large puts to the right neighbour, then a signal it waits for: through put-with-signal behind a
// fence, and as one large put-with-signal. The neighbour must find every byte when it sees the
// signal. Every PE is a sender and a receiver at once.
TEST(RmaLarge, SignalAfterLargePuts) {
    const world pes;
    constexpr int rounds = 3;
    const size_t big = block, small = 4093;
    auto* data = static_cast<unsigned char*>(ishmem_calloc(1, big + skew));
    auto* tail = static_cast<unsigned char*>(ishmem_calloc(1, small));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    ASSERT_TRUE(data && tail && sig);
    std::vector<unsigned char> src(big), small_src(small);
    for (int round = 1; round <= rounds; ++round) {
        const bool one_call = round == rounds;  // the last round: the data in the put-with-signal itself
        fill(src, pes.me, round);
        fill(small_src, pes.me, -round);
        if (one_call) {
            ishmem_putmem_signal(data + skew, src.data(), big, sig, static_cast<uint64_t>(round), ISHMEM_SIGNAL_SET,
                                 pes.right);
        } else {
            ishmem_putmem_nbi(data + skew, src.data(), big / 2, pes.right);
            ishmem_putmem(data + skew + big / 2, src.data() + big / 2, big - big / 2, pes.right);
            ishmem_fence();
            ishmem_putmem_signal(tail, small_src.data(), small, sig, static_cast<uint64_t>(round), ISHMEM_SIGNAL_SET,
                                 pes.right);
        }
        ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_signal_fetch(sig) == static_cast<uint64_t>(round); },
                                             wait_timeout_ms, "the signal"));
        ASSERT_EQ(first_wrong(data + skew, big, pes.left, round), big) << "round " << round;
        if (!one_call) ASSERT_EQ(first_wrong(tail, small, pes.left, -round), small) << "round " << round;
        ishmem_quiet();        // (the nbi half's source)
        ishmem_barrier_all();  // every PE has checked before the next round overwrites
    }
    ishmem_free(sig);
    ishmem_free(tail);
    ishmem_free(data);
}

}  // namespace
