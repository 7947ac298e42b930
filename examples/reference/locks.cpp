// A distributed lock guards a read-modify-write of a counter on PE 0 made of separate get and put.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* lock = static_cast<long*>(ishmem_calloc(1, sizeof(long)));  // zero: free
    int* counter = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    for (int round = 0; round < 100; ++round) {
        if (round % 2 == 0)
            ishmemx_set_lock(lock);  // waits its turn
        else
            while (ishmemx_test_lock(lock) != 0) {}  // 0: taken without waiting
        const int seen = ishmem_int_g(counter, 0);
        ishmem_int_p(counter, seen + 1, 0);
        ishmemx_clear_lock(lock);  // completes the put, then releases
    }
    ishmem_barrier_all();
    const int total = ishmem_int_g(counter, 0), bad = total != 100 * n;
    std::printf("locks: PE %d: counter %d: %s\n", me, total, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
