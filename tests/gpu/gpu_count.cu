// Prints the number of CUDA devices this process sees; 0 when cudaGetDeviceCount fails (no driver,
// no device, a mismatched driver). Used by run_if_gpus.sh to skip runs that need more GPUs.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 0) n = 0;
    std::printf("%d\n", n);
    return 0;
}
