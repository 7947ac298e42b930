// broadcast in device code: through the ring, the medium stage, relayed or direct.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/medium.cuh"
#include "ishmem/cuda/coll/nodes.cuh"
#include "ishmem/cuda/coll/ring.cuh"

namespace ishmemi::dev {
namespace coll {

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
    if (over_nodes(team)) return broadcast_nodes(g, team, dest, source, bytes, root);
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

}  // namespace coll

// ---- what the generated entry points call ------------------------------------------------------

template <class T> __device__ inline int broadcast(int team, T* dest, const T* source, size_t nelems, int root) {
    return coll::broadcast(single_thread{}, team, dest, source, nelems * sizeof(T), root);
}
template <class T, class G>
__device__ inline int broadcast_work_group(int team, T* dest, const T* source, size_t nelems, int root, const G& g) {
    return coll::broadcast(g, team, dest, source, nelems * sizeof(T), root);
}
}  // namespace ishmemi::dev
