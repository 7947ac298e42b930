// The proxy's request ring and transport (runtime/src/proxy.h) against a transport that records
// what reaches it: order per producer, answers to the right producer, completion at quiet, a full
// ring, collectives after what was posted before them. No PEs: the proxy thread is the only caller
// of the recorder's RMA side, and every wait has a deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "ishmem/impl/proxy_ring.h"
#include "proxy.h"
#include "proxy_recorder.h"

namespace {

using ishmemi::transport;
using proxy_testing::event;
using proxy_testing::recorder;
using namespace std::chrono_literals;

// Every test runs under a watchdog: a test still running after 60 s (a poster or the proxy stuck)
// ends the binary with a message naming it instead of hanging until ctest's limit.
class Proxy : public ::testing::Test {
  protected:
    void SetUp() override {
        watchdog_ = std::thread([this] {
            std::unique_lock<std::mutex> lock(m_);
            if (!cv_.wait_for(lock, 60s, [this] { return done_; })) {
                const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
                std::fprintf(stderr, "proxy_test: %s.%s hung for 60 s (a poster or the proxy never finished)\n",
                             info->test_suite_name(), info->name());
                std::_Exit(1);
            }
        });
    }
    void TearDown() override {
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        watchdog_.join();
    }

  private:
    std::thread watchdog_;
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
};

// A proxy over a recorder; the recorder stays reachable for the checks.
struct rig {
    recorder* rec;
    std::unique_ptr<transport> proxy;
    explicit rig(uint64_t slots) {
        auto r = std::make_unique<recorder>();
        rec = r.get();
        proxy = ishmemi::make_proxy_transport(std::move(r), slots);
        proxy->start_progress_thread();
    }
};

// Runs f on `threads` threads and fails the test if they are not all done within the deadline.
template <class F> void run_threads(int threads, F f, std::chrono::seconds deadline = 60s) {
    std::vector<std::future<void>> done;
    for (int t = 0; t < threads; ++t) done.push_back(std::async(std::launch::async, f, t));
    for (auto& d : done) ASSERT_EQ(d.wait_for(deadline), std::future_status::ready) << "a producer hung in the proxy";
}

TEST_F(Proxy, EachProducersRequestsReachTheTransportInItsOrder) {
    rig r(16);
    constexpr int threads = 4, per_thread = 5000;
    run_threads(threads, [&](int t) {
        for (uint64_t i = 0; i < per_thread; ++i) r.proxy->amo_post(ishmemi::op_add, nullptr, 8, i, t);
        r.proxy->quiet();
    });
    auto ev = r.rec->snapshot();
    std::vector<uint64_t> next(threads, 0);
    size_t posted = 0;
    for (const event& e : ev) {
        if (e.kind != 'o') continue;
        ASSERT_GE(e.pe, 0);
        ASSERT_LT(e.pe, threads);
        EXPECT_EQ(e.value, next[e.pe]) << "producer " << e.pe << "'s requests out of order";
        next[e.pe] = e.value + 1;
        ++posted;
    }
    EXPECT_EQ(posted, size_t{threads} * per_thread);
}

TEST_F(Proxy, FetchingAtomicsAnswerTheirOwnProducer) {
    rig r(8);
    std::atomic<int> wrong{0};
    run_threads(6, [&](int t) {
        for (uint64_t i = 0; i < 3000; ++i) {
            const uint64_t v = (uint64_t(t) << 32) | i;
            const uint64_t got = r.proxy->amo(ishmemi::op_cswap, nullptr, 4, v, 7, t);
            if (got != proxy_testing::amo_answer(ishmemi::op_cswap, 4, v, 7, t)) wrong.fetch_add(1);
        }
    });
    EXPECT_EQ(wrong.load(), 0);
}

TEST_F(Proxy, QuietReturnsAfterEverythingPostedBefore) {
    rig r(4);
    r.rec->put_delay_us = 200;  // the ring fills: posters wait for cells
    std::vector<long> sources(64);
    for (int i = 0; i < 64; ++i) {
        sources[i] = i;
        r.proxy->put(nullptr, &sources[i], sizeof(long), 1, true);
    }
    r.proxy->fence();
    r.proxy->amo_post(ishmemi::op_store, nullptr, 8, 99, 1);
    r.proxy->quiet();
    auto ev = r.rec->snapshot();
    ASSERT_EQ(ev.size(), 64u + 3u);
    for (int i = 0; i < 64; ++i) {
        ASSERT_EQ(ev[i].kind, 'p');
        long v;
        std::memcpy(&v, ev[i].data.data(), sizeof v);
        EXPECT_EQ(v, i);
    }
    EXPECT_EQ(ev[64].kind, 'F');
    EXPECT_EQ(ev[65].kind, 'o');
    EXPECT_EQ(ev[66].kind, 'q');
}

TEST_F(Proxy, ABlockingPutHasReadItsSourceWhenItReturns) {
    rig r(4);
    r.rec->put_delay_us = 100;
    std::vector<int> source(1000);
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < 1000; ++i) source[i] = round * 1000 + i;
        r.proxy->put(nullptr, source.data(), source.size() * sizeof(int), 0, false);
        std::fill(source.begin(), source.end(), -1);  // reused at once, as a blocking put allows
    }
    r.proxy->quiet();
    auto ev = r.rec->snapshot();
    ASSERT_EQ(ev.size(), 21u);
    for (int round = 0; round < 20; ++round) {
        ASSERT_EQ(ev[round].data.size(), 1000 * sizeof(int));
        int first, last;
        std::memcpy(&first, ev[round].data.data(), sizeof(int));
        std::memcpy(&last, ev[round].data.data() + 999 * sizeof(int), sizeof(int));
        EXPECT_EQ(first, round * 1000);
        EXPECT_EQ(last, round * 1000 + 999);
    }
}

TEST_F(Proxy, GetsAndStridedTransfersAreDoneOnReturn) {
    rig r(4);
    std::vector<unsigned char> dest(333, 0);
    r.proxy->get(dest.data(), nullptr, dest.size(), 2, true);
    for (unsigned char c : dest) ASSERT_EQ(c, 0x5a);
    r.proxy->put_strided(nullptr, 3, nullptr, 1, 4, 10, 1);
    r.proxy->get_strided(nullptr, 1, nullptr, 2, 8, 7, 1);
    auto ev = r.rec->snapshot();
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(ev[1].value, 10u * 1000 + 3);
    EXPECT_EQ(ev[2].value, 7u);
}

TEST_F(Proxy, APutWithSignalTheTransportCannotCarryIsPutFlushedAndSignalled) {
    rig r(4);
    r.rec->carry_signal = false;
    uint64_t sig = 0;
    int data[3] = {1, 2, 3};
    ASSERT_TRUE(r.proxy->put_signal(nullptr, data, sizeof data, &sig, 5, true, 3));
    auto ev = r.rec->snapshot();
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(ev[0].kind, 'p');
    EXPECT_EQ(ev[1].kind, 'f');
    EXPECT_EQ(ev[2].kind, 'o');
    EXPECT_EQ(ev[2].value, 5u);
    EXPECT_EQ(ev[2].pe, 3);
}

TEST_F(Proxy, CollectivesAndBarriersComeAfterWhatWasPostedBefore) {
    rig r(8);
    r.rec->put_delay_us = 300;
    long v = 1;
    for (int i = 0; i < 10; ++i) r.proxy->put(nullptr, &v, sizeof v, 1, true);
    EXPECT_EQ(r.proxy->collective(ishmemi::coll_broadcast, 0, nullptr, nullptr, 64, 0), 64u);
    r.proxy->amo_post(ishmemi::op_add, nullptr, 8, 1, 1);
    r.proxy->barrier(0, true);
    auto ev = r.rec->snapshot();
    ASSERT_EQ(ev.size(), 10u + 4u);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(ev[i].kind, 'p');
    EXPECT_EQ(ev[10].kind, 'c');
    EXPECT_EQ(ev[11].kind, 'o');
    EXPECT_EQ(ev[12].kind, 'q');  // the barrier's completion: the ring's quiet first
    EXPECT_EQ(ev[13].kind, 'b');
}

TEST_F(Proxy, DestroyingTheTransportCompletesWhatWasPosted) {
    std::atomic<int> seen{0};
    auto owned = std::make_unique<recorder>();
    owned->put_delay_us = 100;
    owned->posts_seen = &seen;
    auto proxy = ishmemi::make_proxy_transport(std::move(owned), 4);
    proxy->start_progress_thread();
    long v = 0;
    proxy->put(nullptr, &v, sizeof v, 0, true);  // slow: the posts behind it are still in the ring
    for (uint64_t i = 0; i < 50; ++i) proxy->amo_post(ishmemi::op_add, nullptr, 8, i, 0);
    proxy.reset();
    EXPECT_EQ(seen.load(), 50);
}

TEST_F(Proxy, BeforeItsThreadStartsTheCallerPerformsRequestsItself) {
    auto owned = std::make_unique<recorder>();
    recorder* rec = owned.get();
    auto proxy = ishmemi::make_proxy_transport(std::move(owned), 4);
    EXPECT_EQ(proxy->amo(ishmemi::op_add, nullptr, 8, 2, 0, 1), proxy_testing::amo_answer(ishmemi::op_add, 8, 2, 0, 1));
    proxy->quiet();
    auto ev = rec->snapshot();
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].kind, 'a');
    EXPECT_EQ(ev[1].kind, 'q');
}

}  // namespace

// How a GPU thread puts a register (p) and gets into one (g): the data travels in the request, in
// a ring whose memory the poster owns, as a kernel's ring in mapped pinned memory is.
TEST_F(Proxy, InlineDataTravelsInTheRequestAndGetsComeBackAsTheAnswer) {
    namespace proxy = ishmemi::proxy;
    constexpr uint64_t slots = 8;
    void* memory = std::aligned_alloc(64, proxy::ring_bytes(slots));
    ASSERT_NE(memory, nullptr);
    auto owned = std::make_unique<recorder>();
    recorder* rec = owned.get();
    auto t = ishmemi::make_proxy_transport(std::move(owned), slots, memory);
    t->start_progress_thread();
    auto* ring = static_cast<proxy::ring_header*>(memory);
    const auto call = [&](const proxy::request& q) {
        const uint64_t ticket = proxy::post<proxy::host_mem>(ring, q, proxy_testing::spin{});
        return proxy::waited(q) ? proxy::wait_answer<proxy::host_mem>(ring, ticket, proxy_testing::spin{}) : 0;
    };
    proxy::request put{};
    put.op = proxy::req_put, put.flags = proxy::flag_inline | proxy::flag_nbi, put.pe = 3;
    put.bytes = 2, put.value = 0x1234beef, put.dest = 0x1000;
    EXPECT_FALSE(proxy::waited(put));
    call(put);
    proxy::request get{};
    get.op = proxy::req_get, get.flags = proxy::flag_inline, get.pe = 2, get.bytes = 4;
    EXPECT_EQ(call(get), 0x5a5a5a5au) << "a 4-byte inline get answers its 4 bytes and zeros above";
    t->quiet();
    auto ev = rec->snapshot();
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(ev[0].kind, 'p');
    EXPECT_EQ(ev[0].pe, 3);
    EXPECT_EQ(ev[0].value, 0x1000u);
    ASSERT_EQ(ev[0].data.size(), 2u) << "only the request's bytes of the inline word are put";
    EXPECT_EQ(ev[0].data[0], 0xef);
    EXPECT_EQ(ev[0].data[1], 0xbe);
    EXPECT_EQ(ev[1].kind, 'g');
    EXPECT_EQ(ev[1].value, 4u);
    t.reset();
    std::free(memory);
}
