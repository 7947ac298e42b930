// Compile-only: the C++ templates of shmem.h take OpenSHMEM's argument spellings (a const source of
// atomic_fetch, const or plain comparison values, a literal comparison value, a context first).
#include <shmem.h>

long shmem_templates_fetch(const long* source, shmem_ctx_t ctx) {
    long fetched = 0;
    shmem_atomic_fetch_nbi(&fetched, source, 0);
    shmem_atomic_fetch_nbi(ctx, &fetched, source, 0);
    return fetched + shmem_atomic_fetch(source, 0) + shmem_atomic_fetch(ctx, source, 0);
}

void shmem_templates_wait(long* ivars, const long* const_values, long* values, shmem_ctx_t ctx) {
    shmem_wait_until_all_vector(ivars, 2, nullptr, SHMEM_CMP_EQ, const_values);
    shmem_wait_until_all_vector(ivars, 2, nullptr, SHMEM_CMP_EQ, values);
    shmem_wait_until(ivars, SHMEM_CMP_EQ, 0);
    shmem_put(ctx, ivars, const_values, 2, 0);
    shmem_atomic_add(ctx, ivars, 1, 0);
}
