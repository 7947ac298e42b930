// Strided RMA: scatter a vector into every other slot of a neighbour's array, gather it back.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n;
    constexpr size_t len = 8;
    long* spread = static_cast<long*>(ishmem_calloc(2 * len, sizeof(long)));
    long mine[len], back[len];
    for (size_t i = 0; i < len; ++i) mine[i] = me * 100 + static_cast<long>(i);
    ishmem_long_iput(spread, mine, 2, 1, len, right);  // dest stride 2, source stride 1
    ishmem_barrier_all();
    ishmem_long_iget(back, spread, 1, 2, len, right);  // read our own values back from the right
    int bad = 0;
    for (size_t i = 0; i < len; ++i) bad |= back[i] != mine[i] || spread[2 * i + 1] != 0;
    std::printf("rma_strided: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
