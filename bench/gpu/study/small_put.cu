// Study: what a small put (8 B-64 KiB) from one thread, a warp or a block costs per call over NVLink
// for three shapes of the copy loop, to tell where the small-put gap to NVSHMEM comes from
// (bench/README.md, stop 27: a thread's 8 B at 1.92x, a warp's 64 B-1 KiB at 1.28-1.38x).
//   - library: ishmemi::dev::copy_bytes as the library has it now (device.cuh);
//   - before:  the copy of stop 27 (a tail shorter than the widest word went byte by byte);
//   - narrow:  the first try of stop 28 (a63980c): any tail in ever narrower words, all by the
//              group's first thread, and the unrolled loop only when there are words for it;
//   - plain:   one loop per word width, widest first, no unrolling.
// One process, both GPUs, peer access; no ishmem init (the copies take raw pointers). A point: one
// kernel of `iters` back-to-back copies of n bytes from GPU 0's memory into GPU 1's, each followed
// by the group's sync (as the library's _work_group forms end), then a system fence; time per copy =
// event time / iters, best of 5 after a warm-up. Every variant's result is checked once per size,
// with both ends aligned and with the destination one byte off.
// Run: build/bench/gpu/small_put_study   (needs 2 GPUs)
#include <ishmem.h>

#include <cooperative_groups.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

// stop 27's copy, kept to compare against
template <class W>
__device__ inline void before_words(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    W* dw = reinterpret_cast<W*>(d);
    const W* sw = reinterpret_cast<const W*>(s);
    const size_t nw = n / sizeof(W);
    size_t i = rank;
    for (; i + 3 * size < nw; i += 4 * size) {
        W a = sw[i], b = sw[i + size], c = sw[i + 2 * size], e = sw[i + 3 * size];
        dw[i] = a;
        dw[i + size] = b;
        dw[i + 2 * size] = c;
        dw[i + 3 * size] = e;
    }
    for (; i < nw; i += size) dw[i] = sw[i];
    for (size_t j = nw * sizeof(W) + rank; j < n; j += size) d[j] = s[j];
}
// The widest word both ends allow, as the library picks it (ishmemi::dev::with_widest_word).
__device__ inline uintptr_t ends_of(const char* d, const char* s) {
    return reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
}
__device__ inline void before_copy(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    ishmemi::dev::with_widest_word(ends_of(d, s), [&](auto w) { before_words<decltype(w)>(d, s, n, rank, size); });
}

// a63980c's copy, kept to compare against
template <class W>
__device__ inline void narrow_words(char* __restrict__ d, const char* __restrict__ s, size_t n, unsigned rank, unsigned size) {
    W* __restrict__ dw = reinterpret_cast<W*>(d);
    const W* __restrict__ sw = reinterpret_cast<const W*>(s);
    const size_t nw = n / sizeof(W);
    size_t i = rank;
    if (nw >= 4 * size_t(size))
        for (; i + 3 * size < nw; i += 4 * size) {
            W a = sw[i], b = sw[i + size], c = sw[i + 2 * size], e = sw[i + 3 * size];
            dw[i] = a;
            dw[i + size] = b;
            dw[i + 2 * size] = c;
            dw[i + 3 * size] = e;
        }
    for (; i < nw; i += size) dw[i] = sw[i];
    if constexpr (sizeof(W) > 1) {
        const size_t done = nw * sizeof(W);
        if (done < n) narrow_words<typename ishmemi::dev::narrower_word<W>::type>(d + done, s + done, n - done, rank, size);
    }
}
__device__ inline void narrow_copy(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    ishmemi::dev::with_widest_word(ends_of(d, s), [&](auto w) { narrow_words<decltype(w)>(d, s, n, rank, size); });
}

// One simple loop per width: as many W words as both ends allow, then the rest one width down.
template <class W>
__device__ inline void plain_step(char*& d, const char*& s, size_t& n, unsigned rank, unsigned size) {
    if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & (sizeof(W) - 1)) != 0) return;
    const size_t nw = n / sizeof(W);
    for (size_t i = rank; i < nw; i += size) reinterpret_cast<W*>(d)[i] = reinterpret_cast<const W*>(s)[i];
    d += nw * sizeof(W);
    s += nw * sizeof(W);
    n -= nw * sizeof(W);
}
__device__ inline void plain_copy(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    plain_step<int4>(d, s, n, rank, size);
    plain_step<unsigned long long>(d, s, n, rank, size);
    plain_step<unsigned>(d, s, n, rank, size);
    plain_step<unsigned short>(d, s, n, rank, size);
    plain_step<unsigned char>(d, s, n, rank, size);
}

enum variant : int { v_library, v_before, v_narrow, v_plain };
constexpr const char* variant_name[] = {"library", "before", "narrow", "plain"};

template <int V> __device__ inline void copy(char* d, const char* s, size_t n, unsigned rank, unsigned size) {
    if constexpr (V == v_library)
        ishmemi::dev::copy_bytes(d, s, n, rank, size);
    else if constexpr (V == v_before)
        before_copy(d, s, n, rank, size);
    else if constexpr (V == v_narrow)
        narrow_copy(d, s, n, rank, size);
    else
        plain_copy(d, s, n, rank, size);
}

// Threads: 1 (a thread's put), 32 (a warp's), 1024 (a block's).
template <int V, int Threads>
__global__ void __launch_bounds__(1024) k_puts(char* d, const char* s, size_t n, long iters) {
    auto block = cg::this_thread_block();
    if constexpr (Threads == 32) {
        auto warp = cg::tiled_partition<32>(block);
        for (long i = 0; i < iters; ++i) {
            copy<V>(d, s, n, warp.thread_rank(), 32);
            warp.sync();
        }
    } else if constexpr (Threads == 1) {
        for (long i = 0; i < iters; ++i) copy<V>(d, s, n, 0, 1);
    } else {
        for (long i = 0; i < iters; ++i) {
            copy<V>(d, s, n, block.thread_rank(), Threads);
            block.sync();
        }
    }
    __threadfence_system();
}

template <int V, int Threads> float time_point(char* d, const char* s, size_t n, long iters, cudaStream_t st) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    k_puts<V, Threads><<<1, Threads, 0, st>>>(d, s, n, iters / 10 + 1);  // warm-up
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        CK(cudaEventRecord(a, st));
        k_puts<V, Threads><<<1, Threads, 0, st>>>(d, s, n, iters);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        best = ms < best ? ms : best;
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return best * 1e3f / static_cast<float>(iters);  // us per copy
}

// One copy of n bytes by the variant into GPU 1 at offset off; the destination compared on the host.
template <int V, int Threads>
bool check_point(char* d1, const char* s0, const std::vector<char>& src_host, size_t n, size_t off, cudaStream_t st) {
    CK(cudaSetDevice(1));
    CK(cudaMemset(d1, 0, n + 64));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    k_puts<V, Threads><<<1, Threads, 0, st>>>(d1 + off, s0, n, 1);
    CK(cudaStreamSynchronize(st));
    std::vector<char> got(n + 64);
    CK(cudaMemcpy(got.data(), d1, n + 64, cudaMemcpyDefault));
    for (size_t i = 0; i < n + 64; ++i) {
        const char want = i >= off && i < off + n ? src_host[i - off] : 0;
        if (got[i] != want) {
            std::printf("WRONG: %s threads=%d n=%zu offset=%zu: byte %zu is %d, expected %d\n", variant_name[V], Threads, n,
                        off, i, got[i], want);
            return false;
        }
    }
    return true;
}

template <int V, int Threads>
bool run_variant(const char* group, char* d1, const char* s0, const std::vector<char>& src_host, size_t n, cudaStream_t st) {
    if (!check_point<V, Threads>(d1, s0, src_host, n, 0, st) || !check_point<V, Threads>(d1, s0, src_host, n, 1, st) ||
        !check_point<V, Threads>(d1, s0, src_host, n - 1, 8, st))
        return false;
    const long iters = n <= 4096 ? 20000 : 4000;
    std::printf("%s,%s,%zu,%.4f\n", group, variant_name[V], n, time_point<V, Threads>(d1, s0, n, iters, st));
    return true;
}

template <int Threads> bool run_group(const char* group, char* d1, const char* s0, const std::vector<char>& src_host, size_t n, cudaStream_t st) {
    return run_variant<v_library, Threads>(group, d1, s0, src_host, n, st) &&
           run_variant<v_before, Threads>(group, d1, s0, src_host, n, st) &&
           run_variant<v_narrow, Threads>(group, d1, s0, src_host, n, st) &&
           run_variant<v_plain, Threads>(group, d1, s0, src_host, n, st);
}

int main() {
    int ngpu = 0;
    CK(cudaGetDeviceCount(&ngpu));
    if (ngpu < 2) {
        std::fprintf(stderr, "small_put_study: needs 2 GPUs, found %d\n", ngpu);
        return 1;
    }
    const size_t most = 64 << 10;
    char *s0 = nullptr, *d1 = nullptr;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&d1, most + 64));
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    CK(cudaMalloc(&s0, most));
    std::vector<char> src_host(most);
    for (size_t i = 0; i < most; ++i) src_host[i] = static_cast<char>((i * 131 + 7) % 251 + 1);
    CK(cudaMemcpy(s0, src_host.data(), most, cudaMemcpyHostToDevice));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# small_put_study on %s: us per copy (GPU 0 -> GPU 1), best of 5\n", prop.name);
    std::printf("group,variant,bytes,us\n");
    bool ok = true;
    for (size_t n : {size_t(8), size_t(24), size_t(64), size_t(256), size_t(1024), size_t(4096), size_t(16384), size_t(65536)}) {
        ok = ok && run_group<1>("thread", d1, s0, src_host, n, st);
        ok = ok && run_group<32>("warp", d1, s0, src_host, n, st);
        ok = ok && run_group<1024>("block", d1, s0, src_host, n, st);
    }
    std::printf(ok ? "# every copy checked: right\n" : "# a copy was WRONG\n");
    return ok ? 0 : 1;
}
