// Data collectives in device code on a team with members on other nodes (device_team::spans_nodes).
// The one-node paths store into every member's buffers; a member on another node has no mapping,
// so here data moves by put: stores over NVLink to the members of this node (the whole group), a
// posted put through the proxy to the others (the group's leader), and a team barrier (whose quiet
// completes the posted puts, and whose signals reach the other nodes the same way) between phases:
//   - broadcast, fcollect, alltoall, collect: a barrier (every dest may be written; collect: every
//     member's count has arrived), each member puts its block(s) into the members' dests, a barrier
//     (every block is in place);
//   - reductions and scans: in chunks that fit the team's ring, which such a team never uses
//     otherwise (its calls all come here, and a new team's slot starts zeroed): a barrier (the ring
//     is free, every source ready), each member puts its chunk into slot `me` of the ring of each
//     member that needs it (itself included), a barrier, and each combines the slots in team order
//     into its own dest, so results are bit-identical on every PE and in place is safe.
// The same code serves one thread, a _work_group and the library's one-block kernels behind the
// host-called and _on_queue forms (runtime/cuda/collectives.cu launches one block for such teams).
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/remote.cuh"
#include "ishmem/cuda/sync.cuh"

namespace ishmemi::dev {
namespace coll {

// Whether the team's data collectives take this path (the team's members are the same everywhere,
// so every member decides alike).
__device__ inline bool over_nodes(int team) {
    const auto* t = find_team(team);
    return t != nullptr && t->spans_nodes != 0;
}

template <class G> class nodes_call {
  public:
    __device__ nodes_call(const G& g, int team, const char* routine)
        : g_(g), t_(*find_team(team)), team_(team), mine_(sync_slot(dstate.my_pe, team)) {
        sync_group(g_);  // the group's earlier reads of dest and writes of source come first
        if (leader()) claim_team(mine_, team, routine);  // (and the team's size, with device checks)
    }
    __device__ bool leader() const { return rank_in(g_) == 0; }
    __device__ unsigned rank() const { return rank_in(g_); }
    __device__ unsigned threads() const { return threads_of(g_); }
    __device__ void sync() const { sync_group(g_); }
    __device__ int me() const { return t_.my_index; }
    __device__ int size() const { return t_.size; }
    __device__ int pe_of(int m) const { return t_.start + m * t_.stride; }

    // Every member has reached the same point, and what each stored or put before is in place.
    __device__ void barrier() const {
        sync_group(g_);
        if (leader()) team_barrier(t_, team_);
        sync_group(g_);
    }
    // `bytes` from src (here) to member m's copy of the symmetric dst, in place by the next barrier.
    __device__ void put_to(int m, char* dst, const char* src, size_t bytes) const {
        if (bytes == 0) return;
        const int pe = pe_of(m);
        if (is_remote(pe)) {
            if (leader()) remote_put(dst, src, bytes, pe, true);
        } else if (char* d = peer_ptr(dst, pe); d != src) {
            copy_bytes(d, src, bytes, rank(), threads());
        }
    }
    // Leader only: v into member m's copy of the symmetric word at p, in place by the next barrier.
    __device__ void store_to(int m, unsigned long long* p, unsigned long long v) const {
        const int pe = pe_of(m);
        if (is_remote(pe))
            remote_amo_post(ishmemi::proxy::rmw_store, p, v, pe);
        else
            sys_ref(peer_ptr(p, pe)).store(v, ::cuda::std::memory_order_relaxed);
    }
    // collect: this member's count at every member, and member m's as it arrived here.
    __device__ void publish_count(unsigned long long n) const {
        if (leader())
            for (int m = 0; m < size(); ++m) store_to(m, &mine_->counts[me()], n);
    }
    __device__ unsigned long long count_of(int m) const {
        return sys_ref(&mine_->counts[m]).load(::cuda::std::memory_order_relaxed);
    }
    // The scratch of the reductions: this PE's ring (a symmetric address), and its bytes.
    __device__ char* scratch() const { return reinterpret_cast<char*>(mine_->ring); }
    static constexpr size_t scratch_bytes = ishmemi::cuda::gpu_sync_slot::ring_words * sizeof(unsigned long long);

    __device__ void finish() const {
        sync_group(g_);
        if (leader()) release_team(mine_);
        sync_group(g_);
    }

  private:
    const G& g_;
    const ishmemi::cuda::device_team& t_;
    int team_;
    ishmemi::cuda::gpu_sync_slot* mine_;
};

template <class G>
__device__ inline int broadcast_nodes(const G& g, int team, void* dest, const void* source, size_t bytes, int root) {
    nodes_call<G> k(g, team, "ishmem_broadcast");
    k.barrier();  // every dest may be written
    if (k.me() == root)
        for (int i = 1; i <= k.size(); ++i)  // from the member after the root; its own dest last
            k.put_to((k.me() + i) % k.size(), static_cast<char*>(dest), static_cast<const char*>(source), bytes);
    k.barrier();
    k.finish();
    return 0;
}

// fcollect and alltoall: member m gets block(m) at offset me * bytes of its dest.
template <class G, class Block>
__device__ inline int gather_nodes(const G& g, int team, void* dest, size_t bytes, Block block, const char* routine) {
    nodes_call<G> k(g, team, routine);
    k.barrier();
    for (int i = 1; i <= k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        k.put_to(m, static_cast<char*>(dest) + k.me() * bytes, block(m), bytes);
    }
    k.barrier();
    k.finish();
    return 0;
}

template <class G>
__device__ inline int collect_nodes(const G& g, int team, void* dest, const void* source, size_t bytes) {
    nodes_call<G> k(g, team, "ishmem_collect");
    k.publish_count(bytes);
    k.barrier();  // every count is in, every dest may be written
    size_t offset = 0;
    for (int m = 0; m < k.me(); ++m) offset += k.count_of(m);
    for (int i = 1; i <= k.size(); ++i)
        k.put_to((k.me() + i) % k.size(), static_cast<char*>(dest) + offset, static_cast<const char*>(source), bytes);
    k.barrier();
    k.finish();
    return 0;
}

// Reductions (Scan no_scan) and scans.
template <int Op, int Scan, class T, class G>
__device__ inline int combine_nodes(const G& g, int team, T* dest, const T* source, size_t n, const char* routine) {
    nodes_call<G> k(g, team, routine);
    // Member m combines member j's chunk: all of them, or those up to it (inclusive) or before it.
    auto needs = [](int m, int j) { return Scan == no_scan || (Scan == inclusive ? j <= m : j < m); };
    // Elements per member's slot of the ring, whole 16-byte units.
    const size_t slot_bytes = nodes_call<G>::scratch_bytes / static_cast<size_t>(k.size()) / 16 * 16;
    const size_t per = slot_bytes / sizeof(T);
    char* ring = k.scratch();
    for (size_t lo = 0; lo < n; lo += per) {
        const size_t len = n - lo < per ? n - lo : per;
        k.barrier();  // every member has combined the last chunk out of its ring
        for (int i = 0; i < k.size(); ++i) {
            const int m = (k.me() + i) % k.size();
            if (needs(m, k.me()))
                k.put_to(m, ring + k.me() * slot_bytes, reinterpret_cast<const char*>(source + lo), len * sizeof(T));
        }
        k.barrier();  // every chunk this member needs is in its ring
        for (size_t e = k.rank(); e < len; e += k.threads()) {
            T acc{};
            bool first = true;
            for (int j = 0; j < k.size(); ++j) {
                if (!needs(k.me(), j)) continue;
                const T v = load_fresh(reinterpret_cast<const T*>(ring + j * slot_bytes) + e);
                acc = first ? v : combine<Op>(acc, v);
                first = false;
            }
            dest[lo + e] = acc;  // an exclusive scan's first member: zero
        }
    }
    k.finish();
    return 0;
}

}  // namespace coll
}  // namespace ishmemi::dev
