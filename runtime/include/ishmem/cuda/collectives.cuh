// Data collectives in device code: alltoall, broadcast, collect, fcollect, the seven reductions and
// the two scans, over a team. The same code serves three kinds of caller: one thread (the base
// forms in a kernel), a group (_work_group), and a whole cooperative grid (the library's kernels
// behind the host-called and _on_queue forms, runtime/cuda/collectives.cu, which spread large
// messages over many blocks).
//
// Every GPU maps every peer's heap, so members move data by load and store over NVLink. Small calls
// go through the team's ring (device_state.h): every member stores its data, each word tagged with
// the call's number, into the ring of each member that needs it, and each polls its own ring for the
// words of this call - one hop, no flags. Medium calls on the first teams, within a limit per kind,
// go through the team's stage ("the medium stage" below): ranges stored into the receivers' stage,
// one fence, a flag per part, and each receiver copies into its own dest. Larger calls write the
// members' buffers directly and coordinate through call-numbered flags in the team's GPU sync slot,
// never reset:
//   - ready: a member has entered the call, so its source may be read and its dest written;
//   - done: a member has finished with my buffers in this call (its writes to them are visible).
// Data moves by push (the writer is the member whose data it is): fcollect, collect and alltoall
// wait for every member's ready, store their blocks into the members' dests, then signal done;
// broadcast needs only the root to wait. Reductions and scans split the array into one chunk per
// member: member k alone reads chunk k of every source, combines it in team order and stores the
// result in chunk k of every dest. Since nobody else reads chunk k, this is safe in place, every
// PE gets bit-identical floating-point results, and each PE moves 2(n-1)/n of the array over the
// links (reduce-scatter plus all-gather in one pass).
//
// Included at the end of device.cuh.
#pragma once

namespace ishmemi::dev {
namespace coll {

// The flags of the direct form (larger calls).
enum flag : int { ready, done };
// The operations and how they combine are the host's (impl/collectives.h).
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
// back at the end. `call` and `medium_call` both use these.
__device__ inline void claim_team(ishmemi::cuda::gpu_sync_slot* mine, int team, const char* routine) {
#if ISHMEM_DEVICE_CHECKS
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
#if ISHMEM_DEVICE_CHECKS
            if (__builtin_expect(t_.size > ishmemi::cuda::gpu_sync_slot::max_members, 0))
                fail(ishmemi::cuda::err_team_size, routine, nullptr, team, t_.size,
                     ishmemi::cuda::gpu_sync_slot::max_members);
#endif
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
    static constexpr unsigned lane_blocks = 16;
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

// ---- the ring ---------------------------------------------------------------------------------

// Whether a call in which one PE receives `bytes` goes through the ring. The same on every member
// whatever its group: the library's kernels run such calls as one block
// (runtime/cuda/collectives.cu), never as a grid.
template <class G> __device__ inline bool through_ring(size_t bytes) {
    if constexpr (::cuda::std::is_same_v<G, kernel_grid>)
        return false;
    else
        return bytes <= dstate.stage_limit;
}

// Ring words that carry n data bytes: 4 in each, the last one padded.
__device__ inline size_t ring_words_for(size_t n) { return (n + 3) / 4; }

// Words a thread keeps in flight in the loops below: their loads go out together (one at a time,
// each would wait a trip to L2 or over the link before the next starts).
constexpr int ring_unroll = 4;

// Data word i of n bytes at src: 4 bytes (the last one padded with zeros).
__device__ inline unsigned ring_data(const void* src, size_t n, size_t i, bool words) {
    if (words && 4 * i + 4 <= n) return static_cast<const unsigned*>(src)[i];
    const auto* bytes = static_cast<const unsigned char*>(src);
    unsigned v = 0;
    for (size_t b = 0; b < 4 && 4 * i + b < n; ++b) v |= static_cast<unsigned>(bytes[4 * i + b]) << (8 * b);
    return v;
}

// Stores n bytes from src, 4 to a word tagged `tag`, into the ring words at `to` (a peer's). One
// relaxed 8-byte store each: a reader sees the whole word or none of it, so no fence is needed.
__device__ inline void ring_put(unsigned long long* to, const void* src, size_t n, unsigned tag, unsigned rank,
                                unsigned size) {
    const bool words = (reinterpret_cast<uintptr_t>(src) & 3) == 0;
    const unsigned long long high = static_cast<unsigned long long>(tag) << 32;
    const size_t nw = ring_words_for(n), whole = words ? n / 4 : 0;
    const auto* src32 = static_cast<const unsigned*>(src);
    size_t i = rank;
    for (; i + (ring_unroll - 1) * size < whole; i += ring_unroll * size) {
        unsigned v[ring_unroll];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) v[u] = src32[i + u * size];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u)
            sys_ref(to + i + u * size).store(high | v[u], ::cuda::std::memory_order_relaxed);
    }
    for (; i < nw; i += size)
        sys_ref(to + i).store(high | ring_data(src, n, i, words), ::cuda::std::memory_order_relaxed);
}

// Ring word w (this PE's own ring; peers store into it) as it is now; wait_tagged: once it carries `tag`.
__device__ inline unsigned long long ring_load(unsigned long long* w) {
    return sys_ref(w).load(::cuda::std::memory_order_relaxed);
}
__device__ inline bool tagged(unsigned long long v, unsigned tag) { return static_cast<unsigned>(v >> 32) == tag; }
__device__ inline unsigned long long wait_tagged(unsigned long long* w, unsigned tag) {
    unsigned long long v;
    while (!tagged(v = ring_load(w), tag)) {}
    return v;
}

// Calls f(i, data) for each of the nw ring words at `from` that are this thread's (i = rank,
// rank + size, ...), once the word carries `tag`; ring_unroll polls in flight at a time.
template <class F> __device__ inline void ring_take_words(unsigned long long* from, size_t nw, unsigned tag,
                                                          unsigned rank, unsigned size, F&& f) {
    size_t i = rank;
    for (; i + (ring_unroll - 1) * size < nw; i += ring_unroll * size) {
        unsigned long long v[ring_unroll];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) v[u] = ring_load(from + i + u * size);
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u)
            if (!tagged(v[u], tag)) v[u] = wait_tagged(from + i + u * size, tag);
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) f(i + u * size, static_cast<unsigned>(v[u]));
    }
    for (; i < nw; i += size) f(i, static_cast<unsigned>(wait_tagged(from + i, tag)));
}

// Moves n bytes from this PE's ring words at `from` into dst, each word once it has arrived.
__device__ inline void ring_get(void* dst, unsigned long long* from, size_t n, unsigned tag, unsigned rank,
                                unsigned size) {
    auto* bytes = static_cast<unsigned char*>(dst);
    const bool words = (reinterpret_cast<uintptr_t>(dst) & 3) == 0;
    ring_take_words(from, ring_words_for(n), tag, rank, size, [&](size_t i, unsigned v) {
        if (words && 4 * i + 4 <= n) {
            reinterpret_cast<unsigned*>(dst)[i] = v;
        } else {
            for (size_t b = 0; b < 4 && 4 * i + b < n; ++b) bytes[4 * i + b] = static_cast<unsigned char>(v >> (8 * b));
        }
    });
}

// Element i of an array of T in the ring words at `from`, once it has arrived. (Waiting for all of
// them first, many in flight, then reading them again was slower: by 0.5 us for a sum of 8 B and
// 1.3 us for 8 KiB in a block, on 2 H100s.)
template <class T> __device__ inline T ring_element(unsigned long long* from, size_t i, unsigned tag) {
    if constexpr (sizeof(T) == 8) {
        const unsigned long long low = static_cast<unsigned>(wait_tagged(from + 2 * i, tag));
        const unsigned long long high = static_cast<unsigned>(wait_tagged(from + 2 * i + 1, tag));
        return ::cuda::std::bit_cast<T>(low | (high << 32));
    } else if constexpr (sizeof(T) == 4) {
        return ::cuda::std::bit_cast<T>(static_cast<unsigned>(wait_tagged(from + i, tag)));
    } else {
        const size_t byte = i * sizeof(T);
        const unsigned v = static_cast<unsigned>(wait_tagged(from + byte / 4, tag)) >> (8 * (byte % 4));
        if constexpr (sizeof(T) == 1)
            return ::cuda::std::bit_cast<T>(static_cast<unsigned char>(v));
        else
            return ::cuda::std::bit_cast<T>(static_cast<unsigned short>(v));
    }
}

// The gather-type calls through the ring (fcollect, alltoall, reductions, scans): every member
// stores block(m), `bytes` long, into member m's ring, as the me()-th of the call's blocks; then
// take(ring, words, tag) builds its dest from its own ring, where member j's block starts at word
// j * words. Nobody waits for another to enter, and nobody writes another's dest.
template <class G, class Block, class Take>
__device__ inline void exchange_ring(call<G>& k, size_t bytes, Block block, Take take) {
    const size_t words = ring_words_for(bytes);
    const auto span = k.ring_take(words * static_cast<size_t>(k.size()));
    for (int i = 1; i < k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        ring_put(k.ring_of(m) + span.at + k.me() * words, block(m), bytes, span.tag, k.rank(), k.threads());
    }
    k.sync();  // in place, my source is read before my dest is written
    take(k.ring_of(k.me()) + span.at, words, span.tag);
    k.finish();
}

// Broadcast through the ring: the root stores the array into every other member's ring, and goes on
// (it may be calls ahead of the others); each other member takes it from there.
template <class G>
__device__ inline void broadcast_ring(call<G>& k, void* dest, const void* source, size_t bytes, int root) {
    const auto span = k.ring_take(ring_words_for(bytes));
    if (k.me() == root) {
        for (int i = 1; i < k.size(); ++i)
            ring_put(k.ring_of((k.me() + i) % k.size()) + span.at, source, bytes, span.tag, k.rank(), k.threads());
        if (dest != source) copy_bytes(dest, source, bytes, k.rank(), k.threads());
    } else {
        ring_get(dest, k.ring_of(k.me()) + span.at, bytes, span.tag, k.rank(), k.threads());
    }
    k.finish();
}

// ---- the medium stage ------------------------------------------------------------------------
// (device_state.h, gpu_medium_slot.) Calls too large for the ring and small enough for a stage
// half: each member stores its ranges into the receivers' stage, flags them behind one system
// fence, and each receiver moves what it got into its own dest. One hop and a fence; nobody waits
// for anyone to enter.

__device__ inline ishmemi::cuda::gpu_medium_slot* medium_slot(int pe, int slot) {
    return reinterpret_cast<ishmemi::cuda::gpu_medium_slot*>(
               dstate.medium_base + static_cast<long long>(pe - dstate.my_pe) * dstate.peer_stride) +
           slot;
}

// One medium call on a team, as the group that handles parts first, first + step, ... of it sees
// it; every thread constructs it, the leader alone touches counters, flags and acks.
template <class B> class medium_call {
    using slot_t = ishmemi::cuda::gpu_medium_slot;
    static constexpr int parts = slot_t::parts;

  public:
    // bytes: the size of each member's block (a broadcast's array, a gather's block, a reduction's
    // array); blocks are 16-byte aligned in a stage half.
    __device__ medium_call(const B& g, int team, unsigned first, unsigned step, size_t bytes, const char* routine)
        : g_(g),
          t_(*find_team(team)),
          slot_(team),
          first_(first),
          step_(step),
          bytes_(bytes),
          stride_(ishmemi::cuda::medium_stride(bytes)),
          chunk_(ishmemi::cuda::medium_chunk(bytes, dstate.medium_part)),
          with_data_(ishmemi::cuda::medium_parts_with_data(bytes, dstate.medium_part)) {
        sync_group(g_);  // the group's earlier reads of dest and writes of source come first
        unsigned long long c = 0;
        if (rank() == 0) {
            // A group that handles every part is one caller, as in `call`: a second caller of this PE
            // on the team at the same time would share the parts' counters. (The blocks of a library
            // kernel share one call; the stream orders those kernels.)
            if (step_ == 1) claim_team(sync_slot(dstate.my_pe, slot_), team, routine);
            for (unsigned p = first_; p < parts; p += step_) c = ++mine()->part_calls[p].value;  // equal for all p
        }
        c_ = from_leader(g_, c);
        // This call's half last served the call two back: every other member must have read all of it
        // (acks of every part). As a rule they did long ago, and the polls are of my own memory.
        if (c_ > 2) {
            const unsigned waits = parts * static_cast<unsigned>(size() - 1);
            for (unsigned i = rank(); i < waits; i += threads()) {
                auto a = sys_ref(&mine()->acks[i % parts][(me() + 1 + i / parts) % size()]);
                while (a.load(::cuda::std::memory_order_relaxed) < c_ - 2) {}
            }
            sync_group(g_);
        }
    }
    __device__ unsigned rank() const { return rank_in(g_); }
    __device__ unsigned threads() const { return threads_of(g_); }
    __device__ int me() const { return t_.my_index; }
    __device__ int size() const { return t_.size; }
    __device__ size_t stride() const { return stride_; }

    // f(b, e) for each byte range [b, e) of a block that this group handles (one range when it has
    // all parts from `first` on).
    template <class F> __device__ void each_range(F&& f) const {
        if (step_ == 1) {
            if (first_ < with_data_) f(first_ * chunk_, bytes_);
            return;
        }
        for (unsigned p = first_; p < with_data_; p += step_)
            f(p * chunk_, (p + 1) * chunk_ < bytes_ ? (p + 1) * chunk_ : bytes_);
    }
    // My ranges of block `src` into member m's stage half at `at`.
    __device__ void put(int m, size_t at, const void* src) const {
        char* to = half(m) + at;
        each_range([&](size_t b, size_t e) {
            copy_bytes(to + b, static_cast<const char*>(src) + b, e - b, rank(), threads());
        });
    }
    // My ranges of a block from src to dst, both this PE's (dst != src).
    __device__ void copy_own(void* dst, const void* src) const {
        each_range([&](size_t b, size_t e) {
            copy_bytes(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, e - b, rank(), threads());
        });
    }
    // After the puts: the group's stores are complete and visible (one system fence), then my flag of
    // each of my parts with data at every member that `to(m)` names.
    template <class To> __device__ void flag(To to) const {
        sync_group(g_);
        if (rank() == 0) {
            __threadfence_system();
            for (int i = 1; i < size(); ++i) {
                const int m = (me() + i) % size();
                if (!to(m)) continue;
                slot_t* s = slot_of(m);
                for (unsigned p = first_; p < with_data_; p += step_)
                    sys_ref(&s->flags[p][me()]).store(c_, ::cuda::std::memory_order_relaxed);
            }
        }
    }
    // Until every member that `from(j)` names has flagged my parts with data. The group's threads
    // poll the flags at once, relaxed, and each that polled ends with one acquire fence (a group
    // with all 16 parts would otherwise make 16 system-scope acquires one after another).
    template <class From> __device__ void await(From from) const {
        const unsigned mine_parts = first_ < with_data_ ? (with_data_ - first_ + step_ - 1) / step_ : 0;
        const unsigned waits = mine_parts * static_cast<unsigned>(size() - 1);
        bool polled = false;
        for (unsigned i = rank(); i < waits; i += threads()) {
            const int j = (me() + 1 + static_cast<int>(i / mine_parts)) % size();
            if (!from(j)) continue;
            auto f = sys_ref(&mine()->flags[first_ + (i % mine_parts) * step_][j]);
            while (f.load(::cuda::std::memory_order_relaxed) < c_) {}
            polled = true;
        }
        if (polled) ::cuda::atomic_thread_fence(::cuda::std::memory_order_acquire, ::cuda::thread_scope_system);
        sync_group(g_);
    }
    // My ranges of the block at `at` in my own half into dst.
    __device__ void take(void* dst, size_t at) const {
        const char* from = half(me()) + at;
        each_range([&](size_t b, size_t e) {
            copy_bytes<true>(static_cast<char*>(dst) + b, from + b, e - b, rank(), threads());
        });
    }
    // Member j's block in my half (to read with fresh loads).
    __device__ const char* received(int j) const { return half(me()) + j * stride_; }
    // The last step of a call. The group has read what it took (every thread has stored the values
    // it loaded, so the loads are complete): my ack of each of my parts, with data or not, at every
    // other member; a group with every part then leaves the team free for this PE's next caller.
    __device__ void ack() const {
        sync_group(g_);
        if (rank() == 0) {
            for (int i = 1; i < size(); ++i) {
                slot_t* s = slot_of((me() + i) % size());
                for (unsigned p = first_; p < parts; p += step_)
                    sys_ref(&s->acks[p][me()]).store(c_, ::cuda::std::memory_order_relaxed);
            }
            if (step_ == 1) release_team(sync_slot(dstate.my_pe, slot_));
        }
    }

  private:
    __device__ slot_t* mine() const { return medium_slot(dstate.my_pe, slot_); }
    __device__ slot_t* slot_of(int m) const { return medium_slot(t_.start + m * t_.stride, slot_); }
    __device__ char* half(int m) const { return slot_of(m)->stage[c_ % 2]; }
    const B& g_;
    const ishmemi::cuda::device_team& t_;
    int slot_;
    unsigned first_, step_;
    size_t bytes_, stride_, chunk_;
    unsigned with_data_;
    unsigned long long c_ = 0;
};

// Broadcast: the root puts the array into every other member's half; each takes it from there.
template <class B>
__device__ inline void broadcast_medium(const medium_call<B>& k, void* dest, const void* source, int root) {
    if (k.me() == root) {
        for (int i = 1; i < k.size(); ++i) k.put((k.me() + i) % k.size(), 0, source);
        if (dest != source) k.copy_own(dest, source);
        k.flag([](int) { return true; });
    } else {
        k.await([&](int j) { return j == root; });
        k.take(dest, 0);
    }
    k.ack();
}

// The gathers: every member puts block(m) into member m's half as its me()-th block, and takes each
// other member's block j into dest + j * bytes; its own block comes from `mine`.
template <class B, class Block>
__device__ inline void gather_medium(const medium_call<B>& k, char* dest, size_t bytes, const void* mine, Block block) {
    for (int i = 1; i < k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        k.put(m, k.me() * k.stride(), block(m));
    }
    if (dest + k.me() * bytes != mine) k.copy_own(dest + k.me() * bytes, mine);
    k.flag([](int) { return true; });
    k.await([](int) { return true; });
    for (int i = 1; i < k.size(); ++i) {
        const int j = (k.me() + i) % k.size();
        k.take(dest + j * bytes, j * k.stride());
    }
    k.ack();
}

// Runs a call through the stage when it takes it: run(k), with the medium_call of what handles this
// PE's parts - each block of a library kernel's grid its own (block b: parts b, b + blocks, ...), so
// blocks never wait for each other; any other group all of them. It takes the call when the ring
// does not, the team has a stage and the call fits `limit` (its kind's; dstate); that depends on
// the sizes and the team alone, so it is the same on every member whatever its group (the library's
// kernels launch one block per part with data, runtime/cuda/collectives.cu). all_send: every member
// sends its block of `bytes` to every member (all but broadcast). Returns whether it ran the call.
template <class G, class Run> __device__ inline bool via_medium(const G& g, int team, unsigned limit, bool all_send,
                                                                size_t bytes, const char* routine, Run&& run) {
    const auto* t = find_team(team);
    if (!t || t->size > ishmemi::cuda::gpu_sync_slot::max_members) return false;
    const size_t blocks = all_send ? static_cast<size_t>(t->size) : 1;
    if (through_ring<G>(blocks * bytes) || !ishmemi::cuda::medium_takes(team, limit, blocks, bytes)) return false;
    if constexpr (::cuda::std::is_same_v<G, kernel_grid>) {
        const auto block = cg::this_thread_block();
        run(medium_call<cg::thread_block>(block, team, blockIdx.x, gridDim.x, bytes, routine));
    } else {
        run(medium_call<G>(g, team, 0u, 1u, bytes, routine));
    }
    return true;
}

// ---- the relayed broadcast -------------------------------------------------------------------
// A large broadcast on three or more members. When the root alone stored the array into every
// member, n - 1 copies went over the root's links (on 4 H200s, 120 GB/s at 256 MiB against the
// peers' 350). Here the array is cut into pieces, each carried by one member other than the root
// (piece p by the p % (n - 1)-th of them): the root stores each piece into its carrier's dest alone
// and flags it there (pieces[p] = the call's number), and each carrier, as soon as a piece of its
// own is in, stores it on into the other members' dests. So every member's links carry the array
// about once, and the pieces keep the root and the carriers busy at once. The layout depends on the
// size, the team's size and ISHMEM_GPU_BROADCAST_PIECE_BYTES alone, so it is the same on every
// member whatever its group.
// (The cut: device_state.h, plan_relay.)
template <class G>
__device__ inline void broadcast_relayed(call<G>& k, char* dest, const char* source, size_t bytes, int root) {
    const int n = k.size();
    const ishmemi::cuda::relay_plan plan = ishmemi::cuda::plan_relay(bytes, n, dstate.broadcast_piece);
    auto carrier = [&](int p) {
        const int c = p % (n - 1);
        return c < root ? c : c + 1;
    };
    auto piece_at = [&](int p, size_t* off) -> size_t {  // returns the piece's bytes
        *off = static_cast<size_t>(p) * plan.piece;
        return *off >= bytes ? 0 : bytes - *off < plan.piece ? bytes - *off : plan.piece;
    };
    if (k.me() == root) {
        if (k.leader()) k.await_others(ready);  // every dest may be written
        k.sync();
        k.share_number();
        for (int p = static_cast<int>(k.lane()); p < plan.count; p += static_cast<int>(k.lanes())) {
            size_t off;
            const size_t len = piece_at(p, &off);
            const int m = carrier(p);
            // To the carrier, and into my own dest (skipped word by word when in place).
            store_to(k.lane_rank(), k.lane_threads(), source + off, len, 2,
                     reinterpret_cast<uintptr_t>(dest + off) | reinterpret_cast<uintptr_t>(source + off),
                     [&](int j) { return j == 0 ? k.at(dest, m) + off : dest + off; });
            k.piece_stored(p, m);
        }
    } else {
        if (k.leader()) k.tell(ready, root);
        k.sync();
        k.share_number();
        // The other carriers, from the member after this one, the root left out.
        const int root_at = (root - k.me() - 1 + n) % n;
        auto other = [&](int j) { return (k.me() + 1 + j + (j >= root_at ? 1 : 0)) % n; };
        // My pieces: the j-th of them (piece mine + j (n - 1)) in lane j % lanes.
        const int mine = k.me() < root ? k.me() : k.me() - 1, step = (n - 1) * static_cast<int>(k.lanes());
        for (int p = mine + (n - 1) * static_cast<int>(k.lane()); p < plan.count; p += step) {
            size_t off;
            const size_t len = piece_at(p, &off);
            k.await_piece(p);
            store_to(k.lane_rank(), k.lane_threads(), dest + off, len, n - 2, reinterpret_cast<uintptr_t>(dest + off),
                     [&](int j) { return k.at(dest, other(j)) + off; });
        }
        k.sync();  // every thread's (every block's) stores are in
        if (k.leader()) {
            k.tell_others(done, root);
            k.await_others(done, root);  // the other carriers' pieces are in my dest
        }
    }
    k.finish();
}

template <class G>
__device__ inline int broadcast(const G& g, int team, void* dest, const void* source, size_t bytes, int root) {
    if (bytes == 0) return 0;
    if (via_medium(g, team, dstate.medium_limit, false, bytes, "ishmem_broadcast",
                   [&](const auto& k) { broadcast_medium(k, dest, source, root); }))
        return 0;
    call<G> k(g, team, "ishmem_broadcast");
    if (through_ring<G>(bytes)) {
        broadcast_ring(k, dest, source, bytes, root);
        return 0;
    }
    if (ishmemi::cuda::relays(k.size(), dstate.broadcast_piece)) {
        broadcast_relayed(k, static_cast<char*>(dest), static_cast<const char*>(source), bytes, root);
        return 0;
    }
    if (k.me() == root) {
        if (k.leader()) k.await_others(ready);
        k.sync();
        push_same_to_all(k, static_cast<char*>(dest), 0, source, bytes);
        k.signal_done();
    } else if (k.leader()) {
        k.tell(ready, root);
        k.await(done, root);
    }
    k.finish();
    return 0;
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

// A gather's take from the ring: member j's block to dest + j * bytes, this PE's own from `mine`.
template <class G> __device__ inline void take_blocks(const call<G>& k, char* dest, const void* mine, size_t bytes,
                                                      unsigned long long* ring, size_t words, unsigned tag) {
    for (int j = 0; j < k.size(); ++j) {
        if (j == k.me()) {
            if (dest + j * bytes != mine) copy_bytes(dest + j * bytes, mine, bytes, k.rank(), k.threads());
        } else {
            ring_get(dest + j * bytes, ring + j * words, bytes, tag, k.rank(), k.threads());
        }
    }
}

template <class G> __device__ inline int fcollect(const G& g, int team, void* dest, const void* source, size_t bytes) {
    if (bytes == 0) return 0;
    if (via_medium(g, team, dstate.medium_gather_limit, true, bytes, "ishmem_fcollect", [&](const auto& k) {
            gather_medium(k, static_cast<char*>(dest), bytes, source, [&](int) { return source; });
        }))
        return 0;
    call<G> k(g, team, "ishmem_fcollect");
    if (through_ring<G>(bytes * k.size())) {
        exchange_ring(
            k, bytes, [&](int) { return source; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                take_blocks(k, static_cast<char*>(dest), source, bytes, ring, words, tag);
            });
        return 0;
    }
    exchange_all(k, [&] { push_same_to_all(k, static_cast<char*>(dest), k.me() * bytes, source, bytes); });
    return 0;
}

template <class G> __device__ inline int alltoall(const G& g, int team, void* dest, const void* source, size_t bytes) {
    if (bytes == 0) return 0;
    const char* src = static_cast<const char*>(source);
    if (via_medium(g, team, dstate.medium_gather_limit, true, bytes, "ishmem_alltoall", [&](const auto& k) {
            gather_medium(k, static_cast<char*>(dest), bytes, src + k.me() * bytes,
                          [&](int m) { return src + m * bytes; });
        }))
        return 0;
    call<G> k(g, team, "ishmem_alltoall");
    if (through_ring<G>(bytes * k.size())) {
        exchange_ring(
            k, bytes, [&](int m) { return src + m * bytes; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                take_blocks(k, static_cast<char*>(dest), src + k.me() * bytes, bytes, ring, words, tag);
            });
        return 0;
    }
    exchange_all(k, [&] {
        push_to_all(k, static_cast<char*>(dest), k.me() * bytes, bytes,
                    [&](int m) { return static_cast<const char*>(source) + m * bytes; });
    });
    return 0;
}

// Counts differ per member (0 included), so every member takes part whatever its count.
template <class G> __device__ inline int collect(const G& g, int team, void* dest, const void* source, size_t bytes) {
    call<G> k(g, team, "ishmem_collect");
    if (k.leader()) k.publish_count(bytes);
    exchange_all(k, [&] {
        size_t offset = 0;
        for (int m = 0; m < k.me(); ++m) offset += k.count_of(m);
        push_same_to_all(k, static_cast<char*>(dest), offset, source, bytes);
    });
    return 0;
}

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

// Reductions (Scan 0) and scans (1 inclusive, 2 exclusive) over chunk me() of the array: the
// elements are read from every member before any of their results is stored.
enum scan_kind : int { no_scan, inclusive, exclusive };

// N elements of T that move as one load or store: 16 bytes (int4) when the arrays allow it.
template <class T, int N> struct alignas(N * sizeof(T)) lanes { T e[N]; };
template <class T, int N> __device__ inline lanes<T, N> load_lanes(const T* p) {
    if constexpr (N == 1) {
        return {load_fresh(p)};
    } else {
        static_assert(N * sizeof(T) == 16, "vector lanes are 16 bytes");
        return ::cuda::std::bit_cast<lanes<T, N>>(__ldcg(reinterpret_cast<const int4*>(p)));
    }
}
template <class T, int N> __device__ inline void store_lanes(T* p, const lanes<T, N>& v) {
    if constexpr (N == 1)
        *p = v.e[0];
    else
        *reinterpret_cast<int4*>(p) = ::cuda::std::bit_cast<int4>(v);
}
template <int Op, class T, int N> __device__ inline lanes<T, N> combine_lanes(lanes<T, N> a, const lanes<T, N>& b) {
#pragma unroll
    for (int i = 0; i < N; ++i) a.e[i] = combine<Op>(a.e[i], b.e[i]);
    return a;
}

// U units of N elements per thread, at units j, j + stride, ...: the U loads of one member are in
// flight together (a load from a peer takes about a microsecond; one at a time, a block would move
// a few GB/s).
template <int Op, int Scan, int N, int U, class T, class G>
__device__ inline void combine_units(const call<G>& k, T* dest, const T* source, size_t j, size_t stride) {
    using L = lanes<T, N>;
    L acc[U], v[U];
    if constexpr (Scan == no_scan) {
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] = load_lanes<T, N>(k.at(source, 0) + (j + u * stride) * N);
        for (int m = 1; m < k.size(); ++m) {
            const T* s = k.at(source, m);
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load_lanes<T, N>(s + (j + u * stride) * N);
#pragma unroll
            for (int u = 0; u < U; ++u) acc[u] = combine_lanes<Op>(acc[u], v[u]);
        }
        for (int m = 0; m < k.size(); ++m) {
            T* d = k.at(dest, m);
#pragma unroll
            for (int u = 0; u < U; ++u) store_lanes(d + (j + u * stride) * N, acc[u]);
        }
    } else {
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] = L{};
        for (int m = 0; m < k.size(); ++m) {
            const T* s = k.at(source, m);
            T* d = k.at(dest, m);
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load_lanes<T, N>(s + (j + u * stride) * N);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if constexpr (Scan == exclusive) store_lanes(d + (j + u * stride) * N, acc[u]);
                acc[u] = combine_lanes<Op>(acc[u], v[u]);
                if constexpr (Scan == inclusive) store_lanes(d + (j + u * stride) * N, acc[u]);
            }
        }
    }
}

// Units [b, e) of N elements, shared by the group's threads.
template <int Op, int Scan, int N, class T, class G>
__device__ inline void combine_range(const call<G>& k, T* dest, const T* source, size_t b, size_t e) {
    constexpr int U = 4;
    const size_t stride = k.threads();
    size_t j = b + k.rank();
    for (; j + (U - 1) * stride < e; j += U * stride) combine_units<Op, Scan, N, U>(k, dest, source, j, stride);
    for (; j < e; j += stride) combine_units<Op, Scan, N, 1>(k, dest, source, j, stride);
}

// The reductions and scans through the stage: every member puts its source into the half of each
// member that needs it, and each combines, in team order, its own source and what it received over
// its ranges (units of N elements, [from, to)), so results are bit-identical on every PE. In place,
// a thread reads each unit before it writes it.
template <int Op, int Scan, int N, class T, class B>
__device__ inline void combine_received(const medium_call<B>& k, T* dest, const T* source, size_t from, size_t to) {
    using L = lanes<T, N>;
    auto at = [&](int j, size_t u) {
        return load_lanes<T, N>((j == k.me() ? source : reinterpret_cast<const T*>(k.received(j))) + u * N);
    };
    for (size_t u = from + k.rank(); u < to; u += k.threads()) {
        if constexpr (Scan == no_scan) {
            L v = at(0, u);
            for (int j = 1; j < k.size(); ++j) v = combine_lanes<Op>(v, at(j, u));
            store_lanes(dest + u * N, v);
        } else {
            L acc{};
            const int last = Scan == inclusive ? k.me() : k.me() - 1;
            for (int j = 0; j <= last; ++j) acc = combine_lanes<Op>(acc, at(j, u));
            store_lanes(dest + u * N, acc);
        }
    }
}
template <int Op, int Scan, class T, class B>
__device__ inline void combine_medium(const medium_call<B>& k, T* dest, const T* source) {
    auto needs = [&](int m, int j) {  // member m combines member j's source
        return Scan == no_scan || (Scan == inclusive ? j <= m : j < m);
    };
    for (int i = 1; i < k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        if (needs(m, k.me())) k.put(m, k.me() * k.stride(), source);
    }
    k.flag([&](int m) { return needs(m, k.me()); });
    k.await([&](int j) { return needs(k.me(), j); });
    constexpr int V = 16 / sizeof(T);
    const bool vec = ((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) & 15) == 0;
    k.each_range([&](size_t b, size_t e) {  // b is a multiple of 16 bytes
        const size_t lo = b / sizeof(T), hi = e / sizeof(T);
        if (vec) {
            const size_t units = (hi - lo) / V;
            combine_received<Op, Scan, V>(k, dest, source, lo / V, lo / V + units);
            combine_received<Op, Scan, 1>(k, dest, source, lo + units * V, hi);
        } else {
            combine_received<Op, Scan, 1>(k, dest, source, lo, hi);
        }
    });
    k.ack();
}

template <int Op, int Scan, class T, class G>
__device__ inline int combine_chunks(const G& g, int team, T* dest, const T* source, size_t n, const char* routine) {
    if (n == 0) return 0;
    if (via_medium(g, team, dstate.medium_reduce_limit, true, n * sizeof(T), routine,
                   [&](const auto& k) { combine_medium<Op, Scan>(k, dest, source); }))
        return 0;
    call<G> k(g, team, routine);
    if (through_ring<G>(n * sizeof(T) * k.size())) {
        // Every member's whole source comes to every member, which combines in team order (so the
        // results are bit-identical everywhere); in place, each element is read before it is written.
        exchange_ring(
            k, n * sizeof(T), [&](int) { return source; },
            [&](unsigned long long* ring, size_t words, unsigned tag) {
                auto at = [&](int j, size_t i) {
                    return j == k.me() ? source[i] : ring_element<T>(ring + j * words, i, tag);
                };
                for (size_t i = k.rank(); i < n; i += k.threads()) {
                    if constexpr (Scan == no_scan) {
                        T v = at(0, i);
                        for (int j = 1; j < k.size(); ++j) v = combine<Op>(v, at(j, i));
                        dest[i] = v;
                    } else {
                        T acc{};
                        const int last = Scan == inclusive ? k.me() : k.me() - 1;
                        for (int j = 0; j <= last; ++j) acc = combine<Op>(acc, at(j, i));
                        dest[i] = acc;
                    }
                }
            });
        return 0;
    }
    if (k.leader()) {
        k.tell_others(ready);
        k.await_others(ready);
    }
    k.sync();
    // Chunks of whole 16-byte units when both arrays are 16-byte aligned (the same on every PE:
    // the heap is symmetric); the elements past the last whole unit go to the last member.
    constexpr int V = 16 / sizeof(T);
    const bool vec = ((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) & 15) == 0;
    const size_t unit = vec ? V : 1, units = n / unit;
    const size_t b = units * k.me() / k.size(), e = units * (k.me() + 1) / k.size();
    if (vec) {
        combine_range<Op, Scan, V>(k, dest, source, b, e);
        if (k.me() == k.size() - 1) combine_range<Op, Scan, 1>(k, dest, source, units * V, n);
    } else {
        combine_range<Op, Scan, 1>(k, dest, source, b, e);
    }
    k.signal_done();
    if (k.leader()) k.await_others(done);
    k.finish();
    return 0;
}

}  // namespace coll

// ---- what the generated entry points call ------------------------------------------------------

template <class T> __device__ inline int alltoall(int team, T* dest, const T* source, size_t nelems) {
    return coll::alltoall(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int alltoall_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::alltoall(g, team, dest, source, nelems * sizeof(T));
}
template <class T> __device__ inline int broadcast(int team, T* dest, const T* source, size_t nelems, int root) {
    return coll::broadcast(single_thread{}, team, dest, source, nelems * sizeof(T), root);
}
template <class T, class G>
__device__ inline int broadcast_work_group(int team, T* dest, const T* source, size_t nelems, int root, const G& g) {
    return coll::broadcast(g, team, dest, source, nelems * sizeof(T), root);
}
template <class T> __device__ inline int collect(int team, T* dest, const T* source, size_t nelems) {
    return coll::collect(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int collect_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::collect(g, team, dest, source, nelems * sizeof(T));
}
template <class T> __device__ inline int fcollect(int team, T* dest, const T* source, size_t nelems) {
    return coll::fcollect(single_thread{}, team, dest, source, nelems * sizeof(T));
}
template <class T, class G>
__device__ inline int fcollect_work_group(int team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::fcollect(g, team, dest, source, nelems * sizeof(T));
}

#define ISHMEMI_DEVICE_REDUCTION(OP)                                                                               \
    template <class T> __device__ inline int OP##_reduce(int team, T* dest, const T* source, size_t nreduce) {     \
        return coll::combine_chunks<coll::op_##OP, coll::no_scan>(single_thread{}, team, dest, source, nreduce,    \
                                                                  "ishmem_" #OP "_reduce");                        \
    }                                                                                                              \
    template <class T, class G>                                                                                    \
    __device__ inline int OP##_reduce_work_group(int team, T* dest, const T* source, size_t nreduce, const G& g) { \
        return coll::combine_chunks<coll::op_##OP, coll::no_scan>(g, team, dest, source, nreduce,                  \
                                                                  "ishmemx_" #OP "_reduce_work_group");            \
    }
ISHMEMI_DEVICE_REDUCTION(and)
ISHMEMI_DEVICE_REDUCTION(or)
ISHMEMI_DEVICE_REDUCTION(xor)
ISHMEMI_DEVICE_REDUCTION(max)
ISHMEMI_DEVICE_REDUCTION(min)
ISHMEMI_DEVICE_REDUCTION(sum)
ISHMEMI_DEVICE_REDUCTION(prod)
#undef ISHMEMI_DEVICE_REDUCTION

template <class T> __device__ inline int sum_inscan(int team, T* dest, const T* source, size_t nelems) {
    return coll::combine_chunks<coll::op_sum, coll::inclusive>(single_thread{}, team, dest, source, nelems,
                                                               "ishmem_sum_inscan");
}
template <class T> __device__ inline int sum_exscan(int team, T* dest, const T* source, size_t nelems) {
    return coll::combine_chunks<coll::op_sum, coll::exclusive>(single_thread{}, team, dest, source, nelems,
                                                               "ishmem_sum_exscan");
}

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
