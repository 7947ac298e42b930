// Host-called and _on_queue collectives on a heap in GPU memory (gpu::collective, gpu::reduction,
// and gpu::barrier for the _on_queue barriers): a kernel of the library runs the device collectives
// of ishmem/cuda/collectives.cuh, so the flags are the ones device calls use. A small call is one
// block (an ordinary launch); a medium one a block per part of the stage; a large one is a
// cooperative grid of up to one block per SM, with the whole grid as the group: every block copies
// or combines its share, and the grid syncs between the phases.
// Every launch but a cooperative one is a programmatic dependent launch (Hopper and later; off with
// ISHMEM_GPU_EARLY_LAUNCH=0): a kernel queued right after another of these is launched while that one
// still runs, and waits on the GPU for it (earlier_work_done). (A cooperative grid launched so was
// slower per call.) That takes the launch off the time between two calls in a row: a kernel
// boundary costs about 1 us less this way (docs/guide/tuning.rst).
#include <atomic>

#include "coll_launch.cuh"

namespace ishmemi::gpu::launching {

template <bool Grid> __global__ void __launch_bounds__(threads_per_block<Grid>)
    bytes_kernel(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) {
    earlier_work_done();
    const auto group = kernel_group<Grid>();
    switch (kind) {
        case coll_alltoall:
            dc::alltoall(group, team, dest, source, bytes);
            break;
        case coll_broadcast:
            dc::broadcast(group, team, dest, source, bytes, root);
            break;
        case coll_collect:
            dc::collect(group, team, dest, source, bytes);
            break;
        default:
            dc::fcollect(group, team, dest, source, bytes);
            break;
    }
}

__global__ void barrier_kernel(int team) {
    earlier_work_done();
    ishmemi::dev::team_barrier(*ishmemi::dev::find_team(team), team);
}

namespace {

// Streams for the host-called forms, one per calling thread in turn: a collective kernel waits for
// the other PEs, so it must not queue behind another thread's collective on another team.
constexpr int stream_count = 32;
cudaStream_t streams[stream_count];
int sm_count = 1;
bool early_launch = false;  // programmatic dependent launches: Hopper or later, and ISHMEM_GPU_EARLY_LAUNCH

cudaStream_t my_stream() {
    static std::atomic<unsigned> next{0};
    thread_local cudaStream_t mine = streams[next.fetch_add(1, std::memory_order_relaxed) % stream_count];
    return mine;
}

const kernel_pair bytes_kernels{reinterpret_cast<const void*>(&bytes_kernel<true>),
                                reinterpret_cast<const void*>(&bytes_kernel<false>)};

}  // namespace

// One block per `per_block` bytes that a PE moves (ISHMEM_GPU_COLL_BLOCK_BYTES, or
// ISHMEM_GPU_REDUCE_BLOCK_BYTES for reductions and scans: they load from peers, and a load waits
// for its answer, so they need more threads in flight than stores), up to one per SM.
unsigned blocks_for(size_t bytes, size_t per_block) {
    const size_t b = (bytes + per_block - 1) / per_block;
    return static_cast<unsigned>(b < 1 ? 1 : b > static_cast<size_t>(sm_count) ? sm_count : b);
}

// The device code decides by size alone whether a call takes the ring, and a grid would not.
bool through_ring(size_t received) { return received <= config.gpu_stage_bytes; }

// Such a team's path runs in one block: its speed is the transport's, and one block is the group
// that path serves best (its leader posts, and only the members of this node take stores).
bool over_nodes(int team) {
    const team_t* t = find_team(team);
    return t != nullptr && t->spans_nodes;
}

// (The ring ruled out first.) Each block handles its part alone, without grid syncs.
bool through_medium(int team, size_t n, size_t limit, bool all_send, size_t block_bytes) {
    return n > 0 && n <= cuda::gpu_sync_slot::max_members &&
           cuda::medium_takes(team, static_cast<unsigned>(limit), all_send ? n : 1, block_bytes);
}
unsigned medium_blocks(size_t block_bytes) { return cuda::medium_parts_with_data(block_bytes, config.gpu_medium_part); }

void launch(kernel_pair k, shape how, unsigned blocks, void** args, CUstream_st* s, unsigned threads) {
    cuda::ensure_device();
    cudaStream_t stream = s ? s : my_stream();
    if (blocks <= 1) how = shape::one_block;
    cudaLaunchAttribute attrs[1];
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads ? threads : how == shape::one_block ? lone_block_threads : block_threads);
    cfg.stream = stream;
    cfg.attrs = attrs;
    const void* kernel = how == shape::one_block ? k.block : k.grid;
    if (how == shape::grid) {
        attrs[0].id = cudaLaunchAttributeCooperative;
        attrs[0].val.cooperative = 1;
        cfg.numAttrs = 1;
    } else if (early_launch) {
        attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attrs[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.numAttrs = 1;
    }
    cuda::check(cudaLaunchKernelExC(&cfg, kernel, args), routine,
                how == shape::grid ? "launching a collective kernel (cooperative)" : "launching a collective kernel");
    if (!s) cuda::check(cudaStreamSynchronize(stream), routine, "a collective kernel");
}

// Every element type a reduction takes, in one list for the dispatch and for the loading at init.
template <class F> void for_elem(elem_kind type, F&& f) {
    if (!with_elem_kind(type, f)) fatal(routine, "unknown element type %d", static_cast<int>(type));
}

void init() {
    int major = 0;
    cuda::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, cuda::device()), routine,
                "cudaDeviceGetAttribute");
    early_launch = major >= 9 && config.gpu_early_launch;
    static bool made = false;  // once per process: a later ishmem_init reuses the streams
    if (made) return;
    made = true;
    for (cudaStream_t& s : streams)
        cuda::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), routine, "cudaStreamCreateWithFlags");
    cuda::check(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, cuda::device()), routine,
                "cudaDeviceGetAttribute");

    // Load the kernels now, not first inside a queue task (see host_ops_init).
    cudaFuncAttributes a;
    for (const void* k : {bytes_kernels.grid, bytes_kernels.block, reinterpret_cast<const void*>(&barrier_kernel)})
        cuda::check(cudaFuncGetAttributes(&a, k), routine, "loading the library's kernels");
    for (int e = elem_i8; e <= elem_f64; ++e)
        for_elem(static_cast<elem_kind>(e), [](auto elem) { load_combine_kernels<decltype(elem)>(); });
}

}  // namespace ishmemi::gpu::launching

namespace ishmemi::gpu {

using namespace launching;

void collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root, CUstream_st* s) {
    const size_t n = static_cast<size_t>(team_size_or_zero(team));
    void* args[] = {&kind, &team, &dest, &source, &bytes, &root};
    // collect (counts differ) always takes the direct form; the others receive blocks_in blocks of bytes.
    const bool broadcast = kind == coll_broadcast, sized = kind != coll_collect;
    const size_t blocks_in = broadcast ? 1 : n;
    const bool ring = sized && through_ring(blocks_in * bytes);
    const bool medium = sized && !ring &&
                        through_medium(team, n, broadcast ? config.gpu_medium_bytes : config.gpu_medium_gather_bytes,
                                       !broadcast, bytes);
    if (ring || over_nodes(team))
        launch(bytes_kernels, shape::one_block, 1, args, s);
    else if (medium)
        launch(bytes_kernels, shape::parts, medium_blocks(bytes), args, s);
    else
        launch(bytes_kernels, shape::grid, blocks_for(bytes * n, config.gpu_coll_block_bytes), args, s);
}

void barrier(int team, CUstream_st* s) {
    void* args[] = {&team};
    const void* k = reinterpret_cast<const void*>(&barrier_kernel);
    launch({k, k}, shape::one_block, 1, args, s, 1);  // one thread takes the barrier
}

void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source, size_t nelems,
               CUstream_st* s) {
    for_elem(type, [&](auto elem) { combine<decltype(elem)>(op, scan, team, dest, source, nelems, s); });
}

}  // namespace ishmemi::gpu

namespace ishmemi::cuda {
void collectives_init() { gpu::launching::init(); }
}  // namespace ishmemi::cuda
