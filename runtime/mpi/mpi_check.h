// Errors of MPI calls in libishmem_mpi: every failed call ends the job with a message that names the
// call (and the PE it went to, where there is one).
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdio>

#include "ishmem/impl/runtime.h"

namespace ishmemi::mpi {

inline constexpr const char* routine = "MPI transport";

[[noreturn]] inline void failed(int rc, const char* what, int pe) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = snprintf(text, sizeof text, "MPI error %d", rc);
    if (pe >= 0) fatal(routine, "%s (PE %d) failed: %.*s", what, pe, len, text);
    fatal(routine, "%s failed: %.*s", what, len, text);
}

inline void check(int rc, const char* what, int pe = -1) {
    if (__builtin_expect(rc != MPI_SUCCESS, 0)) failed(rc, what, pe);
}

// MPI counts are ints: a count beyond INT_MAX is an error that says so.
inline int as_count(size_t n, const char* what) {
    if (n > static_cast<size_t>(INT_MAX))
        fatal(routine, "%s of %zu elements over several nodes: MPI counts end at %d", what, n, INT_MAX);
    return static_cast<int>(n);
}

}  // namespace ishmemi::mpi
