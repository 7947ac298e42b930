// A job started by mpirun (MPI bootstrap, ishmem::mpi): every PE reaches every other PE's heap
// and global variables. Each PE puts its number into slot [me] of every PE's heap array and of
// every PE's global array (bss), and reads every PE's arrays back with loads through ishmem_ptr;
// prints "mpi heap of N PEs: OK" on PE 0 when every value is right.
#include <ishmem.h>

#include <cstdio>

namespace {
int global_slots[64];  // symmetric on the host backend, as the executable's bss
int check(const int* mine, int me, int n, const char* what) {
    int bad = 0;
    for (int pe = 0; pe < n; ++pe) {
        const int* theirs = static_cast<const int*>(ishmem_ptr(mine, pe));
        if (!theirs) {
            std::printf("PE %d: ishmem_ptr to PE %d's %s is null\n", me, pe, what);
            ++bad;
            continue;
        }
        for (int from = 0; from < n; ++from)
            if (theirs[from] != 1000 * pe + from) {
                std::printf("PE %d: PE %d's %s slot [%d] holds %d, expected %d\n", me, pe, what, from, theirs[from],
                            1000 * pe + from);
                ++bad;
            }
    }
    return bad;
}
}  // namespace

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* slots = static_cast<int*>(ishmem_calloc(static_cast<size_t>(n), sizeof(int)));
    for (int pe = 0; pe < n; ++pe) ishmem_int_p(slots + me, 1000 * pe + me, pe);
    for (int pe = 0; pe < n; ++pe) {
        const int v = 1000 * pe + me;
        ishmem_int_put(global_slots + me, &v, 1, pe);
    }
    ishmem_quiet();
    ishmem_barrier_all();
    int bad = check(slots, me, n, "heap") + check(global_slots, me, n, "global");
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
