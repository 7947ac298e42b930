// The reduction and scan kernels for float and double (see reduce_kernels.cuh).
#include "reduce_kernels.cuh"

ISHMEMI_REDUCE_KERNELS_FOR(float)
ISHMEMI_REDUCE_KERNELS_FOR(double)
