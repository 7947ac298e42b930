// bench_check: what the argument checks cost on the host fast path, with no MPI peer: own-PE
// long_atomic_fetch_add and an 8-byte putmem, in ns per call (median of rounds). Run it once with
// ISHMEM_CHECK=default and once with ISHMEM_CHECK=full (ishmrun -n 1 bench_check) to price full mode.
// Also prints how long ishmem_init took on PE 0 (ISHMEM_SYMMETRIC_GLOBALS=0 and 1 price the globals).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ishmem.h"

namespace {

template <class F> double median_ns(long iters, int rounds, F&& f) {
    std::vector<double> ns;
    for (int r = 0; r < rounds; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < iters; ++i) f();
        auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(iters));
    }
    std::sort(ns.begin(), ns.end());
    return ns[ns.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const long iters = argc > 1 ? atol(argv[1]) : 2000000;
    const auto init0 = std::chrono::steady_clock::now();
    ishmem_init();
    const double init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init0).count();
    const int me = ishmem_my_pe();
    long* word = static_cast<long*>(ishmem_calloc(8, sizeof(long)));
    long* buf = static_cast<long*>(ishmem_calloc(64, sizeof(long)));
    long src = 1;
    volatile long sink = 0;
    const double amo = median_ns(iters, 15, [&] { sink = ishmem_long_atomic_fetch_add(word, 1, me); });
    const double put = median_ns(iters, 15, [&] { ishmem_putmem(buf, &src, sizeof src, me); });
    const char* mode = getenv("ISHMEM_CHECK");
    if (me == 0)
        printf("bench_check: ISHMEM_CHECK=%s: long_atomic_fetch_add(own PE) %.2f ns, putmem(8 B, own PE) %.2f ns\n",
               mode ? mode : "default", amo, put);
    if (me == 0) printf("bench_check: ishmem_init on %d PEs: %.2f ms\n", ishmem_n_pes(), init_ms);
    (void)sink;
    ishmem_free(buf);
    ishmem_free(word);
    ishmem_finalize();
    return 0;
}
