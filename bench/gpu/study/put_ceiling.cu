// Study: the fastest one-way copy from GPU 0's memory into GPU 1's over NVLink that this machine
// allows, whatever the method, to tell whether a target for many-block puts (383 GB/s, 85% of
// NVLink 4's 450 GB/s per direction) can be met here at all. No ishmem and no NVSHMEM: one process,
// both GPUs, peer access.
//   - copy engine: cudaMemcpyPeerAsync, one stream and two;
//   - SM stores (push, what a device put does): grids of 132 to 1056 blocks of 256 to 1024 threads,
//     16-byte loads of local memory and 16-byte stores to the peer, 1 or 4 in flight per thread;
//   - SM loads (pull, what a device get does), for comparison.
// Each point: best of 5 timed repetitions (after one warm-up) of a copy of the given size, timed by
// events on GPU 0's stream; GB/s = bytes / time (1 GB = 1e9 bytes). Every method's result is checked
// once (the whole destination compared on the host).
// Run: build/bench/gpu/put_ceiling_study [MiB ...]   (default 1 16 256; needs 2 GPUs)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

// n16: 16-byte units. U units in flight per thread (their loads issued together, then their stores).
template <int U> __global__ void copy_units(int4* __restrict__ dst, const int4* __restrict__ src, size_t n16) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n16; i += U * stride) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcg(src + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u) dst[i + u * stride] = v[u];
    }
    for (; i < n16; i += stride) dst[i] = __ldcg(src + i);
}

// Each block copies its own contiguous share (a block's stores go to one region at a time).
template <int U> __global__ void copy_block_shares(int4* __restrict__ dst, const int4* __restrict__ src, size_t n16) {
    const size_t per = (n16 + gridDim.x - 1) / gridDim.x;
    const size_t b = per * blockIdx.x, e = b + per < n16 ? b + per : n16;
    size_t i = b + threadIdx.x;
    for (; i + (U - 1) * blockDim.x < e; i += U * blockDim.x) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcg(src + i + u * blockDim.x);
#pragma unroll
        for (int u = 0; u < U; ++u) dst[i + u * blockDim.x] = v[u];
    }
    for (; i < e; i += blockDim.x) dst[i] = __ldcg(src + i);
}

__global__ void fill(uint32_t* p, size_t n, uint32_t salt) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
        p[i] = static_cast<uint32_t>(i * 2654435761u) ^ salt;
}

struct method {
    char name[64];
    int kind;  // 0 copy engine (1 or 2 streams), 1 SM push interleaved, 2 SM push block shares, 3 SM pull
    unsigned blocks, threads, unroll, streams;
};

int main(int argc, char** argv) {
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10) << 20);
    if (sizes.empty()) sizes = {1u << 20, 16u << 20, 256u << 20};
    int ngpu = 0;
    CK(cudaGetDeviceCount(&ngpu));
    if (ngpu < 2) {
        std::fprintf(stderr, "put_ceiling_study: needs 2 GPUs, found %d\n", ngpu);
        return 1;
    }
    int can = 0;
    CK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (!can) {
        std::fprintf(stderr, "put_ceiling_study: GPU 0 cannot reach GPU 1\n");
        return 1;
    }
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());

    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    uint32_t* remote;  // GPU 1's memory
    CK(cudaMalloc(&remote, max_bytes));
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    uint32_t* local;  // GPU 0's memory
    CK(cudaMalloc(&local, max_bytes));
    cudaStream_t s[2];
    for (auto& st : s) CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1, joined;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));

    std::vector<method> methods;
    auto add = [&](int kind, unsigned b, unsigned t, unsigned u, unsigned st, const char* what) {
        method m{};
        std::snprintf(m.name, sizeof m.name, "%s", what);
        m.kind = kind, m.blocks = b, m.threads = t, m.unroll = u, m.streams = st;
        methods.push_back(m);
    };
    add(0, 0, 0, 0, 1, "copy engine, 1 stream");
    add(0, 0, 0, 0, 2, "copy engine, 2 streams");
    const unsigned sms = static_cast<unsigned>(prop.multiProcessorCount);
    char label[64];
    for (unsigned per_sm : {1u, 2u, 4u, 8u})
        for (unsigned t : {256u, 512u, 1024u})
            for (unsigned u : {1u, 4u}) {
                if (per_sm * t > 2048) continue;  // more than an SM holds
                std::snprintf(label, sizeof label, "SM push %ux%u unroll %u", per_sm * sms, t, u);
                add(1, per_sm * sms, t, u, 1, label);
            }
    for (unsigned per_sm : {1u, 2u, 4u}) {
        std::snprintf(label, sizeof label, "SM push shares %ux512 unroll 4", per_sm * sms);
        add(2, per_sm * sms, 512, 4, 1, label);
    }
    for (unsigned per_sm : {1u, 4u}) {
        std::snprintf(label, sizeof label, "SM pull %ux512 unroll 4", per_sm * sms);
        add(3, per_sm * sms, 512, 4, 1, label);
    }

    std::printf("# put ceiling study: GPU 0 (%s, %u SMs) -> GPU 1 over peer access; best of 5, GB/s = 1e9 bytes/s\n",
                prop.name, sms);
    std::printf("method,bytes,us,GBps,checked\n");
    std::vector<uint32_t> host(max_bytes / 4);
    double best_overall = 0;
    char best_name[64] = "";
    for (const method& m : methods) {
        for (size_t bytes : sizes) {
            const size_t n16 = bytes / 16;
            // The source is GPU 0's memory for pushes, GPU 1's for the pull (then the destination is GPU 0's).
            uint32_t* src = m.kind == 3 ? remote : local;
            uint32_t* dst = m.kind == 3 ? local : remote;
            const uint32_t salt = static_cast<uint32_t>(bytes) ^ static_cast<uint32_t>(&m - methods.data()) * 7919u;
            if (m.kind == 3) CK(cudaSetDevice(1));
            fill<<<264, 512>>>(src, bytes / 4, salt);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(0));
            CK(cudaMemset(dst == local ? local : remote, 0, bytes));
            CK(cudaDeviceSynchronize());
            auto once = [&] {
                switch (m.kind) {
                    case 0:
                        if (m.streams == 1) {
                            CK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s[0]));
                        } else {  // two halves on two streams, joined on s[0]
                            CK(cudaEventRecord(joined, s[0]));
                            CK(cudaStreamWaitEvent(s[1], joined, 0));
                            CK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes / 2, s[0]));
                            CK(cudaMemcpyPeerAsync(reinterpret_cast<char*>(dst) + bytes / 2, 1,
                                                   reinterpret_cast<char*>(src) + bytes / 2, 0, bytes - bytes / 2, s[1]));
                            CK(cudaEventRecord(joined, s[1]));
                            CK(cudaStreamWaitEvent(s[0], joined, 0));
                        }
                        break;
                    case 1:
                    case 3:
                        if (m.unroll == 4)
                            copy_units<4><<<m.blocks, m.threads, 0, s[0]>>>(reinterpret_cast<int4*>(dst), reinterpret_cast<const int4*>(src), n16);
                        else
                            copy_units<1><<<m.blocks, m.threads, 0, s[0]>>>(reinterpret_cast<int4*>(dst), reinterpret_cast<const int4*>(src), n16);
                        break;
                    default:
                        copy_block_shares<4><<<m.blocks, m.threads, 0, s[0]>>>(reinterpret_cast<int4*>(dst), reinterpret_cast<const int4*>(src), n16);
                        break;
                }
                CK(cudaGetLastError());
            };
            once();  // warm-up
            CK(cudaStreamSynchronize(s[0]));
            // Check the warm-up's result: every word as fill wrote it.
            CK(cudaMemcpy(host.data(), dst, bytes, cudaMemcpyDefault));
            bool ok = true;
            for (size_t i = 0; i < bytes / 4 && ok; ++i) ok = host[i] == (static_cast<uint32_t>(i * 2654435761u) ^ salt);
            const int reps = bytes >= (64u << 20) ? 5 : 20;
            double best_us = 1e30;
            for (int r = 0; r < 5; ++r) {
                CK(cudaEventRecord(e0, s[0]));
                for (int i = 0; i < reps; ++i) once();
                CK(cudaEventRecord(e1, s[0]));
                CK(cudaEventSynchronize(e1));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                best_us = std::min(best_us, 1e3 * ms / reps);
            }
            const double gbps = bytes / (best_us * 1e3);
            std::printf("%s,%zu,%.2f,%.1f,%s\n", m.name, bytes, best_us, gbps, ok ? "ok" : "WRONG");
            if (ok && m.kind != 3 && gbps > best_overall) best_overall = gbps, std::snprintf(best_name, sizeof best_name, "%s", m.name);
            std::fflush(stdout);
        }
    }
    std::printf("# fastest push at any size: %.1f GB/s (%s); the many-block put target is 383 GB/s\n", best_overall, best_name);
    return 0;
}
