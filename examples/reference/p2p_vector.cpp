// Waiting with one comparison value per variable (the _vector forms): PE 0 waits until every other
// PE has counted its slot up to that PE's number plus one.
#include <ishmem.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* slots = static_cast<long*>(ishmem_calloc(n, sizeof(long)));
    std::vector<long> goal(n);
    std::vector<size_t> idx(n);
    for (int pe = 0; pe < n; ++pe) goal[pe] = pe + 1;
    int bad = 0;
    if (me != 0) {
        for (int k = 0; k <= me; ++k) ishmem_long_atomic_inc(&slots[me], 0);
    } else {
        slots[0] = 1;  // PE 0's own slot is reached at once
        const size_t one = ishmem_long_wait_until_any_vector(slots, n, nullptr, ISHMEM_CMP_EQ, goal.data());
        const size_t some =
            ishmem_long_wait_until_some_vector(slots, n, idx.data(), nullptr, ISHMEM_CMP_EQ, goal.data());
        ishmem_long_wait_until_all_vector(slots, n, nullptr, ISHMEM_CMP_EQ, goal.data());
        bad = one >= static_cast<size_t>(n) || some < 1 ||
              !ishmem_long_test_all_vector(slots, n, nullptr, ISHMEM_CMP_EQ, goal.data()) ||
              ishmem_long_test_any_vector(slots, n, nullptr, ISHMEM_CMP_EQ, goal.data()) == SIZE_MAX ||
              ishmem_long_test_some_vector(slots, n, idx.data(), nullptr, ISHMEM_CMP_EQ, goal.data()) !=
                  static_cast<size_t>(n);
    }
    std::printf("p2p_vector: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
