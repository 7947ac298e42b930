// _on_queue on CUDA streams (ishmem::queue wrapping a cudaStream_t): operations run in stream order
// after earlier kernels on their stream, after `deps` from another stream, and later kernels on the
// stream see their results. Every source is written by a kernel that first sleeps, so an operation
// that ran too early would copy zeros.
#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;

class GpuQueue : public GpuTest {};

constexpr size_t qn = 4096;
constexpr unsigned long long delay_ns = 20ull * 1000 * 1000;  // 20 ms

// Sleeps, then fills dst[i] = pattern(pe, s, i).
__global__ void delayed_fill(int* dst, size_t n, int pe, int s, unsigned long long ns) {
    if (threadIdx.x == 0 && blockIdx.x == 0) sleep_ns(ns);
    __syncthreads();
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += gridDim.x * static_cast<size_t>(blockDim.x))
        dst[i] = pattern(pe, s, static_cast<long long>(i));
}

// Checks got[i] == pattern(pe, s, i) on the device (in stream order after the operation).
__global__ void check_fill(const int* got, size_t n, int pe, int s, report_data* rep) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += gridDim.x * static_cast<size_t>(blockDim.x))
        DEV_EXPECT_EQ(rep, got[i], pattern(pe, s, static_cast<long long>(i)), i);
}

// put_signal_on_queue after a slow kernel on its stream; signal_wait_until_on_queue on a second
// stream, with a check kernel after it on that stream; get_on_queue of what the right neighbour
// received, after a barrier_all_on_queue.
TEST_F(GpuQueue, PutSignalAndWaitInStreamOrder) {
    gpu_sym<int> dest(qn);
    gpu_sym<uint64_t> sig(1);
    ASSERT_TRUE(dest && sig);
    dev_array<int> src(qn), back(qn);
    managed<uint64_t> ret;
    ret[0] = 12345;
    dev_report rep;
    stream s1, s2;
    ishmem::queue q1(s1.get()), q2(s2.get());
    EXPECT_EQ(q1.stream(), s1.get()) << "ishmem::queue::stream() gives back the wrapped stream";
    ishmem_barrier_all();

    delayed_fill<<<8, 256, 0, s1>>>(src.get(), qn, me, 1, delay_ns);
    GPU_LAUNCHED("delayed_fill");
    ishmem::event put =
        ishmemx_int_put_signal_on_queue(dest.get(), src.get(), qn, sig.get(), 1, ISHMEM_SIGNAL_ADD, right, q1);
    ishmem::event wait = ishmemx_signal_wait_until_on_queue(sig.get(), ISHMEM_CMP_EQ, 1, ret.get(), q2);
    check_fill<<<8, 256, 0, s2>>>(dest.get(), qn, left, 1, rep);
    GPU_LAUNCHED("check_fill");
    sync(s1, "put_signal_on_queue");
    sync(s2, "signal_wait_until_on_queue + check");
    put.wait();
    wait.wait();
    EXPECT_EQ(ret[0], 1u) << "signal_wait_until_on_queue's ret";
    rep.expect_clean("data of PE " + std::to_string(left) + " seen by a kernel after the wait on the stream");

    // The right neighbour's copy of dest holds my data: read it back with get_on_queue, after a
    // barrier on the queue (every PE's put is complete there).
    ishmem::event b = ishmemx_barrier_all_on_queue(q1);
    ishmem::event g = ishmemx_int_get_on_queue(back.get(), dest.get(), qn, right, q1, {b});
    sync(s1, "barrier_all_on_queue + get_on_queue");
    g.wait();
    expect_elements(
        back.read(), [&](size_t i) { return pattern(me, 1, static_cast<long long>(i)); },
        "get_on_queue from the right");
    ishmem_barrier_all();
}

// deps across two streams: a put on q1 that depends on an event of q2 reads what q2 produced.
//   q2: slow kernel fills src2; put_on_queue copies src2 into my symmetric stage (self put) -> ea
//   q1: put_on_queue(dest, stage, right, deps {ea}) -> eb; quiet_on_queue(deps {eb}) -> ec
//   q2: barrier_all_on_queue(deps {ec}); a kernel on s2 checks dest (written by the left neighbour)
TEST_F(GpuQueue, DepsOrderOperationsAcrossStreams) {
    gpu_sym<int> stage(qn), dest(qn);
    ASSERT_TRUE(stage && dest);
    dev_array<int> src2(qn);
    dev_report rep;
    stream s1, s2;
    ishmem::queue q1(s1.get()), q2(s2.get());
    ishmem_barrier_all();

    delayed_fill<<<8, 256, 0, s2>>>(src2.get(), qn, me, 2, delay_ns);
    GPU_LAUNCHED("delayed_fill");
    ishmem::event ea = ishmemx_int_put_on_queue(stage.get(), src2.get(), qn, me, q2);
    ishmem::event eb = ishmemx_int_put_on_queue(dest.get(), stage.get(), qn, right, q1, {ea});
    ishmem::event ec = ishmemx_quiet_on_queue(q1, {eb});
    ishmem::event ed = ishmemx_barrier_all_on_queue(q2, {ec});
    check_fill<<<8, 256, 0, s2>>>(dest.get(), qn, left, 2, rep);
    GPU_LAUNCHED("check_fill");
    sync(s1, "q1: put after deps, quiet");
    sync(s2, "q2: fill, self put, barrier, check");
    ea.wait();
    eb.wait();
    ec.wait();
    ed.wait();
    rep.expect_clean("dest after barrier_all_on_queue (data of PE " + std::to_string(left) + ")");
    expect_elements(
        stage.read(), [&](size_t i) { return pattern(me, 2, static_cast<long long>(i)); },
        "stage (put after the slow kernel)");
    ishmem_barrier_all();
    expect_elements(
        dest.read(), [&](size_t i) { return pattern(left, 2, static_cast<long long>(i)); }, "dest (put after deps)");
}

// wait_until_on_queue holds back later work on its stream: a kernel queued after it sees the word
// that the left neighbour's kernel sets only after a delay, and a put queued after it runs later.
__global__ void set_late(int* word, int value, int pe, unsigned long long ns) {
    sleep_ns(ns);
    ishmem_int_p(word, value, pe);
}
__global__ void expect_word(const int* word, int want, report_data* rep) {
    DEV_EXPECT_EQ(rep, load_volatile(word), want, 0);
}

TEST_F(GpuQueue, WaitOnQueueHoldsBackLaterWorkOnTheStream) {
    gpu_sym<int> word(1), out(1);
    ASSERT_TRUE(word && out);
    dev_array<int> seven(std::vector<int>{7});
    dev_report rep;
    stream s1, s2;
    ishmem::queue q1(s1.get());
    ishmem_barrier_all();
    // s2: my kernel sets the right neighbour's word after a delay (the left one's sets mine).
    set_late<<<1, 1, 0, s2>>>(word.get(), 42, right, delay_ns);
    GPU_LAUNCHED("set_late");
    ishmem::event w = ishmemx_int_wait_until_on_queue(word.get(), ISHMEM_CMP_EQ, 42, q1);
    expect_word<<<1, 1, 0, s1>>>(word.get(), 42, rep);
    GPU_LAUNCHED("expect_word");
    ishmem::event p = ishmemx_int_put_on_queue(out.get(), seven.get(), 1, me, q1);
    sync(s2, "set_late");
    sync(s1, "wait_until_on_queue, check, put");
    w.wait();
    p.wait();
    rep.expect_clean("a kernel queued after wait_until_on_queue ran before the wait was satisfied");
    EXPECT_EQ(out.read_one(0), 7);
    ishmem_barrier_all();
}

// Contiguous RMA and quiet on a CUDA-stream queue run on the stream itself (copy engine, no host task)
// when the local buffer is device or pinned memory and every dep is a stream point; their events are
// CUDA events. A pageable local buffer, or a dep on an unfinished host task, takes the task path:
// same results, in the same order.
TEST_F(GpuQueue, ContiguousRmaRunsOnTheStreamItself) {
    gpu_sym<int> dest(qn), dest2(qn);
    ASSERT_TRUE(dest && dest2);
    dev_array<int> src(qn), back(qn);
    int* pinned = nullptr;
    GPU_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), qn * sizeof(int), cudaHostAllocDefault));
    std::vector<int> pageable(qn, 0);
    dev_report rep;
    stream s1, s2;
    ishmem::queue q1(s1.get());
    ishmem_barrier_all();

    // A slow kernel on another stream fills src; a user CUDA event marks it, and is the put's dep.
    cudaEvent_t filled;
    GPU_CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    delayed_fill<<<8, 256, 0, s2>>>(src.get(), qn, me, 3, delay_ns);
    GPU_LAUNCHED("delayed_fill");
    GPU_CHECK(cudaEventRecord(filled, s2));
    ishmem::event user(filled);
    EXPECT_EQ(user.cuda_event(), filled) << "an event over a user's CUDA event gives it back";
    // A stream copies only to a PE of this node; to one of another node the queue's task puts.
    const bool near = ishmem_ptr(dest.get(), right) != nullptr;
    ishmem::event put = ishmemx_int_put_on_queue(dest.get(), src.get(), qn, right, q1, {user});
    EXPECT_EQ(put.cuda_event() != nullptr, near) << "put_on_queue from device memory runs on the stream (this node) "
                                                    "or as a task (another node)";
    ishmem::event nbi = ishmemx_int_put_nbi_on_queue(dest2.get(), src.get(), qn, right, q1, {user});
    ishmem::event q = ishmemx_quiet_on_queue(q1, {put, nbi});
    if (near) EXPECT_NE(q.cuda_event(), nullptr) << "quiet_on_queue on a stream is a stream point";
    ishmem::event empty = ishmemx_int_put_on_queue(dest.get(), src.get(), 0, right, q1);
    sync(s1, "stream puts after a user event");
    sync(s2, "delayed_fill");
    put.wait();
    nbi.wait();
    q.wait();
    empty.wait();
    EXPECT_TRUE(put.is_complete() && q.is_complete() && empty.is_complete());
    cudaEventDestroy(filled);
    ishmem_barrier_all();
    auto from_left = [&](size_t i) { return pattern(left, 3, static_cast<long long>(i)); };
    expect_elements(dest.read(), from_left, "put_on_queue after a user CUDA event dep (data of the left PE)");
    expect_elements(dest2.read(), from_left, "put_nbi_on_queue after a user CUDA event dep (data of the left PE)");

    // get_on_queue into device memory and into pinned host memory: stream path; into pageable
    // memory: task path. All read what the right neighbour received from me.
    ishmem::event g1 = ishmemx_int_get_on_queue(back.get(), dest.get(), qn, right, q1);
    ishmem::event g2 = ishmemx_int_get_nbi_on_queue(pinned, dest.get(), qn, right, q1);
    ishmem::event g3 = ishmemx_int_get_on_queue(pageable.data(), dest.get(), qn, right, q1);
    EXPECT_EQ(g1.cuda_event() != nullptr, near) << "get_on_queue into device memory: on the stream on this node";
    EXPECT_EQ(g2.cuda_event() != nullptr, near) << "get_nbi_on_queue into pinned memory: on the stream on this node";
    EXPECT_EQ(g3.cuda_event(), nullptr) << "get_on_queue into pageable memory must not run on the stream";
    sync(s1, "gets on the stream");
    g1.wait();
    g2.wait();
    g3.wait();
    auto mine = [&](size_t i) { return pattern(me, 3, static_cast<long long>(i)); };
    expect_elements(back.read(), mine, "get_on_queue into device memory");
    expect_elements(std::vector<int>(pinned, pinned + qn), mine, "get_nbi_on_queue into pinned memory");
    expect_elements(pageable, mine, "get_on_queue into pageable memory");

    // A put whose dep is a host task that cannot have finished (a wait for a word the left PE sets
    // late): it runs after that task, on the task path. The put then copies from pageable memory.
    gpu_sym<int> word(1), out(1);
    ASSERT_TRUE(word && out);
    std::vector<int> nine{9};
    ishmem_barrier_all();
    set_late<<<1, 1, 0, s2>>>(word.get(), 5, right, delay_ns);
    GPU_LAUNCHED("set_late");
    ishmem::event w = ishmemx_int_wait_until_on_queue(word.get(), ISHMEM_CMP_EQ, 5, q1);
    ishmem::event p = ishmemx_int_put_on_queue(out.get(), nine.data(), 1, me, q1, {w});
    expect_word<<<1, 1, 0, s1>>>(word.get(), 5, rep);
    GPU_LAUNCHED("expect_word");
    sync(s2, "set_late");
    sync(s1, "wait, put after it");
    w.wait();
    p.wait();
    rep.expect_clean("work after wait_until_on_queue ran before the wait was satisfied");
    EXPECT_EQ(out.read_one(0), 9);
    cudaFreeHost(pinned);
    ishmem_barrier_all();
}

// A queue over the null stream is CUDA's legacy default stream: puts, quiet, collectives and barriers
// run on it (no host task), in order with kernels launched on stream 0.
TEST_F(GpuQueue, NullStreamQueueIsTheLegacyStream) {
    gpu_sym<int> dest(qn), sum(qn);
    ASSERT_TRUE(dest && sum);
    dev_array<int> src(qn);
    managed<int> ret(2);
    ret[0] = ret[1] = -1;
    ishmem::queue q(nullptr);
    EXPECT_EQ(q.stream(), nullptr);
    ishmem_barrier_all();

    delayed_fill<<<8, 256>>>(src.get(), qn, me, 5, delay_ns);  // legacy stream: the put must wait for it
    GPU_LAUNCHED("delayed_fill on stream 0");
    // (To a PE of another node the put is a task of the queue, and so is what depends on it.)
    const bool near = ishmem_ptr(dest.get(), right) != nullptr;
    ishmem::event put = ishmemx_int_put_on_queue(dest.get(), src.get(), qn, right, q);
    EXPECT_EQ(put.cuda_event() != nullptr, near) << "put_on_queue on the legacy stream: on the stream on this node";
    ishmem::event quiet = ishmemx_quiet_on_queue(q, {put});
    ishmem::event bar = ishmemx_barrier_all_on_queue(q, {quiet});
    ishmem::event red = ishmemx_int_sum_reduce_on_queue(sum.get(), dest.get(), qn, &ret[0], q, {bar});
    if (near)
        EXPECT_NE(red.cuda_event(), nullptr) << "sum_reduce_on_queue on the legacy stream should run on the stream";
    q.wait();
    EXPECT_EQ(ret[0], 0) << "sum_reduce_on_queue's status";
    GPU_CHECK(cudaStreamSynchronize(nullptr));
    auto from_left = [&](size_t i) { return pattern(left, 5, static_cast<long long>(i)); };
    expect_elements(dest.read(), from_left, "put_on_queue on the legacy stream after a kernel on stream 0");
    expect_elements(
        sum.read(),
        [&](size_t i) {
            int t = 0;
            for (int pe = 0; pe < n; ++pe) t += pattern(pe, 5, static_cast<long long>(i));
            return t;
        },
        "sum_reduce_on_queue on the legacy stream of what every PE received");
    ishmem_barrier_all();
}

}  // namespace
