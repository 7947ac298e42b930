// Broadcast: the last PE's array goes to every PE of the world team.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), root = n - 1;
    constexpr size_t len = 32;
    double* src = static_cast<double*>(ishmem_malloc(len * sizeof(double)));
    double* dst = static_cast<double*>(ishmem_malloc(len * sizeof(double)));
    for (size_t i = 0; i < len; ++i) src[i] = me + 0.25 * i;
    int bad = ishmem_broadcast(ISHMEM_TEAM_WORLD, dst, src, len, root) != 0;  // generic form
    for (size_t i = 0; i < len; ++i) bad |= dst[i] != root + 0.25 * i;
    std::printf("coll_broadcast: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
