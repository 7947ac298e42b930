// Store straight into the right neighbour's copy of a symmetric variable when it is reachable by
// load/store (ishmem_ptr), and check that every PE can reach every other.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n;
    int* slot = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    int bad = !ishmemx_pe_accessible(right) || !ishmemx_addr_accessible(slot, right);
    int* remote = static_cast<int*>(ishmem_ptr(slot, right));
    if (remote == nullptr)
        bad = 1;  // not directly reachable: ishmem_int_p(slot, me, right) would do
    else
        *remote = me + 100;
    ishmem_barrier_all();
    if (*slot != (me + n - 1) % n + 100) bad = 1;
    std::printf("setup_ptr: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
