// Symbol visibility for the entry points and the runtime functions that headers call, and the
// execution-space marker of entry points that device code may call (nvcc only).
#pragma once
#define ISHMEM_API __attribute__((visibility("default")))
#if defined(__CUDACC__)
#define ISHMEM_HD __host__ __device__
#else
#define ISHMEM_HD
#endif

// Library routines with C linkage, declared alike for C and C++.
#ifdef __cplusplus
#define ISHMEM_C_API extern "C" ISHMEM_API
#else
#define ISHMEM_C_API ISHMEM_API
#endif

// C: ISHMEMI_OVERLOAD(name, args...) calls ISHMEMI_OVL_<name>_<number of args>(args...), which
// the generated headers define for each name that C++ overloads (up to 9 arguments).
#define ISHMEMI_NARGS(...) ISHMEMI_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ISHMEMI_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define ISHMEMI_CAT(a, b) ISHMEMI_CAT_(a, b)
#define ISHMEMI_CAT_(a, b) a##b
#define ISHMEMI_OVERLOAD(name, ...) ISHMEMI_CAT(ISHMEMI_OVL_##name##_, ISHMEMI_NARGS(__VA_ARGS__))(__VA_ARGS__)
