// Teams: split the world into the even PEs, ask the team about itself and translate numbers.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    ishmem_team_config_t want = {};
    want.num_contexts = 2;
    ishmem_team_t even = ISHMEM_TEAM_INVALID;  // collective: every PE calls, odd PEs get INVALID
    int bad =
        ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &want, ISHMEM_TEAM_NUM_CONTEXTS, &even) != 0;
    if (me % 2 == 0) {
        ishmem_team_config_t got = {};
        bad |= ishmem_team_get_config(even, ISHMEM_TEAM_NUM_CONTEXTS, &got) != 0 || got.num_contexts != 2;
        bad |= ishmem_team_my_pe(even) != me / 2 || ishmem_team_n_pes(even) != (n + 1) / 2;
        bad |= ishmem_team_translate_pe(even, 1 % ishmem_team_n_pes(even), ISHMEM_TEAM_WORLD) != (n > 1 ? 2 % n : 0);
        ishmem_team_destroy(even);
    } else {
        bad |= even != ISHMEM_TEAM_INVALID;
    }
    std::printf("teams_split: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}
