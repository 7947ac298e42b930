// Smoke test of the runtime core on 1..N PEs: ishmrun -n 4 ./devtest
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ishmem/impl/all.h"

using namespace ishmemi;

static int failures = 0;
#define EXPECT(cond, ...)                                                              \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            ++failures;                                                                \
            fprintf(stderr, "PE %d: FAIL %s:%d: %s: ", impl::my_pe(), __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
        }                                                                              \
    } while (0)

int main() {
    impl::init();
    int initialized = 0;
    impl::query_initialized(&initialized);
    const int me = impl::my_pe(), n = impl::n_pes();
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    EXPECT(initialized == 1, "initialized %d", initialized);
    EXPECT(impl::runtime_get_type() == ISHMEMX_RUNTIME_MPI, "runtime");
    int major, minor;
    impl::info_get_version(&major, &minor);
    EXPECT(major == 1 && minor == 5, "version %d.%d", major, minor);
    char name[ISHMEM_MAX_NAME_LEN];
    impl::info_get_name(name);
    EXPECT(strcmp(name, ISHMEM_VENDOR_STRING) == 0, "name %s", name);

    // ---- memory management
    const size_t N = 1000;
    int* buf = static_cast<int*>(impl::malloc(N * sizeof(int)));
    int* src = static_cast<int*>(impl::malloc(N * sizeof(int)));
    EXPECT(buf && reinterpret_cast<uintptr_t>(buf) % 64 == 0, "buf %p", (void*)buf);
    EXPECT(impl::malloc(0) == nullptr, "malloc(0)");
    void* a1 = impl::malloc(100);
    impl::free(a1);
    void* a2 = impl::malloc(100);
    EXPECT(a1 == a2, "reuse %p %p", a1, a2);
    void* al = impl::align(4096, 10);
    EXPECT(reinterpret_cast<uintptr_t>(al) % 4096 == 0, "align %p", al);
    long* zeros = static_cast<long*>(impl::calloc(512, sizeof(long)));
    bool all_zero = true;
    for (int i = 0; i < 512; ++i) all_zero &= zeros[i] == 0;
    EXPECT(all_zero, "calloc");
    // Every PE got the same offset: the peers' copies of al hold what they wrote there.
    uint64_t off = static_cast<char*>(al) - state.heap_base;
    *static_cast<uint64_t*>(al) = off;
    impl::barrier_all();
    for (int pe = 0; pe < n; ++pe) EXPECT(impl::g(static_cast<uint64_t*>(al), pe) == off, "offset on PE %d", pe);
    EXPECT(impl::ptr(buf, next) == translate(buf, next), "ptr");
    EXPECT(impl::ptr(&off, next) == nullptr, "ptr of a stack address");
    EXPECT(impl::ptr(buf, n) == nullptr, "ptr with pe out of range");

    // ---- put / get
    for (size_t i = 0; i < N; ++i) src[i] = me * 100000 + static_cast<int>(i);
    impl::barrier_all();
    impl::put(buf, src, N, next);
    impl::barrier_all();
    bool ok = true;
    for (size_t i = 0; i < N; ++i) ok &= buf[i] == prev * 100000 + static_cast<int>(i);
    EXPECT(ok, "put from PE %d: buf[1] = %d", prev, buf[1]);
    std::vector<int> local(N);
    impl::get(local.data(), src, N, next);
    ok = true;
    for (size_t i = 0; i < N; ++i) ok &= local[i] == next * 100000 + static_cast<int>(i);
    EXPECT(ok, "get from PE %d", next);

    // ---- p / g, strided and blocked
    impl::barrier_all();
    impl::p(&buf[0], -me, next);
    impl::p(reinterpret_cast<double*>(zeros) + 1, 0.5 + me, next);
    impl::barrier_all();
    EXPECT(buf[0] == -prev, "p: %d", buf[0]);
    EXPECT(impl::g(reinterpret_cast<double*>(zeros) + 1, next) == 0.5 + me, "g of p'd double");
    impl::barrier_all();
    impl::iput(buf, src, 3, 2, 10, next);  // buf[3i] = src[2i] on next
    impl::barrier_all();
    ok = true;
    for (int i = 0; i < 10; ++i) ok &= buf[3 * i] == prev * 100000 + 2 * i;
    EXPECT(ok, "iput");
    impl::iget(local.data(), src, 1, 5, 10, next);
    ok = true;
    for (int i = 0; i < 10; ++i) ok &= local[i] == next * 100000 + 5 * i;
    EXPECT(ok, "iget");
    impl::barrier_all();
    impl::ibput(buf, src, 10, 4, 3, 5, next);  // 5 blocks of 3: buf[10b + k] = src[4b + k]
    impl::barrier_all();
    ok = true;
    for (int b = 0; b < 5; ++b)
        for (int k = 0; k < 3; ++k) ok &= buf[10 * b + k] == prev * 100000 + 4 * b + k;
    EXPECT(ok, "ibput");
    impl::ibget(local.data(), src, 4, 10, 2, 5, next);
    ok = true;
    for (int b = 0; b < 5; ++b)
        for (int k = 0; k < 2; ++k) ok &= local[4 * b + k] == next * 100000 + 10 * b + k;
    EXPECT(ok, "ibget");
    sized_t<128> big[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
    auto* big_sym = static_cast<sized_t<128>*>(impl::malloc(sizeof big));
    impl::put(big_sym, big, 4, next);
    impl::barrier_all();
    EXPECT(big_sym[3].lo == 7 && big_sym[3].hi == 8, "put128");

    // ---- AMOs: every PE updates PE 0's counters
    auto* ctr = static_cast<long*>(impl::calloc(8, sizeof(long)));
    impl::atomic_add(&ctr[0], long(me + 1), 0);
    long old = impl::atomic_fetch_add(&ctr[1], 10L, 0);
    (void)old;
    impl::atomic_inc(&ctr[2], 0);
    impl::atomic_fetch_or(reinterpret_cast<unsigned long*>(&ctr[3]), 1UL << me, 0);
    impl::barrier_all();
    if (me == 0) {
        EXPECT(ctr[0] == n * (n + 1) / 2, "atomic_add sum %ld", ctr[0]);
        EXPECT(ctr[1] == 10L * n, "fetch_add %ld", ctr[1]);
        EXPECT(ctr[2] == n, "inc %ld", ctr[2]);
        EXPECT(ctr[3] == (1L << n) - 1, "or %lx", ctr[3]);
    }
    impl::barrier_all();
    // compare_swap: exactly one PE wins
    long won = impl::atomic_compare_swap(&ctr[4], 0L, long(me + 1), 0) == 0;
    impl::atomic_add(&ctr[5], won, 0);
    impl::barrier_all();
    EXPECT(impl::atomic_fetch(&ctr[5], 0) == 1, "compare_swap winners %ld", impl::atomic_fetch(&ctr[5], 0));
    long prev_v = impl::atomic_swap(&ctr[6], 42L, next);
    (void)prev_v;
    float* fl = reinterpret_cast<float*>(&ctr[7]);
    impl::atomic_set(fl, 1.25f * me, next);
    impl::barrier_all();
    EXPECT(ctr[6] == 42, "swap");
    EXPECT(impl::atomic_fetch(fl, me) == 1.25f * prev, "float set/fetch %f", *fl);
    long fetched = 0;
    impl::atomic_fetch_add_nbi(&fetched, &ctr[6], 1L, me);
    impl::quiet();
    EXPECT(fetched == 42, "fetch_add_nbi %ld", fetched);
    impl::barrier_all();

    // ---- many threads, one counter on every PE
    auto* hits = static_cast<uint64_t*>(impl::calloc(1, sizeof(uint64_t)));
    const int threads = 8, per_thread = 20000;
    {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                for (int i = 0; i < per_thread; ++i) impl::atomic_add(hits, uint64_t(1), (me + t + i) % n);
            });
        for (auto& t : pool) t.join();
    }
    impl::barrier_all();
    uint64_t total = 0;
    for (int pe = 0; pe < n; ++pe) total += impl::atomic_fetch(hits, pe);
    EXPECT(total == uint64_t(n) * threads * per_thread, "threaded atomic_add total %" PRIu64, total);

    // ---- put_signal: data and signal to the next PE, wait for mine
    auto* sig = static_cast<uint64_t*>(impl::calloc(2, sizeof(uint64_t)));
    impl::barrier_all();
    for (size_t i = 0; i < N; ++i) src[i] = me * 7 + static_cast<int>(i);
    impl::put_signal(buf, src, N, &sig[0], 1, ISHMEM_SIGNAL_ADD, next);
    while (impl::signal_fetch(&sig[0]) != 1) cpu_relax();
    ok = true;
    for (size_t i = 0; i < N; ++i) ok &= buf[i] == prev * 7 + static_cast<int>(i);
    EXPECT(ok, "put_signal data");
    impl::signal_set(&sig[1], 5, next);
    impl::signal_add(&sig[1], 6, next);
    impl::barrier_all();
    EXPECT(impl::signal_fetch(&sig[1]) == 11, "signal set+add %" PRIu64, impl::signal_fetch(&sig[1]));

    // ---- work_group forms on the host queue
    impl::barrier_all();
    for (size_t i = 0; i < N; ++i) src[i] = me * 3 + static_cast<int>(i);
    sig[0] = 0;
    impl::barrier_all();
    ishmem::queue q;
    q.parallel_for(ishmem::nd_range{ishmem::range<1>(16), ishmem::range<1>(16)}, [=](ishmem::nd_item<1> it) {
         auto g = it.get_group();
         impl::put_signal_work_group(buf, src, N, &sig[0], 9, ISHMEM_SIGNAL_SET, next, g);
         impl::quiet_work_group(g);
     }).wait();
    while (impl::signal_fetch(&sig[0]) != 9) cpu_relax();
    ok = true;
    for (size_t i = 0; i < N; ++i) ok &= buf[i] == prev * 3 + static_cast<int>(i);
    EXPECT(ok, "put_signal_work_group data");
    q.parallel_for(ishmem::nd_range{ishmem::range<1>(8), ishmem::range<1>(4)}, [=](ishmem::nd_item<1> it) {
         auto g = it.get_group();
         if (it.get_group_linear_id() == 0) impl::barrier_all_work_group(g);
     }).wait();
    impl::sync_all();

    impl::free(big_sym);
    impl::free(sig);
    impl::free(hits);
    impl::free(ctr);
    impl::free(zeros);
    impl::free(al);
    impl::free(a2);
    impl::free(src);
    impl::free(buf);
    // Everything freed: the first block comes back.
    void* again = impl::malloc(N * sizeof(int));
    EXPECT(again == buf, "heap empty after frees: %p vs %p", again, (void*)buf);
    impl::free(again);

    impl::finalize();
    impl::query_initialized(&initialized);
    EXPECT(initialized == 0, "after finalize");
    if (failures) {
        fprintf(stderr, "PE %d: %d failures\n", me, failures);
        return 1;
    }
    printf("PE %d of %d: OK\n", me, n);
    return 0;
}
