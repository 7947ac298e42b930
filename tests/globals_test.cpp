// Global and static variables as symmetric objects (host backend, docs/guide/memory.rst): the
// executable's data and bss are remote targets of puts, gets, AMOs, signals, waits and collectives,
// and ishmem_ptr maps them. An address outside both the heap and those globals still fails.
// Waits are bounded by ishmem_testing::wait_for or, for the blocking ishmem waits, by the harness'
// watchdog (ISHMEM_TEST_TIMEOUT).
#include <gtest/gtest.h>
#include <ishmem.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ishmemx.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/harness.h"

namespace {

constexpr int max_pes = 16;  // the arrays below hold one slot per PE

// In .data (initialised): never written, so a get sees the initial values on every PE.
long g_data_init[4] = {11, 22, 33, 44};
// In .data, written by the tests.
short g_data_short[8] = {1, 1, 1, 1, 1, 1, 1, 1};
double g_data_double = 2.5;
// In .bss.
long g_bss_long[64];
char g_bss_char[32];
uint64_t g_sig;
long g_sig_data[8];
long g_counter;
long g_flag;
long g_bcast_src[8], g_bcast_dst[8];
long g_reduce_src[4], g_reduce_dst[4];
long g_fcollect_src[2], g_fcollect_dst[2 * max_pes];
thread_local long tls_long;

// Function-static variables: one in data, one in bss.
long* fn_static_data() {
    static long v = 5;
    return &v;
}
int* fn_static_bss() {
    static int arr[16];
    return arr;
}

int me() { return ishmem_my_pe(); }
int npes() { return ishmem_n_pes(); }
int right() { return (me() + 1) % npes(); }
int left() { return (me() + npes() - 1) % npes(); }

// The job must have at most max_pes PEs for these arrays; the suite runs on 1 to 4.
bool fits() { return npes() <= max_pes; }

TEST(Globals, PutAndGetOfDataAndBss) {
    ASSERT_TRUE(fits());
    std::memset(g_bss_long, 0, sizeof g_bss_long);
    std::memset(g_bss_char, 0, sizeof g_bss_char);
    for (short& s : g_data_short) s = 1;
    g_data_double = 2.5;
    ishmem_barrier_all();

    // from the stack into the right neighbour's bss, data and data scalar
    long src[64];
    for (int i = 0; i < 64; ++i) src[i] = 1000L * me() + i;
    ishmem_long_put(g_bss_long, src, 64, right());
    char csrc[32];
    for (int i = 0; i < 32; ++i) csrc[i] = static_cast<char>('a' + (me() + i) % 26);
    ishmem_char_put(g_bss_char, csrc, 32, right());
    short ssrc[8];
    for (int i = 0; i < 8; ++i) ssrc[i] = static_cast<short>(100 * me() + i);
    ishmem_short_put(g_data_short, ssrc, 8, right());
    const double d = 0.5 + me();
    ishmem_double_put(&g_data_double, &d, 1, right());
    ishmem_quiet();
    ishmem_barrier_all();

    for (int i = 0; i < 64; ++i) ASSERT_EQ(g_bss_long[i], 1000L * left() + i) << i;
    for (int i = 0; i < 32; ++i) ASSERT_EQ(g_bss_char[i], static_cast<char>('a' + (left() + i) % 26)) << i;
    for (int i = 0; i < 8; ++i) ASSERT_EQ(g_data_short[i], 100 * left() + i) << i;
    EXPECT_EQ(g_data_double, 0.5 + left());

    // gets: the right neighbour's initial .data values, and what it received above
    long got[4] = {};
    ishmem_long_get(got, g_data_init, 4, right());
    EXPECT_EQ(got[0], 11);
    EXPECT_EQ(got[3], 44);
    long back[64] = {};
    ishmem_long_get(back, g_bss_long, 64, right());
    for (int i = 0; i < 64; ++i) ASSERT_EQ(back[i], 1000L * me() + i) << i;
    double dget = 0;
    ishmem_double_get(&dget, &g_data_double, 1, right());
    EXPECT_EQ(dget, 0.5 + me());
    ishmem_barrier_all();
}

TEST(Globals, HeapToGlobalAndGlobalToHeap) {
    auto* heap = static_cast<long*>(ishmem_calloc(64, sizeof(long)));
    ASSERT_NE(heap, nullptr);
    std::memset(g_bss_long, 0, sizeof g_bss_long);
    for (int i = 0; i < 64; ++i) heap[i] = 7000L * me() + i;
    ishmem_barrier_all();
    // a heap source into a global dest on the right neighbour
    ishmem_long_put(g_bss_long, heap, 64, right());
    ishmem_quiet();
    ishmem_barrier_all();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(g_bss_long[i], 7000L * left() + i) << i;
    ishmem_barrier_all();
    // a global source into the right neighbour's heap
    for (int i = 0; i < 64; ++i) g_bss_long[i] = 9000L * me() + i;
    ishmem_barrier_all();
    ishmem_long_put(heap, g_bss_long, 64, right());
    ishmem_quiet();
    ishmem_barrier_all();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(heap[i], 9000L * left() + i) << i;
    // get a peer's global into my heap
    ishmem_long_get(heap, g_bss_long, 64, right());
    for (int i = 0; i < 64; ++i) ASSERT_EQ(heap[i], 9000L * right() + i) << i;
    ishmem_barrier_all();
    ishmem_free(heap);
}

TEST(Globals, FunctionStatics) {
    *fn_static_data() = 5;
    std::memset(fn_static_bss(), 0, 16 * sizeof(int));
    ishmem_barrier_all();
    ishmem_long_p(fn_static_data(), 50 + me(), right());
    int src[16];
    for (int i = 0; i < 16; ++i) src[i] = 10 * me() + i;
    ishmem_int_put(fn_static_bss(), src, 16, right());
    ishmem_quiet();
    ishmem_barrier_all();
    EXPECT_EQ(*fn_static_data(), 50 + left());
    for (int i = 0; i < 16; ++i) ASSERT_EQ(fn_static_bss()[i], 10 * left() + i) << i;
    EXPECT_EQ(ishmem_long_g(fn_static_data(), right()), 50 + me());
    ishmem_barrier_all();
}

TEST(Globals, PutSignalAndSignalWait) {
    g_sig = 0;
    std::memset(g_sig_data, 0, sizeof g_sig_data);
    ishmem_barrier_all();
    long src[8];
    for (int i = 0; i < 8; ++i) src[i] = 300L * me() + i;
    ishmem_long_put_signal(g_sig_data, src, 8, &g_sig, static_cast<uint64_t>(me()) + 1, ISHMEM_SIGNAL_SET, right());
    const uint64_t seen = ishmem_signal_wait_until(&g_sig, ISHMEM_CMP_EQ, static_cast<uint64_t>(left()) + 1);
    EXPECT_EQ(seen, static_cast<uint64_t>(left()) + 1);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(g_sig_data[i], 300L * left() + i) << i;
    EXPECT_EQ(ishmem_signal_fetch(&g_sig), static_cast<uint64_t>(left()) + 1);
    ishmem_barrier_all();
}

TEST(Globals, AtomicContentionFromEveryPe) {
    constexpr int adds = 2000;
    g_counter = 0;
    ishmem_barrier_all();
    // every PE adds to every PE's counter, PE 0's first for all of them
    long last = -1;
    for (int k = 0; k < adds; ++k) {
        long old = ishmem_long_atomic_fetch_add(&g_counter, 1, 0);
        ASSERT_GT(old, last);  // the values one PE sees grow
        last = old;
        for (int pe = 1; pe < npes(); ++pe) ishmem_long_atomic_add(&g_counter, 1, pe);
    }
    ishmem_quiet();
    ishmem_barrier_all();
    EXPECT_EQ(g_counter, static_cast<long>(adds) * npes());
    EXPECT_EQ(ishmem_long_atomic_fetch(&g_counter, right()), static_cast<long>(adds) * npes());
    ishmem_barrier_all();
}

TEST(Globals, WaitUntilOnGlobal) {
    g_flag = 0;
    ishmem_barrier_all();
    ishmem_long_atomic_set(&g_flag, me() + 1, right());
    ishmem_long_wait_until(&g_flag, ISHMEM_CMP_EQ, left() + 1);
    EXPECT_EQ(g_flag, left() + 1);
    ishmem_barrier_all();
    // and a test loop, bounded by wait_for
    g_flag = 0;
    ishmem_barrier_all();
    ishmem_long_atomic_add(&g_flag, 5, right());
    EXPECT_TRUE(ishmem_testing::wait_for([] { return ishmem_long_test(&g_flag, ISHMEM_CMP_GE, 5) != 0; }, 10000,
                                         "g_flag >= 5"));
    ishmem_barrier_all();
}

// (PEs of other nodes: ishmem_ptr gives null, and their globals are reached through the transport.)
TEST(Globals, PtrMapsGlobals) {
    for (int pe = 0; pe < npes(); ++pe) {
        const bool mapped = ishmem_testing::same_node(pe);
        EXPECT_EQ(ishmem_ptr(&g_counter, pe) != nullptr, mapped) << "PE " << pe;
        EXPECT_EQ(ishmem_ptr(fn_static_data(), pe) != nullptr, mapped) << "PE " << pe;
    }
    EXPECT_EQ(ishmem_ptr(&g_counter, me()), static_cast<void*>(&g_counter));
    const bool mapped = ishmem_testing::same_node(right());
    g_bss_long[5] = 0;
    ishmem_barrier_all();
    auto* theirs = static_cast<long*>(ishmem_ptr(&g_bss_long[5], right()));
    if (mapped && theirs)
        __atomic_store_n(theirs, 4242L + me(), __ATOMIC_RELEASE);
    else
        ishmem_long_p(&g_bss_long[5], 4242L + me(), right());
    ishmem_barrier_all();
    EXPECT_EQ(g_bss_long[5], 4242L + left());
    // loads through the pointer see the peer's initial .data
    if (mapped) {
        const auto* init = static_cast<const long*>(ishmem_ptr(g_data_init, right()));
        ASSERT_NE(init, nullptr);
        EXPECT_EQ(init[1], 22);
    }
    // not symmetric: a stack variable, a malloc'ed one and a thread_local one
    long local = 0;
    std::vector<long> v(4);
    EXPECT_EQ(ishmem_ptr(&local, right()), nullptr);
    EXPECT_EQ(ishmem_ptr(v.data(), right()), nullptr);
    EXPECT_EQ(ishmem_ptr(&tls_long, right()), nullptr);
    ishmem_barrier_all();
}

TEST(Globals, CollectivesOnGlobals) {
    ASSERT_TRUE(fits());
    const int n = npes();
    for (int i = 0; i < 8; ++i) {
        g_bcast_src[i] = me() == 0 ? 60 + i : -1;
        g_bcast_dst[i] = -2;
    }
    for (int i = 0; i < 4; ++i) {
        g_reduce_src[i] = me() + i;
        g_reduce_dst[i] = 0;
    }
    g_fcollect_src[0] = 10L * me();
    g_fcollect_src[1] = 10L * me() + 1;
    std::memset(g_fcollect_dst, 0, sizeof g_fcollect_dst);
    ishmem_barrier_all();

    ASSERT_EQ(ishmem_long_broadcast(g_bcast_dst, g_bcast_src, 8, 0), 0);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(g_bcast_dst[i], 60 + i) << i;

    ASSERT_EQ(ishmem_long_sum_reduce(g_reduce_dst, g_reduce_src, 4), 0);
    const long pes_sum = static_cast<long>(n) * (n - 1) / 2;
    for (int i = 0; i < 4; ++i) ASSERT_EQ(g_reduce_dst[i], pes_sum + static_cast<long>(n) * i) << i;

    ASSERT_EQ(ishmem_long_fcollect(g_fcollect_dst, g_fcollect_src, 2), 0);
    for (int pe = 0; pe < n; ++pe) {
        ASSERT_EQ(g_fcollect_dst[2 * pe], 10L * pe);
        ASSERT_EQ(g_fcollect_dst[2 * pe + 1], 10L * pe + 1);
    }
    // a heap source into a global dest
    auto* heap = static_cast<long*>(ishmem_malloc(4 * sizeof(long)));
    for (int i = 0; i < 4; ++i) heap[i] = 1;
    ishmem_barrier_all();
    ASSERT_EQ(ishmem_long_sum_reduce(g_reduce_dst, heap, 4), 0);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(g_reduce_dst[i], n) << i;
    ishmem_barrier_all();
    ishmem_free(heap);
}

// A fork()ed child gets its own globals, as without ishmem: its writes stay out of the PE's.
TEST(Globals, ForkedChildHasPrivateGlobals) {
    g_counter = 17;
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        g_counter = 99;
        _exit(g_counter == 99 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(g_counter, 17);
    ishmem_barrier_all();
}

// Addresses outside both the heap and the executable's data and bss still stop the job.
TEST(Globals, OutsideHeapAndGlobalsFails) {
    long local[4] = {};
    long v = 1;
    const std::string outside = "outside the symmetric heap .* and the program's symmetric data and bss";
    EXPECT_ISHMEM_ERROR(ishmem_long_put(local, &v, 1, 0), "ishmem_long_put: dest .*" + outside);
    EXPECT_ISHMEM_ERROR(ishmem_long_atomic_fetch_add(&tls_long, 1, 0),
                        "ishmem_long_atomic_fetch_add: dest .*" + outside);
    std::vector<long> on_malloc(4);
    EXPECT_ISHMEM_ERROR(ishmem_long_get(&v, on_malloc.data(), 1, 0), "ishmem_long_get: source .*" + outside);
    // starts among the globals, runs past their end
    EXPECT_ISHMEM_ERROR(ishmem_putmem(g_bss_long, &v, size_t{1} << 40, 0),
                        "ishmem_putmem: dest .* runs past the end of the program's symmetric data and bss");
}

}  // namespace
