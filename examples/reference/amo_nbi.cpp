// Non-blocking fetching atomics: start several on PE 0's counters, then collect the fetched values
// after ishmem_quiet.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    using u64 = unsigned long;
    u64* c = static_cast<u64*>(ishmem_calloc(6, sizeof(u64)));  // six counters on every PE
    u64 f[8];                                                   // the fetched values land here
    const u64 bit = 1UL << me, bits = (1UL << n) - 1;
    ishmem_ulong_atomic_fetch_add_nbi(&f[0], &c[0], 5, 0);
    ishmem_ulong_atomic_fetch_inc_nbi(&f[1], &c[1], 0);
    ishmem_ulong_atomic_fetch_or_nbi(&f[2], &c[2], bit, 0);
    ishmem_ulong_atomic_fetch_xor_nbi(&f[3], &c[3], bit, 0);
    ishmem_ulong_atomic_fetch_and_nbi(&f[4], &c[4], 0, 0);
    ishmem_ulong_atomic_swap_nbi(&f[5], &c[5], me, 0);
    ishmem_ulong_atomic_compare_swap_nbi(&f[6], &c[4], 1, 2, 0);  // c[4] stays 0: no swap
    ishmem_ulong_atomic_fetch_nbi(&f[7], &c[1], 0);
    ishmem_quiet();  // every f[i] is valid now
    ishmem_barrier_all();
    u64 end[6];
    ishmem_ulong_get(end, c, 6, 0);
    const int bad = end[0] != 5UL * n || end[1] != u64(n) || end[2] != bits || end[3] != bits || end[4] != 0 ||
                    end[5] >= u64(n) || f[0] % 5 != 0 || f[1] >= u64(n) || (f[2] & bit) || f[6] != 0 || f[7] < 1;
    std::printf("amo_nbi: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
