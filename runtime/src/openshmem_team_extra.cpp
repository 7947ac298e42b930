// The team routines of OpenSHMEM 1.5 over long double and the complex types that no mem form of the
// library's collectives does: the reductions (the library's reduction core, with its transports and
// GPU kernels, does not take these types) and the strided alltoalls of 16-byte elements. shmem.h
// maps shmem_longdouble_sum_reduce, shmem_complexd_prod_reduce, shmem_longdouble_alltoalls here.
// Host only. Every member of a reduction reads
// every member's source with getmem and combines them in team order, between two team
// synchronizations (dest may be source): simple and exact alike on every member, O(size) reads per
// member, untuned.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ishmem.h"
#include "openshmem_elements.h"

using namespace ishmemi;
using namespace ishmemi::openshmem;

ISHMEM_C_API int ishmemi_team_reduce_extra(const char* routine, int op, int type, ishmem_team_t team, void* dest,
                                           const void* source, size_t nreduce) {
    check_init(routine);
    if (!op_allowed(type, op)) fatal(routine, "no %s reduction for this element type", op_name(op));
    const size_t size = elem_size(type);
    if (nreduce > SIZE_MAX / size) fatal(routine, "nreduce %zu elements of %zu bytes overflow size_t", nreduce, size);
    const size_t bytes = nreduce * size;
    check_symmetric(routine, "dest", dest, bytes);
    check_symmetric(routine, "source", source, bytes);
    const int n = ishmem_team_n_pes(team);
    if (n < 1 || ishmem_team_my_pe(team) < 0) {
        warn(routine, "team %d is not a valid team on this PE", team);
        return -1;
    }
    const char* d = static_cast<const char*>(dest);
    const char* s = static_cast<const char*>(source);
    if (d != s && d < s + bytes && s < d + bytes) {
        warn(routine, "dest %p and source %p overlap partly over %zu bytes (they must be the same array or disjoint)",
             dest, source, static_cast<size_t>(d < s ? d + bytes - s : s + bytes - d));
        return -1;
    }
    std::vector<unsigned char> acc(bytes), in(bytes);
    ishmem_team_sync(team);  // every member's source is ready
    if (bytes) {
        ishmem_getmem(acc.data(), source, bytes, ishmem_team_translate_pe(team, 0, ISHMEM_TEAM_WORLD));
        for (int i = 1; i < n; ++i) {
            ishmem_getmem(in.data(), source, bytes, ishmem_team_translate_pe(team, i, ISHMEM_TEAM_WORLD));
            with_elem(type, [&](auto v) {
                using T = decltype(v);
                combine<T>(op, reinterpret_cast<T*>(acc.data()), reinterpret_cast<const T*>(in.data()), nreduce);
                return 0;
            });
        }
    }
    ishmem_team_sync(team);  // every member has read the sources
    if (bytes) std::memcpy(dest, acc.data(), bytes);
    return 0;
}

// Every member writes its block for member j into j's dest with a strided put, between two team
// synchronizations (the first: every dest may be written; the second: every block has arrived).
ISHMEM_C_API int ishmemi_team_alltoalls_extra(const char* routine, ishmem_team_t team, void* dest, const void* source,
                                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem) {
    check_init(routine);
    if (dst < 1) fail_positive(routine, "dst", dst);
    if (sst < 1) fail_positive(routine, "sst", sst);
    const int n = ishmem_team_n_pes(team), me = ishmem_team_my_pe(team);
    if (n < 1 || me < 0) {
        warn(routine, "team %d is not a valid team on this PE", team);
        return -1;
    }
    const size_t count = nelems * static_cast<size_t>(n);
    if (nelems && (count / static_cast<size_t>(n) != nelems ||
                   (count - 1) > SIZE_MAX / elem / static_cast<size_t>(dst > sst ? dst : sst)))
        fatal(routine, "nelems %zu times the team's %d PEs at its stride overflows size_t", nelems, n);
    if (count) {
        check_symmetric(routine, "dest", dest, ((count - 1) * static_cast<size_t>(dst) + 1) * elem);
        check_symmetric(routine, "source", source, ((count - 1) * static_cast<size_t>(sst) + 1) * elem);
    }
    ishmem_team_sync(team);
    for (int k = 0; k < n && nelems; ++k) {
        const int j = (me + k) % n;
        char* d = static_cast<char*>(dest) + static_cast<size_t>(me) * nelems * static_cast<size_t>(dst) * elem;
        const char* s =
            static_cast<const char*>(source) + static_cast<size_t>(j) * nelems * static_cast<size_t>(sst) * elem;
        ishmem_iput128(d, s, dst, sst, nelems, ishmem_team_translate_pe(team, j, ISHMEM_TEAM_WORLD));
    }
    ishmem_quiet();
    ishmem_team_sync(team);
    return 0;
}
