/* Sanity check for the netns multi-node harness: MPI one-sided traffic across
 * the fake nodes, the way ishmem uses it (passive target, THREAD_MULTIPLE).
 *
 *   mpicc -o /tmp/mpi_window_check tests/multinode/mpi_window_check.c
 *   tests/multinode/netns_mpirun.sh --layout 2,2 -- /tmp/mpi_window_check 2
 *
 * argv[1] = number of nodes in the layout; the ranks must see exactly that
 * many distinct hostnames, which proves the UTS namespaces took effect. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 64
#define HOSTLEN 64

static int rank;

static void fail(const char* what, long got, long want) {
    fprintf(stderr, "mpi_window_check: rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) fail("MPI thread level", provided, MPI_THREAD_MULTIPLE);
    if (argc < 2) fail("usage: mpi_window_check <nodes>; argc", argc, 2);
    int nodes = atoi(argv[1]);

    /* Hostnames: gather all and count the distinct ones. */
    char host[HOSTLEN] = {0};
    gethostname(host, HOSTLEN - 1);
    char* all = calloc((size_t)size, HOSTLEN);
    MPI_Allgather(host, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);
    int distinct = 0;
    for (int i = 0; i < size; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(all + i * HOSTLEN, all + j * HOSTLEN);
        distinct += !seen;
    }
    printf("rank %d/%d on %s\n", rank, size, host);
    fflush(stdout);

    /* Window: buf[0..N) receives the left neighbour's put, buf[N] is the counter. */
    int64_t* buf;
    MPI_Win win;
    buf = calloc(N + 1, sizeof(int64_t));
    MPI_Win_create(buf, (N + 1) * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int64_t src[N], back[N];
    for (int i = 0; i < N; i++) src[i] = (int64_t)rank * 1000 + i;
    MPI_Put(src, N, MPI_INT64_T, next, 0, N, MPI_INT64_T, win);
    MPI_Win_flush(next, win);

    /* Get it back from the target: the put must be visible after the flush. */
    MPI_Get(back, N, MPI_INT64_T, next, 0, N, MPI_INT64_T, win);
    MPI_Win_flush(next, win);
    for (int i = 0; i < N; i++)
        if (back[i] != src[i]) fail("MPI_Get after MPI_Put+flush", (long)back[i], (long)src[i]);

    /* Every rank adds rank+1 to rank 0's counter. */
    int64_t add = rank + 1, old;
    MPI_Fetch_and_op(&add, &old, MPI_INT64_T, 0, N, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read local data through the window (the lock_all epoch covers self too). */
    int64_t mine[N + 1];
    MPI_Get(mine, N + 1, MPI_INT64_T, rank, 0, N + 1, MPI_INT64_T, win);
    MPI_Win_flush(rank, win);
    for (int i = 0; i < N; i++)
        if (mine[i] != (int64_t)prev * 1000 + i)
            fail("data put by left neighbour", (long)mine[i], (long)prev * 1000 + i);
    if (rank == 0 && mine[N] != (int64_t)size * (size + 1) / 2)
        fail("fetch_and_op total", (long)mine[N], (long)size * (size + 1) / 2);

    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (distinct != nodes) fail("distinct hostnames", distinct, nodes);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_window_check: OK (%d ranks, %d nodes)\n", size, nodes);
    free(buf);
    free(all);
    MPI_Finalize();
    return 0;
}
