// teams: split the PEs into even and odd teams, sum a small vector over each team, broadcast the
// even team's result to every PE, and check both against the closed forms. PE 0 prints the verdict.
//   ishmrun -n 4 ./teams
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    constexpr size_t len = 4;
    long* mine = static_cast<long*>(ishmem_malloc(len * sizeof(long)));
    long* sum = static_cast<long*>(ishmem_malloc(len * sizeof(long)));
    long* even_sum = static_cast<long*>(ishmem_malloc(len * sizeof(long)));
    for (size_t i = 0; i < len; ++i) mine[i] = me * 10 + static_cast<long>(i);

    // Both splits are collective over the world: every PE calls both and is in exactly one team.
    ishmem_team_t even = ISHMEM_TEAM_INVALID, odd = ISHMEM_TEAM_INVALID;
    ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even);
    if (n > 1) ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd);
    const ishmem_team_t my_team = me % 2 == 0 ? even : odd;
    ishmem_long_sum_reduce(my_team, sum, mine, len);

    // The even team's result, held in sum on world PE 0, to everybody.
    ishmem_long_broadcast(even_sum, sum, len, 0);

    // Check: the even PEs 0, 2, ... sum to 10 * (0 + 2 + ...) + i * (number of even PEs).
    int bad = 0;
    long evens = 0, count = 0, others = 0, other_count = 0;
    for (int pe = 0; pe < n; ++pe) {
        if (pe % 2 == 0) evens += pe, ++count;
        if (pe % 2 == me % 2) others += pe, ++other_count;
    }
    for (size_t i = 0; i < len; ++i) {
        bad += even_sum[i] != 10 * evens + static_cast<long>(i) * count;
        bad += sum[i] != 10 * others + static_cast<long>(i) * other_count;
    }
    int* all_bad = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    ishmem_int_atomic_add(all_bad, bad, 0);
    ishmem_barrier_all();
    if (me == 0)
        std::printf("teams of %d PEs: even-team sum %ld %ld %ld %ld, %s\n", n, even_sum[0], even_sum[1], even_sum[2],
                    even_sum[3], *all_bad == 0 ? "OK" : "WRONG");
    const int status = me == 0 && *all_bad != 0 ? 1 : 0;
    ishmem_team_destroy(even);
    ishmem_team_destroy(odd);
    ishmem_barrier_all();
    ishmem_free(all_bad);
    ishmem_free(even_sum);
    ishmem_free(sum);
    ishmem_free(mine);
    ishmem_finalize();
    return status;
}
