// Stream collectives in a row, each reading what the call before it wrote, with no host sync between
// them. With early launches (ISHMEM_GPU_EARLY_LAUNCH, Hopper and later) the library's next kernel is
// launched while the one before still runs, and must wait on the GPU until that one has ended and
// its writes are visible. Three array sizes, whose calls take the ring, the stage and the direct form
// (a cooperative grid), are interleaved call by call, so each kind of library kernel follows each
// other kind; a user kernel between two library calls covers a kernel before ours that does not
// let ours launch early, and a stream barrier sits in the chain of the smallest size.
#include <memory>
#include <string>
#include <vector>

#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;

class GpuCollChain : public GpuTest {};

// Ints per PE. On up to 4 PEs: 1000 goes through the ring (a reduction receives at most 16 KiB),
// 12000 through the stage (at most 192 KiB received), 100000 in the direct form (400 KiB and more).
constexpr size_t counts[] = {1000, 12000, 100000};
constexpr int sizes = 3;

int start_value(int pe, size_t i) { return pe + 1 + static_cast<int>(i % 7); }

__global__ void add_one(int* p, size_t count) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
        p[i] += 1;
}

// Per size, on one stream: b = sum(a); a = broadcast(b); b = sum(a); a = fcollect(first n-th of b);
// a += 1 (a user kernel); b[0, n*m) = sum(a). So b ends as n * (n * S(i % m) + 1) below n*m and
// n * S(i) above, where S(i) = n(n+1)/2 + n * (i % 7) is the first sum and m = count / n.
TEST_F(GpuCollChain, StreamCallsReadWhatTheCallBeforeWrote) {
    std::vector<std::unique_ptr<gpu_sym<int>>> a, b;  // freed (collectively) in the same order on every PE
    for (size_t c : counts) {
        a.push_back(std::make_unique<gpu_sym<int>>(c));
        b.push_back(std::make_unique<gpu_sym<int>>(c));
        ASSERT_TRUE(*a.back() && *b.back());
        std::vector<int> init(c);
        for (size_t i = 0; i < c; ++i) init[i] = start_value(me, i);
        a.back()->write(init);
    }
    ishmem_barrier_all();
    stream st;
    ishmem::queue q(st.get());
    std::vector<int> rets(sizes * 6, -1);
    auto ret = [&](int s, int step) { return &rets[s * 6 + step]; };
    const ishmem_team_t w = ISHMEM_TEAM_WORLD;
    auto m_of = [&](int s) { return counts[s] / static_cast<size_t>(n); };
    for (int step = 0; step < 6; ++step) {
        for (int s = 0; s < sizes; ++s) {
            int *as = a[s]->get(), *bs = b[s]->get();
            const size_t c = counts[s], m = m_of(s);
            switch (step) {
                case 0:
                    ishmemx_int_sum_reduce_on_queue(w, bs, as, c, ret(s, step), q);
                    break;
                case 1:
                    ishmemx_int_broadcast_on_queue(w, as, bs, c, n - 1, ret(s, step), q);
                    break;
                case 2:
                    ishmemx_int_sum_reduce_on_queue(w, bs, as, c, ret(s, step), q);
                    if (s == 0) ishmemx_barrier_all_on_queue(q);
                    break;
                case 3:
                    ishmemx_int_fcollect_on_queue(w, as, bs, m, ret(s, step), q);
                    break;
                case 4:
                    add_one<<<64, 256, 0, st>>>(as, n * m);
                    GPU_LAUNCHED("add_one");
                    *ret(s, step) = 0;
                    break;
                default:
                    ishmemx_int_sum_reduce_on_queue(w, bs, as, n * m, ret(s, step), q);
                    break;
            }
        }
    }
    sync(st, "the chain of stream collectives");
    ishmem_barrier_all();
    for (int i = 0; i < sizes * 6; ++i) EXPECT_EQ(rets[i], 0) << "ret of size " << i / 6 << ", step " << i % 6;
    for (int s = 0; s < sizes; ++s) {
        const size_t m = m_of(s);
        auto S = [&](size_t i) { return n * (n + 1) / 2 + n * static_cast<int>(i % 7); };
        expect_elements(
            b[s]->read(), [&](size_t i) { return i < n * m ? n * (n * S(i % m) + 1) : n * S(i); },
            "b after the chain, " + std::to_string(counts[s]) + " ints");
        expect_elements(
            a[s]->read(), [&](size_t i) { return i < n * m ? n * S(i % m) + 1 : S(i); },
            "a after the chain, " + std::to_string(counts[s]) + " ints");
    }
    ishmem_barrier_all();
}

}  // namespace
