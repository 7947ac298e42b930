// mpi_host_bw: the link's practical limit between two processes, as MPI moves bytes from host memory:
// half the round trip of a ping-pong (latency) and a window of non-blocking sends (bandwidth), at the
// sizes bench_gpu uses. bench/gpu/nodes.sh runs it next to bench_gpu between the same two nodes and
// prints ours / MPI. Same CSV as bench_gpu: name,bytes,metric,value (metric us or GBps).
//
//     mpirun -n 2 [--host a,b] build/bench/gpu/mpi_host_bw [--sizes 8,4096,...] [--reps N]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int window = 16;  // sends in flight per bandwidth round, as OSU's osu_bw

double now() { return MPI_Wtime(); }

// Half the round trip of `bytes`, in microseconds (median of reps runs of iters round trips).
double latency(char* buf, int bytes, int me, int iters, int reps) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        for (int i = 0; i < iters; ++i) {
            if (me == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        t.push_back((now() - t0) * 1e6 / (2.0 * iters));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// GB/s from rank 0 to rank 1 (median of reps), each round a window of sends and one short ack.
double bandwidth(char* buf, int bytes, int me, int rounds, int reps) {
    std::vector<double> g;
    std::vector<MPI_Request> rq(window);
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        for (int k = 0; k < rounds; ++k) {
            for (int w = 0; w < window; ++w) {
                if (me == 0)
                    MPI_Isend(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[w]);
                else
                    MPI_Irecv(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[w]);
            }
            MPI_Waitall(window, rq.data(), MPI_STATUSES_IGNORE);
            char ack = 0;
            if (me == 0)
                MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
        const double s = now() - t0;
        g.push_back(double(bytes) * window * rounds / s / 1e9);
    }
    std::sort(g.begin(), g.end());
    return g[g.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int me = 0, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    std::vector<long> sizes;
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            for (char* s = strtok(argv[++i], ","); s; s = strtok(nullptr, ",")) sizes.push_back(atol(s));
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::max(1, atoi(argv[++i]));
        } else {
            if (me == 0) fprintf(stderr, "usage: mpi_host_bw [--sizes LIST] [--reps N] (unknown: %s)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n != 2) {
        if (me == 0) fprintf(stderr, "mpi_host_bw: runs on 2 processes, not %d\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (sizes.empty())
        for (long s = 8; s <= (64l << 20); s *= 4) sizes.push_back(s);
    const long most = *std::max_element(sizes.begin(), sizes.end());
    std::vector<char> buf(static_cast<size_t>(most), 1);
    if (me == 0) printf("name,bytes,metric,value\n");
    for (long s : sizes) {
        const int bytes = static_cast<int>(s);
        // About 50 ms per repetition at the link's speed, at least a few iterations.
        const int iters = static_cast<int>(std::clamp(200000000l / (s + 2000), 4l, 20000l));
        const double us = latency(buf.data(), bytes, me, iters, reps);
        const int rounds = static_cast<int>(std::clamp((256l << 20) / (s * window), 2l, 2000l));
        const double gbps = bandwidth(buf.data(), bytes, me, rounds, reps);
        if (me == 0) {
            printf("mpi_host_latency,%ld,us,%.6g\n", s, us);
            printf("mpi_host_bw,%ld,GBps,%.6g\n", s, gbps);
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return 0;
}
