// Kernels of the CUDA consumer, in a translation unit of their own (as in a user's project): the
// device API in a kernel over a thread block.
#include "kernels.h"

#include <cooperative_groups.h>
#include <ishmem.h>
#include <ishmemx.h>

__global__ void ring_kernel(int* ring, uint64_t* flag, long* sum, int count) {
    auto block = cooperative_groups::this_thread_block();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    ishmemx_int_put_signal_work_group(ring, ring + count, count, flag, 1, ISHMEM_SIGNAL_ADD, (me + 1) % n, block);
    if (block.thread_rank() == 0) {
        ishmem_long_atomic_add(sum, me + 1, 0);
        ishmem_signal_wait_until(flag, ISHMEM_CMP_GE, 1);
        ishmem_quiet();
    }
}

void launch_ring(int* ring, uint64_t* flag, long* sum, int count) { ring_kernel<<<1, 256>>>(ring, flag, sum, count); }
