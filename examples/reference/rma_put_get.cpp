// Put a block into the right neighbour, then get the left neighbour's block back.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    constexpr size_t len = 16;
    int* inbox = static_cast<int*>(ishmem_malloc(len * sizeof(int)));
    int mine[len], got[len];
    for (size_t i = 0; i < len; ++i) mine[i] = me * 1000 + static_cast<int>(i);
    ishmem_int_put(inbox, mine, len, right);  // typed name; ishmem_put(inbox, mine, len, right) too
    ishmem_barrier_all();                     // completes the puts and waits for all PEs
    ishmem_get(got, inbox, len, left);        // the left neighbour's inbox holds what its left sent
    int bad = 0;
    for (size_t i = 0; i < len; ++i) {
        bad |= inbox[i] != left * 1000 + static_cast<int>(i);
        bad |= got[i] != ((left + n - 1) % n) * 1000 + static_cast<int>(i);
    }
    std::printf("rma_put_get: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
