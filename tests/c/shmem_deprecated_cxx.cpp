// shmem.h's deprecated routines, shmem_sync of both kinds, and the long double and complex
// routines, called from C++ (overloads, std::complex): compiling is the test.
#include <shmem.h>

#include <complex>

long psync[SHMEM_BARRIER_SYNC_SIZE];
long double ld[4];
std::complex<double> cd[4];
std::complex<float> cf[4];
int counter;
short s16;

void shmem_deprecated_cxx_calls() {
    start_pes(0);
    shmem_sync(0, 0, _num_pes(), psync);
    shmem_sync(SHMEM_TEAM_WORLD);
    shmem_barrier(0, 0, shmem_n_pes(), psync);
    shmem_put(ld, ld + 2, 2, _my_pe());
    shmem_longdouble_p(ld, 1.0L, 0);
    shmem_sum_reduce(SHMEM_TEAM_WORLD, cd, cd + 2, 2);
    shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, cf, cf + 2, 2);
    shmem_complexd_sum_to_all(cd, cd + 2, 2, 0, 0, 1, cd + 3, psync);
    shmem_max_reduce(SHMEM_TEAM_WORLD, ld, ld + 2, 2);
    (void)shmem_fadd(&counter, 1, 0);
    shmem_wait(&counter, 0);
    shmem_short_wait_until(&s16, SHMEM_CMP_EQ, 0);
    shmem_udcflush();
}
