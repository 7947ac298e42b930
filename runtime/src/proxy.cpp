// The proxy transport (proxy.h): a request ring in this process's memory and the thread that serves
// it. Posting follows impl/proxy_ring.h; this file is the consumer and the transport facade.
#include "proxy.h"

#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "ishmem/impl/proxy_ring.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/tuning.h"

namespace ishmemi {

namespace {

constexpr bool same_code(proxy::rmw_code c, rmw_op op) { return static_cast<int>(c) == static_cast<int>(op); }
static_assert(same_code(proxy::rmw_load, op_load) && same_code(proxy::rmw_store, op_store) &&
                  same_code(proxy::rmw_swap, op_swap) && same_code(proxy::rmw_cswap, op_cswap) &&
                  same_code(proxy::rmw_add, op_add) && same_code(proxy::rmw_and, op_and) &&
                  same_code(proxy::rmw_or, op_or) && same_code(proxy::rmw_xor, op_xor),
              "the ring's AMO codes are runtime.h's rmw_op numbers");

using proxy::host_mem;
using proxy::request;

// A producer's wait: spins, then yields the core, and takes part in ISHMEM_HANG_TIMEOUT's report
// like the waiting loops. It does not serve other PEs' requests: the proxy thread does, inside the
// transport's own waits, and the transport's progress thread otherwise, so a caller whose request
// needs no answer from anyone serves no one meanwhile, as when it calls the transport itself.
struct producer_wait {
    unsigned polls = 0;
    void pause() {
        if (polls < spin_limit) {
            ++polls;
            cpu_relax();
            return;
        }
        if (__builtin_expect(watch_calls, 0)) watch_tick();
        sched_yield();
    }
};

class proxy_transport final : public transport {
  public:
    proxy_transport(std::unique_ptr<transport> inner, uint64_t slots, void* device_ring_memory)
        : inner_(std::move(inner)) {
        owned_ = std::aligned_alloc(64, proxy::ring_bytes(slots));
        if (!owned_) throw std::bad_alloc();
        ring_ = proxy::ring_init(owned_, slots);
        if (device_ring_memory) device_ring_ = proxy::ring_init(device_ring_memory, slots);
    }
    ~proxy_transport() override {
        if (thread_.joinable()) {
            submit(make(proxy::req_quiet, -1));  // every request done before the thread stops
            started_.store(false, std::memory_order_release);
            stop_.store(true, std::memory_order_release);
            thread_.join();
        }
        std::free(owned_);
    }

    void put(void* dest, const void* source, size_t bytes, int pe, bool nbi) override {
        request q = make(proxy::req_put, pe);
        q.dest = addr(dest), q.source = addr(source), q.bytes = bytes, q.flags = nbi ? proxy::flag_nbi : 0;
        submit(q);
    }
    void get(void* dest, const void* source, size_t bytes, int pe, bool nbi) override {
        // A get's data is in dest once its request is done; nbi gets are waited too (the ring's
        // answer is the cheapest completion there is), which the spec allows.
        (void)nbi;
        request q = make(proxy::req_get, pe);
        q.dest = addr(dest), q.source = addr(source), q.bytes = bytes;
        submit(q);
    }
    void put_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override {
        submit(strided(proxy::req_put_strided, dest, dstride, source, sstride, elem, count, pe));
    }
    void get_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override {
        submit(strided(proxy::req_get_strided, dest, dstride, source, sstride, elem, count, pe));
    }
    uint64_t amo(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond, int pe) override {
        request q = make(proxy::req_amo, pe);
        q.rmw = static_cast<uint8_t>(op), q.size = static_cast<uint8_t>(size), q.dest = addr(dest);
        q.value = value, q.cond = cond;
        return submit(q);
    }
    void amo_post(rmw_op op, void* dest, unsigned size, uint64_t value, int pe) override {
        request q = make(proxy::req_amo_post, pe);
        q.rmw = static_cast<uint8_t>(op), q.size = static_cast<uint8_t>(size), q.dest = addr(dest), q.value = value;
        submit(q);
    }
    bool put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, bool add,
                    int pe) override {
        // Always carried whole: the proxy falls back to put, flush and signal itself when the
        // transport cannot carry the data with the signal. Waited, since the caller may reuse source.
        request q = make(proxy::req_put_signal, pe);
        q.dest = addr(dest), q.source = addr(source), q.bytes = bytes, q.sig_addr = addr(sig_addr), q.value = signal;
        q.flags = add ? proxy::flag_add : 0;
        submit(q);
        return true;
    }
    void flush(int pe) override { submit(make(proxy::req_flush, pe)); }
    void fence() override { submit(make(proxy::req_fence, -1)); }
    void quiet() override { submit(make(proxy::req_quiet, -1)); }
    void progress() override { inner_->progress(); }
    void start_progress_thread() override {
        inner_->start_progress_thread();
        thread_ = std::thread([this] { serve(); });
        started_.store(true, std::memory_order_release);
    }
    void hold_progress_thread(bool held) override { inner_->hold_progress_thread(held); }

    // Team operations and collectives: the caller's own thread, after everything it posted before.
    void team_split(int parent_slot, int slot, int color, int key) override {
        drain();
        inner_->team_split(parent_slot, slot, color, key);
    }
    void team_destroy(int slot) override { inner_->team_destroy(slot); }
    size_t collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) override {
        drain();
        return inner_->collective(kind, team, dest, source, bytes, root);
    }
    void broadcast_chain(int team, void* dest, const void* source, size_t bytes, int root) override {
        drain();
        inner_->broadcast_chain(team, dest, source, bytes, root);
    }
    void collect_known(int team, void* dest, const void* source, const size_t* bytes_of) override {
        drain();
        inner_->collect_known(team, dest, source, bytes_of);
    }
    int collect_rounds(size_t members) const override { return inner_->collect_rounds(members); }
    void exchange_blocks(int team, void* in, const size_t* in_at, const size_t* in_bytes, const void* out,
                         const size_t* out_at, const size_t* out_bytes) override {
        drain();
        inner_->exchange_blocks(team, in, in_at, in_bytes, out, out_at, out_bytes);
    }
    void send_to_member(int team, int to, const void* buf, size_t bytes) override {
        drain();
        inner_->send_to_member(team, to, buf, bytes);
    }
    void receive_from_member(int team, int from, void* buf, size_t bytes) override {
        inner_->receive_from_member(team, from, buf, bytes);
    }
    void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source, size_t nelems) override {
        drain();
        inner_->reduction(op, scan, type, team, dest, source, nelems);
    }
    void barrier(int team, bool complete) override {
        // complete: the ring's quiet completes what went through it, the transport's the rest.
        if (complete)
            quiet();
        else
            drain();
        inner_->barrier(team, complete);
    }

  private:
    static uint64_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }
    static void* ptr(uint64_t a) { return reinterpret_cast<void*>(static_cast<uintptr_t>(a)); }
    static request make(proxy::op_kind op, int pe) {
        request q{};
        q.op = op;
        q.pe = pe;
        return q;
    }
    static size_t inline_bytes(const request& q) { return q.bytes < 8 ? q.bytes : 8; }
    static request strided(proxy::op_kind op, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                           size_t elem, size_t count, int pe) {
        request q = make(op, pe);
        q.dest = addr(dest), q.source = addr(source), q.bytes = elem, q.value = count;
        q.cond = static_cast<uint64_t>(dstride), q.sig_addr = static_cast<uint64_t>(sstride);
        return q;
    }

    // Posts q; waits for its answer when the proxy gives one. Before the proxy thread starts (during
    // ishmem_init) the caller performs the request itself.
    uint64_t submit(const request& q) {
        if (!started_.load(std::memory_order_acquire)) return perform(q);
        const uint64_t t = proxy::post<host_mem>(ring_, q, producer_wait{});
        return proxy::waited(q) ? proxy::wait_answer<host_mem>(ring_, t, producer_wait{}) : 0;
    }
    // Every request posted before has reached the transport.
    void drain() {
        if (started_.load(std::memory_order_acquire)) submit(make(proxy::req_nop, -1));
    }

    uint64_t perform(const request& q) {
        transport& t = *inner_;
        switch (q.op) {
            case proxy::req_put:
                // Inline data lives in this copy of the request: the transport must be done with it
                // on return (a blocking put), whatever the poster asked.
                if (q.flags & proxy::flag_inline)
                    t.put(ptr(q.dest), &q.value, inline_bytes(q), q.pe, false);
                else
                    t.put(ptr(q.dest), ptr(q.source), q.bytes, q.pe, q.flags & proxy::flag_nbi);
                return 0;
            case proxy::req_get: {
                if (!(q.flags & proxy::flag_inline)) {
                    t.get(ptr(q.dest), ptr(q.source), q.bytes, q.pe, false);
                    return 0;
                }
                uint64_t word = 0;
                t.get(&word, ptr(q.source), inline_bytes(q), q.pe, false);
                return word;
            }
            case proxy::req_put_strided:
                t.put_strided(ptr(q.dest), static_cast<ptrdiff_t>(q.cond), ptr(q.source),
                              static_cast<ptrdiff_t>(q.sig_addr), q.bytes, q.value, q.pe);
                return 0;
            case proxy::req_get_strided:
                t.get_strided(ptr(q.dest), static_cast<ptrdiff_t>(q.cond), ptr(q.source),
                              static_cast<ptrdiff_t>(q.sig_addr), q.bytes, q.value, q.pe);
                return 0;
            case proxy::req_amo:
                return t.amo(static_cast<rmw_op>(q.rmw), ptr(q.dest), q.size, q.value, q.cond, q.pe);
            case proxy::req_amo_post:
                t.amo_post(static_cast<rmw_op>(q.rmw), ptr(q.dest), q.size, q.value, q.pe);
                return 0;
            case proxy::req_put_signal: {
                auto* sig = static_cast<uint64_t*>(ptr(q.sig_addr));
                const bool add = q.flags & proxy::flag_add;
                if (!t.put_signal(ptr(q.dest), ptr(q.source), q.bytes, sig, q.value, add, q.pe)) {
                    t.put(ptr(q.dest), ptr(q.source), q.bytes, q.pe, false);
                    t.flush(q.pe);
                    t.amo_post(add ? op_add : op_store, sig, 8, q.value, q.pe);
                }
                return 0;
            }
            case proxy::req_flush:
                t.flush(q.pe);
                return 0;
            case proxy::req_fence:
                t.fence();
                return 0;
            case proxy::req_quiet:
                t.quiet();
                return 0;
            default:
                return 0;  // req_nop
        }
    }

    // The proxy thread: serves tickets in order; polls while busy, then sleeps a little longer each
    // time up to idle_sleep_max_ns. It serves only this PE's own requests: other PEs' are the
    // transport's progress thread's and waiting loops' (so hold_progress_thread keeps its meaning).
    void serve() {
        constexpr long idle_sleep_max_ns = tuning::proxy_sleep_max_ns.value;
        uint64_t h = 0;  // the next ticket of the host's ring
        unsigned idle = 0;
        long sleep_ns = 1000;
        for (;;) {
            const bool served = serve_one(ring_, h);
            if (serve_one(device_ring_, device_h_) || served) {
                idle = 0;
                sleep_ns = 1000;
                continue;
            }
            if (stop_.load(std::memory_order_acquire)) return;
            if (++idle < 4096) {
                cpu_relax();
                continue;
            }
            timespec ts{0, sleep_ns};
            nanosleep(&ts, nullptr);
            sleep_ns = sleep_ns < idle_sleep_max_ns ? 2 * sleep_ns : idle_sleep_max_ns;
        }
    }

    // Performs ticket h of ring r (null: none) if it is posted, and moves h on; false if not.
    bool serve_one(proxy::ring_header* r, uint64_t& h) {
        if (!r) return false;
        const request* q = proxy::peek<host_mem>(r, h);
        if (!q) return false;
        const request copy = *q;
        if (r == ring_ && orders_or_completes(copy.op)) serve_posted_device_requests();
        const uint64_t answer = perform(copy);
        proxy::finish<host_mem>(r, h, answer);
        __atomic_store_n(&r->head, ++h, __ATOMIC_RELAXED);
        return true;
    }

    // A host quiet, fence, flush or drain covers what kernels posted before it: a kernel that the host
    // has synchronized with has published all its requests, but the two rings are served in turns, so
    // the device ring's posted requests go first (at most a ring's worth: a kernel that keeps posting
    // cannot hold the host back).
    static bool orders_or_completes(uint8_t op) {
        return op == proxy::req_quiet || op == proxy::req_fence || op == proxy::req_flush || op == proxy::req_nop;
    }
    void serve_posted_device_requests() {
        if (!device_ring_) return;
        for (uint64_t k = 0; k < device_ring_->slots && serve_one(device_ring_, device_h_); ++k) {}
    }

    std::unique_ptr<transport> inner_;
    void* owned_ = nullptr;                      // the host threads' ring
    proxy::ring_header* ring_ = nullptr;         // in owned_
    proxy::ring_header* device_ring_ = nullptr;  // GPU threads' ring, when the caller gave its memory
    uint64_t device_h_ = 0;                      // its next ticket (the proxy thread's own)
    std::thread thread_;
    std::atomic<bool> started_{false}, stop_{false};
};

}  // namespace

std::unique_ptr<transport> make_proxy_transport(std::unique_ptr<transport> inner, uint64_t slots, void* ring_memory) {
    return std::make_unique<proxy_transport>(std::move(inner), slots < 4 ? 4 : slots, ring_memory);
}

}  // namespace ishmemi
