// Barriers: a barrier completes puts and waits for all PEs; sync_all and team_sync only wait, so
// a put before them is completed with quiet first.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int* box = static_cast<int*>(ishmem_calloc(3, sizeof(int)));
    ishmem_int_p(&box[0], me + 1, right);
    ishmem_barrier_all();
    int bad = box[0] != left + 1;  // written by the left neighbour
    ishmem_int_p(&box[1], 2, right);
    ishmem_quiet();
    ishmem_sync_all();
    bad |= box[1] != 2;
    ishmem_int_p(&box[2], 3, right);
    ishmem_quiet();
    bad |= ishmem_team_sync(ISHMEM_TEAM_WORLD) != 0 || box[2] != 3;
    std::printf("coll_barrier: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
