// Hand-written RMA cases that the per-entry-point patterns do not express: completion of _nbi by
// quiet, fence ordering, _work_group from groups of 1, 7 and 64 threads, and ishmem_ptr.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <numeric>
#include <vector>

#include "harness/harness.h"

namespace {

int me() { return ishmem_my_pe(); }
int npes() { return ishmem_n_pes(); }
int right() { return (me() + 1) % npes(); }
int left() { return (me() + npes() - 1) % npes(); }

// Many large non-blocking puts, then quiet, then a flag: the receiver must see every element.
TEST(Rma, NbiPutsCompleteAtQuiet) {
    constexpr size_t n = 1 << 16, chunks = 8;
    auto* data = static_cast<long*>(ishmem_calloc(n * chunks, sizeof(long)));
    auto* flag = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    std::vector<long> src(n * chunks);
    std::iota(src.begin(), src.end(), 1000L * me());
    for (size_t c = 0; c < chunks; ++c) ishmem_long_put_nbi(data + c * n, src.data() + c * n, n, right());
    ishmem_quiet();
    ishmem_long_atomic_set(flag, 1, right());
    ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_long_atomic_fetch(flag, me()) == 1; }, 10000, "flag"));
    for (size_t i = 0; i < n * chunks; ++i) ASSERT_EQ(data[i], 1000L * left() + static_cast<long>(i)) << i;
    ishmem_barrier_all();
    ishmem_free(flag);
    ishmem_free(data);
}

// get_nbi lands in the local buffer by the next quiet.
TEST(Rma, NbiGetsCompleteAtQuiet) {
    constexpr size_t n = 4096;
    auto* data = static_cast<int*>(ishmem_malloc(n * sizeof(int)));
    for (size_t i = 0; i < n; ++i) data[i] = me() * 100000 + static_cast<int>(i);
    ishmem_barrier_all();
    std::vector<int> got(n, -1);
    ishmem_int_get_nbi(got.data(), data, n, right());
    ishmem_quiet();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], right() * 100000 + static_cast<int>(i));
    ishmem_barrier_all();
    ishmem_free(data);
}

// Data put, fence, flag put: a PE that sees the flag sees the data. Repeated so that a missing
// fence has many chances to show up.
TEST(Rma, FenceOrdersDataBeforeFlag) {
    constexpr int rounds = 200;
    constexpr size_t n = 512;
    auto* data = static_cast<int*>(ishmem_calloc(n, sizeof(int)));
    auto* flag = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    std::vector<int> src(n);
    for (int r = 1; r <= rounds; ++r) {
        std::fill(src.begin(), src.end(), r);
        ishmem_int_put(data, src.data(), n, right());
        ishmem_fence();
        ishmem_int_p(flag, r, right());
        ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_int_atomic_fetch(flag, me()) == r; }, 10000, "flag"));
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(data[i], r) << "round " << r << " element " << i;
        ishmem_sync_all();  // nobody starts round r+1 before everyone checked round r
    }
    ishmem_barrier_all();
    ishmem_free(flag);
    ishmem_free(data);
}

// Blocking puts own nothing of the caller's source once they return: each source is overwritten at
// once. Across nodes the small ones go out from the transport's ring (256 KiB), which these
// 20,000 p and put calls and the blocks fill more than once; 4 KiB is its largest put, 4 KiB + 8 B
// goes the other way. Strided puts of up to 4 KiB in all are packed into the ring.
TEST(Rma, BlockingPutsLeaveTheSourceFree) {
    constexpr size_t n = 20000, block = 512;  // block: 4 KiB of long
    auto* data = static_cast<long*>(ishmem_calloc(n + 2 * block + 1, sizeof(long)));
    auto value = [](int pe, size_t i) { return 1000000L * (pe + 1) + static_cast<long>(i); };
    for (size_t i = 0; i < n; ++i) {
        long s = value(me(), i);
        if (i % 2)
            ishmem_long_put(data + i, &s, 1, right());
        else
            ishmem_long_p(data + i, s, right());
        s = -1;
        asm volatile("" ::"r"(&s) : "memory");  // the store of -1 happens
    }
    std::vector<long> src(2 * block + 1);
    for (size_t len : {block, block + 1}) {
        const size_t at = len == block ? n : n + block;
        for (size_t k = 0; k < len; ++k) src[k] = value(me(), at + k);
        ishmem_long_put(data + at, src.data(), len, right());
        std::fill(src.begin(), src.end(), -1L);
    }
    // Strided: 600 puts of 3 elements (every other source element into every third), packed into
    // the ring across nodes; then 600 elements at once (4,800 B: the other way).
    constexpr size_t rounds = 600;
    auto* strided = static_cast<long*>(ishmem_calloc(9 * rounds + 2 * rounds, sizeof(long)));
    long* wide = strided + 9 * rounds;
    for (size_t r = 0; r < rounds; ++r) {
        long s6[6];
        for (size_t k = 0; k < 3; ++k) s6[2 * k] = value(me(), 3 * r + k), s6[2 * k + 1] = -2;
        ishmem_long_iput(strided + 9 * r, s6, 3, 2, 3, right());
        std::fill(std::begin(s6), std::end(s6), -1L);
        asm volatile("" ::"r"(s6) : "memory");
    }
    for (size_t k = 0; k < rounds; ++k) src[k] = value(me(), 5 * k);
    ishmem_long_iput(wide, src.data(), 2, 1, rounds, right());
    std::fill(src.begin(), src.end(), -1L);
    ishmem_barrier_all();
    for (size_t i = 0; i < n + 2 * block + 1; ++i) ASSERT_EQ(data[i], value(left(), i)) << "element " << i;
    for (size_t r = 0; r < rounds; ++r)
        for (size_t k = 0; k < 9; ++k)
            ASSERT_EQ(strided[9 * r + k], k % 3 ? 0 : value(left(), 3 * r + k / 3))
                << "strided round " << r << ", " << k;
    for (size_t k = 0; k < 2 * rounds; ++k) ASSERT_EQ(wide[k], k % 2 ? 0 : value(left(), 5 * (k / 2))) << "wide " << k;
    ishmem_barrier_all();
    ishmem_free(strided);
    ishmem_free(data);
}

// Rounds of put-with-signal around the ring, 8 B, 4 KiB and 4 KiB + 2 B (across nodes the first
// two travel with their signal in one message, the last is put, flushed, then signalled), the
// signal added to and set in turn: whoever sees round r's signal sees round r's data.
TEST(Rma, PutSignalRoundsCarryTheirData) {
    constexpr int rounds = 150;
    constexpr size_t most = 2049;  // shorts: 4 KiB + 2 B
    auto* dest = static_cast<short*>(ishmem_calloc(most, sizeof(short)));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    std::vector<short> src(most);
    ishmem_barrier_all();
    for (int r = 0; r < rounds; ++r) {
        const size_t n = r % 3 == 0 ? 4 : r % 3 == 1 ? 2048 : most;
        for (size_t i = 0; i < n; ++i) src[i] = static_cast<short>(r * 7 + me() + static_cast<int>(i % 13));
        if (r % 2)
            ishmem_short_put_signal(dest, src.data(), n, sig, 1, ISHMEM_SIGNAL_ADD, right());
        else
            ishmem_short_put_signal(dest, src.data(), n, sig, static_cast<uint64_t>(r) + 1, ISHMEM_SIGNAL_SET, right());
        std::fill(src.begin(), src.end(), short{-1});
        const uint64_t want = static_cast<uint64_t>(r) + 1;
        ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_signal_fetch(sig) == want; }, 10000, "round's signal"))
            << "round " << r << ": signal " << ishmem_signal_fetch(sig);
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(dest[i], static_cast<short>(r * 7 + left() + static_cast<int>(i % 13)))
                << "round " << r << ", " << i;
        ishmem_sync_all();  // round r is read everywhere before round r + 1 overwrites it
    }
    ishmem_barrier_all();
    ishmem_free(sig);
    ishmem_free(dest);
}

class RmaWorkGroup : public ::testing::TestWithParam<size_t> {};

// A group of 1, 7 or 64 threads shares one put and one get; every element must arrive once.
TEST_P(RmaWorkGroup, PutAndGetShareTheWork) {
    const size_t threads = GetParam();
    constexpr size_t n = 10007;  // not a multiple of any group size
    auto* dest = static_cast<double*>(ishmem_calloc(n, sizeof(double)));
    std::vector<double> src(n), back(n, -1.0);
    for (size_t i = 0; i < n; ++i) src[i] = me() * 1e6 + static_cast<double>(i);
    ishmem_testing::run_in_group(
        threads, [&](const auto& g) { ishmemx_double_put_work_group(dest, src.data(), n, right(), g); });
    ishmem_barrier_all();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dest[i], left() * 1e6 + static_cast<double>(i)) << i;
    ishmem_testing::run_in_group(
        threads, [&](const auto& g) { ishmemx_double_get_work_group(back.data(), dest, n, right(), g); });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], me() * 1e6 + static_cast<double>(i)) << i;
    ishmem_barrier_all();
    ishmem_free(dest);
}

// put_signal from a group: the signal is added exactly once, after all of the data.
TEST_P(RmaWorkGroup, PutSignalSignalsOnce) {
    const size_t threads = GetParam();
    constexpr size_t n = 3001;
    auto* dest = static_cast<short*>(ishmem_calloc(n, sizeof(short)));
    auto* sig = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    std::vector<short> src(n, static_cast<short>(me() + 1));
    ishmem_testing::run_in_group(threads, [&](const auto& g) {
        ishmemx_short_put_signal_work_group(dest, src.data(), n, sig, 5, ISHMEM_SIGNAL_ADD, right(), g);
    });
    ASSERT_TRUE(ishmem_testing::wait_for([&] { return ishmem_signal_fetch(sig) == 5; }, 10000, "signal 5"));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dest[i], left() + 1) << i;
    ishmem_barrier_all();
    EXPECT_EQ(ishmem_signal_fetch(sig), 5u);  // not 5 * threads
    ishmem_free(sig);
    ishmem_free(dest);
}

// Strided work_group transfers with strides on both sides.
TEST_P(RmaWorkGroup, StridedAndBlocked) {
    const size_t threads = GetParam();
    constexpr size_t n = 777;
    auto* dest = static_cast<int*>(ishmem_calloc(3 * n, sizeof(int)));
    std::vector<int> src(2 * n);
    for (size_t i = 0; i < 2 * n; ++i) src[i] = static_cast<int>(i) + 1;
    ishmem_testing::run_in_group(
        threads, [&](const auto& g) { ishmemx_int_iput_work_group(dest, src.data(), 3, 2, n, right(), g); });
    ishmem_barrier_all();
    for (size_t i = 0; i < 3 * n; ++i) ASSERT_EQ(dest[i], i % 3 == 0 ? static_cast<int>(2 * (i / 3)) + 1 : 0) << i;
    ishmem_barrier_all();
    std::vector<int> blocks(4 * 100, 0);
    // 100 blocks of 3 elements: read every 9th triple of dest, write every 4th slot locally
    ishmem_testing::run_in_group(
        threads, [&](const auto& g) { ishmemx_int_ibget_work_group(blocks.data(), dest, 4, 9, 3, 100, me(), g); });
    for (size_t b = 0; b < 100; ++b)
        for (size_t k = 0; k < 4; ++k) ASSERT_EQ(blocks[b * 4 + k], k < 3 ? dest[b * 9 + k] : 0) << b << "," << k;
    ishmem_barrier_all();
    ishmem_free(dest);
}

INSTANTIATE_TEST_SUITE_P(Groups, RmaWorkGroup, ::testing::Values(1, 7, 64));

// ishmem_ptr: a load/store window on the copy of every PE of this node (null for other nodes' PEs);
// null for addresses outside the heap.
TEST(Rma, PtrGivesLoadStoreAccess) {
    auto* x = static_cast<int*>(ishmem_calloc(npes(), sizeof(int)));
    auto* peer = static_cast<int*>(ishmem_ptr(x, right()));
    EXPECT_EQ(ishmem_ptr(x, me()), static_cast<void*>(x));
    if (ishmem_testing::same_node(right())) {
        ASSERT_NE(peer, nullptr);
        __atomic_store_n(&peer[me()], me() + 1, __ATOMIC_RELEASE);
    } else {
        EXPECT_EQ(peer, nullptr);
        ishmem_int_p(&x[me()], me() + 1, right());
    }
    ishmem_barrier_all();
    EXPECT_EQ(x[left()], left() + 1);
    int local = 0;
    EXPECT_EQ(ishmem_ptr(&local, right()), nullptr);
    ishmem_barrier_all();
    ishmem_free(x);
}

}  // namespace
