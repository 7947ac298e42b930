// OpenSHMEM's deprecated active-set collectives (shmem_barrier, shmem_broadcast32, ...,
// shmem_TYPENAME_OP_to_all), which shmem.h maps here. An active set is the PEs PE_start,
// PE_start + 2^logPE_stride, ... (PE_size of them); only they call. A team would need a split over
// the world, which the PEs outside the set never call, so these routines synchronize through the
// program's pSync array instead, as OpenSHMEM intends, with the library's own one-sided
// operations:
//   - barrier: every member adds one to pSync[0] on the set's first PE, which waits for PE_size - 1
//     arrivals, clears its count and sets pSync[1] on every other member; those wait for it and
//     clear it. pSync is back to SHMEM_SYNC_VALUE (0) on return, so the next call may reuse it.
//   - data: members write into or read from each other's symmetric buffers between two barriers
//     (reductions read every member's source and combine them in set order, so that every member
//     gets the same result bits). pWrk is checked and not used.
// An active set of every PE of the job is the world team, and its barrier, broadcast, reductions
// and fcollects of blocks that fit an inbox are the world team's (impl/collectives.h): one exchange
// of flags or eager messages where the pSync protocol takes two barriers, and pSync is left as it
// is. Larger fcollects keep the protocol's puts (the team's reads of each member's block measured
// slower on 2 PEs), and so does collect, whose sizes differ per member while all must choose alike.
// Under the watch (ISHMEM_CHECK=full, ISHMEM_HANG_TIMEOUT), on a GPU heap and on a world over
// several nodes the pSync protocol runs as before.
// The calls through the public entry points are checked there; the checks here name the routine
// the program called.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "control.h"
#include "ishmem.h"
#include "ishmem/impl/collectives.h"
#include "openshmem_elements.h"

namespace ishmemi::openshmem {
namespace {

struct active_set {
    int start, stride, size, me;  // me: the calling PE's number in the set
    int pe(int i) const { return start + i * stride; }
};

// The set, checked: it must fit the job and hold the calling PE.
active_set make_set(const char* routine, int PE_start, int logPE_stride, int PE_size, const long* pSync,
                    size_t sync_longs) {
    check_init(routine);
    if (PE_start < 0 || PE_start >= state.n_pes || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1)
        fatal(routine, "active set PE_start %d, logPE_stride %d, PE_size %d is not a set of PEs of the job (%d PEs)",
              PE_start, logPE_stride, PE_size, state.n_pes);
    const long stride = 1L << logPE_stride, last = PE_start + (PE_size - 1L) * stride;
    if (last >= state.n_pes)
        fatal(routine, "active set PE_start %d, logPE_stride %d, PE_size %d ends at PE %ld; the job has %d PEs",
              PE_start, logPE_stride, PE_size, last, state.n_pes);
    const long offset = state.my_pe - PE_start;
    if (offset < 0 || offset % stride != 0 || offset / stride >= PE_size)
        fatal(routine, "the calling PE is not in the active set PE_start %d, logPE_stride %d, PE_size %d", PE_start,
              logPE_stride, PE_size);
    check_nonnull(routine, "pSync", pSync, 1);
    check_symmetric(routine, "pSync", pSync, sync_longs * sizeof(long));
    return active_set{PE_start, static_cast<int>(stride), PE_size, static_cast<int>(offset / stride)};
}

// Whether the set's collectives may be the world team's (above).
bool as_world(const active_set& s) {
    return s.size == state.n_pes && !watch_calls && !heap_on_gpu() && !teams[ISHMEM_TEAM_WORLD].spans_nodes;
}

void set_barrier(const active_set& s, long* pSync, bool complete) {
    if (complete) ishmem_quiet();
    if (s.size == 1) return;
    if (s.me == 0) {
        ishmem_long_wait_until(&pSync[0], ISHMEM_CMP_GE, s.size - 1);
        ishmem_long_atomic_set(&pSync[0], 0, state.my_pe);
        for (int i = 1; i < s.size; ++i) ishmem_long_atomic_set(&pSync[1], 1, s.pe(i));
    } else {
        ishmem_long_atomic_add(&pSync[0], 1, s.pe(0));
        ishmem_long_wait_until(&pSync[1], ISHMEM_CMP_NE, 0);
        ishmem_long_atomic_set(&pSync[1], 0, state.my_pe);
    }
}

// The world team's reduction with operator o (one that op_allowed allows for T).
template <class T> void reduce_on_world(int o, T* dest, const T* source, size_t n, const char* routine) {
    with_op<T>(o, [&](auto op) {
        coll::reduce<decltype(op)::value>(coll::alone{}, ISHMEM_TEAM_WORLD, dest, source, n, routine);
    });
}

size_t bytes_of(const char* routine, const char* param, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        fatal(routine, "%s %zu elements of %zu bytes overflow size_t", param, count, size);
    return count * size;
}

}  // namespace
}  // namespace ishmemi::openshmem

using namespace ishmemi;
using namespace ishmemi::openshmem;

ISHMEM_C_API void ishmemi_aset_barrier(const char* routine, int complete, int PE_start, int logPE_stride, int PE_size,
                                       long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 2);
    if (!as_world(s)) return set_barrier(s, pSync, complete != 0);
    if (complete)
        impl::barrier_all(routine);
    else  // sync_all's barrier, on behalf of routine
        barrier_pes(0, 1, state.n_pes, state.my_pe, world_barrier_offset, routine);
}

ISHMEM_C_API void ishmemi_aset_broadcast(const char* routine, void* dest, const void* source, size_t nelems,
                                         size_t elem, int PE_root, int PE_start, int logPE_stride, int PE_size,
                                         long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 2);
    const size_t bytes = bytes_of(routine, "nelems", nelems, elem);
    check_symmetric(routine, "dest", dest, bytes);
    check_symmetric(routine, "source", source, bytes);
    if (PE_root < 0 || PE_root >= PE_size)
        fatal(routine, "PE_root %d is not in the active set of %d PEs", PE_root, PE_size);
    if (as_world(s)) {
        // The root passes its source as dest too: its dest stays as it was, as below.
        coll::broadcast(coll::alone{}, ISHMEM_TEAM_WORLD,
                        static_cast<unsigned char*>(s.me == PE_root ? const_cast<void*>(source) : dest),
                        static_cast<const unsigned char*>(source), bytes, PE_root);
        return;
    }
    set_barrier(s, pSync, false);
    if (s.me == PE_root)  // OpenSHMEM's active-set broadcast leaves the root's dest as it was
        for (int i = 0; i < s.size; ++i)
            if (i != PE_root) ishmem_putmem(dest, source, bytes, s.pe(i));
    set_barrier(s, pSync, true);
}

ISHMEM_C_API void ishmemi_aset_fcollect(const char* routine, void* dest, const void* source, size_t nelems, size_t elem,
                                        int PE_start, int logPE_stride, int PE_size, long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 2);
    const size_t bytes = bytes_of(routine, "nelems", nelems, elem);
    check_symmetric(routine, "dest", dest, bytes_of(routine, "nelems", bytes, static_cast<size_t>(PE_size)));
    check_symmetric(routine, "source", source, bytes);
    if (as_world(s) && coll::eager::usable(ISHMEM_TEAM_WORLD, bytes)) {
        impl::fcollect(ISHMEM_TEAM_WORLD, static_cast<unsigned char*>(dest), static_cast<const unsigned char*>(source),
                       bytes);
        return;
    }
    set_barrier(s, pSync, false);
    for (int k = 0; k < s.size; ++k) {  // starting after self, so that members do not all write one PE at once
        const int i = (s.me + k) % s.size;
        ishmem_putmem(static_cast<char*>(dest) + static_cast<size_t>(s.me) * bytes, source, bytes, s.pe(i));
    }
    set_barrier(s, pSync, true);
}

// pSync[2] holds this PE's count during the call, for the members after it to find their offsets.
ISHMEM_C_API void ishmemi_aset_collect(const char* routine, void* dest, const void* source, size_t nelems, size_t elem,
                                       int PE_start, int logPE_stride, int PE_size, long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 3);
    const size_t bytes = bytes_of(routine, "nelems", nelems, elem);
    check_symmetric(routine, "dest", dest, 0);
    check_symmetric(routine, "source", source, bytes);
    ishmem_long_atomic_set(&pSync[2], static_cast<long>(nelems), state.my_pe);
    set_barrier(s, pSync, false);
    size_t offset = 0;
    for (int i = 0; i < s.me; ++i) offset += static_cast<size_t>(ishmem_long_atomic_fetch(&pSync[2], s.pe(i)));
    for (int k = 0; k < s.size; ++k) {
        const int i = (s.me + k) % s.size;
        ishmem_putmem(static_cast<char*>(dest) + offset * elem, source, bytes, s.pe(i));
    }
    set_barrier(s, pSync, true);
    ishmem_long_atomic_set(&pSync[2], 0, state.my_pe);  // every member read it before the barrier
}

ISHMEM_C_API void ishmemi_aset_alltoalls(const char* routine, void* dest, const void* source, ptrdiff_t dst,
                                         ptrdiff_t sst, size_t nelems, size_t elem, int PE_start, int logPE_stride,
                                         int PE_size, long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 2);
    if (dst < 1) fail_positive(routine, "dst", dst);
    if (sst < 1) fail_positive(routine, "sst", sst);
    const size_t blocks = bytes_of(routine, "nelems", nelems, static_cast<size_t>(PE_size));
    const size_t span_d = blocks ? bytes_of(routine, "nelems", (blocks - 1), static_cast<size_t>(dst)) + 1 : 0;
    const size_t span_s = blocks ? bytes_of(routine, "nelems", (blocks - 1), static_cast<size_t>(sst)) + 1 : 0;
    check_symmetric(routine, "dest", dest, bytes_of(routine, "nelems", span_d, elem));
    check_symmetric(routine, "source", source, bytes_of(routine, "nelems", span_s, elem));
    set_barrier(s, pSync, false);
    for (int k = 0; k < s.size && nelems > 0; ++k) {
        const int j = (s.me + k) % s.size;
        char* d = static_cast<char*>(dest) + static_cast<size_t>(s.me) * nelems * static_cast<size_t>(dst) * elem;
        const char* src =
            static_cast<const char*>(source) + static_cast<size_t>(j) * nelems * static_cast<size_t>(sst) * elem;
        if (dst == 1 && sst == 1)
            ishmem_putmem(d, src, nelems * elem, s.pe(j));
        else if (elem == 4)
            ishmem_iput32(d, src, dst, sst, nelems, s.pe(j));
        else
            ishmem_iput64(d, src, dst, sst, nelems, s.pe(j));
    }
    set_barrier(s, pSync, true);
}

// Every member reads every member's source and combines them in set order into a buffer of its
// own, then writes dest after a barrier (dest may be source).
ISHMEM_C_API void ishmemi_aset_reduce(const char* routine, int op, int type, void* dest, const void* source,
                                      int nreduce, int PE_start, int logPE_stride, int PE_size, const void* pWrk,
                                      long* pSync) {
    const active_set s = make_set(routine, PE_start, logPE_stride, PE_size, pSync, 2);
    if (!op_allowed(type, op)) fatal(routine, "no %s reduction for this element type", op_name(op));
    if (nreduce < 0) fatal(routine, "nreduce %d is negative", nreduce);
    const size_t bytes = static_cast<size_t>(nreduce) * elem_size(type);
    check_symmetric(routine, "dest", dest, bytes);
    check_symmetric(routine, "source", source, bytes);
    check_nonnull(routine, "pWrk", pWrk, 1);
    check_symmetric(routine, "pWrk", pWrk, 0);
    if (as_world(s) && type <= e_double) {
        with_elem(type, [&](auto v) {
            using T = decltype(v);
            if constexpr (!is_complex<T> && !std::is_same_v<T, long double>)
                reduce_on_world<T>(op, static_cast<T*>(dest), static_cast<const T*>(source),
                                   static_cast<size_t>(nreduce), routine);
            return 0;
        });
        return;
    }
    std::vector<unsigned char> acc(bytes), in(bytes);
    set_barrier(s, pSync, false);
    if (bytes) {
        ishmem_getmem(acc.data(), source, bytes, s.pe(0));
        for (int i = 1; i < s.size; ++i) {
            ishmem_getmem(in.data(), source, bytes, s.pe(i));
            with_elem(type, [&](auto v) {
                using T = decltype(v);
                combine<T>(op, reinterpret_cast<T*>(acc.data()), reinterpret_cast<const T*>(in.data()),
                           static_cast<size_t>(nreduce));
                return 0;
            });
        }
    }
    set_barrier(s, pSync, false);
    if (bytes) std::memcpy(dest, acc.data(), bytes);
}
