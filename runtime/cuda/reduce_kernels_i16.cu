// The reduction and scan kernels for 16-bit integers (see reduce_kernels.cuh).
#include "reduce_kernels.cuh"

ISHMEMI_REDUCE_KERNELS_FOR(int16_t)
ISHMEMI_REDUCE_KERNELS_FOR(uint16_t)
