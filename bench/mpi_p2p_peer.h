// bench_coll --mpi-p2p: a broadcast and the two scans written as MPI point-to-point messages,
// waited for by polling MPI_Testall, the way ishmem's MPI transport does them across nodes
// (runtime/mpi/coll_p2p.cpp: a binomial tree from the root; a chain from member 0 up). Next to
// ishmem it tells the cost of that way of using MPI (non-blocking messages, a polled wait) from the
// cost of ishmem's own code around it; next to MPI_Bcast / MPI_Scan / MPI_Exscan, the reverse.
// No ishmem here: plain MPI on the given communicator.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bench::p2p_peer {

inline constexpr int tag = 7301;

inline void wait_polled(MPI_Request* r, int n) {
    for (int done = 0; !done;) MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE);
}

// buf holds the root's bytes on the root and gets them everywhere else.
inline void broadcast(void* buf, int bytes, int root, MPI_Comm c) {
    int n = 0, me = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    const int vr = (me - root + n) % n;  // rank relative to the root
    int mask = 1;
    for (; mask < n; mask <<= 1)
        if (vr & mask) {
            MPI_Request r;
            MPI_Irecv(buf, bytes, MPI_BYTE, (vr - mask + root) % n, tag, c, &r);
            wait_polled(&r, 1);
            break;
        }
    MPI_Request sends[32];  // one per remaining bit of the rank: no allocation on the timed path
    int k = 0;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n) MPI_Isend(buf, bytes, MPI_BYTE, (vr + mask + root) % n, tag, c, &sends[k++]);
    if (k) wait_polled(sends, k);
}

// Sums over ranks 0..me (inclusive) or 0..me-1 (exclusive; rank 0's dest is left alone) of count
// int64 elements: rank r receives the sum over ranks before it from r - 1, adds its own source and
// sends that on to r + 1. scratch: count elements of the caller's.
inline void scan(const int64_t* source, int64_t* dest, int count, bool inclusive, int64_t* scratch, MPI_Comm c) {
    int n = 0, me = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    const size_t bytes = static_cast<size_t>(count) * sizeof(int64_t);
    int64_t* before = inclusive ? scratch : dest;   // the sum over the ranks before this one
    int64_t* through = inclusive ? dest : scratch;  // ... and this one: what goes on
    if (me > 0) {
        MPI_Request r;
        MPI_Irecv(before, count, MPI_INT64_T, me - 1, tag, c, &r);
        wait_polled(&r, 1);
        for (int k = 0; k < count; ++k) through[k] = before[k] + source[k];
    } else {
        std::memcpy(through, source, bytes);
    }
    if (me + 1 < n) {
        MPI_Request r;
        MPI_Isend(through, count, MPI_INT64_T, me + 1, tag, c, &r);
        wait_polled(&r, 1);
    }
}

}  // namespace bench::p2p_peer
