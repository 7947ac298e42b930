// A 2D grid of PEs: rows of 2, each PE gets its row team and its column team.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    ishmem_team_t row = ISHMEM_TEAM_INVALID, col = ISHMEM_TEAM_INVALID;
    int bad = ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 2, nullptr, 0, &row, nullptr, 0, &col) != 0;
    bad |= ishmem_team_my_pe(row) != me % 2 || ishmem_team_my_pe(col) != me / 2;
    bad |= ishmem_team_translate_pe(col, 0, ISHMEM_TEAM_WORLD) != me % 2;  // top of my column
    bad |= ishmem_team_n_pes(col) != (n - me % 2 + 1) / 2;
    ishmem_team_destroy(row);
    ishmem_team_destroy(col);
    std::printf("teams_2d: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
