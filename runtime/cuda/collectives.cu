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
#include <type_traits>

#include "../src/config.h"
#include "cuda_call.h"
#include "ishmem/impl/all.h"  // with the device half (ishmem/cuda/device.cuh) under nvcc

namespace ishmemi::gpu {

namespace {

namespace cg = cooperative_groups;
namespace dc = ishmemi::dev::coll;

const char* const routine = "ishmem (collective on GPU memory)";
constexpr unsigned block_threads = 256;  // a grid's blocks: one such block per SM is always co-resident
constexpr unsigned lone_block_threads = tuning::gpu_lone_block_threads.value;  // the one block of a small call
template <bool Grid> constexpr unsigned threads_per_block = Grid ? block_threads : lone_block_threads;

// The group of a library kernel: the whole grid of a cooperative launch, or the one block of an
// ordinary launch (small calls: no cooperative launch, and block syncs instead of grid syncs).
template <bool Grid> __device__ inline auto kernel_group() {
    if constexpr (Grid)
        return dc::kernel_grid{cg::this_grid()};
    else
        return cg::this_thread_block();
}

// The first thing each library kernel does. It lets the next kernel of the stream launch now (a
// programmatic dependent launch, if it is one), then waits until the stream's earlier work has ended
// and its writes are visible. Both are no-ops in a kernel launched without the attribute.
__device__ inline void earlier_work_done() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

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

template <int Op, int Scan, class T, bool Grid> __global__ void __launch_bounds__(threads_per_block<Grid>)
    combine_kernel(int team, T* dest, const T* source, size_t nelems) {
    earlier_work_done();
    dc::combine_chunks<Op, Scan>(kernel_group<Grid>(), team, dest, source, nelems,
                                 Scan == dc::no_scan     ? "ishmem_reduce"
                                 : Scan == dc::inclusive ? "ishmem_sum_inscan"
                                                         : "ishmem_sum_exscan");
}

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

// One block per `per_block` bytes that a PE moves (ISHMEM_GPU_COLL_BLOCK_BYTES, or
// ISHMEM_GPU_REDUCE_BLOCK_BYTES for reductions and scans: they load from peers, and a load waits
// for its answer, so they need more threads in flight than stores), up to one per SM.
unsigned blocks_for(size_t bytes, size_t per_block) {
    const size_t b = (bytes + per_block - 1) / per_block;
    return static_cast<unsigned>(b < 1 ? 1 : b > static_cast<size_t>(sm_count) ? sm_count : b);
}

// Calls that go through the ring (ishmem/cuda/coll/ring.cuh, through_ring) run as one block: the
// device code decides by size alone, and a grid would not take the ring.
bool through_ring(size_t received) { return received <= config.gpu_stage_bytes; }

// A team with members on other nodes takes the device code's path by puts and team barriers
// (ishmem/cuda/coll/nodes.cuh) in one block: its speed is the transport's, and one block is the
// group that path serves best (its leader posts, and only the members of this node take stores).
bool over_nodes(int team) {
    const team_t* t = find_team(team);
    return t != nullptr && t->spans_nodes;
}

// Calls that go through the medium stage instead (ishmem/cuda/coll/medium.cuh, via_medium; the ring
// ruled out first) run one block per part with data: each block handles its part alone, without
// grid syncs. n: the team's size; all_send: every member sends its block to every member.
bool through_medium(int team, size_t n, size_t limit, bool all_send, size_t block_bytes) {
    return n > 0 && n <= cuda::gpu_sync_slot::max_members &&
           cuda::medium_takes(team, static_cast<unsigned>(limit), all_send ? n : 1, block_bytes);
}
unsigned medium_blocks(size_t block_bytes) { return cuda::medium_parts_with_data(block_bytes, config.gpu_medium_part); }

// A library kernel in its two forms: the whole grid of a cooperative launch, or one block.
struct kernel_pair {
    const void* grid;
    const void* block;
};

// How a call runs: one block (the block form), a block per part of the stage (the grid form
// without grid syncs: an ordinary launch), or a cooperative grid.
enum class shape { one_block, parts, grid };

// threads: per block, 0 for the shape's own.
void launch(kernel_pair k, shape how, unsigned blocks, void** args, CUstream_st* s, unsigned threads = 0) {
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

const kernel_pair bytes_kernels{reinterpret_cast<const void*>(&bytes_kernel<true>),
                                reinterpret_cast<const void*>(&bytes_kernel<false>)};

template <int Op, int Scan, class T> kernel_pair combine_pair() {
    return {reinterpret_cast<const void*>(&combine_kernel<Op, Scan, T, true>),
            reinterpret_cast<const void*>(&combine_kernel<Op, Scan, T, false>)};
}

template <class T> kernel_pair combine_kernel_for(int op, int scan) {
    if (scan == dc::inclusive) return combine_pair<dc::op_sum, dc::inclusive, T>();
    if (scan == dc::exclusive) return combine_pair<dc::op_sum, dc::exclusive, T>();
    switch (op) {
        case dc::op_max:
            return combine_pair<dc::op_max, dc::no_scan, T>();
        case dc::op_min:
            return combine_pair<dc::op_min, dc::no_scan, T>();
        case dc::op_sum:
            return combine_pair<dc::op_sum, dc::no_scan, T>();
        case dc::op_prod:
            return combine_pair<dc::op_prod, dc::no_scan, T>();
        default:
            break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
            case dc::op_and:
                return combine_pair<dc::op_and, dc::no_scan, T>();
            case dc::op_or:
                return combine_pair<dc::op_or, dc::no_scan, T>();
            case dc::op_xor:
                return combine_pair<dc::op_xor, dc::no_scan, T>();
            default:
                break;
        }
    }
    fatal(routine, "no reduction %d for this element type", op);
}

template <class T>
void combine(int op, int scan, int team, void* dest, const void* source, size_t nelems, CUstream_st* s) {
    T* d = static_cast<T*>(dest);
    const T* src = static_cast<const T*>(source);
    void* args[] = {&team, &d, &src, &nelems};
    const size_t bytes = nelems * sizeof(T), n = static_cast<size_t>(team_size_or_zero(team));
    if (over_nodes(team) || through_ring(bytes * n))
        launch(combine_kernel_for<T>(op, scan), shape::one_block, 1, args, s);
    else if (through_medium(team, n, config.gpu_medium_reduce_bytes, true, bytes))
        launch(combine_kernel_for<T>(op, scan), shape::parts, medium_blocks(bytes), args, s);
    else
        launch(combine_kernel_for<T>(op, scan), shape::grid, blocks_for(bytes, config.gpu_reduce_block_bytes), args, s);
}

}  // namespace

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
    switch (type) {
        case elem_i8:
            return combine<int8_t>(op, scan, team, dest, source, nelems, s);
        case elem_i16:
            return combine<int16_t>(op, scan, team, dest, source, nelems, s);
        case elem_i32:
            return combine<int32_t>(op, scan, team, dest, source, nelems, s);
        case elem_i64:
            return combine<int64_t>(op, scan, team, dest, source, nelems, s);
        case elem_u8:
            return combine<uint8_t>(op, scan, team, dest, source, nelems, s);
        case elem_u16:
            return combine<uint16_t>(op, scan, team, dest, source, nelems, s);
        case elem_u32:
            return combine<uint32_t>(op, scan, team, dest, source, nelems, s);
        case elem_u64:
            return combine<uint64_t>(op, scan, team, dest, source, nelems, s);
        case elem_f32:
            return combine<float>(op, scan, team, dest, source, nelems, s);
        case elem_f64:
            return combine<double>(op, scan, team, dest, source, nelems, s);
    }
    fatal(routine, "unknown element type %d", static_cast<int>(type));
}

}  // namespace ishmemi::gpu

namespace ishmemi::cuda {
void collectives_init() {
    int major = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device()), gpu::routine,
          "cudaDeviceGetAttribute");
    gpu::early_launch = major >= 9 && config.gpu_early_launch;
    static bool made = false;  // once per process: a later ishmem_init reuses the streams
    if (made) return;
    made = true;
    for (cudaStream_t& s : gpu::streams)
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), gpu::routine, "cudaStreamCreateWithFlags");
    check(cudaDeviceGetAttribute(&gpu::sm_count, cudaDevAttrMultiProcessorCount, device()), gpu::routine,
          "cudaDeviceGetAttribute");

    // Load the kernels now, not first inside a queue task (see host_ops_init).
    cudaFuncAttributes a;
    auto load_pair = [&](gpu::kernel_pair k) {
        check(cudaFuncGetAttributes(&a, k.grid), gpu::routine, "loading the library's kernels");
        check(cudaFuncGetAttributes(&a, k.block), gpu::routine, "loading the library's kernels");
    };
    load_pair(gpu::bytes_kernels);
    check(cudaFuncGetAttributes(&a, gpu::barrier_kernel), gpu::routine, "loading the library's kernels");
    auto load = [&](auto elem) {
        using T = decltype(elem);
        for (int scan = 0; scan <= 2; ++scan)
            for (int op = gpu::dc::op_and; op <= gpu::dc::op_prod; ++op) {
                if (!std::is_integral_v<T> && op <= gpu::dc::op_xor && scan == 0) continue;
                load_pair(gpu::combine_kernel_for<T>(op, scan));
            }
    };
    load(int8_t{}), load(int16_t{}), load(int32_t{}), load(int64_t{}), load(uint8_t{}), load(uint16_t{});
    load(uint32_t{}), load(uint64_t{}), load(float{}), load(double{});
}
}  // namespace ishmemi::cuda
