// bench_gpu_nccl: the stream collectives of bench_gpu_coll.cuh on NCCL (ncclBroadcast, ncclAllGather,
// all-to-all as grouped ncclSend/ncclRecv, ncclAllReduce), the second peer that bench/gpu/run.sh
// runs next to ishmem. NCCL has no barrier and no device collectives, so only the coll_stream rows
// of broadcast, fcollect, alltoall and sum_reduce come out. Not built by CMake: NCCL comes with
// PyTorch's wheel on the GPU machine; run.sh builds it:
//
//     nvcc -O2 -std=c++17 -arch=sm_90 -I$NCCL/include bench_gpu_nccl.cu -L$NCCL/lib -Xlinker -l:libnccl.so.2
//
// Started like the NVSHMEM peer: every rank with --rank R --nranks N --uid-file F; rank 0 writes
// NCCL's unique id to F, the others read it; each takes the GPU numbered by its rank.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nccl.h>

#include "bench_gpu_common.cuh"

namespace {

using gpubench::die;

void check_nccl(ncclResult_t r, const char* what) {
    if (r != ncclSuccess) die("%s: %s", what, ncclGetErrorString(r));
}
#define GB_NCCL(call) check_nccl((call), #call)

struct nccl_api {
    static constexpr bool has_barrier = false, has_device_coll = false;
    static inline ncclComm_t comm = nullptr;
    static inline int rank = -1, nranks = 0;
    static inline std::string uid_file;
    static inline float* one = nullptr;  // the barrier's word
    static inline cudaStream_t own = nullptr;

    // Between repetitions: an all-reduce of one float, waited for (NCCL has no barrier).
    static void barrier_all() {
        GB_NCCL(ncclAllReduce(one, one, 1, ncclFloat, ncclSum, comm, own));
        GB_CUDA(cudaStreamSynchronize(own));
    }
    static void stream_broadcast(void* dst, const void* src, size_t bytes, int root, cudaStream_t s) {
        GB_NCCL(ncclBroadcast(src, dst, bytes / 4, ncclFloat, root, comm, s));
    }
    static void stream_fcollect(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        GB_NCCL(ncclAllGather(src, dst, bytes / 4, ncclFloat, comm, s));
    }
    static void stream_alltoall(void* dst, const void* src, size_t bytes, cudaStream_t s) {
        GB_NCCL(ncclGroupStart());
        for (int p = 0; p < nranks; ++p) {
            GB_NCCL(ncclSend(static_cast<const char*>(src) + p * bytes, bytes / 4, ncclFloat, p, comm, s));
            GB_NCCL(ncclRecv(static_cast<char*>(dst) + p * bytes, bytes / 4, ncclFloat, p, comm, s));
        }
        GB_NCCL(ncclGroupEnd());
    }
    static void stream_sum_reduce(float* dst, const float* src, size_t n, cudaStream_t s) {
        GB_NCCL(ncclAllReduce(src, dst, n, ncclFloat, ncclSum, comm, s));
    }
};

}  // namespace

int main(int argc, char** argv) {
    using namespace gpubench;
    g_program = "bench_gpu_nccl";
    options opt;
    parse_options(opt, argc, argv, [&](const std::string& a, int& i) {
        if (i + 1 >= argc) return false;
        if (a == "--rank")
            nccl_api::rank = atoi(argv[++i]);
        else if (a == "--nranks")
            nccl_api::nranks = atoi(argv[++i]);
        else if (a == "--uid-file")
            nccl_api::uid_file = argv[++i];
        else
            return false;
        return true;
    });
    if (opt.help || !opt.bad.empty()) {
        if (!opt.bad.empty()) fprintf(stderr, "%s: unknown or incomplete option '%s'\n", g_program, opt.bad.c_str());
        print_usage(
            opt.help ? stdout : stderr, argv[0], "--rank R --nranks N --uid-file F",
            "  --rank R         this process's rank (required; also its GPU)\n"
            "  --nranks N       the number of processes (required)\n"
            "  --uid-file F     where rank 0 leaves NCCL's unique id for the others (required; must not exist)\n");
        return opt.help ? 0 : 2;
    }
    const int rank = nccl_api::rank, nranks = nccl_api::nranks;
    if (rank < 0 || nranks < 1 || rank >= nranks || nccl_api::uid_file.empty())
        die("needs --rank R --nranks N --uid-file F (0 <= R < N)");
    g_pe = rank;
    start_watchdog(opt.watchdog_s);
    set_doing("initialization");
    int devices = 0;
    GB_CUDA(cudaGetDeviceCount(&devices));
    GB_CUDA(cudaSetDevice(rank % devices));
    ncclUniqueId id;
    if (rank == 0) {
        GB_NCCL(ncclGetUniqueId(&id));
        write_id_file(nccl_api::uid_file, &id, sizeof id);
    } else {
        read_id_file(nccl_api::uid_file, &id, sizeof id);
    }
    GB_NCCL(ncclCommInitRank(&nccl_api::comm, nranks, id, rank));
    if (rank == 0) unlink(nccl_api::uid_file.c_str());

    cudaStream_t stream;
    GB_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    GB_CUDA(cudaStreamCreateWithFlags(&nccl_api::own, cudaStreamNonBlocking));
    GB_CUDA(cudaMalloc(&nccl_api::one, sizeof(float)));
    const size_t cap = opt.sizes.back();
    char *src = nullptr, *dst = nullptr;
    GB_CUDA(cudaMalloc(&src, cap));
    GB_CUDA(cudaMalloc(&dst, cap));

    csv_writer out(rank == 0 ? opt.csv : std::string(), rank == 0);
    int version = 0;
    ncclGetVersion(&version);
    out.note("NCCL %d, %d ranks; stream collectives only", version, nranks);
    coll_run r{opt, out, stream, src, dst, cap, rank, nranks};
    run_collectives<nccl_api>(r);
    set_doing("the end");
    nccl_api::barrier_all();
    out.note("%d points, %ld wrong results on rank 0 (the others report their own on stderr)", r.points, r.wrong);
    GB_CUDA(cudaFree(src));
    GB_CUDA(cudaFree(dst));
    GB_CUDA(cudaFree(nccl_api::one));
    ncclCommDestroy(nccl_api::comm);
    return r.wrong ? 1 : 0;
}
