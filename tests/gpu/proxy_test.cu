// The proxy's request ring posted into by GPU threads (ishmem/cuda/proxy_post.cuh): a ring in
// mapped pinned host memory, a proxy transport over a recording transport (tests/proxy_recorder.h),
// and kernels whose threads post non-fetching atomics, fetching atomics and a quiet. What only the
// GPU can show: a request published with a system-scope release is seen whole by the host, and an
// answer reaches the thread that waits for it. Each PE runs it on its own GPU; no PE talks to another.
#include "gpu_testing.h"

#include <map>

#include "ishmem/cuda/proxy_post.cuh"
#include "proxy.h"
#include "proxy_recorder.h"

namespace {

using namespace ishmem_gpu_testing;
namespace px = ishmemi::proxy;

class GpuProxy : public GpuTest {};

constexpr int blocks = 4, threads = 64, posts_per_thread = 40;
constexpr uint64_t slots = 32;  // fewer cells than posting threads: posters wait for free cells

// Each thread posts posts_per_thread non-fetching adds (value: its id and sequence), then one
// fetching atomic whose answer it stores, then thread 0 of each block a quiet.
__global__ void post_requests(px::ring_header* ring, unsigned long long* tickets, uint64_t* answers) {
    const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    for (uint64_t k = 0; k < posts_per_thread; ++k) {
        px::request q{};
        q.op = px::req_amo_post;
        q.rmw = ishmemi::op_add;
        q.size = 8;
        q.pe = static_cast<int32_t>(id);
        q.value = (uint64_t{id} << 32) | k;
        ishmemi::dev::proxy_call(ring, tickets, q);
    }
    px::request f{};
    f.op = px::req_amo;
    f.rmw = ishmemi::op_cswap;
    f.size = 4;
    f.pe = static_cast<int32_t>(id);
    f.value = 1000 + id;
    f.cond = 7;
    answers[id] = ishmemi::dev::proxy_call(ring, tickets, f);
    __syncthreads();
    if (threadIdx.x == 0) {
        px::request q{};
        q.op = px::req_quiet;
        q.pe = -1;
        ishmemi::dev::proxy_call(ring, tickets, q);
    }
}

TEST_F(GpuProxy, KernelThreadsPostInOrderAndGetTheirOwnAnswers) {
    void* memory = nullptr;
    ASSERT_EQ(cudaHostAlloc(&memory, px::ring_bytes(slots), cudaHostAllocMapped), cudaSuccess);
    void* device_view = nullptr;
    ASSERT_EQ(cudaHostGetDevicePointer(&device_view, memory, 0), cudaSuccess);
    auto owned = std::make_unique<proxy_testing::recorder>();
    proxy_testing::recorder* rec = owned.get();
    auto proxy = ishmemi::make_proxy_transport(std::move(owned), slots, memory);
    proxy->start_progress_thread();

    dev_array<uint64_t> answers(blocks * threads);
    dev_array<unsigned long long> tickets(1);
    ASSERT_EQ(cudaMemset(tickets.get(), 0, sizeof(unsigned long long)), cudaSuccess);
    stream s;
    post_requests<<<blocks, threads, 0, s>>>(static_cast<px::ring_header*>(device_view), tickets.get(), answers.get());
    GPU_LAUNCHED("post_requests");
    sync(s, "post_requests (a thread waiting for a cell or an answer the proxy never gave)");

    std::vector<uint64_t> got(blocks * threads);
    ASSERT_EQ(cudaMemcpy(got.data(), answers.get(), got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (int id = 0; id < blocks * threads; ++id)
        EXPECT_EQ(got[id], proxy_testing::amo_answer(ishmemi::op_cswap, 4, 1000 + id, 7, id)) << "thread " << id;

    const auto ev = rec->snapshot();
    std::map<int, uint64_t> next;  // per thread: the sequence number its next add must carry
    int adds = 0, fetches = 0, quiets = 0;
    for (const auto& e : ev) {
        if (e.kind == 'o') {
            ++adds;
            ASSERT_EQ(static_cast<int>(e.value >> 32), e.pe) << "a request arrived torn";
            EXPECT_EQ(e.value & 0xffffffffu, next[e.pe]) << "thread " << e.pe << "'s posts out of order";
            next[e.pe] = (e.value & 0xffffffffu) + 1;
        } else if (e.kind == 'a') {
            ++fetches;
            EXPECT_EQ(next[e.pe], uint64_t{posts_per_thread}) << "thread " << e.pe << "'s fetch overtook its posts";
        } else if (e.kind == 'q') {
            ++quiets;
        }
    }
    EXPECT_EQ(adds, blocks * threads * posts_per_thread);
    EXPECT_EQ(fetches, blocks * threads);
    EXPECT_EQ(quiets, blocks);
    proxy.reset();
    cudaFreeHost(memory);
}

}  // namespace
