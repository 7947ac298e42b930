// A user's CUDA program against the installed ishmem: a ring of puts with signals and an atomic
// sum, done in a kernel (kernels.cu); the host checks every value and prints
// "cuda consumer: OK on N PEs" on PE 0.
#include <cuda_runtime.h>
#include <ishmem.h>

#include <cstdio>
#include <vector>

#include "kernels.h"

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), count = 4096;
    int* ring = static_cast<int*>(ishmem_calloc(2 * count, sizeof(int)));
    uint64_t* flag = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    long* sum = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    std::vector<int> mine(count), got(count);
    for (int i = 0; i < count; ++i) mine[i] = me * 1000000 + i;
    ishmem_int_put(ring + count, mine.data(), count, me);
    ishmem_barrier_all();

    launch_ring(ring, flag, sum, count);
    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
        std::fprintf(stderr, "PE %d: kernel failed: %s\n", me, cudaGetErrorString(err));
        return 1;
    }
    ishmem_barrier_all();
    ishmem_int_get(got.data(), ring, count, me);
    const int left = (me + n - 1) % n;
    int bad = 0;
    for (int i = 0; i < count; ++i) bad += got[i] != left * 1000000 + i;
    long total = 0;
    ishmem_long_get(&total, sum, 1, 0);
    const long want = static_cast<long>(n) * (n + 1) / 2;
    if (bad || total != want) {
        std::fprintf(stderr, "PE %d: %d of %d ring elements from PE %d wrong; sum %ld, expected %ld\n", me, bad, count,
                     left, total, want);
        return 1;
    }
    ishmem_barrier_all();
    if (me == 0) std::printf("cuda consumer: OK on %d PEs\n", n);
    ishmem_free(sum);
    ishmem_free(flag);
    ishmem_free(ring);
    ishmem_finalize();
    return 0;
}
