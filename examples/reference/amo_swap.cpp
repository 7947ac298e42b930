// Set, swap and compare-and-swap: the PEs elect one winner with compare_swap on PE 0's word.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* owner = static_cast<int*>(ishmem_malloc(sizeof(int)));
    int* last = static_cast<int*>(ishmem_malloc(sizeof(int)));
    if (me == 0) {
        ishmem_int_atomic_set(owner, -1, 0);  // -1: free
        ishmem_int_atomic_set(last, -1, 0);
    }
    ishmem_barrier_all();
    const int was = ishmem_int_atomic_compare_swap(owner, -1, me, 0);  // only the first PE gets -1
    const int previous = ishmem_int_atomic_swap(last, me, 0);          // leaves some PE's number
    ishmem_barrier_all();
    const int winner = ishmem_int_atomic_fetch(owner, 0);
    int* won = static_cast<int*>(ishmem_malloc(sizeof(int)));
    *won = was == -1;
    ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, won, won, 1);  // how many PEs saw -1: exactly one
    const int bad = *won != 1 || winner < 0 || winner >= n || previous < -1 || previous >= n;
    std::printf("amo_swap: PE %d: winner %d: %s\n", me, winner, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
