/* Study: what a non-blocking wait costs in Open MPI against a blocking receive, with and without
 * an osc window. Rank 0 sends an 8-byte message and waits for a 0-byte answer, ITERS times; rank 1
 * receives each message in one of three ways and answers:
 *   recv        MPI_Recv (what Open MPI's own collectives do: pml/ucx's blocking loop, which drives
 *               the pml's UCX worker and calls the whole opal_progress only now and then)
 *   irecv_wait  MPI_Irecv + MPI_Wait (opal_progress in a loop)
 *   irecv_test  MPI_Irecv + MPI_Test until done (ishmem's waits: they must stay non-blocking to
 *               serve requests from other PEs; every poll is one opal_progress)
 * With a window (win 1, passive target, locked for the run as ishmem's heap window is), each
 * opal_progress also drives osc/ucx's worker. Prints the median over REPS of the round-trip time
 * per mode, the modes interleaved rep by rep. Syscalls per round trip: run rank 1 under strace -c.
 * The blocking loop is pml/ucx's; with pml/ob1 (what tests/multinode/netns_mpirun.sh uses, and so
 * the cross-node benchmarks) MPI_Recv waits in opal_progress too.
 *
 *   mpicc -O2 bench/multinode/study/recv_wait.c -o /tmp/recv_wait
 *   UCX_TLS=tcp,self mpirun -n 2 --bind-to core --mca pml ucx --mca osc ucx \
 *     --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any -x UCX_TLS /tmp/recv_wait [ITERS] [REPS]
 *   tests/multinode/netns_mpirun.sh --layout 1,1 -- /tmp/recv_wait [ITERS] [REPS]   (as root)
 * Results: bench/results/multinode-16core-2026-11-29-stop47/README.md (the 2-core machine).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { RECV, IRECV_WAIT, IRECV_TEST, MODES };

static double round_trips(int me, int mode, int iters) {
    long v = 0;
    char ack = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
        if (me == 0) {
            MPI_Send(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&ack, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            if (mode == RECV) {
                MPI_Recv(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Request r;
                MPI_Irecv(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, &r);
                if (mode == IRECV_WAIT) {
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                } else {
                    int done = 0;
                    while (!done) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
                }
            }
            MPI_Send(&ack, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double t = (MPI_Wtime() - t0) / iters * 1e6;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);  // rank 1's figure
    return t;
}

static int by_value(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    int provided = 0, me = 0, n = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);  /* as ishmem asks */
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int iters = argc > 1 ? atoi(argv[1]) : 20000, reps = argc > 2 ? atoi(argv[2]) : 7;
    if (n != 2 || iters < 1 || reps < 1 || reps > 64) {
        if (me == 0) fprintf(stderr, "recv_wait: 2 ranks; ITERS >= 1, REPS 1-64\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static char heap[1 << 20];
    for (int win = 0; win <= 1; ++win) {
        MPI_Win w = MPI_WIN_NULL;
        if (win) {
            MPI_Win_create(heap, sizeof heap, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
            MPI_Win_lock_all(0, w);
        }
        double t[MODES][64];
        round_trips(me, RECV, iters / 10 + 1);  /* warm-up */
        for (int r = 0; r < reps; ++r)
            for (int k = 0; k < MODES; ++k) {
                const int mode = (k + r) % MODES;
                t[mode][r] = round_trips(me, mode, iters);
            }
        for (int k = 0; k < MODES; ++k) qsort(t[k], (size_t)reps, sizeof(double), by_value);
        if (me == 0)
            printf("win %d: round trip, median of %d x %d, us: recv %.2f, irecv_wait %.2f (%.3f), irecv_test %.2f (%.3f)\n",
                   win, reps, iters, t[RECV][reps / 2], t[IRECV_WAIT][reps / 2], t[IRECV_WAIT][reps / 2] / t[RECV][reps / 2],
                   t[IRECV_TEST][reps / 2], t[IRECV_TEST][reps / 2] / t[RECV][reps / 2]);
        if (win) {
            MPI_Win_unlock_all(w);
            MPI_Win_free(&w);
        }
    }
    MPI_Finalize();
    return 0;
}
