// The reductions and the scans over a team, the operators they combine with and their chunked form
// for large arrays (the protocol: impl/collectives.h).
#pragma once

#include "ishmem/impl/coll/common.h"

namespace ishmemi {

namespace coll {

// Member k of n's chunk of an array of nelems: elements [nelems k / n, nelems (k + 1) / n).
inline std::pair<size_t, size_t> chunk_of(const team_t& t, size_t nelems) {
    const size_t n = static_cast<size_t>(t.size), k = static_cast<size_t>(t.my_index);
    return {nelems * k / n, nelems * (k + 1) / n};
}

// The chunked form of large reductions and scans: member k of n works on elements
// [nelems k / n, nelems (k + 1) / n) of every member's source and dest, calling f(first, count)
// on blocks of at most `block` elements (the group's threads share the chunk), between two team
// barriers: before them every source is ready and every dest free, after them every dest written.
// Only member k touches chunk k, so dest may be source if f reads a block's sources before it
// writes that block's dests. Each PE reads and writes the array about once.
template <class W, class F> void by_chunks(const W& w, const team_t& t, ishmem_team_t team, const char* routine,
                                           size_t nelems, size_t block, F&& f) {
    barrier(w, t, team, routine);
    const auto [cb, ce] = chunk_of(t, nelems);
    const auto [b, e] = share(w, ce - cb, 64);
    for (size_t lo = cb + b; lo < cb + e; lo += block) f(lo, std::min(block, cb + e - lo));
    barrier(w, t, team, routine);
}

// Elements of T in a block of by_chunks: 8 KiB, so that the running results stay in L1.
template <class T> inline constexpr size_t chunk_block = 8192 / sizeof(T) ? 8192 / sizeof(T) : 1;

enum op_kind : int { op_and, op_or, op_xor, op_max, op_min, op_sum, op_prod };

// Host and device: the device collectives (cuda/collectives.cuh) combine with it too.
template <int Op, class T> ISHMEM_HD inline T combine(T a, T b) {
    if constexpr (Op == op_and)
        return static_cast<T>(a & b);
    else if constexpr (Op == op_or)
        return static_cast<T>(a | b);
    else if constexpr (Op == op_xor)
        return static_cast<T>(a ^ b);
    else if constexpr (Op == op_max)
        return a < b ? b : a;
    else if constexpr (Op == op_min)
        return b < a ? b : a;
    else if constexpr (Op == op_sum)
        return static_cast<T>(a + b);
    else
        return static_cast<T>(a * b);
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

// Whether a scan of `bytes` on the team runs as a chain of eager messages (alike on every member:
// the settings agree, and a scan's size is the same on all).
inline bool chains_scan(ishmem_team_t team, size_t bytes) {
    return teams[team].size >= chain_min && eager::usable(team, std::min(bytes, eager_bytes)) &&
           bytes <= std::max(eager_bytes, scan_chain_max);
}

template <int Op, class T, class W>
int reduce(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nreduce, const char* routine) {
    watched_call wc(w, team, routine, -1, nreduce, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(w,
                         [&] { gpu::reduction(Op, 0, gpu::elem_kind_of<T>(), team, dest, source, nreduce, nullptr); });
    if (teams[team].spans_nodes)
        return by_leader(w, [&] { reduce_over_nodes<Op>(team, dest, source, nreduce, routine); });
    const team_t& t = teams[team];
    if (t.size >= 2 && nreduce * sizeof(T) >= reduce_scatter_min) {
        // Member k reduces chunk k over all members, then writes it into every member's dest.
        T acc[chunk_block<T>];
        by_chunks(w, t, team, routine, nreduce, chunk_block<T>, [&](size_t lo, size_t m) {
            reduce_range<Op>(t, source, 0, t.size, lo, lo + m, acc);
            for (int j = 0; j < t.size; ++j) std::memcpy(translate(dest, t.world_pe(j)) + lo, acc, m * sizeof(T));
        });
        return 0;
    }
    if (eager::usable(team, nreduce * sizeof(T))) {
        // Every member sends its source to every other and reduces the messages, in member order.
        leader(w, [&] {
            eager ea(team, routine);
            ea.send_to_others(source, nreduce * sizeof(T));
            T out[eager_bytes / sizeof(T) + 1];
            auto from = [&](int j) { return j == t.my_index ? source : static_cast<const T*>(ea.receive(j)); };
            move_bytes(out, from(0), nreduce * sizeof(T));
            for (int j = 1; j < t.size; ++j) {  // a loop without a branch in it: the compiler vectorizes it
                const T* s = from(j);
                for (size_t i = 0; i < nreduce; ++i) out[i] = combine<Op>(out[i], s[i]);
            }
            move_bytes(dest, out, nreduce * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    // Every member reduces the whole array into a private buffer, and writes dest (which may be
    // its source) once every reader of its source is done.
    exchange ex(w, team, routine);
    const auto [b, e] = share(w, nreduce, 64);
    std::vector<T> out(e - b);
    leader(w, [&] { ex.publish_and_wait_all(); });
    reduce_range<Op>(t, source, 0, t.size, b, e, out.data());
    w.sync();
    leader(w, [&] { ex.ack_all_and_wait(); });
    if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
    w.sync();
    return 0;
}

// A piece of a scan's chain, on one member: its dest gets the sum up to and with it (inclusive),
// or zeros on the first member and the sum of the members below it on the others (exclusive).
template <class T> void scan_dest(T* dest, const T* sum, const T* below, size_t bytes, bool inclusive, bool first) {
    if (inclusive) {
        if (dest != sum) move_bytes(dest, sum, bytes);
    } else if (first) {
        zero_bytes(dest, bytes);
    } else {
        move_bytes(dest, below, bytes);
    }
}

// Member i reads the members below it (and itself for the inclusive scan); it waits for those
// members' flags only, and for the acks of the members above it, which read its source.
template <class T, class W>
int scan(const W& w, ishmem_team_t team, T* dest, const T* source, size_t nelems, bool inclusive, const char* routine) {
    watched_call wc(w, team, routine, -1, nelems, sizeof(T), type_name<T>());
    if (heap_on_gpu())
        return by_leader(w, [&] {
            gpu::reduction(op_sum, inclusive ? 1 : 2, gpu::elem_kind_of<T>(), team, dest, source, nelems, nullptr);
        });
    if (teams[team].spans_nodes)
        return by_leader(w, [&] { scan_over_nodes(team, dest, source, nelems, inclusive, routine); });
    if (chains_scan(team, nelems * sizeof(T))) {
        // A chain: member i adds its source to the partial sum of the members below it (from i - 1)
        // and passes the result on to i + 1. One message in and one out per member, so that calls
        // in a row overlap along the chain, as MPI's scans do. A scan of more than an inbox holds
        // goes along the chain in pieces, one eager operation each (every member cuts alike).
        // Member 0 sends its source as it is; the others read the sum below them in the inbox
        // (valid until finish) and send the sum up to them from a local array. A call of a few
        // words costs a few tens of ns here, so nothing is copied or zeroed that need not be.
        leader(w, [&] {
            constexpr size_t per = eager_bytes / sizeof(T);
            T upto[per + 1];
            size_t lo = 0;
            do {
                const size_t m = std::min(per, nelems - lo), bytes = m * sizeof(T);
                eager ea(team, routine);
                const team_t& t = ea.team();
                const bool first = t.my_index == 0, last = t.my_index + 1 == t.size;
                const T* below = first ? nullptr : static_cast<const T*>(ea.receive(t.my_index - 1, true));
                const T* sum = source + lo;  // the sum up to and with me
                if (!first && (inclusive || !last)) {
                    for (size_t i = 0; i < m; ++i) upto[i] = combine<op_sum>(below[i], source[lo + i]);
                    sum = upto;
                }
                if (!last) ea.send(t.my_index + 1, sum, bytes, true);  // before dest: in place, dest is source
                scan_dest(dest + lo, sum, below, bytes, inclusive, first);
                ea.finish();
                lo += m;
            } while (lo < nelems);
        });
        return 0;
    }
    if (eager::usable(team, nelems * sizeof(T))) {
        // Member i sends its source to the members above it and adds up what those below sent.
        leader(w, [&] {
            eager ea(team, routine);
            const team_t& t = ea.team();
            for (int j = t.my_index + 1; j < t.size; ++j) ea.send(j, source, nelems * sizeof(T));
            T out[eager_bytes / sizeof(T) + 1];
            std::fill_n(out, nelems, T{});
            for (int j = 0; j < t.my_index; ++j) {
                const T* s = static_cast<const T*>(ea.receive(j));
                for (size_t i = 0; i < nelems; ++i) out[i] = combine<op_sum>(out[i], s[i]);
            }
            if (inclusive)
                for (size_t i = 0; i < nelems; ++i) out[i] = combine<op_sum>(out[i], source[i]);
            std::memcpy(dest, out, nelems * sizeof(T));
            ea.finish();
        });
        return 0;
    }
    const team_t& tm = teams[team];
    if (tm.size >= 2 && nelems * sizeof(T) >= reduce_scatter_min) {
        // Member k scans chunk k over all members, writing each member's chunk k of dest as it goes.
        T acc[chunk_block<T>];
        by_chunks(w, tm, team, routine, nelems, chunk_block<T>, [&](size_t lo, size_t m) {
            const size_t bytes = m * sizeof(T);
            for (int j = 0; j < tm.size; ++j) {
                const T* sj = translate(source, tm.world_pe(j)) + lo;
                T* dj = translate(dest, tm.world_pe(j)) + lo;
                if (j == 0) {  // acc = s_0; dest_0 = s_0 (inclusive) or zeros
                    std::memcpy(acc, sj, bytes);
                    if (inclusive)
                        std::memmove(dj, sj, bytes);
                    else
                        std::memset(dj, 0, bytes);
                } else if (inclusive) {
                    for (size_t i = 0; i < m; ++i) dj[i] = acc[i] = combine<op_sum>(acc[i], sj[i]);
                } else if (j + 1 == tm.size) {  // the last member's source is in no exclusive sum
                    std::memcpy(dj, acc, bytes);
                } else {
                    for (size_t i = 0; i < m; ++i) {
                        const T x = sj[i];  // read before dj[i] is written: in place they are one word
                        dj[i] = acc[i];
                        acc[i] = combine<op_sum>(acc[i], x);
                    }
                }
            }
        });
        return 0;
    }
    exchange ex(w, team, routine);
    const team_t& t = ex.team();
    const auto [b, e] = share(w, nelems, 64);
    std::vector<T> out(e - b);
    leader(w, [&] {
        ex.publish();
        for (int j = 0; j < t.my_index; ++j) ex.wait_ready(j);
    });
    reduce_range<op_sum>(t, source, 0, t.my_index + (inclusive ? 1 : 0), b, e, out.data());
    w.sync();
    leader(w, [&] {
        for (int j = 0; j < t.my_index; ++j) ex.ack(j);
        ex.wait_acks(t.size - 1 - t.my_index);
    });
    if (e > b) std::memcpy(dest + b, out.data(), (e - b) * sizeof(T));
    w.sync();
    return 0;
}

}  // namespace coll

namespace impl {

#define ISHMEMI_REDUCTION(OP)                                                                                    \
    template <class T> int OP##_reduce(ishmem_team_t team, T* dest, const T* source, size_t nreduce) {           \
        return coll::reduce<coll::op_##OP>(coll::alone{}, team, dest, source, nreduce, "ishmem_" #OP "_reduce"); \
    }                                                                                                            \
    template <class T, class G>                                                                                  \
    int OP##_reduce_work_group(ishmem_team_t team, T* dest, const T* source, size_t nreduce, const G& g) {       \
        return coll::reduce<coll::op_##OP>(coll::in_group<G>{g}, team, dest, source, nreduce,                    \
                                           "ishmemx_" #OP "_reduce_work_group");                                 \
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

#define ISHMEMI_COMBINE_ON_QUEUE(NAME, OP, SCAN)                                                                      \
    template <class T> ishmem::event NAME##_on_queue(const ishmem::queue& q, const std::vector<ishmem::event>& deps,  \
                                                     int* ret, ishmem_team_t team, T* dest, const T* source,          \
                                                     size_t nelems) {                                                 \
        return collective_on_queue(                                                                                   \
            q, deps, ret,                                                                                             \
            [&](CUstream_st* s) { gpu::reduction(OP, SCAN, gpu::elem_kind_of<T>(), team, dest, source, nelems, s); }, \
            [=] { return NAME<T>(team, dest, source, nelems); });                                                     \
    }
ISHMEMI_COMBINE_ON_QUEUE(and_reduce, coll::op_and, 0)
ISHMEMI_COMBINE_ON_QUEUE(or_reduce, coll::op_or, 0)
ISHMEMI_COMBINE_ON_QUEUE(xor_reduce, coll::op_xor, 0)
ISHMEMI_COMBINE_ON_QUEUE(max_reduce, coll::op_max, 0)
ISHMEMI_COMBINE_ON_QUEUE(min_reduce, coll::op_min, 0)
ISHMEMI_COMBINE_ON_QUEUE(sum_reduce, coll::op_sum, 0)
ISHMEMI_COMBINE_ON_QUEUE(prod_reduce, coll::op_prod, 0)
ISHMEMI_COMBINE_ON_QUEUE(sum_inscan, coll::op_sum, 1)
ISHMEMI_COMBINE_ON_QUEUE(sum_exscan, coll::op_sum, 2)
#undef ISHMEMI_COMBINE_ON_QUEUE

}  // namespace impl
}  // namespace ishmemi
