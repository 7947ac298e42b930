// Study: the CPU time of one small cross-node collective call, ishmem's against the same messages
// in plain MPI. Every PE makes ITERS calls of 8-byte ishmem_broadcastmem (root 0) or
// ishmem_int64_sum_inscan on the world team, then ITERS of bench/mpi_p2p_peer.h's broadcast or scan
// (MPI_Isend / MPI_Irecv and a polled MPI_Testall: the messages ishmem's transport sends and its
// way of waiting), three times, and prints per call the wall time and the calling thread's user
// and kernel CPU time (getrusage RUSAGE_THREAD; the machines we measure on have no hardware
// counters for a VM). Where the wall times match, a larger CPU time of one side is work its wait
// loop does while it waits (polls, serving, the lock); where they differ, it is on the path.
//
//   mpicxx -O2 -std=c++20 -Igenerated/include -Iruntime/include -Ibench
//     bench/multinode/study/call_cpu.cpp -o /tmp/call_cpu -Lbuild/runtime -Lbuild/runtime/mpi
//     -Wl,--no-as-needed -lishmem_mpi -lishmem -Wl,-rpath,$PWD/build/runtime:$PWD/build/runtime/mpi
//   (one command line)
//   tests/multinode/netns_mpirun.sh --layout 1,1 -- /tmp/call_cpu [ITERS] [bcast|scan]   (as root)
// Results: bench/results/multinode-16core-2026-11-29-stop48/README.md (the 2-core machine).
#include <ishmem.h>
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mpi_p2p_peer.h"

namespace {

double us_of(const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec); }

}  // namespace

int main(int argc, char** argv) {
    const int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
    const bool scan = argc > 2 && std::strcmp(argv[2], "scan") == 0;
    ishmem_init();
    const int me = ishmem_my_pe();
    auto* src = static_cast<int64_t*>(ishmem_malloc(sizeof(int64_t)));
    auto* dst = static_cast<int64_t*>(ishmem_malloc(sizeof(int64_t)));
    int64_t msrc = me, mdst = 0, scratch = 0;
    *src = me;
    for (int rep = 0; rep < 3; ++rep) {
        for (int side = 0; side < 2; ++side) {  // 0 ishmem, 1 plain MPI
            ishmem_barrier_all();
            MPI_Barrier(MPI_COMM_WORLD);
            rusage r0{}, r1{};
            getrusage(RUSAGE_THREAD, &r0);
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < iters; ++i) {
                if (side == 0 && !scan) ishmem_broadcastmem(dst, src, sizeof *src, 0);
                else if (side == 0) ishmem_int64_sum_inscan(ISHMEM_TEAM_WORLD, dst, src, 1);
                else if (!scan) bench::p2p_peer::broadcast(&msrc, sizeof msrc, 0, MPI_COMM_WORLD);
                else bench::p2p_peer::scan(&msrc, &mdst, 1, true, &scratch, MPI_COMM_WORLD);
            }
            const double wall = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            getrusage(RUSAGE_THREAD, &r1);
            double slowest = 0, per_call = wall / iters;
            MPI_Allreduce(&per_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            std::printf("PE %d %-5s %-6s wall %6.2f us a call (slowest PE %6.2f), CPU user %5.2f us, kernel %5.2f us\n",
                        me, scan ? "scan" : "bcast", side == 0 ? "ishmem" : "MPI", per_call, slowest,
                        (us_of(r1.ru_utime) - us_of(r0.ru_utime)) / iters, (us_of(r1.ru_stime) - us_of(r0.ru_stime)) / iters);
            std::fflush(stdout);
        }
    }
    ishmem_free(dst);
    ishmem_free(src);
    ishmem_finalize();
    return 0;
}
