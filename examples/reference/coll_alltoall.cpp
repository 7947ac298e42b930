// All-to-all exchange: block j of every PE's source goes to PE j; the strided form skips every
// other element on both sides.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    constexpr int k = 3;  // elements per block
    long* src = static_cast<long*>(ishmem_malloc(2 * k * n * sizeof(long)));
    long* dst = static_cast<long*>(ishmem_malloc(2 * k * n * sizeof(long)));
    for (int i = 0; i < 2 * k * n; ++i) src[i] = 1000L * me + i;
    int bad = ishmem_long_alltoall(ISHMEM_TEAM_WORLD, dst, src, k) != 0;
    for (int pe = 0; pe < n; ++pe)  // block pe of dst came from PE pe's block me
        for (int i = 0; i < k; ++i) bad |= dst[pe * k + i] != 1000L * pe + me * k + i;
    bad |= ishmemx_long_alltoalls(ISHMEM_TEAM_WORLD, dst, src, 2, 2, k) != 0;
    for (int pe = 0; pe < n; ++pe)
        for (int i = 0; i < k; ++i) bad |= dst[2 * (pe * k + i)] != 1000L * pe + 2 * (me * k + i);
    std::printf("coll_alltoall: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
