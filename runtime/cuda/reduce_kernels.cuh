// The reduction and scan kernels of the host-called and _on_queue forms on GPU memory, for one
// element type at a time: each reduce_kernels_*.cu instantiates combine<T> and
// load_combine_kernels<T> for the types of one width.
#pragma once

#include <type_traits>

#include "coll_launch.cuh"

namespace ishmemi::gpu::launching {

template <int Op, int Scan, class T, bool Grid> __global__ void __launch_bounds__(threads_per_block<Grid>)
    combine_kernel(int team, T* dest, const T* source, size_t nelems) {
    earlier_work_done();
    dc::combine_chunks<Op, Scan>(kernel_group<Grid>(), team, dest, source, nelems,
                                 Scan == dc::no_scan     ? "ishmem_reduce"
                                 : Scan == dc::inclusive ? "ishmem_sum_inscan"
                                                         : "ishmem_sum_exscan");
}

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

template <class T> void load_combine_kernels() {
    cudaFuncAttributes a;
    for (int scan = 0; scan <= 2; ++scan)
        for (int op = dc::op_and; op <= dc::op_prod; ++op) {
            if (!std::is_integral_v<T> && op <= dc::op_xor && scan == 0) continue;
            const kernel_pair k = combine_kernel_for<T>(op, scan);
            cuda::check(cudaFuncGetAttributes(&a, k.grid), routine, "loading the library's kernels");
            cuda::check(cudaFuncGetAttributes(&a, k.block), routine, "loading the library's kernels");
        }
}

}  // namespace ishmemi::gpu::launching

// Instantiates the reductions of the listed element types in the including file.
#define ISHMEMI_REDUCE_KERNELS_FOR(T)                                                                           \
    template void ishmemi::gpu::launching::combine<T>(int, int, int, void*, const void*, size_t, CUstream_st*); \
    template void ishmemi::gpu::launching::load_combine_kernels<T>();
