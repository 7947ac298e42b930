// The device collectives' medium stage: calls too large for the ring, small enough for a stage half.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/ring.cuh"

namespace ishmemi::dev {
namespace coll {

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

}  // namespace coll

}  // namespace ishmemi::dev
