/* hello_shmem: the smallest complete OpenSHMEM program in C, built against ishmem's shmem.h. Every
   PE adds its number to a counter on PE 0; PE 0 checks the total.
     ishmrun -n 4 ./hello_shmem */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    long* total = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(total, me, 0);
    shmem_barrier_all();
    int status = 0;
    if (me == 0) {
        const long expected = (long)n * (n - 1) / 2;
        status = shmem_long_atomic_fetch(total, 0) != expected;
        printf("hello from C on %d PEs: total %ld: %s\n", n, *total, status ? "WRONG" : "OK");
    }
    shmem_free(total);
    shmem_finalize();
    return status;
}
