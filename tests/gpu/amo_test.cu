// Device-side atomics: exact results of each operation from one thread, then many blocks of every PE
// contending on words of PE 0 (fetch_add tickets all distinct, add/inc/or totals exact), and
// compare_swap used as a lock around a plain g/p increment.
#include "gpu_testing.h"

#include <algorithm>

namespace {

using namespace ishmem_gpu_testing;

// ---------------------------------------------------------------------------------------------
// One thread, the right neighbour's words: each operation's return value and effect, exactly.
// Only this PE touches the right neighbour's words (the left neighbour touches ours).

__global__ void amo_values(uint64_t* u, int* i32, long* l, uint64_t* fetch_local, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int pe = (me + 1) % n;
    int k = 0;
    // uint64 word u[0]
    ishmem_uint64_atomic_set(u, 10, pe);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u, pe), 10, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_swap(u, 20, pe), 10, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_compare_swap(u, 21, 30, pe), 20, k++);  // fails
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u, pe), 20, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_compare_swap(u, 20, 30, pe), 20, k++);  // succeeds
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch_inc(u, pe), 30, k++);
    ishmem_uint64_atomic_inc(u, pe);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch_add(u, 100, pe), 32, k++);
    ishmem_uint64_atomic_add(u, 1000, pe);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u, pe), 1132, k++);
    // bitwise on u[1]
    ishmem_uint64_atomic_set(u + 1, 0xF0F0, pe);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch_and(u + 1, 0xFF00, pe), 0xF0F0, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch_or(u + 1, 0x000F, pe), 0xF000, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch_xor(u + 1, 0xFFFF, pe), 0xF00F, k++);
    ishmem_uint64_atomic_and(u + 1, 0x0FF0, pe);
    ishmem_uint64_atomic_or(u + 1, 1ull << 63, pe);
    ishmem_uint64_atomic_xor(u + 1, 1, pe);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u + 1, pe), 0x0FF0ull | 1ull << 63 | 1, k++);
    // int and long: negative values, wrap-free
    ishmem_int_atomic_set(i32, -5, pe);
    DEV_EXPECT_EQ(rep, ishmem_int_atomic_fetch_add(i32, -7, pe), -5, k++);
    DEV_EXPECT_EQ(rep, ishmem_int_atomic_compare_swap(i32, -12, 3, pe), -12, k++);
    DEV_EXPECT_EQ(rep, ishmem_int_atomic_fetch_inc(i32, pe), 3, k++);
    DEV_EXPECT_EQ(rep, ishmem_int_g(i32, pe), 4, k++);
    ishmem_long_atomic_set(l, -(1L << 40), pe);
    ishmem_long_atomic_add(l, 3, pe);
    DEV_EXPECT_EQ(rep, ishmem_long_atomic_swap(l, 9, pe), -(1L << 40) + 3, k++);
    DEV_EXPECT_EQ(rep, ishmem_long_atomic_fetch(l, pe), 9, k++);
    // fetching _nbi forms: values land in local memory after quiet
    ishmem_uint64_atomic_fetch_nbi(fetch_local + 0, u, pe);         // 1132
    ishmem_uint64_atomic_swap_nbi(fetch_local + 1, u + 2, 77, pe);  // 0
    ishmem_quiet();
    DEV_EXPECT_EQ(rep, fetch_local[0], 1132, k++);
    DEV_EXPECT_EQ(rep, fetch_local[1], 0, k++);
    ishmem_uint64_atomic_compare_swap_nbi(fetch_local + 2, u + 2, 77, 78, pe);
    ishmem_uint64_atomic_fetch_inc_nbi(fetch_local + 3, u + 3, pe);
    ishmem_uint64_atomic_fetch_add_nbi(fetch_local + 4, u + 3, 1, pe);  // unordered with the inc
    ishmem_quiet();
    DEV_EXPECT_EQ(rep, fetch_local[2], 77, k++);
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u + 2, pe), 78, k++);
    DEV_EXPECT_EQ(rep, fetch_local[3] + fetch_local[4], 1, k++);  // {0, 1} in either order
    DEV_EXPECT_EQ(rep, ishmem_uint64_atomic_fetch(u + 3, pe), 2, k++);
}

class GpuAmo : public GpuTest {};

TEST_F(GpuAmo, EachOperationFromOneThread) {
    gpu_sym<uint64_t> u(4);
    gpu_sym<int> i32(1);
    gpu_sym<long> l(1);
    ASSERT_TRUE(u && i32 && l);
    dev_array<uint64_t> fetch_local(5);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    amo_values<<<1, 1, 0, s>>>(u.get(), i32.get(), l.get(), fetch_local.get(), rep);
    GPU_LAUNCHED("amo_values");
    sync(s, "amo_values");
    rep.expect_clean("atomic return values (where = step)");
    ishmem_barrier_all();
    // What the left neighbour's thread left in my words.
    EXPECT_EQ(u.read(), (std::vector<uint64_t>{1132, 0x0FF0ull | 1ull << 63 | 1, 78, 2}));
    EXPECT_EQ(i32.read_one(0), 4);
    EXPECT_EQ(l.read_one(0), 9);
}

// ---------------------------------------------------------------------------------------------
// 132 blocks x 256 threads on every PE (2 blocks in a job over several nodes), all on words of PE 0:
//  words[0]: fetch_add 1 -> every ticket 0 .. n*T-1 exactly once (tickets gathered on PE 0 with p)
//  words[1]: add (t % 7 + 1)        words[2]: inc        words[3]: or (1 << t % 64)
//  i32[0]:   int atomic_add 1

constexpr int contend_threads = 256;

__global__ void contend(uint64_t* words, int* i32, uint64_t* tickets) {
    const int me = ishmem_my_pe();
    const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const uint64_t ticket = ishmem_uint64_atomic_fetch_add(words, 1, 0);
    ishmem_uint64_atomic_add(words + 1, t % 7 + 1, 0);
    ishmem_uint64_atomic_inc(words + 2, 0);
    ishmem_uint64_atomic_or(words + 3, 1ull << (t % 64), 0);
    ishmem_int_atomic_add(i32, 1, 0);
    ishmem_uint64_p(tickets + me * gridDim.x * static_cast<size_t>(blockDim.x) + t, ticket, 0);
    ishmem_quiet();
}

TEST_F(GpuAmo, ManyBlocksOfAllPesContendOnOneWord) {
    const int blocks = contending_blocks(132);
    const size_t contend_total = size_t(blocks) * contend_threads;
    gpu_sym<uint64_t> words(4);
    gpu_sym<int> i32(1);
    gpu_sym<uint64_t> tickets(contend_total * n);
    ASSERT_TRUE(words && i32 && tickets);
    stream s;
    ishmem_barrier_all();
    contend<<<blocks, contend_threads, 0, s>>>(words.get(), i32.get(), tickets.get());
    GPU_LAUNCHED("contend");
    sync(s, "contend");
    ishmem_barrier_all();
    if (me == 0) {
        uint64_t want_add = 0;
        for (size_t t = 0; t < contend_total; ++t) want_add += t % 7 + 1;
        const uint64_t all = contend_total * n;
        const std::vector<uint64_t> w = words.read();
        EXPECT_EQ(w[0], all) << "fetch_add 1 from " << all << " threads";
        EXPECT_EQ(w[1], want_add * n) << "add";
        EXPECT_EQ(w[2], all) << "inc";
        EXPECT_EQ(w[3], ~uint64_t{0}) << "or";
        EXPECT_EQ(i32.read_one(0), static_cast<int>(all)) << "int add";
        std::vector<uint64_t> tk = tickets.read();
        std::sort(tk.begin(), tk.end());
        expect_elements(
            tk, [](size_t i) { return static_cast<uint64_t>(i); }, "fetch_add tickets (sorted) are 0..n*T-1");
    }
}

// ---------------------------------------------------------------------------------------------
// compare_swap as a lock on PE 0: one thread per block takes it, increments a counter with a plain
// g and p (safe only under the lock), quiets and releases it with atomic_set. The counter ends at
// the exact number of critical sections.

constexpr int lock_rounds = 8;

__global__ void cswap_lock(int* lock, long* guarded, unsigned long long* contended) {
    if (threadIdx.x != 0) return;
    for (int r = 0; r < lock_rounds; ++r) {
        unsigned spins = 0;
        while (ishmem_int_atomic_compare_swap(lock, 0, 1, 0) != 0) {
            ++spins;
            __nanosleep(64);
        }
        const long v = ishmem_long_g(guarded, 0);
        ishmem_long_p(guarded, v + 1, 0);
        ishmem_quiet();
        ishmem_int_atomic_set(lock, 0, 0);
        if (spins) atomicAdd(contended, 1ull);
    }
}

TEST_F(GpuAmo, CompareSwapLockAroundGetAndPut) {
    gpu_sym<int> lock(1);
    gpu_sym<long> guarded(1);
    ASSERT_TRUE(lock && guarded);
    dev_array<unsigned long long> contended(1);
    stream s;
    const int lock_blocks = contending_blocks(132);
    ishmem_barrier_all();
    cswap_lock<<<lock_blocks, 32, 0, s>>>(lock.get(), guarded.get(), contended.get());
    GPU_LAUNCHED("cswap_lock");
    sync(s, "cswap_lock");
    ishmem_barrier_all();
    if (me == 0) {
        EXPECT_EQ(guarded.read_one(0), static_cast<long>(lock_blocks) * lock_rounds * n)
            << "lost increments: the lock let two holders in, or g read a stale value";
        EXPECT_EQ(lock.read_one(0), 0) << "lock left taken";
    }
    // Not a failure when 0, but the test is weak then: say so.
    const unsigned long long c = contended.read()[0];
    if (c == 0) std::printf("[PE %d] note: no critical section found the lock taken\n", me);
}

}  // namespace
