// Allocate symmetric memory every way the library offers, use it, grow it and free it.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdint>
#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe();
    int bad = 0;
    long* zeros = static_cast<long*>(ishmem_calloc(8, sizeof(long)));  // zero-filled
    for (int i = 0; i < 8; ++i) bad |= zeros[i] != 0;
    double* aligned = static_cast<double*>(ishmem_align(256, 4 * sizeof(double)));
    bad |= reinterpret_cast<std::uintptr_t>(aligned) % 256 != 0;
    uint64_t* flags = static_cast<uint64_t*>(ishmemx_malloc_with_hints(sizeof(uint64_t), ISHMEMX_MALLOC_SIGNAL_REMOTE));
    int* v = static_cast<int*>(ishmem_malloc(4 * sizeof(int)));
    for (int i = 0; i < 4; ++i) v[i] = me + i;
    v = static_cast<int*>(ishmemx_realloc(v, 64 * sizeof(int)));  // keeps the first 4 values
    for (int i = 0; i < 4; ++i) bad |= v[i] != me + i;
    bad |= flags == nullptr;
    ishmem_free(v);
    ishmem_free(flags);
    ishmem_free(aligned);
    ishmem_free(zeros);
    std::printf("memory_alloc: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
