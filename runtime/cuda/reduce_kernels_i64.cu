// The reduction and scan kernels for 64-bit integers (see reduce_kernels.cuh).
#include "reduce_kernels.cuh"

ISHMEMI_REDUCE_KERNELS_FOR(int64_t)
ISHMEMI_REDUCE_KERNELS_FOR(uint64_t)
