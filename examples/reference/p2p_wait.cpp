// Waiting on one variable: PE 0 releases the others one step at a time; they block (wait_until,
// wait) or poll (test).
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* step = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    int bad = 0;
    if (me == 0) {
        for (int pe = 1; pe < n; ++pe) ishmem_long_atomic_set(step, 1, pe);
        for (int pe = 1; pe < n; ++pe) ishmem_long_atomic_set(step, 2, pe);
        for (int pe = 1; pe < n; ++pe) ishmem_long_atomic_set(step, 3, pe);
    } else {
        ishmem_long_wait_until(step, ISHMEM_CMP_GE, 1);       // blocks until step >= 1
        while (!ishmem_long_test(step, ISHMEM_CMP_GE, 2)) {}  // polls; could do other work here
        ishmemx_wait(step, 2L);                               // blocks while step == 2
        bad = *step != 3;
    }
    std::printf("p2p_wait: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
