// Concatenation: fcollect joins equal contributions; collect joins contributions of different
// sizes (PE i gives i + 1 elements).
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* src = static_cast<int*>(ishmem_malloc((n + 1) * sizeof(int)));
    int* all = static_cast<int*>(ishmem_malloc(n * (n + 1) * sizeof(int)));
    for (int i = 0; i <= n; ++i) src[i] = me;
    int bad = ishmem_int_fcollect(ISHMEM_TEAM_WORLD, all, src, 2) != 0;  // 2 from each PE
    for (int i = 0; i < 2 * n; ++i) bad |= all[i] != i / 2;
    bad |= ishmem_int_collect(ISHMEM_TEAM_WORLD, all, src, me + 1) != 0;  // 0, 1, 1, 2, 2, 2, ...
    for (int pe = 0, at = 0; pe < n; ++pe)
        for (int k = 0; k <= pe; ++k) bad |= all[at++] != pe;
    std::printf("coll_collect: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
