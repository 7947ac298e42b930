// Prefix sums over the world team: inclusive (own value counted) and exclusive.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe();
    long* src = static_cast<long*>(ishmem_malloc(2 * sizeof(long)));
    long* in = static_cast<long*>(ishmem_malloc(2 * sizeof(long)));
    long* ex = static_cast<long*>(ishmem_malloc(2 * sizeof(long)));
    src[0] = me + 1;
    src[1] = 10;
    int bad = ishmem_long_sum_inscan(ISHMEM_TEAM_WORLD, in, src, 2) != 0;
    bad |= ishmem_long_sum_exscan(ISHMEM_TEAM_WORLD, ex, src, 2) != 0;
    const long upto = static_cast<long>(me) * (me + 1) / 2;  // 1 + 2 + ... + me
    bad |= in[0] != upto + me + 1 || in[1] != 10L * (me + 1) || ex[0] != upto || ex[1] != 10L * me;
    std::printf("coll_scan: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
