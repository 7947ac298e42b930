// The reduction and scan kernels for 32-bit integers (see reduce_kernels.cuh).
#include "reduce_kernels.cuh"

ISHMEMI_REDUCE_KERNELS_FOR(int32_t)
ISHMEMI_REDUCE_KERNELS_FOR(uint32_t)
