// A transport that records what reaches it, for the proxy's tests (tests/proxy_test.cpp on the
// host, tests/gpu/proxy_test.cu from GPU threads): the proxy thread is the only caller of its RMA
// side; answers are a function of the request, so a test can tell whose answer it got.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "ishmem/impl/transport.h"

namespace proxy_testing {

using ishmemi::transport;

// A poster's wait for tests that post into a ring themselves.
struct spin {
    void pause() { std::this_thread::yield(); }
};

// What recorder::amo answers.
inline uint64_t amo_answer(ishmemi::rmw_op op, unsigned size, uint64_t value, uint64_t cond, int pe) {
    return value * 3 + static_cast<uint64_t>(pe) + cond + size + static_cast<uint64_t>(op);
}

struct event {
    char kind;  // 'p' put, 'g' get, 'a' amo, 'o' amo_post, 's' put_signal, 'f' flush, 'F' fence, 'q' quiet, 'c'
                // collective
    int pe;
    uint64_t value;
    std::vector<unsigned char> data;
};

class recorder final : public transport {
  public:
    std::mutex m;
    std::vector<event> events;
    std::atomic<int> put_delay_us{0};
    bool carry_signal = true;
    std::atomic<int>* posts_seen = nullptr;  // counts amo_posts where the test can read it after the recorder is gone

    void add(event e) {
        std::lock_guard<std::mutex> g(m);
        events.push_back(std::move(e));
    }
    std::vector<event> snapshot() {
        std::lock_guard<std::mutex> g(m);
        return events;
    }
    void put(void* dest, const void* source, size_t bytes, int pe, bool) override {
        if (int d = put_delay_us.load()) std::this_thread::sleep_for(std::chrono::microseconds(d));
        const auto* s = static_cast<const unsigned char*>(source);
        add({'p', pe, reinterpret_cast<uintptr_t>(dest), std::vector<unsigned char>(s, s + bytes)});
    }
    void get(void* dest, const void*, size_t bytes, int pe, bool) override {
        std::memset(dest, 0x5a, bytes);
        add({'g', pe, bytes, {}});
    }
    void put_strided(void*, ptrdiff_t dstride, const void*, ptrdiff_t, size_t, size_t count, int pe) override {
        add({'p', pe, count * 1000 + static_cast<uint64_t>(dstride), {}});
    }
    void get_strided(void*, ptrdiff_t, const void*, ptrdiff_t, size_t, size_t count, int pe) override {
        add({'g', pe, count, {}});
    }
    uint64_t amo(ishmemi::rmw_op op, void*, unsigned size, uint64_t value, uint64_t cond, int pe) override {
        add({'a', pe, value, {}});
        return amo_answer(op, size, value, cond, pe);
    }
    void amo_post(ishmemi::rmw_op, void*, unsigned, uint64_t value, int pe) override {
        if (posts_seen) posts_seen->fetch_add(1);
        add({'o', pe, value, {}});
    }
    bool put_signal(void*, const void* source, size_t bytes, uint64_t*, uint64_t signal, bool, int pe) override {
        if (!carry_signal) return false;
        const auto* s = static_cast<const unsigned char*>(source);
        add({'s', pe, signal, std::vector<unsigned char>(s, s + bytes)});
        return true;
    }
    void flush(int pe) override { add({'f', pe, 0, {}}); }
    void fence() override { add({'F', -1, 0, {}}); }
    void quiet() override { add({'q', -1, 0, {}}); }
    void progress() override {}
    void start_progress_thread() override {}
    void hold_progress_thread(bool) override {}
    void team_split(int, int, int, int) override {}
    void team_destroy(int) override {}
    size_t collective(ishmemi::coll_kind, int team, void*, const void*, size_t bytes, int) override {
        add({'c', team, bytes, {}});
        return bytes;
    }
    void broadcast_chain(int, void*, const void*, size_t, int) override {}
    void collect_known(int, void*, const void*, const size_t*) override {}
    int collect_rounds(size_t) const override { return 1; }
    void exchange_blocks(int, void*, const size_t*, const size_t*, const void*, const size_t*, const size_t*) override {
    }
    void send_to_member(int, int, const void*, size_t) override {}
    void receive_from_member(int, int, void*, size_t) override {}
    void reduction(int, int, ishmemi::elem_kind, int, void*, const void*, size_t) override {}
    void barrier(int team, bool complete) override { add({'b', team, complete, {}}); }
};

}  // namespace proxy_testing
