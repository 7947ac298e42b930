// Device-side RMA and signals: put_signal around the ring of PEs from blocks and warp tiles, per-thread
// putmem_signal into one signal word, signal_add/set/fetch, _nbi puts/gets/fetching AMOs completed by
// quiet, strided and blocked-strided puts and gets, and buffers in a thread's stack and in shared
// memory. Every check is exact; on 1 PE each PE is its own right and left neighbour.
#include "gpu_testing.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace {

using namespace ishmem_gpu_testing;

// ---------------------------------------------------------------------------------------------
// put_signal around the ring, several rounds. Channel c (a block or a tile) of PE me puts round r
// of its data into slot (c, r) of the right neighbour and adds 1 to the neighbour's signal c, then
// waits until its own signal c reaches r + 1 and checks slot (c, r), written by its left neighbour.
// The source buffer is rewritten every round (it may be reused once the put has returned). A PE may
// run ahead of its right neighbour, so a signal may exceed r + 1, never `rounds`.

__device__ int ring_value(int pe, int channel, int round, int rounds, size_t i) {
    return pattern(pe, channel * rounds + round, static_cast<long long>(i));
}

__global__ void ring_block(int* dest, int* src, uint64_t* sig, size_t nelems, int rounds, report_data* rep) {
    cg::thread_block block = cg::this_thread_block();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const int c = blockIdx.x;
    int* my_src = src + c * nelems;
    __shared__ uint64_t seen;
    for (int r = 0; r < rounds; ++r) {
        const size_t slot = (static_cast<size_t>(c) * rounds + r) * nelems;
        for (size_t i = block.thread_rank(); i < nelems; i += block.size()) my_src[i] = ring_value(me, c, r, rounds, i);
        block.sync();
        ishmemx_int_put_signal_work_group(dest + slot, my_src, nelems, sig + c, 1, ISHMEM_SIGNAL_ADD, right, block);
        if (block.thread_rank() == 0) {
            seen = ishmem_signal_wait_until(sig + c, ISHMEM_CMP_GE, static_cast<uint64_t>(r + 1));
            DEV_EXPECT_TRUE(rep, seen >= static_cast<uint64_t>(r + 1) && seen <= static_cast<uint64_t>(rounds), r);
        }
        block.sync();
        for (size_t i = block.thread_rank(); i < nelems; i += block.size())
            DEV_EXPECT_EQ(rep, dest[slot + i], ring_value(left, c, r, rounds, i), slot + i);
        block.sync();  // my_src and `seen` are rewritten next round
    }
}

template <unsigned Tile>
__global__ void ring_tile(int* dest, int* src, uint64_t* sig, size_t nelems, int rounds, report_data* rep) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const int c = blockIdx.x * (blockDim.x / Tile) + tile.meta_group_rank();
    int* my_src = src + c * nelems;
    for (int r = 0; r < rounds; ++r) {
        const size_t slot = (static_cast<size_t>(c) * rounds + r) * nelems;
        for (size_t i = tile.thread_rank(); i < nelems; i += tile.size()) my_src[i] = ring_value(me, c, r, rounds, i);
        tile.sync();
        ishmemx_int_put_signal_work_group(dest + slot, my_src, nelems, sig + c, 1, ISHMEM_SIGNAL_ADD, right, tile);
        const uint64_t seen =
            ishmemx_signal_wait_until_work_group(sig + c, ISHMEM_CMP_GE, static_cast<uint64_t>(r + 1), tile);
        // A _work_group routine returns the same value in every thread of the group.
        DEV_EXPECT_EQ(rep, seen, tile.shfl(seen, 0), 1000000 + c);
        DEV_EXPECT_TRUE(rep, seen >= static_cast<uint64_t>(r + 1) && seen <= static_cast<uint64_t>(rounds), r);
        for (size_t i = tile.thread_rank(); i < nelems; i += tile.size())
            DEV_EXPECT_EQ(rep, dest[slot + i], ring_value(left, c, r, rounds, i), slot + i);
        tile.sync();
    }
}

struct ring_case {
    const char* what;
    int blocks, threads;  // launch shape
    int channels;         // blocks, or tiles in all
    size_t nelems;
    int rounds;
};

class GpuRing : public GpuTest {
  protected:
    template <class Launch> void run_ring(const ring_case& rc, Launch&& launch) {
        SCOPED_TRACE(rc.what);
        gpu_sym<int> dest(static_cast<size_t>(rc.channels) * rc.rounds * rc.nelems);
        gpu_sym<uint64_t> sig(rc.channels);
        ASSERT_TRUE(dest && sig);
        dev_array<int> src(static_cast<size_t>(rc.channels) * rc.nelems);
        dev_report rep;
        stream s;
        ishmem_barrier_all();  // every PE's dest and signals exist (and are zero) before a put arrives
        launch(s, dest.get(), src.get(), sig.get(), rep.get());
        GPU_LAUNCHED(rc.what);
        sync(s, rc.what);
        rep.expect_clean(std::string(rc.what) + ": device checks");
        ishmem_barrier_all();  // the left PE's last puts are complete
        const int rounds = rc.rounds;
        const size_t ne = rc.nelems;
        expect_elements(
            dest.read(),
            [&](size_t k) {
                if (ne == 0) return 0;  // the one placeholder element
                const int c = static_cast<int>(k / (rounds * ne)), r = static_cast<int>(k / ne % rounds);
                return pattern(left, c * rounds + r, static_cast<long long>(k % ne));
            },
            std::string(rc.what) + ": data from PE " + std::to_string(left));
        expect_elements(
            sig.read(), [&](size_t) { return static_cast<uint64_t>(rounds); }, std::string(rc.what) + ": signals");
    }
};

TEST_F(GpuRing, PutSignalWorkGroupBlock) {
    const ring_case cases[] = {
        {"4 blocks x 256, 3000 ints, 8 rounds", 4, 256, 4, 3000, 8},
        {"1 block x 1024, 1 MiB, 2 rounds", 1, 1024, 1, size_t{1} << 18, 2},
        {"8 blocks x 64, 1 int, 16 rounds", 8, 64, 8, 1, 16},
        {"2 blocks x 128, 0 ints (signal only), 4 rounds", 2, 128, 2, 0, 4},
    };
    // A build whose kernel needs more registers than a block of 1024 threads may have (device code
    // built with -G) cannot launch that case: it is reported as skipped, never as passed.
    cudaFuncAttributes fa{};
    ASSERT_EQ(cudaFuncGetAttributes(&fa, ring_block), cudaSuccess);
    std::string too_wide;
    for (const ring_case& rc : cases) {
        if (rc.threads > fa.maxThreadsPerBlock) {
            too_wide += std::string(too_wide.empty() ? "" : "; ") + rc.what;
            continue;
        }
        run_ring(rc, [&](cudaStream_t s, int* dest, int* src, uint64_t* sig, report_data* rep) {
            ring_block<<<rc.blocks, rc.threads, 0, s>>>(dest, src, sig, rc.nelems, rc.rounds, rep);
        });
    }
    if (!too_wide.empty())
        GTEST_SKIP() << "not run: " << too_wide << " (this build's ring_block takes at most " << fa.maxThreadsPerBlock
                     << " threads a block, " << fa.numRegs << " registers a thread)";
}

TEST_F(GpuRing, PutSignalWorkGroupWarpTile) {
    const ring_case warp{"warp tiles: 2 blocks x 128 (8 tiles), 1000 ints, 8 rounds", 2, 128, 8, 1000, 8};
    run_ring(warp, [&](cudaStream_t s, int* dest, int* src, uint64_t* sig, report_data* rep) {
        ring_tile<32><<<warp.blocks, warp.threads, 0, s>>>(dest, src, sig, warp.nelems, warp.rounds, rep);
    });
    const ring_case half{"16-thread tiles: 1 block x 64 (4 tiles), 77 ints, 6 rounds", 1, 64, 4, 77, 6};
    run_ring(half, [&](cudaStream_t s, int* dest, int* src, uint64_t* sig, report_data* rep) {
        ring_tile<16><<<half.blocks, half.threads, 0, s>>>(dest, src, sig, half.nelems, half.rounds, rep);
    });
}

// ---------------------------------------------------------------------------------------------
// Every thread of every block puts its own 16 bytes with putmem_signal (ADD 1) into the right
// neighbour; one thread there waits for the count and checks all slots. Then signal_set, signal_add
// and signal_fetch on the device, and uint64_put_signal with ISHMEM_SIGNAL_SET.

__global__ void many_putmem_signal(uint64_t* dest, uint64_t* sig, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t total = gridDim.x * static_cast<size_t>(blockDim.x);
    const uint64_t mine[2] = {static_cast<uint64_t>(me) << 32 | t, ~(static_cast<uint64_t>(me) << 32 | t)};
    ishmem_putmem_signal(dest + 2 * t, mine, sizeof mine, sig, 1, ISHMEM_SIGNAL_ADD, right);
    if (t == 0) {
        const uint64_t got = ishmem_signal_wait_until(sig, ISHMEM_CMP_EQ, total);
        DEV_EXPECT_EQ(rep, got, total, -1);
        for (size_t k = 0; k < total; ++k) {
            DEV_EXPECT_EQ(rep, dest[2 * k], static_cast<uint64_t>(left) << 32 | k, 2 * k);
            DEV_EXPECT_EQ(rep, dest[2 * k + 1], ~(static_cast<uint64_t>(left) << 32 | k), 2 * k + 1);
        }
        DEV_EXPECT_EQ(rep, ishmem_signal_fetch(sig), total, -2);
    }
}

__global__ void signal_ops(uint64_t* sig2, uint64_t* dest, const uint64_t* src, uint64_t* out, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    // sig2[0]: set by me on the right neighbour; sig2[1]: add, then a put_signal with SET.
    ishmemx_signal_set(sig2, 1000 + me, right);
    ishmemx_signal_add(sig2 + 1, 5, right);
    ishmemx_signal_add(sig2 + 1, 7, right);
    ishmem_quiet();
    ishmem_uint64_put_signal(dest, src, 4, sig2 + 2, 0xABCDEF0123ull + me, ISHMEM_SIGNAL_SET, right);
    // Wait for the left neighbour's set: then its earlier adds have arrived too (quiet before it).
    out[0] = ishmem_signal_wait_until(sig2 + 2, ISHMEM_CMP_NE, 0);
    out[1] = ishmem_signal_fetch(sig2);
    out[2] = ishmem_signal_fetch(sig2 + 1);
    (void)rep;
}

TEST_F(GpuRing, PerThreadPutmemSignalIntoOneWord) {
    // Over nodes each 16-byte source on a thread's stack is two requests, a fence and a signal.
    const int blocks = sized_for_layout(66, 2), threads = 128;
    const size_t total = size_t(blocks) * threads;
    gpu_sym<uint64_t> dest(2 * total);
    gpu_sym<uint64_t> sig(1);
    ASSERT_TRUE(dest && sig);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    many_putmem_signal<<<blocks, threads, 0, s>>>(dest.get(), sig.get(), rep);
    GPU_LAUNCHED("many_putmem_signal");
    sync(s, "many_putmem_signal");
    rep.expect_clean("putmem_signal from every thread");
    ishmem_barrier_all();
    EXPECT_EQ(sig.read_one(0), total);
}

TEST_F(GpuRing, SignalSetAddFetchAndPutSignalSet) {
    gpu_sym<uint64_t> sig2(3);
    gpu_sym<uint64_t> dest(4);
    ASSERT_TRUE(sig2 && dest);
    dev_array<uint64_t> src(std::vector<uint64_t>{11, 22, 33, static_cast<uint64_t>(44 + me)});
    dev_array<uint64_t> out(3);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    signal_ops<<<1, 1, 0, s>>>(sig2.get(), dest.get(), src.get(), out.get(), rep);
    GPU_LAUNCHED("signal_ops");
    sync(s, "signal_ops");
    rep.expect_clean("signal ops");
    const std::vector<uint64_t> o = out.read();
    EXPECT_EQ(o[0], 0xABCDEF0123ull + left) << "signal_wait_until returns the value that satisfied it";
    EXPECT_EQ(o[1], 1000u + left) << "signal_set from PE " << left;
    EXPECT_EQ(o[2], 12u) << "two signal_adds (5 and 7) from PE " << left;
    ishmem_barrier_all();
    EXPECT_EQ(dest.read(), (std::vector<uint64_t>{11, 22, 33, static_cast<uint64_t>(44 + left)}));
}

// ---------------------------------------------------------------------------------------------
// _nbi: every thread starts a put of its slice to the right neighbour, a get of the left
// neighbour's slice and a fetch_add_nbi (fetch into local memory) on the right neighbour's counter,
// then quiets: after quiet the gets and fetches have landed (checked on the device), and the puts
// are complete (checked on the host after a barrier).

__global__ void nbi_then_quiet(int* dest, const int* src, int* got, uint64_t* counter, uint64_t* fetched,
                               size_t per_thread, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t first = t * per_thread;
    ishmem_int_put_nbi(dest + first, src + first, per_thread, right);
    ishmem_int_get_nbi(got + first, src + first, per_thread, left);
    ishmem_uint64_atomic_fetch_add_nbi(fetched + t, counter, 1, right);
    ishmem_quiet();
    for (size_t j = 0; j < per_thread; ++j) DEV_EXPECT_EQ(rep, got[first + j], pattern(left, 0, first + j), first + j);
}

TEST_F(GpuRing, NbiPutsGetsAndFetchesCompleteAtQuiet) {
    // Over nodes every thread's put, get and fetch is a request of the proxy: 2 blocks.
    const int blocks = sized_for_layout(64, 2), threads = 256;
    const size_t per_thread = 16, total_threads = size_t(blocks) * threads, total = total_threads * per_thread;
    gpu_sym<int> src(total), dest(total);
    gpu_sym<uint64_t> counter(1);
    ASSERT_TRUE(src && dest && counter);
    std::vector<int> mine(total);
    for (size_t i = 0; i < total; ++i) mine[i] = pattern(me, 0, static_cast<long long>(i));
    src.write(mine);
    dev_array<int> got(total);
    dev_array<uint64_t> fetched(total_threads);
    dev_report rep;
    stream s;
    ishmem_barrier_all();  // every src is written before any get reads it
    nbi_then_quiet<<<blocks, threads, 0, s>>>(dest.get(), src.get(), got.get(), counter.get(), fetched.get(),
                                              per_thread, rep);
    GPU_LAUNCHED("nbi_then_quiet");
    sync(s, "nbi_then_quiet");
    rep.expect_clean("get_nbi data after quiet");
    ishmem_barrier_all();
    expect_elements(
        dest.read(), [&](size_t i) { return pattern(left, 0, static_cast<long long>(i)); }, "put_nbi data");
    EXPECT_EQ(counter.read_one(0), total_threads) << "fetch_add_nbi count from PE " << left;
    std::vector<uint64_t> f = fetched.read();
    std::sort(f.begin(), f.end());
    expect_elements(
        f, [](size_t i) { return static_cast<uint64_t>(i); }, "fetch_add_nbi values (sorted) are 0..T-1");
}

// ---------------------------------------------------------------------------------------------
// Strided forms: iput/ibput to the right neighbour and iget/ibget from the left, by one thread and
// by a block (_work_group); elements the strides skip stay zero.

constexpr size_t strided_n = 100, strided_src = 1000, strided_dst = 1200;

__global__ void strided(int* idest, int* bdest, int* widest, int* wbdest, const int* src, int* got, report_data* rep) {
    cg::thread_block block = cg::this_thread_block();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    if (block.thread_rank() == 0) {
        ishmem_int_iput(idest, src, 3, 2, strided_n, right);   // idest[3i] = src[2i]
        ishmemx_int_ibput(bdest, src, 10, 7, 4, 50, right);    // bdest[10b + j] = src[7b + j]
        ishmem_int_iget(got, src, 2, 3, strided_n, left);      // got[2i] = left src[3i]
        ishmemx_int_ibget(got + 300, src, 6, 9, 5, 40, left);  // got[300 + 6b + j] = left src[9b + j]
        for (size_t i = 0; i < strided_n; ++i) DEV_EXPECT_EQ(rep, got[2 * i], pattern(left, 0, 3 * i), 2 * i);
        for (size_t b = 0; b < 40; ++b)
            for (size_t j = 0; j < 5; ++j)
                DEV_EXPECT_EQ(rep, got[300 + 6 * b + j], pattern(left, 0, 9 * b + j), 300 + 6 * b + j);
    }
    block.sync();
    ishmemx_int_iput_work_group(widest, src, 3, 2, strided_n, right, block);
    ishmemx_int_ibput_work_group(wbdest, src, 10, 7, 4, 50, right, block);
    ishmem_quiet();
}

TEST_F(GpuRing, StridedAndBlockedPutsAndGets) {
    gpu_sym<int> src(strided_src), idest(strided_dst), bdest(strided_dst), widest(strided_dst), wbdest(strided_dst);
    ASSERT_TRUE(src && idest && bdest && widest && wbdest);
    std::vector<int> mine(strided_src);
    for (size_t i = 0; i < strided_src; ++i) mine[i] = pattern(me, 0, static_cast<long long>(i));
    src.write(mine);
    dev_array<int> got(600);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    strided<<<1, 256, 0, s>>>(idest.get(), bdest.get(), widest.get(), wbdest.get(), src.get(), got.get(), rep);
    GPU_LAUNCHED("strided");
    sync(s, "strided");
    rep.expect_clean("iget/ibget data");
    ishmem_barrier_all();
    const auto want_i = [&](size_t k) {
        return k % 3 == 0 && k / 3 < strided_n ? pattern(left, 0, static_cast<long long>(k / 3 * 2)) : 0;
    };
    const auto want_b = [&](size_t k) {
        const size_t b = k / 10, j = k % 10;
        return b < 50 && j < 4 ? pattern(left, 0, static_cast<long long>(7 * b + j)) : 0;
    };
    expect_elements(idest.read(), want_i, "iput");
    expect_elements(widest.read(), want_i, "iput_work_group");
    expect_elements(bdest.read(), want_b, "ibput");
    expect_elements(wbdest.read(), want_b, "ibput_work_group");
    const std::vector<int> g = got.read();
    EXPECT_EQ(g[1], 0) << "iget wrote between its strided elements";
    EXPECT_EQ(g[300 + 5], 0) << "ibget wrote between its blocks";
}

// ---------------------------------------------------------------------------------------------
// Data in a thread's stack and in shared memory: puts from them, gets into them, a strided put
// from a stack array, and a put-with-signal of 20 bytes (not a whole word) from the stack. On
// another node these addresses are not the proxy's to read, so the data travels in the requests.

constexpr size_t onchip_n = 5;  // ints: 20 bytes, two words and a half

__global__ void from_stack_and_shared(int* dest, int* sdest, int* idest, int* psdest, uint64_t* sig, const int* src,
                                      report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    __shared__ int shared_buf[onchip_n];
    int stack[onchip_n];
    for (size_t i = 0; i < onchip_n; ++i) {
        stack[i] = pattern(me, 1, static_cast<long long>(i));
        shared_buf[i] = pattern(me, 2, static_cast<long long>(i));
    }
    ishmem_int_put(dest, stack, onchip_n, right);
    ishmem_int_put_nbi(sdest, shared_buf, onchip_n, right);
    ishmem_int_iput(idest, stack, 2, 1, onchip_n, right);  // idest[2i] = stack[i]
    ishmem_int_put_signal(psdest, stack, onchip_n, sig, 7, ISHMEM_SIGNAL_SET, right);
    ishmem_quiet();
    DEV_EXPECT_EQ(rep, ishmem_signal_wait_until(sig, ISHMEM_CMP_EQ, 7), uint64_t{7}, -1);
    for (size_t i = 0; i < onchip_n; ++i)  // written by the left neighbour before its signal
        DEV_EXPECT_EQ(rep, psdest[i], pattern(left, 1, static_cast<long long>(i)), i);
    int got_stack[onchip_n] = {};
    ishmem_int_get(got_stack, src, onchip_n, left);
    ishmem_int_get(shared_buf, src + onchip_n, onchip_n, left);
    for (size_t i = 0; i < onchip_n; ++i) {
        DEV_EXPECT_EQ(rep, got_stack[i], pattern(left, 0, static_cast<long long>(i)), 100 + i);
        DEV_EXPECT_EQ(rep, shared_buf[i], pattern(left, 0, static_cast<long long>(onchip_n + i)), 200 + i);
    }
    int strided_got[2 * onchip_n] = {};
    ishmem_int_iget(strided_got, src, 2, 3, onchip_n, left);  // strided_got[2i] = left src[3i]
    for (size_t i = 0; i < onchip_n; ++i) {
        DEV_EXPECT_EQ(rep, strided_got[2 * i], pattern(left, 0, static_cast<long long>(3 * i)), 300 + i);
        DEV_EXPECT_EQ(rep, strided_got[2 * i + 1], 0, 400 + i);
    }
}

TEST_F(GpuRing, PutsFromAndGetsIntoStackAndSharedMemory) {
    gpu_sym<int> src(4 * onchip_n), dest(onchip_n), sdest(onchip_n), idest(2 * onchip_n), psdest(onchip_n);
    gpu_sym<uint64_t> sig(1);
    ASSERT_TRUE(src && dest && sdest && idest && psdest && sig);
    std::vector<int> mine(4 * onchip_n);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = pattern(me, 0, static_cast<long long>(i));
    src.write(mine);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    from_stack_and_shared<<<1, 1, 0, s>>>(dest.get(), sdest.get(), idest.get(), psdest.get(), sig.get(), src.get(),
                                          rep);
    GPU_LAUNCHED("from_stack_and_shared");
    sync(s, "from_stack_and_shared");
    rep.expect_clean("put-with-signal and gets with stack and shared buffers");
    ishmem_barrier_all();
    expect_elements(
        dest.read(), [&](size_t i) { return pattern(left, 1, static_cast<long long>(i)); }, "put from the stack");
    expect_elements(
        sdest.read(), [&](size_t i) { return pattern(left, 2, static_cast<long long>(i)); },
        "put_nbi from shared memory");
    expect_elements(
        idest.read(), [&](size_t k) { return k % 2 == 0 ? pattern(left, 1, static_cast<long long>(k / 2)) : 0; },
        "iput from the stack");
}

}  // namespace
