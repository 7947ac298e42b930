// Data collectives in device code on a team with members on other nodes (device_team::spans_nodes).
// The one-node paths store into every member's buffers; a member on another node has no mapping,
// so here data moves by put: stores over NVLink to the members of this node (the whole group), a
// posted put through the proxy to the others (the group's leader), and a team barrier (whose quiet
// completes the posted puts, and whose signals reach the other nodes the same way) between phases:
//   - broadcast, fcollect, alltoall, collect: a barrier (every dest may be written; collect: every
//     member's count has arrived), each member puts its block(s) into the members' dests, a barrier
//     (every block is in place);
//   - broadcast, fcollect and collect in two levels where some node has two or more members
//     (device_team::node_levels): across nodes a block goes to one member of each node, the node's
//     first in team order, and after the second barrier that member copies what it received from
//     other nodes to the other members of its node over NVLink and flags each (done[first] = the
//     barrier's epoch, the same count on every member); they wait for the flag. Bytes between
//     nodes drop by the members a node has; the cost is one NVLink copy and a flag, no barrier
//     over the nodes more. Reductions in two levels send one partial per node instead (see
//     reduce_levels). alltoall sends each member different data, and a scan's members each need
//     the chunks before them, so they stay in one level;
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

    // Two levels (device_team::node_levels): whether member m is on this PE's node, whether it is
    // its node's first, and whether a sender puts to it directly (this node's members and each
    // other node's first; in one level, every member).
    __device__ bool levels() const { return t_.node_levels != 0; }
    __device__ bool on_my_node(int m) const { return bit(t_.my_node, m); }
    __device__ bool node_first(int m) const { return bit(t_.node_firsts, m); }
    __device__ bool reaches(int m) const { return !levels() || on_my_node(m) || node_first(m); }
    // This node's first member (in team order).
    __device__ int node_first_here() const {
        return t_.my_node[0] ? __ffsll(static_cast<long long>(t_.my_node[0])) - 1
                             : 64 + __ffsll(static_cast<long long>(t_.my_node[1])) - 1;
    }
    // Flags between the members of a node, counted by the team barrier just passed (every member
    // has done as many on the slot, and the count only grows): tell member m (of this node) that
    // what the group stored into its memory is in place, and wait until member m has told this PE.
    __device__ void tell(int m) const {
        sync_group(g_);  // every thread's stores before the flag (a release is cumulative)
        if (leader())
            sys_ref(&sync_slot(pe_of(m), team_)->done[me()])
                .store(mine_->epoch.value, ::cuda::std::memory_order_release);
    }
    __device__ void wait_told(int m) const {
        if (leader()) {
            auto flag = sys_ref(&mine_->done[m]);
            while (flag.load(::cuda::std::memory_order_acquire) < mine_->epoch.value) {}
        }
        sync_group(g_);
    }
    // The second level, after the barrier that brought the other nodes' data to this node's first
    // member: it copies the byte ranges that `ranges` names (ranges(copy) calls copy(offset, len)
    // for each, offsets into dest) to every other member of its node and tells each; they wait.
    template <class Ranges> __device__ void pass_on(char* dest, Ranges ranges) const {
        const int first = node_first_here();
        if (me() != first) return wait_told(first);
        sync_group(g_);  // the group's own stores into dest (a reduction's result) first
        for (int m = 0; m < size(); ++m) {
            if (m == me() || !on_my_node(m)) continue;
            const int pe = pe_of(m);
            ranges([&](size_t off, size_t len) {
                copy_bytes(peer_ptr(dest + off, pe), dest + off, len, rank(), threads());
            });
            tell(m);
        }
    }
    // Runs [lo, hi) of consecutive members on other nodes than this PE's: lo_hi(lo, hi) for each.
    template <class F> __device__ void other_node_runs(F&& lo_hi) const {
        for (int m = 0; m < size();) {
            if (on_my_node(m)) {
                ++m;
                continue;
            }
            const int lo = m;
            while (m < size() && !on_my_node(m)) ++m;
            lo_hi(lo, m);
        }
    }

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
    __device__ static bool bit(const unsigned long long (&mask)[2], int m) { return (mask[m >> 6] >> (m & 63)) & 1ull; }

    const G& g_;
    const ishmemi::cuda::device_team& t_;
    int team_;
    ishmemi::cuda::gpu_sync_slot* mine_;
};

template <class G>
__device__ inline int broadcast_nodes(const G& g, int team, void* dest, const void* source, size_t bytes, int root) {
    nodes_call<G> k(g, team, "ishmem_broadcast");
    char* d = static_cast<char*>(dest);
    k.barrier();  // every dest may be written
    if (k.me() == root)
        for (int i = 1; i <= k.size(); ++i) {  // from the member after the root; its own dest last
            const int m = (k.me() + i) % k.size();
            if (k.reaches(m)) k.put_to(m, d, static_cast<const char*>(source), bytes);
        }
    k.barrier();
    if (k.levels() && !k.on_my_node(root)) k.pass_on(d, [&](auto copy) { copy(0, bytes); });
    k.finish();
    return 0;
}

// fcollect and alltoall: member m gets block(m) at offset me * bytes of its dest. With the same
// block for every member (fcollect), in two levels where the team has them.
template <class G, class Block> __device__ inline int gather_nodes(const G& g, int team, void* dest, size_t bytes,
                                                                   Block block, bool same_block, const char* routine) {
    nodes_call<G> k(g, team, routine);
    const bool levels = same_block && k.levels();
    char* d = static_cast<char*>(dest);
    k.barrier();
    for (int i = 1; i <= k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        if (!levels || k.reaches(m)) k.put_to(m, d + k.me() * bytes, block(m), bytes);
    }
    k.barrier();
    if (levels)
        k.pass_on(d,
                  [&](auto copy) { k.other_node_runs([&](int lo, int hi) { copy(lo * bytes, (hi - lo) * bytes); }); });
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
    char* d = static_cast<char*>(dest);
    for (int i = 1; i <= k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        if (k.reaches(m)) k.put_to(m, d + offset, static_cast<const char*>(source), bytes);
    }
    k.barrier();
    if (k.levels())
        k.pass_on(d, [&](auto copy) {
            size_t at = 0;  // offset of member m's block
            int m = 0;
            k.other_node_runs([&](int lo, int hi) {
                for (; m < lo; ++m) at += k.count_of(m);
                size_t len = 0;
                for (; m < hi; ++m) len += k.count_of(m);
                copy(at, len);
                at += len;
            });
        });
    k.finish();
    return 0;
}

// Member j's value value(j) combined over the members that take(j) names, in team order (every
// member that combines the same values gets the same bits); T{} where none is taken.
template <int Op, class T, class Take, class Value>
__device__ inline T combine_members(int size, Take take, Value value) {
    T acc{};
    bool any = false;
    for (int j = 0; j < size; ++j) {
        if (!take(j)) continue;
        const T v = value(j);
        acc = any ? combine<Op>(acc, v) : v;
        any = true;
    }
    return acc;
}

// Reductions in two levels (device_team::node_levels), chunk by chunk through the rings: the
// members of a node put their chunks into the ring of its first member over NVLink and tell it;
// it combines them in team order into the node's partial and puts that into slot `first` of the
// ring of every node's first member; after a barrier over the nodes each first member combines
// the nodes' partials in team order, so every node gets the same bits, and passes the result on
// to the members of its node. Between nodes go partials, one per node, instead of every member's
// chunk to every member.
template <int Op, class T, class G>
__device__ inline void reduce_levels(const nodes_call<G>& k, T* dest, const T* source, size_t n) {
    const size_t slot_bytes = nodes_call<G>::scratch_bytes / static_cast<size_t>(k.size()) / 16 * 16;
    const size_t per = slot_bytes / sizeof(T);
    char* ring = k.scratch();
    const int first = k.node_first_here();
    auto slot = [&](int j) { return reinterpret_cast<T*>(ring + j * slot_bytes); };
    for (size_t lo = 0; lo < n; lo += per) {
        const size_t len = n - lo < per ? n - lo : per;
        k.barrier();  // every ring is free (its last chunk combined), every source ready
        if (k.me() != first) {
            k.put_to(first, ring + k.me() * slot_bytes, reinterpret_cast<const char*>(source + lo), len * sizeof(T));
            k.tell(first);
        } else {
            for (int m = 0; m < k.size(); ++m)
                if (m != k.me() && k.on_my_node(m)) k.wait_told(m);
            for (size_t e = k.rank(); e < len; e += k.threads())  // this node's partial, into slot me
                slot(k.me())[e] = combine_members<Op, T>(
                    k.size(), [&](int j) { return k.on_my_node(j); },
                    [&](int j) { return j == k.me() ? source[lo + e] : load_fresh(slot(j) + e); });
            k.sync();
            if (k.leader()) __threadfence_system();  // the partial before the proxy's copies read it
            k.sync();
            for (int m = 0; m < k.size(); ++m)
                if (k.node_first(m) && !k.on_my_node(m))
                    k.put_to(m, ring + k.me() * slot_bytes, ring + k.me() * slot_bytes, len * sizeof(T));
        }
        k.barrier();  // every node's partial is in every first member's ring
        if (k.me() == first)
            for (size_t e = k.rank(); e < len; e += k.threads())
                dest[lo + e] = combine_members<Op, T>(
                    k.size(), [&](int j) { return k.node_first(j); }, [&](int j) { return load_fresh(slot(j) + e); });
        k.pass_on(reinterpret_cast<char*>(dest), [&](auto copy) { copy(lo * sizeof(T), len * sizeof(T)); });
    }
}

// Reductions (Scan no_scan) and scans.
template <int Op, int Scan, class T, class G>
__device__ inline int combine_nodes(const G& g, int team, T* dest, const T* source, size_t n, const char* routine) {
    nodes_call<G> k(g, team, routine);
    if (Scan == no_scan && k.levels()) {
        reduce_levels<Op>(k, dest, source, n);
        k.finish();
        return 0;
    }
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
        k.barrier();                                          // every chunk this member needs is in its ring
        for (size_t e = k.rank(); e < len; e += k.threads())  // an exclusive scan's first member: zero
            dest[lo + e] = combine_members<Op, T>(
                k.size(), [&](int j) { return needs(k.me(), j); },
                [&](int j) { return load_fresh(reinterpret_cast<const T*>(ring + j * slot_bytes) + e); });
    }
    k.finish();
    return 0;
}

}  // namespace coll
}  // namespace ishmemi::dev
