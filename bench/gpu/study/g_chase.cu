// Study: what the device checks cost a chain of dependent g calls (each address comes from the last
// load), and which form of the check costs least there. bench_gpu's int_g chase measures ours at
// 1.01 of NVSHMEM's time with the checks and 0.99 without (stop 31); this isolates the check.
// Variants, each a kernel of one thread chasing a chain of 128-byte lines in GPU 1's memory from
// GPU 0 over NVLink, with the job's state in constant memory as the library keeps it:
//   - none:        the load alone (peer address = address + stride), as ISHMEM_DEVICE_CHECKS=0;
//   - library:     the library's checks (init, the address in the heap, the PE), their predicates
//                  joined and one branch to the reports (generator/model.py, _fused_checks);
//   - noreturn:    the same, the branch's end marked unreachable (a report never returns), so that
//                  the compiler needs no reconvergence point after it;
//   - subtract:    the heap test as one subtraction and one compare ((a - lo) <= size - bytes);
//   - sub+noret:   both.
//   - select:      the load first, from the address when the predicates pass and from a word of the
//                  kernel's own when one fails, then the branch to the reports. Stop 32 (H100):
//                  0.896 us against noreturn's 0.880, the load's address now waits for the
//                  compares; the library's g in this form measured 1.024 of NVSHMEM's time, so the
//                  library keeps noreturn.
// Time per g = kernel time / iterations, best of 5 after a warm-up; every chase's end is checked.
// Run: build/bench/gpu/g_chase_study   (needs 2 GPUs)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "check.h"

namespace {

struct job_state {
    int initialized, n_pes, my_pe;
    uintptr_t heap_base;
    size_t heap_size;
    long long peer_stride;
};
__constant__ job_state js;

constexpr int line_ints = 32;

__device__ __noinline__ void report(int code, const char* fn, long long a) {
    printf("g_chase: %s: check %d failed (%lld)\n", fn, code, a);
    __trap();
}
__device__ __noinline__ [[noreturn]] void report_noreturn(int code, const char* fn, long long a) {
    printf("g_chase: %s: check %d failed (%lld)\n", fn, code, a);
    __trap();
    __builtin_unreachable();
}

__device__ inline bool in_heap_bounds(uintptr_t a, size_t bytes) {
    const uintptr_t lo = js.heap_base;
    return ((bytes <= js.heap_size) & (a >= lo) & (a <= lo + (js.heap_size - bytes))) | ((bytes == 0) & (a == 0));
}
__device__ inline bool in_heap_sub(uintptr_t a, size_t bytes) {
    const size_t off = a - js.heap_base;
    return ((bytes <= js.heap_size) & (off <= js.heap_size - bytes)) | ((bytes == 0) & (a == 0));
}

enum variant : int { v_none, v_library, v_noreturn, v_subtract, v_sub_noret, v_select, n_variants };
constexpr const char* variant_name[] = {"none", "library", "noreturn", "subtract", "sub+noret", "select"};

alignas(16) __device__ int guard_word[4];

template <int V> __device__ inline int g(const int* source, int pe) {
    if constexpr (V == v_select) {
        constexpr const char* fn = "ishmem_int_g";
        const uintptr_t a = reinterpret_cast<uintptr_t>(source);
        const bool ok_heap = in_heap_bounds(a, sizeof(int));
        const bool ok_pe = static_cast<unsigned>(pe) < static_cast<unsigned>(js.n_pes);
        const bool ok = bool(js.initialized) & ok_heap & ok_pe;
        const char* p = reinterpret_cast<const char*>(source) + static_cast<long long>(pe - js.my_pe) * js.peer_stride;
        const int v = *reinterpret_cast<const volatile int*>(ok ? p : reinterpret_cast<const char*>(guard_word));
        if (__builtin_expect(!ok, 0)) {
            if (!js.initialized) report_noreturn(1, fn, 0);
            if (!ok_heap) report_noreturn(2, fn, static_cast<long long>(a));
            report_noreturn(3, fn, pe);
        }
        return v;
    }
    if constexpr (V != v_none) {
        constexpr const char* fn = "ishmem_int_g";
        const uintptr_t a = reinterpret_cast<uintptr_t>(source);
        constexpr bool sub = V == v_subtract || V == v_sub_noret;
        const bool ok_heap = sub ? in_heap_sub(a, sizeof(int)) : in_heap_bounds(a, sizeof(int));
        const bool ok_pe = static_cast<unsigned>(pe) < static_cast<unsigned>(js.n_pes);
        if (__builtin_expect(!(bool(js.initialized) & ok_heap & ok_pe), 0)) {
            if constexpr (V == v_library || V == v_subtract) {
                if (!js.initialized) report(1, fn, 0);
                if (!ok_heap) report(2, fn, static_cast<long long>(a));
                if (!ok_pe) report(3, fn, pe);
            } else {
                if (!js.initialized) report_noreturn(1, fn, 0);
                if (!ok_heap) report_noreturn(2, fn, static_cast<long long>(a));
                if (!ok_pe) report_noreturn(3, fn, pe);
                __builtin_unreachable();
            }
        }
    }
    const char* p = reinterpret_cast<const char*>(source) + static_cast<long long>(pe - js.my_pe) * js.peer_stride;
    return *reinterpret_cast<const volatile int*>(p);
}

template <int V> __global__ void k_chase(const int* local_chain, int start, long iters, int pe, int* end) {
    int idx = start;
    for (long i = 0; i < iters; ++i) idx = g<V>(local_chain + size_t(idx) * line_ints, pe);
    *end = idx;
}

__global__ void k_fill(int* chain, int lines) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < lines; k += gridDim.x * blockDim.x)
        chain[size_t(k) * line_ints] = (k + 7) % lines;  // a stride of 7 lines: no two neighbours in a row
}

template <int V> float run(const int* local, int lines, long iters, int* d_end, cudaEvent_t e0, cudaEvent_t e1, bool* right) {
    float best = 1e30f;
    for (int r = -1; r < 5; ++r) {
        const int start = (r + 1) * 131 % lines;
        CK(cudaEventRecord(e0));
        k_chase<V><<<1, 1>>>(local, start, iters, 1, d_end);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        int end = -1;
        CK(cudaMemcpy(&end, d_end, sizeof end, cudaMemcpyDeviceToHost));
        if (end != static_cast<int>((start + 7 * (iters % lines)) % lines)) *right = false;
        if (r >= 0 && ms < best) best = ms;
    }
    return best * 1000.0f / static_cast<float>(iters);
}

}  // namespace

int main() {
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        std::printf("g_chase_study: needs 2 GPUs, found %d\n", n);
        return 1;
    }
    constexpr int lines = 16384;
    constexpr size_t bytes = size_t(lines) * line_ints * sizeof(int);
    int* remote = nullptr;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&remote, bytes));
    k_fill<<<64, 256>>>(remote, lines);
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    int* local = nullptr;  // this PE's heap: the chain's addresses are taken here and moved by the stride
    int* d_end = nullptr;
    CK(cudaMalloc(&local, bytes));
    CK(cudaMalloc(&d_end, sizeof(int)));
    job_state s{1, 2, 0, reinterpret_cast<uintptr_t>(local), bytes,
                static_cast<long long>(reinterpret_cast<intptr_t>(remote) - reinterpret_cast<intptr_t>(local))};
    CK(cudaMemcpyToSymbol(js, &s, sizeof s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const long iters = 20000;
    std::printf("variant,us_per_g,right\n");
    float t[n_variants];
    bool right[n_variants];
    for (int round = 0; round < 2; ++round) {  // twice, to see the spread
        for (int v = 0; v < n_variants; ++v) right[v] = true;
        t[v_none] = run<v_none>(local, lines, iters, d_end, e0, e1, &right[v_none]);
        t[v_library] = run<v_library>(local, lines, iters, d_end, e0, e1, &right[v_library]);
        t[v_noreturn] = run<v_noreturn>(local, lines, iters, d_end, e0, e1, &right[v_noreturn]);
        t[v_subtract] = run<v_subtract>(local, lines, iters, d_end, e0, e1, &right[v_subtract]);
        t[v_sub_noret] = run<v_sub_noret>(local, lines, iters, d_end, e0, e1, &right[v_sub_noret]);
        t[v_select] = run<v_select>(local, lines, iters, d_end, e0, e1, &right[v_select]);
        for (int v = 0; v < n_variants; ++v)
            std::printf("%s,%.4f,%s\n", variant_name[v], t[v], right[v] ? "yes" : "WRONG");
    }
    bool all = true;
    for (int v = 0; v < n_variants; ++v) all = all && right[v];
    return all ? 0 : 1;
}
