// Bitwise atomics: each PE sets, clears and flips its own bit of words held by PE 0.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    unsigned int* words = static_cast<unsigned int*>(ishmem_malloc(3 * sizeof(unsigned int)));
    const unsigned int bit = 1u << me, all = (1u << n) - 1;
    const unsigned int start[3] = {0u, all, 0u};
    if (me == 0) ishmem_uint_put(words, start, 3, 0);
    ishmem_barrier_all();
    ishmem_uint_atomic_or(&words[0], bit, 0);                                 // sets my bit
    ishmem_uint_atomic_and(&words[1], ~bit, 0);                               // clears it
    ishmem_uint_atomic_xor(&words[2], bit, 0);                                // flips it
    const unsigned int o = ishmem_uint_atomic_fetch_or(&words[0], bit, 0);    // already set
    const unsigned int a = ishmem_uint_atomic_fetch_and(&words[1], ~bit, 0);  // already clear
    ishmem_uint_atomic_fetch_xor(&words[2], 0u, 0);                           // flips nothing
    ishmem_barrier_all();
    unsigned int got[3];
    ishmem_uint_get(got, words, 3, 0);
    const int bad = got[0] != all || got[1] != 0 || got[2] != all || !(o & bit) || (a & bit);
    std::printf("amo_bitwise: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
