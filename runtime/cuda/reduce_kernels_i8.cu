// The reduction and scan kernels for 8-bit integers (see reduce_kernels.cuh).
#include "reduce_kernels.cuh"

ISHMEMI_REDUCE_KERNELS_FOR(int8_t)
ISHMEMI_REDUCE_KERNELS_FOR(uint8_t)
