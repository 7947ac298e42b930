// Waiting on a set of variables: every other PE sets its own flag on PE 0; PE 0 takes the flags as
// they come (any, some) and then checks that all are set (all).
#include <ishmem.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* flags = static_cast<int*>(ishmem_calloc(n, sizeof(int)));
    int bad = 0;
    if (me != 0) {
        ishmem_int_atomic_set(&flags[me], 1, 0);
    } else if (n > 1) {
        std::vector<int> skip(n, 0);
        skip[0] = 1;  // PE 0 sends nothing: leave it out
        const size_t first = ishmem_int_wait_until_any(flags, n, skip.data(), ISHMEM_CMP_EQ, 1);
        std::vector<size_t> idx(n);
        const size_t some = ishmem_int_wait_until_some(flags, n, idx.data(), skip.data(), ISHMEM_CMP_EQ, 1);
        ishmem_int_wait_until_all(flags, n, skip.data(), ISHMEM_CMP_EQ, 1);
        const int all = ishmem_int_test_all(flags, n, skip.data(), ISHMEM_CMP_EQ, 1);
        const size_t any = ishmem_int_test_any(flags, n, skip.data(), ISHMEM_CMP_EQ, 1);
        const size_t now = ishmem_int_test_some(flags, n, idx.data(), skip.data(), ISHMEM_CMP_EQ, 1);
        bad = first == 0 || first >= static_cast<size_t>(n) || some < 1 || !all || any == SIZE_MAX ||
              now != static_cast<size_t>(n - 1);
    }
    std::printf("p2p_sets: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
