// A GPU ring: every PE's kernel puts 1024 ints into its right neighbour's buffer and signals it, in
// one call by the whole thread block, then waits for its left neighbour's data. One PE per GPU:
//   build/launcher/ishmrun -n 2 build/examples/cuda_ring
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>
#include <vector>

__global__ void ring(int* buf, uint64_t* flag, int me, int n) {
    auto block = cooperative_groups::this_thread_block();
    int right = (me + 1) % n;
    ishmemx_int_put_signal_work_group(buf, buf + 1024, 1024, flag, 1, ISHMEM_SIGNAL_ADD, right, block);
    if (block.thread_rank() == 0) ishmem_signal_wait_until(flag, ISHMEM_CMP_GE, 1);
}

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* buf = static_cast<int*>(ishmem_calloc(2048, sizeof(int)));
    uint64_t* flag = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    std::vector<int> mine(1024), got(1024);
    for (int i = 0; i < 1024; ++i) mine[i] = me * 100000 + i;
    ishmem_int_put(buf + 1024, mine.data(), 1024, me);  // the host form works on GPU memory too
    ishmem_barrier_all();

    ring<<<1, 256>>>(buf, flag, me, n);
    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
        std::fprintf(stderr, "PE %d: kernel failed: %s\n", me, cudaGetErrorString(err));
        return 1;
    }
    ishmem_int_get(got.data(), buf, 1024, me);
    const int left = (me + n - 1) % n;
    int bad = 0;
    for (int i = 0; i < 1024; ++i) bad += got[i] != left * 100000 + i;
    std::printf("PE %d of %d: %s (%d of 1024 elements from PE %d wrong)\n", me, n, bad ? "FAILED" : "ring ok", bad,
                left);
    ishmem_free(flag);
    ishmem_free(buf);
    ishmem_finalize();
    return bad ? 1 : 0;
}
