// Symbol visibility for the entry points and the runtime functions that headers call, and the
// execution-space marker of entry points that device code may call (nvcc only).
#pragma once
#define ISHMEM_API __attribute__((visibility("default")))
#if defined(__CUDACC__)
#define ISHMEM_HD __host__ __device__
#else
#define ISHMEM_HD
#endif
