// A job started by mpirun (MPI bootstrap, ishmem::mpi): every PE reaches every other PE's heap.
// Each PE puts its number into slot [me] of every PE's array and reads every PE's array back with
// loads through ishmem_ptr; prints "mpi heap of N PEs: OK" on PE 0 when every value is right.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* slots = static_cast<int*>(ishmem_calloc(static_cast<size_t>(n), sizeof(int)));
    for (int pe = 0; pe < n; ++pe) ishmem_int_p(slots + me, 1000 * pe + me, pe);
    ishmem_quiet();
    ishmem_barrier_all();
    int bad = 0;
    for (int pe = 0; pe < n; ++pe) {
        const int* theirs = static_cast<const int*>(ishmem_ptr(slots, pe));
        if (!theirs) {
            std::printf("PE %d: ishmem_ptr to PE %d is null\n", me, pe);
            ++bad;
            continue;
        }
        for (int from = 0; from < n; ++from)
            if (theirs[from] != 1000 * pe + from) {
                std::printf("PE %d: PE %d's slot [%d] holds %d, expected %d\n", me, pe, from, theirs[from], 1000 * pe + from);
                ++bad;
            }
    }
    int* bads = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    ishmem_int_atomic_add(bads, bad, 0);
    ishmem_barrier_all();
    if (me == 0) std::printf("mpi heap of %d PEs: %s\n", n, *bads == 0 ? "OK" : "WRONG");
    const int status = *static_cast<volatile int*>(bads) == 0 ? 0 : 1;
    ishmem_barrier_all();
    ishmem_free(bads);
    ishmem_free(slots);
    ishmem_finalize();
    return status;
}
