// Collectives over a team: team_sync, alltoall, broadcast, collect, fcollect, reductions and scans.
//
// Every PE of the host backend maps every peer's heap, so the algorithms move data by pulling it
// straight from the peers' symmetric buffers between team barriers:
//   - a first barrier: every member has entered, so its source is ready to read;
//   - each member copies (or reduces) what it needs into its own dest;
//   - a last barrier: nobody returns while a peer may still read its source (or dest).
// Reductions of at least ISHMEM_REDUCE_SCATTER_MIN bytes on 3 or more PEs reduce-scatter (member k
// reduces the k-th chunk of every source into its dest) and then gather the chunks, which reads
// 2(n-1)/n of the array per PE instead of n-1 times it. Every member combines the PEs in the same
// order, so floating-point results agree on all PEs.
//
// The _work_group forms split every copy and reduction loop across the group's threads; one thread
// runs the team barriers, fenced by group barriers.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "ishmem/impl/teams.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

// Bytes from which reductions on 3 or more PEs use reduce-scatter + gather (ISHMEM_REDUCE_SCATTER_MIN).
extern ISHMEM_API size_t reduce_scatter_min;

namespace coll {

// Who shares the work of one PE's part: the calling thread alone, or the threads of a group.
struct alone {
    size_t rank() const { return 0; }
    size_t size() const { return 1; }
    void sync() const {}
};
template <class Group> struct in_group {
    const Group& g;
    size_t rank() const { return impl::group_rank(g); }
    size_t size() const { return impl::group_size(g); }
    void sync() const { impl::group_sync(g); }
};

// This worker's share [begin, end) of n items, cut at multiples of `align` items.
template <class W> std::pair<size_t, size_t> share(const W& w, size_t n, size_t align = 1) {
    const size_t units = (n + align - 1) / align, size = w.size(), rank = w.rank();
    const size_t base = units / size, extra = units % size;
    const size_t b = (rank * base + (rank < extra ? rank : extra)) * align;
    const size_t e = b + (base + (rank < extra ? 1 : 0)) * align;
    return {b < n ? b : n, e < n ? e : n};
}

template <class W> void copy(const W& w, void* dest, const void* source, size_t bytes) {
    const auto [b, e] = share(w, bytes, 256);
    if (e > b && dest != source) std::memmove(static_cast<char*>(dest) + b, static_cast<const char*>(source) + b, e - b);
}

// A team barrier taken by one thread of the group; the group barriers around it hand the ordering on.
template <class W> void barrier(const W& w, const team_t& t, ishmem_team_t team, const char* routine) {
    w.sync();
    if (w.rank() == 0) team_barrier(t, team, routine);
    w.sync();
}

enum op_kind : int { op_and, op_or, op_xor, op_max, op_min, op_sum, op_prod };

template <int Op, class T> inline T combine(T a, T b) {
    if constexpr (Op == op_and) return static_cast<T>(a & b);
    else if constexpr (Op == op_or) return static_cast<T>(a | b);
    else if constexpr (Op == op_xor) return static_cast<T>(a ^ b);
    else if constexpr (Op == op_max) return a < b ? b : a;
    else if constexpr (Op == op_min) return b < a ? b : a;
    else if constexpr (Op == op_sum) return static_cast<T>(a + b);
    else return static_cast<T>(a * b);
}

// out[i - b] = source_0[i] op source_1[i] op ... over the team members first..last-1 (PE order),
// for i in [b, e); the identity (0) when the range of members is empty (exscan on member 0).
template <int Op, class T>
void reduce_range(const team_t& t, const T* source, int first, int last, size_t b, size_t e, T* out) {
    if (first >= last) {
        for (size_t i = b; i < e; ++i) out[i - b] = T{};
        return;
    }
    const T* s0 = translate(source, t.world_pe(first));
    for (size_t i = b; i < e; ++i) out[i - b] = s0[i];
    for (int j = first + 1; j < last; ++j) {
        const T* sj = translate(source, t.world_pe(j));
        for (size_t i = b; i < e; ++i) out[i - b] = combine<Op>(out[i - b], sj[i]);
    }
}

template <class T, class W> int alltoall(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const team_t& t = teams[team];
    barrier(w, t, team, "ishmem_alltoall");
    for (int j = 0; j < t.size; ++j)
        copy(w, dest + j * nelems, translate(source, t.world_pe(j)) + t.my_index * nelems, nelems * sizeof(T));
    barrier(w, t, team, "ishmem_alltoall");
    return 0;
}

template <class T, class W>
int broadcast(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    const team_t& t = teams[team];
    barrier(w, t, team, "ishmem_broadcast");
    copy(w, dest, translate(source, t.world_pe(root)), nelems * sizeof(T));
    barrier(w, t, team, "ishmem_broadcast");
    return 0;
}

template <class T, class W> int fcollect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const team_t& t = teams[team];
    barrier(w, t, team, "ishmem_fcollect");
    for (int j = 0; j < t.size; ++j) copy(w, dest + j * nelems, translate(source, t.world_pe(j)), nelems * sizeof(T));
    barrier(w, t, team, "ishmem_fcollect");
    return 0;
}

// Counts differ per PE: each publishes its own in the team's slot before the first barrier.
template <class T, class W> int collect(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    const team_t& t = teams[team];
    if (w.rank() == 0) __atomic_store_n(&team_slot_of(state.my_pe, team)->published, nelems, __ATOMIC_RELAXED);
    barrier(w, t, team, "ishmem_collect");
    size_t offset = 0;
    for (int j = 0; j < t.size; ++j) {
        const int pe = t.world_pe(j);
        const size_t n = __atomic_load_n(&team_slot_of(pe, team)->published, __ATOMIC_RELAXED);
        copy(w, dest + offset, translate(source, pe), n * sizeof(T));
        offset += n;
    }
    barrier(w, t, team, "ishmem_collect");  // also: nobody republishes before all have read
    return 0;
}

template <int Op, class T, class W>
int reduce(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nreduce, const char* routine) {
    const team_t& t = teams[team];
    barrier(w, t, team, routine);
    if (t.size >= 3 && nreduce * sizeof(T) >= reduce_scatter_min) {
        // Member k reduces chunk k into its own dest; only member k reads chunk k of the sources,
        // so writing it in place is safe. Then every member gathers the other chunks.
        auto chunk = [&](int k) {
            const size_t b = nreduce * k / t.size, e = nreduce * (k + 1) / t.size;
            return std::pair<size_t, size_t>{b, e};
        };
        const auto [cb, ce] = chunk(t.my_index);
        const auto [b, e] = share(w, ce - cb, 64);
        std::vector<T> out(e - b);
        reduce_range<Op>(t, source, 0, t.size, cb + b, cb + e, out.data());
        if (e > b) std::memcpy(dest + cb + b, out.data(), (e - b) * sizeof(T));
        barrier(w, t, team, routine);
        for (int k = 0; k < t.size; ++k) {
            if (k == t.my_index) continue;
            const auto [kb, ke] = chunk(k);
            copy(w, dest + kb, translate(dest, t.world_pe(k)) + kb, (ke - kb) * sizeof(T));
        }
    } else {
        const auto [b, e] = share(w, nreduce, 64);
        std::vector<T> out(e - b);
        reduce_range<Op>(t, source, 0, t.size, b, e, out.data());
        barrier(w, t, team, routine);  // every member has read the sources: dest may be source
        if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
        w.sync();
        return 0;
    }
    barrier(w, t, team, routine);
    return 0;
}

template <class T, class W>
int scan(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, bool inclusive, const char* routine) {
    const team_t& t = teams[team];
    barrier(w, t, team, routine);
    const auto [b, e] = share(w, nelems, 64);
    std::vector<T> out(e - b);
    reduce_range<op_sum>(t, source, 0, t.my_index + (inclusive ? 1 : 0), b, e, out.data());
    barrier(w, t, team, routine);
    if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
    w.sync();
    return 0;
}

}  // namespace coll

namespace impl {

inline int team_sync(ishmem_team_t team) {
    team_barrier(teams[team], team, "ishmem_team_sync");
    return 0;
}
template <class Group> void team_sync_work_group(ishmem_team_t team, const Group& group) {
    coll::barrier(coll::in_group<Group>{group}, teams[team], team, "ishmemx_team_sync_work_group");
}

template <class T> int alltoall(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::alltoall(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G> int alltoall_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::alltoall(coll::in_group<G>{g}, team, dest, source, nelems);
}
template <class T> int broadcast(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
    return coll::broadcast(coll::alone{}, team, dest, source, nelems, root);
}
template <class T, class G>
int broadcast_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, int root, const G& g) {
    return coll::broadcast(coll::in_group<G>{g}, team, dest, source, nelems, root);
}
template <class T> int collect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::collect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G> int collect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::collect(coll::in_group<G>{g}, team, dest, source, nelems);
}
template <class T> int fcollect(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::fcollect(coll::alone{}, team, dest, source, nelems);
}
template <class T, class G> int fcollect_work_group(ishmem_team_t team, T* dest, const T* source, size_t nelems, const G& g) {
    return coll::fcollect(coll::in_group<G>{g}, team, dest, source, nelems);
}

#define ISHMEMI_REDUCTION(OP)                                                                                  \
    template <class T> int OP##_reduce(ishmem_team_t team, T* dest, const T* source, size_t nreduce) {         \
        return coll::reduce<coll::op_##OP>(coll::alone{}, team, dest, source, nreduce, "ishmem_" #OP "_reduce"); \
    }                                                                                                          \
    template <class T, class G>                                                                                \
    int OP##_reduce_work_group(ishmem_team_t team, T* dest, const T* source, size_t nreduce, const G& g) {     \
        return coll::reduce<coll::op_##OP>(coll::in_group<G>{g}, team, dest, source, nreduce,                   \
                                           "ishmemx_" #OP "_reduce_work_group");                               \
    }
ISHMEMI_REDUCTION(and)
ISHMEMI_REDUCTION(or)
ISHMEMI_REDUCTION(xor)
ISHMEMI_REDUCTION(max)
ISHMEMI_REDUCTION(min)
ISHMEMI_REDUCTION(sum)
ISHMEMI_REDUCTION(prod)
#undef ISHMEMI_REDUCTION

template <class T> int sum_inscan(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::scan(coll::alone{}, team, dest, source, nelems, true, "ishmem_sum_inscan");
}
template <class T> int sum_exscan(ishmem_team_t team, T* dest, const T* source, size_t nelems) {
    return coll::scan(coll::alone{}, team, dest, source, nelems, false, "ishmem_sum_exscan");
}

}  // namespace impl
}  // namespace ishmemi
