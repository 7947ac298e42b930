// The deprecated OpenSHMEM routines of shmem.h that are more than a call of a current one:
// start_pes, and the wait and test of short variables (the library's waits take 32 bits and more).
#include <cstdint>
#include <cstdlib>

#include "ishmem.h"
#include "ishmem/impl/runtime.h"

using namespace ishmemi;

namespace {
void finalize_at_exit() {
    if (ishmemi::state.initialized) ishmem_finalize();
}
}  // namespace

// start_pes: initializes once; a program that ends without shmem_finalize (as those written for
// start_pes do) finalizes at exit.
ISHMEM_C_API void ishmemi_start_pes(int npes) {
    (void)npes;  // OpenSHMEM ignores it: the launcher decides the number of PEs
    if (ishmemi::state.initialized) return;
    ishmem_init();
    std::atexit(finalize_at_exit);
}

namespace {

template <class T> void check_16(const char* routine, const T* ivar, int cmp) {
    check_init(routine);
    check_cmp(routine, cmp);
    check_symmetric(routine, "ivar", ivar, sizeof(T));
    check_aligned(routine, "ivar", ivar, alignof(T));
}

template <class T> void wait_16(const char* routine, T* ivar, int cmp, T value) {
    check_16(routine, ivar, cmp);
    // The library's waits take 32 bits and more: watch the aligned 32-bit word that holds ivar.
    auto* word = reinterpret_cast<int*>(reinterpret_cast<uintptr_t>(ivar) & ~uintptr_t{3});
    for (;;) {
        const int w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        if (ishmemi::compare<T>(cmp, __atomic_load_n(ivar, __ATOMIC_ACQUIRE), value)) return;
        ishmem_int_wait_until(word, ISHMEM_CMP_NE, w);  // returns at once if ivar changed since w was read
    }
}

template <class T> int test_16(const char* routine, T* ivar, int cmp, T value) {
    check_16(routine, ivar, cmp);
    return ishmemi::compare<T>(cmp, __atomic_load_n(ivar, __ATOMIC_ACQUIRE), value) ? 1 : 0;
}
}  // namespace

ISHMEM_C_API void ishmemi_wait_short(const char* routine, short* ivar, int cmp, short value) {
    wait_16(routine, ivar, cmp, value);
}
ISHMEM_C_API void ishmemi_wait_ushort(const char* routine, unsigned short* ivar, int cmp, unsigned short value) {
    wait_16(routine, ivar, cmp, value);
}
ISHMEM_C_API int ishmemi_test_short(const char* routine, short* ivar, int cmp, short value) {
    return test_16(routine, ivar, cmp, value);
}
ISHMEM_C_API int ishmemi_test_ushort(const char* routine, unsigned short* ivar, int cmp, unsigned short value) {
    return test_16(routine, ivar, cmp, value);
}
