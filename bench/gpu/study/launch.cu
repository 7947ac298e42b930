// Study: what a kernel boundary costs on one stream, the time between one kernel's end and the
// next one's work, for the launch forms the library's stream collectives could use: an ordinary
// launch of one block or of 16, a cooperative launch of 16, each with and without an event recorded
// after it (what an _on_queue call returns), and programmatic dependent launch (Hopper: the next
// kernel is launched while this one runs, and waits in griddepcontrol.wait for it to finish).
// Every kernel spins for a fixed time, so the GPU sets the pace; gap = time per call - spin.
// Run: build/bench/gpu/launch_study [spin_ns] (one GPU, no ishmem).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__device__ __forceinline__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// pdl: let the next kernel launch now, then wait for the previous one (both no-ops without the attribute).
template <bool Pdl>
__global__ void spin(unsigned long long ns, unsigned* sink) {
    if constexpr (Pdl) {
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
        asm volatile("griddepcontrol.wait;" ::: "memory");
    }
    const unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {
    }
    if (threadIdx.x == 0) atomicAdd(sink + blockIdx.x, 1u);
}

enum form { plain, cooperative, pdl };

struct variant {
    const char* name;
    form how;
    unsigned blocks, threads;
    bool event;
};

int main(int argc, char** argv) {
    const unsigned long long spin_ns = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000;
    const int calls = 2000, reps = 5;
    unsigned* sink;
    CK(cudaMalloc(&sink, 64 * sizeof(unsigned)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<cudaEvent_t> events(calls);
    for (auto& e : events) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

    const variant variants[] = {
        {"plain 1x512", plain, 1, 512, false},        {"plain 1x512 + event", plain, 1, 512, true},
        {"plain 16x256", plain, 16, 256, false},      {"plain 16x256 + event", plain, 16, 256, true},
        {"coop 16x256", cooperative, 16, 256, false}, {"coop 16x256 + event", cooperative, 16, 256, true},
        {"pdl 1x512", pdl, 1, 512, false},            {"pdl 1x512 + event", pdl, 1, 512, true},
        {"pdl 16x256", pdl, 16, 256, false},          {"pdl 16x256 + event", pdl, 16, 256, true},
    };
    std::printf("# launch study: %d calls per repetition, spin %llu ns; best of %d repetitions\n", calls, spin_ns, reps);
    std::printf("variant,per_call_us,gap_us,issue_us\n");
    for (const variant& v : variants) {
        double best = 1e30, best_issue = 1e30;
        for (int r = 0; r < reps + 1; ++r) {  // the first repetition warms up
            CK(cudaStreamSynchronize(s));
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < calls; ++i) {
                unsigned long long ns = spin_ns;
                void* args[] = {&ns, &sink};
                if (v.how == cooperative) {
                    CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&spin<false>), dim3(v.blocks),
                                                   dim3(v.threads), args, 0, s));
                } else {
                    cudaLaunchConfig_t cfg = {};
                    cfg.gridDim = dim3(v.blocks);
                    cfg.blockDim = dim3(v.threads);
                    cfg.stream = s;
                    cudaLaunchAttribute attr[1];
                    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
                    attr[0].val.programmaticStreamSerializationAllowed = 1;
                    if (v.how == pdl) {
                        cfg.attrs = attr;
                        cfg.numAttrs = 1;
                        CK(cudaLaunchKernelEx(&cfg, spin<true>, ns, sink));
                    } else {
                        CK(cudaLaunchKernelEx(&cfg, spin<false>, ns, sink));
                    }
                }
                if (v.event) CK(cudaEventRecord(events[i], s));
            }
            const auto t1 = std::chrono::steady_clock::now();
            CK(cudaStreamSynchronize(s));
            const auto t2 = std::chrono::steady_clock::now();
            if (r == 0) continue;
            best = std::min(best, std::chrono::duration<double, std::micro>(t2 - t0).count() / calls);
            best_issue = std::min(best_issue, std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
        }
        std::printf("%s,%.3f,%.3f,%.3f\n", v.name, best, best - spin_ns / 1e3, best_issue);
    }
    // Host cost of one event record alone, on an idle stream.
    {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) CK(cudaEventRecord(events[i], s));
        const auto t1 = std::chrono::steady_clock::now();
        std::printf("event record alone,,,%.3f\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    CK(cudaStreamSynchronize(s));
    return 0;
}
