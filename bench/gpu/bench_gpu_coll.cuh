// bench_gpu_coll.cuh: the collective measurements of bench_gpu (ishmem), bench_gpu_nvshmem (NVSHMEM)
// and bench_gpu_nccl (NCCL, stream forms only), on every PE of the job over the world team:
//
//   coll_stream/<op>   the stream forms (ishmemx_*_on_queue, nvshmemx_*_on_stream, nccl*), back to back
//                      on one stream, timed with CUDA events around `iters` calls; also issue_us, the
//                      host's time to queue one call
//   coll_block/<op>    one block of 512 threads per PE calling the _work_group / _block form `iters`
//                      times in one kernel (NVSHMEM's is a collective launch), up to 1 MiB
//
// op: barrier_all (us only), broadcast (root 0), fcollect, alltoall, sum_reduce (float). bytes is what
// NCCL's tests call the size: the array of broadcast and sum_reduce, the whole dest of fcollect and
// alltoall (n blocks of bytes / n). Rows: us per call (PE 0's median over the repetitions, each after
// a barrier), and GBps as NCCL's bus bandwidth (algorithm bandwidth times 1 for broadcast, (n-1)/n for
// fcollect and alltoall, 2(n-1)/n for sum_reduce). After the repetitions PE 0 and PE n-1 check the
// first and last element of their dest; a wrong one is reported and fails the run.
//
// What the Api provides for these (besides barrier_all, malloc...):
//   host:   stream_barrier_all(s) (when has_barrier), stream_broadcast(dst, src, bytes, root, s),
//           stream_fcollect(dst, src, bytes_per_pe, s), stream_alltoall(dst, src, bytes_per_pe, s),
//           stream_sum_reduce(dst, src, floats, s), launch_block_coll(func, args, s)
//   device: block_barrier_all(b), block_broadcast(dst, src, bytes, root, b), block_fcollect(...),
//           block_alltoall(...), block_sum_reduce(...), with cg::thread_block b (when has_device_coll)
#ifndef ISHMEM_BENCH_GPU_COLL_CUH
#define ISHMEM_BENCH_GPU_COLL_CUH

namespace gpubench {

enum coll_op : int { c_barrier, c_broadcast, c_fcollect, c_alltoall, c_sum_reduce };
inline const char* coll_name(coll_op op) {
    switch (op) {
        case c_barrier:
            return "barrier_all";
        case c_broadcast:
            return "broadcast";
        case c_fcollect:
            return "fcollect";
        case c_alltoall:
            return "alltoall";
        default:
            return "sum_reduce";
    }
}
// NCCL's bus-bandwidth factor for n PEs.
inline double bus_factor(coll_op op, int n) {
    switch (op) {
        case c_fcollect:
        case c_alltoall:
            return double(n - 1) / n;
        case c_sum_reduce:
            return 2.0 * (n - 1) / n;
        default:
            return 1.0;
    }
}

constexpr int coll_block_threads = 512;
constexpr size_t coll_block_max_bytes = size_t(1) << 20;

// The launch bound keeps the registers per thread low enough for a block of 512 to fit on an SM:
// NVSHMEM's collective launch refuses a kernel of which no block fits ("One or more PEs cannot
// launch"), which its block reduction, inlined here, caused without it.
template <class Api> __global__ void __launch_bounds__(coll_block_threads)
    k_coll_block(coll_op op, char* dst, const char* src, size_t bytes, int n, long iters) {
    auto b = cg::this_thread_block();
    for (long i = 0; i < iters; ++i) {
        switch (op) {
            case c_barrier:
                Api::block_barrier_all(b);
                break;
            case c_broadcast:
                Api::block_broadcast(dst, src, bytes, 0, b);
                break;
            case c_fcollect:
                Api::block_fcollect(dst, src, bytes / n, b);
                break;
            case c_alltoall:
                Api::block_alltoall(dst, src, bytes / n, b);
                break;
            default:
                Api::block_sum_reduce(reinterpret_cast<float*>(dst), reinterpret_cast<const float*>(src), bytes / 4, b);
                break;
        }
    }
}

__global__ void k_fill_floats(float* p, size_t count, float v) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
        p[i] = v;
}

// The state of a collective run: buffers of cap bytes (symmetric where the library needs it).
struct coll_run {
    const options& opt;
    csv_writer& out;
    cudaStream_t stream;
    char* src;
    char* dst;
    size_t cap;
    int me, n;
    long wrong = 0;
    int points = 0;
    uint32_t stamp = 0x5eed;

    bool wanted(const std::string& name) const {
        if (opt.only.empty()) return true;
        for (const std::string& s : opt.only)
            if (name.find(s) != std::string::npos) return true;
        return false;
    }
    uint32_t word_at(const char* p, size_t word) const {
        uint32_t v = 0;
        GB_CUDA(cudaMemcpy(&v, p + word * 4, 4, cudaMemcpyDeviceToHost));
        return v;
    }

    // Source: words pattern(stamp + me, i); sum_reduce: floats me + 1. Dest zeroed.
    void prepare(coll_op op, size_t bytes) {
        GB_CUDA(cudaMemsetAsync(dst, 0, bytes, stream));
        if (op == c_sum_reduce)
            k_fill_floats<<<64, 256, 0, stream>>>(reinterpret_cast<float*>(src), bytes / 4, float(me + 1));
        else
            k_fill_pattern<<<64, 256, 0, stream>>>(reinterpret_cast<uint32_t*>(src), bytes / 4, stamp + me);
        GB_CUDA(cudaGetLastError());
        GB_CUDA(cudaStreamSynchronize(stream));
    }
    // The first and last word of dest on this PE.
    void check(coll_op op, const std::string& name, size_t bytes) {
        if (op == c_barrier || (me != 0 && me != n - 1)) return;
        const size_t words = bytes / 4, block = words / n;
        for (size_t w : {size_t(0), words - 1}) {
            const uint32_t got = word_at(dst, w);
            uint32_t want = 0;
            if (op == c_broadcast)
                want = pattern(stamp + 0, w);
            else if (op == c_fcollect)
                want = pattern(stamp + uint32_t(w / block), w % block);
            else if (op == c_alltoall)
                want = pattern(stamp + uint32_t(w / block), me * block + w % block);
            else {
                float f = float(n) * float(n + 1) / 2;
                memcpy(&want, &f, 4);
            }
            if (got != want) {
                print_wrong(me, "%s %zu bytes: dest word %zu is %08x, expected %08x", name.c_str(), bytes, w, got,
                            want);
                ++wrong;
            }
        }
    }
};

template <class Api> void coll_stream_call(coll_run& r, coll_op op, size_t bytes) {
    switch (op) {
        case c_barrier:
            if constexpr (Api::has_barrier) Api::stream_barrier_all(r.stream);
            break;
        case c_broadcast:
            Api::stream_broadcast(r.dst, r.src, bytes, 0, r.stream);
            break;
        case c_fcollect:
            Api::stream_fcollect(r.dst, r.src, bytes / r.n, r.stream);
            break;
        case c_alltoall:
            Api::stream_alltoall(r.dst, r.src, bytes / r.n, r.stream);
            break;
        default:
            Api::stream_sum_reduce(reinterpret_cast<float*>(r.dst), reinterpret_cast<const float*>(r.src), bytes / 4,
                                   r.stream);
            break;
    }
}

// Whether one block of the in-kernel loop fits on an SM (the GPUs of a run are alike, so every PE
// finds the same); if not, a line with the kernel's resources says why the point is left out.
template <class Api> bool coll_block_fits(const coll_run& r, const std::string& name) {
    const void* kernel = reinterpret_cast<const void*>(&k_coll_block<Api>);
    int per_sm = 0;
    GB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, coll_block_threads, 0));
    if (per_sm > 0) return true;
    cudaFuncAttributes a{};
    GB_CUDA(cudaFuncGetAttributes(&a, kernel));
    if (r.me == 0)
        r.out.note(
            "%s left out: no block of %d threads fits on an SM (%d registers per thread, %zu bytes of "
            "static shared memory, %zu of local memory)",
            name.c_str(), coll_block_threads, a.numRegs, a.sharedSizeBytes, a.localSizeBytes);
    return false;
}

// One point: reps repetitions of iters calls, each repetition after a barrier; PE 0 writes the rows.
template <class Api> void coll_point(coll_run& r, coll_op op, bool block, size_t bytes) {
    const std::string name = std::string(block ? "coll_block/" : "coll_stream/") + coll_name(op);
    if constexpr (Api::has_device_coll)
        if (block && !coll_block_fits<Api>(r, name)) return;
    set_doing("%s, %zu bytes", name.c_str(), bytes);
    r.prepare(op, bytes);
    // About 64 MiB of data per repetition (less with --quick), at most 200 calls, at least 1.
    const size_t budget = (size_t(64) << 20) >> r.opt.budget_shift;
    const long iters = std::max(1L, std::min(200L, long(budget / std::max<size_t>(bytes, 1))));
    cudaEvent_t e0, e1;
    GB_CUDA(cudaEventCreate(&e0));
    GB_CUDA(cudaEventCreate(&e1));
    std::vector<double> us, issue_us;
    for (int rep = 0; rep <= r.opt.reps; ++rep) {  // rep 0 warms up
        GB_CUDA(cudaStreamSynchronize(r.stream));
        Api::barrier_all();
        GB_CUDA(cudaEventRecord(e0, r.stream));
        bool in_kernel = false;
        if constexpr (Api::has_device_coll) {
            if (block) {
                coll_op o = op;
                char* d = r.dst;
                const char* s = r.src;
                size_t b = bytes;
                int n = r.n;
                long it = iters;
                void* args[] = {&o, &d, &s, &b, &n, &it};
                Api::launch_block_coll(reinterpret_cast<const void*>(&k_coll_block<Api>), args, coll_block_threads,
                                       r.stream);
                in_kernel = true;
            }
        }
        const auto issue0 = std::chrono::steady_clock::now();
        if (!in_kernel)
            for (long i = 0; i < iters; ++i) coll_stream_call<Api>(r, op, bytes);
        const std::chrono::duration<double, std::micro> issued = std::chrono::steady_clock::now() - issue0;
        if (rep > 0 && !in_kernel) issue_us.push_back(issued.count() / double(iters));
        GB_CUDA(cudaEventRecord(e1, r.stream));
        GB_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        GB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (rep > 0) us.push_back(1000.0 * ms / double(iters));
        progress();
    }
    GB_CUDA(cudaEventDestroy(e0));
    GB_CUDA(cudaEventDestroy(e1));
    Api::barrier_all();
    r.check(op, name, bytes);
    const double t = median(us);
    r.out.add(name, bytes, "us", t);
    // The host's time to queue one call: when it is close to us, the stream waited for the host.
    if (!issue_us.empty()) r.out.add(name, bytes, "issue_us", median(issue_us));
    if (op != c_barrier) r.out.add(name, bytes, "GBps", double(bytes) / (t * 1e3) * bus_factor(op, r.n));
    ++r.points;
}

// Every collective point that --only selects; both forms when the Api has device collectives.
template <class Api> void run_collectives(coll_run& r) {
    for (bool block : {false, true}) {
        if (block && !Api::has_device_coll) continue;
        for (coll_op op : {c_barrier, c_broadcast, c_fcollect, c_alltoall, c_sum_reduce}) {
            const std::string name = std::string(block ? "coll_block/" : "coll_stream/") + coll_name(op);
            if (!r.wanted(name)) continue;
            if (op == c_barrier) {
                if (Api::has_barrier) coll_point<Api>(r, op, block, 0);
                continue;
            }
            for (size_t bytes : r.opt.sizes) {
                const size_t unit = size_t(4) * r.n;  // whole floats, whole blocks per PE
                const size_t b = std::max(unit, bytes / unit * unit);
                if (b > r.cap || (block && b > coll_block_max_bytes)) continue;
                coll_point<Api>(r, op, block, b);
            }
        }
    }
}

}  // namespace gpubench

#endif  // ISHMEM_BENCH_GPU_COLL_CUH
