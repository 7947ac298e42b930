// Built against the installed package; every PE adds its number into PE 0 and PE 0 checks the sum.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    long* sum = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    ishmem_long_atomic_add(sum, ishmem_my_pe(), 0);
    ishmem_barrier_all();
    int rc = 0;
    if (ishmem_my_pe() == 0) {
        const long n = ishmem_n_pes(), want = n * (n - 1) / 2;
        std::printf("consumer: sum %ld, expected %ld\n", *sum, want);
        rc = *sum == want ? 0 : 1;
    }
    ishmem_free(sum);
    ishmem_finalize();
    return rc;
}
