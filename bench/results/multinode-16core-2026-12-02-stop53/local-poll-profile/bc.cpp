// ishmem broadcastmem 8 B vs MPI Isend/Irecv+Testall, N calls, one mode per run
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include "ishmem.h"
#include "ishmem/impl/transport.h"
int main(int argc, char** argv) {
    int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    ishmem_init();
    const bool mpi = argc > 1 && !strcmp(argv[1], "mpi");
    const long n = argc > 2 ? atol(argv[2]) : 200000;
    const size_t bytes = argc > 3 ? atol(argv[3]) : 8;
    int me; MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char* d = (char*)ishmem_malloc(bytes); char* s = (char*)ishmem_malloc(bytes);
    memset(s, 1, bytes);
    MPI_Comm c; MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ishmem_barrier_all(); MPI_Barrier(c);
    if (mpi && getenv("HOLD")) ishmemi::remote->hold_progress_thread(true);
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
        if (!mpi) ishmem_broadcastmem(ISHMEM_TEAM_WORLD, d, s, bytes, 0);
        else {
            MPI_Request r; int done = 0;
            if (me == 0) MPI_Isend(s, bytes, MPI_BYTE, 1, 5, c, &r); else MPI_Irecv(d, bytes, MPI_BYTE, 0, 5, c, &r);
            while (!done) MPI_Testall(1, &r, &done, MPI_STATUSES_IGNORE);
        }
    }
    auto t1 = std::chrono::steady_clock::now();
    if (mpi && getenv("HOLD")) ishmemi::remote->hold_progress_thread(false);
    if (me == 1) printf("%s %.3f us/call\n", mpi ? "mpi" : "ishmem", std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    ishmem_barrier_all();
    ishmem_finalize();
    MPI_Finalize();
}
