// What the library's collective kernels share (collectives.cu, and the reduction kernels of
// reduce_kernels_*.cu): the group a kernel works as, its first step, and how a call is launched.
// The reductions' kernels live in files of their own, a width of element types each, because they
// are most of the library's device code: a parallel build compiles them side by side.
#pragma once

#include <cstddef>

#include "../src/config.h"
#include "cuda_call.h"
#include "ishmem/impl/all.h"  // with the device half (ishmem/cuda/device.cuh) under nvcc

namespace ishmemi::gpu::launching {

namespace cg = cooperative_groups;
namespace dc = ishmemi::dev::coll;

inline constexpr const char* routine = "ishmem (collective on GPU memory)";
inline constexpr unsigned block_threads = 256;  // a grid's blocks: one such block per SM is always co-resident
inline constexpr unsigned lone_block_threads = tuning::gpu_lone_block_threads.value;  // the one block of a small call
template <bool Grid> inline constexpr unsigned threads_per_block = Grid ? block_threads : lone_block_threads;

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

// A library kernel in its two forms: the whole grid of a cooperative launch, or one block.
struct kernel_pair {
    const void* grid;
    const void* block;
};

// How a call runs: one block (the block form), a block per part of the stage (the grid form
// without grid syncs: an ordinary launch), or a cooperative grid.
enum class shape { one_block, parts, grid };

// Launches k on stream s (the calling thread's library stream when null, then waits for it).
// threads: per block, 0 for the shape's own.
void launch(kernel_pair k, shape how, unsigned blocks, void** args, CUstream_st* s, unsigned threads = 0);

// One block per `per_block` bytes that a PE moves, up to one per SM.
unsigned blocks_for(size_t bytes, size_t per_block);
// Calls that go through the ring (ishmem/cuda/coll/ring.cuh) run as one block.
bool through_ring(size_t received);
// A team with members on other nodes takes the path by puts and team barriers (coll/nodes.cuh).
bool over_nodes(int team);
// Calls that go through the medium stage (coll/medium.cuh) run one block per part with data.
// n: the team's size; all_send: every member sends its block to every member.
bool through_medium(int team, size_t n, size_t limit, bool all_send, size_t block_bytes);
unsigned medium_blocks(size_t block_bytes);

// The reductions and scans over T (reduce_kernels.cuh, instantiated in reduce_kernels_*.cu).
template <class T>
void combine(int op, int scan, int team, void* dest, const void* source, size_t nelems, CUstream_st* s);
// Loads T's reduction kernels (at init, not first inside a queue task).
template <class T> void load_combine_kernels();

}  // namespace ishmemi::gpu::launching
