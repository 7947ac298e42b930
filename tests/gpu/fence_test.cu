// Ordering under repetition: a sender puts data, fences, then writes a flag with p, thousands of
// times; a receiver on the right neighbour that sees flag value f must see data of round f or later
// (the data only grows). One sender thread per channel, and a warp variant (put_work_group +
// fence_work_group, then one lane writes the flag).
#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;

constexpr int channels = 4;
constexpr int data_ints = 8;                // per channel, thread variant
constexpr int warp_ints = 256;              // per channel, warp variant
constexpr uint64_t full_iterations = 4000;  // over nodes: 200 (sized_for_layout)

// Blocks [0, channels): senders; blocks [channels, 2 * channels): receivers. Symmetric layout:
// data[c * width ...], flag[c]. scratch: local source buffers.
template <bool Warp> __global__ void fence_then_flag(int* data, uint64_t* flag, int* scratch, report_data* rep,
                                                     unsigned long long* observed, uint64_t iterations) {
    cg::thread_block block = cg::this_thread_block();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    constexpr int width = Warp ? warp_ints : data_ints;
    if (blockIdx.x < channels) {
        const int c = blockIdx.x;
        int* src = scratch + c * width;
        int* dest = data + c * width;
        if constexpr (Warp) {
            cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
            if (warp.meta_group_rank() != 0) return;
            for (uint64_t i = 1; i <= iterations; ++i) {
                for (int j = warp.thread_rank(); j < width; j += warp.size()) src[j] = static_cast<int>(i);
                warp.sync();
                ishmemx_int_put_work_group(dest, src, width, right, warp);
                ishmemx_fence_work_group(warp);
                if (warp.thread_rank() == 0) ishmem_uint64_p(flag + c, i, right);
                warp.sync();
            }
        } else {
            if (block.thread_rank() != 0) return;
            for (uint64_t i = 1; i <= iterations; ++i) {
                for (int j = 0; j < width; ++j) src[j] = static_cast<int>(i);
                ishmem_int_put(dest, src, width, right);
                ishmem_fence();
                ishmem_uint64_p(flag + c, i, right);
            }
        }
        return;
    }
    // receiver of channel c on this PE (the left neighbour sends)
    if (block.thread_rank() != 0) return;
    const int c = blockIdx.x - channels;
    const int* mine = data + c * width;
    uint64_t last = 0;
    unsigned long long seen = 0;
    while (last < iterations) {
        const uint64_t f = ishmem_signal_wait_until(flag + c, ISHMEM_CMP_GT, last);
        for (int j = 0; j < width; ++j) {
            const int d = load_volatile(mine + j);
            if (static_cast<uint64_t>(d) < f)
                report_mismatch(rep, c * 1000000LL + static_cast<long long>(f), d, static_cast<long long>(f), __LINE__);
        }
        last = f;
        ++seen;
    }
    atomicAdd(observed, seen);
}

class GpuFence : public GpuTest {
  protected:
    template <bool Warp> void run(const char* what) {
        constexpr int width = Warp ? warp_ints : data_ints;
        gpu_sym<int> data(channels * width);
        gpu_sym<uint64_t> flag(channels);
        ASSERT_TRUE(data && flag);
        dev_array<int> scratch(channels * width);
        dev_array<unsigned long long> observed(1);
        dev_report rep;
        stream s;
        const uint64_t iterations = static_cast<uint64_t>(sized_for_layout(full_iterations, 200));
        ishmem_barrier_all();
        fence_then_flag<Warp><<<2 * channels, Warp ? 64 : 32, 0, s>>>(data.get(), flag.get(), scratch.get(), rep,
                                                                      observed.get(), iterations);
        GPU_LAUNCHED(what);
        sync(s, what);
        rep.expect_clean(std::string(what) + ": data older than its flag (where = channel * 10^6 + flag, got = data)");
        ishmem_barrier_all();
        expect_elements(
            data.read(), [&](size_t) { return static_cast<int>(iterations); }, std::string(what) + ": final data");
        expect_elements(
            flag.read(), [&](size_t) { return iterations; }, std::string(what) + ": final flags");
        const unsigned long long obs = observed.read()[0];
        EXPECT_GE(obs, static_cast<unsigned long long>(channels)) << "receivers saw too few flag values";
        std::printf("[PE %d] %s: receivers saw %llu distinct flag values of %llu\n", me, what, obs,
                    static_cast<unsigned long long>(iterations) * channels);
    }
};

TEST_F(GpuFence, ThreadPutFenceFlag) { run<false>("put + fence + p (one thread)"); }
TEST_F(GpuFence, WarpPutFenceFlag) { run<true>("put_work_group + fence_work_group + p (warp)"); }

}  // namespace
