// The proxy's request ring: how code that cannot call the transport itself (a GPU kernel, whose PE
// reaches the PEs of other nodes only through MPI) hands remote operations to a host thread of its
// own PE, which performs them in order and reports their completion. docs/design.rst ("Scale-out")
// says why; runtime/src/proxy.cpp is the thread and the transport that posts through the ring.
//
// The ring is written once for every kind of producer: the protocol is a template over a memory
// policy (acquire loads, release stores, a fetch-and-add, a pause), so the host's threads and a
// GPU's threads run the same code on the same layout, and CI exercises it without a GPU
// (ISHMEM_REMOTE_PROXY=1 sends the host backend's remote operations through it).
//
// Protocol, per cell (a bounded multi-producer queue with one consumer; tickets only grow):
//   - cell c starts free for ticket c: seq == c;
//   - a producer takes ticket t (fetch-and-add on `tail`), waits until cell t % slots is free for
//     it (seq == t: the ring may be full), writes the request and publishes it (seq = t + 1, release);
//   - the proxy serves tickets in order: it waits for seq == h + 1 (acquire), performs the request,
//     and either frees the cell (seq = h + slots) or, for a request its producer waits for, leaves
//     the answer in the cell and marks it done (seq = h + 2, release);
//   - a waiting producer sees seq == t + 2 (acquire), reads the answer and frees the cell.
// Requests reach the transport in ticket order, so what one producer posts stays in its order
// (fence is then the transport's fence; quiet is a waited request after which the transport has
// completed everything posted before it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ishmem/impl/api.h"  // ISHMEM_HD: the producer's side runs in device code too

namespace ishmemi::proxy {

enum op_kind : uint8_t {
    req_put,          // dest on pe <- source, bytes; nbi: complete at quiet, else source reusable on return
    req_get,          // dest <- source on pe, bytes (waited: dest holds the data on return)
    req_put_strided,  // count elements of elem bytes; strides in bytes
    req_get_strided,
    req_amo,         // fetching: the old value is the answer
    req_amo_post,    // non-fetching, not waited: complete at quiet or fence
    req_put_signal,  // put, then the signal at sig_addr (set, or add when flag_add)
    req_flush,       // earlier puts to pe complete (waited)
    req_fence,       // earlier requests ordered before later ones to each PE
    req_quiet,       // everything earlier complete (waited)
    req_nop,         // nothing: waited, it says that every earlier request reached the transport
};

// An AMO's operation, as runtime.h's rmw_op numbers it (proxy.cpp checks that they agree): spelled
// here too so that device code, which does not include runtime.h, can post AMOs.
enum rmw_code : uint8_t { rmw_load, rmw_store, rmw_swap, rmw_cswap, rmw_add, rmw_and, rmw_or, rmw_xor };

// flag_inline: a put's data (bytes <= 8) is in `value` instead of at `source`, and a get's comes
// back as the answer instead of into `dest`: how a GPU thread puts a register (p) or gets into one
// (g), whose address the proxy cannot reach.
enum : uint8_t { flag_nbi = 1, flag_add = 2, flag_inline = 4 };

// One request; 64 bytes, so that a cell is two cache lines with its sequence word.
struct request {
    uint8_t op;     // op_kind
    uint8_t rmw;    // an AMO's rmw_code
    uint8_t size;   // an AMO's word size (4 or 8)
    uint8_t flags;  // flag_nbi, flag_add
    int32_t pe;
    uint64_t dest;      // a symmetric address as the poster sees it (or local memory for a get)
    uint64_t source;    // local memory (or a symmetric address for a get)
    uint64_t bytes;     // bytes; strided: the element size
    uint64_t value;     // AMO operand, signal value; strided: the element count
    uint64_t cond;      // compare-and-swap's comparand; strided: the dest stride
    uint64_t sig_addr;  // put-with-signal's signal word; strided: the source stride
    uint64_t spare;
};
static_assert(sizeof(request) == 64);

struct alignas(64) cell {
    uint64_t seq;
    uint64_t answer;  // a fetching AMO's old value
    request req;
};

// The shared part of a ring; `slots` cells follow it in the same allocation (ring_bytes).
struct alignas(64) ring_header {
    uint64_t tail;              // tickets taken by producers
    alignas(64) uint64_t head;  // the next ticket the proxy serves (its own, published for reports)
    alignas(64) uint64_t slots;
};

ISHMEM_HD inline size_t ring_bytes(uint64_t slots) { return sizeof(ring_header) + slots * sizeof(cell); }
ISHMEM_HD inline cell* cells(ring_header* r) { return reinterpret_cast<cell*>(r + 1); }

// Makes a ring in `memory` (ring_bytes(slots) bytes, 64-byte aligned, not yet shared).
inline ring_header* ring_init(void* memory, uint64_t slots) {
    auto* r = static_cast<ring_header*>(memory);
    r->tail = 0;
    r->head = 0;
    r->slots = slots;
    for (uint64_t c = 0; c < slots; ++c) cells(r)[c].seq = c;
    return r;
}

// Whether the proxy waits to answer this kind of request (its producer waits for seq == t + 2).
ISHMEM_HD inline bool waited(const request& q) {
    switch (q.op) {
        case req_get:
        case req_get_strided:
        case req_amo:
        case req_flush:
        case req_quiet:
        case req_nop:
            return true;
        case req_put:
        case req_put_signal:
            return (q.flags & flag_nbi) == 0;
        case req_put_strided:
            return true;
        default:
            return false;
    }
}

// ---- producer side ------------------------------------------------------------------------------
// Mem provides: static uint64_t load_acquire(const uint64_t*); static void store_release(uint64_t*,
// uint64_t); static uint64_t fetch_add(uint64_t*, uint64_t); and a waiter object with pause()
// (called while a cell is not yet in the wanted state). host_mem below is the CPU's; GPU threads
// use ishmem/cuda/proxy_post.cuh's, on a ring in mapped pinned host memory.

// Posts q with ticket t, taken by the caller from the ring's one ticket counter (post: `tail`; GPU
// threads: a counter in GPU memory, since atomics on mapped host memory need not be atomic among
// them), and returns t. For a waited request, call wait_answer with that ticket.
template <class Mem, class Waiter>
ISHMEM_HD inline uint64_t post_ticket(ring_header* r, uint64_t t, const request& q, Waiter&& waiter) {
    const uint64_t slots = r->slots;
    cell& c = cells(r)[t % slots];
    while (Mem::load_acquire(&c.seq) != t) waiter.pause();  // the ring is full: the proxy frees cells in order
    c.req = q;
    Mem::store_release(&c.seq, t + 1);
    return t;
}

// Posts q with the next ticket of the ring's `tail` and returns it.
template <class Mem, class Waiter> ISHMEM_HD inline uint64_t post(ring_header* r, const request& q, Waiter&& waiter) {
    return post_ticket<Mem>(r, Mem::fetch_add(&r->tail, 1), q, static_cast<Waiter&&>(waiter));
}

// Waits until the proxy has done the waited request of ticket t; returns its answer and frees the cell.
template <class Mem, class Waiter> ISHMEM_HD inline uint64_t wait_answer(ring_header* r, uint64_t t, Waiter&& waiter) {
    const uint64_t slots = r->slots;
    cell& c = cells(r)[t % slots];
    while (Mem::load_acquire(&c.seq) != t + 2) waiter.pause();
    const uint64_t answer = c.answer;
    Mem::store_release(&c.seq, t + slots);
    return answer;
}

// ---- consumer side (the proxy thread) -------------------------------------------------------------

// The request of ticket h when it is posted, else null (the proxy polls).
template <class Mem> inline const request* peek(ring_header* r, uint64_t h) {
    cell& c = cells(r)[h % r->slots];
    return Mem::load_acquire(&c.seq) == h + 1 ? &c.req : nullptr;
}

// Ends ticket h once performed: frees its cell, or hands the answer to its waiting producer.
template <class Mem> inline void finish(ring_header* r, uint64_t h, uint64_t answer) {
    cell& c = cells(r)[h % r->slots];
    if (waited(c.req)) {
        c.answer = answer;
        Mem::store_release(&c.seq, h + 2);
    } else {
        Mem::store_release(&c.seq, h + r->slots);
    }
}

// The host's memory policy: the CPU's atomics (GPU code has its own, over the same layout).
struct host_mem {
    static uint64_t load_acquire(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static void store_release(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static uint64_t fetch_add(uint64_t* p, uint64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
};

}  // namespace ishmemi::proxy
