// Rough costs of the fast paths (PE 0 reports): ishmrun -n 2 ./bench
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ishmem/impl/all.h"

using namespace ishmemi;
using clk = std::chrono::steady_clock;

template <class F>
double ns_per(int iters, F&& f) {
    auto t0 = clk::now();
    for (int i = 0; i < iters; ++i) f(i);
    return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / iters;
}

int main() {
    impl::init();
    const int me = impl::my_pe(), n = impl::n_pes(), peer = (me + 1) % n;
    auto* word = static_cast<long*>(impl::calloc(8, sizeof(long)));
    const int iters = 2000000;
    double p = ns_per(iters, [&](int i) { impl::p(word, long(i), peer); });
    volatile long sink = 0;
    double g = ns_per(iters, [&](int) { sink = impl::g(word + 1, peer); });
    double add = ns_per(iters, [&](int) { impl::atomic_add(word + 2, 1L, peer); });
    double fadd = ns_per(iters, [&](int) { sink = impl::atomic_fetch_add(word + 3, 1L, peer); });
    double cswap = ns_per(iters, [&](int i) { sink = impl::atomic_compare_swap(word + 4, long(i), long(i + 1), peer); });
    double fetch = ns_per(iters, [&](int) { sink = impl::atomic_fetch(word + 5, peer); });
    impl::barrier_all();
    if (me == 0)
        printf("latency ns: p %.1f  g %.1f  atomic_add %.1f  fetch_add %.1f  compare_swap %.1f  fetch %.1f\n", p, g, add,
               fadd, cswap, fetch);

    for (size_t bytes : {size_t(4096), size_t(64) << 10, size_t(1) << 20, size_t(16) << 20, size_t(64) << 20}) {
        auto* sym = static_cast<char*>(impl::malloc(bytes));
        std::vector<char> src(bytes, 1), dst(bytes, 2);
        memset(sym, 3, bytes);
        impl::barrier_all();
        int reps = static_cast<int>(std::max<size_t>(4, (size_t(1) << 30) / bytes / 4));
        for (int warm = 0; warm < 2; ++warm) {
            double t_memcpy = 0, t_put = 0, t_get = 0;
            for (int round = 0; round < 3; ++round) {  // interleave to share the machine's noise
                t_memcpy += ns_per(reps, [&](int) { memcpy(dst.data(), src.data(), bytes); asm volatile("" ::: "memory"); });
                t_put += ns_per(reps, [&](int) { impl::put(sym, src.data(), bytes, peer); });
                t_get += ns_per(reps, [&](int) { impl::get(dst.data(), sym, bytes, peer); });
            }
            if (me == 0 && warm == 1)
                printf("%9zu B: memcpy %7.2f GB/s  put %7.2f GB/s (%.2fx)  get %7.2f GB/s (%.2fx)\n", bytes,
                       3 * bytes / t_memcpy, 3 * bytes / t_put, t_memcpy / t_put, 3 * bytes / t_get, t_memcpy / t_get);
        }
        impl::barrier_all();
        impl::free(sym);
    }

    for (int rep = 0; rep < 3; ++rep) {
        impl::barrier_all();
        double b = ns_per(20000, [&](int) { impl::barrier_all(); });
        if (me == 0) printf("barrier_all on %d PEs: %.2f us\n", n, b / 1000);
    }
    impl::free(word);
    impl::finalize();
    return 0;
}
