// Host calls on the GPU heap: put/get/p/g/iput between host memory and the symmetric GPU heap,
// host atomics running while a kernel does device atomics on the same word (the host's must go
// through the GPU to be atomic with the kernel's: exact totals and an exact sequence of fetched
// values), and host waits satisfied by device puts and signals.
#include "gpu_testing.h"

#include <algorithm>

namespace {

using namespace ishmem_gpu_testing;

class GpuHost : public GpuTest {};

TEST_F(GpuHost, PutGetPGFromTheHost) {
    constexpr size_t n = 10000;
    gpu_sym<int> dest(n), strided(3 * 50);
    gpu_sym<long> word(2);
    ASSERT_TRUE(dest && strided && word);
    std::vector<int> mine(n);
    for (size_t i = 0; i < n; ++i) mine[i] = pattern(me, 3, static_cast<long long>(i));
    ishmem_barrier_all();
    ishmem_int_put(dest.get(), mine.data(), n, right);
    ishmem_long_p(word.get(), 1000L + me, right);
    ishmem_long_p(word.get() + 1, -(1L << 35) - me, right);
    ishmem_int_iput(strided.get(), mine.data(), 3, 2, 50, right);  // strided[3i] = mine[2i]
    ishmem_barrier_all();
    expect_elements(
        dest.read(), [&](size_t i) { return pattern(left, 3, static_cast<long long>(i)); },
        "host put into the GPU heap");
    EXPECT_EQ(word.read(), (std::vector<long>{1000L + left, -(1L << 35) - left}));
    expect_elements(
        strided.read(), [&](size_t k) { return k % 3 == 0 ? pattern(left, 3, static_cast<long long>(k / 3 * 2)) : 0; },
        "host iput");
    // get and g read the right neighbour's copies: what I put there.
    std::vector<int> back(n, -1);
    ishmem_int_get(back.data(), dest.get(), n, right);
    expect_elements(
        back, [&](size_t i) { return mine[i]; }, "host get from the right neighbour");
    EXPECT_EQ(ishmem_long_g(word.get(), right), 1000L + me);
    EXPECT_EQ(ishmem_long_g(word.get() + 1, right), -(1L << 35) - me);
    EXPECT_EQ(ishmem_int_g(dest.get() + n - 1, me), pattern(left, 3, static_cast<long long>(n - 1)));
    int got2[4] = {-1, -1, -1, -1};
    ishmem_int_iget(got2, dest.get(), 1, 1000, 4, me);  // got2[i] = dest[1000 i]
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got2[i], pattern(left, 3, 1000LL * i)) << "host iget element " << i;
    ishmem_barrier_all();
}

// The word on PE 0 gets, at the same time: from every PE's kernel, device_adds adds of 2^32 each;
// from every PE's host, host_adds fetch_adds of 1. The total is exact, and the low halves of what
// the hosts fetched are exactly 0 .. n*host_adds-1 (gathered on PE 0 with a host put), increasing
// on each PE. A job over several nodes runs fewer (contending_blocks).
constexpr int dev_threads = 256, dev_per_thread = 4;

__global__ void add_high(uint64_t* word, int per_thread) {
    for (int k = 0; k < per_thread; ++k) ishmem_uint64_atomic_add(word, uint64_t{1} << 32, 0);
}

TEST_F(GpuHost, HostAtomicsConcurrentWithDeviceAtomics) {
    const int dev_blocks = contending_blocks(132), host_adds = job_spans_nodes() ? 300 : 3000;
    gpu_sym<uint64_t> word(1), fetched_all(static_cast<size_t>(host_adds) * n);
    ASSERT_TRUE(word && fetched_all);
    stream s;
    ishmem_barrier_all();
    add_high<<<dev_blocks, dev_threads, 0, s>>>(word.get(), dev_per_thread);
    GPU_LAUNCHED("add_high");
    std::vector<uint64_t> fetched(host_adds);
    for (int k = 0; k < host_adds; ++k) fetched[k] = ishmem_uint64_atomic_fetch_add(word.get(), 1, 0);
    const bool kernel_still_running = cudaStreamQuery(s) == cudaErrorNotReady;
    sync(s, "add_high");
    // Each PE's fetches are ordered: low halves strictly increase, high halves never decrease.
    unsigned bad_order = 0;
    for (int k = 1; k < host_adds; ++k)
        if ((fetched[k] & 0xffffffffu) <= (fetched[k - 1] & 0xffffffffu) || (fetched[k] >> 32) < (fetched[k - 1] >> 32))
            ++bad_order;
    EXPECT_EQ(bad_order, 0u) << "host fetch_add results out of order on this PE";
    ishmem_uint64_put(fetched_all.get() + static_cast<size_t>(me) * host_adds, fetched.data(), host_adds, 0);
    ishmem_barrier_all();
    if (me == 0) {
        const uint64_t device_total = uint64_t(dev_blocks) * dev_threads * dev_per_thread * n;
        const uint64_t host_total = uint64_t(host_adds) * n;
        EXPECT_EQ(word.read_one(0), (device_total << 32) + host_total)
            << "high half: device adds (want " << device_total << "), low half: host adds (want " << host_total << ")";
        std::vector<uint64_t> low = fetched_all.read();
        for (uint64_t& v : low) v &= 0xffffffffu;
        std::sort(low.begin(), low.end());
        expect_elements(
            low, [](size_t i) { return static_cast<uint64_t>(i); }, "low halves of the hosts' fetches (sorted)");
    }
    if (!kernel_still_running)
        std::printf("[PE %d] note: the kernel had finished before the host's last fetch_add\n", me);
    ishmem_barrier_all();
}

// Host waits satisfied by device-side updates: a kernel (of the left neighbour) sleeps, puts data,
// fences, then sets a flag with p; the host's wait_until returns and the data is there. Then
// signal_wait_until on the host, satisfied by a device putmem_signal.
__global__ void late_put_then_flag(int* data, const int* src, size_t n, int* flag, uint64_t* buf, uint64_t* sig) {
    const int me = ishmem_my_pe(), np = ishmem_n_pes();
    const int right = (me + 1) % np;
    sleep_ns(10ull * 1000 * 1000);
    ishmem_int_put(data, src, n, right);
    ishmem_fence();
    ishmem_int_p(flag, 42, right);
    sleep_ns(5ull * 1000 * 1000);
    const uint64_t v = 0x5151000000ull + me;
    ishmem_putmem_signal(buf, &v, sizeof v, sig, 9, ISHMEM_SIGNAL_SET, right);
}

TEST_F(GpuHost, HostWaitsSatisfiedByDevicePuts) {
    constexpr size_t n = 2048;
    gpu_sym<int> data(n), flag(1);
    gpu_sym<uint64_t> buf(1), sig(1);
    ASSERT_TRUE(data && flag && buf && sig);
    std::vector<int> mine(n);
    for (size_t i = 0; i < n; ++i) mine[i] = pattern(me, 4, static_cast<long long>(i));
    dev_array<int> src(mine);
    stream s;
    EXPECT_EQ(ishmem_int_test(flag.get(), ISHMEM_CMP_EQ, 42), 0) << "nobody has set the flag yet";
    ishmem_barrier_all();
    late_put_then_flag<<<1, 1, 0, s>>>(data.get(), src.get(), n, flag.get(), buf.get(), sig.get());
    GPU_LAUNCHED("late_put_then_flag");
    ishmem_int_wait_until(flag.get(), ISHMEM_CMP_EQ, 42);  // bounded by the harness watchdog
    std::vector<int> got(n, -1);
    ishmem_int_get(got.data(), data.get(), n, me);
    expect_elements(
        got, [&](size_t i) { return pattern(left, 4, static_cast<long long>(i)); },
        "data put before the flag (fence), read by the host after its wait");
    EXPECT_EQ(ishmem_signal_wait_until(sig.get(), ISHMEM_CMP_EQ, 9), 9u);
    EXPECT_EQ(buf.read_one(0), 0x5151000000ull + left);
    EXPECT_EQ(ishmem_signal_fetch(sig.get()), 9u);
    sync(s, "late_put_then_flag");
    ishmem_barrier_all();
}

}  // namespace
