// Reductions over the world team: sum, product, min and max of ints; bitwise and, or, xor of
// unsigned ints.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* v = static_cast<int*>(ishmem_malloc(8 * sizeof(int)));                 // [0, 4): in, [4, 8): out
    unsigned* b = static_cast<unsigned*>(ishmem_malloc(6 * sizeof(unsigned)));  // [0, 3): in, [3, 6): out
    for (int i = 0; i < 4; ++i) v[i] = me + 1;
    for (int i = 0; i < 3; ++i) b[i] = 1u << me;
    ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, &v[4], &v[0], 1);
    ishmem_int_prod_reduce(ISHMEM_TEAM_WORLD, &v[5], &v[1], 1);
    ishmem_int_min_reduce(ISHMEM_TEAM_WORLD, &v[6], &v[2], 1);
    ishmem_max_reduce(ISHMEM_TEAM_WORLD, &v[7], &v[3], 1);  // generic form
    ishmem_uint_or_reduce(ISHMEM_TEAM_WORLD, &b[3], &b[0], 1);
    ishmem_uint_xor_reduce(ISHMEM_TEAM_WORLD, &b[4], &b[1], 1);
    ishmem_uint_and_reduce(ISHMEM_TEAM_WORLD, &b[5], &b[2], 1);
    int fact = 1;
    for (int i = 2; i <= n; ++i) fact *= i;
    const unsigned bits = (1u << n) - 1;
    const int bad = v[4] != n * (n + 1) / 2 || v[5] != fact || v[6] != 1 || v[7] != n || b[3] != bits || b[4] != bits ||
                    b[5] != (n == 1 ? 1u : 0u);
    std::printf("coll_reduce: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
