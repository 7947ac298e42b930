// What the device collectives share (the protocol: cuda/collectives.cuh): the call on a team and
// its flags, the stores of one member's data into every member's dest, and the checks of the
// collectives' entry points.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/common.cuh"
#include "ishmem/cuda/sync.cuh"
#include "ishmem/cuda/teams.cuh"
#include "ishmem/impl/tuning.h"

namespace ishmemi::dev {
namespace coll {

// A load that goes past this SM's L1 cache: a peer's data changes between calls of one kernel.
template <class T> __device__ inline T load_fresh(const T* p) {
    if constexpr (sizeof(T) == 1) {
        const unsigned char v = __ldcg(reinterpret_cast<const unsigned char*>(p));
        return ::cuda::std::bit_cast<T>(v);
    } else if constexpr (sizeof(T) == 2) {
        const unsigned short v = __ldcg(reinterpret_cast<const unsigned short*>(p));
        return ::cuda::std::bit_cast<T>(v);
    } else if constexpr (sizeof(T) == 4) {
        const unsigned int v = __ldcg(reinterpret_cast<const unsigned int*>(p));
        return ::cuda::std::bit_cast<T>(v);
    } else {
        static_assert(sizeof(T) == 8, "reduction types are 1, 2, 4 or 8 bytes");
        const unsigned long long v = __ldcg(reinterpret_cast<const unsigned long long*>(p));
        return ::cuda::std::bit_cast<T>(v);
    }
}

// Reductions (no_scan) and scans (inclusive, exclusive).
enum scan_kind : int { no_scan, inclusive, exclusive };

// The flags of the direct form (larger calls).
enum flag : int { ready, done };
// The operations and how they combine are the host's (impl/coll/reduce.h).
using ishmemi::coll::combine;
using ishmemi::coll::op_and;
using ishmemi::coll::op_kind;
using ishmemi::coll::op_max;
using ishmemi::coll::op_min;
using ishmemi::coll::op_or;
using ishmemi::coll::op_prod;
using ishmemi::coll::op_sum;
using ishmemi::coll::op_xor;

// The whole grid of one of the library's collective kernels (runtime/cuda/collectives.cu). It starts
// and ends with its kernel, whose stream orders it after earlier work and before later work, so a
// call on it skips the group syncs at entry and exit (each a grid-wide barrier of some microseconds).
struct kernel_grid {
    cg::grid_group g;
    __device__ unsigned long long thread_rank() const { return g.thread_rank(); }
    __device__ unsigned long long num_threads() const { return g.num_threads(); }
    __device__ void sync() const { g.sync(); }
};

// A PE may have one caller at a time in a team's data collectives (device checks on): the caller's
// leader claims the team's busy word on entry, or stops the kernel naming the routine, and gives it
// back at the end; the team must also fit the slot's arrays. `call`, `medium_call` and `nodes_call`
// use these.
__device__ inline void claim_team(ishmemi::cuda::gpu_sync_slot* mine, int team, const char* routine) {
#if ISHMEM_DEVICE_CHECKS
    if (const int size = dstate.teams[team].size; __builtin_expect(size > ishmemi::cuda::gpu_sync_slot::max_members, 0))
        fail(ishmemi::cuda::err_team_size, routine, nullptr, team, size, ishmemi::cuda::gpu_sync_slot::max_members);
    if (__builtin_expect(atomicExch(&mine->busy.value, 1ull) != 0ull, 0))
        fail(ishmemi::cuda::err_concurrent, routine, nullptr, team, 0, 0);
#else
    (void)mine, (void)team, (void)routine;
#endif
}
__device__ inline void release_team(ishmemi::cuda::gpu_sync_slot* mine) {
#if ISHMEM_DEVICE_CHECKS
    sys_ref(&mine->busy.value).store(0ull, ::cuda::std::memory_order_relaxed);
#else
    (void)mine;
#endif
}

// One call of a data collective on a team, as this PE's group sees it; every thread constructs it
// and only the leader (rank 0) touches the flags.
template <class G> class call {
    static constexpr bool whole_kernel = ::cuda::std::is_same_v<G, kernel_grid>;

  public:
    __device__ call(const G& g, int team, const char* routine)
        : g_(g), t_(*find_team(team)), slot_(team), mine_(sync_slot(dstate.my_pe, team)) {
        if constexpr (!whole_kernel)
            sync_group(g_);  // the group's earlier reads of dest and writes of source come first
        if (leader()) {
            claim_team(mine_, team, routine);
            c_ = ++mine_->calls.value;  // only this PE's caller touches it
        }
    }
    __device__ bool leader() const { return rank_in(g_) == 0; }
    __device__ unsigned rank() const { return rank_in(g_); }
    __device__ unsigned threads() const { return threads_of(g_); }
    __device__ void sync() const { sync_group(g_); }
    __device__ int me() const { return t_.my_index; }
    __device__ int size() const { return t_.size; }
    // Member m's sync slot of this team.
    __device__ ishmemi::cuda::gpu_sync_slot* slot_of(int m) const { return sync_slot(t_.start + m * t_.stride, slot_); }
    // Member m's copy of the symmetric object at p.
    template <class T> __device__ T* at(T* p, int m) const { return peer_ptr(p, t_.start + m * t_.stride); }

    // Leader only: sets my entry of flag f at member m to this call (release: what this PE did
    // before, and what its group did before the last sync, comes with it).
    __device__ void tell(flag f, int m) const { set(f, m, ::cuda::std::memory_order_release); }
    // The same at every other member but `skip` (-1: none), behind one system fence (each release
    // store would be a fence of its own, and a system fence costs about as much as a hop over NVLink).
    __device__ void tell_others(flag f, int skip = -1) const {
        __threadfence_system();
        for (int i = 1; i < t_.size; ++i)
            if (const int m = (t_.my_index + i) % t_.size; m != skip) set(f, m, ::cuda::std::memory_order_relaxed);
    }
    // Leader only: waits until member m has set flag f at this PE for this call.
    __device__ void await(flag f, int m) const {
        auto r = sys_ref(entry(mine_, f, m));
        while (r.load(::cuda::std::memory_order_acquire) < c_) {}
    }
    __device__ void await_others(flag f, int skip = -1) const {
        for (int i = 1; i < t_.size; ++i)
            if (const int m = (t_.my_index + i) % t_.size; m != skip) await(f, m);
    }
    // Every thread learns the call's number (the leader counted it); after a sync of the group
    // that follows the construction.
    __device__ void share_number() {
        if (!leader()) c_ = *reinterpret_cast<volatile unsigned long long*>(&mine_->calls.value);
    }
    // ---- a relayed broadcast's pieces (broadcast_relayed; after share_number) -------------------
    // Lanes: a library grid is cut into lanes of about lane_blocks blocks (block b in lane
    // b % lanes()), each working through its own pieces in order, so that the pieces go out in
    // order while every block moves enough of a piece between two fences (a fence waits for the
    // block's stores to arrive: with all 132 blocks on every piece of 256 KiB, each moved 2 KiB per
    // fence and a broadcast of 16 MiB on 4 H100s took twice the unrelayed time). Any other group
    // is one lane.
    static constexpr unsigned lane_blocks = tuning::lane_blocks.value;
    __device__ unsigned lanes() const {
        if constexpr (whole_kernel)
            return gridDim.x < 2 * lane_blocks ? 1u : gridDim.x / lane_blocks;
        else
            return 1u;
    }
    __device__ unsigned lane() const {
        if constexpr (whole_kernel)
            return blockIdx.x % lanes();
        else
            return 0u;
    }
    // The group's threads in my lane, and my rank among them.
    __device__ unsigned lane_threads() const {
        if constexpr (whole_kernel)
            return blocks_in_lane() * blockDim.x;
        else
            return threads();
    }
    __device__ unsigned lane_rank() const {
        if constexpr (whole_kernel)
            return blockIdx.x / lanes() * blockDim.x + threadIdx.x;
        else
            return rank();
    }
    // Waits until the root has put piece p into this PE's dest. In one of the library's grids each
    // block waits for itself, so that its blocks never wait for each other.
    __device__ void await_piece(int p) const {
        if (block_leader())
            while (sys_ref(&mine_->pieces[p]).load(::cuda::std::memory_order_acquire) < c_) {}
        block_sync();
    }
    // Once the lane has stored its share of piece p into member m's dest: tells m, when every
    // thread has (in a library grid, every block of the lane: the last of them to count itself
    // tells m).
    __device__ void piece_stored(int p, int m) const {
        block_sync();
        if (!block_leader()) return;
        __threadfence_system();  // this block's stores, before the count and the flag
        if (blocks_in_lane() > 1) {
            if (atomicAdd(&mine_->piece_blocks[p], 1u) != blocks_in_lane() - 1) return;
            mine_->piece_blocks[p] = 0;  // the next use is a later kernel's
            __threadfence_system();      // every counted block's stores, before the flag
        }
        sys_ref(&slot_of(m)->pieces[p]).store(c_, ::cuda::std::memory_order_relaxed);
    }
    // Leader only: my count for collect, at every member (before my ready, which publishes it).
    __device__ void publish_count(unsigned long long n) const {
        for (int m = 0; m < t_.size; ++m)
            sys_ref(&slot_of(m)->counts[t_.my_index]).store(n, ::cuda::std::memory_order_relaxed);
    }
    // Member m's count in this call (after its ready).
    __device__ unsigned long long count_of(int m) const {
        return sys_ref(&mine_->counts[m]).load(::cuda::std::memory_order_relaxed);
    }
    // The group's stores are complete and visible everywhere (tell_others' fence); then done goes
    // to the others.
    __device__ void signal_done() const {
        sync();
        if (leader()) tell_others(done);
    }
    // ---- the ring -------------------------------------------------------------------------------
    // Where this call's `words` words start in every member's ring, and the tag its words carry,
    // for every thread of the group. Every member takes the same span (all make the same calls on
    // the team, with the same sizes), so within one pass over the ring a word is written once at
    // most. When the rest of the ring is too short, each member zeroes what the pass used of its
    // own ring (it has read all of it, and nobody writes there until the barrier), then a team
    // barrier, and the next pass starts at the beginning. So a word that a call polls holds zero or
    // this call's data, never older data: the tag needs only to be nonzero, and its 32 bits may
    // wrap.
    struct ring_span {
        size_t at;
        unsigned tag;
    };
    __device__ ring_span ring_take(size_t words) const {
        if constexpr (whole_kernel) {
            return {0, 0};  // not reached: a grid never takes the ring (through_ring)
        } else {
            constexpr unsigned long long wrap = 1ull << 31;
            unsigned long long packed = 0;  // tag << 32 | wrap | words of the pass so far
            if (leader()) {
                const unsigned long long used = mine_->ring_used.value;
                const bool full = used + words > ishmemi::cuda::gpu_sync_slot::ring_words;
                mine_->ring_used.value = (full ? 0 : used) + words;
                const unsigned long long tag = c_ % 0xffffffffull + 1;  // 1 .. 2^32 - 1
                packed = tag << 32 | (full ? wrap : 0) | used;
            }
            packed = from_leader(g_, packed);
            const size_t used = static_cast<size_t>(packed & (wrap - 1));
            if (packed & wrap) {
                unsigned long long* mine = mine_->ring;
                for (size_t i = rank(); i < used; i += threads()) mine[i] = 0;
                sync();
                if (leader()) team_barrier(t_, slot_);  // its entry fence publishes the zeros
                sync();
            }
            return {packed & wrap ? 0 : used, static_cast<unsigned>(packed >> 32)};
        }
    }
    // Member m's ring.
    __device__ unsigned long long* ring_of(int m) const { return slot_of(m)->ring; }

    __device__ void finish() const {
        if (leader()) release_team(mine_);
        if constexpr (!whole_kernel) sync();  // no thread returns before the leader saw every done
    }

  private:
    __device__ unsigned blocks_in_lane() const {  // blocks b < gridDim.x with b % lanes() == lane()
        if constexpr (whole_kernel)
            return (gridDim.x - lane() + lanes() - 1) / lanes();
        else
            return 1u;
    }
    // A library grid's blocks go each their own way; any other group is one block here.
    __device__ bool block_leader() const {
        if constexpr (whole_kernel)
            return threadIdx.x == 0;
        else
            return leader();
    }
    __device__ void block_sync() const {
        if constexpr (whole_kernel)
            __syncthreads();
        else
            sync();
    }
    __device__ void set(flag f, int m, ::cuda::std::memory_order order) const {
        sys_ref(entry(slot_of(m), f, t_.my_index)).store(c_, order);
    }
    __device__ static unsigned long long* entry(ishmemi::cuda::gpu_sync_slot* s, flag f, int m) {
        return f == ready ? s->ready + m : s->done + m;
    }
    const G& g_;
    const ishmemi::cuda::device_team& t_;
    int slot_;
    ishmemi::cuda::gpu_sync_slot* mine_;
    unsigned long long c_ = 0;
};

// Every member stores `bytes` of its data into every member's dest (itself included), starting
// with the member after it so that the links are loaded evenly; block(m) is what member m gets,
// at offset `at_offset` of its dest (alltoall: a different block for each).
template <class G, class Block>
__device__ inline void push_to_all(const call<G>& k, char* dest, size_t at_offset, size_t bytes, Block block) {
    for (int i = 1; i <= k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        char* d = k.at(dest, m) + at_offset;
        const char* s = block(m);
        if (d != s) copy_bytes(d, s, bytes, k.rank(), k.threads());
    }
}

// Loads the n bytes at src once, word by word, and stores each word to the ndst destinations
// to(0), ..., to(ndst - 1) in turn (one of them src itself, in place: skipped); the group's threads
// (rank of size) share the words.
template <class W, class To>
__device__ inline void store_words_to(unsigned rank, size_t size, const char* src, size_t n, int ndst, To to) {
    const W* s = reinterpret_cast<const W*>(src);
    const size_t nw = n / sizeof(W);
    auto dst = [&](int j) { return reinterpret_cast<W*>(to(j)); };
    size_t i = rank;
    for (; i + 3 * size < nw; i += 4 * size) {  // four loads in flight per thread
        const W a = s[i], b = s[i + size], c = s[i + 2 * size], e = s[i + 3 * size];
        for (int j = 0; j < ndst; ++j) {
            W* d = dst(j);
            if (d == s) continue;
            d[i] = a;
            d[i + size] = b;
            d[i + 2 * size] = c;
            d[i + 3 * size] = e;
        }
    }
    for (; i < nw; i += size) {
        const W a = s[i];
        for (int j = 0; j < ndst; ++j)
            if (W* d = dst(j); d != s) d[i] = a;
    }
    for (size_t b = nw * sizeof(W) + rank; b < n; b += size) {
        const char v = src[b];
        for (int j = 0; j < ndst; ++j)
            if (char* d = to(j); d != src) d[b] = v;
    }
}
// The same in the widest word that every destination and src allow; `aligned_as` is what they
// have in common (the destinations of one symmetric object at one offset share their alignment).
template <class To> __device__ inline void store_to(unsigned rank, size_t size, const char* src, size_t n, int ndst,
                                                    uintptr_t aligned_as, To to) {
    with_widest_word(aligned_as, [&](auto w) { store_words_to<decltype(w)>(rank, size, src, n, ndst, to); });
}

// The same `bytes` from src into every member's dest at at_offset (broadcast, fcollect, collect),
// each word loaded once and stored to every member in turn, from the member after this one, so that
// the copy into this PE's own dest runs alongside the stores over the links rather than after them.
template <class G> __device__ inline void push_same_to_all(const call<G>& k, char* dest, size_t at_offset,
                                                           const void* source, size_t bytes) {
    const char* src = static_cast<const char*>(source);
    store_to(k.rank(), k.threads(), src, bytes, k.size(),
             reinterpret_cast<uintptr_t>(dest + at_offset) | reinterpret_cast<uintptr_t>(src),
             [&](int j) { return k.at(dest, (k.me() + 1 + j) % k.size()) + at_offset; });
}

// The common frame of fcollect, collect and alltoall: all ready, push, all done.
template <class G, class Push> __device__ inline void exchange_all(call<G>& k, Push push) {
    if (k.leader()) {
        k.tell_others(ready);
        k.await_others(ready);
    }
    k.sync();
    push();
    k.signal_done();
    if (k.leader()) k.await_others(done);
    k.finish();
}

}  // namespace coll

// ---- the checks of the collectives' entry points -------------------------------------------------

__device__ inline int team_size_or_zero(int team) {
    const auto* t = find_team(team);
    return t ? t->size : 0;
}
// Soft checks, as check_team: a line and false, so that the routine returns nonzero.
__device__ inline bool check_team_pe(const char* fn, int team, const char* param, int pe) {
    const auto* t = find_team(team);
    if (__builtin_expect(t != nullptr && static_cast<unsigned>(pe) < static_cast<unsigned>(t->size), 1)) return true;
    if (fn)
        printf("ishmem: PE %d: %s: %s = %d is not a PE of team %d (device code)\n", dstate.my_pe, fn, param, pe, team);
    return false;
}
__device__ inline bool check_no_partial_overlap(const char* fn, const char* a, const void* pa, const char* b,
                                                const void* pb, size_t bytes) {
    if (__builtin_expect(!ishmemi::overlap_partly(pa, pb, bytes), 1)) return true;
    if (fn)
        printf("ishmem: PE %d: %s: %s and %s overlap partly (%llu bytes) (device code)\n", dstate.my_pe, fn, a, b,
               static_cast<unsigned long long>(bytes));
    return false;
}
__device__ inline bool check_outside(const char* fn, const char* a, const void* pa, size_t a_bytes, const char* b,
                                     const void* pb, size_t b_bytes) {
    if (__builtin_expect(!ishmemi::overlap_at_all(pa, a_bytes, pb, b_bytes), 1)) return true;
    if (fn)
        printf("ishmem: PE %d: %s: %s (%llu bytes) overlaps %s (%llu bytes): %s must lie outside %s (device code)\n",
               dstate.my_pe, fn, a, static_cast<unsigned long long>(a_bytes), b,
               static_cast<unsigned long long>(b_bytes), a, b);
    return false;
}

}  // namespace ishmemi::dev
